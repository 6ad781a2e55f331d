//! Factorization-machine accuracy and cost (issue "SLITS"): held-out RMSE of
//! the FM against the global-mean and row/column-mean baselines on synthetic
//! rank-3 interaction matrices (200 running × 200 waiting threads, row
//! offsets, 1%, 5% and 10% of entries observed), and the cost of one
//! incremental SGD update and one prediction with k = 8 (baseline in the same
//! run: one prediction).
//!
//! Run: `cargo bench -p cosched-core --bench fm`.

use cosched_core::learn::{Fm, FmParams};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use std::time::Instant;

type Data = Vec<(Vec<(usize, f64)>, f64)>;
/// A predictor of one sparse input.
type Predictor<'a> = &'a dyn Fn(&[(usize, f64)]) -> f64;

fn baselines(n: usize, train: &Data, test: &Data) -> (f64, f64) {
    let mean = train.iter().map(|e| e.1).sum::<f64>() / train.len() as f64;
    let (mut rs, mut rc, mut cs, mut cc) = (vec![0.0; n], vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    for (x, y) in train {
        rs[x[0].0] += y - mean;
        rc[x[0].0] += 1.0;
        cs[x[1].0 - n] += y - mean;
        cc[x[1].0 - n] += 1.0;
    }
    let rmse = |f: Predictor| (test.iter().map(|(x, y)| (f(x) - y).powi(2)).sum::<f64>() / test.len() as f64).sqrt();
    let global = rmse(&|_| mean);
    let rowcol = rmse(&|x| {
        let r = if rc[x[0].0] > 0.0 { rs[x[0].0] / rc[x[0].0] } else { 0.0 };
        let c = if cc[x[1].0 - n] > 0.0 { cs[x[1].0 - n] / cc[x[1].0 - n] } else { 0.0 };
        mean + r + c
    });
    (global, rowcol)
}

fn main() {
    let (n, k) = (200, 3);
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let u: Vec<f64> = (0..n * k).map(|_| rng.gen_range(-1.0..1.0)).collect();
    let v: Vec<f64> = (0..n * k).map(|_| rng.gen_range(-1.0..1.0)).collect();
    let truth = |r: usize, c: usize| (0..k).map(|f| u[r * k + f] * v[c * k + f]).sum::<f64>() + 0.3 * (r % 5) as f64;
    println!("| observed | FM RMSE | global mean RMSE | row/col mean RMSE |");
    println!("|---|---|---|---|");
    for p in [0.01, 0.05, 0.10] {
        let (mut train, mut test): (Data, Data) = (vec![], vec![]);
        for r in 0..n {
            for c in 0..n {
                let e = (vec![(r, 1.0), (n + c, 1.0)], truth(r, c));
                if rng.gen_bool(p) {
                    train.push(e)
                } else {
                    test.push(e)
                }
            }
        }
        let mut m = Fm::new(2 * n, FmParams { k: 3, learning_rate: 0.05, reg_w: 0.0, reg_v: 0.01, init_std: 0.1 }, 5);
        m.fit(&train, 100, 7);
        let (g, rc) = baselines(n, &train, &test);
        println!("| {:.0}% | {:.3} | {:.3} | {:.3} |", p * 100.0, m.rmse(&test), g, rc);
    }
    // Cost of one incremental update and one prediction (3 active features, k = 8, 128-thread TIM features).
    let mut m = Fm::new(2 * 128 + 16, FmParams::default(), 1);
    let xs: Vec<Vec<(usize, f64)>> = (0..10_000)
        .map(|_| {
            vec![(rng.gen_range(0..128), 1.0), (128 + rng.gen_range(0..128), 1.0), (256 + rng.gen_range(0..16), 1.0)]
        })
        .collect();
    let mut tp = vec![];
    let mut tu = vec![];
    for x in &xs {
        let t0 = Instant::now();
        black_box(m.predict(black_box(x)));
        tp.push(t0.elapsed().as_secs_f64() * 1e6);
        let t0 = Instant::now();
        black_box(m.sgd_step(black_box(x), 1.0));
        tu.push(t0.elapsed().as_secs_f64() * 1e6);
    }
    tp.sort_by(f64::total_cmp);
    tu.sort_by(f64::total_cmp);
    let p99 = |v: &[f64]| v[v.len() * 99 / 100];
    println!(
        "\nincremental SGD update (k = 8, 3 features): p99 {:.3} µs (target < 50 µs); prediction p99 {:.3} µs; update/prediction {:.1}x",
        p99(&tu),
        p99(&tp),
        p99(&tu) / p99(&tp)
    );
    println!(
        "FM memory: {} parameters ({} KiB) for n = {} features, k = 8: O(n·k)",
        1 + m.n + m.v.len(),
        (1 + m.n + m.v.len()) * 8 / 1024,
        m.n
    );
}
