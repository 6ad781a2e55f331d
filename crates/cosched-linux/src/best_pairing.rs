//! The best static co-schedule of a mix on this machine:
//! Jiang et al.'s minimum-cost pairing (PACT 2008, §3) of the mix's
//! instances on the host's two-context sharing domains, from the pairwise
//! slowdowns `cosched probe` measured (or `cosched characterise` predicted),
//! completed by the Bayesian FM where a pair was not measured. It is optimal
//! for those pair costs only, and one member of the family the real
//! machine's bound searches ([`crate::best_static`], whose legend prints the
//! pairing's predicted makespan beside the chosen partition's).

use crate::mix::Mix;
use cosched_core::optimum::{pair_domains, place_pairs};
use cosched_core::pair_profile::PairProfile;
use cosched_core::topology::Topology;
use cosched_core::CtxId;
use serde::Serialize;

/// The minimum-cost pairing of a mix on this machine.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BestPairing {
    /// The sharing level whose domains hold two contexts (`core`, `LLC`, ...).
    pub level: &'static str,
    /// The context of every instance (the `static` policy's assignment).
    pub assignment: Vec<CtxId>,
    /// Instance pairs by name (`None`: beside an idle context).
    pub pairs: Vec<(String, Option<String>)>,
    /// Summed degradation of the pairing (the quantity it minimises).
    pub pair_cost: f64,
    /// Job-pair cells (job, next_to) the pairing read that were measured.
    pub measured_cells: usize,
    /// Cells it read that the completion predicted.
    pub predicted_cells: usize,
}

/// Why a mix has no best pairing.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PairingError {
    /// The profile lacks a job of the mix.
    #[error("{flag}: {0}", flag = cosched_policies::knob::flag_of("profile"))]
    Profile(#[from] cosched_core::pair_profile::MissingJob),
    /// More instances than contexts: no static co-schedule.
    #[error("no static co-schedule: {instances} instances on {contexts} contexts (each needs a context of its own)")]
    TooMany {
        /// Instances of the mix.
        instances: usize,
        /// Contexts of the machine.
        contexts: usize,
    },
    /// The pairing itself found none (no two-context level, sizes).
    #[error(transparent)]
    Search(#[from] cosched_core::optimum::SearchError),
}

/// The minimum-cost pairing of `mix`'s instances on `topology` under the
/// job-level slowdowns of `profile` (FM-completed with `seed`). `Err` says
/// why there is none: a job the profile lacks, more instances than
/// contexts, or no two-context sharing level.
pub fn best_pairing(
    topology: &Topology,
    mix: &Mix,
    profile: &PairProfile,
    seed: u64,
) -> Result<BestPairing, PairingError> {
    let names: Vec<String> = mix.jobs.iter().map(|j| j.name.clone()).collect();
    let profile = profile.reorder(&names)?;
    let instances = mix.instances();
    if instances.len() > topology.n_contexts() {
        return Err(PairingError::TooMany { instances: instances.len(), contexts: topology.n_contexts() });
    }
    let (level, domains) = pair_domains(topology)?;
    let slowdown = profile.complete(seed);
    let k = instances.len();
    let mut degradation = vec![0.0; k * k];
    for (a, ia) in instances.iter().enumerate() {
        for (b, ib) in instances.iter().enumerate() {
            if a != b {
                degradation[a * k + b] = slowdown[ia.job][ib.job] - 1.0;
            }
        }
    }
    let placed = place_pairs(&degradation, k, &domains)?;
    let (measured, predicted) = cells_read(&instances, &profile);
    Ok(BestPairing {
        level,
        assignment: placed.assignment.iter().map(|&c| CtxId(c)).collect(),
        pairs: placed
            .pairs
            .iter()
            .map(|&(i, j)| (instances[i].name.clone(), j.map(|j| instances[j].name.clone())))
            .collect(),
        pair_cost: placed.pair_cost,
        measured_cells: measured,
        predicted_cells: predicted,
    })
}

/// The job-pair cells (job of a, job of b, for two different instances) a search over
/// `instances` reads: how many `profile` measured, and how many its completion predicted.
pub(crate) fn cells_read(instances: &[cosched_machine::mix::Instance], profile: &PairProfile) -> (usize, usize) {
    let needed: std::collections::BTreeSet<(usize, usize)> = instances
        .iter()
        .enumerate()
        .flat_map(|(a, ia)| {
            instances.iter().enumerate().filter(move |&(b, _)| b != a).map(move |(_, ib)| (ia.job, ib.job))
        })
        .collect();
    let measured = needed.iter().filter(|c| profile.observed.iter().any(|o| (o.job, o.next_to) == **c)).count();
    (measured, needed.len() - measured)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use cosched_core::pair_profile::PairObservation;

    /// A mix of `count` instances of each named job (a command that does nothing).
    pub(crate) fn mix(jobs: &[(&str, u32)]) -> Mix {
        let mut text = String::from("name = \"m\"\n");
        for (n, c) in jobs {
            text += &format!("[[job]]\nname = \"{n}\"\ncmd = [\"true\"]\ncount = {c}\n");
        }
        Mix::parse("m.toml", &text).unwrap()
    }

    /// Every ordered pair measured: `slow[a][b]` is a's slowdown beside b.
    pub(crate) fn profile(names: &[&str], slow: &[&[f64]]) -> PairProfile {
        let mut observed = vec![];
        for (a, row) in slow.iter().enumerate() {
            for (b, &s) in row.iter().enumerate() {
                observed.push(PairObservation { job: a, next_to: b, slowdown: s });
            }
        }
        PairProfile {
            jobs: names.iter().map(|s| s.to_string()).collect(),
            solo_s: vec![1.0; names.len()],
            observed,
            source: Default::default(),
        }
    }

    #[test]
    fn the_two_heaviest_are_kept_apart_on_two_llc_pairs() {
        // Two LLC domains of two cores: mcf and lbm hurt each other most, so each goes beside a light job.
        let t = Topology::regular(1, 2, 2, 1, 1);
        let m = mix(&[("mcf", 1), ("lbm", 1), ("povray", 1), ("namd", 1)]);
        let p = profile(
            &["povray", "mcf", "namd", "lbm"], // the profile's own order: reordered to the mix's
            &[&[1.0, 1.1, 1.0, 1.1], &[1.2, 1.6, 1.2, 1.9], &[1.0, 1.1, 1.0, 1.1], &[1.2, 1.8, 1.2, 1.6]],
        );
        let b = best_pairing(&t, &m, &p, 1).unwrap();
        assert_eq!(b.level, "LLC");
        assert_eq!((b.measured_cells, b.predicted_cells), (12, 0));
        let together = |x: &str, y: &str| {
            b.pairs.iter().any(|(i, j)| {
                let j = j.as_deref();
                (i == x && j == Some(y)) || (i == y && j == Some(x))
            })
        };
        assert!(!together("mcf", "lbm"), "{:?}", b.pairs);
        assert!((b.pair_cost - 0.6).abs() < 1e-9, "{}", b.pair_cost);
        // Each instance on its own context, the pairs on different LLC domains.
        let llc: Vec<u32> = b.assignment.iter().map(|&c| t.ctx(c).llc).collect();
        assert_eq!(llc.iter().filter(|&&l| l == 0).count(), 2, "{llc:?}");
    }

    #[test]
    fn instances_of_one_job_share_its_row_and_what_cannot_be_paired_is_refused_with_why() {
        let t = Topology::regular(1, 1, 2, 1, 1);
        let p = profile(&["a"], &[&[1.3]]);
        let b = best_pairing(&t, &mix(&[("a", 2)]), &p, 1).unwrap();
        assert_eq!(b.pairs, vec![("a#0".to_string(), Some("a#1".to_string()))]);
        assert!((b.pair_cost - 0.6).abs() < 1e-9);
        assert_eq!((b.measured_cells, b.predicted_cells), (1, 0));
        let sparse = PairProfile { observed: vec![], ..profile(&["a", "b"], &[&[1.0, 1.2], &[1.1, 1.0]]) };
        let b = best_pairing(&t, &mix(&[("a", 1), ("b", 1)]), &sparse, 1).unwrap();
        assert_eq!((b.measured_cells, b.predicted_cells), (0, 2));
        let e = best_pairing(&t, &mix(&[("a", 3)]), &p, 1).unwrap_err().to_string();
        assert!(e.contains("3 instances on 2 contexts"), "{e}");
        let e = best_pairing(&t, &mix(&[("b", 1)]), &p, 1).unwrap_err().to_string();
        assert_eq!(e, "--profile: the profile has no job `b`");
        let e = best_pairing(&Topology::regular(1, 1, 4, 1, 1), &mix(&[("a", 2)]), &p, 1).unwrap_err().to_string();
        assert!(e.contains("exactly two contexts"), "{e}");
    }
}
