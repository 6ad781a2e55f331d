//! Releasing managed trees race-free (the fail-safe's last act, Perf&Fair
//! §6.1's user-level scheduler made safe for whole trees): every member
//! thawed, unpinned, continued and moved out of the run's cgroups, which are
//! then removed.
//!
//! Two races make a single pass unsafe, both seen under load (docs/runtime.md,
//! "Fail-safe"):
//! - a child between `fork` and `exec` joins its tree's cgroup itself
//!   ([`Joiner`](crate::control::Joiner)); when the scheduler dies in that
//!   window the child may join *after* the release read the cgroup empty,
//!   so `rmdir` fails (`EBUSY`) and the child stays in the run's cgroup;
//! - a member that forks or starts a thread while it is unpinned gives the
//!   newcomer the old (pinned) mask.
//!
//! So a cgroup tree is drained: frozen (nothing in it forks any more; a late
//! joiner is frozen as it joins), every thread unpinned, every process
//! continued and moved to the root cgroup (which thaws it), read again until
//! the cgroup is empty *and* `rmdir` succeeds; should it never empty, it is
//! thawed, so that nothing stays frozen. Without cgroups the members are
//! found by parentage and process group until a pass finds nothing new
//! to unpin or continue.

use crate::method::Method;
use crate::sys;
use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

/// How long a drain waits for a freeze to take before unpinning anyway
/// (a task in an uninterruptible sleep delays it; nothing is lost by going on).
const FREEZE_WAIT: Duration = Duration::from_millis(500);
/// How many rounds of read-move-remove a drain makes before it gives up
/// (each round moves every process it read; a round is needed only for a
/// late joiner or a fork, so a handful suffices outside a fork bomb).
const DRAIN_ROUNDS: usize = 1000;

/// Read a list of ids (one per line) from a cgroup file; empty when gone.
pub(crate) fn read_ids(file: &Path) -> Vec<i32> {
    sys::read_small(&file.to_string_lossy())
        .map(|s| s.split_whitespace().filter_map(|x| x.parse().ok()).collect())
        .unwrap_or_default()
}

/// Ask the cgroup `cg` to freeze (`true`) or thaw.
pub(crate) fn set_cgroup_frozen(method: &Method, cg: &Path, frozen: bool) {
    let _ = match method {
        Method::CgroupV1(_) => std::fs::write(cg.join("freezer.state"), if frozen { "FROZEN" } else { "THAWED" }),
        Method::CgroupV2(_) => std::fs::write(cg.join("cgroup.freeze"), if frozen { "1" } else { "0" }),
        Method::Signals => Ok(()),
    };
}

/// Whether every task of `cg` is frozen (v1 `freezer.state`, v2 `cgroup.events`).
fn cgroup_frozen(method: &Method, cg: &Path) -> bool {
    let read = |f: &str| sys::read_small(&cg.join(f).to_string_lossy()).unwrap_or_default();
    match method {
        Method::CgroupV1(_) => read("freezer.state").trim() == "FROZEN",
        Method::CgroupV2(_) => read("cgroup.events").lines().any(|l| l.trim() == "frozen 1"),
        Method::Signals => true,
    }
}

/// The thread list of a cgroup (v1 `tasks`, v2 `cgroup.threads`).
fn threads_file(method: &Method) -> &'static str {
    match method {
        Method::CgroupV1(_) => "tasks",
        _ => "cgroup.threads",
    }
}

/// Unpin `tid` to `restore` unless it already has that mask; returns whether it changed.
fn unpin(tid: i32, restore: &[u32]) -> bool {
    match sys::get_affinity(tid) {
        Ok(mask) if mask == restore => false,
        Ok(_) => sys::set_affinity(tid, restore).is_ok(),
        Err(_) => false, // gone
    }
}

/// Drain one tree cgroup `cg` into `root`'s `cgroup.procs` and remove it
/// (see the module doc). Returns the pids it moved, or the cgroup's
/// remaining members when it could not be emptied.
pub fn drain_cgroup(method: &Method, root: &Path, cg: &Path, restore: &[u32]) -> Result<Vec<i32>, Vec<i32>> {
    if !cg.exists() {
        return Ok(vec![]);
    }
    set_cgroup_frozen(method, cg, true);
    let t = Instant::now();
    while !cgroup_frozen(method, cg) && t.elapsed() < FREEZE_WAIT {
        std::thread::sleep(Duration::from_millis(1));
    }
    let mut moved = vec![];
    for _ in 0..DRAIN_ROUNDS {
        for tid in read_ids(&cg.join(threads_file(method))) {
            unpin(tid, restore);
        }
        let procs = read_ids(&cg.join("cgroup.procs"));
        if procs.is_empty() {
            match std::fs::remove_dir(cg) {
                Ok(()) => return Ok(moved),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(moved),
                // EBUSY: a late joiner arrived after the read; go round again.
                Err(_) => continue,
            }
        }
        for p in procs {
            sys::signal(p, libc::SIGCONT);
            if std::fs::write(root.join("cgroup.procs"), p.to_string()).is_ok() {
                moved.push(p);
            }
        }
    }
    // Never emptied: at least nothing in it stays frozen.
    set_cgroup_frozen(method, cg, false);
    Err(read_ids(&cg.join("cgroup.procs")))
}

/// Living processes that descend from `known` or share the process group
/// of one of `leaders` (one scan of `/proc`).
pub(crate) fn descendants(known: &BTreeSet<i32>, leaders: &[i32]) -> BTreeSet<i32> {
    let stats: Vec<(i32, sys::TaskStat)> =
        sys::all_pids().into_iter().filter_map(|p| Some((p, sys::proc_stat(p)?))).collect();
    let mut set: BTreeSet<i32> = stats
        .iter()
        .filter(|(p, s)| s.state != 'Z' && (known.contains(p) || leaders.contains(&s.pgid)))
        .map(|(p, _)| *p)
        .collect();
    loop {
        let before = set.len();
        for (p, s) in &stats {
            if s.state != 'Z' && set.contains(&s.ppid) {
                set.insert(*p);
            }
        }
        if set.len() == before {
            return set;
        }
    }
}

/// Release trees known only by their leaders (no cgroup): unpin every
/// thread and continue every process of theirs, found by parentage and
/// process group, until a pass finds no new member and no thread to
/// unpin (each pass continues every member). Returns every member seen.
pub fn release_by_parentage(leaders: &[i32], restore: &[u32]) -> BTreeSet<i32> {
    let mut seen: BTreeSet<i32> = leaders.iter().copied().collect();
    for _ in 0..DRAIN_ROUNDS {
        let members = descendants(&seen, leaders);
        let mut changed = members.iter().any(|p| !seen.contains(p));
        for &p in &members {
            for tid in sys::tids_of(p) {
                changed |= unpin(tid, restore);
            }
            // Unconditionally: a SIGSTOP still pending (the member not yet
            // scheduled, as on a busy host) shows no `T` state, and SIGCONT
            // discards it.
            sys::signal(p, libc::SIGCONT);
        }
        seen.extend(members);
        if !changed {
            break;
        }
    }
    seen
}

/// Release everything a run left behind, from its registry alone (the
/// watchdog's and the guard's last act): every tree cgroup under `run_dir`
/// drained and removed, then every process reachable from `leaders`
/// unpinned and continued, then `run_dir` removed. Idempotent.
pub fn release_all(method: &Method, run_dir: Option<&Path>, leaders: &[i32], restore: &[u32]) {
    if let (Some(root), Some(run)) = (method.root(), run_dir) {
        let trees: Vec<std::path::PathBuf> = std::fs::read_dir(run)
            .map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.is_dir()).collect())
            .unwrap_or_default();
        for t in &trees {
            let _ = drain_cgroup(method, root, t, restore);
        }
    }
    release_by_parentage(leaders, restore);
    if let Some(run) = run_dir {
        let _ = std::fs::remove_dir(run);
    }
}

/// The pid in a run's name (`cosched-<pid>`, `cosched-run-<pid>`), when
/// that process is gone: the run is stale.
fn stale_pid(name: &str, prefix: &str) -> Option<i32> {
    let pid: i32 = name.strip_prefix(prefix)?.parse().ok()?;
    (!Path::new(&format!("/proc/{pid}")).exists()).then_some(pid)
}

/// Sweep what runs whose scheduler and watchdog both died left behind (a
/// SIGKILL before the watchdog started, or of both): every `cosched-<pid>`
/// cgroup of a gone pid drained into the root and removed, every
/// `cosched-probe-<pid>` (the writability check of a start killed between
/// its mkdir and rmdir) and `cosched-run-<pid>` temporary folder of a gone
/// pid removed. Called at each start; a run still alive (its pid exists) is
/// never touched.
pub fn sweep_stale(method: &Method, restore: &[u32]) {
    if let Some(root) = method.root() {
        for e in std::fs::read_dir(root).into_iter().flatten().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if stale_pid(&name, "cosched-").is_some() || stale_pid(&name, "cosched-probe-").is_some() {
                release_all(method, Some(&e.path()), &[], restore);
            }
        }
    }
    for e in std::fs::read_dir(std::env::temp_dir()).into_iter().flatten().flatten() {
        if stale_pid(&e.file_name().to_string_lossy(), "cosched-run-").is_some() {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}
