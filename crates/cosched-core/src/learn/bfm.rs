//! A Bayesian factorization machine trained by Gibbs sampling:
//! Freudenthaler, Schmidt-Thieme, Rendle, "Bayesian Factorization Machines"
//! (NIPS workshop on sparse representation and low-rank approximation, 2011),
//! the MCMC solver of libFM.
//!
//! Model (Rendle's FM, SLITS §3.3 Eq. 1): `ŷ(x) = w₀ + Σᵢ wᵢxᵢ + Σ_f ½[(Σᵢ vᵢ_f xᵢ)² − Σᵢ vᵢ_f² xᵢ²]`,
//! `y ~ N(ŷ, 1/α)`. Priors per feature group `g` (rows, columns): `wᵢ ~ N(μ_w, 1/λ_w)`,
//! `vᵢ_f ~ N(μ_f, 1/λ_f)`; hyper-priors `α, λ ~ Γ(1, 1)`, `μ ~ N(0, 1/(γ₀λ))` with
//! `γ₀ = 1`, and a flat prior on `w₀` (libFM's defaults). Every parameter θ is
//! drawn from its full conditional, which is normal because ŷ is linear in θ
//! (`ŷ = g_θ + θ·h_θ`, the paper's Eqs. 9-12): with the residuals `eₒ = yₒ − ŷₒ`
//! cached, `σ² = 1/(α Σₒ h² + λ_θ)`, `μ* = σ²(α Σₒ (eₒ + θ h) h + μ_θ λ_θ)`, and the
//! residuals (and the factor sums `q_f`) are updated in place after each draw
//! (the ALS-style per-coordinate updates). Predictions are averaged over the
//! kept samples (after `burn_in`); their spread over the samples is the
//! predictive standard deviation of each cell's mean.

use crate::knob::KnobError;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Gamma, Normal};
use serde::Serialize;

/// Settings of the sampler.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct BfmParams {
    /// Rank (factor dimensions).
    pub k: usize,
    /// Gibbs iterations in all.
    pub iterations: usize,
    /// Iterations discarded before samples are kept.
    pub burn_in: usize,
    /// Standard deviation of the initial factors.
    pub init_std: f64,
}

impl Default for BfmParams {
    /// Rank 8, 400 iterations of which the first 100 are burn-in, factors N(0, 0.1²).
    fn default() -> Self {
        BfmParams { k: 8, iterations: 400, burn_in: 100, init_std: 0.1 }
    }
}

/// Most factor dimensions (rank) the sampler takes (its state is O(features × k)).
pub const MAX_K: usize = 64;
/// Most Gibbs iterations a completion may ask for (each is a sweep over every observed cell).
pub const MAX_ITERATIONS: usize = 100_000;

impl BfmParams {
    /// The settings a user asks for (`--rank`, `--iterations`; Python's
    /// `rank=`, `iterations=`), a quarter of the iterations burn-in;
    /// out-of-range values are refused naming the flag.
    pub fn checked(rank: usize, iterations: usize) -> Result<BfmParams, KnobError> {
        let invalid = |knob: &str, problem: String| Err(KnobError::Invalid { knob: knob.to_string(), problem });
        if !(1..=MAX_K).contains(&rank) {
            return invalid("rank", format!("must be from 1 to {MAX_K}, got {rank}"));
        }
        if !(4..=MAX_ITERATIONS).contains(&iterations) {
            return invalid(
                "iterations",
                format!(
                    "must be from 4 to {MAX_ITERATIONS}, got {iterations} (each is a sweep over every observed cell)"
                ),
            );
        }
        Ok(BfmParams { k: rank, iterations, burn_in: iterations / 4, ..BfmParams::default() })
    }
}

/// Hyper-prior constants (libFM's defaults).
const ALPHA0: f64 = 1.0;
const BETA0: f64 = 1.0;
const GAMMA0: f64 = 1.0;
const MU0: f64 = 0.0;

/// The posterior predictive mean and standard deviation of each query.
#[derive(Clone, Debug, PartialEq)]
pub struct Posterior {
    /// Mean over the kept samples.
    pub mean: Vec<f64>,
    /// Standard deviation over the kept samples.
    pub std: Vec<f64>,
    /// Samples kept.
    pub kept: usize,
    /// Noise precision α, averaged over the kept samples.
    pub alpha: f64,
}

/// One observation: its features `(index, value)` and target.
pub type Example = (Vec<(usize, f64)>, f64);

struct State {
    w0: f64,
    w: Vec<f64>,
    v: Vec<f64>, // feature-major: v[i * k + f]
    alpha: f64,
    mu_w: Vec<f64>,
    lambda_w: Vec<f64>,
    mu_v: Vec<f64>, // group-major: [g * k + f]
    lambda_v: Vec<f64>,
}

fn normal(rng: &mut ChaCha8Rng, mean: f64, var: f64) -> f64 {
    Normal::new(mean, var.max(0.0).sqrt()).expect("finite").sample(rng)
}

/// Γ(shape, rate) draw.
fn gamma(rng: &mut ChaCha8Rng, shape: f64, rate: f64) -> f64 {
    Gamma::new(shape, 1.0 / rate).expect("positive").sample(rng)
}

/// Gibbs-sample a Bayesian FM on `train` (features `0..n_features`, feature
/// `i` in group `group[i]`) and return the posterior predictive of `queries`.
pub fn sample(
    n_features: usize,
    group: &[usize],
    train: &[Example],
    queries: &[Vec<(usize, f64)>],
    p: &BfmParams,
    seed: u64,
) -> Posterior {
    assert_eq!(group.len(), n_features, "one group per feature");
    let k = p.k.clamp(1, MAX_K);
    let n_groups = group.iter().copied().max().map_or(1, |g| g + 1);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = train.len();
    // Observations of each feature (a column-wise index).
    let mut by_feature: Vec<Vec<(usize, f64)>> = vec![vec![]; n_features];
    for (o, (x, _)) in train.iter().enumerate() {
        for &(i, xi) in x {
            by_feature[i].push((o, xi));
        }
    }
    let mut s = State {
        w0: 0.0,
        w: vec![0.0; n_features],
        v: (0..n_features * k).map(|_| normal(&mut rng, 0.0, p.init_std * p.init_std)).collect(),
        alpha: 1.0,
        mu_w: vec![0.0; n_groups],
        lambda_w: vec![1.0; n_groups],
        mu_v: vec![0.0; n_groups * k],
        lambda_v: vec![1.0; n_groups * k],
    };
    // Factor sums q[o * k + f] and residuals e[o] of every observation.
    let mut q = vec![0.0; n * k];
    for (o, (x, _)) in train.iter().enumerate() {
        for &(i, xi) in x {
            for f in 0..k {
                q[o * k + f] += s.v[i * k + f] * xi;
            }
        }
    }
    let predict = |s: &State, x: &[(usize, f64)], qx: &mut [f64]| -> f64 {
        let mut y = s.w0;
        qx.iter_mut().for_each(|v| *v = 0.0);
        let mut sq = vec![0.0; k];
        for &(i, xi) in x {
            y += s.w[i] * xi;
            for f in 0..k {
                let t = s.v[i * k + f] * xi;
                qx[f] += t;
                sq[f] += t * t;
            }
        }
        y + (0..k).map(|f| 0.5 * (qx[f] * qx[f] - sq[f])).sum::<f64>()
    };
    let mut scratch = vec![0.0; k];
    let mut e: Vec<f64> = train.iter().map(|(x, y)| y - predict(&s, x, &mut scratch)).collect();
    let (mut sum, mut sumsq) = (vec![0.0; queries.len()], vec![0.0; queries.len()]);
    let (mut kept, mut alpha_sum) = (0usize, 0.0);
    let members: Vec<usize> = (0..n_groups).map(|g| group.iter().filter(|&&x| x == g).count()).collect();
    for it in 0..p.iterations {
        // Noise precision first (libFM's and myFM's order: α, w₀, the linear
        // weights' hyper-parameters and weights, then the factors').
        let sse: f64 = e.iter().map(|x| x * x).sum();
        s.alpha = gamma(&mut rng, (ALPHA0 + n as f64) / 2.0, (BETA0 + sse) / 2.0);
        // w₀ (h = 1, flat prior).
        if n > 0 {
            let var = 1.0 / (s.alpha * n as f64);
            let mean = var * s.alpha * e.iter().map(|eo| eo + s.w0).sum::<f64>();
            let new = normal(&mut rng, mean, var);
            e.iter_mut().for_each(|eo| *eo -= new - s.w0);
            s.w0 = new;
        }
        // Hyper-parameters of a group's weights: λ given μ, then μ given λ.
        let hyper = |rng: &mut ChaCha8Rng, g: usize, vals: &[f64], mu: f64| -> (f64, f64) {
            let ng = members[g] as f64;
            let ss = vals.iter().map(|x| (x - mu) * (x - mu)).sum::<f64>() + GAMMA0 * (mu - MU0) * (mu - MU0);
            let lambda = gamma(rng, (ALPHA0 + ng + 1.0) / 2.0, (BETA0 + ss) / 2.0);
            let mean = (vals.iter().sum::<f64>() + GAMMA0 * MU0) / (ng + GAMMA0);
            (normal(rng, mean, 1.0 / ((ng + GAMMA0) * lambda)), lambda)
        };
        for g in 0..n_groups {
            let vals: Vec<f64> = (0..n_features).filter(|&i| group[i] == g).map(|i| s.w[i]).collect();
            let (mu, lambda) = hyper(&mut rng, g, &vals, s.mu_w[g]);
            s.mu_w[g] = mu;
            s.lambda_w[g] = lambda;
        }
        // Linear weights (h = xᵢ).
        for i in 0..n_features {
            let g = group[i];
            let (mut hh, mut eh) = (0.0, 0.0);
            for &(o, x) in &by_feature[i] {
                hh += x * x;
                eh += (e[o] + s.w[i] * x) * x;
            }
            let var = 1.0 / (s.alpha * hh + s.lambda_w[g]);
            let new = normal(&mut rng, var * (s.alpha * eh + s.mu_w[g] * s.lambda_w[g]), var);
            for &(o, x) in &by_feature[i] {
                e[o] -= (new - s.w[i]) * x;
            }
            s.w[i] = new;
        }
        for g in 0..n_groups {
            for f in 0..k {
                let vals: Vec<f64> = (0..n_features).filter(|&i| group[i] == g).map(|i| s.v[i * k + f]).collect();
                let (mu, lambda) = hyper(&mut rng, g, &vals, s.mu_v[g * k + f]);
                s.mu_v[g * k + f] = mu;
                s.lambda_v[g * k + f] = lambda;
            }
        }
        // Factors, one dimension at a time (h = xᵢ (q_f − vᵢ_f xᵢ)).
        for f in 0..k {
            for i in 0..n_features {
                let (g, old) = (group[i], s.v[i * k + f]);
                let (mut hh, mut eh) = (0.0, 0.0);
                for &(o, x) in &by_feature[i] {
                    let h = x * (q[o * k + f] - old * x);
                    hh += h * h;
                    eh += (e[o] + old * h) * h;
                }
                let lam = s.lambda_v[g * k + f];
                let var = 1.0 / (s.alpha * hh + lam);
                let new = normal(&mut rng, var * (s.alpha * eh + s.mu_v[g * k + f] * lam), var);
                for &(o, x) in &by_feature[i] {
                    let h = x * (q[o * k + f] - old * x);
                    e[o] -= (new - old) * h;
                    q[o * k + f] += (new - old) * x;
                }
                s.v[i * k + f] = new;
            }
        }
        if it >= p.burn_in {
            kept += 1;
            alpha_sum += s.alpha;
            for (j, x) in queries.iter().enumerate() {
                let y = predict(&s, x, &mut scratch);
                sum[j] += y;
                sumsq[j] += y * y;
            }
        }
    }
    let kn = kept.max(1) as f64;
    let mean: Vec<f64> = sum.iter().map(|t| t / kn).collect();
    let std = sumsq.iter().zip(&mean).map(|(t, m)| (t / kn - m * m).max(0.0).sqrt()).collect();
    Posterior { mean, std, kept, alpha: alpha_sum / kn }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    /// A planted rank-`r` matrix, the observed cells (with noise) and the rest (truth).
    #[allow(clippy::type_complexity)]
    fn planted(
        rows: usize,
        cols: usize,
        r: usize,
        frac: f64,
        noise: f64,
        seed: u64,
    ) -> (Vec<(usize, usize, f64)>, Vec<(usize, usize, f64)>) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let nd = Normal::new(0.0, 1.0).unwrap();
        let a: Vec<f64> = (0..rows * r).map(|_| nd.sample(&mut rng)).collect();
        let b: Vec<f64> = (0..cols * r).map(|_| nd.sample(&mut rng)).collect();
        let (mut obs, mut hidden) = (vec![], vec![]);
        for i in 0..rows {
            for j in 0..cols {
                let t: f64 = (0..r).map(|f| a[i * r + f] * b[j * r + f]).sum();
                if rng.gen::<f64>() < frac {
                    obs.push((i, j, t + noise * nd.sample(&mut rng)));
                } else {
                    hidden.push((i, j, t));
                }
            }
        }
        (obs, hidden)
    }

    fn run(
        rows: usize,
        cols: usize,
        obs: &[(usize, usize, f64)],
        q: &[(usize, usize, f64)],
        p: &BfmParams,
    ) -> Posterior {
        let ex: Vec<Example> = obs.iter().map(|&(i, j, y)| (vec![(i, 1.0), (rows + j, 1.0)], y)).collect();
        let qs: Vec<Vec<(usize, f64)>> = q.iter().map(|&(i, j, _)| vec![(i, 1.0), (rows + j, 1.0)]).collect();
        let group: Vec<usize> = (0..rows + cols).map(|i| usize::from(i >= rows)).collect();
        sample(rows + cols, &group, &ex, &qs, p, 5)
    }

    #[test]
    fn recovers_a_planted_low_rank_matrix_and_its_intervals_cover_the_truth() {
        let (rows, cols) = (40, 30);
        let (obs, hidden) = planted(rows, cols, 2, 0.3, 0.1, 1);
        let post = run(rows, cols, &obs, &hidden, &BfmParams { iterations: 300, burn_in: 100, ..Default::default() });
        assert_eq!(post.kept, 200);
        let rmse =
            (hidden.iter().zip(&post.mean).map(|(h, m)| (h.2 - m).powi(2)).sum::<f64>() / hidden.len() as f64).sqrt();
        let sd = (hidden.iter().map(|h| h.2 * h.2).sum::<f64>() / hidden.len() as f64).sqrt();
        assert!(rmse < 0.3 * sd, "held-out RMSE {rmse} against the values' spread {sd}");
        let covered = hidden
            .iter()
            .zip(post.mean.iter().zip(&post.std))
            .filter(|(h, (m, s))| (h.2 - **m).abs() <= 1.96 * **s + 1e-12)
            .count();
        assert!(covered as f64 >= 0.8 * hidden.len() as f64, "95% intervals cover {covered} of {}", hidden.len());
        // The noise precision is found: 1/α ≈ 0.1² (within a factor of 3).
        assert!(post.alpha > 100.0 / 3.0 && post.alpha < 300.0, "alpha {}", post.alpha);
    }

    #[test]
    fn the_same_seed_gives_the_same_posterior() {
        let (obs, hidden) = planted(12, 10, 2, 0.5, 0.1, 2);
        let p = BfmParams { iterations: 50, burn_in: 10, ..Default::default() };
        let a = run(12, 10, &obs, &hidden, &p);
        let b = run(12, 10, &obs, &hidden, &p);
        assert_eq!(a, b);
    }
}
