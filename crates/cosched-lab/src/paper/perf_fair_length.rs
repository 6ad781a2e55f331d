//! `cosched paper perf-fair`'s job-length study: Perf&Fair on the default
//! comparison's mix (`spec-mix24`) with every job stretched from its preset
//! length (a few seconds alone) to the paper's 100 s (Perf&Fair §2, §6), and
//! the two Linux-model mechanisms added since (the scheduler tick and the
//! balancer's rotation, docs/model.md) taken out at preset length: which of the
//! three moves Perf&Fair's unfairness against CFS's.

use super::{over_trials, Seeds, Trial};
use crate::ablation::ablate;
use crate::compare::stretched;
use crate::error::RunError;
use crate::report::Sink;
use crate::table::{Cell as TCell, Table};
use cosched_machine::MachineSpec;
use cosched_policies::{self as policies, PolicyOptions};
use cosched_sim::engine::{self, SimOptions};
use cosched_sim::experiment::solo_times;
use cosched_sim::{presets, WorkloadSpec};

/// The mix of `cosched compare`'s default run.
pub const MIX: &str = "spec-mix24";
/// Seconds alone every job is stretched to, beside the preset's own length (the last is the paper's).
pub const LENGTHS_S: [f64; 4] = [10.0, 25.0, 50.0, 100.0];
/// The quanta arm divides Perf&Fair's quanta by this: 20 puts the preset's 4-7 s jobs at the
/// paper's count of quanta (100 s of 200-ms quanta), 10-ms quanta and 5-ms estimation quanta.
pub const QUANTA_DIV: u64 = 20;
/// The schedulers of the study: the baseline first, then the Perf&Fair family.
const SCHEDULERS: [&str; 4] = ["cfs", "perf-fair", "perf", "fair"];

/// One arm: a label, the machine and the mix it runs.
struct Arm {
    label: String,
    machine: MachineSpec,
    mix: WorkloadSpec,
    /// Perf&Fair's quanta (performance-and-fairness and estimation) divided by this.
    quanta_div: u64,
}

/// One run: its unfairness, makespan and the jobs' solo seconds.
struct Cell {
    unfairness: f64,
    makespan: f64,
    solo: Vec<f64>,
}

/// Run the study on `m` and write its section and `job-length.csv`.
pub fn run(m: &MachineSpec, seeds: &Seeds, out: &mut dyn Sink) -> Result<(), RunError> {
    let mix = presets::workload(MIX).map_err(RunError::from)?;
    let arm = |label: String, machine: MachineSpec, mix: WorkloadSpec| Arm { label, machine, mix, quanta_div: 1 };
    let mut arms = vec![arm("preset length".into(), m.clone(), mix.clone())];
    for (name, what) in
        [("scheduler-tick", "without the scheduler tick"), ("balance-rotation", "without the balance rotation")]
    {
        let mut mm = m.clone();
        ablate(&mut mm, name)?;
        arms.push(arm(format!("preset length {what}"), mm, mix.clone()));
    }
    for s in LENGTHS_S {
        arms.push(arm(format!("{s:.0} s alone"), m.clone(), stretched(m, &mix, s)?));
    }
    // The same jobs as long as the paper's in quanta: the quanta shortened instead of the jobs
    // stretched, which credits the jobs' length counted in quanta, not in seconds.
    arms.push(Arm { quanta_div: QUANTA_DIV, ..arm(format!("preset length, quanta ÷ {QUANTA_DIV}"), m.clone(), mix) });
    let trials = seeds.trials();
    let tasks: Vec<(usize, usize)> = (0..arms.len()).flat_map(|a| (0..SCHEDULERS.len()).map(move |s| (a, s))).collect();
    let cells = over_trials(&tasks, &trials, |&(a, s), t: &Trial| {
        let arm = &arms[a];
        let mm = t.machine(&arm.machine);
        let plan = t.plan(&arm.mix, &mm)?;
        let solo = solo_times(&mm, &plan, &SimOptions { seed: t.seed, ..SimOptions::default() })?;
        let mut o = PolicyOptions { seed: t.seed, ..Default::default() };
        o.perf_fair.quantum /= arm.quanta_div;
        o.perf_fair.estimation_quantum /= arm.quanta_div;
        let sim = SimOptions { seed: t.seed, counter_noise: 0.01, ..SimOptions::default() };
        let r = engine::run(&mm, &plan, &mut *policies::make(SCHEDULERS[s], &o)?, &sim, None)?;
        // Max slowdown over min slowdown of the run's jobs (Perf&Fair §7).
        let slow: Vec<f64> = r.job_finish.iter().zip(&solo).map(|(&f, s)| f as f64 * 1e-9 / s).collect();
        let unfairness = cosched_core::metrics::unfairness(&slow);
        Ok(Cell { unfairness, makespan: r.makespan as f64 * 1e-9, solo })
    })?;
    let cell = |a: usize, s: usize| &cells[a * SCHEDULERS.len() + s];
    let default_quantum_s = PolicyOptions::default().perf_fair.quantum as f64 * 1e-9;
    let mut t = Table::new(&[
        "jobs",
        "shortest s alone",
        "longest s alone",
        "fewest quanta",
        "most quanta",
        "cfs unfairness",
        "perf-fair unfairness",
        "perf unfairness",
        "fair unfairness",
        "perf-fair − cfs",
        "resolved",
        "perf-fair speedup over cfs %",
    ]);
    for (a, arm) in arms.iter().enumerate() {
        let solo: Vec<f64> = cell(a, 0).iter().flat_map(|c| c.solo.iter().copied()).collect();
        let (lo, hi) = (solo.iter().copied().fold(f64::MAX, f64::min), solo.iter().copied().fold(0.0, f64::max));
        let unf = |s: usize| cell(a, s).iter().map(|c| c.unfairness).collect::<Vec<_>>();
        let quantum_s = default_quantum_s / arm.quanta_div as f64;
        let d: Vec<f64> = unf(1).iter().zip(unf(0)).map(|(p, c)| p - c).collect();
        let spd: Vec<f64> =
            cell(a, 0).iter().zip(cell(a, 1)).map(|(c, p)| (c.makespan / p.makespan - 1.0) * 100.0).collect();
        t.push(vec![
            arm.label.clone().into(),
            format!("{lo:.1}").into(),
            format!("{hi:.1}").into(),
            format!("{:.0}", lo / quantum_s).into(),
            format!("{:.0}", hi / quantum_s).into(),
            TCell::value(&unf(0), 3),
            TCell::value(&unf(1), 3),
            TCell::value(&unf(2), 3),
            TCell::value(&unf(3), 3),
            TCell::diff(&d, 3),
            TCell::resolve(&d),
            TCell::diff(&spd, 1),
        ]);
    }
    out.heading(format!(
        "## Job length: `{MIX}` (the default `cosched compare` mix) from its preset length to the paper's 100 s alone\n"
    ));
    out.line(format!(
        "Each job of `{MIX}` stretched to the given seconds alone (its phases repeated, as the 13 mixes are built), and at \
         preset length the scheduler tick (`costs.scheduler_tick_ms = 0`) and the balancer's rotation \
         (`costs.balance_rotation = false`) taken out of the machine, or Perf&Fair's quanta divided by {QUANTA_DIV} \
         instead of the jobs stretched: unfairness (the largest slowdown over the smallest), perf-fair minus cfs paired \
         by seed, same seeds and counter noise as the mixes above; `quanta` counts Perf&Fair's quanta (200 ms, or \
         200 / {QUANTA_DIV} ms) in a job's solo time.\n"
    ));
    out.table(t, "job-length.csv");
    Ok(())
}
