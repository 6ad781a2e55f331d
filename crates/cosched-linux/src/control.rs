//! Controlling a managed process *tree* as one unit (Perf&Fair §6.1's
//! user-level scheduler, applied to whole trees): freeze and thaw it, pin
//! every thread of it to a set of CPUs, list its members, and release it.
//!
//! Three mechanisms, best first:
//! - cgroup v1 `freezer` (`freezer.state`), one child cgroup per managed tree;
//! - cgroup v2 `cgroup.freeze`, same layout;
//! - `SIGSTOP`/`SIGCONT` to every member when no freezer is usable. Members
//!   are then found by process group (each tree leader gets its own) and
//!   by parentage (the scheduler is a child subreaper, so orphans stay in
//!   reach).
//!
//! A child joins its cgroup itself, between `fork` and `exec`, so not even
//! its first fork escapes.

use crate::release::{self, read_ids};
use crate::sys;
use std::collections::BTreeSet;
use std::ffi::CString;
use std::io;
use std::path::{Path, PathBuf};

pub use crate::method::{run_dir, Method};

/// One managed tree.
#[derive(Debug)]
pub struct Tree {
    /// Its leader (the process the runtime launched).
    pub leader: i32,
    cg: Option<PathBuf>,
    /// Members seen so far (signals method).
    known: BTreeSet<i32>,
    frozen: bool,
}

/// Prepared before `fork`: what the child does to join its tree
/// (async-signal-safe: raw `open`/`write`/`setpgid` only).
pub struct Joiner {
    procs: Option<CString>,
}

impl Joiner {
    /// Run in the child between fork and exec.
    pub fn join(&self) -> io::Result<()> {
        // SAFETY: setpgid/open/write/close with valid pointers; no allocation.
        unsafe {
            if libc::setpgid(0, 0) != 0 {
                return Err(io::Error::last_os_error());
            }
            if let Some(p) = &self.procs {
                let fd = libc::open(p.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
                if fd < 0 {
                    return Err(io::Error::last_os_error());
                }
                let ok = libc::write(fd, b"0".as_ptr().cast(), 1) == 1;
                libc::close(fd);
                if !ok {
                    return Err(io::Error::last_os_error());
                }
            }
        }
        Ok(())
    }
}

/// The run's trees.
pub struct Control {
    /// Mechanism.
    pub method: Method,
    dir: Option<PathBuf>,
    /// CPUs a released task may use (the scheduler's own mask at start).
    pub restore: Vec<u32>,
}

impl Control {
    /// The run's control, its cgroup directory (if any) named but not yet
    /// made: tell the watchdog first, then [`Control::create`], so that a
    /// scheduler killed in between leaves nothing the watchdog does not know.
    pub fn new(method: Method) -> io::Result<Control> {
        let dir = run_dir(&method, std::process::id());
        let me = std::process::id() as i32;
        let restore = sys::get_affinity(me)?;
        Ok(Control { method, dir, restore })
    }

    /// Make the run's cgroup directory (if any).
    pub fn create(&self) -> io::Result<()> {
        match &self.dir {
            Some(d) => std::fs::create_dir_all(d),
            None => Ok(()),
        }
    }

    /// The cgroup directory of the run, if any.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// Prepare tree number `idx`: its cgroup and the child's joiner.
    pub fn prepare(&self, idx: usize) -> io::Result<(PathBuf, Joiner)> {
        match &self.dir {
            Some(d) => {
                let g = d.join(format!("t{idx}"));
                std::fs::create_dir_all(&g)?;
                let procs = CString::new(g.join("cgroup.procs").as_os_str().as_encoded_bytes())
                    .map_err(|_| io::Error::other("cgroup path contains a NUL byte"))?;
                Ok((g, Joiner { procs: Some(procs) }))
            }
            None => Ok((PathBuf::new(), Joiner { procs: None })),
        }
    }

    /// The tree led by a freshly spawned `leader` in the cgroup `cg` from [`Control::prepare`].
    pub fn adopt(&self, leader: i32, cg: PathBuf) -> Tree {
        let cg = if self.dir.is_some() { Some(cg) } else { None };
        Tree { leader, cg, known: BTreeSet::from([leader]), frozen: false }
    }

    /// Processes of the tree now alive.
    pub fn members(&self, t: &mut Tree) -> Vec<i32> {
        match &t.cg {
            Some(cg) => read_ids(&cg.join("cgroup.procs")),
            None => {
                t.known = release::descendants(&t.known, &[t.leader]);
                t.known.iter().copied().collect()
            }
        }
    }

    /// Every thread of the tree as (pid, tid); with cgroups one read of the
    /// thread list (`tasks` in v1, `cgroup.threads` in v2), where the tid
    /// also names the task (`/proc/TID/task/TID` exists for every thread).
    pub fn tasks(&self, t: &mut Tree) -> Vec<(i32, i32)> {
        match (&self.method, &t.cg) {
            (Method::CgroupV1(_), Some(cg)) => read_ids(&cg.join("tasks")).into_iter().map(|tid| (tid, tid)).collect(),
            (Method::CgroupV2(_), Some(cg)) => {
                read_ids(&cg.join("cgroup.threads")).into_iter().map(|tid| (tid, tid)).collect()
            }
            _ => {
                self.members(t).into_iter().flat_map(|p| sys::tids_of(p).into_iter().map(move |tid| (p, tid))).collect()
            }
        }
    }

    /// Whether the tree is frozen (as far as this runtime asked).
    pub fn is_frozen(&self, t: &Tree) -> bool {
        t.frozen
    }

    /// Stop every member.
    pub fn freeze(&self, t: &mut Tree) {
        t.frozen = true;
        self.set_frozen(t, true);
    }

    /// Let every member run.
    pub fn thaw(&self, t: &mut Tree) {
        t.frozen = false;
        self.set_frozen(t, false);
    }

    fn set_frozen(&self, t: &mut Tree, frozen: bool) {
        match &t.cg {
            Some(cg) => release::set_cgroup_frozen(&self.method, cg, frozen),
            None => {
                let sig = if frozen { libc::SIGSTOP } else { libc::SIGCONT };
                for p in self.members(t) {
                    sys::signal(p, sig);
                }
            }
        }
    }

    /// Pin every thread of the tree to `cpus`.
    pub fn pin(&self, t: &mut Tree, cpus: &[u32]) {
        for (_, tid) in self.tasks(t) {
            let _ = sys::set_affinity(tid, cpus);
        }
    }

    /// Release the tree race-free ([`release`]): with cgroups, drained
    /// into the root cgroup (frozen, unpinned, continued, moved) and its
    /// cgroup removed; without, unpinned and continued by parentage.
    pub fn release(&self, t: &mut Tree) {
        t.frozen = false;
        match (self.method.root(), &t.cg) {
            (Some(root), Some(cg)) => {
                let _ = release::drain_cgroup(&self.method, root, cg, &self.restore);
            }
            _ => {
                t.known = release::release_by_parentage(&[t.leader], &self.restore);
            }
        }
    }
}
