//! The papers' evaluations rerun on the simulator: each study takes its
//! options and writes its report (our figures beside the paper's) into a
//! [`Sink`]; the faces print it and write its CSV files.

pub mod efs;
pub mod efs_ablation;
pub mod efs_bench;
pub mod efs_figs;
pub mod evt;
pub mod optimum;
pub mod perf_fair;
pub mod perf_fair_length;
pub mod perf_fair_mixes;
pub mod quintet;
pub mod rda;
pub mod rda_growth;
pub mod rda_profiled;
pub mod rda_runs;
pub mod slits;

use crate::error::RunError;
use cosched_machine::MachineSpec;
use cosched_policies::{self as policies, PolicyOptions};
use cosched_sim::engine::{self, RunOutput, SimOptions};
use cosched_sim::{presets, Plan, WorkloadSpec};
use rayon::prelude::*;

/// A workload of preset jobs, `(preset, instances)` each.
pub fn mix(name: &str, jobs: &[(&str, u32)]) -> Result<WorkloadSpec, RunError> {
    let mut s = format!("name = \"{name}\"\ndescription = \"{name}\"\n");
    for (p, n) in jobs {
        s += &format!("[[job]]\npreset = \"{p}\"\ninstances = {n}\n");
    }
    Ok(presets::workload_from_toml(name, &s)?)
}

/// The seeds and run-to-run variation of a paper rerun.
#[derive(Clone, Copy, Debug)]
pub struct Seeds {
    /// Repetitions, each a run of the machine with its own run-to-run variation; tables give mean ±95% interval.
    pub seeds: u64,
    /// Run-to-run variation of the ground truth (docs/model.md; 0 = exact model, then seeds differ only in policy randomness).
    pub noise: f64,
}

impl Default for Seeds {
    fn default() -> Seeds {
        Seeds { seeds: 5, noise: 1.0 }
    }
}

impl Seeds {
    /// Refuse zero or too many seeds and a bad noise.
    pub fn check(&self) -> Result<(), RunError> {
        crate::limits::SEEDS.check(self.seeds)?;
        cosched_sim::variation::check_noise(self.noise).map_err(|e| RunError::knob("noise", e.to_string()))
    }

    /// A rerun's title: `# PAPER on `MACHINE` (simulated; N seeds …)` and its blank line.
    pub fn title(&self, paper: &str, machine: &str) -> String {
        format!(
            "# {paper} on `{machine}` (simulated; {} seeds with run-to-run variation {}, mean ±95% interval: simulation precision)\n",
            self.seeds, self.noise
        )
    }

    /// The trials, seeds 1..=N.
    pub fn trials(&self) -> Vec<Trial> {
        (1..=self.seeds).map(|seed| Trial { seed, noise: self.noise }).collect()
    }
}

/// One repetition of an experiment: the machine and the workloads as the run
/// seeded `seed` finds them, and runs under that seed.
#[derive(Clone, Copy, Debug)]
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
    pub fn plan(&self, w: &WorkloadSpec, m: &MachineSpec) -> Result<Plan, RunError> {
        self.plan_threads(w, m, None)
    }

    /// As [`Trial::plan`], with the thread count of multi-threaded jobs overridden.
    pub fn plan_threads(&self, w: &WorkloadSpec, m: &MachineSpec, threads: Option<u32>) -> Result<Plan, RunError> {
        Ok(Plan::varied(w, m, threads, self.seed, &w.name, self.noise)?)
    }

    /// One run of `policy` under this seed (EFS reads the power table from the machine view).
    pub fn run(&self, m: &MachineSpec, plan: &Plan, policy: &str, opts: &PolicyOptions) -> Result<RunOutput, RunError> {
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
    ) -> Result<RunOutput, RunError> {
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
    ) -> Result<RunOutput, RunError> {
        let sim = SimOptions { seed: self.seed, ..sim.clone() };
        Ok(engine::run(m, plan, policy, &sim, None)?)
    }
}

/// Where the paper reruns report how many of their runs are done (the
/// command line: stderr), what they are running, since when, and when the
/// last line went; nobody by default.
static PROGRESS: std::sync::Mutex<Option<Watcher>> = std::sync::Mutex::new(None);

struct Watcher {
    to: cosched_core::progress::Reporter,
    label: String,
    start: std::time::Instant,
    last_s: f64,
}

/// Report the reruns' progress to `to` (a line at most every few seconds).
pub fn report_progress_to(to: cosched_core::progress::Reporter) {
    if let Ok(mut p) = PROGRESS.lock() {
        *p = Some(Watcher { to, label: "runs".into(), start: std::time::Instant::now(), last_s: 0.0 });
    }
}

/// Name what the next runs are (`quintet, SLITS study`), for the progress lines.
pub fn progress_label(label: impl Into<String>) {
    if let Ok(mut p) = PROGRESS.lock() {
        if let Some(w) = p.as_mut() {
            w.label = label.into();
        }
    }
}

/// Seconds between two progress lines.
const PROGRESS_EVERY_S: f64 = 5.0;

/// `f` of every (item, trial), in parallel; result\[i\]\[k\] is item i under trial k.
/// Reports how many are done ([`report_progress_to`]) every few seconds.
pub fn over_trials<I: Sync, R: Send>(
    items: &[I],
    trials: &[Trial],
    f: impl Fn(&I, &Trial) -> Result<R, RunError> + Sync,
) -> Result<Vec<Vec<R>>, RunError> {
    let total = items.len() * trials.len();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let flat: Vec<R> = (0..total)
        .into_par_iter()
        .map(|k| {
            let r = f(&items[k / trials.len()], &trials[k % trials.len()]);
            let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            if let Ok(mut p) = PROGRESS.lock() {
                if let Some(w) = p.as_mut() {
                    let now = w.start.elapsed().as_secs_f64();
                    if now - w.last_s >= PROGRESS_EVERY_S {
                        w.last_s = now;
                        w.to.line(|| format!("{}: {n}/{total} runs ({now:.1} s)", w.label));
                    }
                }
            }
            r
        })
        .collect::<Result<_, RunError>>()?;
    let mut it = flat.into_iter();
    Ok(items.iter().map(|_| it.by_ref().take(trials.len()).collect()).collect())
}

/// One run of `policy`, seed 1, no timing.
pub fn run_one(m: &MachineSpec, plan: &Plan, policy: &str, opts: &PolicyOptions) -> Result<RunOutput, RunError> {
    Ok(engine::run(m, plan, &mut *policies::make(policy, opts)?, &SimOptions::default(), None)?)
}

/// A machine preset or file.
pub fn machine(arg: &str) -> Result<MachineSpec, RunError> {
    Ok(cosched_machine::presets::machine(arg)?)
}
