//! Input files: machine and workload presets (TOML), parsed strictly
//! (unknown fields are errors) and validated field by field.

pub mod machine;
pub mod workload;

pub use machine::MachineSpec;
pub use workload::WorkloadSpec;

use crate::error::ConfigError;
use serde::de::DeserializeOwned;

/// Parse TOML text into a spec, naming `file` in errors.
pub(crate) fn parse_toml<T: DeserializeOwned>(file: &str, src: &str) -> Result<T, ConfigError> {
    toml::from_str(src).map_err(|e| ConfigError::from_toml(file, src, &e))
}
