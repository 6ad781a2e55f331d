//! A backend-free harness: feed a policy scripted events through the
//! core's [`Dispatcher`] (a thin fake of a [`Backend`]), which
//! checks each decision is legal exactly as the simulator and the runtime do.

use crate::ids::{CtxId, JobId, Nanos, PeriodId, ThreadId};
use crate::policy::{CoRun, Decision, Event, MachineView, Needs, Oracle, Policy};
use crate::topology::Topology;
use cosched_core::dispatch::{deliver, Backend, ContractError, Dispatcher, Offer, Supply};
use std::collections::BTreeMap;

pub(crate) struct Script {
    pub topo: Topology,
    pub now: Nanos,
    /// Who runs where, after the last event (mirrors the dispatcher).
    pub running: Vec<Option<ThreadId>>,
    /// The policy's armed timers (key → time), as it set them.
    pub timers: BTreeMap<u32, Nanos>,
    pub n_threads: usize,
    pub log: Vec<Decision>,
    /// Scripted ground truth: each thread's LLC MPKI wherever it runs (`Some`: the view has an oracle).
    pub truth: Option<Vec<f64>>,
    d: Dispatcher,
}

impl Oracle for Script {
    fn solo_mem_bandwidth(&self, _t: ThreadId) -> Option<f64> {
        None
    }
    fn solo_seconds(&self, _t: ThreadId) -> Option<f64> {
        None
    }
    fn solo_ipc(&self, _t: ThreadId) -> Option<f64> {
        None
    }
    fn coschedule(&self, _c: CtxId, _t: Option<ThreadId>) -> Option<Vec<(ThreadId, CoRun)>> {
        None // a script knows one thread's contention, not a whole co-schedule
    }
    fn corun(&self, t: ThreadId, _c: CtxId) -> Option<CoRun> {
        let mpki = *self.truth.as_ref()?.get(t.idx())?;
        Some(CoRun { ipc: 1.0 / (1.0 + mpki), mpki })
    }
}

impl MachineView for Script {
    fn now(&self) -> Nanos {
        self.now
    }
    fn topology(&self) -> &Topology {
        &self.topo
    }
    fn running_on(&self, ctx: CtxId) -> Option<ThreadId> {
        self.d.running_on(ctx)
    }
    fn job_of(&self, _t: ThreadId) -> JobId {
        JobId(0)
    }
    fn n_threads_total(&self) -> usize {
        self.n_threads
    }
    fn oracle(&self) -> Option<&dyn Oracle> {
        self.truth.as_ref().map(|_| self as &dyn Oracle)
    }
}

impl Backend for Script {
    fn dispatcher(&mut self) -> &mut Dispatcher {
        &mut self.d
    }
    fn decide(&mut self, policy: &mut dyn Policy, ev: &Event, out: &mut Vec<Decision>) {
        policy.on_event(ev, self, out);
        for &d in out.iter() {
            if let Decision::Timer { key, at } = d {
                match at {
                    Some(t) => self.timers.insert(key, t),
                    None => self.timers.remove(&key),
                };
            }
        }
        self.log.extend_from_slice(out);
    }
    fn start(&mut self, _t: ThreadId, _c: CtxId) {}
    fn stop(&mut self, _t: ThreadId, _c: CtxId, _migrating: bool) {}
    fn admit(&mut self, _t: ThreadId, _p: PeriodId) -> Result<(), ContractError> {
        Ok(())
    }
}

/// The contract of a script: every need met.
fn contract(name: &'static str, needs: Needs, n_threads: usize, n_ctx: usize) -> Dispatcher {
    let offer =
        Offer { backend: "a script", counters: Supply::Yes, energy: Supply::Yes, oracle: Supply::Yes, smt: true };
    Dispatcher::new(name, needs, &offer, vec![JobId(0); n_threads], n_ctx).expect("a script offers everything")
}

impl Script {
    pub fn new(topo: Topology, n_threads: usize, p: &mut dyn Policy) -> Script {
        Script::with_truth(topo, n_threads, None, p)
    }

    /// A script whose view answers oracle questions from `truth`.
    pub fn with_truth(topo: Topology, n_threads: usize, truth: Option<Vec<f64>>, p: &mut dyn Policy) -> Script {
        let d = contract(p.name(), p.needs(), n_threads, topo.n_contexts());
        let s = Script { truth, d, ..Script::bare(topo, n_threads) };
        p.init(&s).expect("init");
        s
    }

    /// A script no policy has been initialised on (for testing `init` errors).
    pub fn bare(topo: Topology, n_threads: usize) -> Script {
        let needs = Needs { progress_periods: true, ..Needs::default() };
        Script {
            truth: None,
            running: vec![None; topo.n_contexts()],
            d: contract("script", needs, n_threads, topo.n_contexts()),
            topo,
            now: 0,
            timers: Default::default(),
            n_threads,
            log: vec![],
        }
    }

    /// Report one happening to the dispatcher, deliver what it queued and
    /// apply the decisions; a broken contract fails the test.
    pub fn send(&mut self, p: &mut dyn Policy, ev: Event) {
        match ev {
            Event::Arrived { thread, .. } | Event::Runnable { thread } => self.d.wake(thread),
            Event::Blocked { thread, ctx, reason } => {
                assert_eq!(self.d.block(thread, reason), Some(ctx), "script: {thread:?} not on {ctx:?}");
            }
            Event::Exited { thread, ctx } => {
                assert_eq!(self.d.exit(thread), Some(ctx), "script: {thread:?} not on {ctx:?}");
            }
            Event::Timer { key } => self.d.fire(key),
            Event::PeriodBegin { thread, period, demand, .. } => {
                self.d.begin_period(thread, period, demand);
            }
            Event::PeriodEnd { thread, period } => self.d.end_period(thread, period),
        }
        if let Err(e) = deliver(self, p) {
            panic!("{e}");
        }
        for c in 0..self.running.len() {
            self.running[c] = self.d.running_on(CtxId(c as u32));
        }
    }

    /// Advance to the earliest timer and fire it.
    pub fn fire_next_timer(&mut self, p: &mut dyn Policy) -> Option<u32> {
        let (&key, &at) = self.timers.iter().min_by_key(|(k, t)| (**t, **k))?;
        self.timers.remove(&key);
        self.now = self.now.max(at);
        self.send(p, Event::Timer { key });
        Some(key)
    }

    pub fn arrive_all(&mut self, p: &mut dyn Policy) {
        for i in 0..self.n_threads {
            self.send(p, Event::Arrived { thread: ThreadId(i as u32), job: JobId(0) });
        }
    }

    /// A runnable thread the test withdrew from the policy by hand now counts as blocked.
    pub fn withdrawn(&mut self, t: ThreadId) {
        self.d.block_off_context(t);
    }

    pub fn busy(&self) -> usize {
        self.running.iter().filter(|r| r.is_some()).count()
    }
}

#[path = "script_tests.rs"]
mod tests;

#[path = "script_slits_tests.rs"]
mod slits_tests;
