//! The machine description a real run uses: a preset
//! given with `-m`, or this host as sysfs describes it (contexts, cores,
//! SMT, LLC domains and size), with memory bandwidth and power from a
//! `cosched calibrate` file when one is given (`--calibration`). Pure: the
//! host is passed in, so tests run it on recorded sysfs trees.
//!
//! Rules (docs/runtime.md, "Which machine description a run uses"):
//! * LLC capacity, RDA's resource table (RDA §2.3): the preset's `cache.llc_mb`;
//!   without a preset, the calibration file's (an *effective* LLC, measured),
//!   else sysfs's L3 size of one domain.
//! * Memory bandwidth (RDA's second resource, EFS's μ): the preset's or the
//!   calibration's; unknown otherwise (RDA then admits bandwidth periods
//!   without limit and says so; EFS refuses to start).
//! * Power model (modelled energy when RAPL is absent): the preset's or the
//!   calibration's.
//! * A preset whose topology or LLC contradicts this host gets one warning
//!   line per contradiction, naming both values.

use crate::host::Host;
use cosched_machine::MachineSpec;

const MIB: f64 = 1024.0 * 1024.0;

/// Where the description comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// A preset or machine file given with `-m` (its name).
    Preset(String),
    /// This host's sysfs, with a calibration file's name when one was given.
    Host {
        /// The calibration file's machine name.
        calibration: Option<String>,
    },
}

/// The machine as a real run describes it to policies and the energy meter.
#[derive(Clone, Debug)]
pub struct Description {
    /// Where it comes from.
    pub source: Source,
    /// Capacity of one LLC domain, bytes, when known.
    pub llc_bytes: Option<f64>,
    /// Memory-bus peak, 64-byte lines per second, when known.
    pub bus_lines_per_s: Option<f64>,
    /// The machine whose power model gives modelled energy (preset or calibration).
    pub power_model: Option<MachineSpec>,
    /// Contexts the policies schedule (always this host's online CPUs).
    pub contexts: usize,
    /// Cores of this host.
    pub cores: usize,
    /// Whether this host has SMT siblings.
    pub smt: bool,
    /// LLC domains of this host.
    pub llc_domains: usize,
    /// Contradictions between a preset and this host that concern every run, one line each.
    pub warnings: Vec<String>,
    /// The preset's LLC contradicting this host's sysfs: said only in a run whose policy reads
    /// the LLC's capacity (RDA's monitor, `linux-cache`), where it takes part.
    pub llc_warning: Option<String>,
}

fn mib(bytes: f64) -> String {
    let m = bytes / MIB;
    if (m - m.round()).abs() < 1e-9 {
        format!("{m:.0} MiB")
    } else {
        format!("{m:.2} MiB")
    }
}

impl Description {
    /// Describe `host`, or the preset `preset` run on it, with bandwidth and
    /// power from `calibration` when no preset is given.
    pub fn of(host: &Host, preset: Option<&MachineSpec>, calibration: Option<&MachineSpec>) -> Description {
        let t = &host.topology;
        let contexts = t.n_contexts();
        let cores = t.n_cores as usize;
        let smt = contexts > cores;
        let mut warnings = vec![];
        let mut llc_warning = None;
        let (source, llc_bytes, bus, power_model) = match preset {
            Some(m) => {
                if m.n_contexts() > contexts {
                    warnings.push(format!(
                        "preset `{}` describes {} hardware contexts, this host has {contexts} CPUs: policies schedule \
                         this host's {contexts}",
                        m.name,
                        m.n_contexts()
                    ));
                }
                let llc = m.cache.llc_mb * MIB;
                if let Some(h) = host.llc_bytes {
                    if (llc / h - 1.0).abs() > 0.01 {
                        llc_warning = Some(format!(
                            "preset `{}` has an LLC of {}, this host's sysfs says {}: the policy reads the LLC's \
                             capacity and is given the preset's",
                            m.name,
                            mib(llc),
                            mib(h)
                        ));
                    }
                }
                (Source::Preset(m.name.clone()), Some(llc), Some(m.bus_lines_per_s()), Some(m.clone()))
            }
            None => {
                let llc = calibration.map(|c| c.cache.llc_mb * MIB).or(host.llc_bytes);
                (
                    Source::Host { calibration: calibration.map(|c| c.name.clone()) },
                    llc,
                    calibration.map(MachineSpec::bus_lines_per_s),
                    calibration.cloned(),
                )
            }
        };
        Description {
            source,
            llc_bytes,
            bus_lines_per_s: bus,
            power_model,
            contexts,
            cores,
            smt,
            llc_domains: t.n_llc as usize,
            warnings,
            llc_warning,
        }
    }

    /// One line saying which description is used and what it holds.
    pub fn line(&self) -> String {
        let what = match &self.source {
            Source::Preset(n) => format!("preset `{n}`"),
            Source::Host { calibration: None } => "this host (sysfs)".to_string(),
            Source::Host { calibration: Some(c) } => format!("this host (sysfs) with calibration `{c}`"),
        };
        let llc = match self.llc_bytes {
            Some(b) => format!("LLC {} per domain", mib(b)),
            None => "LLC unknown".to_string(),
        };
        let bw = match self.bus_lines_per_s {
            Some(l) => format!("memory bandwidth {:.1} GB/s", l * 64.0 / 1e9),
            None => "memory bandwidth unknown (give --calibration FILE from `cosched calibrate`, or -m)".to_string(),
        };
        format!(
            "{what}: {} contexts on {} cores ({}), {} LLC domain(s), {llc}, {bw}",
            self.contexts,
            self.cores,
            if self.smt { "SMT" } else { "no SMT" },
            self.llc_domains
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::{recorded, recorded as rec};

    #[test]
    fn host_without_preset_reads_sysfs_and_says_bandwidth_is_unknown() {
        let (dir, host) = recorded("describe-plain", &rec::Shape { cpus: 4, smt: true, llc_domains: 1, llc_kib: 8192 });
        let d = Description::of(&host, None, None);
        assert_eq!(d.llc_bytes, Some(8.0 * MIB));
        assert_eq!((d.contexts, d.cores, d.smt), (4, 2, true));
        assert!(d.bus_lines_per_s.is_none() && d.warnings.is_empty() && d.llc_warning.is_none());
        assert!(d.line().starts_with("this host (sysfs): 4 contexts on 2 cores (SMT)"), "{}", d.line());
        assert!(d.line().contains("memory bandwidth unknown"), "{}", d.line());
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_preset_that_contradicts_the_host_is_named_with_both_values() {
        let (dir, host) =
            recorded("describe-preset", &rec::Shape { cpus: 2, smt: false, llc_domains: 1, llc_kib: 8192 });
        let m = cosched_machine::presets::machine("xeon-e5645").unwrap();
        let d = Description::of(&host, Some(&m), None);
        assert_eq!(d.llc_bytes, Some(m.cache.llc_mb * MIB));
        assert_eq!(d.warnings.len(), 1, "{:?}", d.warnings);
        assert!(d.warnings[0].contains(&format!("{} hardware contexts", m.n_contexts())), "{:?}", d.warnings);
        assert!(d.warnings[0].contains("2 CPUs"));
        let llc = d.llc_warning.unwrap_or_default();
        assert!(llc.contains(&mib(m.cache.llc_mb * MIB)) && llc.contains("8 MiB"), "{llc}");
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn calibration_gives_bandwidth_power_and_the_effective_llc() {
        let (dir, host) = recorded("describe-cal", &rec::Shape { cpus: 2, smt: false, llc_domains: 1, llc_kib: 32768 });
        let cal = cosched_machine::presets::machine("kvm-epyc-2c").unwrap();
        let d = Description::of(&host, None, Some(&cal));
        assert_eq!(d.llc_bytes, Some(cal.cache.llc_mb * MIB));
        assert_eq!(d.bus_lines_per_s, Some(cal.bus_lines_per_s()));
        assert!(d.power_model.is_some() && d.warnings.is_empty() && d.llc_warning.is_none());
        assert!(d.line().contains("with calibration `kvm-epyc-2c`"), "{}", d.line());
        let _ = std::fs::remove_dir_all(dir);
    }
}
