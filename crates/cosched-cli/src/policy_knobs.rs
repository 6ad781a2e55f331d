//! The policies' knobs on the command line: one flag per knob the policies
//! declare (`cosched_policies::knob`), built from the declarations, so
//! `simulate`/`compare`/`sweep`/`paper`, `cosched run` and Python's keywords
//! offer the same knobs with the same defaults, ranges and help. The values
//! given are the lab's [`PolicyKnobs`].

use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches};
use cosched_lab::knobs::{policy_help, PolicyKnobs};
use cosched_lab::RunError;
use cosched_policies::knob::{self, Kind};

/// The policy knobs given on a command line, as a flattenable clap group
/// (`cosched run`, `calibrate`: the real runtime's defaults when `REAL`).
#[derive(Clone, Debug, Default)]
pub struct KnobFlags<const REAL: bool>(pub PolicyKnobs<REAL>);

/// The real runtime's knob flags (`cosched run`).
pub type RealKnobs = KnobFlags<true>;

/// The policy knobs given in `m` (only those on the command line count as given).
pub fn given<const REAL: bool>(m: &ArgMatches) -> Result<PolicyKnobs<REAL>, RunError> {
    let mut k = PolicyKnobs::<REAL>::default();
    for spec in knob::all() {
        if let Some(text) = crate::flags::given(m, spec) {
            k.set(spec.name, &text)?;
        }
    }
    Ok(k)
}

/// `cmd` with one flag per declared policy knob, its default the backend's.
pub fn augment<const REAL: bool>(cmd: Command) -> Command {
    knob::all().into_iter().fold(cmd, |cmd, k| {
        let mut a = Arg::new(k.name).long(k.name.replace('_', "-")).help(policy_help(k));
        a = match k.kind {
            Kind::Switch => a.action(ArgAction::SetTrue),
            // The real machine has no ground truth: its faces do not offer the oracle readings.
            Kind::Choice { choices } => a.action(ArgAction::Set).value_parser(
                clap::builder::PossibleValuesParser::new(choices.iter().filter(|c| !(REAL && c.starts_with("oracle")))),
            ),
            // A list such as `--assignment -1,0` is the knob's value (refused by its own check,
            // naming the entry), not an unknown flag.
            Kind::Text => a.action(ArgAction::Set).value_name(k.name.to_uppercase()).allow_hyphen_values(true),
            // A real number's own check refuses `-inf` by the flag's name (clap would take it for a flag).
            Kind::Float { .. } => a.action(ArgAction::Set).value_name(k.name.to_uppercase()).allow_hyphen_values(true),
            _ => a.action(ArgAction::Set).value_name(k.name.to_uppercase()),
        };
        let d = k.default_for(REAL);
        if !d.is_empty() && !matches!(k.kind, Kind::Switch) {
            a = a.default_value(d);
        }
        cmd.arg(a)
    })
}

impl<const REAL: bool> std::ops::Deref for KnobFlags<REAL> {
    type Target = PolicyKnobs<REAL>;
    fn deref(&self) -> &PolicyKnobs<REAL> {
        &self.0
    }
}

impl<const REAL: bool> FromArgMatches for KnobFlags<REAL> {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let mut k = KnobFlags(PolicyKnobs::default());
        k.update_from_arg_matches(m)?;
        Ok(k)
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        self.0 = given(m).map_err(crate::flags::refused)?;
        Ok(())
    }
}

impl<const REAL: bool> Args for KnobFlags<REAL> {
    fn augment_args(cmd: Command) -> Command {
        augment::<REAL>(cmd)
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_declared_knob_is_a_flag_with_its_default() {
        let cmd = augment::<false>(Command::new("t"));
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
        let m = augment::<false>(Command::new("t"))
            .try_get_matches_from(["t", "--efs-window-ms", "5", "--slits-global-queue"])
            .unwrap();
        let k = given::<false>(&m).unwrap();
        assert_eq!(k.given(), ["efs_window_ms", "slits_global_queue"]);
    }
}
