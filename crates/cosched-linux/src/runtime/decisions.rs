//! The policy's decisions applied to real process trees: pin to the
//! context's CPU and thaw, freeze, arm timers, admit progress periods; and
//! the delivery of events to the policy.

use super::state::{Runtime, TreeState};
use cosched_core::policy::{Decision, Event};
use cosched_core::{CtxId, ThreadId};
use cosched_machine::TraceSlice;

impl Runtime {
    /// Deliver an event (and whatever it causes) to the policy.
    pub(super) fn dispatch(&mut self, ev: Event) {
        self.queue.push_back(ev);
        while let Some(ev) = self.queue.pop_front() {
            let Some(mut policy) = self.policy.take() else { continue };
            let mut out = std::mem::take(&mut self.out);
            policy.on_event(&ev, &self.view(), &mut out);
            self.policy = Some(policy);
            self.events += 1;
            for d in out.drain(..) {
                self.apply(d);
            }
            self.out = out;
        }
    }

    /// Close the instance's open trace slice at now.
    pub(super) fn close_slice(&mut self, e: usize) {
        let now = self.now();
        if let (Some((ctx, start)), Some(tr)) = (self.instances[e].slice.take(), self.trace.as_mut()) {
            tr.slice(TraceSlice { ctx, thread: e as u32, job: self.instances[e].mix_job as u32, start, end: now });
        }
    }

    /// Take a tree off its context (frozen, or left thawed when it blocked).
    pub(super) fn take_off_context(&mut self, e: usize, freeze: bool) {
        if let TreeState::Running(c) = self.instances[e].state {
            if self.running[c.idx()] == Some(ThreadId(e as u32)) {
                self.running[c.idx()] = None;
            }
        }
        self.close_slice(e);
        if freeze {
            self.control.freeze(&mut self.instances[e].tree);
        }
    }

    /// Carry out one decision on the process trees: `Run` pins and thaws
    /// (freezing whoever held the context), `Preempt` freezes, `Timer` arms
    /// or cancels, `Admit` answers the waiting `pp_begin`.
    pub(super) fn apply(&mut self, d: Decision) {
        match d {
            Decision::Run { thread, ctx } => self.run_on(thread, ctx),
            Decision::Preempt { ctx } => {
                if let Some(u) = self.running.get(ctx.idx()).copied().flatten() {
                    self.take_off_context(u.idx(), true);
                    self.instances[u.idx()].state = TreeState::Queued;
                }
            }
            Decision::Idle { .. } => {}
            Decision::Timer { key, at } => {
                match at {
                    Some(t) => self.timers.insert(key, t),
                    None => self.timers.remove(&key),
                };
            }
            Decision::Admit { period } => self.admit(period.0 as u64),
        }
    }

    /// Put instance `thread` on `ctx`: freeze whoever held it, pin the tree
    /// to the context's CPU and thaw it; deliver a pending exit or
    /// `pp_begin` now that it is on a context.
    fn run_on(&mut self, thread: ThreadId, ctx: CtxId) {
        let e = thread.idx();
        if e >= self.instances.len() || ctx.idx() >= self.running.len() || self.instances[e].state == TreeState::Done {
            return;
        }
        if let Some(u) = self.running[ctx.idx()] {
            if u != thread {
                self.take_off_context(u.idx(), true);
                self.instances[u.idx()].state = TreeState::Queued;
            }
        }
        if let TreeState::Running(old) = self.instances[e].state {
            if old != ctx {
                self.take_off_context(e, false);
            }
        }
        self.running[ctx.idx()] = Some(thread);
        self.instances[e].state = TreeState::Running(ctx);
        self.instances[e].idle_ticks = 0;
        let cpu = self.host.cpu(ctx);
        self.control.pin(&mut self.instances[e].tree, &[cpu]);
        self.control.thaw(&mut self.instances[e].tree);
        if self.instances[e].slice.is_none() {
            self.instances[e].slice = Some((ctx.0, self.now()));
        }
        if self.instances[e].exit_pending {
            self.finish_on_ctx(e, ctx);
        } else if let Some(id) = self.instances[e].begin_pending.take() {
            self.begin_period(e, id);
        }
    }

    /// Admit period `id`: answer the waiting `pp_begin` with `OK`; a period
    /// whose client went away meanwhile ends at once.
    fn admit(&mut self, id: u64) {
        let Some(rec) = self.periods.get_mut(&id) else { return };
        rec.admitted = true;
        if let Some(r) = rec.reply.take() {
            let _ = r.send(format!("OK {id}\n"));
        }
        let (e, cancelled) = (rec.instance, rec.cancelled);
        if self.instances[e].state == TreeState::PeriodWait {
            self.instances[e].state = TreeState::Queued;
        }
        if cancelled {
            self.end_period(id);
        }
    }
}
