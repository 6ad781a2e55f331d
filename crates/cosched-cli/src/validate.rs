//! `cosched validate`: every calibration and check point of every machine
//! preset (`[[check]]` in `data/machines/*.toml`) — the published figure, the
//! simulated value, the error, the tolerance, the source and whether the point
//! was fitted or held out — as a table or JSON; exit 1 when a point leaves its
//! tolerance (docs/model.md, "Why trust the simulator").
//!
//! Points run on the exact model (`--noise 0`): a calibration point compares
//! the model with a published mean, not one noisy run with it.

use crate::opts::Format;
use crate::output::table;
use crate::OneLine;
use clap::Args as ClapArgs;
use cosched_lab::validate::{doc_table, points, registered_line, tally_line, validate, Outcome};
use cosched_machine::check::Bound;
use cosched_machine::{MachineSpec, Origin};

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
    /// Take one mechanism out of every machine and validate what is left
    /// (`tenants`, `conserve-capacity`, `refill-by-access`, `scheduler-tick`): its effect on
    /// each point is the difference from a run without it.
    #[arg(long, value_name = "MECHANISM", conflicts_with = "doc")]
    ablate: Option<String>,
}

/// Run `cosched validate`.
pub fn run(a: Args) -> Result<(), crate::Failure> {
    let names: Vec<String> = if a.machines.is_empty() {
        cosched_machine::presets::machine_names().map(|s| s.to_string()).collect()
    } else {
        a.machines.clone()
    };
    let mut machines: Vec<MachineSpec> = names
        .iter()
        .map(|n| cosched_machine::presets::machine(n).map_err(|e| e.to_string()))
        .collect::<Result<_, String>>()?;
    if let Some(name) = &a.ablate {
        for m in &mut machines {
            cosched_lab::validate::ablate(m, name).one_line()?;
        }
    }
    let bar = crate::progress::Progress::new("validate", "check points");
    bar.add(points(&machines) as u64);
    let outcomes = validate(&machines, &|| bar.tick()).one_line()?;
    bar.finish();
    if a.doc {
        print!("{}", doc_table(&outcomes));
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
            let mut rows =
                vec![["machine", "point", "published", "simulated", "error", "tolerance", "target", "use", "status"]
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
                    o.target.into(),
                    o.usage().into(),
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
            println!(
                "\n{} points on {} of {} machines",
                outcomes.len(),
                machines.iter().filter(|m| !m.checks.is_empty()).count(),
                machines.len()
            );
            for origin in [Origin::Published, Origin::Calibrated] {
                println!("{}", tally_line(&outcomes, origin));
            }
            if let Some(line) = registered_line(&outcomes) {
                println!("{line}");
            }
            if let Some(name) = &a.ablate {
                let what = cosched_lab::validate::ABLATIONS.iter().find(|x| x.0 == name).map_or("", |x| x.1);
                println!("ablation: {name} taken out of every machine ({what})");
            }
        }
    }
    let failed: Vec<&Outcome> = outcomes.iter().filter(|o| o.status == "fail").collect();
    // An ablation is an experiment on the model: its points are reported, not judged.
    if failed.is_empty() || a.ablate.is_some() {
        Ok(())
    } else {
        Err(crate::Failure::check(format!(
            "{} point(s) out of tolerance: {}",
            failed.len(),
            failed.iter().map(|o| format!("{} / {}", o.machine, o.name)).collect::<Vec<_>>().join("; ")
        )))
    }
}
