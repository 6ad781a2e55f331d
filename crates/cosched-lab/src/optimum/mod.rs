//! The best static co-schedule of a workload on the simulated machine,
//! measured, never predicted: every candidate is a full run of
//! the machine under the `static` policy.
//!
//! Three ways to it, each with its own word for what it found:
//! * **exact**: every distinct static co-schedule (up to the machine's
//!   symmetry, [`cosched_core::optimum::Tree`]) simulated, the best kept. Only
//!   this one is called the optimum.
//! * **pairwise matching** (Jiang, Shen, Chen, Tripathi, PACT 2008, §3): on a
//!   machine whose co-runners come in pairs (two SMT contexts of a core, two
//!   cores of an LLC), each pair of single-threaded jobs co-run alone on one
//!   pair domain, its cost the two jobs' summed degradation
//!   (co-run time / solo time − 1, the co-runner stretched to outlast the job),
//!   and the minimum-cost perfect pairing placed and simulated. It is optimal
//!   for the pairwise cost, not for the whole machine: pairs also share the
//!   LLC and the bus, which the pairwise costs do not see.
//! * **EVT estimate** (the statistical thread assignment paper, §4): random
//!   assignments simulated, the best kept, and the Peak-Over-Threshold upper
//!   bound of the objective with its confidence interval.
//!
//! Which candidates are searched is the instance's **family**: the papers'
//! static co-schedules (each thread on a context of its own,
//! [`Instance::new`]) or balanced time-shared partitions over every context
//! ([`Instance::partitioned`]), or, for the bound beside every comparison,
//! **static partitions with idle contexts allowed** ([`Instance::bound`]):
//! each thread pinned to one context for the whole run, a context's threads
//! taking turns, any context left idle. Leaving contexts idle is what RDA and
//! EFS exploit, so a bound without it is no bound for them.

use cosched_core::ids::CtxId;
use cosched_core::optimum::Tree;
use cosched_machine::MachineSpec;
use cosched_policies::knob::flag_of;
use cosched_sim::engine::{Shared, SimOptions};
use cosched_sim::experiment::solo_times;
use cosched_sim::Plan;
use cosched_sim::SimError;
use rayon::prelude::*;
use serde::Serialize;

/// Why a search for the best co-schedule gave no answer.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum OptimumError {
    /// More distinct co-schedules than the budget of an exhaustive search.
    #[error(
        "{count} distinct co-schedules exceed the budget of {budget} simulations ({}, at most {MAX_BUDGET})",
        flag_of("budget")
    )]
    Budget {
        /// Distinct co-schedules.
        count: u128,
        /// The budget (capped at [`MAX_BUDGET`]).
        budget: usize,
    },
    /// Grouping's co-runs exceed the budget.
    #[error(
        "grouping: {count} co-runs ({jobs} jobs in groups of up to {size}) exceed the budget of {budget} simulations ({})",
        flag_of("budget")
    )]
    GroupingBudget {
        /// Co-runs the grouping needs.
        count: u128,
        /// Jobs.
        jobs: usize,
        /// The largest group.
        size: usize,
        /// The budget (capped at [`MAX_BUDGET`]).
        budget: usize,
    },
    /// No machine level of exactly two contexts, as pairwise matching needs.
    #[error(
        "pairwise matching needs a machine level of exactly two contexts (SMT pairs, or two cores sharing a cache)"
    )]
    NoPairLevel,
    /// No machine level sharing 2 to [`cosched_core::optimum::grouping::MAX_GROUP`] contexts, as grouping needs.
    #[error("grouping needs a machine level that shares 2 to {} contexts", cosched_core::optimum::grouping::MAX_GROUP)]
    NoGroupLevel,
    /// A search that places single-threaded jobs met a multi-threaded one.
    #[error("{search} single-threaded jobs; job {job} has {threads} threads")]
    MultiThreaded {
        /// The search, as the sentence's subject (`pairwise matching pairs`).
        search: &'static str,
        /// The job.
        job: String,
        /// Its threads.
        threads: usize,
    },
    /// A job's co-runners finished first even stretched 256 times.
    #[error("co-runners {} ended before {job} even stretched 256x", co_runners.join(", "))]
    CoRunnersEnded {
        /// The co-runners.
        co_runners: Vec<String>,
        /// The job they were to outlast.
        job: String,
    },
    /// More threads than contexts for a static co-schedule.
    #[error(
        "a static co-schedule gives every thread a context of its own: {threads} threads on {contexts} contexts do not fit \
         (fewer jobs, {}, or a larger machine)",
        flag_of("threads")
    )]
    TooManyThreads {
        /// Threads.
        threads: usize,
        /// Contexts.
        contexts: usize,
    },
    /// Time-shared partitions asked for where every thread fits a context.
    #[error("{threads} threads fit {contexts} contexts: the static co-schedules apply, not partitions")]
    ThreadsFit {
        /// Threads.
        threads: usize,
        /// Contexts.
        contexts: usize,
    },
    /// A search that needs every thread on a context of its own, on time-shared partitions.
    #[error(
        "{search} needs every thread on a context of its own: {threads} threads on {contexts} contexts (only time-shared partitions are sampled)"
    )]
    StaticOnly {
        /// The search.
        search: &'static str,
        /// Threads.
        threads: usize,
        /// Contexts.
        contexts: usize,
    },
    /// A knob of the search is out of range.
    #[error("{}: {problem}", flag_of(knob))]
    Knob {
        /// The knob's keyword.
        knob: &'static str,
        /// What is wrong.
        problem: String,
    },
    /// A measurement run failed.
    #[error(transparent)]
    Run(#[from] SimError),
    /// The exact pairing or grouping found none.
    #[error(transparent)]
    Search(#[from] cosched_core::optimum::SearchError),
}

/// Most co-schedules an exhaustive search may simulate (`--budget`'s bound).
pub const MAX_BUDGET: usize = 1_000_000;
/// Most random assignments an EVT estimate may simulate (`--samples`' bound).
pub const MAX_SAMPLES: usize = 100_000;

/// What "best" means.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Objective {
    /// Instructions per second of makespan, GIPS (the statistical study's performance; larger is better).
    Throughput,
    /// Average normalised turnaround time, mean of turnaround / solo turnaround
    /// (Jiang et al.'s summed degradation per job; smaller is better).
    Antt,
}

impl Objective {
    /// Parse `throughput` or `antt`.
    pub fn parse(s: &str) -> Result<Objective, OptimumError> {
        match s {
            "throughput" => Ok(Objective::Throughput),
            "antt" => Ok(Objective::Antt),
            _ => Err(OptimumError::Knob {
                knob: "objective",
                problem: format!("expected throughput or antt, got {s:?}"),
            }),
        }
    }

    /// The objective's value of an outcome.
    pub fn value(self, o: &Outcome) -> f64 {
        match self {
            Objective::Throughput => o.throughput_gips,
            Objective::Antt => o.antt,
        }
    }

    /// Whether a larger value is better.
    pub fn maximise(self) -> bool {
        self == Objective::Throughput
    }

    /// Whether `a` is strictly better than `b`.
    pub fn better(self, a: f64, b: f64) -> bool {
        if self.maximise() {
            a > b
        } else {
            a < b
        }
    }

    /// The metric's name in every output (`cosched list metrics`).
    pub fn metric(self) -> &'static str {
        match self {
            Objective::Throughput => "throughput_gips",
            Objective::Antt => "antt",
        }
    }
}

cosched_core::metric_fields! {
    /// What one static co-schedule achieved in a full run.
    #[derive(Clone, Debug, PartialEq, Serialize)]
    pub struct Outcome {
        /// Instructions per second of makespan, GIPS.
        pub throughput_gips: f64,
        /// Makespan, s.
        pub makespan_s: f64,
        /// Mean of turnaround / solo turnaround over the jobs.
        pub antt: f64,
        /// System energy, J.
        pub energy_j: f64,
    }
}

cosched_core::metric_fields! {
    /// A static co-schedule and its outcome.
    #[derive(Clone, Debug, Serialize)]
    pub struct Found {
        /// Context of each thread (thread order of the plan).
        pub assignment: Vec<u32>,
        /// Its simulated outcome.
        pub outcome: Outcome,
    }
}

/// The machine and workload a search runs on, with the solo times ANTT needs.
pub struct Instance<'a> {
    /// Machine.
    pub machine: &'a MachineSpec,
    /// Workload as planned on it (the exact ground truth unless the caller varied it).
    pub plan: &'a Plan,
    /// Solo turnaround of every job, s.
    pub solo_s: Vec<f64>,
    /// The machine's sharing tree.
    pub tree: Tree,
    /// More threads than contexts: the candidates are time-shared partitions
    /// ([`Instance::partitioned`]), only sampled.
    pub partitioned: bool,
    /// The family is the static partitions with idle contexts allowed
    /// ([`Instance::bound`]): any number of threads per context, any context idle.
    pub idle: bool,
    /// Contention solutions shared by every run of the searches (one machine, one plan).
    pub shared: Shared,
}

impl<'a> Instance<'a> {
    /// The instance, with its solo runs; refused when the workload has more threads than contexts.
    pub fn new(machine: &'a MachineSpec, plan: &'a Plan) -> Result<Instance<'a>, OptimumError> {
        if plan.threads.len() > machine.n_contexts() {
            return Err(OptimumError::TooManyThreads { threads: plan.threads.len(), contexts: machine.n_contexts() });
        }
        Instance::build(machine, plan, false)
    }

    /// The instance with its sharing tree and solo runs.
    fn build(machine: &'a MachineSpec, plan: &'a Plan, partitioned: bool) -> Result<Instance<'a>, OptimumError> {
        let t = &machine.topology;
        let tree = Tree::new([t.sockets, t.llc_per_socket, t.cores_per_llc, t.pipes_per_core, t.contexts_per_pipe]);
        let solo_s = solo_times(machine, plan, &SimOptions::default())?;
        Ok(Instance { machine, plan, solo_s, tree, partitioned, idle: false, shared: Shared::new() })
    }

    /// The instance whose family is every **static partition with idle
    /// contexts allowed**: each thread pinned to one context for the whole
    /// run, the threads of a context taking turns of the round-robin quantum,
    /// any context idle (a superset of both the static co-schedules and the
    /// balanced partitions). Its exhaustive search visits each such partition
    /// once up to the machine's symmetry ([`Tree::with_slots`]); its samples
    /// come from [`random_static_partition`]. The bound beside every
    /// comparison (`compare`, `paper quintet`, `cosched optimum`).
    pub fn bound(machine: &'a MachineSpec, plan: &'a Plan) -> Result<Instance<'a>, OptimumError> {
        let partitioned = plan.threads.len() > machine.n_contexts();
        Ok(Instance { idle: true, ..Instance::build(machine, plan, partitioned)? })
    }

    /// The tree of the family's candidates: [`Instance::tree`], its contexts
    /// holding any number of threads when idle contexts are allowed.
    pub fn family_tree(&self) -> Tree {
        if self.idle {
            Tree::with_slots(self.tree.fanout, self.threads().max(1) as u32)
        } else {
            self.tree
        }
    }

    /// Whether the family's candidates can be enumerated (the papers'
    /// time-shared partitions cannot; idle-allowed partitions can).
    pub fn enumerable(&self) -> bool {
        self.idle || !self.partitioned
    }

    /// The instance of an oversubscribed workload (more threads than
    /// contexts): no static co-schedule runs every thread at
    /// once, so the candidates are **time-shared partitions**, each thread
    /// pinned to one context for the whole run and the threads of a context
    /// taking turns of the round-robin quantum
    /// ([`crate::assignment::partition_run`]). They are only sampled
    /// ([`Instance::sampled`], balanced random partitions): the POT estimate
    /// is of the best partition, which a policy that moves threads can beat.
    /// Refused when the workload fits the contexts (use [`Instance::new`]).
    pub fn partitioned(machine: &'a MachineSpec, plan: &'a Plan) -> Result<Instance<'a>, OptimumError> {
        if plan.threads.len() <= machine.n_contexts() {
            return Err(OptimumError::ThreadsFit { threads: plan.threads.len(), contexts: machine.n_contexts() });
        }
        Instance::build(machine, plan, true)
    }

    /// The instance [`Instance::new`] when the threads fit the contexts, else [`Instance::partitioned`].
    pub fn any(machine: &'a MachineSpec, plan: &'a Plan) -> Result<Instance<'a>, OptimumError> {
        if plan.threads.len() <= machine.n_contexts() {
            Instance::new(machine, plan)
        } else {
            Instance::partitioned(machine, plan)
        }
    }

    /// Refuse a search that needs every thread on a context of its own.
    fn static_only(&self, search: &'static str) -> Result<(), OptimumError> {
        if self.partitioned {
            return Err(OptimumError::StaticOnly { search, threads: self.threads(), contexts: self.tree.contexts() });
        }
        Ok(())
    }

    /// Threads to place.
    pub fn threads(&self) -> usize {
        self.plan.threads.len()
    }

    /// Distinct candidates of the family (static co-schedules, or static
    /// partitions with idle contexts allowed), up to the machine's symmetry (saturating).
    pub fn coschedules(&self) -> u128 {
        self.family_tree().count(self.threads())
    }

    /// Simulate one static co-schedule.
    pub fn evaluate(&self, assignment: &[u32]) -> Result<Outcome, OptimumError> {
        let ctx = contexts(assignment);
        // A context holding two threads or more: they take turns (round-robin quanta).
        let mut seen = vec![false; self.tree.contexts()];
        let shared = assignment.iter().any(|&c| std::mem::replace(&mut seen[c as usize], true));
        let out = if shared {
            crate::assignment::partition_run_sharing(self.machine, self.plan, &ctx, &self.shared)
        } else {
            crate::assignment::static_run_sharing(self.machine, self.plan, &ctx, &self.shared)
        }?;
        let instr: f64 = (0..self.plan.jobs.len()).map(|j| self.plan.job_instructions(j)).sum();
        let makespan_s = out.makespan as f64 * 1e-9;
        let antt = out.job_finish.iter().zip(&self.solo_s).map(|(&f, s)| f as f64 * 1e-9 / s).sum::<f64>()
            / self.solo_s.len().max(1) as f64;
        Ok(Outcome { throughput_gips: instr / makespan_s / 1e9, makespan_s, antt, energy_j: out.energy.system })
    }
}

/// Contexts given as indices.
fn contexts(assignment: &[u32]) -> Vec<CtxId> {
    assignment.iter().map(|&c| CtxId(c)).collect()
}

/// Index of the first best value (first worst with `best` false) under `objective`.
fn first_extreme(objective: Objective, values: &[f64], best: bool) -> usize {
    let mut k = 0;
    for i in 1..values.len() {
        if objective.better(values[i], values[k]) == best && values[i] != values[k] {
            k = i;
        }
    }
    k
}

mod found;
mod search;

pub use found::*;
