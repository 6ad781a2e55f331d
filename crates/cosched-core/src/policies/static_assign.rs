//! `static`: a fixed thread → context assignment (the statistical study's
//! thread assignments, §3). Threads sharing a context take turns round-robin.

use super::p_rrs::{Homes, PRrs};
use crate::ids::{CtxId, Nanos};

/// The static-assignment policy: P-RRS with given homes.
pub struct StaticAssign;

impl StaticAssign {
    /// A policy running thread `i` only on `assignment[i]`.
    #[allow(clippy::new_ret_no_self)]
    pub fn new(assignment: Vec<CtxId>, quantum: Nanos) -> PRrs {
        PRrs::with_homes(quantum, Homes::Fixed(assignment), "static")
    }
}
