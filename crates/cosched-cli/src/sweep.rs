//! Batches of simulated runs: any list of (options, policy, seed) points run
//! in parallel, each (options, seed) planned and measured alone once and
//! shared by every policy run on it. `cosched compare` is one such batch;
//! Python's `cosched.sweep` sends its grid here, whole or in partitions
//! (Dask), and gets the same reports either way: a run's report depends on
//! its point only.

use crate::error::RunError;
use crate::opts::RunOpts;
use cosched_core::policies;
use cosched_machine::{MachineSpec, TraceSlice};
use cosched_sim::experiment::{simulate, solo_times, Report, RunConfig};
use cosched_sim::Plan;
use rayon::prelude::*;
use std::collections::HashMap;

/// One run of a batch.
#[derive(Clone, Debug)]
pub struct Point {
    /// Machine, workload and every knob.
    pub run: RunOpts,
    /// Policy name.
    pub policy: String,
    /// Seed of every random draw of the run.
    pub seed: u64,
}

/// What every policy run on one (options, seed) shares: the machine as
/// published (what a policy may know of it), the machine and the planned
/// workload as this seed's run finds them (`--noise`), and the jobs' solo
/// turnarounds on it.
pub struct Prepared {
    /// The machine as given (policies read its power table).
    pub machine: MachineSpec,
    /// The machine as this seed's run finds it.
    pub varied: MachineSpec,
    /// The planned workload.
    pub plan: Plan,
    /// Solo turnaround of each job, s.
    pub solo: Vec<f64>,
}

/// Plan `run`'s workload for `seed` and measure its jobs alone.
pub fn prepare(run: &RunOpts, seed: u64) -> Result<Prepared, RunError> {
    let machine = run.machine_spec()?;
    let w = run.workload_spec()?;
    let (varied, plan) = run.plan(&machine, &w, seed)?;
    let sim = run.sim_opts(seed).map_err(RunError::Option)?;
    let solo = solo_times(&varied, &plan, &sim).map_err(|e| RunError::from_sim(e, &run.workload))?;
    Ok(Prepared { machine, varied, plan, solo })
}

/// The policy and engine options of `policy` under `run` for `seed`,
/// checked: an unknown policy, or one refusing its options, is refused here.
/// A knob `policy` does not read is refused, naming the policies that do.
pub fn config(run: &RunOpts, policy: &str, seed: u64) -> Result<RunConfig, RunError> {
    config_among(run, policy, seed, &[policy])
}

/// As [`config`] for `policy` run beside `among` with the same options
/// (`compare`, a sweep): a knob is refused only when none of `among` reads it.
pub fn config_among(run: &RunOpts, policy: &str, seed: u64, among: &[&str]) -> Result<RunConfig, RunError> {
    if policies::find(policy).is_none() {
        policies::make(policy, &Default::default())?;
    }
    let (policy_opts, _notes) = run.policy_opts(among, seed).map_err(RunError::Option)?;
    let cfg = RunConfig {
        policy: policy.to_string(),
        policy_opts,
        sim: run.sim_opts(seed).map_err(RunError::Option)?,
        threads: run.threads,
    };
    policies::make(policy, &cfg.policy_opts)?;
    Ok(cfg)
}

impl Prepared {
    /// Run `cfg` on this plan; `trace` receives every slice of the schedule.
    pub fn run(
        &self,
        run: &RunOpts,
        cfg: &RunConfig,
        trace: Option<&mut dyn FnMut(TraceSlice)>,
    ) -> Result<Report, RunError> {
        simulate(&self.varied, &self.plan, cfg, &self.solo, trace).map_err(|e| RunError::from_sim(e, &run.workload))
    }
}

/// Run every point, in parallel; reports in point order. `tick` is called
/// once per finished run (a progress bar of `points.len()` steps). On failure,
/// the error of the first failing point in order (so the answer does not
/// depend on thread timing).
pub fn run_batch(points: &[Point], tick: &(dyn Fn() + Sync)) -> Result<Vec<Report>, RunError> {
    crate::limits::SWEEP_POINTS.check(points.len() as u64).map_err(RunError::Option)?;
    // Points with identical options and seed share one preparation.
    let mut keys: HashMap<(String, u64), usize> = HashMap::new();
    let mut groups: Vec<(usize, u64)> = vec![];
    let group_of: Vec<usize> = points
        .iter()
        .enumerate()
        .map(|(i, p)| {
            *keys.entry((format!("{:?}", p.run), p.seed)).or_insert_with(|| {
                groups.push((i, p.seed));
                groups.len() - 1
            })
        })
        .collect();
    // The policies run with each set of options: a knob only some of them read applies to those.
    let mut among: HashMap<String, Vec<&str>> = HashMap::new();
    for p in points {
        let e = among.entry(format!("{:?}", p.run)).or_default();
        if !e.contains(&p.policy.as_str()) {
            e.push(&p.policy);
        }
    }
    let prepared: Vec<Result<Prepared, RunError>> =
        groups.par_iter().map(|&(i, seed)| prepare(&points[i].run, seed)).collect();
    let reports: Vec<Result<Report, RunError>> = points
        .par_iter()
        .zip(group_of.par_iter())
        .map(|(p, &g)| {
            let prep = prepared[g].as_ref().map_err(Clone::clone)?;
            let cfg = config_among(&p.run, &p.policy, p.seed, &among[&format!("{:?}", p.run)])?;
            let r = prep.run(&p.run, &cfg, None);
            tick();
            r
        })
        .collect();
    reports.into_iter().collect()
}
