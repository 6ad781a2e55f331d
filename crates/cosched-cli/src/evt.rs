//! `cosched evt FILE.csv`: Peak-Over-Threshold estimate of the best value a
//! population of measurements can reach (statistical thread assignment §4).

use crate::opts::Format;
use crate::output::table;
use crate::OneLine;
use clap::Args as ClapArgs;
use cosched_core::text::quote;
pub use cosched_lab::evt::{analyse, parse_threshold, Analysis, REJECTED};
use serde::Serialize;

/// `cosched evt`'s arguments.
#[derive(ClapArgs)]
pub struct Args {
    /// CSV file of measurements (one per row; a header row is optional).
    file: String,
    /// Column to read (header name or 0-based index); required when the file has several numeric columns.
    #[arg(long)]
    column: Option<String>,
    /// Threshold: `auto`, a value, or `qQUANTILE` (e.g. q0.9).
    #[arg(long, default_value = "auto")]
    threshold: String,
    /// Confidence level of the interval of the upper bound.
    #[arg(long, default_value_t = 0.95)]
    confidence: f64,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
}

/// Read one column of numbers from a CSV file; returns the values and the
/// column's name (its header, or its index without a header row). Without
/// `column`, the file must have exactly one numeric column: with several
/// (a run index beside the measurements, say) it refuses and lists them.
pub fn read_column(file: &str, column: Option<&str>) -> Result<(Vec<f64>, String), String> {
    let text = crate::input::read_text(file)?;
    let rows: Vec<Vec<&str>> =
        text.lines().filter(|l| !l.trim().is_empty()).map(|l| l.split(',').map(str::trim).collect()).collect();
    if rows.is_empty() {
        return Err(format!("{file}: no rows"));
    }
    let header = rows[0].iter().any(|c| c.parse::<f64>().is_err());
    let body = if header { &rows[1..] } else { &rows[..] };
    // A name as an error quotes it: escaped and cut at 80 characters (`cosched_core::text::quote`).
    let name = |i: usize| if header { rows[0].get(i).map_or(i.to_string(), |h| quote(h)) } else { i.to_string() };
    let col = match column {
        Some(c) => match c.parse::<usize>() {
            Ok(i) => i,
            Err(_) if header => {
                rows[0].iter().position(|h| h == &c).ok_or_else(|| format!("{file}: {}: no such column", quote(c)))?
            }
            Err(_) => return Err(format!("{file}: {}: no header row to look the column up in", quote(c))),
        },
        None => {
            let numeric: Vec<usize> = (0..rows[0].len())
                .filter(|&i| body.first().is_some_and(|r| r.get(i).is_some_and(|v| v.parse::<f64>().is_ok())))
                .collect();
            match numeric[..] {
                [] => return Err(format!("{file}: no numeric column")),
                [i] => i,
                _ => {
                    return Err(format!(
                        "{file}: {} numeric columns ({}): choose one with --column NAME or INDEX",
                        numeric.len(),
                        numeric.iter().map(|&i| name(i)).collect::<Vec<_>>().join(", ")
                    ))
                }
            }
        }
    };
    let values = body
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let line = i + 1 + header as usize;
            let v = r.get(col).ok_or(format!("{file}:{line}: column {col}: missing"))?;
            v.parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| format!("{file}:{line}: column {col}: `{}` is not a finite number", quote(v)))
        })
        .collect::<Result<Vec<f64>, String>>()?;
    Ok((values, name(col)))
}

#[derive(Serialize)]
struct Report {
    file: String,
    /// The column read (header name, or index without a header row).
    column: String,
    #[serde(flatten)]
    analysis: Analysis,
}

/// Values from which `evt` says when it has read them and starts the fit.
const BIG: usize = 1_000_000;

/// `cosched evt`: print the analysis of one column of a CSV file.
pub fn run(a: Args) -> Result<(), String> {
    let t = parse_threshold(&a.threshold).one_line()?;
    // Ten million rows take a minute: a line at least every 10 s.
    crate::progress::begin(format!("evt {}", a.file));
    let (xs, column) = read_column(&a.file, a.column.as_deref())?;
    if xs.len() >= BIG {
        crate::progress::step(&format!("read {} values of column {column}; fitting the tail", xs.len()));
    }
    let analysis = analyse(&xs, t, a.confidence).map_err(|e| format!("{}: {e}", a.file))?;
    for w in &analysis.warnings {
        eprintln!("{}: warning: {w}", a.file);
    }
    print_report(&Report { file: a.file.clone(), column, analysis }, a.format)
}

/// What the table's terms mean, printed after it.
const LEGEND: &str = "Terms: upb = the POT estimate of the best value the population reaches (statistical thread \
    assignment, POT), with its interval ciNN_lo..ciNN_hi at the confidence asked; threshold = where the tail starts, \
    exceedances = samples above it; xi, sigma = the generalised Pareto tail's shape and scale (xi < 0: a bounded \
    tail, the only kind with an upper bound); gap = upb - best_observed; runs_test_p, ljung_box_p = p-values of \
    the tests of independence (small: the sample is not i.i.d. and the interval is too narrow); tie_share = share \
    of repeated values.";

fn print_report(rep: &Report, format: Format) -> Result<(), String> {
    let r = &rep.analysis.result;
    match format {
        Format::Json => println!("{}", serde_json::to_string_pretty(rep).map_err(|e| e.to_string())?),
        Format::Csv | Format::Table => {
            let rows = vec![
                vec!["quantity".to_string(), "value".into()],
                vec!["column".into(), rep.column.clone()],
                vec!["samples".into(), rep.analysis.n.to_string()],
                vec!["threshold".into(), cosched_core::num::fixed(r.threshold, 6)],
                vec!["exceedances".into(), r.exceedances.to_string()],
                vec!["xi".into(), format!("{:.5}", r.fit.xi)],
                vec!["sigma".into(), cosched_core::num::fixed(r.fit.sigma, 6)],
                vec!["upb".into(), cosched_core::num::fixed(r.upb, 6)],
                vec![format!("ci{:.0}_lo", r.confidence * 100.0), cosched_core::num::fixed(r.ci.0, 6)],
                vec![format!("ci{:.0}_hi", r.confidence * 100.0), cosched_core::num::fixed(r.ci.1, 6)],
                vec!["best_observed".into(), cosched_core::num::fixed(r.best, 6)],
                vec!["gap".into(), format!("{} ({:.3}%)", cosched_core::num::fixed(r.gap, 6), r.gap / r.upb * 100.0)],
                vec!["runs_test_p".into(), format!("{:.4}", rep.analysis.checks.runs_p)],
                vec!["ljung_box_p".into(), format!("{:.4}", rep.analysis.checks.ljung_box_p)],
                vec!["tie_share".into(), format!("{:.4}", rep.analysis.checks.tie_share)],
            ];
            if format == Format::Csv {
                crate::output::csv(&rows);
            } else {
                table(&rows);
                println!("\n{LEGEND}");
            }
        }
    }
    Ok(())
}
