//! `cosched calibrate`: measure this machine with cosched-bench, write a
//! machine preset, and (with --check) run a mix for real under several
//! policies in interleaved rounds and set the simulator's predictions from
//! the mix's model beside what was measured (`crate::calibrate_check`).

use crate::calibrate_check::{judge, Check};
use crate::live::LiveOpts;
use crate::opts::Format;
use crate::policy_knobs::RealKnobs;
use crate::rounds;
use crate::OneLine;
use clap::Args as ClapArgs;
use cosched_lab::mix_model::{model_mix, predicted_profile, simulate_policy, MixModel, Programs};
use cosched_linux::calibrate::{derive, measure};
use cosched_linux::host::Host;
use cosched_linux::mix::Mix;
use cosched_linux::runtime::{self, LINUX};
use cosched_machine::MachineSpec;
use std::path::PathBuf;

/// Round drift beyond which a round is marked (as `cosched run --policies`' default).
const DRIFT_THRESHOLD: f64 = 0.10;
/// Smallest makespan change claimed as a difference (as `cosched run --policies`' default).
const MIN_EFFECT: f64 = 0.01;

#[derive(ClapArgs)]
pub struct Args {
    /// Name of the preset written.
    #[arg(long, default_value = "local")]
    name: String,
    /// Where to write the preset (load it with `-m FILE`).
    #[arg(long, short = 'o', default_value = "local.toml")]
    out: PathBuf,
    /// Seconds per measurement point.
    #[arg(long, default_value_t = 0.4)]
    seconds: f64,
    /// Skip measuring: check against this preset (name or file) instead.
    #[arg(long)]
    preset: Option<String>,
    /// Run this mix for real in interleaved rounds (solo runs, then every --policies entry in a
    /// seeded random order) and simulated on the preset from its model (--programs, cosched-bench
    /// models), and report each job's predicted against measured slowdown and the policy ranking.
    #[arg(long)]
    check: Option<PathBuf>,
    /// Characterised programs (`cosched characterise` output): mix jobs of the same name are
    /// simulated as these; other `cosched-bench` jobs with --mops by their model; the rest are skipped.
    #[arg(long, requires = "check")]
    programs: Option<PathBuf>,
    /// Do not run the mix: predict again, with today's simulator, the rounds an earlier
    /// `calibrate --check MIX --format json` recorded in this file (its preset, solo times and
    /// round seeds, `--seed` as then), beside its recorded predictions and the measurements.
    #[arg(long, requires = "check")]
    replay: Option<PathBuf>,
    /// Policies the check runs and predicts (`linux` is always run: the baseline). slits-* run on
    /// the pair slowdowns the model predicts (every job must be modelled).
    #[arg(long, value_delimiter = ',', default_value = "linux,g-rrs,slits-contention,random")]
    policies: Vec<String>,
    /// The simulated fair class the check compares `linux` against: `eevdf` (Linux >= 6.6) or
    /// `cfs` (before). Default: the host kernel's (from /proc/sys/kernel/osrelease).
    #[arg(long, value_parser = ["cfs", "eevdf"])]
    model: Option<String>,
    /// Interleaved rounds of the check.
    #[arg(long, default_value_t = 3)]
    repeat: u32,
    /// Seed of the round orders, the randomised policies and the bootstrap.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Every policy's knobs (the real runtime's defaults); the simulation uses the same.
    #[command(flatten)]
    knobs: RealKnobs,
    #[command(flatten)]
    live: LiveOpts,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
}

pub fn run(a: Args) -> Result<(), String> {
    crate::output::check_out_file("--out", Some(a.out.as_path()))?;
    if !(a.seconds.is_finite() && a.seconds > 0.0 && a.seconds <= 3600.0) {
        return Err(format!(
            "--seconds: must be from 0 to 3600 (per measurement), got {}",
            cosched_core::num::shortest(a.seconds)
        ));
    }
    crate::limits::REPEAT.check(a.repeat as u64).one_line()?;
    if a.repeat == 0 {
        return Err("--repeat: must be at least 1".into());
    }
    for p in &a.policies {
        crate::run::check_policy(p)?;
    }
    let mix = a.check.as_deref().map(crate::live::load_mix).transpose()?;
    let programs = a.programs.as_deref().map(Programs::load).transpose().one_line()?;
    if let (Some(file), Some(mix)) = (&a.replay, &mix) {
        let r = crate::calibrate_replay::replay(file, mix, programs.as_ref(), &a.knobs, a.seed)?;
        return crate::calibrate_replay::print(&r, a.format);
    }
    let (spec, measured) = match &a.preset {
        Some(p) => (cosched_machine::presets::machine(p).map_err(|e| e.to_string())?, None),
        None => {
            let host = Host::live();
            let m = measure(&host, a.seconds, &|s| eprintln!("calibrate: {s}")).one_line()?;
            let spec = derive(&a.name, &host, &m).one_line()?;
            let text = toml::to_string(&spec).map_err(|e| e.to_string())?;
            std::fs::write(&a.out, format!("# Written by `cosched calibrate`; see docs/runtime.md.\n{text}"))
                .map_err(|e| format!("{}: cannot write: {e}", a.out.display()))?;
            eprintln!("calibrate: wrote {}", a.out.display());
            (spec, Some(m))
        }
    };
    let timeshare = match &measured {
        Some(m) => m
            .timeshare
            .iter()
            .map(|t| cosched_lab::timeshare_check::check(&spec, t))
            .collect::<Result<Vec<_>, _>>()
            .one_line()?,
        None => vec![],
    };
    let check = match &mix {
        Some(mix) => Some(check(&a, mix, &spec, programs.as_ref())?),
        None => None,
    };
    match a.format {
        Format::Json => {
            let v = serde_json::json!({
                "preset": spec,
                "measurements": measured,
                "timeshare": timeshare,
                "check": check.as_ref().map(|(c, model, m)| serde_json::json!({
                    "model": model,
                    "skipped": m.skipped,
                    "source": m.source,
                    "mix_jobs": mix.as_ref().map(|x| x.jobs.iter().map(|j| j.name.clone()).collect::<Vec<_>>()),
                    "result": c,
                })),
            });
            println!("{}", serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?);
        }
        _ => {
            if let Some(m) = &measured {
                println!(
                    "latency (ns/load) by working set: {}",
                    m.latency.iter().map(|(a, b)| format!("{a}M:{b:.1}")).collect::<Vec<_>>().join(" ")
                );
                println!(
                    "bandwidth GB/s by copies: {}",
                    m.bandwidth.iter().map(|(c, g)| format!("{c}:{g:.2}")).collect::<Vec<_>>().join(" ")
                );
                println!(
                    "pointer-chase co-run slowdown by working set: {}",
                    m.corun.iter().map(|(mb, s, p)| format!("{mb}M:{:.2}x", s / p)).collect::<Vec<_>>().join(" ")
                );
                for t in &timeshare {
                    let x = &t.measured;
                    println!(
                        "two chases time-sharing one CPU at {} MiB: pair/solo {:.3} measured ({:.0} switches each, quantum {:.2} ms, refill {:.1} µs per switch), {:.3} simulated ({:+.1}%)",
                        x.wss_mb,
                        x.slowdown(),
                        x.switches,
                        t.quantum_ms,
                        x.refill_us(),
                        t.predicted_slowdown,
                        100.0 * t.error
                    );
                }
                println!(
                    "preset `{}`: effective LLC {} MiB, LLC hit {} cycles, DRAM {} ns, {} GB/s",
                    spec.name,
                    spec.cache.llc_mb,
                    spec.cache.llc_hit_cycles,
                    spec.memory.loaded_latency[0][1],
                    spec.memory.bandwidth_gbs
                );
            }
            if let Some((c, model, m)) = &check {
                crate::calibrate_check::print(c, model);
                if !m.skipped.is_empty() {
                    println!(
                        "no model (neither characterised, see --programs, nor cosched-bench with --mops): {}",
                        m.skipped.join(", ")
                    );
                }
            }
        }
    }
    Ok(())
}

/// The simulated fair class `linux` is compared against: `--model`, else the host kernel's.
fn fair_model(a: &Args) -> String {
    match &a.model {
        Some(m) => m.clone(),
        None => {
            let rel = cosched_linux::host::kernel_release().unwrap_or_default();
            let m = cosched_linux::host::fair_class_of(&rel).unwrap_or("eevdf");
            eprintln!("check: kernel {rel}: comparing `linux` against the simulated `{m}` (--model to choose)");
            m.to_string()
        }
    }
}

/// Run `mix` for real in interleaved rounds and simulated from its model on
/// `spec`; the check, the fair-class model and the mix model.
fn check(
    a: &Args,
    mix: &Mix,
    spec: &MachineSpec,
    programs: Option<&Programs>,
) -> Result<(Check, String, MixModel), String> {
    let model = fair_model(a);
    let entries: Vec<&str> = a.policies.iter().map(String::as_str).chain([LINUX]).collect();
    let (opts, notes) = a.knobs.options(&entries, a.seed).one_line()?;
    for n in notes {
        eprintln!("note: {n}");
    }
    let base = a.live.builder()?;
    // A first solo run gives the cosched-bench models their speed, so that the
    // pair slowdowns SLITS runs on can be predicted before the rounds.
    eprintln!("check: solo runs for the model");
    let first: Vec<Option<f64>> = runtime::solo_turnarounds(mix, &base).one_line()?;
    let first_model = model_mix(mix, &first, spec, programs).one_line()?;
    let slits = a.policies.iter().any(|p| p.starts_with("slits"));
    let profile = if first_model.complete() {
        Some(predicted_profile(spec, &first_model).one_line()?)
    } else if slits {
        return Err(format!(
            "--policies: slits-* run on the pair slowdowns the model predicts, and {} has no model: characterise it (`cosched characterise`) and give --programs, or drop slits-*",
            first_model.skipped.join(", ")
        ));
    } else {
        None
    };
    let config = |m: Mix, p: &str| {
        let mut c = base(m, p);
        c.opts = opts.clone();
        c.profile = profile.clone();
        c
    };
    let plan = rounds::Plan {
        policies: a.policies.clone(),
        baseline: LINUX.into(),
        rounds: a.repeat as usize,
        seed: a.seed,
        drift_threshold: DRIFT_THRESHOLD,
        min_effect: MIN_EFFECT,
        config: &config,
        best: Err("not computed by calibrate --check (it compares the simulator's predictions with the runs)".into()),
    };
    let real = rounds::run(mix, &plan)?;
    // The model the predictions run on: each job's median solo time over the rounds.
    let solo: Vec<Option<f64>> = (0..mix.jobs.len())
        .map(|j| {
            let mut v: Vec<f64> = real.round.iter().map(|r| r.solo_s[j]).collect();
            v.sort_by(f64::total_cmp);
            v.get(v.len() / 2).copied()
        })
        .collect();
    let mix_model = model_mix(mix, &solo, spec, programs).one_line()?;
    let seeds: Vec<u64> = real.round.iter().map(|r| r.policy_seed).collect();
    let predict = |on: &MachineSpec| {
        real.policies
            .iter()
            .map(|row| {
                let name = row.policy.split('#').next().unwrap_or(&row.policy);
                let sim = if name == LINUX { model.as_str() } else { name };
                eprintln!("check: simulating {} as `{sim}` on `{}`", row.policy, on.name);
                simulate_policy(on, &mix_model, sim, &opts, &seeds)
            })
            .collect::<Result<Vec<_>, _>>()
    };
    let predicted = predict(spec).one_line()?;
    // The ablation: the same predictions on the preset without the host's other tenants.
    let without = if spec.cache.tenant_lines_per_s > 0.0 {
        let mut alone = spec.clone();
        alone.cache.tenant_lines_per_s = 0.0;
        alone.name = format!("{} without tenants", spec.name);
        Some(predict(&alone).one_line()?)
    } else {
        None
    };
    let names: Vec<String> = mix.jobs.iter().map(|j| j.name.clone()).collect();
    Ok((judge(&real, &predicted, without.as_deref(), &names), model, mix_model))
}
