//! cosched-sim: the simulated machine (`shared/design.md`, "The simulated
//! machine"): machine and workload presets, the contention ground truth,
//! the power model and the deterministic discrete-event engine.
#![warn(missing_docs)]

pub mod assignment;
pub mod contention;
pub mod engine;
pub mod error;
pub mod experiment;
pub mod model;
pub mod plan;
pub mod presets;
pub mod program;
pub mod spec;
pub mod trace;

pub use engine::{run, RunOutput, SimOptions, TraceSlice};
pub use error::ConfigError;
pub use plan::Plan;
pub use spec::{MachineSpec, WorkloadSpec};
