//! Interleaved rounds on a noisy host (`cosched run --policies A,B,C
//! --repeat N`, Python's `cosched.host.interleaved`). Each round measures the jobs alone (under `linux`), then
//! runs every policy once in a seeded random order; each policy's makespan is
//! paired with the baseline's of the same round, so host drift between
//! rounds cancels in the ratio (`cosched_core::paired`). A round whose solo
//! times moved more than the drift threshold from their median is marked.
//! Round r runs every policy with policy seed `seed + r` ([`round_seed`]), so
//! a seeded policy (`random`) is sampled over R seeds, not rerun on one, and a
//! simulation of the same seeds is paired with the rounds.

use crate::error::HostError;
use cosched_core::paired::{paired_ratio, round_drift, round_orders, PairedRatio, Verdict};
use cosched_core::progress::Reporter;
use cosched_core::stats::{mean_ci, MeanCi};
use cosched_linux::best_static::{StaticPartition, ENTRY};
use cosched_linux::runtime::{self, RealReport, RunConfig};
use cosched_machine::mix::Mix;
use serde::Serialize;

/// Bootstrap resamples of the paired intervals.
pub const RESAMPLES: usize = 10_000;

/// What the rounds are run with.
pub struct Plan<'a> {
    /// Entries: policy names (a name given twice is labelled `name#2`).
    pub policies: Vec<String>,
    /// The baseline policy (the first entry of that name).
    pub baseline: String,
    /// Rounds.
    pub rounds: usize,
    /// Seed of the round orders and the bootstrap; round r's policy seed is `seed + r`.
    pub seed: u64,
    /// Relative move of a round's solo times that marks it drifted.
    pub drift_threshold: f64,
    /// Smallest ratio change claimed as a difference.
    pub min_effect: f64,
    /// Builds a run of `mix` under a policy (and under [`ENTRY`] when the bound is pinned).
    pub config: &'a dyn Fn(Mix, &str) -> RunConfig,
    /// The best static partition every entry's gap is measured to, or why there is none.
    pub bound: Bound,
    /// Where each round says what it runs.
    pub report: Reporter,
    /// More rounds than `rounds` until the measurements are narrow enough (none: exactly `rounds`).
    pub until: Option<Until<'a>>,
}

/// Rounds beyond the plan's first ones, until `enough` says the finished rounds
/// measure narrowly enough or a budget ends.
pub struct Until<'a> {
    /// Most rounds in all.
    pub max_rounds: usize,
    /// Wall-time budget of the rounds, s: no round starts after it.
    pub budget_s: f64,
    /// Whether the finished rounds' runs (by round then entry) suffice.
    pub enough: &'a dyn Fn(&[Vec<RealReport>]) -> bool,
}

/// Why rounds that ran until a goal stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum StopReason {
    /// The goal was reached.
    Reached,
    /// The most rounds ran first.
    MaxRounds,
    /// The wall-time budget ended first.
    Budget,
}

cosched_core::metric_fields! {
    /// How rounds that ran until a goal ended.
    #[derive(Clone, Copy, Debug, PartialEq, Serialize)]
    pub struct Stopped {
        /// Why.
        pub reason: StopReason,
        /// Rounds run.
        pub rounds: usize,
    }
}

/// The bound beside the rounds.
#[derive(Clone, Debug)]
pub enum Bound {
    /// The best static partition, run every round as entry [`ENTRY`].
    Pinned(StaticPartition),
    /// None, and why (no gap column).
    Absent {
        /// Why, in words (printed beside the table).
        why: String,
    },
}

cosched_core::metric_fields! {
    /// One round.
    #[derive(Serialize)]
    pub struct Round {
        /// Index from 0.
        pub round: usize,
        /// The entries in the order they ran.
        pub order: Vec<String>,
        /// The policy seed every entry ran with this round ([`round_seed`]).
        pub policy_seed: u64,
        /// Each job's solo turnaround this round, s.
        pub solo_s: Vec<f64>,
        /// Each job's CPU time in its solo run this round, s (what a co-run's CPU time is set
        /// against).
        pub solo_cpu_s: Vec<f64>,
        /// Geometric-mean move of the solo times from their medians over the rounds (0.1 = 10% slower).
        pub drift: f64,
        /// Whether |drift| exceeded the threshold.
        pub drifted: bool,
        /// Makespan of each entry (in entry order), s.
        pub makespan_s: Vec<f64>,
    }
}

cosched_core::metric_fields! {
    /// One entry's figures over the rounds.
    #[derive(Serialize)]
    pub struct EntrySummary {
        /// Entry label.
        pub policy: String,
        /// Makespan, s: mean and 95% t-interval over rounds.
        [metric] pub makespan_s: MeanCi,
        /// ANTT over rounds (each round's slowdowns against that round's solo times).
        [metric] pub antt: Option<MeanCi>,
        /// Unfairness (max/min slowdown) over rounds.
        [metric] pub unfairness: Option<MeanCi>,
        /// System energy, J (measured or modelled, see the runs' provenance).
        [metric] pub energy_j: MeanCi,
        /// Scheduler CPU, % of one core.
        [metric] pub scheduler_cpu_pct: MeanCi,
        /// Paired speedup against the baseline (`baseline / this` makespan per round); none for the baseline.
        pub vs_baseline: Option<PairedRatio>,
        /// Throughput below the best static partition, % (1 − best/this makespan, paired per round):
        /// geometric mean and interval; negative: this entry beat it. None for the partition itself, or without one.
        [metric] pub gap_to_bound_pct: Option<MeanCi>,
        /// The verdict in words.
        pub verdict: String,
    }
}

cosched_core::metric_fields! {
    /// The whole comparison (`--format json`).
    #[derive(Serialize)]
    pub struct Interleaved {
        /// Mix name.
        pub mix: String,
        /// Baseline entry.
        pub baseline: String,
        /// Rounds run.
        pub rounds: usize,
        /// Seed.
        pub seed: u64,
        /// Drift threshold.
        pub drift_threshold: f64,
        /// Smallest effect claimed.
        pub min_effect: f64,
        /// Rounds marked drifted.
        pub drifted_rounds: Vec<usize>,
        /// The best static partition each gap is measured to (run as entry `best-static`).
        pub best_static: Option<StaticPartition>,
        /// Why there is none (and no gap column).
        pub no_best_static: Option<String>,
        /// One row per entry.
        pub policies: Vec<EntrySummary>,
        /// Every round.
        pub round: Vec<Round>,
        /// Every run, by round then entry.
        pub runs: Vec<Vec<RealReport>>,
        /// How the rounds ended when they ran until a goal; none for a fixed count.
        pub stopped: Option<Stopped>,
    }
}

/// The policy seed of round `r` of a plan seeded `seed`.
pub fn round_seed(seed: u64, r: usize) -> u64 {
    seed.wrapping_add(r as u64)
}

/// Unique labels: a name given twice becomes `name#2`.
pub fn labels(policies: &[String]) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    for p in policies {
        let k = out.iter().filter(|l| l.split('#').next() == Some(p.as_str())).count();
        out.push(if k == 0 { p.clone() } else { format!("{p}#{}", k + 1) });
    }
    out
}

/// Run the rounds and analyse them.
pub fn run(mix: &Mix, plan: &Plan) -> Result<Interleaved, HostError> {
    let mut entries = plan.policies.clone();
    if !entries.contains(&plan.baseline) {
        entries.insert(0, plan.baseline.clone());
    }
    if matches!(plan.bound, Bound::Pinned(_)) {
        entries.push(ENTRY.to_string());
    }
    let names = labels(&entries);
    let base = entries.iter().position(|p| *p == plan.baseline).expect("baseline entry");
    let most = plan.until.as_ref().map_or(plan.rounds, |u| u.max_rounds.max(plan.rounds));
    // Round r's order is the same whatever the number of rounds (`round_orders` seeds each round apart).
    let orders = round_orders(entries.len(), most, plan.seed);
    let mut rounds = vec![];
    let mut runs: Vec<Vec<RealReport>> = vec![];
    let start = std::time::Instant::now();
    let mut stopped = None;
    for (r, order) in orders.iter().enumerate() {
        if r >= plan.rounds {
            let Some(u) = &plan.until else { break };
            if (u.enough)(&runs) {
                stopped = Some(Stopped { reason: StopReason::Reached, rounds: r });
                break;
            }
            if start.elapsed().as_secs_f64() >= u.budget_s {
                stopped = Some(Stopped { reason: StopReason::Budget, rounds: r });
                break;
            }
        }
        let of = if plan.until.is_some() {
            format!("{} (at most {most})", r + 1)
        } else {
            format!("{}/{}", r + 1, plan.rounds)
        };
        plan.report.line(|| {
            let order: Vec<&str> = order.iter().map(|&i| names[i].as_str()).collect();
            format!("round {of}: solo runs, then {}", order.join(", "))
        });
        let solo_runs = runtime::solo_runs(mix, plan.config)?;
        let solo_runs: Vec<(f64, f64)> = solo_runs
            .iter()
            .zip(&mix.jobs)
            .map(|(s, j)| {
                let s = s.as_ref().and_then(|x| Some((x.turnaround_s?, x.cpu_s)));
                s.ok_or_else(|| HostError::SoloFailed { round: r, job: j.name.clone() })
            })
            .collect::<Result<_, _>>()?;
        let solo: Vec<f64> = solo_runs.iter().map(|s| s.0).collect();
        let mut this: Vec<Option<RealReport>> = (0..entries.len()).map(|_| None).collect();
        for (k, &i) in order.iter().enumerate() {
            plan.report.line(|| format!("round {of}: {} ({} of {})", names[i], k + 1, order.len()));
            let mut c = (plan.config)(mix.clone(), &entries[i]);
            c.opts.seed = round_seed(plan.seed, r);
            c.solo = solo.iter().map(|&s| Some(s)).collect();
            let rep = runtime::run(c)?.completed().map_err(|source| HostError::Stopped {
                round: r,
                entry: names[i].clone(),
                source,
            })?;
            this[i] = Some(rep);
        }
        let reps: Vec<RealReport> = this.into_iter().map(|x| x.expect("every entry ran")).collect();
        rounds.push(Round {
            round: r,
            order: order.iter().map(|&i| names[i].clone()).collect(),
            policy_seed: round_seed(plan.seed, r),
            solo_s: solo,
            solo_cpu_s: solo_runs.iter().map(|s| s.1).collect(),
            drift: 0.0,
            drifted: false,
            makespan_s: reps.iter().map(|x| x.metrics.makespan_s).collect(),
        });
        runs.push(reps);
    }
    if stopped.is_none() {
        if let Some(u) = &plan.until {
            let reason = if (u.enough)(&runs) { StopReason::Reached } else { StopReason::MaxRounds };
            stopped = Some(Stopped { reason, rounds: rounds.len() });
        }
    }
    let mut out = analyse(mix.name.clone().unwrap_or_else(|| "mix".into()), names, base, rounds, runs, plan);
    out.stopped = stopped;
    Ok(out)
}

/// The per-entry figures, the paired ratios and the drift marks of finished rounds.
pub fn analyse(
    mix: String,
    names: Vec<String>,
    base: usize,
    mut rounds: Vec<Round>,
    runs: Vec<Vec<RealReport>>,
    plan: &Plan,
) -> Interleaved {
    let drift = round_drift(&rounds.iter().map(|r| r.solo_s.clone()).collect::<Vec<_>>());
    for (r, d) in rounds.iter_mut().zip(drift) {
        r.drift = d;
        r.drifted = d.abs() > plan.drift_threshold;
    }
    let n = rounds.len();
    let of = |i: usize, f: &dyn Fn(&RealReport) -> Option<f64>| -> Option<MeanCi> {
        let xs: Option<Vec<f64>> = runs.iter().map(|rs| f(&rs[i])).collect();
        xs.map(|v| mean_ci(&v))
    };
    let pinned = matches!(plan.bound, Bound::Pinned(_));
    let best = pinned.then(|| names.iter().position(|l| l == ENTRY)).flatten();
    let gap = |i: usize| -> Option<MeanCi> {
        let b = best.filter(|&b| b != i)?;
        let of = |k: usize| rounds.iter().map(|r| r.makespan_s[k]).collect::<Vec<f64>>();
        let p = paired_ratio(&of(b), &of(i), 0.95, RESAMPLES, plan.min_effect, plan.seed ^ 0x9a9 ^ i as u64).ok()?;
        Some(MeanCi {
            mean: (1.0 - p.ratio) * 100.0,
            lo: (1.0 - p.hi) * 100.0,
            hi: (1.0 - p.lo) * 100.0,
            n: rounds.len(),
        })
    };
    let policies = (0..names.len())
        .map(|i| {
            let vs = (i != base).then(|| {
                let b: Vec<f64> = rounds.iter().map(|r| r.makespan_s[base]).collect();
                let c: Vec<f64> = rounds.iter().map(|r| r.makespan_s[i]).collect();
                paired_ratio(&b, &c, 0.95, RESAMPLES, plan.min_effect, plan.seed ^ i as u64)
            });
            let (vs, verdict) = match vs {
                None => (None, "baseline".to_string()),
                Some(Err(e)) => (None, e.to_string()),
                Some(Ok(p)) => {
                    let words = verdict_words(&names[i], &names[base], &p, n, plan.min_effect);
                    (Some(p), words)
                }
            };
            EntrySummary {
                policy: names[i].clone(),
                makespan_s: of(i, &|r| Some(r.metrics.makespan_s)).expect("makespan"),
                antt: of(i, &|r| r.metrics.antt),
                unfairness: of(i, &|r| r.metrics.unfairness),
                energy_j: of(i, &|r| Some(r.metrics.energy_j)).expect("energy"),
                scheduler_cpu_pct: of(i, &|r| Some(r.scheduler_cpu_pct)).expect("cpu"),
                vs_baseline: vs,
                gap_to_bound_pct: gap(i),
                verdict,
            }
        })
        .collect();
    Interleaved {
        mix,
        baseline: names[base].clone(),
        rounds: n,
        seed: plan.seed,
        drift_threshold: plan.drift_threshold,
        min_effect: plan.min_effect,
        drifted_rounds: rounds.iter().filter(|r| r.drifted).map(|r| r.round).collect(),
        best_static: match &plan.bound {
            Bound::Pinned(b) => Some(b.clone()),
            Bound::Absent { .. } => None,
        },
        no_best_static: match &plan.bound {
            Bound::Pinned(_) => None,
            Bound::Absent { why } => Some(why.clone()),
        },
        policies,
        round: rounds,
        runs,
        stopped: None,
    }
}

/// One sentence for a paired ratio.
pub fn verdict_words(name: &str, base: &str, p: &PairedRatio, rounds: usize, min_effect: f64) -> String {
    let pct = |x: f64| (x - 1.0) * 100.0;
    if rounds < 2 {
        return format!(
            "one round: {name} {:+.1}% against {base}, with no interval (a verdict takes two rounds or more)",
            pct(p.ratio)
        );
    }
    let ci = format!("paired 95% interval {:+.1}% to {:+.1}% over {rounds} rounds", pct(p.lo), pct(p.hi));
    match p.verdict {
        Verdict::Faster => format!("{name} is {:.1}% faster than {base} ({ci})", pct(p.ratio)),
        Verdict::Slower => format!("{name} is {:.1}% slower than {base} ({ci})", -pct(p.ratio)),
        Verdict::NoDifference if (p.ratio - 1.0).abs() <= min_effect => format!(
            "no difference measurable on this host at {rounds} rounds ({ci}); the estimate {:+.1}% is within the ±{:.0}% not claimed",
            pct(p.ratio),
            min_effect * 100.0
        ),
        Verdict::NoDifference => match p.rounds_needed {
            Some(m) => format!(
                "no difference measurable on this host at {rounds} rounds ({ci}); about {m} rounds would be needed to separate {:+.1}%",
                pct(p.ratio)
            ),
            None => format!("no difference measurable on this host at {rounds} rounds ({ci})"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_policy_given_twice_gets_a_second_label() {
        let l = labels(&["linux".into(), "g-rrs".into(), "linux".into()]);
        assert_eq!(l, ["linux", "g-rrs", "linux#2"]);
    }
}
