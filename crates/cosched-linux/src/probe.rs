//! The capability probe (`cosched doctor`). Reads procfs and sysfs under a
//! root directory (`/` on a live machine, a recorded tree in tests) and asks
//! the kernel for a hardware counter through `perf_event_open`.

use serde::Serialize;
use std::path::{Path, PathBuf};

/// Whether hardware counters can be opened.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum PmuStatus {
    /// `perf_event_open` of retired instructions succeeded.
    Available,
    /// It failed, with the kernel's error.
    Unavailable(String),
}

/// One line of the report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Capability {
    /// What was probed.
    pub name: String,
    /// Whether it is usable.
    pub ok: bool,
    /// What was found.
    pub found: String,
    /// What follows, or how to fix it.
    pub consequence: String,
}

/// Everything the probe found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Probe {
    /// Hardware counters.
    pub pmu: PmuStatus,
    /// `kernel.perf_event_paranoid`, if readable.
    pub perf_event_paranoid: Option<i32>,
    /// RAPL package energy counter readable (`energy_uj`), with its wrap range.
    pub rapl: Option<u64>,
    /// cgroup version (1 or 2) if a cgroup filesystem is mounted at the usual place.
    pub cgroup_version: Option<u8>,
    /// A freezer is available (v1 freezer controller, or v2 `cgroup.freeze`).
    pub freezer: bool,
    /// cpuset is available.
    pub cpuset: bool,
    /// sched_ext is present.
    pub sched_ext: bool,
    /// Logical CPUs grouped by core (SMT siblings).
    pub smt_siblings: Vec<Vec<u32>>,
    /// Logical CPUs grouped by last-level cache.
    pub llc_domains: Vec<Vec<u32>>,
    /// Running as root.
    pub root: bool,
}

/// Parse a kernel CPU list such as `0-3,8,10-11`.
pub fn parse_cpu_list(s: &str) -> Option<Vec<u32>> {
    let mut out = vec![];
    for part in s.trim().split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (u32, u32) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
                if a > b {
                    return None;
                }
                out.extend(a..=b);
            }
            None => out.push(part.trim().parse().ok()?),
        }
    }
    Some(out)
}

fn read(root: &Path, rel: &str) -> Option<String> {
    std::fs::read_to_string(root.join(rel)).ok()
}

/// Distinct CPU groups from a per-CPU sysfs file (sorted, deduplicated).
fn groups(root: &Path, per_cpu: &dyn Fn(u32) -> Option<String>) -> Vec<Vec<u32>> {
    let cpus: Vec<u32> =
        read(root, "sys/devices/system/cpu/online").and_then(|s| parse_cpu_list(&s)).unwrap_or_default();
    let mut gs: Vec<Vec<u32>> = cpus.iter().filter_map(|&c| per_cpu(c).and_then(|s| parse_cpu_list(&s))).collect();
    gs.sort();
    gs.dedup();
    gs
}

/// The PMU of the live machine: try to open a retired-instructions counter.
pub fn live_pmu() -> PmuStatus {
    match perf_event::Builder::new(perf_event::events::Hardware::INSTRUCTIONS).build() {
        Ok(_) => PmuStatus::Available,
        Err(e) => PmuStatus::Unavailable(e.to_string()),
    }
}

impl Probe {
    /// Probe the live machine.
    pub fn live() -> Probe {
        Probe::at(Path::new("/"), live_pmu(), nix::unistd::geteuid().is_root())
    }

    /// Probe the tree under `root` (procfs at `root/proc`, sysfs at `root/sys`).
    pub fn at(root: &Path, pmu: PmuStatus, root_user: bool) -> Probe {
        let r: PathBuf = root.to_path_buf();
        let rapl_dir = "sys/class/powercap/intel-rapl:0";
        let rapl = read(&r, &format!("{rapl_dir}/energy_uj"))
            .and_then(|s| s.trim().parse::<u64>().ok())
            .and(read(&r, &format!("{rapl_dir}/max_energy_range_uj")).and_then(|s| s.trim().parse().ok()));
        let v2 = read(&r, "sys/fs/cgroup/cgroup.controllers");
        let (cgroup_version, freezer, cpuset) = match &v2 {
            Some(ctrl) => (Some(2), true, ctrl.split_whitespace().any(|c| c == "cpuset")),
            None => {
                let v1 = r.join("sys/fs/cgroup/freezer").is_dir() || r.join("sys/fs/cgroup/cpuset").is_dir();
                (v1.then_some(1), r.join("sys/fs/cgroup/freezer").is_dir(), r.join("sys/fs/cgroup/cpuset").is_dir())
            }
        };
        let smt_siblings =
            groups(&r, &|c| read(&r, &format!("sys/devices/system/cpu/cpu{c}/topology/thread_siblings_list")));
        let llc_domains = groups(&r, &|c| {
            (0..8).find_map(|i| {
                let base = format!("sys/devices/system/cpu/cpu{c}/cache/index{i}");
                (read(&r, &format!("{base}/level"))?.trim() == "3")
                    .then(|| read(&r, &format!("{base}/shared_cpu_list")))
                    .flatten()
            })
        });
        Probe {
            pmu,
            perf_event_paranoid: read(&r, "proc/sys/kernel/perf_event_paranoid").and_then(|s| s.trim().parse().ok()),
            rapl,
            cgroup_version,
            freezer,
            cpuset,
            sched_ext: r.join("sys/kernel/sched_ext").is_dir(),
            smt_siblings,
            llc_domains,
            root: root_user,
        }
    }

    /// The report: one line per capability, with what follows or how to fix it.
    pub fn report(&self) -> Vec<Capability> {
        let cap = |name: &str, ok: bool, found: String, consequence: &str| Capability {
            name: name.into(),
            ok,
            found,
            consequence: consequence.into(),
        };
        let mut v = vec![];
        v.push(match &self.pmu {
            PmuStatus::Available => cap("hardware counters", true, "perf_event_open(instructions) works".into(), "policies that read counters (efs, perf-fair, slits-*) get measured counters"),
            PmuStatus::Unavailable(e) => cap(
                "hardware counters",
                false,
                format!("perf_event_open(instructions) failed: {e}"),
                "counter-driven policies (efs, perf-fair, slits-*) get no measured counters here; fix: bare metal, or a VM with a virtual PMU (e.g. KVM -cpu host,pmu=on)",
            ),
        });
        if let Some(p) = self.perf_event_paranoid {
            let ok = p <= 1 || self.root;
            v.push(cap(
                "perf_event_paranoid",
                ok,
                p.to_string(),
                if ok { "per-process counters allowed" } else { "unprivileged per-process counters limited; fix: sysctl kernel.perf_event_paranoid=1, or run as root" },
            ));
        }
        v.push(match self.rapl {
            Some(range) => cap(
                "RAPL energy",
                true,
                format!("intel-rapl:0/energy_uj readable, wraps at {range} µJ"),
                "energy is measured",
            ),
            None => cap(
                "RAPL energy",
                false,
                "no readable intel-rapl:0/energy_uj".into(),
                "energy is modelled from the machine preset's power table and labelled modelled",
            ),
        });
        v.push(match self.cgroup_version {
            Some(ver) => cap(
                "cgroups",
                self.freezer && self.root,
                format!(
                    "cgroup v{ver}, freezer {}, cpuset {}",
                    match (self.freezer, self.root) {
                        (true, true) => "yes",
                        (true, false) => "present but not usable without root",
                        _ => "no",
                    },
                    yes(self.cpuset)
                ),
                match (self.freezer, self.root) {
                    (true, true) => "whole process trees are frozen and thawed with the freezer",
                    (true, false) => "processes are stopped with SIGSTOP/SIGCONT; run as root to use the freezer",
                    _ => "no freezer: processes are stopped with SIGSTOP/SIGCONT",
                },
            ),
            None => cap(
                "cgroups",
                false,
                "no cgroup filesystem at /sys/fs/cgroup".into(),
                "processes are stopped with SIGSTOP/SIGCONT; fix: mount cgroup2 at /sys/fs/cgroup",
            ),
        });
        let smt = self.smt_siblings.iter().any(|g| g.len() > 1);
        v.push(cap(
            "SMT",
            true,
            format!("{} core(s): {}", self.smt_siblings.len(), fmt_groups(&self.smt_siblings)),
            if smt {
                "SMT-aware policies (perf-fair) pair siblings"
            } else {
                "no SMT siblings: SMT pairing has nothing to pair"
            },
        ));
        v.push(cap(
            "LLC domains",
            !self.llc_domains.is_empty(),
            fmt_groups(&self.llc_domains),
            "contention-aware policies group threads by these",
        ));
        v.push(cap(
            "sched_ext",
            true,
            yes(self.sched_ext).into(),
            "not needed: cosched schedules from user space with affinity and freezing",
        ));
        v.push(cap(
            "privileges",
            self.root,
            if self.root { "root" } else { "not root" }.into(),
            if self.root {
                "cgroups, affinity of any process and counters are available"
            } else {
                "run as root to use the cgroup freezer and system-wide counters"
            },
        ));
        v
    }
}

fn yes(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

fn fmt_groups(g: &[Vec<u32>]) -> String {
    g.iter()
        .map(|x| format!("[{}]", x.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(",")))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists() {
        assert_eq!(parse_cpu_list("0-3,8,10-11\n"), Some(vec![0, 1, 2, 3, 8, 10, 11]));
        assert_eq!(parse_cpu_list("5"), Some(vec![5]));
        assert_eq!(parse_cpu_list("3-1"), None);
        assert_eq!(parse_cpu_list("x"), None);
    }
}
