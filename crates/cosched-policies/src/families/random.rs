//! `random`: the Random Scheduler (RS) of the SLITS characterisation (§2,
//! Fig. 1): an idle context, or one whose quantum expires, takes a uniformly
//! random waiting thread (seeded).

use super::slots::Slots;
use super::PolicyOptions;
use crate::ids::{CtxId, Nanos, ThreadId};
use crate::families::PolicyError;
use crate::policy::{Decision, Event, MachineView, Policy};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The random policy.
pub struct RandomPolicy {
    quantum: Nanos,
    pool: Vec<ThreadId>,
    rng: ChaCha8Rng,
    slots: Option<Slots>,
}

impl RandomPolicy {
    /// A random policy with the options' quantum and seed.
    pub fn new(o: &PolicyOptions) -> RandomPolicy {
        RandomPolicy { quantum: o.quantum, pool: Vec::new(), rng: ChaCha8Rng::seed_from_u64(o.seed), slots: None }
    }

    fn draw(&mut self) -> Option<ThreadId> {
        if self.pool.is_empty() {
            None
        } else {
            let i = self.rng.gen_range(0..self.pool.len());
            Some(self.pool.swap_remove(i))
        }
    }
}

impl Policy for RandomPolicy {
    fn name(&self) -> &'static str {
        "random"
    }

    fn init(&mut self, view: &dyn MachineView) -> Result<(), PolicyError> {
        self.slots = Some(Slots::new(view.topology()));
        Ok(())
    }

    fn on_event(&mut self, ev: &Event, view: &dyn MachineView, out: &mut Vec<Decision>) {
        let now = view.now();
        match *ev {
            Event::Arrived { thread, .. } | Event::Runnable { thread } => self.pool.push(thread),
            Event::Blocked { ctx, .. } | Event::Exited { ctx, .. } => {
                self.slots.as_mut().expect("init").vacate(ctx, out);
            }
            Event::Timer { key } => {
                let c = CtxId(key);
                let cur = self.slots.as_ref().expect("init").running[c.idx()];
                if let Some(cur) = cur {
                    self.pool.push(cur);
                }
                match self.draw() {
                    Some(t) => self.slots.as_mut().expect("init").dispatch(t, c, now, self.quantum, out),
                    None => {
                        self.slots.as_mut().expect("init").running[c.idx()] = None;
                    }
                }
            }
            _ => {}
        }
        let idle: Vec<_> = self.slots.as_ref().expect("init").idle().collect();
        for c in idle {
            let Some(t) = self.draw() else { break };
            self.slots.as_mut().expect("init").dispatch(t, c, now, self.quantum, out);
        }
    }
}

/// This family's policies in the registry ([`super::registry`]), at their rank
/// (registry order; `cosched new-policy` files take rank 1000).
pub(crate) const REGISTERED: super::Registered = super::Registered {
    rank: 110,
    policies: &[
    super::PolicyInfo {
        name: "random",
        description: "Random: an idle or expiring context takes a uniformly random waiting thread (SLITS §2 RS)",
        oracle: false,
        knob_groups: &[<super::slots::SlotsKnobs as super::knob::Declared>::GROUP],
        make: |o| Ok(Box::new(RandomPolicy::new(o))),
    },
    ],
};
