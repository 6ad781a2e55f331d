//! The fit of a job's co-runs: a coarse grid of both access
//! patterns ([`FOOTPRINTS`] × [`APKI`]), refined around its best point to a
//! continuous footprint, and the 95% confidence region of the fit, from which
//! each fitted constant's interval is read. The simplest model inside the
//! region is chosen: random, then sequential access (design note 61); on
//! request, the model with no memory traffic first (design note 64).
//!
//! The error of a model is the sum of squared log errors of its predicted
//! slowdowns; a co-run whose co-runner ended first counts only where the
//! prediction falls short of it (the measurement is a lower bound). The
//! region is Beale's for a nonlinear least-squares fit of p = 2 constants
//! to n co-runs (Beale, JRSS B 1960; Draper & Smith, *Applied Regression
//! Analysis*, §24.5): every model with error ≤ S·(1 + p/(n−p)·F(p, n−p; 0.95)),
//! S the least error, floored at the error the measurements' own noise
//! would leave (a fit cannot be surer than its measurements repeat): the sum
//! of the co-runs' squared log standard errors where the record keeps each
//! run, else n·σ² with σ the log half-spread of the job's solo runs.

use super::model::{predict, sequential_mlp, Fit, Pattern};
use super::{round2, MLP};
use crate::error::RunError;
use crate::failure::StudyError;
use cosched_machine::characterised::{CoRun, JobRecord};
use cosched_machine::MachineSpec;
use rayon::prelude::*;

/// Footprints tried, as multiples of the preset's LLC.
pub const FOOTPRINTS: [f64; 13] = [0.0625, 0.088, 0.125, 0.177, 0.25, 0.354, 0.5, 0.707, 1.0, 1.414, 2.0, 2.828, 4.0];
/// LLC accesses per kilo-instruction tried (at IPC 1).
pub const APKI: [f64; 12] = [0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0];
/// Steps between a grid point's two neighbours in each constant, refining
/// the best coarse point (log-spaced).
pub const REFINE: usize = 9;
/// Rounds of refinement: each between the neighbours of the last round's best (the second at
/// steps of 2^(1/64) ≈ 1.1% of the footprint).
pub const ROUNDS: usize = 2;
/// The access patterns the fit tries by default, in their order of preference: the first whose
/// best model lies inside the fit's region is chosen.
pub const PATTERNS: [Pattern; 2] = [Pattern::Random, Pattern::Sequential];
/// The default patterns after the model with no memory traffic, kept where the co-runs do not
/// exclude it (`characterise --access all`). Not the default: on the held-out families' recorded
/// rounds it was nowhere better than the default, and worse where the paired interval resolves
/// a difference (design notes 64 and 65).
pub const WITH_NONE: [Pattern; 3] = [Pattern::None, Pattern::Random, Pattern::Sequential];

/// A model with its error and its predicted slowdowns.
type Scored = (Fit, f64, Vec<f64>);

/// Grid points tried before the refinement: each pattern with traffic over the whole grid, and
/// the one model with none.
pub fn coarse_points(patterns: &[Pattern]) -> usize {
    patterns.iter().map(|&p| if p == Pattern::None { 1 } else { FOOTPRINTS.len() * APKI.len() }).sum()
}

/// The models of pattern `p` tried before the refinement on `m`: the grid (the one model for
/// [`Pattern::None`]).
fn coarse(m: &MachineSpec, p: Pattern) -> Vec<Fit> {
    let c = m.cache.llc_mb;
    let mlp = if p == Pattern::Random { MLP } else { sequential_mlp(m) };
    match p {
        Pattern::None => vec![Fit::no_traffic()],
        _ => FOOTPRINTS
            .iter()
            .flat_map(|&w| APKI.iter().map(move |&a| (w, a)))
            .map(|(w, a)| Fit::point(p, round2(w * c).max(0.01), a, mlp))
            .collect(),
    }
}

/// `x` to three significant digits (the constants a workload file names).
fn sig3(x: f64) -> f64 {
    if x <= 0.0 {
        return x;
    }
    let k = 10f64.powi(2 - x.log10().floor() as i32);
    (x * k).round() / k
}

/// `REFINE` log-spaced values from `lo` to `hi`.
fn between(lo: f64, hi: f64) -> Vec<f64> {
    (0..REFINE).map(|i| lo * (hi / lo).powf(i as f64 / (REFINE - 1) as f64)).collect()
}

/// The neighbours of `grid[i]` (itself at an edge).
fn around(grid: &[f64], i: usize) -> (f64, f64) {
    (grid[i.saturating_sub(1)], grid[(i + 1).min(grid.len() - 1)])
}

/// The error, residual and predictions of each model in `points` (in order;
/// a model the machine cannot run is an error, skipped by the caller).
fn score(m: &MachineSpec, j: &JobRecord, runs: &[(bool, &CoRun)], points: &[Fit]) -> Vec<Result<Scored, RunError>> {
    // The presence factor is measured, not fitted: every model carries the job's (design note 67).
    let presence = j.presence_factor();
    points
        .par_iter()
        .map(|f| {
            let f = &Fit { presence, ..*f };
            let predicted: Vec<f64> =
                runs.iter().map(|(pirate, r)| predict(m, j.solo_s, f, *pirate, r.size)).collect::<Result<_, _>>()?;
            let (mut sq, mut rel) = (0.0, 0.0);
            for (p, (_, r)) in predicted.iter().zip(runs) {
                let e = (p / r.slowdown).ln();
                sq += if r.covered { e * e } else { e.min(0.0).powi(2) };
                rel += (p / r.slowdown - 1.0).powi(2);
            }
            Ok((Fit { rms: (rel / runs.len() as f64).sqrt(), ..*f }, sq, predicted))
        })
        .collect()
}

/// The first model of least error among those whose pattern `keep` accepts (deterministic: ties
/// go to the earlier).
fn least(scored: &[Result<Scored, RunError>], keep: impl Fn(Pattern) -> bool) -> Option<&Scored> {
    let mut best: Option<&Scored> = None;
    for s in scored.iter().flatten().filter(|s| keep(s.0.access)) {
        if best.is_none_or(|b| s.1 < b.1 - 1e-12) {
            best = Some(s);
        }
    }
    best
}

/// The upper 5% point of Fisher's F with 2 and `nu` degrees of freedom (closed form: its
/// survival function is (1 + 2x/ν)^(−ν/2)).
pub fn f2_quantile_95(nu: f64) -> f64 {
    nu / 2.0 * (0.05f64.powf(-2.0 / nu) - 1.0)
}

/// The error job `j`'s measurements leave by their noise alone (module doc): the co-runs'
/// squared log standard errors summed where the record keeps every run, else n·σ² from the
/// solo spread (a record made before records kept every run).
pub fn noise_floor(j: &JobRecord) -> f64 {
    let runs: Vec<&CoRun> = j.pirates.iter().chain(&j.bandits).collect();
    let se: Option<Vec<f64>> = runs.iter().map(|r| j.log_se(r)).collect();
    match se {
        Some(se) if !se.is_empty() => se.iter().map(|s| s * s).sum(),
        _ => {
            let sigma = (1.0 + j.solo_spread.max(0.0)).ln() / 2.0;
            runs.len() as f64 * sigma * sigma
        }
    }
}

/// The largest error inside the 95% confidence region of a fit of `n` co-runs whose least error
/// is `least`, its measurements' noise leaving `floor` (module doc); infinite when the co-runs
/// cannot bound two constants (n ≤ 2).
pub fn region(least: f64, n: usize, floor: f64) -> f64 {
    if n <= 2 {
        return f64::INFINITY;
    }
    let nu = (n - 2) as f64;
    least.max(floor) * (1.0 + 2.0 / nu * f2_quantile_95(nu))
}

/// The upper 5% point of χ² with 2 degrees of freedom (closed form: its survival function is
/// e^(−x/2)).
pub fn chi2_2_quantile_95() -> f64 {
    -2.0 * 0.05f64.ln()
}

/// Whether the model with no traffic, of error `none`, survives the nested test against the best
/// model with traffic, of error `traffic` (design note 64): no traffic is the limit of both
/// patterns as their accesses go to 0, so the two constants the traffic models add lower the
/// error of a program that makes none by σ²·χ²(2) or less at 95%, σ² the mean squared log
/// standard error of the `n` co-runs (`floor` / n: the measurements' own noise, not the traffic
/// models' misfit, which says nothing of whether there is traffic).
pub fn no_traffic_kept(none: f64, traffic: f64, n: usize, floor: f64) -> bool {
    none - traffic <= floor / n.max(1) as f64 * chi2_2_quantile_95()
}

/// Add to `scored` [`ROUNDS`] refinements of pattern `access`'s best model, each between the
/// neighbours of the last round's best (nothing when no model of it ran).
fn refine(
    m: &MachineSpec,
    j: &JobRecord,
    runs: &[(bool, &CoRun)],
    scored: &mut Vec<Result<Scored, RunError>>,
    access: Pattern,
) {
    if access == Pattern::None {
        return;
    }
    let c = m.cache.llc_mb;
    let (mut ws, mut as_) = (FOOTPRINTS.to_vec(), APKI.to_vec());
    for _ in 0..ROUNDS {
        let Some(best) = least(scored, |a| a == access).map(|s| s.0) else { return };
        let wi = ws.iter().position(|&w| round2(w * c).max(0.01) == best.footprint_mb).unwrap_or(0);
        let ai = as_.iter().position(|&a| sig3(a) == best.llc_apki).unwrap_or(0);
        let ((w0, w1), (a0, a1)) = (around(&ws, wi), around(&as_, ai));
        (ws, as_) = (between(w0, w1), between(a0, a1));
        let fine: Vec<Fit> = ws
            .iter()
            .flat_map(|&w| as_.iter().map(move |&a| (w, a)))
            .map(|(w, a)| Fit::point(access, round2(w * c).max(0.01), sig3(a), best.mlp))
            .collect();
        scored.extend(score(m, j, runs, &fine));
    }
}

/// The range of constant `v` over the models of `access` inside the region, each end moved out
/// to the next value tried outside it (the region's edge lies between the two: a discrete search
/// cannot place it closer). For [`Pattern::None`], over the models of every pattern: from 0 (no
/// traffic) to the most any model inside the region makes.
fn widened(tried: &[&Fit], inside: &[&Fit], access: Pattern, v: impl Fn(&Fit) -> f64) -> (f64, f64) {
    let of = |f: &&&Fit| access == Pattern::None || f.access == access;
    let mut values: Vec<f64> = tried.iter().filter(of).map(|f| v(f)).collect();
    values.sort_by(f64::total_cmp);
    values.dedup();
    let (lo, hi) =
        inside.iter().filter(of).fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), f| (lo.min(v(f)), hi.max(v(f))));
    let below = values.iter().rev().find(|&&x| x < lo).copied().unwrap_or(lo);
    let above = values.iter().find(|&&x| x > hi).copied().unwrap_or(hi);
    (below, above)
}

/// The model that best reproduces job `j`'s co-runs on `m`, with its
/// predicted slowdown beside each (pirates, then bandits), its residual and
/// the intervals of its constants.
pub fn fit(m: &MachineSpec, j: &JobRecord) -> Result<(Fit, Vec<f64>), RunError> {
    fit_patterns(m, j, &PATTERNS)
}

/// [`fit`] over the access patterns `patterns` only, in their order of preference (`&[Random]`:
/// the ablation of the sequential pattern, `characterise --access random`; [`WITH_NONE`]: the
/// model with no traffic first, `--access all`).
pub fn fit_patterns(m: &MachineSpec, j: &JobRecord, patterns: &[Pattern]) -> Result<(Fit, Vec<f64>), RunError> {
    let runs: Vec<(bool, &CoRun)> =
        j.pirates.iter().map(|r| (true, r)).chain(j.bandits.iter().map(|r| (false, r))).collect();
    if runs.is_empty() {
        return Err(RunError::option(format!("{}: no co-runs to fit", j.name)));
    }
    let grid: Vec<Fit> = patterns.iter().flat_map(|&p| coarse(m, p)).collect();
    let mut scored = score(m, j, &runs, &grid);
    if least(&scored, |_| true).is_none() {
        return Err(RunError::Study(StudyError::NoGridModel {
            job: j.name.clone(),
            machine: m.name.clone(),
            first: scored.into_iter().find_map(Result::err).map(Box::new),
        }));
    }
    // Refine each pattern between its best point's neighbours: a continuous footprint, not a
    // grid size.
    for &p in patterns {
        refine(m, j, &runs, &mut scored, p);
    }
    let floor = noise_floor(j);
    let limit = region(least(&scored, |_| true).expect("the coarse grid had a model").1, runs.len(), floor);
    // No traffic where the nested test keeps it; else the first pattern (random, sequential)
    // whose best model lies inside the region: a sequential sweep only where the data exclude
    // random access.
    let traffic: Vec<Pattern> = patterns.iter().copied().filter(|&p| p != Pattern::None).collect();
    let none = least(&scored, |a| a == Pattern::None).filter(|n| {
        traffic.iter().filter_map(|&p| least(&scored, |a| a == p)).all(|t| no_traffic_kept(n.1, t.1, runs.len(), floor))
    });
    let (best, _, predicted) = none
        .or_else(|| traffic.iter().filter_map(|&p| least(&scored, |a| a == p)).find(|s| s.1 <= limit))
        .or_else(|| least(&scored, |a| a != Pattern::None))
        .or_else(|| least(&scored, |_| true))
        .cloned()
        .expect("the coarse grid had a model");
    let tried: Vec<&Fit> = scored.iter().flatten().map(|s| &s.0).collect();
    let inside: Vec<&Fit> = scored.iter().flatten().filter(|s| s.1 <= limit).map(|s| &s.0).collect();
    // Another pattern with traffic inside the region (none, where excluded, is not a candidate).
    let either =
        inside.iter().any(|f| f.access != best.access && (best.access == Pattern::None || f.access != Pattern::None));
    let fit = Fit {
        footprint_range: widened(&tried, &inside, best.access, |f| f.footprint_mb),
        apki_range: widened(&tried, &inside, best.access, |f| f.llc_apki),
        either,
        ..best
    };
    Ok((fit, predicted))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_f_quantile_is_fishers() {
        // Tables of F(2, ν; 0.95): 19.00 (ν = 2), 6.94 (ν = 4), 5.14 (ν = 6), 3.89 (ν = 12).
        for (nu, f) in [(2.0, 19.0), (4.0, 6.944), (6.0, 5.143), (12.0, 3.885)] {
            assert!((f2_quantile_95(nu) - f).abs() < 1e-3, "{nu}: {}", f2_quantile_95(nu));
        }
        // The region grows with the least error and the noise floor; two co-runs bound nothing.
        assert!(region(0.01, 6, 0.0) > 0.01 && region(0.02, 6, 0.0) > region(0.01, 6, 0.0));
        assert!(region(0.0, 6, 0.1) > region(0.0, 6, 0.01));
        assert!(region(0.01, 2, 0.0).is_infinite());
    }

    #[test]
    fn no_traffic_is_kept_within_chi2_of_the_noise() {
        // χ²(2; 0.95) = 5.991 (tables).
        assert!((chi2_2_quantile_95() - 5.991).abs() < 1e-3);
        // Six co-runs of mean squared log error 0.01: no traffic kept while the traffic models
        // lower the error by at most 0.0599.
        assert!(no_traffic_kept(0.10, 0.045, 6, 0.06));
        assert!(!no_traffic_kept(0.10, 0.035, 6, 0.06));
        // A misfit of the traffic models does not keep it: only the difference counts.
        assert!(!no_traffic_kept(1.10, 1.0, 6, 0.06));
    }

    #[test]
    fn the_floor_is_the_runs_standard_errors_where_they_are_kept() {
        let e = std::f64::consts::E;
        let co = |runs: Vec<f64>| CoRun { size: 1.0, slowdown: 1.0, covered: true, runs, progress: vec![] };
        let mut j = JobRecord {
            name: "j".into(),
            cmd: vec![],
            solo_s: 1.0,
            solo_spread: 0.21,
            pirates: vec![co(vec![1.0, e, e * e]), co(vec![1.0, e, e * e])],
            bandits: vec![],
            solo_runs: vec![1.0, e],
            solo_progress: vec![],
            presence: None,
        };
        // Each co-run's squared log standard error is 1/3 + 1/4 (characterised.rs's closed form).
        assert!((noise_floor(&j) - 2.0 * (1.0 / 3.0 + 0.25)).abs() < 1e-12);
        // Without the runs: two co-runs × (ln 1.21 / 2)² = 2 × (ln 1.1)².
        j.solo_runs.clear();
        assert!((noise_floor(&j) - 2.0 * 1.1f64.ln().powi(2)).abs() < 1e-12);
    }

    #[test]
    fn refinement_spans_the_neighbours() {
        let v = between(1.0, 4.0);
        assert_eq!(v.len(), REFINE);
        assert!((v[0] - 1.0).abs() < 1e-12 && (v[REFINE - 1] - 4.0).abs() < 1e-12);
        assert_eq!(around(&APKI, 0), (0.1, 0.2));
        assert_eq!(around(&APKI, APKI.len() - 1), (200.0, 500.0));
        assert_eq!((sig3(0.123456), sig3(123.456), sig3(2.0)), (0.123, 123.0, 2.0));
    }
}
