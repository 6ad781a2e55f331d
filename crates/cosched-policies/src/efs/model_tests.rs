//! Tests of `model.rs`.

use super::*;

/// Closed form for n identical threads of solo utilisation b: with u = U/n,
/// Eq. 10 is the quadratic (k/n² − k/n)U² + (k/n − 1)U + 1 = 0, k = 1 − 1/b.
fn symmetric_total(n: usize, b: f64) -> f64 {
    let (n, k) = (n as f64, 1.0 - 1.0 / b);
    let (a2, a1, a0) = (k / (n * n) - k / n, k / n - 1.0, 1.0);
    if a2.abs() < 1e-15 {
        return -a0 / a1;
    }
    let disc = (a1 * a1 - 4.0 * a2 * a0).sqrt();
    [(-a1 + disc) / (2.0 * a2), (-a1 - disc) / (2.0 * a2)].into_iter().find(|u| *u > 0.0 && *u < 1.0).unwrap()
}

/// Independent root finder: for a given U each u_i solves its own quadratic;
/// bisect on U until Σ u_i(U) = U.
fn by_bisection(b: &[f64]) -> Vec<f64> {
    let u_of = |total: f64| -> Vec<f64> {
        b.iter()
            .map(|&bi| {
                let k = 1.0 - 1.0 / bi;
                let (a2, a1, a0) = (k, (1.0 - total) * k, 1.0 - total);
                let disc = (a1 * a1 - 4.0 * a2 * a0).sqrt();
                (-a1 - disc) / (2.0 * a2) // k < 0: the positive root
            })
            .collect()
    };
    let (mut lo, mut hi) = (0.0, 1.0 - 1e-15);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if u_of(mid).iter().sum::<f64>() > mid {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    u_of(0.5 * (lo + hi))
}

#[test]
fn newton_satisfies_eq10_and_matches_an_independent_root_finder() {
    let sets: [&[f64]; 5] =
        [&[0.3], &[0.2, 0.5], &[0.9, 0.9, 0.9, 0.9], &[0.05, 0.6, 0.33, 0.71, 0.12], &[0.99, 0.01, 0.5]];
    for b in sets {
        let s = solve_interaction(b, Newton::CONVERGED).unwrap();
        for i in 0..b.len() {
            assert!(residual(s.u[i], b[i], s.total).abs() < 1e-9, "{b:?}");
        }
        let r = by_bisection(b);
        for i in 0..b.len() {
            assert!((s.u[i] - r[i]).abs() < 1e-9, "{b:?}: newton {:?} bisection {:?}", s.u, r);
        }
    }
}

#[test]
fn symmetric_threads_match_the_closed_form() {
    for n in 1..=8 {
        for b in [0.05, 0.25, 0.5, 0.75, 0.95] {
            let s = solve_interaction(&vec![b; n], Newton::CONVERGED).unwrap();
            assert!((s.total - symmetric_total(n, b)).abs() < 1e-10, "n={n} b={b}");
        }
    }
    // A lone thread runs at its solo utilisation.
    let s = solve_interaction(&[0.4], Newton::CONVERGED).unwrap();
    assert!((s.u[0] - 0.4).abs() < 1e-12 && (s.throughput - 1.0).abs() < 1e-12);
}

#[test]
fn eq9_inverts_eq10() {
    let b = [0.15, 0.4, 0.66, 0.8];
    let s = solve_interaction(&b, Newton::CONVERGED).unwrap();
    for (u, b) in s.u.iter().zip(b) {
        assert!((solo_utilisation(*u, s.total) - b).abs() < 1e-10);
    }
}

#[test]
fn throughput_tends_to_n_at_low_and_1_at_high_utilisation() {
    let low = solve_interaction(&[0.001; 4], Newton::CONVERGED).unwrap().throughput;
    let high = solve_interaction(&[0.999; 4], Newton::CONVERGED).unwrap().throughput;
    assert!(low > 3.98 && high < 1.01, "{low} {high}");
}

#[test]
fn threshold_makes_eq15_an_equality() {
    let (p_now, p_new) = (26.6 + 22.6 + 12.0, 26.6 + 22.6 + 12.0 + 12.3);
    for obj in [Objective::Energy, Objective::EnergyDelay] {
        let running = [0.4, 0.3];
        let bn = admission_threshold(&running, p_now, p_new, obj, Newton::CONVERGED).unwrap();
        assert!(bn > 0.0 && bn < 1.0, "{bn}");
        let cur = solve_interaction(&running, Newton::CONVERGED).unwrap().throughput;
        let new = solve_interaction(&[0.4, 0.3, bn], Newton::CONVERGED).unwrap().throughput;
        let (a, b) = (obj.cost(p_new, new), obj.cost(p_now, cur));
        assert!((a / b - 1.0).abs() < 1e-9, "{obj:?}: {a} vs {b}");
    }
    assert_eq!(admission_threshold(&[], 26.6, 49.2, Objective::Energy, Newton::CONVERGED).unwrap(), 1.0);
}

#[test]
fn a_failed_solve_falls_back_to_the_free_bus_time() {
    let strict = Newton { max_iters: 1, tol: 1e-15, accept_unconverged: false };
    let running = [0.4, 0.3];
    assert!(admission_threshold(&running, 61.2, 73.5, Objective::Energy, strict).is_err());
    let (t, fell_back) = threshold_or_capacity(&running, 61.2, 73.5, Objective::Energy, strict);
    assert!(fell_back);
    assert!((t - 0.3).abs() < 1e-12, "{t}");
    let (t, fell_back) = threshold_or_capacity(&running, 61.2, 73.5, Objective::Energy, Newton::CONVERGED);
    assert!(!fell_back && t > 0.0 && t < 1.0);
}

#[test]
fn bad_input_is_an_error() {
    assert!(matches!(solve_interaction(&[0.5, 1.0], Newton::CONVERGED), Err(SolveError::BadInput { .. })));
    assert!(matches!(solve_interaction(&[0.0], Newton::CONVERGED), Err(SolveError::BadInput { .. })));
}
