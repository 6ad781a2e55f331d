//! The running scheduler's state: the managed instances (one process tree
//! each), what runs on which context, the progress periods in flight, the
//! policy's timers, the energy meter and the trace. Dropping a [`Runtime`]
//! releases every managed process (thawed, unpinned, cgroups removed).

use super::meter::Meter;
use crate::control::{Control, Tree};
use crate::counters::CounterSource;
use crate::host::Host;
use crate::sys;
use crate::watchdog::Watchdog;
use cosched_core::dispatch::{ContractError, Dispatcher, Offer, Status};
use cosched_core::policy::{Demand, Energy, Policy};
use cosched_core::{JobId, Nanos, ThreadId};
use cosched_machine::ChromeTrace;
use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};
use std::sync::mpsc::Sender;
use std::time::Instant;

/// One launched instance of a mix job: a managed process tree, which the
/// policy sees as one thread.
pub(super) struct Instance {
    /// Index of its job in the mix.
    pub(super) mix_job: usize,
    pub(super) tree: Tree,
    /// Launch time.
    pub(super) start: Instant,
    /// When the last process of its tree was gone.
    pub(super) end: Option<Instant>,
    pub(super) exit_code: Option<i32>,
    /// Consecutive ticks with no runnable task while on a context.
    pub(super) idle_ticks: u32,
    /// `pp_begin` calls that came while the policy held the tree runnable
    /// off a context (frozen): delivered at its next `Run`, in order.
    pub(super) begin_pending: VecDeque<u64>,
    /// CPU time of the leader and the children it reaped (from `wait4`), s.
    pub(super) cpu_s: f64,
    /// What the kernel counted of the leader when it was reaped (switches, migrations).
    pub(super) reaped: Option<crate::reap::Reaped>,
    /// The leader thread's time on a CPU at the last tick, ns (`schedstat`).
    pub(super) run_ns: u64,
    /// The open trace slice: context and start.
    pub(super) slice: Option<(u32, Nanos)>,
}

/// A progress period requested by a real program (or declared in the mix).
pub(super) struct PeriodRecord {
    /// The instance it belongs to.
    pub(super) instance: usize,
    /// The pp-server connection that asked for it (`None`: declared in the mix).
    pub(super) conn: Option<u64>,
    pub(super) demand: Demand,
    pub(super) admitted: bool,
    /// Where to send `OK` once admitted.
    pub(super) reply: Option<Sender<String>>,
    /// Its client went away before admission: end it as soon as it is admitted.
    pub(super) cancelled: bool,
}

/// The running scheduler. Dropping it releases every managed process.
pub(super) struct Runtime {
    pub(super) policy_name: String,
    pub(super) host: Host,
    pub(super) control: Control,
    pub(super) watchdog: Option<Watchdog>,
    /// `None` under `linux` (the kernel schedules).
    pub(super) policy: Option<Box<dyn Policy>>,
    /// What this machine offers the policy (checked before launching).
    pub(super) offer: Offer,
    /// The contract (statuses, contexts, timers, events to deliver), from
    /// the start of the policy on; `None` under `linux`.
    pub(super) d: Option<Dispatcher>,
    /// The first broken contract: the run stops and releases everything.
    pub(super) broken: Option<ContractError>,
    /// Trees taken off a context into a period wait: frozen after the
    /// delivery unless the policy ran them again at once.
    pub(super) freeze_unless_running: Vec<usize>,
    pub(super) instances: Vec<Instance>,
    /// Mix job of each instance, as the policy sees it.
    pub(super) job_of: Vec<JobId>,
    /// Instance of each tree leader pid.
    pub(super) leader_of: BTreeMap<i32, usize>,
    pub(super) periods: BTreeMap<u64, PeriodRecord>,
    pub(super) next_period: u64,
    /// Start of the run (time 0 of the policy's clock).
    pub(super) t0: Instant,
    /// Memory-bus peak from the machine preset, lines/s.
    pub(super) bus: Option<f64>,
    /// EFS Eq. 13's power table of the machine description (preset or calibration), when there is one.
    pub(super) power_table: Option<Vec<f64>>,
    pub(super) meter: Meter,
    /// Per-CPU (busy, total) jiffies at the last energy sample.
    pub(super) jiffies: Vec<(u64, u64)>,
    pub(super) last_sample: Instant,
    pub(super) trace: Option<ChromeTrace<cosched_machine::output::Output>>,
    pub(super) ticks: u64,
    pub(super) block_ticks: u32,
    pub(super) counters: Option<RefCell<Box<dyn CounterSource>>>,
    /// Leader pid of each instance.
    pub(super) leaders: Vec<i32>,
    /// Clock ticks per second (`/proc` CPU times).
    pub(super) hz: f64,
    /// LLC capacity policies see: the preset's (calibrated: effective) when
    /// one is given, else what sysfs reports.
    pub(super) llc: Option<f64>,
    /// Whether the policy has read [`Runtime::llc`] (set by the view).
    pub(super) llc_read: std::cell::Cell<bool>,
    /// The preset's LLC contradicting sysfs ([`crate::describe::Description::llc_warning`]),
    /// said once, when the policy first reads the LLC's capacity: a policy that never reads it
    /// is not affected.
    pub(super) llc_warning: Option<String>,
    /// Where the run's warnings go.
    pub(super) report: cosched_core::progress::Reporter,
}

/// Nanoseconds from `t0` to `t`.
pub(super) fn ns_since(t0: Instant, t: Instant) -> Nanos {
    t.saturating_duration_since(t0).as_nanos() as Nanos
}

impl Runtime {
    /// Energy so far, where the machine has a source.
    pub(super) fn energy(&self) -> Option<Energy> {
        self.meter.energy()
    }

    /// Integrate energy up to now; `j` is a fresh reading of `/proc/stat`.
    pub(super) fn sample_energy(&mut self, j: Vec<(u64, u64)>) {
        let now = Instant::now();
        let dt = now.duration_since(self.last_sample).as_secs_f64();
        self.last_sample = now;
        self.meter.sample(dt, &self.jiffies, &j);
        self.jiffies = j;
    }

    /// Now on the policy's clock.
    pub(super) fn now(&self) -> Nanos {
        ns_since(self.t0, Instant::now())
    }

    /// The contract; only called once the policy has started.
    pub(super) fn d(&mut self) -> &mut Dispatcher {
        self.d.as_mut().expect("the policy has started")
    }

    /// Where instance `e` is, as the policy sees it (under `linux`:
    /// `Runnable` until its tree is gone, then `Done`).
    pub(super) fn status(&self, e: usize) -> Status {
        match &self.d {
            Some(d) => d.status(ThreadId(e as u32)),
            None if self.instances[e].end.is_some() => Status::Done,
            None => Status::Runnable,
        }
    }

    /// Release every tree (thaw, unpin, cgroups removed); with `terminate`
    /// also send them SIGTERM.
    pub(super) fn release(&mut self, terminate: bool) {
        for e in 0..self.instances.len() {
            let members = self.control.members(&mut self.instances[e].tree);
            self.control.release(&mut self.instances[e].tree);
            if terminate {
                for p in members {
                    sys::signal(p, libc::SIGTERM);
                }
            }
        }
        let leaders: Vec<i32> = self.leader_of.keys().copied().collect();
        crate::release::release_all(&self.control.method, self.control.dir(), &leaders, &self.control.restore);
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        self.release(false);
        if let Some(w) = self.watchdog.take() {
            w.finish();
        }
    }
}
