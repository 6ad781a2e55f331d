//! The machine as the policy sees it ([`MachineView`]): topology, who runs
//! where, cumulative counters, energy; and, for policies that declare
//! `Needs::oracle` only, the ground truth ([`Oracle`]).

use super::state::{Engine, ThreadStatus};
use cosched_core::ids::{CtxId, JobId, Nanos, ThreadId};
use cosched_core::policy::{Energy, MachineView, Oracle};
use cosched_core::{Counters, Topology};

impl Engine<'_, '_> {
    /// Counters of thread `t` up to now (settled plus the running stretch).
    pub(super) fn peek(&self, t: u32) -> Counters {
        let th = &self.threads[t as usize];
        let mut c = th.counters;
        if let ThreadStatus::Running(_) = th.status {
            let dt = (self.now - th.settled_at) as f64 * 1e-9;
            let prog = dt - th.debt_s.min(dt * 0.5);
            let mut inc = th.rate.scaled(prog);
            inc.cycles = self.f_hz * dt;
            c.add(&inc);
        }
        c
    }
}

impl MachineView for Engine<'_, '_> {
    fn now(&self) -> Nanos {
        self.now
    }
    fn topology(&self) -> &Topology {
        &self.topo
    }
    fn running_on(&self, ctx: CtxId) -> Option<ThreadId> {
        self.ctx_thread.get(ctx.idx()).copied().flatten().map(ThreadId)
    }
    fn job_of(&self, thread: ThreadId) -> JobId {
        JobId(self.threads[thread.idx()].job)
    }
    fn n_threads_total(&self) -> usize {
        self.threads.len()
    }
    fn thread_counters(&self, thread: ThreadId) -> Option<Counters> {
        (thread.idx() < self.threads.len()).then(|| self.peek(thread.0))
    }
    fn socket_counters(&self, socket: u32) -> Option<Counters> {
        let s = socket as usize;
        let mut c = *self.socket_counters.get(s)?;
        for &t in &self.socket_runners[s] {
            let th = &self.threads[t as usize];
            c.add(&self.peek(t).since(&th.counters));
        }
        Some(c)
    }
    fn energy(&self) -> Option<Energy> {
        Some(self.energy)
    }
    fn bus_lines_per_s(&self) -> Option<f64> {
        Some(self.machine.bus_lines_per_s())
    }
    fn llc_bytes(&self) -> Option<f64> {
        Some(self.machine.cache.llc_mb * 1024.0 * 1024.0)
    }
    fn oracle(&self) -> Option<&dyn Oracle> {
        if self.oracle_ok {
            Some(self)
        } else {
            None
        }
    }
}

impl Oracle for Engine<'_, '_> {
    fn solo_mem_bandwidth(&self, thread: ThreadId) -> Option<f64> {
        let th = self.threads.get(thread.idx())?;
        let m = &self.plan.models[th.model as usize];
        Some(m.ipc_alone * self.f_hz * m.mpki_alone / 1000.0 * (1.0 + m.wb_ratio))
    }
    fn solo_seconds(&self, thread: ThreadId) -> Option<f64> {
        let th = self.threads.get(thread.idx())?;
        let ipc_alone = self.plan.models[th.model as usize].ipc_alone;
        Some(th.solo_s + (self.peek(thread.0).instructions - th.counters.instructions) / (ipc_alone * self.f_hz))
    }
}
