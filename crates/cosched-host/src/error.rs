//! Why an experiment on the real machine failed, by stage, typed so a
//! face can tell them apart: the lab's error for options and descriptions, the runtime's for a run,
//! and this crate's own for the rounds and for a recorded check that is not
//! one. No variant carries a line of text; the CLI prints [`std::fmt::Display`]
//! (options named by their flags), Python raises one exception per variant
//! (options named by their keywords, [`HostError::in_keywords`]).

use cosched_lab::RunError;
use cosched_linux::runtime::{RuntimeError, LINUX};
use cosched_policies::knob::flag_of;
use std::fmt;

/// An experiment on the real machine refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// An option, a description or the simulator's half of a check (the lab's error).
    #[error(transparent)]
    Lab(#[from] RunError),
    /// The real runtime refused or stopped a run.
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
    /// A policy the real runtime cannot run (neither `linux` nor registered).
    #[error("{}", unknown_policy(name))]
    UnknownPolicy {
        /// The name given.
        name: String,
    },
    /// A round's solo run of a job did not complete.
    #[error("round {}: the solo run of {job} failed", round + 1)]
    SoloFailed {
        /// Round, from 0.
        round: usize,
        /// Mix job.
        job: String,
    },
    /// A round's run under an entry was cut short (timeout, Ctrl-C, SIGTERM).
    #[error("round {} under {}: {source}", round + 1, cosched_core::text::quote(entry))]
    Stopped {
        /// Round, from 0.
        round: usize,
        /// Entry label.
        entry: String,
        /// What stopped it.
        source: RuntimeError,
    },
    /// slits-* run on the pair slowdowns the model predicts, and these jobs have none.
    #[error("{}", unmodelled(jobs, flag_of))]
    Unmodelled {
        /// The jobs without a model.
        jobs: Vec<String>,
    },
    /// A recorded check (`calibrate --check --format json`) that a replay cannot read.
    /// A characterisation's machine has no two cores sharing an LLC: a job cannot run beside a
    /// co-runner there.
    #[error("{}", no_co_runner(machine, flag_of))]
    NoCoRunner {
        /// The machine's name.
        machine: String,
    },
    /// A record's pirates are none of the machine's fixed sweep: it was measured on another one,
    /// so its adaptive sweep's pirates cannot be told from the fixed ones.
    #[error("{}", foreign_pirates(file, job, machine, fixed, (flag_of("added_pirates"), "-m")))]
    ForeignPirates {
        /// The record.
        file: String,
        /// The first job whose pirates are foreign.
        job: String,
        /// The machine the record was given for.
        machine: String,
        /// That machine's fixed pirate sizes, MiB.
        fixed: Vec<f64>,
    },
    /// Measuring a characterisation's co-runs failed (the host cannot place them).
    #[error(transparent)]
    Probe(#[from] cosched_linux::probing::ProbeError),
    #[error("{file}: {}{problem}", if field.is_empty() { String::new() } else { format!("{field}: ") })]
    Recorded {
        /// The file.
        file: String,
        /// The field, dotted (`check.result.solo_s`); empty for the whole file.
        field: String,
        /// What is wrong with it.
        problem: Recorded,
    },
}

/// What is wrong with a field of a recorded check.
#[derive(Debug)]
pub enum Recorded {
    /// The field is absent.
    Missing,
    /// Not a finite number.
    NotNumber,
    /// Not a string.
    NotString,
    /// Not a list.
    NotList,
    /// A list of rounds with none.
    NoRounds,
    /// No cell of a modelled job to replay.
    NoCell,
    /// The file is not JSON.
    NotJson(serde_json::Error),
    /// The preset is not a machine description.
    NotMachine(serde_json::Error),
    /// Over a bound (the rounds are bounded as `repeat` is).
    Bound(Box<RunError>),
    /// A policy the runtime cannot run.
    UnknownPolicy {
        /// The name recorded.
        name: String,
    },
}

impl fmt::Display for Recorded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Recorded::Missing => write!(f, "missing"),
            Recorded::NotNumber => write!(f, "not a finite number"),
            Recorded::NotString => write!(f, "not a string"),
            Recorded::NotList => write!(f, "not a list"),
            Recorded::NoRounds => write!(f, "no rounds"),
            Recorded::NoCell => write!(f, "no cell of a modelled job"),
            Recorded::NotJson(e) => write!(f, "not JSON: {e}"),
            Recorded::NotMachine(e) => write!(f, "not a machine description: {e}"),
            Recorded::Bound(e) => write!(f, "{e}"),
            Recorded::UnknownPolicy { name } => write!(f, "{}", unknown_policy(name)),
        }
    }
}

impl HostError {
    /// The line with options named by their Python keywords (`policies`, not `--policies`).
    pub fn in_keywords(&self) -> String {
        match self {
            HostError::Lab(e) => e.in_keywords(),
            HostError::Unmodelled { jobs } => unmodelled(jobs, |k| format!("`{k}`")),
            HostError::NoCoRunner { machine } => no_co_runner(machine, |k| format!("`{k}`")),
            HostError::ForeignPirates { file, job, machine, fixed } => {
                foreign_pirates(file, job, machine, fixed, ("`added_pirates`".into(), "`machine`"))
            }
            HostError::Recorded { file, field, problem: Recorded::Bound(e) } => {
                format!("{file}: {field}: {}", e.in_keywords())
            }
            e => e.to_string(),
        }
    }

    /// A recorded check's `field` of `file` is wrong.
    pub fn recorded(file: &str, field: &str, problem: Recorded) -> HostError {
        HostError::Recorded { file: file.into(), field: field.into(), problem }
    }
}

fn unknown_policy(name: &str) -> String {
    let registry = cosched_policies::registry();
    format!(
        "unknown policy `{}`{} (known: {LINUX}, {})",
        cosched_core::text::quote(name),
        cosched_core::suggest::did_you_mean(name, std::iter::once(LINUX).chain(registry.iter().map(|p| p.name))),
        registry.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
    )
}

fn unmodelled(jobs: &[String], name: impl Fn(&str) -> String) -> String {
    let (has, them) = if jobs.len() == 1 { ("has", "it") } else { ("have", "them") };
    format!(
        "{}: slits-* run on the pair slowdowns the model predicts, and {} {has} no model: characterise {them} (`cosched characterise`) and give {}, or drop slits-*",
        name("policies"),
        cosched_core::text::list(jobs, 8),
        name("programs")
    )
}

fn no_co_runner(machine: &str, name: impl Fn(&str) -> String) -> String {
    format!("{} {machine}: no two cores share an LLC, so a job cannot run beside a co-runner there", name("machine"))
}

/// `names`: how the line names the pirates kept and the machine (the command line's flags, or
/// Python's keywords).
fn foreign_pirates(file: &str, job: &str, machine: &str, fixed: &[f64], names: (String, &str)) -> String {
    let (added, by) = names;
    format!(
        "{added}: {file}: job {job}'s pirates are none of {machine}'s fixed sweep ({fixed:?} MiB): give the {by} it was measured on"
    )
}

/// A policy the real runtime can run: `linux` or one of the registry.
pub fn known_policy(name: &str) -> Result<(), HostError> {
    if name == LINUX || cosched_policies::find(name).is_some() {
        return Ok(());
    }
    Err(HostError::UnknownPolicy { name: name.into() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_line_names_what_the_cli_named_before_the_move() {
        let e = HostError::Unmodelled { jobs: vec!["a".into(), "b".into()] };
        assert!(e.to_string().starts_with("--policies: slits-*") && e.to_string().contains("give --programs,"), "{e}");
        assert!(e.in_keywords().starts_with("`policies`: slits-*") && e.in_keywords().contains("give `programs`,"));
        let e = HostError::recorded("f.json", "check.model", Recorded::NotString);
        assert_eq!(e.to_string(), "f.json: check.model: not a string");
        let e = HostError::recorded("f.json", "", Recorded::Missing);
        assert_eq!(e.to_string(), "f.json: missing");
        assert_eq!(
            HostError::SoloFailed { round: 0, job: "j".into() }.to_string(),
            "round 1: the solo run of j failed"
        );
        let e = HostError::NoCoRunner { machine: "quad".into() };
        assert_eq!(
            e.to_string(),
            "--machine quad: no two cores share an LLC, so a job cannot run beside a co-runner there"
        );
        assert!(e.in_keywords().starts_with("`machine` quad: no two cores"), "{}", e.in_keywords());
        let e =
            HostError::ForeignPirates { file: "r.json".into(), job: "j".into(), machine: "m".into(), fixed: vec![1.5] };
        assert_eq!(
            e.to_string(),
            "--added-pirates: r.json: job j's pirates are none of m's fixed sweep ([1.5] MiB): give the -m it was measured on"
        );
        assert!(
            e.in_keywords().starts_with("`added_pirates`: r.json")
                && e.in_keywords().ends_with("give the `machine` it was measured on")
        );
        assert!(known_policy("linux").is_ok() && known_policy("g-rrs").is_ok());
        let e = known_policy("g-rs").unwrap_err().to_string();
        assert!(e.starts_with("unknown policy `g-rs`") && e.contains("g-rrs") && e.contains("(known: linux, "), "{e}");
    }
}
