//! Options shared by the subcommands that run simulations (one flattened
//! struct, so flag names never drift between subcommands).

use crate::flags;
use crate::OneLine;
use clap::{ArgMatches, Args, Command, FromArgMatches, ValueEnum};
use cosched_lab::knobs;
use cosched_lab::{Resolved, RunSpec};

/// Output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Aligned text for people.
    Table,
    /// JSON for programs.
    Json,
    /// CSV for spreadsheets and pandas.
    Csv,
}

/// Machine, workload and engine options: the lab's [`RunSpec`] with its flags
/// built from the knobs' declarations (`cosched_lab::knobs`): the run's own,
/// then every policy's, then the engine's.
#[derive(Clone, Debug, Default)]
pub struct RunOpts(pub RunSpec);

impl std::ops::Deref for RunOpts {
    type Target = RunSpec;
    fn deref(&self) -> &RunSpec {
        &self.0
    }
}

impl std::ops::DerefMut for RunOpts {
    fn deref_mut(&mut self) -> &mut RunSpec {
        &mut self.0
    }
}

impl FromArgMatches for RunOpts {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let mut r = RunOpts::default();
        r.update_from_arg_matches(m)?;
        Ok(r)
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        for k in knobs::PLACE.iter().chain(&knobs::ENGINE) {
            if let Some(text) = flags::given(m, k) {
                self.0.set(k.name, &text).map_err(flags::refused)?;
            }
        }
        self.0.knobs = crate::policy_knobs::given::<false>(m).map_err(flags::refused)?;
        Ok(())
    }
}

impl Args for RunOpts {
    fn augment_args(cmd: Command) -> Command {
        let cmd = knobs::PLACE.iter().fold(cmd, |c, k| c.arg(flags::arg(k)));
        let cmd = crate::policy_knobs::augment::<false>(cmd);
        knobs::ENGINE.iter().fold(cmd, |c, k| c.arg(flags::arg(k)))
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

impl RunOpts {
    /// The machine and workload resolved once, for everything below (so a file
    /// is read and checked once); a machine file's shorthand is noted on stderr.
    pub fn resolve(&self) -> Result<Resolved, String> {
        let m = self.machine_spec().one_line()?;
        if cosched_machine::presets::looks_like_path(&self.machine) {
            for note in m.notes() {
                eprintln!("note: {}: {note}", self.machine);
            }
        }
        Ok(Resolved { machine: m, workload: self.workload_spec().one_line()?, spec: self.0.clone() })
    }
}
