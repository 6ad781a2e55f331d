//! `rerun_cell` points: a result a paper states for its own machine, read
//! from our rerun of that paper on the point's machine (one seed of the exact
//! model, as every `cosched validate` point runs). Each rerun a machine's
//! points name runs once, before the points are judged.

use crate::error::RunError;
use crate::paper::{efs, perf_fair, rda, slits, Seeds};
use crate::report::Report;
use cosched_machine::check::{CheckPoint, Rerun};
use cosched_machine::{ConfigError, MachineSpec};
use rayon::prelude::*;
use std::collections::HashMap;

/// A rerun's CSV tables by name (`fig8.csv`), rows with the header first.
type Tables = HashMap<String, Vec<Vec<String>>>;

/// Every rerun the points of `machines` read, by (machine's index, rerun).
pub(super) struct Reruns(HashMap<(usize, Rerun), Tables>);

/// One seed of the exact model: a validate point compares the model, not one noisy run.
const EXACT_SEEDS: Seeds = Seeds { seeds: 1, noise: 0.0 };

/// Run each distinct (machine, rerun) that a `rerun_cell` point of `machines` names.
pub(super) fn run_all(machines: &[MachineSpec]) -> Result<Reruns, RunError> {
    let mut wanted: Vec<(usize, Rerun)> = machines
        .iter()
        .enumerate()
        .flat_map(|(i, m)| m.checks.iter().filter_map(move |k| k.rerun.map(|r| (i, r))))
        .collect();
    wanted.sort_by_key(|&(i, r)| (i, r as u8));
    wanted.dedup();
    let done = wanted
        .par_iter()
        .map(|&(i, r)| Ok(((i, r), tables(&machines[i], r)?)))
        .collect::<Result<HashMap<_, _>, RunError>>()?;
    Ok(Reruns(done))
}

/// Rerun `r` on `m` at one exact seed, its tables kept.
fn tables(m: &MachineSpec, r: Rerun) -> Result<Tables, RunError> {
    let mut rep = Report::default();
    match r {
        Rerun::Slits => slits::run_on(
            m,
            &slits::Options { seeds: EXACT_SEEDS, ablation_seeds: 1, timing: false, ..Default::default() },
            &mut rep,
        )?,
        Rerun::Efs => {
            efs::run_on(m, &efs::Options { seeds: EXACT_SEEDS, timing: false, ..Default::default() }, &mut rep)?
        }
        Rerun::Rda => {
            rda::run_on(m, &rda::Options { seeds: EXACT_SEEDS, timing: false, ..Default::default() }, &mut rep)?
        }
        Rerun::PerfFair => perf_fair::run_on(
            m,
            &perf_fair::Options { seeds: EXACT_SEEDS, timing: false, ..Default::default() },
            &mut rep,
        )?,
    }
    Ok(rep.blocks.iter().filter_map(|b| b.csv_rows()).map(|(n, rows)| (n.to_string(), rows)).collect())
}

impl Reruns {
    /// The value of point `k` (machine `machines[i]`): the cell of its
    /// table whose leading cells are its `row` (the last a prefix of its
    /// cell) under the header `column`.
    pub(super) fn cell(&self, i: usize, m: &MachineSpec, k: &CheckPoint) -> Result<f64, RunError> {
        let (r, table, row, column) = (
            k.rerun.expect("validated"),
            k.table.as_deref().expect("validated"),
            k.row.as_deref().expect("validated"),
            k.column.as_deref().expect("validated"),
        );
        let bad = |field: &str, what: String| RunError::Config(ConfigError::new(&m.name, field, what));
        let tables = self.0.get(&(i, r)).expect("run_all ran every named rerun");
        let rows = tables.get(&format!("{table}.csv")).ok_or_else(|| {
            let mut names: Vec<&str> = tables.keys().map(|n| n.trim_end_matches(".csv")).collect();
            names.sort_unstable();
            bad("check.table", format!("the rerun has no table `{table}` (it has: {})", names.join(", ")))
        })?;
        let col = rows[0].iter().position(|h| h == column).ok_or_else(|| {
            bad("check.column", format!("table `{table}` has no column `{column}` (it has: {})", rows[0].join(", ")))
        })?;
        let leads = |cells: &[String]| {
            cells.len() >= row.len()
                && row.iter().zip(cells).enumerate().all(|(j, (want, got))| {
                    got == want || (j + 1 == row.len() && got.starts_with(&format!("{want} (")))
                })
        };
        let found: Vec<&Vec<String>> = rows[1..].iter().filter(|c| leads(c)).collect();
        let [hit] = found[..] else {
            return Err(bad(
                "check.row",
                format!("{} rows of table `{table}` begin with {row:?}; one must", found.len()),
            ));
        };
        hit[col].parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| {
            bad(
                "check.column",
                format!("table `{table}`, row {row:?}, column `{column}` holds `{}`, not a number", hit[col]),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cosched_machine::check::CheckKind;

    fn point(row: &[&str], column: &str) -> CheckPoint {
        let k: CheckPoint = serde_json::from_value(serde_json::json!({
            "name": "p", "kind": "rerun_cell", "rerun": "efs", "table": "fig8", "row": row, "column": column,
            "published": 1.0, "tolerance": 0.1, "source": "s", "fitted": false
        }))
        .unwrap();
        assert_eq!(k.kind, CheckKind::RerunCell);
        k
    }

    fn reruns() -> (Reruns, MachineSpec) {
        let rows = [
            ["benchmark", "speedup %"],
            ["lbm", "32.8"],
            ["lbm2", "1.0"],
            ["affected (10: mean system saving beyond ±3%)", "2.4"],
            ["nan", "NaN"],
        ];
        let table: Vec<Vec<String>> = rows.iter().map(|r| r.iter().map(|c| c.to_string()).collect()).collect();
        let tables = HashMap::from([("fig8.csv".to_string(), table)]);
        let m = cosched_machine::presets::machine("i5-2500").unwrap();
        (Reruns(HashMap::from([((0, Rerun::Efs), tables)])), m)
    }

    #[test]
    fn a_cell_is_found_by_its_row_and_column_and_a_count_in_the_last_key_is_a_prefix() {
        let (r, m) = reruns();
        // `lbm` is not a prefix of `lbm2`: a prefix matches only before " (".
        assert_eq!(r.cell(0, &m, &point(&["lbm"], "speedup %")).unwrap(), 32.8);
        assert_eq!(r.cell(0, &m, &point(&["affected"], "speedup %")).unwrap(), 2.4);
    }

    #[test]
    fn a_missing_row_column_or_number_names_the_field() {
        let (r, m) = reruns();
        for (k, field) in [
            (point(&["gcc"], "speedup %"), "check.row"),
            (point(&["lbm"], "slowdown"), "check.column"),
            (point(&["nan"], "speedup %"), "check.column"),
        ] {
            let e = r.cell(0, &m, &k).unwrap_err().to_string();
            assert!(e.contains(field), "{e}");
        }
    }
}
