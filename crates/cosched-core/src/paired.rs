//! Paired comparisons over interleaved rounds: a candidate and a
//! baseline measured once in each round, so the host's drift between rounds
//! cancels in each round's ratio. The ratio of round i is
//! `baseline_i / candidate_i` (a speedup: > 1 when the candidate is faster);
//! the estimate is the geometric mean of the round ratios. Its interval is
//! the wider of two: the percentile bootstrap over rounds (rounds resampled
//! with replacement, the pairing kept) and the Student-t interval of the mean
//! log-ratio. The bootstrap alone under-covers with few rounds (it treats the
//! rounds seen as the population: two runs of the same policy on this VM
//! "differed" by 7.6% at 4 rounds); the t interval carries the small-sample
//! penalty, and for many rounds the two agree.

use crate::dist::normal_quantile;
use rand::Rng;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

/// What a paired interval says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The interval lies above 1 and the estimate beyond the smallest effect worth claiming.
    Faster,
    /// The interval lies below 1 and the estimate beyond the smallest effect.
    Slower,
    /// The interval holds 1, or the estimate lies within the smallest effect worth claiming.
    NoDifference,
}

crate::metric_fields! {
    /// A paired ratio with its bootstrap interval.
    #[derive(Clone, Debug, PartialEq, Serialize)]
    pub struct PairedRatio {
        /// Geometric mean of the round ratios `baseline_i / candidate_i`.
        pub ratio: f64,
        /// Lower end of the interval (the wider of the bootstrap and t intervals).
        pub lo: f64,
        /// Upper end.
        pub hi: f64,
        /// The percentile-bootstrap interval alone.
        pub bootstrap: (f64, f64),
        /// The Student-t interval of the mean log-ratio alone (the bootstrap's for one round).
        pub t: (f64, f64),
        /// Confidence level.
        pub confidence: f64,
        /// Rounds paired.
        pub rounds: usize,
        /// What the interval says (see [`Verdict`]).
        pub verdict: Verdict,
        /// With no difference: about how many rounds would separate the observed
        /// mean log-ratio from 0 at this spread (`(z·s/d)²`), or `None` when the
        /// observed difference is 0 (no number of rounds would).
        pub rounds_needed: Option<u64>,
    }
}

/// Rounds a paired comparison refuses.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PairedError {
    /// The two sides have different numbers of rounds.
    #[error("paired: {baseline} baseline rounds but {candidate} candidate rounds")]
    Lengths {
        /// Baseline rounds.
        baseline: usize,
        /// Candidate rounds.
        candidate: usize,
    },
    /// A round with a non-positive or non-finite side.
    #[error("paired: round {round}: values must be positive, got {baseline} and {candidate}")]
    NotPositive {
        /// The round.
        round: usize,
        /// Its baseline value.
        baseline: f64,
        /// Its candidate value.
        candidate: f64,
    },
    /// No rounds at all.
    #[error("paired: no rounds")]
    Empty,
    /// Confidence, resamples or minimum effect out of range.
    #[error("paired: confidence must be in (0, 1), resamples ≥ 1, min_effect ≥ 0")]
    Parameters,
}

/// Round ratios `baseline_i / candidate_i` (pairs with a non-positive or
/// non-finite side are refused).
pub fn round_ratios(baseline: &[f64], candidate: &[f64]) -> Result<Vec<f64>, PairedError> {
    if baseline.len() != candidate.len() {
        return Err(PairedError::Lengths { baseline: baseline.len(), candidate: candidate.len() });
    }
    baseline
        .iter()
        .zip(candidate)
        .enumerate()
        .map(|(i, (&b, &c))| {
            if b.is_finite() && c.is_finite() && b > 0.0 && c > 0.0 {
                Ok(b / c)
            } else {
                Err(PairedError::NotPositive { round: i, baseline: b, candidate: c })
            }
        })
        .collect()
}

/// The paired ratio of `candidate` against `baseline` (same rounds, same
/// order): geometric mean, percentile-bootstrap interval at `confidence`
/// from `resamples` seeded resamples of the rounds, and the verdict with
/// `min_effect` (e.g. 0.01: differences within ±1% are not claimed).
pub fn paired_ratio(
    baseline: &[f64],
    candidate: &[f64],
    confidence: f64,
    resamples: usize,
    min_effect: f64,
    seed: u64,
) -> Result<PairedRatio, PairedError> {
    let r = round_ratios(baseline, candidate)?;
    if r.is_empty() {
        return Err(PairedError::Empty);
    }
    if !(confidence > 0.0 && confidence < 1.0) || resamples == 0 || min_effect.is_nan() || min_effect < 0.0 {
        return Err(PairedError::Parameters);
    }
    let logs: Vec<f64> = r.iter().map(|x| x.ln()).collect();
    let n = logs.len();
    let mean = logs.iter().sum::<f64>() / n as f64;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut means: Vec<f64> =
        (0..resamples).map(|_| (0..n).map(|_| logs[rng.gen_range(0..n)]).sum::<f64>() / n as f64).collect();
    means.sort_by(f64::total_cmp);
    let q = |p: f64| means[((p * resamples as f64).floor() as usize).min(resamples - 1)];
    let alpha = 1.0 - confidence;
    let bootstrap = (q(alpha / 2.0).exp(), q(1.0 - alpha / 2.0).exp());
    let sd = if n > 1 { (logs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt() } else { 0.0 };
    let t = if n > 1 {
        let h = t_quantile(1.0 - alpha / 2.0, n - 1) * sd / (n as f64).sqrt();
        ((mean - h).exp(), (mean + h).exp())
    } else {
        bootstrap
    };
    let (lo, hi) = (bootstrap.0.min(t.0), bootstrap.1.max(t.1));
    let ratio = mean.exp();
    // One round has no spread to measure: its interval is the one ratio, which decides nothing.
    let verdict = if n < 2 {
        Verdict::NoDifference
    } else if lo > 1.0 && ratio > 1.0 + min_effect {
        Verdict::Faster
    } else if hi < 1.0 && ratio < 1.0 - min_effect {
        Verdict::Slower
    } else {
        Verdict::NoDifference
    };
    let rounds_needed = match verdict {
        Verdict::NoDifference => {
            let sd = if n > 1 {
                (logs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
            } else {
                0.0
            };
            rounds_to_separate(mean.abs(), sd, n, 1.0 - alpha / 2.0)
        }
        _ => None,
    };
    Ok(PairedRatio { ratio, lo, hi, bootstrap, t, confidence, rounds: n, verdict, rounds_needed })
}

/// The fewest rounds, more than the `n` measured, at which the interval this module reports
/// (Student's t at quantile `p`, `m - 1` degrees of freedom) around a mean log-ratio `gap` with
/// the measured spread `sd` would exclude 0: the figure a user is told to run for. The same t
/// as the interval it predicts (the normal quantile promised 3 rounds where t at 2 degrees of
/// freedom, 4.30, could not deliver them). `None` without a gap or a spread, or past 10⁷ rounds.
fn rounds_to_separate(gap: f64, sd: f64, n: usize, p: f64) -> Option<u64> {
    if !(gap > 0.0 && sd > 0.0 && gap.is_finite() && sd.is_finite()) {
        return None;
    }
    // The normal quantile's answer is a lower bound (t exceeds it at every df).
    let z = normal_quantile(p);
    let start = ((z * sd / gap).powi(2)).ceil().max(n as f64 + 1.0);
    if start > 1e7 {
        return None;
    }
    let start = start as u64;
    (start..=10_000_000).find(|&m| t_quantile(p, (m - 1) as usize) * sd / (m as f64).sqrt() < gap)
}

/// Student-t quantile with `df` degrees of freedom: exact table at 95%
/// two-sided ([`crate::stats::t95`]), else the Cornish-Fisher expansion
/// around the normal quantile (error < 1% for df ≥ 3).
pub fn t_quantile(p: f64, df: usize) -> f64 {
    if (p - 0.975).abs() < 1e-12 {
        return crate::stats::t95(df);
    }
    let z = normal_quantile(p);
    let d = df as f64;
    let (z3, z5) = (z.powi(3), z.powi(5));
    z + (z3 + z) / (4.0 * d) + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * d * d)
}

/// The order in which `n` policies run in each of `rounds` rounds: a seeded
/// random permutation per round (Fisher-Yates on a generator seeded by
/// `seed` and the round), so drift within a round does not land on the same
/// policy every time, and the same seed gives the same schedule.
pub fn round_orders(n: usize, rounds: usize, seed: u64) -> Vec<Vec<usize>> {
    (0..rounds)
        .map(|r| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed ^ (r as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let mut order: Vec<usize> = (0..n).collect();
            for i in (1..n).rev() {
                order.swap(i, rng.gen_range(0..=i));
            }
            order
        })
        .collect()
}

/// Host drift of each round: the geometric mean over jobs of the round's
/// solo time against the job's median solo time over all rounds, minus 1
/// (0.1: the host ran the jobs alone 10% slower than usual that round).
/// `solo[r][j]` is job j's solo time in round r.
pub fn round_drift(solo: &[Vec<f64>]) -> Vec<f64> {
    let jobs = solo.first().map_or(0, Vec::len);
    let medians: Vec<f64> = (0..jobs)
        .map(|j| crate::stats::percentile(&solo.iter().map(|r| r[j]).collect::<Vec<_>>(), 50.0).unwrap_or(f64::NAN))
        .collect();
    solo.iter()
        .map(|r| {
            let rel: Vec<f64> = r.iter().zip(&medians).map(|(x, m)| x / m).collect();
            crate::stats::geomean(&rel) - 1.0
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_constant_ratio_is_exact() {
        let p = paired_ratio(&[10.0, 12.0, 11.0], &[5.0, 6.0, 5.5], 0.95, 2000, 0.01, 1).unwrap();
        assert!((p.ratio - 2.0).abs() < 1e-12 && (p.lo - 2.0).abs() < 1e-12 && (p.hi - 2.0).abs() < 1e-12);
        assert_eq!(p.verdict, Verdict::Faster);
        assert_eq!(p.rounds_needed, None);
    }

    /// Worked by hand: round ratios 2 and 1/2. A bootstrap resample of two
    /// rounds is {2, 2} (p = 1/4, geometric mean 2), {1/2, 1/2} (1/4, 1/2)
    /// or mixed (1/2, mean 1); so the geometric mean is 1, the 2.5th
    /// percentile 1/2 and the 97.5th 2, and the verdict no difference. The
    /// log-ratios have mean 0: no number of rounds would separate them.
    #[test]
    fn one_round_decides_nothing() {
        // Twice as fast in the one round there is: no spread measured, so no verdict.
        let p = paired_ratio(&[10.0], &[5.0], 0.95, 2000, 0.01, 1).unwrap();
        assert_eq!((p.ratio, p.rounds, p.verdict), (2.0, 1, Verdict::NoDifference));
        assert_eq!(p.rounds_needed, None);
    }

    #[test]
    fn hand_computed_two_round_example() {
        let p = paired_ratio(&[2.0, 1.0], &[1.0, 2.0], 0.95, 20_000, 0.01, 7).unwrap();
        assert!((p.ratio - 1.0).abs() < 1e-12, "{p:?}");
        assert!((p.bootstrap.0 - 0.5).abs() < 1e-12 && (p.bootstrap.1 - 2.0).abs() < 1e-12, "{p:?}");
        // t: log-ratios ±ln 2, sd ln 2·√2, t(1) = 12.706: exp(±12.706 · ln 2) = 2^±12.706.
        assert!((p.t.1 - 2f64.powf(12.706)).abs() < 1e-6 * p.t.1 && (p.t.0 * p.t.1 - 1.0).abs() < 1e-9, "{p:?}");
        assert_eq!((p.lo, p.hi), (p.t.0, p.t.1));
        assert_eq!(p.verdict, Verdict::NoDifference);
        assert_eq!(p.rounds_needed, None);
    }

    #[test]
    fn a_small_noisy_difference_asks_for_more_rounds() {
        // Log-ratios 0.05 with sd √(0.04/3) = 0.11547: the rounds m at which t(m − 1) · sd / √m
        // first falls below 0.05. From the t table: m = 22 gives 2.080 · 0.11547 / 4.690 =
        // 0.0512 (not yet), m = 23 gives 2.074 · 0.11547 / 4.796 = 0.0499. The normal quantile
        // said 21, which the t interval printed beside it would not deliver.
        let b = [1.0, 1.0, 1.0, 1.0];
        let c: Vec<f64> = [0.15f64, -0.05, 0.15, -0.05].iter().map(|d| (-d).exp()).collect();
        let p = paired_ratio(&b, &c, 0.95, 4000, 0.01, 3).unwrap();
        assert_eq!(p.verdict, Verdict::NoDifference, "{p:?}");
        assert_eq!(p.rounds_needed, Some(23));
    }

    #[test]
    fn two_rounds_are_told_what_the_t_interval_needs() {
        // A gap of 0.88 sd: the normal quantile said 3 rounds; at 3 rounds t(2) = 4.303 gives a
        // half-width of 4.303 · sd / √3 = 2.48 sd, far above the gap. The t answer is where
        // t(m − 1) / √m < 0.88 first holds: t(7) = 2.365 / √8 = 0.836 (m = 8); t(6) / √7 = 0.925.
        assert_eq!(rounds_to_separate(0.88, 1.0, 2, 0.975), Some(8));
        assert_eq!(rounds_to_separate(0.0, 1.0, 2, 0.975), None);
        assert_eq!(rounds_to_separate(1.0, 0.0, 2, 0.975), None);
        assert_eq!(rounds_to_separate(1e-6, 1.0, 2, 0.975), None);
    }

    #[test]
    fn identical_measurements_are_no_difference() {
        let x = [3.1, 2.9, 3.3, 3.0, 3.2];
        let p = paired_ratio(&x, &x, 0.95, 1000, 0.01, 1).unwrap();
        assert_eq!((p.ratio, p.lo, p.hi, p.verdict), (1.0, 1.0, 1.0, Verdict::NoDifference));
    }

    #[test]
    fn bad_input_is_refused() {
        assert!(paired_ratio(&[1.0], &[1.0, 2.0], 0.95, 10, 0.0, 1).is_err());
        assert!(paired_ratio(&[1.0], &[0.0], 0.95, 10, 0.0, 1).is_err());
        assert!(paired_ratio(&[], &[], 0.95, 10, 0.0, 1).is_err());
        assert!(paired_ratio(&[1.0], &[1.0], 1.5, 10, 0.0, 1).is_err());
    }

    #[test]
    fn orders_are_seeded_permutations_that_vary_by_round() {
        let a = round_orders(4, 20, 9);
        assert_eq!(a, round_orders(4, 20, 9));
        assert_ne!(a, round_orders(4, 20, 10));
        for o in &a {
            let mut s = o.clone();
            s.sort();
            assert_eq!(s, vec![0, 1, 2, 3]);
        }
        assert!(a.iter().any(|o| o[0] != a[0][0]), "the first policy should change between rounds");
    }

    #[test]
    fn drift_is_relative_to_each_jobs_median() {
        let d = round_drift(&[vec![1.0, 2.0], vec![1.0, 2.0], vec![1.21, 2.0 * 1.21]]);
        assert!(d[0].abs() < 1e-12 && d[1].abs() < 1e-12 && (d[2] - 0.21).abs() < 1e-12, "{d:?}");
    }

    #[test]
    fn t_quantiles_match_tables() {
        assert!((t_quantile(0.95, 10) - 1.812461).abs() < 0.01);
        assert_eq!(t_quantile(0.975, 4), 2.776);
    }
}
