//! The policy boundary (docs/architecture.md, "The policy boundary"): a
//! scheduling policy is a message handler. Backends (the simulator, the Linux
//! runtime) deliver [`Event`]s and carry out [`Decision`]s; a policy sees the
//! machine only through [`MachineView`].
//!
//! Counters are *pulled*: a policy reads cumulative per-thread and per-socket
//! counters through the view at any event and keeps its own deltas, exactly
//! as a `perf_event` reader does. This costs only what a policy actually reads
//! (pushing deltas for every thread at every event would cost O(threads) per
//! event) and maps one-to-one onto the real machine.

use crate::counters::Counters;
use crate::ids::{CtxId, JobId, Nanos, PeriodId, ThreadId};
pub use crate::policy_error::PolicyError;
use crate::policy_ext::{Fallible, UsesProfile};
use crate::topology::Topology;
use serde::{Deserialize, Serialize};

/// Why a running thread stopped running.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum BlockReason {
    /// Waiting at a barrier of its job.
    Barrier,
    /// Waiting for a lock held by another thread.
    Lock,
    /// Waiting for I/O (a timed sleep).
    Io,
}

/// The shared resource a progress period declares (RDA §2.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Resource {
    /// Last-level-cache capacity (bytes).
    Llc,
    /// Memory bandwidth (bytes per second).
    MemBw,
}

/// Reuse level of a progress period's working set (RDA §2.2, Fig. 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Reuse {
    /// Little reuse (streaming).
    Low,
    /// Moderate reuse.
    Medium,
    /// High reuse (the working set is touched many times).
    High,
}

impl Resource {
    /// The word the wire protocol and the Python policies use (`llc`, `membw`).
    pub fn word(self) -> &'static str {
        match self {
            Resource::Llc => "llc",
            Resource::MemBw => "membw",
        }
    }
}

impl Reuse {
    /// The word the wire protocol and the Python policies use (`low`, `medium`, `high`).
    pub fn word(self) -> &'static str {
        match self {
            Reuse::Low => "low",
            Reuse::Medium => "medium",
            Reuse::High => "high",
        }
    }
}

/// What a progress period asks for: `pp_begin(resource, bytes, reuse)` (RDA §2.2).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Demand {
    /// The resource.
    pub resource: Resource,
    /// Amount in the resource's unit (bytes, or bytes per second).
    pub amount: f64,
    /// Reuse level.
    pub reuse: Reuse,
}

/// Something that happened on the machine.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum Event {
    /// A new thread exists and is runnable.
    Arrived {
        /// The thread.
        thread: ThreadId,
        /// Its job (process).
        job: JobId,
    },
    /// A blocked thread became runnable again (barrier released, lock granted, I/O done).
    Runnable {
        /// The thread.
        thread: ThreadId,
    },
    /// A running thread blocked; `ctx` is now idle.
    Blocked {
        /// The thread.
        thread: ThreadId,
        /// The context it left.
        ctx: CtxId,
        /// Why.
        reason: BlockReason,
    },
    /// A running thread finished; `ctx` is now idle.
    Exited {
        /// The thread.
        thread: ThreadId,
        /// The context it left.
        ctx: CtxId,
    },
    /// A timer the policy armed with [`Decision::Timer`] fired.
    Timer {
        /// The policy's key for the timer.
        key: u32,
    },
    /// A thread called `pp_begin` (RDA §2.3). It left `ctx` (if it was
    /// running) and waits until the policy answers [`Decision::Admit`]; once
    /// admitted it is runnable. Delivered only to policies whose
    /// [`Needs::progress_periods`] is set; the backend admits every period at
    /// once for the others.
    PeriodBegin {
        /// The thread.
        thread: ThreadId,
        /// The context it left, if it was running.
        ctx: Option<CtxId>,
        /// The period.
        period: PeriodId,
        /// What it declares.
        demand: Demand,
    },
    /// A thread called `pp_end` (the thread keeps running).
    PeriodEnd {
        /// The thread.
        thread: ThreadId,
        /// The period that ended.
        period: PeriodId,
    },
}

/// What a policy asks the backend to do.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum Decision {
    /// Run `thread` on `ctx`. A thread running there is preempted (it stays
    /// runnable; the policy that preempted it keeps track of it); a thread
    /// running elsewhere migrates.
    Run {
        /// The thread.
        thread: ThreadId,
        /// The context.
        ctx: CtxId,
    },
    /// Stop the thread running on `ctx` (it stays runnable) and leave `ctx` idle.
    Preempt {
        /// The context.
        ctx: CtxId,
    },
    /// Leave `ctx` idle on purpose (EFS §4.2). Recorded, changes nothing.
    Idle {
        /// The context.
        ctx: CtxId,
    },
    /// Arm (`Some`) or cancel (`None`) the policy's timer `key`; arming
    /// replaces an earlier setting of the same key.
    Timer {
        /// The policy's key.
        key: u32,
        /// Absolute firing time.
        at: Option<Nanos>,
    },
    /// Admit a waiting progress period: its thread becomes runnable.
    Admit {
        /// The period.
        period: PeriodId,
    },
}

/// What a policy needs from a backend; a backend that cannot provide it
/// refuses with a clear message (or runs a documented degraded mode).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Needs {
    /// Per-thread hardware counters.
    pub counters: bool,
    /// SMT (more than one context per core) to be meaningful.
    pub smt: bool,
    /// Progress-period events (RDA).
    pub progress_periods: bool,
    /// Energy readings.
    pub energy: bool,
    /// Ground truth ([`MachineView::oracle`]); reports mark such policies as oracles.
    pub oracle: bool,
}

/// Cumulative energy in joules, by domain.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Energy {
    /// Whole system (wall power).
    pub system: f64,
    /// CPU package.
    pub cpu: f64,
    /// DRAM.
    pub dram: f64,
}

/// A thread's ground-truth rates in a hypothetical co-schedule.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CoRun {
    /// Instructions per cycle.
    pub ipc: f64,
    /// LLC misses per kilo-instruction.
    pub mpki: f64,
}

/// Ground truth only an oracle policy may read (Perf&Fair §7's Oracle).
pub trait Oracle {
    /// The thread's main-memory bandwidth alone (current phase), transactions (lines) per second.
    fn solo_mem_bandwidth(&self, thread: ThreadId) -> Option<f64>;
    /// Seconds the work the thread has retired so far would have taken alone,
    /// phase by phase (Perf&Fair §7's Oracle: progress from IPC-alone traces).
    fn solo_seconds(&self, thread: ThreadId) -> Option<f64>;
    /// The thread's IPC alone in its current phase.
    fn solo_ipc(&self, thread: ThreadId) -> Option<f64>;
    /// Every thread that would run on `ctx`'s socket, with its rates, if
    /// `thread` (when given) ran on `ctx` and whatever runs on `ctx` now left:
    /// the ground-truth outcome of a hypothetical co-schedule (the EFS
    /// ablation admits by it instead of the collision model).
    fn coschedule(&self, ctx: CtxId, thread: Option<ThreadId>) -> Option<Vec<(ThreadId, CoRun)>>;
    /// What `thread` (waiting) would do if it ran on `ctx` beside the threads
    /// running now (whatever runs on `ctx` leaves): the ground truth an
    /// oracle pairing ranks by (the SLITS ablation, "ground-truth contention").
    fn corun(&self, thread: ThreadId, ctx: CtxId) -> Option<CoRun> {
        self.coschedule(ctx, Some(thread))?.into_iter().find(|r| r.0 == thread).map(|r| r.1)
    }
}

/// The machine as a policy sees it.
pub trait MachineView {
    /// Current time.
    fn now(&self) -> Nanos;
    /// Hardware contexts and their sharing.
    fn topology(&self) -> &Topology;
    /// The thread running on `ctx`, if any.
    fn running_on(&self, ctx: CtxId) -> Option<ThreadId>;
    /// The job a thread belongs to.
    fn job_of(&self, thread: ThreadId) -> JobId;
    /// Total number of threads the run will have (known up front on both backends).
    fn n_threads_total(&self) -> usize;
    /// Cumulative counters of a thread; `None` (the default) when the backend has no counters.
    fn thread_counters(&self, _thread: ThreadId) -> Option<Counters> {
        None
    }
    /// Cumulative counters of a socket (all its threads, memory traffic of the bus); `None` by default.
    fn socket_counters(&self, _socket: u32) -> Option<Counters> {
        None
    }
    /// Cumulative energy, when measured or modelled; `None` by default.
    fn energy(&self) -> Option<Energy> {
        None
    }
    /// Memory-bus peak in cache lines per second per socket, when known (EFS μ); `None` by default.
    fn bus_lines_per_s(&self) -> Option<f64> {
        None
    }
    /// The machine's power table P0, P1, … in W (EFS Eq. 13: idle system, then
    /// each further active core), when the machine description has one; `None` by default.
    fn power_table(&self) -> Option<Vec<f64>> {
        None
    }
    /// Capacity of one last-level cache, bytes, when known (RDA's resource table).
    fn llc_bytes(&self) -> Option<f64> {
        None
    }
    /// The kernel's scheduler tick, at which the Linux fair-class models end a
    /// slice, and the share of slices that end off its grid (docs/model.md,
    /// "The scheduler tick"); `None` (the default) or a tick of 0: slices end
    /// exactly when used up.
    fn scheduler_tick(&self) -> Option<(Nanos, f64)> {
        None
    }
    /// Whether the Linux fair-class models move a one-thread excess between
    /// run queues, as the kernel's balancer does after a failed pass
    /// (docs/model.md, "Three threads on two contexts"); `false` (the default):
    /// only a difference of two or more moves.
    fn balance_rotation(&self) -> bool {
        false
    }
    /// Resident memory of a job (process), bytes, as the kernel counts it for
    /// cache-aware scheduling (anonymous and shared pages; `linux-cache`);
    /// `None` (the default) when the backend cannot tell.
    fn job_rss_bytes(&self, _job: JobId) -> Option<f64> {
        None
    }
    /// Ground truth; `Some` only for policies whose needs include `oracle`.
    fn oracle(&self) -> Option<&dyn Oracle> {
        None
    }
}

/// A scheduling policy.
pub trait Policy: Send {
    /// The registry name (`cosched list policies`).
    fn name(&self) -> &'static str;
    /// What the policy needs from a backend.
    fn needs(&self) -> Needs {
        Needs::default()
    }
    /// Called once before the first event; an error aborts the run.
    fn init(&mut self, _view: &dyn MachineView) -> Result<(), PolicyError> {
        Ok(())
    }
    /// Handle one event, appending decisions to `out`.
    fn on_event(&mut self, ev: &Event, view: &dyn MachineView, out: &mut Vec<Decision>);
    /// This policy as one that takes a probed profile in place of counters
    /// ([`UsesProfile`]); `None` (the default) for a policy that cannot.
    fn as_uses_profile(&mut self) -> Option<&mut dyn UsesProfile> {
        None
    }
    /// This policy as one that can become unable to continue ([`Fallible`]);
    /// `None` (the default) for a policy that always can.
    fn as_fallible(&mut self) -> Option<&mut dyn Fallible> {
        None
    }
    /// What the policy found to act on over its run, in one phrase read after
    /// it (RDA §3: "no job declared a progress period"; SLITS §4.3: how many
    /// picks had a choice), so a comparison can say why two policies' rows are
    /// identical; `None` (the default) when it has nothing to add.
    fn found(&self) -> Option<String> {
        None
    }
}
