//! `cosched calibrate --check MIX --replay FILE`: the rounds an earlier
//! `calibrate --check --format json` measured, predicted again by today's
//! simulator (issue #49: a model change judged on a host's recorded runs
//! without measuring them again, so the host's drift between two runs cannot
//! pass for a change of the model).
//!
//! Everything the check's predictions ran on comes from the file: the preset
//! (the host as calibrated then), each job's solo time (the median over the
//! rounds, as the check takes it), the rounds (their policy seeds are
//! `--seed + round`, as the check's). Only the model is today's.

use crate::calibrate_check::{median, TARGET_WORST};
use crate::opts::Format;
use crate::policy_knobs::RealKnobs;
use cosched_lab::mix_model::{model_mix, simulate_policy, Programs};
use cosched_linux::mix::Mix;
use cosched_linux::runtime::LINUX;
use cosched_machine::MachineSpec;
use serde::Serialize;
use serde_json::Value;
use std::path::Path;

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
}

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
}

fn field<'a>(file: &str, v: &'a Value, path: &str) -> Result<&'a Value, String> {
    v.pointer(path).ok_or_else(|| format!("{file}: {}: missing", path.trim_start_matches('/').replace('/', ".")))
}

fn number(file: &str, v: &Value, path: &str) -> Result<f64, String> {
    field(file, v, path)?
        .as_f64()
        .filter(|x| x.is_finite())
        .ok_or_else(|| format!("{file}: {}: not a finite number", path.trim_start_matches('/').replace('/', ".")))
}

/// Replay `path` (a `calibrate --check --format json` output of `mix`).
pub fn replay(
    path: &Path,
    mix: &Mix,
    programs: Option<&Programs>,
    knobs: &RealKnobs,
    seed: u64,
) -> Result<Replay, String> {
    let file = path.display().to_string();
    let text = crate::input::read_text(&file)?;
    let v: Value = serde_json::from_str(&text).map_err(|e| format!("{file}: not JSON: {e}"))?;
    let spec: MachineSpec = serde_json::from_value(field(&file, &v, "/preset")?.clone())
        .map_err(|e| format!("{file}: preset: not a machine description: {e}"))?;
    let model = field(&file, &v, "/check/model")?
        .as_str()
        .ok_or_else(|| format!("{file}: check.model: not a string"))?
        .to_string();
    let solo_rows = field(&file, &v, "/check/result/solo_s")?
        .as_array()
        .ok_or_else(|| format!("{file}: check.result.solo_s: not a list"))?;
    let rounds = solo_rows.len();
    if rounds == 0 {
        return Err(format!("{file}: check.result.solo_s: no rounds"));
    }
    // Each round is a seed every policy is simulated at: bounded as `--repeat` is.
    crate::limits::REPEAT.check(rounds as u64).map_err(|e| format!("{file}: check.result.solo_s: {e}"))?;
    let jobs = mix.jobs.len();
    let mut solo = vec![];
    for j in 0..jobs {
        let xs: Vec<f64> = (0..rounds)
            .map(|r| number(&file, &v, &format!("/check/result/solo_s/{r}/{j}")))
            .collect::<Result<_, _>>()?;
        solo.push(Some(median(xs)));
    }
    let mix_model = model_mix(mix, &solo, &spec, programs).map_err(|e| e.to_string())?;
    let policies: Vec<String> = field(&file, &v, "/check/result/policies")?
        .as_array()
        .ok_or_else(|| format!("{file}: check.result.policies: not a list"))?
        .iter()
        .enumerate()
        .map(|(i, p)| {
            p.get("policy")
                .and_then(Value::as_str)
                .map(str::to_string)
                .ok_or_else(|| format!("{file}: check.result.policies[{i}].policy: missing"))
        })
        .collect::<Result<_, _>>()?;
    for (i, p) in policies.iter().enumerate() {
        crate::run::check_policy(p.split('#').next().unwrap_or(p))
            .map_err(|e| format!("{file}: check.result.policies[{i}].policy: {e}"))?;
    }
    let entries: Vec<&str> =
        policies.iter().map(|p| p.split('#').next().unwrap_or(p)).chain([LINUX]).collect::<Vec<_>>();
    let (opts, _) = knobs.options(&entries, seed).map_err(|e| e.to_string())?;
    let seeds: Vec<u64> = (0..rounds).map(|r| crate::rounds::round_seed(seed, r)).collect();
    let mut cells = vec![];
    let recorded = field(&file, &v, "/check/result/jobs")?
        .as_array()
        .ok_or_else(|| format!("{file}: check.result.jobs: not a list"))?;
    for label in &policies {
        let name = label.split('#').next().unwrap_or(label);
        let sim = if name == LINUX { model.as_str() } else { name };
        eprintln!("replay: simulating {label} as `{sim}` on `{}`", spec.name);
        let p = simulate_policy(&spec, &mix_model, sim, &opts, &seeds).map_err(|e| e.to_string())?;
        for (i, c) in recorded.iter().enumerate() {
            if c.get("policy").and_then(Value::as_str) != Some(label) {
                continue;
            }
            let job = c
                .get("job")
                .and_then(Value::as_str)
                .ok_or_else(|| format!("{file}: check.result.jobs[{i}].job: missing"))?;
            let Some(now) = p.slowdown.iter().find(|(n, _)| n == job).map(|(_, s)| *s) else {
                continue;
            };
            cells.push(Cell {
                policy: label.clone(),
                job: job.to_string(),
                measured: number(&file, &v, &format!("/check/result/jobs/{i}/measured/mean"))?,
                recorded: number(&file, &v, &format!("/check/result/jobs/{i}/predicted"))?,
                replayed: now,
            });
        }
    }
    if cells.is_empty() {
        return Err(format!("{file}: check.result.jobs: no cell of a modelled job"));
    }
    let err =
        |f: &dyn Fn(&Cell) -> f64| -> Vec<f64> { cells.iter().map(|c| (f(c) / c.measured - 1.0).abs()).collect() };
    let (then, now) = (err(&|c| c.recorded), err(&|c| c.replayed));
    let worst = |e: &[f64]| e.iter().copied().fold(0.0, f64::max);
    let beyond = |e: &[f64]| e.iter().filter(|x| **x > TARGET_WORST).count();
    Ok(Replay {
        file,
        model,
        rounds,
        median_abs_error: [median(then.clone()), median(now.clone())],
        worst_abs_error: [worst(&then), worst(&now)],
        beyond_worst: [beyond(&then), beyond(&now)],
        cells,
    })
}

/// Print a replay as a table, or as JSON.
pub fn print(r: &Replay, format: Format) -> Result<(), String> {
    if format == Format::Json {
        println!("{}", serde_json::to_string_pretty(r).map_err(|e| e.to_string())?);
        return Ok(());
    }
    println!("replay of {} (`linux` as `{}`, {} rounds):", r.file, r.model, r.rounds);
    println!(
        "{:<18} {:<12} {:>9} {:>9} {:>9} {:>8} {:>8}",
        "policy", "job", "measured", "recorded", "today", "error", "today"
    );
    for c in &r.cells {
        println!(
            "{:<18} {:<12} {:>9.3} {:>9.3} {:>9.3} {:>+7.1}% {:>+7.1}%",
            c.policy,
            c.job,
            c.measured,
            c.recorded,
            c.replayed,
            100.0 * (c.recorded / c.measured - 1.0),
            100.0 * (c.replayed / c.measured - 1.0)
        );
    }
    println!(
        "median |error| {:.1}% recorded, {:.1}% today; worst {:.1}% recorded, {:.1}% today; beyond 30%: {} recorded, {} today",
        100.0 * r.median_abs_error[0],
        100.0 * r.median_abs_error[1],
        100.0 * r.worst_abs_error[0],
        100.0 * r.worst_abs_error[1],
        r.beyond_worst[0],
        r.beyond_worst[1]
    );
    Ok(())
}
