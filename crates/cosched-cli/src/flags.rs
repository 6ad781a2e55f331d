//! Flags built from declarations (`cosched_lab::declared`): one clap
//! argument per declared option, so a study's flags, defaults and help come
//! from the same declaration Python's keywords do, and every value goes
//! through the lab's `set` (one parser, one refusal).

use clap::parser::ValueSource;
use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches};
use cosched_lab::declared::{long, short, Declared};
use cosched_lab::RunError;
use cosched_policies::knob::{Kind, KnobSpec};

/// The clap argument of declared option `k`: its flag, short flag, help line
/// (without the final period, as clap shows doc comments) and default.
pub fn arg(k: &KnobSpec) -> Arg {
    let mut a = Arg::new(k.name).long(long(k)).help(k.doc.trim().trim_end_matches('.').to_string());
    if let Some(c) = short(k) {
        a = a.short(c);
    }
    if matches!(k.kind, Kind::Switch) {
        return a.action(ArgAction::SetTrue);
    }
    a = a.action(ArgAction::Set).value_name(k.name.to_uppercase()).allow_negative_numbers(true);
    // A real number's own check refuses `-inf` by the flag's name (clap would take it for a flag).
    if matches!(k.kind, Kind::Float { .. }) {
        a = a.allow_hyphen_values(true);
    }
    if k.default.is_empty() {
        a
    } else {
        a.default_value(k.default)
    }
}

/// The text option `k` was given on the command line, if it was (a switch's
/// flag sets it to the opposite of its default).
pub fn given(m: &ArgMatches, k: &KnobSpec) -> Option<String> {
    if m.value_source(k.name) != Some(ValueSource::CommandLine) {
        return None;
    }
    Some(match k.kind {
        Kind::Switch => (k.default != "true").to_string(),
        _ => m.get_one::<String>(k.name).cloned().unwrap_or_default(),
    })
}

/// A refusal of the lab's, as clap reports a bad value.
pub fn refused(e: RunError) -> clap::Error {
    clap::Error::raw(clap::error::ErrorKind::ValueValidation, format!("{e}\n"))
}

/// Declared options as a flattenable group of flags.
#[derive(Clone, Debug, Default)]
pub struct Flags<T>(pub T);

impl<T> std::ops::Deref for Flags<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: Declared + Default> FromArgMatches for Flags<T> {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let mut f = Flags(T::default());
        f.update_from_arg_matches(m)?;
        Ok(f)
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        for k in T::DECLARED {
            if let Some(text) = given(m, k) {
                self.0.set(k.name, &text).map_err(|e| refused(e.into()))?;
            }
        }
        Ok(())
    }
}

impl<T: Declared + Default> Args for Flags<T> {
    fn augment_args(cmd: Command) -> Command {
        T::DECLARED.iter().fold(cmd, |c, k| c.arg(arg(k)))
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cosched_lab::best_static::OptimumOptions;

    #[test]
    fn flags_set_the_declared_options_and_a_default_on_switch_turns_off() {
        let cmd = Flags::<OptimumOptions>::augment_args(Command::new("t"));
        let m = cmd.try_get_matches_from(["t", "-w", "spec-mix4", "--samples", "7", "--no-matching"]).unwrap();
        let o = Flags::<OptimumOptions>::from_arg_matches(&m).unwrap().0;
        assert_eq!((o.workload.as_str(), o.samples, o.matching, o.budget), ("spec-mix4", Some(7), false, 20_000));
        let cmd = Flags::<OptimumOptions>::augment_args(Command::new("t"));
        let e = cmd
            .try_get_matches_from(["t", "--budget", "many"])
            .and_then(|m| Flags::<OptimumOptions>::from_arg_matches(&m));
        assert!(e.unwrap_err().to_string().contains("--budget: `many` is not a whole number"));
    }
}
