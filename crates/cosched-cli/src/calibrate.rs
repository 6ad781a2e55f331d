//! `cosched calibrate`: measure this machine with cosched-bench, write a
//! machine preset, and (with --check) compare the simulator's predicted
//! slowdowns of a mix with the measured ones.

use crate::calibrate_check::{compare, simulate_mix};
use crate::live::LiveOpts;
use crate::opts::Format;
use clap::Args as ClapArgs;
use cosched_linux::calibrate::{derive, measure};
use cosched_linux::host::Host;
use cosched_linux::runtime::{self, LINUX};
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
    /// Run this mix of cosched-bench jobs for real (solo, then together under linux) and simulated
    /// on the preset (under --model), and report each job's slowdown prediction error.
    #[arg(long)]
    check: Option<PathBuf>,
    /// The simulated fair class the check compares `linux` against: `eevdf` (Linux >= 6.6) or
    /// `cfs` (before). Default: the host kernel's (from /proc/sys/kernel/osrelease).
    #[arg(long, value_parser = ["cfs", "eevdf"])]
    model: Option<String>,
    /// Repetitions of the real mix run in the check (slowdowns averaged).
    #[arg(long, default_value_t = 3)]
    repeat: u32,
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
    if a.repeat == 0 {
        return Err("--repeat: must be at least 1".into());
    }
    let mix = a.check.as_deref().map(crate::live::load_mix).transpose()?;
    let (spec, measured) = match &a.preset {
        Some(p) => (cosched_machine::presets::machine(p).map_err(|e| e.to_string())?, None),
        None => {
            let host = Host::live();
            let m = measure(&host, a.seconds, &|s| eprintln!("calibrate: {s}"))?;
            let spec = derive(&a.name, &host, &m)?;
            let text = toml::to_string(&spec).map_err(|e| e.to_string())?;
            std::fs::write(&a.out, format!("# Written by `cosched calibrate`; see docs/runtime.md.\n{text}"))
                .map_err(|e| format!("{}: cannot write: {e}", a.out.display()))?;
            eprintln!("calibrate: wrote {}", a.out.display());
            (spec, Some(m))
        }
    };
    let mut predictions = None;
    if let Some(mix) = &mix {
        let base = a.live.builder()?;
        let solo: Vec<f64> = runtime::solo_turnarounds(mix, &base)?
            .into_iter()
            .zip(&mix.jobs)
            .map(|(t, j)| t.ok_or_else(|| format!("{}: solo run failed", j.name)))
            .collect::<Result<_, _>>()?;
        let mut sums = vec![0.0; mix.jobs.len()];
        for k in 0..a.repeat {
            eprintln!("check: mix under linux ({}/{})", k + 1, a.repeat);
            let mut c = base(mix.clone(), LINUX);
            c.solo = solo.iter().copied().map(Some).collect();
            let r = runtime::run(c)?;
            for (j, job) in mix.jobs.iter().enumerate() {
                sums[j] += r.mean_slowdown(&job.name).unwrap_or(0.0);
            }
        }
        let real: Vec<(String, f64)> =
            mix.jobs.iter().zip(&sums).map(|(j, s)| (j.name.clone(), s / a.repeat as f64)).collect();
        let model = match &a.model {
            Some(m) => m.clone(),
            None => {
                let rel = cosched_linux::host::kernel_release().unwrap_or_default();
                let m = cosched_linux::host::fair_class_of(&rel).unwrap_or("eevdf");
                eprintln!("check: kernel {rel}: comparing against the `{m}` model (--model to choose)");
                m.to_string()
            }
        };
        let (sim, skipped) = simulate_mix(mix, &solo, &spec, &model)?;
        predictions = Some((compare(&real, &sim), skipped, model));
    }
    match a.format {
        Format::Json => {
            let v = serde_json::json!({
                "preset": spec,
                "measurements": measured,
                "check": predictions.as_ref().map(|(p, s, m)| serde_json::json!({"model": m, "predictions": p, "skipped": s})),
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
                println!(
                    "preset `{}`: effective LLC {} MiB, LLC hit {} cycles, DRAM {} ns, {} GB/s",
                    spec.name,
                    spec.cache.llc_mb,
                    spec.cache.llc_hit_cycles,
                    spec.memory.loaded_latency[0][1],
                    spec.memory.bandwidth_gbs
                );
            }
            if let Some((p, skipped, model)) = &predictions {
                println!("{:<16} {:>14} {:>14} {:>8}", "job", "real slowdown", format!("sim ({model})"), "error");
                for x in p {
                    println!("{:<16} {:>14.3} {:>14.3} {:>7.1}%", x.job, x.real, x.simulated, 100.0 * x.error);
                }
                if !skipped.is_empty() {
                    println!("no model (not cosched-bench with --mops): {}", skipped.join(", "));
                }
            }
        }
    }
    Ok(())
}
