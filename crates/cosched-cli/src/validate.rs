//! `cosched validate`: every calibration and check point of every machine
//! preset (`[[check]]` in `data/machines/*.toml`) — the published figure, the
//! simulated value, the error, the tolerance, the source and whether the point
//! was fitted or held out — as a table or JSON; exit 1 when a point leaves its
//! tolerance (docs/model.md, "Why trust the simulator").
//!
//! Points run on the exact model (`--noise 0`): a calibration point compares
//! the model with a published mean, not one noisy run with it.

use crate::opts::Format;
use crate::output::table_string;
use crate::OneLine;
use clap::Args as ClapArgs;
use cosched_lab::validate::{doc_table, points, registered_line, tally_line, validate, Outcome};
use cosched_machine::check::Bound;
use cosched_machine::{MachineSpec, Origin};
use std::fmt::Write;

#[derive(ClapArgs)]
pub struct Args {
    /// Machine presets or files to validate (default: every preset).
    machines: Vec<String>,
    /// A machine to validate, as every other command names one (repeatable; added to MACHINES).
    #[arg(long = "machine", short = 'm', value_name = "MACHINE")]
    machine: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
    /// Print the Markdown table docs/model.md carries (between its
    /// `validate:begin` and `validate:end` markers) instead.
    #[arg(long)]
    doc: bool,
    /// Take one mechanism out of every machine and validate what is left
    /// (`tenants`, `conserve-capacity`, `refill-by-access`, `scheduler-tick`, `balance-rotation`): its effect on
    /// each point is the difference from a run without it.
    #[arg(long, value_name = "MECHANISM", conflicts_with = "doc")]
    ablate: Option<String>,
    /// Also write every rendering of this one run into DIR: `all.txt` (the table), `points.json`,
    /// `doc.md` (the `--doc` table) and `MACHINE.txt` per machine (what `cosched validate MACHINE`
    /// prints), so that one run serves every reader (scripts/check-results, the tests).
    #[arg(long, value_name = "DIR")]
    out: Option<std::path::PathBuf>,
}

/// Run `cosched validate`.
pub fn run(a: Args) -> Result<(), crate::Failure> {
    let given: Vec<String> = a.machines.iter().chain(&a.machine).cloned().collect();
    let names: Vec<String> = if given.is_empty() {
        cosched_machine::presets::machine_names().map(|s| s.to_string()).collect()
    } else {
        given
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
    let ablate = a.ablate.as_deref();
    let text = if a.doc {
        doc_table(&outcomes)
    } else if matches!(a.format, Format::Json) {
        json(&outcomes, &machines)?
    } else {
        table_text(&outcomes, &machines, ablate)
    };
    if let Some(dir) = &a.out {
        let mut files = vec![
            ("all.txt".to_string(), table_text(&outcomes, &machines, ablate)),
            ("points.json".to_string(), json(&outcomes, &machines)?),
            ("doc.md".to_string(), doc_table(&outcomes)),
        ];
        for m in &machines {
            let own: Vec<Outcome> = outcomes.iter().filter(|o| o.machine == m.name).cloned().collect();
            files.push((format!("{}.txt", m.name), table_text(&own, std::slice::from_ref(m), ablate)));
        }
        write_all(dir, &files)?;
    }
    print!("{text}");
    let failed: Vec<&Outcome> = outcomes.iter().filter(|o| o.status == cosched_lab::validate::Status::Fail).collect();
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

/// The points as JSON, then one entry per machine without any (status `no points`).
fn json(outcomes: &[Outcome], machines: &[MachineSpec]) -> Result<String, String> {
    let mut all: Vec<serde_json::Value> =
        outcomes.iter().map(|o| serde_json::to_value(o).map_err(|e| e.to_string())).collect::<Result<_, _>>()?;
    all.extend(
        machines
            .iter()
            .filter(|m| m.checks.is_empty())
            .map(|m| serde_json::json!({ "machine": m.name, "status": "no points" })),
    );
    Ok(serde_json::to_string_pretty(&all).map_err(|e| e.to_string())? + "\n")
}

/// Write each `(name, text)` into `dir`, each file whole or not at all (a temporary beside it, renamed).
fn write_all(dir: &std::path::Path, files: &[(String, String)]) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("--out {}: {e}", dir.display()))?;
    for (name, text) in files {
        let path = dir.join(name);
        cosched_machine::output::write(&path, &format!("--out {}", path.display()), text.as_bytes())
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The table `cosched validate` prints: one row per point, each point's source and notes, the
/// machines without points, and the tallies (`ablate`: the mechanism taken out, said last).
fn table_text(outcomes: &[Outcome], machines: &[MachineSpec], ablate: Option<&str>) -> String {
    let mut rows =
        vec![["machine", "point", "published", "simulated", "error", "tolerance", "target", "use", "status"]
            .map(String::from)
            .to_vec()];
    for o in outcomes {
        let side = match o.bound {
            Some(Bound::Upper) => "≤ or ±",
            Some(Bound::Lower) => "≥ or ±",
            None => "±",
        };
        rows.push(vec![
            o.machine.clone(),
            o.name.clone(),
            format!("{:.4}", o.published),
            format!("{:.4}", o.simulated),
            format!("{:+.1}%", 100.0 * o.error),
            format!("{side}{:.0}%", 100.0 * o.tolerance),
            o.target.word().into(),
            o.usage().word().into(),
            o.status.word().into(),
        ]);
    }
    let mut t = table_string(&rows);
    t.push('\n');
    for (i, o) in outcomes.iter().enumerate() {
        let _ = writeln!(t, "[{}] {}: {}", i + 1, o.name, o.source);
        if let Some(d) = &o.detail {
            let _ = writeln!(t, "    simulated {d}");
        }
        if let Some(g) = &o.known_gap {
            let _ = writeln!(t, "    known gap: {g}");
        }
        if let Some(g) = &o.missing_mechanism {
            let _ = writeln!(t, "    missing mechanism: {g}");
        }
    }
    for m in machines.iter().filter(|m| m.checks.is_empty()) {
        let _ = writeln!(
            t,
            "{}: no points (nothing published about this machine is checked; its figures are not validated)",
            m.name
        );
    }
    let with = machines.iter().filter(|m| !m.checks.is_empty()).count();
    let _ = writeln!(t, "\n{} points on {with} of {} machines", outcomes.len(), machines.len());
    for origin in [Origin::Published, Origin::Calibrated] {
        let _ = writeln!(t, "{}", tally_line(outcomes, origin));
    }
    if let Some(line) = registered_line(outcomes) {
        let _ = writeln!(t, "{line}");
    }
    if let Some(name) = ablate {
        let what = cosched_lab::validate::Mechanism::from_name(name).map_or("", |m| m.what());
        let _ = writeln!(t, "ablation: {name} taken out of every machine ({what})");
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--ablate`'s help names every mechanism the lab can take out (it named four of five).
    #[test]
    fn the_ablate_help_names_every_mechanism() {
        let cmd = Args::augment_args(clap::Command::new("validate"));
        let arg = cmd.get_arguments().find(|a| a.get_id() == "ablate").expect("--ablate");
        let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
        for m in cosched_lab::validate::Mechanism::ALL {
            assert!(help.contains(&format!("`{}`", m.name())), "{} missing from: {help}", m.name());
        }
    }
}
