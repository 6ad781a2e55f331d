//! Perf&Fair (Feliu, Sahuquillo, Petit, Duato; paper 004): progress
//! accounting (§3, Eq. 1), process selection in IPC-estimation mode (§5.1)
//! and performance-and-fairness mode (§5.2, Algorithm 1), and L1-bandwidth
//! aware allocation onto SMT cores (§5.3). The policies built from these
//! pieces (`perf-fair`, `perf`, `fair`, `perf-fair-oracle`) are in
//! [`crate::families::PerfFair`].

pub mod allocate;
pub mod progress;
pub mod select;

pub use allocate::allocate;
pub use progress::Progress;
pub use select::{estimation_select, fitness, oatr, pf_select, Candidate, Estimation};
