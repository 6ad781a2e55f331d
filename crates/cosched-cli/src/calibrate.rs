//! `cosched calibrate`: measure this machine with cosched-bench, write a
//! machine preset, and (with --check) run a mix for real under several
//! policies in interleaved rounds and set the simulator's predictions from
//! the mix's model beside what was measured (`cosched_host::calibrate`).

use crate::calibrate_view::{print_check, print_replay};
use crate::live::LiveOpts;
use crate::opts::Format;
use crate::policy_knobs::RealKnobs;
use crate::OneLine;
use clap::Args as ClapArgs;
use cosched_host::calibrate::{CheckPlan, Checked};
use cosched_host::until::RoundsUntil;
use cosched_lab::mix_model::Programs;
use cosched_linux::calibrate::{derive, measure};
use cosched_linux::host::Host;
use cosched_linux::mix::Mix;
use cosched_linux::runtime::LINUX;
use cosched_machine::MachineSpec;
use std::path::PathBuf;

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
    /// models), and report each job's predicted against measured slowdown and the policy ranking,
    /// and each job's CPU time over its solo CPU time, switches and migrations, measured and
    /// simulated (docs/runtime.md, "What time-sharing cost each job").
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
    /// Interleaved rounds of the check: the first ones; more follow until --within holds.
    #[arg(long, default_value_t = 3)]
    repeat: u32,
    /// Go on with rounds until every measured slowdown's 95% interval is within ±PCT% of its mean
    /// (or --max-rounds, or --budget-s); 0: exactly --repeat rounds. With --check only [default: 5]
    #[arg(long, value_name = "PCT")]
    within: Option<f64>,
    /// Most rounds of the check when --within asks for more. With --check only [default: 12]
    #[arg(long)]
    max_rounds: Option<u32>,
    /// Wall-time budget of the check's rounds, s: no round starts after it. With --check only [default: 600]
    #[arg(long)]
    budget_s: Option<f64>,
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

/// The check's rounds by default: the goal (±%), the most rounds and the wall-time budget, s.
const WITHIN: f64 = 5.0;
const MAX_ROUNDS: u32 = 12;
const BUDGET_S: f64 = 600.0;

pub fn run(a: Args) -> Result<(), String> {
    // --out is written only by a measurement (no --preset, no --replay): only then is it checked,
    // since the check creates the file for a moment (a replay beside another run touched theirs).
    if a.preset.is_none() && a.replay.is_none() {
        crate::output::check_out_file("--out", Some(a.out.as_path()))?;
    }
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
    // A replay runs nothing, so its mix's programs need not be installed on this machine.
    let mix = match a.replay {
        Some(_) => a.check.as_deref().map(Mix::load).transpose().one_line()?,
        None => a.check.as_deref().map(crate::live::load_mix).transpose()?,
    };
    let programs = a.programs.as_deref().map(Programs::load).transpose().one_line()?;
    // Refusals the files decide come before any measurement: slits-* need every job modelled.
    if let Some(mix) = &mix {
        cosched_host::calibrate::refuse_unmodelled(mix, programs.as_ref(), &a.policies).one_line()?;
    }
    if a.check.is_none() {
        let given = [
            ("--within", a.within.is_some()),
            ("--max-rounds", a.max_rounds.is_some()),
            ("--budget-s", a.budget_s.is_some()),
        ];
        if let Some((flag, _)) = given.iter().find(|(_, g)| *g) {
            return Err(format!("{flag}: applies to the rounds of --check only; give --check MIX"));
        }
    }
    let max_rounds = a.max_rounds.unwrap_or(MAX_ROUNDS);
    // The rounds' goal and budgets, checked before anything is measured.
    until(&a)?;
    if max_rounds < a.repeat {
        return Err(format!("--max-rounds: must be at least --repeat ({}), got {max_rounds}", a.repeat));
    }
    if let (Some(file), Some(mix)) = (&a.replay, &mix) {
        let options = |entries: &[&str]| a.knobs.options(entries, a.seed).map(|(o, _)| o);
        let report = crate::progress::stderr();
        let r = cosched_host::replay::replay(file, mix, programs.as_ref(), &options, a.seed, &report).one_line()?;
        return print_replay(&r, a.format);
    }
    let (spec, measured) = match &a.preset {
        Some(p) => (cosched_machine::presets::machine(p).map_err(|e| e.to_string())?, None),
        None => {
            let host = Host::live();
            let m = measure(&host, a.seconds, &|s| eprintln!("calibrate: {s}")).one_line()?;
            let spec = derive(&a.name, &host, &m).one_line()?;
            let text = toml::to_string(&spec).map_err(|e| e.to_string())?;
            crate::output::write_whole(
                &a.out,
                &format!("# Written by `cosched calibrate`; see docs/runtime.md.\n{text}"),
            )?;
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
        Some(mix) => Some(check(&a, mix, &spec, programs.as_ref())?.report(mix)),
        None => None,
    };
    match a.format {
        Format::Json => {
            let v = serde_json::json!({
                "preset": spec,
                "measurements": measured,
                "timeshare": timeshare,
                "check": check,
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
            if let Some(c) = &check {
                print_check(&c.result, &c.model);
                if !c.skipped.is_empty() {
                    println!(
                        "no model (neither characterised, see --programs, nor cosched-bench with --mops): {}",
                        c.skipped.join(", ")
                    );
                }
                if !c.untrusted.is_empty() {
                    println!("untrusted fits (their predictions are guesses): {}", c.untrusted.join("; "));
                }
            }
        }
    }
    Ok(())
}

/// Run `mix` for real in interleaved rounds and simulated from its model on
/// `spec` (`cosched_host::calibrate`), notes on stderr.
fn check(a: &Args, mix: &Mix, spec: &MachineSpec, programs: Option<&Programs>) -> Result<Checked, String> {
    let entries: Vec<&str> = a.policies.iter().map(String::as_str).chain([LINUX]).collect();
    let (opts, notes) = a.knobs.options(&entries, a.seed).one_line()?;
    for n in notes {
        eprintln!("note: {n}");
    }
    let base = a.live.builder()?;
    // Each round runs the mix for real under every policy: the heartbeat fills the silences.
    crate::progress::begin(format!("calibrate --check {}", mix.name.as_deref().unwrap_or("mix")));
    let plan = CheckPlan {
        policies: a.policies.clone(),
        model: a.model.clone(),
        repeat: a.repeat as usize,
        seed: a.seed,
        opts,
        programs,
        report: crate::progress::stderr(),
        until: until(a)?,
    };
    cosched_host::calibrate::check(mix, spec, &plan, &base).one_line()
}

/// The check's rounds: `--within`, `--max-rounds` and `--budget-s`, or their defaults.
fn until(a: &Args) -> Result<Option<RoundsUntil>, String> {
    RoundsUntil::new(
        a.within.unwrap_or(WITHIN),
        u64::from(a.max_rounds.unwrap_or(MAX_ROUNDS)),
        a.budget_s.unwrap_or(BUDGET_S),
    )
    .one_line()
}
