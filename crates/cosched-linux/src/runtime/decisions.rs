//! The runtime as a [`Backend`] of the core's dispatcher, which validates
//! every decision and records statuses: `Run` pins a tree to the context's
//! CPU and thaws it, a preemption freezes it, `Admit` answers the waiting
//! `pp_begin`; timers are polled by the event loop. And the delivery of
//! events to the policy.

use super::state::Runtime;
use cosched_core::dispatch::{deliver, Backend, ContractError, Dispatcher, Status};
use cosched_core::policy::{Decision, Event, Policy};
use cosched_core::{CtxId, PeriodId, ThreadId};
use cosched_machine::TraceSlice;

impl Runtime {
    /// Deliver every pending event to the policy; a broken contract is kept
    /// (the event loop then stops the run). Trees that went into a period
    /// wait and were not run again are frozen afterwards.
    pub(super) fn dispatch(&mut self) {
        if self.broken.is_none() && self.d.as_ref().is_some_and(Dispatcher::has_pending) {
            if let Some(mut policy) = self.policy.take() {
                if let Err(e) = deliver(self, policy.as_mut()) {
                    self.broken = Some(e);
                }
                self.policy = Some(policy);
            }
        }
        for e in std::mem::take(&mut self.freeze_unless_running) {
            if matches!(self.status(e), Status::WaitPeriod(_) | Status::Runnable) {
                self.control.freeze(&mut self.instances[e].tree);
            }
        }
    }

    /// Close the instance's open trace slice at now.
    pub(super) fn close_slice(&mut self, e: usize) {
        let now = self.now();
        if let (Some((ctx, start)), Some(tr)) = (self.instances[e].slice.take(), self.trace.as_mut()) {
            tr.slice(TraceSlice { ctx, thread: e as u32, job: self.instances[e].mix_job as u32, start, end: now });
        }
    }

    /// Admit period `id`: answer the waiting `pp_begin` with `OK`; a period
    /// whose client went away meanwhile ends at once.
    fn answer_admission(&mut self, id: u64) {
        let Some(rec) = self.periods.get_mut(&id) else { return };
        rec.admitted = true;
        if let Some(r) = rec.reply.take() {
            let _ = r.send(format!("OK {id}\n"));
        }
        if rec.cancelled {
            self.end_period(id);
        }
    }
}

impl Backend for Runtime {
    fn dispatcher(&mut self) -> &mut Dispatcher {
        self.d()
    }

    fn decide(&mut self, policy: &mut dyn Policy, ev: &Event, out: &mut Vec<Decision>) {
        policy.on_event(ev, &self.view(), out);
        self.say_llc_warning();
    }

    /// Pin the tree to the context's CPU and thaw it; a `pp_begin` that came
    /// while it was frozen is delivered now that it runs.
    fn start(&mut self, thread: ThreadId, ctx: CtxId) {
        let e = thread.idx();
        self.instances[e].idle_ticks = 0;
        let cpu = self.host.cpu(ctx);
        self.control.pin(&mut self.instances[e].tree, &[cpu]);
        self.control.thaw(&mut self.instances[e].tree);
        if self.instances[e].slice.is_none() {
            self.instances[e].slice = Some((ctx.0, self.now()));
        }
        if let Some(id) = self.instances[e].begin_pending.pop_front() {
            self.begin_period(e, id);
        }
    }

    /// Close its trace slice; freeze it unless it migrates (it is thawed on
    /// its new context at once).
    fn stop(&mut self, thread: ThreadId, _ctx: CtxId, migrating: bool) {
        self.close_slice(thread.idx());
        if !migrating {
            self.control.freeze(&mut self.instances[thread.idx()].tree);
        }
    }

    fn admit(&mut self, _thread: ThreadId, period: PeriodId) -> Result<(), ContractError> {
        self.answer_admission(period.0 as u64);
        Ok(())
    }
}
