//! SLITS's parameters and the knobs that set them (SLITS §3.4, §4.3, §6.3-6.4;
//! the policy itself is in `mod.rs`).

use super::super::knob::{choice, ms_to_ns, Kind, KnobError, MAX_TIME_MS, MIN_TIME_MS};
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

cosched_core::words!(Pairing { Fm = "fm", RoundRobin = "round-robin", Random = "random", Oracle = "oracle" });

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
        SlitsParams::try_from(&SlitsKnobs::default()).unwrap_or_else(|e| panic!("declared defaults: {e}"))
    }
}

cosched_core::options! {
    /// SLITS's knobs (defaults are the paper's: FM pairing on every pick, Lazy Reschedule, k = 8).
    pub struct SlitsKnobs of "SLITS", "SLITS §3.3" {
        /// SLITS: share of picks made with the factorization machine (the rest round-robin)
        slits_coverage: f64 = (Kind::Float { min: 0.0, max: 100.0 }, "100", unit "%", paper "SLITS §6.4"),
        /// SLITS: how a waiting thread is chosen: fm (the paper), round-robin (the paper's "without FM"), random, or oracle (ground-truth co-run contention; simulator only)
        slits_pairing: Pairing = (choice::<Pairing>(), "fm", paper "SLITS §4.3, §6.3"),
        /// SLITS: rank every waiting thread (one global queue) instead of the threads assigned to the idle core
        slits_global_queue: bool = (Kind::Switch, "", paper "SLITS §4.3.1 step 1"),
        /// SLITS: periodic rescheduling every this many ms instead of Lazy Reschedule (0 = lazy)
        slits_period_ms: f64 = (Kind::Float { min: 0.0, max: MAX_TIME_MS }, "0", unit "ms", paper "SLITS §3.4, §6.3"),
        /// SLITS: FM latent dimension k (the paper's is 8; each thread keeps k factors per event)
        slits_k: usize = (Kind::Int { min: 1, max: 256 }, "8"),
        /// SLITS: FM learning rate
        slits_learning_rate: f64 = (Kind::Float { min: 1e-6, max: 1.0 }, "0.02"),
        /// SLITS: FM L2 regularisation of the factors
        slits_reg: f64 = (Kind::Float { min: 0.0, max: 10.0 }, "0.005"),
    }
}

impl TryFrom<&SlitsKnobs> for SlitsParams {
    type Error = KnobError;

    /// The parameters the knobs give; a period under 1 µs (but not 0) is refused.
    fn try_from(k: &SlitsKnobs) -> Result<SlitsParams, KnobError> {
        let period = k.slits_period_ms;
        if period > 0.0 && period < MIN_TIME_MS {
            return Err(KnobError::Invalid {
                knob: "slits_period_ms".into(),
                problem: format!("must be 0 (lazy) or at least {MIN_TIME_MS} ms (1 µs), got {period}"),
            });
        }
        Ok(SlitsParams {
            trigger: if period > 0.0 { Trigger::Periodic(ms_to_ns(period)) } else { Trigger::Lazy },
            coverage: k.slits_coverage / 100.0,
            pairing: k.slits_pairing,
            scope: if k.slits_global_queue { Scope::Global } else { Scope::PerCore },
            fm: FmParams {
                k: k.slits_k,
                learning_rate: k.slits_learning_rate,
                reg_v: k.slits_reg,
                ..FmParams::default()
            },
            holdout: 0,
            tim_alpha: 0.5,
            replay: 4,
        })
    }
}
