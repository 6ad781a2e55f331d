//! A model of Linux CFS (the SLITS paper's comparison point 4, EFS's base
//! scheduler, the Perf&Fair paper's "Linux"), following `kernel/sched/fair.c`:
//!
//! * one run queue per hardware context, ordered by virtual runtime
//!   (a `BTreeSet` standing in for the red-black tree);
//! * vruntime advances by `delta_exec × NICE_0_LOAD / weight`;
//! * slice = `sched_period(nr) × weight / rq_load`, with
//!   `sched_period = max(latency, nr × min_granularity)`; latency and
//!   granularities scale by `1 + log2(min(ncpus, 8))` (`sysctl_sched_tunable_scaling`);
//! * new threads start at `min_vruntime + vslice` (START_DEBIT) on the idlest
//!   context, ties going to the least loaded socket, then LLC domain, then core
//!   (fork placement descends the domains: with idle sockets a new
//!   thread gets one, as `sched_balance_find_dst_cpu` gives it); woken threads get `max(vruntime, min_vruntime − latency/2)`
//!   (GENTLE_FAIR_SLEEPERS) on their previous context if idle, else an idle
//!   context in the same LLC domain, else the previous one; wakeup preemption
//!   when the woken thread's vruntime is ahead by more than wakeup granularity;
//! * idle balancing pulls a waiting thread when a context goes idle, and a
//!   periodic balancer (every `balance_interval`) moves threads from the
//!   busiest to the least busy context, first within each LLC domain, then
//!   across the machine, while the difference in runnable threads is ≥ 2;
//!   a difference of one moves at a domain's second busy pass (`rotate.rs`),
//!   so three threads on two contexts each get two thirds of one.
//!
//! Task selection goes through a [`Gate`]; plain CFS uses [`Open`] (the
//! leftmost thread), EFS (§4.2) its own.

mod balance;
mod cache;
mod cache_state;
mod events;
mod gate;
mod queue;
mod rotate;
mod tick;

pub(crate) use gate::{Gate, Open, Pick};
pub(crate) use queue::{Rq, Task};

use crate::ids::{CtxId, Nanos, ThreadId, MILLI};
use crate::families::PolicyError;
use crate::policy::{Decision, Event, MachineView, Policy};
use crate::topology::Topology;


/// Where every EEVDF run queue's virtual clock starts, so `V − lag` never
/// goes below zero (a placement offset only: every comparison is relative).
pub(crate) const V_ORIGIN: u64 = 1 << 50;

/// Weight of a nice-0 thread (`NICE_0_LOAD`).
pub const NICE_0_LOAD: u64 = 1024;

/// Tunables, unscaled (the kernel's defaults).
#[derive(Clone, Debug)]
pub struct CfsParams {
    /// `sysctl_sched_latency` before scaling (6 ms).
    pub latency: Nanos,
    /// `sysctl_sched_min_granularity` before scaling (0.75 ms).
    pub min_granularity: Nanos,
    /// `sysctl_sched_wakeup_granularity` before scaling (1 ms).
    pub wakeup_granularity: Nanos,
    /// Period of the load balancer (4 ms: the MC domain's interval on a 4-core LLC).
    pub balance_interval: Nanos,
    /// `sysctl_sched_base_slice` before scaling (0.75 ms): EEVDF's request size.
    pub base_slice: Nanos,
}

impl Default for CfsParams {
    fn default() -> Self {
        CfsParams {
            latency: 6 * MILLI,
            min_granularity: 750_000,
            wakeup_granularity: MILLI,
            balance_interval: 4 * MILLI,
            base_slice: 750_000,
        }
    }
}

/// Which fair class the run queues implement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Discipline {
    /// CFS (Linux 2.6.23 to 6.5): leftmost vruntime, period-derived slices.
    Cfs,
    /// EEVDF (Linux ≥ 6.6): earliest eligible virtual deadline (`eevdf.rs`).
    Eevdf,
}

/// CFS's run queues and tasks, shared by [`Cfs`] and the policies built on it.
pub(crate) struct CfsCore {
    pub p: CfsParams,
    pub disc: Discipline,
    pub rqs: Vec<Rq>,
    pub tasks: Vec<Task>,
    pub topo: Option<Topology>,
    /// The contexts of each LLC domain, then of the machine (the balancer's passes), ascending.
    domains: Vec<Vec<usize>>,
    balance_key: u32,
    balancing: bool,
    /// `linux-cache`'s LLC aggregation (`cache.rs`); `None` for every other policy.
    cache: Option<cache_state::CacheAware>,
    /// Place new and woken threads on the least loaded pipeline of a core as
    /// well (`quintet`'s `pipes` mechanism, the statistical study §3.1's
    /// IntraPipe level); off for every Linux model, which balances cores only.
    pub pipe_placement: bool,
    /// The scheduler tick the machine reports (`tick.rs`); 0: slices end exactly.
    pub(crate) tick: Nanos,
    /// Share of slices that end off the tick grid (`tick.rs`).
    pub(crate) off_grid: f64,
    /// Whether a one-thread excess rotates between run queues (`rotate.rs`).
    pub(crate) rotation: bool,
    /// Periodic balancer passes so far (`rotate.rs` counts its busy passes by them).
    pub(crate) passes: u64,
    /// Per balancing domain (each LLC, then the machine): whether its last
    /// busy pass found a one-thread excess and moved nothing (`nr_balance_failed`).
    pub(crate) failed: Vec<bool>,
}

/// The Linux fair-class models: `cfs` and `eevdf` (`eevdf.rs`).
pub struct Cfs {
    pub(crate) core: CfsCore,
    gate: Open,
}

impl Cfs {
    /// A CFS with the given (unscaled) tunables.
    pub fn new(p: CfsParams) -> Cfs {
        Cfs { core: CfsCore::new(p), gate: Open }
    }

    /// EEVDF (Linux ≥ 6.6) with the given (unscaled) tunables; `base_slice` is its request size.
    pub fn eevdf(p: CfsParams) -> Cfs {
        Cfs { core: CfsCore::with(p, Discipline::Eevdf), gate: Open }
    }

    /// EEVDF with cache-aware LLC aggregation (`linux-cache`; the Linux
    /// "Cache aware scheduling" series v4, `cache.rs`).
    pub fn linux_cache(p: CfsParams) -> Cfs {
        let mut core = CfsCore::with(p, Discipline::Eevdf);
        core.cache = Some(cache_state::CacheAware::default());
        Cfs { core, gate: Open }
    }
}

impl CfsCore {
    pub fn new(p: CfsParams) -> CfsCore {
        CfsCore::with(p, Discipline::Cfs)
    }

    /// Run queues of the given fair class.
    pub fn with(p: CfsParams, disc: Discipline) -> CfsCore {
        CfsCore {
            p,
            disc,
            rqs: Vec::new(),
            tasks: Vec::new(),
            topo: None,
            domains: Vec::new(),
            balance_key: 0,
            balancing: false,
            cache: None,
            pipe_placement: false,
            tick: 0,
            off_grid: 0.0,
            rotation: false,
            passes: 0,
            failed: Vec::new(),
        }
    }

    /// Total runnable threads (running or waiting) on the machine.
    pub fn n_runnable(&self) -> usize {
        self.rqs.iter().map(|r| r.nr as usize).sum()
    }

    /// The largest vruntime on context `c` (waiting or running).
    pub fn max_vruntime(&self, c: usize) -> u64 {
        let rq = &self.rqs[c];
        let waiting = rq.tree.last().map_or(0, |&(v, _)| v);
        let running = rq.curr.map_or(0, |t| self.tasks[t.idx()].vruntime);
        waiting.max(running)
    }

    pub fn period(&self, nr: u32) -> Nanos {
        let nr = nr.max(1) as u64;
        if nr * self.p.min_granularity > self.p.latency {
            nr * self.p.min_granularity
        } else {
            self.p.latency
        }
    }

    /// Time `t` may run on `c` before the fair class reconsiders: CFS's share
    /// of the period; EEVDF's remaining request (time to its virtual deadline).
    pub fn slice(&self, c: usize, t: ThreadId) -> Nanos {
        if self.disc == Discipline::Eevdf {
            return self.eevdf_remaining(t);
        }
        let rq = &self.rqs[c];
        let w = self.tasks[t.idx()].weight;
        let s = self.period(rq.nr) * w / rq.load.max(w);
        s.max(self.p.min_granularity)
    }

    pub fn update_curr(&mut self, c: usize, now: Nanos) {
        let rq = &mut self.rqs[c];
        if let Some(t) = rq.curr {
            let delta = now.saturating_sub(rq.exec_start);
            rq.exec_start = now;
            let task = &mut self.tasks[t.idx()];
            task.vruntime += delta * NICE_0_LOAD / task.weight;
            let mut m = task.vruntime;
            if let Some(&(v, _)) = rq.tree.first() {
                m = m.min(v);
            }
            rq.min_vruntime = rq.min_vruntime.max(m);
        } else if let Some(&(v, _)) = rq.tree.first() {
            rq.min_vruntime = rq.min_vruntime.max(v);
        }
    }

    pub(crate) fn enqueue(&mut self, c: usize, t: ThreadId) {
        let task = &mut self.tasks[t.idx()];
        task.cpu = c as u32;
        let rq = &mut self.rqs[c];
        rq.tree.insert((task.vruntime, t.0));
        rq.load += task.weight;
        rq.nr += 1;
    }

    /// Remove a queued (not running) thread from its tree.
    pub(crate) fn dequeue_waiting(&mut self, c: usize, t: ThreadId) {
        let task = self.tasks[t.idx()];
        let rq = &mut self.rqs[c];
        rq.tree.remove(&(task.vruntime, t.0));
        rq.load -= task.weight;
        rq.nr -= 1;
    }

    /// Put the running thread back into its tree (it stays runnable).
    pub fn put_prev(&mut self, c: usize, view: &dyn MachineView, gate: &mut dyn Gate) {
        if let Some(t) = self.rqs[c].curr.take() {
            let task = &mut self.tasks[t.idx()];
            task.last_ran = view.now();
            let v = task.vruntime;
            self.rqs[c].tree.insert((v, t.0));
            gate.stopped(t, c, view);
        }
    }

    /// Choose and dispatch the next thread of context `c` (or leave it idle).
    pub fn pick_next(&mut self, c: usize, view: &dyn MachineView, out: &mut Vec<Decision>, gate: &mut dyn Gate) {
        let now = view.now();
        if self.rqs[c].tree.is_empty() {
            self.idle_balance(c, now);
        }
        if let Some((t, src)) = gate.pull(c, self) {
            self.update_curr(src, now);
            self.migrate_thread(t, src, c);
        }
        let chosen = match gate.choose(c, self, view) {
            Pick::Fair if self.disc == Discipline::Eevdf => self.eevdf_pick(c, false).map(|t| (t, None)),
            Pick::Fair => self.rqs[c].tree.first().map(|&(_, t)| (ThreadId(t), None)),
            Pick::Thread(t, slice) => Some((t, slice)),
            Pick::Idle => None,
        };
        match chosen {
            Some((t, slice)) => {
                let v = self.tasks[t.idx()].vruntime;
                let rq = &mut self.rqs[c];
                let removed = rq.tree.remove(&(v, t.0));
                debug_assert!(removed, "gate chose a thread not waiting on this context");
                rq.curr = Some(t);
                rq.exec_start = now;
                self.tasks[t.idx()].protected = true;
                let s = slice.unwrap_or_else(|| self.slice(c, t));
                out.push(Decision::Run { thread: t, ctx: CtxId(c as u32) });
                out.push(Decision::Timer { key: c as u32, at: Some(self.expiry(c, t, now, s)) });
                gate.started(t, c, view);
            }
            None => {
                // Whatever ran here was put back (or left): make sure it stops.
                out.push(Decision::Preempt { ctx: CtxId(c as u32) });
                out.push(Decision::Timer { key: c as u32, at: None });
                if !self.rqs[c].tree.is_empty() {
                    out.push(Decision::Idle { ctx: CtxId(c as u32) });
                }
            }
        }
    }

    fn place_and_run(
        &mut self,
        c: usize,
        t: ThreadId,
        view: &dyn MachineView,
        out: &mut Vec<Decision>,
        gate: &mut dyn Gate,
    ) {
        let now = view.now();
        self.enqueue(c, t);
        if self.rqs[c].curr.is_none() {
            self.pick_next(c, view, out, gate);
            return;
        }
        // check_preempt_wakeup
        self.update_curr(c, now);
        let cur = self.rqs[c].curr.expect("running");
        if self.disc == Discipline::Eevdf {
            // check_preempt_wakeup_fair: preempt when the current thread has
            // used its request or EEVDF would pick the woken one over it.
            if self.eevdf_update_deadline(cur) || self.eevdf_pick(c, true) == Some(t) {
                self.put_prev(c, view, gate);
                self.pick_next(c, view, out, gate);
            }
            return;
        }
        let gran = self.p.wakeup_granularity * NICE_0_LOAD / self.tasks[t.idx()].weight;
        if self.tasks[cur.idx()].vruntime > self.tasks[t.idx()].vruntime + gran {
            self.put_prev(c, view, gate);
            self.pick_next(c, view, out, gate);
        }
    }

    /// Take `t` out of CFS wherever it is (running or waiting), as if it blocked:
    /// a policy built on CFS may learn that a thread stopped after CFS already
    /// preempted it in the same batch of decisions.
    pub fn withdraw(&mut self, t: ThreadId, view: &dyn MachineView, out: &mut Vec<Decision>, gate: &mut dyn Gate) {
        let now = view.now();
        if let Some(c) = self.rqs.iter().position(|rq| rq.curr == Some(t)) {
            self.update_curr(c, now);
            if self.disc == Discipline::Eevdf {
                self.eevdf_update_lag(c, t);
            }
            let rq = &mut self.rqs[c];
            rq.curr = None;
            rq.load -= self.tasks[t.idx()].weight;
            rq.nr -= 1;
            self.tasks[t.idx()].last_ran = now;
            gate.stopped(t, c, view);
            self.pick_next(c, view, out, gate);
        } else if let Some(task) = self.tasks.get(t.idx()).copied() {
            let c = task.cpu as usize;
            if self.rqs[c].tree.contains(&(task.vruntime, t.0)) {
                if self.disc == Discipline::Eevdf {
                    self.update_curr(c, now);
                    self.eevdf_update_lag(c, t);
                }
                self.dequeue_waiting(c, t);
            }
        }
    }

    /// Scale the tunables by the machine's size and size the run queues.
    pub fn init(&mut self, view: &dyn MachineView) {
        let topo = view.topology().clone();
        let n = topo.n_contexts();
        let factor = 1 + (n.clamp(1, 8) as u64).ilog2() as u64;
        self.p.latency *= factor;
        self.p.min_granularity *= factor;
        self.p.wakeup_granularity *= factor;
        self.p.base_slice *= factor;
        self.rqs = vec![Rq::default(); n];
        if self.disc == Discipline::Eevdf {
            for rq in &mut self.rqs {
                rq.min_vruntime = V_ORIGIN;
            }
        }
        self.balance_key = n as u32;
        (self.tick, self.off_grid) = view.scheduler_tick().unwrap_or((0, 0.0));
        self.rotation = view.balance_rotation();
        self.failed = vec![false; topo.n_llc as usize + 1];
        self.domains = (0..topo.n_llc).map(Some).chain(std::iter::once(None)).map(|llc| {
            (0..n).filter(|&i| llc.is_none_or(|l| topo.contexts[i].llc == l)).collect()
        }).collect();
        self.topo = Some(topo);
    }
}

impl Policy for Cfs {
    fn name(&self) -> &'static str {
        match (self.core.disc, self.core.cache.is_some()) {
            (_, true) => "linux-cache",
            (Discipline::Cfs, false) => "cfs",
            (Discipline::Eevdf, false) => "eevdf",
        }
    }

    fn init(&mut self, view: &dyn MachineView) -> Result<(), PolicyError> {
        self.core.init(view);
        Ok(())
    }

    fn on_event(&mut self, ev: &Event, view: &dyn MachineView, out: &mut Vec<Decision>) {
        self.core.on_event(ev, view, out, &mut self.gate);
    }

    fn found(&self) -> Option<String> {
        self.core.cache_found()
    }
}

/// This family's policies in the registry ([`super::registry`]), at their rank
/// (registry order; `cosched new-policy` files take rank 1000).
pub(crate) const REGISTERED: super::Registered = super::Registered {
    rank: 40,
    policies: &[
    super::PolicyInfo {
        name: "cfs",
        description: "Linux CFS model: per-context vruntime trees, weights, latency/min-granularity slices, wakeup preemption, periodic and idle load balancing",
        oracle: false,
        knob_groups: &[],
        make: |_| Ok(Box::new(Cfs::new(CfsParams::default()))),
    },
    ],
};
