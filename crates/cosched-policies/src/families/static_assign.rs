//! `static`: a fixed thread → context assignment (the statistical study's
//! thread assignments, §3). Threads sharing a context take turns round-robin.

use super::knob::{Declared, Kind, KnobError};
use super::p_rrs::{Homes, PRrs};
use crate::ids::{CtxId, Nanos};

cosched_core::options! {
    /// `static`'s knob: thread `i` runs on context `assignment[i]` (no
    /// default: `static` needs it).
    pub struct StaticKnobs of "static", "statistical study §3" {
        /// thread -> context assignment for `static`: comma-separated context ids (thread 0 first) or a file holding them
        assignment: Option<String> = (Kind::Text, ""),
    }
}

/// The assignment in `text` (context ids separated by commas or white space);
/// `file` names the file it was read from, if any, in the error (else the knob).
pub fn parse_assignment(file: Option<&str>, text: &str) -> Result<Vec<CtxId>, KnobError> {
    text.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty())
        .enumerate()
        .map(|(i, s)| {
            s.parse::<u32>().map(CtxId).map_err(|_| {
                let problem = format!("thread {i}: `{s}` is not a context id");
                match file {
                    Some(f) => KnobError::InFile { file: f.to_string(), problem },
                    None => KnobError::Invalid { knob: "assignment".to_string(), problem },
                }
            })
        })
        .collect()
}

/// The static-assignment policy: P-RRS with given homes.
pub struct StaticAssign;

impl StaticAssign {
    /// A policy running thread `i` only on `assignment[i]`.
    #[allow(clippy::new_ret_no_self)]
    pub fn new(assignment: Vec<CtxId>, quantum: Nanos) -> PRrs {
        PRrs::with_homes(quantum, Homes::Fixed(assignment), "static")
    }
}

/// This family's policies in the registry ([`super::registry`]), at their rank
/// (registry order; `cosched new-policy` files take rank 1000).
pub(crate) const REGISTERED: super::Registered = super::Registered {
    rank: 120,
    policies: &[
    super::PolicyInfo {
        name: "static",
        description: "Static assignment: each thread pinned to a given context, round-robin among threads sharing one (statistical study §3)",
        oracle: false,
        knob_groups: &[super::slots::SlotsKnobs::GROUP, StaticKnobs::GROUP],
        make: |o| {
            let a = o.assignment.clone().ok_or_else(|| format!("static: needs an assignment ({})", crate::knob::flag_of("assignment")))?;
            Ok(Box::new(StaticAssign::new(a, o.quantum)))
        },
    },
    ],
};
