//! The backend half of the policy contract, once for every backend
//! (docs/architecture.md, "The policy boundary"). The
//! [`Dispatcher`] owns what the contract is about: each thread's status,
//! which thread holds each context, the policy's timers, the queue of events
//! still to deliver, `Needs` gating, and the validation of every decision.
//! A backend (the simulator's engine, the Linux runtime, the test script)
//! implements [`Backend`] and keeps only its own mechanics: contention and
//! time; cgroups, affinity and signals.
//!
//! One rule per case, on every backend (docs/design-notes.md, note 29):
//! * `Run` of a thread that is not runnable, `Admit` of a period nobody
//!   waits in, and any decision naming a thread or context that does not
//!   exist end the run with a [`ContractError`], except a `Run` made before
//!   the policy was told why the thread is no longer runnable (its
//!   `Blocked`, `Exited` or `PeriodBegin` still queued, as when a real
//!   process exits while an earlier event is being handled): that one is
//!   stale and dropped; `Run` of a thread already
//!   on that context changes nothing; `Run` of a thread running elsewhere
//!   migrates it; whoever held the context stays runnable.
//! * A thread's first event is `Arrived`, or `PeriodBegin { ctx: None }`
//!   when it begins inside a progress period; every later wake is
//!   `Runnable`.
//! * A thread that calls `pp_begin` off a context (arriving, waking) is
//!   reported as `PeriodBegin { ctx: None }`; on a context, with that context.
//! * A thread that ends while blocked (or before it arrived) leaves without
//!   an event: the policy dropped it when it blocked. One that ends while
//!   the policy holds it runnable (or waiting for admission) exits when the
//!   policy next runs it: `Exited` with that context, at once.
//! * Events a decision causes are delivered after the whole batch of
//!   decisions is applied, in the order they happened.

mod apply;
mod error;
mod offer;
#[cfg(test)]
mod tests;
mod timers;

pub use apply::{deliver, Backend};
pub use error::ContractError;
pub use offer::{Offer, Supply};
pub use timers::MAX_TIMER_KEYS;

use crate::ids::{CtxId, JobId, Nanos, PeriodId, ThreadId};
use crate::policy::{BlockReason, Decision, Demand, Event, Needs};
use std::collections::{BTreeMap, VecDeque};
use timers::Timers;

/// Where a thread is, as the contract sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Its job has not arrived.
    Pending,
    /// Waiting for a context.
    Runnable,
    /// On a context.
    Running(CtxId),
    /// Sleeping (barrier, lock, I/O).
    Blocked,
    /// Waiting for the admission of its progress period (RDA §2.3).
    WaitPeriod(PeriodId),
    /// Finished.
    Done,
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Status::Pending => write!(f, "not arrived"),
            Status::Runnable => write!(f, "runnable"),
            Status::Running(c) => write!(f, "running on context {}", c.0),
            Status::Blocked => write!(f, "blocked"),
            Status::WaitPeriod(p) => write!(f, "waiting for the admission of period {}", p.0),
            Status::Done => write!(f, "finished"),
        }
    }
}

/// The contract's state for one run.
#[derive(Debug)]
pub struct Dispatcher {
    policy: &'static str,
    status: Vec<Status>,
    job: Vec<JobId>,
    /// Its first event was delivered (later wakes are `Runnable`).
    announced: Vec<bool>,
    /// It ended while runnable or waiting: `Exited` at its next `Run`.
    exit_pending: Vec<bool>,
    on_ctx: Vec<Option<ThreadId>>,
    waiting: BTreeMap<PeriodId, ThreadId>,
    timers: Timers,
    pending: VecDeque<Event>,
    periods: bool,
    delivered: u64,
    n_done: usize,
    /// Reused buffer for the policy's decisions.
    pub(crate) out: Vec<Decision>,
    notes: Vec<String>,
}

impl Dispatcher {
    /// The contract for `policy` (its name and needs) on a backend that
    /// offers `offer`, with threads of jobs `jobs` (one entry per thread) on
    /// `n_contexts` contexts; an error when the backend cannot meet a need.
    pub fn new(
        policy: &'static str,
        needs: Needs,
        offer: &Offer,
        jobs: Vec<JobId>,
        n_contexts: usize,
    ) -> Result<Dispatcher, ContractError> {
        let notes = offer.gate(policy, needs)?;
        let n = jobs.len();
        Ok(Dispatcher {
            policy,
            status: vec![Status::Pending; n],
            job: jobs,
            announced: vec![false; n],
            exit_pending: vec![false; n],
            on_ctx: vec![None; n_contexts],
            waiting: BTreeMap::new(),
            timers: Timers::default(),
            pending: VecDeque::new(),
            periods: needs.progress_periods,
            delivered: 0,
            n_done: 0,
            out: vec![],
            notes,
        })
    }

    /// The policy's name.
    pub fn policy(&self) -> &'static str {
        self.policy
    }
    /// Notes on degraded modes found by `Needs` gating.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }
    /// Whether the policy admits progress periods (else the backend admits them at once).
    pub fn admits_periods(&self) -> bool {
        self.periods
    }
    /// Where `t` is.
    #[inline]
    pub fn status(&self, t: ThreadId) -> Status {
        self.status[t.idx()]
    }
    /// The context `t` runs on.
    #[inline]
    pub fn ctx_of(&self, t: ThreadId) -> Option<CtxId> {
        match self.status[t.idx()] {
            Status::Running(c) => Some(c),
            _ => None,
        }
    }
    /// The thread on `ctx` (`None` also for a context the machine lacks).
    #[inline]
    pub fn running_on(&self, ctx: CtxId) -> Option<ThreadId> {
        self.on_ctx.get(ctx.idx()).copied().flatten()
    }
    /// The job of `t`.
    #[inline]
    pub fn job_of(&self, t: ThreadId) -> JobId {
        self.job[t.idx()]
    }
    /// Threads in the run.
    pub fn n_threads(&self) -> usize {
        self.status.len()
    }
    /// Threads finished.
    pub fn n_done(&self) -> usize {
        self.n_done
    }
    /// Threads runnable and not on a context.
    pub fn n_runnable(&self) -> usize {
        self.status.iter().filter(|s| **s == Status::Runnable).count()
    }
    /// Events delivered to the policy so far.
    pub fn delivered(&self) -> u64 {
        self.delivered
    }
    /// Whether events wait for delivery.
    pub fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Job of `t` arrived or a blocked `t` woke: it is runnable
    /// (`Arrived` the first time, else `Runnable`).
    pub fn wake(&mut self, t: ThreadId) {
        debug_assert!(
            matches!(self.status(t), Status::Pending | Status::Blocked),
            "{t:?} woke from {:?}",
            self.status(t)
        );
        self.status[t.idx()] = Status::Runnable;
        let ev = if std::mem::replace(&mut self.announced[t.idx()], true) {
            Event::Runnable { thread: t }
        } else {
            Event::Arrived { thread: t, job: self.job[t.idx()] }
        };
        self.pending.push_back(ev);
    }

    /// A thread off a context (arriving or woken) sleeps again at once: no event.
    pub fn sleep(&mut self, t: ThreadId) {
        debug_assert!(matches!(self.status(t), Status::Pending | Status::Blocked));
        self.status[t.idx()] = Status::Blocked;
    }

    /// Test scripts (`cosched-policies`' scripted streams): a runnable `t`
    /// the test took out of the policy by hand counts as blocked, without an event.
    #[doc(hidden)]
    pub fn block_off_context(&mut self, t: ThreadId) {
        assert_eq!(self.status(t), Status::Runnable);
        self.status[t.idx()] = Status::Blocked;
    }

    /// Running `t` blocked: its context is free; returns it.
    pub fn block(&mut self, t: ThreadId, reason: BlockReason) -> Option<CtxId> {
        let ctx = self.vacate(t)?;
        self.status[t.idx()] = Status::Blocked;
        self.pending.push_back(Event::Blocked { thread: t, ctx, reason });
        Some(ctx)
    }

    /// `t` ended. On a context: `Exited` now, and its context (returned) is
    /// free. Blocked or not arrived: gone without an event. Runnable or
    /// waiting for admission: `Exited` when the policy next runs it.
    pub fn exit(&mut self, t: ThreadId) -> Option<CtxId> {
        match self.status(t) {
            Status::Running(_) => {
                let ctx = self.vacate(t)?;
                self.finish(t, ctx);
                Some(ctx)
            }
            Status::Blocked | Status::Pending => {
                self.status[t.idx()] = Status::Done;
                self.n_done += 1;
                None
            }
            Status::Runnable | Status::WaitPeriod(_) => {
                self.exit_pending[t.idx()] = true;
                None
            }
            Status::Done => None,
        }
    }

    /// `t` called `pp_begin` for `period` (call only when
    /// [`admits_periods`](Self::admits_periods)): it waits for admission.
    /// Returns the context it left, if it was running. Not for a runnable
    /// thread off a context (the policy holds it in its queues): a backend
    /// defers such a call until the thread runs.
    pub fn begin_period(&mut self, t: ThreadId, period: PeriodId, demand: Demand) -> Option<CtxId> {
        debug_assert!(self.periods, "begin_period under a policy that does not admit periods");
        let ctx = match self.status(t) {
            Status::Running(_) => self.vacate(t),
            Status::Pending | Status::Blocked => None,
            s => panic!("pp_begin of thread {} while {s}", t.0),
        };
        self.announced[t.idx()] = true;
        self.status[t.idx()] = Status::WaitPeriod(period);
        self.waiting.insert(period, t);
        self.pending.push_back(Event::PeriodBegin { thread: t, ctx, period, demand });
        ctx
    }

    /// `t` called `pp_end` for an admitted `period`.
    pub fn end_period(&mut self, t: ThreadId, period: PeriodId) {
        if self.periods {
            self.pending.push_back(Event::PeriodEnd { thread: t, period });
        }
    }

    /// Whether a timer the backend queued (`key` under `generation`) is still current.
    pub fn timer_live(&self, key: u32, generation: u32) -> bool {
        self.timers.live(key, generation)
    }

    /// Timer `key` fires: `Timer` is delivered.
    pub fn fire(&mut self, key: u32) {
        self.timers.fired(key);
        self.pending.push_back(Event::Timer { key });
    }

    /// Fire every timer armed for `now` or earlier, in key order (a backend
    /// that polls its timers); returns how many fired.
    pub fn fire_due(&mut self, now: Nanos) -> usize {
        let due = self.timers.due(now);
        for &k in &due {
            self.fire(k);
        }
        due.len()
    }

    /// The earliest armed timer.
    pub fn next_timer(&self) -> Option<Nanos> {
        self.timers.next()
    }

    /// Take running `t` off its context; returns the context.
    fn vacate(&mut self, t: ThreadId) -> Option<CtxId> {
        let ctx = self.ctx_of(t)?;
        self.on_ctx[ctx.idx()] = None;
        self.status[t.idx()] = Status::Runnable;
        Some(ctx)
    }

    /// `t` finished on `ctx` (already vacated).
    fn finish(&mut self, t: ThreadId, ctx: CtxId) {
        self.status[t.idx()] = Status::Done;
        self.exit_pending[t.idx()] = false;
        self.n_done += 1;
        self.pending.push_back(Event::Exited { thread: t, ctx });
    }

    /// Whether an event about `t` is queued but not yet delivered.
    fn news_pending(&self, t: ThreadId) -> bool {
        self.pending.iter().any(|e| match *e {
            Event::Arrived { thread, .. }
            | Event::Runnable { thread }
            | Event::Blocked { thread, .. }
            | Event::Exited { thread, .. }
            | Event::PeriodBegin { thread, .. }
            | Event::PeriodEnd { thread, .. } => thread == t,
            Event::Timer { .. } => false,
        })
    }

    /// Next event to deliver.
    fn pop(&mut self) -> Option<Event> {
        let ev = self.pending.pop_front()?;
        self.delivered += 1;
        Some(ev)
    }
}
