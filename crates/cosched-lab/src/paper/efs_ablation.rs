//! EFS's ablations: the same EFS (trigger,
//! seeds, workloads) with one mechanism changed at a time, every arm paired
//! by seed against the paper's EFS: what admission reads (the collision model,
//! the capacity rule without it, oracle inputs, the oracle outcome), §4.3's
//! starvation freedom switched off, and the scheduler's own decision cost
//! charged (measured on this machine; EFS §5.3 attributes the extra energy of
//! its unaffected benchmarks to "the added complexity of our new scheduler").

use super::efs_bench::{pct, speedup_pct, unfairness, Pair};
use super::Trial;
use crate::error::RunError;
use crate::failure::StudyError;
use crate::report::Sink;
use crate::table::{Cell, Table};
use cosched_machine::MachineSpec;
use cosched_policies::{Admission, EfsParams, PolicyOptions};
use cosched_sim::engine::SimOptions;
use cosched_sim::WorkloadSpec;
use rayon::prelude::*;

/// Mean decision time of one scheduling event, µs, of CFS and of EFS,
/// measured by `cosched paper efs` on this project's 2-vCPU KVM guest
/// (2026-11-24, three runs: CFS 0.07 µs in all three, EFS 1.06-1.07 µs; its
/// "Decision time" table, printed without `--no-timing`: the mean over the
/// Fig. 8 benchmarks at seed 1). The overhead arms charge
/// these constants, not a fresh measurement, so that the recorded results
/// stay byte-identical; the timing table shows a rerun's own values beside.
pub const MEASURED_DECISION_US: [(&str, f64); 2] = [("cfs", 0.07), ("efs", 1.07)];

/// The measured decision time of `policy` (µs), 0 for one not measured.
fn measured_us(policy: &str) -> f64 {
    MEASURED_DECISION_US.iter().find(|(p, _)| *p == policy).map_or(0.0, |x| x.1)
}

/// One arm: EFS's parameters changed by `efs`, and each policy charged
/// `cost_scale` × its measured decision time at every thread start.
struct Arm {
    label: &'static str,
    efs: fn(&mut EfsParams),
    cost_scale: f64,
}

const ARMS: [Arm; 7] = [
    Arm { label: "model (the paper's EFS)", efs: |_| {}, cost_scale: 0.0 },
    Arm {
        label: "capacity rule 1 - sum b (no collision model)",
        efs: |p| p.admission = Admission::Capacity,
        cost_scale: 0.0,
    },
    Arm { label: "no starvation freedom (§4.3 off)", efs: |p| p.starvation = false, cost_scale: 0.0 },
    Arm {
        label: "oracle solo bandwidths into the model (oracle)",
        efs: |p| p.admission = Admission::OracleSolo,
        cost_scale: 0.0,
    },
    Arm { label: "oracle outcome (oracle)", efs: |p| p.admission = Admission::Oracle, cost_scale: 0.0 },
    Arm { label: "measured decision cost charged (CFS and EFS)", efs: |_| {}, cost_scale: 1.0 },
    Arm { label: "10x the measured decision cost charged", efs: |_| {}, cost_scale: 10.0 },
];

/// The workloads of the ablation: one item per (workload, trial) with the
/// trial's CFS/EFS pair, Fig. 8's `n8` benchmark items first, then Fig. 10's
/// mixes; `unaffected` marks the Fig. 8 items whose benchmark the paper's EFS
/// leaves within ±3% of CFS's system energy (the paper's "unaffected").
pub struct Items<'a> {
    /// (workload, trial, the paper's EFS and CFS under that trial).
    pub runs: Vec<(WorkloadSpec, Trial, &'a Pair)>,
    /// Items of Fig. 8 (the rest are Fig. 10's).
    pub n8: usize,
    /// Per item: an unaffected Fig. 8 benchmark.
    pub unaffected: Vec<bool>,
}

/// (system energy saving %, speedup %) of EFS over CFS, and EFS's
/// unfairness (longest / shortest turnaround of the workload's jobs).
fn outcome(cfs: &cosched_sim::RunOutput, efs: &cosched_sim::RunOutput) -> (f64, f64, f64) {
    (pct(efs.energy.system, cfs.energy.system), speedup_pct(cfs, efs), unfairness(efs))
}

/// Run every arm on every item; print the arms' outcomes and their paired
/// differences from the paper's EFS; write `ablation-admission.csv` and
/// `ablation-paired.csv`.
pub fn run(m: &MachineSpec, mu: f64, it: &Items, nt: usize, out: &mut dyn Sink) -> Result<(), RunError> {
    let runs: Vec<Vec<(f64, f64, f64)>> = ARMS
        .iter()
        .enumerate()
        .map(|(a, arm)| {
            it.runs
                .par_iter()
                .map(|(w, t, base)| {
                    if a == 0 {
                        return Ok(outcome(&base.cfs, &base.efs));
                    }
                    let mt = t.machine(m);
                    let plan = t.plan(w, &mt)?;
                    let mut o = PolicyOptions::default();
                    o.efs.mu = Some(mu);
                    (arm.efs)(&mut o.efs);
                    let sim = |p: &str| SimOptions {
                        decision_cost_ns: (arm.cost_scale * measured_us(p) * 1000.0).round() as u64,
                        ..SimOptions::default()
                    };
                    let efs = t.run_sim(&mt, &plan, "efs", &o, &sim("efs"))?;
                    let cfs = if arm.cost_scale == 0.0 {
                        None
                    } else {
                        Some(t.run_sim(&mt, &plan, "cfs", &PolicyOptions::default(), &sim("cfs"))?)
                    };
                    Ok(outcome(cfs.as_ref().unwrap_or(&base.cfs), &efs))
                })
                .collect::<Result<Vec<_>, RunError>>()
        })
        .collect::<Result<_, _>>()?;
    // Per trial, the mean over the selected items of f(arm's outcome at that item).
    let avg = |keep: &dyn Fn(usize) -> bool, f: &dyn Fn(usize) -> f64| -> Vec<f64> {
        (0..nt)
            .map(|k| {
                let xs: Vec<f64> = (0..it.runs.len()).filter(|&j| j % nt == k && keep(j)).map(f).collect();
                xs.iter().sum::<f64>() / xs.len().max(1) as f64
            })
            .collect()
    };
    let fig8 = |j: usize| j < it.n8;
    let fig10 = |j: usize| j >= it.n8;
    let unaffected = |j: usize| it.unaffected[j];
    let mut ab = Table::new(&[
        "EFS arm",
        "Fig. 8 system energy saving %",
        "Fig. 8 speedup %",
        "unaffected Fig. 8 benchmarks: system energy saving %",
        "Fig. 10 system energy saving %",
        "Fig. 10 speedup %",
        "Fig. 10 unfairness of EFS",
    ]);
    let mut paired = Table::new(&[
        "EFS arm minus the paper's EFS",
        "Fig. 8 saving, points",
        "Fig. 8 speedup, points",
        "Fig. 10 saving, points",
        "Fig. 10 speedup, points",
        "Fig. 10 unfairness",
    ]);
    let d = |xs: Vec<f64>| Cell::diff(&xs, 1);
    for (a, (arm, r)) in ARMS.iter().zip(&runs).enumerate() {
        ab.push(vec![
            arm.label.into(),
            d(avg(&fig8, &|j| r[j].0)),
            d(avg(&fig8, &|j| r[j].1)),
            d(avg(&unaffected, &|j| r[j].0)),
            d(avg(&fig10, &|j| r[j].0)),
            d(avg(&fig10, &|j| r[j].1)),
            Cell::value(&avg(&fig10, &|j| r[j].2), 2),
        ]);
        if a == 0 {
            continue;
        }
        let base = &runs[0];
        let p = |keep: &dyn Fn(usize) -> bool, f: fn(&(f64, f64, f64)) -> f64| {
            Cell::diff(&avg(keep, &|j| f(&r[j]) - f(&base[j])), 2)
        };
        paired.push(vec![
            arm.label.into(),
            p(&fig8, |x| x.0),
            p(&fig8, |x| x.1),
            p(&fig10, |x| x.0),
            p(&fig10, |x| x.1),
            p(&fig10, |x| x.2),
        ]);
    }
    out.heading("## Ablations: one EFS mechanism changed at a time (same trigger and seeds; savings and speedups against CFS)\n".to_string());
    out.line(format!("`capacity rule` keeps the counter-based predictor and admits a thread whose solo utilisation fits 1 - Σ b of the running threads (additive bandwidths: no collision model, no power); `no starvation freedom` never forces a starved thread in (§4.3 off); `oracle solo bandwidths` replaces the predictor (Eqs. 18-20, 9) by each thread's true solo demand and keeps the collision model (Eqs. 10, 16); `oracle outcome` replaces both by the simulator's answer: run the thread if the true co-schedule costs no more energy per unit of work (Eq. 15) than leaving the core idle (both read ground truth: oracles). The cost arms charge CFS and EFS their measured mean decision time ({} µs and {} µs) as a stall at every thread start, both measured on this machine (CFS's runs are charged too, so the comparison stays like for like). `unaffected`: the Fig. 8 benchmarks the paper's EFS leaves within ±3% of CFS's system energy; unfairness: longest / shortest turnaround of a mix's jobs, averaged over the mixes.\n", measured_us("cfs"), measured_us("efs")));
    out.table(ab, "ablation-admission.csv");
    out.heading("## Ablations paired by seed against the paper's EFS (points of saving or speedup; an interval holding 0: no difference)\n".to_string());
    out.table(paired, "ablation-paired.csv");
    Ok(())
}

/// The decision-time table (wall clock, so left out by `--no-timing`): mean,
/// p50 and p99 of one scheduling event of CFS and EFS, each the mean over
/// `workloads` run once under `t`, beside the constants the cost arms charge.
pub fn decision_times(
    m: &MachineSpec,
    mu: f64,
    workloads: &[WorkloadSpec],
    t: &Trial,
    out: &mut dyn Sink,
) -> Result<(), RunError> {
    let mut tab = Table::new(&["policy", "decision mean µs", "p50 µs", "p99 µs", "charged by the cost arms µs"]);
    for p in ["cfs", "efs"] {
        let per: Vec<(f64, f64, f64)> = workloads
            .par_iter()
            .map(|w| {
                let mt = t.machine(m);
                let mut o = PolicyOptions::default();
                o.efs.mu = Some(mu);
                let r =
                    t.run_sim(&mt, &t.plan(w, &mt)?, p, &o, &SimOptions { timing: true, ..SimOptions::default() })?;
                let (p50, p99) = r.decision_us.ok_or(RunError::Study(StudyError::NoDecisionTimed))?;
                Ok((r.decision_mean_us.unwrap_or(0.0), p50, p99))
            })
            .collect::<Result<_, RunError>>()?;
        let mean = |f: fn(&(f64, f64, f64)) -> f64| per.iter().map(f).sum::<f64>() / per.len().max(1) as f64;
        tab.push(vec![
            p.into(),
            format!("{:.2}", mean(|x| x.0)).into(),
            format!("{:.2}", mean(|x| x.1)).into(),
            format!("{:.2}", mean(|x| x.2)).into(),
            format!("{}", measured_us(p)).into(),
        ]);
    }
    out.heading(format!(
        "## Decision time per scheduling event (wall clock, this machine; mean over the Fig. 8 benchmarks, seed {})\n",
        t.seed
    ));
    out.table(tab, "decision-time.csv");
    Ok(())
}
