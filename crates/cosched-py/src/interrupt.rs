//! Long Rust work that Ctrl-C stops: the work runs on a thread of its own
//! without the GIL while the calling thread waits in short slices, checking
//! Python's signal handlers between them (`PyErr_CheckSignals`). A
//! `KeyboardInterrupt` sets the work's cancel flag, which the simulator
//! reads every few thousand events ([`SimOptions::cancel`]), waits for the
//! work to stop and raises the interrupt itself. A `KeyboardInterrupt` or
//! `SystemExit` raised inside a Python policy comes out as itself too
//! ([`take_base_exception`]), not as a `SimulationError`.
//!
//! [`SimOptions::cancel`]: cosched_sim::engine::SimOptions::cancel

use crate::errors::{raise, run_error, ErrorClass};
use cosched_lab::RunError;
use cosched_sim::engine::Cancel;
use pyo3::prelude::*;
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::sync::Mutex;
use std::time::Duration;

/// How long the caller waits between two looks at Python's signals (the
/// interrupt is raised within this plus the simulator's check interval).
const SLICE: Duration = Duration::from_millis(50);

/// A `BaseException` that is not an `Exception` (KeyboardInterrupt,
/// SystemExit) raised inside a Python policy, kept to be re-raised as itself.
static BASE_EXCEPTION: Mutex<Option<PyErr>> = Mutex::new(None);

/// Keep `err` to re-raise after the run when it is a KeyboardInterrupt or
/// SystemExit (the first one wins); returns whether it was kept.
pub fn keep_base_exception(py: Python<'_>, err: &PyErr) -> bool {
    use pyo3::exceptions::{PyException, PyGeneratorExit};
    let base = !err.is_instance_of::<PyException>(py) && !err.is_instance_of::<PyGeneratorExit>(py);
    if base {
        let mut slot = BASE_EXCEPTION.lock().unwrap_or_else(|e| e.into_inner());
        slot.get_or_insert_with(|| err.clone_ref(py));
    }
    base
}

/// The kept KeyboardInterrupt or SystemExit, if any (cleared).
pub fn take_base_exception() -> Option<PyErr> {
    BASE_EXCEPTION.lock().unwrap_or_else(|e| e.into_inner()).take()
}

/// How long an interrupted caller waits for the work to stop before it
/// raises anyway, leaving the work to end in the background (work that
/// reads its cancel flag stops within a few milliseconds).
const GRACE: Duration = Duration::from_millis(300);

/// Run `work` (given its cancel flag) off the GIL on a thread of its own,
/// raising a KeyboardInterrupt that arrives meanwhile within about
/// [`SLICE`] + [`GRACE`].
pub fn interruptible<T: Send + 'static>(
    py: Python<'_>,
    work: impl FnOnce(Cancel) -> Result<T, RunError> + Send + 'static,
) -> PyResult<T> {
    take_base_exception();
    let cancel = Cancel::new();
    let (tx, rx) = channel();
    let flag = cancel.clone();
    let worker = std::thread::Builder::new()
        .name("cosched-work".into())
        .spawn(move || {
            // The thread attaches to Python once and detaches for the work: a
            // Python policy's calls then re-take the GIL on this thread's own
            // state instead of creating and destroying one per event.
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                Python::attach(|py| py.detach(|| work(flag)))
            }));
            let _ = tx.send(r);
        })
        .map_err(|e| raise(ErrorClass::Simulation, format!("cannot start a thread: {e}"), &[]))?;
    // A Mutex makes the receiver shareable with the GIL-free closures.
    let rx = Mutex::new(rx);
    let wait = |d: Duration| rx.lock().unwrap_or_else(|e| e.into_inner()).recv_timeout(d);
    let result = loop {
        match py.detach(|| wait(SLICE)) {
            Ok(r) => break r,
            Err(RecvTimeoutError::Disconnected) => {
                return Err(raise(ErrorClass::Simulation, "the work thread ended without a result".into(), &[]))
            }
            Err(RecvTimeoutError::Timeout) => {}
        }
        if let Err(interrupt) = py.check_signals() {
            cancel.set();
            if py.detach(|| wait(GRACE)).is_ok() {
                let _ = worker.join();
            }
            return Err(interrupt);
        }
    };
    let _ = worker.join();
    match result {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(take_base_exception().unwrap_or_else(|| run_error(e))),
        Err(panic) => std::panic::resume_unwind(panic),
    }
}
