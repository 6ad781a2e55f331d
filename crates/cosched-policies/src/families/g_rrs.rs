//! G-RRS: global round-robin (SLITS §5.2, comparison point 1): waiting threads
//! in one global FIFO queue, dispatched to each idle context in turn; a
//! running thread is preempted after a fixed quantum if others wait.

use super::slots::Slots;
use super::PolicyOptions;
use crate::ids::{Nanos, ThreadId};
use crate::families::PolicyError;
use crate::policy::{Decision, Event, MachineView, Policy};
use std::collections::VecDeque;

/// The G-RRS policy.
pub struct GRrs {
    quantum: Nanos,
    queue: VecDeque<ThreadId>,
    slots: Option<Slots>,
}

impl GRrs {
    /// A G-RRS with the options' quantum.
    pub fn new(o: &PolicyOptions) -> GRrs {
        GRrs { quantum: o.quantum, queue: VecDeque::new(), slots: None }
    }

    fn fill(&mut self, now: Nanos, out: &mut Vec<Decision>) {
        let slots = self.slots.as_mut().expect("init");
        let idle: Vec<_> = slots.idle().collect();
        for c in idle {
            let Some(t) = self.queue.pop_front() else {
                break;
            };
            slots.dispatch(t, c, now, self.quantum, out);
        }
    }
}

impl Policy for GRrs {
    fn name(&self) -> &'static str {
        "g-rrs"
    }

    fn init(&mut self, view: &dyn MachineView) -> Result<(), PolicyError> {
        self.slots = Some(Slots::new(view.topology()));
        Ok(())
    }

    fn on_event(&mut self, ev: &Event, view: &dyn MachineView, out: &mut Vec<Decision>) {
        let now = view.now();
        match *ev {
            Event::Arrived { thread, .. } | Event::Runnable { thread } => self.queue.push_back(thread),
            Event::Blocked { ctx, .. } | Event::Exited { ctx, .. } => {
                self.slots.as_mut().expect("init").vacate(ctx, out);
            }
            Event::Timer { key } => {
                let slots = self.slots.as_mut().expect("init");
                let c = crate::ids::CtxId(key);
                match (self.queue.pop_front(), slots.running[c.idx()]) {
                    (Some(next), Some(cur)) => {
                        self.queue.push_back(cur);
                        slots.dispatch(next, c, now, self.quantum, out);
                    }
                    (Some(next), None) => slots.dispatch(next, c, now, self.quantum, out),
                    (None, Some(_)) => out.push(Decision::Timer { key, at: Some(now + self.quantum) }),
                    (None, None) => {}
                }
            }
            _ => {}
        }
        self.fill(now, out);
    }
}

/// This family's policies in the registry ([`super::registry`]), at their rank
/// (registry order; `cosched new-policy` files take rank 1000).
pub(crate) const REGISTERED: super::Registered = super::Registered {
    rank: 10,
    policies: &[
    super::PolicyInfo {
        name: "g-rrs",
        description: "Global round-robin: one FIFO queue feeding every idle context, fixed quantum (SLITS §5.2)",
        oracle: false,
        knob_groups: &[<super::slots::SlotsKnobs as super::knob::Declared>::GROUP],
        make: |o| Ok(Box::new(GRrs::new(o))),
    },
    ],
};
