//! Scheduling policies and their registry.
//!
//! Baselines from the SLITS paper §5.2 (G-RRS, P-RRS, WSS, CFS) plus `random`,
//! `static` (a fixed assignment, used by the statistical study) and
//! `mpki-pairs` (the worked example of docs/policies.md).

mod cfs;
mod eevdf;
mod efs;
mod g_rrs;
pub mod knob;
mod mpki_pairs;
mod p_rrs;
mod perf_fair;
mod quintet;
mod random;
mod rda;
mod slits;
mod slots;
mod static_assign;
mod wss;
// `cosched new-policy NAME` adds its module above this line.

pub use crate::policy_error::PolicyError;
pub use cfs::{Cfs, CfsParams};
pub use efs::{Admission, Efs, EfsParams};
pub use g_rrs::GRrs;
pub use mpki_pairs::MpkiPairs;
pub use p_rrs::PRrs;
pub use perf_fair::{PerfFair, PerfFairParams, Variant};
pub use quintet::{Mechanism, Quintet, QuintetObjective, QuintetParams};
pub use random::RandomPolicy;
pub use rda::Rda;
pub use slits::{Observation, Pairing, Scope, Slits, SlitsObjective, SlitsParams, Trigger};
pub use static_assign::{parse_assignment, StaticAssign};
pub use wss::Wss;

use crate::ids::{CtxId, Nanos, MICRO, MILLI};
use crate::policy::Policy;
use knob::{ms_to_ns, KnobError, KnobSpec, KnobValues};
use serde::Serialize;

/// The typed parameters every policy is built from, one group per policy
/// family (each group's fields are declared as knobs next to the policy's
/// code, and [`PolicyOptions::from_knobs`] fills them). Machine-derived inputs
/// (power table, bus rate, LLC size) are not here: policies read them from
/// the machine view.
#[derive(Clone, Debug)]
pub struct PolicyOptions {
    /// Seed for policies that draw random numbers.
    pub seed: u64,
    /// Time quantum of the round-robin policies (G-RRS, P-RRS, WSS, random, static).
    pub quantum: Nanos,
    /// Interval between steal attempts of WSS.
    pub steal_interval: Nanos,
    /// Fixed thread → context assignment for `static` (index = thread id).
    pub assignment: Option<Vec<CtxId>>,
    /// EFS knobs (window, starvation constants, Newton variant, objective, power table, μ).
    pub efs: EfsParams,
    /// Perf&Fair knobs (quanta, validity, sharing thresholds).
    pub perf_fair: PerfFairParams,
    /// SLITS knobs (trigger, FM coverage, FM on/off and hyper-parameters).
    pub slits: SlitsParams,
    /// `quintet`'s objective and ablations.
    pub quintet: QuintetParams,
    /// RDA Compromise's oversubscription factor x (RDA §3.3; 2 in the paper).
    pub rda_factor: f64,
    /// RDA: every declared demand is multiplied by this before the predicate
    /// sees it (the sensitivity ablation; 1 = as declared).
    pub rda_declare_scale: f64,
    /// RDA §3.4's thread-pool hold (true: a process's other threads wait while
    /// one of its periods waits). Off only in `paper rda`'s ablation; not a user
    /// knob.
    pub rda_pool_hold: bool,
}

impl Default for PolicyOptions {
    fn default() -> Self {
        PolicyOptions {
            seed: 1,
            quantum: 4 * MILLI,
            steal_interval: 500 * MICRO,
            assignment: None,
            efs: EfsParams::default(),
            perf_fair: PerfFairParams::default(),
            slits: SlitsParams::default(),
            quintet: QuintetParams::default(),
            rda_factor: 2.0,
            rda_declare_scale: 1.0,
            rda_pool_hold: true,
        }
    }
}

impl PolicyOptions {
    /// The options the knobs `v` give, seeded `seed` (each family's
    /// `from_knobs` reads its own declarations).
    pub fn from_knobs(v: &KnobValues, seed: u64) -> Result<PolicyOptions, KnobError> {
        Ok(PolicyOptions {
            seed,
            quantum: ms_to_ns(v.float(slots::QUANTUM_MS.name)),
            steal_interval: (v.float(wss::STEAL_INTERVAL_US.name) * MICRO as f64).round() as u64,
            assignment: v.text(static_assign::ASSIGNMENT.name).map(|a| parse_assignment(None, a)).transpose()?,
            efs: EfsParams::from_knobs(v),
            perf_fair: PerfFairParams::from_knobs(v),
            slits: SlitsParams::from_knobs(v)?,
            quintet: QuintetParams::from_knobs(v)?,
            rda_factor: v.float(rda::FACTOR.name),
            rda_declare_scale: v.float(rda::DECLARE_SCALE.name),
            rda_pool_hold: true,
        })
    }
}

/// A registry entry.
#[derive(Clone, Copy, Serialize)]
pub struct PolicyInfo {
    /// Name used on the command line.
    pub name: &'static str,
    /// One-line description.
    pub description: &'static str,
    /// Whether it reads ground truth (reported as an oracle).
    pub oracle: bool,
    /// The knobs it reads, in groups declared next to the code that reads them.
    #[serde(skip)]
    knob_groups: &'static [&'static [KnobSpec]],
    #[serde(skip)]
    make: fn(&PolicyOptions) -> Result<Box<dyn Policy>, PolicyError>,
}

impl PolicyInfo {
    /// The knobs it reads.
    pub fn knobs(&self) -> impl Iterator<Item = &'static KnobSpec> {
        self.knob_groups.iter().flat_map(|g| g.iter())
    }

    /// Whether it needs an input that has no default (a text knob without
    /// one: `static`'s assignment).
    pub fn needs_input(&self) -> bool {
        self.knobs().any(|k| k.default.is_empty() && matches!(k.kind, knob::Kind::Text))
    }

    /// Build the policy.
    pub fn make(&self, opts: &PolicyOptions) -> Result<Box<dyn Policy>, PolicyError> {
        (self.make)(opts)
    }
}

/// Every policy this crate provides.
pub fn registry() -> &'static [PolicyInfo] {
    &[
        PolicyInfo {
            name: "g-rrs",
            description: "Global round-robin: one FIFO queue feeding every idle context, fixed quantum (SLITS §5.2)",
            oracle: false,
            knob_groups: &[&[slots::QUANTUM_MS]],
            make: |o| Ok(Box::new(GRrs::new(o))),
        },
        PolicyInfo {
            name: "p-rrs",
            description: "Per-core round-robin: threads dealt to per-context queues at arrival, fixed quantum (SLITS §5.2)",
            oracle: false,
            knob_groups: &[&[slots::QUANTUM_MS]],
            make: |o| Ok(Box::new(PRrs::new(o))),
        },
        PolicyInfo {
            name: "wss",
            description: "Work stealing: per-context round-robin; periodically a random thief with an empty queue steals from a random victim (SLITS §5.2)",
            oracle: false,
            knob_groups: &[&[slots::QUANTUM_MS, wss::STEAL_INTERVAL_US]],
            make: |o| Ok(Box::new(Wss::new(o))),
        },
        PolicyInfo {
            name: "cfs",
            description: "Linux CFS model: per-context vruntime trees, weights, latency/min-granularity slices, wakeup preemption, periodic and idle load balancing",
            oracle: false,
            knob_groups: &[],
            make: |_| Ok(Box::new(Cfs::new(CfsParams::default()))),
        },
        PolicyInfo {
            name: "eevdf",
            description: "Linux >= 6.6 fair class: earliest eligible virtual deadline first, lag-preserving placement, run-to-parity, CFS's load balancer",
            oracle: false,
            knob_groups: &[],
            make: |_| Ok(Box::new(Cfs::eevdf(CfsParams::default()))),
        },
        PolicyInfo {
            name: "linux-cache",
            description: "Linux cache-aware scheduling (CONFIG_SCHED_CACHE, series v4, 2026): EEVDF that aggregates a process's threads into its preferred LLC when its RSS fits the LLC and its threads fit the LLC's cores",
            oracle: false,
            knob_groups: &[],
            make: |_| Ok(Box::new(Cfs::linux_cache(CfsParams::default()))),
        },
        PolicyInfo {
            name: "efs",
            description: "EFS: CFS that runs a thread only when the memory-bus collision model says it saves energy, else leaves the core idle; starvation-free (EFS §4)",
            oracle: false,
            knob_groups: &[&efs::KNOBS],
            make: |o| Ok(Box::new(Efs::new(o.efs.clone()))),
        },
        PolicyInfo {
            name: "perf-fair",
            description: "Perf&Fair: progress accounting with IPC-alone estimation quanta, OATR fitness restricted to processes behind in progress, L1-bandwidth SMT pairing (Perf&Fair §5)",
            oracle: false,
            knob_groups: &[&perf_fair::KNOBS],
            make: |o| Ok(Box::new(PerfFair::new(Variant::PerfFair, o.perf_fair.clone()))),
        },
        PolicyInfo {
            name: "perf",
            description: "Perf: bandwidth fitness only, longest-unscheduled process forced in, L1 pairing (Perf&Fair §7 comparison point)",
            oracle: false,
            knob_groups: &[&perf_fair::KNOBS],
            make: |o| Ok(Box::new(PerfFair::new(Variant::Perf, o.perf_fair.clone()))),
        },
        PolicyInfo {
            name: "fair",
            description: "Fair: estimation quanta and lowest progress first, L1 pairing (Perf&Fair §7 comparison point)",
            oracle: false,
            knob_groups: &[&perf_fair::KNOBS],
            make: |o| Ok(Box::new(PerfFair::new(Variant::Fair, o.perf_fair.clone()))),
        },
        PolicyInfo {
            name: "perf-fair-oracle",
            description: "Perf&Fair with offline standalone IPC and the Ideal Average Bandwidth from ground truth (Perf&Fair §7 Oracle)",
            oracle: true,
            knob_groups: &[&perf_fair::KNOBS],
            make: |o| Ok(Box::new(PerfFair::new(Variant::Oracle, o.perf_fair.clone()))),
        },
        PolicyInfo {
            name: "slits-contention",
            description: "SLITS-(Contention): TIM of LLC misses completed by a factorization machine, Lazy Reschedule, least estimated contention first (SLITS §4.3.1)",
            oracle: false,
            knob_groups: &[&slits::KNOBS],
            make: |o| Ok(Box::new(Slits::new(SlitsObjective::Contention, o.slits.clone(), o.seed))),
        },
        PolicyInfo {
            name: "slits-fairness",
            description: "SLITS-(Fairness): TIM of IPC completed by a factorization machine, Lazy Reschedule, random thread below the median estimated IPC (SLITS §4.3.2)",
            oracle: false,
            knob_groups: &[&slits::KNOBS],
            make: |o| Ok(Box::new(Slits::new(SlitsObjective::Fairness, o.slits.clone(), o.seed))),
        },
        PolicyInfo {
            name: "rda-strict",
            description: "RDA Strict: CFS, but a progress period runs only if its declared demand keeps the resource within capacity, else it waits (RDA §3)",
            oracle: false,
            knob_groups: &[&[rda::DECLARE_SCALE]],
            make: |o| {
                Ok(Box::new(
                    Rda::new(crate::rda::RdaPolicy::Strict)
                        .declared_times(o.rda_declare_scale)
                        .pool_hold(o.rda_pool_hold),
                ))
            },
        },
        PolicyInfo {
            name: "rda-compromise",
            description: "RDA Compromise: as Strict, up to x times the capacity (x = 2 by default, --rda-factor)",
            oracle: false,
            knob_groups: &[&[rda::FACTOR, rda::DECLARE_SCALE]],
            make: |o| {
                let p = crate::rda::RdaPolicy::Compromise { factor: o.rda_factor };
                Ok(Box::new(Rda::new(p).declared_times(o.rda_declare_scale).pool_hold(o.rda_pool_hold)))
            }
        },
        PolicyInfo {
            name: "quintet",
            description: "quintet: CFS whose task selection combines the papers: RDA's period gate, Perf&Fair's progress window (fairness), SLITS's learned pairing, EFS's bus-model admission (energy, edp); --quintet-objective, --quintet-without (issue 33)",
            oracle: false,
            knob_groups: &[&quintet::KNOBS],
            make: |o| Ok(Box::new(Quintet::new(o.quintet.clone(), o.seed))),
        },
        PolicyInfo {
            name: "mpki-pairs",
            description: "Worked example of docs/policies.md: round-robin quanta, and on each SMT core the highest-MPKI thread beside the lowest",
            oracle: false,
            knob_groups: &[mpki_pairs::KNOBS],
            make: |o| Ok(Box::new(MpkiPairs::new(o))),
        },
        PolicyInfo {
            name: "random",
            description: "Random: an idle or expiring context takes a uniformly random waiting thread (SLITS §2 RS)",
            oracle: false,
            knob_groups: &[&[slots::QUANTUM_MS]],
            make: |o| Ok(Box::new(RandomPolicy::new(o))),
        },
        PolicyInfo {
            name: "static",
            description: "Static assignment: each thread pinned to a given context, round-robin among threads sharing one (statistical study §3)",
            oracle: false,
            knob_groups: &[&[slots::QUANTUM_MS, static_assign::ASSIGNMENT]],
            make: |o| {
                let a = o.assignment.clone().ok_or("static: needs an assignment (--assignment)")?;
                Ok(Box::new(StaticAssign::new(a, o.quantum)))
            },
        },
        // `cosched new-policy NAME` adds its entry above this line.
    ]
}

/// Look a policy up by name.
pub fn find(name: &str) -> Option<&'static PolicyInfo> {
    registry().iter().find(|p| p.name == name)
}

/// Build a policy by name, or explain which names exist.
pub fn make(name: &str, opts: &PolicyOptions) -> Result<Box<dyn Policy>, PolicyError> {
    match find(name) {
        Some(p) => p.make(opts),
        None => Err(PolicyError::Unknown {
            name: crate::text::quote(name),
            hint: crate::suggest::did_you_mean(name, registry().iter().map(|p| p.name)),
            known: registry().iter().map(|p| p.name).collect::<Vec<_>>().join(", "),
        }),
    }
}

#[cfg(test)]
pub(crate) mod script;
