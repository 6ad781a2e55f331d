//! Bounds on every count a user can type. A count above
//! its bound is refused before anything is allocated, naming the knob, the
//! bound and why it is there; what a bound cannot cover streams instead
//! (`cosched profile` reads its trace in constant memory). The policies'
//! knobs carry their own ranges (`cosched_policies::knob`).

use crate::error::RunError;

/// One bounded count.
#[derive(Clone, Copy, Debug)]
pub struct Bound {
    /// The keyword of the knob the count comes from (the command line's flag with `_` for `-`).
    pub knob: &'static str,
    /// Smallest accepted value.
    pub min: u64,
    /// Largest accepted value.
    pub max: u64,
    /// Why the bound is there (shown with the refusal).
    pub why: &'static str,
}

/// Seeds of `compare` and of the paper reruns: each seed is a whole run whose report is kept.
pub const SEEDS: Bound = Bound {
    knob: "seeds",
    min: 1,
    max: 10_000,
    why: "each seed is a whole simulated run kept for the interval; 10,000 seeds already narrow a 95% interval \
          to 2% of one run's spread",
};

/// Random assignments drawn by `assign` and `paper evt`.
pub const SAMPLES: Bound = Bound {
    knob: "samples",
    min: 1,
    max: 1_000_000,
    why: "each assignment is one simulated run, and every measurement is kept for the POT fit (the statistical \
          study uses 5,000)",
};

/// Mixes of `paper perf-fair` (the paper: 13).
pub const MIXES: Bound = Bound {
    knob: "mixes",
    min: 1,
    max: 1_000,
    why: "each mix is composed and run under every scheduler and seed (the paper has 13)",
};

/// Real runs of `cosched run --repeat` (or interleaved rounds).
pub const REPEAT: Bound = Bound {
    knob: "repeat",
    min: 1,
    max: 1_000,
    why: "each repetition is a real run of the whole mix, and every report is kept",
};

/// Most rounds of a check that goes on until its intervals are narrow.
pub const MAX_ROUNDS: Bound = Bound {
    knob: "max_rounds",
    min: 1,
    max: 1_000,
    why: "each round is a real run of the mix under every policy (of a characterised job, alone and beside every \
          co-runner), and every run is kept",
};

/// Points of one sweep (Python's `cosched.sweep` grid).
pub const SWEEP_POINTS: Bound = Bound {
    knob: "grid",
    min: 1,
    max: 1_000_000,
    why: "every point's report is kept for the DataFrame; split a larger grid into several sweeps",
};

impl Bound {
    /// `v` if within the bound, else the one-line refusal.
    pub fn check(&self, v: u64) -> Result<u64, RunError> {
        if (self.min..=self.max).contains(&v) {
            Ok(v)
        } else {
            Err(RunError::knob(self.knob, format!("must be from {} to {}, got {v} ({})", self.min, self.max, self.why)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_past_its_bound_is_refused_with_the_bound_and_why() {
        assert_eq!(SEEDS.check(3), Ok(3));
        let e = SEEDS.check(1_000_000_000).unwrap_err().to_string();
        assert!(e.starts_with("--seeds: must be from 1 to 10000, got 1000000000 ("), "{e}");
        assert!(SAMPLES.check(0).is_err() && SAMPLES.check(SAMPLES.max).is_ok());
    }
}
