//! A recorded check replayed (`cosched calibrate --check MIX --replay FILE`,
//! Python's `cosched.host.replay`): the rounds an earlier
//! `calibrate --check --format json` measured, predicted again by today's
//! simulator (a model change judged on a host's recorded runs
//! without measuring them again, so the host's drift between two runs cannot
//! pass for a change of the model).
//!
//! Everything the check's predictions ran on comes from the file: the preset
//! (the host as calibrated then), each job's solo time (the median over the
//! rounds, as the check takes it), the rounds (their policy seeds are
//! the seed + round, as the check's). Only the model is today's.

use crate::check::{median, TARGET_WORST};
use crate::error::{known_policy, HostError, Recorded};
use cosched_core::progress::Reporter;
use cosched_core::stats::MeanCi;
use cosched_lab::mix_model::{model_mix, simulate_policy, Programs};
use cosched_lab::RunError;
use cosched_linux::mix::Mix;
use cosched_linux::runtime::LINUX;
use cosched_machine::MachineSpec;
use cosched_policies::PolicyOptions;
use serde::Serialize;
use serde_json::Value;
use std::path::Path;

cosched_core::metric_fields! {
    /// One job under one policy: measured, predicted then, predicted now.
    #[derive(Serialize)]
    pub struct Cell {
        /// Policy label.
        pub policy: String,
        /// Mix job.
        pub job: String,
        /// Measured mean slowdown over the rounds.
        pub measured: f64,
        /// The prediction the file recorded.
        pub recorded: f64,
        /// Today's prediction.
        pub replayed: f64,
        /// The job's measured CPU time over its solo CPU time, mean and 95% interval over the
        /// rounds; none in a file recorded before checks measured it.
        pub measured_cpu: Option<MeanCi>,
        /// Today's simulated CPU time over solo time of the same cell; none where the simulator
        /// has no figures for the job.
        pub replayed_cpu: Option<f64>,
    }
}

cosched_core::metric_fields! {
    /// The replay: every cell and both predictions' summary.
    #[derive(Serialize)]
    pub struct Replay {
        /// The file replayed.
        pub file: String,
        /// The simulated fair class `linux` ran as.
        pub model: String,
        /// Rounds (seeds) each prediction averages.
        pub rounds: usize,
        /// Every cell.
        pub cells: Vec<Cell>,
        /// Median |error| of the recorded and of today's predictions.
        pub median_abs_error: [f64; 2],
        /// Worst |error|, recorded and today.
        pub worst_abs_error: [f64; 2],
        /// Cells beyond 30%, recorded and today.
        pub beyond_worst: [usize; 2],
        /// Median |error| of today's simulated CPU ratio against the measured mean, over the cells
        /// that measured it; none when none did.
        pub cpu_median_abs_error: Option<f64>,
        /// Of those cells, how many have today's simulated CPU ratio inside the measured interval, and how many there are.
        pub cpu_inside: [usize; 2],
    }
}

/// The dotted name of a JSON pointer (`/check/model` → `check.model`).
fn dotted(path: &str) -> String {
    path.trim_start_matches('/').replace('/', ".")
}

fn field<'a>(file: &str, v: &'a Value, path: &str) -> Result<&'a Value, HostError> {
    v.pointer(path).ok_or_else(|| HostError::recorded(file, &dotted(path), Recorded::Missing))
}

fn number(file: &str, v: &Value, path: &str) -> Result<f64, HostError> {
    let x = field(file, v, path)?.as_f64().filter(|x| x.is_finite());
    x.ok_or_else(|| HostError::recorded(file, &dotted(path), Recorded::NotNumber))
}

fn list<'a>(file: &str, v: &'a Value, path: &str) -> Result<&'a Vec<Value>, HostError> {
    field(file, v, path)?.as_array().ok_or_else(|| HostError::recorded(file, &dotted(path), Recorded::NotList))
}

/// Options of the policies a replay simulates, given their names (`linux` among them).
pub type OptionsOf<'a> = &'a dyn Fn(&[&str]) -> Result<PolicyOptions, RunError>;

/// Replay `path` (a `calibrate --check --format json` output of `mix`);
/// `options` builds the policies' options for the entries the file ran,
/// at `seed` (the check's).
pub fn replay(
    path: &Path,
    mix: &Mix,
    programs: Option<&Programs>,
    options: OptionsOf,
    seed: u64,
    report: &Reporter,
) -> Result<Replay, HostError> {
    let file = path.display().to_string();
    let v = read_recorded(path)?;
    let spec: MachineSpec = serde_json::from_value(field(&file, &v, "/preset")?.clone())
        .map_err(|e| HostError::recorded(&file, "preset", Recorded::NotMachine(e)))?;
    let model = field(&file, &v, "/check/model")?
        .as_str()
        .ok_or_else(|| HostError::recorded(&file, "check.model", Recorded::NotString))?
        .to_string();
    let rounds = list(&file, &v, "/check/result/solo_s")?.len();
    if rounds == 0 {
        return Err(HostError::recorded(&file, "check.result.solo_s", Recorded::NoRounds));
    }
    // Each round is a seed every policy is simulated at: bounded as `repeat` is.
    cosched_lab::limits::REPEAT
        .check(rounds as u64)
        .map_err(|e| HostError::recorded(&file, "check.result.solo_s", Recorded::Bound(Box::new(e))))?;
    let jobs = mix.jobs.len();
    let mut solo = vec![];
    for j in 0..jobs {
        let xs: Vec<f64> = (0..rounds)
            .map(|r| number(&file, &v, &format!("/check/result/solo_s/{r}/{j}")))
            .collect::<Result<_, _>>()?;
        solo.push(Some(median(xs)));
    }
    let mix_model = model_mix(mix, &solo, &spec, programs)?;
    let policies = recorded_policies(&file, &v)?;
    let entries: Vec<&str> = policies.iter().map(|p| p.split('#').next().unwrap_or(p)).chain([LINUX]).collect();
    let opts = options(&entries)?;
    let seeds: Vec<u64> = (0..rounds).map(|r| crate::rounds::round_seed(seed, r)).collect();
    let mut cells = vec![];
    let recorded = list(&file, &v, "/check/result/jobs")?;
    for label in &policies {
        let name = label.split('#').next().unwrap_or(label);
        let sim = if name == LINUX { model.as_str() } else { name };
        report.line(|| format!("replay: simulating {label} as `{sim}` on `{}`", spec.name));
        let p = simulate_policy(&spec, &mix_model, sim, &opts, &seeds)?;
        for (i, c) in recorded.iter().enumerate() {
            if c.get("policy").and_then(Value::as_str) != Some(label) {
                continue;
            }
            let job = c
                .get("job")
                .and_then(Value::as_str)
                .ok_or_else(|| HostError::recorded(&file, &format!("check.result.jobs[{i}].job"), Recorded::Missing))?;
            let Some(now) = p.slowdown.iter().find(|(n, _)| n == job).map(|(_, s)| *s) else {
                continue;
            };
            let cpu_at = format!("/check/result/jobs/{i}/time_sharing/cpu_ratio");
            let measured_cpu = match v.pointer(&cpu_at) {
                None | Some(Value::Null) => None,
                Some(_) => Some(mean_ci_at(&file, &v, &cpu_at)?),
            };
            // No CPU comparison for a job the simulator did not run (no figures to set beside it).
            let replayed_cpu = p.sched.iter().find(|(n, _)| n == job).map(|(_, s)| s.cpu_ratio);
            cells.push(Cell {
                policy: label.clone(),
                job: job.to_string(),
                measured: number(&file, &v, &format!("/check/result/jobs/{i}/measured/mean"))?,
                recorded: number(&file, &v, &format!("/check/result/jobs/{i}/predicted"))?,
                replayed: now,
                measured_cpu,
                replayed_cpu,
            });
        }
    }
    if cells.is_empty() {
        return Err(HostError::recorded(&file, "check.result.jobs", Recorded::NoCell));
    }
    let err =
        |f: &dyn Fn(&Cell) -> f64| -> Vec<f64> { cells.iter().map(|c| (f(c) / c.measured - 1.0).abs()).collect() };
    let (then, now) = (err(&|c| c.recorded), err(&|c| c.replayed));
    let worst = |e: &[f64]| e.iter().copied().fold(0.0, f64::max);
    let beyond = |e: &[f64]| e.iter().filter(|x| **x > TARGET_WORST).count();
    let cpu: Vec<(&MeanCi, f64)> =
        cells.iter().filter_map(|c| Some((c.measured_cpu.as_ref()?, c.replayed_cpu?))).collect();
    let cpu_errors: Vec<f64> = cpu.iter().map(|(m, s)| (s / m.mean - 1.0).abs()).collect();
    let cpu_inside = [cpu.iter().filter(|(m, s)| (m.lo..=m.hi).contains(s)).count(), cpu.len()];
    Ok(Replay {
        cpu_median_abs_error: (!cpu_errors.is_empty()).then(|| median(cpu_errors)),
        cpu_inside,
        file,
        model,
        rounds,
        median_abs_error: [median(then.clone()), median(now.clone())],
        worst_abs_error: [worst(&then), worst(&now)],
        beyond_worst: [beyond(&then), beyond(&now)],
        cells,
    })
}

/// A recorded mean and 95% interval (`mean`, `lo`, `hi`, `n` under `path`).
fn mean_ci_at(file: &str, v: &Value, path: &str) -> Result<MeanCi, HostError> {
    let n = number(file, v, &format!("{path}/n"))?;
    Ok(MeanCi {
        mean: number(file, v, &format!("{path}/mean"))?,
        lo: number(file, v, &format!("{path}/lo"))?,
        hi: number(file, v, &format!("{path}/hi"))?,
        n: n.max(0.0) as usize,
    })
}

/// The policy labels a recorded check ran (`check.result.policies[].policy`),
/// each one the runtime can run.
fn recorded_policies(file: &str, v: &Value) -> Result<Vec<String>, HostError> {
    let mut out = vec![];
    for (i, p) in list(file, v, "/check/result/policies")?.iter().enumerate() {
        let at = format!("check.result.policies[{i}].policy");
        let label =
            p.get("policy").and_then(Value::as_str).ok_or_else(|| HostError::recorded(file, &at, Recorded::Missing))?;
        let name = label.split('#').next().unwrap_or(label);
        known_policy(name)
            .map_err(|_| HostError::recorded(file, &at, Recorded::UnknownPolicy { name: name.into() }))?;
        out.push(label.to_string());
    }
    Ok(out)
}

/// A recorded check's JSON (bounded as every data file is).
fn read_recorded(path: &Path) -> Result<Value, HostError> {
    let file = path.display().to_string();
    let text =
        cosched_machine::input::read_text(path, &file, cosched_machine::input::Kind::Data).map_err(RunError::from)?;
    serde_json::from_str(&text).map_err(|e| HostError::recorded(&file, "", Recorded::NotJson(e)))
}
