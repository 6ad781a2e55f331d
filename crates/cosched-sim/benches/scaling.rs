//! How the engine's cost per event grows with the machine: wall time per policy event of one run
//! with 2 single-threaded SPEC jobs per context (spec-mix8's programs, each shortened to a fifth)
//! on one socket of 16, 64, 256 and 1024 contexts (8-core LLC domains, 2-way SMT, the bus scaled
//! with the contexts so its load stays that of the 12-context E5645), under `cfs` and under the
//! learned `slits-contention`. Rounds are interleaved (every size once per round) and the median
//! round per size is reported, with its ratio to 16 contexts in the same run.
//!
//! Run: `scripts/bench-scaling` (or `cargo bench -p cosched-sim --bench scaling`);
//! `COSCHED_BENCH_QUICK=1` runs 16, 64 and 256 contexts only, 3 rounds;
//! `COSCHED_BENCH_SIZES=16,256`, `COSCHED_BENCH_POLICIES=cfs` and `COSCHED_BENCH_ROUNDS=1` measure
//! only those (to profile one).

use cosched_machine::MachineSpec;
use cosched_policies::{self as policies, PolicyOptions};
use cosched_sim::engine::{run, SimOptions};
use cosched_sim::{presets, Plan, WorkloadSpec};
use std::time::Instant;

/// Contexts of the machines measured.
const SIZES: [u32; 4] = [16, 64, 256, 1024];
/// The policies measured: the CFS model and a learned pairing policy.
const POLICIES: [&str; 2] = ["cfs", "slits-contention"];

/// One socket of `contexts` contexts: 8-core LLC domains, 2-way SMT, the E5645's per-context bus.
fn machine(contexts: u32) -> MachineSpec {
    let mut m = cosched_machine::presets::machine("xeon-e5645").expect("preset");
    let base = m.n_contexts() as f64;
    m.name = format!("scaled-{contexts}");
    m.topology.sockets = 1;
    m.topology.cores_per_llc = 8.min(contexts / 2);
    m.topology.llc_per_socket = (contexts / 2 / m.topology.cores_per_llc).max(1);
    m.topology.pipes_per_core = 1;
    m.topology.contexts_per_pipe = 2;
    m.memory.bandwidth_gbs *= contexts as f64 / base;
    m.checks.clear();
    m
}

/// 2 jobs per context: spec-mix8's programs, instances scaled, each a fifth as long.
fn workload(contexts: u32) -> WorkloadSpec {
    let mut w = presets::workload("spec-mix8").expect("preset");
    let per = (2 * contexts / w.jobs.len() as u32).max(1);
    for j in &mut w.jobs {
        j.instances = per;
        for p in j.phases.iter_mut().chain(j.classes.iter_mut().flat_map(|c| c.phases.iter_mut())) {
            p.instructions *= 0.2;
        }
    }
    w
}

fn main() {
    let quick = std::env::var_os("COSCHED_BENCH_QUICK").is_some();
    let listed = |var: &str| std::env::var(var).ok().map(|v| v.split(',').map(str::to_string).collect::<Vec<_>>());
    let only_sizes = listed("COSCHED_BENCH_SIZES");
    let only_policies = listed("COSCHED_BENCH_POLICIES");
    let sizes: Vec<u32> = SIZES
        .iter()
        .copied()
        .filter(|&c| !quick || c <= 256)
        .filter(|c| only_sizes.as_ref().is_none_or(|s| s.contains(&c.to_string())))
        .collect();
    let policies: Vec<&str> =
        POLICIES.iter().copied().filter(|p| only_policies.as_ref().is_none_or(|s| s.iter().any(|q| q == p))).collect();
    let rounds =
        std::env::var("COSCHED_BENCH_ROUNDS").ok().and_then(|r| r.parse().ok()).unwrap_or(if quick { 3 } else { 5 });
    let cases: Vec<(u32, &str, MachineSpec, Plan)> = sizes
        .iter()
        .flat_map(|&c| {
            let m = machine(c);
            let plan = Plan::new(&workload(c), &m, None, 1, "scaled").expect("plan");
            policies.iter().map(move |&p| (c, p, m.clone(), plan.clone()))
        })
        .collect();
    // us per event of each case, per round.
    let mut per_event: Vec<Vec<f64>> = vec![vec![]; cases.len()];
    let mut events = vec![0u64; cases.len()];
    for _ in 0..rounds {
        for (i, (_, p, m, plan)) in cases.iter().enumerate() {
            let mut policy = policies::make(p, &PolicyOptions::default()).expect("policy");
            let t = Instant::now();
            let out = run(m, plan, &mut *policy, &SimOptions::default(), None).expect("run");
            let dt = t.elapsed().as_secs_f64();
            events[i] = out.policy_events;
            per_event[i].push(dt * 1e6 / out.policy_events.max(1) as f64);
        }
    }
    let median = |v: &[f64]| {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    println!("engine cost per policy event by machine size (median of {rounds} interleaved rounds; target: 256 contexts <= 1.5x 16)");
    println!("{:>9} {:>18} {:>10} {:>12} {:>10}", "contexts", "policy", "events", "us/event", "vs 16");
    for (i, (c, p, _, _)) in cases.iter().enumerate() {
        let base = cases.iter().position(|(c0, p0, _, _)| *c0 == sizes[0] && p0 == p).expect("the smallest size");
        let us = median(&per_event[i]);
        println!("{c:>9} {p:>18} {:>10} {us:>12.3} {:>9.2}x", events[i], us / median(&per_event[base]));
    }
}
