//! cosched on the real Linux machine: the capability probe behind
//! `cosched doctor`, and the user-level scheduler behind `cosched run`
//! (launching mixes of real commands, freezing and pinning whole process
//! trees as any policy decides, progress periods served to real programs,
//! energy from RAPL or a power model, and the fail-safe that never leaves a
//! process frozen, stopped or pinned).
//!
//! Depends on `cosched-core` and `cosched-machine` (machine description,
//! power model, trace format) only: must never import `cosched-sim` or a
//! front end (`crates/cosched-house/tests/layering.rs`). Comparing the
//! simulator with this machine lives in the CLI (`calibrate --check`).
#![warn(missing_docs)]

pub mod absence;
pub mod bench;
mod bench_child;
pub mod best_pairing;
pub mod best_static;
pub mod calibrate;
pub mod characterise;
pub mod control;
pub mod counters;
pub mod describe;
pub mod energy;
pub mod host;
pub mod method;
/// A real mix's description (shared with the simulator's model of it).
pub use cosched_machine::mix;
pub mod pp;
pub mod probe;
pub mod probing;
pub mod reap;
pub mod release;
pub mod reported;
pub mod runtime;
pub mod sys;
#[cfg(test)]
mod testutil;
pub mod watchdog;

pub use probe::{Capability, PmuStatus, Probe};
