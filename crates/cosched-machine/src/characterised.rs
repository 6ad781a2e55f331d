//! The record `cosched characterise` makes of a mix on a machine: each
//! job's turnaround alone and beside cache pirates and bandwidth bandits
//! (Cache Pirating, Eklov et al., ICPP 2011; Bandwidth Bandit, PACT 2012).
//! Measured by the real runtime (`cosched_linux::characterise`), fitted by
//! the experiments library (`cosched_lab::characterise`): data both read, so
//! it lives below both, and a fit can be redone and tested without the host.

use serde::{Deserialize, Serialize};

/// The measurements of one mix on one machine.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// The calibrated machine preset the co-runners are modelled on.
    pub machine: String,
    /// When the runs were made (UTC, as `date -u` prints it), for the provenance.
    pub date: String,
    /// One entry per job of the mix.
    pub jobs: Vec<JobRecord>,
}

/// What one job did alone and beside each co-runner.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct JobRecord {
    /// The mix job.
    pub name: String,
    /// Its command.
    pub cmd: Vec<String>,
    /// Turnaround alone, s (median over the repetitions).
    pub solo_s: f64,
    /// Largest / smallest solo turnaround − 1 over the repetitions (the host's spread).
    pub solo_spread: f64,
    /// Slowdown beside each pirate.
    pub pirates: Vec<CoRun>,
    /// Slowdown beside each bandit.
    pub bandits: Vec<CoRun>,
    /// Each solo turnaround, s, in the order run (empty in a record made before records kept every run, which
    /// kept medians only).
    #[serde(default)]
    pub solo_runs: Vec<f64>,
    /// Each solo run's own progress reports, in the order run (phases): empty where
    /// the program prints none (and in older records).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub solo_progress: Vec<Series>,
    /// Slowdown beside a co-runner that holds no cache (a `cosched-bench compute` loop on the
    /// other core; `size` 0): what another busy core costs it whatever that core runs (design
    /// note 67). None where it was not measured (without `characterise --presence`, older records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub presence: Option<CoRun>,
}

/// The largest presence factor a fit carries (a workload phase's `presence_slowdown` may be at
/// most this): a program slowed tenfold by a compute loop on another core is not sharing a cache.
pub const MAX_PRESENCE: f64 = 10.0;

/// A run's progress as the program reports it (`progress … <OPS> ops <T> s` lines, the
/// convention of `cosched-bench`): `[seconds since it started, operations done]`, in order.
pub type Series = Vec<[f64; 2]>;

/// Most reports one run's series keeps (a longer one is thinned evenly when read).
pub const MAX_SERIES: usize = 4096;

impl JobRecord {
    /// Standard error of ln(slowdown) beside co-run `r`, from the runs kept: the
    /// log turnarounds' variances over their counts, the co-run's and the solo runs' added; none
    /// with fewer than two runs of either.
    pub fn log_se(&self, r: &CoRun) -> Option<f64> {
        let log_var = |xs: &[f64]| var_of_mean(&logs(xs)?);
        Some((log_var(&r.runs)? + log_var(&self.solo_runs)?).sqrt())
    }

    /// Whether every co-run's slowdown is known within ±`within` (a share: 0.05 for 5%) at 95%:
    /// t₉₅ of the fewer runs' degrees of freedom × [`JobRecord::log_se`] ≤ ln(1 + `within`).
    pub fn precise(&self, within: f64) -> bool {
        self.pirates.iter().chain(&self.bandits).chain(&self.presence).all(|r| {
            let df = r.runs.len().min(self.solo_runs.len()).saturating_sub(1);
            self.log_se(r).is_some_and(|se| cosched_core::stats::t95(df) * se <= within.ln_1p())
        })
    }
}

impl JobRecord {
    /// The presence factor its fit carries (design note 67): its median slowdown beside a
    /// compute loop, from 1 (a co-runner that holds nothing cannot speed it up: a median below 1
    /// is the host's noise, and the fit flags one beyond it) to [`MAX_PRESENCE`]; 1 where none
    /// was measured.
    pub fn presence_factor(&self) -> f64 {
        self.presence.as_ref().map_or(1.0, |r| r.slowdown.clamp(1.0, MAX_PRESENCE))
    }
}

/// The logs of `xs` (none if any is not a positive finite number): run times to log times.
pub(crate) fn logs(xs: &[f64]) -> Option<Vec<f64>> {
    xs.iter().all(|&x| x.is_finite() && x > 0.0).then(|| xs.iter().map(|x| x.ln()).collect())
}

/// The variance of the mean of `xs`: its sample variance over its count (none with fewer than two
/// values, or a non-finite one).
pub(crate) fn var_of_mean(xs: &[f64]) -> Option<f64> {
    if xs.iter().any(|x| !x.is_finite()) {
        return None;
    }
    cosched_core::stats::mean_var(xs).map(|(_, v)| v / xs.len() as f64)
}

/// One co-run: the co-runner's size and the job's median turnaround beside
/// it over its median solo one.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CoRun {
    /// Pirate working set, MiB, or bandit rate, GB/s.
    pub size: f64,
    /// Turnaround beside it over alone.
    pub slowdown: f64,
    /// Whether the co-runner ran for the whole of the job's turnaround
    /// (else the job ran partly alone and the slowdown is a lower bound).
    pub covered: bool,
    /// Each turnaround beside it, s, in the order run (empty in a record made before records kept every run).
    #[serde(default)]
    pub runs: Vec<f64>,
    /// Each of those runs' progress reports (phases; empty where none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub progress: Vec<Series>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(solo: Vec<f64>, co: Vec<f64>) -> JobRecord {
        JobRecord {
            name: "j".into(),
            cmd: vec![],
            solo_s: 1.0,
            solo_spread: 0.0,
            pirates: vec![CoRun { size: 1.0, slowdown: 1.0, covered: true, runs: co, progress: vec![] }],
            bandits: vec![],
            solo_runs: solo,
            solo_progress: vec![],
            presence: None,
        }
    }

    #[test]
    fn the_log_standard_error_is_the_closed_form() {
        // ln 1, ln e, ln e²: mean 1, sample variance 1, of the mean 1/3; solo ln e^0.5 ± 0.5:
        // variance 0.5, of the mean 0.25. Total √(1/3 + 1/4).
        let e = std::f64::consts::E;
        let j = job(vec![1.0, e], vec![1.0, e, e * e]);
        let se = j.log_se(&j.pirates[0]).unwrap();
        assert!((se - (1.0f64 / 3.0 + 0.25).sqrt()).abs() < 1e-12, "{se}");
        // Fewer than two runs of either: no error, and not precise.
        let one = job(vec![1.0], vec![1.0, 2.0]);
        assert!(one.log_se(&one.pirates[0]).is_none() && !one.precise(0.5));
        // Repeated runs 1% apart: within ±5% after enough of them, not after two.
        let tight = job(vec![1.0, 1.01, 1.0, 1.01, 1.0], vec![1.2, 1.21, 1.2, 1.21, 1.2]);
        assert!(tight.precise(0.05));
        let two = job(vec![1.0, 1.1], vec![1.2, 1.32]);
        assert!(!two.precise(0.05));
        // A record of before the runs were kept parses, with none.
        let old = r#"{"name": "x", "cmd": [], "solo_s": 1.0, "solo_spread": 0.0, "pirates": [{"size": 1.0, "slowdown": 1.1, "covered": true}], "bandits": []}"#;
        let j: JobRecord = serde_json::from_str(old).unwrap();
        assert!(j.solo_runs.is_empty() && j.pirates[0].runs.is_empty());
    }
}
