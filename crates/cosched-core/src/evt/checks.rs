//! Prerequisite checks of the POT method (§3.4): independence of the sample
//! in measurement order and continuity (few ties).

use crate::dist::erfc;
use serde::Serialize;

/// Results of the checks, with p-values.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Checks {
    /// Wald-Wolfowitz runs test above/below the median: z score.
    pub runs_z: f64,
    /// Its two-sided p-value (small: not independent).
    pub runs_p: f64,
    /// Ljung-Box statistic over `lags` autocorrelations.
    pub ljung_box_q: f64,
    /// Lags used.
    pub lags: usize,
    /// Its p-value (χ² with `lags` degrees of freedom).
    pub ljung_box_p: f64,
    /// Share of values equal to another value (continuity: should be ~0).
    pub tie_share: f64,
}

/// Below this p-value the runs test or Ljung-Box rejects independence. Strict
/// on purpose: the warning is for evident dependence (a sorted or trending
/// sample gives p ≈ 0), not for the 1-in-100 small p-value independent draws
/// give (our statistical-study rerun saw Ljung-Box p = 0.005 on one of 50
/// independent samples, docs/evt.md): two tests at 0.001 false-alarm ~0.2%.
pub const DEPENDENCE_P: f64 = 0.001;

impl Checks {
    /// The warning to give when the sample is not independent (§4.4: POT
    /// assumes i.i.d. measurements), else `None`.
    pub fn dependence_warning(&self) -> Option<String> {
        (self.runs_p < DEPENDENCE_P || self.ljung_box_p < DEPENDENCE_P).then(|| {
            format!(
                "the sample is not independent (runs test p = {:.4}, Ljung-Box p = {:.4}, both should be ≥ {DEPENDENCE_P}): \
                 POT assumes independent measurements, so its bound is not to be trusted; measure the assignments \
                 in random order, or thin the sample",
                self.runs_p, self.ljung_box_p
            )
        })
    }
}

/// Regularised upper incomplete gamma Q(a, x) (series / continued fraction).
pub fn gamma_q(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    let gln = ln_gamma(a);
    if x < a + 1.0 {
        let (mut sum, mut del, mut ap) = (1.0 / a, 1.0 / a, a);
        for _ in 0..500 {
            ap += 1.0;
            del *= x / ap;
            sum += del;
            if del.abs() < sum.abs() * 1e-15 {
                break;
            }
        }
        1.0 - sum * (-x + a * x.ln() - gln).exp()
    } else {
        let (mut b, mut c, mut d) = (x + 1.0 - a, 1.0 / 1e-300, 1.0 / (x + 1.0 - a));
        let mut h = d;
        for i in 1..500 {
            let an = -(i as f64) * (i as f64 - a);
            b += 2.0;
            d = an * d + b;
            if d.abs() < 1e-300 {
                d = 1e-300;
            }
            c = b + an / c;
            if c.abs() < 1e-300 {
                c = 1e-300;
            }
            d = 1.0 / d;
            let del = d * c;
            h *= del;
            if (del - 1.0).abs() < 1e-15 {
                break;
            }
        }
        (-x + a * x.ln() - gln).exp() * h
    }
}

/// ln Γ(x) (Lanczos).
#[allow(clippy::excessive_precision)] // published coefficients, kept as printed
pub fn ln_gamma(x: f64) -> f64 {
    let c = [
        76.18009172947146,
        -86.50532032941677,
        24.01409824083091,
        -1.231739572450155,
        0.1208650973866179e-2,
        -0.5395239384953e-5,
    ];
    let mut y = x;
    let tmp = x + 5.5 - (x + 0.5) * (x + 5.5).ln();
    let mut ser = 1.000000000190015;
    for v in c {
        y += 1.0;
        ser += v / y;
    }
    -tmp + (2.5066282746310005 * ser / x).ln()
}

/// Run the checks on measurements in the order they were taken.
pub fn check(xs: &[f64], lags: usize) -> Checks {
    let n = xs.len();
    let mut sorted = xs.to_vec();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[n / 2];
    let signs: Vec<bool> = xs.iter().filter(|&&x| x != median).map(|&x| x > median).collect();
    let (n1, n2) = (signs.iter().filter(|&&s| s).count() as f64, signs.iter().filter(|&&s| !s).count() as f64);
    let runs = 1 + signs.windows(2).filter(|w| w[0] != w[1]).count();
    let mu = 2.0 * n1 * n2 / (n1 + n2) + 1.0;
    let var = 2.0 * n1 * n2 * (2.0 * n1 * n2 - n1 - n2) / ((n1 + n2).powi(2) * (n1 + n2 - 1.0));
    let runs_z = if var > 0.0 { (runs as f64 - mu) / var.sqrt() } else { 0.0 };
    let runs_p = erfc(runs_z.abs() / std::f64::consts::SQRT_2);
    let mean = xs.iter().sum::<f64>() / n as f64;
    let c0: f64 = xs.iter().map(|x| (x - mean).powi(2)).sum();
    let lags = lags.min(n.saturating_sub(2)).max(1);
    let mut q = 0.0;
    for k in 1..=lags {
        let ck: f64 = (k..n).map(|i| (xs[i] - mean) * (xs[i - k] - mean)).sum();
        let rk = if c0 > 0.0 { ck / c0 } else { 0.0 };
        q += rk * rk / (n - k) as f64;
    }
    q *= n as f64 * (n as f64 + 2.0);
    let ties = sorted.windows(2).filter(|w| w[0] == w[1]).count();
    Checks {
        runs_z,
        runs_p,
        ljung_box_q: q,
        lags,
        ljung_box_p: gamma_q(lags as f64 / 2.0, q / 2.0),
        tie_share: ties as f64 / n as f64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn iid_samples_pass_and_trends_fail() {
        let mut r = ChaCha8Rng::seed_from_u64(3);
        let iid: Vec<f64> = (0..2000).map(|_| r.gen()).collect();
        let c = check(&iid, 20);
        assert!(c.runs_p > 0.01 && c.ljung_box_p > 0.01 && c.tie_share == 0.0, "{c:?}");
        let trend: Vec<f64> = (0..2000).map(|i| i as f64 + r.gen::<f64>()).collect();
        let c = check(&trend, 20);
        assert!(c.runs_p < 1e-6 && c.ljung_box_p < 1e-6, "{c:?}");
        // χ² sanity: Q(1, x) = e^-x; P(χ²₂ > 5.991) = 0.05.
        assert!((gamma_q(1.0, 2.0) - (-2f64).exp()).abs() < 1e-12);
        assert!((gamma_q(1.0, 5.991 / 2.0) - 0.05).abs() < 1e-3);
    }
}
