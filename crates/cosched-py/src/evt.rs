//! Statistical thread assignment (§4-6): the POT analysis of a sample and
//! random assignments on the simulated machine, with SP-POT.

use crate::errors::{pot_error, run_error};
use cosched_lab::assign::{report, AssignOptions};
use cosched_lab::best_static::OptimumOptions;
use cosched_lab::declared::Declared;
use cosched_lab::evt::{analyse, parse_threshold};
use cosched_lab::RunError;
use pyo3::prelude::*;

/// Register this module's functions.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(pot, m)?)?;
    m.add_function(wrap_pyfunction!(assign, m)?)?;
    m.add_function(wrap_pyfunction!(optimum, m)?)?;
    m.add_function(wrap_pyfunction!(option_list, m)?)?;
    Ok(())
}

/// The declared options of `command` (`assign` or `optimum`) as JSON: keyword,
/// flag, default, kind, help (as `knob_list`).
#[pyfunction]
fn option_list(py: Python<'_>, command: &str) -> PyResult<Py<PyAny>> {
    use cosched_lab::knobs::declared_knobs;
    let list = match command {
        "assign" => declared_knobs::<AssignOptions>(),
        "optimum" => declared_knobs::<OptimumOptions>(),
        other => return Err(run_error(RunError::option(format!("`{other}` has no declared options")))),
    };
    crate::data::to_py(py, &list)
}

/// POT on `samples` (`cosched evt --format json` without file and column).
#[pyfunction]
fn pot(py: Python<'_>, samples: Vec<f64>, threshold: &str, confidence: f64) -> PyResult<Py<PyAny>> {
    let t = parse_threshold(threshold).map_err(run_error)?;
    let a = py.detach(|| analyse(&samples, t, confidence)).map_err(|e| pot_error(None, e))?;
    crate::data::to_py(py, &a)
}

/// A random-assignment study with these options ((keyword, value) pairs,
/// `cosched_lab::assign::ASSIGN`): the report and every measured
/// (sample index, GIPS) with the predictor's score.
#[pyfunction]
#[allow(clippy::type_complexity)]
fn assign(py: Python<'_>, options: crate::knob_arg::KnobsIn) -> PyResult<(Py<PyAny>, Vec<(usize, f64)>, Vec<f64>)> {
    let (text, measured, predicted) = crate::interrupt::interruptible(py, move |_| -> Result<_, RunError> {
        let mut a = AssignOptions::default();
        for (k, v) in &options {
            a.give(k, v.given())?;
        }
        let r = report(&a, &|_| {}, &|| {}, &mut |_, _| Ok(()))?;
        let (measured, predicted) = (r.measured_perf.clone(), r.predicted.clone());
        Ok((r, measured, predicted))
    })?;
    Ok((crate::data::from_value(py, &text)?, measured, predicted))
}

/// The search for the best static co-schedule with these options ((keyword,
/// value) pairs, `cosched_lab::best_static::OPTIMUM`): the report.
#[pyfunction]
fn optimum(py: Python<'_>, options: crate::knob_arg::KnobsIn) -> PyResult<Py<PyAny>> {
    let text = crate::interrupt::interruptible(py, move |_| -> Result<_, RunError> {
        let mut a = OptimumOptions::default();
        for (k, v) in &options {
            a.give(k, v.given())?;
        }
        cosched_lab::best_static::report(&a, &|_| {}, &|| {})
    })?;
    crate::data::from_value(py, &text)
}
