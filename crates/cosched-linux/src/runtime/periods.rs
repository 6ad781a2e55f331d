//! Progress periods of real programs (RDA §2.3): `pp_begin` requests from
//! the [`pp`](crate::pp) server or declared in the mix, the freeze until
//! the policy admits them, their end, and the exit of a tree with periods open.

use super::state::{PeriodRecord, Runtime};
use crate::pp::PpMsg;
use cosched_core::dispatch::Status;
use cosched_core::policy::Demand;
use cosched_core::{PeriodId, ThreadId};
use std::sync::mpsc::Sender;

impl Runtime {
    /// Instance `e`'s period `id` begins (RDA §2.3) and waits for the
    /// policy's admission. A tree on a context leaves it; it is blocked in
    /// `pp_begin` until the server answers, so it need not be frozen while
    /// the policy decides: it is frozen after the delivery only if the
    /// policy does not run it again at once (a period admitted at once then
    /// costs no freeze and thaw; scripts/bench-pp measures the call). A tree
    /// the policy holds runnable off a context gets it at its next `Run`.
    pub(super) fn begin_period(&mut self, e: usize, id: u64) {
        if self.status(e) == Status::Runnable {
            self.instances[e].begin_pending.push_back(id);
            return;
        }
        let demand = self.periods[&id].demand;
        if self.d().begin_period(ThreadId(e as u32), PeriodId(id as u32), demand).is_some() {
            self.close_slice(e);
        }
        self.freeze_unless_running.push(e);
    }

    /// End period `id`: the policy hears `PeriodEnd` if it had admitted it.
    pub(super) fn end_period(&mut self, id: u64) {
        if let Some(rec) = self.periods.remove(&id) {
            if rec.admitted && self.d.is_some() {
                self.d().end_period(ThreadId(rec.instance as u32), PeriodId(id as u32));
            }
        }
    }

    /// Instance `e`'s tree is gone: its admitted periods end, then it exits
    /// (the dispatcher's rule for its status: `Exited` now when on a
    /// context, at its next `Run` when runnable or waiting, silently when blocked).
    pub(super) fn tree_gone(&mut self, e: usize) {
        let ids: Vec<u64> =
            self.periods.iter().filter(|(_, r)| r.instance == e && r.admitted).map(|(&i, _)| i).collect();
        for id in ids {
            self.end_period(id);
        }
        self.instances[e].begin_pending.clear();
        if self.d().exit(ThreadId(e as u32)).is_some() {
            self.close_slice(e);
        }
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
            self.instances[e].end.is_none() && self.control.members(&mut self.instances[e].tree).contains(&pid)
        })
    }

    /// A message from the progress-period server: `pp_begin` from a managed
    /// process (waits for admission when the policy admits periods), `pp_end`,
    /// or a client gone (its periods end or are cancelled).
    pub(super) fn on_pp(&mut self, msg: PpMsg) {
        match msg {
            PpMsg::Begin { conn, pid, demand, reply } => {
                let Some(e) = self.instance_of_pid(pid).filter(|&e| self.instances[e].end.is_none()) else {
                    let _ = reply.send(format!("ERR process {pid} is not managed by this run\n"));
                    return;
                };
                if !self.d.as_ref().is_some_and(|d| d.admits_periods()) {
                    let id = self.new_period(e, Some(conn), demand, None);
                    self.periods.get_mut(&id).expect("just added").admitted = true;
                    let _ = reply.send(format!("OK {id}\n"));
                    return;
                }
                let id = self.new_period(e, Some(conn), demand, Some(reply));
                match self.status(e) {
                    Status::Running(_) | Status::Blocked | Status::Runnable => self.begin_period(e, id),
                    // Another thread of a tree already waiting: after this admission and its next run.
                    _ => self.instances[e].begin_pending.push_back(id),
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
