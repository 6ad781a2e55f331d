//! Perf&Fair decision cost (issue "Perf&Fair", "Speed"): one quantum's
//! process selection (OATR + progress restriction + fitness) and L1-aware
//! allocation for 24 processes on 6 cores × 2 contexts, p50/p99 over 20,000
//! quanta with random progress and bandwidths; baseline in the same run: the
//! Fair variant's selection (a sort by progress) and the same allocation.
//!
//! Run: `cargo bench -p cosched-core --bench perf_fair`.

use cosched_policies::perf_fair::{allocate, oatr, pf_select, Candidate};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use std::time::Instant;

/// One random quantum: candidates, their average bandwidths, their L1 bandwidths.
type Quantum = (Vec<Candidate>, Vec<f64>, Vec<f64>);

fn main() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let sets: Vec<Quantum> = (0..20_000)
        .map(|_| {
            let c: Vec<Candidate> = (0..24)
                .map(|id| Candidate {
                    id,
                    progress: rng.gen_range(100.0..104.0),
                    bw_mm: rng.gen_range(0.1..30.0),
                    light: rng.gen_bool(0.5),
                    expired: false,
                    validity_left: 20,
                })
                .collect();
            let avg: Vec<f64> = (0..24).map(|_| rng.gen_range(0.1..30.0)).collect();
            let l1: Vec<f64> = (0..24).map(|_| rng.gen_range(100.0..2000.0)).collect();
            (c, avg, l1)
        })
        .collect();
    let time = |f: &dyn Fn(&Quantum) -> usize| {
        let mut t: Vec<f64> = sets
            .iter()
            .map(|s| {
                let t0 = Instant::now();
                black_box(f(black_box(s)));
                t0.elapsed().as_secs_f64() * 1e6
            })
            .collect();
        t.sort_by(f64::total_cmp);
        (t[t.len() / 2], t[t.len() * 99 / 100])
    };
    let place =
        |sel: &[usize], l1: &[f64]| allocate(&[], &sel.iter().map(|&i| (i, l1[i])).collect::<Vec<_>>(), 6, 2).len();
    let base = time(&|(c, _, l1)| {
        let mut by: Vec<&Candidate> = c.iter().collect();
        by.sort_by(|a, b| a.progress.total_cmp(&b.progress));
        let sel: Vec<usize> = by.iter().take(12).map(|x| x.id).collect();
        place(&sel, l1)
    });
    let pf = time(&|(c, avg, l1)| {
        let sel = pf_select(c, 12, oatr(avg, 12), true);
        place(&sel, l1)
    });
    println!(
        "baseline (Fair: sort by progress + allocation), 24 processes: p50 {:.2} µs, p99 {:.2} µs",
        base.0, base.1
    );
    println!(
        "Perf&Fair selection + allocation, 24 processes on 12 contexts: p50 {:.2} µs, p99 {:.2} µs ({:.1}x the baseline at p99; target p99 < 10 µs)",
        pf.0,
        pf.1,
        pf.1 / base.1
    );
}
