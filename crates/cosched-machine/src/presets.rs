//! Machine presets (the TOML files under `data/machines`, embedded at build
//! time) and the thin loader that reads an input by preset name or by path.

use crate::error::ConfigError;
use crate::spec::MachineSpec;

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/machines.rs"));
}

/// Names of the machine presets.
pub fn machine_names() -> impl Iterator<Item = &'static str> {
    embedded::MACHINES.iter().map(|(n, _)| *n)
}

/// The TOML text of the machine preset `name`, if there is one.
pub fn machine_text(name: &str) -> Option<&'static str> {
    embedded::MACHINES.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// Whether an input argument names a file (contains `/` or ends in
/// `.toml`) rather than a preset.
pub fn looks_like_path(s: &str) -> bool {
    s.contains('/') || s.ends_with(".toml")
}

/// Read the text of a `kind` input named `arg`: a file when `arg` looks like a
/// path (contains `/` or ends in `.toml`), else the preset of that name in
/// `table` (`(name, text)` pairs). Returns the name to cite in errors and the text.
pub fn read_source(kind: &str, table: &[(&str, &str)], arg: &str) -> Result<(String, String), ConfigError> {
    if looks_like_path(arg) {
        return crate::input::read_text(std::path::Path::new(arg), arg, crate::input::Kind::Config)
            .map(|s| (arg.to_string(), s));
    }
    match table.iter().find(|(n, _)| *n == arg) {
        Some((n, src)) => Ok((format!("{kind} preset `{n}`"), src.to_string())),
        None => Err(ConfigError::whole(
            &format!("{kind} `{}`", cosched_core::text::quote(arg)),
            format!(
                "no such preset{} (known: {}); a file path must contain `/` or end in .toml",
                cosched_core::suggest::did_you_mean(arg, table.iter().map(|(n, _)| *n)),
                table.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
            ),
        )),
    }
}

/// Load a machine by preset name or path.
pub fn machine(arg: &str) -> Result<MachineSpec, ConfigError> {
    let (file, src) = read_source("machine", embedded::MACHINES, arg)?;
    MachineSpec::from_toml(&file, &src)
}
