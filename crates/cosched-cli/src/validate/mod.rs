//! `cosched validate`: every calibration and check point of every machine
//! preset (`[[check]]` in `data/machines/*.toml`) — the published figure, the
//! simulated value, the error, the tolerance, the source and whether the point
//! was fitted or held out — as a table or JSON; exit 1 when a point leaves its
//! tolerance (docs/model.md, "Why trust the simulator").
//!
//! Points run on the exact model (`--noise 0`): a calibration point compares
//! the model with a published mean, not one noisy run with it.

mod measure;
mod sample;

use crate::opts::Format;
use crate::output::table;
use clap::Args as ClapArgs;
use cosched_machine::check::{Bound, CheckKind, CheckPoint};
use cosched_machine::MachineSpec;
use measure::simulate_point;
use rayon::prelude::*;
use serde::Serialize;

#[derive(ClapArgs)]
pub struct Args {
    /// Machine presets or files to validate (default: every preset).
    machines: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
    /// Print the Markdown table docs/model.md carries (between its
    /// `validate:begin` and `validate:end` markers) instead.
    #[arg(long)]
    doc: bool,
}

/// The Markdown table of `outcomes` that docs/model.md carries, so the
/// docs quote a rerun (a test compares the two).
pub fn doc_table(outcomes: &[serde_json::Value]) -> String {
    let mut out =
        String::from("| machine | point | published | simulated | use | status |\n|---|---|---|---|---|---|\n");
    for o in outcomes {
        let status = match o["missing_mechanism"].as_str() {
            Some(m) if o["status"] == "known gap" => format!("known gap; missing: {m}"),
            _ => o["status"].as_str().unwrap_or("").to_string(),
        };
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            o["machine"].as_str().unwrap_or(""),
            o["name"].as_str().unwrap_or("").replace('|', "/"),
            short(o["published"].as_f64().unwrap_or(f64::NAN)),
            short(o["simulated"].as_f64().unwrap_or(f64::NAN)),
            if o["fitted"] == true { "fitted" } else { "held out" },
            status.replace('|', "/"),
        ));
    }
    out
}

/// Four significant digits, no trailing zeros.
fn short(v: f64) -> String {
    let digits = (3 - v.abs().max(1e-12).log10().floor() as i32).clamp(0, 8) as usize;
    let s = format!("{v:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
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

fn judge(m: &MachineSpec, k: &CheckPoint, (simulated, detail): (f64, Option<String>)) -> Outcome {
    let error = simulated / k.published - 1.0;
    let ok = error.abs() <= k.tolerance
        || match k.bound {
            Some(Bound::Upper) => simulated <= k.published,
            Some(Bound::Lower) => simulated >= k.published,
            None => false,
        };
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
    let bar = crate::progress::Progress::new("validate", "check points");
    bar.add(jobs.len() as u64);
    let outcomes: Vec<Outcome> = jobs
        .par_iter()
        .map(|&(m, k)| {
            let o = simulate_point(m, k).map(|v| judge(m, k, v));
            bar.tick();
            o
        })
        .collect::<Result<_, String>>()?;
    bar.finish();
    if a.doc {
        let all: Vec<serde_json::Value> =
            outcomes.iter().map(|o| serde_json::to_value(o).map_err(|e| e.to_string())).collect::<Result<_, _>>()?;
        print!("{}", doc_table(&all));
        return Ok(());
    }
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
                    format!(
                        "{}{:.0}%",
                        match o.bound {
                            Some(Bound::Upper) => "≤ or ±",
                            Some(Bound::Lower) => "≥ or ±",
                            None => "±",
                        },
                        100.0 * o.tolerance
                    ),
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
