//! `cosched run`'s report of one policy's runs: the jobs' table and the run's
//! figures (mean ±95% interval over `--repeat`), as a table, CSV or JSON.

use crate::opts::Format;
use cosched_core::stats::mean_ci;
use cosched_linux::runtime::RealReport;

/// Print the runs' report in `format`; `command`: the command line run (`run -- CMD`), if not a mix file.
pub fn print(reports: &[RealReport], format: Format, command: Option<&[String]>) -> Result<(), String> {
    match format {
        Format::Json => {
            let v = if reports.len() == 1 {
                serde_json::to_value(&reports[0])
            } else {
                serde_json::to_value(serde_json::json!({ "runs": reports, "summary": summary(reports) }))
            }
            .map_err(|e| e.to_string())?;
            println!("{}", serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?);
        }
        Format::Csv => {
            println!("{}", CSV_COLUMNS.join(","));
            for (k, r) in reports.iter().enumerate() {
                for j in &r.jobs {
                    let o = |x: Option<f64>| x.map(|v| format!("{v:.4}")).unwrap_or_default();
                    println!(
                        "{k},{},{},{},{},{},{:.3},{},{}",
                        r.policy,
                        j.name,
                        o(j.turnaround_s),
                        o(j.solo_s),
                        o(j.slowdown),
                        j.cpu_s,
                        j.exit_code.map(|c| c.to_string()).unwrap_or_default(),
                        j.error.clone().unwrap_or_default().replace(',', ";")
                    );
                }
            }
        }
        Format::Table => {
            let r = reports.last().expect("at least one run");
            // A command given after `--` is a mix of one job, named after its program: say which command.
            let what = match command {
                Some(cmd) => format!("the command `{}`", cmd.join(" ")),
                None => format!("mix {}", r.mix),
            };
            println!("policy {} on {what} (freezer: {})", r.policy, r.freezer);
            let o = |x: Option<f64>, p: usize| x.map(|v| format!("{v:.p$}")).unwrap_or_else(|| "-".into());
            let mut rows = vec![["job", "turnaround_s", "solo_s", "slowdown", "cpu_s", "exit_code", "error"]
                .map(String::from)
                .to_vec()];
            for j in &r.jobs {
                rows.push(vec![
                    j.name.clone(),
                    o(j.turnaround_s, 3),
                    o(j.solo_s, 3),
                    o(j.slowdown, 3),
                    format!("{:.2}", j.cpu_s),
                    j.exit_code.map(|c| c.to_string()).unwrap_or_else(|| "-".into()),
                    j.error.clone().unwrap_or_default(),
                ]);
            }
            if r.jobs.iter().all(|j| j.error.is_none()) {
                rows.iter_mut().for_each(|row| drop(row.pop()));
            }
            crate::output::table(&rows);
            // The run's own figures, apart from the jobs' (they were one table under the job headers).
            let s = summary(reports);
            let mut run = vec![vec!["run".to_string(), "value".into()]];
            for (name, v) in s.as_object().expect("object") {
                run.push(vec![name.clone(), v.as_str().map_or_else(|| v.to_string(), str::to_string)]);
            }
            println!();
            crate::output::table(&run);
            for (k, v) in &r.provenance {
                println!("  [{k}: {v}]");
            }
        }
    }
    Ok(())
}

/// `cosched run --format csv`'s columns: labels and registry metrics.
/// The CSV's columns.
const CSV_COLUMNS: [&str; 9] =
    ["run", "policy", "job", "turnaround_s", "solo_s", "slowdown", "cpu_s", "exit_code", "error"];

/// Mean and 95% interval over repetitions of the headline metrics.
/// The run's figures over the repetitions, as text (mean ±95% interval).
fn summary(reports: &[RealReport]) -> serde_json::Value {
    let fmt = |xs: Vec<f64>| -> String {
        if xs.is_empty() {
            return "-".into();
        }
        let m = mean_ci(&xs);
        if xs.len() > 1 {
            format!("{:.4} ± {:.4} (95% CI, n={})", m.mean, m.hi - m.mean, xs.len())
        } else {
            format!("{:.4}", m.mean)
        }
    };
    let mean_turn = |r: &RealReport| {
        let t: Vec<f64> = r.jobs.iter().filter_map(|j| j.turnaround_s).collect();
        (!t.is_empty()).then(|| t.iter().sum::<f64>() / t.len() as f64)
    };
    serde_json::json!({
        "makespan_s": fmt(reports.iter().map(|r| r.metrics.makespan_s).collect()),
        "mean_turnaround_s": fmt(reports.iter().filter_map(mean_turn).collect()),
        "unfairness": fmt(reports.iter().filter_map(|r| r.metrics.unfairness).collect()),
        "antt": fmt(reports.iter().filter_map(|r| r.metrics.antt).collect()),
        "energy_j": fmt(reports.iter().map(|r| r.metrics.energy_j).filter(|&e| e > 0.0).collect()),
        "scheduler_cpu_pct": fmt(reports.iter().map(|r| r.scheduler_cpu_pct).collect()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use cosched_core::metrics::registry::is_known_column;

    #[test]
    fn every_column_and_summary_key_is_registered() {
        for c in CSV_COLUMNS {
            assert!(is_known_column(c), "{c}");
        }
        for k in summary(&[]).as_object().unwrap().keys() {
            assert!(is_known_column(k), "{k}");
        }
    }
}
