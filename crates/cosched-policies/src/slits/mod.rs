//! SLITS, Sparsity-Lightened Intelligent Thread Scheduling (paper 000): the
//! Thread-Interaction Matrix (§3.2, §4.2) and the FM-based ranking of waiting
//! threads (§4.3). The policies are [`crate::families::Slits`].

/// Probed pair slowdowns (the core's: the real runtime's probing writes them).
pub use cosched_core::pair_profile as profile;
pub mod rank;
pub mod tim;

pub use profile::{PairObservation, PairProfile};
pub use rank::{features, mean_over_running};
pub use tim::Tim;
