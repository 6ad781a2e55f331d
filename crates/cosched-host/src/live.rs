//! The settings of every experiment that runs real processes (`cosched run`,
//! `probe`, `calibrate`, Python's `cosched.host`): the machine description,
//! the event loop's tick, the freezer, the timeout and where output goes;
//! checked once, then a builder of each run's [`RunConfig`]. The face gives
//! where notes go and how its watchdog starts ([`Face`]).

use crate::error::HostError;
use cosched_core::num::shortest;
use cosched_core::progress::Reporter;
use cosched_lab::RunError;
use cosched_linux::control::Method;
use cosched_linux::describe::Description;
use cosched_linux::host::Host;
use cosched_linux::runtime::RunConfig;
use cosched_linux::watchdog::WatchdogCommand;
use cosched_machine::mix::Mix;
use cosched_machine::MachineSpec;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How managed process trees are frozen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Freezer {
    /// The best this machine offers: cgroup v1 freezer, cgroup v2, else signals.
    Auto,
    /// cgroup v1 freezer at /sys/fs/cgroup/freezer.
    V1,
    /// cgroup v2 `cgroup.freeze`.
    V2,
    /// SIGSTOP/SIGCONT to every process of the tree.
    Signals,
}

/// The settings of runs of real processes (each field is a flag of the CLI and a Python keyword).
#[derive(Clone, Debug)]
pub struct Live {
    /// Machine preset or file describing this machine (`machine`).
    pub machine: Option<String>,
    /// Without `machine`: a `cosched calibrate` file beside sysfs's topology (`calibration`).
    pub calibration: Option<String>,
    /// Sampling period of the event loop, ms (`tick_ms`).
    pub tick_ms: f64,
    /// How to freeze process trees (`freezer`).
    pub freezer: Freezer,
    /// Stop a run after this many seconds (`timeout_s`).
    pub timeout_s: Option<f64>,
    /// Seconds between SIGTERM and SIGKILL when a run is stopped (`grace_s`).
    pub grace_s: f64,
    /// Each instance's stdout and stderr to DIR/<instance>.{out,err} (`output_dir`).
    pub output_dir: Option<PathBuf>,
}

impl Default for Live {
    fn default() -> Live {
        Live {
            machine: None,
            calibration: None,
            tick_ms: 20.0,
            freezer: Freezer::Auto,
            timeout_s: None,
            grace_s: 5.0,
            output_dir: None,
        }
    }
}

/// What the face gives every run: where its notes and warnings go and how
/// its watchdog starts.
#[derive(Clone, Debug, Default)]
pub struct Face {
    /// Notes, warnings and progress lines.
    pub report: Reporter,
    /// The watchdog (`None`: none, tests of the library only).
    pub watchdog: Option<WatchdogCommand>,
}

/// Load a mix file and check that every program it names exists, before
/// anything is launched.
pub fn load_mix(path: &Path) -> Result<Mix, HostError> {
    let mix = Mix::load(path).map_err(RunError::from)?;
    mix.check_programs(&path.display().to_string()).map_err(RunError::from)?;
    Ok(mix)
}

/// The refusal of a published machine description (a paper's machine, not
/// written by `cosched calibrate`) where this host's calibration is asked for
/// (`knob`: the flag or keyword that named it): its LLC, bandwidth and latency
/// would size and predict this host's programs from another machine's figures.
pub fn refuse_published(knob: &str, named: &str, spec: &MachineSpec) -> Result<(), HostError> {
    if cosched_linux::calibrate::is_calibration(spec) {
        return Ok(());
    }
    let problem = format!(
        "`{named}` is a published machine description, not a calibration of this host (its sources do not \
         begin \"{}\"): run `cosched calibrate -o host.toml` and give that file",
        cosched_linux::calibrate::WRITTEN_BY
    );
    Err(RunError::knob(knob, problem).into())
}

impl Live {
    /// The machine description given (`machine`, else `calibration`), if any.
    pub fn spec(&self) -> Result<Option<MachineSpec>, HostError> {
        let named = self.machine.as_deref().or(self.calibration.as_deref());
        Ok(named.map(cosched_machine::presets::machine).transpose().map_err(RunError::from)?)
    }

    /// A run configuration builder for a mix under a policy with these
    /// settings; the host is read once, so every run of the experiment
    /// (repeats, rounds, probes) uses the same description.
    pub fn builder(&self, face: &Face) -> Result<impl Fn(Mix, &str) -> RunConfig + Clone, HostError> {
        if !(self.tick_ms.is_finite() && (1.0..=10_000.0).contains(&self.tick_ms)) {
            let got = shortest(self.tick_ms);
            return Err(RunError::knob("tick_ms", format!("must be from 1 to 10000 ms, got {got}")).into());
        }
        if let Some(t) = self.timeout_s {
            if !(t.is_finite() && t > 0.0 && t <= 1e7) {
                let got = shortest(t);
                let problem = format!("must be a positive number of seconds up to 1e7, got {got}");
                return Err(RunError::knob("timeout_s", problem).into());
            }
        }
        if !(self.grace_s.is_finite() && (0.0..=3600.0).contains(&self.grace_s)) {
            let got = shortest(self.grace_s);
            return Err(RunError::knob("grace_s", format!("must be from 0 to 3600 seconds, got {got}")).into());
        }
        let load = |n: &Option<String>| n.as_deref().map(cosched_machine::presets::machine).transpose();
        let machine = load(&self.machine).map_err(RunError::from)?;
        let calibration = load(&self.calibration).map_err(RunError::from)?;
        if let (Some(c), Some(named)) = (&calibration, &self.calibration) {
            refuse_published("calibration", named, c)?;
        }
        let host = Host::live();
        let description = Description::of(&host, machine.as_ref(), calibration.as_ref());
        // The LLC's contradiction is said by the run whose policy reads it (`cosched_linux::runtime`).
        for w in &description.warnings {
            face.report.line(|| format!("warning: {w}"));
        }
        let method = method(self.freezer)?;
        let (o, face) = (self.clone(), face.clone());
        Ok(move |mix: Mix, policy: &str| {
            let mut c = RunConfig::new(mix, policy);
            c.tick = Duration::from_secs_f64(o.tick_ms / 1000.0);
            c.method = method.clone();
            c.watchdog = face.watchdog.clone();
            c.machine = machine.clone();
            c.calibration = calibration.clone();
            c.host = Some(host.clone());
            c.report = face.report.clone();
            c.timeout = o.timeout_s.map(Duration::from_secs_f64);
            c.grace = Duration::from_secs_f64(o.grace_s);
            c.output_dir = o.output_dir.clone();
            c
        })
    }
}

fn method(f: Freezer) -> Result<Method, HostError> {
    let m = match f {
        Freezer::Auto => Method::detect(),
        Freezer::V1 => Method::CgroupV1("/sys/fs/cgroup/freezer".into()),
        Freezer::V2 => Method::CgroupV2(
            Method::v2_root().ok_or_else(|| RunError::knob("freezer", "v2: no cgroup v2 hierarchy mounted"))?,
        ),
        Freezer::Signals => Method::Signals,
    };
    if let Method::CgroupV1(p) | Method::CgroupV2(p) = &m {
        if !p.join("cgroup.procs").exists() {
            return Err(RunError::knob("freezer", format!("no cgroup hierarchy at {}", p.display())).into());
        }
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_setting_out_of_range_is_refused_naming_its_flag() {
        let bad = |f: &dyn Fn(&mut Live)| {
            let mut l = Live::default();
            f(&mut l);
            l.builder(&Face::default()).err().map(|e| e.to_string()).unwrap_or_default()
        };
        assert_eq!(bad(&|l| l.tick_ms = 0.5), "--tick-ms: must be from 1 to 10000 ms, got 0.5");
        assert!(bad(&|l| l.timeout_s = Some(-1.0)).starts_with("--timeout-s: must be a positive"));
        assert!(bad(&|l| l.grace_s = f64::NAN).starts_with("--grace-s: must be from 0 to 3600 seconds"));
        assert!(Live::default().builder(&Face::default()).is_ok());
    }
}
