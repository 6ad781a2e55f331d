//! The discrete-event engine (docs/architecture.md, "The simulated machine"): one priority
//! queue of timed events, one seeded RNG, rates constant between events.
//! Whenever the set of threads running on a socket changes, the socket is
//! settled (counters and progress advanced to now) and its contention
//! re-solved; the next phase end of each of its threads is then exact.
//!
//! * [`state`]: the engine's state and the records of threads and jobs;
//! * [`progress`]: thread progress, program steps and the contention re-solve;
//! * [`dispatch`]: starting and stopping threads on contexts, their costs,
//!   and the policy's decisions applied;
//! * [`view`]: the [`MachineView`](cosched_core::MachineView) offered to the policy;
//! * this file: the event loop.

mod away;
mod dispatch;
mod error;
mod options;
mod progress;
mod queue;
mod solve;
mod state;
mod timing;
mod view;

use cosched_core::dispatch::deliver;
use cosched_core::ids::{Nanos, SECOND};
use cosched_core::policy::{Energy, Policy};
use cosched_core::{Counters, CtxId};
use cosched_machine::{MachineSpec, TraceSlice};
pub use error::SimError;
pub use options::{Cancel, Shared, SimOptions, DEFAULT_MAX_EVENTS, DEFAULT_MAX_EVENTS_TEXT};
pub use state::ThreadSched;
use state::{Engine, Scheduled};
use std::time::Instant;

use crate::plan::Plan;

/// Wall-clock seconds before the first progress line, and between lines.
const PROGRESS_EVERY_S: f64 = 3.0;

/// What one run produced.
#[derive(Clone, Debug)]
pub struct RunOutput {
    /// Time the last job finished.
    pub makespan: Nanos,
    /// Finish time of each job instance.
    pub job_finish: Vec<Nanos>,
    /// Instructions retired, all threads.
    pub totals: Counters,
    /// Energy, joules.
    pub energy: Energy,
    /// Dispatches of a different thread onto a context.
    pub ctx_switches: u64,
    /// Dispatches onto a different core than the thread last ran on.
    pub migrations: u64,
    /// Events delivered to the policy.
    pub policy_events: u64,
    /// What each thread went through of time-sharing, by thread id.
    pub threads: Vec<ThreadSched>,
    /// Share of ordered thread pairs ever co-running, % (SLITS Fig. 1).
    pub explored_pct: f64,
    /// Decision time percentiles (p50, p99), µs, when timed.
    pub decision_us: Option<(f64, f64)>,
    /// Mean decision time, µs, when timed (what `SimOptions::decision_cost_ns` charges is read from this).
    pub decision_mean_us: Option<f64>,
    /// Degraded modes `Needs` gating noted (a policy's mechanism this machine gives nothing to act on).
    pub notes: Vec<String>,
}

/// Run `plan` on machine `m` under `policy`, which is borrowed, so its state
/// can be read after the run. `trace` receives every slice.
///
/// A registered policy and one of your own on the same plan (the example
/// checks what the engine guarantees):
/// ```
/// use cosched_core::ids::{CtxId, ThreadId};
/// use cosched_policies::{self as policies, PolicyError, PolicyOptions};
/// use cosched_core::policy::{Decision, Event, MachineView, Policy};
/// use cosched_sim::engine::{run, SimOptions};
/// use cosched_sim::{presets, Plan};
///
/// let m = cosched_machine::presets::machine("i5-2500").unwrap();
/// let w = presets::workload("spec-mix8").unwrap();
/// let plan = Plan::new(&w, &m, None, 1, "spec-mix8").unwrap();
/// let opts = SimOptions { timing: false, ..SimOptions::default() };
/// let cfs = run(&m, &plan, &mut *policies::make("cfs", &PolicyOptions::default()).unwrap(), &opts, None).unwrap();
/// assert_eq!(cfs.job_finish.len(), 8);
/// assert_eq!(cfs.makespan, *cfs.job_finish.iter().max().unwrap());
///
/// /// Run to completion, oldest first: no preemption, so one switch per thread.
/// #[derive(Default)]
/// struct Fifo { queue: Vec<ThreadId>, idle: Vec<CtxId> }
/// impl Policy for Fifo {
///     fn name(&self) -> &'static str { "fifo" }
///     fn init(&mut self, view: &dyn MachineView) -> Result<(), PolicyError> {
///         self.idle = view.topology().ctx_ids().collect();
///         Ok(())
///     }
///     fn on_event(&mut self, ev: &Event, _: &dyn MachineView, out: &mut Vec<Decision>) {
///         match *ev {
///             Event::Arrived { thread, .. } | Event::Runnable { thread } => self.queue.push(thread),
///             Event::Blocked { ctx, .. } | Event::Exited { ctx, .. } => self.idle.push(ctx),
///             _ => {}
///         }
///         while !self.queue.is_empty() && !self.idle.is_empty() {
///             out.push(Decision::Run { thread: self.queue.remove(0), ctx: self.idle.remove(0) });
///         }
///     }
/// }
/// let fifo = run(&m, &plan, &mut Fifo::default(), &opts, None).unwrap();
/// assert_eq!(fifo.ctx_switches, 8);
/// ```
pub fn run(
    m: &MachineSpec,
    plan: &Plan,
    policy: &mut dyn Policy,
    opts: &SimOptions,
    trace: Option<&mut dyn FnMut(TraceSlice)>,
) -> Result<RunOutput, SimError> {
    let name = policy.name();
    let mut engine = Engine::new(m, plan, (name, policy.needs()), opts, trace)?;
    policy.init(&engine).map_err(|error| SimError::Policy { policy: name.to_string(), error })?;
    let max_t = (opts.max_time_s * SECOND as f64) as Nanos;
    let mut steps = 0u64;
    // A run whose time stops advancing (a policy re-arming a timer at the
    // same instant) is stopped after this many events at one instant: far
    // more than every thread arriving, waking and being placed at once.
    let stuck_limit = 64 * (plan.threads.len() + m.n_contexts()) as u64 + 10_000;
    let (mut instant, mut at_instant) = (Nanos::MAX, 0u64);
    let started = Instant::now();
    let mut next_line = PROGRESS_EVERY_S;
    while engine.d.n_done() < plan.threads.len() {
        let (at, seq, ev) = engine.next_live_event(name)?;
        if at > max_t {
            return Err(SimError::TimeLimit { limit_s: opts.max_time_s });
        }
        steps += 1;
        if at == instant {
            at_instant += 1;
            if at_instant > stuck_limit {
                return Err(SimError::TimeStuck {
                    policy: name.to_string(),
                    t_s: at as f64 * 1e-9,
                    events: at_instant,
                });
            }
        } else {
            (instant, at_instant) = (at, 1);
        }
        if steps > opts.max_events {
            return Err(SimError::EventBudget {
                budget: opts.max_events,
                t_s: at as f64 * 1e-9,
                done: engine.d.n_done(),
                threads: plan.threads.len(),
            });
        }
        if steps.is_multiple_of(4096) && opts.cancel.is_set() {
            return Err(SimError::Cancelled);
        }
        // The clock is read every 1,024 events: a machine of a million threads takes
        // seconds for 65,536 of them, and a line is due every few seconds.
        if opts.progress.is_on() && steps.is_multiple_of(1_024) {
            let wall = started.elapsed().as_secs_f64();
            if wall >= next_line {
                opts.progress.line(|| {
                    format!(
                        "progress: {:.3} s simulated, {steps} events, {} of {} threads finished, {wall:.0} s",
                        at as f64 * 1e-9,
                        engine.d.n_done(),
                        plan.threads.len()
                    )
                });
                next_line = wall + PROGRESS_EVERY_S;
            }
        }
        engine.settle_energy(at);
        engine.now = at;
        engine.handle(ev, seq);
        deliver(&mut engine, policy)?;
    }
    Ok(engine.finish())
}

impl Engine<'_, '_> {
    /// The next queued event that is still current (timers cancelled since
    /// they were armed are dropped); an error when nothing is left although
    /// threads are unfinished (the policy stalled).
    ///
    /// Sockets whose running set changed are re-solved here, once time is
    /// about to advance (or their own stale step end is next): the events of
    /// one instant (every context's slice ending together) cost one solve,
    /// not one each, and no rate lasts zero time.
    fn next_live_event(&mut self, policy: &str) -> Result<(Nanos, u64, Scheduled), SimError> {
        loop {
            if self.unit_dirty.iter().any(|&d| d) {
                match self.queue.peek() {
                    Some((at, unit)) if at == self.now && unit.is_none_or(|u| !self.unit_dirty[u]) => {}
                    _ => self.solve_dirty(),
                }
            }
            let Some((at, seq, ev)) = self.queue.pop() else {
                return Err(SimError::Stalled {
                    policy: policy.to_string(),
                    t_s: self.now as f64 * 1e-9,
                    unfinished: self.threads.len() - self.d.n_done(),
                    runnable: self.d.n_runnable(),
                });
            };
            // A timer the policy cancelled since it was armed is dropped.
            let live = match ev {
                Scheduled::Timer(k, g) => self.d.timer_live(k, g),
                _ => true,
            };
            if live {
                return Ok((at, seq, ev));
            }
        }
    }

    /// Carry out one timed event at `self.now` (`seq`: its place among events at the same time).
    fn handle(&mut self, ev: Scheduled, seq: u64) {
        match ev {
            Scheduled::Arrive(j) => {
                for t in self.plan.jobs[j as usize].threads.clone() {
                    self.resume(t);
                }
            }
            Scheduled::SocketStep(u) => {
                let u = u as usize;
                let key = (self.now, seq);
                let t = *self.unit_runners[u]
                    .iter()
                    .find(|&&t| self.threads[t as usize].step_end == key)
                    .expect("the unit's earliest step end belongs to one of its runners");
                self.settle_unit(u);
                self.threads[t as usize].remaining = 0.0;
                self.step_done(t);
            }
            Scheduled::IoDone(t) => self.resume(t),
            Scheduled::Timer(k, _) => self.d.fire(k),
        }
    }

    /// Close the open trace slices and sum up the run.
    fn finish(mut self) -> RunOutput {
        let makespan = self.now;
        for c in 0..self.topo.n_contexts() as u32 {
            if let Some(t) = self.d.running_on(CtxId(c)) {
                self.stop(t.0, c);
            }
        }
        let mut totals = Counters::default();
        for th in &self.threads {
            totals.add(&th.counters);
        }
        let pairs_n = self.pairs_n;
        let explored = if pairs_n > 1 {
            // A pair co-ran when either started while the other ran.
            let w = pairs_n.div_ceil(64);
            let bit = |a: usize, b: usize| self.pairs[a * w + b / 64] >> (b % 64) & 1;
            let set: u64 =
                (0..pairs_n).flat_map(|a| (0..pairs_n).map(move |b| (a, b))).map(|(a, b)| bit(a, b) | bit(b, a)).sum();
            set as f64 * 100.0 / (pairs_n * (pairs_n - 1)) as f64
        } else {
            0.0
        };
        RunOutput {
            makespan,
            job_finish: self.jobs.iter().map(|j| j.finish.unwrap_or(makespan)).collect(),
            totals,
            energy: self.energy,
            ctx_switches: self.switches,
            migrations: self.migrations,
            threads: self.threads.iter().map(|t| t.sched).collect(),
            policy_events: self.d.delivered(),
            explored_pct: explored,
            decision_us: self.decision_times.as_ref().map(|h| (h.quantile_us(0.5), h.quantile_us(0.99))),
            decision_mean_us: self.decision_times.as_ref().map(|h| h.mean_us()),
            notes: self.d.notes().to_vec(),
        }
    }
}
