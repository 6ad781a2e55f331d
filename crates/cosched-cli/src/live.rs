//! Options of every command that runs real processes (`run`, `probe`,
//! `calibrate`): the machine description (`-m`, `--calibration`), the event
//! loop's tick, the freezer, the timeout and where output goes, as flags of
//! `cosched_host::live::Live` (which checks them and builds each run).

use crate::OneLine;
use clap::{Args as ClapArgs, ValueEnum};
use cosched_host::live::{self as host, Face, Live};
use cosched_linux::runtime::RunConfig;
use cosched_linux::watchdog::WatchdogCommand;
use cosched_machine::mix::Mix;
use std::path::PathBuf;

/// How managed process trees are frozen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Freezer {
    /// The best this machine offers: cgroup v1 freezer, cgroup v2, else signals.
    Auto,
    /// cgroup v1 freezer at /sys/fs/cgroup/freezer.
    V1,
    /// cgroup v2 `cgroup.freeze` (/sys/fs/cgroup, or /sys/fs/cgroup/unified on hybrid systems).
    V2,
    /// SIGSTOP/SIGCONT to every process of the tree.
    Signals,
}

/// Options of every command that runs real processes on a machine it is told about (run, probe,
/// calibrate): the machine description and [`ProcessOpts`].
#[derive(ClapArgs, Clone)]
pub struct LiveOpts {
    /// Machine preset describing this machine (e.g. `kvm-epyc-2c`, or a file from `cosched calibrate`):
    /// its LLC, memory bandwidth and power model feed RDA's monitor, EFS and modelled energy when RAPL is absent.
    /// Without it the run describes this host from sysfs (contexts, cores, SMT, LLC); every run prints which.
    #[arg(long, short = 'm')]
    machine: Option<String>,
    /// Without -m: a machine file from `cosched calibrate` giving this host's memory bandwidth, power model
    /// and effective LLC, beside the topology sysfs reports.
    #[arg(long, conflicts_with = "machine")]
    calibration: Option<String>,
    #[command(flatten)]
    pub(crate) process: ProcessOpts,
}

/// How real processes are run and stopped (every command that launches them, `characterise`
/// too, which names its machine itself).
#[derive(ClapArgs, Clone)]
pub struct ProcessOpts {
    /// Sampling period of the event loop (exits, blocking, energy), ms.
    #[arg(long, default_value_t = 20.0)]
    tick_ms: f64,
    /// How to freeze process trees.
    #[arg(long, value_enum, default_value = "auto")]
    freezer: Freezer,
    /// Stop a run after this many seconds: every process is released and sent SIGTERM, and what is
    /// still alive after --grace-s is killed (the report names it). Ctrl-C and SIGTERM stop the same way.
    #[arg(long)]
    timeout_s: Option<f64>,
    /// When a run is stopped (--timeout-s, Ctrl-C, SIGTERM): seconds its processes have between SIGTERM
    /// and SIGKILL (a second Ctrl-C skips the rest).
    #[arg(long, default_value_t = 5.0)]
    grace_s: f64,
    /// Write each instance's stdout and stderr to DIR/<instance>.{out,err} (default: a single
    /// command's output passes through; a mix's is discarded).
    #[arg(long)]
    pub(crate) output_dir: Option<PathBuf>,
}

impl ProcessOpts {
    /// These flags as the host crate's settings, on the machine `-m` (or `--calibration`) names.
    pub fn settings(&self, machine: Option<String>, calibration: Option<String>) -> Live {
        Live {
            machine,
            calibration,
            tick_ms: self.tick_ms,
            freezer: match self.freezer {
                Freezer::Auto => host::Freezer::Auto,
                Freezer::V1 => host::Freezer::V1,
                Freezer::V2 => host::Freezer::V2,
                Freezer::Signals => host::Freezer::Signals,
            },
            timeout_s: self.timeout_s,
            grace_s: self.grace_s,
            output_dir: self.output_dir.clone(),
        }
    }

    /// A run configuration builder on `machine` with these options; notes on stderr, the watchdog this binary.
    pub fn builder(&self, machine: &str) -> Result<impl Fn(Mix, &str) -> RunConfig + Clone, String> {
        self.settings(Some(machine.to_string()), None).builder(&face()?).one_line()
    }
}

impl LiveOpts {
    /// These flags as the host crate's settings.
    pub fn settings(&self) -> Live {
        self.process.settings(self.machine.clone(), self.calibration.clone())
    }

    /// Describe this host by the calibration file `path` (as `--calibration PATH`).
    pub fn use_calibration(&mut self, path: String) {
        (self.machine, self.calibration) = (None, Some(path));
    }

    /// The machine flag given and its value (`-m`, else `--calibration`), if any.
    pub fn named(&self) -> Option<(&'static str, &str)> {
        match (&self.machine, &self.calibration) {
            (Some(m), _) => Some(("-m", m.as_str())),
            (None, Some(c)) => Some(("--calibration", c.as_str())),
            (None, None) => None,
        }
    }

    /// The machine description given (`-m`, else `--calibration`), if any.
    pub fn spec(&self) -> Result<Option<cosched_machine::MachineSpec>, String> {
        self.settings().spec().one_line()
    }

    /// A run configuration builder for `mix` under `policy` with these options;
    /// notes on stderr, the watchdog this binary.
    pub fn builder(&self) -> Result<impl Fn(Mix, &str) -> RunConfig + Clone, String> {
        self.settings().builder(&face()?).one_line()
    }
}

/// The command line as a face of the host crate: notes on stderr, this binary as the watchdog.
pub fn face() -> Result<Face, String> {
    let exe = WatchdogCommand::this_executable().map_err(|e| format!("cannot find my own executable: {e}"))?;
    Ok(Face { report: crate::progress::stderr(), watchdog: Some(exe) })
}

/// Load a mix file and check that every program it names exists, before anything is launched.
pub fn load_mix(path: &std::path::Path) -> Result<Mix, String> {
    cosched_host::live::load_mix(path).one_line()
}
