//! The memory-bus collision model (EFS §3.1).
//!
//! A thread alone uses a fraction `b_i` of the bus (its solo utilisation,
//! Eq. 2). Running with others it finds the bus busy with probability
//! `ρ_i = U − u_i` (Eq. 8) and waits like a queue (Eq. 7), so its utilisation
//! drops to `u_i` and its speed to `u_i / b_i` (Eq. 11). Eq. 9 inverts the
//! relation (solo utilisation from measured `u_i`, `U`); Eq. 10 is the set of
//! equations Newton's method solves for the `u_i` given the `b_i`.

use std::fmt;

/// Why a solve failed.
#[derive(Clone, Debug, PartialEq)]
pub enum SolveError {
    /// A solo utilisation outside (0, 1).
    BadInput {
        /// Its job's index.
        job: usize,
        /// The utilisation given.
        b: f64,
    },
    /// Newton's method did not reach the tolerance within its iterations.
    NoConvergence {
        /// Largest residual left.
        residual: f64,
    },
}

impl fmt::Display for SolveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SolveError::BadInput { job, b } => write!(f, "bad input: solo utilisation b[{job}] = {b} is not in (0, 1)"),
            SolveError::NoConvergence { residual } => write!(f, "Newton did not converge (residual {residual:.3e})"),
        }
    }
}

/// How to run the multivariate Newton method on Eq. 10.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Newton {
    /// Iteration limit (the paper: at most 4).
    pub max_iters: usize,
    /// Stop when the largest residual is below this.
    pub tol: f64,
    /// Return the last iterate instead of an error when the limit is hit
    /// (the paper's fixed-iteration kernel variant).
    pub accept_unconverged: bool,
}

impl Newton {
    /// The paper's kernel variant: at most 4 iterations, stop early on convergence (§4.1).
    pub const PAPER: Newton = Newton { max_iters: 4, tol: 1e-9, accept_unconverged: true };
    /// A converging variant: up to 50 damped iterations to 1e-12.
    pub const CONVERGED: Newton = Newton { max_iters: 50, tol: 1e-12, accept_unconverged: false };
}

/// Solution of Eq. 10 for a set of threads.
#[derive(Clone, Debug, PartialEq)]
pub struct Interaction {
    /// Utilisation of each thread running together (u_i).
    pub u: Vec<f64>,
    /// Total utilisation U = Σ u_i (Eq. 5).
    pub total: f64,
    /// Throughput Σ u_i / b_i (Eq. 12 with α = 1).
    pub throughput: f64,
    /// Newton iterations used.
    pub iterations: usize,
}

impl Interaction {
    /// Each thread's speed relative to solo, u_i / b_i (Eq. 11; the paper calls it "slowdown").
    pub fn slowdowns(&self, b: &[f64]) -> Vec<f64> {
        self.u.iter().zip(b).map(|(u, b)| u / b).collect()
    }
}

/// Eq. 9: a thread's solo utilisation from its utilisation `u` and the total `total` measured together.
pub fn solo_utilisation(u: f64, total: f64) -> f64 {
    let x = u * (u + 1.0 - total);
    x / (x + 1.0 - total)
}

/// Residual of Eq. 10 for thread i: `u²(1 − 1/b) + u(1 − U)(1 − 1/b) + 1 − U`.
#[inline]
pub fn residual(u: f64, b: f64, total: f64) -> f64 {
    let k = 1.0 - 1.0 / b;
    u * u * k + u * (1.0 - total) * k + 1.0 - total
}

fn check(b: &[f64]) -> Result<(), SolveError> {
    match b.iter().position(|&x| !(x > 0.0 && x < 1.0)) {
        Some(i) => Err(SolveError::BadInput { job: i, b: b[i] }),
        None => Ok(()),
    }
}

/// Solve Eq. 10 for the u_i given the solo utilisations `b` (each in (0, 1)),
/// by multivariate Newton. The Jacobian is diagonal plus a rank-one term
/// (every equation depends on U = Σu), so each step is O(n) by
/// Sherman-Morrison. A step that would leave the domain (u_i in (0, b_i],
/// U < 1) is halved until it does not.
pub fn solve_interaction(b: &[f64], newton: Newton) -> Result<Interaction, SolveError> {
    check(b)?;
    let n = b.len();
    if n == 0 {
        return Ok(Interaction { u: vec![], total: 0.0, throughput: 0.0, iterations: 0 });
    }
    // Start inside the domain: solo utilisations scaled so that U < 1.
    let sb: f64 = b.iter().sum();
    let scale = if sb < 0.95 { 1.0 } else { 0.95 / sb };
    let mut u: Vec<f64> = b.iter().map(|x| x * scale).collect();
    let mut f = vec![0.0; n];
    let mut step = vec![0.0; n];
    let mut iterations = 0;
    let mut worst = f64::INFINITY;
    for it in 0..newton.max_iters {
        let total: f64 = u.iter().sum();
        worst = 0.0;
        for i in 0..n {
            f[i] = residual(u[i], b[i], total);
            worst = worst.max(f[i].abs());
        }
        if worst < newton.tol {
            break;
        }
        iterations = it + 1;
        // J = diag(d) + e·1ᵀ; J⁻¹f = D⁻¹f − D⁻¹e (1ᵀD⁻¹f) / (1 + 1ᵀD⁻¹e).
        let (mut sf, mut se) = (0.0, 0.0);
        for i in 0..n {
            let k = 1.0 - 1.0 / b[i];
            let d = 2.0 * u[i] * k + (1.0 - total) * k;
            let e = -u[i] * k - 1.0;
            step[i] = f[i] / d;
            sf += step[i];
            se += e / d;
            f[i] = e / d;
        }
        let c = sf / (1.0 + se);
        for i in 0..n {
            step[i] -= f[i] * c;
        }
        // Damped update staying in the domain (u_i in (0, b_i], U < 1).
        let mut t = 1.0;
        loop {
            let mut sum = 0.0;
            let mut ok = true;
            for i in 0..n {
                let v = u[i] - t * step[i];
                ok &= v > 0.0 && v <= b[i];
                sum += v;
            }
            if (ok && sum < 1.0) || t < 1e-6 {
                break;
            }
            t *= 0.5;
        }
        for i in 0..n {
            u[i] -= t * step[i];
        }
    }
    let total: f64 = u.iter().sum();
    let final_worst = (0..n).map(|i| residual(u[i], b[i], total).abs()).fold(0.0, f64::max);
    if final_worst >= newton.tol && !newton.accept_unconverged {
        return Err(SolveError::NoConvergence { residual: final_worst.min(worst) });
    }
    let throughput = u.iter().zip(b).map(|(u, b)| u / b).sum();
    Ok(Interaction { u, total, throughput, iterations })
}

/// What EFS minimises (§3.1: "it is easy to target other goals by altering Eq. (15)").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Objective {
    /// Energy per unit of work: Power / Throughput (Eq. 14).
    Energy,
    /// Energy-delay per unit of work: Power / Throughput².
    EnergyDelay,
}

cosched_core::words!(Objective { Energy = "energy", EnergyDelay = "energy-delay" });

impl Objective {
    /// The cost of running with `power` watts at `throughput` (lower is better).
    pub fn cost(self, power: f64, throughput: f64) -> f64 {
        match self {
            Objective::Energy => power / throughput,
            Objective::EnergyDelay => power / (throughput * throughput),
        }
    }
}

/// The positive root u_i of thread i's Eq. 10 when the total is `total`:
/// with k = 1 − 1/b < 0, `k u² + (1 − U) k u + (1 − U) = 0`.
#[inline]
fn u_given_total(b: f64, total: f64) -> f64 {
    let k = 1.0 - 1.0 / b;
    let (a1, a0) = ((1.0 - total) * k, 1.0 - total);
    (-a1 - (a1 * a1 - 4.0 * k * a0).sqrt()) / (2.0 * k)
}

/// Eqs. 10 + 16: the highest solo utilisation an additional thread may have
/// for running it beside the threads of solo utilisations `running` to cost
/// no more (under `objective`) than not running it. `power_now` and
/// `power_new` are Eq. 13's power with the current and one more active core.
/// Returns a value in [0, 1]: 1 admits any thread, 0 none.
///
/// The n + 1 equations are solved through the new total U instead of the
/// newcomer's b: for a given U every running thread's u_i is the root of its
/// own quadratic (Eq. 10), the newcomer's u is what is left of U, and its b
/// follows from Eq. 9 — all closed forms, so Eq. 16 becomes a monotone
/// one-dimensional root search with no inner Newton solves.
pub fn admission_threshold(
    running: &[f64],
    power_now: f64,
    power_new: f64,
    objective: Objective,
    newton: Newton,
) -> Result<f64, SolveError> {
    if running.is_empty() {
        return Ok(1.0); // nothing runs: any thread beats an idle machine
    }
    let current = solve_interaction(running, newton)?;
    let target = objective.cost(power_now, current.throughput);
    // State of the machine with a newcomer when the total utilisation is U (> current U).
    let with_total = |total: f64| -> (f64, f64) {
        let mut others = 0.0;
        let mut speed = 0.0;
        for &b in running {
            let u = u_given_total(b, total);
            others += u;
            speed += u / b;
        }
        let u_new = (total - others).max(1e-15);
        let b_new = solo_utilisation(u_new, total).clamp(1e-15, 1.0);
        (b_new, objective.cost(power_new, speed + u_new / b_new) - target)
    };
    let u0 = current.total.min(1.0 - 1e-12);
    let (mut lo, mut hi) = (u0 + 1e-12, 1.0 - 1e-12);
    let ((_, flo), (bhi, fhi)) = (with_total(lo), with_total(hi));
    if flo >= 0.0 {
        return Ok(0.0);
    }
    if fhi <= 0.0 || bhi >= 1.0 {
        return Ok(if fhi <= 0.0 { 1.0 } else { bhi });
    }
    // Illinois false position on a monotone function of U.
    let (mut flo, mut fhi) = (flo, fhi);
    let mut side = 0;
    let mut b = 0.0;
    for _ in 0..100 {
        let x = (lo * fhi - hi * flo) / (fhi - flo);
        let (bx, fx) = with_total(x);
        b = bx;
        if fx.abs() <= 1e-13 * target.abs() || hi - lo < 1e-13 {
            break;
        }
        if fx < 0.0 {
            lo = x;
            flo = fx;
            if side == -1 {
                fhi /= 2.0;
            }
            side = -1;
        } else {
            hi = x;
            fhi = fx;
            if side == 1 {
                flo /= 2.0;
            }
            side = 1;
        }
    }
    Ok(b)
}

/// The admission threshold the scheduler acts on: [`admission_threshold`], or,
/// when its solve fails, the capacity rule `1 − Σ running` (a newcomer is
/// admitted only if its solo utilisation fits the bus time the running threads
/// leave free, so a failed solve never admits a thread the bus cannot hold).
/// The second value says whether the fallback was taken.
pub fn threshold_or_capacity(
    running: &[f64],
    power_now: f64,
    power_new: f64,
    objective: Objective,
    newton: Newton,
) -> (f64, bool) {
    match admission_threshold(running, power_now, power_new, objective, newton) {
        Ok(t) => (t, false),
        Err(_) => ((1.0 - running.iter().sum::<f64>()).max(0.0), true),
    }
}

#[cfg(test)]
#[path = "model_tests.rs"]
mod tests;
