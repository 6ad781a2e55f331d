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

use crate::assignment::{random_assignment, random_partition, random_static_partition};
use cosched_core::evt::{pot, PotResult, Threshold};
use cosched_core::ids::CtxId;
use cosched_core::optimum::{grouping, min_cost_groups, place_pairs, Tree};
use cosched_core::policies::knob::flag_of;
use cosched_machine::MachineSpec;
use cosched_sim::engine::{Shared, SimOptions};
use cosched_sim::experiment::solo_times;
use cosched_sim::Plan;
use cosched_sim::SimError;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::Serialize;

impl From<OptimumError> for String {
    fn from(e: OptimumError) -> String {
        e.to_string()
    }
}

/// Why a search for the best co-schedule gave no answer.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum OptimumError {
    /// The search does not apply to this machine and workload (why, in one line).
    #[error("{0}")]
    Refused(String),
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

/// A static co-schedule and its outcome.
#[derive(Clone, Debug, Serialize)]
pub struct Found {
    /// Context of each thread (thread order of the plan).
    pub assignment: Vec<u32>,
    /// Its simulated outcome.
    pub outcome: Outcome,
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
            return Err(OptimumError::Refused(format!(
                "a static co-schedule gives every thread a context of its own: {} threads on {} contexts do not fit \
                 (fewer jobs, --threads, or a larger machine)",
                plan.threads.len(),
                machine.n_contexts()
            )));
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
            return Err(OptimumError::Refused(format!(
                "{} threads fit {} contexts: the static co-schedules apply, not partitions",
                plan.threads.len(),
                machine.n_contexts()
            )));
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
    fn static_only(&self, search: &str) -> Result<(), OptimumError> {
        if self.partitioned {
            return Err(OptimumError::Refused(format!(
                "{search} needs every thread on a context of its own: {} threads on {} contexts (only time-shared partitions are sampled)",
                self.threads(),
                self.tree.contexts()
            )));
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

    /// Simulate every assignment, in parallel (results in input order); `tick` per run.
    fn evaluate_all(&self, all: &[Vec<u32>], tick: &(dyn Fn() + Sync)) -> Result<Vec<Outcome>, OptimumError> {
        all.par_iter()
            .map(|a| {
                let o = self.evaluate(a);
                tick();
                o
            })
            .collect()
    }

    /// The best (and worst) of every distinct co-schedule, in parallel;
    /// refused when there are more than `budget`. `tick` is called per run.
    pub fn exhaustive(
        &self,
        objective: Objective,
        budget: usize,
        tick: &(dyn Fn() + Sync),
    ) -> Result<Exhaustive, OptimumError> {
        if !self.enumerable() {
            self.static_only("the exhaustive search")?;
        }
        self.enumerate(self.family_tree(), self.idle, objective, budget, tick)
    }

    /// Distinct static co-schedules (each thread on a context of its own; the
    /// sub-family of [`Instance::bound`]'s without time-sharing; saturating).
    pub fn static_coschedules(&self) -> u128 {
        self.tree.count(self.threads())
    }

    /// [`Instance::exhaustive`] over the static co-schedules only (each thread
    /// on a context of its own), whatever the family: with an
    /// [`Instance::bound`] too large to enumerate, the exact part of its bound.
    pub fn exhaustive_static(
        &self,
        objective: Objective,
        budget: usize,
        tick: &(dyn Fn() + Sync),
    ) -> Result<Exhaustive, OptimumError> {
        self.static_only("the exhaustive search")?;
        self.enumerate(self.tree, false, objective, budget, tick)
    }

    /// Every candidate of `tree` simulated (`idle`: the tree is the idle-allowed family's).
    fn enumerate(
        &self,
        tree: Tree,
        idle: bool,
        objective: Objective,
        budget: usize,
        tick: &(dyn Fn() + Sync),
    ) -> Result<Exhaustive, OptimumError> {
        let count = tree.count(self.threads());
        if count > budget.min(MAX_BUDGET) as u128 {
            return Err(OptimumError::Refused(format!(
                "{count} distinct co-schedules exceed the budget of {} simulations (--budget, at most {MAX_BUDGET})",
                budget.min(MAX_BUDGET)
            )));
        }
        let mut all: Vec<Vec<u32>> = Vec::with_capacity(count as usize);
        tree.for_each(self.threads(), &mut |a| {
            all.push(a.to_vec());
            true
        });
        let outs = self.evaluate_all(&all, tick)?;
        let values: Vec<f64> = outs.iter().map(|o| objective.value(o)).collect();
        let pick = |want_best: bool| {
            let k = first_extreme(objective, &values, want_best);
            Found { assignment: all[k].clone(), outcome: outs[k].clone() }
        };
        Ok(Exhaustive { best: pick(true), worst: pick(false), evaluated: outs.len(), values, idle })
    }

    /// Jiang et al.'s pairwise co-scheduling: the co-run cost of every pair of
    /// jobs on one pair domain, the minimum-cost perfect pairing (idle
    /// partners where jobs are fewer than contexts), placed spread over the
    /// machine and simulated. Refused unless every job is single-threaded and
    /// some level of the machine holds exactly two contexts.
    pub fn matching(&self, tick: &(dyn Fn() + Sync)) -> Result<Matched, OptimumError> {
        self.static_only("pairwise matching")?;
        let level = self.tree.pair_level().ok_or_else(|| {
            OptimumError::Refused(            "pairwise matching needs a machine level of exactly two contexts (SMT pairs, or two cores sharing a cache)"
                .to_string()
            )})?;
        let jobs = self.plan.jobs.len();
        self.single_threaded("pairwise matching pairs")?;
        let ordered: Vec<(usize, usize)> =
            (0..jobs).flat_map(|i| (0..jobs).filter(move |&j| j != i).map(move |j| (i, j))).collect();
        let slow: Vec<f64> = ordered
            .par_iter()
            .map(|&(i, j)| {
                let d = self.corun_slowdown(i, j);
                tick();
                d
            })
            .collect::<Result<_, _>>()?;
        let mut degradation = vec![0.0; jobs * jobs];
        for (&(i, j), s) in ordered.iter().zip(&slow) {
            degradation[i * jobs + j] = s - 1.0;
        }
        let domains: Vec<[u32; 2]> =
            self.tree.spread_order(level).iter().map(|&d| [2 * d as u32, 2 * d as u32 + 1]).collect();
        let placed = place_pairs(&degradation, jobs, &domains)?;
        let outcome = self.evaluate(&placed.assignment)?;
        Ok(Matched {
            found: Found { assignment: placed.assignment, outcome },
            pairs: placed.pairs,
            pair_cost: placed.pair_cost,
            degradation,
            corun_runs: ordered.len(),
        })
    }

    /// Refuse a workload with a multi-threaded job: the co-run searches place jobs, one context each.
    fn single_threaded(&self, search: &str) -> Result<(), OptimumError> {
        match self.plan.jobs.iter().find(|j| j.threads.len() != 1) {
            Some(j) => Err(OptimumError::Refused(format!(
                "{search} single-threaded jobs; job {} has {} threads",
                j.name,
                j.threads.len()
            ))),
            None => Ok(()),
        }
    }

    /// Job `i`'s turnaround beside job `j` on the two contexts of one pair
    /// domain, over its solo turnaround; `j` is stretched to outlast `i`.
    fn corun_slowdown(&self, i: usize, j: usize) -> Result<f64, OptimumError> {
        self.group_slowdown(i, &[j])
    }

    /// Job `i`'s turnaround beside the jobs `others` on the first contexts of
    /// one sharing domain, over its solo turnaround; each co-runner is
    /// stretched to outlast `i` (so `i` never runs beside fewer of them).
    fn group_slowdown(&self, i: usize, others: &[usize]) -> Result<f64, OptimumError> {
        let mut stretch: Vec<f64> = others.iter().map(|&j| (3.0 * self.solo_s[i] / self.solo_s[j]).max(1.0)).collect();
        let names: Vec<&str> = others.iter().map(|&j| self.plan.jobs[j].name.as_str()).collect();
        let name = format!("{}/group:{}+{}", self.plan.name, self.plan.jobs[i].name, names.join("+"));
        let first: Vec<CtxId> = (0..=others.len() as u32).map(CtxId).collect();
        for _ in 0..4 {
            let mut jobs = vec![(i, 1.0)];
            jobs.extend(others.iter().zip(&stretch).map(|(&j, &k)| (j, k)));
            let out = crate::assignment::static_run(self.machine, &self.plan.subset(&jobs, name.clone()), &first)?;
            if out.job_finish[1..].iter().all(|&f| f >= out.job_finish[0]) {
                return Ok(out.job_finish[0] as f64 * 1e-9 / self.solo_s[i]);
            }
            stretch.iter_mut().for_each(|k| *k *= 4.0);
        }
        Err(OptimumError::Refused(format!(
            "co-runners {} ended before {} even stretched 256x",
            names.join(", "),
            self.plan.jobs[i].name
        )))
    }

    /// Jiang et al.'s co-scheduling generalised to sharing domains of more
    /// than two contexts: the co-run cost of every group
    /// of jobs that fits one domain of the deepest shared level (the sum of
    /// its members' degradations, each measured beside the others), the
    /// exact minimum-cost grouping ([`min_cost_groups`]), placed spread over
    /// the machine and simulated. Refused unless every job is
    /// single-threaded, some level shares 2 to [`grouping::MAX_GROUP`]
    /// contexts, and there are at most [`grouping::MAX_JOBS`] jobs. Like the
    /// matching, it is optimal for the group costs, not for the machine: each
    /// cost is measured with the co-runners running throughout, and groups on
    /// different domains still share what their domains share.
    /// At most `budget` co-runs are simulated (else refused, naming the count).
    pub fn grouped(&self, budget: usize, tick: &(dyn Fn() + Sync)) -> Result<Grouped, OptimumError> {
        self.static_only("grouping")?;
        let level = self.tree.group_level().ok_or_else(|| {
            OptimumError::Refused(format!(
                "grouping needs a machine level that shares 2 to {} contexts",
                grouping::MAX_GROUP
            ))
        })?;
        let size = self.tree.capacity(level);
        let jobs = self.plan.jobs.len();
        self.single_threaded("grouping places")?;
        if jobs > grouping::MAX_JOBS {
            return Err(OptimumError::Refused(format!(
                "grouping: {jobs} jobs exceed the exact search's limit of {}",
                grouping::MAX_JOBS
            )));
        }
        let count = grouping::corun_count(jobs, size);
        if count > budget.min(MAX_BUDGET) as u128 {
            return Err(OptimumError::Refused(format!(
                "grouping: {count} co-runs ({jobs} jobs in groups of up to {size}) exceed the budget of {} simulations (--budget)",
                budget.min(MAX_BUDGET)
            )));
        }
        // Every group of 2..=size jobs, each member measured beside the others.
        let groups: Vec<usize> =
            (1usize..1 << jobs).filter(|m| (2..=size).contains(&(m.count_ones() as usize))).collect();
        let runs: Vec<(usize, usize)> =
            groups.iter().flat_map(|&g| grouping::members(g).into_iter().map(move |i| (g, i))).collect();
        let slow: Vec<f64> = runs
            .par_iter()
            .map(|&(g, i)| {
                let others: Vec<usize> = grouping::members(g).into_iter().filter(|&j| j != i).collect();
                let d = self.group_slowdown(i, &others);
                tick();
                d
            })
            .collect::<Result<_, _>>()?;
        let mut cost = vec![0.0; 1 << jobs];
        for (&(g, _), s) in runs.iter().zip(&slow) {
            cost[g] += s - 1.0;
        }
        let domains = self.tree.contexts() / size;
        let (chosen, group_cost) = min_cost_groups(jobs, size, domains, &cost)?;
        // Larger groups first, domains in spread order.
        let mut placed: Vec<Vec<usize>> = chosen.iter().map(|&g| grouping::members(g)).collect();
        placed.sort_by_key(|g| (std::cmp::Reverse(g.len()), g[0]));
        let order = self.tree.spread_order(level);
        let mut assignment = vec![0u32; jobs];
        for (g, &d) in placed.iter().zip(&order) {
            for (k, &j) in g.iter().enumerate() {
                assignment[j] = (d * size + k) as u32;
            }
        }
        let outcome = self.evaluate(&assignment)?;
        Ok(Grouped {
            found: Found { assignment, outcome },
            size,
            groups: placed,
            group_cost,
            cost,
            corun_runs: runs.len(),
        })
    }

    /// `samples` uniformly random assignments (seeded; balanced time-shared
    /// partitions for a [`Instance::partitioned`] instance), simulated in
    /// parallel, the best kept and the POT estimate of the objective's best
    /// value (its sign flipped for ANTT, a minimum) at `confidence`.
    pub fn sampled(
        &self,
        objective: Objective,
        samples: usize,
        seed: u64,
        confidence: f64,
        tick: &(dyn Fn() + Sync),
    ) -> Result<Sampled, OptimumError> {
        if samples == 0 || samples > MAX_SAMPLES {
            return Err(OptimumError::Knob {
                knob: "samples",
                problem: format!("from 1 to {MAX_SAMPLES}, got {samples}"),
            });
        }
        let topo = self.machine.topology();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let draw = |rng: &mut ChaCha8Rng| {
            if self.idle {
                random_static_partition(&topo, self.threads(), rng).1
            } else if self.partitioned {
                random_partition(&topo, self.threads(), rng)
            } else {
                random_assignment(&topo, self.threads(), rng)
            }
        };
        let draws: Vec<Vec<u32>> = (0..samples).map(|_| draw(&mut rng).into_iter().map(|c| c.0).collect()).collect();
        let contexts = self.tree.contexts();
        let idle_draws = draws
            .iter()
            .filter(|a| {
                let mut used = vec![false; contexts];
                a.iter().for_each(|&c| used[c as usize] = true);
                used.iter().filter(|&&u| u).count() < contexts.min(a.len())
            })
            .count();
        let outs = self.evaluate_all(&draws, tick)?;
        let sign = if objective.maximise() { 1.0 } else { -1.0 };
        let values: Vec<f64> = outs.iter().map(|o| objective.value(o)).collect();
        let k = first_extreme(objective, &values, true);
        let signed: Vec<f64> = values.iter().map(|v| sign * v).collect();
        let estimate = pot(&signed, Threshold::Auto, confidence).map(|mut r| {
            if sign < 0.0 {
                r.upb = -r.upb;
                r.ci = (-r.ci.1, -r.ci.0);
                r.best = -r.best;
                r.threshold = -r.threshold;
            }
            r
        });
        Ok(Sampled {
            best: Found { assignment: draws[k].clone(), outcome: outs[k].clone() },
            samples,
            estimate: estimate.map_err(|e| e.to_string()),
            values,
            partitioned: self.partitioned,
            idle: self.idle,
            idle_draws,
        })
    }
}

/// The exact optimum (every distinct co-schedule simulated).
pub const EXACT: &str = "exact";
/// The POT upper bound from random assignments: an estimate, not a proven optimum.
pub const EVT_ESTIMATE: &str = "evt estimate";
/// The best random assignment measured, when POT gives no estimate: a lower bound of the optimum.
pub const BEST_OF_RANDOM: &str = "best of random (no EVT estimate)";
/// The POT upper bound from random time-shared partitions (more threads than
/// contexts): an estimate of the best static partition, not of the best schedule.
pub const PARTITION_EVT_ESTIMATE: &str = "evt estimate of the best partition";
/// The best random time-shared partition measured, when POT gives no estimate.
pub const PARTITION_BEST_OF_RANDOM: &str = "best of random partitions (no EVT estimate)";
/// Every static partition with idle contexts allowed simulated, the best kept ([`Instance::bound`]).
pub const IDLE_EXACT: &str = "exact best static partition, idle contexts allowed";
/// The POT upper bound from random static partitions with idle contexts allowed: an estimate of
/// the family's best, no ceiling for a policy that moves threads ([`Instance::bound`]).
pub const IDLE_EVT_ESTIMATE: &str = "evt estimate of the best static partition, idle contexts allowed";
/// The best random static partition with idle contexts allowed, when POT gives no estimate.
pub const IDLE_BEST_OF_RANDOM: &str = "best of random static partitions, idle contexts allowed (no EVT estimate)";
/// The exact best static co-schedule with the POT estimate over static partitions with idle
/// contexts allowed (too many to enumerate), whichever is better, the interval the estimate's
/// with its ends raised to the exact value ([`best_of`]).
pub const IDLE_EXACT_AND_EVT: &str =
    "exact best static co-schedule, or the evt estimate of the best static partition with idle contexts allowed if higher";
/// The same when POT gives no estimate: the exact best static co-schedule or the best random
/// static partition, whichever is better.
pub const IDLE_EXACT_AND_RANDOM: &str =
    "exact best static co-schedule, or the best random static partition with idle contexts allowed if higher (no EVT estimate)";

/// The best value of the objective a search can state, and which kind of bound it is.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Best {
    /// [`EXACT`], [`EVT_ESTIMATE`] or [`BEST_OF_RANDOM`].
    pub kind: &'static str,
    /// The value.
    pub value: f64,
    /// The POT interval, for an estimate.
    pub ci: Option<(f64, f64)>,
}

/// The strongest statement the searches allow: the exact optimum when every
/// co-schedule was simulated, else the POT estimate, else the best random
/// assignment (the weakest, named so). `None` when neither search ran.
pub fn best_of(objective: Objective, exhaustive: Option<&Exhaustive>, sampled: Option<&Sampled>) -> Option<Best> {
    match (exhaustive, sampled) {
        (Some(e), Some(s)) if !e.idle && s.idle => {
            // The exact sub-family's best beside the family's estimate: the better of the two,
            // the estimate's interval ends raised (or lowered, for a minimum) to the exact value.
            let exact = objective.value(&e.best.outcome);
            let pick = |a: f64, b: f64| if objective.better(a, b) { a } else { b };
            Some(match &s.estimate {
                Ok(p) => Best {
                    kind: IDLE_EXACT_AND_EVT,
                    value: pick(p.upb, exact),
                    ci: Some(if objective.maximise() {
                        (p.ci.0.max(exact), p.ci.1.max(exact))
                    } else {
                        (p.ci.0.min(exact), p.ci.1.min(exact))
                    }),
                },
                Err(_) => {
                    Best { kind: IDLE_EXACT_AND_RANDOM, value: pick(objective.value(&s.best.outcome), exact), ci: None }
                }
            })
        }
        (Some(e), _) => Some(Best {
            kind: if e.idle { IDLE_EXACT } else { EXACT },
            value: objective.value(&e.best.outcome),
            ci: None,
        }),
        (None, Some(s)) => {
            let (evt, random) = match (s.idle, s.partitioned) {
                (true, _) => (IDLE_EVT_ESTIMATE, IDLE_BEST_OF_RANDOM),
                (false, true) => (PARTITION_EVT_ESTIMATE, PARTITION_BEST_OF_RANDOM),
                (false, false) => (EVT_ESTIMATE, BEST_OF_RANDOM),
            };
            Some(match &s.estimate {
                Ok(p) => Best { kind: evt, value: p.upb, ci: Some(p.ci) },
                Err(_) => Best { kind: random, value: objective.value(&s.best.outcome), ci: None },
            })
        }
        (None, None) => None,
    }
}

/// The weakest kind among `kinds` (each one of the kinds above, weakest
/// first: the partitions' kinds, then [`BEST_OF_RANDOM`], [`EVT_ESTIMATE`],
/// [`EXACT`]): what a column over several seeds may call its bound.
pub fn weakest_kind<'a>(kinds: impl IntoIterator<Item = &'a str>) -> &'static str {
    let kinds: Vec<&str> = kinds.into_iter().collect();
    [
        PARTITION_BEST_OF_RANDOM,
        IDLE_BEST_OF_RANDOM,
        BEST_OF_RANDOM,
        IDLE_EXACT_AND_RANDOM,
        PARTITION_EVT_ESTIMATE,
        IDLE_EVT_ESTIMATE,
        EVT_ESTIMATE,
        IDLE_EXACT_AND_EVT,
        IDLE_EXACT,
        EXACT,
    ]
    .into_iter()
    .find(|k| kinds.contains(k))
    .unwrap_or(EXACT)
}

/// How many runs [`best_static`] simulates on an [`Instance::bound`] of
/// `threads` threads on `machine` (`samples` when sampling; without the solo
/// runs): what a progress report counts.
pub fn best_static_runs(machine: &MachineSpec, threads: usize, budget: usize, samples: usize) -> u64 {
    let t = &machine.topology;
    let fanout = [t.sockets, t.llc_per_socket, t.cores_per_llc, t.pipes_per_core, t.contexts_per_pipe];
    let count = Tree::with_slots(fanout, threads.max(1) as u32).count(threads);
    let exact_part = Tree::new(fanout).count(threads);
    if count <= budget as u128 {
        count as u64
    } else if threads <= machine.n_contexts() && exact_part <= budget as u128 {
        exact_part as u64 + samples as u64
    } else {
        samples as u64
    }
}

/// The best of `inst`'s family a bounded search can state: exact (every
/// candidate simulated) when there are at most `budget`; for an
/// [`Instance::bound`] whose partitions are too many but whose static
/// co-schedules are not, the exact best co-schedule beside the estimate from
/// `samples` random partitions ([`best_of`]); else from `samples` random
/// candidates seeded `seed` (EVT estimate, or best of random).
pub fn best_static(
    inst: &Instance,
    objective: Objective,
    budget: usize,
    samples: usize,
    seed: u64,
    tick: &(dyn Fn() + Sync),
) -> Result<Best, OptimumError> {
    let (e, s) = if inst.enumerable() && inst.coschedules() <= budget as u128 {
        (Some(inst.exhaustive(objective, budget, tick)?), None)
    } else if inst.idle && !inst.partitioned && inst.static_coschedules() <= budget as u128 {
        // Too many partitions to enumerate, few enough static co-schedules: both.
        (
            Some(inst.exhaustive_static(objective, budget, tick)?),
            Some(inst.sampled(objective, samples, seed, 0.95, tick)?),
        )
    } else {
        (None, Some(inst.sampled(objective, samples, seed, 0.95, tick)?))
    };
    Ok(best_of(objective, e.as_ref(), s.as_ref()).expect("one search ran"))
}

/// Every distinct co-schedule simulated.
#[derive(Clone, Debug, Serialize)]
pub struct Exhaustive {
    /// The optimum (first in enumeration order among equals).
    pub best: Found,
    /// The worst.
    pub worst: Found,
    /// Co-schedules simulated.
    pub evaluated: usize,
    /// The objective of each, in enumeration order.
    #[serde(skip)]
    pub values: Vec<f64>,
    /// The family allowed idle contexts ([`Instance::bound`]).
    pub idle: bool,
}

/// The minimum-cost pairing and its simulated outcome.
#[derive(Clone, Debug, Serialize)]
pub struct Matched {
    /// The co-schedule and its outcome.
    pub found: Found,
    /// Job pairs (job, partner; `None` = an idle context).
    pub pairs: Vec<(usize, Option<usize>)>,
    /// Summed pairwise cost of the pairing (the quantity it minimises).
    pub pair_cost: f64,
    /// Degradation of job i beside job j, `degradation[i * jobs + j]` (co-run / solo − 1).
    #[serde(skip)]
    pub degradation: Vec<f64>,
    /// Pairwise co-runs simulated.
    pub corun_runs: usize,
}

/// The grouping of [`Instance::grouped`].
#[derive(Clone, Debug, Serialize)]
pub struct Grouped {
    /// The co-schedule and its outcome.
    pub found: Found,
    /// Contexts per sharing domain (the largest group).
    pub size: usize,
    /// Job groups, one per domain used (a domain's other contexts idle).
    pub groups: Vec<Vec<usize>>,
    /// Summed group cost of the grouping (the quantity it minimises).
    pub group_cost: f64,
    /// Cost of every group of jobs, indexed by the group's job mask (0 for fewer than two).
    #[serde(skip)]
    pub cost: Vec<f64>,
    /// Co-runs simulated (one per member of every group).
    pub corun_runs: usize,
}

/// Random assignments simulated and the POT estimate of the best.
#[derive(Clone, Debug, Serialize)]
pub struct Sampled {
    /// The best assignment drawn.
    pub best: Found,
    /// Assignments simulated.
    pub samples: usize,
    /// POT estimate of the objective's best value (or why there is none).
    pub estimate: Result<PotResult, String>,
    /// The objective of each sample, in draw order.
    #[serde(skip)]
    pub values: Vec<f64>,
    /// The samples were time-shared partitions ([`Instance::partitioned`]).
    pub partitioned: bool,
    /// The samples were static partitions with idle contexts allowed ([`Instance::bound`]).
    pub idle: bool,
    /// Samples that left idle a context the family could have used: fewer contexts
    /// used than `min(threads, contexts)` (no work-conserving placement does that).
    pub idle_draws: usize,
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
