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
//! `COSCHED_BENCH_QUICK=1` runs 2 seeds instead of 10.

use cosched_core::policies::{self, PolicyOptions};
use cosched_sim::engine::{run, SimOptions};
use cosched_sim::experiment::{simulate, solo_times, RunConfig};
use cosched_sim::presets::SLITS_WORKLOADS;
use cosched_sim::{presets, Plan};
use rayon::prelude::*;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::hint::black_box;
use std::time::Instant;

/// Repetitions of each timed run; the fastest counts (engine and bare loop alike).
const REPS: usize = 7;

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

    // 1 + 2: one 128-thread run per workload, single core.
    let mut events = 0u64;
    let mut secs = 0.0;
    let mut wall_128 = vec![];
    for w in SLITS_WORKLOADS {
        let spec = presets::workload(w).unwrap();
        let plan = Plan::new(&spec, &m, Some(128), 1, w).unwrap();
        // The fastest of REPS identical runs: one run lasts milliseconds, so a
        // single timing is mostly noise of the host.
        let mut dt = f64::INFINITY;
        let mut n = 0;
        for _ in 0..REPS {
            let t = Instant::now();
            let out = run(
                &m,
                &plan,
                &mut *policies::make("cfs", &PolicyOptions::default()).unwrap(),
                &SimOptions::default(),
                None,
            )
            .unwrap();
            dt = dt.min(t.elapsed().as_secs_f64());
            n = out.policy_events;
        }
        let out_events = n;
        events += out_events;
        secs += dt;
        wall_128.push((w, dt, out_events));
    }
    let eps = events as f64 / secs;
    let bare = (0..REPS).map(|_| bare_heap_loop(events)).fold(f64::INFINITY, f64::min);
    println!("engine: {events} policy events in {secs:.3} s = {:.0} events/s on one core (target >= 1,000,000)", eps);
    println!("        bare heap loop, same event count: {bare:.4} s; engine/bare time ratio {:.1}x", secs / bare);
    println!("128-thread runs on xeon-x5550-16c under cfs (wall ms / events):");
    for (w, dt, ev) in &wall_128 {
        println!("  {w:13} {:8.2} ms {ev:8}", dt * 1e3);
    }

    // 3: the SLITS grid, all cores against one core.
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
