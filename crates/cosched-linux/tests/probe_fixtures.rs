//! The probe on recorded sysfs/procfs trees: a 4-core, 8-thread desktop with
//! RAPL and cgroup v2, and a small VM like the development machine.

use cosched_linux::{PmuStatus, Probe};
use std::path::Path;

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn tree(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("cosched-probe-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn desktop_with_smt_rapl_and_cgroup2() {
    let r = tree("desktop");
    write(&r, "sys/devices/system/cpu/online", "0-7\n");
    for c in 0..8 {
        let core = c % 4;
        write(
            &r,
            &format!("sys/devices/system/cpu/cpu{c}/topology/thread_siblings_list"),
            &format!("{core},{}\n", core + 4),
        );
        write(&r, &format!("sys/devices/system/cpu/cpu{c}/cache/index3/level"), "3\n");
        write(&r, &format!("sys/devices/system/cpu/cpu{c}/cache/index3/shared_cpu_list"), "0-7\n");
    }
    write(&r, "sys/class/powercap/intel-rapl:0/energy_uj", "123456789\n");
    write(&r, "sys/class/powercap/intel-rapl:0/max_energy_range_uj", "262143328850\n");
    write(&r, "sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory pids\n");
    write(&r, "proc/sys/kernel/perf_event_paranoid", "2\n");
    let p = Probe::at(&r, PmuStatus::Available, false);
    assert_eq!(p.smt_siblings, vec![vec![0, 4], vec![1, 5], vec![2, 6], vec![3, 7]]);
    assert_eq!(p.llc_domains, vec![(0..8).collect::<Vec<u32>>()]);
    assert_eq!(p.rapl, Some(262143328850));
    assert_eq!((p.cgroup_version, p.freezer, p.cpuset), (Some(2), true, true));
    let rep = p.report();
    let para = rep.iter().find(|c| c.name == "perf_event_paranoid").unwrap();
    assert!(!para.ok && para.consequence.contains("sysctl kernel.perf_event_paranoid=1"));
    assert!(rep.iter().find(|c| c.name == "SMT").unwrap().consequence.contains("pair siblings"));
    let _ = std::fs::remove_dir_all(&r);
}

#[test]
fn vm_without_pmu_or_rapl_with_cgroup_v1() {
    let r = tree("vm");
    write(&r, "sys/devices/system/cpu/online", "0-1\n");
    for c in 0..2 {
        write(&r, &format!("sys/devices/system/cpu/cpu{c}/topology/thread_siblings_list"), &format!("{c}\n"));
        write(&r, &format!("sys/devices/system/cpu/cpu{c}/cache/index3/level"), "3\n");
        write(&r, &format!("sys/devices/system/cpu/cpu{c}/cache/index3/shared_cpu_list"), &format!("{c}\n"));
    }
    std::fs::create_dir_all(r.join("sys/fs/cgroup/freezer")).unwrap();
    std::fs::create_dir_all(r.join("sys/fs/cgroup/cpuset")).unwrap();
    let p = Probe::at(&r, PmuStatus::Unavailable("No such file or directory (os error 2)".into()), true);
    assert_eq!((p.cgroup_version, p.freezer, p.cpuset), (Some(1), true, true));
    assert_eq!(p.rapl, None);
    let rep = p.report();
    let pmu = &rep[0];
    assert!(!pmu.ok && pmu.consequence.contains("virtual PMU"));
    assert!(rep.iter().find(|c| c.name == "RAPL energy").unwrap().consequence.contains("modelled"));
    assert!(rep.iter().find(|c| c.name == "SMT").unwrap().consequence.contains("no SMT"));
    let _ = std::fs::remove_dir_all(&r);
}

/// As non-root the freezer is present but not usable,
/// and the report says one thing, not "freezer yes" and "run as root".
#[test]
fn non_root_does_not_claim_a_usable_freezer() {
    let r = tree("nonroot");
    write(&r, "sys/devices/system/cpu/online", "0\n");
    std::fs::create_dir_all(r.join("sys/fs/cgroup/freezer")).unwrap();
    let p = Probe::at(&r, PmuStatus::Unavailable("x".into()), false);
    let rep = p.report();
    let cg = rep.iter().find(|c| c.name == "cgroups").unwrap();
    assert!(!cg.ok, "{cg:?}");
    assert!(cg.found.contains("present but not usable without root"), "{}", cg.found);
    assert!(!cg.found.contains("freezer yes"), "{}", cg.found);
    assert!(cg.consequence.contains("SIGSTOP/SIGCONT") && cg.consequence.contains("root"), "{}", cg.consequence);
    let root = Probe::at(&r, PmuStatus::Unavailable("x".into()), true).report();
    assert!(root.iter().find(|c| c.name == "cgroups").unwrap().ok);
    let _ = std::fs::remove_dir_all(&r);
}
