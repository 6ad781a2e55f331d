//! Matrix completion with the self-tuning factorization machine (SLITS
//! §3.3; `cosched_core::learn::complete`, as `cosched complete`).

use crate::errors::{raise, ErrorClass};
use pyo3::prelude::*;

/// Register this module's functions.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(complete, m)?)?;
    m.add_function(wrap_pyfunction!(complete_bayes, m)?)?;
    Ok(())
}

/// Complete a `rows × cols` matrix from `observed` (row, col, value) cells:
/// the model's description (chosen, validation) and the prediction
/// of every `wanted` (row, col) cell.
#[pyfunction]
fn complete(
    py: Python<'_>,
    observed: Vec<(usize, usize, f64)>,
    rows: usize,
    cols: usize,
    wanted: Vec<(usize, usize)>,
    seed: u64,
) -> PyResult<(Py<PyAny>, Vec<f64>)> {
    let c = py
        .detach(|| cosched_core::learn::complete(&observed, rows, cols, seed))
        .map_err(|e| raise(ErrorClass::Completion, e.to_string(), &[]))?;
    let preds = wanted.iter().map(|&(r, k)| c.predict(r, k)).collect();
    let about = serde_json::json!({ "chosen": c.chosen, "validation": c.validation });
    Ok((crate::data::to_py(py, &about)?, preds))
}

/// The Bayesian FM's completion (`cosched complete`'s default):
/// the model's description and each `wanted` cell's (mean, std).
#[pyfunction]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
fn complete_bayes(
    py: Python<'_>,
    observed: Vec<(usize, usize, f64)>,
    rows: usize,
    cols: usize,
    wanted: Vec<(usize, usize)>,
    rank: usize,
    iterations: usize,
    seed: u64,
) -> PyResult<(Py<PyAny>, Vec<(f64, f64)>)> {
    let p =
        cosched_core::learn::BfmParams::checked(rank, iterations).map_err(|e| crate::errors::run_error(e.into()))?;
    let c = py
        .detach(|| cosched_core::learn::complete_bayes(&observed, rows, cols, &wanted, &p, seed))
        .map_err(|e| raise(ErrorClass::Completion, e.to_string(), &[]))?;
    let about = serde_json::json!({ "chosen": c.chosen });
    Ok((crate::data::to_py(py, &about)?, c.predictions))
}
