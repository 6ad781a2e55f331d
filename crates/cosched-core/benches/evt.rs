//! POT pipeline cost (issue "Statistical thread assignment", "Speed"):
//! automatic threshold + GPD fit + profile-likelihood interval on 5,000
//! samples. `scripts/bench-evt` runs this and a SciPy implementation of the
//! same pipeline in the same run and prints the ratio.
//!
//! Run: `cargo bench -p cosched-core --bench evt` (prints the median ms).

use cosched_core::evt::{pot, Threshold};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use std::time::Instant;

fn main() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    // Bounded population: reversed Weibull with endpoint 10.
    let xs: Vec<f64> = (0..5000).map(|_| 10.0 - (-(rng.gen_range(1e-12..1.0f64)).ln()).powf(1.0 / 2.5)).collect();
    let mut t: Vec<f64> = (0..50)
        .map(|_| {
            let t0 = Instant::now();
            black_box(pot(black_box(&xs), Threshold::Auto, 0.95).expect("bounded"));
            t0.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    t.sort_by(f64::total_cmp);
    let r = pot(&xs, Threshold::Auto, 0.95).expect("bounded");
    println!("cosched POT (auto threshold + fit + profile interval), 5,000 samples: median {:.3} ms, p90 {:.3} ms (target < 5 ms)", t[25], t[45]);
    println!(
        "  threshold {:.4}, xi {:.4}, UPB {:.4}, interval [{:.4}, {:.4}]",
        r.threshold, r.fit.xi, r.upb, r.ci.0, r.ci.1
    );
}
