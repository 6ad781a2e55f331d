//! cosched-sim: the simulated machine (docs/architecture.md, "The simulated
//! machine"): workload presets, the contention ground truth, the
//! deterministic discrete-event engine and experiments over it.
//!
//! The machine description, machine presets, power model, trace format and
//! configuration error come from `cosched-machine` (shared with the real
//! runtime). Depends on `cosched-core` and `cosched-machine` only: must never
//! import `cosched-linux` or a front end (`crates/cosched-house/tests/layering.rs`).
#![warn(missing_docs)]

pub mod contention;
pub mod dram;
pub mod engine;
pub mod experiment;
pub mod model;
pub mod plan;
pub mod presets;
pub mod program;
pub mod spec;
pub mod variation;

pub use engine::{run, RunOutput, SimError, SimOptions};
pub use plan::Plan;
pub use spec::WorkloadSpec;
