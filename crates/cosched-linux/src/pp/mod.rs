//! Progress periods for real programs (RDA §2.3): the wire protocol and the
//! server the runtime runs. The C client library is the `cosched-pp` crate;
//! the Python one is `python/cosched/pp.py`.

pub mod server;

/// The wire protocol lives in `cosched-core` (pure, shared with the C client library).
pub use cosched_core::pp_wire as proto;
pub use proto::{decode, encode, Request, SOCKET_ENV};
pub use server::{PpMsg, PpServer};
