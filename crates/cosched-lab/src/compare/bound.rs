//! The bound beside a comparison (`compare`'s `gap_to_bound_pct`): each
//! seed's best static partition with idle contexts allowed, exact or its EVT
//! estimate, and how many runs finding it takes. The comparison reads it;
//! it reads nothing of the comparison.

use crate::error::RunError;
use crate::spec::Resolved;
use cosched_core::stats::mean_ci;
use serde::Serialize;

/// Why a comparison has no best static co-schedule when it was not asked for.
pub fn not_computed() -> String {
    format!("not computed ({})", cosched_policies::knob::flag_of("no_bound"))
}

/// Most distinct co-schedules `compare` simulates per seed for the exact optimum.
pub const GAP_BUDGET: usize = 20_000;
/// Random assignments per seed for the EVT estimate beyond [`GAP_BUDGET`].
pub const GAP_SAMPLES: usize = 1_000;
/// Random time-shared partitions per seed when the workload has more threads
/// than contexts: the fewest that leave POT's lowest threshold candidate
/// (the 0.90 quantile) its 30 exceedances. Fewer than [`GAP_SAMPLES`]
/// because each is a whole oversubscribed run (spec-mix24 on the E5645:
/// 300 take ≈10 s on 2 cores).
pub const GAP_PARTITION_SAMPLES: usize = 300;

cosched_core::metric_fields! {
    /// The bound beside a comparison, on each seed's machine and workload: the
    /// best static partition with idle contexts allowed ([`Instance::bound`]:
    /// each thread pinned to one context, a context's threads taking turns, any
    /// context idle), exact when the family has at most [`GAP_BUDGET`] members up
    /// to symmetry, else the POT estimate from [`GAP_SAMPLES`] (or
    /// [`GAP_PARTITION_SAMPLES`] with more threads than contexts) random members.
    ///
    /// [`Instance::bound`]: crate::optimum::Instance::bound
    #[derive(Serialize)]
    pub struct BestStatic {
        /// What the bound is (`crate::optimum`'s kinds; the weakest any seed needed).
        pub bound: &'static str,
        /// Static partitions of the family up to symmetry (text: it may not fit 64 bits).
        pub coschedules: String,
        /// The bound's throughput_gips, one per seed (the exact best, or the POT estimate).
        pub best_gips: Vec<f64>,
        /// The bound's POT interval per seed (`None`: exact, or no estimate); an
        /// upper end that is not finite is unbounded (null in JSON).
        pub best_ci: Vec<Option<(f64, f64)>>,
        /// Random members simulated per seed for the estimate (0: every member simulated).
        pub samples: usize,
    }
}

/// Seeds a comparison needs before a policy may be said to beat its bound.
pub const BEAT_SEEDS: usize = 10;

/// A gap to the bound (%) closer to zero than this is floating-point rounding,
/// not a difference: an exact bound that is the policy's own co-schedule (four
/// copies on four cores, CFS) differs from its run by about 1e-8 %.
pub const ROUNDING_PCT: f64 = 1e-6;

impl BestStatic {
    /// Whether the throughputs `gips` (one per seed, the seeds' order) beat the
    /// bound: at least [`BEAT_SEEDS`] seeds, and the paired 95% interval of
    /// the gap to each seed's upper interval end (the exact value where there
    /// is no interval) entirely below zero by more than [`ROUNDING_PCT`]. An
    /// unbounded upper end is never beaten.
    pub fn beaten_by(&self, gips: &[f64]) -> bool {
        if gips.len() < BEAT_SEEDS || gips.len() != self.best_gips.len() {
            return false;
        }
        let mut gaps = Vec::with_capacity(gips.len());
        for (k, &g) in gips.iter().enumerate() {
            let top = self.best_ci[k].map_or(self.best_gips[k], |c| c.1);
            if !top.is_finite() {
                return false;
            }
            gaps.push((1.0 - g / top) * 100.0);
        }
        mean_ci(&gaps).hi < -ROUNDING_PCT
    }
}

pub(super) fn best_static(
    resolved: &Resolved,
    seeds: &[u64],
    tick: &(dyn Fn() + Sync),
) -> Result<BestStatic, RunError> {
    use crate::optimum::{best_static, weakest_kind, Instance, Objective};
    use rayon::prelude::*;
    let (run, m, w) = (&resolved.spec, &resolved.machine, &resolved.workload);
    type PerSeed = (&'static str, String, f64, Option<(f64, f64)>, usize);
    let per: Vec<PerSeed> = seeds
        .par_iter()
        .map(|&seed| {
            let (mm, plan) = run.plan(m, w, seed)?;
            let inst = Instance::bound(&mm, &plan)?;
            let count = inst.coschedules();
            let samples = if inst.partitioned { GAP_PARTITION_SAMPLES } else { GAP_SAMPLES };
            let b = best_static(&inst, Objective::Throughput, GAP_BUDGET, samples, seed, tick)?;
            let exact = inst.enumerable() && count <= GAP_BUDGET as u128;
            Ok((b.kind, count_text(count), b.value, b.ci, if exact { 0 } else { samples }))
        })
        .collect::<Result<_, RunError>>()?;
    // The weakest kind any seed needed names the column.
    let bound = weakest_kind(per.iter().map(|p| p.0));
    Ok(BestStatic {
        bound,
        coschedules: per[0].1.clone(),
        best_gips: per.iter().map(|p| p.2).collect(),
        best_ci: per.iter().map(|p| p.3).collect(),
        samples: per.iter().map(|p| p.4).max().unwrap_or(0),
    })
}

/// A count of static partitions as printed: exact, or a magnitude where the
/// count saturated its 128 bits (`Instance::coschedules`).
pub fn count_text(count: u128) -> String {
    if count == u128::MAX {
        format!("more than {:.1e}", u128::MAX as f64)
    } else {
        count.to_string()
    }
}

/// Runs each seed's best static co-schedule simulates (for progress).
pub(super) fn gap_runs(resolved: &Resolved, seed: u64) -> Result<usize, RunError> {
    let (mm, plan) = resolved.spec.plan(&resolved.machine, &resolved.workload, seed)?;
    let threads = plan.threads.len();
    let samples = if threads > mm.n_contexts() { GAP_PARTITION_SAMPLES } else { GAP_SAMPLES };
    Ok(crate::optimum::best_static_runs(&mm, threads, GAP_BUDGET, samples) as usize)
}
