//! One policy's figures over a comparison's seeds ([`PolicySummary`]) and the columns a table
//! reads from it ([`COLUMNS`]), apart from the comparison that fills them (`mod.rs`) and the
//! regime notes that rerun one (`regime.rs`), which both read them.

use cosched_core::metrics::registry::named;
use cosched_core::stats::MeanCi;
use serde::Serialize;

cosched_core::metric_fields! {
    /// One policy's figures over the seeds: mean and 95% interval.
    #[derive(Serialize)]
    pub struct PolicySummary {
        /// Policy name.
        pub policy: String,
        /// Whether the policy reads the ground truth (an oracle, not a contender).
        pub oracle: bool,
        /// Whether it beats the bound ([`BestStatic::beaten_by`](crate::compare::BestStatic::beaten_by): at least
        /// [`BEAT_SEEDS`](crate::compare::BEAT_SEEDS) seeds and a paired interval below zero); `None`
        /// without a bound.
        pub beats_bound: Option<bool>,
        /// Baseline makespan / this makespan, per seed.
        [metric] pub speedup: MeanCi,
        /// `makespan_s` over the seeds (the metric registry's, `cosched list metrics`).
        [metric] pub makespan_s: MeanCi,
        /// `antt` over the seeds (the metric registry's, `cosched list metrics`).
        [metric] pub antt: Option<MeanCi>,
        /// `unfairness` over the seeds (the metric registry's, `cosched list metrics`).
        [metric] pub unfairness: Option<MeanCi>,
        /// `stp` over the seeds (the metric registry's, `cosched list metrics`).
        [metric] pub stp: Option<MeanCi>,
        /// `energy_j` over the seeds (the metric registry's, `cosched list metrics`).
        [metric] pub energy_j: MeanCi,
        /// `edp_js` over the seeds (the metric registry's, `cosched list metrics`).
        [metric] pub edp_js: MeanCi,
        /// `llc_misses` over the seeds (the metric registry's, `cosched list metrics`).
        [metric] pub llc_misses: MeanCi,
        /// `l1_hits` over the seeds (the metric registry's, `cosched list metrics`).
        [metric] pub l1_hits: MeanCi,
        /// `ctx_switches` over the seeds (the metric registry's, `cosched list metrics`).
        [metric] pub ctx_switches: MeanCi,
        /// `migrations` over the seeds (the metric registry's, `cosched list metrics`).
        [metric] pub migrations: MeanCi,
        /// `explored_pct` over the seeds (the metric registry's, `cosched list metrics`).
        [metric] pub explored_pct: MeanCi,
        /// `gap_to_bound_pct` over the seeds (the metric registry's, `cosched list metrics`).
        [metric] pub gap_to_bound_pct: Option<MeanCi>,
        /// `decide_p50_us` over the seeds (the metric registry's, `cosched list metrics`).
        [metric] pub decide_p50_us: Option<MeanCi>,
        /// `decide_p99_us` over the seeds (the metric registry's, `cosched list metrics`).
        [metric] pub decide_p99_us: Option<MeanCi>,
    }
}

/// A summary of a [`PolicySummary`], absent where the metric is not defined.
pub type Get = fn(&PolicySummary) -> Option<&MeanCi>;

/// A column of [`COLUMNS`]: a field of [`PolicySummary`] and its name, the field's own
/// (checked against the metric registry when the crate is built).
macro_rules! column {
    ($f:ident) => {
        (named(stringify!($f)), |r: &PolicySummary| Some(&r.$f))
    };
    (? $f:ident) => {
        (named(stringify!($f)), |r: &PolicySummary| r.$f.as_ref())
    };
}

/// Every summarised metric of a [`PolicySummary`], by its registry name, in column order.
pub const COLUMNS: [(&str, Get); 15] = [
    column!(speedup),
    column!(makespan_s),
    column!(?antt),
    column!(?unfairness),
    column!(?stp),
    column!(energy_j),
    column!(edp_js),
    column!(llc_misses),
    column!(l1_hits),
    column!(ctx_switches),
    column!(migrations),
    column!(explored_pct),
    column!(?gap_to_bound_pct),
    column!(?decide_p50_us),
    column!(?decide_p99_us),
];
