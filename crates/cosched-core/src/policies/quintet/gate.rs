//! `quintet`'s task selection: which waiting thread a context runs, as a
//! CFS [`Gate`] under RDA's hold (see `mod.rs` for the design).

use super::interact::Interactions;
use super::params::{Mechanism, QuintetParams};
use crate::counters::Counters;
use crate::ids::{Nanos, ThreadId};
use crate::perf_fair::progress::UNIT_S;
use crate::perf_fair::Progress;
use crate::policies::cfs::{CfsCore, Gate, Pick};
use crate::policies::efs::EfsGate;
use crate::policy::MachineView;

/// Run time over which a thread's reference IPC (its IPC-alone estimate)
/// halves when no interval reaches it: old phases fade.
const REF_HALF_LIFE_S: f64 = 1.0;

/// One thread's open interval: when it started, its counters then and the
/// threads running beside it.
struct Interval {
    at: Nanos,
    counters: Counters,
    corunners: Vec<u32>,
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
            on_ctx: vec![],
            neighbours: vec![],
            picks: (0, 0),
        }
    }

    /// Size the per-thread state and find each context's neighbours.
    pub(crate) fn init(&mut self, view: &dyn MachineView) -> Result<(), crate::policies::PolicyError> {
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
        if self.p.uses(Mechanism::Pairing) {
            self.model = Some(Interactions::new(n, topo.n_contexts(), self.p.fm, self.seed));
        }
        if self.p.uses(Mechanism::Admission) {
            self.efs.init(view).map_err(|e| crate::policies::PolicyError::from(format!("quintet (energy): {e}")))?;
        }
        Ok(())
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
}

impl Gate for QuintetGate {
    fn choose(&mut self, c: usize, core: &CfsCore, view: &dyn MachineView) -> Pick {
        self.choose_allowed(c, core, view, &|_| true)
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
        let mut order = self.window(&cands, core);
        self.picks.0 += 1;
        self.picks.1 += u64::from(order.len() > 1);
        self.rank(c, &mut order);
        if !admission {
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

    fn started(&mut self, t: ThreadId, c: usize, view: &dyn MachineView) {
        self.on_ctx[c] = Some(t);
        let corunners = self.runners(c).into_iter().map(|(r, _)| r as u32).collect();
        if let (Some(slot), Some(counters)) = (self.open.get_mut(t.idx()), view.thread_counters(t)) {
            *slot = Some(Interval { at: view.now(), counters, corunners });
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
        // Perf&Fair Eq. 1 with an opportunistic IPC-alone estimate: the best
        // IPC the thread has shown, fading with a half-life of run time.
        let ipc = d.instructions / d.cycles;
        let r = &mut self.ref_ipc[t.idx()];
        *r = ipc.max(*r * 0.5f64.powf(dt / REF_HALF_LIFE_S));
        self.progress[t.idx()].add(ipc, dt, Some(*r));
    }
}
