//! The cut of the endpoint's likelihood-ratio interval at a fitted shape
//! (see [`super::pot`]): the Monte Carlo quantile of 2(ℓ̂ − ℓ_p(e)) at the
//! true endpoint e of GPD samples of shape ξ and n exceedances (the
//! statistic's small-sample distribution is wider than its limit),
//! tabulated in [`super::lr_table`] and interpolated linearly in ξ, in
//! ln n (clamped to the tabulated 30-500) and in the level; outside the
//! tabulated levels the ratio to χ²₁ at the nearest tabulated level is kept.

use super::lr_table::{LR_LEVELS, LR_QUANTILES, LR_SIZES, LR_XI};
use crate::dist::chi2_1;

/// Index of the upper neighbour of `x` in ascending `grid` and the weight of it.
fn bracket(grid: &[f64], x: f64) -> (usize, f64) {
    let x = x.clamp(grid[0], grid[grid.len() - 1]);
    let j = grid.iter().position(|&v| v >= x).unwrap_or(grid.len() - 1).max(1);
    (j, (x - grid[j - 1]) / (grid[j] - grid[j - 1]))
}

/// The cut for a `level` interval when the fitted shape is `xi` on `n` exceedances.
pub fn lr_cut(level: f64, xi: f64, n: usize) -> f64 {
    let ln_sizes = LR_SIZES.map(f64::ln);
    let (s, ws) = bracket(&ln_sizes, (n as f64).ln());
    let block = |b: usize| cut_in(&LR_QUANTILES[b], level, xi);
    block(s - 1) * (1.0 - ws) + block(s) * ws
}

fn cut_in(table: &[[f64; LR_LEVELS.len()]], level: f64, xi: f64) -> f64 {
    let (j, w) = bracket(&LR_XI, xi);
    let row = |r: &[f64]| -> f64 {
        let last = LR_LEVELS.len() - 1;
        if level <= LR_LEVELS[0] {
            return r[0] / chi2_1(LR_LEVELS[0]) * chi2_1(level);
        }
        if level >= LR_LEVELS[last] {
            return r[last] / chi2_1(LR_LEVELS[last]) * chi2_1(level);
        }
        let i = LR_LEVELS.iter().position(|&l| l >= level).expect("inside");
        let t = (level - LR_LEVELS[i - 1]) / (LR_LEVELS[i] - LR_LEVELS[i - 1]);
        r[i - 1] * (1.0 - t) + r[i] * t
    };
    row(&table[j - 1]) * (1.0 - w) + row(&table[j]) * w
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where Wilks's theorem holds (ξ > −0.5) the table is χ²₁ within Monte
    /// Carlo error; at ξ = −1 it is near χ²₂'s 5.99 (n·ln(e/max y) → Exp(1)).
    #[test]
    fn the_table_agrees_with_the_regular_and_uniform_limits() {
        for xi in [-0.3, -0.2, -0.1] {
            let c = lr_cut(0.95, xi, 500);
            assert!((c / chi2_1(0.95) - 1.0).abs() < 0.12, "ξ {xi}: cut {c}");
        }
        let c = lr_cut(0.95, -1.0, 500);
        assert!((5.0..6.6).contains(&c), "ξ −1: cut {c}");
        assert!(lr_cut(0.99, -0.7, 100) > lr_cut(0.95, -0.7, 100) && lr_cut(0.95, -0.7, 100) > lr_cut(0.8, -0.7, 100));
        // Fewer exceedances, wider: the small-sample statistic is larger.
        assert!(lr_cut(0.95, -0.4, 30) > lr_cut(0.95, -0.4, 500));
    }
}
