//! The machine as a Python policy sees it (`cosched.View`, docs/architecture.md, "The policy boundary"):
//! `cosched_core::policy::MachineView`'s queries as methods returning plain Python values,
//! valid only during the `init` or `on_event` call the view is passed to (`crate::policy`).

use cosched_core::counters::Counters;
use cosched_core::ids::{CtxId, JobId, ThreadId};
use cosched_core::policy::MachineView;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::sync::Mutex;

/// The counter names, in the order [`View::thread_counters`] gives them.
pub const COUNTERS: [&str; 8] =
    ["instructions", "cycles", "llc_accesses", "llc_misses", "mem_reads", "mem_writes", "l1_accesses", "l1_misses"];

/// A thread's or socket's counters as Python gets them, in [`COUNTERS`] order.
type CounterTuple = (f64, f64, f64, f64, f64, f64, f64, f64);

/// A thread's counters as an array in [`COUNTERS`] order.
fn counter_array(c: Counters) -> [f64; 8] {
    [c.instructions, c.cycles, c.llc_accesses, c.llc_misses, c.mem_reads, c.mem_writes, c.l1_accesses, c.l1_misses]
}

fn counter_tuple(c: Counters) -> CounterTuple {
    (c.instructions, c.cycles, c.llc_accesses, c.llc_misses, c.mem_reads, c.mem_writes, c.l1_accesses, c.l1_misses)
}

/// The backend's view during one call, its lifetime erased.
#[derive(Clone, Copy)]
pub(crate) struct Raw(pub(crate) *const (dyn MachineView + 'static));

// SAFETY: a `Raw` is dereferenced only while the call that set it runs (it
// is cleared before that call returns), on the thread running it.
unsafe impl Send for Raw {}

/// The machine as a Python policy sees it (`cosched_core::policy::MachineView`),
/// valid only during the call it is passed to.
#[pyclass(frozen, module = "cosched", name = "View")]
pub struct View {
    /// The backend's view during the current call; None outside it (set by `PyPolicy::call`).
    pub(crate) view: Mutex<Option<Raw>>,
}

impl View {
    /// A view not yet set to any call's.
    pub(crate) fn unset() -> View {
        View { view: Mutex::new(None) }
    }

    fn get(&self) -> PyResult<&dyn MachineView> {
        let raw = *self.view.lock().unwrap_or_else(|e| e.into_inner());
        match raw {
            // SAFETY: set by `PyPolicy::call` to a view that outlives the
            // call, and cleared before the call returns.
            Some(Raw(p)) => Ok(unsafe { &*p }),
            None => Err(pyo3::exceptions::PyRuntimeError::new_err(
                "the view is valid only during the init or on_event call it was passed to",
            )),
        }
    }
}

#[pymethods]
impl View {
    /// Current simulated time, ns.
    fn now(&self) -> PyResult<u64> {
        Ok(self.get()?.now())
    }
    /// Hardware contexts.
    fn n_contexts(&self) -> PyResult<usize> {
        Ok(self.get()?.topology().n_contexts())
    }
    /// Threads the run will have.
    fn n_threads(&self) -> PyResult<usize> {
        Ok(self.get()?.n_threads_total())
    }
    /// Every context's (pipe, core, llc, socket), index = context id.
    fn topology(&self) -> PyResult<Vec<(u32, u32, u32, u32)>> {
        Ok(self.get()?.topology().contexts.iter().map(|c| (c.pipe, c.core, c.llc, c.socket)).collect())
    }
    /// The thread running on `ctx`, or None.
    fn running_on(&self, ctx: u32) -> PyResult<Option<u32>> {
        let v = self.get()?;
        check_ctx(v, ctx)?;
        Ok(v.running_on(CtxId(ctx)).map(|t| t.0))
    }
    /// The job of `thread`.
    fn job_of(&self, thread: u32) -> PyResult<u32> {
        let v = self.get()?;
        check_thread(v, thread)?;
        Ok(v.job_of(ThreadId(thread)).0)
    }
    /// Cumulative counters of `thread` as a tuple in `cosched.policy.COUNTERS`
    /// order, or None when the backend has none.
    fn thread_counters(&self, thread: u32) -> PyResult<Option<CounterTuple>> {
        let v = self.get()?;
        check_thread(v, thread)?;
        Ok(v.thread_counters(ThreadId(thread)).map(counter_tuple))
    }
    /// Cumulative counters of every thread of `threads`, one tuple each (None where the backend
    /// has none): every counter in [`COUNTERS`] order, or only those `fields` names, in its order
    /// (a policy that reads two of the eight pays for two).
    #[pyo3(signature = (threads, fields = None))]
    fn counters<'py>(
        &self,
        py: Python<'py>,
        threads: Vec<u32>,
        fields: Option<Vec<String>>,
    ) -> PyResult<Vec<Option<Bound<'py, PyTuple>>>> {
        let v = self.get()?;
        let picks: Vec<usize> = match &fields {
            None => (0..COUNTERS.len()).collect(),
            Some(names) => names
                .iter()
                .map(|n| {
                    COUNTERS.iter().position(|c| c == n).ok_or_else(|| {
                        pyo3::exceptions::PyValueError::new_err(format!(
                            "counters: `{n}` is not a counter (known: {})",
                            COUNTERS.join(", ")
                        ))
                    })
                })
                .collect::<PyResult<_>>()?,
        };
        threads
            .into_iter()
            .map(|t| {
                check_thread(v, t)?;
                let Some(c) = v.thread_counters(ThreadId(t)) else { return Ok(None) };
                let all = counter_array(c);
                Ok(Some(PyTuple::new(py, picks.iter().map(|&k| all[k]))?))
            })
            .collect()
    }
    /// Cumulative counters of `socket` (all its threads, and the bus's memory traffic), or None.
    fn socket_counters(&self, socket: u32) -> PyResult<Option<CounterTuple>> {
        Ok(self.get()?.socket_counters(socket).map(counter_tuple))
    }
    /// Cumulative energy (system, cpu, dram), J, or None.
    fn energy(&self) -> PyResult<Option<(f64, f64, f64)>> {
        Ok(self.get()?.energy().map(|e| (e.system, e.cpu, e.dram)))
    }
    /// Bytes of one last-level cache, or None.
    fn llc_bytes(&self) -> PyResult<Option<f64>> {
        Ok(self.get()?.llc_bytes())
    }
    /// Memory-bus peak, cache lines per second per socket, or None.
    fn bus_lines_per_s(&self) -> PyResult<Option<f64>> {
        Ok(self.get()?.bus_lines_per_s())
    }
    /// The power table P0, P1, … W (EFS Eq. 13), or None.
    fn power_table(&self) -> PyResult<Option<Vec<f64>>> {
        Ok(self.get()?.power_table())
    }
    /// Resident memory of `job`, bytes, or None.
    fn job_rss_bytes(&self, job: u32) -> PyResult<Option<f64>> {
        Ok(self.get()?.job_rss_bytes(JobId(job)))
    }
}

fn check_ctx(v: &dyn MachineView, ctx: u32) -> PyResult<()> {
    let n = v.topology().n_contexts();
    if ctx as usize >= n {
        return Err(pyo3::exceptions::PyIndexError::new_err(format!("context {ctx}: the machine has 0..{n}")));
    }
    Ok(())
}

fn check_thread(v: &dyn MachineView, t: u32) -> PyResult<()> {
    let n = v.n_threads_total();
    if t as usize >= n {
        return Err(pyo3::exceptions::PyIndexError::new_err(format!("thread {t}: the run has 0..{n}")));
    }
    Ok(())
}
