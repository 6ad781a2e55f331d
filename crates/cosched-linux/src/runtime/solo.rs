//! Each job of a mix run alone, and what a report says of one mix job
//! (the solo runs every round of a host check measures; the slowdown and
//! the time-sharing figures a check sets beside its predictions).

use super::{run, RealJob, RealReport, RunConfig, RuntimeError, LINUX};
use crate::mix::{belongs, Mix};

/// Each job of `mix` run alone (one instance, under `linux`): its report row,
/// `None` where the run failed; `config` builds each run's configuration.
pub fn solo_runs(mix: &Mix, config: impl Fn(Mix, &str) -> RunConfig) -> Result<Vec<Option<RealJob>>, RuntimeError> {
    let mut out = vec![];
    for j in 0..mix.jobs.len() {
        let c = config(mix.only(&[j]), LINUX);
        let report = c.report.clone();
        report.line(|| format!("solo: {} …", mix.jobs[j].name));
        let r = run(c)?.completed()?;
        let job = r.jobs.into_iter().next();
        if let Some(e) = job.as_ref().and_then(|x| x.error.as_ref()) {
            report.line(|| format!("warning: solo run of {}: {e}", mix.jobs[j].name));
        }
        out.push(job.filter(|x| x.turnaround_s.is_some()));
    }
    Ok(out)
}

/// Solo turnaround of each job of `mix` (one instance alone, under `linux`),
/// `None` where the run failed; `config` builds each run's configuration.
pub fn solo_turnarounds(mix: &Mix, config: impl Fn(Mix, &str) -> RunConfig) -> Result<Vec<Option<f64>>, RuntimeError> {
    Ok(solo_runs(mix, config)?.into_iter().map(|j| j.and_then(|x| x.turnaround_s)).collect())
}

impl RealReport {
    /// The report of a run that ended by itself, or [`RuntimeError::Stopped`]
    /// saying how it was cut short (for callers that need a whole run).
    pub fn completed(self) -> Result<RealReport, RuntimeError> {
        match &self.stop {
            Some(s) => Err(RuntimeError::Stopped(s.clone())),
            None => Ok(self),
        }
    }

    /// Mean slowdown of the instances of mix job `job`, when measured.
    pub fn mean_slowdown(&self, job: &str) -> Option<f64> {
        self.mean_of(job, |x| x.slowdown)
    }

    /// The mean of `f` over the instances of mix job `job` that have it.
    pub fn mean_of(&self, job: &str, f: impl Fn(&RealJob) -> Option<f64>) -> Option<f64> {
        let s: Vec<f64> = self.jobs.iter().filter(|x| belongs(&x.name, job)).filter_map(f).collect();
        (!s.is_empty()).then(|| s.iter().sum::<f64>() / s.len() as f64)
    }
}
