//! Options shared by the subcommands that run simulations (one flattened
//! struct, so flag names never drift between subcommands).

use crate::error::RunError;
use clap::{Args as ClapArgs, ValueEnum};
use cosched_core::efs::{Newton, Objective, Thresholds};
use cosched_core::ids::{CtxId, MICRO, MILLI};
use cosched_core::learn::FmParams;
use cosched_core::policies::{
    Admission, EfsParams, Pairing, PerfFairParams, PolicyOptions, Scope, SlitsParams, Trigger,
};
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

/// EFS objectives (Eq. 15).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EfsObjective {
    /// Energy per work (Eq. 14).
    Energy,
    /// Energy-delay per work.
    EnergyDelay,
}

/// What EFS's admission reads (issue #13's ablation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EfsAdmission {
    /// The paper: predicted solo bandwidths into the collision model.
    Model,
    /// Oracle: true solo bandwidths into the collision model.
    OracleSolo,
    /// Oracle: the true outcome of each co-schedule.
    Oracle,
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
    /// Time quantum of the round-robin policies, ms.
    #[arg(long, default_value_t = 4.0)]
    pub quantum_ms: f64,
    /// Interval between work-stealing attempts (wss), µs.
    #[arg(long, default_value_t = 500.0)]
    pub steal_interval_us: f64,
    /// Thread → context assignment for `static`: comma-separated context ids
    /// (thread 0 first) or a file holding them.
    #[arg(long)]
    pub assignment: Option<String>,
    /// EFS: predictor window t0 (Eq. 20), ms.
    #[arg(long, default_value_t = 1.0)]
    pub efs_window_ms: f64,
    /// EFS: local starvation constant c_l (Eq. 22).
    #[arg(long, default_value_t = 20.0)]
    pub efs_c_local: f64,
    /// EFS: global starvation constant c_g (Eq. 23).
    #[arg(long, default_value_t = 5.0)]
    pub efs_c_global: f64,
    /// EFS: Newton iterations for Eq. 10 (the paper: 4; 0 = iterate to convergence).
    #[arg(long, default_value_t = 4)]
    pub efs_newton_iters: usize,
    /// EFS: objective of Eq. 15.
    #[arg(long, value_enum, default_value = "energy")]
    pub efs_objective: EfsObjective,
    /// EFS: memory-bus rate μ in million accesses per second (default: the machine's sustained maximum).
    #[arg(long)]
    pub efs_mu_m: Option<f64>,
    /// EFS: what admission reads; `oracle-solo` and `oracle` read the simulator's ground truth (ablation).
    #[arg(long, value_enum, default_value = "model")]
    pub efs_admission: EfsAdmission,
    /// Perf&Fair family: performance-and-fairness quantum, ms.
    #[arg(long, default_value_t = 200.0)]
    pub pf_quantum_ms: f64,
    /// Perf&Fair family: IPC-estimation quantum, ms.
    #[arg(long, default_value_t = 100.0)]
    pub pf_estimation_quantum_ms: f64,
    /// Perf&Fair family: quanta an IPC-alone estimate stays valid.
    #[arg(long, default_value_t = 40)]
    pub pf_validity: u32,
    /// Perf&Fair family: LLC transactions/µs above which a process is heavy-sharing.
    #[arg(long, default_value_t = 19.0)]
    pub pf_llc_threshold: f64,
    /// Perf&Fair family: memory transactions/µs above which a process is heavy-sharing.
    #[arg(long, default_value_t = 3.5)]
    pub pf_mm_threshold: f64,
    /// SLITS: share of picks made with the factorization machine, % (the rest round-robin).
    #[arg(long, default_value_t = 100.0)]
    pub slits_coverage: f64,
    /// SLITS: how a waiting thread is chosen: fm (the paper), round-robin (the paper's "without FM"),
    /// random, or oracle (ground-truth co-run contention; an oracle, simulator only).
    #[arg(long, default_value = "fm")]
    pub slits_pairing: String,
    /// SLITS: rank every waiting thread (one global queue) instead of the threads assigned to the idle core (§4.3.1 step ①).
    #[arg(long)]
    pub slits_global_queue: bool,
    /// SLITS: periodic rescheduling every this many ms instead of Lazy Reschedule (0 = lazy).
    #[arg(long, default_value_t = 0.0)]
    pub slits_period_ms: f64,
    /// SLITS: FM latent dimension k.
    #[arg(long, default_value_t = 8)]
    pub slits_k: usize,
    /// SLITS: FM learning rate.
    #[arg(long, default_value_t = 0.02)]
    pub slits_learning_rate: f64,
    /// SLITS: FM L2 regularisation of the factors.
    #[arg(long, default_value_t = 0.005)]
    pub slits_reg: f64,
    /// RDA Compromise: oversubscription factor x (capacity may be exceeded up to x times).
    #[arg(long, default_value_t = 2.0)]
    pub rda_factor: f64,
    /// RDA: multiply every declared demand by this (sensitivity to wrong declarations; 1 = as declared).
    #[arg(long, default_value_t = 1.0)]
    pub rda_declare_scale: f64,
    /// Cost of each pp_begin / pp_end call charged to the calling thread, µs (default: measured on
    /// cosched's real runtime by scripts/bench-pp, `cosched_core::rda::MEASURED_PP_CALL_US`).
    #[arg(long, default_value_t = cosched_core::rda::MEASURED_PP_CALL_US)]
    pub pp_cost_us: f64,
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

    /// `--assignment` is read by `static` only: refuse it when none of
    /// `policies` would read it, rather than ignore it.
    pub fn check_assignment_used(&self, policies: &[String]) -> Result<(), String> {
        if self.assignment.is_some() && !policies.iter().any(|p| p == "static") {
            return Err(format!(
                "--assignment: only policy `static` reads it, and {} would ignore it",
                policies.iter().map(|p| format!("`{p}`")).collect::<Vec<_>>().join(", ")
            ));
        }
        Ok(())
    }

    /// The machine and the planned workload as the run seeded `seed` finds them (`--noise`).
    pub fn plan(&self, m: &MachineSpec, w: &WorkloadSpec, seed: u64) -> Result<(MachineSpec, Plan), RunError> {
        // A bad --noise is the option's fault, not the workload's.
        cosched_sim::variation::check_noise(self.noise).map_err(|e| RunError::Option(format!("--noise: {e}")))?;
        let plan = Plan::varied(w, m, self.threads, seed, &self.workload, self.noise)?;
        Ok((cosched_sim::variation::machine(m, self.noise, seed), plan))
    }

    pub fn policy_opts(&self, m: &MachineSpec, seed: u64) -> Result<PolicyOptions, String> {
        for (name, v) in [
            ("--quantum-ms", self.quantum_ms),
            ("--steal-interval-us", self.steal_interval_us),
            ("--efs-window-ms", self.efs_window_ms),
            ("--efs-c-local", self.efs_c_local),
            ("--efs-c-global", self.efs_c_global),
            ("--efs-mu-m", self.efs_mu_m.unwrap_or(1.0)),
            ("--pf-quantum-ms", self.pf_quantum_ms),
            ("--pf-estimation-quantum-ms", self.pf_estimation_quantum_ms),
            ("--pf-validity", self.pf_validity as f64),
            ("--pf-llc-threshold", self.pf_llc_threshold),
            ("--pf-mm-threshold", self.pf_mm_threshold),
            ("--slits-k", self.slits_k as f64),
            ("--slits-learning-rate", self.slits_learning_rate),
            ("--rda-factor", self.rda_factor),
            ("--rda-declare-scale", self.rda_declare_scale),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return Err(format!("{name}: must be a positive number, got {}", cosched_core::num::shortest(v)));
            }
        }
        for (flag, ms) in [
            ("--quantum-ms", self.quantum_ms),
            ("--steal-interval-us", self.steal_interval_us / 1000.0),
            ("--efs-window-ms", self.efs_window_ms),
            ("--pf-quantum-ms", self.pf_quantum_ms),
            ("--pf-estimation-quantum-ms", self.pf_estimation_quantum_ms),
        ] {
            crate::limits::check_time_ms(flag, ms)?;
        }
        if self.slits_period_ms > 0.0 {
            crate::limits::check_time_ms("--slits-period-ms", self.slits_period_ms)?;
        }
        crate::limits::EFS_NEWTON_ITERS.check(self.efs_newton_iters as u64)?;
        crate::limits::SLITS_K.check(self.slits_k as u64)?;
        Ok(PolicyOptions {
            seed,
            quantum: (self.quantum_ms * MILLI as f64).round() as u64,
            steal_interval: (self.steal_interval_us * MICRO as f64).round() as u64,
            assignment: self.assignment.as_deref().map(parse_assignment).transpose()?,
            efs: EfsParams {
                window: (self.efs_window_ms * MILLI as f64).round() as u64,
                thresholds: Thresholds { c_local: self.efs_c_local, c_global: self.efs_c_global },
                newton: match self.efs_newton_iters {
                    0 => Newton::CONVERGED,
                    n => Newton { max_iters: n, ..Newton::PAPER },
                },
                objective: match self.efs_objective {
                    EfsObjective::Energy => Objective::Energy,
                    EfsObjective::EnergyDelay => Objective::EnergyDelay,
                },
                power: Some(m.power_table()),
                mu: self.efs_mu_m.map(|x| x * 1e6),
                admission: match self.efs_admission {
                    EfsAdmission::Model => Admission::Model,
                    EfsAdmission::OracleSolo => Admission::OracleSolo,
                    EfsAdmission::Oracle => Admission::Oracle,
                },
            },
            perf_fair: PerfFairParams {
                quantum: (self.pf_quantum_ms * MILLI as f64).round() as u64,
                estimation_quantum: (self.pf_estimation_quantum_ms * MILLI as f64).round() as u64,
                validity: self.pf_validity,
                llc_threshold: self.pf_llc_threshold,
                mm_threshold: self.pf_mm_threshold,
            },
            rda_factor: self.rda_factor,
            rda_declare_scale: self.rda_declare_scale,
            slits: {
                if !(0.0..=100.0).contains(&self.slits_coverage) {
                    return Err(format!(
                        "--slits-coverage: must be in [0, 100], got {}",
                        cosched_core::num::shortest(self.slits_coverage)
                    ));
                }
                if !(self.slits_period_ms >= 0.0 && self.slits_reg >= 0.0) {
                    return Err("--slits-period-ms and --slits-reg: must be ≥ 0".into());
                }
                SlitsParams {
                    trigger: if self.slits_period_ms > 0.0 {
                        Trigger::Periodic((self.slits_period_ms * MILLI as f64).round() as u64)
                    } else {
                        Trigger::Lazy
                    },
                    coverage: self.slits_coverage / 100.0,
                    pairing: Pairing::parse(&self.slits_pairing).map_err(|e| format!("--slits-pairing: {e}"))?,
                    scope: if self.slits_global_queue { Scope::Global } else { Scope::PerCore },
                    fm: FmParams {
                        k: self.slits_k,
                        learning_rate: self.slits_learning_rate,
                        reg_v: self.slits_reg,
                        ..FmParams::default()
                    },
                    ..SlitsParams::default()
                }
            },
        })
    }

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
            max_time_s: self.max_sim_time_s,
            max_events: self.max_events,
            progress: self.progress,
        })
    }
}

fn parse_assignment(arg: &str) -> Result<Vec<CtxId>, String> {
    let (file, text) = if arg.contains(',') || arg.parse::<u32>().is_ok() {
        ("--assignment".to_string(), arg.to_string())
    } else {
        (arg.to_string(), crate::input::read_text(arg)?)
    };
    text.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty())
        .enumerate()
        .map(|(i, s)| s.parse::<u32>().map(CtxId).map_err(|_| format!("{file}: thread {i}: `{s}` is not a context id")))
        .collect()
}
