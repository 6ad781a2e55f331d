//! Profiles measured by co-run probing (no PMU needed): each job run solo
//! and a sparse subset of job pairs co-run, the slowdown of each job next
//! to each other recorded as a job-level Thread-Interaction Matrix (SLITS
//! §3.2's TIM with slowdown as the statistic) and completed by a
//! factorization machine (SLITS §3.3; by default the Bayesian FM,
//! [`crate::learn::complete_bayes`]) — the paper's remedy for sparsity,
//! applied to a matrix measured with wall clocks instead of counters.

use crate::learn::{complete_bayes, BayesCompletion, BfmParams};
use serde::{Deserialize, Serialize};

/// A run's job that a pair profile does not cover.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("the profile has no job `{0}`")]
pub struct MissingJob(pub String);

/// One probed pair: `job` slowed by `slowdown` when co-running with `next_to`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairObservation {
    /// The job whose slowdown this is (index into [`PairProfile::jobs`]).
    pub job: usize,
    /// The job it ran beside.
    pub next_to: usize,
    /// Co-run turnaround / solo turnaround.
    pub slowdown: f64,
}

/// A probed profile (`cosched probe` output, `cosched run --profile` input).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairProfile {
    /// Job names (mix entries).
    pub jobs: Vec<String>,
    /// Solo turnaround of each job, s.
    pub solo_s: Vec<f64>,
    /// Measured pairs.
    pub observed: Vec<PairObservation>,
    /// Where the pairs' slowdowns come from (absent in a probe's file: measured).
    #[serde(default, skip_serializing_if = "PairSource::is_measured")]
    pub source: PairSource,
}

/// Where a profile's pair slowdowns come from (SLITS §3.3's matrix, filled by
/// measurement or by prediction).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum PairSource {
    /// Measured pair by pair (co-run probing).
    #[default]
    Measured,
    /// Predicted by the simulator for characterised programs on `machine`.
    Predicted {
        /// The machine description the predictions ran on.
        machine: String,
    },
    /// Measured where measured, the rest predicted on `machine`.
    MeasuredThenPredicted {
        /// The machine description the predictions ran on.
        machine: String,
    },
}

impl PairSource {
    /// Whether every pair was measured.
    pub fn is_measured(&self) -> bool {
        *self == PairSource::Measured
    }
}

impl PairProfile {
    /// Share of the ordered job pairs (self-pairs included) that were measured.
    pub fn density(&self) -> f64 {
        let n = self.jobs.len();
        let mut seen = std::collections::BTreeSet::new();
        for o in &self.observed {
            seen.insert((o.job, o.next_to));
        }
        seen.len() as f64 / (n * n).max(1) as f64
    }

    /// The (job, next_to) cells no pair measured, row by row.
    fn unmeasured(&self) -> Vec<(usize, usize)> {
        let n = self.jobs.len();
        let measured: std::collections::BTreeSet<(usize, usize)> =
            self.observed.iter().map(|o| (o.job, o.next_to)).collect();
        (0..n).flat_map(|j| (0..n).map(move |k| (j, k))).filter(|c| !measured.contains(c)).collect()
    }

    /// The Bayesian completion ([`crate::learn::complete_bayes`])
    /// of the job-level matrix from the measured pairs: each unmeasured cell's
    /// posterior mean and standard deviation (one-hot job and next_to
    /// features; row + column means below 10 measured cells, with the reason).
    /// None without measured pairs.
    pub fn completion(&self, seed: u64) -> Option<BayesCompletion> {
        let n = self.jobs.len();
        let cells: Vec<(usize, usize, f64)> = self.observed.iter().map(|o| (o.job, o.next_to, o.slowdown)).collect();
        complete_bayes(&cells, n, n, &self.unmeasured(), &BfmParams::default(), seed).ok()
    }

    /// The completed matrix `m[job][next_to]` of slowdowns: measured entries
    /// as measured (mean of repeats), the rest predicted by
    /// [`Self::completion`] (1 without any measurement).
    pub fn complete(&self, seed: u64) -> Vec<Vec<f64>> {
        self.complete_with(self.completion(seed).as_ref())
    }

    /// As [`Self::complete`] with a completion already made (callers that
    /// also report the model need not fit it twice).
    pub fn complete_with(&self, model: Option<&BayesCompletion>) -> Vec<Vec<f64>> {
        let n = self.jobs.len();
        let predicted: std::collections::BTreeMap<(usize, usize), f64> = match model {
            Some(c) => self.unmeasured().into_iter().zip(c.predictions.iter().map(|p| p.0)).collect(),
            None => Default::default(),
        };
        let mut m = vec![vec![0.0; n]; n];
        for (j, row) in m.iter_mut().enumerate() {
            for (k, v) in row.iter_mut().enumerate() {
                let obs: Vec<f64> =
                    self.observed.iter().filter(|o| o.job == j && o.next_to == k).map(|o| o.slowdown).collect();
                *v = if obs.is_empty() {
                    predicted.get(&(j, k)).map_or(1.0, |v| v.max(1e-3))
                } else {
                    obs.iter().sum::<f64>() / obs.len() as f64
                };
            }
        }
        m
    }

    /// This profile with every (job, next_to) cell it lacks taken from
    /// `other` (matched by job name): measured pairs completed by predicted
    /// ones before any FM completion.
    pub fn filled_from(&self, other: &PairProfile) -> PairProfile {
        let mut out = self.clone();
        if let PairSource::Predicted { machine } | PairSource::MeasuredThenPredicted { machine } = &other.source {
            out.source = PairSource::MeasuredThenPredicted { machine: machine.clone() };
        }
        let at = |name: &str| other.jobs.iter().position(|j| j == name);
        for a in 0..self.jobs.len() {
            for b in 0..self.jobs.len() {
                if self.observed.iter().any(|o| o.job == a && o.next_to == b) {
                    continue;
                }
                let (Some(oa), Some(ob)) = (at(&self.jobs[a]), at(&self.jobs[b])) else { continue };
                if let Some(o) = other.observed.iter().find(|o| o.job == oa && o.next_to == ob) {
                    out.observed.push(PairObservation { job: a, next_to: b, slowdown: o.slowdown });
                }
            }
        }
        out
    }

    /// Reorder to `names` (a run's jobs in its own order); `Err` names a job the profile lacks.
    pub fn reorder(&self, names: &[String]) -> Result<PairProfile, MissingJob> {
        let idx: Vec<usize> = names
            .iter()
            .map(|n| self.jobs.iter().position(|j| j == n).ok_or_else(|| MissingJob(n.clone())))
            .collect::<Result<_, _>>()?;
        let back = |old: usize| idx.iter().position(|&i| i == old);
        Ok(PairProfile {
            jobs: names.to_vec(),
            solo_s: idx.iter().map(|&i| self.solo_s[i]).collect(),
            observed: self
                .observed
                .iter()
                .filter_map(|o| {
                    Some(PairObservation { job: back(o.job)?, next_to: back(o.next_to)?, slowdown: o.slowdown })
                })
                .collect(),
            source: self.source.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measured_cells_stay_and_missing_ones_come_from_the_other_profile() {
        let obs = |job, next_to, slowdown| PairObservation { job, next_to, slowdown };
        let measured = PairProfile {
            jobs: vec!["a".into(), "b".into()],
            solo_s: vec![1.0, 2.0],
            observed: vec![obs(0, 1, 1.5)],
            source: PairSource::Measured,
        };
        // Predicted, in another job order, with a job the measured profile lacks.
        let predicted = PairProfile {
            jobs: vec!["c".into(), "b".into(), "a".into()],
            solo_s: vec![1.0, 2.0, 1.0],
            observed: (0..3).flat_map(|x| (0..3).map(move |y| obs(x, y, 1.0 + (3 * x + y) as f64 / 10.0))).collect(),
            source: PairSource::Predicted { machine: "m".into() },
        };
        let f = measured.filled_from(&predicted);
        assert_eq!(f.jobs, measured.jobs);
        assert_eq!(f.source, PairSource::MeasuredThenPredicted { machine: "m".into() });
        assert_eq!(f.observed.len(), 4);
        let at = |a, b| f.observed.iter().find(|o| o.job == a && o.next_to == b).unwrap().slowdown;
        assert_eq!(at(0, 1), 1.5, "measured kept");
        assert_eq!(at(0, 0), 1.8, "a beside a: predicted (2, 2)");
        assert_eq!(at(1, 0), 1.5, "b beside a: predicted (1, 2)");
        assert_eq!(at(1, 1), 1.4, "b beside b: predicted (1, 1)");
    }

    /// Slowdown = 1 + sensitivity(job) × pressure(next_to): rank one, as
    /// cache contention roughly is; the FM must recover hidden entries.
    #[test]
    fn fm_completion_recovers_hidden_entries_of_a_rank_one_matrix() {
        let sens = [0.05, 0.9, 0.4, 0.7, 0.1, 0.6];
        let pres = [0.1, 0.8, 0.5, 0.9, 0.05, 0.3];
        let n = sens.len();
        let truth = |j: usize, k: usize| 1.0 + sens[j] * pres[k];
        let mut observed = vec![];
        let mut hidden = vec![];
        for j in 0..n {
            for k in 0..n {
                // Keep ~60%: a deterministic sparse pattern.
                if (j * 7 + k * 3) % 5 < 3 {
                    observed.push(PairObservation { job: j, next_to: k, slowdown: truth(j, k) });
                } else {
                    hidden.push((j, k));
                }
            }
        }
        let p = PairProfile {
            jobs: (0..n).map(|i| format!("j{i}")).collect(),
            solo_s: vec![1.0; n],
            observed,
            source: PairSource::Measured,
        };
        assert!((p.density() - (n * n - hidden.len()) as f64 / (n * n) as f64).abs() < 1e-12);
        let m = p.complete(3);
        let err: f64 = hidden.iter().map(|&(j, k)| (m[j][k] - truth(j, k)).abs()).sum::<f64>() / hidden.len() as f64;
        // The oracle: predicting the mean of the observed entries.
        let mean: f64 = p.observed.iter().map(|o| o.slowdown).sum::<f64>() / p.observed.len() as f64;
        let base: f64 = hidden.iter().map(|&(j, k)| (mean - truth(j, k)).abs()).sum::<f64>() / hidden.len() as f64;
        // 22 measured cells of 36: the Bayesian FM against the mean of the measured cells.
        assert!(err < 0.5 * base, "completion error {err:.4} vs mean-predictor {base:.4}");
        let c = p.completion(3).unwrap();
        assert!(matches!(c.chosen, crate::learn::Chosen::Bayes { .. }), "{:?}", c.chosen);
        assert_eq!(c.predictions.len(), hidden.len());
        for o in &p.observed {
            assert_eq!(m[o.job][o.next_to], o.slowdown);
        }
    }

    #[test]
    fn reorder_follows_names_and_reports_missing() {
        let p = PairProfile {
            jobs: vec!["a".into(), "b".into()],
            solo_s: vec![1.0, 2.0],
            observed: vec![PairObservation { job: 0, next_to: 1, slowdown: 1.5 }],
            source: PairSource::Measured,
        };
        let q = p.reorder(&["b".into(), "a".into()]).unwrap();
        assert_eq!(q.solo_s, vec![2.0, 1.0]);
        assert_eq!(q.observed[0], PairObservation { job: 1, next_to: 0, slowdown: 1.5 });
        assert_eq!(p.reorder(&["c".into()]).unwrap_err().to_string(), "the profile has no job `c`");
    }
}
