//! What the searches of [`super::Instance`] found, and the strongest bound
//! they allow together ([`best_of`]): the kinds of bound, the results of each
//! search, and the best static co-schedule beside every comparison.

use super::*;
use cosched_core::evt::PotResult;
use cosched_core::metrics::registry::{FieldShape, Shape};
use cosched_core::optimum::Tree;
use cosched_machine::MachineSpec;
use serde::Serialize;

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

/// Every kind a [`Best`] can be, weakest first: the partitions' kinds, then
/// [`BEST_OF_RANDOM`], [`EVT_ESTIMATE`], [`EXACT`].
pub const KINDS: [&str; 10] = [
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
];

/// The weakest kind among `kinds` (each one of [`KINDS`]): what a column over
/// several seeds may call its bound.
pub fn weakest_kind<'a>(kinds: impl IntoIterator<Item = &'a str>) -> &'static str {
    let kinds: Vec<&str> = kinds.into_iter().collect();
    KINDS.into_iter().find(|k| kinds.contains(k)).unwrap_or(EXACT)
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

cosched_core::metric_fields! {
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
}

cosched_core::metric_fields! {
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
}

cosched_core::metric_fields! {
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
}

/// A POT estimate of the best, or why there is none.
pub type PotOrWhy = Result<PotResult, String>;

/// [`PotOrWhy`] as JSON shows it (what [`estimate_or_why`] writes), for the
/// Python package's typed results (`crates/cosched-py/src/shapes.rs`).
pub const POT_OR_WHY: Shape = Shape {
    name: "PotOrWhy",
    fields: &[
        FieldShape { name: "estimate", ty: "Option<PotResult>", flatten: false, skip: false },
        FieldShape { name: "no_estimate", ty: "Option<String>", flatten: false, skip: false },
    ],
};

/// `Sampled::estimate` as two JSON fields, the estimate or `null` and why there
/// is none or `null` (no serde `{"Ok": …}` shape for a reader to unpack).
fn estimate_or_why<S: serde::Serializer>(r: &PotOrWhy, s: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Flat<'a> {
        estimate: Option<&'a PotResult>,
        no_estimate: Option<&'a String>,
    }
    Flat { estimate: r.as_ref().ok(), no_estimate: r.as_ref().err() }.serialize(s)
}

cosched_core::metric_fields! {
    /// Random assignments simulated and the POT estimate of the best.
    #[derive(Clone, Debug, Serialize)]
    pub struct Sampled {
        /// The best assignment drawn.
        pub best: Found,
        /// Assignments simulated.
        pub samples: usize,
        /// POT estimate of the objective's best value (or why there is none); in
        /// JSON `estimate` (or `null`) and `no_estimate` (why, or `null`).
        #[serde(flatten, serialize_with = "estimate_or_why")]
        pub estimate: PotOrWhy,
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
}
