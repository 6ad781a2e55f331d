//! A predictor for SP-POT's pruning (statistical thread assignment §5) built
//! only from what a user can measure: which program (class) each thread runs,
//! the machine's topology, and a budget of assignments whose performance was
//! measured. No solo rates, no contention model: a ridge regression of the
//! measured performance on how an assignment places the classes together
//! (the earlier `SimplePredictor` read the simulator's own ground
//! truth, so the predictor errors the paper warns about could not happen).
//!
//! Features of an assignment, for `K` classes: for each unordered class pair,
//! the number of thread pairs sharing a pipe and the number sharing a core on
//! different pipes; the most threads on one pipe and on one core; an intercept.

use crate::ids::CtxId;
use crate::topology::Topology;

/// Why a placement predictor (SP-POT, §5) could not be fitted.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PredictError {
    /// Fewer than two measured assignments.
    #[error("the predictor needs at least two measured assignments")]
    TooFew,
    /// The features of the measured assignments do not determine a fit.
    #[error("the placement features are degenerate")]
    Degenerate,
}

/// Ridge penalty on the standardised features.
const LAMBDA: f64 = 1e-3;

/// A fitted linear model of performance on placement features.
#[derive(Clone, Debug)]
pub struct PlacementPredictor {
    classes: usize,
    mean: Vec<f64>,
    scale: Vec<f64>,
    weights: Vec<f64>,
}

/// Placement features of `a` (thread `t` runs class `labels[t]` on context `a[t]`).
pub fn features(topo: &Topology, labels: &[u32], classes: usize, a: &[CtxId]) -> Vec<f64> {
    let pairs = classes * (classes + 1) / 2;
    let idx = |x: usize, y: usize| {
        let (lo, hi) = (x.min(y), x.max(y));
        lo * classes - lo * (lo + 1) / 2 + hi
    };
    let mut f = vec![0.0; 2 * pairs + 2];
    let mut per_pipe = vec![0.0f64; topo.n_pipes as usize];
    let mut per_core = vec![0.0f64; topo.n_cores as usize];
    for (i, &ci) in a.iter().enumerate() {
        let p = topo.ctx(ci);
        per_pipe[p.pipe as usize] += 1.0;
        per_core[p.core as usize] += 1.0;
        for (j, &cj) in a.iter().enumerate().skip(i + 1) {
            let q = topo.ctx(cj);
            let k = idx(labels[i] as usize, labels[j] as usize);
            if p.pipe == q.pipe {
                f[k] += 1.0;
            } else if p.core == q.core {
                f[pairs + k] += 1.0;
            }
        }
    }
    f[2 * pairs] = per_pipe.iter().cloned().fold(0.0, f64::max);
    f[2 * pairs + 1] = per_core.iter().cloned().fold(0.0, f64::max);
    f
}

impl PlacementPredictor {
    /// Fit on measured `(assignment, performance)` pairs.
    pub fn fit(
        topo: &Topology,
        labels: &[u32],
        measured: &[(&[CtxId], f64)],
    ) -> Result<PlacementPredictor, PredictError> {
        if measured.len() < 2 {
            return Err(PredictError::TooFew);
        }
        let classes = labels.iter().map(|&c| c as usize + 1).max().unwrap_or(1);
        let xs: Vec<Vec<f64>> = measured.iter().map(|(a, _)| features(topo, labels, classes, a)).collect();
        let d = xs[0].len();
        let n = xs.len() as f64;
        let mean: Vec<f64> = (0..d).map(|j| xs.iter().map(|x| x[j]).sum::<f64>() / n).collect();
        let scale: Vec<f64> = (0..d)
            .map(|j| {
                let v = xs.iter().map(|x| (x[j] - mean[j]).powi(2)).sum::<f64>() / n;
                if v > 0.0 {
                    v.sqrt()
                } else {
                    1.0
                }
            })
            .collect();
        let ybar = measured.iter().map(|m| m.1).sum::<f64>() / n;
        // Normal equations of the standardised features with the intercept ȳ: (ZᵀZ + λnI) w = Zᵀ(y − ȳ).
        let mut a = vec![vec![0.0; d + 1]; d];
        for (x, (_, y)) in xs.iter().zip(measured) {
            let z: Vec<f64> = (0..d).map(|j| (x[j] - mean[j]) / scale[j]).collect();
            for r in 0..d {
                for c in 0..d {
                    a[r][c] += z[r] * z[c];
                }
                a[r][d] += z[r] * (y - ybar);
            }
        }
        for (r, row) in a.iter_mut().enumerate() {
            row[r] += LAMBDA * n;
        }
        let mut w = solve(a)?;
        w.push(ybar);
        Ok(PlacementPredictor { classes, mean, scale, weights: w })
    }

    /// Predicted performance of `a` (only the order matters for pruning).
    pub fn predict(&self, topo: &Topology, labels: &[u32], a: &[CtxId]) -> f64 {
        let x = features(topo, labels, self.classes, a);
        let d = self.mean.len();
        self.weights[d] + (0..d).map(|j| self.weights[j] * (x[j] - self.mean[j]) / self.scale[j]).sum::<f64>()
    }
}

/// Gaussian elimination with partial pivoting on an augmented `d × (d+1)` system.
fn solve(mut a: Vec<Vec<f64>>) -> Result<Vec<f64>, PredictError> {
    let d = a.len();
    for col in 0..d {
        let piv = (col..d).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs())).expect("rows");
        if a[piv][col].abs() < 1e-12 {
            return Err(PredictError::Degenerate);
        }
        a.swap(col, piv);
        let pivot_row = a[col].clone();
        for (r, row) in a.iter_mut().enumerate() {
            if r != col {
                let f = row[col] / pivot_row[col];
                for (x, p) in row.iter_mut().zip(&pivot_row).skip(col) {
                    *x -= f * p;
                }
            }
        }
    }
    Ok((0..d).map(|r| a[r][d] / a[r][r]).collect())
}

/// Spearman's rank correlation of `x` and `y` (average ranks for ties).
pub fn spearman(x: &[f64], y: &[f64]) -> f64 {
    let rank = |v: &[f64]| {
        let mut idx: Vec<usize> = (0..v.len()).collect();
        idx.sort_by(|&i, &j| v[i].total_cmp(&v[j]));
        let mut r = vec![0.0; v.len()];
        let mut i = 0;
        while i < idx.len() {
            let mut j = i;
            while j + 1 < idx.len() && v[idx[j + 1]] == v[idx[i]] {
                j += 1;
            }
            for &k in &idx[i..=j] {
                r[k] = (i + j) as f64 / 2.0;
            }
            i = j + 1;
        }
        r
    };
    let (rx, ry) = (rank(x), rank(y));
    let n = x.len() as f64;
    let (mx, my) = (rx.iter().sum::<f64>() / n, ry.iter().sum::<f64>() / n);
    let cov: f64 = rx.iter().zip(&ry).map(|(a, b)| (a - mx) * (b - my)).sum();
    let vx: f64 = rx.iter().map(|a| (a - mx).powi(2)).sum();
    let vy: f64 = ry.iter().map(|b| (b - my).powi(2)).sum();
    cov / (vx * vy).sqrt()
}

/// What [`sp_pot_sample`] returns: the measured `(index, performance)` pairs
/// (budget first, then the kept ones) and the predictions for the rest.
pub type SpPotSample = (Vec<(usize, f64)>, Vec<f64>);

/// SP-POT's measured sample (§5) with a [`PlacementPredictor`]: measure the
/// first `budget` assignments, fit, predict the rest, and measure only the
/// predicted-best share `1 − prune` of them. `measure(i)` is the only access
/// to performance. Returns the measured indices with their performance
/// (budget first) and the predictions for the unmeasured-at-first rest.
pub fn sp_pot_sample(
    topo: &Topology,
    labels: &[u32],
    all: &[Vec<CtxId>],
    budget: usize,
    prune: f64,
    mut measure: impl FnMut(usize) -> f64,
) -> Result<SpPotSample, PredictError> {
    let budget = budget.min(all.len());
    let mut measured: Vec<(usize, f64)> = (0..budget).map(|i| (i, measure(i))).collect();
    let train: Vec<(&[CtxId], f64)> = measured.iter().map(|&(i, y)| (all[i].as_slice(), y)).collect();
    let model = PlacementPredictor::fit(topo, labels, &train)?;
    let pred: Vec<f64> = all[budget..].iter().map(|a| model.predict(topo, labels, a)).collect();
    let keep = ((1.0 - prune) * pred.len() as f64).ceil() as usize;
    let mut order: Vec<usize> = (0..pred.len()).collect();
    order.sort_by(|&i, &j| pred[j].total_cmp(&pred[i]).then(i.cmp(&j)));
    let mut kept: Vec<usize> = order[..keep].to_vec();
    kept.sort();
    measured.extend(kept.into_iter().map(|i| (budget + i, measure(budget + i))));
    Ok((measured, pred))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::collections::BTreeSet;

    /// Assignments of 4 threads (classes 0,0,1,1) on 2 cores × 2 pipes × 2 strands.
    fn sample(n: usize) -> (Topology, Vec<u32>, Vec<Vec<CtxId>>) {
        let topo = Topology::regular(1, 1, 2, 2, 2);
        let mut x: u64 = 7;
        let mut all = vec![];
        for _ in 0..n {
            let mut ctx: Vec<u32> = (0..8).collect();
            for i in 0..4 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let j = i + (x >> 33) as usize % (8 - i);
                ctx.swap(i, j);
            }
            all.push(ctx[..4].iter().map(|&c| CtxId(c)).collect());
        }
        (topo, vec![0, 0, 1, 1], all)
    }

    /// A hidden truth the predictor never sees: class-1 threads sharing a pipe hurt most.
    fn truth(topo: &Topology, a: &[CtxId]) -> f64 {
        let pipe = |t: usize| topo.ctx(a[t]).pipe;
        let core = |t: usize| topo.ctx(a[t]).core;
        10.0 - 3.0 * (pipe(2) == pipe(3)) as u8 as f64 - 1.0 * (core(0) == core(1)) as u8 as f64
    }

    #[test]
    fn predicts_a_placement_truth_it_only_measured_and_prunes_without_measuring() {
        let (topo, labels, all) = sample(400);
        let calls = RefCell::new(BTreeSet::new());
        let (measured, pred) = sp_pot_sample(&topo, &labels, &all, 60, 0.75, |i| {
            assert!(calls.borrow_mut().insert(i), "assignment {i} measured twice");
            truth(&topo, &all[i])
        })
        .unwrap();
        // 60 budget + a quarter of the other 340 (85), and nothing else.
        assert_eq!(measured.len(), 60 + 85);
        assert_eq!(calls.borrow().len(), 145);
        let rest: Vec<f64> = all[60..].iter().map(|a| truth(&topo, a)).collect();
        let rho = spearman(&pred, &rest);
        assert!(rho > 0.9, "rank correlation {rho}");
        // Every kept one is at least as good as every pruned one, as predicted.
        let kept: BTreeSet<usize> = measured[60..].iter().map(|m| m.0 - 60).collect();
        let worst_kept = kept.iter().map(|&i| rest[i]).fold(f64::MAX, f64::min);
        assert!(worst_kept >= 7.0 - 1e-9, "{worst_kept}");
        // The same run against a truth that panics for every assignment it was
        // not allowed to measure: the predictor itself never reads the truth.
        let allowed: BTreeSet<usize> = measured.iter().map(|m| m.0).collect();
        let again = sp_pot_sample(&topo, &labels, &all, 60, 0.75, |i| {
            assert!(allowed.contains(&i), "the ground truth of pruned assignment {i} was read");
            truth(&topo, &all[i])
        })
        .unwrap();
        assert_eq!(again.0, measured);
    }

    #[test]
    fn spearman_matches_hand_computed_values_and_handles_ties() {
        assert!((spearman(&[1.0, 2.0, 3.0, 4.0], &[10.0, 20.0, 30.0, 40.0]) - 1.0).abs() < 1e-12);
        assert!((spearman(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]) + 1.0).abs() < 1e-12);
        // ranks x: 0, 1.5, 1.5, 3; y: 0, 1, 2, 3 -> rho = 4.5 / sqrt(4.5 · 5) ≈ 0.9487
        let r = spearman(&[1.0, 2.0, 2.0, 4.0], &[1.0, 2.0, 3.0, 4.0]);
        assert!((r - 4.5 / (4.5f64 * 5.0).sqrt()).abs() < 1e-12, "{r}");
    }

    #[test]
    fn too_few_measurements_are_an_error() {
        let (topo, labels, all) = sample(10);
        let e = PlacementPredictor::fit(&topo, &labels, &[(all[0].as_slice(), 1.0)]).unwrap_err();
        assert_eq!(e, PredictError::TooFew);
        assert!(e.to_string().contains("two"), "{e}");
    }
}
