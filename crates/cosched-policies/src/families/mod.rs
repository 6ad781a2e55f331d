//! Scheduling policies and their registry.
//!
//! Baselines from the SLITS paper §5.2 (G-RRS, P-RRS, WSS, CFS) plus `random`,
//! `static` (a fixed assignment, used by the statistical study) and
//! `mpki-pairs` (the worked example of docs/policies.md).

pub use crate::knob;
mod slots;
// The families: every module of this folder that declares `REGISTERED`,
// found by `build.rs` (`mod NAME;` for each, and `FAMILIES`, their list).
include!(concat!(env!("OUT_DIR"), "/families.rs"));

pub use crate::policy_error::PolicyError;
pub use cfs::{Cfs, CfsParams};
pub use efs::{Admission, Efs, EfsKnobs, EfsParams};
pub use g_rrs::GRrs;
pub use mpki_pairs::MpkiPairs;
pub use p_rrs::PRrs;
pub use perf_fair::{PerfFair, PerfFairKnobs, PerfFairParams, Variant};
pub use quintet::{Mechanism, Quintet, QuintetKnobs, QuintetObjective, QuintetParams};
pub use random::RandomPolicy;
pub use rda::{CompromiseKnobs, Rda, RdaKnobs};
pub use slits::{Observation, Pairing, Scope, Slits, SlitsKnobs, SlitsObjective, SlitsParams, Trigger};
pub use slots::SlotsKnobs;
pub use static_assign::{parse_assignment, StaticAssign, StaticKnobs};
pub use wss::{Wss, WssKnobs};

use crate::ids::{CtxId, Nanos, MICRO};
use crate::policy::Policy;
use knob::{ms_to_ns, KnobError, KnobGroup, KnobSpec, PolicyKnobs};
use serde::Serialize;

/// The typed parameters every policy is built from: the paper families'
/// parameters, derived from their declared knob structs
/// ([`PolicyOptions::from_knobs`]), and every registered knob struct as set
/// ([`PolicyOptions::knobs`]: a family added later reads its own there,
/// `o.knobs.get::<MyKnobs>()`). Machine-derived inputs (power table, bus
/// rate, LLC size) are not here: policies read them from the machine view.
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
    /// Every registered policy's knobs, typed, as given (the defaults otherwise).
    pub knobs: PolicyKnobs,
}

impl Default for PolicyOptions {
    /// The simulator's defaults, seed 1.
    fn default() -> Self {
        PolicyOptions::from_knobs(&PolicyKnobs::defaults(false), 1).unwrap_or_else(|e| panic!("declared defaults: {e}"))
    }
}

impl PolicyOptions {
    /// The options the typed knobs `k` give, seeded `seed`.
    pub fn from_knobs(k: &PolicyKnobs, seed: u64) -> Result<PolicyOptions, KnobError> {
        Ok(PolicyOptions {
            seed,
            quantum: ms_to_ns(k.get::<SlotsKnobs>().quantum_ms),
            steal_interval: (k.get::<WssKnobs>().steal_interval_us * MICRO as f64).round() as u64,
            assignment: k.get::<StaticKnobs>().assignment.as_deref().map(|a| parse_assignment(None, a)).transpose()?,
            efs: EfsParams::from(k.get::<EfsKnobs>()),
            perf_fair: PerfFairParams::from(k.get::<PerfFairKnobs>()),
            slits: SlitsParams::try_from(k.get::<SlitsKnobs>())?,
            quintet: QuintetParams::from(k.get::<QuintetKnobs>()),
            rda_factor: k.get::<CompromiseKnobs>().rda_factor,
            rda_declare_scale: k.get::<RdaKnobs>().rda_declare_scale,
            rda_pool_hold: true,
            knobs: k.clone(),
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
    /// The knobs it reads: declared structs, each next to the code that reads it.
    #[serde(skip)]
    knob_groups: &'static [KnobGroup],
    #[serde(skip)]
    make: fn(&PolicyOptions) -> Result<Box<dyn Policy>, PolicyError>,
}

impl PolicyInfo {
    /// The knobs it reads.
    pub fn knobs(&self) -> impl Iterator<Item = &'static KnobSpec> {
        self.knob_groups.iter().flat_map(|g| g.specs.iter())
    }

    /// The declared structs of the knobs it reads.
    pub fn knob_groups(&self) -> &'static [KnobGroup] {
        self.knob_groups
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

/// A family's policies and where they stand in the registry: each family
/// module declares one as `pub(crate) const REGISTERED`, and the build finds
/// every such module of this folder (`build.rs`), so adding a family is adding
/// a file.
pub struct Registered {
    /// Order in the registry, lowest first (ties: by module name).
    pub rank: u32,
    /// Its policies, in the order they are listed.
    pub policies: &'static [PolicyInfo],
}

/// Every policy this crate provides, in rank order.
pub fn registry() -> &'static [PolicyInfo] {
    static ALL: std::sync::OnceLock<Vec<PolicyInfo>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        let mut families: Vec<&Registered> = FAMILIES.to_vec();
        families.sort_by_key(|f| f.rank);
        families.iter().flat_map(|f| f.policies.iter().copied()).collect()
    })
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
