//! A policy written in Python: a `cosched.Policy` subclass run by
//! the simulator through the same contract as the built-in policies
//! (`cosched_core::policy`, docs/architecture.md, "The policy boundary"). Each event
//! crosses as an [`Event`] object and the machine as a [`View`] whose methods
//! return plain Python values (no JSON per event); the decisions come back as
//! tuples (`("run", thread, ctx)`, …; `cosched.policy` builds them). A Python
//! exception, or a decision that is not one, stops the run through
//! [`Policy::failure`] with the traceback and the simulated time.

use cosched_core::ids::{CtxId, PeriodId, ThreadId};
use cosched_core::policy::{BlockReason, Decision, Event as CoreEvent, MachineView, Needs, Policy};
use cosched_core::policy_error::PolicyError;
use cosched_core::policy_ext::Fallible;
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};
use std::collections::BTreeSet;
use std::sync::Mutex;

use crate::policy_view::Raw;
pub use crate::policy_view::{View, COUNTERS};

/// One event as the Python policy sees it: `kind` is `arrived`, `runnable`,
/// `blocked`, `exited`, `timer`, `period_begin` or `period_end`; the other
/// fields are set where the kind has them (None otherwise), as in the Rust
/// `Event` (`cosched_core::policy::Event`).
#[pyclass(frozen, module = "cosched", name = "Event")]
pub struct Event {
    /// The kind (read through [`Event::kind`], an interned Python string).
    kind: &'static str,
    /// The thread (every kind but `timer`).
    #[pyo3(get)]
    thread: Option<u32>,
    /// The thread's job (`arrived`).
    #[pyo3(get)]
    job: Option<u32>,
    /// The context left (`blocked`, `exited`; `period_begin` when it was running).
    #[pyo3(get)]
    ctx: Option<u32>,
    /// Why it blocked: `barrier`, `lock` or `io` (`blocked`; read through [`Event::reason`]).
    reason: Option<&'static str>,
    /// The timer's key (`timer`).
    #[pyo3(get)]
    key: Option<u32>,
    /// The period (`period_begin`, `period_end`).
    #[pyo3(get)]
    period: Option<u32>,
    /// What the period declares: (resource `llc`/`membw`, amount, reuse `low`/`medium`/`high`).
    #[pyo3(get)]
    demand: Option<(&'static str, f64, &'static str)>,
}

/// `word` as a Python string made once per process (the event kinds and block reasons: a
/// policy compares them on every event, and a fresh string per read cost more than the call).
fn word<'py>(py: Python<'py>, word: &'static str) -> Bound<'py, PyString> {
    let w = match word {
        "arrived" => pyo3::intern!(py, "arrived"),
        "runnable" => pyo3::intern!(py, "runnable"),
        "blocked" => pyo3::intern!(py, "blocked"),
        "exited" => pyo3::intern!(py, "exited"),
        "timer" => pyo3::intern!(py, "timer"),
        "period_begin" => pyo3::intern!(py, "period_begin"),
        "period_end" => pyo3::intern!(py, "period_end"),
        "barrier" => pyo3::intern!(py, "barrier"),
        "lock" => pyo3::intern!(py, "lock"),
        "io" => pyo3::intern!(py, "io"),
        other => return PyString::new(py, other),
    };
    w.clone()
}

#[pymethods]
impl Event {
    /// The kind: `arrived`, `runnable`, `blocked`, `exited`, `timer`, `period_begin` or `period_end`.
    #[getter]
    fn kind<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        word(py, self.kind)
    }

    /// Why it blocked: `barrier`, `lock` or `io` (`blocked`), else None.
    #[getter]
    fn reason<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyString>> {
        self.reason.map(|r| word(py, r))
    }

    fn __repr__(&self) -> String {
        let mut parts = vec![];
        let mut add = |k: &str, v: Option<String>| {
            if let Some(v) = v {
                parts.push(format!("{k}={v}"));
            }
        };
        add("thread", self.thread.map(|x| x.to_string()));
        add("job", self.job.map(|x| x.to_string()));
        add("ctx", self.ctx.map(|x| x.to_string()));
        add("reason", self.reason.map(|x| format!("'{x}'")));
        add("key", self.key.map(|x| x.to_string()));
        add("period", self.period.map(|x| x.to_string()));
        add("demand", self.demand.map(|d| format!("('{}', {}, '{}')", d.0, d.1, d.2)));
        format!("Event('{}'{}{})", self.kind, if parts.is_empty() { "" } else { ", " }, parts.join(", "))
    }
}

impl Event {
    fn of(ev: &CoreEvent) -> Event {
        let mut e =
            Event { kind: "", thread: None, job: None, ctx: None, reason: None, key: None, period: None, demand: None };
        match *ev {
            CoreEvent::Arrived { thread, job } => {
                (e.kind, e.thread, e.job) = ("arrived", Some(thread.0), Some(job.0));
            }
            CoreEvent::Runnable { thread } => (e.kind, e.thread) = ("runnable", Some(thread.0)),
            CoreEvent::Blocked { thread, ctx, reason } => {
                let r = match reason {
                    BlockReason::Barrier => "barrier",
                    BlockReason::Lock => "lock",
                    BlockReason::Io => "io",
                };
                (e.kind, e.thread, e.ctx, e.reason) = ("blocked", Some(thread.0), Some(ctx.0), Some(r));
            }
            CoreEvent::Exited { thread, ctx } => (e.kind, e.thread, e.ctx) = ("exited", Some(thread.0), Some(ctx.0)),
            CoreEvent::Timer { key } => (e.kind, e.key) = ("timer", Some(key)),
            CoreEvent::PeriodBegin { thread, ctx, period, demand } => {
                (e.kind, e.thread, e.ctx, e.period) =
                    ("period_begin", Some(thread.0), ctx.map(|c| c.0), Some(period.0));
                e.demand = Some((demand.resource.word(), demand.amount, demand.reuse.word()));
            }
            CoreEvent::PeriodEnd { thread, period } => {
                (e.kind, e.thread, e.period) = ("period_end", Some(thread.0), Some(period.0));
            }
        }
        e
    }
}

/// The needs a policy class declares (`needs = ("counters", …)`).
pub fn parse_needs(words: &[String]) -> Result<Needs, String> {
    let mut n = Needs::default();
    for w in words {
        match w.as_str() {
            "counters" => n.counters = true,
            "smt" => n.smt = true,
            "progress_periods" => n.progress_periods = true,
            "energy" => n.energy = true,
            other => {
                return Err(format!(
                    "needs: `{other}` is not a need (known: counters, smt, progress_periods, energy; \
                     a policy given as code cannot be an oracle)"
                ))
            }
        }
    }
    Ok(n)
}

/// Names live as long as the program: each distinct one is kept once.
fn intern(name: &str) -> &'static str {
    static NAMES: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(n) = names.get(name) {
        return n;
    }
    let n: &'static str = Box::leak(name.to_string().into_boxed_str());
    names.insert(n);
    n
}

/// A Python object run as a [`Policy`].
pub struct PyPolicy {
    obj: Py<PyAny>,
    name: &'static str,
    needs: Needs,
    view: Option<Py<View>>,
    failure: Option<String>,
}

impl PyPolicy {
    /// The policy `obj` (with `init(view)` and `on_event(event, view)`), named `name`.
    pub fn new(obj: Py<PyAny>, name: &str, needs: Needs) -> PyPolicy {
        PyPolicy { obj, name: intern(name), needs, view: None, failure: None }
    }

    /// Call `method` with the view set to `view` for the duration.
    fn call<'py>(
        &mut self,
        py: Python<'py>,
        view: &dyn MachineView,
        method: &Bound<'py, PyString>,
        event: Option<Event>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let v = match &self.view {
            Some(v) => v.clone_ref(py),
            None => {
                let v = Py::new(py, View::unset())?;
                self.view = Some(v.clone_ref(py));
                v
            }
        };
        // SAFETY: the lifetime is erased only while `view` is borrowed by this call (cleared below).
        let erased: *const (dyn MachineView + 'static) =
            unsafe { std::mem::transmute::<*const dyn MachineView, *const (dyn MachineView + 'static)>(view) };
        let set = |r: Option<Raw>| *v.get().view.lock().unwrap_or_else(|e| e.into_inner()) = r;
        set(Some(Raw(erased)));
        let r = match event {
            Some(e) => self.obj.bind(py).call_method1(method, (e, v.clone_ref(py))),
            None => self.obj.bind(py).call_method1(method, (v.clone_ref(py),)),
        };
        set(None);
        r
    }

    /// The failure message: what happened, when, and the Python traceback.
    fn fail(&mut self, py: Python<'_>, view: &dyn MachineView, what: &str, err: PyErr) {
        if crate::interrupt::keep_base_exception(py, &err) {
            self.failure = Some(format!("{what}: {err}"));
            return;
        }
        let tb = py
            .import("traceback")
            .and_then(|t| t.call_method1("format_exception", (err.clone_ref(py),)))
            .and_then(|lines| lines.extract::<Vec<String>>())
            .map(|l| l.concat())
            .unwrap_or_else(|_| err.to_string());
        self.failure = Some(format!("{what} at simulated time {:.6} s:\n{}", view.now() as f64 * 1e-9, tb.trim_end()));
    }
}

/// Append the decisions in `result` (None, or an iterable of tuples) to `out`.
fn decisions(result: &Bound<'_, PyAny>, out: &mut Vec<Decision>) -> PyResult<()> {
    if result.is_none() {
        return Ok(());
    }
    for (i, item) in result.try_iter()?.enumerate() {
        let item = item?;
        let bad = |why: &str| {
            let r = item.repr().map(|r| r.to_string()).unwrap_or_default();
            pyo3::exceptions::PyValueError::new_err(format!("decision {i} {r}: {why}"))
        };
        let t = item.cast::<PyTuple>().map_err(|_| bad("not a tuple (use cosched.policy.run(), preempt(), …)"))?;
        let name = t
            .get_borrowed_item(0)
            .ok()
            .and_then(|k| k.cast::<PyString>().ok())
            .ok_or_else(|| bad("the first item must be the decision's name"))?;
        let kind = name.to_str().map_err(|_| bad("the first item must be the decision's name"))?;
        let int = |k: usize| -> PyResult<u32> {
            t.get_borrowed_item(k)
                .and_then(|x| x.extract::<u32>())
                .map_err(|_| bad(&format!("item {k} must be an integer ≥ 0")))
        };
        let arity =
            |n: usize| if t.len() == n { Ok(()) } else { Err(bad(&format!("`{kind}` takes {} values", n - 1))) };
        out.push(match kind {
            "run" => {
                arity(3)?;
                Decision::Run { thread: ThreadId(int(1)?), ctx: CtxId(int(2)?) }
            }
            "preempt" => {
                arity(2)?;
                Decision::Preempt { ctx: CtxId(int(1)?) }
            }
            "idle" => {
                arity(2)?;
                Decision::Idle { ctx: CtxId(int(1)?) }
            }
            "timer" => {
                arity(3)?;
                let at = t.get_borrowed_item(2)?;
                let at = if at.is_none() {
                    None
                } else {
                    Some(at.extract::<u64>().map_err(|_| bad("item 2 must be a time in ns ≥ 0, or None to cancel"))?)
                };
                Decision::Timer { key: int(1)?, at }
            }
            "admit" => {
                arity(2)?;
                Decision::Admit { period: PeriodId(int(1)?) }
            }
            other => return Err(bad(&format!("unknown decision `{other}` (run, preempt, idle, timer, admit)"))),
        });
    }
    Ok(())
}

impl Policy for PyPolicy {
    fn name(&self) -> &'static str {
        self.name
    }

    fn needs(&self) -> Needs {
        self.needs
    }

    fn init(&mut self, view: &dyn MachineView) -> Result<(), PolicyError> {
        Python::attach(|py| match self.call(py, view, pyo3::intern!(py, "init"), None) {
            Ok(_) => Ok(()),
            Err(e) => {
                self.fail(py, view, "init raised", e);
                Err(PolicyError::Refused(self.failure.clone().unwrap_or_default()))
            }
        })
    }

    fn on_event(&mut self, ev: &CoreEvent, view: &dyn MachineView, out: &mut Vec<Decision>) {
        if self.failure.is_some() {
            return;
        }
        Python::attach(|py| {
            let r = self
                .call(py, view, pyo3::intern!(py, "on_event"), Some(Event::of(ev)))
                .and_then(|r| decisions(&r, out));
            if let Err(e) = r {
                out.clear();
                self.fail(py, view, &format!("on_event raised handling {}", Event::of(ev).__repr__()), e);
            }
        });
    }

    fn as_fallible(&mut self) -> Option<&mut dyn Fallible> {
        Some(self)
    }
}

impl Fallible for PyPolicy {
    fn failure(&mut self) -> Option<String> {
        self.failure.clone()
    }
}
