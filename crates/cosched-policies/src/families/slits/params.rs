//! SLITS's parameters and the knobs that set them (SLITS §3.4, §4.3, §6.3-6.4;
//! the policy itself is in `mod.rs`).

use super::super::knob::{ms_to_ns, Kind, KnobError, KnobSpec, KnobValues, MAX_TIME_MS, MIN_TIME_MS, POSITIVE};
use crate::ids::Nanos;
use crate::learn::FmParams;

/// When contexts are rescheduled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trigger {
    /// Only when the running thread stalls or exits (Lazy Reschedule).
    Lazy,
    /// Also every given interval (the periodic alternative).
    Periodic(Nanos),
}

/// How a waiting thread is chosen for an idle context (the ablation axis of
/// `paper slits`; SLITS §6.3 compares only `Fm` with `RoundRobin`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pairing {
    /// The FM's estimate, observed TIM entries first (SLITS §4.3).
    Fm,
    /// First in queue order (§6.3 "without FM").
    RoundRobin,
    /// A uniformly random candidate (seeded).
    Random,
    /// **Oracle**: the ground-truth co-run statistic from the backend
    /// ([`crate::policy::Oracle::corun`]); needs `Needs::oracle`.
    Oracle,
}

impl Pairing {
    /// Parse `fm`, `round-robin`, `random` or `oracle`.
    pub fn parse(s: &str) -> Result<Pairing, KnobError> {
        match s {
            "fm" => Ok(Pairing::Fm),
            "round-robin" => Ok(Pairing::RoundRobin),
            "random" => Ok(Pairing::Random),
            "oracle" => Ok(Pairing::Oracle),
            _ => Err(KnobError::Invalid {
                knob: "slits_pairing".into(),
                problem: format!("must be fm, round-robin, random or oracle, got '{s}'"),
            }),
        }
    }
}

/// Which waiting threads an idle context ranks (SLITS §4.3.1 step ①).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The threads assigned to this context (§5.3: 2/4/8 threads per core).
    PerCore,
    /// Every waiting thread (one global queue).
    Global,
}

/// SLITS knobs.
#[derive(Clone, Debug)]
pub struct SlitsParams {
    /// Trigger.
    pub trigger: Trigger,
    /// Share of picks made with the pairing rule (0..=1); the rest round-robin.
    pub coverage: f64,
    /// Pairing rule (`Fm` is SLITS; the others are ablations).
    pub pairing: Pairing,
    /// Step ①: per-core candidates (the paper) or a global queue.
    pub scope: Scope,
    /// Accuracy study: hold out of training every TIM pair whose
    /// `(running·31 + waiting) % holdout == 0` (0 = train on everything).
    pub holdout: u32,
    /// FM hyper-parameters.
    pub fm: FmParams,
    /// TIM moving-average weight of a new observation.
    pub tim_alpha: f64,
    /// Earlier observations replayed per new one (bounds the update cost).
    pub replay: usize,
}

impl Default for SlitsParams {
    fn default() -> Self {
        SlitsParams {
            trigger: Trigger::Lazy,
            coverage: 1.0,
            pairing: Pairing::Fm,
            scope: Scope::PerCore,
            holdout: 0,
            fm: FmParams::default(),
            tim_alpha: 0.5,
            replay: 4,
        }
    }
}

/// SLITS's knobs (defaults are the paper's: FM pairing on every pick, Lazy Reschedule, k = 8).
pub const KNOBS: [KnobSpec; 7] = [
    KnobSpec {
        name: "slits_coverage",
        kind: Kind::Float { min: 0.0, max: 100.0 },
        default: "100",
        real_default: "",
        unit: "%",
        doc: "SLITS: share of picks made with the factorization machine (the rest round-robin)",
        paper: "SLITS §6.4",
    },
    KnobSpec {
        name: "slits_pairing",
        kind: Kind::Choice { choices: &["fm", "round-robin", "random", "oracle"] },
        default: "fm",
        real_default: "",
        unit: "",
        doc: "SLITS: how a waiting thread is chosen: fm (the paper), round-robin (the paper's \"without FM\"), random, or oracle (ground-truth co-run contention; simulator only)",
        paper: "SLITS §4.3, §6.3",
    },
    KnobSpec {
        name: "slits_global_queue",
        kind: Kind::Switch,
        default: "",
        real_default: "",
        unit: "",
        doc: "SLITS: rank every waiting thread (one global queue) instead of the threads assigned to the idle core",
        paper: "SLITS §4.3.1 step 1",
    },
    KnobSpec {
        name: "slits_period_ms",
        kind: Kind::Float { min: 0.0, max: MAX_TIME_MS },
        default: "0",
        real_default: "",
        unit: "ms",
        doc: "SLITS: periodic rescheduling every this many ms instead of Lazy Reschedule (0 = lazy)",
        paper: "SLITS §3.4, §6.3",
    },
    KnobSpec {
        name: "slits_k",
        kind: Kind::Int { min: 1, max: 256 },
        default: "8",
        real_default: "",
        unit: "",
        doc: "SLITS: FM latent dimension k (the paper's is 8; each thread keeps k factors per event)",
        paper: "SLITS §3.3",
    },
    KnobSpec {
        name: "slits_learning_rate",
        kind: POSITIVE,
        default: "0.02",
        real_default: "",
        unit: "",
        doc: "SLITS: FM learning rate",
        paper: "SLITS §3.3",
    },
    KnobSpec {
        name: "slits_reg",
        kind: Kind::Float { min: 0.0, max: f64::MAX },
        default: "0.005",
        real_default: "",
        unit: "",
        doc: "SLITS: FM L2 regularisation of the factors",
        paper: "SLITS §3.3",
    },
];

impl SlitsParams {
    /// The parameters the knobs [`KNOBS`] give.
    pub fn from_knobs(v: &KnobValues) -> Result<SlitsParams, KnobError> {
        let period = v.float("slits_period_ms");
        if period > 0.0 && period < MIN_TIME_MS {
            return Err(KnobError::Invalid {
                knob: "slits_period_ms".into(),
                problem: format!("must be 0 (lazy) or at least {MIN_TIME_MS} ms (1 µs), got {period}"),
            });
        }
        Ok(SlitsParams {
            trigger: if period > 0.0 { Trigger::Periodic(ms_to_ns(period)) } else { Trigger::Lazy },
            coverage: v.float("slits_coverage") / 100.0,
            pairing: Pairing::parse(v.text("slits_pairing").unwrap_or("fm"))?,
            scope: if v.switch("slits_global_queue") { Scope::Global } else { Scope::PerCore },
            fm: FmParams {
                k: v.int("slits_k") as usize,
                learning_rate: v.float("slits_learning_rate"),
                reg_v: v.float("slits_reg"),
                ..FmParams::default()
            },
            ..SlitsParams::default()
        })
    }
}
