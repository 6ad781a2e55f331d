//! The Perf&Fair scheduler and its comparison points (Perf&Fair §5-7), as a
//! quantum-based scheduler like the paper's user-level one (§6.1): at each
//! quantum boundary it accounts the last quantum from counters, selects the
//! processes of the next quantum and allocates them to SMT cores.
//!
//! * `perf-fair`: IPC-estimation mode (100 ms quanta) whenever an estimate
//!   has expired, else performance-and-fairness mode (200 ms): OATR target,
//!   progress restriction, fitness; L1-bandwidth pairing.
//! * `perf`: fitness only (no progress restriction, no estimation), with the
//!   process unscheduled for longest forced in each quantum against
//!   starvation; L1 pairing (Feliu et al., TC 2016).
//! * `fair`: estimation mode as Perf&Fair, otherwise the processes of lowest
//!   progress; L1 pairing (Feliu et al., IPDPS 2015).
//! * `perf-fair-oracle`: Perf&Fair with the standalone IPC from ground truth
//!   (no estimation quanta) and the Ideal Average Bandwidth (average solo
//!   bandwidth × contexts) instead of the OATR. Marked oracle.
//!
//! Readings chosen (also in `docs/perf-fair.md`): one process = one thread;
//! a process never measured is light-sharing; validity counts the quanta a
//! process runs after its estimate; a context whose process blocks or exits
//! mid-quantum stays idle until the next quantum (as the user-level scheduler
//! does); the predicted bandwidth of a process that never ran is 0.

use super::knob::{ms_to_ns, Declared, Kind, TIME_MS};
use crate::counters::Counters;
use crate::ids::{CtxId, Nanos, ThreadId};
use crate::perf_fair::{allocate, estimation_select, oatr, pf_select, Candidate, Progress};
use crate::families::PolicyError;
use crate::policy::{Decision, Event, MachineView, Needs, Policy};

/// Which scheduler of the Perf&Fair study.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// The paper's scheduler.
    PerfFair,
    /// Performance only.
    Perf,
    /// Fairness only.
    Fair,
    /// Perf&Fair with offline (ground-truth) IPC alone and IABW.
    Oracle,
}

/// Perf&Fair knobs (§3, §5).
#[derive(Clone, Debug)]
pub struct PerfFairParams {
    /// Performance-and-fairness quantum (200 ms).
    pub quantum: Nanos,
    /// IPC-estimation quantum (100 ms).
    pub estimation_quantum: Nanos,
    /// Quanta an IPC-alone estimate stays valid (40).
    pub validity: u32,
    /// LLC transactions per µs above which a process is heavy-sharing (19).
    pub llc_threshold: f64,
    /// Main-memory transactions per µs above which a process is heavy-sharing (3.5).
    pub mm_threshold: f64,
}

impl Default for PerfFairParams {
    fn default() -> Self {
        PerfFairParams::from(&PerfFairKnobs::default())
    }
}

cosched_core::options! {
    /// The Perf&Fair family's knobs (§3, §5; defaults are the paper's).
    pub struct PerfFairKnobs of "the Perf&Fair family", "Perf&Fair §5" {
        /// Perf&Fair family: performance-and-fairness quantum
        pf_quantum_ms: f64 = (TIME_MS, "200", unit "ms"),
        /// Perf&Fair family: IPC-estimation quantum
        pf_estimation_quantum_ms: f64 = (TIME_MS, "100", unit "ms", paper "Perf&Fair §4"),
        /// Perf&Fair family: quanta an IPC-alone estimate stays valid
        pf_validity: u32 = (Kind::Int { min: 1, max: 1_000_000 }, "40", unit "quanta", paper "Perf&Fair §4"),
        /// Perf&Fair family: LLC transactions/µs above which a process is heavy-sharing
        pf_llc_threshold: f64 = (Kind::Float { min: 0.001, max: 1e6 }, "19", unit "trans/µs", paper "Perf&Fair §5.2"),
        /// Perf&Fair family: memory transactions/µs above which a process is heavy-sharing
        pf_mm_threshold: f64 = (Kind::Float { min: 0.001, max: 1e6 }, "3.5", unit "trans/µs", paper "Perf&Fair §5.2"),
    }
}

impl From<&PerfFairKnobs> for PerfFairParams {
    /// The parameters the knobs give.
    fn from(k: &PerfFairKnobs) -> PerfFairParams {
        PerfFairParams {
            quantum: ms_to_ns(k.pf_quantum_ms),
            estimation_quantum: ms_to_ns(k.pf_estimation_quantum_ms),
            validity: k.pf_validity,
            llc_threshold: k.pf_llc_threshold,
            mm_threshold: k.pf_mm_threshold,
        }
    }
}

#[derive(Clone, Default)]
struct Proc {
    known: bool,
    runnable: bool,
    done: bool,
    progress: Progress,
    estimate: Option<f64>,
    validity_left: u32,
    bw_mm: Option<f64>,
    bw_llc: f64,
    bw_l1: f64,
    bw_time: f64,
    time_run: f64,
    last_scheduled: u64,
    /// Counters (and, for the Oracle, solo-equivalent seconds) when it was last placed.
    snap: Option<(Nanos, Counters, Option<f64>)>,
    reserved: bool,
    light: bool,
}

/// The Perf&Fair family of policies.
pub struct PerfFair {
    variant: Variant,
    p: PerfFairParams,
    procs: Vec<Proc>,
    on_ctx: Vec<Option<ThreadId>>,
    quantum_no: u64,
    started: bool,
    cores: Vec<Vec<CtxId>>,
}

impl PerfFair {
    /// A scheduler of the given variant.
    pub fn new(variant: Variant, p: PerfFairParams) -> PerfFair {
        PerfFair { variant, p, procs: vec![], on_ctx: vec![], quantum_no: 0, started: false, cores: vec![] }
    }

    /// Accumulated progress of a process (Eq. 1, in 200 ms quanta of solo execution).
    pub fn progress(&self, t: ThreadId) -> Option<f64> {
        self.procs.get(t.idx()).map(|p| p.progress.value)
    }

    fn proc(&mut self, t: ThreadId) -> &mut Proc {
        if self.procs.len() <= t.idx() {
            self.procs.resize(t.idx() + 1, Proc { light: true, ..Proc::default() });
        }
        &mut self.procs[t.idx()]
    }

    /// Account what `t` did since its snapshot.
    fn account(&mut self, t: ThreadId, view: &dyn MachineView) {
        let now = view.now();
        let oracle_solo = self.oracle_solo(t, view);
        let Some(c) = view.thread_counters(t) else { return };
        let (validity, llc_thr, mm_thr) = (self.p.validity, self.p.llc_threshold, self.p.mm_threshold);
        let q = self.quantum_no;
        let p = self.proc(t);
        let Some((at, before, solo_before)) = p.snap.take() else { return };
        let dt = now.saturating_sub(at) as f64 * 1e-9;
        let d = c.since(&before);
        if dt <= 0.0 || d.cycles <= 0.0 {
            return;
        }
        let ipc = d.instructions / d.cycles;
        let per_us = 1.0 / (dt * 1e6);
        let bw_mm = (d.mem_reads + d.mem_writes) * per_us;
        p.bw_mm = Some(bw_mm);
        p.bw_llc = d.llc_accesses * per_us;
        p.bw_l1 = d.l1_accesses * per_us;
        p.bw_time += bw_mm * dt;
        p.time_run += dt;
        p.light = p.bw_llc < llc_thr && bw_mm < mm_thr;
        p.last_scheduled = q;
        if p.reserved {
            p.estimate = Some(ipc);
            p.validity_left = validity;
        } else {
            p.validity_left = p.validity_left.saturating_sub(1);
        }
        match (oracle_solo, solo_before) {
            (Some(now_s), Some(then_s)) => p.progress.add_solo(now_s - then_s),
            _ => p.progress.add(ipc, dt, p.estimate),
        }
    }

    /// The Oracle's exact solo-equivalent seconds of `t` (None for the other variants).
    fn oracle_solo(&self, t: ThreadId, view: &dyn MachineView) -> Option<f64> {
        (self.variant == Variant::Oracle).then(|| view.oracle().and_then(|o| o.solo_seconds(t))).flatten()
    }

    fn candidates(&self) -> Vec<Candidate> {
        self.procs
            .iter()
            .enumerate()
            .filter(|(_, p)| p.known && p.runnable && !p.done)
            .map(|(id, p)| Candidate {
                id,
                progress: p.progress.value,
                bw_mm: p.bw_mm.unwrap_or(0.0),
                light: p.light,
                expired: p.estimate.is_none() || p.validity_left == 0,
                validity_left: p.validity_left,
            })
            .collect()
    }

    fn avg_bw(&self, id: usize) -> f64 {
        let p = &self.procs[id];
        if p.time_run > 0.0 {
            p.bw_time / p.time_run
        } else {
            0.0
        }
    }

    /// Select and allocate the next quantum; returns its length.
    fn schedule(&mut self, view: &dyn MachineView, out: &mut Vec<Decision>) -> Nanos {
        let contexts = view.topology().n_contexts();
        let per_core = view.topology().contexts_per_core().max(1);
        let n_cores = self.cores.len();
        let c = self.candidates();
        let estimating = matches!(self.variant, Variant::PerfFair | Variant::Fair);
        let (reserved, others, len) = match (estimating, estimation_select(&c, n_cores, per_core, self.p.validity / 2))
        {
            (true, Some(e)) => (e.reserved, e.fill, self.p.estimation_quantum),
            _ => {
                let sel = match self.variant {
                    Variant::PerfFair => pf_select(
                        &c,
                        contexts,
                        oatr(&c.iter().map(|x| self.avg_bw(x.id)).collect::<Vec<_>>(), contexts),
                        true,
                    ),
                    Variant::Oracle => {
                        let solo: Vec<f64> = c
                            .iter()
                            .map(|x| {
                                view.oracle().and_then(|o| o.solo_mem_bandwidth(ThreadId(x.id as u32))).unwrap_or(0.0)
                                    / 1e6
                            })
                            .collect();
                        pf_select(&c, contexts, oatr(&solo, contexts), true)
                    }
                    Variant::Fair => {
                        let mut by: Vec<&Candidate> = c.iter().collect();
                        by.sort_by(|a, b| a.progress.total_cmp(&b.progress).then(a.id.cmp(&b.id)));
                        by.into_iter().take(contexts).map(|x| x.id).collect()
                    }
                    Variant::Perf => {
                        // The process unscheduled for longest goes first, against starvation.
                        match c.iter().min_by_key(|x| (self.procs[x.id].last_scheduled, x.id)) {
                            Some(old) => {
                                let rest: Vec<Candidate> = c.iter().filter(|x| x.id != old.id).copied().collect();
                                let target = oatr(&c.iter().map(|x| self.avg_bw(x.id)).collect::<Vec<_>>(), contexts);
                                let mut sel = vec![old.id];
                                sel.extend(pf_select(&rest, contexts - 1, target - old.bw_mm, false));
                                sel
                            }
                            None => vec![],
                        }
                    }
                };
                (vec![], sel, self.p.quantum)
            }
        };
        let l1: Vec<(usize, f64)> = others.iter().map(|&id| (id, self.procs[id].bw_l1)).collect();
        let placed = allocate(&reserved, &l1, n_cores, per_core);
        let mut next: Vec<Option<ThreadId>> = vec![None; contexts];
        for (core, procs) in placed.iter().enumerate() {
            for (k, &id) in procs.iter().enumerate() {
                next[self.cores[core][k].idx()] = Some(ThreadId(id as u32));
            }
        }
        for p in &mut self.procs {
            p.reserved = false;
        }
        for &id in &reserved {
            self.procs[id].reserved = true;
        }
        let now = view.now();
        for (ctx, want) in next.iter().enumerate() {
            if *want == self.on_ctx[ctx] {
                continue;
            }
            match want {
                Some(t) => out.push(Decision::Run { thread: *t, ctx: CtxId(ctx as u32) }),
                None => out.push(Decision::Preempt { ctx: CtxId(ctx as u32) }),
            }
        }
        for t in next.iter().flatten() {
            let solo = self.oracle_solo(*t, view);
            let snap = view.thread_counters(*t).map(|c| (now, c, solo));
            self.proc(*t).snap = snap;
        }
        self.on_ctx = next;
        len
    }
}

impl Policy for PerfFair {
    fn name(&self) -> &'static str {
        match self.variant {
            Variant::PerfFair => "perf-fair",
            Variant::Perf => "perf",
            Variant::Fair => "fair",
            Variant::Oracle => "perf-fair-oracle",
        }
    }

    fn needs(&self) -> Needs {
        Needs { counters: true, smt: true, oracle: self.variant == Variant::Oracle, ..Needs::default() }
    }

    fn init(&mut self, view: &dyn MachineView) -> Result<(), PolicyError> {
        let topo = view.topology();
        self.on_ctx = vec![None; topo.n_contexts()];
        self.cores = vec![vec![]; topo.n_cores as usize];
        for c in topo.ctx_ids() {
            self.cores[topo.ctx(c).core as usize].push(c);
        }
        if self.variant == Variant::Oracle && view.oracle().is_none() {
            return Err("perf-fair-oracle needs ground truth, which this backend does not give".into());
        }
        Ok(())
    }

    fn on_event(&mut self, ev: &Event, view: &dyn MachineView, out: &mut Vec<Decision>) {
        match *ev {
            Event::Arrived { thread, .. } | Event::Runnable { thread } => {
                let p = self.proc(thread);
                p.known = true;
                p.runnable = true;
                if !self.started {
                    self.started = true;
                    out.push(Decision::Timer { key: 0, at: Some(view.now()) });
                }
            }
            Event::Blocked { thread, ctx, .. } | Event::Exited { thread, ctx } => {
                self.account(thread, view);
                let done = matches!(ev, Event::Exited { .. });
                let p = self.proc(thread);
                p.runnable = false;
                p.done = done;
                self.on_ctx[ctx.idx()] = None;
            }
            Event::Timer { key: 0 } => {
                for ctx in 0..self.on_ctx.len() {
                    if let Some(t) = self.on_ctx[ctx] {
                        self.account(t, view);
                    }
                }
                self.quantum_no += 1;
                let len = self.schedule(view, out);
                if self.procs.iter().any(|p| p.known && !p.done) {
                    out.push(Decision::Timer { key: 0, at: Some(view.now() + len) });
                }
            }
            _ => {}
        }
    }
}

/// This family's policies in the registry ([`super::registry`]), at their rank
/// (registry order; `cosched new-policy` files take rank 1000).
pub(crate) const REGISTERED: super::Registered = super::Registered {
    rank: 60,
    policies: &[
    super::PolicyInfo {
        name: "perf-fair",
        description: "Perf&Fair: progress accounting with IPC-alone estimation quanta, OATR fitness restricted to processes behind in progress, L1-bandwidth SMT pairing (Perf&Fair §5)",
        oracle: false,
        knob_groups: &[PerfFairKnobs::GROUP],
        make: |o| Ok(Box::new(PerfFair::new(Variant::PerfFair, o.perf_fair.clone()))),
    },
    super::PolicyInfo {
        name: "perf",
        description: "Perf: bandwidth fitness only, longest-unscheduled process forced in, L1 pairing (Perf&Fair §7 comparison point)",
        oracle: false,
        knob_groups: &[PerfFairKnobs::GROUP],
        make: |o| Ok(Box::new(PerfFair::new(Variant::Perf, o.perf_fair.clone()))),
    },
    super::PolicyInfo {
        name: "fair",
        description: "Fair: estimation quanta and lowest progress first, L1 pairing (Perf&Fair §7 comparison point)",
        oracle: false,
        knob_groups: &[PerfFairKnobs::GROUP],
        make: |o| Ok(Box::new(PerfFair::new(Variant::Fair, o.perf_fair.clone()))),
    },
    super::PolicyInfo {
        name: "perf-fair-oracle",
        description: "Perf&Fair with offline standalone IPC and the Ideal Average Bandwidth from ground truth (Perf&Fair §7 Oracle)",
        oracle: true,
        knob_groups: &[PerfFairKnobs::GROUP],
        make: |o| Ok(Box::new(PerfFair::new(Variant::Oracle, o.perf_fair.clone()))),
    },
    ],
};
