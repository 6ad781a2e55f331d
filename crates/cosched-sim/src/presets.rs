//! Machine and workload presets: the TOML files under `data/`, embedded at
//! build time, and loading by preset name or by file path.

use crate::error::ConfigError;
use crate::spec::{MachineSpec, WorkloadSpec};

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/presets.rs"));
}

/// The eleven PARSEC and SPLASH-2 workloads of the SLITS evaluation (SLITS §5.3).
pub const SLITS_WORKLOADS: [&str; 11] = [
    "blackscholes",
    "canneal",
    "facesim",
    "fluidanimate",
    "swaptions",
    "vips",
    "ocean-cont",
    "ocean-ncont",
    "water-nsq",
    "fft",
    "raytrace",
];

/// Names of the machine presets.
pub fn machine_names() -> impl Iterator<Item = &'static str> {
    embedded::MACHINES.iter().map(|(n, _)| *n)
}

/// Names of the workload presets.
pub fn workload_names() -> impl Iterator<Item = &'static str> {
    embedded::WORKLOADS.iter().map(|(n, _)| *n)
}

fn looks_like_path(s: &str) -> bool {
    s.contains('/') || s.ends_with(".toml")
}

fn read(kind: &str, table: &[(&str, &str)], arg: &str) -> Result<(String, String), ConfigError> {
    if looks_like_path(arg) {
        return std::fs::read_to_string(arg)
            .map(|s| (arg.to_string(), s))
            .map_err(|e| ConfigError::new(arg, "-", format!("cannot read {kind} file: {e}")));
    }
    match table.iter().find(|(n, _)| *n == arg) {
        Some((n, src)) => Ok((format!("{kind} preset `{n}`"), src.to_string())),
        None => Err(ConfigError::new(
            &format!("{kind} `{arg}`"),
            "-",
            format!(
                "no such preset (known: {}); a file path must contain `/` or end in .toml",
                table.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
            ),
        )),
    }
}

/// Load a machine by preset name or path.
pub fn machine(arg: &str) -> Result<MachineSpec, ConfigError> {
    let (file, src) = read("machine", embedded::MACHINES, arg)?;
    MachineSpec::from_toml(&file, &src)
}

/// Load a workload by preset name or path, resolving `preset = "…"` jobs.
pub fn workload(arg: &str) -> Result<WorkloadSpec, ConfigError> {
    let (file, src) = read("workload", embedded::WORKLOADS, arg)?;
    workload_from_toml(&file, &src)
}

/// Parse workload TOML text (from `file`), resolving `preset = "…"` jobs.
pub fn workload_from_toml(file: &str, src: &str) -> Result<WorkloadSpec, ConfigError> {
    let mut w = WorkloadSpec::from_toml_unresolved(file, src)?;
    for (j, job) in w.jobs.iter_mut().enumerate() {
        let Some(p) = job.preset.clone() else {
            continue;
        };
        let (pfile, psrc) = match embedded::WORKLOADS.iter().find(|(n, _)| *n == p) {
            Some((n, s)) => (format!("workload preset `{n}`"), s.to_string()),
            None => {
                return Err(ConfigError::new(file, format!("job[{j}].preset"), format!("no workload preset `{p}`")))
            }
        };
        let base = WorkloadSpec::from_toml_unresolved(&pfile, &psrc)?;
        if base.jobs.len() != 1 || base.jobs[0].preset.is_some() {
            return Err(ConfigError::new(
                file,
                format!("job[{j}].preset"),
                format!("`{p}` must hold exactly one plain job"),
            ));
        }
        job.inherit(&base.jobs[0]);
    }
    w.validate(file)?;
    Ok(w)
}
