//! The best static co-schedule of a workload on the simulated machine, its
//! simulated outcome and what kind of bound it is ([`crate::optimum`]'s
//! searches chosen by size: exact, Jiang et al.'s matching and grouping, the
//! EVT estimate).

use crate::error::RunError;
use crate::optimum::{
    best_of, Best, Exhaustive, Grouped, Instance, Matched, Objective, OptimumError, Sampled, MAX_BUDGET, MAX_SAMPLES,
};
use cosched_core::optimum::grouping::corun_count;
use cosched_core::policies::knob::{Kind, KnobSpec, Value};
use cosched_machine::MachineSpec;
use cosched_sim::{presets, Plan};
use serde::Serialize;

/// The options of the search for the best static co-schedule.
#[derive(Clone, Debug)]
pub struct OptimumOptions {
    /// Machine preset or file.
    pub machine: String,
    /// Workload preset or file.
    pub workload: String,
    /// Thread count of the workload's multi-threaded jobs.
    pub threads: Option<u32>,
    /// Copies of every job.
    pub copies: Option<u32>,
    /// `throughput` or `antt`.
    pub objective: String,
    /// Simulate every distinct static co-schedule when there are at most this many.
    pub budget: usize,
    /// Random assignments for the EVT estimate (default: 1000 when not exhaustive, else none).
    pub samples: Option<usize>,
    /// Seed of the random assignments.
    pub seed: u64,
    /// Confidence level of the EVT interval.
    pub confidence: f64,
    /// Run Jiang et al.'s pairwise matching and its grouping.
    pub matching: bool,
}

impl Default for OptimumOptions {
    fn default() -> OptimumOptions {
        OptimumOptions {
            machine: "xeon-e5645".into(),
            workload: "spec-mix8".into(),
            threads: None,
            copies: None,
            objective: "throughput".into(),
            budget: 20_000,
            samples: None,
            seed: 1,
            confidence: 0.95,
            matching: true,
        }
    }
}

const fn opt(name: &'static str, kind: Kind, doc: &'static str) -> KnobSpec {
    KnobSpec { name, kind, default: "", real_default: "", unit: "", doc, paper: "how far from the best" }
}

/// The options of [`OptimumOptions`] by keyword (Python's; defaults are [`OptimumOptions::default`]'s).
pub const OPTIMUM: [KnobSpec; 10] = [
    opt("machine", Kind::Text, "Machine preset or file."),
    opt("workload", Kind::Text, "Workload preset or file."),
    opt("threads", Kind::Int { min: 0, max: u32::MAX as u64 }, "Thread count of the workload's multi-threaded jobs."),
    opt("copies", Kind::Int { min: 0, max: u32::MAX as u64 }, "Run N copies of every job."),
    opt("objective", Kind::Text, "throughput or antt."),
    opt("budget", Kind::Int { min: 0, max: u64::MAX }, "Simulate every co-schedule when there are at most this many."),
    opt("samples", Kind::Int { min: 0, max: u64::MAX }, "Random assignments for the EVT estimate."),
    opt("seed", Kind::Int { min: 0, max: u64::MAX }, "Seed of the random assignments."),
    opt("confidence", Kind::Float { min: f64::MIN, max: f64::MAX }, "Confidence level of the EVT interval."),
    opt("matching", Kind::Switch, "Run Jiang et al.'s pairwise matching and its grouping."),
];

impl OptimumOptions {
    /// Set option `name` (its keyword) from `text`, checked against [`OPTIMUM`].
    pub fn set(&mut self, name: &str, text: &str) -> Result<(), RunError> {
        let k = OPTIMUM
            .iter()
            .find(|k| k.name == name)
            .ok_or_else(|| RunError::knob(name, "is not an option of optimum"))?;
        let count = |v: u64| u32::try_from(v).expect("declared within 32 bits");
        let size = |v: u64| usize::try_from(v).unwrap_or(usize::MAX);
        match (name, k.parse(text)?) {
            ("machine", Value::Text(t)) => self.machine = t,
            ("workload", Value::Text(t)) => self.workload = t,
            ("threads", Value::Int(v)) => self.threads = Some(count(v)),
            ("copies", Value::Int(v)) => self.copies = Some(count(v)),
            ("objective", Value::Text(t)) => self.objective = t,
            ("budget", Value::Int(v)) => self.budget = size(v),
            ("samples", Value::Int(v)) => self.samples = Some(size(v)),
            ("seed", Value::Int(v)) => self.seed = v,
            ("confidence", Value::Float(v)) => self.confidence = v,
            ("matching", Value::Switch(on)) => self.matching = on,
            (other, v) => unreachable!("option `{other}` declared without a field ({v:?})"),
        }
        Ok(())
    }
}

/// Random assignments drawn when the co-schedules are too many to simulate them all.
pub const DEFAULT_SAMPLES: usize = 1000;

/// What the co-schedule count says for an oversubscribed workload.
pub const PARTITIONS: &str = "no static co-schedules (more threads than contexts): time-shared partitions sampled";

/// What the search for the best static co-schedule found (`cosched optimum --format json`).
#[derive(Serialize)]
pub struct Report {
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
    /// Distinct static co-schedules (text: it may not fit 64 bits).
    pub coschedules: String,
    /// Which bound the report's `best` is: `exact`, `evt estimate`, or `best of random (no EVT estimate)`.
    pub bound: &'static str,
    /// The best value of the objective: the exact optimum, the POT estimate, or the best random assignment.
    pub best: f64,
    /// The POT interval when `best` is an estimate.
    pub best_ci: Option<(f64, f64)>,
    /// Every co-schedule simulated, when they were few enough.
    pub exhaustive: Option<Exhaustive>,
    /// Pairwise matching, where it applies (or why not).
    pub matching: Result<Matched, String>,
    /// Its generalisation to sharing domains of more than two contexts ,
    /// where the deepest shared level holds more than two (or why not).
    pub grouping: Result<Grouped, String>,
    /// Random assignments and the POT estimate, when not exhaustive.
    pub sampled: Option<Sampled>,
    /// Job name of each thread (thread order of the assignments).
    pub thread_jobs: Vec<String>,
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
pub fn report(a: &OptimumOptions, total: &dyn Fn(u64), tick: &(dyn Fn() + Sync)) -> Result<Report, RunError> {
    let objective = Objective::parse(&a.objective)?;
    if a.budget > MAX_BUDGET {
        return Err(RunError::knob("budget", format!("at most {MAX_BUDGET} simulations, got {}", a.budget)));
    }
    if let Some(s) = a.samples.filter(|&s| s > MAX_SAMPLES) {
        return Err(RunError::knob("samples", format!("at most {MAX_SAMPLES}, got {s}")));
    }
    if !(a.confidence > 0.0 && a.confidence < 1.0) {
        let got = cosched_core::num::shortest(a.confidence);
        return Err(RunError::knob("confidence", format!("must be in (0, 1), got {got}")));
    }
    let (m, plan, name) = load(a)?;
    let sim = |e: OptimumError| RunError::Simulation(format!("{}: {e}", a.workload));
    let inst = Instance::any(&m, &plan).map_err(sim)?;
    let count = inst.coschedules();
    let exhaustive = if !inst.partitioned && count <= a.budget as u128 {
        total(count as u64);
        Some(inst.exhaustive(objective, a.budget, tick).map_err(sim)?)
    } else {
        None
    };
    let matching = if !a.matching {
        Err("skipped (--no-matching)".to_string())
    } else {
        let jobs = plan.jobs.len() as u64;
        total(jobs * jobs.saturating_sub(1));
        inst.matching(tick).map_err(|e| e.to_string())
    };
    let grouping = match inst.tree.group_level().map(|l| inst.tree.capacity(l)) {
        _ if !a.matching => Err("skipped (--no-matching)".to_string()),
        Some(2) => Err("the deepest shared level holds pairs: the matching above is the grouping".to_string()),
        Some(size) if a.budget as u128 >= corun_count(plan.jobs.len(), size) => {
            total(corun_count(plan.jobs.len(), size) as u64);
            inst.grouped(a.budget, tick).map_err(|e| e.to_string())
        }
        _ => inst.grouped(a.budget, tick).map_err(|e| e.to_string()), // refused, naming why
    };
    let samples = a.samples.unwrap_or(if exhaustive.is_some() { 0 } else { DEFAULT_SAMPLES });
    let sampled = if samples > 0 {
        total(samples as u64);
        Some(inst.sampled(objective, samples, a.seed, a.confidence, tick).map_err(sim)?)
    } else {
        None
    };
    let Best { kind: bound, value: best, ci: best_ci } = best_of(objective, exhaustive.as_ref(), sampled.as_ref())
        .ok_or_else(|| RunError::knob("samples", "0 with more co-schedules than --budget: nothing to search"))?;
    let thread_jobs = plan.threads.iter().map(|t| plan.jobs[t.job as usize].name.clone()).collect();
    Ok(Report {
        machine: m.name.clone(),
        workload: name,
        objective: objective.metric(),
        threads: inst.threads(),
        contexts: m.n_contexts(),
        coschedules: if inst.partitioned { PARTITIONS.to_string() } else { count.to_string() },
        bound,
        best,
        best_ci,
        exhaustive,
        matching,
        grouping,
        sampled,
        thread_jobs,
    })
}
