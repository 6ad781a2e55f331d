//! Why a simulation request failed, by the stage that refused it. The CLI
//! prints the one line ([`std::fmt::Display`]); the Python bindings raise
//! one exception class per variant (`cosched.errors`), with the same line.

use cosched_core::dispatch::ContractError;
use cosched_core::evt::PotError;
use cosched_core::policies::PolicyError;
use cosched_machine::ConfigError;
use cosched_sim::SimError;
use std::fmt;

/// A refused or failed simulation request (`cosched simulate`, `compare`,
/// Python's `simulate`, `compare`, `sweep`).
#[derive(Clone, Debug, PartialEq)]
pub enum RunError {
    /// A machine or workload input: an unknown preset, an unreadable file, a
    /// field out of range (file, field and problem, as [`ConfigError`]).
    Config(ConfigError),
    /// An option (a flag, a Python keyword knob) malformed or out of range.
    Option(String),
    /// An unknown policy, or a policy refusing its options (`static`
    /// without an assignment).
    Policy(String),
    /// The simulation itself stopped: the simulated-time limit, a policy
    /// that left every thread waiting.
    Simulation(String),
    /// The Peak-Over-Threshold estimate failed (statistical thread
    /// assignment §4); `context` names the sample (a workload, a file).
    Evt {
        /// What the sample was.
        context: String,
        /// Why POT gave no estimate.
        error: PotError,
    },
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Config(e) => write!(f, "{e}"),
            RunError::Option(s) | RunError::Policy(s) | RunError::Simulation(s) => write!(f, "{s}"),
            RunError::Evt { context, error } => write!(f, "{context}: {error}"),
        }
    }
}

impl std::error::Error for RunError {}

impl From<ConfigError> for RunError {
    fn from(e: ConfigError) -> RunError {
        RunError::Config(e)
    }
}

impl From<PolicyError> for RunError {
    fn from(e: PolicyError) -> RunError {
        RunError::Policy(e.to_string())
    }
}

impl RunError {
    /// A simulated run's failure, by kind, with `context` (the workload) in
    /// front: the policy's refusal or its asking for what the simulator lacks
    /// is a policy error, a stall or a passed budget a simulation error.
    pub fn from_sim(e: SimError, context: &str) -> RunError {
        let line = format!("{context}: {e}");
        match e {
            SimError::Policy { .. } | SimError::Contract(ContractError::Unsupported { .. }) => RunError::Policy(line),
            _ => RunError::Simulation(line),
        }
    }
}

impl From<RunError> for String {
    fn from(e: RunError) -> String {
        e.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_policy_refusal_is_a_policy_error_whichever_stage_found_it() {
        let refused = SimError::Policy { policy: "efs".into(), error: PolicyError::Refused("no power table".into()) };
        assert_eq!(RunError::from_sim(refused, "w"), RunError::Policy("w: policy `efs`: no power table".into()));
        let stalled = SimError::Stalled { policy: "x".into(), t_s: 1.0, unfinished: 2, runnable: 1 };
        assert!(matches!(RunError::from_sim(stalled, "w"), RunError::Simulation(_)));
        assert!(matches!(RunError::from_sim(SimError::TimeLimit { limit_s: 1.0 }, "w"), RunError::Simulation(_)));
    }
}
