//! Workload presets: the TOML files under `data/workloads`, embedded at
//! build time, and loading by preset name or by file path (machine presets
//! are in `cosched_machine::presets`).

use crate::spec::WorkloadSpec;
use cosched_machine::presets::read_source;
use cosched_machine::ConfigError;

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

/// The eight RDA workloads of Table 2 (RDA §4.1): BLAS-1/2/3 and five SPLASH-2 programs.
pub const RDA_WORKLOADS: [&str; 8] = [
    "rda-blas1",
    "rda-blas2",
    "rda-blas3",
    "rda-water-sp",
    "rda-water-nsq",
    "rda-ocean-cp",
    "rda-raytrace",
    "rda-volrend",
];

/// Names of the workload presets.
pub fn workload_names() -> impl Iterator<Item = &'static str> {
    embedded::WORKLOADS.iter().map(|(n, _)| *n)
}

/// Load a workload by preset name or path, resolving `preset = "…"` jobs.
pub fn workload(arg: &str) -> Result<WorkloadSpec, ConfigError> {
    let (file, src) = read_source("workload", embedded::WORKLOADS, arg)?;
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
