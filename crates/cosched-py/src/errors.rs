//! Each error variant of the library as its own exception class of
//! `cosched.errors` (defined in Python, so classes can also derive from
//! `ValueError` or `RuntimeError`), carrying the CLI's one-line message
//! with knobs named by their keywords (`quantum_ms`, where the CLI says
//! `--quantum-ms`): [`RunError::Option`] carries them apart from the problem.

use cosched_core::evt::PotError;
use cosched_lab::failure::{PolicyFailure, SimFailure, StudyError};
use cosched_lab::RunError;
use pyo3::prelude::*;

/// The exception classes of `cosched.errors` the bindings raise, each named here once. The
/// classes are written in Python (so that each can also derive from `ValueError`,
/// `RuntimeError`, …); [`ErrorClass::name`] is the one place their names are spelled on this
/// side, and `_cosched._error_classes` lets a Python test hold every one to its class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorClass {
    /// A machine, workload or mix file, or a field of one, is wrong (`ConfigError`).
    Config,
    /// A keyword or its value is wrong (`OptionError`).
    Option,
    /// The policy is unknown, refused or failed (`PolicyError`).
    Policy,
    /// The simulation failed or was stopped (`SimulationError`).
    Simulation,
    /// A study has no data to work on (`StudyError`).
    Study,
    /// A run of real processes failed (`HostError`).
    Host,
    /// POT: too few exceedances above the threshold (`TooFewExceedancesError`).
    TooFewExceedances,
    /// POT: the fitted tail has no upper end (`UnboundedTailError`).
    UnboundedTail,
    /// POT: the fit did not converge (`NoConvergenceError`).
    NoConvergence,
    /// POT: no threshold passes the test (`NoThresholdError`).
    NoThreshold,
    /// POT: the sample holds a value that is not a finite number (`BadSampleError`).
    BadSample,
    /// The FM completion of a thread-interaction matrix failed (`CompletionError`).
    Completion,
}

impl ErrorClass {
    /// Every class, in the order of the enum.
    pub const ALL: [ErrorClass; 12] = [
        ErrorClass::Config,
        ErrorClass::Option,
        ErrorClass::Policy,
        ErrorClass::Simulation,
        ErrorClass::Study,
        ErrorClass::Host,
        ErrorClass::TooFewExceedances,
        ErrorClass::UnboundedTail,
        ErrorClass::NoConvergence,
        ErrorClass::NoThreshold,
        ErrorClass::BadSample,
        ErrorClass::Completion,
    ];

    /// The class's name in `cosched.errors` (an exhaustive match: a new class is named here or
    /// the build fails).
    pub fn name(self) -> &'static str {
        match self {
            ErrorClass::Config => "ConfigError",
            ErrorClass::Option => "OptionError",
            ErrorClass::Policy => "PolicyError",
            ErrorClass::Simulation => "SimulationError",
            ErrorClass::Study => "StudyError",
            ErrorClass::Host => "HostError",
            ErrorClass::TooFewExceedances => "TooFewExceedancesError",
            ErrorClass::UnboundedTail => "UnboundedTailError",
            ErrorClass::NoConvergence => "NoConvergenceError",
            ErrorClass::NoThreshold => "NoThresholdError",
            ErrorClass::BadSample => "BadSampleError",
            ErrorClass::Completion => "CompletionError",
        }
    }
}

/// Every class the bindings raise, by name (`_cosched._error_classes`: the test that each is a
/// class of `cosched.errors`).
#[pyfunction]
pub fn _error_classes() -> Vec<&'static str> {
    ErrorClass::ALL.iter().map(|c| c.name()).collect()
}

/// An instance of `cosched.errors.<class>` with `message`, and `attrs` set on it.
pub fn raise(class: ErrorClass, message: String, attrs: &[(&str, String)]) -> PyErr {
    Python::attach(|py| {
        let made = (|| -> PyResult<PyErr> {
            let cls = py.import("cosched.errors")?.getattr(class.name())?;
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
/// `problem`), `OptionError`, `PolicyError`, `SimulationError`, `StudyError`, or the
/// `EvtError` subclass of the POT failure.
pub fn run_error(e: RunError) -> PyErr {
    match e {
        RunError::Config(c) => config_error(c),
        RunError::Option { ref knobs, .. } => raise(ErrorClass::Option, e.in_keywords(), &[("knob", knobs.join(", "))]),
        RunError::Policy(e) => raise(ErrorClass::Policy, e.to_string(), &located(e.kind(), e.workload())),
        RunError::Simulation(e) => raise(ErrorClass::Simulation, e.to_string(), &located(e.kind(), e.workload())),
        RunError::Study(e) => raise(ErrorClass::Study, e.to_string(), &[("kind", e.kind().to_string())]),
        RunError::Evt { context, error } => pot_error(Some(&context), error),
    }
}

/// The `kind` attribute, and `workload` when the failure names one.
fn located(kind: &str, workload: Option<&str>) -> Vec<(&'static str, String)> {
    let mut attrs = vec![("kind", kind.to_string())];
    if let Some(w) = workload {
        attrs.push(("workload", w.to_string()));
    }
    attrs
}

/// One example of every [`RunError`] variant, by name, as the exception
/// Python sees (`_cosched._variant_errors`: the test that each variant has a
/// class of its own).
#[pyfunction]
pub fn _variant_errors() -> Vec<(&'static str, PyErr)> {
    let examples = [
        RunError::Config(cosched_machine::ConfigError::whole("machine `x`", "example")),
        RunError::knob("quantum_ms", "example"),
        RunError::Policy(Box::new(PolicyFailure::Unnamed)),
        RunError::Simulation(Box::new(SimFailure::Bare(cosched_sim::SimError::Cancelled))),
        RunError::Study(StudyError::NoModel),
        RunError::Evt { context: "example".into(), error: PotError::BadInput(cosched_core::evt::BadSample::NotFinite) },
    ];
    examples.into_iter().map(|e| (variant(&e), run_error(e))).collect()
}

/// The name of `e`'s variant (the match is exhaustive: a new variant fails
/// the build here until it is named, and the Python test until it has a class).
fn variant(e: &RunError) -> &'static str {
    match e {
        RunError::Config(_) => "Config",
        RunError::Option { .. } => "Option",
        RunError::Policy(_) => "Policy",
        RunError::Simulation(_) => "Simulation",
        RunError::Study(_) => "Study",
        RunError::Evt { .. } => "Evt",
    }
}

/// `ConfigError` with `file` (without a `:LINE` suffix), `line` (or `None`),
/// `field` (dotted path, or `None` when no single field is at fault) and `problem`.
pub fn config_error(mut c: cosched_machine::ConfigError) -> PyErr {
    // A field that is a command-line flag (`--threads`) is named by its Python keyword (`threads`).
    if let Some(flag) = c.field.as_deref().and_then(|f| f.strip_prefix("--")) {
        c.field = Some(flag.replace('-', "_"));
    }
    let msg = c.to_string();
    let cosched_machine::ConfigError { file, line, field, problem } = c;
    Python::attach(|py| {
        let made = (|| -> PyResult<PyErr> {
            let exc = py.import("cosched.errors")?.getattr(ErrorClass::Config.name())?.call1((msg,))?;
            exc.setattr("file", file)?;
            exc.setattr("line", line)?;
            exc.setattr("field", field)?;
            exc.setattr("problem", problem)?;
            Ok(PyErr::from_value(exc))
        })();
        made.unwrap_or_else(|e| e)
    })
}

/// The `cosched.errors` class of each [`PotError`] variant.
pub fn pot_error(context: Option<&str>, e: PotError) -> PyErr {
    let class = match &e {
        PotError::TooFewExceedances { .. } => ErrorClass::TooFewExceedances,
        PotError::UnboundedTail { .. } => ErrorClass::UnboundedTail,
        PotError::NoConvergence => ErrorClass::NoConvergence,
        PotError::NoThreshold(_) => ErrorClass::NoThreshold,
        PotError::BadInput(_) => ErrorClass::BadSample,
    };
    let msg = match context {
        Some(c) => format!("{c}: {e}"),
        None => e.to_string(),
    };
    raise(class, msg, &[])
}
