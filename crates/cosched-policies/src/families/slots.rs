//! Helpers shared by the queue-based policies: which thread each context runs,
//! the order in which idle contexts are filled, and per-context quantum timers.

use crate::ids::{CtxId, Nanos, ThreadId};
use crate::policy::Decision;
use crate::topology::Topology;

use super::knob::TIME_MS;

cosched_core::options! {
    /// The round-robin policies' knob (G-RRS, P-RRS, WSS, random, static):
    /// the fixed quantum, 4 ms on the simulator and 100 ms on the real
    /// runtime, where each switch is a freeze and thaw of a process tree.
    pub struct SlotsKnobs of "the round-robin policies", "SLITS §5.2 (G-RRS, P-RRS, WSS)" {
        /// time quantum of the round-robin policies
        quantum_ms: f64 = (TIME_MS, "4", real "100", unit "ms"),
    }
}

/// The policy's own record of what runs where, plus the quantum timers.
pub(crate) struct Slots {
    /// Thread on each context.
    pub running: Vec<Option<ThreadId>>,
    /// Contexts in fill order: the first context of every core, then the second, …
    /// (spreading over cores before stacking SMT siblings, as Linux does).
    pub order: Vec<CtxId>,
}

impl Slots {
    pub fn new(topo: &Topology) -> Slots {
        Slots { running: vec![None; topo.n_contexts()], order: spread_order(topo) }
    }

    /// Idle contexts in fill order.
    pub fn idle(&self) -> impl Iterator<Item = CtxId> + '_ {
        self.order.iter().copied().filter(|c| self.running[c.idx()].is_none())
    }

    /// Record and emit a dispatch with a quantum timer keyed by the context.
    pub fn dispatch(&mut self, t: ThreadId, c: CtxId, now: Nanos, quantum: Nanos, out: &mut Vec<Decision>) {
        self.running[c.idx()] = Some(t);
        out.push(Decision::Run { thread: t, ctx: c });
        out.push(Decision::Timer { key: c.0, at: Some(now + quantum) });
    }

    /// Forget what ran on `c` (it blocked or exited) and cancel its timer.
    pub fn vacate(&mut self, c: CtxId, out: &mut Vec<Decision>) -> Option<ThreadId> {
        out.push(Decision::Timer { key: c.0, at: None });
        self.running[c.idx()].take()
    }
}

/// Deals home contexts round-robin over a fill order (P-RRS's and SLITS's
/// per-core assignment of threads as they arrive, SLITS §5.2-5.3).
#[derive(Default)]
pub(crate) struct Dealer {
    dealt: usize,
}

impl Dealer {
    /// The next home in `order`.
    pub fn next(&mut self, order: &[CtxId]) -> CtxId {
        let h = order[self.dealt % order.len()];
        self.dealt += 1;
        h
    }
}

/// Contexts ordered so consecutive entries sit on different cores first.
pub(crate) fn spread_order(topo: &Topology) -> Vec<CtxId> {
    let mut seen_in_core = vec![0u32; topo.n_cores as usize];
    let mut keyed: Vec<(u32, u32, CtxId)> = topo
        .ctx_ids()
        .map(|c| {
            let core = topo.ctx(c).core;
            let k = seen_in_core[core as usize];
            seen_in_core[core as usize] += 1;
            (k, core, c)
        })
        .collect();
    keyed.sort();
    keyed.into_iter().map(|(_, _, c)| c).collect()
}
