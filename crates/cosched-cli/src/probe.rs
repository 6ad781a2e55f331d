//! `cosched probe`: co-run probing of a mix's jobs on this machine (no PMU
//! needed), FM-completed into a job-level interaction matrix that
//! `cosched run --profile` feeds to the SLITS policies.

use crate::live::LiveOpts;
use crate::opts::Format;
use crate::OneLine;
use clap::Args as ClapArgs;
use cosched_linux::probing;
use std::path::PathBuf;

#[derive(ClapArgs)]
pub struct Args {
    /// Mix file whose jobs are probed (one instance of each).
    #[arg(long, short = 'w')]
    workload: PathBuf,
    /// Share of the job pairs (self-pairs included) to co-run; the factorization machine completes the rest.
    /// A mix of at most 4 jobs (a matrix of at most 16 cells) is measured whole.
    #[arg(long, default_value_t = 0.5)]
    pairs: f64,
    /// Seed of the pair choice and the FM.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write the profile (JSON) here, for `cosched run --profile`.
    #[arg(long, short = 'o')]
    out: Option<PathBuf>,
    /// Characterised programs (`cosched characterise` output): print the pair slowdowns the
    /// simulator predicts for them (on the machine of -m/--calibration) beside each measured pair.
    #[arg(long)]
    programs: Option<PathBuf>,
    #[command(flatten)]
    live: LiveOpts,
    /// Output format of the matrix.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
}

pub fn run(a: Args) -> Result<(), String> {
    crate::output::check_out_file("--out", a.out.as_deref())?;
    if !(a.pairs.is_finite() && a.pairs > 0.0 && a.pairs <= 1.0) {
        return Err(format!("--pairs: must be in (0, 1], got {}", cosched_core::num::shortest(a.pairs)));
    }
    let mix = crate::live::load_mix(&a.workload)?;
    let predict = match &a.programs {
        Some(p) => Some((
            cosched_lab::mix_model::Programs::load(p).one_line()?,
            a.live.spec()?.ok_or_else(|| {
                "--programs: give the calibrated machine the predictions run on (-m PRESET or --calibration FILE)"
                    .to_string()
            })?,
        )),
        None => None,
    };
    let base = a.live.builder()?;
    let profile = probing::probe(&mix, a.pairs, a.seed, base, &crate::progress::stderr()).one_line()?;
    // The predictions, with the solo times just measured (so cosched-bench jobs are modelled too).
    let predicted = match &predict {
        Some((programs, spec)) => {
            let solo: Vec<Option<f64>> = profile.solo_s.iter().map(|&s| Some(s)).collect();
            let p = cosched_lab::mix_model::programs_profile(&mix, &solo, spec, programs).one_line()?;
            Some(pair_errors(&profile, &p))
        }
        None => None,
    };
    let model = profile.completion(a.seed);
    let completed = profile.complete_with(model.as_ref());
    if let Some(out) = &a.out {
        let text = serde_json::to_string_pretty(&profile).map_err(|e| e.to_string())?;
        crate::output::write_whole(out, &(text + "\n"))?;
    }
    match a.format {
        Format::Json => {
            let v = serde_json::json!({
                "profile": profile,
                "completed": completed,
                "density": profile.density(),
                "predicted": predicted,
            });
            println!("{}", serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?);
        }
        _ => {
            println!(
                "slowdown of row job beside column job ({:.0}% measured, * = measured, ! = measured below 1, rest FM-completed)",
                100.0 * profile.density()
            );
            // Aligned by display width: a job's name may hold wide characters.
            let mut head = vec!["job".to_string(), "solo s".into()];
            head.extend(profile.jobs.iter().cloned());
            let mut rows = vec![head];
            for (r, row) in completed.iter().enumerate() {
                let mut cells = vec![profile.jobs[r].clone(), format!("{:.3}", profile.solo_s[r])];
                for (c, v) in row.iter().enumerate() {
                    let m = profile.observed.iter().find(|o| o.job == r && o.next_to == c);
                    let mark = match m {
                        Some(o) if o.slowdown < 1.0 => "!",
                        Some(_) => "*",
                        None => " ",
                    };
                    cells.push(format!("{v:.3}{mark}"));
                }
                rows.push(cells);
            }
            crate::output::table(&rows);
            if let Some(c) = &model {
                let spread: Vec<f64> = c.predictions.iter().map(|p| p.1).collect();
                let mean_sd = spread.iter().sum::<f64>() / spread.len().max(1) as f64;
                println!(
                    "completion: {}; mean posterior sd of the {} predicted cells {:.4}",
                    c.chosen,
                    spread.len(),
                    mean_sd
                );
            }
            if let Some(note) = below_one_note(&profile) {
                println!("{note}");
            }
            if let Some(rows) = &predicted {
                println!("\nmeasured pairs against the slowdowns predicted from --programs:");
                let mut table = vec![["job", "beside", "measured", "predicted", "error"].map(String::from).to_vec()];
                for r in rows {
                    table.push(vec![
                        r.job.clone(),
                        r.beside.clone(),
                        format!("{:.3}", r.measured),
                        format!("{:.3}", r.predicted),
                        format!("{:.1}%", 100.0 * r.error),
                    ]);
                }
                crate::output::table(&table);
                let mut e: Vec<f64> = rows.iter().map(|r| r.error.abs()).collect();
                e.sort_by(f64::total_cmp);
                if let Some(mid) = e.get(e.len() / 2) {
                    println!(
                        "median |error| {:.1}% (upper median), worst {:.1}%, over {} pairs",
                        100.0 * mid,
                        100.0 * e[e.len() - 1],
                        e.len()
                    );
                }
            }
        }
    }
    Ok(())
}

/// A measured pair beside its predicted slowdown.
#[derive(serde::Serialize)]
struct PairError {
    job: String,
    beside: String,
    measured: f64,
    predicted: f64,
    /// predicted / measured − 1.
    error: f64,
}

/// Every measured pair of `measured` with its slowdown in `predicted` (same job names).
fn pair_errors(
    measured: &cosched_core::pair_profile::PairProfile,
    predicted: &cosched_core::pair_profile::PairProfile,
) -> Vec<PairError> {
    let at = |n: &str| predicted.jobs.iter().position(|j| j == n);
    measured
        .observed
        .iter()
        .filter_map(|o| {
            let (a, b) = (at(&measured.jobs[o.job])?, at(&measured.jobs[o.next_to])?);
            let p = predicted.observed.iter().find(|q| q.job == a && q.next_to == b)?.slowdown;
            Some(PairError {
                job: measured.jobs[o.job].clone(),
                beside: measured.jobs[o.next_to].clone(),
                measured: o.slowdown,
                predicted: p,
                error: p / o.slowdown - 1.0,
            })
        })
        .collect()
}

/// A measured slowdown below 1 means a job ran faster beside another than
/// alone: on a shared host that is noise (the solo time and the pair run
/// were measured at different moments). Flag them, and say how many
/// repetitions would resolve a 5% slowdown if the noise is at least as large
/// as the largest such deviation: n ≈ (1.96·d / 0.05)².
fn below_one_note(profile: &cosched_core::pair_profile::PairProfile) -> Option<String> {
    let low: Vec<_> = profile.observed.iter().filter(|o| o.slowdown < 1.0).collect();
    let worst = low.iter().min_by(|a, b| a.slowdown.total_cmp(&b.slowdown))?;
    let d = 1.0 - worst.slowdown;
    let reps = ((1.96 * d / 0.05).powi(2)).ceil().max(2.0) as u64;
    Some(format!(
        "! {} measured slowdown(s) below 1 (lowest: {} beside {} {:.3}): a job cannot gain from a co-runner, \
         so this is host noise of at least {:.0}%; measurements this noisy need about {reps} repetitions \
         of each solo and pair run to resolve a 5% slowdown",
        low.len(),
        profile.jobs[worst.job],
        profile.jobs[worst.next_to],
        worst.slowdown,
        100.0 * d
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use cosched_policies::slits::{PairObservation, PairProfile};

    /// Measured slowdowns below 1 are flagged, with the
    /// repetitions that would settle them.
    #[test]
    fn slowdowns_below_one_are_flagged_with_the_repetitions_needed() {
        let obs = |job, next_to, slowdown| PairObservation { job, next_to, slowdown };
        let mut p = PairProfile {
            jobs: vec!["compute".into(), "xz".into()],
            solo_s: vec![2.0, 3.0],
            observed: vec![obs(0, 1, 0.604), obs(1, 0, 1.2)],
            source: Default::default(),
        };
        let note = below_one_note(&p).expect("a note");
        assert!(note.contains("1 measured slowdown(s) below 1"), "{note}");
        assert!(note.contains("compute beside xz 0.604"), "{note}");
        // d = 0.396: n = ceil((1.96 · 0.396 / 0.05)²) = 241.
        assert!(note.contains("about 241 repetitions"), "{note}");
        p.observed = vec![obs(0, 1, 1.1)];
        assert_eq!(below_one_note(&p), None);
    }
}
