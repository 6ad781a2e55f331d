//! cosched-policies: the scheduling policies of the five papers and their
//! baselines, written against the one policy interface of `cosched-core`
//! (docs/architecture.md, "The policy boundary"):
//!
//! * [`families`]: every policy with its typed parameters and knobs, and the
//!   registry the faces list and build them from ([`registry`], [`make`]);
//! * the papers' own algorithms the policies are built on: [`efs`] (the
//!   memory-bus collision model, EFS §4), [`slits`] (the Thread-Interaction
//!   Matrix, SLITS §3), [`rda`] (progress and resource monitors, RDA §3),
//!   [`perf_fair`] (progress accounting and OATR fitness, Perf&Fair §5);
//! * [`knob`]: the registered policies' knobs (the vocabulary is the core's).
//!
//! The framework (`cosched-core`) imports no policy; the backends and the
//! lab build policies through this crate (`crates/cosched-house/tests/layering.rs`).
#![warn(missing_docs)]

// The framework's modules, under the names the policies' code uses for them.
use cosched_core::{counters, ids, learn, policy, policy_error, policy_ext, suggest, text, topology};

pub mod efs;
pub mod families;
pub mod knob;
pub mod perf_fair;
pub mod rda;
pub mod slits;

pub use families::*;
