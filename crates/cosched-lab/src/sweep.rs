//! Batches of simulated runs: any list of (options, policy, seed) points run
//! in parallel, each (options, seed) planned and measured alone once and
//! shared by every policy run on it. `cosched compare` is one such batch;
//! Python's `cosched.sweep` sends its grid here, whole or in partitions
//! (Dask), and gets the same reports either way: a run's report depends on
//! its point only.

use crate::error::RunError;
use crate::failure::PolicyFailure;
use crate::spec::{Resolved, RunSpec};
use cosched_core::Policy;
use cosched_machine::{MachineSpec, TraceSlice};
use cosched_policies as policies;
use cosched_sim::experiment::{simulate, simulate_with, solo_times, Report, RunConfig};
use cosched_sim::Plan;
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::Arc;

/// Builds a fresh instance of a policy given as code.
pub type MakePolicy = dyn Fn() -> Result<Box<dyn Policy>, String> + Send + Sync;

/// A policy given as code rather than by registry name (a user's Python
/// policy): every run gets a fresh instance from `make`, so runs
/// share no state and may run in parallel.
#[derive(Clone)]
pub struct Custom {
    /// The name its rows and reports carry (not a registry name).
    pub name: String,
    /// A fresh instance.
    pub make: Arc<MakePolicy>,
}

impl std::fmt::Debug for Custom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Custom({})", self.name)
    }
}

impl Custom {
    /// Refuse a name that is a built-in policy's (rows would be ambiguous) or empty.
    pub fn check(&self) -> Result<(), RunError> {
        if self.name.trim().is_empty() {
            return Err(RunError::Policy(Box::new(PolicyFailure::Unnamed)));
        }
        if policies::find(&self.name).is_some() {
            return Err(RunError::Policy(Box::new(PolicyFailure::BuiltInName { name: self.name.clone() })));
        }
        Ok(())
    }
}

/// One run of a batch.
#[derive(Clone, Debug)]
pub struct Point {
    /// Machine, workload and every knob.
    pub run: RunSpec,
    /// Policy name (a registry name, or the name of `custom`).
    pub policy: String,
    /// Seed of every random draw of the run.
    pub seed: u64,
    /// The policy as code, when it is not a registry policy.
    pub custom: Option<Custom>,
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

/// Plan the resolved run's workload for `seed` and measure its jobs alone.
pub fn prepare(resolved: &Resolved, seed: u64) -> Result<Prepared, RunError> {
    let run = &resolved.spec;
    let (varied, plan) = run.plan(&resolved.machine, &resolved.workload, seed)?;
    let sim = run.sim_opts(seed)?;
    let solo = solo_times(&varied, &plan, &sim).map_err(|e| RunError::from_sim(e, &run.workload))?;
    Ok(Prepared { machine: resolved.machine.clone(), varied, plan, solo })
}

/// The policy and engine options of `policy` under `run` for `seed`,
/// checked: an unknown policy, or one refusing its options, is refused here.
/// A knob `policy` does not read is refused, naming the policies that do.
pub fn config(run: &RunSpec, policy: &str, seed: u64) -> Result<RunConfig, RunError> {
    config_among(run, policy, seed, &[policy])
}

/// As [`config`] for `policy` run beside `among` with the same options
/// (`compare`, a sweep): a knob is refused only when none of `among` reads it.
pub fn config_among(run: &RunSpec, policy: &str, seed: u64, among: &[&str]) -> Result<RunConfig, RunError> {
    let among: Vec<&str> = among.iter().copied().filter(|p| policies::find(p).is_some() || *p == policy).collect();
    let among = &among[..];
    if policies::find(policy).is_none() {
        policies::make(policy, &Default::default())?;
    }
    let (policy_opts, _notes) = run.policy_opts(among, seed)?;
    let cfg = RunConfig { policy: policy.to_string(), policy_opts, sim: run.sim_opts(seed)?, threads: run.threads };
    policies::make(policy, &cfg.policy_opts)?;
    Ok(cfg)
}

/// As [`config`] for a policy given as code: the engine's options of `run`
/// for `seed`; the knobs are the built-in policies' (a knob none of `among`
/// reads is refused), and a policy given as code reads none.
pub fn config_custom(run: &RunSpec, custom: &Custom, seed: u64, among: &[&str]) -> Result<RunConfig, RunError> {
    custom.check()?;
    let builtin: Vec<&str> = among.iter().copied().filter(|p| policies::find(p).is_some()).collect();
    let policy_opts = if builtin.is_empty() {
        if !run.knobs.given().is_empty() {
            return Err(RunError::Option {
                knobs: run.knobs.given().iter().map(|k| k.to_string()).collect(),
                problem: format!(
                    "no policy of this run reads it (`{}` is given as code and reads no declared knob)",
                    custom.name
                ),
            });
        }
        policies::PolicyOptions { seed, ..Default::default() }
    } else {
        run.policy_opts(&builtin, seed)?.0
    };
    Ok(RunConfig { policy: custom.name.clone(), policy_opts, sim: run.sim_opts(seed)?, threads: run.threads })
}

impl Prepared {
    /// Run a policy given as code with `cfg` on this plan.
    pub fn run_custom(
        &self,
        run: &RunSpec,
        custom: &Custom,
        cfg: &RunConfig,
        trace: Option<&mut dyn FnMut(TraceSlice)>,
    ) -> Result<Report, RunError> {
        let mut policy = (custom.make)().map_err(|e| RunError::Policy(Box::new(PolicyFailure::Refused(e.into()))))?;
        simulate_with(&self.varied, &self.plan, policy.as_mut(), cfg, &self.solo, trace)
            .map_err(|e| RunError::from_sim(e, &run.workload))
    }

    /// Run `cfg` on this plan; `trace` receives every slice of the schedule.
    pub fn run(
        &self,
        run: &RunSpec,
        cfg: &RunConfig,
        trace: Option<&mut dyn FnMut(TraceSlice)>,
    ) -> Result<Report, RunError> {
        simulate(&self.varied, &self.plan, cfg, &self.solo, trace).map_err(|e| RunError::from_sim(e, &run.workload))
    }
}

/// Run every point, in parallel (policies given as code one after another,
/// on the calling thread); reports in point order. `tick` is called
/// once per finished run (a progress bar of `points.len()` steps). On failure,
/// the error of the first failing point in order (so the answer does not
/// depend on thread timing).
pub fn run_batch(points: &[Point], tick: &(dyn Fn() + Sync)) -> Result<Vec<Report>, RunError> {
    run_batch_with(points, &RunSpec::resolve, tick)
}

/// As [`run_batch`], each distinct specification resolved by `resolve` (a
/// comparison hands down the one it resolved at the face).
#[allow(clippy::mutable_key_type)]
pub(crate) fn run_batch_with(
    points: &[Point],
    resolve: &(dyn Fn(&RunSpec) -> Result<Resolved, RunError> + Sync),
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<Report>, RunError> {
    crate::limits::SWEEP_POINTS.check(points.len() as u64)?;
    // Points with identical options share one resolution, and with the same seed one preparation.
    // A RunSpec's cancel flag and progress handle (its interior mutability) are no part of its Hash/Eq.
    let mut specs: HashMap<&RunSpec, usize> = HashMap::new();
    let mut distinct: Vec<&RunSpec> = vec![];
    let mut keys: HashMap<(&RunSpec, u64), usize> = HashMap::new();
    let mut groups: Vec<(usize, u64)> = vec![];
    let group_of: Vec<usize> = points
        .iter()
        .map(|p| {
            let spec = *specs.entry(&p.run).or_insert_with(|| {
                distinct.push(&p.run);
                distinct.len() - 1
            });
            *keys.entry((&p.run, p.seed)).or_insert_with(|| {
                groups.push((spec, p.seed));
                groups.len() - 1
            })
        })
        .collect();
    // The policies run with each set of options: a knob only some of them read applies to those.
    let mut among: HashMap<&RunSpec, Vec<&str>> = HashMap::new();
    for p in points {
        let e = among.entry(&p.run).or_default();
        if !e.contains(&p.policy.as_str()) {
            e.push(&p.policy);
        }
    }
    let resolved: Vec<Result<Resolved, RunError>> = distinct.par_iter().map(|s| resolve(s)).collect();
    let prepared: Vec<Result<Prepared, RunError>> =
        groups.par_iter().map(|&(spec, seed)| prepare(resolved[spec].as_ref().map_err(Clone::clone)?, seed)).collect();
    let one = |(p, &g): (&Point, &usize)| {
        let prep = prepared[g].as_ref().map_err(Clone::clone)?;
        let among = &among[&p.run];
        let r = match &p.custom {
            Some(c) => config_custom(&p.run, c, p.seed, among).and_then(|cfg| prep.run_custom(&p.run, c, &cfg, None)),
            None => config_among(&p.run, &p.policy, p.seed, among).and_then(|cfg| prep.run(&p.run, &cfg, None)),
        };
        tick();
        r
    };
    // Built-in policies in parallel; policies given as code one after another on this thread:
    // a Python policy's calls hold the interpreter's lock, and runs on parallel threads would
    // hand it back and forth at every event (4 runs of a Python G-RRS: 5.2 s in parallel
    // against 0.5 s one after another on the 2-core guest).
    let mut reports: Vec<Option<Result<Report, RunError>>> = points
        .par_iter()
        .zip(group_of.par_iter())
        .map(|x| if x.0.custom.is_some() { None } else { Some(one(x)) })
        .collect();
    for (i, x) in points.iter().zip(group_of.iter()).enumerate() {
        if x.0.custom.is_some() {
            reports[i] = Some(one(x));
        }
    }
    let reports: Vec<Result<Report, RunError>> = reports.into_iter().map(|r| r.expect("every point ran")).collect();
    reports.into_iter().collect()
}
