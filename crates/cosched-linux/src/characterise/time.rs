//! How long a characterisation goes on: when a job's rounds stop ([`Until`]),
//! and the bound said before it starts, a stated number of runs of the job's
//! own time, each plus a fixed cost, with the rounds and the added pirates each
//! ended by a budget of seconds ([`measure`](super::measure)'s loops, counted).

use cosched_machine::characterised::JobRecord;

/// How long a job waits, beside a co-runner, before it starts: the
/// co-runner builds its working set first (a 32 MiB chase shuffles 4 M
/// pointers), and a job that started with it would run its first part alone.
pub const WARMUP_S: f64 = 0.5;

/// When a job's runs stop: after `repeat` rounds, once every co-run's slowdown is
/// known within ±`within` at 95% ([`JobRecord::precise`]), or after `max_rounds` rounds, or once
/// the job's rounds have taken `budget_s`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Until {
    /// Half-width sought, a share of the slowdown (0.05 for ±5%; 0: exactly `repeat` rounds).
    pub within: f64,
    /// Most rounds of one job (at least `repeat` are run).
    pub max_rounds: u32,
    /// Most seconds of one job's rounds (checked between rounds).
    pub budget_s: f64,
}

/// Why a job's rounds stopped.
pub(super) fn stopped(rec: &JobRecord, rounds: u32, repeat: u32, until: &Until, elapsed_s: f64) -> Option<String> {
    if rounds < repeat {
        return None;
    }
    if until.within <= 0.0 {
        return Some(format!("{rounds} round(s), as asked"));
    }
    if rec.precise(until.within) {
        return Some(format!("{rounds} rounds: every slowdown within ±{}% (95%)", 100.0 * until.within));
    }
    if rounds >= until.max_rounds {
        return Some(format!(
            "{rounds} rounds (the most asked): some slowdown still wider than ±{}%",
            100.0 * until.within
        ));
    }
    (elapsed_s >= until.budget_s).then(|| {
        format!(
            "{rounds} round(s) in {elapsed_s:.0} s (the budget): some slowdown still wider than ±{}%",
            100.0 * until.within
        )
    })
}

/// The fixed cost of one run beyond the job's own time, s: launching the trees, freezing and
/// releasing them, and the runtime's 20-ms tick that sees the job end. Chosen, not fitted: on a
/// 2-core KVM guest (2026-12-07) three short programs (gzip, sha256sum, sort; 1.5 s alone in all)
/// were characterised in 205 s against the 221 s this bound stated.
pub const RUN_COST_S: f64 = 0.2;

/// What bounds one job's characterisation: its runs, counted from the sweep and the rounds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimeBound {
    /// Runs in one round: one alone, one beside each co-runner.
    pub runs_per_round: u32,
    /// Most rounds (exactly `repeat` when no half-width is sought).
    pub max_rounds: u32,
    /// Runs the added pirates take at most: `repeat` rounds of two (alone, beside the pirate) each.
    pub added_runs: u32,
    /// Runs of one added pirate.
    pub runs_per_added: u32,
    /// Most pirates added.
    pub added: u32,
    /// Co-runs among the rounds' runs (each waits [`WARMUP_S`] for its co-runner).
    pub coruns_per_round: u32,
    /// The budget that ends the rounds, and again the added pirates, between runs, s.
    pub budget_s: f64,
}

impl TimeBound {
    /// The bound of a characterisation with `coruns` co-runners a round (the sweep's pirates,
    /// bandits and compute loop), at most `added` pirates added, `repeat` and `until`.
    pub fn of(coruns: u32, added: u32, repeat: u32, until: &Until) -> TimeBound {
        let repeat = repeat.max(1);
        let max_rounds = if until.within <= 0.0 { repeat } else { until.max_rounds.max(repeat) };
        TimeBound {
            runs_per_round: 1 + coruns,
            max_rounds,
            added_runs: added * repeat * 2,
            runs_per_added: repeat * 2,
            added,
            coruns_per_round: coruns,
            budget_s: until.budget_s,
        }
    }

    /// Seconds of one round for a job of `solo_s` s alone, at a slowdown of 1 beside its
    /// co-runners (a job slowed by them takes that much longer).
    pub fn round_s(&self, solo_s: f64) -> f64 {
        f64::from(self.runs_per_round) * (solo_s + RUN_COST_S) + f64::from(self.coruns_per_round) * WARMUP_S
    }

    /// The most seconds one job takes, at a slowdown of 1: its rounds (at most `max_rounds`, and
    /// stopped once the budget is spent, so at most the budget and one round more), then its
    /// added pirates (at most their runs, and stopped likewise, so the budget and one pirate's
    /// runs more).
    pub fn job_s(&self, solo_s: f64) -> f64 {
        let round = self.round_s(solo_s);
        let rounds = (f64::from(self.max_rounds) * round).min(self.budget_s + round);
        let one_added =
            f64::from(self.runs_per_added) * (solo_s + RUN_COST_S) + f64::from(self.runs_per_added / 2) * WARMUP_S;
        let added = (f64::from(self.added) * one_added).min(self.budget_s + one_added);
        rounds + added
    }

    /// The bound in words, before anything runs: a multiple of the job's own time plus a fixed cost.
    pub fn words(&self) -> String {
        let runs = self.max_rounds * self.runs_per_round + self.added_runs;
        let fixed = f64::from(runs) * RUN_COST_S
            + f64::from(self.max_rounds * self.coruns_per_round + self.added_runs / 2) * WARMUP_S;
        let budgets = if self.added_runs > 0 {
            format!("{:.0} s of rounds and {:.0} s of added pirates, each", self.budget_s, self.budget_s)
        } else {
            format!("{:.0} s of rounds", self.budget_s)
        };
        format!(
            "each job at most {runs} runs ({} rounds of {}{}): {runs} × its time alone (longer by its slowdown beside a \
             co-runner) + {fixed:.1} s, and no more than {budgets} with its last run",
            self.max_rounds,
            self.runs_per_round,
            if self.added_runs > 0 { format!(", then {} for added pirates", self.added_runs) } else { String::new() },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Four pirates and two bandits a round, a compute loop with `presence`.
    fn sweep(added: u32, presence: bool) -> (u32, u32) {
        (6 + u32::from(presence), added)
    }

    #[test]
    fn the_bound_counts_the_loops_runs() {
        let until = Until { within: 0.05, max_rounds: 9, budget_s: 120.0 };
        let (coruns, added) = sweep(2, false);
        let b = TimeBound::of(coruns, added, 3, &until);
        assert_eq!((b.runs_per_round, b.max_rounds, b.added_runs, b.coruns_per_round), (7, 9, 12, 6));
        // A 1-s job: a round is 7 runs of 1.2 s and 6 waits of 0.5 s, 11.4 s; 9 rounds (102.6 s)
        // come before the budget's 120 + 11.4; the added pirates 2 × 3 rounds of (2 × 1.2 + 0.5).
        assert!((b.round_s(1.0) - 11.4).abs() < 1e-9);
        assert!((b.job_s(1.0) - (102.6 + 2.0 * 3.0 * 2.9)).abs() < 1e-9, "{}", b.job_s(1.0));
        // A 100-s job: the budget ends the rounds after the round that spends it.
        let long = b.job_s(100.0);
        assert!((long - (120.0 + b.round_s(100.0) + 120.0 + 3.0 * (2.0 * 100.2 + 0.5))).abs() < 1e-6, "{long}");
        // Without a half-width sought: exactly `repeat` rounds.
        let (coruns, added) = sweep(0, true);
        let exact = TimeBound::of(coruns, added, 3, &Until { within: 0.0, ..until });
        assert_eq!((exact.max_rounds, exact.runs_per_round, exact.added_runs), (3, 8, 0));
        assert!((exact.job_s(1.0) - 3.0 * exact.round_s(1.0)).abs() < 1e-9);
        assert!(exact.words().ends_with("no more than 120 s of rounds with its last run"), "{}", exact.words());
        let w = b.words();
        assert!(
            w.starts_with("each job at most 75 runs (9 rounds of 7, then 12 for added pirates): 75 × its time"),
            "{w}"
        );
        assert!(w.contains("+ 45.0 s"), "75 × 0.2 s + (54 + 6) × 0.5 s: {w}");
    }
}
