//! The real machine's bound: the static partition of a mix's instances on
//! this host's two-context sharing domains with idle contexts allowed (each
//! instance pinned to one context, a context's instances taking turns, any
//! context idle: the family of the simulator's bound), of least makespan
//! predicted from the profile's solo times and pairwise slowdowns
//! ([`cosched_core::optimum::partition`]). Where the instances fit one per
//! context, Jiang et al.'s minimum-cost pairing ([`crate::best_pairing`]) is
//! in the family and its predicted makespan is reported beside. `cosched run
//! --policies` runs the partition as the entry [`ENTRY`] (the `static`
//! policy pinned to it) and measures it like any other policy: the
//! prediction only chooses it.

use crate::best_pairing::{best_pairing, PairingError};
use crate::mix::Mix;
use cosched_core::optimum::pair_domains;
use cosched_core::optimum::partition::{best_partition, predicted_makespan};
use cosched_core::pair_profile::PairProfile;
use cosched_core::topology::Topology;
use cosched_core::CtxId;
use serde::Serialize;

/// The entry label of the pinned best static partition in `cosched run --policies`.
pub const ENTRY: &str = "best-static";

/// Most partitions the search predicts (up to symmetry) before it is refused.
pub const PARTITION_BUDGET: u64 = 1_000_000;

cosched_core::metric_fields! {
    /// The best static partition of a mix on this machine.
    #[derive(Clone, Debug, PartialEq, Serialize)]
    pub struct StaticPartition {
        /// The sharing level whose domains hold two contexts (`core`, `LLC`, ...).
        pub level: &'static str,
        /// The context of every instance (the `static` policy's assignment).
        pub assignment: Vec<CtxId>,
        /// The instances of every context, by context id (empty: idle).
        pub contexts: Vec<Vec<String>>,
        /// Its predicted makespan, s.
        pub predicted_makespan_s: f64,
        /// Partitions predicted (distinct up to swapping domains and a domain's contexts).
        pub candidates: u64,
        /// The minimum-cost pairing's predicted makespan, s, where every instance fits a context
        /// of its own (`None`: more instances than contexts).
        pub pairing_makespan_s: Option<f64>,
        /// Job-pair cells (job, next_to) the search read that were measured.
        pub measured_cells: usize,
        /// Cells it read that the completion predicted.
        pub predicted_cells: usize,
    }
}

/// The static partition of `mix`'s instances on `topology` of least makespan predicted from
/// `profile`'s solo times and job-level slowdowns (FM-completed with `seed`). `Err` says why
/// there is none: a job the profile lacks, no two-context sharing level, or more partitions
/// than [`PARTITION_BUDGET`].
pub fn best_static(
    topology: &Topology,
    mix: &Mix,
    profile: &PairProfile,
    seed: u64,
) -> Result<StaticPartition, PairingError> {
    search(topology, mix, profile, seed, PARTITION_BUDGET)
}

fn search(
    topology: &Topology,
    mix: &Mix,
    profile: &PairProfile,
    seed: u64,
    budget: u64,
) -> Result<StaticPartition, PairingError> {
    let names: Vec<String> = mix.jobs.iter().map(|j| j.name.clone()).collect();
    let ordered = profile.reorder(&names)?;
    let instances = mix.instances();
    let (level, domains) = pair_domains(topology)?;
    let slowdown = ordered.complete(seed);
    let k = instances.len();
    let solo: Vec<f64> = instances.iter().map(|i| ordered.solo_s[i.job]).collect();
    let mut slow = vec![1.0; k * k];
    for (a, ia) in instances.iter().enumerate() {
        for (b, ib) in instances.iter().enumerate() {
            slow[a * k + b] = slowdown[ia.job][ib.job];
        }
    }
    let placed = best_partition(&solo, &slow, &domains, budget)?;
    let pairing = match best_pairing(topology, mix, profile, seed) {
        Ok(p) => {
            let a: Vec<u32> = p.assignment.iter().map(|c| c.0).collect();
            Some(predicted_makespan(&a, &solo, &|i, j| slow[i * k + j], &domains))
        }
        Err(PairingError::TooMany { .. }) => None,
        Err(e) => return Err(e),
    };
    let mut contexts = vec![vec![]; topology.n_contexts()];
    for (i, &c) in placed.assignment.iter().enumerate() {
        contexts[c as usize].push(instances[i].name.clone());
    }
    let (measured, predicted) = crate::best_pairing::cells_read(&instances, &ordered);
    Ok(StaticPartition {
        level,
        assignment: placed.assignment.iter().map(|&c| CtxId(c)).collect(),
        contexts,
        predicted_makespan_s: placed.makespan,
        candidates: placed.candidates,
        pairing_makespan_s: pairing,
        measured_cells: measured,
        predicted_cells: predicted,
    })
}

impl StaticPartition {
    /// The partition in one line: each context's instances (`+` taking turns), `idle` where none.
    pub fn describe(&self) -> String {
        self.contexts
            .iter()
            .enumerate()
            .map(|(c, v)| format!("{c}: {}", if v.is_empty() { "idle".to_string() } else { v.join("+") }))
            .collect::<Vec<_>>()
            .join(" | ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::best_pairing::tests::mix;

    fn profile(names: &[&str], solo: &[f64], slow: &[&[f64]]) -> PairProfile {
        PairProfile { solo_s: solo.to_vec(), ..crate::best_pairing::tests::profile(names, slow) }
    }

    /// Two jobs on this VM's shape (two cores sharing an LLC): co-running at a small cost is
    /// the pairing itself; when each doubles the other's time and more, taking turns on one
    /// context with the other idle is predicted faster, and chosen.
    #[test]
    fn a_context_is_left_idle_when_the_pair_costs_more_than_taking_turns() {
        let t = Topology::regular(1, 1, 2, 1, 1);
        let m = mix(&[("chase", 1), ("compute", 1)]);
        let mild = profile(&["compute", "chase"], &[2.0, 1.0], &[&[1.0, 1.05], &[1.04, 1.0]]);
        let b = best_static(&t, &m, &mild, 1).unwrap();
        assert_eq!(b.describe(), "0: chase | 1: compute");
        assert_eq!(b.pairing_makespan_s, Some(b.predicted_makespan_s));
        assert_eq!((b.measured_cells, b.predicted_cells), (2, 0));
        let harsh = profile(&["compute", "chase"], &[1.0, 1.0], &[&[1.0, 3.0], &[3.0, 1.0]]);
        let b = best_static(&t, &m, &harsh, 1).unwrap();
        assert_eq!(b.describe(), "0: chase+compute | 1: idle");
        assert_eq!((b.predicted_makespan_s, b.pairing_makespan_s), (2.0, Some(3.0)));
    }

    /// More instances than contexts, where no pairing exists: the partition still does
    /// (four copies on two contexts take turns two by two), and the refusals say why.
    #[test]
    fn oversubscribed_mixes_get_a_partition_and_refusals_say_why() {
        let t = Topology::regular(1, 1, 2, 1, 1);
        let p = profile(&["a"], &[1.0], &[&[1.2]]);
        let b = best_static(&t, &mix(&[("a", 4)]), &p, 1).unwrap();
        assert_eq!(b.pairing_makespan_s, None);
        assert_eq!(b.contexts.iter().map(Vec::len).collect::<Vec<_>>(), [2, 2], "{}", b.describe());
        assert!((b.predicted_makespan_s - 2.4).abs() < 1e-12, "{}", b.predicted_makespan_s);
        let e = best_static(&t, &mix(&[("b", 1)]), &p, 1).unwrap_err().to_string();
        assert_eq!(e, "--profile: the profile has no job `b`");
        let e = best_static(&Topology::regular(1, 1, 4, 1, 1), &mix(&[("a", 2)]), &p, 1).unwrap_err().to_string();
        assert!(e.contains("exactly two contexts"), "{e}");
        let e = search(&Topology::regular(1, 4, 2, 1, 1), &mix(&[("a", 8)]), &p, 1, 1000).unwrap_err().to_string();
        assert!(e.contains("more than 1000 static partitions of 8 instances on 4 two-context domains"), "{e}");
    }
}
