//! Why a real run did not start or stopped, by stage, so
//! the CLI maps each kind once. Every path that returns one has already
//! released (thawed and unpinned) whatever the run had launched.

use crate::counters::CounterError;
use cosched_core::dispatch::ContractError;
use cosched_policies::PolicyError;
use thiserror::Error;

/// A real run refused or stopped.
#[derive(Debug, Error)]
pub enum RuntimeError {
    /// The policy could not be built, refused this machine at `init`, or
    /// needs what this machine does not offer.
    #[error("{policy}: {problem}")]
    Policy {
        /// Policy name.
        policy: String,
        /// Its refusal.
        problem: Box<Refusal>,
    },
    /// The policy needs what this machine does not offer (counters, energy, an oracle).
    #[error("{0}")]
    Refused(ContractError),
    /// An unknown policy or options it refuses (before anything starts).
    #[error("{0}")]
    Build(#[from] PolicyError),
    /// A file the run writes (the trace) could not be written.
    #[error("{file}: {source}")]
    File {
        /// The file (`trace` when the trace's own path is not at hand).
        file: String,
        /// Why.
        source: std::io::Error,
    },
    /// The probed profile lacks a job of the mix.
    #[error("{flag}: {0}", flag = cosched_policies::knob::flag_of("profile"))]
    Profile(#[from] cosched_core::pair_profile::MissingJob),
    /// The counter source (`--recorded-counters`, the PMU).
    #[error("{0}")]
    Counters(#[from] CounterError),
    /// This host could not be set up: cgroups, the watchdog, the
    /// progress-period server.
    #[error("{what}: {source}")]
    Host {
        /// What could not be done (`cannot start the watchdog`).
        what: String,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The run was cut short (timeout, Ctrl-C, SIGTERM) where a complete
    /// run was needed (solo runs, probes, rounds); the sentence says what
    /// happened to its processes.
    #[error("{}", .0.sentence())]
    Stopped(super::stop::StopRecord),
    /// A quantum shorter than [`MIN_QUANTUM_NS`](super::config::MIN_QUANTUM_NS): each quantum is a freeze
    /// and a thaw of process trees, which would then cost more than they schedule.
    #[error(
        "{flag} {got}: below {min} ms on the real machine each quantum's freeze and thaw cost more than the quantum",
        flag = cosched_policies::knob::flag_of("quantum_ms"),
        got = *.quantum_ns as f64 * 1e-6,
        min = super::config::MIN_QUANTUM_NS as f64 * 1e-6
    )]
    QuantumTooShort {
        /// The quantum asked for, ns.
        quantum_ns: u64,
    },
    /// The policy broke the contract during the run.
    #[error("{0}; the run stopped, every managed process released and terminated")]
    Contract(ContractError),
}

impl RuntimeError {
    /// An output the run writes (its trace) that could not be opened or written, as the
    /// one line the output module words.
    pub fn output(e: cosched_machine::ConfigError) -> RuntimeError {
        RuntimeError::File { file: e.file, source: std::io::Error::other(e.problem) }
    }
}

/// Why a policy did not start on this machine: the contract refused it (a
/// need the machine does not meet), or the policy refused at `init`.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// The dispatcher's contract refused it.
    #[error(transparent)]
    Contract(#[from] cosched_core::dispatch::ContractError),
    /// The policy refused at `init`.
    #[error(transparent)]
    Policy(#[from] cosched_core::policy_error::PolicyError),
}
