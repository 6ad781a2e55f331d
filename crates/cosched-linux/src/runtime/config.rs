//! What a real run is given (`RunConfig`) and what it reports (`RealReport`, one `RealJob` a
//! launched instance): the runtime's inputs and outputs, apart from the loop that runs it.

use crate::control::Method;
use crate::mix::Mix;
use cosched_core::pair_profile::PairProfile;
use cosched_core::progress::Reporter;
use cosched_machine::MachineSpec;
use cosched_policies::PolicyOptions;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use super::stop::StopRecord;
use cosched_core::metrics::Aggregate;

/// The name of the kernel-scheduling baseline.
pub const LINUX: &str = "linux";

/// The default grace period between SIGTERM and SIGKILL of a cut-short run
/// (systemd's default stop timeout is 90 s, Docker's 10 s; a scheduler's
/// user waits at a terminal, so shorter).
pub const DEFAULT_GRACE: Duration = Duration::from_secs(5);

/// The shortest quantum a real run accepts, ns (0.001 ms took 22.5% of a core; the
/// simulator takes any: it has no freezer).
pub const MIN_QUANTUM_NS: u64 = 1_000_000;

/// What to run and how.
pub struct RunConfig {
    /// The commands.
    pub mix: Mix,
    /// Policy name: [`LINUX`] or a registry name.
    pub policy: String,
    /// Policy options.
    pub opts: PolicyOptions,
    /// Sampling period of the event loop.
    pub tick: Duration,
    /// Ticks without a runnable task before a running tree counts as blocked.
    pub block_ticks: u32,
    /// Freezing method.
    pub method: Method,
    /// How to start the watchdog (`None`: no watchdog, tests of the library only).
    pub watchdog: Option<crate::watchdog::WatchdogCommand>,
    /// Write a Perfetto/Chrome trace here.
    pub trace: Option<PathBuf>,
    /// Machine preset for modelled quantities (LLC, memory bandwidth, power model).
    pub machine: Option<MachineSpec>,
    /// Without a preset: a `cosched calibrate` file giving this host's memory
    /// bandwidth, power model and effective LLC ([`Description`](crate::describe::Description)).
    pub calibration: Option<MachineSpec>,
    /// The host description (`None`: this machine's sysfs, read at start).
    pub host: Option<crate::host::Host>,
    /// Solo turnaround per mix job (declared or measured), seconds.
    pub solo: Vec<Option<f64>>,
    /// Stop the run (releasing and terminating every process) after this long.
    pub timeout: Option<Duration>,
    /// When the run is cut short (timeout, Ctrl-C, SIGTERM): how long its
    /// processes have between SIGTERM and SIGKILL.
    pub grace: Duration,
    /// Where each instance's stdout/stderr go (`None`: see `inherit_output`).
    pub output_dir: Option<PathBuf>,
    /// Without `output_dir`: pass the instances' stdout/stderr through to
    /// ours (`cosched run -- CMD`), else discard them.
    pub inherit_output: bool,
    /// Recorded counter rates to replay (see [`RecordedSource`](crate::counters::RecordedSource)); without
    /// one, hardware counters are used when the machine has them.
    pub recorded_counters: Option<PathBuf>,
    /// A profile measured by co-run probing (`cosched probe`), offered to
    /// policies that need counters this machine cannot give.
    pub profile: Option<PairProfile>,
    /// Which jobs' predicted pair slowdowns (in `profile`) rest on characterisations not to be
    /// trusted on this host, and why: the report's provenance says so (`untrusted fits`).
    pub untrusted_fits: Option<String>,
    /// End the run when every instance of this mix job has ended: the other
    /// trees are released (thawed, unpinned) and sent SIGTERM. A measured job
    /// beside co-runners that need only cover it (`cosched characterise`).
    pub end_with: Option<usize>,
    /// Where the run's notes, warnings and progress lines go (the face's
    /// choice; off by default: a library prints nothing).
    pub report: Reporter,
}

impl RunConfig {
    /// Defaults for a mix and a policy: 20 ms tick, 3 ticks to block, best freezer, no watchdog.
    pub fn new(mix: Mix, policy: &str) -> RunConfig {
        let solo = mix.jobs.iter().map(|j| j.solo_s).collect();
        RunConfig {
            mix,
            policy: policy.into(),
            opts: PolicyOptions::default(),
            tick: Duration::from_millis(20),
            block_ticks: 3,
            method: Method::detect(),
            watchdog: None,
            trace: None,
            machine: None,
            calibration: None,
            host: None,
            solo,
            timeout: None,
            grace: DEFAULT_GRACE,
            output_dir: None,
            inherit_output: false,
            profile: None,
            untrusted_fits: None,
            recorded_counters: None,
            end_with: None,
            report: Reporter::default(),
        }
    }
}

cosched_core::metric_fields! {
    /// One instance in the report.
    #[derive(Clone, Debug, Serialize)]
    pub struct RealJob {
        /// Instance name.
        pub name: String,
        /// Turnaround (launch to the last process of its tree gone), s; measured.
        [metric] pub turnaround_s: Option<f64>,
        /// Solo turnaround, s (declared or measured).
        [metric] pub solo_s: Option<f64>,
        /// Turnaround / solo.
        [metric] pub slowdown: Option<f64>,
        /// CPU time of the tree's leader (and reaped children), s; measured.
        [metric] pub cpu_s: f64,
        /// Context switches the tree's leader asked for (and those of the children it
        /// reaped; `wait4` rusage `ru_nvcsw`); measured, none before it was reaped.
        pub voluntary_switches: Option<u64>,
        /// Context switches the kernel imposed on it (`ru_nivcsw`): a slice ended or
        /// a task preempted it.
        pub involuntary_switches: Option<u64>,
        /// Moves of the leader thread to another CPU (`se.nr_migrations` of
        /// `/proc/PID/sched`, read before it was reaped); none where the kernel has no such file.
        pub migrations: Option<u64>,
        /// Exit code of the leader (128 + signal when killed).
        pub exit_code: Option<i32>,
        /// Why it did not run, if it did not.
        pub error: Option<String>,
    }
}

cosched_core::metric_fields! {
    /// The result of a real run.
    #[derive(Clone, Debug, Serialize)]
    pub struct RealReport {
        /// Policy.
        pub policy: String,
        /// Mix name.
        pub mix: String,
        /// How trees were frozen (or `none` under `linux`).
        pub freezer: String,
        /// Instances.
        pub jobs: Vec<RealJob>,
        /// Shared metrics (instructions and throughput are 0 without counters).
        pub metrics: Aggregate,
        /// Where each metric comes from: `measured`, `modelled (...)` or `unavailable (...)`.
        pub provenance: BTreeMap<String, String>,
        /// CPU time of the scheduler (all its threads) over the run, % of one core.
        [metric] pub scheduler_cpu_pct: f64,
        /// Policy events handled.
        [metric] pub policy_events: u64,
        /// Whether the run was cut short (timeout or signal).
        pub interrupted: bool,
        /// How it was cut short, when it was: why, and which instances had to be killed.
        pub stop: Option<StopRecord>,
    }
}
