//! How the real runtime freezes trees and finds their members: the cgroup
//! v1 freezer, the cgroup v2 freeze, or signals, detected on this machine;
//! and where one run's cgroups live.

use std::path::{Path, PathBuf};

/// How trees are frozen and their members found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Method {
    /// cgroup v1 freezer hierarchy mounted at this path.
    CgroupV1(PathBuf),
    /// cgroup v2 unified hierarchy mounted at this path.
    CgroupV2(PathBuf),
    /// Signals.
    Signals,
}

impl Method {
    /// The best method this machine offers (`/sys/fs/cgroup`), if we may write there.
    pub fn detect() -> Method {
        let v1 = Path::new("/sys/fs/cgroup/freezer");
        if v1.join("cgroup.procs").exists() && writable(v1) {
            return Method::CgroupV1(v1.to_path_buf());
        }
        Method::v2_root().filter(|p| writable(p)).map(Method::CgroupV2).unwrap_or(Method::Signals)
    }

    /// The cgroup v2 hierarchy: `/sys/fs/cgroup` on a unified system, else
    /// the hybrid layout's `/sys/fs/cgroup/unified` (systemd mounts it
    /// beside the v1 controllers; it has `cgroup.freeze` too).
    pub fn v2_root() -> Option<PathBuf> {
        ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"]
            .iter()
            .map(PathBuf::from)
            .find(|p| p.join("cgroup.controllers").exists())
    }

    /// Parse `v1:PATH`, `v2:PATH`, `signals` (the watchdog's registry line).
    pub fn parse(s: &str) -> Option<Method> {
        match s.split_once(':') {
            Some(("v1", p)) => Some(Method::CgroupV1(p.into())),
            Some(("v2", p)) => Some(Method::CgroupV2(p.into())),
            None if s == "signals" => Some(Method::Signals),
            _ => None,
        }
    }

    /// Inverse of [`Method::parse`].
    pub fn encode(&self) -> String {
        match self {
            Method::CgroupV1(p) => format!("v1:{}", p.display()),
            Method::CgroupV2(p) => format!("v2:{}", p.display()),
            Method::Signals => "signals".into(),
        }
    }

    /// Short name for reports.
    pub fn label(&self) -> &'static str {
        match self {
            Method::CgroupV1(_) => "cgroup v1 freezer",
            Method::CgroupV2(_) => "cgroup v2 freeze",
            Method::Signals => "SIGSTOP/SIGCONT",
        }
    }

    /// The cgroup hierarchy's root, if the method uses one.
    pub fn root(&self) -> Option<&Path> {
        match self {
            Method::CgroupV1(p) | Method::CgroupV2(p) => Some(p),
            Method::Signals => None,
        }
    }
}

fn writable(dir: &Path) -> bool {
    let probe = dir.join(format!("cosched-probe-{}", std::process::id()));
    let ok = std::fs::create_dir(&probe).is_ok();
    let _ = std::fs::remove_dir(&probe);
    ok
}

/// The directory of one run's cgroups: `<root>/cosched-<pid>`.
pub fn run_dir(method: &Method, pid: u32) -> Option<PathBuf> {
    method.root().map(|r| r.join(format!("cosched-{pid}")))
}
