//! The `cosched-bench` children `cosched calibrate` and its absence probe
//! start: pinned to one CPU, dying with their parent, and read back as their
//! final JSON line with the kernel's accounting of their CPU time.

use crate::mix::resolve_command;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};

/// Calibration that could not measure or could not turn its measurements
/// into a machine description.
#[derive(Debug, thiserror::Error)]
pub enum CalibrateError {
    /// `cosched-bench` is neither on `PATH` nor beside this binary, and this binary is not
    /// `cosched` (which carries the kernels as `cosched bench`).
    #[error("cosched-bench not found on PATH or beside this program, and this program is not `cosched` (which runs the kernels itself as `cosched bench`)")]
    NoBench,
    /// `cosched-bench` did not start.
    #[error("cannot start cosched-bench: {0}")]
    Start(#[source] std::io::Error),
    /// Reading a `cosched-bench` child's output failed.
    #[error("{0}")]
    Read(#[source] std::io::Error),
    /// Waiting for a `cosched-bench` child failed.
    #[error("wait4: {0}")]
    Wait(#[source] std::io::Error),
    /// Its last line is not a JSON result.
    #[error("cosched-bench printed no result: {last}")]
    NoResult {
        /// The line it printed last.
        last: String,
    },
    /// Its result has no `ops_per_s`.
    #[error("cosched-bench result lacks ops_per_s")]
    NoRate,
    /// The latency curve has no cliff between L2 and DRAM.
    #[error("the latency curve shows no cache cliff between L2 and DRAM; cannot place the LLC")]
    NoCliff,
    /// No latency was measured.
    #[error("no latency measured")]
    NoLatency,
    /// The derived description does not serialise.
    #[error("{0}")]
    Toml(#[from] toml::ser::Error),
    /// The derived description does not validate.
    #[error("the derived preset does not validate: {0}")]
    Invalid(#[source] cosched_machine::ConfigError),
}

/// Run `cosched-bench ARGS` pinned to `cpu`; its final JSON's `ops_per_s`.
pub(crate) fn bench(cpu: u32, args: &[String]) -> Result<std::process::Child, CalibrateError> {
    let (prog, pre) = resolve_command(cosched_machine::mix::BENCH).ok_or(CalibrateError::NoBench)?;
    let mut cmd = Command::new(prog);
    cmd.args(pre).args(args).stdout(Stdio::piped()).stderr(Stdio::null());
    // SAFETY: sched_setaffinity and prctl on the child itself, async-signal-safe.
    unsafe {
        cmd.pre_exec(move || {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(cpu as usize, &mut set);
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
            // Dies with calibrate, even stopped (the absence probe stops its children).
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
            Ok(())
        });
    }
    cmd.spawn().map_err(CalibrateError::Start)
}

pub(crate) fn rate(child: std::process::Child) -> Result<f64, CalibrateError> {
    let out = child.wait_with_output().map_err(CalibrateError::Read)?;
    let text = String::from_utf8_lossy(&out.stdout);
    let last = text.lines().last().unwrap_or("");
    let v: serde_json::Value =
        serde_json::from_str(last).map_err(|_| CalibrateError::NoResult { last: last.to_string() })?;
    v["ops_per_s"].as_f64().ok_or(CalibrateError::NoRate)
}

/// Wait for a `cosched-bench` run: its final JSON line, its CPU time (user +
/// system, s) and its involuntary context switches, from the kernel's
/// accounting of the child.
pub(crate) fn finish(mut child: std::process::Child) -> Result<(serde_json::Value, f64, f64), CalibrateError> {
    use std::io::Read;
    let mut text = String::new();
    if let Some(mut out) = child.stdout.take() {
        out.read_to_string(&mut text).map_err(CalibrateError::Read)?;
    }
    let mut status = 0;
    // SAFETY: a zeroed rusage is valid; wait4 on our own child's pid.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    if unsafe { libc::wait4(pid, &mut status, 0, &mut ru) } != pid {
        return Err(CalibrateError::Wait(std::io::Error::last_os_error()));
    }
    let last = text.lines().last().unwrap_or("");
    let v: serde_json::Value =
        serde_json::from_str(last).map_err(|_| CalibrateError::NoResult { last: last.to_string() })?;
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    Ok((v, secs(ru.ru_utime) + secs(ru.ru_stime), ru.ru_nivcsw as f64))
}
