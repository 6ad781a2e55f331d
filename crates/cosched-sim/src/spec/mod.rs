//! Workload input files (TOML), parsed strictly (unknown fields are errors)
//! and validated field by field. The machine description lives in
//! `cosched-machine`.

pub mod workload;
mod workload_checks;

pub use workload::WorkloadSpec;
