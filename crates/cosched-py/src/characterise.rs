//! `cosched.host.characterise`: a characterisation of real programs without a PMU
//! (`cosched_host::characterise`, the command line's code path: `cosched characterise`), measured
//! on this host or fitted from a record. Returns the workload file's text, the record and each
//! job's fit as data; the file is the caller's to write.

use crate::host::{face, host_error, live, load_mix, LiveIn};
use cosched_host::characterise::{self, Characterised, Source};
use cosched_host::HostError;
use cosched_lab::characterise::{solo_spread, unfit, Fit, Pattern, PATTERNS, WITH_NONE};
use cosched_lab::RunError;
use cosched_linux::characterise::{JobRecord, Record};
use pyo3::prelude::*;
use serde_json::{json, Value};
use std::path::PathBuf;

/// Register this module's function.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(characterise_jobs, m)?)
}

/// The access patterns `access` names (`cosched characterise --access`): `both`, `random`, `all`.
fn patterns(access: &str) -> Result<&'static [Pattern], HostError> {
    match access {
        "both" => Ok(&PATTERNS),
        "random" => Ok(&[Pattern::Random]),
        "all" => Ok(&WITH_NONE),
        _ => Err(RunError::knob("access", format!("must be both, random or all, got {access:?}")).into()),
    }
}

/// One fitted job (or phase) as Python reads it: the row `cosched characterise` prints.
fn job(j: &JobRecord, f: &Fit) -> Value {
    json!({
        "job": j.name,
        "solo_s": j.solo_s,
        "spread": solo_spread(j),
        "access": f.access.to_string(),
        "either": f.either,
        "footprint_mb": f.footprint_mb,
        "footprint_range": [f.footprint_range.0, f.footprint_range.1],
        "llc_apki": f.llc_apki,
        "apki_range": [f.apki_range.0, f.apki_range.1],
        "mlp": f.mlp,
        "presence": j.presence.as_ref().map(|_| f.presence),
        "rms": f.rms,
        "untrusted": unfit(j).iter().map(ToString::to_string).collect::<Vec<_>>(),
    })
}

/// Characterise the jobs of `mix` (measured) or of the record at `from_record` on the calibrated
/// machine `preset`: `{"workload": TEXT, "record": RECORD, "jobs": [ROW, ...]}`, a job's phases
/// after it where its progress reports show phases.
#[pyfunction]
#[pyo3(signature = (preset, mix, from_record, file, repeat, within, max_rounds, budget_s, added_pirates, access, phases, presence, live_in, python))]
#[allow(clippy::too_many_arguments)]
fn characterise_jobs(
    py: Python<'_>,
    preset: String,
    mix: Option<PathBuf>,
    from_record: Option<PathBuf>,
    file: String,
    repeat: u64,
    within: f64,
    max_rounds: u64,
    budget_s: f64,
    added_pirates: Option<u64>,
    access: String,
    phases: bool,
    presence: bool,
    live_in: LiveIn,
    python: PathBuf,
) -> PyResult<Py<PyAny>> {
    let run = || -> Result<Value, HostError> {
        let face = face(python);
        let m = cosched_machine::presets::machine(&preset).map_err(RunError::from)?;
        // Past u32, the bounds below refuse the count (naming it) at its largest value.
        let count = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
        let s = characterise::settings(
            count(repeat),
            within,
            count(max_rounds),
            budget_s,
            added_pirates.map(count),
            patterns(&access)?,
            phases,
            presence,
        )?;
        characterise::machine_ready(&m, &face.report)?;
        let rec: Record = match (&from_record, &mix) {
            (Some(p), _) => {
                let name = p.display().to_string();
                let text = cosched_machine::input::read_text(p, &name, cosched_machine::input::Kind::Config)
                    .map_err(RunError::Config)?;
                let record = serde_json::from_str(&text).map_err(|e| {
                    RunError::Config(cosched_machine::ConfigError::whole(
                        &name,
                        format!("not a characterisation record (the JSON `characterise --record FILE` writes): {e}"),
                    ))
                })?;
                characterise::record(&m, &s, Source::Record { file: &name, record }, &face.report)?
            }
            (None, Some(w)) => {
                let mix = load_mix(w)?;
                let base = live(live_in)?.builder(&face)?;
                let date = characterise::today();
                characterise::record(&m, &s, Source::Measure { mix: &mix, base: &base, date: &date }, &face.report)?
            }
            (None, None) => return Err(RunError::knob("mix", "give `mix` to measure or `from_record` to fit").into()),
        };
        let kept = serde_json::to_value(&rec).map_err(|e| RunError::option(e.to_string()))?;
        let Characterised { record, fitted, workload } = characterise::fit(&m, &preset, &s, rec, &file, &|_| {})?;
        let mut jobs = vec![];
        for (i, j) in record.jobs.iter().enumerate() {
            jobs.push(job(j, &fitted.fits[i]));
            for p in fitted.phased[i].iter() {
                jobs.extend(p.records.iter().zip(&p.fits).map(|(r, f)| job(r, f)));
            }
        }
        Ok(json!({ "workload": workload, "record": kept, "jobs": jobs }))
    };
    let v = py.detach(run).map_err(host_error)?;
    crate::data::from_value(py, &v)
}
