//! RDA with declarations a profiler would produce, beside
//! the oracle-grade ones (Table 2's working sets, which also set the
//! simulated programs' ground truth).
//!
//! Each declared period of each RDA workload is profiled as RDA §2.4
//! profiles a program: our profiler (`rda::profile::windows`, lines touched
//! at least twice per window, averaged over the windows) reads the period's
//! LLC access stream, drawn from the simulator's own miss-rate curve for it
//! (`cosched_sim::model::trace`: the curve read as LRU stack distances). The
//! paper chose its window by hand per program (§2.4: "by manually
//! experimenting with different granularities of window sizes"); we report
//! two windows, the profiler's default 100,000 accesses and 1,000,000, and
//! run Strict and Compromise with each set of declarations, paired by seed
//! against the same policies with Table 2's.

use super::rda_runs::{against, go_with};
use super::{over_trials, Trial};
use crate::error::RunError;
use crate::failure::StudyError;
use crate::report::Sink;
use crate::table::{Cell, Table};
use cosched_core::policy::Resource;
use cosched_machine::MachineSpec;
use cosched_policies::rda::profile::{level, windows, ProfileParams};
use cosched_policies::PolicyOptions;
use cosched_sim::model::trace::llc_access_trace;
use cosched_sim::spec::workload::PhaseSpec;
use cosched_sim::RunOutput;
use cosched_sim::{presets, Plan, WorkloadSpec};
use rayon::prelude::*;

/// Profiler windows, in LLC accesses.
const WINDOWS: [usize; 2] = [100_000, 1_000_000];
/// Windows of stream profiled per period (after a warm-up of the same length
/// plus twice the period's footprint, so the stream starts in steady state).
const PROFILED_WINDOWS: usize = 4;

/// The declaration our profiler gives a period with `mrc` at `window`:
/// (working set MiB, reuse ratio).
fn profile(mrc: &cosched_sim::model::MissRateCurve, window: usize, seed: u64) -> (f64, f64) {
    let footprint_lines = (mrc.footprint_mb * 1024.0 * 1024.0 / 64.0) as usize;
    let n = PROFILED_WINDOWS * window;
    let trace = llc_access_trace(mrc, window + 2 * footprint_lines, n, 0, seed);
    let p = ProfileParams { window, min_touches: 2, ..ProfileParams::default() };
    let ws = windows(trace, &p);
    let k = ws.len().max(1) as f64;
    (ws.iter().map(|w| w.wss).sum::<f64>() / k / (1024.0 * 1024.0), ws.iter().map(|w| w.reuse).sum::<f64>() / k)
}

/// The phases of `w` in the order the plan derives their models.
fn phases_mut(w: &mut WorkloadSpec) -> Vec<&mut PhaseSpec> {
    let mut out = vec![];
    for job in &mut w.jobs {
        if job.classes.is_empty() {
            out.extend(job.phases.iter_mut());
        } else {
            for c in &mut job.classes {
                out.extend(c.phases.iter_mut());
            }
        }
    }
    out
}

/// `w` with every LLC declaration replaced by the profiler's at `window`, and
/// one row per declared phase: (phase, Table 2 MiB, Table 2 reuse, profiled MiB, profiled reuse).
fn profiled(w: &WorkloadSpec, m: &MachineSpec, window: usize) -> Result<(WorkloadSpec, Vec<[String; 5]>), RunError> {
    let plan = Plan::new(w, m, None, 1, &w.name).map_err(RunError::from)?;
    let mut out = w.clone();
    let found: Vec<(usize, (f64, f64))> = plan
        .models
        .par_iter()
        .enumerate()
        .filter(|(i, _)| plan.steps[*i].pp.is_some_and(|d| d.resource == Resource::Llc))
        .map(|(i, model)| (i, profile(&model.mrc, window, i as u64 + 1)))
        .collect();
    let mut rows = vec![];
    let mut ph = phases_mut(&mut out);
    if ph.len() != plan.models.len() {
        return Err(RunError::Study(StudyError::PhaseModels {
            workload: w.name.clone(),
            phases: ph.len(),
            models: plan.models.len(),
        }));
    }
    for (i, (mb, reuse)) in found {
        let Some(pp) = ph[i].pp.as_mut() else { continue };
        let lv = level(reuse);
        rows.push([
            plan.steps[i].name.clone(),
            format!("{:.2}", pp.amount),
            format!("{:?}", pp.reuse).to_lowercase(),
            format!("{mb:.2}"),
            format!("{lv:?} ({reuse:.1})").to_lowercase(),
        ]);
        pp.amount = mb.max(1e-3);
        pp.reuse = lv;
    }
    Ok((out, rows))
}

/// The profiled declarations of `workloads` and Strict/Compromise with them;
/// `base(w, p, k)` is workload w under POLICIES\[p\] (0 = CFS) with Table 2's
/// declarations at trial k.
pub fn run_profiled<'a>(
    m: &MachineSpec,
    workloads: &[&str],
    policies_: &[&str],
    trials: &[Trial],
    base: &dyn Fn(usize, usize, usize) -> &'a RunOutput,
    out: &mut dyn Sink,
) -> Result<(), RunError> {
    let mut specs = vec![];
    let mut decl = Table::new(&[
        "workload",
        "period",
        "Table 2 MiB",
        "Table 2 reuse",
        "profiled MiB (window 100,000)",
        "profiled reuse",
        "profiled MiB (window 1,000,000)",
        "profiled reuse (1,000,000)",
    ]);
    for w in workloads {
        let spec = presets::workload(w).map_err(RunError::from)?;
        let mut per_window = vec![];
        for &win in &WINDOWS {
            per_window.push(profiled(&spec, m, win)?);
        }
        for (r0, r1) in per_window[0].1.iter().zip(&per_window[1].1) {
            decl.push(
                [w.to_string(), r0[0].clone(), r0[1].clone(), r0[2].clone(), r0[3].clone(), r0[4].clone()]
                    .into_iter()
                    .chain([r1[3].clone(), r1[4].clone()])
                    .map(Cell::from)
                    .collect(),
            );
        }
        specs.push(per_window.into_iter().map(|x| x.0).collect::<Vec<_>>());
    }
    out.heading("## Declarations a profiler would produce: our §2.4 profiler on each period's LLC access stream, drawn from the simulator's miss-rate curve for it\n".to_string());
    out.line("Table 2's declarations are oracle-grade here (they set the ground truth). Reuse: accesses per distinct line per window (low < 2, medium < 8, high ≥ 8).\n".to_string());
    out.table(decl, "profiled-declarations.csv");
    let items: Vec<(usize, usize, usize)> = (1..policies_.len())
        .flat_map(|p| (0..WINDOWS.len()).flat_map(move |v| (0..workloads.len()).map(move |w| (p, v, w))))
        .collect();
    let res = over_trials(&items, trials, |&(p, v, w), t| {
        go_with(m, &specs[w][v], policies_[p], PolicyOptions::default(), 0, t)
    })?;
    let nw = workloads.len();
    let nt = trials.len();
    let mean_over = |f: &dyn Fn(usize, usize) -> f64| -> Vec<f64> {
        (0..nt).map(|k| (0..nw).map(|w| f(w, k)).sum::<f64>() / nw as f64).collect()
    };
    let mut t = Table::new(&[
        "policy",
        "declarations",
        "mean speedup vs CFS %",
        "mean system energy saved %",
        "speedup minus Table 2's (paired, points)",
        "energy saved minus Table 2's (paired, points)",
    ]);
    for (p, name) in policies_.iter().enumerate().skip(1) {
        let table2 = |w: usize, k: usize| against(base(w, p, k), base(w, 0, k));
        t.push(vec![
            (*name).into(),
            "Table 2 (oracle-grade)".into(),
            Cell::diff(&mean_over(&|w, k| table2(w, k).0), 1),
            Cell::diff(&mean_over(&|w, k| table2(w, k).1), 1),
            "".into(),
            "".into(),
        ]);
        for (v, win) in WINDOWS.iter().enumerate() {
            let i = items.iter().position(|&x| x == (p, v, 0)).expect("listed");
            let prof = |w: usize, k: usize| against(&res[i + w][k], base(w, 0, k));
            t.push(vec![
                (*name).into(),
                format!("profiled, window {win}").into(),
                Cell::diff(&mean_over(&|w, k| prof(w, k).0), 1),
                Cell::diff(&mean_over(&|w, k| prof(w, k).1), 1),
                Cell::diff(&mean_over(&|w, k| prof(w, k).0 - table2(w, k).0), 1),
                Cell::diff(&mean_over(&|w, k| prof(w, k).1 - table2(w, k).1), 1),
            ]);
        }
    }
    out.heading(String::from(
        "## Strict and Compromise with profiled declarations (same seeds; means over the 8 workloads; against CFS)\n",
    ));
    out.table(t, "profiled-runs.csv");
    Ok(())
}
