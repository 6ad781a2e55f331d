//! Why a simulation request failed, by the stage that refused it. The CLI
//! prints the one line ([`std::fmt::Display`], knobs named by their flags);
//! the Python bindings raise one exception class per variant
//! (`cosched.errors`), knobs named by their keywords ([`RunError::Option`]
//! carries them apart from the problem, so no face rewrites a message).

use cosched_core::dispatch::ContractError;
use cosched_core::evt::PotError;
use cosched_machine::ConfigError;
use cosched_policies::knob::{flag_of, KnobError};
use cosched_policies::PolicyError;
use cosched_sim::SimError;
use std::fmt;

pub use crate::failure::{PolicyFailure, SimFailure, StudyError};

/// A refused or failed simulation request (`cosched simulate`, `compare`,
/// Python's `simulate`, `compare`, `sweep`).
#[derive(Clone, Debug, PartialEq)]
pub enum RunError {
    /// A machine or workload input: an unknown preset, an unreadable file, a
    /// field out of range (file, field and problem, as [`ConfigError`]).
    Config(ConfigError),
    /// An option (a flag, a Python keyword knob) malformed or out of range:
    /// the knobs at fault by keyword (`quantum_ms`; none when the problem is
    /// not one knob's) and what is wrong.
    Option {
        /// Keywords of the knobs at fault, in the order named.
        knobs: Vec<String>,
        /// What is wrong, without the knobs' names.
        problem: String,
    },
    /// An unknown policy, or a policy refusing its options (`static`
    /// without an assignment) or the machine.
    Policy(Box<PolicyFailure>),
    /// The simulation itself stopped: the simulated-time limit, a policy
    /// that left every thread waiting.
    Simulation(Box<SimFailure>),
    /// A study's own measurement could not be made (a run that ended
    /// before the window it measures, a model that did not converge).
    Study(StudyError),
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
            RunError::Option { knobs, problem } if knobs.is_empty() => write!(f, "{problem}"),
            RunError::Option { knobs, problem } => write!(f, "{}: {problem}", named(knobs, flag_of)),
            RunError::Policy(e) => write!(f, "{e}"),
            RunError::Simulation(e) => write!(f, "{e}"),
            RunError::Study(e) => write!(f, "{e}"),
            RunError::Evt { context, error } => write!(f, "{context}: {error}"),
        }
    }
}

impl std::error::Error for RunError {}

/// `knobs` as one face names them (`name` of each keyword), comma-separated.
fn named(knobs: &[String], name: impl Fn(&str) -> String) -> String {
    knobs.iter().map(|k| name(k)).collect::<Vec<_>>().join(", ")
}

impl From<ConfigError> for RunError {
    fn from(e: ConfigError) -> RunError {
        RunError::Config(e)
    }
}

impl From<KnobError> for RunError {
    fn from(e: KnobError) -> RunError {
        match e.knob() {
            Some(k) => RunError::knob(k, e.problem()),
            None => RunError::option(e.to_string()),
        }
    }
}

impl From<crate::optimum::OptimumError> for RunError {
    fn from(e: crate::optimum::OptimumError) -> RunError {
        use crate::optimum::OptimumError;
        match e {
            OptimumError::Knob { knob, problem } => RunError::knob(knob, problem),
            OptimumError::Run(e) => RunError::Simulation(Box::new(SimFailure::Bare(e))),
            // The search does not apply to this machine and workload: one line saying why.
            e => RunError::option(e.to_string()),
        }
    }
}

impl From<PolicyError> for RunError {
    fn from(e: PolicyError) -> RunError {
        RunError::Policy(Box::new(PolicyFailure::Refused(e)))
    }
}

impl From<StudyError> for RunError {
    fn from(e: StudyError) -> RunError {
        RunError::Study(e)
    }
}

impl From<SimError> for RunError {
    /// A simulated run's failure by kind, its line unchanged (see [`RunError::from_sim`]).
    fn from(e: SimError) -> RunError {
        match e {
            SimError::Config(c) => RunError::Config(c),
            SimError::Policy { .. } | SimError::Contract(ContractError::Unsupported { .. }) => {
                RunError::Policy(Box::new(PolicyFailure::Run(e)))
            }
            _ => RunError::Simulation(Box::new(SimFailure::Bare(e))),
        }
    }
}

impl RunError {
    /// Knob `knob` (its keyword) is refused: `problem`.
    pub fn knob(knob: &str, problem: impl Into<String>) -> RunError {
        RunError::Option { knobs: vec![knob.to_string()], problem: problem.into() }
    }

    /// An option is refused, no single knob at fault: `problem`.
    pub fn option(problem: impl Into<String>) -> RunError {
        RunError::Option { knobs: vec![], problem: problem.into() }
    }

    /// The line with every knob named by its keyword (Python's words).
    pub fn in_keywords(&self) -> String {
        match self {
            RunError::Option { knobs, problem } if !knobs.is_empty() => {
                format!("{}: {problem}", knobs.join(", "))
            }
            e => e.to_string(),
        }
    }

    /// A simulated run's failure, by kind, with `context` (the workload) in
    /// front: the policy's refusal or its asking for what the simulator lacks
    /// is a policy error, a stall or a passed budget a simulation error.
    pub fn from_sim(e: SimError, context: &str) -> RunError {
        let workload = context.to_string();
        match e {
            SimError::Policy { .. } | SimError::Contract(ContractError::Unsupported { .. }) => {
                RunError::Policy(Box::new(PolicyFailure::InRun { workload, error: e }))
            }
            _ => RunError::Simulation(Box::new(SimFailure::Run { workload, error: e })),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_policy_refusal_is_a_policy_error_whichever_stage_found_it() {
        let refused = SimError::Policy { policy: "efs".into(), error: PolicyError::Refused("no power table".into()) };
        let e = RunError::from_sim(refused, "w");
        assert!(matches!(&e, RunError::Policy(f) if matches!(**f, PolicyFailure::InRun { .. })));
        assert_eq!(e.to_string(), "w: policy `efs`: no power table");
        let stalled = SimError::Stalled { policy: "x".into(), t_s: 1.0, unfinished: 2, runnable: 1 };
        assert!(matches!(RunError::from_sim(stalled, "w"), RunError::Simulation(_)));
        assert!(matches!(RunError::from_sim(SimError::TimeLimit { limit_s: 1.0 }, "w"), RunError::Simulation(_)));
    }
}
