//! Statistical thread assignment (§4-6): the POT analysis of a sample and
//! random assignments on the simulated machine, with SP-POT.

use crate::errors::{pot_error, run_error};
use cosched_cli::assign::{report, Args};
use cosched_cli::error::RunError;
use cosched_cli::evt::{analyse, parse_threshold};
use cosched_cli::knobs::parse_flags;
use pyo3::prelude::*;

/// Register this module's functions.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(pot, m)?)?;
    m.add_function(wrap_pyfunction!(assign, m)?)?;
    m.add_function(wrap_pyfunction!(optimum, m)?)?;
    Ok(())
}

/// POT on `samples` (`cosched evt --format json` without file and column).
#[pyfunction]
fn pot(py: Python<'_>, samples: Vec<f64>, threshold: &str, confidence: f64) -> PyResult<String> {
    let t = parse_threshold(threshold).map_err(|e| run_error(RunError::Option(e)))?;
    let a = py.detach(|| analyse(&samples, t, confidence)).map_err(|e| pot_error(None, e))?;
    serde_json::to_string(&a).map_err(|e| run_error(RunError::Simulation(e.to_string())))
}

/// `cosched assign` with these flags: the report JSON and every measured
/// (sample index, GIPS) with the predictor's score.
#[pyfunction]
#[allow(clippy::type_complexity)]
fn assign(py: Python<'_>, flags: Vec<String>) -> PyResult<(String, Vec<(usize, f64)>, Vec<f64>)> {
    crate::interrupt::interruptible(py, move |_| -> Result<_, RunError> {
        let a: Args = parse_flags(&flags)?;
        let r = report(&a, &|_| {}, &|| {}, &mut |_, _| Ok(()))?;
        let text = serde_json::to_string(&r).map_err(|e| RunError::Simulation(e.to_string()))?;
        Ok((text, r.measured_perf, r.predicted))
    })
}

/// `cosched optimum` with these flags: the report JSON (`--format json`).
#[pyfunction]
fn optimum(py: Python<'_>, flags: Vec<String>) -> PyResult<String> {
    crate::interrupt::interruptible(py, move |_| -> Result<_, RunError> {
        let a: cosched_cli::optimum::Args = parse_flags(&flags)?;
        let r = cosched_cli::optimum::report(&a, &|_| {}, &|| {})?;
        serde_json::to_string(&r).map_err(|e| RunError::Simulation(e.to_string()))
    })
}
