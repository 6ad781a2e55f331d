//! Three threads on two contexts: how Linux's balancer moves a one-thread
//! excess (docs/model.md, "Three threads on two contexts").
//!
//! `load_balance` in `kernel/sched/fair.c` computes the imbalance between the
//! busiest and the local group as load to move: with two nice-0 threads on one
//! context and one on the other it is half a thread's load, and `detach_tasks`
//! skips a task whose load, shifted right by the domain's
//! `nr_balance_failed`, exceeds it. The first pass therefore fails, and the
//! second moves a waiting thread, which turns the 2-1 split around; the
//! threads take turns on the lone context. A busy context balances every
//! `sd_weight` ms times the domain's `busy_factor` (16, `sd_init` in
//! `kernel/sched/topology.c`). Measured on this host (`scripts/balance-share`):
//! three spinners on two CPUs each got two thirds of a CPU, migrating a few
//! times a second.

use super::CfsCore;
use crate::ids::{Nanos, MILLI};

/// `busy_factor` of every scheduling domain (`sd_init`).
const BUSY_FACTOR: u64 = 16;

impl CfsCore {
    /// At a periodic pass that found no difference of two: whether domain
    /// `domain` (of `members` contexts) moved one waiting thread from
    /// `busiest` to `idlest`. Only at the domain's busy passes (every
    /// `members` ms × 16, counted in the model's balancer passes), and only
    /// at the second in a row that finds a one-thread excess; the machine-wide
    /// pass (the last domain) only between contexts of different LLCs.
    pub(super) fn rotate(&mut self, domain: usize, members: usize, busiest: usize, idlest: usize, now: Nanos) -> bool {
        let topo = self.topo.as_ref().expect("init");
        // The machine-wide pass balances between LLC domains; within one, the domain's own pass does.
        let across = domain == self.failed.len() - 1;
        if !self.rotation || (across && topo.contexts[busiest].llc == topo.contexts[idlest].llc) {
            return false;
        }
        let every = (members as u64 * MILLI * BUSY_FACTOR).div_ceil(self.p.balance_interval.max(1)).max(1);
        if !self.passes.is_multiple_of(every) {
            return false;
        }
        let excess = self.rqs[busiest].nr == self.rqs[idlest].nr + 1 && !self.rqs[busiest].tree.is_empty();
        if !excess {
            self.failed[domain] = false;
            return false;
        }
        if !self.failed[domain] {
            self.failed[domain] = true;
            return false;
        }
        self.update_curr(busiest, now);
        let moved = self.migrate_one(busiest, idlest);
        self.failed[domain] = !moved;
        moved
    }
}
