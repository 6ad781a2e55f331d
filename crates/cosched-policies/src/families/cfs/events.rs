//! CFS's handling of one event (arrival, wake-up, block or exit, the
//! slice timer, the balancer's timer): `kernel/sched/fair.c`'s enqueue,
//! wake-up placement, tick and load-balancing entry points.

use super::{CfsCore, Discipline, Gate, Task, NICE_0_LOAD};
use crate::policy::{Decision, Event, MachineView};

impl CfsCore {
    /// CFS's handling of one event, with task selection through `gate`.
    pub fn on_event(&mut self, ev: &Event, view: &dyn MachineView, out: &mut Vec<Decision>, gate: &mut dyn Gate) {
        let now = view.now();
        if !self.balancing {
            self.balancing = true;
            out.push(Decision::Timer { key: self.balance_key, at: Some(now + self.p.balance_interval) });
        }
        match *ev {
            Event::Arrived { thread, job } => {
                while self.tasks.len() <= thread.idx() {
                    self.tasks.push(Task {
                        vruntime: 0,
                        weight: NICE_0_LOAD,
                        cpu: 0,
                        last_ran: now,
                        deadline: 0,
                        vlag: 0,
                        protected: false,
                    });
                }
                self.cache_arrived(thread, job, view);
                let c = self.select_idlest(thread);
                self.update_curr(c, now);
                if self.disc == Discipline::Eevdf {
                    self.eevdf_place(c, thread, true);
                    self.place_and_run(c, thread, view, out, gate);
                    return;
                }
                let vslice = self.period(self.rqs[c].nr + 1) / (self.rqs[c].nr as u64 + 1);
                self.tasks[thread.idx()].vruntime = self.rqs[c].min_vruntime + vslice;
                self.place_and_run(c, thread, view, out, gate);
            }
            Event::Runnable { thread } => {
                let prev = self.tasks[thread.idx()].cpu as usize;
                let c = self.select_wake(prev, thread);
                self.update_curr(c, now);
                if self.disc == Discipline::Eevdf {
                    self.eevdf_place(c, thread, false);
                    self.place_and_run(c, thread, view, out, gate);
                    return;
                }
                let task = &mut self.tasks[thread.idx()];
                if c != prev {
                    task.vruntime =
                        task.vruntime.saturating_sub(self.rqs[prev].min_vruntime) + self.rqs[c].min_vruntime;
                }
                let floor = self.rqs[c].min_vruntime.saturating_sub(self.p.latency / 2);
                task.vruntime = task.vruntime.max(floor);
                self.place_and_run(c, thread, view, out, gate);
            }
            Event::Blocked { thread, .. } => self.withdraw(thread, view, out, gate),
            Event::Exited { thread, .. } => {
                self.withdraw(thread, view, out, gate);
                self.cache_exited(thread);
            }
            Event::Timer { key } if key == self.balance_key => {
                self.periodic_balance(view, out, gate);
                self.cache_balance(view, out, gate);
                out.push(Decision::Timer { key, at: Some(now + self.p.balance_interval) });
            }
            Event::Timer { key } => {
                let c = key as usize;
                self.update_curr(c, now);
                if self.disc == Discipline::Eevdf {
                    if let Some(t) = self.rqs[c].curr {
                        self.eevdf_update_deadline(t);
                    }
                }
                if self.rqs[c].tree.is_empty() {
                    if let Some(t) = self.rqs[c].curr {
                        let s = self.slice(c, t);
                        out.push(Decision::Timer { key, at: Some(self.expiry(c, t, now, s)) });
                    }
                } else {
                    self.put_prev(c, view, gate);
                    self.pick_next(c, view, out, gate);
                }
            }
            _ => {}
        }
    }
}
