//! Jobs a record cannot characterise on this host: a solo time
//! that moved too much between runs, or a co-run faster than alone, flagged
//! in one line with what was measured.

use super::NOISY_SPREAD;
use cosched_machine::characterised::JobRecord;

/// A co-run slowdown below this (faster beside a co-runner than alone by more than 5%) cannot be
/// contention: the host moved between the solo runs and the co-run, and the job's fit is flagged.
pub const FASTER_LIMIT: f64 = 0.95;

/// Mean range of three draws of a normal distribution in units of its standard deviation
/// (d₂ for n = 3, the control-chart constant): what turns the solo runs' relative standard
/// deviation into the spread three runs would have, so [`NOISY_SPREAD`] means the same however
/// many rounds a record holds (the largest over the smallest grows with their number).
pub const D2_THREE: f64 = 1.693;

/// The solo spread a record's job is judged by: where its runs are kept (measured in rounds),
/// [`D2_THREE`] × their relative standard deviation, else the recorded largest over smallest − 1
/// (a record of three runs).
pub fn solo_spread(j: &JobRecord) -> f64 {
    match cosched_core::stats::mean_var(&j.solo_runs) {
        Some((mean, var)) => D2_THREE * var.sqrt() / mean,
        None => j.solo_spread,
    }
}

/// Why a job's characterisation is not to be trusted on this host: what was measured.
#[derive(Clone, Debug, PartialEq)]
pub enum Unfit {
    /// Its solo runs spread more than [`NOISY_SPREAD`] ([`solo_spread`]).
    NoisySolo {
        /// The spread.
        spread: f64,
    },
    /// Beside a co-runner it ran faster than alone, below [`FASTER_LIMIT`].
    FasterBeside {
        /// `pirate`, `bandit` or `compute loop` (design note 67).
        corunner: &'static str,
        /// The pirate's MiB or the bandit's GB/s.
        size: f64,
        /// The measured slowdown.
        slowdown: f64,
    },
}

impl std::fmt::Display for Unfit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unfit::NoisySolo { spread } => {
                write!(
                    f,
                    "its solo runs spread {:.0}% (above {:.0}%, as three runs would)",
                    100.0 * spread,
                    100.0 * NOISY_SPREAD
                )
            }
            Unfit::FasterBeside { corunner, size, slowdown } => {
                let what = match *corunner {
                    "pirate" => format!("a {size} MiB pirate"),
                    "bandit" => format!("a {size} GB/s bandit"),
                    other => format!("a {other}"),
                };
                write!(f, "beside {what} it ran at {slowdown:.2} of its time alone (below {FASTER_LIMIT}): faster than alone, which contention cannot do")
            }
        }
    }
}

/// What makes job `j`'s record unfit to characterise it on this host (empty: nothing).
pub fn unfit(j: &JobRecord) -> Vec<Unfit> {
    let mut out = vec![];
    let spread = solo_spread(j);
    if spread > NOISY_SPREAD {
        out.push(Unfit::NoisySolo { spread });
    }
    let presence: Vec<_> = j.presence.iter().cloned().collect();
    for (corunner, runs) in [("pirate", &j.pirates), ("bandit", &j.bandits), ("compute loop", &presence)] {
        out.extend(runs.iter().filter(|r| r.slowdown < FASTER_LIMIT).map(|r| Unfit::FasterBeside {
            corunner,
            size: r.size,
            slowdown: r.slowdown,
        }));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use cosched_machine::characterised::CoRun;

    fn job(spread: f64, pirate: f64, bandit: f64) -> JobRecord {
        let run = |size: f64, slowdown: f64| CoRun { size, slowdown, covered: true, runs: vec![], progress: vec![] };
        JobRecord {
            name: "j".into(),
            cmd: vec!["true".into()],
            solo_s: 1.0,
            solo_spread: spread,
            pirates: vec![run(4.0, pirate)],
            bandits: vec![run(10.0, bandit)],
            solo_runs: vec![],
            solo_progress: vec![],
            presence: None,
        }
    }

    #[test]
    fn noise_and_speed_beside_a_corunner_are_flagged_with_what_was_measured() {
        assert!(unfit(&job(0.05, 1.2, 1.0)).is_empty());
        let flags = unfit(&job(0.5, 0.54, 0.96));
        assert_eq!(flags.len(), 2, "{flags:?}");
        assert_eq!(flags[0], Unfit::NoisySolo { spread: 0.5 });
        let text = flags[1].to_string();
        assert!(text.contains("4 MiB pirate") && text.contains("0.54") && text.contains("faster than alone"), "{text}");
        let b = unfit(&job(0.0, 1.0, 0.9));
        assert!(b[0].to_string().contains("10 GB/s bandit"), "{b:?}");
        // Faster beside the compute loop of the presence co-run (design note 67) too.
        let mut c = job(0.0, 1.0, 1.0);
        c.presence = Some(CoRun { size: 0.0, slowdown: 0.9, covered: true, runs: vec![], progress: vec![] });
        let t = unfit(&c)[0].to_string();
        assert!(t.contains("beside a compute loop it ran at 0.90"), "{t}");
    }

    #[test]
    fn with_its_runs_kept_the_spread_is_three_runs_worth_whatever_their_number() {
        // Runs 1 and 2 alternating: relative s.d. of eight runs √(8/7)·0.5/1.5; its largest over
        // smallest − 1 is 100% however many there are.
        let mut j = job(1.0, 1.0, 1.0);
        j.solo_runs = [1.0, 2.0].repeat(4);
        let sd = (8.0f64 / 7.0).sqrt() * 0.5 / 1.5;
        assert!((solo_spread(&j) - D2_THREE * sd).abs() < 1e-12, "{}", solo_spread(&j));
        // Three runs 1, 1.1, 1.2: s.d. 0.1 over mean 1.1, about 15% as three runs (their range is 20%).
        j.solo_runs = vec![1.0, 1.1, 1.2];
        assert!((solo_spread(&j) - D2_THREE * 0.1 / 1.1).abs() < 1e-12);
        assert!(unfit(&j).is_empty(), "{:?}", unfit(&j));
        // Without runs: the recorded spread.
        j.solo_runs.clear();
        assert_eq!(solo_spread(&j), 1.0);
    }
}
