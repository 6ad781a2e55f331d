//! Why a simulated run stopped: the policy refused, it
//! broke the contract, it stalled, or the run passed its budget. Typed, so
//! the CLI and Python map each kind once (a policy's refusal is a
//! `PolicyError` in Python, not a simulation failure).

use cosched_core::dispatch::ContractError;
use cosched_core::knob::flag_of;
use cosched_policies::PolicyError;
use thiserror::Error;

/// A simulated run that did not finish.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum SimError {
    /// The policy could not be built or refused the machine at `init`.
    #[error("policy `{policy}`: {error}")]
    Policy {
        /// Policy name.
        policy: String,
        /// Its refusal.
        error: PolicyError,
    },
    /// The machine or workload could not be laid out (a varied plan, issue "trust").
    #[error("{0}")]
    Config(#[from] cosched_machine::ConfigError),
    /// The policy broke the contract (`cosched_core::dispatch`), or asked for what the simulator lacks.
    #[error("{0}")]
    Contract(#[from] ContractError),
    /// Nothing was left to happen while threads were unfinished.
    #[error(
        "policy `{policy}` stalled at t={t_s:.6}s: {unfinished} threads unfinished, {runnable} runnable but not scheduled, nothing pending"
    )]
    Stalled {
        /// Policy name.
        policy: String,
        /// Simulated time, s.
        t_s: f64,
        /// Threads not finished.
        unfinished: usize,
        /// Of those, runnable.
        runnable: usize,
    },
    /// The simulated-time limit (`--max-sim-time-s`) passed.
    #[error("run exceeded the simulated-time limit of {limit_s} s (raise it with {})", flag_of("max_sim_time_s"))]
    TimeLimit {
        /// The limit, s.
        limit_s: f64,
    },
    /// Simulated time stopped advancing: too many events at one instant
    /// (a policy re-arming a timer at the same time in a loop).
    #[error(
        "policy `{policy}` made {events} events at t={t_s:.6} s without simulated time advancing (does it re-arm a timer for the same instant?); the run stopped"
    )]
    TimeStuck {
        /// Policy name.
        policy: String,
        /// Simulated time, s.
        t_s: f64,
        /// Events at that instant.
        events: u64,
    },
    /// Stopped from outside ([`SimOptions::cancel`](super::options::SimOptions::cancel)).
    #[error("the run was cancelled")]
    Cancelled,
    /// A job's run alone (its turnaround alone: the reference of speedups, ANTT and unfairness,
    /// run before the co-run) did not finish; `error` counts that run's threads, not the mix's.
    #[error("the solo run of job `{job}` (its time alone, run before the mix: the reference of speedups and unfairness): {error}")]
    Solo {
        /// The job instance (`mcf#2`).
        job: String,
        /// Why its run alone stopped.
        error: Box<SimError>,
    },
    /// The event budget (`--max-events`) ran out.
    #[error(
        "run exceeded the event budget of {budget} events at t={t_s:.6} s simulated, {done} of {threads} threads finished (raise it with {})",
        flag_of("max_events")
    )]
    EventBudget {
        /// The budget.
        budget: u64,
        /// Simulated time, s.
        t_s: f64,
        /// Threads finished.
        done: usize,
        /// Threads in all.
        threads: usize,
    },
}
