//! RDA, resource-demand-aware scheduling with progress periods (paper 002):
//! the progress monitor (registry of active periods), the resource monitor
//! (load table per resource), the scheduling predicate (Algorithm 1) with
//! the Strict and Compromise policies, the waitlist, and working-set growth
//! prediction (§4.4). The policy is [`crate::families::Rda`].

pub mod growth;
pub mod monitor;
pub mod profile;
/// The progress-period wire protocol (the core's: both backends and the C library speak it).
pub use cosched_core::pp_wire as wire;

pub use growth::LogFit;
pub use monitor::{Monitor, RdaPolicy};

pub use cosched_core::pp_wire::{MEASURED_PP_CALL_US, MEASURED_PP_CALL_US_TEXT};
