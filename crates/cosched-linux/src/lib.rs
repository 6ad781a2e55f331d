//! cosched on the real Linux machine. This first part is the capability
//! probe behind `cosched doctor`: what the machine offers the schedulers
//! (hardware counters, RAPL energy, cgroup freezer and cpuset, SMT siblings,
//! LLC domains, privileges) and what follows when something is missing.
//! The user-level scheduler (`cosched run`), the progress-period server and
//! its C library come next (see the README's roadmap).
#![warn(missing_docs)]

pub mod probe;

pub use probe::{Capability, PmuStatus, Probe};
