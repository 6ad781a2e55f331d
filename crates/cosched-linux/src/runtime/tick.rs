//! The periodic tick: reap exited processes, detect the end of a tree,
//! detect blocking (no task of a running tree runnable for `block_ticks`
//! ticks → `Blocked`; a blocked tree with a runnable task → frozen and
//! `Runnable`), fire the policy's timers, sample energy, and trace where the
//! kernel placed processes under `linux`.

use super::meter::Meter;
use super::signals::CHILD_EXITED;
use super::state::ns_since;
use super::state::Runtime;
use crate::sys;
use cosched_core::dispatch::Status;
use cosched_core::policy::BlockReason;
use cosched_core::ThreadId;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

impl Runtime {
    /// One tick: reap, detect exits and blocking, fire timers, sample energy.
    pub(super) fn tick(&mut self) {
        self.reap();
        let jiffies = if matches!(self.meter, Meter::Model(_)) { sys::cpu_jiffies() } else { vec![] };
        let linux = self.policy.is_none();
        for e in 0..self.instances.len() {
            if self.instances[e].end.is_some() || self.detect_exit(e) {
                continue;
            }
            if linux {
                if self.trace.is_some() {
                    self.sample_slice(e);
                }
                continue;
            }
            self.detect_blocking(e);
        }
        if let Some(d) = self.d.as_mut() {
            d.fire_due(ns_since(self.t0, Instant::now()));
        }
        self.dispatch();
        self.sample_energy(jiffies);
    }

    /// Reap exited children when SIGCHLD said a child changed state, and once
    /// a second regardless; record the exit code, CPU time and time-sharing figures of leaders.
    pub(super) fn reap(&mut self) {
        let chld = CHILD_EXITED.swap(false, Ordering::Relaxed);
        let periodic = self.ticks.is_multiple_of(50);
        self.ticks += 1;
        while let Some(r) = if chld || periodic { crate::reap::reap_any() } else { None } {
            if let Some(&e) = self.leader_of.get(&r.pid) {
                self.instances[e].exit_code = Some(r.code);
                self.instances[e].cpu_s = r.cpu_s;
                self.instances[e].reaped = Some(r);
            }
        }
    }

    /// Instance `e`'s leader exited and the last process of its tree is
    /// gone: record its end and tell the policy (the dispatcher's exit
    /// rule). Returns whether it ended.
    fn detect_exit(&mut self, e: usize) -> bool {
        if self.instances[e].exit_code.is_none() || self.instances[e].end.is_some() {
            return false;
        }
        if !self.control.members(&mut self.instances[e].tree).is_empty() {
            return false;
        }
        let leader = self.instances[e].tree.leader;
        self.instances[e].end = Some(Instant::now());
        self.leader_of.remove(&leader);
        if self.d.is_some() {
            self.tree_gone(e);
        }
        true
    }

    /// A running tree with no runnable task for `block_ticks` ticks is
    /// `Blocked` (left thawed, unpinned); a blocked tree with a runnable task
    /// is frozen and `Runnable` again.
    fn detect_blocking(&mut self, e: usize) {
        match self.status(e) {
            Status::Running(_) => {
                // Cheap first: if the leader gained CPU time since the last
                // tick (`/proc/PID/schedstat`, one small read), the tree ran;
                // only otherwise read every task's state.
                let ran = sys::run_ns(self.instances[e].tree.leader);
                let busy = ran.is_some_and(|r| r > self.instances[e].run_ns);
                if let Some(r) = ran {
                    self.instances[e].run_ns = r;
                }
                if busy || self.any_runnable(e) {
                    self.instances[e].idle_ticks = 0;
                    return;
                }
                self.instances[e].idle_ticks += 1;
                if self.instances[e].idle_ticks >= self.block_ticks {
                    self.d().block(ThreadId(e as u32), BlockReason::Io);
                    self.close_slice(e);
                    let restore = self.control.restore.clone();
                    self.control.pin(&mut self.instances[e].tree, &restore);
                }
            }
            Status::Blocked if self.any_runnable(e) => {
                self.control.freeze(&mut self.instances[e].tree);
                self.d().wake(ThreadId(e as u32));
            }
            _ => {}
        }
    }

    /// Under `linux` the kernel places processes: trace where the leader
    /// last ran, one slice per stretch on one CPU while it is runnable
    /// (sampled every tick).
    pub(super) fn sample_slice(&mut self, e: usize) {
        let stat = sys::proc_stat(self.instances[e].tree.leader);
        let ctx = stat
            .filter(|s| s.state == 'R')
            .and_then(|s| self.host.cpus.iter().position(|&c| c == s.processor))
            .map(|c| c as u32);
        if self.instances[e].slice.map(|(c, _)| c) != ctx {
            self.close_slice(e);
            if let Some(c) = ctx {
                self.instances[e].slice = Some((c, self.now()));
            }
        }
    }

    /// Whether any task of instance `e`'s tree is runnable (per-task states).
    pub(super) fn any_runnable(&mut self, e: usize) -> bool {
        self.control
            .tasks(&mut self.instances[e].tree)
            .iter()
            .any(|&(p, t)| sys::task_stat(p, t).is_some_and(|s| s.state == 'R'))
    }

    /// How long the event loop may sleep: until the next tick or the next policy timer.
    pub(super) fn next_wake(&self, tick: Duration) -> Duration {
        let now = self.now();
        let next = self.d.as_ref().and_then(|d| d.next_timer());
        next.map(|t| Duration::from_nanos(t.saturating_sub(now))).unwrap_or(tick).min(tick)
    }
}
