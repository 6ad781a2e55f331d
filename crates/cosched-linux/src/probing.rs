//! Co-run probing (`cosched probe`): profiles without a PMU. Each job of a
//! mix runs solo, pinned to one context; then a seeded sparse subset of job
//! pairs (self-pairs included) runs with the two jobs pinned to two
//! contexts on different cores that share a last-level cache. The
//! slowdowns go into a job-level Thread-Interaction Matrix
//! ([`PairProfile`]), which the factorization machine completes (SLITS
//! §3.2-3.3).
//!
//! A pair run is clean only while both jobs run: the job that finishes
//! first was beside its partner the whole time, so its slowdown is always
//! recorded; the other's only when its partner ran at least
//! [`CLEAN_OVERLAP`] of its turnaround (otherwise it ran partly alone and
//! its slowdown is diluted).

use crate::host::Host;
use crate::mix::Mix;
use crate::runtime::{self, RunConfig};
use cosched_core::progress::Reporter;
use cosched_core::CtxId;
use cosched_policies::slits::{PairObservation, PairProfile};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Co-run probing that could not finish.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// This machine lacks two cores sharing a last-level cache.
    #[error("co-run probing needs two cores sharing a last-level cache; this machine has fewer")]
    NoSharedLlc,
    /// A probing run was refused or stopped.
    #[error("{0}")]
    Run(#[from] crate::runtime::RuntimeError),
    /// A job of a probing run did not finish.
    #[error("{job}: {}", error.as_deref().unwrap_or("did not finish"))]
    Job {
        /// The job.
        job: String,
        /// Why it did not run, as its report says (`None`: it ran and did not finish).
        error: Option<String>,
    },
}

/// Share of a job's turnaround its partner must cover for its slowdown to count.
pub const CLEAN_OVERLAP: f64 = 0.9;

/// Two contexts on different cores sharing an LLC (the first such pair).
pub fn probe_contexts(h: &Host) -> Option<(CtxId, CtxId)> {
    corun_pair(&h.topology)
}

pub use cosched_core::topology::corun_pair;

/// Matrices of at most this many cells (n² for n jobs) are measured whole:
/// completing a 2×2 or 4×4 matrix from half its cells predicts from too little.
pub const WHOLE_MATRIX_CELLS: usize = 16;

/// Unordered job pairs (a ≤ b) to measure: every pair when the matrix has at
/// most [`WHOLE_MATRIX_CELLS`] cells, else a seeded `share` of all that
/// includes at least one pair of every job.
pub fn choose_pairs(n_jobs: usize, share: f64, seed: u64) -> Vec<(usize, usize)> {
    let mut all: Vec<(usize, usize)> = (0..n_jobs).flat_map(|a| (a..n_jobs).map(move |b| (a, b))).collect();
    if n_jobs * n_jobs <= WHOLE_MATRIX_CELLS {
        return all;
    }
    all.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    let want = ((share.clamp(0.0, 1.0) * all.len() as f64).ceil() as usize).max(n_jobs.min(all.len()));
    // First the earliest shuffled pair of each job not yet covered, then the rest in shuffled order.
    let mut covered = vec![false; n_jobs];
    let mut chosen: Vec<(usize, usize)> = vec![];
    for &(a, b) in &all {
        if !covered[a] || !covered[b] {
            covered[a] = true;
            covered[b] = true;
            chosen.push((a, b));
        }
    }
    for &p in &all {
        if chosen.len() >= want {
            break;
        }
        if !chosen.contains(&p) {
            chosen.push(p);
        }
    }
    chosen.sort_unstable();
    chosen
}

/// Probe `mix` (its jobs, one instance each): `base` supplies the freezer,
/// watchdog and tick; progress lines go to `report`.
pub fn probe(
    mix: &Mix,
    share: f64,
    seed: u64,
    base: impl Fn(Mix, &str) -> RunConfig,
    report: &Reporter,
) -> Result<PairProfile, ProbeError> {
    let host = Host::live();
    let (c0, c1) = probe_contexts(&host).ok_or(ProbeError::NoSharedLlc)?;
    let run_pinned = |m: Mix, ctxs: Vec<CtxId>| -> Result<Vec<f64>, ProbeError> {
        let mut cfg = base(m, "static");
        cfg.opts.assignment = Some(ctxs);
        let r = runtime::run(cfg)?.completed()?;
        r.jobs
            .iter()
            .map(|j| j.turnaround_s.ok_or_else(|| ProbeError::Job { job: j.name.clone(), error: j.error.clone() }))
            .collect()
    };
    let n = mix.jobs.len();
    let mut solo_s = vec![];
    for j in 0..n {
        report.line(|| format!("probe: {} solo", mix.jobs[j].name));
        solo_s.push(run_pinned(mix.only(&[j]), vec![c0])?[0]);
    }
    let mut observed = vec![];
    for (a, b) in choose_pairs(n, share, seed) {
        report.line(|| format!("probe: {} beside {}", mix.jobs[a].name, mix.jobs[b].name));
        let t = run_pinned(mix.only(&[a, b]), vec![c0, c1])?;
        let (ta, tb) = (t[0], t[1]);
        let first_a = ta <= tb;
        let (first, second, tf, ts) = if first_a { (a, b, ta, tb) } else { (b, a, tb, ta) };
        observed.push(PairObservation { job: first, next_to: second, slowdown: tf / solo_s[first] });
        if tf >= CLEAN_OVERLAP * ts {
            observed.push(PairObservation { job: second, next_to: first, slowdown: ts / solo_s[second] });
        }
    }
    Ok(PairProfile {
        jobs: mix.jobs.iter().map(|j| j.name.clone()).collect(),
        solo_s,
        observed,
        source: Default::default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_are_a_seeded_sparse_cover() {
        let p = choose_pairs(6, 0.5, 1);
        assert_eq!(p.len(), 11); // ceil(0.5 × 21)
        assert_eq!(p, choose_pairs(6, 0.5, 1));
        assert!(p.iter().all(|&(a, b)| a <= b && b < 6));
        for j in 0..6 {
            assert!(p.iter().any(|&(a, b)| a == j || b == j), "job {j} covered: {p:?}");
        }
        let few = choose_pairs(6, 0.0, 1);
        assert!(few.len() >= 3 && few.len() <= 6, "{few:?}");
        assert!((0..6).all(|j| few.iter().any(|&(a, b)| a == j || b == j)), "{few:?}");
        // Small matrices (n² ≤ 16) are measured whole, whatever the share.
        assert_eq!(choose_pairs(2, 0.5, 1), vec![(0, 0), (0, 1), (1, 1)]);
        assert_eq!(choose_pairs(4, 0.1, 3).len(), 10);
    }

    #[test]
    fn probe_contexts_skip_smt_siblings() {
        let mut h = Host::live();
        h.topology = cosched_core::Topology::regular(1, 1, 2, 1, 2);
        h.cpus = vec![0, 1, 2, 3];
        assert_eq!(probe_contexts(&h), Some((CtxId(0), CtxId(2))));
        h.topology = cosched_core::Topology::regular(1, 1, 1, 1, 2);
        assert_eq!(probe_contexts(&h), None);
    }
}
