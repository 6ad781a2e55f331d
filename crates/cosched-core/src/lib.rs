//! cosched-core: the pieces every backend and front end shares, with no I/O.
//!
//! * [`ids`], [`topology`], [`counters`]: the vocabulary a policy sees.
//! * [`policy`]: the one interface between scheduling policies and backends
//!   (events in, decisions out; docs/architecture.md, "The policy boundary").
//! * [`knob`]: the vocabulary a policy declares its knobs in; the
//!   policies themselves are `cosched-policies`' (the core imports none).
//! * [`pair_profile`], [`pp_wire`]: what a backend hands a policy beside its
//!   counters (probed pair slowdowns; progress-period requests on the wire).
//! * [`metrics`]: STP, ANTT, unfairness and the other per-run figures.
//! * [`stats`]: small statistics helpers (percentiles, t-intervals).
//! * [`optimum`]: distinct static co-schedules and minimum-cost pairing.
//!
//! No I/O (no file, network, process, environment or clock API) and no
//! PyO3: every backend and front end sits on top of it, and
//! `crates/cosched-house/tests/layering.rs` keeps it that way.
#![warn(missing_docs)]

pub mod counters;
pub mod dispatch;
pub mod dist;
pub mod evt;
pub mod ids;
pub mod knob;
pub mod learn;
pub mod metrics;
pub mod num;
pub mod optimum;
pub mod pair_profile;
pub mod paired;
pub mod policy;
pub mod policy_error;
pub mod policy_ext;
pub mod pp_wire;
pub mod progress;
pub mod stats;
pub mod student;
pub mod suggest;
pub mod text;
pub mod topology;

pub use counters::Counters;
pub use ids::{CtxId, JobId, Nanos, PeriodId, ThreadId};
pub use policy::{BlockReason, Decision, Event, MachineView, Needs, Policy};
pub use topology::{ContextInfo, Topology};
