//! How long a check goes on measuring: after its first rounds,
//! until every measured slowdown's 95% interval is within ±`within_pct` % of
//! its mean, or `max_rounds` rounds, or `budget_s` seconds of rounds.

use cosched_lab::error::RunError;
use cosched_linux::runtime::RealReport;

/// The goal and budgets of a check's rounds, checked ([`RoundsUntil::new`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RoundsUntil {
    /// Half-width of every measured slowdown's interval, % of its mean, as given.
    pub within_pct: f64,
    /// Most rounds.
    pub max_rounds: usize,
    /// Wall-time budget of the rounds, s.
    pub budget_s: f64,
}

impl RoundsUntil {
    /// The goal from the keywords `within` (a percentage; 0: no goal, `None`),
    /// `max_rounds` and `budget_s`, each refused by name when out of range.
    pub fn new(within: f64, max_rounds: u64, budget_s: f64) -> Result<Option<RoundsUntil>, RunError> {
        let shown = cosched_core::num::shortest;
        if !(within.is_finite() && (0.0..100.0).contains(&within)) {
            return Err(RunError::knob("within", format!("must be a percentage from 0 to 100, got {}", shown(within))));
        }
        let max_rounds = cosched_lab::limits::MAX_ROUNDS.check(max_rounds)? as usize;
        if !(budget_s.is_finite() && budget_s > 0.0 && budget_s <= 86_400.0) {
            return Err(RunError::knob("budget_s", format!("must be from 0 to 86400, got {}", shown(budget_s))));
        }
        Ok((within > 0.0).then_some(RoundsUntil { within_pct: within, max_rounds, budget_s }))
    }

    /// The half-width as a share of the mean (0.05 for 5%).
    pub fn within(&self) -> f64 {
        self.within_pct / 100.0
    }
}

/// Whether every job's measured slowdown under every entry has an interval
/// within ±`within` of its mean over the finished rounds (`runs`, by round then entry).
pub fn narrow_enough(runs: &[Vec<RealReport>], jobs: &[String], within: f64) -> bool {
    let entries = runs.first().map_or(0, Vec::len);
    let cells = (0..entries).flat_map(|i| {
        jobs.iter().map(move |job| runs.iter().filter_map(|rs| rs[i].mean_slowdown(job)).collect::<Vec<f64>>())
    });
    all_within(cells, within)
}

/// Whether every cell's measurements (rounds) have a 95% interval within
/// ±`within` of their mean: a cell needs two rounds or more; one with none
/// (a job without a slowdown under that entry) does not hold the rounds up.
pub fn all_within(mut cells: impl Iterator<Item = Vec<f64>>, within: f64) -> bool {
    cells.all(|xs| match xs.len() {
        0 => true,
        1 => false,
        _ => {
            let m = cosched_core::stats::mean_ci(&xs);
            (m.hi - m.lo) / 2.0 <= within * m.mean
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_go_on_until_every_cell_is_narrow() {
        // Mean 2, s.d. 0.01 over 3 rounds: half-width t95(2)·0.01/√3 ≈ 0.025, 1.2% of the mean.
        let tight = vec![1.99, 2.0, 2.01];
        assert!(all_within([tight.clone()].into_iter(), 0.05));
        assert!(!all_within([tight.clone()].into_iter(), 0.01));
        // One wide cell holds every other up; a single round decides nothing; none is no cell.
        assert!(!all_within([tight.clone(), vec![1.0, 2.0, 3.0]].into_iter(), 0.05));
        assert!(!all_within([vec![2.0]].into_iter(), 0.05));
        assert!(all_within([tight, vec![]].into_iter(), 0.05));
    }

    #[test]
    fn each_setting_is_refused_by_its_keyword() {
        assert_eq!(RoundsUntil::new(0.0, 12, 600.0).unwrap(), None);
        let u = RoundsUntil::new(5.0, 12, 600.0).unwrap().unwrap();
        assert_eq!((u.within_pct, u.max_rounds, u.budget_s), (5.0, 12, 600.0));
        assert!((u.within() - 0.05).abs() < 1e-15);
        for (args, keyword) in
            [((150.0, 12, 600.0), "within"), ((5.0, 0, 600.0), "max_rounds"), ((5.0, 12, 0.0), "budget_s")]
        {
            let e = RoundsUntil::new(args.0, args.1, args.2).unwrap_err();
            assert!(e.in_keywords().starts_with(&format!("{keyword}: ")), "{}", e.in_keywords());
            assert!(e.to_string().starts_with(&format!("--{}: ", keyword.replace('_', "-"))), "{e}");
        }
    }
}
