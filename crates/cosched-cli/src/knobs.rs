//! The knobs as Python sees them: every flag of [`RunOpts`] listed with its
//! keyword, default and help (`cosched.knobs()`), and keyword knobs parsed
//! into the same clap structs the command line fills (design note 26).

use crate::error::RunError;
use crate::opts::RunOpts;
use clap::Args as ClapArgs;

/// One knob of [`RunOpts`] (Python's `cosched.knobs()`): its keyword, the
/// flag it stands for, its default and its help line.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Knob {
    /// Python keyword (`quantum_ms`).
    pub name: String,
    /// Command-line flag (`--quantum-ms`).
    pub flag: String,
    /// Default value as text (empty when none).
    pub default: String,
    /// Whether the knob is a switch (true/false) rather than a value.
    pub switch: bool,
    /// The value's type, for keyword checks: `switch`, `number`, `integer`,
    /// `word` (one of `choices`), `words` (several of `choices`) or `text`.
    pub kind: &'static str,
    /// The accepted words of a `word` or `words` knob.
    pub choices: Vec<&'static str>,
    /// The help line.
    pub help: String,
}

/// Every knob of [`RunOpts`], from its clap definition (so the list cannot drift from the flags).
pub fn knobs() -> Vec<Knob> {
    let cmd = RunOpts::augment_args(clap::Command::new("knobs"));
    cmd.get_arguments()
        .filter_map(|a| {
            let long = a.get_long()?;
            let (kind, choices) = kind_of(a);
            Some(Knob {
                kind,
                choices,
                name: long.replace('-', "_"),
                flag: format!("--{long}"),
                default: a
                    .get_default_values()
                    .iter()
                    .map(|v| v.to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join(","),
                switch: !a.get_action().takes_values(),
                help: a.get_help().map(|h| h.to_string()).unwrap_or_default(),
            })
        })
        .collect()
}

/// A flag's value type: a policy knob's from its declaration, else from
/// clap's value parser.
fn kind_of(a: &clap::Arg) -> (&'static str, Vec<&'static str>) {
    use cosched_core::policies::knob::{self, Kind};
    use std::any::TypeId;
    if !a.get_action().takes_values() {
        return ("switch", vec![]);
    }
    let long = a.get_long().unwrap_or_default();
    if let Some(spec) = knob::all().into_iter().find(|k| k.name.replace('_', "-") == long) {
        return match spec.kind {
            Kind::Float { .. } => ("number", vec![]),
            Kind::Int { .. } => ("integer", vec![]),
            Kind::Switch => ("switch", vec![]),
            Kind::Choice { choices } => ("word", choices.to_vec()),
            Kind::Subset { choices } => ("words", choices.to_vec()),
            Kind::Text => ("text", vec![]),
        };
    }
    let t = a.get_value_parser().type_id();
    if t == TypeId::of::<f64>() || t == TypeId::of::<f32>() {
        ("number", vec![])
    } else if [TypeId::of::<u64>(), TypeId::of::<u32>(), TypeId::of::<usize>(), TypeId::of::<i64>()]
        .iter()
        .any(|i| t == *i)
    {
        ("integer", vec![])
    } else {
        ("text", vec![])
    }
}

/// Parse `flags` (no program name) into `T`, as the command line would; a
/// refusal is one line (clap's message without usage).
pub fn parse_flags<T: ClapArgs>(flags: &[String]) -> Result<T, RunError> {
    let cmd = T::augment_args(clap::Command::new("cosched").no_binary_name(true).allow_negative_numbers(true));
    let m = cmd.try_get_matches_from(flags).map_err(|e| {
        let text = e.render().to_string();
        let line: Vec<&str> = text
            .lines()
            .map(str::trim)
            .take_while(|l| !l.is_empty() && !l.starts_with("Usage:") && !l.starts_with("For more information"))
            .collect();
        RunError::Option(line.join(" ").trim_start_matches("error: ").to_string())
    })?;
    T::from_arg_matches(&m).map_err(|e| RunError::Option(e.to_string().trim().trim_start_matches("error: ").into()))
}
