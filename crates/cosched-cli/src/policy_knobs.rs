//! The policies' knobs on the command line: one flag per knob the policies
//! declare (`cosched_core::policies::knob`), built from the declarations, so
//! `simulate`/`compare`/`sweep`/`paper`, `cosched run` and Python's keywords
//! offer the same knobs with the same defaults, ranges and help.

use clap::parser::ValueSource;
use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches};
use cosched_core::policies::knob::{self, Kind, KnobValues};
use cosched_core::policies::PolicyOptions;

/// The knobs a user gave, as text, with the backend whose defaults apply
/// (`REAL`: the real runtime's, e.g. a 100 ms quantum).
#[derive(Clone, Debug, Default)]
pub struct PolicyKnobs<const REAL: bool> {
    given: Vec<(&'static str, String)>,
}

/// The simulator's knobs (`simulate`, `compare`, `sweep`, Python).
pub type SimKnobs = PolicyKnobs<false>;
/// The real runtime's knobs (`cosched run`).
pub type RealKnobs = PolicyKnobs<true>;

impl<const REAL: bool> PolicyKnobs<REAL> {
    /// The knobs given, with a file-valued `--assignment` read in.
    fn values(&self) -> Result<KnobValues, String> {
        let mut v = KnobValues::defaults(REAL);
        for (name, text) in &self.given {
            let text = if *name == "assignment" { assignment_text(text)? } else { text.clone() };
            v.set(name, &text)?;
        }
        Ok(v)
    }

    /// The names of the knobs the user gave.
    pub fn given(&self) -> Vec<&'static str> {
        self.given.iter().map(|(n, _)| *n).collect()
    }

    /// Set knob `name` to `text` as if given on the command line (tests, Python).
    pub fn set(&mut self, name: &'static str, text: &str) {
        self.given.retain(|(n, _)| *n != name);
        self.given.push((name, text.to_string()));
    }

    /// The options `policies` are built from, seeded `seed`: a given knob none
    /// of them reads is refused naming the policies that read it; one that only
    /// some read gives a note (returned) naming those.
    pub fn options(&self, policies: &[&str], seed: u64) -> Result<(PolicyOptions, Vec<String>), String> {
        let v = self.values()?;
        let notes = knob::unread(&self.given(), policies)?;
        Ok((PolicyOptions::from_knobs(&v, seed)?, notes))
    }
}

/// `--assignment`'s text: the list itself, or the contents of the file it
/// names. Anything that reads as numbers (`-1`, `1.5`, `0,1`) is a list, so
/// its error is about the number, not a missing file.
fn assignment_text(arg: &str) -> Result<String, String> {
    if arg.contains(',') || arg.trim().parse::<f64>().is_ok() {
        Ok(arg.to_string())
    } else {
        let text = crate::input::read_text(arg)?;
        // Name the file in a parse error, as the context-id check does.
        cosched_core::policies::parse_assignment(arg, &text)?;
        Ok(text)
    }
}

impl<const REAL: bool> FromArgMatches for PolicyKnobs<REAL> {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let mut k = PolicyKnobs { given: vec![] };
        k.update_from_arg_matches(m)?;
        Ok(k)
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        for spec in knob::all() {
            if m.value_source(spec.name) != Some(ValueSource::CommandLine) {
                continue;
            }
            let text = match spec.kind {
                Kind::Switch => m.get_flag(spec.name).to_string(),
                _ => m.get_one::<String>(spec.name).cloned().unwrap_or_default(),
            };
            self.set(spec.name, &text);
        }
        Ok(())
    }
}

impl<const REAL: bool> Args for PolicyKnobs<REAL> {
    fn augment_args(cmd: Command) -> Command {
        knob::all().into_iter().fold(cmd, |cmd, k| {
            let readers = knob::readers(k.name).join(", ");
            let unit = if k.unit.is_empty() || k.unit == "1" { String::new() } else { format!(", {}", k.unit) };
            let help = format!("{}{unit} ({}; read by {readers})", capital(k.doc), k.paper);
            let mut a = Arg::new(k.name).long(k.name.replace('_', "-")).help(help);
            a = match k.kind {
                Kind::Switch => a.action(ArgAction::SetTrue),
                Kind::Choice { choices } => {
                    a.action(ArgAction::Set).value_parser(clap::builder::PossibleValuesParser::new(choices.iter()))
                }
                _ => a.action(ArgAction::Set).value_name(k.name.to_uppercase()),
            };
            let d = k.default_for(REAL);
            if !d.is_empty() && !matches!(k.kind, Kind::Switch) {
                a = a.default_value(d);
            }
            cmd.arg(a)
        })
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

/// The doc line with the policy-family prefix kept and its first letter up.
fn capital(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().collect::<String>() + c.as_str()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knobs::parse_flags;

    #[test]
    fn every_declared_knob_is_a_flag_with_its_default() {
        let cmd = SimKnobs::augment_args(Command::new("t"));
        for k in knob::all() {
            let a = cmd.get_arguments().find(|a| a.get_id() == k.name).unwrap_or_else(|| panic!("{}", k.name));
            assert_eq!(format!("--{}", a.get_long().unwrap()), k.flag());
            let d: Vec<String> = a.get_default_values().iter().map(|v| v.to_string_lossy().into()).collect();
            if !k.default.is_empty() && !matches!(k.kind, Kind::Switch) {
                assert_eq!(d, [k.default], "{}", k.name);
            }
        }
    }

    #[test]
    fn only_given_flags_count_as_given() {
        let k: SimKnobs = parse_flags(&["--efs-window-ms".into(), "5".into(), "--slits-global-queue".into()]).unwrap();
        assert_eq!(k.given(), ["efs_window_ms", "slits_global_queue"]);
        let (o, _) = k.options(&["efs", "slits-contention"], 1).unwrap();
        assert_eq!(o.efs.window, 5_000_000);
        let e = k.options(&["cfs"], 1).unwrap_err();
        assert!(e.starts_with("--efs-window-ms: policy `cfs` does not read it; it is read by efs"), "{e}");
    }
}
