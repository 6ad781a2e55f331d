//! Ties at the top of a check (design note 70): which policies the
//! rounds cannot tell from the measured best (the same paired test as the
//! best-policy verdict, run against every policy), and whether the model
//! separated its pick from its runner-up by more than its own makespan error
//! on the mix. The verdict `best_within_interval` is unchanged; these say how
//! much it could tell: with every policy tied, any pick is within the interval,
//! and with the predicted margin below the makespan error, the pick is a coin
//! the model could not weigh.

use crate::rounds::RESAMPLES;
use cosched_core::paired::{paired_ratio, Verdict};
use serde::Serialize;

cosched_core::metric_fields! {
    /// The top of a check's ranking, measured and predicted.
    #[derive(Clone, Debug, Serialize)]
    pub struct Ties {
        /// The policies no different from the measured best (paired 95% interval of their makespan
        /// ratio over the rounds, ±1% not claimed: the verdict's test), the best included, in entry order.
        pub measured: Vec<String>,
        /// The predicted runner-up's predicted makespan over the predicted best's, minus 1.
        pub predicted_margin: f64,
        /// The median over the policies of |predicted makespan / measured mean makespan − 1| on this mix.
        pub makespan_error: f64,
        /// Whether `predicted_margin` is below `makespan_error`: the model's ranking of its top two is
        /// finer than its own makespan error on the mix, so its pick is a predicted tie.
        pub predicted_tie: bool,
    }
}

impl Ties {
    /// The share of the check's `n` policies that lie within the measured best's interval: what a
    /// pick at random would score on the best-policy verdict.
    pub fn chance(&self, n: usize) -> f64 {
        self.measured.len() as f64 / n.max(1) as f64
    }

    /// One line for the check's table output.
    pub fn words(&self, n: usize) -> String {
        format!(
            "no different from the measured best: {} ({} of {} policies, what a pick at random would hit); predicted margin {:.1}% against a makespan error of {:.1}% on this mix{}",
            self.measured.join(", "),
            self.measured.len(),
            n,
            100.0 * self.predicted_margin,
            100.0 * self.makespan_error,
            if self.predicted_tie { ": a predicted tie" } else { ": the model separated its pick" }
        )
    }
}

/// The ties of a check: `makespans[r][i]` the makespan of policy `i` (entry order, named by
/// `names`) in round `r`, `predicted` their predicted makespans, `mb` the measured best. Each pair
/// (measured best, policy) is tested with `seed` and `min_effect`, the best-policy verdict's own
/// (`crate::check::judge` passes the rounds' seed), so the predicted best is in `measured`
/// exactly when that verdict holds.
pub fn ties(
    makespans: &[Vec<f64>],
    seed: u64,
    min_effect: f64,
    names: &[String],
    predicted: &[f64],
    mb: usize,
) -> Ties {
    let of = |i: usize| makespans.iter().map(|r| r[i]).collect::<Vec<f64>>();
    let measured = (0..names.len())
        .filter(|&i| {
            i == mb
                || paired_ratio(&of(mb), &of(i), 0.95, RESAMPLES, min_effect, seed)
                    .is_ok_and(|p| p.verdict == Verdict::NoDifference)
        })
        .map(|i| names[i].clone())
        .collect();
    let mut order: Vec<f64> = predicted.to_vec();
    order.sort_by(f64::total_cmp);
    let predicted_margin = match order.as_slice() {
        [a, b, ..] if *a > 0.0 => b / a - 1.0,
        _ => 0.0,
    };
    let n = makespans.len().max(1) as f64;
    let errors: Vec<f64> =
        predicted.iter().enumerate().map(|(i, p)| (p / (of(i).iter().sum::<f64>() / n) - 1.0).abs()).collect();
    let makespan_error = if errors.is_empty() { 0.0 } else { cosched_core::stats::median(&errors) };
    Ties { measured, predicted_margin, makespan_error, predicted_tie: predicted_margin < makespan_error }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policies_the_rounds_cannot_tell_from_the_best_are_its_ties() {
        // Eight rounds of three policies: `b` wobbles ±3% around `a` (no difference), `c` is 10% slower in every round.
        let wobble = [1.03, 0.97, 1.02, 0.98, 1.03, 0.97, 1.01, 0.99];
        let rounds: Vec<Vec<f64>> = wobble
            .iter()
            .enumerate()
            .map(|(r, w)| {
                let a = 10.0 + r as f64 * 0.1;
                vec![a, a * w, a * 1.1]
            })
            .collect();
        let names = ["a", "b", "c"].map(String::from);
        // Predicted: b first, a 0.5% behind; measured means are within a few % of the predictions.
        let t = ties(&rounds, 7, 0.01, &names, &[10.4, 10.35, 11.6], 0);
        assert_eq!(t.measured, ["a", "b"]);
        assert!((t.chance(3) - 2.0 / 3.0).abs() < 1e-12);
        assert!((t.predicted_margin - (10.4 / 10.35 - 1.0)).abs() < 1e-12);
        // Measured means 10.35, 10.35·(1+0)…: the median error is the middle of the three.
        let mean = |i: usize| rounds.iter().map(|r| r[i]).sum::<f64>() / 8.0;
        let mut e: Vec<f64> = [10.4, 10.35, 11.6].iter().enumerate().map(|(i, p)| (p / mean(i) - 1.0).abs()).collect();
        e.sort_by(f64::total_cmp);
        assert!((t.makespan_error - e[1]).abs() < 1e-12);
        assert_eq!(t.predicted_tie, t.predicted_margin < e[1]);
        assert!(t.words(3).contains("a, b (2 of 3 policies"), "{}", t.words(3));
        // A model that ranks its top two 12% apart with a 1% error separated its pick.
        let sharp = ties(&rounds, 7, 0.01, &names, &[10.35, 11.6, 11.6], 0);
        assert!(!sharp.predicted_tie && sharp.words(3).ends_with("separated its pick"), "{}", sharp.words(3));
        // Top two 0.1% apart with every makespan 3-10% off: a predicted tie.
        let blunt = ties(&rounds, 7, 0.01, &names, &[10.0, 10.01, 12.5], 0);
        assert!(blunt.predicted_tie && blunt.makespan_error > 0.03, "{blunt:?}");
    }
}
