//! `cosched calibrate`: measure this machine with `cosched-bench` and write
//! a machine preset the simulator loads.
//!
//! Measured: dependent-load latency against working-set size (pointer
//! chase, one copy pinned), streaming bandwidth with 1..N pinned copies,
//! and the co-run slowdown of two pointer chases on two cores at several
//! working-set sizes. Derived (see [`derive`]):
//! - `llc_mb`: the *effective* LLC capacity, the working set at which the
//!   latency curve crosses the geometric midpoint between its LLC plateau
//!   and DRAM latency. On a VM whose host shares its L3 with other tenants
//!   this is far below what sysfs reports, and it is what a scheduler sees.
//! - `llc_hit_cycles`: the latency plateau between L2 and the effective LLC.
//! - DRAM idle latency: the largest working set's latency; the loaded-latency
//!   shape is the presets' (Haswell MLC curve, workload-sources.md §4)
//!   rescaled to it.
//! - `bandwidth_gbs`: the highest total streaming rate over the copy sweep.
//! - `tenant_lines_per_s`: the rate at which the host's other tenants evict
//!   an absent thread's LLC data, from the absence probe
//!   ([`crate::absence`]).
//!
//! Also measured, not fitted into the preset: the cost of time-sharing one
//! CPU ([`Timeshare`]), which the caller checks the
//! simulator's refill model against.
//!
//! Power cannot be measured without RAPL or a meter; the preset then carries
//! an assumed model, marked `[A]` in its sources.

pub use crate::bench_child::CalibrateError;
use crate::bench_child::{bench, finish, rate};
use crate::host::Host;
use cosched_machine::spec::{CacheSpec, CoreSpec, CostSpec, MemorySpec, PowerSpec, TopologySpec};
use cosched_machine::MachineSpec;
use serde::Serialize;

/// Working sets of the latency sweep, MiB.
pub const LATENCY_SIZES_MB: [f64; 12] = [0.125, 0.5, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 16.0, 32.0, 64.0, 128.0];
/// Working sets of the co-run sweep, MiB.
pub const CORUN_SIZES_MB: [f64; 5] = [1.0, 2.0, 4.0, 8.0, 16.0];

/// Everything `cosched calibrate` measured.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Measurements {
    /// Clock from /proc/cpuinfo, GHz.
    pub freq_ghz: f64,
    /// (working set MiB, ns per dependent load).
    pub latency: Vec<(f64, f64)>,
    /// (copies, total GB/s).
    pub bandwidth: Vec<(u32, f64)>,
    /// (working set MiB, solo loads/s, mean loads/s of each of two co-running copies).
    pub corun: Vec<(f64, f64, f64)>,
    /// L1d and L2 per core from sysfs, KiB.
    pub l1d_kb: f64,
    /// L2 per core, KiB.
    pub l2_kb: f64,
    /// LLC size sysfs reports, MiB.
    pub llc_sysfs_mb: Option<f64>,
    /// Time-sharing one CPU, at [`timeshare_sizes_mb`].
    pub timeshare: Vec<Timeshare>,
    /// The absence probe: a chase over half the effective LLC paused for
    /// each of [`crate::absence::PAUSES_MS`] (empty where no LLC was placed).
    pub absence: Vec<crate::absence::Absence>,
}

impl Measurements {
    /// The host's other tenants' insertion rate into an LLC of `llc_mb`,
    /// lines/s, from the absence probe (0 without one).
    pub fn tenant_lines_per_s(&self, llc_mb: f64, dram_ns: f64) -> f64 {
        crate::absence::tenant_lines_per_s(&self.absence, llc_mb, dram_ns)
    }
}

pub use cosched_machine::check::Timeshare;

/// Working sets of the time-sharing measurement, MiB: the private L2 (its
/// refill comes from the LLC) and ¾ of the effective LLC (two copies
/// overflow it: the refill comes from DRAM).
pub fn timeshare_sizes_mb(l2_kb: f64, llc_mb: Option<f64>) -> Vec<f64> {
    let mut v = vec![(l2_kb / 1024.0 * 100.0).round() / 100.0];
    if let Some(l) = llc_mb.map(|l| (0.75 * l * 100.0).round() / 100.0).filter(|l| *l > v[0]) {
        v.push(l);
    }
    v
}

/// Measure [`Timeshare`] at `mb` on `cpu`, each copy's work sized to run `seconds` alone.
fn timeshare(cpu: u32, mb: f64, seconds: f64) -> Result<Timeshare, CalibrateError> {
    let rate = rate(bench(cpu, &args("pointer-chase", mb, seconds))?)?;
    let mops = (rate * seconds / 1e6 * 10.0).round().max(1.0) / 10.0;
    let fixed = vec!["pointer-chase".into(), "--wss-mb".into(), format!("{mb}"), "--mops".into(), format!("{mops}")];
    let (_, solo_s, _) = finish(bench(cpu, &fixed)?)?;
    let start = std::time::Instant::now();
    let a = bench(cpu, &fixed)?;
    let b = bench(cpu, &fixed)?;
    let (ra, rb) = (finish(a)?, finish(b)?);
    Ok(Timeshare {
        wss_mb: mb,
        mops,
        solo_s,
        pair_s: start.elapsed().as_secs_f64(),
        cpu_s: (ra.1 + rb.1) / 2.0,
        switches: (ra.2 + rb.2) / 2.0,
    })
}

fn args(kind: &str, mb: f64, seconds: f64) -> Vec<String> {
    vec![kind.into(), "--wss-mb".into(), format!("{mb}"), "--seconds".into(), format!("{seconds}")]
}

/// Measure this machine (`seconds` per data point).
pub fn measure(host: &Host, seconds: f64, progress: &dyn Fn(&str)) -> Result<Measurements, CalibrateError> {
    let cpus = &host.cpus;
    let c0 = cpus[0];
    let c1 = crate::probing::probe_contexts(host).map(|(_, b)| host.cpu(b));
    let mut latency = vec![];
    for &mb in &LATENCY_SIZES_MB {
        progress(&format!("latency at {mb} MiB"));
        let r = rate(bench(c0, &args("pointer-chase", mb, seconds))?)?;
        latency.push((mb, 1e9 / r));
    }
    let mut bandwidth = vec![];
    for copies in 1..=cpus.len() as u32 {
        progress(&format!("bandwidth with {copies} copies"));
        let kids: Vec<_> =
            (0..copies).map(|i| bench(cpus[i as usize], &args("stream", 256.0, seconds))).collect::<Result<_, _>>()?;
        let total: f64 = kids.into_iter().map(rate).collect::<Result<Vec<f64>, _>>()?.iter().sum();
        bandwidth.push((copies, total * 64.0 / 1e9));
    }
    let mut corun = vec![];
    if let Some(c1) = c1 {
        for &mb in &CORUN_SIZES_MB {
            progress(&format!("co-run at {mb} MiB"));
            let solo = rate(bench(c0, &args("pointer-chase", mb, seconds))?)?;
            let a = bench(c0, &args("pointer-chase", mb, seconds))?;
            let b = bench(c1, &args("pointer-chase", mb, seconds))?;
            let pair = (rate(a)? + rate(b)?) / 2.0;
            corun.push((mb, solo, pair));
        }
    }
    let cache_kb = |level: &str, kind: &str| -> Option<f64> {
        (0..8).find_map(|i| {
            let base = format!("/sys/devices/system/cpu/cpu{c0}/cache/index{i}");
            let l = std::fs::read_to_string(format!("{base}/level")).ok()?;
            let t = std::fs::read_to_string(format!("{base}/type")).ok()?;
            (l.trim() == level && (t.trim() == kind || t.trim() == "Unified"))
                .then(|| crate::host::parse_size(&std::fs::read_to_string(format!("{base}/size")).ok()?))
                .flatten()
                .map(|b| b / 1024.0)
        })
    };
    let l2_kb = cache_kb("2", "Unified").unwrap_or(512.0);
    let mut timeshare_runs = vec![];
    let llc = effective_llc_mb(&latency, l2_kb).map(|x| x.0);
    for mb in timeshare_sizes_mb(l2_kb, llc) {
        progress(&format!("time-sharing one CPU at {mb} MiB"));
        timeshare_runs.push(timeshare(c0, mb, seconds)?);
    }
    let mut absence = vec![];
    if let Some(llc) = llc {
        let mb = (llc / 2.0 * 100.0).round() / 100.0;
        progress(&format!("absences of {:?} ms at {mb} MiB", crate::absence::PAUSES_MS));
        let rate = rate(bench(c0, &args("pointer-chase", mb, seconds))?)?;
        absence = crate::absence::measure(c0, mb, (rate * seconds / 1e6 * 10.0).round().max(1.0) / 10.0)?;
    }
    Ok(Measurements {
        freq_ghz: cpu_mhz().map(|m| m / 1000.0).unwrap_or(2.0),
        latency,
        bandwidth,
        corun,
        l1d_kb: cache_kb("1", "Data").unwrap_or(32.0),
        l2_kb,
        llc_sysfs_mb: host.llc_bytes.map(|b| b / 1048576.0),
        timeshare: timeshare_runs,
        absence,
    })
}

fn cpu_mhz() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    s.lines().find(|l| l.starts_with("cpu MHz"))?.split(':').nth(1)?.trim().parse().ok()
}

/// The loaded-latency shape of the presets, latency relative to idle
/// (Haswell MLC curve, workload-sources.md §4).
const LATENCY_SHAPE: [[f64; 2]; 6] =
    [[0.0, 1.0], [0.25, 1.0529], [0.57, 1.1514], [0.87, 1.3143], [0.97, 1.7257], [1.0, 2.17]];

/// The effective LLC (MiB): where latency crosses the geometric midpoint of
/// the LLC plateau (first size above L2) and DRAM (the largest size).
pub fn effective_llc_mb(latency: &[(f64, f64)], l2_kb: f64) -> Option<(f64, f64)> {
    let plateau = latency.iter().find(|(mb, _)| *mb * 1024.0 > l2_kb)?.1;
    let dram = latency.last()?.1;
    let mid = (plateau * dram).sqrt();
    let w = latency.windows(2).find(|w| w[0].1 < mid && w[1].1 >= mid)?;
    // Interpolate in log size.
    let f = (mid - w[0].1) / (w[1].1 - w[0].1);
    Some(((w[0].0.ln() + f * (w[1].0.ln() - w[0].0.ln())).exp(), plateau))
}

/// Where each constant of a calibrated preset comes from (`MachineSpec::provenance`): measured
/// here, computed from a measurement, or one of calibrate's assumptions.
fn provenance(clock_measured: bool) -> std::collections::BTreeMap<String, String> {
    let clock = if clock_measured {
        "[M] cosched calibrate: the clock the host reports"
    } else {
        "[A] the host reports no clock: 2 GHz assumed"
    };
    [
        ("freq_ghz", clock),
        ("topology", "[M] cosched calibrate: sysfs's CPUs, cores, LLC domains and SMT siblings"),
        ("cache.l1d_kb", "[M] cosched calibrate: sysfs"),
        ("cache.l2_kb", "[M] cosched calibrate: sysfs"),
        ("cache.llc_mb", "[M] cosched calibrate: where the measured latency curve crosses the midpoint between its LLC plateau and DRAM"),
        ("cache.llc_hit_cycles", "[M] cosched calibrate: the latency curve's LLC plateau, in cycles"),
        ("cache.latency_curve", "[M] cosched calibrate: ns per dependent load by working set"),
        ("cache.tenant_lines_per_s", "[M] cosched calibrate: the absence probe (a paused chase's refill per pause, read through the model's random-replacement survival)"),
        ("core", "[A] not measurable without a PMU: cosched calibrate's defaults (2 L1 accesses per cycle, SMT penalty 0.5, L1 contention 0.4)"),
        ("memory.bandwidth_gbs", "[M] cosched calibrate: the most GB/s its streaming copies reached"),
        ("memory.loaded_latency", "[C] the Haswell MLC curve of workload-sources.md §4 rescaled to the measured DRAM latency"),
        ("memory.self_queueing", "[A] an MLC-type curve is read at the total utilisation, the thread's own traffic included"),
        ("power", "[A] cosched calibrate's defaults: power is not measured by calibrate"),
        ("costs", "[A] the defaults: a context switch's direct cost of a few µs (Li, Ding, Shen, ExpCS 2007)"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

/// The first source line of every machine file `cosched calibrate` writes
/// (followed by the host's name and contexts): what tells a calibration of a
/// host from a published description of a paper's machine.
pub const WRITTEN_BY: &str = "Written by `cosched calibrate`";

/// Whether `spec` was written by `cosched calibrate` (its sources say so).
pub fn is_calibration(spec: &MachineSpec) -> bool {
    spec.sources.iter().any(|s| s.starts_with(WRITTEN_BY))
}

/// Turn measurements into a machine preset named `name`.
pub fn derive(name: &str, host: &Host, m: &Measurements) -> Result<MachineSpec, CalibrateError> {
    let (llc_mb, plateau_ns) = effective_llc_mb(&m.latency, m.l2_kb).ok_or(CalibrateError::NoCliff)?;
    let dram_ns = m.latency.last().map(|x| x.1).ok_or(CalibrateError::NoLatency)?;
    let bw = m.bandwidth.iter().map(|b| b.1).fold(0.0, f64::max);
    let t = &host.topology;
    let smt = t.contexts_per_core() as u32;
    let cores_per_llc = (t.n_cores / t.n_llc.max(1)).max(1);
    let mut sources = vec![
        format!("{WRITTEN_BY} on {} ({} contexts) [M]", hostname(), t.n_contexts()),
        format!(
            "Latency (ns per dependent load) by working set MiB: {} [M]",
            m.latency.iter().map(|(a, b)| format!("{a}:{b:.1}")).collect::<Vec<_>>().join(" ")
        ),
        format!(
            "Effective LLC {llc_mb:.2} MiB: latency crosses the geometric midpoint of its {plateau_ns:.1} ns plateau and {dram_ns:.1} ns DRAM there (sysfs reports {}) [M]",
            m.llc_sysfs_mb.map(|x| format!("{x} MiB")).unwrap_or("none".into())
        ),
        format!(
            "Streaming GB/s with 1..N copies: {} [M]",
            m.bandwidth.iter().map(|(c, g)| format!("{c}:{g:.2}")).collect::<Vec<_>>().join(" ")
        ),
        format!(
            "Pointer-chase co-run on two cores, MiB: solo → pair loads/s: {} [M]",
            m.corun.iter().map(|(mb, s, p)| format!("{mb}:{:.1}M→{:.1}M", s / 1e6, p / 1e6)).collect::<Vec<_>>().join(" ")
        ),
        format!(
            "Two pointer chases time-sharing one CPU, MiB: CPU s alone → in the pair, switches, refill µs per switch: {} (measured, not fitted) [M]",
            m.timeshare
                .iter()
                .map(|t| format!("{}:{:.3}→{:.3},{:.0},{:.1}", t.wss_mb, t.solo_s, t.cpu_s, t.switches, t.refill_us()))
                .collect::<Vec<_>>()
                .join(" ")
        ),
        "Loaded-latency shape: Haswell MLC curve of workload-sources.md §4 rescaled to the measured DRAM latency [C]".into(),
        "Core resources (issue width 4, 2 L1 ports, SMT penalty 0.5) and the power model: assumed, not measurable here [A]".into(),
    ];
    if m.freq_ghz <= 0.0 {
        sources.push("Clock unknown: 2 GHz assumed [A]".into());
    }
    let tenants = m.tenant_lines_per_s(llc_mb, dram_ns);
    if !m.absence.is_empty() {
        sources.push(format!(
            "Absence probe, a chase over half the effective LLC paused between {} ms slices, pause ms: CPU s straight → paused, pauses, lost share: {}; the host's other tenants insert {tenants:.3e} lines/s (cache.tenant_lines_per_s; measured, not fitted) [M]",
            crate::absence::RUN_MS,
            m.absence
                .iter()
                .map(|a| format!("{}:{:.3}→{:.3},{:.0},{:.2}", a.pause_ms, a.solo_cpu_s, a.cpu_s, a.pauses, a.lost_share(dram_ns)))
                .collect::<Vec<_>>()
                .join(" "),
        ));
    }
    let mut provenance = provenance(m.freq_ghz > 0.0);
    if tenants == 0.0 {
        // Left out of the file at 0, so it has no constant to name.
        provenance.remove("cache.tenant_lines_per_s");
    }
    let spec = MachineSpec {
        name: name.into(),
        // Named by its host name: a file read on another machine must not say "this machine".
        description: format!(
            "The host `{}` as measured by cosched calibrate: {} contexts, effective LLC {llc_mb:.1} MiB, {bw:.1} GB/s",
            std::fs::read_to_string("/proc/sys/kernel/hostname")
                .map_or_else(|_| "unknown".into(), |h| h.trim().to_string()),
            t.n_contexts()
        ),
        sources,
        origin: cosched_machine::spec::Origin::Calibrated,
        provenance,
        freq_ghz: (m.freq_ghz * 1000.0).round() / 1000.0,
        topology: TopologySpec {
            sockets: t.n_sockets,
            llc_per_socket: (t.n_llc / t.n_sockets.max(1)).max(1),
            cores_per_llc,
            pipes_per_core: 1,
            contexts_per_pipe: smt.max(1),
        },
        cache: CacheSpec {
            l1d_kb: m.l1d_kb,
            l2_kb: m.l2_kb,
            llc_mb: (llc_mb * 100.0).round() / 100.0,
            llc_hit_cycles: (plateau_ns * m.freq_ghz).round(),
            latency_curve: Some(m.latency.iter().map(|&(mb, ns)| [mb, (ns * 10.0).round() / 10.0]).collect()),
            conserve_capacity: true,
            tenant_lines_per_s: tenants,
        },
        core: CoreSpec {
            issue_width: 4.0,
            l1_accesses_per_cycle: 2.0,
            smt_penalty: 0.5,
            l1_contention: 0.4,
            l1_exchange: true,
        },
        memory: MemorySpec {
            bandwidth_gbs: (bw * 100.0).round() / 100.0,
            loaded_latency: LATENCY_SHAPE.iter().map(|[u, f]| [*u, (dram_ns * f * 10.0).round() / 10.0]).collect(),
            self_queueing: 1.0,
            dram: None,
        },
        power: PowerSpec {
            system_idle_w: 40.0,
            cpu_idle_w: 10.0,
            core_active_w: vec![8.0],
            cpu_share_of_active: 0.85,
            dram_static_w: 3.0,
            dram_nj_per_line: 20.0,
        },
        costs: CostSpec::default(),
        checks: vec![],
    };
    let text = toml::to_string(&spec)?;
    MachineSpec::from_toml(name, &text).map_err(CalibrateError::Invalid)
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname").map(|s| s.trim().to_string()).unwrap_or("this machine".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A recorded sweep of this development VM (2 vCPU EPYC, 2026-11-22).
    fn recorded() -> Measurements {
        Measurements {
            freq_ghz: 2.45,
            latency: vec![
                (0.125, 3.9),
                (0.5, 5.8),
                (1.0, 13.7),
                (2.0, 23.3),
                (3.0, 23.3),
                (4.0, 31.0),
                (6.0, 140.7),
                (8.0, 131.0),
                (16.0, 152.0),
                (32.0, 171.0),
                (64.0, 180.0),
                (128.0, 190.0),
            ],
            bandwidth: vec![(1, 14.4), (2, 27.0)],
            corun: vec![(4.0, 30e6, 12e6)],
            l1d_kb: 32.0,
            l2_kb: 512.0,
            llc_sysfs_mb: Some(32.0),
            timeshare: vec![],
            absence: vec![],
        }
    }

    #[test]
    fn the_refill_per_switch_is_the_cpu_time_beyond_the_solo_runs() {
        let t = Timeshare { wss_mb: 1.0, mops: 10.0, solo_s: 0.4, pair_s: 0.9, cpu_s: 0.46, switches: 120.0 };
        assert!((t.refill_us() - 500.0).abs() < 1e-9);
        assert!((t.slice_s() - 0.46 / 120.0).abs() < 1e-12);
        assert!((t.slowdown() - 2.25).abs() < 1e-12);
        // No switches, no division by zero; a faster pair charges nothing.
        let none = Timeshare { switches: 0.0, cpu_s: 0.39, ..t };
        assert_eq!(none.refill_us(), 0.0);
        // Sizes follow the description: L2, and ¾ of the LLC when larger.
        assert_eq!(timeshare_sizes_mb(1024.0, Some(12.96)), vec![1.0, 9.72]);
        assert_eq!(timeshare_sizes_mb(2048.0, Some(2.0)), vec![2.0]);
        assert_eq!(timeshare_sizes_mb(512.0, None), vec![0.5]);
    }

    #[test]
    fn effective_llc_sits_at_the_cliff() {
        let (mb, plateau) = effective_llc_mb(&recorded().latency, 512.0).unwrap();
        assert_eq!(plateau, 13.7);
        // Midpoint sqrt(13.7 × 190) = 51 ns, between 4 MiB (31 ns) and 6 MiB (140.7 ns).
        assert!(mb > 4.0 && mb < 6.0, "{mb}");
        assert_eq!(effective_llc_mb(&[(1.0, 10.0), (2.0, 10.0)], 512.0), None);
    }

    #[test]
    fn derived_preset_validates_and_loads() {
        let mut host = Host::live();
        host.topology = cosched_core::Topology::regular(1, 1, 2, 1, 1);
        host.cpus = vec![0, 1];
        let spec = derive("local", &host, &recorded()).unwrap();
        assert_eq!(spec.memory.bandwidth_gbs, 27.0);
        assert_eq!(spec.memory.loaded_latency[0], [0.0, 190.0]);
        assert_eq!(spec.cache.llc_hit_cycles, (13.7f64 * 2.45).round());
        let text = toml::to_string(&spec).unwrap();
        assert!(MachineSpec::from_toml("local.toml", &text).is_ok());
        // Every constant written has a provenance (its key's or its section's).
        let value: toml::Value = toml::from_str(&text).unwrap();
        for (section, v) in value.as_table().unwrap() {
            let keys: Vec<String> = match v {
                toml::Value::Table(t) => t.keys().map(|k| format!("{section}.{k}")).collect(),
                _ if ["name", "description", "sources", "origin", "provenance"].contains(&section.as_str()) => vec![],
                _ => vec![section.clone()],
            };
            for k in keys {
                let covered = spec.provenance.contains_key(&k) || spec.provenance.contains_key(section.as_str());
                assert!(covered || section == "provenance", "{k} has no provenance");
            }
        }
    }
}
