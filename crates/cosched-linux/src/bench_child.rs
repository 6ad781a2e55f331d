//! The `cosched-bench` children `cosched calibrate` and its absence probe
//! start: pinned to one CPU, dying with their parent, and read back as their
//! final JSON line with the kernel's accounting of their CPU time.

use crate::mix::resolve_program;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};

/// Calibration that could not measure or could not turn its measurements
/// into a machine description.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CalibrateError {
    /// A `cosched-bench` kernel did not start or gave no result.
    #[error("{0}")]
    Bench(String),
    /// The measurements do not determine a valid machine description.
    #[error("{0}")]
    Derive(String),
}

/// Run `cosched-bench ARGS` pinned to `cpu`; its final JSON's `ops_per_s`.
pub(crate) fn bench(cpu: u32, args: &[String]) -> Result<std::process::Child, CalibrateError> {
    let prog = resolve_program("cosched-bench").ok_or_else(|| {
        CalibrateError::Bench("cosched-bench not found (build it: `cargo build --release` in the checkout)".into())
    })?;
    let mut cmd = Command::new(prog);
    cmd.args(args).stdout(Stdio::piped()).stderr(Stdio::null());
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
    cmd.spawn().map_err(|e| CalibrateError::Bench(format!("cannot start cosched-bench: {e}")))
}

pub(crate) fn rate(child: std::process::Child) -> Result<f64, CalibrateError> {
    let out = child.wait_with_output().map_err(|e| CalibrateError::Bench(e.to_string()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let last = text.lines().last().unwrap_or("");
    let v: serde_json::Value = serde_json::from_str(last)
        .map_err(|_| CalibrateError::Bench(format!("cosched-bench printed no result: {last}")))?;
    v["ops_per_s"].as_f64().ok_or_else(|| CalibrateError::Bench("cosched-bench result lacks ops_per_s".into()))
}

/// Wait for a `cosched-bench` run: its final JSON line, its CPU time (user +
/// system, s) and its involuntary context switches, from the kernel's
/// accounting of the child.
pub(crate) fn finish(mut child: std::process::Child) -> Result<(serde_json::Value, f64, f64), CalibrateError> {
    use std::io::Read;
    let mut text = String::new();
    if let Some(mut out) = child.stdout.take() {
        out.read_to_string(&mut text).map_err(|e| CalibrateError::Bench(e.to_string()))?;
    }
    let mut status = 0;
    // SAFETY: a zeroed rusage is valid; wait4 on our own child's pid.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    if unsafe { libc::wait4(pid, &mut status, 0, &mut ru) } != pid {
        return Err(CalibrateError::Bench(format!("wait4: {}", std::io::Error::last_os_error())));
    }
    let last = text.lines().last().unwrap_or("");
    let v: serde_json::Value = serde_json::from_str(last)
        .map_err(|_| CalibrateError::Bench(format!("cosched-bench printed no result: {last}")))?;
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    Ok((v, secs(ru.ru_utime) + secs(ru.ru_stime), ru.ru_nivcsw as f64))
}
