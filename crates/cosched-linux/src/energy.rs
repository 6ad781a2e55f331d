//! Energy on the real machine (EFS §4's measurements): RAPL through the
//! powercap interface when it is readable, else the machine preset's power
//! model (EFS Eq. 13) driven by measured CPU utilisation, labelled
//! *modelled*.
//!
//! RAPL counters (`energy_uj`) wrap at `max_energy_range_uj`; a reading
//! below the previous one means one wrap (reads are far more frequent than
//! the ~60 s a package counter takes to wrap).

use cosched_core::policy::Energy;
use cosched_machine::PowerModel;
use std::path::{Path, PathBuf};

/// One RAPL counter.
#[derive(Clone, Debug)]
struct RaplCounter {
    file: PathBuf,
    range: u64,
    last: u64,
    total_uj: f64,
}

impl RaplCounter {
    fn open(dir: &Path) -> Option<RaplCounter> {
        let read = |f: &str| std::fs::read_to_string(dir.join(f)).ok()?.trim().parse::<u64>().ok();
        let last = read("energy_uj")?;
        let range = read("max_energy_range_uj")?;
        Some(RaplCounter { file: dir.join("energy_uj"), range, last, total_uj: 0.0 })
    }

    fn sample(&mut self) {
        let Some(now) = std::fs::read_to_string(&self.file).ok().and_then(|s| s.trim().parse::<u64>().ok()) else {
            return;
        };
        self.total_uj += wrapped_delta(self.last, now, self.range) as f64;
        self.last = now;
    }
}

/// Energy between two readings of a counter that wraps at `range`.
pub fn wrapped_delta(prev: u64, now: u64, range: u64) -> u64 {
    if now >= prev {
        now - prev
    } else {
        range.saturating_sub(prev) + now
    }
}

/// Package and DRAM RAPL domains under a powercap root (`/sys/class/powercap`).
#[derive(Clone, Debug)]
pub struct Rapl {
    packages: Vec<RaplCounter>,
    dram: Vec<RaplCounter>,
}

impl Rapl {
    /// Open every readable package domain (`intel-rapl:N`, also used by AMD)
    /// and its `dram` subdomain; `None` when no package domain is readable.
    pub fn open(powercap: &Path) -> Option<Rapl> {
        let mut packages = vec![];
        let mut dram = vec![];
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(powercap).ok()?.filter_map(|e| Some(e.ok()?.path())).collect();
        dirs.sort();
        for d in dirs {
            let name = d.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let depth = name.matches(':').count();
            let label = std::fs::read_to_string(d.join("name")).unwrap_or_default();
            if depth == 1 && label.trim().starts_with("package") {
                packages.extend(RaplCounter::open(&d));
            } else if depth == 2 && label.trim() == "dram" {
                dram.extend(RaplCounter::open(&d));
            }
        }
        (!packages.is_empty()).then_some(Rapl { packages, dram })
    }

    /// Read every counter (call often enough that no counter wraps twice).
    pub fn sample(&mut self) {
        self.packages.iter_mut().chain(self.dram.iter_mut()).for_each(RaplCounter::sample);
    }

    /// Energy since opening. RAPL has no whole-system domain: `system` is
    /// package + DRAM.
    pub fn energy(&self) -> Energy {
        let cpu = self.packages.iter().map(|c| c.total_uj).sum::<f64>() * 1e-6;
        let dram = self.dram.iter().map(|c| c.total_uj).sum::<f64>() * 1e-6;
        Energy { system: cpu + dram, cpu, dram }
    }
}

/// RAPL through perf's `power` PMU (`/sys/bus/event_source/devices/power`),
/// for machines where powercap's `energy_uj` is not readable but perf
/// power events are: one system-wide counter per package (the PMU's
/// `cpumask`), `energy-pkg` and, when present, `energy-ram`, each scaled by
/// its `.scale` file (joules per count). The counters are 64-bit and do not
/// wrap in practice.
pub struct PerfPower {
    pkg: Vec<(perf_event::Counter, f64)>,
    ram: Vec<(perf_event::Counter, f64)>,
}

/// Why RAPL cannot be read through perf's power events on this machine.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct PowerUnavailable(pub String);

impl PerfPower {
    /// Open the counters, or say why not.
    pub fn open() -> Result<PerfPower, PowerUnavailable> {
        Self::open_events().map_err(PowerUnavailable)
    }

    fn open_events() -> Result<PerfPower, String> {
        let pmu = Path::new("/sys/bus/event_source/devices/power");
        let cpus = std::fs::read_to_string(pmu.join("cpumask"))
            .ok()
            .and_then(|s| crate::probe::parse_cpu_list(&s))
            .ok_or("no perf power PMU (/sys/bus/event_source/devices/power)")?;
        let open = |event: &str| -> Result<Vec<(perf_event::Counter, f64)>, String> {
            let scale: f64 = std::fs::read_to_string(pmu.join(format!("events/{event}.scale")))
                .map_err(|e| format!("power/{event}: {e}"))?
                .trim()
                .parse()
                .map_err(|_| format!("power/{event}.scale is not a number"))?;
            let ev = perf_event::events::Dynamic::builder(pmu)
                .and_then(|mut b| b.event(event).map(|b| b.build()))
                .map_err(|e| format!("power/{event}: {e}"))?
                .map_err(|e| format!("power/{event}: {e}"))?;
            cpus.iter()
                .map(|&c| {
                    let mut k = perf_event::Builder::new(ev)
                        .one_cpu(c as usize)
                        .any_pid()
                        .build()
                        .map_err(|e| format!("perf_event_open(power/{event}) on CPU {c}: {e}"))?;
                    k.enable().map_err(|e| e.to_string())?;
                    Ok((k, scale))
                })
                .collect()
        };
        let pkg = open("energy-pkg")?;
        let ram = open("energy-ram").unwrap_or_default();
        Ok(PerfPower { pkg, ram })
    }

    /// Energy since opening.
    pub fn energy(&mut self) -> Energy {
        let sum = |v: &mut Vec<(perf_event::Counter, f64)>| -> f64 {
            v.iter_mut().map(|(c, s)| c.read().map(|x| x as f64 * *s).unwrap_or(0.0)).sum()
        };
        let cpu = sum(&mut self.pkg);
        let dram = sum(&mut self.ram);
        Energy { system: cpu + dram, cpu, dram }
    }
}

/// Energy from a power model and measured utilisation.
#[derive(Clone, Debug)]
pub struct ModelledEnergy {
    model: PowerModel,
    total: Energy,
}

impl ModelledEnergy {
    /// A meter over `model`.
    pub fn new(model: PowerModel) -> ModelledEnergy {
        ModelledEnergy { model, total: Energy::default() }
    }

    /// Add `dt_s` seconds at `busy_cores` (fractional: the sum of per-CPU
    /// utilisation; interpolated between the model's integer steps) and no
    /// known memory traffic.
    pub fn add(&mut self, dt_s: f64, busy_cores: f64) {
        let lo = busy_cores.floor().max(0.0);
        let f = busy_cores - lo;
        let a = self.model.power(lo as usize, 0.0);
        let b = self.model.power(lo as usize + 1, 0.0);
        let mix = |x: f64, y: f64| (x + f * (y - x)) * dt_s;
        self.total.system += mix(a.system, b.system);
        self.total.cpu += mix(a.cpu, b.cpu);
        self.total.dram += mix(a.dram, b.dram);
    }

    /// Energy so far.
    pub fn energy(&self) -> Energy {
        self.total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::write;

    #[test]
    fn wrap_around_is_one_range() {
        assert_eq!(wrapped_delta(100, 250, 1000), 150);
        assert_eq!(wrapped_delta(900, 50, 1000), 150);
    }

    #[test]
    fn recorded_powercap_tree_with_a_wrap() {
        let root = std::env::temp_dir().join(format!("cosched-rapl-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        write(&root, "intel-rapl:0/name", "package-0\n");
        write(&root, "intel-rapl:0/energy_uj", "262000000000\n");
        write(&root, "intel-rapl:0/max_energy_range_uj", "262143328850\n");
        write(&root, "intel-rapl:0:0/name", "core\n");
        write(&root, "intel-rapl:0:0/energy_uj", "5\n");
        write(&root, "intel-rapl:0:0/max_energy_range_uj", "262143328850\n");
        write(&root, "intel-rapl:0:1/name", "dram\n");
        write(&root, "intel-rapl:0:1/energy_uj", "1000000\n");
        write(&root, "intel-rapl:0:1/max_energy_range_uj", "262143328850\n");
        let mut r = Rapl::open(&root).unwrap();
        // 143.32885 J to the wrap, then 56.67115 J past it: 200 J.
        write(&root, "intel-rapl:0/energy_uj", "56671150\n");
        write(&root, "intel-rapl:0:1/energy_uj", "11000000\n");
        r.sample();
        let e = r.energy();
        assert!((e.cpu - 200.0).abs() < 1e-6, "{e:?}");
        assert!((e.dram - 10.0).abs() < 1e-9);
        assert!((e.system - 210.0).abs() < 1e-6);
        assert!(Rapl::open(&root.join("nothing")).is_none());
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn perf_power_opens_or_explains() {
        match PerfPower::open() {
            Ok(mut p) => assert!(p.energy().cpu >= 0.0),
            Err(e) => assert!(e.0.contains("power"), "{e}"),
        }
    }

    #[test]
    fn modelled_energy_interpolates_eq13() {
        let spec = cosched_machine::presets::machine("i5-2500").unwrap();
        let m = PowerModel::new(&spec.power, 4);
        let mut e = ModelledEnergy::new(m.clone());
        e.add(2.0, 1.5);
        let want = (m.power(1, 0.0).system + m.power(2, 0.0).system) / 2.0 * 2.0;
        assert!((e.energy().system - want).abs() < 1e-9);
    }
}
