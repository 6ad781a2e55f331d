//! `mpki-pairs`: the worked example of docs/policies.md,
//! the Rust twin of the Python policy there, decision for decision (the
//! test `python/tests/test_policies_doc.py` holds the two to byte-identical
//! reports). Every quantum, the next threads in round-robin order run, and
//! on each core the thread of highest LLC misses per kilo-instruction (over
//! its last quantum) is paired with the one of lowest, the heuristic the
//! papers' contention-aware schedulers refine (a memory-bound thread beside a
//! compute-bound one shares the cache and the bus least; Perf&Fair §5.3 pairs
//! on SMT by L1 bandwidth, SLITS by learned interaction).

use super::knob::{Declared, KnobGroup};
use super::PolicyOptions;
use crate::ids::{CtxId, Nanos, ThreadId};
use crate::policy::{Decision, Event, MachineView, Needs, Policy};
use std::collections::BTreeMap;

/// The knobs it reads: the round-robin quantum.
pub const KNOBS: &[KnobGroup] = &[super::slots::SlotsKnobs::GROUP];

/// The policy.
pub struct MpkiPairs {
    quantum: Nanos,
    /// Runnable threads, in round-robin order.
    queue: Vec<ThreadId>,
    /// Instructions and LLC misses of each thread when last measured.
    last: BTreeMap<ThreadId, (f64, f64)>,
    /// LLC misses per kilo-instruction of each thread over its last measured quantum.
    mpki: BTreeMap<ThreadId, f64>,
    /// The contexts of each core, cores in id order.
    cores: Vec<Vec<CtxId>>,
    /// Whether the quantum timer is armed.
    armed: bool,
}

impl MpkiPairs {
    /// With the options' quantum.
    pub fn new(o: &PolicyOptions) -> MpkiPairs {
        MpkiPairs {
            quantum: o.quantum,
            queue: vec![],
            last: BTreeMap::new(),
            mpki: BTreeMap::new(),
            cores: vec![],
            armed: false,
        }
    }

    /// Measure every runnable thread's MPKI over the quantum that ended.
    fn measure(&mut self, view: &dyn MachineView) {
        for &t in &self.queue {
            let Some(c) = view.thread_counters(t) else { continue };
            let (i, m) = self.last.get(&t).copied().unwrap_or((0.0, 0.0));
            if c.instructions > i {
                self.mpki.insert(t, 1000.0 * (c.llc_misses - m) / (c.instructions - i));
            }
            self.last.insert(t, (c.instructions, c.llc_misses));
        }
    }

    /// Place the first threads of the queue: lowest with highest MPKI on a
    /// core while there are more threads than cores, one per core after.
    fn place(&self, view: &dyn MachineView, out: &mut Vec<Decision>) {
        let n: usize = self.cores.iter().map(Vec::len).sum();
        let mut chosen: Vec<ThreadId> = self.queue.iter().take(n).copied().collect();
        let key = |t: &ThreadId| (self.mpki.get(t).copied().unwrap_or(0.0), t.0);
        chosen.sort_by(|a, b| key(a).partial_cmp(&key(b)).expect("finite MPKI"));
        let pairs = chosen.len().saturating_sub(self.cores.len());
        let mut groups: Vec<Vec<ThreadId>> = vec![];
        let mut rest = std::collections::VecDeque::from(chosen);
        for _ in 0..pairs {
            let lo = rest.pop_front().expect("pair");
            let hi = rest.pop_back().expect("pair");
            groups.push(vec![lo, hi]);
        }
        groups.extend(rest.into_iter().map(|t| vec![t]));
        let mut busy = vec![false; n];
        for (g, core) in groups.iter().zip(&self.cores) {
            for (&t, &c) in g.iter().zip(core) {
                out.push(Decision::Run { thread: t, ctx: c });
                busy[c.idx()] = true;
            }
        }
        for &c in self.cores.iter().flatten() {
            if !busy[c.idx()] && view.running_on(c).is_some() {
                out.push(Decision::Preempt { ctx: c });
            }
        }
    }
}

impl Policy for MpkiPairs {
    fn name(&self) -> &'static str {
        "mpki-pairs"
    }

    fn needs(&self) -> Needs {
        Needs { counters: true, smt: true, ..Needs::default() }
    }

    fn init(&mut self, view: &dyn MachineView) -> Result<(), super::PolicyError> {
        let mut cores: BTreeMap<u32, Vec<CtxId>> = BTreeMap::new();
        for c in view.topology().ctx_ids() {
            cores.entry(view.topology().ctx(c).core).or_default().push(c);
        }
        self.cores = cores.into_values().collect();
        Ok(())
    }

    fn on_event(&mut self, ev: &Event, view: &dyn MachineView, out: &mut Vec<Decision>) {
        match *ev {
            Event::Arrived { thread, .. } | Event::Runnable { thread } => self.queue.push(thread),
            Event::Blocked { thread, .. } | Event::Exited { thread, .. } => self.queue.retain(|&t| t != thread),
            Event::Timer { .. } => {
                self.measure(view);
                let n: usize = self.cores.iter().map(Vec::len).sum::<usize>().min(self.queue.len());
                self.queue.rotate_left(n);
                self.armed = false;
            }
            _ => return,
        }
        if !self.armed && !self.queue.is_empty() {
            out.push(Decision::Timer { key: 0, at: Some(view.now() + self.quantum) });
            self.armed = true;
        }
        self.place(view, out);
    }
}

/// This family's policies in the registry ([`super::registry`]), at their rank
/// (registry order; `cosched new-policy` files take rank 1000).
pub(crate) const REGISTERED: super::Registered = super::Registered {
    rank: 100,
    policies: &[
    super::PolicyInfo {
        name: "mpki-pairs",
        description: "Worked example of docs/policies.md: round-robin quanta, and on each SMT core the highest-MPKI thread beside the lowest",
        oracle: false,
        knob_groups: KNOBS,
        make: |o| Ok(Box::new(MpkiPairs::new(o))),
    },
    ],
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::families::script::Script;
    use crate::topology::Topology;

    /// Scripted events: twice as many threads as contexts on two SMT cores;
    /// every context busy, a whole core's worth of new threads each quantum,
    /// every thread run within two quanta.
    #[test]
    fn every_quantum_the_next_threads_run_on_every_context() {
        let topo = Topology::regular(1, 1, 2, 1, 2);
        let n = topo.n_contexts();
        let mut p = MpkiPairs::new(&PolicyOptions::default());
        let mut s = Script::new(topo, 2 * n, &mut p);
        s.arrive_all(&mut p);
        assert_eq!(s.busy(), n);
        let first: Vec<_> = s.running.iter().flatten().copied().collect();
        s.fire_next_timer(&mut p);
        assert_eq!(s.busy(), n);
        let second: Vec<_> = s.running.iter().flatten().copied().collect();
        assert!(first.iter().all(|t| !second.contains(t)), "{first:?} then {second:?}");
        s.fire_next_timer(&mut p);
        assert_eq!(s.running.iter().flatten().copied().collect::<Vec<_>>().len(), n);
    }

    /// Without counters every MPKI is unknown (0): the order is the thread id,
    /// the lowest paired with the highest on the first core.
    #[test]
    fn the_lowest_and_the_highest_share_a_core() {
        let topo = Topology::regular(1, 1, 2, 1, 2);
        let mut p = MpkiPairs::new(&PolicyOptions::default());
        let mut s = Script::new(topo, 4, &mut p);
        s.arrive_all(&mut p);
        let on = |c: u32| s.running[c as usize].map(|t| t.0);
        assert_eq!((on(0), on(1)), (Some(0), Some(3)));
        assert_eq!((on(2), on(3)), (Some(1), Some(2)));
    }
}
