//! Ending a run that is cut short (`--timeout-s`, Ctrl-C, SIGTERM of the
//! scheduler): every live tree thawed and unpinned, its processes sent
//! SIGTERM, a grace period to end by themselves, then SIGKILL of whatever
//! is left of each tree, until nothing is. What ignored SIGTERM is named in
//! the report. A second Ctrl-C or SIGTERM during the grace skips the rest
//! of it.

use super::signals;
use super::state::Runtime;
use crate::sys;
use serde::Serialize;
use std::time::{Duration, Instant};

cosched_core::metric_fields! {
    /// How a cut-short run ended (in the report).
    #[derive(Clone, Debug, Serialize, PartialEq)]
    pub struct StopRecord {
        /// Why, as the end of "the run …": `timed out after N s`, `was interrupted by SIGINT` (or SIGTERM).
        pub reason: String,
        /// The grace period between SIGTERM and SIGKILL, s.
        pub grace_s: f64,
        /// Instances still running at the stop, sent SIGTERM.
        pub terminated: Vec<String>,
        /// Of those, the instances still alive after the grace, killed with SIGKILL.
        pub killed: Vec<String>,
    }
}

impl StopRecord {
    /// The command's exit status for this stop, as docs/formats.md ("Exit status") writes it
    /// once for every command: 124 for a timeout (as `timeout(1)`), 128 + the signal for an
    /// interruption (130 for Ctrl-C, 143 for SIGTERM), as a process the signal ended would give.
    pub fn exit_status(&self) -> u8 {
        match self.reason.strip_prefix("was interrupted by ") {
            Some("SIGINT") => 130,
            Some(_) => 143, // SIGTERM, the other signal the runtime stops on
            None => 124,
        }
    }

    /// One sentence for the command line: what happened to every process.
    pub fn sentence(&self) -> String {
        let mut s = format!("the run {}: every managed process was released", self.reason);
        if !self.terminated.is_empty() {
            s += &format!(" and sent SIGTERM ({})", self.terminated.len());
        }
        if !self.killed.is_empty() {
            s += &format!(
                "; {} ignored it for the {} s grace and had to be killed: {}",
                self.killed.len(),
                cosched_core::num::shortest(self.grace_s),
                cosched_core::text::list(&self.killed, 5)
            );
        }
        s
    }
}

/// How often the grace loop looks whether the trees are gone.
const POLL: Duration = Duration::from_millis(10);
/// How many SIGKILL passes before giving up on a tree that keeps forking
/// (a pass kills every member it reads; a fork bomb may refill the list).
const KILL_PASSES: usize = 1000;

impl Runtime {
    /// Stop every live tree: thaw, unpin, SIGTERM, wait up to `grace` (less
    /// if the user signals again), SIGKILL the rest; the trees are then
    /// released ([`Runtime::release`]).
    pub(super) fn stop(&mut self, reason: String, grace: Duration, names: &[String]) -> StopRecord {
        let live: Vec<usize> = (0..self.instances.len()).filter(|&e| self.instances[e].end.is_none()).collect();
        let restore = self.control.restore.clone();
        for &e in &live {
            let tree = &mut self.instances[e].tree;
            self.control.thaw(tree);
            self.control.pin(tree, &restore);
            for p in self.control.members(tree) {
                sys::signal(p, libc::SIGTERM);
                sys::signal(p, libc::SIGCONT); // a stopped process handles SIGTERM only once continued
            }
        }
        let asked = signals::count();
        let t = Instant::now();
        let gone = |rt: &mut Runtime, e: usize| rt.control.members(&mut rt.instances[e].tree).is_empty();
        while t.elapsed() < grace && signals::count() == asked {
            self.reap();
            if live.iter().all(|&e| gone(self, e)) {
                break;
            }
            std::thread::sleep(POLL.min(grace.saturating_sub(t.elapsed())));
        }
        self.reap();
        let mut killed = vec![];
        for &e in &live {
            if gone(self, e) {
                continue;
            }
            killed.push(names[e].clone());
            for _ in 0..KILL_PASSES {
                let members = self.control.members(&mut self.instances[e].tree);
                if members.is_empty() {
                    break;
                }
                for p in members {
                    sys::signal(p, libc::SIGKILL);
                }
                self.reap();
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        self.reap();
        self.release(false);
        StopRecord {
            reason,
            grace_s: grace.as_secs_f64(),
            terminated: live.iter().map(|&e| names[e].clone()).collect(),
            killed,
        }
    }
}
