//! `cosched run --policies`' output: the interleaved rounds
//! (`cosched_host::rounds`) as a table, CSV or JSON.

use crate::opts::Format;
use crate::output::{ci_cells, csv, table};
use cosched_core::metrics::registry::SUMMARY_PARTS;
use cosched_core::stats::MeanCi;
use cosched_host::rounds::Interleaved;
use cosched_linux::best_static::ENTRY;

/// `--format csv`'s header: labels, then each metric's mean and interval.
fn csv_header() -> Vec<String> {
    let mut head = vec!["policy".to_string(), "baseline".into(), "rounds".into(), "drifted_rounds".into()];
    for m in ["makespan_s", "antt", "unfairness", "energy_j", "scheduler_cpu_pct", "speedup"] {
        head.extend(SUMMARY_PARTS.map(|p| format!("{m}_{p}")));
    }
    head.extend(["verdict".to_string(), "rounds_needed".into()]);
    head.extend(SUMMARY_PARTS.map(|p| format!("gap_to_bound_pct_{p}")));
    head
}

/// The table's header.
fn table_header(baseline: &str) -> Vec<String> {
    [
        "policy",
        "makespan_s",
        "unfairness",
        &format!("speedup_vs_{baseline}"),
        "speedup_lo",
        "speedup_hi",
        "gap_to_bound_pct",
    ]
    .map(String::from)
    .to_vec()
}

/// What the gap column is measured against, in one line.
pub fn gap_legend(c: &Interleaved) -> String {
    match (&c.best_static, &c.no_best_static) {
        (Some(b), _) => format!(
            "gap_to_bound_pct: throughput below {ENTRY} (1 - its makespan / the policy's, paired per round; negative: the policy beat it). \
             {ENTRY} is the static partition with idle contexts allowed (each instance pinned to one context, a context's \
             instances taking turns, any context idle) of least makespan predicted from the solo times and {} measured and {} \
             FM-predicted job-pair slowdowns, over {} partitions on this machine's {} pairs ({}; predicted {:.3} s{}): \
             best for that prediction, pinned with `static` and run every round",
            b.measured_cells,
            b.predicted_cells,
            b.candidates,
            b.level,
            b.describe(),
            b.predicted_makespan_s,
            b.pairing_makespan_s
                .map_or(String::new(), |p| format!(", the minimum-cost pairing {p:.3} s"))
        ),
        (None, Some(why)) => format!("gap_to_bound_pct: -, {why}"),
        (None, None) => "gap_to_bound_pct: -".to_string(),
    }
}

/// Print the comparison.
pub fn print(c: &Interleaved, format: Format) -> Result<(), String> {
    match format {
        Format::Json => println!("{}", serde_json::to_string_pretty(c).map_err(|e| e.to_string())?),
        Format::Csv => {
            let mut rows = vec![csv_header()];
            for r in &c.policies {
                let mut row = vec![
                    r.policy.clone(),
                    c.baseline.clone(),
                    c.rounds.to_string(),
                    c.drifted_rounds.len().to_string(),
                ];
                for m in [
                    Some(&r.makespan_s),
                    r.antt.as_ref(),
                    r.unfairness.as_ref(),
                    Some(&r.energy_j),
                    Some(&r.scheduler_cpu_pct),
                ] {
                    row.extend(ci_cells(m));
                }
                match &r.vs_baseline {
                    Some(p) => {
                        row.extend([p.ratio, p.lo, p.hi].map(|v| format!("{v}")));
                        row.push(format!("{:?}", p.verdict).to_lowercase());
                        row.push(p.rounds_needed.map(|m| m.to_string()).unwrap_or_default());
                    }
                    None => row.extend(["1", "1", "1", "baseline", ""].map(String::from)),
                }
                row.extend(ci_cells(r.gap_to_bound_pct.as_ref()));
                rows.push(row);
            }
            csv(&rows);
        }
        Format::Table => {
            println!(
                "mix {}: {} rounds, policies in a seeded random order each round (seed {}); speedup = {} makespan / policy makespan, paired per round",
                c.mix, c.rounds, c.seed, c.baseline
            );
            // The runs' provenance that qualifies every row below: predictions on untrustworthy fits.
            if let Some(why) = c.runs.iter().flatten().find_map(|r| r.provenance.get("untrusted fits")) {
                println!("untrusted fits: {why}");
            }
            let ci = |m: &MeanCi| match m.n {
                0 | 1 => format!("{:.3}", m.mean), // one round: no interval
                _ => format!("{:.3} ±{:.3}", m.mean, (m.hi - m.lo) / 2.0),
            };
            let mut t = vec![table_header(&c.baseline)];
            for r in &c.policies {
                t.push(vec![
                    r.policy.clone(),
                    ci(&r.makespan_s),
                    r.unfairness.as_ref().map_or("-".into(), ci),
                    r.vs_baseline.as_ref().map_or("1 (baseline)".into(), |p| format!("{:.3}", p.ratio)),
                    // One round has no interval (its ends would be the ratio itself).
                    r.vs_baseline.as_ref().filter(|p| p.rounds > 1).map_or("-".into(), |p| format!("{:.3}", p.lo)),
                    r.vs_baseline.as_ref().filter(|p| p.rounds > 1).map_or("-".into(), |p| format!("{:.3}", p.hi)),
                    match &r.gap_to_bound_pct {
                        Some(g) => format!("{:+.1} [{:+.1}, {:+.1}]", g.mean, g.lo, g.hi),
                        None if r.policy == ENTRY => "(best)".into(),
                        None => "-".into(),
                    },
                ]);
            }
            table(&t);
            for r in c.policies.iter().filter(|r| r.vs_baseline.is_some()) {
                println!("{}: {}", r.policy, r.verdict);
            }
            println!("{}", gap_legend(c));
            let drift: Vec<String> = c
                .round
                .iter()
                .map(|r| format!("{:+.1}%{}", r.drift * 100.0, if r.drifted { "*" } else { "" }))
                .collect();
            println!(
                "host drift per round (solo times against their medians; * beyond ±{:.0}%): {}",
                c.drift_threshold * 100.0,
                drift.join(" ")
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_column_is_registered() {
        for c in csv_header().iter().chain(&table_header("linux")) {
            assert!(cosched_core::metrics::registry::is_known_column(c), "{c}");
        }
    }
}
