//! EFS admission cost (issue "EFS", "Speed"): one admission decision (Eq. 10
//! solve of the running set + Eq. 16 threshold) for 16 running threads, p50
//! and p99 over 20,000 decisions with random solo bandwidths, for the paper's
//! 4-iteration Newton and the converging variant; the baseline measured in the
//! same run is one Eq. 10 solve of the same 16 threads.
//!
//! Run: `cargo bench -p cosched-core --bench efs`.

use cosched_policies::efs::{admission_threshold, solve_interaction, Newton, Objective};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use std::time::Instant;

fn percentiles(mut v: Vec<f64>) -> (f64, f64) {
    v.sort_by(f64::total_cmp);
    (v[v.len() / 2], v[v.len() * 99 / 100])
}

fn main() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let sets: Vec<Vec<f64>> = (0..20_000).map(|_| (0..16).map(|_| rng.gen_range(0.005..0.06)).collect()).collect();
    let power: Vec<f64> = std::iter::once(26.6).chain((1..=17).map(|k| 26.6 + 22.6 + 12.0 * (k - 1) as f64)).collect();
    let time = |f: &dyn Fn(&[f64]) -> f64| -> (f64, f64) {
        let mut t = Vec::with_capacity(sets.len());
        for s in &sets {
            let t0 = Instant::now();
            black_box(f(black_box(s)));
            t.push(t0.elapsed().as_secs_f64() * 1e6);
        }
        percentiles(t)
    };
    let base = time(&|s| solve_interaction(s, Newton::PAPER).map(|i| i.throughput).unwrap_or(0.0));
    println!("baseline: one Eq. 10 solve of 16 threads: p50 {:.2} µs, p99 {:.2} µs", base.0, base.1);
    for (name, newton) in [("paper (<= 4 Newton iterations)", Newton::PAPER), ("converged (1e-12)", Newton::CONVERGED)]
    {
        let r = time(&|s| admission_threshold(s, power[16], power[17], Objective::Energy, newton).unwrap_or(0.0));
        println!(
            "admission for 16 running threads, {name}: p50 {:.2} µs, p99 {:.2} µs ({:.1}x the baseline at p99; target p99 < 5 µs)",
            r.0,
            r.1,
            r.1 / base.1
        );
    }
}
