//! WSS: work stealing as the SLITS paper describes it (§5.2, comparison point
//! 3): per-context round-robin queues; every `steal_interval` a random context
//! is the thief and, if its queue is empty, steals one waiting thread from a
//! random victim's queue.
//!
//! Reading chosen: the thief steals from the tail of the victim's queue (the
//! thread that would wait longest there), and a thief that is idle starts the
//! stolen thread at once.

use super::knob::{Declared, Kind};
use super::p_rrs::PRrs;
use super::PolicyOptions;
use crate::ids::{CtxId, Nanos};
use crate::families::PolicyError;
use crate::policy::{Decision, Event, MachineView, Policy};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

cosched_core::options! {
    /// WSS's knob: how often a random thief tries to steal (SLITS §5.2).
    pub struct WssKnobs of "WSS", "SLITS §5.2 (WSS)" {
        /// interval between work-stealing attempts
        steal_interval_us: f64 = (Kind::Float { min: 1.0, max: 3.6e9 }, "500", unit "µs"),
    }
}

/// The WSS policy.
pub struct Wss {
    inner: PRrs,
    rng: ChaCha8Rng,
    interval: Nanos,
    steal_key: u32,
}

impl Wss {
    /// A WSS with the options' quantum, steal interval and seed.
    pub fn new(o: &PolicyOptions) -> Wss {
        Wss { inner: PRrs::new(o), rng: ChaCha8Rng::seed_from_u64(o.seed), interval: o.steal_interval, steal_key: 0 }
    }

    fn steal(&mut self, now: Nanos, out: &mut Vec<Decision>) {
        let n = self.inner.queues.len();
        if n < 2 {
            return;
        }
        let thief = self.rng.gen_range(0..n);
        if !self.inner.queues[thief].is_empty() {
            return;
        }
        let mut victim = self.rng.gen_range(0..n - 1);
        if victim >= thief {
            victim += 1;
        }
        if let Some(t) = self.inner.queues[victim].pop_back() {
            self.inner.home[t.idx()] = CtxId(thief as u32);
            self.inner.queues[thief].push_back(t);
            self.inner.run_next_if_idle(CtxId(thief as u32), now, out);
        }
    }
}

impl Policy for Wss {
    fn name(&self) -> &'static str {
        "wss"
    }

    fn init(&mut self, view: &dyn MachineView) -> Result<(), PolicyError> {
        self.inner.setup(view);
        self.steal_key = view.topology().n_contexts() as u32;
        Ok(())
    }

    fn on_event(&mut self, ev: &Event, view: &dyn MachineView, out: &mut Vec<Decision>) {
        let now = view.now();
        match *ev {
            Event::Timer { key } if key == self.steal_key => {
                self.steal(now, out);
                out.push(Decision::Timer { key, at: Some(now + self.interval) });
            }
            Event::Arrived { .. } if self.inner.home.is_empty() => {
                out.push(Decision::Timer { key: self.steal_key, at: Some(now + self.interval) });
                self.inner.on_event(ev, view, out);
            }
            _ => self.inner.on_event(ev, view, out),
        }
    }
}

/// This family's policies in the registry ([`super::registry`]), at their rank
/// (registry order; `cosched new-policy` files take rank 1000).
pub(crate) const REGISTERED: super::Registered = super::Registered {
    rank: 30,
    policies: &[
    super::PolicyInfo {
        name: "wss",
        description: "Work stealing: per-context round-robin; periodically a random thief with an empty queue steals from a random victim (SLITS §5.2)",
        oracle: false,
        knob_groups: &[super::slots::SlotsKnobs::GROUP, WssKnobs::GROUP],
        make: |o| Ok(Box::new(Wss::new(o))),
    },
    ],
};
