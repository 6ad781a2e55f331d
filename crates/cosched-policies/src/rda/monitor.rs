//! Progress monitor, resource monitor and scheduling predicate (RDA §3.1-3.3, Algorithm 1).

use crate::ids::{PeriodId, ThreadId};
use crate::policy::{Demand, Resource};
use std::collections::{BTreeMap, VecDeque};

/// The scheduling policy of the predicate (§3.3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RdaPolicy {
    /// Never above capacity.
    Strict,
    /// Up to `factor` × capacity (the paper: 2).
    Compromise {
        /// Oversubscription factor x.
        factor: f64,
    },
}

impl RdaPolicy {
    /// `apply_policy(outcome, resource)` of Algorithm 1: may a period whose
    /// admission leaves `remaining` of a resource of `capacity` run?
    pub fn allows(self, remaining: f64, capacity: f64) -> bool {
        match self {
            RdaPolicy::Strict => remaining >= 0.0,
            RdaPolicy::Compromise { factor } => remaining >= -(factor - 1.0) * capacity,
        }
    }
}

/// The registry of active periods, the load table and the waitlist.
#[derive(Clone, Debug)]
pub struct Monitor {
    policy: RdaPolicy,
    capacity: [f64; 2],
    usage: [f64; 2],
    active: BTreeMap<PeriodId, (ThreadId, Demand)>,
    waitlist: VecDeque<(PeriodId, ThreadId, Demand)>,
}

fn slot(r: Resource) -> usize {
    match r {
        Resource::Llc => 0,
        Resource::MemBw => 1,
    }
}

impl Monitor {
    /// A monitor for resources of the given capacities (LLC bytes, memory bytes per second).
    pub fn new(policy: RdaPolicy, llc_bytes: f64, mem_bw_bytes_per_s: f64) -> Monitor {
        Monitor {
            policy,
            capacity: [llc_bytes, mem_bw_bytes_per_s],
            usage: [0.0; 2],
            active: BTreeMap::new(),
            waitlist: VecDeque::new(),
        }
    }

    /// Current load of a resource.
    pub fn usage(&self, r: Resource) -> f64 {
        self.usage[slot(r)]
    }

    /// Capacity of a resource.
    pub fn capacity(&self, r: Resource) -> f64 {
        self.capacity[slot(r)]
    }

    /// Active periods.
    pub fn active(&self) -> usize {
        self.active.len()
    }

    /// Threads inside an admitted period (they hold resources).
    pub fn active_threads(&self) -> impl Iterator<Item = ThreadId> + '_ {
        self.active.values().map(|(t, _)| *t)
    }

    /// Waiting periods, in arrival order.
    pub fn waiting(&self) -> impl Iterator<Item = (PeriodId, ThreadId)> + '_ {
        self.waitlist.iter().map(|w| (w.0, w.1))
    }

    /// Algorithm 1's test. A period is always admitted when nothing else holds
    /// the resource (a demand above capacity must still run, alone).
    fn fits(&self, d: &Demand) -> bool {
        let s = slot(d.resource);
        let remaining = self.capacity[s] - self.usage[s] - d.amount;
        self.usage[s] <= 0.0 || self.policy.allows(remaining, self.capacity[s])
    }

    fn admit(&mut self, p: PeriodId, t: ThreadId, d: Demand) {
        self.usage[slot(d.resource)] += d.amount;
        self.active.insert(p, (t, d));
    }

    /// `pp_begin`: admit (true) or waitlist (false). A period arriving while
    /// others wait joins the back of the waitlist, so no waiting period is
    /// overtaken by later arrivals.
    pub fn begin(&mut self, p: PeriodId, t: ThreadId, d: Demand) -> bool {
        if self.waitlist.is_empty() && self.fits(&d) {
            self.admit(p, t, d);
            true
        } else {
            self.waitlist.push_back((p, t, d));
            false
        }
    }

    /// `pp_end`: release the period's demand and admit waiting periods from the
    /// head of the waitlist while they fit. Returns the admitted periods.
    pub fn end(&mut self, p: PeriodId) -> Vec<(PeriodId, ThreadId)> {
        if let Some((_, d)) = self.active.remove(&p) {
            let s = slot(d.resource);
            self.usage[s] = (self.usage[s] - d.amount).max(0.0);
            if self.active.values().all(|(_, x)| slot(x.resource) != s) {
                self.usage[s] = 0.0; // no drift from float sums
            }
        }
        let mut out = vec![];
        while let Some(&(q, t, d)) = self.waitlist.front() {
            if !self.fits(&d) {
                break;
            }
            self.waitlist.pop_front();
            self.admit(q, t, d);
            out.push((q, t));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::Reuse;

    fn llc(mb: f64) -> Demand {
        Demand { resource: Resource::Llc, amount: mb * 1e6, reuse: Reuse::High }
    }

    #[test]
    fn strict_never_exceeds_and_compromise_stays_within_x_capacity() {
        for (policy, limit) in [(RdaPolicy::Strict, 1.0), (RdaPolicy::Compromise { factor: 2.0 }, 2.0)] {
            let mut m = Monitor::new(policy, 15e6, 1e10);
            let mut running: Vec<PeriodId> = vec![];
            for round in 0..200 {
                let d = llc([0.6, 1.6, 2.4, 3.2, 5.1][round % 5]);
                let p = PeriodId(round as u32);
                if m.begin(p, ThreadId(round as u32), d) {
                    running.push(p);
                }
                assert!(m.usage(Resource::Llc) <= limit * 15e6 + 1.0, "{policy:?}: {}", m.usage(Resource::Llc));
                if round % 3 == 0 && !running.is_empty() {
                    let q = running.remove(0);
                    for (a, _) in m.end(q) {
                        running.push(a);
                    }
                    assert!(m.usage(Resource::Llc) <= limit * 15e6 + 1.0);
                }
            }
            // Drain: every waitlisted period eventually runs.
            while let Some(q) = running.pop() {
                running.extend(m.end(q).into_iter().map(|x| x.0));
            }
            assert_eq!(m.waiting().count(), 0, "{policy:?}: nothing starves");
            assert_eq!(m.active(), 0);
        }
    }

    #[test]
    fn waiting_periods_are_not_overtaken() {
        let mut m = Monitor::new(RdaPolicy::Strict, 10e6, 1e10);
        assert!(m.begin(PeriodId(0), ThreadId(0), llc(8.0)));
        assert!(!m.begin(PeriodId(1), ThreadId(1), llc(6.0))); // does not fit
        assert!(!m.begin(PeriodId(2), ThreadId(2), llc(1.0))); // would fit, but 1 waits first
        assert_eq!(m.end(PeriodId(0)), vec![(PeriodId(1), ThreadId(1)), (PeriodId(2), ThreadId(2))]);
        // A period larger than the capacity runs alone.
        let mut m = Monitor::new(RdaPolicy::Strict, 10e6, 1e10);
        assert!(m.begin(PeriodId(0), ThreadId(0), llc(30.0)));
    }
}
