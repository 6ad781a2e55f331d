//! Characterised programs, the file `cosched characterise` writes: read, and looked up by the
//! mix job they stand for (`crate::mix_model` turns them into a simulated mix).

use crate::error::RunError;
use cosched_machine::mix::Mix;
use cosched_sim::presets;
use cosched_sim::spec::workload::{JobSpec, WorkloadSpec};

/// Characterised programs: a workload file written by `cosched characterise`
/// (or by hand), its jobs looked up by mix job name.
pub struct Programs {
    /// Where they were read from.
    pub file: String,
    /// The programs.
    pub spec: WorkloadSpec,
}

impl Programs {
    /// Read and check a workload file of programs.
    pub fn load(path: &std::path::Path) -> Result<Programs, RunError> {
        let file = path.display().to_string();
        let text = cosched_machine::input::read_text(path, &file, cosched_machine::input::Kind::Config)?;
        let spec = presets::workload_from_toml(&file, &text).map_err(RunError::from)?;
        Ok(Programs { file, spec })
    }

    /// Why the characterisations of `mix`'s jobs are not to be trusted, one per such job
    /// (the workload file's `untrusted` field, written by `cosched characterise`).
    pub fn untrusted(&self, mix: &Mix) -> Vec<String> {
        mix.jobs.iter().filter_map(|j| self.find(&j.name)?.untrusted.clone()).collect()
    }

    /// The program of the mix job named `name`.
    pub fn find(&self, name: &str) -> Option<&JobSpec> {
        self.spec.jobs.iter().find(|j| j.name == name)
    }
}
