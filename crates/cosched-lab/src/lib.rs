//! cosched-lab: the experiments as a library. What the command line and the
//! Python package run — a run's specification, comparisons, batches of runs,
//! the optimum and random-assignment searches — with typed options in and
//! results as data out; no command-line parsing and no printing (the faces,
//! `cosched-cli` and `cosched-py`, render what it returns).
//!
//! Depends on the core, the shared machine crate and the simulator; never on
//! a face (`crates/cosched-house/tests/layering.rs`).
#![warn(missing_docs)]

pub mod ablation;
pub mod assign;
pub mod assignment;
pub mod best_static;
pub mod cache;
pub mod characterise;
pub mod compare;
pub mod declared;
pub mod dram_check;
pub mod error;
pub mod evt;
pub mod failure;
pub mod family;
pub mod job_sched;
pub mod knobs;
pub mod limits;
pub mod list;
pub mod mix_model;
pub mod optimum;
pub mod paper;
pub mod programs;
pub mod report;
pub mod spec;
pub mod sweep;
pub mod table;
pub mod timeshare_check;
pub mod validate;

pub use error::RunError;
pub use spec::{Resolved, RunSpec};
