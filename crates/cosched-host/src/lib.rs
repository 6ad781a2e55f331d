//! cosched's experiments that run real processes, below the faces
//! (one experiment, called by the CLI and Python alike): interleaved rounds of several
//! policies on a noisy host ([`rounds`]), a program's characterisation ([`characterise`]), the
//! simulator's check against
//! reality ([`calibrate`], judged by [`check`]) and the replay of a recorded
//! check ([`replay`]), measuring until intervals are narrow ([`until`]). They sit over the lab (the simulator's half) and the
//! real runtime; the command line and the Python bindings both call them
//! with typed settings ([`live::Live`]) and get data or a typed
//! [`error::HostError`] back. Nothing here parses a command line or prints:
//! notes and progress go to the face's [`cosched_core::progress::Reporter`].

pub mod calibrate;
pub mod characterise;
pub mod check;
pub mod error;
pub mod live;
pub mod replay;
pub mod rounds;
pub mod ties;
pub mod time_sharing;
pub mod until;

pub use error::HostError;
