//! The per-domain solve (design note 57) against the whole-socket solve it
//! approximates: on machines whose sockets hold several LLC domains sharing
//! one bus, a run solving each domain apart (its memory latency held at the
//! bus's, re-solved when the bus moves beyond `DRIFT_TOL`) ends every job
//! within a stated tolerance of the same run solved whole (`whole_sockets`).
//! The co-schedules are drawn by a seeded generator written before any
//! tuning: shapes, bus loads and programs at random, every job pinned.

mod common;
use common::*;
use cosched_machine::MachineSpec;
use cosched_policies::{self as policies, PolicyOptions};
use cosched_sim::contention::{DRIFT_TOL, LATENCY_GRID};
use cosched_sim::engine::{run, RunOutput, SimOptions};
use cosched_sim::{presets, Plan, WorkloadSpec};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Random cases drawn (each one machine, workload and policy).
const CASES: u64 = 12;

/// One socket of 2-4 LLC domains of 2-4 cores, SMT or not, the E5645's bus
/// per context times a load factor of 0.5-2 (a lighter or a heavier bus).
fn random_machine(rng: &mut ChaCha8Rng) -> MachineSpec {
    let mut m = machine("xeon-e5645");
    let base = m.n_contexts() as f64;
    m.name = "domains".into();
    m.topology.sockets = 1;
    m.topology.llc_per_socket = rng.gen_range(2..=4);
    m.topology.cores_per_llc = rng.gen_range(2..=4);
    m.topology.pipes_per_core = 1;
    m.topology.contexts_per_pipe = rng.gen_range(1..=2);
    let contexts = m.n_contexts() as f64;
    m.memory.bandwidth_gbs *= contexts / base / rng.gen_range(0.5..2.0);
    m.checks.clear();
    m
}

/// spec-mix8's programs, `per_context` jobs per context (as near as its eight
/// programs divide), each a twentieth as long.
fn random_workload(m: &MachineSpec, per_context: u32, rng: &mut ChaCha8Rng) -> WorkloadSpec {
    let mut w = presets::workload("spec-mix8").expect("preset");
    let jobs = m.n_contexts() as u32 * per_context;
    let n = w.jobs.len() as u32;
    let first = rng.gen_range(0..n);
    for (k, j) in w.jobs.iter_mut().enumerate() {
        // Jobs of the programs in turn from a random one, `jobs` in all.
        let k = (k as u32 + n - first) % n;
        j.instances = jobs / n + u32::from(k < jobs % n);
        for p in j.phases.iter_mut().chain(j.classes.iter_mut().flat_map(|c| c.phases.iter_mut())) {
            p.instructions *= 0.05;
        }
    }
    w.jobs.retain(|j| j.instances > 0);
    w
}

/// Every job pinned (`static`): job i on context i mod contexts, so which
/// thread runs where and when does not hang on a rate (a policy that reacts
/// to timing would turn a rate's last digit into another schedule).
fn run_with(m: &MachineSpec, p: &Plan, whole: bool) -> RunOutput {
    let n = m.n_contexts() as u32;
    let o = PolicyOptions {
        assignment: Some((0..p.threads.len() as u32).map(|i| cosched_core::ids::CtxId(i % n)).collect()),
        ..Default::default()
    };
    let opts = SimOptions { whole_sockets: whole, ..SimOptions::default() };
    run(m, p, &mut *policies::make("static", &o).unwrap(), &opts, None).unwrap()
}

/// Relative differences (makespan, mean turnaround, worst job) of the runs of
/// each drawn case solved apart and whole, `per_context` jobs on each context.
fn differences(per_context: u32) -> Vec<(f64, f64, f64)> {
    (0..CASES)
        .map(|case| {
            let mut rng = ChaCha8Rng::seed_from_u64(0xD0_3A1D ^ case ^ u64::from(per_context) << 32);
            let m = random_machine(&mut rng);
            let w = random_workload(&m, per_context, &mut rng);
            let p = plan(&w, &m);
            let (apart, whole) = (run_with(&m, &p, false), run_with(&m, &p, true));
            let err = |a: f64, b: f64| (a / b - 1.0).abs();
            let mean = |o: &RunOutput| o.job_finish.iter().map(|&f| secs(f)).sum::<f64>() / o.job_finish.len() as f64;
            let worst = apart
                .job_finish
                .iter()
                .zip(&whole.job_finish)
                .map(|(&a, &b)| err(secs(a), secs(b)))
                .fold(0.0, f64::max);
            let d = (err(secs(apart.makespan), secs(whole.makespan)), err(mean(&apart), mean(&whole)), worst);
            eprintln!(
                "{per_context} per context, case {case}: {} domains x {} cores x {} SMT, {} jobs: makespan {:.4}%, \
                 mean turnaround {:.4}%, worst job {:.4}%",
                m.topology.llc_per_socket,
                m.topology.cores_per_llc,
                m.topology.contexts_per_pipe,
                p.jobs.len(),
                d.0 * 100.0,
                d.1 * 100.0,
                d.2 * 100.0
            );
            d
        })
        .collect()
}

/// The stated tolerance: a domain's rates assume a memory latency within
/// `DRIFT_TOL` of its bus's (on a grid of `LATENCY_GRID`), so a thread's speed
/// is off by at most that share (its memory stall is at most all of its
/// time); the bus's latency is itself solved from traffic off by as much,
/// which at most doubles it on a bus below saturation.
fn tolerance() -> f64 {
    2.0 * (DRIFT_TOL + LATENCY_GRID)
}

#[test]
fn alone_on_its_context_every_job_ends_within_the_tolerance_of_the_whole_solve() {
    for (makespan, mean, worst) in differences(1) {
        assert!(makespan.max(mean).max(worst) <= tolerance(), "{makespan} {mean} {worst} beyond {}", tolerance());
    }
}

#[test]
fn time_sharing_contexts_the_makespan_and_mean_turnaround_stay_within_the_tolerance() {
    // Two jobs per context take turns: a job ending a hair earlier or later
    // meets another slice boundary, so single jobs move by a slice (not a
    // rate error); the makespan and the mean over jobs do not.
    for (makespan, mean, _) in differences(2) {
        assert!(makespan.max(mean) <= tolerance(), "{makespan} {mean} beyond {}", tolerance());
    }
}
