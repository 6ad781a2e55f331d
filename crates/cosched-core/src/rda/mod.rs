//! RDA, resource-demand-aware scheduling with progress periods (paper 002):
//! the progress monitor (registry of active periods), the resource monitor
//! (load table per resource), the scheduling predicate (Algorithm 1) with
//! the Strict and Compromise policies, the waitlist, and working-set growth
//! prediction (§4.4). The policy is [`crate::policies::Rda`].

pub mod growth;
pub mod monitor;
pub mod profile;
pub mod wire;

pub use growth::LogFit;
pub use monitor::{Monitor, RdaPolicy};

/// Cost of one `pp_begin` or `pp_end` call on cosched's real runtime, µs:
/// half the median round trip (begin + end, through the C library) of a
/// process alone under `rda-strict`, measured by `scripts/bench-pp` on the
/// 2-core KVM development guest on 2026-11-22 (137 µs round trip p50, p99
/// 192 µs; `docs/results/runtime/pp-cost.json`). The simulator's default
/// `--pp-cost-us`. It is the user-level runtime's cost (a socket to the
/// scheduler's server thread, the event loop, the policy's admission, and
/// pinning the tree back on its context), not the paper's in-kernel
/// implementation's, which the paper does not state (§4.3).
pub const MEASURED_PP_CALL_US: f64 = 69.0;
/// [`MEASURED_PP_CALL_US`] as the knobs' declarations write a default.
pub const MEASURED_PP_CALL_US_TEXT: &str = "69";
