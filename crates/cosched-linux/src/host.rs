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
        Host::from_sysfs(Path::new("/"))
    }

    /// Read the tree under `root` (`/` for this machine, or a recorded one).
    pub fn from_sysfs(root: &Path) -> Host {
        Host::at(root, &Probe::at(root, crate::PmuStatus::Unavailable(String::new()), false))
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

/// Recorded sysfs trees of chosen shapes, laid out as Linux lays them out
/// (`cpu/online`, `cpuN/topology/*`, `cpuN/cache/indexK/{level,type,size,shared_cpu_list}`),
/// so host-dependent logic is tested on machines other than the one it runs on.
pub mod recorded {
    use super::Host;
    use std::path::{Path, PathBuf};

    /// A host shape.
    #[derive(Clone, Copy, Debug)]
    pub struct Shape {
        /// Online logical CPUs.
        pub cpus: u32,
        /// Two SMT siblings per core (CPUs `c` and `c + cpus/2`, as x86 numbers them).
        pub smt: bool,
        /// LLC domains (cores split evenly, each domain its own socket).
        pub llc_domains: u32,
        /// L3 size of one domain, KiB; 0 = no L3 reported at all.
        pub llc_kib: u64,
    }

    fn put(root: &Path, rel: &str, text: &str) -> std::io::Result<()> {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().expect("relative path"))?;
        std::fs::write(p, text)
    }

    fn list(v: &[u32]) -> String {
        v.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
    }

    /// Write a sysfs tree of `shape` under `root`.
    pub fn write(root: &Path, shape: &Shape) -> std::io::Result<()> {
        let n = shape.cpus.max(1);
        let per_core = if shape.smt && n.is_multiple_of(2) { 2 } else { 1 };
        let cores = n / per_core;
        let domains = shape.llc_domains.clamp(1, cores);
        let core_of = |c: u32| c % cores;
        let domain_of = |core: u32| core * domains / cores;
        put(root, "sys/devices/system/cpu/online", &format!("0-{}\n", n - 1))?;
        for c in 0..n {
            let base = format!("sys/devices/system/cpu/cpu{c}");
            let core = core_of(c);
            let siblings: Vec<u32> = (0..per_core).map(|k| core + k * cores).collect();
            put(root, &format!("{base}/topology/thread_siblings_list"), &format!("{}\n", list(&siblings)))?;
            put(root, &format!("{base}/topology/core_id"), &format!("{core}\n"))?;
            put(root, &format!("{base}/topology/physical_package_id"), &format!("{}\n", domain_of(core)))?;
            for (k, (level, kind, size)) in
                [(1, "Data", "32K"), (1, "Instruction", "32K"), (2, "Unified", "1024K")].into_iter().enumerate()
            {
                let idx = format!("{base}/cache/index{k}");
                put(root, &format!("{idx}/level"), &format!("{level}\n"))?;
                put(root, &format!("{idx}/type"), &format!("{kind}\n"))?;
                put(root, &format!("{idx}/size"), &format!("{size}\n"))?;
                put(root, &format!("{idx}/shared_cpu_list"), &format!("{}\n", list(&siblings)))?;
            }
            if shape.llc_kib > 0 {
                let dom = domain_of(core);
                let members: Vec<u32> = (0..n).filter(|&x| domain_of(core_of(x)) == dom).collect();
                let idx = format!("{base}/cache/index3");
                put(root, &format!("{idx}/level"), "3\n")?;
                put(root, &format!("{idx}/type"), "Unified\n")?;
                put(root, &format!("{idx}/size"), &format!("{}K\n", shape.llc_kib))?;
                put(root, &format!("{idx}/shared_cpu_list"), &format!("{}\n", list(&members)))?;
            }
        }
        Ok(())
    }

    /// Write `shape` into a fresh temporary folder named by `tag` and read it as a [`Host`].
    pub fn host(tag: &str, shape: &Shape) -> std::io::Result<(PathBuf, Host)> {
        let dir = std::env::temp_dir().join(format!("cosched-sysfs-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        write(&dir, shape)?;
        let h = Host::from_sysfs(&dir);
        Ok((dir, h))
    }
}

/// [`recorded::host`] for unit tests (panics on I/O errors).
#[cfg(test)]
pub(crate) fn recorded(tag: &str, shape: &recorded::Shape) -> (std::path::PathBuf, Host) {
    recorded::host(tag, shape).expect("write a recorded sysfs tree")
}

#[cfg(test)]
mod tests {
    #[test]
    fn recorded_shapes_read_back_as_written() {
        use super::recorded::Shape;
        for (cpus, smt, domains, kib) in
            [(2, false, 1, 2048), (4, true, 1, 8192), (8, true, 1, 32768), (8, false, 2, 16384), (4, false, 1, 0)]
        {
            let (dir, h) = super::recorded("shape", &Shape { cpus, smt, llc_domains: domains, llc_kib: kib });
            assert_eq!(h.topology.n_contexts(), cpus as usize);
            assert_eq!(h.topology.n_cores, if smt { cpus / 2 } else { cpus });
            assert_eq!(h.topology.n_llc, domains);
            assert_eq!(h.llc_bytes, (kib > 0).then_some(kib as f64 * 1024.0));
            let mut cpus_seen = h.cpus.clone();
            cpus_seen.sort();
            assert_eq!(cpus_seen, (0..cpus).collect::<Vec<_>>());
            let _ = std::fs::remove_dir_all(dir);
        }
    }

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
