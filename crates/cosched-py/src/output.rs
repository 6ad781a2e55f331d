//! Outputs the Python package writes (reports, machine and workload files),
//! through the same function as every command line output
//! (`cosched_machine::output`): a regular file written whole, a device or
//! FIFO written into, never replaced; a directory or a missing folder refused
//! as a `cosched.errors.ConfigError`.

use crate::errors::config_error;
use pyo3::prelude::*;
use std::path::Path;

/// Register the output functions.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(write_output, m)?)?;
    m.add_function(wrap_pyfunction!(check_output, m)?)?;
    Ok(())
}

/// Write `data` to the output `path` (`name` cites it in an error, e.g.
/// `out report.html`).
#[pyfunction]
fn write_output(path: &str, data: &[u8], name: &str) -> PyResult<()> {
    cosched_machine::output::write(Path::new(path), name, data).map_err(config_error)
}

/// Refuse, before any work, an output `path` that cannot be written; nothing is created.
#[pyfunction]
fn check_output(path: &str, name: &str) -> PyResult<()> {
    cosched_machine::output::check(Path::new(path), name).map(|_| ()).map_err(config_error)
}
