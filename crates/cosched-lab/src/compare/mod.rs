//! A comparison, the project's main job: every policy on the same machine
//! and workload over several seeds; speedup against a baseline measured in
//! the same run (per seed), mean and 95% t-interval; beside it each seed's
//! best static co-schedule (`crate::optimum`).

use crate::error::RunError;
use crate::spec::Resolved;
use crate::sweep::{config_among, config_custom, run_batch_with, Point};
use cosched_core::stats::mean_ci;
use cosched_policies as policies;
use cosched_sim::experiment::Report;
use serde::Serialize;

mod bound;
mod bound_cache;
mod identical;
mod regime;
mod summary;
mod what;
pub use bound::BoundCost;
use bound::{best_static, bound_work};
/// `compare`'s baseline, the policy every speedup is measured against: declared once here and
/// read by every face (the command line's `--baseline`, Python's `baseline=`).
pub const DEFAULT_BASELINE: &str = "cfs";

/// `compare`'s number of seeds (paired runs per policy) by default, every face's.
pub const DEFAULT_SEEDS: u64 = 3;

/// `compare`'s first seed by default (seeds run `seed`, `seed + 1`, …), every face's.
pub const DEFAULT_FIRST_SEED: u64 = 1;

pub use bound::{count_text, BestStatic, BEAT_SEEDS, GAP_BUDGET, GAP_PARTITION_SAMPLES, GAP_SAMPLES, ROUNDING_PCT};
pub use bound_cache::{BoundCache, MODEL_VERSION};
pub use identical::{identical_lines, identical_rows, Finding, IdenticalRows};
pub use regime::{
    regime_lines, stretched, PairedUnfairness, RegimeNote, RegimeRun, PERF_FAIR_FAMILY, PERF_FAIR_SOLO_S, RDA_FAMILY,
};
pub use summary::{Get, PolicySummary, COLUMNS};
pub use what::{Comparing, Steps};

cosched_core::metric_fields! {
    /// A comparison: per-policy summaries and every run's report.
    #[derive(Serialize)]
    pub struct Comparison {
        /// Machine name.
        pub machine: String,
        /// Workload name.
        pub workload: String,
        /// Thread count asked for (`None`: the preset's).
        pub threads: Option<u32>,
        /// The policy speedups are measured against.
        pub baseline: String,
        /// The seeds run.
        pub seeds: Vec<u64>,
        /// One summary per policy, the baseline included.
        pub policies: Vec<PolicySummary>,
        /// The best static co-schedule of each seed (`None`: see `no_best_static`).
        pub best_static: Option<BestStatic>,
        /// Why there is no best static co-schedule, when there is none.
        pub no_best_static: Option<String>,
        /// Every run's report, seed-major.
        pub runs: Vec<Report>,
        /// Policies whose rows are the same simulated outcome on every seed, and why ([`IdenticalRows`]).
        pub identical: Vec<IdenticalRows>,
        /// Each run's speedup, aligned with `runs`: the baseline's makespan on
        /// the same seed over the run's (what `speedup` summarises).
        pub speedups: Vec<f64>,
        /// The policies that run outside their paper's regime here, why, and
        /// (where stretching the jobs brings them into it) what that costs
        /// ([`RegimeNote`]; empty with `regimes` off).
        pub regimes: Vec<RegimeNote>,
        /// Notes on the knobs given (one that only some of the policies read).
        #[serde(skip)]
        pub notes: Vec<String>,
        /// What the bound cost (`None`: not computed); wall time, so never in the JSON.
        #[serde(skip)]
        pub bound_cost: Option<BoundCost>,
    }
}

/// What the gap column is measured against, the bound's value and interval
/// per seed, and which policies beat it (`rows`), in a few lines.
pub fn gap_legend(b: &BestStatic, rows: &[PolicySummary]) -> String {
    use crate::optimum::{IDLE_EVT_ESTIMATE, IDLE_EXACT, IDLE_EXACT_AND_EVT, IDLE_EXACT_AND_RANDOM};
    let n = b.samples;
    let what = match b.bound {
        IDLE_EXACT => "exact: every one simulated".to_string(),
        IDLE_EXACT_AND_EVT => format!(
            "the exact best static co-schedule (a context each, every one simulated), or the EVT estimate from {n} \
             random partitions per seed where higher: not a proven best"
        ),
        IDLE_EVT_ESTIMATE => format!("EVT estimate from {n} random ones per seed, not a proven best"),
        IDLE_EXACT_AND_RANDOM => format!(
            "the exact best static co-schedule, or the best of {n} random partitions where higher (POT found no \
             bounded tail on some seed): below the family's best"
        ),
        _ => format!("best of {n} random ones on some seed (POT found no bounded tail): below the family's best"),
    };
    let num = |x: f64| if x.is_finite() { format!("{x:.3}") } else { "unbounded".to_string() };
    let per_seed: Vec<String> = b
        .best_gips
        .iter()
        .zip(&b.best_ci)
        .map(|(v, ci)| match ci {
            Some((lo, hi)) => format!("{} [{}, {}]", num(*v), num(*lo), num(*hi)),
            None => num(*v),
        })
        .collect();
    let shown = if per_seed.len() <= 5 {
        per_seed.join("; ")
    } else {
        format!("{}; … ({} seeds)", per_seed[..5].join("; "), per_seed.len())
    };
    let seeds = b.best_gips.len();
    let beaten: Vec<&str> = rows.iter().filter(|r| r.beats_bound == Some(true)).map(|r| r.policy.as_str()).collect();
    let verdict = if seeds < BEAT_SEEDS {
        format!("{seeds} seed(s): too few to say that any policy beats it (that takes {BEAT_SEEDS} or more)")
    } else if beaten.is_empty() {
        "no policy beats it (paired 95% interval of the gap to its upper interval end below zero)".to_string()
    } else {
        format!("beaten, on the paired 95% interval of the gap to its upper interval end, by: {}", beaten.join(", "))
    };
    format!(
        "gap_to_bound_pct: throughput below the bound of each seed, the best static partition with idle contexts allowed \
         (each thread pinned to one context for the whole run, a context's threads taking turns, any context idle; {} \
         of them up to symmetry; {what}; no ceiling for a policy that moves threads); negative: above it\n\
         bound, throughput_gips per seed [95% interval]: {shown}\n\
         {verdict}",
        b.coschedules
    )
}

/// Every non-oracle policy that needs no extra input (`cosched compare`'s default).
pub fn default_policies() -> Vec<String> {
    policies::registry().iter().filter(|p| !p.oracle && !p.needs_input()).map(|p| p.name.to_string()).collect()
}

/// Every policy of `what` (and its baseline, first when absent) on the
/// resolved run's machine and workload over its seeds: the JSON `cosched
/// compare --format json` prints and Python's `cosched.compare` reads. With
/// `gap`, each seed's best static co-schedule too ([`BestStatic`]). `steps`
/// is told how many steps there will be, and ticked at each.
///
/// ```
/// use cosched_lab::compare::{comparison, Comparing, Steps};
/// use cosched_lab::RunSpec;
///
/// let run = RunSpec { machine: "i5-2500".into(), workload: "spec-mix8".into(), timing: false, ..RunSpec::default() };
/// let names = ["cfs".to_string(), "efs".to_string()];
/// let what = Comparing { policies: &names, customs: &[], baseline: "cfs", first_seed: 1, seeds: 2, gap: false, regimes: false, bound_cache: None };
/// let c = comparison(&run.resolve().unwrap(), &what, &Steps::silent()).unwrap();
/// assert_eq!((c.seeds.len(), c.runs.len()), (2, 4)); // one report per policy and seed
/// let cfs = &c.policies[0];
/// assert_eq!((cfs.policy.as_str(), cfs.speedup.mean), ("cfs", 1.0)); // the baseline against itself
/// let efs = &c.policies[1];
/// assert!(efs.speedup.lo <= efs.speedup.mean && efs.speedup.mean <= efs.speedup.hi);
/// ```
pub fn comparison(resolved: &Resolved, what: &Comparing, steps: &Steps) -> Result<Comparison, RunError> {
    let Comparing { policies: names, customs, baseline, first_seed, seeds, gap, regimes, bound_cache } = *what;
    let (run, m) = (&resolved.spec, &resolved.machine);
    crate::limits::SEEDS.check(seeds)?;
    let last_seed = first_seed.checked_add(seeds - 1).ok_or_else(|| {
        RunError::knob("seed", format!("{first_seed} + {seeds} seeds passes the largest seed, 2^64 - 1"))
    })?;
    if names.is_empty() {
        return Err(RunError::knob("policies", "the list is empty: give at least one policy"));
    }
    for (i, n) in names.iter().enumerate() {
        if let Some(j) = names[..i].iter().position(|x| x == n) {
            return Err(RunError::knob("policies", format!("`{n}` is listed twice (entries {} and {})", j + 1, i + 1)));
        }
    }
    let mut names = names.to_vec();
    if !names.iter().any(|n| n == baseline) {
        names.insert(0, baseline.to_string());
    }
    let among: Vec<&str> = names.iter().map(String::as_str).collect();
    let custom_of = |n: &str| customs.iter().find(|c| c.name == n);
    for n in &names {
        if let Some(c) = custom_of(n) {
            config_custom(run, c, first_seed, &among)?;
            continue;
        }
        config_among(run, n, first_seed, &among).map_err(|e| match e {
            RunError::Policy(e) if n == baseline => RunError::knob("baseline", e.to_string()),
            e => e,
        })?;
    }
    let mut notes = vec![];
    let builtin: Vec<&str> = among.iter().copied().filter(|n| custom_of(n).is_none()).collect();
    if !builtin.is_empty() {
        notes = run.policy_opts(&builtin, first_seed)?.1;
    }
    let seeds: Vec<u64> = (first_seed..=last_seed).collect();
    let points: Vec<Point> = seeds
        .iter()
        .flat_map(|&seed| {
            names.iter().map(move |p| Point {
                run: run.clone(),
                policy: p.clone(),
                seed,
                custom: custom_of(p).cloned(),
            })
        })
        .collect();
    let work = if gap { Some(bound_work(resolved, &seeds, bound_cache)?) } else { None };
    (steps.total)(points.len() + work.as_ref().map_or(0, |w| w.runs));
    let reports = run_batch_with(&points, &|_| Ok(resolved.clone()), steps.tick)?;
    let (best, bound_cost) = match work {
        Some(work) => match best_static(resolved, &seeds, work, bound_cache, steps.tick) {
            Ok((b, cost)) => (Ok(b), Some(cost)),
            Err(e) => (Err(e.to_string()), None),
        },
        None => (Err(bound::not_computed()), None),
    };
    let runs_of = |p: usize| -> Vec<&Report> { (0..seeds.len()).map(|s| &reports[s * names.len() + p]).collect() };
    let base = names.iter().position(|n| n == baseline).expect("baseline included");
    let base_runs = runs_of(base);
    let speedups: Vec<f64> = reports
        .iter()
        .enumerate()
        .map(|(i, r)| base_runs[i / names.len()].metrics.run.makespan_s / r.metrics.run.makespan_s)
        .collect();
    let rows: Vec<PolicySummary> = (0..names.len())
        .map(|p| {
            let rs = runs_of(p);
            let f = |g: &dyn Fn(&Report) -> f64| mean_ci(&rs.iter().map(|r| g(r)).collect::<Vec<_>>());
            let fo = |g: &dyn Fn(&Report) -> Option<f64>| {
                let v: Option<Vec<f64>> = rs.iter().map(|r| g(r)).collect();
                v.map(|v| mean_ci(&v))
            };
            PolicySummary {
                policy: names[p].clone(),
                oracle: rs[0].oracle,
                beats_bound: best
                    .as_ref()
                    .ok()
                    .map(|b| b.beaten_by(&rs.iter().map(|r| r.metrics.run.throughput_gips).collect::<Vec<_>>())),
                speedup: mean_ci(
                    &rs.iter()
                        .zip(&base_runs)
                        .map(|(r, b)| b.metrics.run.makespan_s / r.metrics.run.makespan_s)
                        .collect::<Vec<_>>(),
                ),
                makespan_s: f(&|r| r.metrics.run.makespan_s),
                antt: fo(&|r| r.metrics.run.antt),
                unfairness: fo(&|r| r.metrics.run.unfairness),
                stp: fo(&|r| r.metrics.run.stp),
                energy_j: f(&|r| r.metrics.run.energy_j),
                edp_js: f(&|r| r.metrics.run.edp_js),
                llc_misses: f(&|r| r.metrics.llc_misses),
                l1_hits: f(&|r| r.metrics.l1_hits),
                ctx_switches: f(&|r| r.metrics.ctx_switches as f64),
                migrations: f(&|r| r.metrics.migrations as f64),
                explored_pct: f(&|r| r.metrics.explored_pct),
                gap_to_bound_pct: best.as_ref().ok().map(|b| {
                    mean_ci(
                        &rs.iter()
                            .zip(&b.best_gips)
                            .map(|(r, best)| (1.0 - r.metrics.run.throughput_gips / best) * 100.0)
                            .collect::<Vec<_>>(),
                    )
                }),
                decide_p50_us: fo(&|r| r.metrics.decide_p50_us),
                decide_p99_us: fo(&|r| r.metrics.decide_p99_us),
            }
        })
        .collect();
    let regimes = if regimes {
        regime::notes(resolved, what, &names, &reports, steps, &|r, w, s| {
            comparison(r, w, s).map(|c| (c.runs, c.policies))
        })?
    } else {
        vec![]
    };
    let identical = identical_rows(&names, &runs_of);
    Ok(Comparison {
        regimes,
        identical,
        machine: m.name.clone(),
        workload: reports[0].workload.clone(),
        threads: run.threads,
        baseline: baseline.to_string(),
        seeds,
        policies: rows,
        speedups,
        no_best_static: best.as_ref().err().cloned(),
        best_static: best.ok(),
        runs: reports,
        notes,
        bound_cost,
    })
}
