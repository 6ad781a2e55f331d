//! P-RRS: per-core round-robin (SLITS §5.2, comparison point 2): threads are
//! dealt to per-context queues when they arrive and stay there; each context
//! runs its queue round-robin with a fixed quantum. Also the engine of
//! [`super::Wss`] and [`super::StaticAssign`].

use super::slots::{Dealer, Slots};
use super::PolicyOptions;
use crate::ids::{CtxId, Nanos, ThreadId};
use crate::families::PolicyError;
use crate::policy::{Decision, Event, MachineView, Policy};
use std::collections::VecDeque;

/// How a thread's home context is chosen at arrival.
#[derive(Clone, Debug)]
pub(crate) enum Homes {
    /// Dealt round-robin over contexts in spread order.
    Dealt,
    /// Given (index = thread id).
    Fixed(Vec<CtxId>),
}

/// The P-RRS policy.
pub struct PRrs {
    pub(crate) quantum: Nanos,
    pub(crate) queues: Vec<VecDeque<ThreadId>>,
    pub(crate) home: Vec<CtxId>,
    pub(crate) slots: Option<Slots>,
    homes: Homes,
    dealer: Dealer,
    name: &'static str,
}

impl PRrs {
    /// A P-RRS with the options' quantum.
    pub fn new(o: &PolicyOptions) -> PRrs {
        PRrs::with_homes(o.quantum, Homes::Dealt, "p-rrs")
    }

    pub(crate) fn with_homes(quantum: Nanos, homes: Homes, name: &'static str) -> PRrs {
        PRrs { quantum, queues: Vec::new(), home: Vec::new(), slots: None, homes, dealer: Dealer::default(), name }
    }

    pub(crate) fn home_of(&mut self, t: ThreadId) -> CtxId {
        if self.home.len() <= t.idx() {
            let slots = self.slots.as_ref().expect("init");
            while self.home.len() <= t.idx() {
                let h = match &self.homes {
                    Homes::Dealt => self.dealer.next(&slots.order),
                    Homes::Fixed(a) => a[self.home.len()],
                };
                self.home.push(h);
            }
        }
        self.home[t.idx()]
    }

    /// Queue a runnable thread on its home context; start it if that context is idle.
    pub(crate) fn enqueue(&mut self, t: ThreadId, now: Nanos, out: &mut Vec<Decision>) {
        let h = self.home_of(t);
        self.queues[h.idx()].push_back(t);
        self.run_next_if_idle(h, now, out);
    }

    pub(crate) fn run_next_if_idle(&mut self, c: CtxId, now: Nanos, out: &mut Vec<Decision>) {
        let slots = self.slots.as_mut().expect("init");
        if slots.running[c.idx()].is_none() {
            if let Some(t) = self.queues[c.idx()].pop_front() {
                slots.dispatch(t, c, now, self.quantum, out);
            }
        }
    }

    /// Quantum expiry on `c`: rotate its queue.
    pub(crate) fn expire(&mut self, c: CtxId, now: Nanos, out: &mut Vec<Decision>) {
        let slots = self.slots.as_mut().expect("init");
        let q = &mut self.queues[c.idx()];
        match (q.pop_front(), slots.running[c.idx()]) {
            (Some(next), Some(cur)) => {
                q.push_back(cur);
                slots.dispatch(next, c, now, self.quantum, out);
            }
            (Some(next), None) => slots.dispatch(next, c, now, self.quantum, out),
            (None, Some(_)) => out.push(Decision::Timer { key: c.0, at: Some(now + self.quantum) }),
            (None, None) => {}
        }
    }

    pub(crate) fn setup(&mut self, view: &dyn MachineView) {
        let topo = view.topology();
        self.slots = Some(Slots::new(topo));
        self.queues = vec![VecDeque::new(); topo.n_contexts()];
    }
}

impl Policy for PRrs {
    fn name(&self) -> &'static str {
        self.name
    }

    fn init(&mut self, view: &dyn MachineView) -> Result<(), PolicyError> {
        self.setup(view);
        if let Homes::Fixed(a) = &self.homes {
            let n = view.n_threads_total();
            if a.len() != n {
                return Err(format!(
                    "the assignment has {} entries but the workload has {n} threads (one context per thread)",
                    a.len()
                )
                .into());
            }
            let nc = view.topology().n_contexts();
            if let Some(bad) = a.iter().find(|c| c.idx() >= nc) {
                return Err(format!("the assignment names context {} but the machine has {nc}", bad.0).into());
            }
        }
        Ok(())
    }

    fn on_event(&mut self, ev: &Event, view: &dyn MachineView, out: &mut Vec<Decision>) {
        let now = view.now();
        match *ev {
            Event::Arrived { thread, .. } | Event::Runnable { thread } => self.enqueue(thread, now, out),
            Event::Blocked { ctx, .. } | Event::Exited { ctx, .. } => {
                self.slots.as_mut().expect("init").vacate(ctx, out);
                self.run_next_if_idle(ctx, now, out);
            }
            Event::Timer { key } => self.expire(CtxId(key), now, out),
            _ => {}
        }
    }
}

/// This family's policies in the registry ([`super::registry`]), at their rank
/// (registry order; `cosched new-policy` files take rank 1000).
pub(crate) const REGISTERED: super::Registered = super::Registered {
    rank: 20,
    policies: &[
    super::PolicyInfo {
        name: "p-rrs",
        description: "Per-core round-robin: threads dealt to per-context queues at arrival, fixed quantum (SLITS §5.2)",
        oracle: false,
        knob_groups: &[<super::slots::SlotsKnobs as super::knob::Declared>::GROUP],
        make: |o| Ok(Box::new(PRrs::new(o))),
    },
    ],
};
