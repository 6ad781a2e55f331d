//! Tests of `complete.rs`.

use super::*;

/// A planted rank-`k` matrix plus row offsets and noise; (observed, hidden).
type Split = (Vec<(usize, usize, f64)>, Vec<(usize, usize, f64)>);
fn planted(n: usize, k: usize, share: f64, noise: f64, seed: u64) -> Split {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    let u: Vec<f64> = (0..n * k).map(|_| r.gen_range(-1.0..1.0)).collect();
    let v: Vec<f64> = (0..n * k).map(|_| r.gen_range(-1.0..1.0)).collect();
    let (mut obs, mut hid) = (vec![], vec![]);
    for i in 0..n {
        for j in 0..n {
            let t = (0..k).map(|f| u[i * k + f] * v[j * k + f]).sum::<f64>() + 0.3 * (i % 4) as f64;
            if r.gen_bool(share) {
                obs.push((i, j, t + noise * r.gen_range(-1.0..1.0)));
            } else {
                hid.push((i, j, t));
            }
        }
    }
    (obs, hid)
}

#[test]
fn beats_the_means_on_a_planted_matrix_and_never_loses_on_validation() {
    let (obs, hid) = planted(64, 2, 0.2, 0.05, 3);
    let c = complete(&obs, 64, 64, 1).unwrap();
    assert!(matches!(c.chosen, Chosen::Fm { .. }), "{:?} {:?}", c.chosen, c.validation);
    assert!(c.validation.chosen <= c.validation.row_col_means);
    let b = fit_biases(&obs.iter().map(|&(r, cc, v)| (r, cc, (v - c.scale.0) / c.scale.1)).collect::<Vec<_>>(), 64, 64);
    let means = rmse(&hid, &|r, cc| c.scale.0 + c.scale.1 * (b.0 + b.1[r] + b.2[cc]));
    let fm = rmse(&hid, &|r, cc| c.predict(r, cc));
    assert!(fm < 0.5 * means, "held-out RMSE: FM {fm:.4} vs row+col means {means:.4}");
    // Pure noise: no structure to find, so validation keeps the means or an FM no worse.
    let mut r = ChaCha8Rng::seed_from_u64(5);
    let noise: Vec<_> = (0..400).map(|i| (i / 20, i % 20, r.gen_range(0.0..1.0))).collect();
    let c = complete(&noise, 20, 20, 2).unwrap();
    assert!(c.validation.chosen <= c.validation.row_col_means, "{:?}", c.validation);
}

#[test]
fn adversarial_input_gives_a_result_or_an_error_never_a_panic() {
    // One observed row; constant values; duplicates; a single cell.
    let one_row: Vec<_> = (0..12).map(|j| (0, j, j as f64)).collect();
    assert!(complete(&one_row, 3, 12, 1).unwrap().predict(2, 5).is_finite());
    let constant: Vec<_> = (0..50).map(|i| (i % 7, i % 5, 4.0)).collect();
    let c = complete(&constant, 7, 5, 1).unwrap();
    assert!((c.predict(3, 3) - 4.0).abs() < 1e-9, "{}", c.predict(3, 3));
    let dup = [(0, 0, 1.0), (0, 0, 3.0), (1, 1, 5.0)];
    let c = complete(&dup, 2, 2, 1).unwrap();
    assert!(matches!(c.chosen, Chosen::Means { .. }) && c.predict(0, 1).is_finite());
    assert!(complete(&[(0, 0, 7.0)], 1, 1, 1).unwrap().predict(0, 0) == 7.0);
    assert_eq!(complete(&[], 2, 2, 1).unwrap_err().to_string(), "no observed cells: nothing to learn from");
    assert!(complete(&[(0, 0, f64::NAN)], 1, 1, 1).unwrap_err().to_string().contains("not a finite number"));
    assert!(complete(&[(3, 0, 1.0)], 2, 2, 1).unwrap_err().to_string().contains("outside"));
    // Huge scale: standardisation keeps SGD stable.
    let (obs, _) = planted(16, 1, 0.5, 0.0, 9);
    let big: Vec<_> = obs.iter().map(|&(r, c, v)| (r, c, 1e9 * v + 3e12)).collect();
    assert!(complete(&big, 16, 16, 1).unwrap().predict(1, 2).is_finite());
}

#[test]
fn same_seed_same_model() {
    let (obs, _) = planted(20, 2, 0.3, 0.01, 4);
    assert_eq!(complete(&obs, 20, 20, 7).unwrap(), complete(&obs, 20, 20, 7).unwrap());
}
