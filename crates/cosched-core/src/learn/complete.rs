//! Matrix completion that tunes itself: the factorization
//! machine of SLITS §3.3 (one-hot row and column features, Eq. 1) with its
//! hyper-parameters chosen on held-out observed cells, and a fallback to
//! row + column means whenever validation says the FM is no better. One
//! implementation serves SLITS's warm start, `cosched probe` and
//! `cosched complete`.
//!
//! 1. Values are standardised (mean 0, sd 1) so one grid fits any scale;
//!    repeated cells are averaged.
//! 2. The baseline is `μ + b_row + b_col`, fitted by alternating
//!    regularised means (ridge λ = [`BIAS_REG`] observations).
//! 3. 20% of the observed cells (seeded) are held out (5-fold
//!    cross-validation below 500 cells). Each grid point
//!    (k ∈ {1, 2, 4, 8} × factor regularisation ∈ {0.003, 0.03, 0.3}) trains
//!    an FM whose linear part starts *at the baseline* (w₀ = μ, w = biases),
//!    factors N(0, 0.1²), by SGD (lr 0.2) with early stopping on the
//!    held-out RMSE (patience 20 epochs, at most 1,000); the best two grid
//!    points are retrained from two more seeds (restarts) and the best run
//!    wins. (lr 0.05 / 0.1 were still improving at 600-1,000 epochs on a
//!    48 × 48 rank-2 matrix, held-out RMSE 0.29 / 0.25 against 0.18 at 0.2;
//!    larger initial factors, 0.3-0.5, converged faster to worse: 0.25.)
//! 4. If its held-out RMSE is not below the baseline's (and the global
//!    mean's), the better of those is the model. Either way the chosen model is refitted on every observed cell
//!    (the FM for the epochs validation chose).
//!
//! `cosched complete`, `cosched probe` and SLITS's warm start now use the
//! Bayesian FM by Gibbs sampling (`bayes.rs`), which needs no
//! regularisation search; this self-tuning SGD completion stays
//! `cosched complete --model sgd`.

use super::fm::{Fm, FmParams};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

/// Ridge strength of the bias baseline, in observations.
pub const BIAS_REG: f64 = 2.0;
const K_GRID: [usize; 4] = [1, 2, 4, 8];
const REG_GRID: [f64; 3] = [0.003, 0.03, 0.3];
const LR: f64 = 0.2;
const MAX_EPOCHS: usize = 1000;
const PATIENCE: usize = 20;
const HOLD_OUT: f64 = 0.2;
/// Below this many observed cells validation is 5-fold cross-validation.
const SMALL: usize = 500;
const INIT_STD: f64 = 0.1;

/// Which model a completion uses.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Chosen {
    /// The factorization machine with these settings and epochs.
    Fm {
        /// Hyper-parameters.
        params: FmParams,
        /// Epochs (chosen by early stopping).
        epochs: usize,
    },
    /// The Bayesian FM (`bfm.rs`; `cosched complete`'s default): no validation, the
    /// posterior averaged over kept Gibbs samples.
    Bayes {
        /// Rank, iterations and burn-in.
        params: super::bfm::BfmParams,
    },
    /// Row + column means (the baseline), or the global mean when validation prefers it (biases zero).
    Means {
        /// Why the FM was not used.
        reason: String,
    },
}

impl std::fmt::Display for Chosen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Chosen::Fm { params, epochs } => write!(f, "FM (k {}, reg {}, {epochs} epochs)", params.k, params.reg_v),
            Chosen::Bayes { params: p } => {
                write!(f, "Bayesian FM (k {}, {} Gibbs iterations, {} burn-in)", p.k, p.iterations, p.burn_in)
            }
            Chosen::Means { reason } => write!(f, "means ({reason})"),
        }
    }
}

/// What validation measured (RMSE in the input's units, on held-out cells).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Validation {
    /// Observed cells held out (0: too few cells to validate).
    pub held_out: usize,
    /// The chosen model's RMSE.
    pub chosen: f64,
    /// The global mean's.
    pub global_mean: f64,
    /// Row + column means'.
    pub row_col_means: f64,
    /// The best FM's (NaN when none was trained).
    pub best_fm: f64,
}

/// A completed matrix model.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Completion {
    /// Rows and columns.
    pub shape: (usize, usize),
    /// The model chosen.
    pub chosen: Chosen,
    /// Validation results.
    pub validation: Validation,
    /// Mean and standard deviation the values were standardised with.
    pub scale: (f64, f64),
    /// Baseline: μ (standardised), row biases, column biases.
    pub biases: (f64, Vec<f64>, Vec<f64>),
    /// The FM (standardised units; features: rows then columns), when chosen.
    pub fm: Option<Fm>,
}

pub(super) type Cells = [(usize, usize, f64)];

impl Completion {
    /// The predicted value of cell (row, col), in the input's units.
    pub fn predict(&self, row: usize, col: usize) -> f64 {
        let (m, s) = self.scale;
        let z = match &self.fm {
            Some(fm) => fm.predict(&[(row, 1.0), (self.shape.0 + col, 1.0)]),
            None => self.biases.0 + self.biases.1[row] + self.biases.2[col],
        };
        m + s * z
    }
}

/// Fit `μ + b_r + b_c` to `cells` (standardised) by alternating ridge means.
pub(super) fn fit_biases(cells: &Cells, rows: usize, cols: usize) -> (f64, Vec<f64>, Vec<f64>) {
    let mu = cells.iter().map(|c| c.2).sum::<f64>() / cells.len() as f64;
    let (mut br, mut bc) = (vec![0.0; rows], vec![0.0; cols]);
    for _ in 0..10 {
        let mut acc = vec![(0.0, 0.0); rows];
        for &(r, c, v) in cells {
            acc[r].0 += v - mu - bc[c];
            acc[r].1 += 1.0;
        }
        br = acc.iter().map(|&(s, n)| s / (n + BIAS_REG)).collect();
        let mut acc = vec![(0.0, 0.0); cols];
        for &(r, c, v) in cells {
            acc[c].0 += v - mu - br[r];
            acc[c].1 += 1.0;
        }
        bc = acc.iter().map(|&(s, n)| s / (n + BIAS_REG)).collect();
    }
    (mu, br, bc)
}

fn rmse(cells: &Cells, f: &dyn Fn(usize, usize) -> f64) -> f64 {
    (cells.iter().map(|&(r, c, v)| (f(r, c) - v).powi(2)).sum::<f64>() / cells.len().max(1) as f64).sqrt()
}

/// An FM started at the baseline.
fn start_fm(rows: usize, cols: usize, params: FmParams, b: &(f64, Vec<f64>, Vec<f64>), seed: u64) -> Fm {
    let mut fm = Fm::new(rows + cols, params, seed);
    fm.w0 = b.0;
    fm.w[..rows].copy_from_slice(&b.1);
    fm.w[rows..].copy_from_slice(&b.2);
    fm
}

fn examples(cells: &Cells, rows: usize) -> Vec<(Vec<(usize, f64)>, f64)> {
    cells.iter().map(|&(r, c, v)| (vec![(r, 1.0), (rows + c, 1.0)], v)).collect()
}

/// Train with early stopping on `val`: (best held-out RMSE, epochs to it).
fn train_early(
    fm: &mut Fm,
    train: &[(Vec<(usize, f64)>, f64)],
    val: &[(Vec<(usize, f64)>, f64)],
    seed: u64,
) -> (f64, usize) {
    let mut best = (fm.rmse(val), 0);
    for e in 1..=MAX_EPOCHS {
        fm.fit(train, 1, seed.wrapping_add(e as u64));
        let r = fm.rmse(val);
        if !r.is_finite() {
            break;
        }
        if r < best.0 {
            best = (r, e);
        } else if e - best.1 >= PATIENCE {
            break;
        }
    }
    best
}

/// Observed cells a completion refuses.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CompletionError {
    /// No cell observed.
    #[error("no observed cells: nothing to learn from")]
    Empty,
    /// A cell's row or column is outside the matrix.
    #[error("cell ({row}, {col}) outside the {rows} × {cols} matrix")]
    Outside {
        /// The cell's row.
        row: usize,
        /// The cell's column.
        col: usize,
        /// Rows of the matrix.
        rows: usize,
        /// Columns of the matrix.
        cols: usize,
    },
    /// A cell's value is NaN or infinite.
    #[error("cell ({row}, {col}): value {value} is not a finite number")]
    NotFinite {
        /// The cell's row.
        row: usize,
        /// The cell's column.
        col: usize,
        /// Its value.
        value: f64,
    },
}

/// Standardised cells, and the mean and standard deviation they were standardised with.
pub(super) type Standardised = (Vec<(usize, usize, f64)>, f64, f64);

/// The observed cells checked (none, out of range, not finite: refused),
/// repeated cells averaged in first-seen order, and the values standardised:
/// `(cells, mean, sd)` with the cells in standard units.
pub(super) fn standardise(cells: &Cells, rows: usize, cols: usize) -> Result<Standardised, CompletionError> {
    if cells.is_empty() {
        return Err(CompletionError::Empty);
    }
    if let Some(c) = cells.iter().find(|c| c.0 >= rows || c.1 >= cols) {
        return Err(CompletionError::Outside { row: c.0, col: c.1, rows, cols });
    }
    if let Some(c) = cells.iter().find(|c| !c.2.is_finite()) {
        return Err(CompletionError::NotFinite { row: c.0, col: c.1, value: c.2 });
    }
    // Average repeated cells (in first-seen order, so the result is deterministic).
    let mut uniq: Vec<(usize, usize, f64, f64)> = vec![];
    let mut at = std::collections::HashMap::new();
    // Values near the edge of f64 (|v| > 1e150) are divided by the largest
    // first, so sums and squares cannot overflow; others are used as they are.
    let big = cells.iter().map(|c| c.2.abs()).fold(0.0, f64::max);
    let unit = if big > 1e150 { big } else { 1.0 };
    for &(r, c, v) in cells {
        let i = *at.entry((r, c)).or_insert_with(|| {
            uniq.push((r, c, 0.0, 0.0));
            uniq.len() - 1
        });
        uniq[i].2 += v / unit;
        uniq[i].3 += 1.0;
    }
    let raw: Vec<(usize, usize, f64)> = uniq.iter().map(|u| (u.0, u.1, u.2 / u.3)).collect();
    let n = raw.len() as f64;
    let mean_u = raw.iter().map(|c| c.2).sum::<f64>() / n;
    let sd_u = (raw.iter().map(|c| (c.2 - mean_u).powi(2)).sum::<f64>() / n).sqrt();
    let sd_u = if sd_u > 1e-12 * mean_u.abs().max(1.0) { sd_u } else { 1.0 };
    let z: Vec<(usize, usize, f64)> = raw.iter().map(|&(r, c, v)| (r, c, (v - mean_u) / sd_u)).collect();
    Ok((z, mean_u * unit, sd_u * unit))
}

/// Fewest observed cells an FM (either) is trained on; below, row + column means.
pub const MIN_CELLS: usize = 10;

/// Complete a `rows × cols` matrix from observed `cells` (row, col, value).
/// Errors name what is wrong (no cells, a non-finite value, an index out of range).
pub fn complete(cells: &Cells, rows: usize, cols: usize, seed: u64) -> Result<Completion, CompletionError> {
    let (z, mean, sd) = standardise(cells, rows, cols)?;
    let all_biases = fit_biases(&z, rows, cols);
    let means_only = |reason: String, v: Validation| Completion {
        shape: (rows, cols),
        chosen: Chosen::Means { reason },
        validation: v,
        scale: (mean, sd),
        biases: all_biases.clone(),
        fm: None,
    };
    if z.len() < MIN_CELLS {
        let v = Validation {
            held_out: 0,
            chosen: f64::NAN,
            global_mean: f64::NAN,
            row_col_means: f64::NAN,
            best_fm: f64::NAN,
        };
        return Ok(means_only(
            format!("{} observed cells: too few to validate an FM ({MIN_CELLS} needed)", z.len()),
            v,
        ));
    }
    // Validation folds (seeded shuffle): one 20% hold-out, or 5-fold
    // cross-validation below 500 cells, where one hold-out is too noisy.
    let mut order: Vec<usize> = (0..z.len()).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x636f_6d70);
    for i in (1..order.len()).rev() {
        order.swap(i, rng.gen_range(0..=i));
    }
    let folds: Vec<Fold> = if z.len() < SMALL {
        (0..5).map(|f| Fold::new(&z, &order, |i| i % 5 == f, rows, cols)).collect()
    } else {
        let n_val = (z.len() as f64 * HOLD_OUT).round() as usize;
        vec![Fold::new(&z, &order, |i| i < n_val, rows, cols)]
    };
    let avg = |f: &dyn Fn(&Fold) -> f64| folds.iter().map(f).sum::<f64>() / folds.len() as f64;
    let v_global = avg(&|f| f.global);
    let v_means = avg(&|f| f.means);
    let run = |k: usize, reg: f64, s: u64| {
        let p = FmParams { k, learning_rate: LR, reg_w: 0.01, reg_v: reg, init_std: INIT_STD };
        let per: Vec<(f64, usize)> = folds
            .iter()
            .map(|f| {
                let mut fm = start_fm(rows, cols, p, &f.biases, s);
                train_early(&mut fm, &f.train, &f.val, s)
            })
            .collect();
        let r = per.iter().map(|x| x.0).sum::<f64>() / per.len() as f64;
        let e = (per.iter().map(|x| x.1 as f64).sum::<f64>() / per.len() as f64).round() as usize;
        (r, e, p, s)
    };
    let mut tried: Vec<(f64, usize, FmParams, u64)> =
        K_GRID.iter().flat_map(|&k| REG_GRID.iter().map(move |&g| (k, g))).map(|(k, g)| run(k, g, seed)).collect();
    tried.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut best = tried[0];
    for cand in tried.iter().take(2).copied().collect::<Vec<_>>() {
        for s in 1..=2 {
            let r = run(cand.2.k, cand.2.reg_v, seed.wrapping_add(s * 7919));
            if r.0 < best.0 {
                best = r;
            }
        }
    }
    let held_out = folds.iter().map(|f| f.val.len()).sum();
    let un = |r: f64| r * sd;
    let mut v = Validation {
        held_out,
        chosen: un(v_means),
        global_mean: un(v_global),
        row_col_means: un(v_means),
        best_fm: un(best.0),
    };
    // NaN-safe: an FM that diverged never wins.
    let fm_wins = best.0 < v_means.min(v_global) && best.1 > 0;
    if !fm_wins && v_global < v_means {
        v.chosen = un(v_global);
        let mut c = means_only("validation: the global mean beats row + column means and the FM".into(), v);
        c.biases = (all_biases.0, vec![0.0; rows], vec![0.0; cols]);
        return Ok(c);
    }
    if !fm_wins {
        return Ok(means_only("validation: the FM is no better than row + column means".into(), v));
    }
    v.chosen = un(best.0);
    // Refit on every observed cell from the winning run's seed.
    let mut fm = start_fm(rows, cols, best.2, &all_biases, best.3);
    fm.fit(&examples(&z, rows), best.1, best.3);
    Ok(Completion {
        shape: (rows, cols),
        chosen: Chosen::Fm { params: best.2, epochs: best.1 },
        validation: v,
        scale: (mean, sd),
        biases: all_biases,
        fm: Some(fm),
    })
}

/// One validation split: training examples, held-out examples, the
/// baseline fitted on the training part and the baselines' held-out RMSE.
struct Fold {
    train: Vec<(Vec<(usize, f64)>, f64)>,
    val: Vec<(Vec<(usize, f64)>, f64)>,
    biases: (f64, Vec<f64>, Vec<f64>),
    global: f64,
    means: f64,
}

impl Fold {
    fn new(z: &Cells, order: &[usize], held: impl Fn(usize) -> bool, rows: usize, cols: usize) -> Fold {
        let (mut tr, mut va) = (vec![], vec![]);
        for (pos, &i) in order.iter().enumerate() {
            if held(pos) {
                va.push(z[i]);
            } else {
                tr.push(z[i]);
            }
        }
        let b = fit_biases(&tr, rows, cols);
        let tmean = tr.iter().map(|c| c.2).sum::<f64>() / tr.len() as f64;
        Fold {
            global: rmse(&va, &|_, _| tmean),
            means: rmse(&va, &|r, c| b.0 + b.1[r] + b.2[c]),
            train: examples(&tr, rows),
            val: examples(&va, rows),
            biases: b,
        }
    }
}

#[cfg(test)]
#[path = "complete_tests.rs"]
mod tests;
