//! Options of every command that runs real processes (`run`, `probe`,
//! `calibrate`): the machine description (`-m`, `--calibration`), the event
//! loop's tick, the freezer, the timeout and where output goes; and the mix
//! loader that refuses a missing program or working directory before launch.

use clap::{Args as ClapArgs, ValueEnum};
use cosched_linux::control::Method;
use cosched_linux::describe::Description;
use cosched_linux::host::Host;
use cosched_linux::runtime::RunConfig;
use cosched_machine::mix::Mix;
use std::path::PathBuf;
use std::time::Duration;

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

/// Options of every command that runs real processes (run, probe).
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

/// Load a mix file and check that every program it names exists, before
/// anything is launched.
pub fn load_mix(path: &std::path::Path) -> Result<Mix, String> {
    let mix = Mix::load(path).map_err(|e| e.to_string())?;
    mix.check_programs(&path.display().to_string()).map_err(|e| e.to_string())?;
    Ok(mix)
}

impl LiveOpts {
    /// The machine description given (`-m`, else `--calibration`), if any.
    pub fn spec(&self) -> Result<Option<cosched_machine::MachineSpec>, String> {
        self.machine
            .as_deref()
            .or(self.calibration.as_deref())
            .map(cosched_machine::presets::machine)
            .transpose()
            .map_err(|e| e.to_string())
    }

    /// A run configuration builder for `mix` under `policy` with these options.
    pub fn builder(&self) -> Result<impl Fn(Mix, &str) -> RunConfig, String> {
        if !(self.tick_ms.is_finite() && (1.0..=10_000.0).contains(&self.tick_ms)) {
            return Err(format!(
                "--tick-ms: must be from 1 to 10000 ms, got {}",
                cosched_core::num::shortest(self.tick_ms)
            ));
        }
        if let Some(t) = self.timeout_s {
            if !(t.is_finite() && t > 0.0 && t <= 1e7) {
                return Err(format!(
                    "--timeout-s: must be a positive number of seconds up to 1e7, got {}",
                    cosched_core::num::shortest(t)
                ));
            }
        }
        if !(self.grace_s.is_finite() && (0.0..=3600.0).contains(&self.grace_s)) {
            return Err(format!(
                "--grace-s: must be from 0 to 3600 seconds, got {}",
                cosched_core::num::shortest(self.grace_s)
            ));
        }
        let machine =
            self.machine.as_deref().map(cosched_machine::presets::machine).transpose().map_err(|e| e.to_string())?;
        let calibration = self
            .calibration
            .as_deref()
            .map(cosched_machine::presets::machine)
            .transpose()
            .map_err(|e| e.to_string())?;
        // Read once: every run of this command (repeats, rounds, probes) uses this host.
        // The description itself is printed with every report (provenance, `machine description`).
        let host = Host::live();
        let description = Description::of(&host, machine.as_ref(), calibration.as_ref());
        for w in &description.warnings {
            eprintln!("warning: {w}");
        }
        let method = method(self.freezer)?;
        let exe = std::env::current_exe().map_err(|e| format!("cannot find my own executable: {e}"))?;
        let o = self.clone();
        Ok(move |mix: Mix, policy: &str| {
            let mut c = RunConfig::new(mix, policy);
            c.tick = Duration::from_secs_f64(o.tick_ms / 1000.0);
            c.method = method.clone();
            c.watchdog_exe = Some(exe.clone());
            c.machine = machine.clone();
            c.calibration = calibration.clone();
            c.host = Some(host.clone());
            c.report = crate::progress::stderr();
            c.timeout = o.timeout_s.map(Duration::from_secs_f64);
            c.grace = Duration::from_secs_f64(o.grace_s);
            c.output_dir = o.output_dir.clone();
            c
        })
    }
}

fn method(f: Freezer) -> Result<Method, String> {
    let m = match f {
        Freezer::Auto => Method::detect(),
        Freezer::V1 => Method::CgroupV1("/sys/fs/cgroup/freezer".into()),
        Freezer::V2 => Method::CgroupV2(Method::v2_root().ok_or("--freezer v2: no cgroup v2 hierarchy mounted")?),
        Freezer::Signals => Method::Signals,
    };
    if let Method::CgroupV1(p) | Method::CgroupV2(p) = &m {
        if !p.join("cgroup.procs").exists() {
            return Err(format!("--freezer: no cgroup hierarchy at {}", p.display()));
        }
    }
    Ok(m)
}
