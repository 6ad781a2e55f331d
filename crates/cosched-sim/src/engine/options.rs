//! The engine's options (`SimOptions`): seed, limits, tracing, ablation switches, the cache of
//! solutions shared between runs and the flag that cancels a run from outside.

use cosched_core::progress::Reporter;

/// Engine options.
#[derive(Clone, Debug)]
pub struct SimOptions {
    /// Seed of the engine's RNG (counter noise).
    pub seed: u64,
    /// Relative standard deviation of multiplicative noise on counter increments.
    pub counter_noise: f64,
    /// Measure the policy's decision time (wall clock: results then differ run to run).
    pub timing: bool,
    /// Abort when simulated time passes this many seconds.
    pub max_time_s: f64,
    /// Cost of each `pp_begin` / `pp_end` call, charged to the calling thread (RDA Fig. 11).
    pub pp_cost_ns: u64,
    /// Scheduler overhead charged at every thread start, ns: the context
    /// stalls this long (active, drawing power) before the thread runs, as the
    /// scheduler's own decision path would on a real core
    /// (EFS §5.3 attributes the extra energy of unaffected benchmarks to "the
    /// added complexity of our new scheduler"). 0: decisions are free, as in
    /// every run unless an experiment sets it from a measured decision time.
    pub decision_cost_ns: u64,
    /// Abort after this many engine events (timed events taken from the queue):
    /// the budget that stops a runaway input (a vanishing quantum, billions of iterations).
    pub max_events: u64,
    /// Where a progress line goes every few seconds of a run that lasts longer
    /// than that (off by default; the face that started the run decides).
    pub progress: Reporter,
    /// Set from outside (Ctrl-C in Python) to stop the run: checked every
    /// few thousand events, the run then ends with [`SimError::Cancelled`].
    pub cancel: Cancel,
    /// Contention solutions shared with the other runs of the same machine
    /// and plan that hold a clone (the runs of a search: `cosched optimum`,
    /// the bound beside `compare`); results are the same with or without.
    pub shared: Shared,
    /// Solve every socket whole, even one whose LLC domains the engine would
    /// solve apart (design note 57): the exact reference the per-domain
    /// solve is checked against, and its ablation.
    pub whole_sockets: bool,
}

/// A handle on [`SharedSolutions`] for [`SimOptions::shared`] (`None`: the
/// run remembers solutions for itself only). Its `Debug` form is constant, as
/// [`Cancel`]'s is.
#[derive(Clone, Default)]
pub struct Shared(pub Option<std::sync::Arc<crate::contention::SharedSolutions>>);

impl Shared {
    /// A new, empty cache to share between runs of one machine and plan.
    pub fn new() -> Shared {
        Shared(Some(Default::default()))
    }
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Shared")
    }
}

/// A flag that stops runs from outside ([`SimOptions::cancel`]). Its
/// `Debug` form is constant, so options that differ only in it compare
/// equal as text (the batch runner groups runs by their options' text).
#[derive(Clone, Default)]
pub struct Cancel(Option<std::sync::Arc<std::sync::atomic::AtomicBool>>);

impl Cancel {
    /// A flag that `set` (on any clone) raises.
    pub fn new() -> Cancel {
        Cancel(Some(Default::default()))
    }

    /// Ask every run holding a clone of this flag to stop.
    pub fn set(&self) {
        if let Some(f) = &self.0 {
            f.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// Whether a stop was asked.
    pub fn is_set(&self) -> bool {
        self.0.as_ref().is_some_and(|f| f.load(std::sync::atomic::Ordering::Relaxed))
    }
}

impl std::fmt::Debug for Cancel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Cancel")
    }
}

/// Default event budget: 10⁸ engine events (timed events taken from the
/// queue), from about 20 s to 6 min of one core at the 0.26-5 M events/s
/// measured (a runaway single thread; `spec-mix24` at a 10 µs quantum). Runs
/// at default knobs fit 5·10⁴ (checked with `--max-events 50000`:
/// `spec-mix24` under `cfs`, `canneal --threads 128` under
/// `slits-contention`), so the budget stops only runaway inputs;
/// `--max-events` raises it (docs/formats.md, "Budgets").
pub const DEFAULT_MAX_EVENTS: u64 = 100_000_000;
/// [`DEFAULT_MAX_EVENTS`] as the knobs' declarations write a default.
pub const DEFAULT_MAX_EVENTS_TEXT: &str = "100000000";

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions {
            seed: 1,
            counter_noise: 0.0,
            timing: false,
            max_time_s: 3600.0,
            pp_cost_ns: 0,
            decision_cost_ns: 0,
            max_events: DEFAULT_MAX_EVENTS,
            progress: Reporter::default(),
            cancel: Cancel::default(),
            shared: Shared::default(),
            whole_sockets: false,
        }
    }
}
