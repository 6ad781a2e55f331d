//! `quintet`'s task selection: which waiting thread a context runs, as a
//! CFS [`Gate`] under RDA's hold (see `mod.rs` for the design).

use super::interact::Interactions;
use super::params::{Mechanism, QuintetParams};
use crate::counters::Counters;
use crate::ids::{Nanos, ThreadId};
use crate::perf_fair::progress::UNIT_S;
use crate::perf_fair::Progress;
use crate::families::cfs::{CfsCore, Gate, Pick};
use crate::families::efs::EfsGate;
use crate::policy::MachineView;

/// Run time over which a thread's reference IPC (its IPC-alone estimate)
/// halves when no interval reaches it: old phases fade.
const REF_HALF_LIFE_S: f64 = 1.0;

/// Run time an IPC measured alone on its core stays the thread's IPC-alone
/// estimate (Perf&Fair §5.1: 40 quanta of 200 ms).
const ALONE_VALID_S: f64 = 8.0;

/// One thread's open interval: when it started, its counters then, the
/// threads running beside it, and whether a sibling ran at any time during it.
struct Interval {
    at: Nanos,
    counters: Counters,
    corunners: Vec<u32>,
    shared: bool,
}

/// The gate.
pub(crate) struct QuintetGate {
    pub(crate) p: QuintetParams,
    seed: u64,
    pub(crate) model: Option<Interactions>,
    pub(crate) efs: EfsGate,
    open: Vec<Option<Interval>>,
    pub(crate) progress: Vec<Progress>,
    ref_ipc: Vec<f64>,
    /// Each thread's IPC measured alone on its core, and the run time it stays valid.
    alone: Vec<Option<(f64, f64)>>,
    /// Each thread's run time so far, s (estimation starts after [`ALONE_VALID_S`] of it).
    run_s: Vec<f64>,
    /// Whether each thread's last interval was light-sharing (Perf&Fair §5.1's thresholds on
    /// LLC and memory bandwidth; a thread never measured is light).
    light: Vec<bool>,
    /// Perf&Fair's light-sharing thresholds (LLC, memory transactions per µs), from its defaults.
    light_thresholds: (f64, f64),
    /// Whether contexts have SMT siblings (estimation alone needs them idle).
    smt: bool,
    on_ctx: Vec<Option<ThreadId>>,
    /// For each context, the contexts whose threads interact with it most:
    /// its SMT siblings on a machine with SMT, else its LLC domain.
    neighbours: Vec<Vec<usize>>,
    /// Picks made, and picks whose window held two or more threads (something to rank).
    pub(crate) picks: (u64, u64),
}

impl QuintetGate {
    pub(crate) fn new(p: QuintetParams, efs: EfsGate, seed: u64) -> QuintetGate {
        QuintetGate {
            p,
            seed,
            model: None,
            efs,
            open: vec![],
            progress: vec![],
            ref_ipc: vec![],
            alone: vec![],
            run_s: vec![],
            light: vec![],
            light_thresholds: {
                let pf = crate::families::perf_fair::PerfFairParams::default();
                (pf.llc_threshold, pf.mm_threshold)
            },
            smt: false,
            on_ctx: vec![],
            neighbours: vec![],
            picks: (0, 0),
        }
    }

    /// Size the per-thread state and find each context's neighbours.
    pub(crate) fn init(&mut self, view: &dyn MachineView) -> Result<(), crate::families::PolicyError> {
        let topo = view.topology();
        let n = view.n_threads_total();
        let smt = topo.contexts_per_core() > 1;
        self.neighbours = topo
            .ctx_ids()
            .map(|c| {
                let me = topo.ctx(c);
                topo.ctx_ids()
                    .filter(|&o| o != c)
                    .filter(|&o| if smt { topo.ctx(o).core == me.core } else { topo.ctx(o).llc == me.llc })
                    .map(|o| o.idx())
                    .collect()
            })
            .collect();
        self.on_ctx = vec![None; topo.n_contexts()];
        self.open = (0..n).map(|_| None).collect();
        self.progress = vec![Progress::default(); n];
        self.ref_ipc = vec![0.0; n];
        self.alone = vec![None; n];
        self.run_s = vec![0.0; n];
        self.light = vec![true; n];
        self.smt = smt;
        if self.p.uses(Mechanism::Pairing) {
            self.model = Some(Interactions::new(n, topo.n_contexts(), self.p.fm, self.seed));
        }
        if self.p.uses(Mechanism::Admission) {
            self.efs.init(view).map_err(|e| crate::families::PolicyError::from(format!("quintet (energy): {e}")))?;
        }
        Ok(())
    }

    /// Whether IPC alone is measured on an idle sibling (progress accounting on an SMT machine).
    pub(crate) fn estimating(&self) -> bool {
        self.smt && self.p.uses(Mechanism::Progress) && self.p.estimate_alone
    }

    /// The threads running beside context `c` that interact with it, with their contexts.
    fn runners(&self, c: usize) -> Vec<(usize, usize)> {
        self.neighbours[c].iter().filter_map(|&o| self.on_ctx[o].map(|t| (t.idx(), o))).collect()
    }

    /// Step 1: the fair window, in preference order. Without progress
    /// accounting, CFS's: threads within one scheduling latency of the
    /// leftmost vruntime. With it (Perf&Fair §3), threads within one latency
    /// of solo-equivalent progress of the least advanced, least advanced first.
    fn window(&self, cands: &[ThreadId], core: &CfsCore) -> Vec<ThreadId> {
        let latency = core.p.latency;
        if self.p.uses(Mechanism::Progress) {
            let key = |t: &ThreadId| self.progress.get(t.idx()).map_or(0.0, |p| p.value);
            let least = cands.iter().map(key).fold(f64::INFINITY, f64::min);
            let slack = latency as f64 * 1e-9 / UNIT_S;
            let mut w: Vec<ThreadId> = cands.iter().copied().filter(|t| key(t) <= least + slack).collect();
            w.sort_by(|a, b| key(a).total_cmp(&key(b)));
            w
        } else {
            let v0 = core.tasks[cands[0].idx()].vruntime;
            cands.iter().copied().filter(|t| core.tasks[t.idx()].vruntime <= v0 + latency).collect()
        }
    }

    /// Step 2 (SLITS §4.3 on relative speeds): the window ranked by the
    /// speed both sides of each co-run are predicted to lose; ties keep the window's order.
    fn rank(&self, c: usize, window: &mut [ThreadId]) {
        let Some(m) = self.model.as_ref() else { return };
        let runners = self.runners(c);
        if runners.is_empty() {
            return;
        }
        let mut keyed: Vec<(f64, usize, ThreadId)> =
            window.iter().enumerate().map(|(i, &t)| (m.cost(t.idx(), c, &runners), i, t)).collect();
        keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        for (slot, k) in window.iter_mut().zip(keyed) {
            *slot = k.2;
        }
    }

    /// Whether thread `t` is due for an IPC-alone estimate: it has run as long as an estimate
    /// lasts (a shorter one would pay an idle sibling for an estimate it barely uses), and has
    /// none still valid.
    fn due(&self, t: ThreadId) -> bool {
        self.run_s.get(t.idx()).is_some_and(|&r| r >= ALONE_VALID_S)
            && self.alone.get(t.idx()).is_none_or(|a| a.is_none_or(|(_, left)| left <= 0.0))
    }

    /// A thread due for its IPC-alone estimate that starts with its siblings idle runs one
    /// Perf&Fair quantum (§5.1's 200 ms), so the estimate is an interval as long as the paper's,
    /// not a CFS slice that starts on a cold cache.
    fn measure_whole_quantum(&self, c: usize, pick: Pick) -> Pick {
        match pick {
            Pick::Thread(t, None) if self.p.measure_quantum && self.due(t) && self.runners(c).is_empty() => {
                Pick::Thread(t, Some((UNIT_S * 1e9) as Nanos))
            }
            other => other,
        }
    }

    /// Steps 1-3 on the candidates `cands`: the fair window, ranked by predicted
    /// interaction, then (energy objectives) the first thread the bus model admits.
    fn pick_from(&mut self, c: usize, cands: &[ThreadId], core: &CfsCore, view: &dyn MachineView) -> Pick {
        let mut order = self.window(cands, core);
        self.picks.0 += 1;
        self.picks.1 += u64::from(order.len() > 1);
        self.rank(c, &mut order);
        if !self.p.uses(Mechanism::Admission) {
            return Pick::Thread(order[0], None);
        }
        // EFS §4.2: the best-ranked thread the bus model admits, then the rest
        // of the queue in vruntime order; none: the context stays idle.
        let threshold = self.efs.threshold(c, core, view);
        let rest = cands.iter().filter(|t| !order.contains(t));
        match order.iter().chain(rest).find(|&&t| self.efs.admits(t, threshold, view)) {
            Some(&t) => Pick::Thread(t, None),
            None => Pick::Idle,
        }
    }
}

impl Gate for QuintetGate {
    fn choose(&mut self, c: usize, core: &CfsCore, view: &dyn MachineView) -> Pick {
        self.choose_allowed(c, core, view, &|_| true)
    }

    /// Perf&Fair selects the least advanced processes machine-wide (§3);
    /// CFS's run queues keep a thread on its context for the whole run, so
    /// the fair window alone only evens out the threads of one queue. With
    /// progress accounting a context pulls the machine's least advanced
    /// waiting thread when it is more than one scheduling latency of
    /// progress behind every thread waiting here.
    fn pull(&mut self, c: usize, core: &CfsCore) -> Option<(ThreadId, usize)> {
        if !self.p.uses(Mechanism::Progress) || !self.p.global_progress {
            return None;
        }
        let key = |t: u32| self.progress.get(t as usize).map_or(0.0, |p| p.value);
        let here = core.rqs[c].tree.iter().map(|&(_, t)| key(t)).fold(f64::INFINITY, f64::min);
        let slack = core.p.latency as f64 * 1e-9 / UNIT_S;
        let (src, t, v) = core
            .rqs
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != c)
            .flat_map(|(i, rq)| rq.tree.iter().map(move |&(_, t)| (i, t)))
            .map(|(i, t)| (i, t, key(t)))
            .min_by(|a, b| a.2.total_cmp(&b.2).then(a.1.cmp(&b.1)))?;
        (v + slack < here).then_some((ThreadId(t), src))
    }

    fn choose_allowed(
        &mut self,
        c: usize,
        core: &CfsCore,
        view: &dyn MachineView,
        allowed: &dyn Fn(ThreadId) -> bool,
    ) -> Pick {
        let cands: Vec<ThreadId> = core.rqs[c].tree.iter().map(|&(_, t)| ThreadId(t)).filter(|t| allowed(*t)).collect();
        if cands.is_empty() {
            return Pick::Idle;
        }
        let admission = self.p.uses(Mechanism::Admission);
        if admission {
            if let Some(p) = self.efs.force_starved(c, core, view, allowed) {
                return p;
            }
        }
        // Perf&Fair §5.1 carried to a CFS run queue: a context whose SMT sibling
        // runs a thread without a valid IPC-alone estimate stays idle, so that
        // the sibling's next interval measures it alone on its core.
        if self.estimating() {
            if self.neighbours[c].iter().any(|&o| self.on_ctx[o].is_some_and(|t| self.due(t))) {
                return Pick::Idle;
            }
            // While a thread elsewhere is measured alone, only light-sharing threads start
            // (Perf&Fair's estimation mode): a heavy one would load the LLC and the bus it is measured on.
            let measured = |t: ThreadId| self.due(t) && self.open[t.idx()].as_ref().is_some_and(|iv| !iv.shared);
            if self.p.light_fill && self.on_ctx.iter().flatten().any(|&t| measured(t)) {
                let light: Vec<ThreadId> = cands.iter().copied().filter(|t| self.light[t.idx()]).collect();
                if light.is_empty() {
                    return Pick::Idle;
                }
                let pick = self.pick_from(c, &light, core, view);
                return self.measure_whole_quantum(c, pick);
            }
            let pick = self.pick_from(c, &cands, core, view);
            return self.measure_whole_quantum(c, pick);
        }
        self.pick_from(c, &cands, core, view)
    }

    fn started(&mut self, t: ThreadId, c: usize, view: &dyn MachineView) {
        self.on_ctx[c] = Some(t);
        let corunners: Vec<u32> = self.runners(c).into_iter().map(|(r, _)| r as u32).collect();
        // Whoever runs beside `c` is no longer alone on its core.
        for &r in &corunners {
            if let Some(Some(iv)) = self.open.get_mut(r as usize) {
                iv.shared = true;
            }
        }
        if let (Some(slot), Some(counters)) = (self.open.get_mut(t.idx()), view.thread_counters(t)) {
            let shared = !corunners.is_empty();
            *slot = Some(Interval { at: view.now(), counters, corunners, shared });
        }
        if self.p.uses(Mechanism::Admission) {
            self.efs.started(t, c, view);
        }
    }

    fn stopped(&mut self, t: ThreadId, c: usize, view: &dyn MachineView) {
        if self.on_ctx[c] == Some(t) {
            self.on_ctx[c] = None;
        }
        if self.p.uses(Mechanism::Admission) {
            self.efs.stopped(t, c, view);
        }
        let Some(iv) = self.open.get_mut(t.idx()).and_then(Option::take) else { return };
        let Some(now) = view.thread_counters(t) else { return };
        let d = now.since(&iv.counters);
        let dt = view.now().saturating_sub(iv.at) as f64 * 1e-9;
        if d.cycles <= 0.0 || d.instructions <= 0.0 || dt <= 0.0 {
            return;
        }
        if let Some(m) = self.model.as_mut() {
            m.record(t.idx(), c, &iv.corunners, d.instructions, d.cycles);
        }
        // Perf&Fair Eq. 1. The IPC-alone estimate: measured alone on its core
        // (`estimating`), valid for ALONE_VALID_S of run time; else the best IPC
        // the thread has shown, fading with a half-life of run time.
        let ipc = d.instructions / d.cycles;
        if self.p.light_fill {
            // Perf&Fair's light-sharing test on the interval's LLC and memory bandwidth.
            let (llc_thr, mm_thr) = self.light_thresholds;
            let per_us = 1.0 / (dt * 1e6);
            self.light[t.idx()] = d.llc_accesses * per_us < llc_thr && (d.mem_reads + d.mem_writes) * per_us < mm_thr;
        }
        let r = &mut self.ref_ipc[t.idx()];
        *r = ipc.max(*r * 0.5f64.powf(dt / REF_HALF_LIFE_S));
        let mut reference = *r;
        self.run_s[t.idx()] += dt;
        if self.estimating() {
            let a = &mut self.alone[t.idx()];
            if !iv.shared {
                *a = Some((ipc, ALONE_VALID_S));
            } else if let Some((_, left)) = a {
                *left -= dt;
            }
            if let Some((alone_ipc, _)) = a {
                reference = *alone_ipc;
            }
        }
        self.progress[t.idx()].add(ipc, dt, Some(reference));
    }
}
