//! The machine as a policy sees it on the real runtime ([`MachineView`]):
//! the host's topology, which instance runs where, counters from the
//! counter source (hardware or replayed), the memory bus and LLC of the
//! preset or sysfs. No oracle: ground truth exists only in the simulator.

use super::state::Runtime;
use crate::counters::CounterSource;
use crate::host::Host;
use cosched_core::counters::Counters;
use cosched_core::dispatch::Dispatcher;
use cosched_core::policy::{Energy, MachineView};
use cosched_core::{CtxId, JobId, Nanos, ThreadId};
use std::cell::RefCell;

/// A snapshot of the runtime for one policy call.
pub(super) struct RuntimeView<'a> {
    pub(super) now: Nanos,
    pub(super) host: &'a Host,
    /// The contract (who runs where); `None` before the policy starts.
    pub(super) d: Option<&'a Dispatcher>,
    pub(super) job_of: &'a [JobId],
    pub(super) bus: Option<f64>,
    pub(super) power_table: Option<&'a [f64]>,
    pub(super) energy: Option<Energy>,
    pub(super) counters: Option<&'a RefCell<Box<dyn CounterSource>>>,
    pub(super) leaders: &'a [i32],
    pub(super) hz: f64,
    pub(super) llc: Option<f64>,
    /// Set when the policy reads `llc` ([`Runtime::say_llc_warning`]).
    pub(super) llc_read: &'a std::cell::Cell<bool>,
}

impl RuntimeView<'_> {
    /// CPU time of a tree's leader and its reaped children (proc(5) fields 14-17), s.
    pub(super) fn cpu_s(&self, t: usize) -> f64 {
        let pid = self.leaders[t];
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|text| {
                let rest = &text[text.rfind(')')? + 1..];
                let f: Vec<u64> = rest.split_whitespace().skip(11).take(4).filter_map(|x| x.parse().ok()).collect();
                (f.len() == 4).then(|| f.iter().sum::<u64>() as f64 / self.hz)
            })
            .unwrap_or(0.0)
    }
}

impl MachineView for RuntimeView<'_> {
    fn now(&self) -> Nanos {
        self.now
    }
    fn topology(&self) -> &cosched_core::Topology {
        &self.host.topology
    }
    fn running_on(&self, ctx: CtxId) -> Option<ThreadId> {
        self.d.and_then(|d| d.running_on(ctx))
    }
    fn job_of(&self, thread: ThreadId) -> JobId {
        self.job_of[thread.idx()]
    }
    fn n_threads_total(&self) -> usize {
        self.job_of.len()
    }
    fn thread_counters(&self, t: ThreadId) -> Option<Counters> {
        let src = self.counters?;
        let cpu = self.cpu_s(t.idx());
        src.borrow_mut().read(t.idx(), cpu)
    }
    fn socket_counters(&self, _: u32) -> Option<Counters> {
        self.counters?;
        let mut sum = Counters::default();
        for t in 0..self.leaders.len() {
            if let Some(c) = self.thread_counters(ThreadId(t as u32)) {
                sum.add(&c);
            }
        }
        Some(sum)
    }
    fn energy(&self) -> Option<Energy> {
        self.energy
    }
    fn bus_lines_per_s(&self) -> Option<f64> {
        self.bus
    }
    fn power_table(&self) -> Option<Vec<f64>> {
        self.power_table.map(<[f64]>::to_vec)
    }
    fn llc_bytes(&self) -> Option<f64> {
        self.llc_read.set(true);
        self.llc
    }
    fn job_rss_bytes(&self, job: JobId) -> Option<f64> {
        // RssAnon + RssShmem of every managed process of the job (proc(5)), kB.
        let mut total = None;
        for (t, _) in self.job_of.iter().enumerate().filter(|(_, &j)| j == job) {
            let Ok(text) = std::fs::read_to_string(format!("/proc/{}/status", self.leaders[t])) else { continue };
            let kb: f64 = text
                .lines()
                .filter(|l| l.starts_with("RssAnon:") || l.starts_with("RssShmem:"))
                .filter_map(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
                .sum();
            *total.get_or_insert(0.0) += kb * 1024.0;
        }
        total
    }
}

impl Runtime {
    /// The machine as the policy sees it now.
    pub(super) fn view(&self) -> RuntimeView<'_> {
        RuntimeView {
            now: self.now(),
            host: &self.host,
            d: self.d.as_ref(),
            job_of: &self.job_of,
            bus: self.bus,
            power_table: self.power_table.as_deref(),
            energy: None,
            counters: self.counters.as_ref(),
            leaders: &self.leaders,
            hz: self.hz,
            llc: self.llc,
            llc_read: &self.llc_read,
        }
    }

    /// Say the LLC warning of the machine description once the policy has read the LLC's
    /// capacity (only a policy that reads it is given the contradicted figure).
    pub(super) fn say_llc_warning(&mut self) {
        if self.llc_read.get() {
            if let Some(w) = self.llc_warning.take() {
                self.report.line(|| format!("warning: {w}"));
            }
        }
    }
}
