//! Progress periods of real programs (RDA §2.3): `pp_begin` requests from
//! the [`pp`](crate::pp) server or declared in the mix, the freeze until
//! the policy admits them, their end, and the exit of a tree with periods open.

use super::state::{PeriodRecord, Runtime, TreeState};
use crate::pp::PpMsg;
use cosched_core::policy::{Demand, Event};
use cosched_core::{CtxId, PeriodId, ThreadId};
use std::sync::mpsc::Sender;

impl Runtime {
    /// A period whose thread is running on a context begins (RDA §2.3): the
    /// tree is frozen until the policy admits it.
    pub(super) fn begin_period(&mut self, e: usize, id: u64) {
        let TreeState::Running(ctx) = self.instances[e].state else {
            self.instances[e].begin_pending = Some(id);
            return;
        };
        // The tree is blocked in `pp_begin` until the server answers, so it
        // need not be frozen while the policy decides: freeze it only if the
        // policy does not put it back on a context (a period admitted at once
        // then costs no freeze and thaw; scripts/bench-pp measures the call).
        self.take_off_context(e, false);
        self.instances[e].state = TreeState::PeriodWait;
        let demand = self.periods[&id].demand;
        self.dispatch(Event::PeriodBegin {
            thread: ThreadId(e as u32),
            ctx: Some(ctx),
            period: PeriodId(id as u32),
            demand,
        });
        if !matches!(self.instances[e].state, TreeState::Running(_) | TreeState::Done) {
            self.control.freeze(&mut self.instances[e].tree);
        }
    }

    /// End period `id`: the policy hears `PeriodEnd` if it had admitted it.
    pub(super) fn end_period(&mut self, id: u64) {
        if let Some(rec) = self.periods.remove(&id) {
            if rec.admitted && self.pp_needed {
                self.dispatch(Event::PeriodEnd { thread: ThreadId(rec.instance as u32), period: PeriodId(id as u32) });
            }
        }
    }

    /// The tree is gone while on `ctx`: end its periods, then `Exited`.
    pub(super) fn finish_on_ctx(&mut self, e: usize, ctx: CtxId) {
        self.instances[e].exit_pending = false;
        let ids: Vec<u64> =
            self.periods.iter().filter(|(_, r)| r.instance == e && r.admitted).map(|(&i, _)| i).collect();
        for id in ids {
            self.end_period(id);
        }
        self.close_slice(e);
        if self.running[ctx.idx()] == Some(ThreadId(e as u32)) {
            self.running[ctx.idx()] = None;
        }
        self.instances[e].state = TreeState::Done;
        self.dispatch(Event::Exited { thread: ThreadId(e as u32), ctx });
    }

    /// Record a new period of instance `e`; returns its id.
    pub(super) fn new_period(
        &mut self,
        e: usize,
        conn: Option<u64>,
        demand: Demand,
        reply: Option<Sender<String>>,
    ) -> u64 {
        let id = self.next_period;
        self.next_period += 1;
        self.periods.insert(id, PeriodRecord { instance: e, conn, demand, admitted: false, reply, cancelled: false });
        id
    }

    /// The managed tree a process belongs to (peer-credential check of the pp server).
    pub(super) fn instance_of_pid(&mut self, pid: i32) -> Option<usize> {
        if let Some(&e) = self.leader_of.get(&pid) {
            return Some(e);
        }
        (0..self.instances.len()).find(|&e| {
            self.instances[e].state != TreeState::Done
                && self.control.members(&mut self.instances[e].tree).contains(&pid)
        })
    }

    /// A message from the progress-period server: `pp_begin` from a managed
    /// process (waits for admission when the policy admits periods), `pp_end`,
    /// or a client gone (its periods end or are cancelled).
    pub(super) fn on_pp(&mut self, msg: PpMsg) {
        match msg {
            PpMsg::Begin { conn, pid, demand, reply } => {
                let Some(e) = self.instance_of_pid(pid).filter(|&e| self.instances[e].state != TreeState::Done) else {
                    let _ = reply.send(format!("ERR process {pid} is not managed by this run\n"));
                    return;
                };
                if !self.pp_needed {
                    let id = self.new_period(e, Some(conn), demand, None);
                    self.periods.get_mut(&id).expect("just added").admitted = true;
                    let _ = reply.send(format!("OK {id}\n"));
                    return;
                }
                let id = self.new_period(e, Some(conn), demand, Some(reply));
                match self.instances[e].state {
                    TreeState::Running(_) => self.begin_period(e, id),
                    TreeState::Blocked => {
                        self.control.freeze(&mut self.instances[e].tree);
                        self.instances[e].state = TreeState::Queued;
                        self.instances[e].begin_pending = Some(id);
                        self.dispatch(Event::Runnable { thread: ThreadId(e as u32) });
                    }
                    _ => self.instances[e].begin_pending = Some(id),
                }
            }
            PpMsg::End { pid, id, reply, .. } => {
                let owner = self.instance_of_pid(pid);
                let ok = self.periods.get(&id).is_some_and(|r| r.admitted && owner == Some(r.instance));
                if ok {
                    self.end_period(id);
                    let _ = reply.send("OK\n".into());
                } else {
                    let _ = reply.send(format!("ERR no admitted period {id} of this process\n"));
                }
            }
            PpMsg::Gone { conn } => {
                let ids: Vec<u64> =
                    self.periods.iter().filter(|(_, r)| r.conn == Some(conn)).map(|(&i, _)| i).collect();
                for id in ids {
                    let rec = self.periods.get_mut(&id).expect("listed");
                    if rec.admitted {
                        self.end_period(id);
                    } else {
                        rec.cancelled = true;
                        rec.reply = None;
                    }
                }
            }
        }
    }
}
