//! The simulator's check against reality (`cosched calibrate --check MIX`):
//! the mix runs for real in interleaved rounds
//! (`crate::rounds`: solo runs each round, then every policy in a seeded
//! random order) and simulated on the calibrated preset from its model
//! (`crate::mix_model`: characterised programs, `cosched-bench` models); this
//! module sets each job's predicted slowdown beside its measured mean and
//! 95% interval over the rounds, each policy's predicted makespan beside the
//! measured one, and judges the targets: median absolute error of
//! the predicted slowdowns at most [`TARGET_MEDIAN`], none beyond
//! [`TARGET_WORST`], and the predicted best policy within the measured
//! interval of the measured best. Each prediction carries the host's
//! run-to-run spread ([`noise_band`]), and the check
//! reports how many measured means fall inside it.

use crate::rounds::{Interleaved, Stopped, RESAMPLES};
use crate::ties::{ties, Ties};
use crate::time_sharing::TimeSharing;
use cosched_core::paired::{paired_ratio, Verdict};
use cosched_core::stats::{mean_ci, t95, MeanCi};
use cosched_lab::mix_model::Predicted;
use serde::Serialize;

/// The median absolute relative error of the predicted co-run slowdowns.
pub const TARGET_MEDIAN: f64 = 0.15;
/// No job's predicted slowdown off by more than this.
pub const TARGET_WORST: f64 = 0.30;

cosched_core::metric_fields! {
    /// One job under one policy.
    #[derive(Clone, Debug, Serialize)]
    pub struct JobCheck {
        /// Policy entry.
        pub policy: String,
        /// Mix job.
        pub job: String,
        /// Measured slowdown (each round against that round's solo time): mean and 95% interval over rounds.
        pub measured: MeanCi,
        /// Predicted slowdown.
        pub predicted: f64,
        /// predicted / measured mean − 1.
        pub error: f64,
        /// The measured slowdown of each round, in round order.
        pub rounds: Vec<f64>,
        /// Half-width of the measured 95% interval over its mean: the finest relative error the rounds resolve.
        pub resolution: f64,
        /// Whether the prediction lies inside the measured 95% interval.
        pub inside: bool,
        /// The error in units of the measurement's own spread: (predicted − measured mean) over the
        /// standard error of the mean (|x| ≤ t₉₅ is inside); none with fewer than two
        /// rounds or rounds that all agree.
        pub error_se: Option<f64>,
        /// The prediction's host-noise band ([`noise_band`]); none with fewer than two rounds.
        pub band: Option<[f64; 2]>,
        /// Whether the measured mean lies inside `band`.
        pub in_band: bool,
        /// The pooled measured slowdown: the rounds' co-run time over their
        /// solo time (not a mean of per-round ratios, which a solo time that
        /// moves from round to round inflates); none if a round lacks either.
        pub pooled: Option<f64>,
        /// The prediction with the host's other tenants taken out
        /// (`cache.tenant_lines_per_s = 0`: the ablation); none when the preset has none.
        pub predicted_without_tenants: Option<f64>,
        /// Its CPU time, switches and migrations, measured and simulated; none in a
        /// replay or when a round lacks them.
        pub time_sharing: Option<TimeSharing>,
    }
}

/// The band around a prediction `p` that the host's run-to-run spread alone
/// would move a measured mean over `solo_s.len()` rounds: `p·(1 ± k)`,
/// `k = t95(R−1)·√2·σ/√R`, σ the relative standard deviation of the job's
/// solo turnarounds over the rounds (each round's slowdown is a co-run time
/// over a solo time, each carrying σ). A model exact up to host noise has
/// about 95% of measured means inside it. None with fewer than two rounds.
pub fn noise_band(p: f64, solo_s: &[f64]) -> Option<[f64; 2]> {
    let r = solo_s.len();
    if r < 2 {
        return None;
    }
    let m = solo_s.iter().sum::<f64>() / r as f64;
    let var = solo_s.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (r - 1) as f64;
    let k = t95(r - 1) * std::f64::consts::SQRT_2 * (var.sqrt() / m) / (r as f64).sqrt();
    Some([p * (1.0 - k).max(0.0), p * (1.0 + k)])
}

impl JobCheck {
    /// Why a cell beyond [`TARGET_WORST`] is there, measured: either the
    /// prediction lies outside the measured interval (a model error), or the
    /// interval itself is wider than the target (the host's run-to-run spread
    /// over the rounds does not resolve it).
    pub fn reason(&self) -> String {
        if self.inside {
            format!(
                "inside the measured interval, whose half-width is {:.0}% of the mean over {} rounds: the host's spread does not resolve the target",
                100.0 * self.resolution,
                self.measured.n
            )
        } else {
            format!("outside the measured interval (half-width {:.0}%): a model error", 100.0 * self.resolution)
        }
    }
}

cosched_core::metric_fields! {
    /// One policy.
    #[derive(Clone, Debug, Serialize)]
    pub struct PolicyCheck {
        /// Policy entry.
        pub policy: String,
        /// Measured makespan, s: mean and 95% interval over rounds.
        pub measured_makespan_s: MeanCi,
        /// Predicted makespan, s.
        pub predicted_makespan_s: f64,
    }
}

cosched_core::metric_fields! {
    /// The whole check.
    #[derive(Clone, Debug, Serialize)]
    pub struct Check {
        /// Every modelled job under every policy.
        pub jobs: Vec<JobCheck>,
        /// Every policy, in entry order.
        pub policies: Vec<PolicyCheck>,
        /// Median of |error| over `jobs`.
        pub median_abs_error: f64,
        /// Largest |error|.
        pub worst_abs_error: f64,
        /// Median |error| of the predictions without the host's tenants (the ablation), if the preset has them.
        pub median_abs_error_without_tenants: Option<f64>,
        /// Largest |error| without the host's tenants.
        pub worst_abs_error_without_tenants: Option<f64>,
        /// Median |error| against the pooled measured slowdowns.
        pub median_abs_error_pooled: Option<f64>,
        /// Largest |error| against the pooled measured slowdowns.
        pub worst_abs_error_pooled: Option<f64>,
        /// Jobs beyond [`TARGET_WORST`].
        pub beyond_worst: usize,
        /// Of those, the ones whose prediction lies inside the measured interval.
        pub beyond_inside: usize,
        /// Cells whose measured mean lies inside the prediction's host-noise band.
        pub in_band: usize,
        /// Cells that have a band.
        pub banded: usize,
        /// Each round's solo turnaround of every mix job (mix order), s.
        pub solo_s: Vec<Vec<f64>>,
        /// The policy of least measured mean makespan.
        pub measured_best: String,
        /// The policy of least predicted makespan.
        pub predicted_best: String,
        /// Whether the predicted best is the measured best or no different from it (paired interval over the rounds).
        pub best_within_interval: bool,
        /// The paired comparison behind `best_within_interval`, in words.
        pub best_words: String,
        /// What the verdict could tell: the policies tied with the measured best, and whether the
        /// prediction's pick was a predicted tie ([`crate::ties`], design note 70).
        pub ties: Ties,
        /// How the rounds ended, when they ran until every interval was narrow.
        pub stopped: Option<Stopped>,
        /// The goal they ran until: every interval's half-width within this % of its mean.
        pub within_pct: Option<f64>,
        /// Jobs whose solo turnaround moved more than [`MOVED`] across the rounds: the host
        /// changed under the check (its LLC share, its other tenants), and their cells with it.
        pub moved: Vec<MovedJob>,
    }
}

/// A solo turnaround that moves more than this across a check's rounds
/// (slowest over fastest − 1) marks its job's cells as measured on a moving host.
pub const MOVED: f64 = 0.10;

cosched_core::metric_fields! {
    /// A job measured on a host that moved during the check.
    #[derive(Clone, Debug, Serialize)]
    pub struct MovedJob {
        /// The job.
        pub job: String,
        /// Its slowest solo turnaround over its fastest, minus 1, across the rounds.
        pub solo_spread: f64,
        /// The cells it affects: `policy/job`.
        pub cells: Vec<String>,
    }
}

/// The jobs of `mix_jobs` whose solo times (`solo[r][j]`) moved more than [`MOVED`], with their cells.
pub fn moved_jobs(solo: &[Vec<f64>], mix_jobs: &[String], cells: &[JobCheck]) -> Vec<MovedJob> {
    mix_jobs
        .iter()
        .enumerate()
        .filter_map(|(j, name)| {
            let v: Vec<f64> = solo.iter().filter_map(|r| r.get(j).copied()).collect();
            let (lo, hi) = v.iter().fold((f64::INFINITY, 0.0f64), |(a, b), &x| (a.min(x), b.max(x)));
            let spread = hi / lo - 1.0;
            (v.len() >= 2 && lo > 0.0 && spread > MOVED).then(|| MovedJob {
                job: name.clone(),
                solo_spread: spread,
                cells: cells.iter().filter(|c| &c.job == name).map(|c| format!("{}/{}", c.policy, c.job)).collect(),
            })
        })
        .collect()
}

impl Check {
    /// Whether the three targets hold.
    pub fn targets_met(&self) -> bool {
        self.median_abs_error <= TARGET_MEDIAN && self.beyond_worst == 0 && self.best_within_interval
    }
}

/// The median (0 for none): the check's summary of |error|s and of solo times.
pub fn median(v: Vec<f64>) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        cosched_core::stats::median(&v)
    }
}

fn argmin(xs: impl Iterator<Item = f64>) -> usize {
    xs.enumerate().fold((0, f64::INFINITY), |b, (i, x)| if x < b.1 { (i, x) } else { b }).0
}

/// The standard error of a mean from its 95% t-interval (none below two rounds or at zero width).
fn standard_error(m: &MeanCi) -> Option<f64> {
    let se = (m.hi - m.mean) / t95(m.n.checked_sub(1).filter(|&d| d > 0)?);
    (se > 0.0 && se.is_finite()).then_some(se)
}

/// One job's cell: its measured slowdowns over the rounds beside the
/// prediction, and its solo turnarounds over the same rounds.
pub fn cell(policy: &str, job: &str, rounds: Vec<f64>, predicted: f64, solo_s: &[f64]) -> JobCheck {
    let measured = mean_ci(&rounds);
    let band = noise_band(predicted, solo_s);
    let pooled = (rounds.len() == solo_s.len() && !rounds.is_empty())
        .then(|| rounds.iter().zip(solo_s).map(|(r, s)| r * s).sum::<f64>() / solo_s.iter().sum::<f64>());
    JobCheck {
        pooled,
        predicted_without_tenants: None,
        time_sharing: None,
        in_band: band.is_some_and(|[lo, hi]| (lo..=hi).contains(&measured.mean)),
        band,
        policy: policy.into(),
        job: job.into(),
        error: predicted / measured.mean - 1.0,
        resolution: (measured.hi - measured.lo) / 2.0 / measured.mean,
        inside: (measured.lo..=measured.hi).contains(&predicted),
        error_se: standard_error(&measured).map(|se| (predicted - measured.mean) / se),
        measured,
        predicted,
        rounds,
    }
}

/// Judge `predicted` (one per entry of `real`, in its order) against the
/// measured rounds; `mix_jobs` names the mix's jobs in order (the rounds' solo times).
/// `without` are the same predictions with the host's other tenants taken out (the ablation), if any.
pub fn judge(real: &Interleaved, predicted: &[Predicted], without: Option<&[Predicted]>, mix_jobs: &[String]) -> Check {
    let mut jobs = vec![];
    let mut policies = vec![];
    for (i, (row, p)) in real.policies.iter().zip(predicted).enumerate() {
        for (job, s) in &p.slowdown {
            let xs: Vec<f64> = real.runs.iter().filter_map(|rs| rs[i].mean_slowdown(job)).collect();
            if xs.is_empty() {
                continue;
            }
            let j = mix_jobs.iter().position(|n| n == job);
            let solo: Vec<f64> = match j {
                Some(j) => real.round.iter().map(|r| r.solo_s[j]).collect(),
                None => vec![],
            };
            let mut c = cell(&row.policy, job, xs, *s, &solo);
            let sched = p.sched.iter().find(|(n, _)| n == job).map(|(_, s)| *s);
            c.time_sharing = j.zip(sched).and_then(|(j, s)| crate::time_sharing::measure(real, i, job, j, s));
            c.predicted_without_tenants =
                without.and_then(|w| w[i].slowdown.iter().find(|(n, _)| n == job).map(|(_, v)| *v));
            jobs.push(c);
        }
        policies.push(PolicyCheck {
            policy: row.policy.clone(),
            measured_makespan_s: row.makespan_s,
            predicted_makespan_s: p.makespan_s,
        });
    }
    let errors: Vec<f64> = jobs.iter().map(|j| j.error.abs()).collect();
    let mb = argmin(policies.iter().map(|p| p.measured_makespan_s.mean));
    let pb = argmin(policies.iter().map(|p| p.predicted_makespan_s));
    let (within, words) = if mb == pb {
        (true, "the predicted best is the measured best".to_string())
    } else {
        let of = |i: usize| real.round.iter().map(|r| r.makespan_s[i]).collect::<Vec<f64>>();
        match paired_ratio(&of(mb), &of(pb), 0.95, RESAMPLES, real.min_effect, real.seed) {
            Ok(p) => (
                p.verdict == Verdict::NoDifference,
                format!(
                    "{} measured {:.1}% slower than {} (paired 95% interval {:+.1}% to {:+.1}% over {} rounds){}",
                    policies[pb].policy,
                    100.0 * (1.0 / p.ratio - 1.0),
                    policies[mb].policy,
                    100.0 * (1.0 / p.hi - 1.0),
                    100.0 * (1.0 / p.lo - 1.0),
                    p.rounds,
                    if p.verdict == Verdict::NoDifference { ": no difference" } else { "" }
                ),
            ),
            Err(e) => (false, e.to_string()),
        }
    };
    let of = |f: &dyn Fn(&JobCheck) -> Option<f64>| -> Option<Vec<f64>> { jobs.iter().map(f).collect() };
    let without: Option<Vec<f64>> = of(&|j| j.predicted_without_tenants.map(|p| (p / j.measured.mean - 1.0).abs()));
    let pooled: Option<Vec<f64>> = of(&|j| j.pooled.map(|m| (j.predicted / m - 1.0).abs()));
    Check {
        median_abs_error_without_tenants: without.clone().filter(|v| !v.is_empty()).map(median),
        worst_abs_error_without_tenants: without.map(|v| v.iter().copied().fold(0.0, f64::max)),
        median_abs_error_pooled: pooled.clone().filter(|v| !v.is_empty()).map(median),
        worst_abs_error_pooled: pooled.map(|v| v.iter().copied().fold(0.0, f64::max)),
        median_abs_error: median(errors.clone()),
        worst_abs_error: errors.iter().copied().fold(0.0, f64::max),
        beyond_worst: errors.iter().filter(|e| **e > TARGET_WORST).count(),
        beyond_inside: jobs.iter().filter(|j| j.error.abs() > TARGET_WORST && j.inside).count(),
        in_band: jobs.iter().filter(|j| j.in_band).count(),
        banded: jobs.iter().filter(|j| j.band.is_some()).count(),
        solo_s: real.round.iter().map(|r| r.solo_s.clone()).collect(),
        measured_best: policies[mb].policy.clone(),
        predicted_best: policies[pb].policy.clone(),
        best_within_interval: within,
        best_words: words,
        ties: ties(
            &real.round.iter().map(|r| r.makespan_s.clone()).collect::<Vec<_>>(),
            real.seed,
            real.min_effect,
            &policies.iter().map(|p| p.policy.clone()).collect::<Vec<_>>(),
            &policies.iter().map(|p| p.predicted_makespan_s).collect::<Vec<_>>(),
            mb,
        ),
        stopped: real.stopped,
        within_pct: None,
        moved: moved_jobs(&real.round.iter().map(|r| r.solo_s.clone()).collect::<Vec<_>>(), mix_jobs, &jobs),
        jobs,
        policies,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_beyond_the_target_names_its_measured_reason() {
        // One slow round widens the interval past the target: the prediction is inside it.
        let noisy = cell("linux", "chase", vec![1.0, 1.1, 0.9, 1.0, 8.0], 1.5, &[1.0, 1.0]);
        assert!(noisy.error.abs() > TARGET_WORST && noisy.inside && noisy.resolution > TARGET_WORST, "{noisy:?}");
        assert!(noisy.reason().contains("does not resolve"), "{}", noisy.reason());
        // Tight rounds and a prediction far off: a model error.
        let off = cell("random", "chase", vec![2.0, 2.05, 1.95], 3.8, &[]);
        assert!(!off.inside && off.resolution < 0.2, "{off:?}");
        assert!(off.reason().contains("model error"), "{}", off.reason());
        assert!((off.error - 0.9).abs() < 1e-12);
        assert!(off.band.is_none() && !off.in_band);
        // Steady solo times give a band of zero width.
        assert_eq!(noisy.band, Some([1.5, 1.5]));
    }

    #[test]
    fn the_noise_band_is_the_closed_form() {
        // Solo times 9, 10, 11: mean 10, s.d. 1, sigma 0.1; k = t95(2) * sqrt(2) * 0.1 / sqrt(3).
        let k = 4.303 * 2f64.sqrt() * 0.1 / 3f64.sqrt();
        let [lo, hi] = noise_band(2.0, &[9.0, 10.0, 11.0]).unwrap();
        assert!((lo - 2.0 * (1.0 - k)).abs() < 1e-12 && (hi - 2.0 * (1.0 + k)).abs() < 1e-12);
        assert!(noise_band(2.0, &[10.0]).is_none());
        // A measured mean inside it counts; one outside does not.
        assert!(cell("p", "j", vec![2.1, 2.2], 2.0, &[9.0, 10.0, 11.0]).in_band);
        assert!(!cell("p", "j", vec![3.0, 3.1], 2.0, &[9.0, 10.0, 11.0]).in_band);
    }

    #[test]
    fn the_error_in_standard_errors_and_the_moved_jobs() {
        // Rounds 1.9, 2.0, 2.1: mean 2, s.d. 0.1, s.e. 0.1/√3; a prediction of 2.2 is √3·2 s.e. off.
        let c = cell("linux", "chase", vec![1.9, 2.0, 2.1], 2.2, &[]);
        let z = c.error_se.expect("three rounds");
        assert!((z - 2.0 * 3f64.sqrt()).abs() < 1e-6, "{z}");
        assert!(cell("linux", "chase", vec![2.0], 2.2, &[]).error_se.is_none());
        assert!(cell("linux", "chase", vec![2.0, 2.0], 2.2, &[]).error_se.is_none());
        // Solo times of job b spread 20% across rounds (above MOVED), job a's 1%.
        let solo = vec![vec![1.0, 1.0], vec![1.01, 1.2]];
        let jobs = ["a".to_string(), "b".to_string()];
        let cells =
            vec![c.clone(), cell("g-rrs", "b", vec![1.0, 1.1], 1.0, &[]), cell("linux", "b", vec![1.0], 1.0, &[])];
        let moved = moved_jobs(&solo, &jobs, &cells);
        assert_eq!(moved.len(), 1);
        assert_eq!(moved[0].job, "b");
        assert!((moved[0].solo_spread - 0.2).abs() < 1e-9);
        assert_eq!(moved[0].cells, ["g-rrs/b", "linux/b"]);
    }

    #[test]
    fn the_median_of_an_even_count_is_the_midpoint() {
        assert_eq!(median(vec![3.0, 1.0, 2.0, 4.0]), 2.5);
        assert_eq!(median(vec![]), 0.0);
    }
}
