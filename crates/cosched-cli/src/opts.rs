//! Options shared by the subcommands that run simulations (one flattened
//! struct, so flag names never drift between subcommands).

use crate::error::RunError;
use crate::policy_knobs::SimKnobs;
use clap::{Args as ClapArgs, ValueEnum};
use cosched_core::policies::PolicyOptions;
use cosched_machine::MachineSpec;
use cosched_sim::engine::SimOptions;
use cosched_sim::{presets, Plan, WorkloadSpec};

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

/// Machine, workload and engine options.
#[derive(ClapArgs, Clone, Debug)]
pub struct RunOpts {
    /// Machine preset name or TOML file (`cosched list machines`).
    #[arg(long, short = 'm', default_value = "xeon-e5645")]
    pub machine: String,
    /// Workload preset name or TOML file (`cosched list workloads`).
    #[arg(long, short = 'w', default_value = "spec-mix24")]
    pub workload: String,
    /// Thread count of the workload's multi-threaded jobs (refused when it has none: see --copies).
    #[arg(long)]
    pub threads: Option<u32>,
    /// Run N copies of every job of the workload (multiprogrammed copies, e.g. EFS's 4× one benchmark).
    #[arg(long)]
    pub copies: Option<u32>,
    /// Every policy's knobs, as the policies declare them (`cosched list policies --format json`).
    #[command(flatten)]
    pub knobs: SimKnobs,
    /// Cost of each pp_begin / pp_end call charged to the calling thread, µs (default: measured on
    /// cosched's real runtime by scripts/bench-pp, `cosched_core::rda::MEASURED_PP_CALL_US`).
    #[arg(long, default_value_t = cosched_core::rda::MEASURED_PP_CALL_US)]
    pub pp_cost_us: f64,
    /// Scheduler overhead charged at every thread start, µs: the context stalls this long (active,
    /// drawing power) before the thread runs (default 0: decisions are free; `cosched paper efs`
    /// measures each policy's mean decision time and charges it in its overhead ablation).
    #[arg(long, default_value_t = 0.0)]
    pub decision_cost_us: f64,
    /// Relative noise on the counters policies read (0 = exact).
    #[arg(long, default_value_t = 0.0)]
    pub counter_noise: f64,
    /// Run-to-run variation of the ground truth, in units of the published magnitudes (1: each
    /// seed draws its own machine and program speeds, as repeated real runs differ; 0: the exact
    /// model). See docs/model.md, "Run-to-run variation".
    #[arg(long, default_value_t = 1.0)]
    pub noise: f64,
    /// Do not measure the policies' decision time (wall clock); outputs are
    /// then byte-identical for identical inputs and seeds.
    #[arg(long)]
    pub no_timing: bool,
    /// Abort a run whose simulated time passes this many seconds.
    #[arg(long, default_value_t = 3600.0)]
    pub max_sim_time_s: f64,
    /// Abort a run after this many engine events (stops a runaway input: a vanishing quantum, billions
    /// of iterations); the default, 10⁸, is over 1,000× what the presets' runs take.
    #[arg(long, default_value_t = cosched_sim::engine::DEFAULT_MAX_EVENTS)]
    pub max_events: u64,
    /// The machine's TOML text when it is given in memory (Python's
    /// `cosched.Machine`); `machine` then only names it in messages.
    #[arg(skip)]
    pub machine_toml: Option<String>,
    /// The workload's TOML text when it is given in memory (Python's `cosched.Workload`).
    #[arg(skip)]
    pub workload_toml: Option<String>,
    /// Print progress lines on stderr during runs longer than a few seconds (`cosched simulate`).
    #[arg(skip)]
    pub progress: bool,
    /// Set from outside to stop every run of these options (Python's Ctrl-C).
    #[arg(skip)]
    pub cancel: cosched_sim::engine::Cancel,
}

impl RunOpts {
    /// The machine; a machine file's shorthand is noted on stderr.
    pub fn machine(&self) -> Result<MachineSpec, String> {
        let m = self.machine_spec()?;
        if cosched_machine::presets::looks_like_path(&self.machine) {
            for note in m.notes() {
                eprintln!("note: {}: {note}", self.machine);
            }
        }
        Ok(m)
    }

    /// The machine: the in-memory TOML when given, else the preset or file `machine` names.
    pub fn machine_spec(&self) -> Result<MachineSpec, RunError> {
        Ok(match &self.machine_toml {
            Some(src) => MachineSpec::from_toml(&self.machine, src)?,
            None => cosched_machine::presets::machine(&self.machine)?,
        })
    }

    /// The workload, with `--copies` applied (`--threads` is checked by `Plan::new`).
    pub fn workload(&self) -> Result<WorkloadSpec, String> {
        Ok(self.workload_spec()?)
    }

    /// [`RunOpts::workload`] with the stage that refused it.
    pub fn workload_spec(&self) -> Result<WorkloadSpec, RunError> {
        let mut w = match &self.workload_toml {
            Some(src) => presets::workload_from_toml(&self.workload, src)?,
            None => presets::workload(&self.workload)?,
        };
        if let Some(n) = self.copies {
            if n == 0 || n > 4096 {
                return Err(RunError::Option(format!("--copies: must be from 1 to 4096, got {n}")));
            }
            for j in &mut w.jobs {
                j.instances *= n;
            }
        }
        Ok(w)
    }

    /// The machine and the planned workload as the run seeded `seed` finds them (`--noise`).
    pub fn plan(&self, m: &MachineSpec, w: &WorkloadSpec, seed: u64) -> Result<(MachineSpec, Plan), RunError> {
        // A bad --noise is the option's fault, not the workload's.
        cosched_sim::variation::check_noise(self.noise).map_err(|e| RunError::Option(format!("--noise: {e}")))?;
        let plan = Plan::varied(w, m, self.threads, seed, &self.workload, self.noise)?;
        Ok((cosched_sim::variation::machine(m, self.noise, seed), plan))
    }

    /// The options `policy` is built from, seeded `seed`; a knob given that
    /// none of `among` (the policies run with these options, `policy` among
    /// them) reads is refused, one that only some read is noted.
    pub fn policy_opts(&self, among: &[&str], seed: u64) -> Result<(PolicyOptions, Vec<String>), String> {
        self.knobs.options(among, seed)
    }

    /// The engine's options for `seed`.
    pub fn sim_opts(&self, seed: u64) -> Result<SimOptions, String> {
        if !(0.0..=0.5).contains(&self.counter_noise) {
            return Err(format!(
                "--counter-noise: must be in [0, 0.5], got {}",
                cosched_core::num::shortest(self.counter_noise)
            ));
        }
        if !(self.pp_cost_us >= 0.0 && self.pp_cost_us.is_finite()) {
            return Err(format!("--pp-cost-us: must be ≥ 0, got {}", cosched_core::num::shortest(self.pp_cost_us)));
        }
        if !(self.decision_cost_us >= 0.0 && self.decision_cost_us <= 1e6) {
            return Err(format!(
                "--decision-cost-us: must be from 0 to 1000000, got {}",
                cosched_core::num::shortest(self.decision_cost_us)
            ));
        }
        if !(self.max_sim_time_s.is_finite() && self.max_sim_time_s > 0.0) {
            return Err(format!(
                "--max-sim-time-s: must be a positive number, got {}",
                cosched_core::num::shortest(self.max_sim_time_s)
            ));
        }
        if self.max_events == 0 {
            return Err("--max-events: must be at least 1".into());
        }
        Ok(SimOptions {
            seed,
            counter_noise: self.counter_noise,
            timing: !self.no_timing,
            pp_cost_ns: (self.pp_cost_us * 1000.0).round() as u64,
            decision_cost_ns: (self.decision_cost_us * 1000.0).round() as u64,
            max_time_s: self.max_sim_time_s,
            max_events: self.max_events,
            progress: self.progress,
            cancel: self.cancel.clone(),
        })
    }
}
