//! Experiments on the real machine (`cosched.host`):
//! interleaved rounds, the simulator's check against reality and the replay
//! of a recorded check, through `cosched_host`'s functions, the command
//! line's code path. Knobs arrive as (keyword, typed value) pairs and go through
//! their declarations; notes and progress lines go to stderr; each run's
//! watchdog is this Python interpreter calling [`_watchdog`]. The GIL is
//! released while real processes run.

use crate::errors::{raise, run_error, ErrorClass};
use crate::knob_arg::KnobsIn;
use cosched_core::pair_profile::PairProfile;
use cosched_core::progress::{Progress, Reporter};
use cosched_host::calibrate::CheckPlan;
use cosched_host::error::{known_policy, Recorded};
use cosched_host::live::{Face, Freezer, Live};
use cosched_host::rounds::{Bound as BestBound, Plan};
use cosched_host::HostError;
use cosched_lab::knobs::RealKnobs;
use cosched_lab::mix_model::Programs;
use cosched_lab::RunError;
use cosched_linux::best_static::{best_static, ENTRY};
use cosched_linux::runtime::{RuntimeError, StopRecord, LINUX};
use cosched_linux::watchdog::WatchdogCommand;
use cosched_machine::mix::Mix;
use pyo3::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Register this module's functions.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_watchdog, m)?)?;
    m.add_function(wrap_pyfunction!(interleaved, m)?)?;
    m.add_function(wrap_pyfunction!(calibrate_check, m)?)?;
    m.add_function(wrap_pyfunction!(replay, m)?)?;
    Ok(())
}

/// The exception of a [`HostError`]: the lab's for options and descriptions,
/// `PolicyError` (kind `unknown`) for a policy the runtime cannot run,
/// `ConfigError` (`file`, `field`, `problem`) for a recorded check it cannot
/// read, `OptionError` for a machine or record a characterisation cannot use, `HostError`
/// (`kind`: `runtime`, `solo_failed`, `stopped`, `probe`) for a run.
pub fn host_error(e: HostError) -> PyErr {
    let line = e.in_keywords();
    match e {
        HostError::Lab(e) => run_error(e),
        HostError::UnknownPolicy { .. } => raise(ErrorClass::Policy, line, &[("kind", "unknown".into())]),
        HostError::Unmodelled { .. } => raise(ErrorClass::Option, line, &[("knob", "policies".into())]),
        HostError::NoCoRunner { .. } => raise(ErrorClass::Option, line, &[("knob", "machine".into())]),
        HostError::ForeignPirates { .. } => raise(ErrorClass::Option, line, &[("knob", "added_pirates".into())]),
        HostError::Probe(_) => raise(ErrorClass::Host, line, &[("kind", "probe".into())]),
        HostError::Recorded { file, field, problem } => {
            let field = (!field.is_empty()).then_some(field);
            let attrs = [("file", file), ("problem", problem.to_string())];
            let err = raise(ErrorClass::Config, line, &attrs);
            Python::attach(|py| {
                let _ = err.value(py).setattr("field", field);
            });
            err
        }
        HostError::Runtime(RuntimeError::Stopped(stop)) => raise(ErrorClass::Host, line, &stopped(&stop)),
        HostError::Runtime(_) => raise(ErrorClass::Host, line, &[("kind", "runtime".into())]),
        HostError::SoloFailed { round, job } => {
            raise(ErrorClass::Host, line, &[("kind", "solo_failed".into()), ("round", round.to_string()), ("job", job)])
        }
        HostError::Stopped { round, entry, source } => {
            let mut attrs = vec![("round", round.to_string()), ("entry", entry)];
            match &source {
                RuntimeError::Stopped(stop) => attrs.extend(stopped(stop)),
                _ => attrs.push(("kind", "stopped".into())),
            }
            raise(ErrorClass::Host, line, &attrs)
        }
    }
}

/// The attributes of a run cut short: `kind` `stopped`, `reason` (`timed out
/// after 0.3 s`, `was interrupted by SIGINT`), the instances `terminated` and `killed`.
fn stopped(stop: &StopRecord) -> Vec<(&'static str, String)> {
    vec![
        ("kind", "stopped".into()),
        ("reason", stop.reason.clone()),
        ("terminated", stop.terminated.join(", ")),
        ("killed", stop.killed.join(", ")),
    ]
}

/// Notes and progress lines of a run from Python, on stderr.
struct Stderr;

impl Progress for Stderr {
    fn line(&self, text: &str) {
        eprintln!("{text}");
    }
}

/// The watchdog process's main (see `cosched_linux::watchdog`): Python's
/// runs start `python -c "from cosched._cosched import _watchdog; _watchdog()"`.
#[pyfunction]
fn _watchdog() {
    std::process::exit(cosched_linux::watchdog::watchdog_main());
}

/// The settings of real runs as Python passes them:
/// (machine, calibration, tick_ms, freezer, timeout_s, grace_s, output_dir).
pub(crate) type LiveIn = (Option<String>, Option<String>, f64, String, Option<f64>, f64, Option<PathBuf>);

pub(crate) fn live(
    (machine, calibration, tick_ms, freezer, timeout_s, grace_s, output_dir): LiveIn,
) -> Result<Live, HostError> {
    let freezer = match freezer.as_str() {
        "auto" => Freezer::Auto,
        "v1" => Freezer::V1,
        "v2" => Freezer::V2,
        "signals" => Freezer::Signals,
        other => {
            let problem = format!("must be one of auto, v1, v2, signals, got `{}`", cosched_core::text::quote(other));
            return Err(RunError::knob("freezer", problem).into());
        }
    };
    Ok(Live { machine, calibration, tick_ms, freezer, timeout_s, grace_s, output_dir })
}

/// The face Python gives every run: stderr, and this interpreter as the watchdog.
pub(crate) fn face(python: PathBuf) -> Face {
    let args = vec!["-c".into(), "from cosched._cosched import _watchdog; _watchdog()".into()];
    Face { report: Reporter::to(Arc::new(Stderr)), watchdog: Some(WatchdogCommand { program: python, args }) }
}

fn real_knobs(knobs: &KnobsIn) -> Result<RealKnobs, RunError> {
    let mut k = RealKnobs::default();
    for (name, value) in knobs {
        k.give(name, value.given())?;
    }
    Ok(k)
}

/// The options of `entries`' policies, with the notes on knobs only some read reported.
fn options(
    knobs: &RealKnobs,
    entries: &[&str],
    seed: u64,
    report: &Reporter,
) -> Result<cosched_policies::PolicyOptions, RunError> {
    let (opts, notes) = knobs.options(entries, seed)?;
    for n in notes {
        report.line(|| format!("note: {n}"));
    }
    Ok(opts)
}

pub(crate) fn load_mix(path: &Path) -> Result<Mix, HostError> {
    cosched_host::live::load_mix(path)
}

/// Interleaved rounds of `policies` on `mix` (the file), paired with
/// `baseline`; with `profile` (a `cosched probe` file), the best static
/// partition is run every round and each entry's gap to it measured.
/// Returns `cosched run --policies --format json`'s document.
#[pyfunction]
#[pyo3(signature = (mix, policies, baseline, repeat, seed, drift_threshold, min_effect, profile, live_in, knobs, python))]
#[allow(clippy::too_many_arguments)]
fn interleaved(
    py: Python<'_>,
    mix: PathBuf,
    policies: Vec<String>,
    baseline: String,
    repeat: u64,
    seed: u64,
    drift_threshold: f64,
    min_effect: f64,
    profile: Option<PathBuf>,
    live_in: LiveIn,
    knobs: KnobsIn,
    python: PathBuf,
) -> PyResult<Py<PyAny>> {
    let run = || -> Result<cosched_host::rounds::Interleaved, HostError> {
        let face = face(python);
        let mix = load_mix(&mix)?;
        for p in policies.iter().chain([&baseline]) {
            known_policy(p)?;
        }
        let repeat = cosched_lab::limits::REPEAT.check(repeat)? as usize;
        if drift_threshold.is_nan() || drift_threshold <= 0.0 {
            return Err(RunError::knob("drift_threshold", "must be > 0").into());
        }
        if min_effect.is_nan() || min_effect < 0.0 {
            return Err(RunError::knob("min_effect", "must be ≥ 0").into());
        }
        let mut entries: Vec<&str> = policies.iter().map(String::as_str).chain([baseline.as_str()]).collect();
        entries.dedup();
        let opts = options(&real_knobs(&knobs)?, &entries, seed, &face.report)?;
        let profile = profile.as_deref().map(read_profile).transpose()?;
        let base = live(live_in)?.builder(&face)?;
        let bound = match &profile {
            None => BestBound::Absent { why: "give `profile` (from `cosched probe`): the best static partition is predicted from pairwise slowdowns".into() },
            Some(p) => {
                let host = base(mix.clone(), LINUX).host.unwrap_or_else(cosched_linux::host::Host::live);
                best_static(&host.topology, &mix, p, seed)
                    .map_or_else(|e| BestBound::Absent { why: e.to_string() }, BestBound::Pinned)
            }
        };
        let pinned = match &bound {
            BestBound::Pinned(b) => Some(b.assignment.clone()),
            BestBound::Absent { .. } => None,
        };
        let config = |m: Mix, p: &str| {
            let mut c = base(m, if p == ENTRY { "static" } else { p });
            c.opts = opts.clone();
            c.profile = profile.clone();
            if p == ENTRY {
                c.opts.assignment = pinned.clone();
            }
            c
        };
        let plan = Plan {
            policies: policies.clone(),
            baseline: baseline.clone(),
            rounds: repeat,
            seed,
            drift_threshold,
            min_effect,
            config: &config,
            bound,
            report: face.report.clone(),
            until: None,
        };
        cosched_host::rounds::run(&mix, &plan)
    };
    let c = py.detach(run).map_err(host_error)?;
    crate::data::from_value(py, &c)
}

/// A probed profile (`cosched probe` output).
fn read_profile(path: &Path) -> Result<PairProfile, HostError> {
    let file = path.display().to_string();
    let text =
        cosched_machine::input::read_text(path, &file, cosched_machine::input::Kind::Config).map_err(RunError::from)?;
    serde_json::from_str(&text).map_err(|e| HostError::recorded(&file, "", Recorded::NotJson(e)))
}

/// The simulator's check against reality: `mix` run for real in
/// interleaved rounds and simulated on `preset` from its model. Returns
/// `cosched calibrate --preset P --check MIX --format json`'s `check` document.
#[pyfunction]
#[pyo3(signature = (mix, preset, policies, programs, model, repeat, seed, live_in, knobs, python, within, max_rounds, budget_s))]
#[allow(clippy::too_many_arguments)]
fn calibrate_check(
    py: Python<'_>,
    mix: PathBuf,
    preset: String,
    policies: Vec<String>,
    programs: Option<PathBuf>,
    model: Option<String>,
    repeat: u64,
    seed: u64,
    live_in: LiveIn,
    knobs: KnobsIn,
    python: PathBuf,
    within: f64,
    max_rounds: u64,
    budget_s: f64,
) -> PyResult<Py<PyAny>> {
    let run = || -> Result<cosched_host::calibrate::CheckReport, HostError> {
        let face = face(python);
        for p in &policies {
            known_policy(p)?;
        }
        if let Some(m) = model.as_deref().filter(|m| !["cfs", "eevdf"].contains(m)) {
            let problem = format!("must be cfs or eevdf, got `{}`", cosched_core::text::quote(m));
            return Err(RunError::knob("model", problem).into());
        }
        let until = cosched_host::until::RoundsUntil::new(within, max_rounds, budget_s)?;
        let repeat = cosched_lab::limits::REPEAT.check(repeat)? as usize;
        let mix_file = load_mix(&mix)?;
        let spec = cosched_machine::presets::machine(&preset).map_err(RunError::from)?;
        let programs = programs.as_deref().map(Programs::load).transpose()?;
        let entries: Vec<&str> = policies.iter().map(String::as_str).chain([LINUX]).collect();
        let opts = options(&real_knobs(&knobs)?, &entries, seed, &face.report)?;
        let base = live(live_in)?.builder(&face)?;
        let plan = CheckPlan {
            policies: policies.clone(),
            model,
            repeat,
            seed,
            opts,
            programs: programs.as_ref(),
            report: face.report.clone(),
            until,
        };
        Ok(cosched_host::calibrate::check(&mix_file, &spec, &plan, &base)?.report(&mix_file))
    };
    let v = py.detach(run).map_err(host_error)?;
    crate::data::from_value(py, &v)
}

/// A recorded check (`calibrate --check --format json`) predicted again by
/// today's simulator. Returns `--replay`'s JSON document.
#[pyfunction]
#[pyo3(signature = (recorded, mix, programs, seed, knobs))]
fn replay(
    py: Python<'_>,
    recorded: PathBuf,
    mix: PathBuf,
    programs: Option<PathBuf>,
    seed: u64,
    knobs: KnobsIn,
) -> PyResult<Py<PyAny>> {
    let run = || -> Result<cosched_host::replay::Replay, HostError> {
        let report = Reporter::to(Arc::new(Stderr));
        // Nothing is run: the mix's programs need not be installed here.
        let mix = Mix::load(&mix).map_err(RunError::from)?;
        let programs = programs.as_deref().map(Programs::load).transpose()?;
        let knobs = real_knobs(&knobs)?;
        let options = |entries: &[&str]| options(&knobs, entries, seed, &Reporter::default());
        cosched_host::replay::replay(&recorded, &mix, programs.as_ref(), &options, seed, &report)
    };
    let r = py.detach(run).map_err(host_error)?;
    crate::data::from_value(py, &r)
}
