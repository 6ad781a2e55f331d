//! `cosched validate`: every calibration and check point of every machine
//! preset (`[[check]]` in `data/machines/*.toml`) — the published figure, the
//! simulated value, the error, the tolerance, the source and whether the point
//! was fitted or held out — as a table or JSON; exit 1 when a point leaves its
//! tolerance (issue #12 item 7; docs/model.md, "Why trust the simulator").
//!
//! Points run on the exact model (`--noise 0`): a calibration point compares
//! the model with a published mean, not one noisy run with it.

use crate::opts::Format;
use crate::output::table;
use crate::paper::efs::{fig4_point, measure_mu, secs, serial_run, synthetic};
use crate::paper::run_one;
use crate::paper::Trial;
use clap::Args as ClapArgs;
use cosched_core::policies::PolicyOptions;
use cosched_machine::check::{Bound, CheckKind, CheckPoint};
use cosched_machine::MachineSpec;
use cosched_sim::assignment::{measure, random_assignment};
use cosched_sim::{presets, Plan};
use rayon::prelude::*;
use serde::Serialize;

#[derive(ClapArgs)]
pub struct Args {
    /// Machine presets or files to validate (default: every preset).
    machines: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
}

/// One point's outcome.
#[derive(Serialize)]
struct Outcome {
    machine: String,
    name: String,
    kind: CheckKind,
    published: f64,
    simulated: f64,
    /// `simulated / published − 1`.
    error: f64,
    tolerance: f64,
    bound: Option<Bound>,
    fitted: bool,
    source: String,
    /// `pass`, `FAIL`, or `known gap`.
    status: String,
    known_gap: Option<String>,
    /// What the model lacks, for a known gap.
    missing_mechanism: Option<String>,
    /// The values the simulated one is the largest of (`assignment_spread`: each workload).
    detail: Option<String>,
}

/// The simulated value of point `k` on machine `m`, with the parts it is
/// the largest of where it is one (each workload's spread).
fn simulate_point(m: &MachineSpec, k: &CheckPoint) -> Result<(f64, Option<String>), String> {
    let cores = m.n_contexts() as u32;
    match k.kind {
        CheckKind::BusRate => Ok((measure_mu(m, cores)? / 1e6, None)),
        CheckKind::EfsModelFit => {
            let n = k.copies.unwrap_or(cores);
            let errs: Vec<f64> = (1..=9)
                .into_par_iter()
                .map(|i| {
                    fig4_point(m, i as f64 / 10.0, n, &EXACT).map(|(model, sim)| 100.0 * (model / sim - 1.0).abs())
                })
                .collect::<Result<_, String>>()?;
            Ok((errs.into_iter().fold(0.0, f64::max), None))
        }
        CheckKind::ParallelOverSerial => {
            let n = k.copies.unwrap_or(cores);
            let w = synthetic(0.97, n, 2.5e9)?;
            let serial = serial_run(m, &w, n, &EXACT)?;
            let p = Plan::new(&w, m, None, 1, "syn").map_err(|e| e.to_string())?;
            let par = run_one(m, &p, "cfs", &PolicyOptions::default())?;
            Ok((secs(par.makespan) / secs(serial.makespan), None))
        }
        CheckKind::ThroughputRatio => {
            let name = k.workload.as_deref().expect("validated");
            let rate = |copies: u32| -> Result<f64, String> {
                let mut w = presets::workload(name).map_err(|e| e.to_string())?;
                for j in &mut w.jobs {
                    j.instances = copies;
                }
                let p = Plan::new(&w, m, None, 1, name).map_err(|e| e.to_string())?;
                let r = run_one(m, &p, "cfs", &PolicyOptions::default())?;
                Ok(r.totals.instructions / secs(r.makespan))
            };
            Ok((rate(k.copies.expect("validated"))? / rate(k.base_copies.expect("validated"))?, None))
        }
        CheckKind::LinuxUnfairness => Ok((linux_unfairness(m)?, None)),
        CheckKind::AssignmentSpread => {
            let mut parts = vec![];
            for name in k.workloads.as_deref().expect("validated") {
                parts.push((name, assignment_spread(m, name, k.samples.unwrap_or(1000))?));
            }
            let widest = parts.iter().map(|p| p.1).fold(0.0, f64::max);
            let each = parts.iter().map(|(n, v)| format!("{n} {v:.3}")).collect::<Vec<_>>().join(", ");
            Ok((widest, Some(format!("per workload: {each}"))))
        }
    }
}

/// Perf&Fair Fig. 1's Linux: geometric mean over the study's mixes of
/// max/min slowdown − 1 under `cfs` (exact model, seed 1).
fn linux_unfairness(m: &MachineSpec) -> Result<f64, String> {
    use crate::paper::perf_fair::{mixes, parse_range, PAPER_BW_RANGE, PAPER_MIXES, PAPER_SOLO_S};
    let mixes = mixes(m, PAPER_MIXES, parse_range(PAPER_BW_RANGE)?, PAPER_SOLO_S)?;
    let logs: Vec<f64> = mixes
        .par_iter()
        .map(|(_, w, _)| {
            let p = Plan::new(w, m, None, 1, &w.name).map_err(|e| e.to_string())?;
            let solo = cosched_sim::experiment::solo_times(m, &p, &cosched_sim::SimOptions::default())?;
            let out = run_one(m, &p, "cfs", &PolicyOptions::default())?;
            let finish: Vec<f64> = out.job_finish.iter().map(|&f| secs(f)).collect();
            Ok(crate::paper::perf_fair::unfairness(&finish, &solo).ln())
        })
        .collect::<Result<_, String>>()?;
    Ok((logs.iter().sum::<f64>() / logs.len() as f64).exp() - 1.0)
}

/// Best over worst performance, less 1, among `samples` uniformly random
/// assignments of workload `name` (seeded, exact model).
fn assignment_spread(m: &MachineSpec, name: &str, samples: u32) -> Result<f64, String> {
    use rand::SeedableRng;
    let w = presets::workload(name).map_err(|e| e.to_string())?;
    let plan = Plan::new(&w, m, None, 1, name).map_err(|e| e.to_string())?;
    let topo = m.topology();
    if plan.threads.len() > topo.n_contexts() {
        return Err(format!(
            "{name}: {} threads on {} contexts: an assignment needs one context per thread",
            plan.threads.len(),
            topo.n_contexts()
        ));
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let all: Vec<_> = (0..samples).map(|_| random_assignment(&topo, plan.threads.len(), &mut rng)).collect();
    let perf: Vec<f64> = all.par_iter().map(|a| measure(m, &plan, a)).collect::<Result<_, _>>()?;
    let (lo, hi) = perf.iter().fold((f64::MAX, f64::MIN), |(lo, hi), &p| (lo.min(p), hi.max(p)));
    Ok(hi / lo - 1.0)
}

/// Points run on the exact model: one run, no run-to-run variation.
const EXACT: Trial = Trial { seed: 1, noise: 0.0 };

fn judge(m: &MachineSpec, k: &CheckPoint, (simulated, detail): (f64, Option<String>)) -> Outcome {
    let error = simulated / k.published - 1.0;
    let ok = error.abs() <= k.tolerance || (k.bound == Some(Bound::Upper) && simulated <= k.published);
    let status = match (ok, &k.known_gap) {
        (true, _) => "pass",
        (false, Some(_)) => "known gap",
        (false, None) => "FAIL",
    };
    Outcome {
        machine: m.name.clone(),
        name: k.name.clone(),
        kind: k.kind,
        published: k.published,
        simulated,
        error,
        tolerance: k.tolerance,
        bound: k.bound,
        fitted: k.fitted,
        source: k.source.clone(),
        status: status.into(),
        known_gap: if ok { None } else { k.known_gap.clone() },
        missing_mechanism: if ok { None } else { k.missing_mechanism.clone() },
        detail,
    }
}

pub fn run(a: Args) -> Result<(), crate::Failure> {
    let names: Vec<String> = if a.machines.is_empty() {
        cosched_machine::presets::machine_names().map(|s| s.to_string()).collect()
    } else {
        a.machines.clone()
    };
    let machines: Vec<MachineSpec> = names
        .iter()
        .map(|n| cosched_machine::presets::machine(n).map_err(|e| e.to_string()))
        .collect::<Result<_, String>>()?;
    let jobs: Vec<(&MachineSpec, &CheckPoint)> =
        machines.iter().flat_map(|m| m.checks.iter().map(move |k| (m, k))).collect();
    let outcomes: Vec<Outcome> =
        jobs.par_iter().map(|&(m, k)| simulate_point(m, k).map(|v| judge(m, k, v))).collect::<Result<_, String>>()?;
    match a.format {
        Format::Json => {
            // The points, then one entry per machine without any (status `no points`).
            let mut all: Vec<serde_json::Value> = outcomes
                .iter()
                .map(|o| serde_json::to_value(o).map_err(|e| e.to_string()))
                .collect::<Result<_, _>>()?;
            all.extend(
                machines
                    .iter()
                    .filter(|m| m.checks.is_empty())
                    .map(|m| serde_json::json!({ "machine": m.name, "status": "no points" })),
            );
            println!("{}", serde_json::to_string_pretty(&all).map_err(|e| e.to_string())?);
        }
        _ => {
            let mut rows = vec![["machine", "point", "published", "simulated", "error", "tolerance", "use", "status"]
                .map(String::from)
                .to_vec()];
            for o in &outcomes {
                rows.push(vec![
                    o.machine.clone(),
                    o.name.clone(),
                    format!("{:.4}", o.published),
                    format!("{:.4}", o.simulated),
                    format!("{:+.1}%", 100.0 * o.error),
                    format!("{}{:.0}%", if o.bound.is_some() { "≤ or ±" } else { "±" }, 100.0 * o.tolerance),
                    if o.fitted { "fitted" } else { "held out" }.into(),
                    o.status.clone(),
                ]);
            }
            table(&rows);
            println!();
            for (i, o) in outcomes.iter().enumerate() {
                println!("[{}] {}: {}", i + 1, o.name, o.source);
                if let Some(d) = &o.detail {
                    println!("    simulated {d}");
                }
                if let Some(g) = &o.known_gap {
                    println!("    known gap: {g}");
                }
                if let Some(g) = &o.missing_mechanism {
                    println!("    missing mechanism: {g}");
                }
            }
            for m in machines.iter().filter(|m| m.checks.is_empty()) {
                println!(
                    "{}: no points (nothing published about this machine is checked; its figures are not validated)",
                    m.name
                );
            }
            let count = |s: &str| outcomes.iter().filter(|o| o.status == s).count();
            let held = outcomes.iter().filter(|o| !o.fitted).count();
            println!(
                "\n{} points on {} of {} machines ({} fitted, {held} held out): {} pass, {} known gap, {} FAIL",
                outcomes.len(),
                machines.iter().filter(|m| !m.checks.is_empty()).count(),
                machines.len(),
                outcomes.len() - held,
                count("pass"),
                count("known gap"),
                count("FAIL")
            );
        }
    }
    let failed: Vec<&Outcome> = outcomes.iter().filter(|o| o.status == "FAIL").collect();
    if failed.is_empty() {
        Ok(())
    } else {
        Err(crate::Failure::check(format!(
            "{} point(s) out of tolerance: {}",
            failed.len(),
            failed.iter().map(|o| format!("{} / {}", o.machine, o.name)).collect::<Vec<_>>().join("; ")
        )))
    }
}
