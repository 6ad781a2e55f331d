//! The hook into CFS's task selection (`pick_next_task_fair`'s choice): a
//! [`Gate`] tells a context about to pick what to run; plain CFS's is
//! [`Open`], EFS (§4.2), RDA and `quintet` bring their own.

use super::CfsCore;
use crate::ids::{Nanos, ThreadId};
use crate::policy::MachineView;

/// What a [`Gate`] tells a context about to pick.
pub(crate) enum Pick {
    /// The fair class's own choice: the leftmost thread (CFS), or the
    /// eligible thread with the earliest virtual deadline (EEVDF).
    Fair,
    /// This waiting thread, with this slice (default: CFS's).
    Thread(ThreadId, Option<Nanos>),
    /// Nothing: leave the context idle.
    Idle,
}

/// A hook into CFS's task selection; [`Open`] is plain CFS.
pub(crate) trait Gate: Send {
    /// Choose what context `c` runs; its waiting threads are `core.rqs[c].tree` in vruntime order.
    fn choose(&mut self, c: usize, core: &CfsCore, view: &dyn MachineView) -> Pick;
    /// As [`Gate::choose`], among the waiting threads `allowed` admits (RDA's
    /// hold wraps another gate with it). Default: the first allowed thread in
    /// vruntime order, else idle.
    fn choose_allowed(
        &mut self,
        c: usize,
        core: &CfsCore,
        _view: &dyn MachineView,
        allowed: &dyn Fn(ThreadId) -> bool,
    ) -> Pick {
        match core.rqs[c].tree.iter().map(|&(_, t)| ThreadId(t)).find(|t| allowed(*t)) {
            Some(t) => Pick::Thread(t, None),
            None => Pick::Idle,
        }
    }
    /// A thread waiting on another context's queue that context `c` should
    /// pull before choosing, and that context (`None`: pull nothing; every
    /// gate but `quintet`'s under its fairness objective).
    fn pull(&mut self, _c: usize, _core: &CfsCore) -> Option<(ThreadId, usize)> {
        None
    }
    /// `t` was dispatched on `c`.
    fn started(&mut self, _t: ThreadId, _c: usize, _view: &dyn MachineView) {}
    /// `t` stopped running on `c` (preempted, blocked or exited).
    fn stopped(&mut self, _t: ThreadId, _c: usize, _view: &dyn MachineView) {}
}

/// The plain fair class: always its own choice.
pub(crate) struct Open;

impl Gate for Open {
    fn choose(&mut self, _c: usize, _core: &CfsCore, _view: &dyn MachineView) -> Pick {
        Pick::Fair
    }
}

