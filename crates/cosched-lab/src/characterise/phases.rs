//! A program characterised per phase: where it reports its own
//! progress (`progress … <OPS> ops <T> s`, `cosched_linux::reported`), every
//! run of it (alone and beside each co-runner) is read on one grid of its
//! work, the median solo run's report positions; the work is split where
//! *every run* changes rate at the same point; segments of one level are one
//! *kind*; and each kind is fitted alone from the time every run spent in that
//! kind's operations. Phases are told apart by position in the work, not by
//! time: a fixed-work program does the same operations in every run, so a
//! co-run's time in a phase is read off its own series at the same bounds.
//!
//! Why across runs and not within one: a host's drift moves one run's rate
//! for tens of reports at a time (on the development host a stream's rate
//! wandered between 2.2 and 3.8 × 10⁸ lines/s within one run), which a test
//! on one run's window-to-window noise takes for phases; a phase boundary
//! is where every run steps, drift is where one does. The rules:
//! * binary segmentation: the boundary where the runs' log rates step most
//!   (their squared steps, weighted as the squared error they remove);
//! * kept if the runs' steps have a mean of [`MIN_STEP`] or more and a t
//!   statistic beyond Student's quantile at [`ALPHA`] / the number of
//!   boundaries tried (Bonferroni), both sides holding [`MIN_WINDOWS`]
//!   reports, at least [`MIN_RUNS`] runs;
//! * a segment is of an earlier kind unless its level differs from that
//!   kind's first segment by the same test.
//!
//! Phases shorter than [`MIN_WINDOWS`] reports are not seen (the job is then
//! fitted whole), and a program that reports nothing is fitted whole.

use super::model::Fit;
use super::search::fit_patterns;
use super::Pattern;
use crate::error::RunError;
use cosched_core::stats::median;
use cosched_machine::characterised::{CoRun, JobRecord, Series};
use cosched_machine::MachineSpec;

/// Fewest reports on each side of a split.
pub const MIN_WINDOWS: usize = 3;
/// Smallest step of the log rate that makes a phase: ln 1.1, twice the ±5% `characterise` asks of
/// each slowdown (a smaller change would fit the same model within its precision).
pub const MIN_STEP: f64 = 0.0953;
/// Level of the test that every run steps alike at a boundary, before Bonferroni's correction
/// for the boundaries tried.
pub const ALPHA: f64 = 0.05;
/// Fewest runs (alone and beside co-runners) phases are told apart on.
pub const MIN_RUNS: usize = 3;
/// Most segments a run is split into.
pub const MAX_SEGMENTS: usize = 64;

/// A program's phases as its median solo run reports them.
#[derive(Clone, Debug, PartialEq)]
pub struct Phases {
    /// Segment `k` covers the operations from `bounds[k]` to `bounds[k + 1]`.
    pub bounds: Vec<f64>,
    /// Each segment's kind (segments of one kind share a model), numbered in order of appearance.
    pub kind: Vec<usize>,
    /// Each segment's share of the solo run's time.
    pub share: Vec<f64>,
}

impl Phases {
    /// How many kinds of phase.
    pub fn kinds(&self) -> usize {
        self.kind.iter().max().map_or(0, |k| k + 1)
    }
}

/// A job fitted per phase.
#[derive(Clone, Debug)]
pub struct Phased {
    /// Its phases.
    pub phases: Phases,
    /// Each kind's record: its time in the kind's operations, alone and beside each co-runner.
    pub records: Vec<JobRecord>,
    /// Each kind's fitted model.
    pub fits: Vec<Fit>,
    /// Each kind's predicted slowdowns, pirates then bandits.
    pub predicted: Vec<Vec<f64>>,
}

/// A job's runs on one grid of its work: the median solo run's report positions.
struct Grid {
    /// Operations at each window's ends (`n + 1` of them).
    bounds: Vec<f64>,
    /// Each window's share of the solo run's time.
    w: Vec<f64>,
    /// Running sums of `w` (`n + 1`, from 0), so that a span's weight costs one subtraction.
    cw: Vec<f64>,
    /// Each run's running sums of `w` × its log rate in each window (`n + 1`, from 0).
    cwy: Vec<Vec<f64>>,
}

/// Running sums of `xs`, from 0.
fn running(xs: impl Iterator<Item = f64>) -> Vec<f64> {
    std::iter::once(0.0)
        .chain(xs.scan(0.0, |acc, x| {
            *acc += x;
            Some(*acc)
        }))
        .collect()
}

impl Grid {
    /// The grid of `solo`'s reports up to the work every run of `runs` reached.
    fn of(solo: &Series, runs: &[&Series]) -> Option<Grid> {
        let end = runs.iter().map(|s| s.last().map_or(0.0, |p| p[1])).fold(f64::MAX, f64::min);
        let mut bounds = vec![0.0];
        for p in solo.iter().filter(|p| p[1] <= end) {
            if p[1] > bounds[bounds.len() - 1] {
                bounds.push(p[1]);
            }
        }
        if bounds[bounds.len() - 1] < end {
            bounds.push(end);
        }
        let n = bounds.len() - 1;
        if n < 2 * MIN_WINDOWS || runs.len() < MIN_RUNS {
            return None;
        }
        // Each window's seconds in a run, from one pass over its reports.
        let secs = |s: &Series| -> Vec<f64> {
            let t = times_at(s, &bounds);
            t.windows(2).map(|p| (p[1] - p[0]).max(1e-9)).collect()
        };
        let solo_t = secs(solo);
        let total: f64 = solo_t.iter().sum();
        let w: Vec<f64> = solo_t.iter().map(|t| t / total).collect();
        let cwy = runs
            .iter()
            .map(|s| {
                let t = secs(s);
                running((0..n).map(|i| w[i] * ((bounds[i + 1] - bounds[i]) / t[i]).ln()))
            })
            .collect();
        Some(Grid { cw: running(w.iter().copied()), w, bounds, cwy })
    }

    /// Windows.
    fn n(&self) -> usize {
        self.w.len()
    }

    /// Runs.
    fn runs(&self) -> usize {
        self.cwy.len()
    }

    /// Run `r`'s mean log rate over windows `a..b`, weighted by the solo run's time in each.
    fn level(&self, r: usize, a: usize, b: usize) -> f64 {
        (self.cwy[r][b] - self.cwy[r][a]) / (self.cw[b] - self.cw[a])
    }

    /// Each run's step of its log rate from windows `a..c` to `c..b`.
    fn step(&self, a: usize, c: usize, b: usize) -> Vec<f64> {
        (0..self.runs()).map(|r| self.level(r, a, c) - self.level(r, c, b)).collect()
    }
}

/// Whether steps `d` (one per run) are a change every run makes: their mean is [`MIN_STEP`] or
/// more and its t statistic over the runs beats Student's quantile at `alpha`.
fn changes(d: &[f64], alpha: f64) -> bool {
    let Some((mean, var)) = cosched_core::stats::mean_var(d) else { return false };
    if mean.abs() < MIN_STEP {
        return false;
    }
    let t = mean.abs() / (var / d.len() as f64).sqrt();
    t >= cosched_core::student::t_quantile(alpha, (d.len() - 1) as f64)
}

/// Phase boundaries of `g` inside windows `a..b`, by binary segmentation: the point where the
/// runs' log rates step most (their squared steps, weighted as the squared error they remove),
/// kept if every run steps there alike ([`changes`] at `alpha`).
fn split_points(g: &Grid, a: usize, b: usize, alpha: f64, out: &mut Vec<usize>) {
    if b - a < 2 * MIN_WINDOWS || out.len() + 1 >= MAX_SEGMENTS {
        return;
    }
    let wsum = |x: usize, y: usize| g.cw[y] - g.cw[x];
    let gain = |c: usize| g.step(a, c, b).iter().map(|d| d * d).sum::<f64>() * wsum(a, c) * wsum(c, b);
    let best = (a + MIN_WINDOWS..=b - MIN_WINDOWS).map(|c| (c, gain(c))).max_by(|x, y| x.1.total_cmp(&y.1));
    if let Some((c, _)) = best.filter(|&(c, _)| changes(&g.step(a, c, b), alpha)) {
        out.push(c);
        split_points(g, a, c, alpha, out);
        split_points(g, c, b, alpha, out);
    }
}

/// The phases of a job whose median solo run reported `solo` and whose runs (alone and beside
/// each co-runner, `solo` among them) reported `runs`, if it has two kinds or more.
pub fn split_runs(solo: &Series, runs: &[&Series]) -> Option<Phases> {
    let g = Grid::of(solo, runs)?;
    let n = g.n();
    // Bonferroni: every boundary the first split could choose is tried.
    let alpha = ALPHA / (n + 1 - 2 * MIN_WINDOWS) as f64;
    let mut cuts = vec![];
    split_points(&g, 0, n, alpha, &mut cuts);
    cuts.extend([0, n]);
    cuts.sort_unstable();
    let segs: Vec<(usize, usize)> = cuts.windows(2).map(|c| (c[0], c[1])).collect();
    // Kinds: a segment joins the first kind whose first segment it does not differ from.
    let differ = |(a, b): (usize, usize), (c, e): (usize, usize)| {
        let d: Vec<f64> = (0..g.runs()).map(|r| g.level(r, a, b) - g.level(r, c, e)).collect();
        changes(&d, alpha)
    };
    let mut first: Vec<(usize, usize)> = vec![];
    let (mut bounds, mut kind, mut share) = (vec![0.0], vec![], vec![]);
    for &(a, b) in &segs {
        let k = first.iter().position(|&f| !differ((a, b), f)).unwrap_or_else(|| {
            first.push((a, b));
            first.len() - 1
        });
        let secs: f64 = g.w[a..b].iter().sum();
        // Adjacent segments of one kind are one segment.
        if kind.last() == Some(&k) {
            *bounds.last_mut()? = g.bounds[b];
            *share.last_mut()? += secs;
            continue;
        }
        bounds.push(g.bounds[b]);
        kind.push(k);
        share.push(secs);
    }
    (first.len() >= 2).then_some(Phases { bounds, kind, share })
}

/// The seconds at which series `s` reached each of `ops` (ascending): linear between reports,
/// clamped to its ends, in one pass over the reports.
fn times_at(s: &Series, ops: &[f64]) -> Vec<f64> {
    let (mut k, mut prev) = (0, [0.0, 0.0]);
    ops.iter()
        .map(|&x| {
            while k < s.len() && s[k][1] < x {
                prev = s[k];
                k += 1;
            }
            match s.get(k) {
                None => prev[0],
                Some(p) if p[1] > prev[1] => prev[0] + (p[0] - prev[0]) * (x - prev[1]) / (p[1] - prev[1]),
                Some(p) => p[0],
            }
        })
        .collect()
}

/// Seconds series `s` took to go from `x` to `y` operations (`x` ≤ `y`).
pub fn time_between(s: &Series, x: f64, y: f64) -> f64 {
    let t = times_at(s, &[x, y]);
    t[1] - t[0]
}

/// Seconds series `s` spent in the segments of kind `k`.
fn time_in(s: &Series, p: &Phases, k: usize) -> f64 {
    (0..p.kind.len()).filter(|&i| p.kind[i] == k).map(|i| time_between(s, p.bounds[i], p.bounds[i + 1])).sum()
}

/// The record of kind `k`: the job's time in its operations, alone and beside each co-runner.
fn kind_record(j: &JobRecord, p: &Phases, k: usize) -> JobRecord {
    let solo: Vec<f64> = j.solo_progress.iter().map(|s| time_in(s, p, k)).collect();
    let solo_s = median(&solo);
    let run = |r: &CoRun| {
        let runs: Vec<f64> = r.progress.iter().map(|s| time_in(s, p, k)).collect();
        CoRun { size: r.size, slowdown: median(&runs) / solo_s, covered: r.covered, runs, progress: vec![] }
    };
    let (lo, hi) = solo.iter().fold((f64::MAX, f64::MIN), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    JobRecord {
        name: format!("{} phase {}", j.name, k + 1),
        cmd: j.cmd.clone(),
        solo_s,
        solo_spread: hi / lo - 1.0,
        pirates: j.pirates.iter().map(run).collect(),
        bandits: j.bandits.iter().map(run).collect(),
        solo_runs: solo,
        solo_progress: vec![],
        // Its time in this kind of phase beside the compute loop where those runs report their
        // progress, else the whole run's slowdown (design note 67).
        presence: j.presence.as_ref().map(|r| {
            if r.progress.len() == r.runs.len() && !r.runs.is_empty() {
                run(r)
            } else {
                r.clone()
            }
        }),
    }
}

/// The phases of `j`, if every run reports its progress and its median solo run shows two kinds
/// or more, each kind's time positive in every run.
pub fn split(j: &JobRecord) -> Option<Phases> {
    let all = j.pirates.iter().chain(&j.bandits).all(|r| !r.progress.is_empty() && r.progress.len() == r.runs.len());
    if j.solo_progress.is_empty() || !all {
        return None;
    }
    let mut by_time: Vec<&Series> = j.solo_progress.iter().collect();
    by_time.sort_by(|a, b| a.last().map_or(0.0, |p| p[0]).total_cmp(&b.last().map_or(0.0, |p| p[0])));
    let runs: Vec<&Series> =
        j.solo_progress.iter().chain(j.pirates.iter().chain(&j.bandits).flat_map(|r| &r.progress)).collect();
    let p = split_runs(by_time[by_time.len() / 2], &runs)?;
    let positive = runs.iter().all(|s| (0..p.kinds()).all(|k| time_in(s, &p, k) > 0.0));
    positive.then_some(p)
}

/// `j` fitted per phase over `patterns`, if it has phases ([`split`]) (`each` is told each kind's
/// record before its fit: a fit takes seconds, and a job may have several kinds).
pub fn fit_phased(
    m: &MachineSpec,
    j: &JobRecord,
    patterns: &[Pattern],
    each: &dyn Fn(&JobRecord),
) -> Result<Option<Phased>, RunError> {
    let Some(phases) = split(j) else { return Ok(None) };
    let records: Vec<JobRecord> = (0..phases.kinds()).map(|k| kind_record(j, &phases, k)).collect();
    let (mut fits, mut predicted) = (vec![], vec![]);
    for r in &records {
        each(r);
        let (f, p) = fit_patterns(m, r, patterns)?;
        fits.push(f);
        predicted.push(p);
    }
    Ok(Some(Phased { phases, records, fits, predicted }))
}
