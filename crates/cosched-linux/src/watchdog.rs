//! Fail-safe: whatever happens to the scheduler, no managed process is left
//! frozen, stopped or pinned.
//!
//! - Normal exit, errors, panics and SIGINT/SIGTERM go through [`Guard`]'s
//!   `Drop`, which calls [`release::release_all`](crate::release::release_all).
//! - SIGKILL cannot be caught, so every run also starts a watchdog: a
//!   separate process (its own session, so a terminal's Ctrl-C does not reach
//!   it) that holds the read end of a pipe from the scheduler and has a
//!   parent-death signal (`PR_SET_PDEATHSIG`, SIGTERM). The scheduler tells it
//!   the method, the run's cgroup directory, the CPU mask to restore and every
//!   tree leader it launches, *before* the leader can be frozen or pinned.
//!   When the pipe reaches end-of-file or the signal arrives (the scheduler is
//!   gone, however it died) the watchdog releases everything and exits.
//!
//! Registry lines (one per write): `method <v1:PATH|v2:PATH|signals>`,
//! `dir <PATH>`, `restore <CPU,CPU,..>`, `leader <PID>`, `tmp <PATH>` (the
//! run's temporary folder, removed with the rest).

use crate::control::Method;
use std::io::{self, Write};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};

/// The hidden argument that turns the `cosched` binary into a watchdog.
pub const WATCHDOG_ARG: &str = "__cosched-watchdog";

/// How a face starts its watchdog: a program and the arguments before
/// [`WATCHDOG_ARG`] (the `cosched` binary itself with none; Python's
/// interpreter with the few words that call [`watchdog_main`] through the
/// extension module), so every face's runs are fail-safe the same way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WatchdogCommand {
    /// The executable.
    pub program: PathBuf,
    /// Its arguments, before [`WATCHDOG_ARG`].
    pub args: Vec<String>,
}

impl WatchdogCommand {
    /// The running executable, whose `main` serves [`WATCHDOG_ARG`] (the `cosched` binary).
    pub fn this_executable() -> io::Result<WatchdogCommand> {
        Ok(WatchdogCommand { program: std::env::current_exe()?, args: vec![] })
    }
}

/// What the watchdog knows about the run.
#[derive(Debug, Default, PartialEq)]
pub struct Registry {
    /// Freezing method.
    pub method: Option<Method>,
    /// The run's cgroup directory.
    pub dir: Option<PathBuf>,
    /// CPU mask to restore.
    pub restore: Vec<u32>,
    /// Tree leaders.
    pub leaders: Vec<i32>,
    /// The run's temporary folder (progress-period socket).
    pub tmp: Option<PathBuf>,
}

impl Registry {
    /// Apply one registry line (unknown or malformed lines are ignored: the
    /// watchdog must never die before it has released).
    pub fn apply(&mut self, line: &str) {
        let Some((k, v)) = line.trim().split_once(' ') else { return };
        match k {
            "method" => self.method = Method::parse(v),
            "dir" => self.dir = Some(PathBuf::from(v)),
            "tmp" => self.tmp = Some(PathBuf::from(v)),
            "restore" => self.restore = v.split(',').filter_map(|c| c.parse().ok()).collect(),
            "leader" => {
                if let Ok(p) = v.parse() {
                    self.leaders.push(p);
                }
            }
            _ => {}
        }
    }

    /// Release everything (see [`release::release_all`](crate::release::release_all)).
    pub fn release(&self) {
        let method = self.method.clone().unwrap_or(Method::Signals);
        let restore = if self.restore.is_empty() { all_cpus() } else { self.restore.clone() };
        crate::release::release_all(&method, self.dir.as_deref(), &self.leaders, &restore);
        if let Some(t) = &self.tmp {
            let _ = std::fs::remove_dir_all(t);
        }
    }
}

fn all_cpus() -> Vec<u32> {
    std::fs::read_to_string("/sys/devices/system/cpu/online")
        .ok()
        .and_then(|s| crate::probe::parse_cpu_list(&s))
        .unwrap_or_else(|| vec![0])
}

/// The scheduler's side: the watchdog process and the pipe to it.
pub struct Watchdog {
    child: Child,
    pipe: ChildStdin,
}

impl Watchdog {
    /// Start `PROGRAM ARGS… WATCHDOG_ARG` as the watchdog. Call from the main
    /// thread (the parent-death signal follows the thread that forked).
    /// SIGTERM is ignored until [`watchdog_main`] installs its handler, so an
    /// interpreter still starting up is not killed by the parent-death signal
    /// before it can release; the pipe's end-of-file wakes it all the same.
    pub fn spawn(command: &WatchdogCommand) -> io::Result<Watchdog> {
        let mut cmd = Command::new(&command.program);
        cmd.args(&command.args).arg(WATCHDOG_ARG).stdin(Stdio::piped()).stdout(Stdio::null());
        // SAFETY: setsid, signal and prctl are async-signal-safe.
        unsafe {
            cmd.pre_exec(|| {
                libc::setsid();
                libc::signal(libc::SIGTERM, libc::SIG_IGN);
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM, 0, 0, 0);
                Ok(())
            });
        }
        let mut child = cmd.spawn()?;
        let pipe = child.stdin.take().ok_or_else(|| io::Error::other("watchdog has no stdin"))?;
        Ok(Watchdog { child, pipe })
    }

    /// Tell the watchdog one registry line; it must arrive before the
    /// action it covers, so this is a direct, unbuffered write.
    pub fn tell(&mut self, line: &str) -> io::Result<()> {
        self.pipe.write_all(format!("{line}\n").as_bytes())
    }

    /// The normal end: close the pipe (the watchdog releases once more,
    /// idempotently) and reap it.
    pub fn finish(self) {
        let Watchdog { mut child, pipe } = self;
        drop(pipe);
        let _ = child.wait();
    }
}

extern "C" fn on_term(_: libc::c_int) {}

/// The watchdog process's main: read registry lines until end-of-file or
/// SIGTERM, then release. Returns the exit code.
pub fn watchdog_main() -> i32 {
    // SAFETY: installing a handler that does nothing, without SA_RESTART, so
    // a blocked read returns EINTR when the parent-death signal arrives.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_term as extern "C" fn(libc::c_int) as usize;
        libc::sigaction(libc::SIGTERM, &sa, std::ptr::null_mut());
        libc::signal(libc::SIGINT, libc::SIG_IGN);
        libc::signal(libc::SIGHUP, libc::SIG_IGN);
    }
    let mut reg = Registry::default();
    let mut buf = [0u8; 4096];
    let mut pending = Vec::new();
    loop {
        // SAFETY: reading into a stack buffer of the given length.
        let n = unsafe { libc::read(0, buf.as_mut_ptr().cast(), buf.len()) };
        if n <= 0 {
            break; // EOF (the scheduler is gone or finished) or EINTR (parent-death signal)
        }
        pending.extend_from_slice(&buf[..n as usize]);
        while let Some(i) = pending.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = pending.drain(..=i).collect();
            reg.apply(&String::from_utf8_lossy(&line));
        }
    }
    reg.release();
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_lines_parse_and_junk_is_ignored() {
        let mut r = Registry::default();
        for l in [
            "method v1:/sys/fs/cgroup/freezer",
            "dir /x/cosched-9",
            "restore 0,1",
            "leader 42",
            "leader x",
            "zz",
            "tmp /t/r",
        ] {
            r.apply(l);
        }
        assert_eq!(r.method, Some(Method::CgroupV1("/sys/fs/cgroup/freezer".into())));
        assert_eq!(r.dir, Some(PathBuf::from("/x/cosched-9")));
        assert_eq!(r.restore, vec![0, 1]);
        assert_eq!(r.leaders, vec![42]);
        assert_eq!(r.tmp, Some(PathBuf::from("/t/r")));
        for m in [Method::Signals, Method::CgroupV2("/a b".into())] {
            assert_eq!(Method::parse(&m.encode()), Some(m));
        }
    }
}
