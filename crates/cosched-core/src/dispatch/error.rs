//! What a policy can get wrong at the boundary, and what a backend can
//! refuse to provide (docs/architecture.md, "The policy boundary").

use super::Status;
use crate::ids::{CtxId, PeriodId, ThreadId};

/// A broken contract: a decision the dispatcher refused, or a need the
/// backend cannot meet. Every backend refuses the same decisions with the
/// same error.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ContractError {
    /// A decision named a thread the run does not have.
    #[error("policy `{policy}` named thread {}, but the run has threads 0..{n}", thread.0)]
    UnknownThread {
        /// The policy.
        policy: &'static str,
        /// The thread named.
        thread: ThreadId,
        /// Threads in the run.
        n: usize,
    },
    /// A decision named a context the machine does not have.
    #[error("policy `{policy}` named context {}, but the machine has contexts 0..{n}", ctx.0)]
    UnknownContext {
        /// The policy.
        policy: &'static str,
        /// The context named.
        ctx: CtxId,
        /// Contexts of the machine.
        n: usize,
    },
    /// `Run` of a thread that is not runnable (blocked, waiting for a
    /// period's admission, not arrived, or finished).
    #[error("policy `{policy}` ran thread {}, which is not runnable ({state})", thread.0)]
    NotRunnable {
        /// The policy.
        policy: &'static str,
        /// The thread.
        thread: ThreadId,
        /// Where the thread is.
        state: Status,
    },
    /// `Admit` of a period no thread is waiting in.
    #[error("policy `{policy}` admitted period {}, which is not waiting", period.0)]
    NotWaiting {
        /// The policy.
        policy: &'static str,
        /// The period.
        period: PeriodId,
    },
    /// A timer key at or above [`MAX_TIMER_KEYS`](super::MAX_TIMER_KEYS).
    #[error("policy `{policy}` armed timer key {key}; keys must be below {}", super::MAX_TIMER_KEYS)]
    TimerKey {
        /// The policy.
        policy: &'static str,
        /// The key.
        key: u32,
    },
    /// The policy needs something this backend cannot provide.
    #[error("policy `{policy}` needs {need}, which {backend} cannot provide: {why}")]
    Unsupported {
        /// The policy.
        policy: &'static str,
        /// What it needs, in words.
        need: &'static str,
        /// The backend (`the simulator`, `this machine`).
        backend: &'static str,
        /// Why not, from the backend.
        why: String,
    },
    /// The policy reported that it cannot continue ([`crate::Policy::failure`]:
    /// a user policy that raised); the run stops here.
    #[error("policy `{policy}` failed: {why}")]
    Failed {
        /// The policy.
        policy: &'static str,
        /// Its own account (for a Python policy: the traceback and the time).
        why: String,
    },
    /// The backend could not carry out a legal decision: a period admitted
    /// whose thread's program does not compute next.
    #[error("period {period} admitted, but the program of thread {thread} does not compute next")]
    NotComputing {
        /// The period admitted.
        period: u32,
        /// Its thread.
        thread: u32,
    },
}
