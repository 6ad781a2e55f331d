//! The best static co-schedule of a workload on the simulated machine, its
//! simulated outcome and what kind of bound it is ([`crate::optimum`]'s
//! searches chosen by size: exact, Jiang et al.'s matching and grouping, the
//! EVT estimate).

use crate::error::RunError;
use crate::failure::SimFailure;
use crate::optimum::{
    best_of, Best, Exhaustive, Grouped, Instance, Matched, Objective, OptimumError, Sampled, MAX_BUDGET, MAX_SAMPLES,
};
use cosched_core::optimum::grouping::corun_count;
use cosched_machine::MachineSpec;
use cosched_policies::knob::flag_of;
use cosched_policies::knob::Kind;
use cosched_sim::{presets, Plan};
use serde::Serialize;

/// A confidence level: the interval's coverage, short of 0 and 1.
const CONFIDENCE: Kind = Kind::Float { min: 0.001, max: 0.999 };
const COUNT: Kind = Kind::Int { min: 0, max: u32::MAX as u64 };
const SIZE: Kind = Kind::Int { min: 0, max: u64::MAX };

cosched_core::options! {
    /// The options of the search for the best static co-schedule (`cosched
    /// optimum`'s flags, Python's `cosched.optimum` keywords).
    pub struct OptimumOptions of "optimum", "how far from the best" {
        /// Machine preset or file.
        machine: String = (Kind::Text, "xeon-e5645"),
        /// Workload preset or file (with more threads than contexts, time-shared partitions are sampled).
        workload: String = (Kind::Text, "spec-mix8"),
        /// Thread count of the workload's multi-threaded jobs.
        threads: Option<u32> = (COUNT, ""),
        /// Run N copies of every job.
        copies: Option<u32> = (COUNT, ""),
        /// What "best" means: throughput (GIPS, larger is better) or antt (mean turnaround over solo, smaller is better).
        objective: String = (Kind::Text, "throughput"),
        /// Simulate every distinct static co-schedule when there are at most this many (the exact optimum).
        budget: usize = (SIZE, "20000"),
        /// Random assignments for the EVT estimate when the co-schedules exceed --budget (0 with an exhaustive search: none).
        samples: Option<usize> = (SIZE, ""),
        /// Seed of the random assignments.
        seed: u64 = (SIZE, "1"),
        /// Confidence level of the EVT interval.
        confidence: f64 = (CONFIDENCE, "0.95"),
        /// Skip Jiang et al.'s pairwise matching (it runs jobs × (jobs − 1) pairwise co-runs) and its
        /// grouping on larger sharing domains (every member of every group that fits a domain: at most --budget co-runs).
        matching: bool = (Kind::Switch, "true"),
    }
}

/// Random assignments drawn when the co-schedules are too many to simulate them all.
pub const DEFAULT_SAMPLES: usize = 1000;

/// What the static co-schedule count says for an oversubscribed workload.
pub const PARTITIONS: &str = "none (more threads than contexts)";

cosched_core::metric_fields! {
    /// What the search for the best static co-schedule found (`cosched optimum --format json`).
    #[derive(Serialize)]
    pub struct OptimumReport {
        /// Machine name.
        pub machine: String,
        /// Workload name.
        pub workload: String,
        /// The objective's metric name.
        pub objective: &'static str,
        /// Threads placed.
        pub threads: usize,
        /// Contexts of the machine.
        pub contexts: usize,
        /// Static partitions with idle contexts allowed, up to symmetry: the bound's family
        /// ([`Instance::bound`]; text: it may not fit 64 bits).
        pub coschedules: String,
        /// Of them, the static co-schedules (each thread on a context of its own), or why there are none.
        pub static_coschedules: String,
        /// Which bound the report's `best` is (`crate::optimum`'s kinds: exact, an EVT estimate, or
        /// the best of random candidates, over static partitions with idle contexts allowed).
        pub bound: &'static str,
        /// The best value of the objective: the exact optimum, the POT estimate, or the best random assignment.
        pub best: f64,
        /// The POT interval when `best` is an estimate.
        pub best_ci: Option<(f64, f64)>,
        /// Every co-schedule simulated, when they were few enough.
        pub exhaustive: Option<Exhaustive>,
        /// Pairwise matching, where it applies (`None`: see `no_matching`).
        pub matching: Option<Matched>,
        /// Why pairwise matching does not apply, when it does not.
        pub no_matching: Option<String>,
        /// Its generalisation to sharing domains of more than two contexts,
        /// where the deepest shared level holds more than two (`None`: see `no_grouping`).
        pub grouping: Option<Grouped>,
        /// Why grouping does not apply, when it does not.
        pub no_grouping: Option<String>,
        /// Random assignments and the POT estimate, when not exhaustive.
        pub sampled: Option<Sampled>,
        /// Job name of each thread (thread order of the assignments).
        pub thread_jobs: Vec<String>,
    }
}

/// The objective of `a` over `b` as a signed gap in % ("how far from the best"):
/// positive when `a` is worse than `b`.
pub fn gap_pct(objective: Objective, a: f64, b: f64) -> f64 {
    if objective.maximise() {
        (1.0 - a / b) * 100.0
    } else {
        (a / b - 1.0) * 100.0
    }
}

/// Load the machine and the planned workload (exact ground truth).
pub fn load(a: &OptimumOptions) -> Result<(MachineSpec, Plan, String), RunError> {
    let m = cosched_machine::presets::machine(&a.machine)?;
    let mut w = presets::workload(&a.workload)?;
    if let Some(n) = a.copies {
        if n == 0 || n > 4096 {
            return Err(RunError::knob("copies", format!("must be from 1 to 4096, got {n}")));
        }
        for j in &mut w.jobs {
            j.instances *= n;
        }
    }
    let plan = Plan::new(&w, &m, a.threads, 1, &a.workload)?;
    Ok((m, plan, w.name))
}

/// Search for the best static co-schedule as the options say; `total` is told
/// how many runs more there will be, `tick` each one (`cosched optimum`, Python's `cosched.optimum`).
pub fn report(a: &OptimumOptions, total: &dyn Fn(u64), tick: &(dyn Fn() + Sync)) -> Result<OptimumReport, RunError> {
    let objective = Objective::parse(&a.objective)?;
    if a.budget > MAX_BUDGET {
        return Err(RunError::knob("budget", format!("at most {MAX_BUDGET} simulations, got {}", a.budget)));
    }
    if let Some(s) = a.samples.filter(|&s| s > MAX_SAMPLES) {
        return Err(RunError::knob("samples", format!("at most {MAX_SAMPLES}, got {s}")));
    }
    // Options built in code meet the range their declaration gives the faces (one rule).
    crate::declared::check_float::<OptimumOptions>("confidence", a.confidence)?;
    let (m, plan, name) = load(a)?;
    let sim = |error: OptimumError| {
        RunError::Simulation(Box::new(SimFailure::Search { workload: a.workload.clone(), error }))
    };
    let inst = Instance::bound(&m, &plan).map_err(sim)?;
    let count = inst.coschedules();
    let static_count = inst.static_coschedules();
    let exhaustive = if inst.enumerable() && count <= a.budget as u128 {
        total(count as u64);
        Some(inst.exhaustive(objective, a.budget, tick).map_err(sim)?)
    } else if !inst.partitioned && static_count <= a.budget as u128 {
        // The partitions are too many; the static co-schedules are the exact part of the bound.
        total(static_count as u64);
        Some(inst.exhaustive_static(objective, a.budget, tick).map_err(sim)?)
    } else {
        None
    };
    let matching = if !a.matching {
        Err(format!("skipped ({})", flag_of("no_matching")))
    } else {
        let jobs = plan.jobs.len() as u64;
        total(jobs * jobs.saturating_sub(1));
        inst.matching(tick).map_err(|e| e.to_string())
    };
    let grouping = match inst.tree.group_level().map(|l| inst.tree.capacity(l)) {
        _ if !a.matching => Err(format!("skipped ({})", flag_of("no_matching"))),
        Some(2) => Err("the deepest shared level holds pairs: the matching above is the grouping".to_string()),
        Some(size) if a.budget as u128 >= corun_count(plan.jobs.len(), size) => {
            total(corun_count(plan.jobs.len(), size) as u64);
            inst.grouped(a.budget, tick).map_err(|e| e.to_string())
        }
        _ => inst.grouped(a.budget, tick).map_err(|e| e.to_string()), // refused, naming why
    };
    let whole_family = exhaustive.as_ref().is_some_and(|e| e.idle);
    let samples = a.samples.unwrap_or(if whole_family { 0 } else { DEFAULT_SAMPLES });
    let sampled = if samples > 0 {
        total(samples as u64);
        Some(inst.sampled(objective, samples, a.seed, a.confidence, tick).map_err(sim)?)
    } else {
        None
    };
    let Best { kind: bound, value: best, ci: best_ci } = best_of(objective, exhaustive.as_ref(), sampled.as_ref())
        .ok_or_else(|| {
            RunError::knob("samples", format!("0 with more co-schedules than {}: nothing to search", flag_of("budget")))
        })?;
    let thread_jobs = plan.threads.iter().map(|t| plan.jobs[t.job as usize].name.clone()).collect();
    Ok(OptimumReport {
        machine: m.name.clone(),
        workload: name,
        objective: objective.metric(),
        threads: inst.threads(),
        contexts: m.n_contexts(),
        coschedules: crate::compare::count_text(count),
        static_coschedules: if inst.partitioned {
            PARTITIONS.to_string()
        } else {
            crate::compare::count_text(static_count)
        },
        bound,
        best,
        best_ci,
        exhaustive,
        no_matching: matching.as_ref().err().cloned(),
        matching: matching.ok(),
        no_grouping: grouping.as_ref().err().cloned(),
        grouping: grouping.ok(),
        sampled,
        thread_jobs,
    })
}
