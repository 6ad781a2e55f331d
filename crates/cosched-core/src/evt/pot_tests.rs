//! Tests of `pot.rs`.

use super::*;
use crate::dist::{chi2_1, normal_quantile};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[test]
fn normal_quantiles_and_chi2() {
    assert!((normal_quantile(0.975) - 1.959963985).abs() < 1e-6);
    assert!((chi2_1(0.95) - 3.841458821).abs() < 1e-5);
}

#[test]
fn profile_maximum_is_the_fitted_endpoint() {
    let mut r = ChaCha8Rng::seed_from_u64(4);
    let y: Vec<f64> = (0..400).map(|_| 1.0 - r.gen::<f64>().powf(0.5)).collect(); // bounded at 1
    let f = fit_gpd(&y).unwrap();
    let e = -f.sigma / f.xi;
    assert!((profile_endpoint(&y, e) - f.loglik).abs() < 1e-6, "{} vs {}", profile_endpoint(&y, e), f.loglik);
    for k in [0.99, 1.01] {
        assert!(profile_endpoint(&y, e * k) <= f.loglik + 1e-9);
    }
}

/// The CI-sized coverage study (the full one is
/// `scripts/bench-evt-coverage`): the automatic threshold's nominal-95%
/// interval covers the true endpoint ≥ 90% of the time on two bounded
/// distributions, 150 seeded replicates of 2,000 samples each.
#[test]
fn automatic_interval_covers_the_true_endpoint_of_bounded_distributions() {
    let mut r = ChaCha8Rng::seed_from_u64(2026);
    type Draw = fn(&mut ChaCha8Rng) -> f64;
    let draws: [(&str, Draw); 2] = [
        // Kumaraswamy(1, 3)-type, ξ = −1/3, endpoint 10.
        ("kumaraswamy", |r| 10.0 * (1.0 - (1.0 - r.gen::<f64>()).powf(1.0 / 3.0))),
        // Reversed Weibull, ξ = −0.4, endpoint 10.
        ("reversed weibull", |r| 10.0 - (-(r.gen_range(1e-12..1.0f64)).ln()).powf(1.0 / 2.5)),
    ];
    for (name, draw) in draws {
        let (mut covered, mut total) = (0, 0);
        for _ in 0..150 {
            let xs: Vec<f64> = (0..2000).map(|_| draw(&mut r)).collect();
            if let Ok(p) = pot(&xs, Threshold::Auto, 0.95) {
                total += 1;
                covered += (p.ci.0 <= 10.0 && 10.0 <= p.ci.1) as usize;
            }
        }
        let cov = covered as f64 / total as f64;
        eprintln!("{name}: automatic-threshold coverage {covered}/{total} = {cov:.3}");
        assert!(total >= 145 && cov >= 0.90, "{name}: coverage {cov} over {total} replicates");
    }
}

#[test]
fn failures_are_errors_not_numbers() {
    let few: Vec<f64> = (0..50).map(|i| i as f64).collect();
    assert!(matches!(pot(&few, Threshold::Quantile(0.9), 0.95), Err(PotError::TooFewExceedances { .. })));
    let mut r = ChaCha8Rng::seed_from_u64(1);
    let heavy: Vec<f64> = (0..3000).map(|_| r.gen_range(1e-9..1.0f64).powf(-0.5)).collect(); // Pareto, ξ = 0.5
    assert!(matches!(pot(&heavy, Threshold::Quantile(0.9), 0.95), Err(PotError::UnboundedTail { .. })));
    assert!(matches!(pot(&[1.0, f64::NAN], Threshold::Auto, 0.95), Err(PotError::BadInput(_))));
}

/// When the automatic rule finds nothing to fit, the error says
/// why for each candidate instead of quoting the 70th percentile's count.
#[test]
fn no_automatic_threshold_explains_each_candidate() {
    // 1,000 samples, 95% of them tied at the top: every candidate's
    // threshold sits on the tie, with nothing above it.
    let xs: Vec<f64> = (0..1000).map(|i| if i < 50 { i as f64 / 50.0 } else { 5.0 }).collect();
    let e = pot(&xs, Threshold::Auto, 0.95).unwrap_err();
    let text = e.to_string();
    assert!(matches!(e, PotError::NoThreshold(ref v) if v.len() == 6), "{text}");
    assert!(text.contains("q0.900: only 0 values above u = 5, at least 30 needed"), "{text}");
    assert!(!text.contains("300 exceedances"), "{text}");
    // Too few samples: the count quoted is the lowest candidate's own.
    let few: Vec<f64> = (0..90).map(|i| i as f64).collect();
    let text = pot(&few, Threshold::Auto, 0.95).unwrap_err().to_string();
    assert!(text.contains("the lowest candidate (q0.90) keeps 9 exceedances of 90, at least 30 needed"), "{text}");
    // An unbounded tail under the automatic rule names the thresholds tried.
    let mut r = ChaCha8Rng::seed_from_u64(1);
    let heavy: Vec<f64> = (0..3000).map(|_| r.gen_range(1e-9..1.0f64).powf(-0.5)).collect();
    let text = pot(&heavy, Threshold::Auto, 0.95).unwrap_err().to_string();
    assert!(text.contains("unbounded") && text.contains("thresholds tried: q0.900 (u = "), "{text}");
}
