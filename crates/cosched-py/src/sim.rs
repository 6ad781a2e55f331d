//! Experiments on the simulated machine: the lists, machine and workload
//! specs, one run (`simulate`), a comparison (`compare`) and any batch of
//! runs (`sweep`), all through `cosched_lab`'s functions; knobs arrive as
//! (keyword, typed value) pairs and are set through their declarations
//! ([`RunSpec::set`]).

use crate::errors::run_error;
use cosched_lab::compare::{comparison, Comparing, Steps};
use cosched_lab::failure::PolicyFailure;
use cosched_lab::knobs::knobs;
use cosched_lab::sweep::{config, config_custom, prepare, run_batch, Custom, Point};
use cosched_lab::{RunError, RunSpec};
use cosched_machine::output::Output;
use cosched_machine::{ChromeTrace, ConfigError, MachineSpec, TraceSlice};
use cosched_sim::presets;
use cosched_sim::WorkloadSpec;
use pyo3::prelude::*;

/// Register this module's functions.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(listing, m)?)?;
    m.add_function(wrap_pyfunction!(knob_list, m)?)?;
    m.add_function(wrap_pyfunction!(machine_spec, m)?)?;
    m.add_function(wrap_pyfunction!(machine_toml, m)?)?;
    m.add_function(wrap_pyfunction!(workload_spec, m)?)?;
    m.add_function(wrap_pyfunction!(workload_toml, m)?)?;
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(compare, m)?)?;
    m.add_function(wrap_pyfunction!(sweep, m)?)?;
    m.add_class::<crate::policy::Event>()?;
    m.add_class::<crate::policy::View>()?;
    m.add("COUNTERS", crate::policy::COUNTERS.to_vec())?;
    Ok(())
}

/// A policy given as Python code: (name, factory returning a fresh instance, needs).
type CustomIn = (String, Py<PyAny>, Vec<String>);

/// The [`Custom`] of a Python policy: each run calls `factory` for a fresh instance.
fn custom((name, factory, needs): CustomIn) -> Result<Custom, RunError> {
    let needs = crate::policy::parse_needs(&needs)
        .map_err(|problem| RunError::Policy(Box::new(PolicyFailure::Needs { name: name.clone(), problem })))?;
    let label = name.clone();
    let c = Custom {
        name,
        make: std::sync::Arc::new(move || {
            Python::attach(|py| {
                let obj = factory.call0(py).map_err(|e| format!("{label}: making a fresh instance raised: {e}"))?;
                Ok(Box::new(crate::policy::PyPolicy::new(obj, &label, needs)) as Box<dyn cosched_core::Policy>)
            })
        }),
    };
    c.check()?;
    Ok(c)
}

fn json<T: serde::Serialize>(py: Python<'_>, v: &T) -> PyResult<Py<PyAny>> {
    crate::data::to_py(py, v)
}

/// `cosched list WHAT --format json`: "policies", "machines" or "workloads".
#[pyfunction]
fn listing(py: Python<'_>, what: &str) -> PyResult<Py<PyAny>> {
    use cosched_lab::list::{items, What};
    let w = match what {
        "policies" => What::Policies,
        "machines" => What::Machines,
        "workloads" => What::Workloads,
        "metrics" => What::Metrics,
        other => {
            return Err(run_error(RunError::option(format!(
                "list: `{other}` is not policies, machines, workloads or metrics"
            ))))
        }
    };
    json(py, &items(w).map_err(run_error)?)
}

/// Every knob of the run options (keyword, flag, default, switch, help) as JSON.
#[pyfunction]
fn knob_list(py: Python<'_>) -> PyResult<Py<PyAny>> {
    json(py, &knobs())
}

use crate::knob_arg::KnobsIn;

/// The run of `knobs` with in-memory machine and workload TOML.
fn run_opts(
    knobs: &[(String, crate::knob_arg::KnobArg)],
    machine: Option<String>,
    workload: Option<String>,
) -> Result<RunSpec, RunError> {
    let mut r = RunSpec::default();
    for (name, value) in knobs {
        r.give(name, value.given())?;
    }
    r.machine_toml = machine;
    r.workload_toml = workload;
    Ok(r)
}

/// A machine (preset name, file, or `toml` text named `source`) as JSON.
#[pyfunction]
#[pyo3(signature = (source, toml=None))]
fn machine_spec(py: Python<'_>, source: &str, toml: Option<String>) -> PyResult<Py<PyAny>> {
    let m = match toml {
        Some(t) => MachineSpec::from_toml(source, &t),
        None => cosched_machine::presets::machine(source),
    };
    json(py, &m.map_err(|e| run_error(e.into()))?)
}

/// A workload (preset name, file, or `toml` text named `source`) as JSON, presets resolved.
#[pyfunction]
#[pyo3(signature = (source, toml=None))]
fn workload_spec(py: Python<'_>, source: &str, toml: Option<String>) -> PyResult<Py<PyAny>> {
    let w = match toml {
        Some(t) => presets::workload_from_toml(source, &t),
        None => presets::workload(source),
    };
    json(py, &w.map_err(|e| run_error(e.into()))?)
}

/// Spec JSON (as edited in Python) → TOML text, checked by loading it back
/// exactly as a file would be (`name` is cited in errors).
fn to_toml<T: serde::Serialize + serde::de::DeserializeOwned>(
    name: &str,
    spec_json: &str,
    load: impl Fn(&str, &str) -> Result<T, ConfigError>,
) -> PyResult<String> {
    // JSON → TOML text → the file loader, so a misspelt key or a value out of
    // range is named by its dotted path exactly as in a file; the generated
    // text is never seen, so errors cite `name` without a line.
    let mut value: serde_json::Value =
        serde_json::from_str(spec_json).map_err(|e| run_error(ConfigError::whole(name, e.to_string()).into()))?;
    drop_nulls(&mut value);
    let text = toml::to_string(&value).map_err(|e| run_error(ConfigError::whole(name, e.to_string()).into()))?;
    let spec: T =
        load(name, &text).map_err(|e| run_error(ConfigError { file: name.to_string(), line: None, ..e }.into()))?;
    toml::to_string(&spec).map_err(|e| run_error(ConfigError::whole(name, e.to_string()).into()))
}

/// Remove `null` members (an absent optional field) so the TOML says nothing of them.
fn drop_nulls(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(m) => {
            m.retain(|_, x| !x.is_null());
            m.values_mut().for_each(drop_nulls);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(drop_nulls),
        _ => {}
    }
}

/// A machine spec as JSON → checked TOML text.
#[pyfunction]
fn machine_toml(name: &str, spec_json: &str) -> PyResult<String> {
    to_toml::<MachineSpec>(name, spec_json, MachineSpec::from_toml)
}

/// A workload spec as JSON → checked TOML text.
#[pyfunction]
fn workload_toml(name: &str, spec_json: &str) -> PyResult<String> {
    to_toml::<WorkloadSpec>(name, spec_json, presets::workload_from_toml)
}

/// One stretch of a thread on a context: (context, thread, job, start ns, end ns).
type Slice = (u32, u32, u32, u64, u64);

/// One run: the report JSON (`cosched simulate --format json`), the job
/// names, and the schedule's slices when `collect`; `trace_path` also
/// writes the Perfetto trace there.
#[pyfunction]
#[pyo3(signature = (knobs, machine, workload, policy, seed, collect=false, trace_path=None, custom=None))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
fn simulate(
    py: Python<'_>,
    knobs: KnobsIn,
    machine: Option<String>,
    workload: Option<String>,
    policy: String,
    seed: u64,
    collect: bool,
    trace_path: Option<String>,
    custom: Option<CustomIn>,
) -> PyResult<(Py<PyAny>, Vec<String>, Vec<Slice>)> {
    let (text, names, slices) = crate::interrupt::interruptible(py, move |cancel| -> Result<_, RunError> {
        let mut run = run_opts(&knobs, machine, workload)?;
        run.cancel = cancel;
        let resolved = run.resolve()?;
        let custom = custom.map(self::custom).transpose()?;
        let cfg = match &custom {
            Some(c) => config_custom(&run, c, seed, &[c.name.as_str()])?,
            None => config(&run, &policy, seed)?,
        };
        let prep = prepare(&resolved, seed)?;
        let names: Vec<String> = prep.plan.jobs.iter().map(|j| j.name.clone()).collect();
        let mut slices: Vec<Slice> = vec![];
        let mut file = match &trace_path {
            Some(path) => {
                // Written whole (or into a device or FIFO, never replacing it), as the CLI's --trace.
                let f = Output::create(path.as_ref(), &format!("trace_path {path}"))
                    .map_err(|e| RunError::option(e.to_string()))?;
                Some(
                    ChromeTrace::new(f, &prep.varied.topology(), names.clone())
                        .map_err(|e| RunError::option(format!("trace_path {path}: cannot write: {e}")))?,
                )
            }
            None => None,
        };
        let mut sink = |s: TraceSlice| {
            if collect {
                slices.push((s.ctx, s.thread, s.job, s.start, s.end));
            }
            if let Some(t) = file.as_mut() {
                t.slice(s);
            }
        };
        let want = collect || trace_path.is_some();
        let sink: Option<&mut dyn FnMut(TraceSlice)> = if want { Some(&mut sink) } else { None };
        let r = match &custom {
            Some(c) => prep.run_custom(&run, c, &cfg, sink)?,
            None => prep.run(&run, &cfg, sink)?,
        };
        if let (Some(t), Some(path)) = (file, &trace_path) {
            let out = t.finish().map_err(|e| RunError::option(format!("trace_path {path}: cannot write: {e}")))?;
            out.commit().map_err(|e| RunError::option(e.to_string()))?;
        }
        Ok((r, names, slices))
    })?;
    Ok((crate::data::from_value(py, &text)?, names, slices))
}

/// `cosched compare --format json` for these options; `progress(n)` is called
/// with the number of runs to come (once, before the first; negative: none)
/// and `progress(0)` as each run finishes.
#[pyfunction]
#[pyo3(signature = (knobs, machine, workload, policies, baseline, seed, seeds, customs=vec![], bound=true, regimes=true, progress=None))]
#[allow(clippy::too_many_arguments)]
fn compare(
    py: Python<'_>,
    knobs: KnobsIn,
    machine: Option<String>,
    workload: Option<String>,
    policies: Option<Vec<String>>,
    baseline: String,
    seed: u64,
    seeds: u64,
    customs: Vec<CustomIn>,
    bound: bool,
    regimes: bool,
    progress: Option<Py<PyAny>>,
) -> PyResult<Py<PyAny>> {
    // The bound is kept and reused as `cosched compare` keeps it (the cache folder): a folder
    // named by COSCHED_CACHE_DIR that cannot keep it is refused, the default one skipped with a
    // `RuntimeWarning` (the command line's note), before any run.
    let cache = match (bound, cosched_lab::cache::folder()) {
        (false, _) => None,
        (true, Ok(dir)) => Some(cosched_lab::compare::BoundCache::new(&dir)),
        (true, Err(e)) if cosched_lab::cache::given() => return Err(run_error(RunError::option(e.to_string()))),
        (true, Err(e)) => {
            let text = std::ffi::CString::new(format!("the bound is computed and not kept ({e})")).unwrap_or_default();
            PyErr::warn(py, &py.get_type::<pyo3::exceptions::PyRuntimeWarning>(), &text, 1)?;
            None
        }
    };
    let c = crate::interrupt::interruptible(py, move |cancel| -> Result<_, RunError> {
        let mut run = run_opts(&knobs, machine, workload)?;
        run.cancel = cancel;
        let customs: Vec<Custom> = customs.into_iter().map(custom).collect::<Result<_, _>>()?;
        let names = policies.unwrap_or_else(cosched_lab::compare::default_policies);
        let what = Comparing {
            policies: &names,
            customs: &customs,
            baseline: &baseline,
            first_seed: seed,
            seeds,
            gap: bound,
            regimes,
            bound_cache: cache.as_ref(),
        };
        let call = |n: i64| {
            if let Some(cb) = &progress {
                Python::attach(|py| {
                    let _ = cb.call1(py, (n,));
                });
            }
        };
        let (total, tick) = (|n: usize| call(n as i64), || call(0));
        comparison(&run.resolve()?, &what, &Steps { total: &total, tick: &tick })
    })?;
    crate::data::from_value(py, &c)
}

/// One point of a sweep: (knobs, machine TOML, workload TOML, policy, seed).
type PointIn = (KnobsIn, Option<String>, Option<String>, String, u64);

/// Run every point (in parallel), reports as dicts in point order;
/// `progress(n)` is called as runs finish.
#[pyfunction]
#[pyo3(signature = (points, progress=None, customs=vec![]))]
fn sweep(
    py: Python<'_>,
    points: Vec<PointIn>,
    progress: Option<Py<PyAny>>,
    customs: Vec<CustomIn>,
) -> PyResult<Vec<Py<PyAny>>> {
    let texts = crate::interrupt::interruptible(py, move |cancel| -> Result<_, RunError> {
        let customs: Vec<Custom> = customs.into_iter().map(custom).collect::<Result<_, _>>()?;
        let pts: Vec<Point> = points
            .into_iter()
            .map(|(knobs, m, w, policy, seed)| {
                let custom = customs.iter().find(|c| c.name == policy).cloned();
                let mut run = run_opts(&knobs, m, w)?;
                run.cancel = cancel.clone();
                Ok(Point { run, policy, seed, custom })
            })
            .collect::<Result<_, RunError>>()?;
        let tick = || {
            if let Some(cb) = &progress {
                Python::attach(|py| {
                    let _ = cb.call1(py, (1,));
                });
            }
        };
        run_batch(&pts, &tick)
    })?;
    texts.iter().map(|r| crate::data::from_value(py, r)).collect()
}
