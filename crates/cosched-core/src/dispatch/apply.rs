//! Delivery of events to the policy and validation of its decisions: the
//! [`Backend`] trait a backend implements and [`deliver`], which every
//! backend calls to run the policy.

use super::{ContractError, Dispatcher, Status, MAX_TIMER_KEYS};
use crate::ids::{CtxId, Nanos, PeriodId, ThreadId};
use crate::policy::{Decision, Event, Policy};

/// What a backend does with a legal decision; the [`Dispatcher`] has
/// already recorded the new status when these are called.
pub trait Backend {
    /// The run's contract state.
    fn dispatcher(&mut self) -> &mut Dispatcher;
    /// Ask the policy about `ev` through this backend's view of the machine
    /// (and time the call, if the backend measures decision times).
    fn decide(&mut self, policy: &mut dyn Policy, ev: &Event, out: &mut Vec<Decision>);
    /// Put runnable `thread` on free context `ctx`.
    fn start(&mut self, thread: ThreadId, ctx: CtxId);
    /// Take `thread` off `ctx`; it stays runnable. `migrating`: it starts on
    /// another context right after.
    fn stop(&mut self, thread: ThreadId, ctx: CtxId, migrating: bool);
    /// The policy admitted `period`; `thread` is runnable again.
    fn admit(&mut self, thread: ThreadId, period: PeriodId) -> Result<(), ContractError>;
    /// Timer `key` is armed for `at` under `generation`; a backend with its
    /// own clock queue schedules it (and checks
    /// [`Dispatcher::timer_live`] when it comes due), a polling backend
    /// needs nothing.
    fn arm(&mut self, _key: u32, _at: Nanos, _generation: u32) {}
}

/// Deliver every pending event to `policy`, applying the decisions of each
/// before the next event (events they cause queue behind); returns how many
/// were delivered.
pub fn deliver<B: Backend + ?Sized>(b: &mut B, policy: &mut dyn Policy) -> Result<u64, ContractError> {
    let mut out = std::mem::take(&mut b.dispatcher().out);
    let mut n = 0;
    let result = loop {
        let Some(ev) = b.dispatcher().pop() else { break Ok(n) };
        n += 1;
        out.clear();
        b.decide(policy, &ev, &mut out);
        if let Some(why) = policy.as_fallible().and_then(|f| f.failure()) {
            break Err(ContractError::Failed { policy: policy.name(), why });
        }
        if let Err(e) = out.iter().try_for_each(|&d| apply(b, d)) {
            break Err(e);
        }
    };
    b.dispatcher().out = out;
    result
}

/// Check one decision and carry it out.
fn apply<B: Backend + ?Sized>(b: &mut B, d: Decision) -> Result<(), ContractError> {
    match d {
        Decision::Run { thread, ctx } => run(b, thread, ctx),
        Decision::Preempt { ctx } => {
            let disp = b.dispatcher();
            disp.check_ctx(ctx)?;
            if let Some(u) = disp.running_on(ctx) {
                disp.vacate(u);
                b.stop(u, ctx, false);
            }
            Ok(())
        }
        Decision::Idle { ctx } => b.dispatcher().check_ctx(ctx),
        Decision::Timer { key, at } => {
            let disp = b.dispatcher();
            if key >= MAX_TIMER_KEYS {
                return Err(ContractError::TimerKey { policy: disp.policy, key });
            }
            let generation = disp.timers.set(key, at);
            if let Some(at) = at {
                b.arm(key, at, generation);
            }
            Ok(())
        }
        Decision::Admit { period } => {
            let disp = b.dispatcher();
            let Some(t) = disp.waiting.remove(&period) else {
                return Err(ContractError::NotWaiting { policy: disp.policy, period });
            };
            disp.status[t.idx()] = Status::Runnable;
            b.admit(t, period)
        }
    }
}

/// `Run { thread, ctx }`: migrate or start it, preempting whoever held `ctx`.
fn run<B: Backend + ?Sized>(b: &mut B, t: ThreadId, ctx: CtxId) -> Result<(), ContractError> {
    let disp = b.dispatcher();
    disp.check_thread(t)?;
    disp.check_ctx(ctx)?;
    match disp.status(t) {
        Status::Running(c) if c == ctx => return Ok(()),
        Status::Running(c) => {
            disp.vacate(t);
            b.stop(t, c, true);
        }
        Status::Runnable => {}
        // The policy has not yet been told what happened to `t` (its
        // `Blocked`, `Exited` or `PeriodBegin` is still queued): the decision
        // is stale, not illegal, and is dropped; the queued event follows.
        _ if disp.news_pending(t) => return Ok(()),
        state => return Err(ContractError::NotRunnable { policy: disp.policy, thread: t, state }),
    }
    let disp = b.dispatcher();
    if let Some(u) = disp.running_on(ctx) {
        disp.vacate(u);
        b.stop(u, ctx, false);
    }
    let disp = b.dispatcher();
    if disp.exit_pending[t.idx()] {
        disp.finish(t, ctx);
        return Ok(());
    }
    disp.on_ctx[ctx.idx()] = Some(t);
    disp.status[t.idx()] = Status::Running(ctx);
    b.start(t, ctx);
    Ok(())
}

impl Dispatcher {
    fn check_thread(&self, t: ThreadId) -> Result<(), ContractError> {
        if t.idx() < self.status.len() {
            Ok(())
        } else {
            Err(ContractError::UnknownThread { policy: self.policy, thread: t, n: self.status.len() })
        }
    }

    fn check_ctx(&self, ctx: CtxId) -> Result<(), ContractError> {
        if ctx.idx() < self.on_ctx.len() {
            Ok(())
        } else {
            Err(ContractError::UnknownContext { policy: self.policy, ctx, n: self.on_ctx.len() })
        }
    }
}
