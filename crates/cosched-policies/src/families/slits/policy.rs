//! SLITS as a [`Policy`]: its needs, `init`, and the events that drive
//! the TIM and Lazy Reschedule (§4.2-4.3).

use super::{Pairing, Scope, Slits, SlitsObjective};
use crate::ids::CtxId;
use crate::learn::Fm;
use crate::families::slots::Slots;
use crate::families::PolicyError;
use crate::policy::{Decision, Event, MachineView, Needs, Policy};
use crate::policy_ext::UsesProfile;
use crate::slits::PairProfile;

impl Policy for Slits {
    fn name(&self) -> &'static str {
        match self.objective {
            SlitsObjective::Contention => "slits-contention",
            SlitsObjective::Fairness => "slits-fairness",
        }
    }

    fn needs(&self) -> Needs {
        Needs { counters: true, oracle: self.p.pairing == Pairing::Oracle, ..Needs::default() }
    }

    fn init(&mut self, view: &dyn MachineView) -> Result<(), PolicyError> {
        let topo = view.topology();
        self.slots = Some(Slots::new(topo));
        self.n = view.n_threads_total();
        self.snap = vec![None; self.n];
        self.home = vec![None; self.n];
        if self.p.pairing == Pairing::Oracle && view.oracle().is_none() {
            return Err("SLITS with oracle pairing needs the simulator's ground truth (an oracle)".into());
        }
        let features = 2 * self.n + topo.n_contexts();
        if self.p.pairing == Pairing::Fm && self.fm.as_ref().is_none_or(|f| f.n != features) {
            self.fm = Some(Fm::new(features, self.p.fm, self.seed));
        }
        self.train_on_profile(view);
        Ok(())
    }

    fn as_uses_profile(&mut self) -> Option<&mut dyn UsesProfile> {
        Some(self)
    }

    fn found(&self) -> Option<String> {
        Some(match self.choices {
            0 => format!(
                "none of its {} picks had two or more waiting threads to rank{}: its objective never chose",
                self.picks,
                if self.p.scope == Scope::PerCore { " (a context ranks only the threads homed on it)" } else { "" }
            ),
            k => format!("{k} of its {} picks had two or more waiting threads to rank", self.picks),
        })
    }

    fn on_event(&mut self, ev: &Event, view: &dyn MachineView, out: &mut Vec<Decision>) {
        match *ev {
            Event::Arrived { thread, .. } | Event::Runnable { thread } => {
                self.assign_home(thread);
                self.queue.push_back(thread);
            }
            Event::Blocked { thread, ctx, .. } | Event::Exited { thread, ctx } => {
                self.observe(thread, ctx, view);
                self.slots.as_mut().expect("init").vacate(ctx, out);
            }
            Event::Timer { key } => {
                // Periodic trigger: the running thread goes back to the queue.
                let c = CtxId(key);
                if let Some(t) = self.slots.as_mut().expect("init").running[c.idx()].take() {
                    self.observe(t, c, view);
                    self.queue.push_back(t);
                    out.push(Decision::Preempt { ctx: c });
                }
            }
            _ => {}
        }
        self.fill_idle(view, out);
    }
}

impl UsesProfile for Slits {
    fn use_profile(&mut self, profile: &PairProfile) -> bool {
        self.profile = Some(profile.clone());
        true
    }
}
