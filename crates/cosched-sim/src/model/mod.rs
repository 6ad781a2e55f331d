//! The ground-truth model of the simulated machine (policies never see it):
//! miss-rate curves, the loaded-latency curve and the per-phase constants derived from a workload preset on a given machine.

pub mod latency;
pub mod mrc;
pub mod phase;
pub mod trace;

pub use latency::LoadedLatency;
pub use mrc::{MissRateCurve, RandomMisses};
pub use phase::PhaseModel;
