//! Each error variant of the library as its own exception class of
//! `cosched.errors` (defined in Python, so classes can also derive from
//! `ValueError` or `RuntimeError`), carrying the CLI's one-line message.

use cosched_cli::error::RunError;
use cosched_core::evt::PotError;
use pyo3::prelude::*;

/// An instance of `cosched.errors.<class>` with `message`, and `attrs` set on it.
pub fn raise(class: &str, message: String, attrs: &[(&str, String)]) -> PyErr {
    Python::attach(|py| {
        let made = (|| -> PyResult<PyErr> {
            let cls = py.import("cosched.errors")?.getattr(class)?;
            let exc = cls.call1((message.clone(),))?;
            for (k, v) in attrs {
                exc.setattr(*k, v)?;
            }
            Ok(PyErr::from_value(exc))
        })();
        made.unwrap_or_else(|e| e)
    })
}

/// The exception of a [`RunError`]: `ConfigError` (with `file`, `field`,
/// `problem`), `OptionError`, `PolicyError`, `SimulationError`, or the
/// `EvtError` subclass of the POT failure.
pub fn run_error(e: RunError) -> PyErr {
    match e {
        RunError::Config(c) => {
            let msg = c.to_string();
            raise("ConfigError", msg, &[("file", c.file), ("field", c.field), ("problem", c.problem)])
        }
        RunError::Option(s) => raise("OptionError", s, &[]),
        RunError::Policy(s) => raise("PolicyError", s, &[]),
        RunError::Simulation(s) => raise("SimulationError", s, &[]),
        RunError::Evt { context, error } => pot_error(Some(&context), error),
    }
}

/// The `cosched.errors` class of each [`PotError`] variant.
pub fn pot_error(context: Option<&str>, e: PotError) -> PyErr {
    let class = match &e {
        PotError::TooFewExceedances { .. } => "TooFewExceedancesError",
        PotError::UnboundedTail { .. } => "UnboundedTailError",
        PotError::NoConvergence => "NoConvergenceError",
        PotError::NoThreshold(_) => "NoThresholdError",
        PotError::BadInput(_) => "BadSampleError",
    };
    let msg = match context {
        Some(c) => format!("{c}: {e}"),
        None => e.to_string(),
    };
    raise(class, msg, &[])
}
