//! How far from the best: the static co-schedules of a workload
//! on a machine, counted and enumerated up to the machine's symmetry
//! ([`coschedule`]), and the minimum-cost pairing of jobs on two-context
//! sharing domains ([`matching`]; Jiang, Shen, Chen, Tripathi, "Analysis and
//! approximation of optimal co-scheduling on chip multiprocessors", PACT 2008,
//! §3: optimal co-scheduling for pairs is a minimum-weight perfect matching),
//! and the minimum-cost grouping on larger domains, exact by dynamic
//! programming over subsets at small sizes ([`grouping`]), and the static
//! partition with idle contexts allowed of least predicted makespan from
//! pair costs and solo times ([`partition`]: the real machine's bound).
//!
//! What is measured stays with the backend: this module only says which
//! co-schedules exist and which pairing minimises a given pairwise cost. A
//! co-schedule is called *optimal* only when every distinct one was measured
//! (exhaustive) or when the objective is the pairwise cost itself.

pub mod coschedule;
pub mod domains;
pub mod grouping;
pub mod matching;
pub mod partition;

pub use coschedule::Tree;

/// Why an exact search over co-schedules gave no answer.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SearchError {
    /// The instance is larger than the search handles (jobs, domains, vertices).
    #[error("{0}")]
    TooLarge(String),
    /// The instance is malformed: sizes that do not match, a cost that is not finite.
    #[error("{0}")]
    Malformed(String),
    /// The machine has no sharing level the search needs.
    #[error("{0}")]
    NoLevel(String),
}
pub use domains::pair_domains;
pub use grouping::{brute_force_groups, min_cost_groups};
pub use matching::{brute_force_pairs, min_cost_pairs, pairing_cost, place_pairs, PairPlacement};
pub use partition::{best_partition, PartitionPlacement};
