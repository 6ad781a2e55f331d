//! The machine as the policy sees it ([`MachineView`]): topology, who runs
//! where, cumulative counters, energy; and, for policies that declare
//! `Needs::oracle` only, the ground truth ([`Oracle`]).

use super::state::Engine;
use crate::contention::{Runner, Solver};
use cosched_core::ids::{CtxId, JobId, Nanos, ThreadId};
use cosched_core::policy::{CoRun, Energy, MachineView, Oracle};
use cosched_core::{Counters, Topology};

impl Engine<'_, '_> {
    /// Counters of thread `t` up to now (settled plus the running stretch).
    pub(super) fn peek(&self, t: u32) -> Counters {
        let th = &self.threads[t as usize];
        let mut c = th.counters;
        if self.d.ctx_of(ThreadId(t)).is_some() {
            let dt = (self.now - th.settled_at) as f64 * 1e-9;
            let run = dt - th.stall_s.min(dt);
            let prog = run - th.debt_s.min(run * th.debt_share);
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
        self.d.running_on(ctx)
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
        for &u in &self.socket_units[s] {
            for &t in &self.unit_runners[u as usize] {
                let th = &self.threads[t as usize];
                c.add(&self.peek(t).since(&th.counters));
            }
        }
        Some(c)
    }
    fn energy(&self) -> Option<Energy> {
        Some(self.energy)
    }
    fn bus_lines_per_s(&self) -> Option<f64> {
        Some(self.machine.bus_lines_per_s())
    }
    fn power_table(&self) -> Option<Vec<f64>> {
        Some(self.machine.power_table())
    }
    fn llc_bytes(&self) -> Option<f64> {
        Some(self.machine.cache.llc_mb * 1024.0 * 1024.0)
    }
    fn scheduler_tick(&self) -> Option<(Nanos, f64)> {
        let c = &self.machine.costs;
        Some(((c.scheduler_tick_ms * 1e6).round() as Nanos, c.scheduler_off_grid))
    }
    fn balance_rotation(&self) -> bool {
        self.machine.costs.balance_rotation
    }
    fn job_rss_bytes(&self, job: JobId) -> Option<f64> {
        // The job's data in its threads' current phases: private parts summed,
        // the shared part once (`footprint_mb`, `shared_mb` of docs/formats.md).
        let (mut private, mut shared, mut any) = (0.0, 0.0f64, false);
        for th in self.threads.iter().filter(|th| th.job == job.0) {
            let m = &self.plan.models[th.model as usize];
            private += m.private_mb;
            shared = shared.max(m.shared_mb);
            any = true;
        }
        any.then_some((private + shared) * 1024.0 * 1024.0)
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
    fn solo_ipc(&self, thread: ThreadId) -> Option<f64> {
        let th = self.threads.get(thread.idx())?;
        Some(self.plan.models[th.model as usize].ipc_alone)
    }
    fn coschedule(&self, ctx: CtxId, thread: Option<ThreadId>) -> Option<Vec<(ThreadId, CoRun)>> {
        let info = *self.topo.contexts.get(ctx.idx())?;
        if let Some(t) = thread {
            self.threads.get(t.idx())?;
        }
        let s = info.socket as usize;
        let runner = |t: u32, c: u32| {
            let i = self.topo.contexts[c as usize];
            let model = self.threads[t as usize].model;
            let (local, on_core) = self.exchange_shares(self.unit_of(c), t, model, &i);
            Runner { model, pipe: i.pipe, core: i.core, llc: i.llc, job: self.threads[t as usize].job, local, on_core }
        };
        // Everyone running on the socket now, except whoever holds `ctx` (and
        // `thread` itself if it runs elsewhere), their exchange shares as they are.
        let mut ids = vec![];
        let mut runners: Vec<Runner> = vec![];
        for &j in self.socket_units[s].iter().flat_map(|&u| &self.unit_runners[u as usize]) {
            if let Some(c) = self.d.ctx_of(ThreadId(j)) {
                if c != ctx && Some(ThreadId(j)) != thread {
                    ids.push(ThreadId(j));
                    runners.push(runner(j, c.0));
                }
            }
        }
        if let Some(t) = thread {
            ids.push(t);
            runners.push(runner(t.0, ctx.0));
        }
        let mut solver = self.what_if.borrow_mut();
        let solver = solver.get_or_insert_with(|| Solver::new(self.machine));
        let mut rates = vec![];
        solver.solve(&self.plan.models, &runners, &mut rates);
        Some(ids.into_iter().zip(rates).map(|(t, r)| (t, CoRun { ipc: r.ipc, mpki: r.mpki })).collect())
    }
}
