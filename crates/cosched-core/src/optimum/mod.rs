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

/// Why an exact search over co-schedules gave no answer: the instance is
/// larger than the search handles, malformed, or the machine lacks the
/// sharing level it needs. Each variant carries the figures it names.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SearchError {
    /// More jobs than the exact grouping takes ([`grouping::MAX_JOBS`]).
    #[error("grouping: {jobs} jobs exceed the exact search's limit of {limit}")]
    GroupingJobs {
        /// Jobs given.
        jobs: usize,
        /// The most it takes.
        limit: usize,
    },
    /// A sharing domain outside 1..=[`grouping::MAX_GROUP`] contexts.
    #[error("grouping: domains of {size} contexts; from 1 to {max}")]
    GroupSize {
        /// Contexts per domain.
        size: usize,
        /// The most it takes.
        max: usize,
    },
    /// More jobs than the domains' contexts.
    #[error("grouping: {jobs} jobs do not fit {domains} domains of {size}")]
    GroupsDoNotFit {
        /// Jobs given.
        jobs: usize,
        /// Domains available.
        domains: usize,
        /// Contexts per domain.
        size: usize,
    },
    /// A group cost list whose length is not one per subset of the jobs.
    #[error("grouping: {got} costs given for {jobs} jobs; expected one per subset, {want}")]
    GroupCosts {
        /// Entries given.
        got: usize,
        /// Jobs given.
        jobs: usize,
        /// Entries expected.
        want: u64,
    },
    /// A group (its job mask) whose cost is not finite.
    #[error("grouping: the cost of group {group:#b} is not a finite number: {cost}")]
    GroupCost {
        /// The group's job mask.
        group: usize,
        /// The cost given.
        cost: f64,
    },
    /// No partition of the jobs into groups fits the domains.
    #[error("grouping: no partition fits the domains")]
    NoGrouping,
    /// A slowdown matrix that is not instances × instances.
    #[error("{got} slowdowns for {instances} instances: {want} expected")]
    Slowdowns {
        /// Entries given.
        got: usize,
        /// Instances to place.
        instances: usize,
        /// Entries expected.
        want: usize,
    },
    /// A solo time or slowdown that is not finite and positive.
    #[error("a solo time or slowdown of {0} (finite and positive needed)")]
    NotPositive(f64),
    /// No domains, or no instances, to place.
    #[error("no domains or no instances")]
    Empty,
    /// More static partitions than the budget.
    #[error("more than {budget} static partitions of {instances} instances on {domains} two-context domains")]
    Partitions {
        /// The budget.
        budget: u64,
        /// Instances to place.
        instances: usize,
        /// Domains available.
        domains: usize,
    },
    /// An odd vertex count (a perfect pairing needs an even one).
    #[error("a perfect pairing needs an even number of vertices, got {0}")]
    OddVertices(usize),
    /// More vertices than the pairing takes.
    #[error("{n} vertices: at most {max}")]
    Vertices {
        /// Vertices.
        n: usize,
        /// The most it takes.
        max: usize,
    },
    /// A cost matrix that is not n × n.
    #[error("cost matrix has {got} entries, {n}×{n} = {want} expected")]
    CostMatrix {
        /// Entries given.
        got: usize,
        /// Vertices.
        n: usize,
        /// Entries expected.
        want: usize,
    },
    /// A pair whose cost is not finite.
    #[error("cost of pair ({i}, {j}) is {cost}: must be finite")]
    PairCost {
        /// First vertex.
        i: usize,
        /// Second vertex.
        j: usize,
        /// The cost given.
        cost: f64,
    },
    /// A degradation matrix that is not jobs × jobs.
    #[error("{got} degradations for {jobs} jobs: {want} expected")]
    Degradations {
        /// Entries given.
        got: usize,
        /// Jobs given.
        jobs: usize,
        /// Entries expected.
        want: usize,
    },
    /// More jobs than two-context domains hold.
    #[error("{jobs} jobs do not fit {domains} two-context domains")]
    PairsDoNotFit {
        /// Jobs given.
        jobs: usize,
        /// Domains available.
        domains: usize,
    },
    /// No sharing level holds exactly two contexts (the machine's counts).
    #[error(
        "no sharing level of this machine holds exactly two contexts ({contexts} contexts, {cores} cores, \
         {llcs} LLC domains, {sockets} sockets): the pairwise optimum (Jiang et al.) needs SMT pairs or two \
         cores per shared cache"
    )]
    NoPairLevel {
        /// Contexts of the machine.
        contexts: usize,
        /// Its cores.
        cores: u32,
        /// Its LLC domains.
        llcs: u32,
        /// Its sockets.
        sockets: u32,
    },
}
pub use domains::pair_domains;
pub use grouping::{brute_force_groups, min_cost_groups};
pub use matching::{brute_force_pairs, min_cost_pairs, pairing_cost, place_pairs, PairPlacement};
pub use partition::{best_partition, PartitionPlacement};
