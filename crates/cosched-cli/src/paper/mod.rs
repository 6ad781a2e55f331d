//! `cosched paper NAME`: rerun a paper's evaluation on the simulator and print
//! our figures beside the paper's (markdown on stdout, CSVs with `--out`).

pub(crate) mod efs;
mod efs_ablation;
mod efs_figs;
mod evt;
mod optimum;
pub(crate) mod perf_fair;
mod quintet;
mod rda;
mod rda_growth;
mod rda_profiled;
mod slits;

use clap::{Args as ClapArgs, Subcommand};
use cosched_core::policies::{self, PolicyOptions};
use cosched_lab::table::{Step, Table};
use cosched_machine::MachineSpec;
use cosched_sim::engine::{run, RunOutput, SimOptions};
use cosched_sim::{presets, Plan, WorkloadSpec};
use rayon::prelude::*;

#[derive(ClapArgs)]
pub struct Args {
    #[command(subcommand)]
    paper: Paper,
}

#[derive(Subcommand)]
enum Paper {
    /// EFS (Energy-Friendly Scheduler): Table 1, Figs. 4, 8, 9, 10 on `i5-2500`.
    Efs(efs::Args),
    /// Perf&Fair: Figs. 1-3 (unfairness, speedup over Linux, completion curve) on `xeon-e5645`.
    PerfFair(perf_fair::Args),
    /// SLITS: Figs. 1, 3-8, FM accuracy on simulator TIMs, decision time, on `xeon-x5550-16c`.
    Slits(slits::Args),
    /// Statistical thread assignment: POT estimates, sample size, SP-POT, random sampling on `ultrasparc-t2`.
    Evt(evt::Args),
    /// RDA: energy and performance of Strict and Compromise on the Table 2 workloads, and the overhead study, on `xeon-e5-2420`.
    Rda(rda::Args),
    /// How far from the best: the exact optimum of static co-schedules beside pairwise matching, the EVT estimate and every policy.
    Optimum(optimum::Args),
    /// The combined policy `quintet` on each paper's workloads and objective, against the paper's policy and CFS, with ablations.
    Quintet(quintet::Args),
}

pub fn run_cmd(a: Args) -> Result<(), String> {
    let name = match &a.paper {
        Paper::Efs(_) => "efs",
        Paper::PerfFair(_) => "perf-fair",
        Paper::Slits(_) => "slits",
        Paper::Evt(_) => "evt",
        Paper::Rda(_) => "rda",
        Paper::Optimum(_) => "optimum",
        Paper::Quintet(_) => "quintet",
    };
    crate::progress::begin(format!("paper {name}"));
    match a.paper {
        Paper::Efs(a) => efs::run(a),
        Paper::PerfFair(a) => perf_fair::run_cmd(a),
        Paper::Slits(a) => slits::run_cmd(a),
        Paper::Evt(a) => evt::run_cmd(a),
        Paper::Rda(a) => rda::run_cmd(a),
        Paper::Optimum(a) => optimum::run_cmd(a),
        Paper::Quintet(a) => quintet::run_cmd(a),
    }
}

/// Printing and writing a study's tables (the lab's [`Table`] is data).
pub trait Emit {
    /// Print as markdown and write `name` into `dir` as CSV.
    fn emit(&self, dir: &Option<String>, name: &str) -> Result<(), String>;
}

impl Emit for Table {
    fn emit(&self, dir: &Option<String>, name: &str) -> Result<(), String> {
        markdown(&self.markdown_rows());
        write_csv(dir, name, &self.csv_rows())
    }
}

/// Print each step (heading, paragraphs, table) and write its table's CSV into `dir`.
pub fn emit_steps(steps: &[Step], dir: &Option<String>) -> Result<(), String> {
    for s in steps {
        crate::heading!("## {}\n", s.name);
        for t in &s.text {
            println!("{t}\n");
        }
        s.table.emit(dir, s.csv)?;
    }
    Ok(())
}

/// A workload of preset jobs, `(preset, instances)` each.
pub fn mix(name: &str, jobs: &[(&str, u32)]) -> Result<WorkloadSpec, String> {
    let mut s = format!("name = \"{name}\"\ndescription = \"{name}\"\n");
    for (p, n) in jobs {
        s += &format!("[[job]]\npreset = \"{p}\"\ninstances = {n}\n");
    }
    presets::workload_from_toml(name, &s).map_err(|e| e.to_string())
}

/// `--no-timing` of every paper rerun: leave out wall-clock
/// timings, so that identical inputs give byte-identical output and
/// `scripts/check-results` can compare a rerun with docs/results. Only `paper
/// slits` prints a timing (its decision-time table); the others take the flag
/// so that one command line fits all five.
#[derive(ClapArgs, Clone, Copy, Default)]
pub struct Timing {
    /// Leave out wall-clock timings (only `paper slits` has any: its decision-time table), so that identical inputs give byte-identical output.
    #[arg(long)]
    pub no_timing: bool,
}

/// `--seeds` and `--noise` of a paper rerun.
#[derive(ClapArgs, Clone, Copy)]
pub struct SeedArgs {
    /// Repetitions, each a run of the machine with its own run-to-run variation; tables give mean ±95% interval.
    #[arg(long, default_value_t = 5)]
    pub seeds: u64,
    /// Run-to-run variation of the ground truth (docs/model.md; 0 = exact model, then seeds differ only in policy randomness).
    #[arg(long, default_value_t = 1.0)]
    pub noise: f64,
}

impl SeedArgs {
    /// Refuse `--seeds 0` and a bad `--noise`.
    pub fn check(&self) -> Result<(), String> {
        crate::limits::SEEDS.check(self.seeds)?;
        cosched_sim::variation::check_noise(self.noise).map_err(|e| format!("--noise: {e}"))
    }

    /// The trials, seeds 1..=N.
    pub fn trials(&self) -> Vec<Trial> {
        (1..=self.seeds).map(|seed| Trial { seed, noise: self.noise }).collect()
    }
}

/// One repetition of an experiment: the machine and the workloads as the run
/// seeded `seed` finds them, and runs under that seed.
#[derive(Clone, Copy)]
pub struct Trial {
    /// Seed of the run (variation, policy randomness, counter noise).
    pub seed: u64,
    /// Run-to-run variation.
    pub noise: f64,
}

impl Trial {
    /// The machine this run finds (sustained bus bandwidth varied).
    pub fn machine(&self, m: &MachineSpec) -> MachineSpec {
        cosched_sim::variation::machine(m, self.noise, self.seed)
    }

    /// `w` laid out on `m` with this run's variation.
    pub fn plan(&self, w: &WorkloadSpec, m: &MachineSpec) -> Result<Plan, String> {
        self.plan_threads(w, m, None)
    }

    /// As [`Trial::plan`], with the thread count of multi-threaded jobs overridden.
    pub fn plan_threads(&self, w: &WorkloadSpec, m: &MachineSpec, threads: Option<u32>) -> Result<Plan, String> {
        Plan::varied(w, m, threads, self.seed, &w.name, self.noise).map_err(|e| e.to_string())
    }

    /// One run of `policy` under this seed (EFS reads the power table from the machine view).
    pub fn run(&self, m: &MachineSpec, plan: &Plan, policy: &str, opts: &PolicyOptions) -> Result<RunOutput, String> {
        self.run_sim(m, plan, policy, opts, &SimOptions::default())
    }

    /// As [`Trial::run`] with these engine options (their seed is replaced by the trial's).
    pub fn run_sim(
        &self,
        m: &MachineSpec,
        plan: &Plan,
        policy: &str,
        opts: &PolicyOptions,
        sim: &SimOptions,
    ) -> Result<RunOutput, String> {
        let mut o = opts.clone();
        o.seed = self.seed;
        self.run_policy(m, plan, &mut *policies::make(policy, &o)?, sim)
    }

    /// A policy built by the caller (its state readable afterwards), run under this seed.
    pub fn run_policy(
        &self,
        m: &MachineSpec,
        plan: &Plan,
        policy: &mut dyn cosched_core::policy::Policy,
        sim: &SimOptions,
    ) -> Result<RunOutput, String> {
        let sim = SimOptions { seed: self.seed, ..sim.clone() };
        run(m, plan, policy, &sim, None).map_err(String::from)
    }
}

/// `f` of every (item, trial), in parallel; result\[i\]\[k\] is item i under trial k.
pub fn over_trials<I: Sync, R: Send>(
    items: &[I],
    trials: &[Trial],
    f: impl Fn(&I, &Trial) -> Result<R, String> + Sync,
) -> Result<Vec<Vec<R>>, String> {
    let flat: Vec<R> = (0..items.len() * trials.len())
        .into_par_iter()
        .map(|k| f(&items[k / trials.len()], &trials[k % trials.len()]))
        .collect::<Result<_, String>>()?;
    let mut it = flat.into_iter();
    Ok(items.iter().map(|_| it.by_ref().take(trials.len()).collect()).collect())
}

/// One run of `policy`, seed 1, no timing.
pub fn run_one(m: &MachineSpec, plan: &Plan, policy: &str, opts: &PolicyOptions) -> Result<RunOutput, String> {
    run(m, plan, &mut *policies::make(policy, opts)?, &SimOptions::default(), None).map_err(String::from)
}

/// Write `rows` (first row the header) as CSV into `dir/name` (fields with commas or quotes quoted, RFC 4180).
pub fn write_csv(dir: &Option<String>, name: &str, rows: &[Vec<String>]) -> Result<(), String> {
    let Some(d) = dir else { return Ok(()) };
    std::fs::create_dir_all(d).map_err(|e| format!("{d}: {e}"))?;
    let path = format!("{d}/{name}");
    let field = |f: &String| {
        if f.contains([',', '"', '\n']) {
            format!("\"{}\"", f.replace('"', "\"\""))
        } else {
            f.clone()
        }
    };
    let text: String = rows.iter().map(|r| r.iter().map(field).collect::<Vec<_>>().join(",") + "\n").collect();
    std::fs::write(&path, text).map_err(|e| format!("{path}: {e}"))
}

/// Print rows as a markdown table.
pub fn markdown(rows: &[Vec<String>]) {
    for (i, r) in rows.iter().enumerate() {
        println!("| {} |", r.join(" | "));
        if i == 0 {
            println!("|{}", "---|".repeat(r.len()));
        }
    }
    println!();
}
