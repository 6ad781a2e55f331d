//! Why a policy could not be built or started: part of the policy contract
//! (it sits beside it, not among the policies), typed, so
//! every front end maps it once (the CLI to exit status 2, Python to
//! `cosched.errors.PolicyError`), whichever backend it came from.

use thiserror::Error;

/// A policy refused: an unknown name, or options or a machine it cannot run with.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum PolicyError {
    /// No policy has this name.
    #[error("unknown policy `{name}`{hint} (known: {known})")]
    Unknown {
        /// The name given, as quotable ([`quote`](crate::text::quote)d).
        name: String,
        /// ` (did you mean …?)` or empty.
        hint: String,
        /// Every name, comma-separated.
        known: String,
    },
    /// The policy refused its options or the machine (`static` without an
    /// assignment, `efs` without a power table): the policy's own words.
    #[error("{0}")]
    Refused(String),
}

impl From<String> for PolicyError {
    fn from(why: String) -> PolicyError {
        PolicyError::Refused(why)
    }
}

impl From<&str> for PolicyError {
    fn from(why: &str) -> PolicyError {
        PolicyError::Refused(why.to_string())
    }
}
