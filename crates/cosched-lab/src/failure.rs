//! What [`crate::RunError`]'s policy, simulation and study variants carry:
//! the typed failure with its context as data (the
//! workload, the machine), never a line already written. Each `Display` is
//! the one line the faces print; Python maps each variant to its exception.

use crate::optimum::OptimumError;
use cosched_policies::efs::model::SolveError;
use cosched_policies::PolicyError;
use cosched_sim::SimError;

/// Why a policy could not run ([`crate::RunError::Policy`]).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PolicyFailure {
    /// The registry or the policy refused its options (an unknown name,
    /// `static` without an assignment).
    #[error("{0}")]
    Refused(#[from] PolicyError),
    /// A run of `workload` found it: the policy refused the machine at
    /// `init`, or asked for what the simulator lacks.
    #[error("{workload}: {error}")]
    InRun {
        /// The workload run.
        workload: String,
        /// The engine's error.
        error: SimError,
    },
    /// As `InRun`, with no workload named (a run outside a study).
    #[error("{0}")]
    Run(SimError),
    /// A policy given as code with an empty name.
    #[error("a policy given as code needs a non-empty `name`")]
    Unnamed,
    /// A policy given as code named as a built-in policy.
    #[error("policy name `{name}` is a built-in policy's: give your policy another `name`")]
    BuiltInName {
        /// The name given.
        name: String,
    },
    /// A policy given as code declared what it needs in words the simulator does not know.
    #[error("{name}: {problem}")]
    Needs {
        /// The policy's name.
        name: String,
        /// What is wrong with the words.
        problem: String,
    },
}

/// Why a simulation stopped ([`crate::RunError::Simulation`]).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SimFailure {
    /// A run of `workload` stopped (the simulated-time limit, a stall).
    #[error("{workload}: {error}")]
    Run {
        /// The workload run.
        workload: String,
        /// The engine's error.
        error: SimError,
    },
    /// As `Run`, with no workload named.
    #[error("{0}")]
    Bare(SimError),
    /// The search for the best static co-schedule of `workload` failed.
    #[error("{workload}: {error}")]
    Search {
        /// The workload searched.
        workload: String,
        /// The search's error.
        error: OptimumError,
    },
}

/// Why a study's own measurement could not be made ([`crate::RunError::Study`]).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum StudyError {
    /// The DRAM check on a machine that describes no DRAM device.
    #[error("machine {machine} has no [memory.dram]: the cycle-level DRAM check needs its device and organisation")]
    NoDram {
        /// The machine.
        machine: String,
    },
    /// A DRAM device no table describes.
    #[error("unknown DRAM device {device:?}")]
    UnknownDram {
        /// The device named.
        device: String,
    },
    /// RDA Fig. 12: the profiler found no progress period in a kernel's trace.
    #[error("rda fig. 12: the profiler found no progress period in a kernel's trace")]
    NoPeriodFound,
    /// RDA Fig. 12: the growth fit had too few distinct points.
    #[error("rda fig. 12: degenerate fit")]
    DegenerateFit,
    /// A profiled workload whose phases and phase models do not pair up.
    #[error("{workload}: {phases} phases but {models} phase models")]
    PhaseModels {
        /// The workload.
        workload: String,
        /// Its phases.
        phases: usize,
        /// Its phase models.
        models: usize,
    },
    /// EFS's interaction model (Eq. 10) gave no solution.
    #[error("{0}")]
    Model(SolveError),
    /// EFS Fig. 6: both threads never ran in one measurement window.
    #[error("efs fig. 6: no measurement window while both threads ran")]
    NoWindow,
    /// EFS Fig. 7: the run ended before the section the figure shows.
    #[error("efs fig. 7: the run ended at {end_s:.3} s, before the 300 ms section")]
    EndedEarly {
        /// When it ended, s.
        end_s: f64,
    },
    /// The overhead ablation needs decision times, and the engine timed none.
    #[error("the engine timed no decision")]
    NoDecisionTimed,
    /// SLITS's FM study found no model kept.
    #[error("SLITS kept no model")]
    NoModel,
    /// Characterisation: no grid point's model of `job` runs on `machine`.
    #[error("{job}: no model of the grid runs on {machine}: {}", first.as_ref().map(|e| e.to_string()).unwrap_or_default())]
    NoGridModel {
        /// The job.
        job: String,
        /// The machine.
        machine: String,
        /// Why the first grid point failed (none when the grid is empty).
        first: Option<Box<crate::RunError>>,
    },
}

/// The engine error's kind, as the faces name it (`time_limit`, `stalled`).
fn sim_kind(e: &SimError) -> &'static str {
    match e {
        SimError::Policy { .. } => "policy",
        SimError::Config(_) => "config",
        SimError::Contract(_) => "contract",
        SimError::Stalled { .. } => "stalled",
        SimError::TimeLimit { .. } => "time_limit",
        SimError::TimeStuck { .. } => "time_stuck",
        SimError::Cancelled => "cancelled",
        SimError::EventBudget { .. } => "event_budget",
        SimError::Solo { error, .. } => sim_kind(error),
    }
}

impl PolicyFailure {
    /// The workload whose run found it, if a run did.
    pub fn workload(&self) -> Option<&str> {
        match self {
            PolicyFailure::InRun { workload, .. } => Some(workload),
            _ => None,
        }
    }

    /// Its kind, as Python's `PolicyError.kind` names it.
    pub fn kind(&self) -> &'static str {
        match self {
            PolicyFailure::Refused(PolicyError::Unknown { .. }) => "unknown",
            PolicyFailure::Refused(PolicyError::Refused(_)) => "refused",
            PolicyFailure::InRun { error, .. } | PolicyFailure::Run(error) => sim_kind(error),
            PolicyFailure::Unnamed => "unnamed",
            PolicyFailure::BuiltInName { .. } => "built_in_name",
            PolicyFailure::Needs { .. } => "needs",
        }
    }
}

impl SimFailure {
    /// The workload run or searched, when named.
    pub fn workload(&self) -> Option<&str> {
        match self {
            SimFailure::Run { workload, .. } | SimFailure::Search { workload, .. } => Some(workload),
            SimFailure::Bare(_) => None,
        }
    }

    /// Its kind, as Python's `SimulationError.kind` names it (`time_limit`, `stalled`, `search`).
    pub fn kind(&self) -> &'static str {
        match self {
            SimFailure::Run { error, .. } | SimFailure::Bare(error) => sim_kind(error),
            SimFailure::Search { .. } => "search",
        }
    }
}

impl StudyError {
    /// Its kind, as Python's `StudyError.kind` names it.
    pub fn kind(&self) -> &'static str {
        match self {
            StudyError::NoDram { .. } => "no_dram",
            StudyError::UnknownDram { .. } => "unknown_dram",
            StudyError::NoPeriodFound => "no_period_found",
            StudyError::DegenerateFit => "degenerate_fit",
            StudyError::PhaseModels { .. } => "phase_models",
            StudyError::Model(_) => "model",
            StudyError::NoWindow => "no_window",
            StudyError::EndedEarly { .. } => "ended_early",
            StudyError::NoDecisionTimed => "no_decision_timed",
            StudyError::NoModel => "no_model",
            StudyError::NoGridModel { .. } => "no_grid_model",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_failure_prints_the_line_it_printed_as_text_and_names_its_kind() {
        let e = StudyError::EndedEarly { end_s: 0.25 };
        assert_eq!(e.to_string(), "efs fig. 7: the run ended at 0.250 s, before the 300 ms section");
        assert_eq!(e.kind(), "ended_early");
        let e = StudyError::PhaseModels { workload: "w".into(), phases: 2, models: 3 };
        assert_eq!(e.to_string(), "w: 2 phases but 3 phase models");
        let e = StudyError::NoGridModel { job: "j".into(), machine: "m".into(), first: None };
        assert_eq!(e.to_string(), "j: no model of the grid runs on m: ");
        let s = SimFailure::Run { workload: "w".into(), error: SimError::TimeLimit { limit_s: 2.0 } };
        assert_eq!((s.workload(), s.kind()), (Some("w"), "time_limit"));
        assert!(s.to_string().starts_with("w: run exceeded the simulated-time limit of 2 s"));
        let p = PolicyFailure::BuiltInName { name: "cfs".into() };
        assert_eq!(p.to_string(), "policy name `cfs` is a built-in policy's: give your policy another `name`");
        assert_eq!((p.workload(), p.kind()), (None, "built_in_name"));
    }
}
