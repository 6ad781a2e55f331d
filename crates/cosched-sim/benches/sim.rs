//! Simulator speed (issue "Foundation", "Speed"), reported as ratios against
//! baselines measured in the same run:
//!
//! 1. engine events per second on one core, against a bare binary-heap event
//!    loop doing nothing but pushing and popping the same number of events;
//! 2. wall time of one `xeon-x5550-16c` run of a 128-thread PARSEC-like workload;
//! 3. the SLITS grid (11 workloads × 32/64/128 threads × 6 policies × 10 seeds
//!    = 1,980 runs plus their solo references) on all cores with rayon, against
//!    the same grid on one core.
//!
//! Run: `scripts/bench-sim` (or `cargo bench -p cosched-sim --bench sim`).
//! `COSCHED_BENCH_QUICK=1` runs 2 seeds instead of 10; `COSCHED_BENCH_ENGINE_ONLY=1`
//! stops after 1 and 2 (to profile the engine: `perf record -e cpu-clock`).

use cosched_policies::{self as policies, PolicyOptions};
use cosched_sim::engine::{run, SimOptions};
use cosched_sim::experiment::{simulate, solo_times, RunConfig};
use cosched_sim::presets::SLITS_WORKLOADS;
use cosched_sim::{presets, Plan};
use rayon::prelude::*;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::hint::black_box;
use std::time::Instant;

/// Rounds of the engine measurement (each: every workload once, then the bare loop).
const ROUNDS: usize = 15;

const POLICIES: [&str; 6] = ["g-rrs", "p-rrs", "wss", "cfs", "slits-contention", "slits-fairness"];

fn bare_heap_loop(n: u64) -> f64 {
    let t = Instant::now();
    let mut h = BinaryHeap::new();
    let mut x = 1u64;
    for i in 0..64u64 {
        h.push(Reverse((i, i)));
    }
    for i in 0..n {
        let Reverse((at, _)) = h.pop().unwrap();
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        h.push(Reverse((at + (x >> 40), i)));
    }
    black_box(h.len());
    t.elapsed().as_secs_f64()
}

fn grid(seeds: u64) -> (usize, f64) {
    let m = cosched_machine::presets::machine("xeon-x5550-16c").unwrap();
    let cells: Vec<(&str, u32, u64)> = SLITS_WORKLOADS
        .iter()
        .flat_map(|w| [32u32, 64, 128].into_iter().flat_map(move |t| (1..=seeds).map(move |s| (*w, t, s))))
        .collect();
    let t = Instant::now();
    let runs: usize = cells
        .par_iter()
        .map(|&(w, th, s)| {
            let spec = presets::workload(w).unwrap();
            let plan = Plan::new(&spec, &m, Some(th), s, w).unwrap();
            let sim = SimOptions { seed: s, ..Default::default() };
            let solo = solo_times(&m, &plan, &sim).unwrap();
            POLICIES
                .par_iter()
                .map(|p| {
                    let cfg = RunConfig {
                        policy: p.to_string(),
                        policy_opts: PolicyOptions { seed: s, ..Default::default() },
                        sim: sim.clone(),
                        threads: Some(th),
                    };
                    black_box(simulate(&m, &plan, &cfg, &solo, None).unwrap());
                    1
                })
                .sum::<usize>()
        })
        .sum();
    (runs, t.elapsed().as_secs_f64())
}

fn main() {
    let quick = std::env::var_os("COSCHED_BENCH_QUICK").is_some();
    let seeds = if quick { 2 } else { 10 };
    let m = cosched_machine::presets::machine("xeon-x5550-16c").unwrap();

    // 1 + 2: one 128-thread run per workload, single core. Each round runs
    // all workloads once and then the bare loop over the same event count,
    // back to back, so the ratio of a round compares like with like even
    // when the host's speed drifts; the median round is reported, with the
    // spread over rounds.
    let plans: Vec<(&str, Plan)> = SLITS_WORKLOADS
        .iter()
        .map(|w| (*w, Plan::new(&presets::workload(w).unwrap(), &m, Some(128), 1, w).unwrap()))
        .collect();
    let mut fastest = vec![f64::INFINITY; plans.len()];
    let mut events = vec![0u64; plans.len()];
    let mut rounds: Vec<(f64, f64)> = vec![];
    for _ in 0..ROUNDS {
        let mut secs = 0.0;
        for (i, (_, plan)) in plans.iter().enumerate() {
            let mut policy = policies::make("cfs", &PolicyOptions::default()).unwrap();
            let t = Instant::now();
            let out = run(&m, plan, &mut *policy, &SimOptions::default(), None).unwrap();
            let dt = t.elapsed().as_secs_f64();
            fastest[i] = fastest[i].min(dt);
            events[i] = out.policy_events;
            secs += dt;
        }
        let bare = bare_heap_loop(events.iter().sum());
        rounds.push((secs, secs / bare));
    }
    let total: u64 = events.iter().sum();
    let bare_min = (0..ROUNDS).map(|_| bare_heap_loop(total)).fold(f64::INFINITY, f64::min);
    let engine_min: f64 = fastest.iter().sum();
    rounds.sort_by(|a, b| a.1.total_cmp(&b.1));
    let (secs, ratio) = rounds[rounds.len() / 2];
    let (lo, hi) = (rounds[0].1, rounds[rounds.len() - 1].1);
    println!(
        "engine: {total} policy events in {secs:.3} s = {:.0} events/s on one core (target >= 1,000,000)",
        total as f64 / secs
    );
    println!(
        "        engine/bare-heap-loop time ratio {ratio:.1}x (median of {ROUNDS} rounds, range {lo:.1}-{hi:.1}x; target <= 10x)"
    );
    println!(
        "        fastest engine runs / fastest bare loop: {:.4} s / {bare_min:.4} s = {:.1}x",
        engine_min,
        engine_min / bare_min
    );
    println!("128-thread runs on xeon-x5550-16c under cfs (fastest wall ms / events):");
    for (i, (w, _)) in plans.iter().enumerate() {
        println!("  {w:13} {:8.2} ms {:8}", fastest[i] * 1e3, events[i]);
    }

    // 3: the SLITS grid, all cores against one core (skipped with
    // `COSCHED_BENCH_ENGINE_ONLY=1`, for profiling the engine alone).
    if std::env::var_os("COSCHED_BENCH_ENGINE_ONLY").is_some() {
        return;
    }
    let (runs, t_all) = grid(seeds);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let (_, t_one) = pool.install(|| grid(seeds));
    let full = runs as f64 * 10.0 / seeds as f64;
    println!(
        "SLITS grid: {runs} runs ({seeds} seeds) in {t_all:.2} s on {} threads, {t_one:.2} s on 1 (parallel speedup {:.2}x)",
        rayon::current_num_threads(),
        t_one / t_all
    );
    println!(
        "            extrapolated to 10 seeds ({full:.0} runs): {:.1} s (target < 60 s)",
        t_all * 10.0 / seeds as f64
    );
}
