//! Running experiments: a policy on a planned workload, with the solo
//! reference runs every slowdown is measured against, and the report
//! (`cosched simulate` JSON) that comes out.
//!
//! A job's solo reference is the same job instance (same per-thread draws)
//! alone on the same machine under the `cfs` model: the time it takes when
//! nothing else competes, as a user would measure it on Linux.

use crate::engine::{run, SimError, SimOptions};
use crate::plan::Plan;
use cosched_core::metrics::{aggregate, Aggregate, JobOutcome};
use cosched_core::progress::Reporter;
use cosched_machine::MachineSpec;
use cosched_machine::TraceSlice;
use cosched_policies::{self as policies, PolicyOptions};
use serde::Serialize;

/// Reference policy of the solo runs.
pub const SOLO_POLICY: &str = "cfs";

cosched_core::metric_fields! {
    /// Run metrics as reported (`cosched simulate --format json`, "metrics"):
    /// the shared aggregate figures plus what the simulator counts. Every field
    /// is named as in the metric registry (`cosched_core::metrics::registry`).
    #[derive(Clone, Debug, Serialize)]
    pub struct Metrics {
        /// Makespan, throughput, STP, ANTT, unfairness, energy, EDP, instructions per joule.
        #[serde(flatten)]
        pub run: Aggregate,
        /// Instructions retired (JSON: a whole number).
        #[serde(serialize_with = "cosched_core::num::serialize_count")]
        [metric] pub instructions: f64,
        /// LLC misses (including cache refills after switches and migrations) (JSON: a whole number).
        #[serde(serialize_with = "cosched_core::num::serialize_count")]
        [metric] pub llc_misses: f64,
        /// L1 data-cache hits (JSON: a whole number).
        #[serde(serialize_with = "cosched_core::num::serialize_count")]
        [metric] pub l1_hits: f64,
        /// Dispatches of a different thread onto a context.
        [metric] pub ctx_switches: u64,
        /// Dispatches onto another core than last time.
        [metric] pub migrations: u64,
        /// Share of ordered thread pairs that ever co-ran, % (SLITS Fig. 1 sparsity).
        [metric] pub explored_pct: f64,
        /// Events handled by the policy.
        [metric] pub policy_events: u64,
        /// The policy's time per event, median, µs (null when not measured).
        [metric] pub decide_p50_us: Option<f64>,
        /// The policy's time per event, 99th percentile, µs (null when not measured).
        [metric] pub decide_p99_us: Option<f64>,
    }
}

cosched_core::metric_fields! {
    /// One job in a report.
    #[derive(Clone, Debug, Serialize)]
    pub struct JobReport {
        /// Instance name.
        pub name: String,
        /// Threads.
        pub threads: usize,
        /// Turnaround, s.
        [metric] pub turnaround_s: f64,
        /// Solo turnaround, s.
        [metric] pub solo_s: Option<f64>,
        /// Turnaround / solo.
        [metric] pub slowdown: Option<f64>,
    }
}

cosched_core::metric_fields! {
    /// The result of one simulated run.
    #[derive(Clone, Debug, Serialize)]
    pub struct Report {
        /// Policy name.
        pub policy: String,
        /// Whether the policy read ground truth.
        pub oracle: bool,
        /// Machine preset name.
        pub machine: String,
        /// Workload name.
        pub workload: String,
        /// Thread override, if any.
        pub threads: Option<u32>,
        /// Seed.
        pub seed: u64,
        /// Run-to-run variation of the ground truth (`--noise`; 0 = exact model).
        pub noise: f64,
        /// Metrics.
        pub metrics: Metrics,
        /// Jobs.
        pub jobs: Vec<JobReport>,
        /// What the policy found to act on over the run (`Policy::found`; `None`: nothing to add).
        pub found: Option<String>,
        /// What each job instance went through of time-sharing, its threads summed
        /// (not written: read by the host check beside what a real run measured).
        #[serde(skip)]
        pub sched: Vec<crate::engine::ThreadSched>,
    }
}

/// Solo turnaround of every job instance of `plan` on `m` (identical
/// instances are simulated once).
pub fn solo_times(m: &MachineSpec, plan: &Plan, opts: &SimOptions) -> Result<Vec<f64>, SimError> {
    let mut seen: std::collections::HashMap<Vec<(u32, u64)>, f64> = std::collections::HashMap::new();
    let mut out = vec![];
    let started = std::time::Instant::now();
    let mut next_line = 3.0;
    for j in 0..plan.jobs.len() {
        if opts.progress.is_on() && started.elapsed().as_secs_f64() >= next_line {
            opts.progress.line(|| format!("progress: solo runs, {j} of {} jobs", plan.jobs.len()));
            next_line = started.elapsed().as_secs_f64() + 3.0;
        }
        let jp = &plan.jobs[j];
        let key: Vec<(u32, u64)> = plan.threads[jp.threads.start as usize..jp.threads.end as usize]
            .iter()
            .map(|t| (t.class, t.scale.to_bits()))
            .collect();
        if let Some(t) = seen.get(&key) {
            out.push(*t);
            continue;
        }
        let solo = plan.solo(j);
        let mut policy = make(SOLO_POLICY, &PolicyOptions::default())?;
        // Not `opts.shared`: solutions are shared between runs of one plan, and each solo run is a
        // plan of its own (its model numbers name other models).
        let o = SimOptions {
            timing: false,
            counter_noise: 0.0,
            progress: Reporter::default(),
            shared: Default::default(),
            ..opts.clone()
        };
        let r = run(m, &solo, policy.as_mut(), &o, None)
            .map_err(|e| SimError::Solo { job: jp.name.clone(), error: Box::new(e) })?;
        let t = r.job_finish[0] as f64 * 1e-9;
        seen.insert(key, t);
        out.push(t);
    }
    Ok(out)
}

/// The policy `name` with `opts`, or its refusal as a [`SimError::Policy`].
fn make(name: &str, opts: &PolicyOptions) -> Result<Box<dyn cosched_core::policy::Policy>, SimError> {
    policies::make(name, opts).map_err(|error| SimError::Policy { policy: name.to_string(), error })
}

/// Everything one run needs besides machine and plan.
#[derive(Clone, Debug)]
pub struct RunConfig {
    /// Policy name.
    pub policy: String,
    /// Policy options.
    pub policy_opts: PolicyOptions,
    /// Engine options.
    pub sim: SimOptions,
    /// Thread override (reported only).
    pub threads: Option<u32>,
}

/// Run one policy and build its report; `solo` from [`solo_times`].
pub fn simulate(
    m: &MachineSpec,
    plan: &Plan,
    cfg: &RunConfig,
    solo: &[f64],
    trace: Option<&mut dyn FnMut(TraceSlice)>,
) -> Result<Report, SimError> {
    let mut policy = make(&cfg.policy, &cfg.policy_opts)?;
    simulate_with(m, plan, policy.as_mut(), cfg, solo, trace)
}

/// As [`simulate`] with the policy given rather than named (a user's
/// policy); the report names it `cfg.policy`.
pub fn simulate_with(
    m: &MachineSpec,
    plan: &Plan,
    policy: &mut dyn cosched_core::Policy,
    cfg: &RunConfig,
    solo: &[f64],
    trace: Option<&mut dyn FnMut(TraceSlice)>,
) -> Result<Report, SimError> {
    let oracle = policy.needs().oracle;
    let out = run(m, plan, policy, &cfg.sim, trace)?;
    let jobs: Vec<JobOutcome> = plan
        .jobs
        .iter()
        .enumerate()
        .map(|(j, jp)| {
            let turnaround = (out.job_finish[j] - jp.arrival) as f64 * 1e-9;
            let solo_s = solo.get(j).copied();
            JobOutcome {
                name: jp.name.clone(),
                threads: (jp.threads.end - jp.threads.start) as usize,
                arrival_s: jp.arrival as f64 * 1e-9,
                turnaround_s: turnaround,
                solo_s,
                slowdown: solo_s.map(|s| turnaround / s),
                instructions: plan.job_instructions(j),
            }
        })
        .collect();
    let agg = aggregate(&jobs, out.makespan as f64 * 1e-9, out.energy);
    let t = &out.totals;
    Ok(Report {
        policy: cfg.policy.clone(),
        oracle,
        machine: m.name.clone(),
        workload: plan.name.clone(),
        threads: cfg.threads,
        seed: cfg.sim.seed,
        noise: plan.noise,
        metrics: Metrics {
            run: agg,
            instructions: t.instructions,
            llc_misses: t.llc_misses,
            l1_hits: (t.l1_accesses - t.l1_misses).max(0.0),
            ctx_switches: out.ctx_switches,
            migrations: out.migrations,
            explored_pct: out.explored_pct,
            policy_events: out.policy_events,
            decide_p50_us: out.decision_us.map(|d| d.0),
            decide_p99_us: out.decision_us.map(|d| d.1),
        },
        jobs: jobs
            .into_iter()
            .map(|j| JobReport {
                name: j.name,
                threads: j.threads,
                turnaround_s: j.turnaround_s,
                solo_s: j.solo_s,
                slowdown: j.slowdown,
            })
            .collect(),
        found: policy.found(),
        sched: plan
            .jobs
            .iter()
            .map(|jp| job_sched(&out.threads[jp.threads.start as usize..jp.threads.end as usize]))
            .collect(),
    })
}

/// A job's time-sharing figures: its threads' summed.
fn job_sched(threads: &[crate::engine::ThreadSched]) -> crate::engine::ThreadSched {
    threads.iter().fold(crate::engine::ThreadSched::default(), |a, t| crate::engine::ThreadSched {
        on_cpu_ns: a.on_cpu_ns + t.on_cpu_ns,
        switched_in: a.switched_in + t.switched_in,
        migrations: a.migrations + t.migrations,
    })
}
