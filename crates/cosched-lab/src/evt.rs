//! A Peak-Over-Threshold analysis of one sample (statistical thread
//! assignment §4): the estimate of the best value the population reaches,
//! its i.i.d. checks, the threshold diagnostics and the quantile plot.

use crate::error::RunError;
use cosched_core::evt::checks::check;
use cosched_core::evt::diagnostics::{diagnostics, quantile_plot, Diagnostics};
use cosched_core::evt::{pot, PotError, PotResult, Threshold};
use serde::Serialize;

/// Parse `auto`, `q0.9` or a number.
pub fn parse_threshold(s: &str) -> Result<Threshold, RunError> {
    if s == "auto" {
        return Ok(Threshold::Auto);
    }
    if let Some(q) = s.strip_prefix('q') {
        return q.parse().ok().filter(|q: &f64| (0.0..1.0).contains(q)).map(Threshold::Quantile).ok_or_else(|| {
            RunError::knob(
                "threshold",
                format!("`{}` is not qQUANTILE (0 ≤ QUANTILE < 1)", cosched_core::text::quote(s)),
            )
        });
    }
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(Threshold::Value(v)),
        Ok(_) => Err(RunError::knob(
            "threshold",
            format!("must be auto, a finite number or qQUANTILE, got {}", cosched_core::text::quote(s)),
        )),
        Err(_) => Err(RunError::knob(
            "threshold",
            format!("`{}` is not auto, a number or qQUANTILE", cosched_core::text::quote(s)),
        )),
    }
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
