//! Threshold diagnostics as data, for plots (statistical thread assignment
//! §4.2: the mean-excess plot, the quantile plot and parameter stability),
//! each with its interval: the mean residual life with a normal interval,
//! ξ̂ at every candidate threshold with its profile-likelihood interval, the
//! modified scale σ* = σ − ξu, and the candidates' goodness-of-fit tests.

use super::gpd::profile_xi;
use super::pot::PotResult;
use super::threshold::{candidates, forward_stop, Candidate, FORWARD_STOP_ALPHA};
use crate::dist::chi2_1;
use serde::Serialize;

/// One point of the mean-residual-life (mean excess) plot.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MeanExcess {
    /// Threshold u.
    pub threshold: f64,
    /// mean(x − u | x > u).
    pub mean_excess: f64,
    /// Normal interval of the mean at the diagnostics' level.
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
    /// Values above u.
    pub exceedances: usize,
}

/// One candidate threshold in the parameter-stability plot.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Stability {
    /// The candidate and its test.
    #[serde(flatten)]
    pub candidate: Candidate,
    /// ξ̂'s profile-likelihood interval (NaN without a fit), χ²₁ cut: exact
    /// only asymptotically and for ξ > −0.5 (the shape's LR is not calibrated
    /// like the endpoint's); the lower end is −1 when the profile stays
    /// inside the cut down to the fit's limit.
    pub xi_lo: f64,
    /// Upper end.
    pub xi_hi: f64,
    /// Modified scale σ* = σ̂ − ξ̂u, constant above a valid threshold.
    pub sigma_star: f64,
}

/// All diagnostics of a sample.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Diagnostics {
    /// Confidence level of the intervals.
    pub confidence: f64,
    /// ForwardStop's level.
    pub alpha: f64,
    /// Index into `stability` of the automatic rule's choice.
    pub chosen: Option<usize>,
    /// The candidates, lowest threshold first.
    pub stability: Vec<Stability>,
    /// The mean-residual-life plot.
    pub mean_residual_life: Vec<MeanExcess>,
}

/// Diagnostics of `sorted` (ascending), the largest values of a sample of `total`.
pub fn diagnostics(sorted: &[f64], total: usize, confidence: f64) -> Diagnostics {
    let cands = candidates(sorted, total);
    let chosen = forward_stop(&cands, FORWARD_STOP_ALPHA);
    let cut = chi2_1(confidence) / 2.0;
    let stability = cands
        .into_iter()
        .map(|c| {
            let (lo, hi, star) = match &c.fit {
                Some(f) => {
                    let y: Vec<f64> = sorted.iter().filter(|&&x| x > c.threshold).map(|x| x - c.threshold).collect();
                    let (lo, hi) = xi_interval(&y, f.xi, f.loglik - cut);
                    (lo, hi, f.sigma - f.xi * c.threshold)
                }
                None => (f64::NAN, f64::NAN, f64::NAN),
            };
            Stability { candidate: c, xi_lo: lo, xi_hi: hi, sigma_star: star }
        })
        .collect();
    Diagnostics {
        confidence,
        alpha: FORWARD_STOP_ALPHA,
        chosen,
        stability,
        mean_residual_life: mean_excess(sorted, 25, confidence),
    }
}

/// `{ξ : ℓ_p(ξ) ≥ cut}` around ξ̂ by bisection on the shape's profile.
fn xi_interval(y: &[f64], xi_hat: f64, cut: f64) -> (f64, f64) {
    let g = |x: f64| profile_xi(y, x) - cut;
    let root = |mut inside: f64, mut outside: f64| {
        for _ in 0..40 {
            let m = 0.5 * (inside + outside);
            if g(m) >= 0.0 {
                inside = m;
            } else {
                outside = m;
            }
        }
        0.5 * (inside + outside)
    };
    let lo = if xi_hat <= -1.0 || g(-1.0) >= 0.0 { -1.0 } else { root(xi_hat, -1.0) };
    let mut top = xi_hat + 0.25;
    while g(top) >= 0.0 && top < xi_hat + 20.0 {
        top += 0.5;
    }
    (lo, root(xi_hat, top))
}

/// Mean excess e(u) = mean(x − u | x > u) at `points` thresholds from the
/// median to the 98th percentile of `sorted`, with a normal interval.
pub fn mean_excess(sorted: &[f64], points: usize, confidence: f64) -> Vec<MeanExcess> {
    let z = chi2_1(confidence).sqrt();
    (0..points)
        .filter_map(|i| {
            let q = 0.5 + 0.48 * i as f64 / points.max(2) as f64;
            let u = sorted[((sorted.len() - 1) as f64 * q) as usize];
            let y: Vec<f64> = sorted.iter().filter(|&&x| x > u).map(|x| x - u).collect();
            if y.len() < 2 {
                return None;
            }
            let n = y.len() as f64;
            let m = y.iter().sum::<f64>() / n;
            let sd = (y.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
            let h = z * sd / n.sqrt();
            Some(MeanExcess { threshold: u, mean_excess: m, lo: m - h, hi: m + h, exceedances: y.len() })
        })
        .collect()
}

/// Quantile plot of a POT result: (empirical exceedance, GPD quantile at the same plotting position).
pub fn quantile_plot(xs: &[f64], r: &PotResult) -> Vec<(f64, f64)> {
    let mut y: Vec<f64> = xs.iter().filter(|&&x| x > r.threshold).map(|x| x - r.threshold).collect();
    y.sort_by(f64::total_cmp);
    let n = y.len() as f64;
    let (xi, s) = (r.fit.xi, r.fit.sigma);
    y.iter()
        .enumerate()
        .map(|(i, &v)| {
            let p = (i as f64 + 0.5) / n;
            let q = if xi.abs() < 1e-12 { -s * (1.0 - p).ln() } else { s / xi * ((1.0 - p).powf(-xi) - 1.0) };
            (v, q)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// On GPD samples of known shape the shape's profile interval covers
    /// it about as often as promised, and every diagnostic has its interval.
    #[test]
    fn shape_intervals_cover_and_diagnostics_are_complete() {
        let mut r = ChaCha8Rng::seed_from_u64(21);
        let xi = -0.3;
        let mut hit = 0;
        for _ in 0..100 {
            let y: Vec<f64> = (0..300).map(|_| (r.gen_range(1e-12..1.0f64).powf(-xi) - 1.0) / xi).collect();
            let f = crate::evt::fit_gpd(&y).unwrap();
            let (lo, hi) = xi_interval(&y, f.xi, f.loglik - chi2_1(0.95) / 2.0);
            assert!(lo <= f.xi && f.xi <= hi, "{lo} {} {hi}", f.xi);
            hit += (lo <= xi && xi <= hi) as usize;
        }
        assert!(hit >= 88, "shape interval covered {hit}/100");
        let mut xs: Vec<f64> = (0..2000).map(|_| r.gen_range(0.0..10.0)).collect();
        xs.sort_by(f64::total_cmp);
        let d = diagnostics(&xs, xs.len(), 0.95);
        assert!(d.chosen.is_some() && d.stability.len() > 5 && d.mean_residual_life.len() > 20);
        for s in &d.stability {
            assert!(s.xi_lo <= s.candidate.fit.unwrap().xi && s.candidate.fit.unwrap().xi <= s.xi_hi, "{s:?}");
        }
        for m in &d.mean_residual_life {
            assert!(m.lo < m.mean_excess && m.mean_excess < m.hi);
        }
    }
}
