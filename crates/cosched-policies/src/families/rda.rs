//! RDA: Strict and Compromise (RDA §3): the CFS model schedules every thread,
//! except that a thread entering a progress period (`pp_begin`) runs only once
//! the scheduling predicate (Algorithm 1) admits its demand; otherwise it
//! waits on the resource waitlist until periods ending free enough of the
//! resource (in arrival order). Threads outside periods are never held.
//! Thread-pool rule (§3.4): while a thread of a multi-threaded process waits,
//! the process's other threads are held too, until its period is admitted —
//! except threads inside an admitted period, which hold resources the waiting
//! one may need (holding them could deadlock the pool; a reading we chose).

use super::cfs::{CfsCore, CfsParams, Gate, Open, Pick};
use super::knob::{Declared, Kind};
use crate::ids::{JobId, ThreadId};
use crate::families::PolicyError;
use crate::policy::{Decision, Demand, Event, MachineView, Needs, Policy};
use crate::rda::{Monitor, RdaPolicy};
use std::collections::BTreeSet;

cosched_core::options! {
    /// RDA Compromise's knob: the oversubscription factor x (§3.3; 2 in the paper).
    pub struct CompromiseKnobs of "RDA Compromise", "RDA §3.3" {
        /// RDA Compromise: oversubscription factor x (capacity may be exceeded up to x times)
        rda_factor: f64 = (Kind::Float { min: 1.0, max: 64.0 }, "2"),
    }
}

cosched_core::options! {
    /// RDA's knob: every declared demand times this (the sensitivity ablation).
    pub struct RdaKnobs of "RDA", "RDA §3.2 (declarations); ablation of `paper rda`" {
        /// RDA: multiply every declared demand by this (sensitivity to wrong declarations; 1 = as declared)
        rda_declare_scale: f64 = (Kind::Float { min: 0.01, max: 100.0 }, "1"),
    }
}

/// Threads of a held process are skipped, except those inside an admitted
/// period: they hold resources, and holding them could deadlock the pool.
/// Among the threads left, the inner gate chooses ([`Open`] for RDA itself:
/// the first in vruntime order; `quintet`'s pairing and admission otherwise).
pub(crate) struct Hold<G> {
    held: BTreeSet<JobId>,
    in_period: BTreeSet<ThreadId>,
    pub(crate) inner: G,
}

impl<G: Gate> Gate for Hold<G> {
    fn choose(&mut self, c: usize, core: &CfsCore, view: &dyn MachineView) -> Pick {
        let (held, in_period) = (&self.held, &self.in_period);
        let free = |t: ThreadId| !held.contains(&view.job_of(t)) || in_period.contains(&t);
        self.inner.choose_allowed(c, core, view, &free)
    }

    fn pull(&mut self, c: usize, core: &CfsCore) -> Option<(ThreadId, usize)> {
        self.inner.pull(c, core)
    }

    fn started(&mut self, t: ThreadId, c: usize, view: &dyn MachineView) {
        self.inner.started(t, c, view);
    }

    fn stopped(&mut self, t: ThreadId, c: usize, view: &dyn MachineView) {
        self.inner.stopped(t, c, view);
    }
}

/// CFS with RDA's progress-period gate (§3); `G` chooses among the threads
/// the hold leaves (plain RDA: [`Open`]; `quintet` its own gate).
pub(crate) struct PeriodGated<G: Gate> {
    policy: RdaPolicy,
    pub(crate) core: CfsCore,
    pub(crate) gate: Hold<G>,
    monitor: Option<Monitor>,
    threads_of_job: Vec<u32>,
    /// Threads the CFS model has seen arrive (a thread whose first step is
    /// `pp_begin` reaches the policy first as a period, not as an arrival).
    seen: BTreeSet<ThreadId>,
    /// Waitlisted threads CFS has not seen yet.
    pending_first: BTreeSet<ThreadId>,
    /// Factor applied to every declared demand (1 = as declared).
    declare_scale: f64,
    /// Whether §3.4's thread-pool hold applies (the ablation turns it off).
    pool_hold: bool,
    /// Progress periods begun, and those of them that waited for capacity (`Policy::found`).
    periods: (u64, u64),
}

/// The RDA policy.
pub struct Rda(PeriodGated<Open>);

impl Rda {
    /// An RDA scheduler with the given predicate policy.
    pub fn new(policy: RdaPolicy) -> Rda {
        Rda(PeriodGated::with_gate(policy, Open))
    }

    /// With `on = false`, no process's threads are held while one of its
    /// periods waits (§3.4's thread-pool rule off: the ablation).
    pub fn pool_hold(self, on: bool) -> Rda {
        Rda(self.0.pool_hold(on))
    }

    /// Take every declaration as `scale` times what the program declared:
    /// how sensitive the predicate is to wrong declarations.
    pub fn declared_times(self, scale: f64) -> Rda {
        Rda(self.0.declared_times(scale))
    }

    /// The progress and resource monitors.
    pub fn monitor(&self) -> Option<&Monitor> {
        self.0.monitor.as_ref()
    }
}

impl Policy for Rda {
    fn name(&self) -> &'static str {
        self.0.name()
    }

    fn needs(&self) -> Needs {
        self.0.needs()
    }

    fn init(&mut self, view: &dyn MachineView) -> Result<(), PolicyError> {
        self.0.init(view)
    }

    fn on_event(&mut self, ev: &Event, view: &dyn MachineView, out: &mut Vec<Decision>) {
        self.0.on_event(ev, view, out)
    }

    fn found(&self) -> Option<String> {
        self.0.found()
    }
}

impl<G: Gate> PeriodGated<G> {
    /// RDA's period handling with `inner` choosing among the threads it leaves runnable.
    pub(crate) fn with_gate(policy: RdaPolicy, inner: G) -> PeriodGated<G> {
        PeriodGated {
            policy,
            core: CfsCore::new(CfsParams::default()),
            gate: Hold { held: BTreeSet::new(), in_period: BTreeSet::new(), inner },
            monitor: None,
            threads_of_job: vec![],
            seen: BTreeSet::new(),
            pending_first: BTreeSet::new(),
            declare_scale: 1.0,
            pool_hold: true,
            periods: (0, 0),
        }
    }

    /// With `on = false`, no process's threads are held while one of its
    /// periods waits (§3.4's thread-pool rule off: the ablation).
    pub(crate) fn pool_hold(mut self, on: bool) -> PeriodGated<G> {
        self.pool_hold = on;
        self
    }

    /// Take every declaration as `scale` times what the program declared:
    /// how sensitive the predicate is to wrong declarations.
    pub(crate) fn declared_times(mut self, scale: f64) -> PeriodGated<G> {
        self.declare_scale = scale;
        self
    }

    /// Count `t` in its job once.
    fn know(&mut self, t: ThreadId, view: &dyn MachineView) -> bool {
        if !self.seen.insert(t) {
            return false;
        }
        let job = view.job_of(t);
        if self.threads_of_job.len() <= job.idx() {
            self.threads_of_job.resize(job.idx() + 1, 0);
        }
        self.threads_of_job[job.idx()] += 1;
        true
    }

    /// Hand an admitted thread to CFS: as an arrival the first time, else as a wake-up.
    fn release(&mut self, t: ThreadId, first: bool, view: &dyn MachineView, out: &mut Vec<Decision>) {
        let ev = if first { Event::Arrived { thread: t, job: view.job_of(t) } } else { Event::Runnable { thread: t } };
        self.core.on_event(&ev, view, out, &mut self.gate);
    }

    fn refresh_holds(&mut self, view: &dyn MachineView) {
        let m = self.monitor.as_ref().expect("init");
        if !self.pool_hold {
            self.gate.held.clear();
            self.gate.in_period = m.active_threads().collect();
            return;
        }
        self.gate.held = m
            .waiting()
            .map(|(_, t)| view.job_of(t))
            .filter(|j| self.threads_of_job.get(j.idx()).is_some_and(|&n| n > 1))
            .collect();
        self.gate.in_period = m.active_threads().collect();
    }
}

impl<G: Gate> Policy for PeriodGated<G> {
    fn name(&self) -> &'static str {
        match self.policy {
            RdaPolicy::Strict => "rda-strict",
            RdaPolicy::Compromise { .. } => "rda-compromise",
        }
    }

    fn needs(&self) -> Needs {
        Needs { progress_periods: true, ..Needs::default() }
    }

    fn found(&self) -> Option<String> {
        Some(match self.periods {
            (0, _) => "no job declared a progress period: every thread admitted, so it scheduled as cfs".to_string(),
            (p, 0) => format!("{p} progress periods declared, none waited for capacity, so it scheduled as cfs"),
            (p, w) => format!("{w} of {p} declared progress periods waited for capacity"),
        })
    }

    fn init(&mut self, view: &dyn MachineView) -> Result<(), PolicyError> {
        self.core.init(view);
        let llc_bytes = view.llc_bytes().ok_or("rda needs the LLC capacity of the machine")?;
        // Unknown bandwidth (a real host described by sysfs alone): bandwidth
        // periods are admitted without limit; the run's description line says so.
        let bw = view.bus_lines_per_s().map_or(f64::INFINITY, |l| l * 64.0);
        self.monitor = Some(Monitor::new(self.policy, llc_bytes, bw));
        Ok(())
    }

    fn on_event(&mut self, ev: &Event, view: &dyn MachineView, out: &mut Vec<Decision>) {
        // A thread that ends one period and begins the next (or exits) in the same
        // instant has already left its context when `PeriodEnd` arrives; take it
        // out of CFS before anything is rescheduled, so it is never run while
        // it waits.
        for c in 0..self.core.rqs.len() {
            if let Some(t) = self.core.rqs[c].curr {
                if view.running_on(crate::ids::CtxId(c as u32)) != Some(t) {
                    self.core.withdraw(t, view, out, &mut self.gate);
                }
            }
        }
        match *ev {
            Event::Arrived { thread, .. } => {
                self.know(thread, view);
                self.core.on_event(ev, view, out, &mut self.gate);
            }
            Event::PeriodBegin { thread, ctx, period, demand } => {
                let first = self.know(thread, view);
                if ctx.is_some() {
                    self.core.withdraw(thread, view, out, &mut self.gate);
                }
                let demand = Demand { amount: demand.amount * self.declare_scale, ..demand };
                self.periods.0 += 1;
                if self.monitor.as_mut().expect("init").begin(period, thread, demand) {
                    out.push(Decision::Admit { period });
                    self.release(thread, first, view, out);
                } else {
                    self.periods.1 += 1;
                    if first {
                        self.pending_first.insert(thread);
                    }
                }
                self.refresh_holds(view);
            }
            Event::PeriodEnd { period, .. } => {
                let admitted = self.monitor.as_mut().expect("init").end(period);
                for (p, t) in admitted {
                    out.push(Decision::Admit { period: p });
                    let first = self.pending_first.remove(&t);
                    self.release(t, first, view, out);
                }
                self.refresh_holds(view);
            }
            _ => self.core.on_event(ev, view, out, &mut self.gate),
        }
        // Contexts left idle while their queue held a paused process's threads try again.
        for c in 0..self.core.rqs.len() {
            if self.core.rqs[c].curr.is_none() && !self.core.rqs[c].tree.is_empty() {
                self.core.pick_next(c, view, out, &mut self.gate);
            }
        }
    }
}

/// This family's policies in the registry ([`super::registry`]), at their rank
/// (registry order; `cosched new-policy` files take rank 1000).
pub(crate) const REGISTERED: super::Registered = super::Registered {
    rank: 80,
    policies: &[
    super::PolicyInfo {
        name: "rda-strict",
        description: "RDA Strict: CFS, but a progress period runs only if its declared demand keeps the resource within capacity, else it waits (RDA §3)",
        oracle: false,
        knob_groups: &[RdaKnobs::GROUP],
        make: |o| {
            Ok(Box::new(
                Rda::new(crate::rda::RdaPolicy::Strict)
                    .declared_times(o.rda_declare_scale)
                    .pool_hold(o.rda_pool_hold),
            ))
        },
    },
    super::PolicyInfo {
        name: "rda-compromise",
        description: "RDA Compromise: as Strict, up to x times the capacity (x = 2 by default, --rda-factor)",
        oracle: false,
        knob_groups: &[CompromiseKnobs::GROUP, RdaKnobs::GROUP],
        make: |o| {
            let p = crate::rda::RdaPolicy::Compromise { factor: o.rda_factor };
            Ok(Box::new(Rda::new(p).declared_times(o.rda_declare_scale).pool_hold(o.rda_pool_hold)))
        }
    },
    ],
};
