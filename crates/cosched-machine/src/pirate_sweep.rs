//! The adaptive pirate sweep ("a finer or adaptive pirate sweep where the slowdown
//! changes"). Cache Pirating (Eklov et al., ICPP 2011, §3) traces a program's response to the
//! cache it is left by sweeping the pirate's working set; `cosched characterise` runs a fixed
//! sweep of four sizes (a quarter to twice the LLC) and, with `--added-pirates N` (an option since
//! design note 66), adds pirates where the response bends: each added size splits the pair of
//! neighbouring sizes (alone counting as a pirate of size 0) between which the job's log slowdown
//! changes most, where that change is beyond its own 95% interval, paired by round where the
//! record gives the rounds. A flat response adds nothing: noise is not a knee.

use crate::characterised::{logs, var_of_mean, JobRecord};
use cosched_core::stats::t95;

/// Pirates the sweep adds to a job by default (`characterise --added-pirates`): none, the fixed
/// sweep. The adaptive sweep is an option: on held-out mixes it made no prediction measurably
/// better, and on mixes 28-30 the fixed sweep's 90th percentile was (design note 66).
pub const ADDED: u32 = 0;
/// Most pirates the sweep may add to a job (a count a user gives).
pub const MAX_ADDED: u32 = 8;
/// Neighbouring sizes closer than this ratio are not split: a pirate's working set is only
/// known to its allocation and the host's page placement, a few percent.
pub const MIN_RATIO: f64 = 1.1;

/// A point of the response: pirate size (0: alone), ln slowdown, the runs behind it (turnarounds,
/// s; alone: the solo runs) and, where the record's order says it, the index in the job's solo
/// runs of the solo run of its first run's round ([`round_solos`]).
struct Point<'a> {
    size: f64,
    log_slowdown: f64,
    runs: &'a [f64],
    first_solo: Option<usize>,
}

/// For each pirate of `j`, the index in `j.solo_runs` of the solo run of its first run's round, in
/// the order `cosched_linux::characterise::measure` runs them: R rounds of one solo run and one run
/// of each fixed co-runner (so every bandit and fixed pirate has R runs, paired with solo runs 0 to
/// R − 1), then each added pirate's rounds of one solo run and one run of it, in the order added.
/// `None` where the record's counts do not follow that order (a record made before records kept every run, or one
/// `keep_added` cut), and the sweep falls back to runs independent across rounds.
fn round_solos(j: &JobRecord) -> Option<Vec<usize>> {
    let r = j.pirates.first()?.runs.len();
    if r == 0 || j.bandits.iter().any(|b| b.runs.len() != r) {
        return None;
    }
    // The added pirates are the last ones whose runs add up to the solo runs past the first R.
    let mut rest = j.solo_runs.len().checked_sub(r)?;
    let mut fixed = j.pirates.len();
    while rest > 0 && fixed > 0 {
        fixed -= 1;
        rest = rest.checked_sub(j.pirates[fixed].runs.len())?;
    }
    if rest > 0 || j.pirates[..fixed].iter().any(|p| p.runs.len() != r) {
        return None;
    }
    let mut next = r;
    let added = j.pirates[fixed..].iter().map(|p| {
        let first = next;
        next += p.runs.len();
        first
    });
    Some(std::iter::repeat_n(0, fixed).chain(added).collect())
}

/// ln(run / its round's solo run) of each run of `p` (a design paired by round: a drift that moves
/// a whole round, solo run and co-run alike, cancels).
fn paired_logs(j: &JobRecord, p: &Point) -> Option<Vec<f64>> {
    let first = p.first_solo?;
    let solo = logs(j.solo_runs.get(first..first + p.runs.len())?)?;
    Some(logs(p.runs)?.iter().zip(solo).map(|(c, s)| c - s).collect())
}

/// The 95% half-width of the change of ln slowdown from `a` to `b` (design note 65's round-paired
/// test). Where the record says each run's round ([`round_solos`]): two pirates of the same rounds,
/// t₉₅(n − 1) × the standard error of the mean per-round difference of their log turnarounds (the
/// solo runs cancel); from alone, the same of each round's log co-run over its solo run; pirates of
/// different rounds, each run's log slowdown against its own round's solo run, their variances of
/// the mean added, at the fewer runs' degrees of freedom. Else runs independent across rounds: the
/// log means' standard errors added (from alone: `b`'s and the solo runs'). For a record that keeps
/// no runs (made before records kept every run), 1.96 × √2 σ with σ = ln(1 + solo spread) / 2, the search's noise
/// floor per co-run; none where runs are kept but fewer than two of either (no noise is known yet).
fn half_width(j: &JobRecord, a: &Point, b: &Point) -> Option<f64> {
    let n = a.runs.len().min(b.runs.len());
    let paired = if a.size == 0.0 {
        paired_logs(j, b).and_then(|d| var_of_mean(&d)).map(|v| (v, d_f(b.runs.len())))
    } else if a.first_solo.is_some() && a.first_solo == b.first_solo && a.runs.len() == b.runs.len() {
        let d: Option<Vec<f64>> =
            logs(a.runs).zip(logs(b.runs)).map(|(x, y)| x.iter().zip(y).map(|(x, y)| y - x).collect());
        d.and_then(|d| var_of_mean(&d)).map(|v| (v, d_f(n)))
    } else {
        paired_logs(j, a).zip(paired_logs(j, b)).and_then(|(x, y)| Some((var_of_mean(&x)? + var_of_mean(&y)?, d_f(n))))
    };
    let independent = || Some(var_of_mean(&logs(a.runs)?)? + var_of_mean(&logs(b.runs)?)?);
    match paired.or_else(|| independent().map(|v| (v, d_f(n)))) {
        Some((v, df)) => Some(t95(df) * v.sqrt()),
        None if j.solo_runs.is_empty() => {
            Some(1.96 * std::f64::consts::SQRT_2 * (1.0 + j.solo_spread.max(0.0)).ln() / 2.0)
        }
        None => None,
    }
}

/// Degrees of freedom of a mean of `n` runs.
fn d_f(n: usize) -> usize {
    n.saturating_sub(1)
}

/// The pirate size, MiB, the sweep adds next to job `j` (module doc): between the neighbouring
/// sizes whose change of ln slowdown is largest among the changes beyond their 95% half-width,
/// their geometric mean (half the smallest pirate, from alone), to two decimals; `None` where no
/// change is beyond its noise or the pair is already closer than [`MIN_RATIO`].
pub fn next_pirate(j: &JobRecord) -> Option<f64> {
    let ok = |x: f64| x.is_finite() && x > 0.0;
    let rounds = round_solos(j);
    let mut points = vec![Point { size: 0.0, log_slowdown: 0.0, runs: &j.solo_runs, first_solo: None }];
    let mut pirates: Vec<_> = j
        .pirates
        .iter()
        .enumerate()
        .filter(|(_, r)| ok(r.size) && ok(r.slowdown))
        .map(|(k, r)| Point {
            size: r.size,
            log_slowdown: r.slowdown.ln(),
            runs: &r.runs,
            first_solo: rounds.as_ref().map(|f| f[k]),
        })
        .collect();
    pirates.sort_by(|a, b| a.size.total_cmp(&b.size));
    points.extend(pirates);
    let mut best: Option<(f64, f64)> = None;
    for w in points.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        let change = (b.log_slowdown - a.log_slowdown).abs();
        let beyond = half_width(j, a, b).is_some_and(|h| change > h);
        if !beyond || (a.size > 0.0 && b.size / a.size < MIN_RATIO) {
            continue;
        }
        let mid = if a.size > 0.0 { (a.size * b.size).sqrt() } else { b.size / 2.0 };
        let mid = (mid * 100.0).round() / 100.0;
        let known = points.iter().any(|p| (p.size - mid).abs() < 0.005);
        if mid > 0.0 && !known && best.is_none_or(|(c, _)| change > c) {
            best = Some((change, mid));
        }
    }
    best.map(|(_, mid)| mid)
}

/// Job `j` with the fixed sweep's pirates (sizes in `fixed`, MiB, to two decimals) and the first
/// `n` others the adaptive sweep added, in the order run: `characterise --from-record
/// --added-pirates N`, the ablation of the adaptive sweep at `n` = 0.
pub fn keep_added(j: &JobRecord, fixed: &[f64], n: usize) -> JobRecord {
    let mut left = n;
    let pirates = j
        .pirates
        .iter()
        .filter(|r| {
            let added = !fixed.iter().any(|&f| (f - r.size).abs() < 0.005);
            let keep = !added || left > 0;
            left -= usize::from(added && left > 0);
            keep
        })
        .cloned()
        .collect();
    JobRecord { pirates, ..j.clone() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::characterised::CoRun;

    fn job(sizes: &[f64], slowdowns: &[f64], spread: f64) -> JobRecord {
        JobRecord {
            name: "j".into(),
            cmd: vec![],
            solo_s: 1.0,
            solo_spread: spread,
            pirates: sizes
                .iter()
                .zip(slowdowns)
                .map(|(&size, &slowdown)| CoRun { size, slowdown, covered: true, runs: vec![], progress: vec![] })
                .collect(),
            bandits: vec![],
            solo_runs: vec![],
            solo_progress: vec![],
            presence: None,
        }
    }

    #[test]
    fn the_largest_change_beyond_the_noise_is_split() {
        let sizes = [1.0, 2.0, 4.0, 8.0];
        // The knee between 2 and 4 MiB: split at √8.
        let j = job(&sizes, &[1.01, 1.03, 1.60, 1.70], 0.02);
        assert_eq!(next_pirate(&j), Some(2.83));
        // A job slowed by the smallest pirate already: between alone and it, half its size.
        assert_eq!(next_pirate(&job(&sizes, &[1.5, 1.55, 1.6, 1.62], 0.02)), Some(0.5));
        // Unordered sizes are read in order.
        assert_eq!(next_pirate(&job(&[4.0, 1.0, 8.0, 2.0], &[1.60, 1.01, 1.70, 1.03], 0.02)), Some(2.83));
        // Flat within the noise: nothing (2% spread: σ ≈ 0.0099, half-width ≈ 0.0274).
        assert_eq!(next_pirate(&job(&sizes, &[1.01, 1.02, 1.03, 1.02], 0.02)), None);
        // The knee's response on a noisy host (spread 60%: half-width ≈ 0.65) adds nothing either.
        assert_eq!(next_pirate(&job(&sizes, &[1.01, 1.03, 1.60, 1.70], 0.6)), None);
    }

    #[test]
    fn split_pairs_are_not_split_again_past_the_least_ratio() {
        // After 2.83 is added, the knee lies between 2.83 and 4: split at 3.36.
        let j = job(&[1.0, 2.0, 2.83, 4.0, 8.0], &[1.01, 1.03, 1.05, 1.60, 1.70], 0.02);
        assert_eq!(next_pirate(&j), Some(3.36));
        // Pairs closer than 10% are left: the next largest change is taken.
        let j = job(&[1.0, 2.0, 3.9, 4.0, 8.0], &[1.01, 1.03, 1.05, 1.60, 1.90], 0.02);
        assert_eq!(next_pirate(&j), Some(5.66));
    }

    #[test]
    fn kept_runs_give_the_half_width() {
        // Two pirates with runs 1% apart and a change of 20%: split; the same change with runs
        // 50% apart, apart in different rounds, is within t₉₅(2) × its standard error, and is not.
        let with = |spread: f64| {
            let mut j = job(&[2.0, 4.0], &[1.0, 1.2], 0.0);
            j.solo_runs = vec![1.0, 1.0, 1.0];
            j.pirates[0].runs = vec![1.0, 1.0 + spread, 1.0];
            j.pirates[1].runs = vec![1.2, 1.2, 1.2 * (1.0 + spread)];
            j
        };
        assert_eq!(next_pirate(&with(0.01)), Some(2.83));
        assert_eq!(next_pirate(&with(0.5)), None);
        // One run of each: no noise known, nothing added.
        let mut one = with(0.01);
        one.solo_runs.truncate(1);
        one.pirates.iter_mut().for_each(|r| r.runs.truncate(1));
        assert_eq!(next_pirate(&one), None);
        // The empty record adds nothing; a non-positive slowdown is skipped.
        assert_eq!(next_pirate(&job(&[], &[], 0.0)), None);
        assert_eq!(next_pirate(&job(&[2.0, 4.0], &[0.0, 1.5], 0.0)), Some(2.0));
    }

    /// A job measured in rounds whose host drift `g` moves a whole round (solo run and co-runs
    /// alike), with 0.5% of noise of each run's own.
    fn drifting(sizes: &[f64], slowdowns: &[f64], g: &[f64]) -> JobRecord {
        let own = |k: usize, r: usize| 1.0 + 0.005 * (((7 * k + 3 * r) % 5) as f64 - 2.0) / 2.0;
        let mut j = job(sizes, slowdowns, 0.0);
        j.solo_runs = g.iter().enumerate().map(|(r, g)| g * own(9, r)).collect();
        for (k, p) in j.pirates.iter_mut().enumerate() {
            p.runs = g.iter().enumerate().map(|(r, g)| p.slowdown * g * own(k, r)).collect();
        }
        j
    }

    #[test]
    fn a_drift_that_moves_whole_rounds_cancels_in_the_round_paired_test() {
        let sizes = [1.0, 2.0, 4.0, 8.0];
        let g = [1.0, 1.4, 0.8];
        // The knee between 2 and 4 MiB, its rounds 40% apart: paired by round, split.
        let knee = drifting(&sizes, &[1.01, 1.03, 1.60, 1.70], &g);
        assert_eq!(next_pirate(&knee), Some(2.83));
        // The same runs read as independent across rounds (a record whose counts do not give the
        // rounds: a bandit with one run less) are within their noise: nothing.
        let mut unpaired = knee.clone();
        unpaired.bandits = vec![CoRun { runs: vec![1.0, 1.0], ..unpaired.pirates[0].clone() }];
        assert_eq!(next_pirate(&unpaired), None);
        // A flat response under the same drift: nothing, paired or not.
        assert_eq!(next_pirate(&drifting(&sizes, &[1.01, 1.02, 1.02, 1.03], &g)), None);
        // An added pirate in rounds of its own, on another drift, is read against its own rounds'
        // solo runs: at 2.83 MiB it is as slow as at 4, so the knee is split again below it.
        let mut added = knee.clone();
        let more = drifting(&[2.83], &[1.58], &[0.7, 1.3]);
        added.solo_runs.extend(&more.solo_runs);
        added.pirates.extend(more.pirates);
        assert_eq!(round_solos(&added), Some(vec![0, 0, 0, 0, 3]));
        assert_eq!(next_pirate(&added), Some(2.38));
    }

    #[test]
    fn the_rounds_are_read_from_the_record_order() {
        let mut j = job(&[1.0, 2.0, 4.0, 8.0, 2.83, 3.36], &[1.0; 6], 0.0);
        for (k, p) in j.pirates.iter_mut().enumerate() {
            p.runs = vec![1.0; if k < 4 { 3 } else { 2 }];
        }
        j.bandits = vec![CoRun { runs: vec![1.0; 3], ..j.pirates[0].clone() }];
        j.solo_runs = vec![1.0; 7];
        assert_eq!(round_solos(&j), Some(vec![0, 0, 0, 0, 3, 5]));
        // Without added pirates every co-run shares the solo runs' rounds.
        let fixed = keep_added(&j, &[1.0, 2.0, 4.0, 8.0], 0);
        assert_eq!(round_solos(&JobRecord { solo_runs: vec![1.0; 3], ..fixed.clone() }), Some(vec![0; 4]));
        // Counts that do not add up (a cut record, a solo run missing): not read.
        assert_eq!(round_solos(&fixed), None);
        assert_eq!(round_solos(&JobRecord { solo_runs: vec![1.0; 6], ..j.clone() }), None);
        assert_eq!(round_solos(&job(&[], &[], 0.0)), None);
    }

    #[test]
    fn the_ablation_keeps_the_fixed_sweep_and_the_first_added() {
        let j = job(&[1.0, 2.0, 4.0, 8.0, 2.83, 3.36], &[1.0, 1.0, 1.6, 1.7, 1.1, 1.3], 0.02);
        let fixed = [1.0, 2.0, 4.0, 8.0];
        let sizes = |j: &JobRecord| j.pirates.iter().map(|r| r.size).collect::<Vec<_>>();
        assert_eq!(sizes(&keep_added(&j, &fixed, 0)), fixed);
        assert_eq!(sizes(&keep_added(&j, &fixed, 1)), [1.0, 2.0, 4.0, 8.0, 2.83]);
        assert_eq!(keep_added(&j, &fixed, 5), j);
    }
}
