//! `cosched evt FILE.csv`: Peak-Over-Threshold estimate of the best value a
//! population of measurements can reach (statistical thread assignment §4).

use crate::opts::Format;
use crate::output::table;
use clap::Args as ClapArgs;
use cosched_core::evt::checks::check;
use cosched_core::evt::diagnostics::{diagnostics, quantile_plot, Diagnostics};
use cosched_core::evt::{pot, PotError, PotResult, Threshold};
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

/// Parse `auto`, `q0.9` or a number.
pub fn parse_threshold(s: &str) -> Result<Threshold, String> {
    if s == "auto" {
        return Ok(Threshold::Auto);
    }
    if let Some(q) = s.strip_prefix('q') {
        return q.parse().map(Threshold::Quantile).map_err(|_| format!("--threshold: `{s}` is not qQUANTILE"));
    }
    s.parse().map(Threshold::Value).map_err(|_| format!("--threshold: `{s}` is not auto, a number or qQUANTILE"))
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
    let name = |i: usize| if header { rows[0].get(i).map_or(i.to_string(), |h| h.to_string()) } else { i.to_string() };
    let col = match column {
        Some(c) => match c.parse::<usize>() {
            Ok(i) => i,
            Err(_) if header => rows[0].iter().position(|h| h == &c).ok_or(format!("{file}: {c}: no such column"))?,
            Err(_) => return Err(format!("{file}: {c}: no header row to look the column up in")),
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
                .ok_or(format!("{file}:{line}: column {col}: `{v}` is not a finite number"))
        })
        .collect::<Result<Vec<f64>, String>>()?;
    Ok((values, name(col)))
}

/// The warning printed when the goodness-of-fit test rejects the GPD at every candidate threshold.
pub const REJECTED: &str = "the Anderson-Darling test rejects a GPD tail at every candidate threshold \
     (see diagnostics in --format json): the bound extrapolates a tail the data do not show; \
     clumped measurements (plateaus) are the usual cause";

/// A POT analysis of one sample: the estimate, the i.i.d. checks, the
/// threshold diagnostics and the QQ points (`cosched evt --format json`
/// without the file and column; Python's `cosched.evt.POT`).
#[derive(Serialize)]
pub struct Analysis {
    /// Sample size.
    pub n: usize,
    /// The estimate (§4.1-4.3).
    pub result: PotResult,
    /// Runs test, Ljung-Box and ties (§4.4's i.i.d. assumption).
    pub checks: cosched_core::evt::checks::Checks,
    /// Candidate thresholds (ξ̂ with its interval, σ*, the Anderson-Darling
    /// test, ForwardStop) and the mean residual life with its interval.
    pub diagnostics: Diagnostics,
    /// GPD quantile plot: (model quantile, observed exceedance) pairs.
    pub quantile_plot: Vec<(f64, f64)>,
    /// What the user must know before trusting the bound (a sample that is
    /// not independent, a GPD rejected at every threshold); the CLI prints
    /// them on stderr, Python issues them as `warnings`.
    pub warnings: Vec<String>,
}

/// Analyse `xs` with threshold rule `t` at `confidence`.
pub fn analyse(xs: &[f64], t: Threshold, confidence: f64) -> Result<Analysis, PotError> {
    let r = pot(xs, t, confidence)?;
    let mut sorted = xs.to_vec();
    sorted.sort_by(f64::total_cmp);
    let checks = check(xs, 20.min(xs.len() / 4).max(1));
    let warnings = checks
        .dependence_warning()
        .into_iter()
        .chain(r.gpd_rejected_everywhere.then(|| REJECTED.to_string()))
        .collect();
    Ok(Analysis {
        n: xs.len(),
        checks,
        warnings,
        diagnostics: diagnostics(&sorted, sorted.len(), confidence),
        quantile_plot: quantile_plot(xs, &r),
        result: r,
    })
}

#[derive(Serialize)]
struct Report {
    file: String,
    /// The column read (header name, or index without a header row).
    column: String,
    #[serde(flatten)]
    analysis: Analysis,
}

/// `cosched evt`: print the analysis of one column of a CSV file.
pub fn run(a: Args) -> Result<(), String> {
    let t = parse_threshold(&a.threshold)?;
    let (xs, column) = read_column(&a.file, a.column.as_deref())?;
    let analysis = analyse(&xs, t, a.confidence).map_err(|e| format!("{}: {e}", a.file))?;
    for w in &analysis.warnings {
        eprintln!("{}: warning: {w}", a.file);
    }
    print_report(&Report { file: a.file.clone(), column, analysis }, a.format)
}

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
            }
        }
    }
    Ok(())
}
