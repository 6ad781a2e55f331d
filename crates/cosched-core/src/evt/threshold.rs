//! Automatic choice of the POT threshold (statistical thread assignment
//! §4.2 leaves it to the analyst's plots): sequential Anderson-Darling
//! goodness-of-fit tests at candidate thresholds with the ForwardStop rule
//! (G'Sell, Wager, Chouldechova & Tibshirani 2016), as Bader, Yan & Zhang
//! (2018) propose for the GPD and R's `eva` implements.
//!
//! Candidates run from the lowest threshold (the most exceedances) to the
//! highest. H_i says the exceedances over candidate i are GPD; the H_i are
//! nested (if the tail is GPD above u_i it is above every higher u). With
//! p-values p_1..p_m in that order, ForwardStop rejects H_1..H_k̂ with
//! `k̂ = max{k : (1/k) Σ_{i≤k} −ln(1 − p_i) ≤ α}` (k̂ = 0 when no k
//! qualifies), controlling the false discovery rate of the rejections at α,
//! and the threshold is the first candidate not rejected, u_{k̂+1}. When
//! every candidate is rejected the best-fitting one is used and flagged.
//!
//! Candidates keep `k = 0.1·total·0.8^i` exceedances (i = 0, 1, … while
//! k ≥ [`MIN_EXCEEDANCES`]): the 90th percentile down to ~30 exceedances,
//! geometrically spaced so the fits' total cost stays ~5× the largest. The
//! coverage study measured lowest candidates at the 70th, 80th, 85th and
//! 90th percentiles: lower ones let ForwardStop keep tails the test cannot
//! tell from GPD but whose bias makes the interval miss (77% coverage on
//! beta(2, 2) at n = 5,000 from the 70th), so the 90th it is.
//! For SP-POT (§5) `total` is the sample size before pruning, so a
//! candidate keeps the same part of the population's distribution.

use super::ad::{ad_p_value, anderson_darling};
use super::gpd::{fit_gpd, GpdFit};
use serde::Serialize;

/// Minimum exceedances for a fit.
pub const MIN_EXCEEDANCES: usize = 30;

/// ForwardStop's false-discovery level α. Bader et al. (2018) study 0.05
/// and 0.10; our coverage study (`scripts/bench-evt-coverage`,
/// `docs/evt.md`) measured 0.05-0.50: 0.10 covered best.
pub const FORWARD_STOP_ALPHA: f64 = 0.10;

/// Share of the sample above the lowest candidate threshold.
pub const TOP_SHARE: f64 = 0.1;
/// Ratio of exceedance counts of neighbouring candidates.
const RATIO: f64 = 0.8;

/// One candidate threshold and its goodness-of-fit test.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Candidate {
    /// Share of the (unpruned) sample at or below the threshold.
    pub quantile: f64,
    /// The threshold u.
    pub threshold: f64,
    /// Values strictly above u.
    pub exceedances: usize,
    /// The GPD fit of the exceedances (None: too few, or no convergence).
    pub fit: Option<GpdFit>,
    /// Anderson-Darling statistic A² (NaN without a fit).
    pub ad: f64,
    /// Its p-value (0 without a fit: a candidate that cannot be fitted is rejected).
    pub p_value: f64,
    /// ForwardStop's running mean of −ln(1 − p) up to this candidate.
    pub forward_stop: f64,
}

/// Exceedance counts of the candidates for a sample of `total` of which `available` are held.
fn counts(total: usize, available: usize, top_share: f64) -> Vec<usize> {
    let mut out: Vec<usize> = vec![];
    let mut k = top_share * total as f64;
    while k.round() as usize >= MIN_EXCEEDANCES {
        let c = k.round() as usize;
        if c < available && out.last() != Some(&c) {
            out.push(c);
        }
        k *= RATIO;
    }
    out
}

/// The candidates of a sorted sample (ascending) holding the largest values
/// of a sample of `total` (`total == sorted.len()` unless pruned), each
/// fitted and tested, with ForwardStop's statistic.
pub fn candidates(sorted: &[f64], total: usize) -> Vec<Candidate> {
    candidates_above(sorted, total, TOP_SHARE)
}

/// As [`candidates`], the lowest keeping `top_share` of the sample above it.
pub fn candidates_above(sorted: &[f64], total: usize, top_share: f64) -> Vec<Candidate> {
    let mut sum = 0.0;
    counts(total, sorted.len(), top_share)
        .into_iter()
        .enumerate()
        .map(|(i, k)| {
            let u = sorted[sorted.len() - k - 1];
            let y: Vec<f64> = sorted[sorted.len() - k..].iter().filter(|&&x| x > u).map(|x| x - u).collect();
            let fit = if y.len() >= MIN_EXCEEDANCES { fit_gpd(&y) } else { None };
            let (ad, p) = fit.as_ref().map_or((f64::NAN, 0.0), |f| {
                let a2 = anderson_darling(&y, f);
                (a2, ad_p_value(a2, f.xi))
            });
            sum += -(1.0 - p.min(0.999)).ln();
            Candidate {
                quantile: 1.0 - k as f64 / total as f64,
                threshold: u,
                exceedances: y.len(),
                fit,
                ad,
                p_value: p,
                forward_stop: sum / (i + 1) as f64,
            }
        })
        .collect()
}

/// ForwardStop's choice among `cands` at level `alpha`: the index of the
/// first candidate not rejected. When every candidate is rejected (the GPD
/// fits nowhere, as on plateaus without noise: the simulated T2's
/// ipfwd-mem) the test prefers none, and p-values at the table's floor
/// cannot rank them, so the lowest fitted candidate (the most data, the
/// steadiest fit) is used and the result flagged — see [`all_rejected`].
/// None when no candidate has a fit.
pub fn forward_stop(cands: &[Candidate], alpha: f64) -> Option<usize> {
    let rejected = cands.iter().rposition(|c| c.forward_stop <= alpha).map_or(0, |k| k + 1);
    let fitted = |i: &usize| cands[*i].fit.is_some();
    (rejected..cands.len()).find(fitted).or_else(|| (0..cands.len()).find(fitted))
}

/// Whether ForwardStop rejected every candidate (the choice is then the
/// best fit available, not one the test accepts: results say so).
pub fn all_rejected(cands: &[Candidate], alpha: f64) -> bool {
    !cands.is_empty() && cands.last().is_some_and(|c| c.forward_stop <= alpha)
}

/// One line per candidate saying what happened there (for errors).
pub fn describe(cands: &[Candidate], total: usize) -> Vec<String> {
    if cands.is_empty() {
        let k = (TOP_SHARE * total as f64).round() as usize;
        return vec![format!(
            "the lowest candidate (q{:.2}) keeps {k} exceedances of {total}, at least {MIN_EXCEEDANCES} needed",
            1.0 - TOP_SHARE
        )];
    }
    cands
        .iter()
        .map(|c| match &c.fit {
            Some(f) => format!(
                "q{:.3} (u = {}): ξ̂ = {:.3}, Anderson-Darling goodness-of-fit p = {:.3}",
                c.quantile,
                crate::num::significant(c.threshold, 6),
                f.xi,
                c.p_value
            ),
            None if c.exceedances < MIN_EXCEEDANCES => format!(
                "q{:.3}: only {} values above u = {}, at least {MIN_EXCEEDANCES} needed",
                c.quantile,
                c.exceedances,
                crate::num::significant(c.threshold, 6)
            ),
            None => format!("q{:.3}: the GPD fit of {} exceedances did not converge", c.quantile, c.exceedances),
        })
        .collect()
}

/// The earlier threshold rule, kept for the coverage comparison in
/// `scripts/bench-evt-coverage`: the lowest candidate whose ξ̂ every higher
/// candidate stays within 0.1 of (it under-covered; see `docs/evt.md`).
pub fn stability_rule(cands: &[Candidate]) -> Option<usize> {
    let fitted: Vec<(usize, f64)> = cands.iter().enumerate().filter_map(|(i, c)| Some((i, c.fit?.xi))).collect();
    (0..fitted.len()).find(|&i| fitted[i + 1..].iter().all(|s| (s.1 - fitted[i].1).abs() <= 0.1)).map(|i| fitted[i].0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn candidates_run_from_the_90th_percentile_to_about_30_exceedances() {
        assert_eq!(counts(1000, 1000, 0.3), vec![300, 240, 192, 154, 123, 98, 79, 63, 50, 40, 32]);
        assert_eq!(counts(1000, 1000, TOP_SHARE), vec![100, 80, 64, 51, 41, 33]);
        // Pruned: only counts below what is held.
        assert_eq!(counts(1000, 90, TOP_SHARE), vec![80, 64, 51, 41, 33]);
        assert!(counts(290, 290, TOP_SHARE).is_empty());
    }

    /// An exact GPD tail from the lowest candidate: ForwardStop rejects
    /// nothing and keeps the most exceedances. A mixture whose lower part is
    /// not GPD: the low candidates are rejected and a higher one is chosen.
    #[test]
    fn forward_stop_keeps_a_good_low_threshold_and_leaves_a_bad_one() {
        let mut r = ChaCha8Rng::seed_from_u64(8);
        let mut uni: Vec<f64> = (0..3000).map(|_| r.gen_range(0.0..10.0)).collect();
        uni.sort_by(f64::total_cmp);
        let c = candidates(&uni, uni.len());
        assert_eq!(forward_stop(&c, FORWARD_STOP_ALPHA), Some(0), "{c:?}");
        // Body: a clump at 0..1 (93%), tail: a reversed-Weibull-like ramp to 10
        // starting at 5 — the body leaks into the lowest candidate's exceedances.
        let mut mix: Vec<f64> = (0..3000)
            .map(|i| if i % 100 < 93 { r.gen_range(0.0..1.0) } else { 10.0 - 5.0 * r.gen::<f64>().powf(0.4) })
            .collect();
        mix.sort_by(f64::total_cmp);
        let c = candidates(&mix, mix.len());
        let i = forward_stop(&c, FORWARD_STOP_ALPHA).unwrap();
        assert!(c[0].p_value < 0.01 && i > 0 && c[i].threshold > 1.0, "chose {i}: {c:?}");
    }
}
