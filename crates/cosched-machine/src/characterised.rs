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
}
