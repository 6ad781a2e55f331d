//! `cosched probe`: co-run probing of a mix's jobs on this machine (no PMU
//! needed), FM-completed into a job-level interaction matrix that
//! `cosched run --profile` feeds to the SLITS policies.

use crate::opts::Format;
use crate::run::LiveOpts;
use clap::Args as ClapArgs;
use cosched_linux::probing;
use std::path::PathBuf;

#[derive(ClapArgs)]
pub struct Args {
    /// Mix file whose jobs are probed (one instance of each).
    #[arg(long, short = 'w')]
    workload: PathBuf,
    /// Share of the job pairs (self-pairs included) to co-run; the factorization machine completes the rest.
    #[arg(long, default_value_t = 0.5)]
    pairs: f64,
    /// Seed of the pair choice and the FM.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write the profile (JSON) here, for `cosched run --profile`.
    #[arg(long, short = 'o')]
    out: Option<PathBuf>,
    #[command(flatten)]
    live: LiveOpts,
    /// Output format of the matrix.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
}

pub fn run(a: Args) -> Result<(), String> {
    if !(a.pairs.is_finite() && a.pairs > 0.0 && a.pairs <= 1.0) {
        return Err(format!("--pairs: must be in (0, 1], got {}", a.pairs));
    }
    let mix = crate::run::load_mix(&a.workload)?;
    let base = a.live.builder()?;
    let profile = probing::probe(&mix, a.pairs, a.seed, base)?;
    let completed = profile.complete(a.seed);
    if let Some(out) = &a.out {
        let text = serde_json::to_string_pretty(&profile).map_err(|e| e.to_string())?;
        std::fs::write(out, text + "\n").map_err(|e| format!("{}: cannot write: {e}", out.display()))?;
    }
    match a.format {
        Format::Json => {
            let v = serde_json::json!({ "profile": profile, "completed": completed, "density": profile.density() });
            println!("{}", serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?);
        }
        _ => {
            println!(
                "slowdown of row job beside column job ({:.0}% measured, * = measured, rest FM-completed)",
                100.0 * profile.density()
            );
            print!("{:<16} {:>8}", "job", "solo s");
            for j in &profile.jobs {
                print!(" {j:>12}");
            }
            println!();
            for (r, row) in completed.iter().enumerate() {
                print!("{:<16} {:>8.3}", profile.jobs[r], profile.solo_s[r]);
                for (c, v) in row.iter().enumerate() {
                    let m = profile.observed.iter().any(|o| o.job == r && o.next_to == c);
                    print!(" {:>11.3}{}", v, if m { "*" } else { " " });
                }
                println!();
            }
        }
    }
    Ok(())
}
