//! The live machine as a [`Topology`]: hardware contexts are online logical
//! CPUs, grouped into cores by SMT siblings and into LLC domains by the
//! level-3 cache's `shared_cpu_list` (sysfs). Context order is LLC domain,
//! then core, then sibling, so context ids are dense in the sharing tree.

use crate::probe::Probe;
use cosched_core::topology::{ContextInfo, Topology};
use cosched_core::CtxId;
use std::path::Path;

/// The host's contexts, their CPU numbers and its LLC size.
#[derive(Clone, Debug, PartialEq)]
pub struct Host {
    /// Sharing tree.
    pub topology: Topology,
    /// Logical CPU number of each context.
    pub cpus: Vec<u32>,
    /// Bytes of one last-level cache, when sysfs says.
    pub llc_bytes: Option<f64>,
}

impl Host {
    /// Read the live machine.
    pub fn live() -> Host {
        Host::at(Path::new("/"), &Probe::at(Path::new("/"), crate::PmuStatus::Unavailable(String::new()), false))
    }

    /// Build from a probe of the tree under `root`.
    pub fn at(root: &Path, p: &Probe) -> Host {
        let mut cores: Vec<Vec<u32>> = p.smt_siblings.clone();
        if cores.is_empty() {
            cores = crate::probe::parse_cpu_list(
                &std::fs::read_to_string(root.join("sys/devices/system/cpu/online")).unwrap_or_default(),
            )
            .unwrap_or_else(|| vec![0])
            .into_iter()
            .map(|c| vec![c])
            .collect();
        }
        let llcs: Vec<Vec<u32>> = if p.llc_domains.is_empty() { vec![cores.concat()] } else { p.llc_domains.clone() };
        let socket_of = |c: u32| -> u32 {
            std::fs::read_to_string(root.join(format!("sys/devices/system/cpu/cpu{c}/topology/physical_package_id")))
                .ok()
                .and_then(|s| s.trim().parse().ok())
                .unwrap_or(0)
        };
        let mut contexts = vec![];
        let mut cpus = vec![];
        let mut sockets = std::collections::BTreeMap::new();
        let mut n_cores = 0;
        for (li, llc) in llcs.iter().enumerate() {
            for core in cores.iter().filter(|c| c.iter().all(|x| llc.contains(x))) {
                for &cpu in core {
                    let s = socket_of(cpu);
                    let next = sockets.len() as u32;
                    let socket = *sockets.entry(s).or_insert(next);
                    contexts.push(ContextInfo { pipe: n_cores, core: n_cores, llc: li as u32, socket });
                    cpus.push(cpu);
                }
                n_cores += 1;
            }
        }
        let llc_bytes = cpus.first().and_then(|&c| {
            (0..8).find_map(|i| {
                let base = root.join(format!("sys/devices/system/cpu/cpu{c}/cache/index{i}"));
                let level = std::fs::read_to_string(base.join("level")).ok()?;
                (level.trim() == "3").then(|| parse_size(&std::fs::read_to_string(base.join("size")).ok()?)).flatten()
            })
        });
        let topology = Topology {
            contexts,
            n_pipes: n_cores,
            n_cores,
            n_llc: llcs.len() as u32,
            n_sockets: sockets.len().max(1) as u32,
        };
        Host { topology, cpus, llc_bytes }
    }

    /// CPU number of a context.
    pub fn cpu(&self, c: CtxId) -> u32 {
        self.cpus[c.idx()]
    }
}

/// The fair class of a kernel release string (`uname -r`): `eevdf` from
/// Linux 6.6 on, `cfs` before; `None` when the string is not `MAJOR.MINOR…`.
pub fn fair_class_of(release: &str) -> Option<&'static str> {
    let mut it = release.trim().split(|c: char| !c.is_ascii_digit());
    let major: u32 = it.next()?.parse().ok()?;
    let minor: u32 = it.next()?.parse().ok()?;
    Some(if (major, minor) >= (6, 6) { "eevdf" } else { "cfs" })
}

/// The running kernel's release (`/proc/sys/kernel/osrelease`).
pub fn kernel_release() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/osrelease").ok().map(|s| s.trim().to_string())
}

/// Parse a sysfs cache size such as `32768K` or `8M`.
pub fn parse_size(s: &str) -> Option<f64> {
    let s = s.trim();
    let (num, mult) = match s.chars().last()? {
        'K' => (&s[..s.len() - 1], 1024.0),
        'M' => (&s[..s.len() - 1], 1024.0 * 1024.0),
        'G' => (&s[..s.len() - 1], 1024.0 * 1024.0 * 1024.0),
        _ => (s, 1.0),
    };
    Some(num.parse::<f64>().ok()? * mult)
}

#[cfg(test)]
mod tests {
    #[test]
    fn fair_class_follows_the_kernel_release() {
        use super::fair_class_of;
        assert_eq!(fair_class_of("6.18.0-1-generic"), Some("eevdf"));
        assert_eq!(fair_class_of("6.6.0"), Some("eevdf"));
        assert_eq!(fair_class_of("6.5.13-arch1"), Some("cfs"));
        assert_eq!(fair_class_of("5.15.0-91-generic"), Some("cfs"));
        assert_eq!(fair_class_of("garbage"), None);
    }

    use super::*;
    use crate::testutil::write;
    use crate::PmuStatus;

    #[test]
    fn two_llc_domains_of_smt_cores_from_a_recorded_tree() {
        let dir = std::env::temp_dir().join(format!("cosched-host-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        write(&dir, "sys/devices/system/cpu/online", "0-7\n");
        for c in 0..8u32 {
            let base = format!("sys/devices/system/cpu/cpu{c}");
            // SMT pairs (c, c+4); LLC domains {0,1,4,5} and {2,3,6,7}.
            let core = c % 4;
            write(&dir, &format!("{base}/topology/thread_siblings_list"), &format!("{core},{}\n", core + 4));
            write(&dir, &format!("{base}/topology/physical_package_id"), if core < 2 { "0" } else { "1" });
            write(&dir, &format!("{base}/cache/index3/level"), "3\n");
            write(&dir, &format!("{base}/cache/index3/size"), "16384K\n");
            let dom = if core < 2 { "0-1,4-5" } else { "2-3,6-7" };
            write(&dir, &format!("{base}/cache/index3/shared_cpu_list"), dom);
        }
        let p = Probe::at(&dir, PmuStatus::Unavailable("x".into()), false);
        let h = Host::at(&dir, &p);
        assert_eq!(h.cpus, vec![0, 4, 1, 5, 2, 6, 3, 7]);
        assert_eq!((h.topology.n_cores, h.topology.n_llc, h.topology.n_sockets), (4, 2, 2));
        assert_eq!(h.topology.contexts[1], ContextInfo { pipe: 0, core: 0, llc: 0, socket: 0 });
        assert_eq!(h.topology.contexts[7], ContextInfo { pipe: 3, core: 3, llc: 1, socket: 1 });
        assert_eq!(h.llc_bytes, Some(16.0 * 1024.0 * 1024.0));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn live_host_has_contexts() {
        let h = Host::live();
        assert!(h.topology.n_contexts() >= 1);
        assert_eq!(h.cpus.len(), h.topology.n_contexts());
    }
}
