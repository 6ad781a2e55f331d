//! Launching one mix instance as a managed process tree: its own cgroup
//! joined between fork and exec, the pp socket in its environment, output
//! to files or discarded, registered with the watchdog and the counter
//! source before it can be frozen or pinned.

use super::config::RunConfig;
use super::state::{Instance, Runtime};
use crate::mix::resolve_command;
use crate::pp::SOCKET_ENV;
use crate::sys;
use cosched_core::JobId;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::Instant;

/// Start one instance; registers it with the watchdog before it can be frozen or pinned.
pub(super) fn launch(
    rt: &mut Runtime,
    cfg: &RunConfig,
    job: usize,
    name: &str,
    socket: &std::path::Path,
) -> Result<usize, String> {
    let j = &cfg.mix.jobs[job];
    let (prog, pre) = resolve_command(&j.cmd[0]).ok_or_else(|| format!("command `{}` not found", j.cmd[0]))?;
    let idx = rt.instances.len();
    let (cg, joiner) = rt.control.prepare(idx).map_err(|e| format!("cannot create its cgroup: {e}"))?;
    let mut cmd = Command::new(&prog);
    cmd.args(pre)
        .args(&j.cmd[1..])
        .current_dir(cfg.mix.cwd(j))
        .envs(&j.env)
        .env(SOCKET_ENV, socket)
        .stdin(Stdio::null());
    match &cfg.output_dir {
        Some(d) => {
            let _ = std::fs::create_dir_all(d);
            let file = |ext: &str| std::fs::File::create(d.join(format!("{name}.{ext}"))).map(Stdio::from);
            cmd.stdout(file("out").map_err(|e| e.to_string())?).stderr(file("err").map_err(|e| e.to_string())?);
        }
        None if cfg.inherit_output => {
            cmd.stdout(Stdio::inherit()).stderr(Stdio::inherit());
        }
        None => {
            cmd.stdout(Stdio::null()).stderr(Stdio::null());
        }
    }
    // SAFETY: the joiner only makes async-signal-safe system calls.
    unsafe {
        cmd.pre_exec(move || joiner.join());
    }
    let mut child = cmd.spawn().map_err(|e| format!("cannot start `{}`: {e}", prog.display()))?;
    let pid = child.id() as i32;
    let mut tree = rt.control.adopt(pid, cg);
    // Registration must succeed, or the instance is stopped again: no process
    // may run that the watchdog does not know or the policy cannot see.
    let registered = rt
        .watchdog
        .as_mut()
        .map_or(Ok(()), |w| w.tell(&format!("leader {pid}")).map_err(|e| format!("watchdog: {e}")))
        .and_then(|_| {
            rt.counters
                .as_ref()
                .map_or(Ok(()), |src| src.borrow_mut().attach(idx, pid, &j.name).map_err(|e| e.to_string()))
        });
    if let Err(e) = registered {
        for p in rt.control.members(&mut tree) {
            sys::signal(p, libc::SIGKILL);
        }
        let _ = child.kill();
        let _ = child.wait();
        rt.control.release(&mut tree);
        return Err(e);
    }
    rt.leaders.push(pid);
    rt.leader_of.insert(pid, idx);
    rt.job_of.push(JobId(job as u32));
    rt.instances.push(Instance {
        mix_job: job,
        tree,
        start: Instant::now(),
        end: None,
        exit_code: None,
        idle_ticks: 0,
        begin_pending: Default::default(),
        cpu_s: 0.0,
        reaped: None,
        run_ns: 0,
        slice: None,
    });
    // The std Child is not waited on: the event loop reaps with waitpid(-1).
    std::mem::forget(child);
    Ok(idx)
}
