//! Small statistics helpers: percentiles and Student-t confidence intervals.

use serde::Serialize;

/// The `p`-th percentile (0..=100) of `xs` by linear interpolation between
/// closest ranks; `None` for an empty slice. Sorts a copy.
pub fn percentile(xs: &[f64], p: f64) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let r = (p / 100.0).clamp(0.0, 1.0) * (v.len() - 1) as f64;
    let (lo, hi) = (r.floor() as usize, r.ceil() as usize);
    Some(v[lo] + (v[hi] - v[lo]) * (r - lo as f64))
}

/// Two-sided 95% Student-t quantile for `df` degrees of freedom.
pub fn t95(df: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
        2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::NAN,
        1..=30 => T[df - 1],
        31..=60 => 2.000,
        61..=120 => 1.980,
        _ => 1.960,
    }
}

crate::metric_fields! {
    /// Mean with a 95% t-interval.
    #[derive(Clone, Copy, Debug, PartialEq, Serialize)]
    pub struct MeanCi {
        /// Sample mean.
        pub mean: f64,
        /// Lower end of the 95% interval (equal to the mean for one sample).
        pub lo: f64,
        /// Upper end of the 95% interval.
        pub hi: f64,
        /// Number of samples.
        pub n: usize,
    }
}

/// Mean and unbiased sample variance of `xs`; `None` for fewer than two values.
pub fn mean_var(xs: &[f64]) -> Option<(f64, f64)> {
    let n = xs.len();
    if n < 2 {
        return None;
    }
    let mean = xs.iter().sum::<f64>() / n as f64;
    Some((mean, xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64))
}

/// The median of `v` (the mean of the middle two for an even count).
pub fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n == 0 {
        f64::NAN
    } else if n % 2 == 1 {
        s[n / 2]
    } else {
        0.5 * (s[n / 2 - 1] + s[n / 2])
    }
}

/// Mean and 95% confidence interval of `xs` (empty → NaN mean).
pub fn mean_ci(xs: &[f64]) -> MeanCi {
    let n = xs.len();
    let Some((mean, var)) = mean_var(xs) else {
        let mean = xs.iter().sum::<f64>() / n as f64;
        return MeanCi { mean, lo: mean, hi: mean, n };
    };
    let h = t95(n - 1) * (var / n as f64).sqrt();
    MeanCi { mean, lo: mean - h, hi: mean + h, n }
}

/// Seeds needed to resolve the mean of `xs` from zero: the smallest n at which a 95% t-interval of half-width
/// `t95(n-1)·s/√n`, with the observed standard deviation `s`, would exclude 0
/// around the observed mean. A planning figure, not a guarantee: it assumes
/// mean and spread stay as observed. `None` when the mean is 0, fewer than two
/// values are given, or more than `cap` seeds would be needed.
pub fn seeds_to_resolve(xs: &[f64], cap: usize) -> Option<usize> {
    let (mean, var) = mean_var(xs)?;
    let sd = var.sqrt();
    if mean == 0.0 || !mean.is_finite() || !sd.is_finite() {
        return None;
    }
    (2..=cap.max(2)).find(|&k| t95(k - 1) * sd / (k as f64).sqrt() < mean.abs())
}

/// Geometric mean of positive values.
pub fn geomean(xs: &[f64]) -> f64 {
    (xs.iter().map(|x| x.ln()).sum::<f64>() / xs.len() as f64).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_of_odd_and_even_counts() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&[]).is_nan());
    }

    #[test]
    fn mean_var_is_the_unbiased_sample_variance() {
        assert_eq!(mean_var(&[1.0, 2.0, 3.0, 4.0]), Some((2.5, 5.0 / 3.0)));
        assert_eq!(mean_var(&[7.0]), None);
    }

    #[test]
    fn percentiles_interpolate() {
        let xs = [4.0, 1.0, 3.0, 2.0];
        assert_eq!(percentile(&xs, 0.0), Some(1.0));
        assert_eq!(percentile(&xs, 100.0), Some(4.0));
        assert!((percentile(&xs, 50.0).unwrap() - 2.5).abs() < 1e-12);
        assert_eq!(percentile(&[], 50.0), None);
    }

    #[test]
    fn interval_matches_hand_computation() {
        // mean 2, sd 1, n 3: half-width = 4.303 * 1/sqrt(3)
        let m = mean_ci(&[1.0, 2.0, 3.0]);
        assert!((m.mean - 2.0).abs() < 1e-12);
        assert!((m.hi - 2.0 - 4.303 / 3f64.sqrt()).abs() < 1e-9);
        assert!((geomean(&[1.0, 4.0]) - 2.0).abs() < 1e-12);
    }

    #[test]
    fn seeds_to_resolve_is_the_first_n_whose_interval_excludes_zero() {
        // mean 1, sd 1 (0, 1, 2): n = 7 gives 2.447/sqrt(7) = 0.925 < 1; n = 6 gives 2.571/sqrt(6) = 1.05.
        assert_eq!(seeds_to_resolve(&[0.0, 1.0, 2.0], 1000), Some(7));
        // Brute force over the definition for a spread of cases.
        for (m, s) in [(0.2, 0.3), (-0.1, 1.0), (3.0, 0.1)] {
            let xs = [m - s, m, m + s];
            let n = seeds_to_resolve(&xs, 100_000).unwrap();
            let h = |k: usize| t95(k - 1) * s / (k as f64).sqrt();
            assert!(h(n) < f64::abs(m) && (n == 2 || h(n - 1) >= f64::abs(m)), "{m} {s} {n}");
        }
        assert_eq!(seeds_to_resolve(&[-1.0, 0.0, 1.0], 1000), None);
        assert_eq!(seeds_to_resolve(&[1.0], 1000), None);
        assert_eq!(seeds_to_resolve(&[0.0, 0.001, 100.0], 10), None);
    }
}
