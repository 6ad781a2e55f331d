//! The contention model reproduces the premises the five papers rest on
//! (issue "Foundation", "What must hold").

mod common;
use common::*;
use cosched_policies::PolicyOptions;
use cosched_sim::Plan;

const COMPUTE: &str = "instructions = 2e9\nipc = 1.5\nllc_apki = 2\nllc_mpki = 0.1\nmrc_ref_mb = 8\nfootprint_mb = 1";

#[test]
fn solo_runs_reproduce_the_configured_ipc_within_one_percent() {
    let phases = [
        COMPUTE.to_string(),
        "instructions = 1e9\nipc = 0.6\nllc_apki = 30\nllc_mpki = 8\nmrc_ref_mb = 8\nfootprint_mb = 500\nmlp = 3".into(),
        "instructions = 1e9\nipc = 1.1\nllc_apki = 10\nllc_mpki = 4\nmrc_ref_mb = 2\nmrc_alpha = 1.2\nfootprint_mb = 3\nllc_mpki_fit = 0.2".into(),
    ];
    for mname in ["xeon-x5550-16c", "i5-2500", "xeon-e5-2420", "xeon-e5645"] {
        let m = machine(mname);
        for ph in &phases {
            let w = single_threaded(&[("a", ph)]);
            let p = plan(&w, &m);
            let out = run_policy(&m, &p, "cfs", PolicyOptions::default());
            let ipc = out.totals.instructions / out.totals.cycles;
            let want = p.models[0].ipc_alone;
            assert!((ipc / want - 1.0).abs() < 0.01, "{mname}: measured IPC {ipc} vs configured {want}\n{ph}");
            let cfg: f64 = ph.lines().find(|l| l.starts_with("ipc")).unwrap()[6..].trim().parse().unwrap();
            assert!((want - cfg).abs() < 1e-12, "without measured_on the solo IPC is the configured one");
        }
    }
}

#[test]
fn measured_on_figures_are_reproduced_on_a_machine_like_the_reference() {
    // A machine with the reference's clock, latency and LLC runs the phase at its published IPC
    // as long as it needs little bandwidth.
    let mut m = machine("xeon-x5550-16c");
    m.freq_ghz = 3.2;
    m.cache.llc_mb = 19.25;
    for p in m.memory.loaded_latency.iter_mut() {
        p[1] *= 90.0 / 65.0;
    }
    m.memory.bandwidth_gbs = 200.0;
    // Phased presets keep the whole-run figure: total instructions / cycles.
    for (name, published) in [("omnetpp", 0.70), ("mcf", 0.45), ("soplex", 1.33), ("gcc", 1.43)] {
        let w = cosched_sim::presets::workload(name).unwrap();
        let p = plan(&w, &m);
        let out = run_policy(&m, &p, "cfs", PolicyOptions::default());
        let ipc = out.totals.instructions / out.totals.cycles;
        assert!((ipc / published - 1.0).abs() < 0.02, "{name} IPC {ipc} vs published {published}");
    }
}

fn synthetic(u: f64) -> String {
    format!("instructions = 4e8\nipc = 0.5\nllc_apki = 60\nsolo_bus_util = {u}\nfootprint_mb = 1024\nmlp = 10\nwb_ratio = 0.0")
}

/// Aggregate throughput of `n` identical synthetic threads relative to one alone (EFS Fig. 4).
fn aggregate_throughput(u: f64, n: usize) -> f64 {
    let m = machine("i5-2500");
    let ph = synthetic(u);
    let jobs: Vec<(String, &str)> = (0..n).map(|i| (format!("s{i}"), ph.as_str())).collect();
    let jobs: Vec<(&str, &str)> = jobs.iter().map(|(a, b)| (a.as_str(), *b)).collect();
    let p = plan(&single_threaded(&jobs), &m);
    let solo = run_policy(&m, &p.solo(0), "cfs", PolicyOptions::default());
    let all = run_policy(&m, &p, "cfs", PolicyOptions::default());
    all.job_finish.iter().map(|&t| secs(solo.makespan) / secs(t)).sum()
}

#[test]
fn solo_bus_utilisation_is_what_the_synthetic_benchmark_asks_for() {
    let m = machine("i5-2500");
    for u in [0.2, 0.5, 0.9] {
        let p = plan(&single_threaded(&[("s", &synthetic(u))]), &m);
        let out = run_policy(&m, &p, "cfs", PolicyOptions::default());
        let util = (out.totals.mem_reads + out.totals.mem_writes) / secs(out.makespan) / m.bus_lines_per_s();
        assert!((util / u - 1.0).abs() < 0.02, "asked {u}, got {util}");
    }
}

#[test]
fn copies_of_a_bandwidth_bound_thread_saturate_the_bus() {
    // Throughput flattens as copies are added ...
    let t: Vec<f64> = (1..=4).map(|n| aggregate_throughput(0.6, n)).collect();
    assert!((t[0] - 1.0).abs() < 0.01);
    for k in 1..4 {
        assert!(t[k] >= t[k - 1] - 1e-6, "more copies never lose throughput: {t:?}");
    }
    assert!(t[3] - t[2] < t[1] - t[0], "gains shrink: {t:?}");
    assert!(t[3] < 1.0 / 0.6 + 0.05, "bounded by the bus: {t:?}");
    // ... and tends to 1 as the solo utilisation tends to 1, to 4 as it tends to 0.
    let hi = aggregate_throughput(0.97, 4);
    let lo = aggregate_throughput(0.05, 4);
    assert!(hi < 1.1, "four copies at solo utilisation 0.97: {hi}");
    assert!(lo > 3.6, "four copies at solo utilisation 0.05: {lo}");
}

#[test]
fn working_sets_that_fit_alone_but_not_together_collide_in_the_llc() {
    // i5-2500: 6 MB LLC; each thread sweeps 4 MB with high reuse (a cliff).
    let m = machine("i5-2500");
    let ph = "instructions = 3e9\nipc = 1.2\nllc_apki = 20\nllc_mpki = 15\nmrc_ref_mb = 2\nmrc_alpha = 1.0\nfootprint_mb = 4\nllc_mpki_fit = 0.3";
    let p = plan(&single_threaded(&[("a", ph), ("b", ph)]), &m);
    let solo = secs(run_policy(&m, &p.solo(0), "cfs", PolicyOptions::default()).makespan);
    let together = run_static(&m, &p, &[0, 1], 1000);
    let one_after_other = run_static(&m, &p, &[0, 0], 100_000);
    for &f in &together.job_finish {
        assert!(secs(f) / solo > 1.2, "co-running slows each down: {} vs solo {solo}", secs(f));
    }
    assert!(
        one_after_other.totals.llc_misses < 0.5 * together.totals.llc_misses,
        "sequential {} misses vs co-run {}",
        one_after_other.totals.llc_misses,
        together.totals.llc_misses
    );
}

#[test]
fn smt_siblings_are_slower_than_separate_cores_and_l1_pairing_matters() {
    // xeon-e5645: contexts 0,1 share core 0; 2,3 share core 1.
    let m = machine("xeon-e5645");
    let p = plan(&single_threaded(&[("a", COMPUTE), ("b", COMPUTE)]), &m);
    let siblings = run_static(&m, &p, &[0, 1], 1000);
    let apart = run_static(&m, &p, &[0, 2], 1000);
    assert!(siblings.makespan as f64 > 1.2 * apart.makespan as f64);

    let hi =
        "instructions = 2e9\nipc = 2.0\nllc_apki = 2\nllc_mpki = 0.1\nmrc_ref_mb = 8\nfootprint_mb = 1\nl1_apki = 450";
    let lo =
        "instructions = 2e9\nipc = 2.0\nllc_apki = 2\nllc_mpki = 0.1\nmrc_ref_mb = 8\nfootprint_mb = 1\nl1_apki = 100";
    let p = plan(&single_threaded(&[("h1", hi), ("h2", hi), ("l1", lo), ("l2", lo)]), &m);
    let stp = |out: &cosched_sim::RunOutput| -> f64 {
        (0..4)
            .map(|j| {
                secs(run_policy(&m, &p.solo(j), "cfs", PolicyOptions::default()).makespan) / secs(out.job_finish[j])
            })
            .sum()
    };
    let balanced = stp(&run_static(&m, &p, &[0, 2, 1, 3], 1000)); // {h1,l1} {h2,l2}
    let unbalanced = stp(&run_static(&m, &p, &[0, 1, 2, 3], 1000)); // {h1,h2} {l1,l2}
    assert!(balanced > unbalanced * 1.03, "high+low pairing STP {balanced} vs high+high {unbalanced}");
}

#[test]
fn short_time_slices_pay_for_cache_refills() {
    let m = machine("xeon-x5550-16c");
    // 8 threads per LLC domain of cache-sensitive work: every switch evicts the others' data.
    let ph = "instructions = 5e8\nipc = 1.0\nllc_apki = 30\nllc_mpki = 2\nmrc_ref_mb = 8\nmrc_alpha = 0.7\nfootprint_mb = 1.5";
    let jobs: Vec<(String, &str)> = (0..32).map(|i| (format!("j{i}"), ph)).collect();
    let jobs: Vec<(&str, &str)> = jobs.iter().map(|(a, b)| (a.as_str(), *b)).collect();
    let p = plan(&single_threaded(&jobs), &m);
    let q = |us: u64| PolicyOptions { quantum: us * 1000, ..Default::default() };
    let short = run_policy(&m, &p, "g-rrs", q(500));
    let long = run_policy(&m, &p, "g-rrs", q(20_000));
    eprintln!("short {} long {}", short.makespan, long.makespan);
    assert!(short.makespan as f64 > 1.05 * long.makespan as f64, "short {} long {}", short.makespan, long.makespan);
    assert!(short.totals.llc_misses > long.totals.llc_misses);
    assert!(short.ctx_switches > 10 * long.ctx_switches);
}

/// Makespans of `ocean-cont` (16 threads, a 4 × 4 stencil) pinned one per core of the 4-socket
/// SLITS machine, over seeds 1-6 of the run-to-run variation, for an assignment `socket_of(r, c)`.
fn ocean_makespans(socket_of: impl Fn(u32, u32) -> u32) -> Vec<f64> {
    let m = machine("xeon-x5550-16c");
    let w = cosched_sim::presets::workload("ocean-cont").unwrap();
    (1..=6)
        .map(|seed| {
            let p = Plan::varied(&w, &m, Some(16), seed, "ocean-cont", 1.0).unwrap();
            let mv = cosched_sim::variation::machine(&m, 1.0, seed);
            let mut used = [0u32; 4];
            let ctx: Vec<u32> = (0..16)
                .map(|k| {
                    let s = socket_of(k / 4, k % 4);
                    used[s as usize] += 1;
                    s * 4 + used[s as usize] - 1
                })
                .collect();
            secs(run_static(&mv, &p, &ctx, 1000).makespan)
        })
        .collect()
}

#[test]
fn stencil_partners_sharing_an_llc_beat_partners_split_across_sockets() {
    // Partners together: 2 × 2 blocks of the grid per socket (every thread has a neighbour in
    // its LLC). Split: socket (r + 2c) mod 4, so no neighbour shares an LLC. Same threads, same
    // cores, same seeds: only who shares a cache with whom differs.
    let together = ocean_makespans(|r, c| (r / 2) * 2 + c / 2);
    let split = ocean_makespans(|r, c| (r + 2 * c) % 4);
    let d: Vec<f64> = together.iter().zip(&split).map(|(a, b)| b / a - 1.0).collect();
    let n = d.len() as f64;
    let mean = d.iter().sum::<f64>() / n;
    let sd = (d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    let half = 2.571 * sd / n.sqrt(); // t(0.975, 5)
    assert!(
        mean - half > 0.01,
        "split slower by {:.2}% ± {:.2}% (together {together:?}, split {split:?})",
        100.0 * mean,
        100.0 * half
    );
    // And the seeds differ (run-to-run variation).
    assert!(together.windows(2).any(|w| w[0] != w[1]));
}

/// Lines per second `n` copies of the EFS synthetic benchmark (solo utilisation 0.99, row
/// locality `h`) draw from machine `m`.
fn delivered(m: &cosched_machine::MachineSpec, n: usize, h: f64) -> f64 {
    let ph = format!("{}\nrow_locality = {h}", synthetic(0.99));
    let jobs: Vec<(String, &str)> = (0..n).map(|i| (format!("s{i}"), ph.as_str())).collect();
    let jobs: Vec<(&str, &str)> = jobs.iter().map(|(a, b)| (a.as_str(), *b)).collect();
    let p = plan(&single_threaded(&jobs), m);
    let out = run_policy(m, &p, "cfs", PolicyOptions::default());
    (out.totals.mem_reads + out.totals.mem_writes) / secs(out.makespan)
}

#[test]
fn concurrent_streams_lose_the_bandwidth_the_dram_table_says() {
    // Saturated, the bus delivers μ / (1 + δ) with δ the `[memory.dram] stretch` table read at
    // the streams' number and row locality. The i5-2500's own table (the cycle-level
    // controller's: 2 ranks × 8 banks, FR-FCFS) is all zeros, so its four streams get the whole
    // bus; a table with costs takes them.
    let m = machine("i5-2500");
    let mu = m.bus_lines_per_s();
    assert!(delivered(&m, 4, 0.9) > 0.995 * mu);
    let mut costly = m.clone();
    let d = costly.memory.dram.as_mut().expect("the i5-2500 models its DRAM");
    d.streams = vec![1.0, 2.0, 4.0, 8.0];
    d.row_locality = vec![0.0, 1.0];
    d.stretch = vec![vec![0.0; 4], vec![0.0, 0.01, 0.03, 0.05]];
    for h in [0.5, 0.9] {
        let four = delivered(&costly, 4, h);
        let want = mu / (1.0 + 0.03 * h);
        assert!((four / want - 1.0).abs() < 0.005, "h {h}: {four:.4e} lines/s vs table {want:.4e}");
        assert!(delivered(&costly, 1, h) > 0.98 * mu, "one stream alone loses nothing");
    }
}

#[test]
fn on_the_efs_machine_a_thread_does_not_queue_behind_its_own_requests() {
    // i5-2500: self_queueing = 0 (EFS Eqs. 7-8). Alone, any solo utilisation sees the idle
    // latency, so the synthetic benchmark reaches its rate with MLP 10 up to 0.99 of the bus;
    // two copies see each other's traffic.
    let m = machine("i5-2500");
    assert_eq!(m.memory.self_queueing, 0.0);
    let solo = plan(&single_threaded(&[("s", &synthetic(0.9))]), &m);
    assert!((solo.models[0].latency_alone_ns - m.memory.loaded_latency[0][1]).abs() < 1e-9);
    let two = aggregate_throughput(0.5, 2);
    // EFS Eq. 10 for two threads at b = 0.5: u² (1 − 1/b) + u (1 − 2u)(1 − 1/b) + 1 − 2u = 0
    // solved here by bisection.
    let f = |u: f64| u * u * (1.0 - 2.0) + u * (1.0 - 2.0 * u) * (1.0 - 2.0) + 1.0 - 2.0 * u;
    let (mut lo, mut hi) = (0.0, 0.5);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let model = 2.0 * lo / 0.5;
    assert!((two / model - 1.0).abs() < 0.05, "two copies at b = 0.5: {two} vs EFS model {model}");
}

#[test]
fn a_queueing_model_bus_never_queues_a_request_behind_more_than_is_outstanding() {
    // i5-2500 (self_queueing = 0): the M/M/1 curve alone would charge four MLP-2 threads the
    // latency at the others' utilisation (~0.5, ~140 ns); but only the other three threads'
    // misses can be ahead of a request, so it waits at most 3·MLP line times (Little's law).
    let m = machine("i5-2500");
    let ph =
        "instructions = 1e9\nipc = 0.3\nllc_apki = 40\nllc_mpki = 30\nmrc_ref_mb = 6\nfootprint_mb = 2000\nmlp = 2";
    let p = plan(&single_threaded(&[("a", ph)]), &m);
    let mut solver = cosched_sim::contention::Solver::new(&m);
    let runners: Vec<_> = (0..4)
        .map(|i| cosched_sim::contention::Runner { pipe: i, core: i, ..cosched_sim::contention::Runner::alone() })
        .collect();
    let mut out = vec![];
    let bus = solver.solve(&p.models, &runners, &mut out);
    // Four identical streams: the DRAM table's stretch at four streams, then the cap.
    let d = m.memory.dram.clone().unwrap();
    let mlp = p.models[0].mlp;
    let line_ns = 1e9 / m.bus_lines_per_s();
    let stretch =
        1.0 + cosched_sim::dram::table::read(&d.streams, &d.row_locality, &d.stretch, 4.0, p.models[0].row_locality);
    let cap = m.memory.loaded_latency[0][1] + 3.0 * mlp * line_ns * stretch;
    assert!(bus.utilisation < 1.0, "not saturated: {bus:?}");
    assert!((bus.latency_ns / cap - 1.0).abs() < 1e-4, "latency {} vs cap {cap}", bus.latency_ns);
    // The open curve alone would charge more: the cap is what binds.
    let others = bus.utilisation * 0.75;
    let l0 = m.memory.loaded_latency[0][1];
    let open = l0 + stretch * (cosched_sim::model::LoadedLatency::of(&m.memory).ns(others) - l0);
    assert!(open > 1.05 * cap, "open curve {open} vs cap {cap}");
}

#[test]
fn a_shared_raytrace_scene_is_one_copy_in_the_llc() {
    // The four threads of an `rda-raytrace-shared` process render one scene;
    // together they hold one copy of it (plus their private data), where the per-thread reading
    // holds one per thread.
    let m = machine("xeon-e5-2420");
    let held = |name: &str| {
        let mut w = cosched_sim::presets::workload(name).unwrap();
        w.jobs[0].instances = 1;
        let p = plan(&w, &m);
        let mut solver = cosched_sim::contention::Solver::new(&m);
        let runners: Vec<_> = p
            .threads
            .iter()
            .enumerate()
            .map(|(i, _)| cosched_sim::contention::Runner {
                model: 0, // the first kernel's phase
                pipe: 2 * i as u32,
                core: i as u32,
                ..cosched_sim::contention::Runner::alone()
            })
            .collect();
        let mut out = vec![];
        solver.solve(&p.models, &runners, &mut out);
        let private: f64 = out.iter().map(|r| r.private_mb).sum();
        let shared = out[0].occupancy_mb - out[0].private_mb;
        (p.models[0].shared_mb, shared, private)
    };
    let (scene, shared, private) = held("rda-raytrace-shared");
    assert!(scene > 1.0, "the shared reading declares its scene as shared data: {scene}");
    assert!((shared - scene).abs() < 1e-6, "one copy of the {scene} MB scene held: {shared}");
    assert!(private < scene / 4.0, "private data is small beside the scene: {private}");
    let (_, _, per_thread) = held("rda-raytrace");
    assert!(per_thread > 2.0 * (shared + private), "the per-thread reading holds a copy each: {per_thread}");
}

#[test]
fn the_solution_cache_holds_at_most_its_runner_bound_on_a_wide_socket() {
    // One socket of 512 contexts: each remembered co-schedule holds 512 runners, so the cache
    // stops at CACHE_RUNNERS / 512 co-schedules instead of CACHE_ENTRIES (gigabytes).
    use cosched_sim::contention::{Runner, Solver, CACHE_ENTRIES, CACHE_RUNNERS};
    let mut m = machine("xeon-e5645");
    m.topology.cores_per_llc = 8;
    m.topology.llc_per_socket = 32;
    let n = m.n_contexts();
    assert_eq!(n, 512);
    let ph = "instructions = 1e9\nipc = 1.0\nllc_apki = 0.5\nllc_mpki = 0.1\nmrc_ref_mb = 6\nfootprint_mb = 1";
    let p = plan(&single_threaded(&[("a", ph)]), &m);
    let mut solver = Solver::new(&m);
    let mut out = vec![];
    let fits = CACHE_RUNNERS / n;
    assert!(fits < CACHE_ENTRIES);
    // Distinct co-schedules of every context busy (one runner's exchange share differs), past
    // the bound.
    let mut runners: Vec<Runner> =
        (0..n as u32).map(|i| Runner { pipe: i, core: i / 2, llc: i / 16, ..Runner::alone() }).collect();
    for j in 0..fits + 3 {
        runners[0].local = 1.0 - j as f64 * 1e-6;
        solver.solve(&p.models, &runners, &mut out);
        assert!(solver.cached_runners() <= CACHE_RUNNERS);
    }
    assert!(solver.cached_runners() > CACHE_RUNNERS - 2 * n, "it filled up to the bound: {}", solver.cached_runners());
}
