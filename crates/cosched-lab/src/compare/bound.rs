//! The bound beside a comparison (`compare`'s `gap_to_bound_pct`): each
//! seed's best static partition with idle contexts allowed, exact or its EVT
//! estimate, and how many runs finding it takes. The comparison reads it;
//! it reads nothing of the comparison.

use super::bound_cache::{BoundCache, PerSeed};
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

/// What the bound beside a comparison cost: seeds computed and seeds reused
/// from the cache ([`BoundCache`]), and the seconds it took.
#[derive(Clone, Debug, Default)]
pub struct BoundCost {
    /// Seeds whose bound was computed in this run.
    pub computed: usize,
    /// Seeds whose bound was reused from the cache.
    pub reused: usize,
    /// Wall seconds spent on the bound (reading the cache included).
    pub seconds: f64,
    /// Bounds computed here that could not be kept, and why (the first error).
    pub not_kept: Option<cosched_machine::ConfigError>,
}

/// Each seed's bound found in the cache (`None`: to compute), its key, and
/// the runs computing the rest takes (for progress).
pub(super) struct BoundWork {
    kept: Vec<Option<PerSeed>>,
    keys: Vec<Option<String>>,
    /// Runs the seeds not found take.
    pub runs: usize,
}

/// Look each seed's bound up in `cache` (when given) before any work.
pub(super) fn bound_work(
    resolved: &Resolved,
    seeds: &[u64],
    cache: Option<&BoundCache>,
) -> Result<BoundWork, RunError> {
    let mut work = BoundWork { kept: vec![], keys: vec![], runs: 0 };
    for &seed in seeds {
        let (mm, plan) = resolved.spec.plan(&resolved.machine, &resolved.workload, seed)?;
        let samples = samples_for(&mm, &plan);
        let key = cache.map(|_| BoundCache::key(&mm, &plan, GAP_BUDGET, samples, seed));
        let kept = cache.zip(key.as_deref()).and_then(|(c, k)| c.get(k));
        if kept.is_none() {
            work.runs += crate::optimum::best_static_runs(&mm, plan.threads.len(), GAP_BUDGET, samples) as usize;
        }
        work.kept.push(kept);
        work.keys.push(key);
    }
    Ok(work)
}

/// Random members a seed's estimate samples: [`GAP_PARTITION_SAMPLES`] with
/// more threads than contexts, else [`GAP_SAMPLES`].
fn samples_for(machine: &cosched_machine::spec::MachineSpec, plan: &cosched_sim::plan::Plan) -> usize {
    if plan.threads.len() > machine.n_contexts() {
        GAP_PARTITION_SAMPLES
    } else {
        GAP_SAMPLES
    }
}

/// Each seed's bound: the one [`bound_work`] found kept, else computed (in
/// parallel over the seeds) and kept in `cache` when given.
pub(super) fn best_static(
    resolved: &Resolved,
    seeds: &[u64],
    work: BoundWork,
    cache: Option<&BoundCache>,
    tick: &(dyn Fn() + Sync),
) -> Result<(BestStatic, BoundCost), RunError> {
    use crate::optimum::{best_static, weakest_kind, Instance, Objective};
    use rayon::prelude::*;
    let started = std::time::Instant::now();
    let (run, m, w) = (&resolved.spec, &resolved.machine, &resolved.workload);
    let was_kept: Vec<bool> = work.kept.iter().map(Option::is_some).collect();
    let reused = was_kept.iter().filter(|&&k| k).count();
    let per: Vec<PerSeed> = seeds
        .par_iter()
        .zip(work.kept.into_par_iter())
        .map(|(&seed, kept)| {
            if let Some(k) = kept {
                return Ok(k);
            }
            let (mm, plan) = run.plan(m, w, seed)?;
            let inst = Instance::bound(&mm, &plan)?;
            let count = inst.coschedules();
            let samples = samples_for(&mm, &plan);
            let b = best_static(&inst, Objective::Throughput, GAP_BUDGET, samples, seed, tick)?;
            let exact = inst.enumerable() && count <= GAP_BUDGET as u128;
            Ok((b.kind, count_text(count), b.value, b.ci, if exact { 0 } else { samples }))
        })
        .collect::<Result<_, RunError>>()?;
    let mut cost = BoundCost { computed: seeds.len() - reused, reused, ..BoundCost::default() };
    if let Some(cache) = cache {
        for ((p, key), &kept) in per.iter().zip(&work.keys).zip(&was_kept) {
            if kept {
                continue;
            }
            if let Err(e) = cache.put(key.as_deref().unwrap_or_default(), p) {
                cost.not_kept.get_or_insert(e);
            }
        }
    }
    // The weakest kind any seed needed names the column.
    let bound = weakest_kind(per.iter().map(|p| p.0));
    cost.seconds = started.elapsed().as_secs_f64();
    Ok((
        BestStatic {
            bound,
            coschedules: per[0].1.clone(),
            best_gips: per.iter().map(|p| p.2).collect(),
            best_ci: per.iter().map(|p| p.3).collect(),
            samples: per.iter().map(|p| p.4).max().unwrap_or(0),
        },
        cost,
    ))
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
