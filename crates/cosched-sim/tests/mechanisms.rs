//! The time-sharing mechanisms of the ground truth, each with its
//! ablation: data exchanged between threads through a core's L1 (2a).

mod common;
use common::*;
use cosched_sim::Plan;

/// Two threads of one process that read what the other wrote (ring exchange,
/// 5 accesses per kilo-instruction, Bienia et al.'s "high" class).
const SHARERS: &str = r#"
name = "sharers"
[[job]]
name = "pair"
threads = 2
[job.sharing]
pattern = "ring"
apki = 5.0
[[job.phase]]
instructions = 4e8
ipc = 1.2
llc_apki = 8
llc_mpki = 0.5
mrc_ref_mb = 4
footprint_mb = 2
l1_apki = 300
mlp = 2
"#;

/// Per seed 1-6 of the run-to-run variation: (L1 hits per kilo-instruction,
/// makespan s) of the pair pinned to contexts `ctx` of `m`.
fn pinned(m: &cosched_machine::MachineSpec, ctx: &[u32]) -> Vec<(f64, f64)> {
    let w = workload(SHARERS);
    (1..=6)
        .map(|seed| {
            let p = Plan::varied(&w, m, None, seed, "sharers", 1.0).unwrap();
            let mv = cosched_sim::variation::machine(m, 1.0, seed);
            let out = run_static(&mv, &p, ctx, 1000);
            let t = &out.totals;
            (1000.0 * (t.l1_accesses - t.l1_misses) / t.instructions, secs(out.makespan))
        })
        .collect()
}

/// Mean and 95% half-width (t, 5 degrees of freedom) of paired differences.
fn paired(d: &[f64]) -> (f64, f64) {
    let n = d.len() as f64;
    let mean = d.iter().sum::<f64>() / n;
    let sd = (d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    (mean, 2.571 * sd / n.sqrt())
}

#[test]
fn two_sharing_threads_on_one_core_hit_more_in_the_l1_than_apart() {
    // xeon-e5645: contexts 0 and 1 are SMT siblings of core 0, context 2 is on core 1.
    let m = machine("xeon-e5645");
    let together = pinned(&m, &[0, 1]);
    let apart = pinned(&m, &[0, 2]);
    let d: Vec<f64> = together.iter().zip(&apart).map(|(a, b)| a.0 - b.0).collect();
    let (mean, half) = paired(&d);
    eprintln!("L1 hits per KI, together minus apart: {mean:.3} ± {half:.3}");
    assert!(mean - half > 0.0, "L1 hits per KI together minus apart: {mean:.3} ± {half:.3}");
    // All of the exchange (5 per KI) is L1 hits when the partner is the sibling.
    assert!((mean - 5.0).abs() < 0.05, "together gains the exchange volume: {mean:.3}");

    // Ablation: without the mechanism, where the partner runs does not change L1 hits.
    let mut off = m.clone();
    off.core.l1_exchange = false;
    let together = pinned(&off, &[0, 1]);
    let apart = pinned(&off, &[0, 2]);
    let d: Vec<f64> = together.iter().zip(&apart).map(|(a, b)| a.0 - b.0).collect();
    let (mean, _) = paired(&d);
    assert!(mean.abs() < 1e-9, "ablated: {mean}");
}

#[test]
fn exchange_in_the_l1_saves_time_only_through_the_llc_hits_it_replaces() {
    let m = machine("xeon-e5645");
    let mut off = m.clone();
    off.core.l1_exchange = false;
    // Siblings: the mechanism saves the LLC hit latency of the exchange, so the pair is faster
    // with it than without (same seeds, paired).
    let on = pinned(&m, &[0, 1]);
    let ablated = pinned(&off, &[0, 1]);
    let d: Vec<f64> = on.iter().zip(&ablated).map(|(a, b)| b.1 / a.1 - 1.0).collect();
    let (mean, half) = paired(&d);
    eprintln!("siblings with / without the L1 exchange: {:.2}% ± {:.2}% faster", 100.0 * mean, 100.0 * half);
    assert!(mean - half > 0.0, "siblings faster with the L1 exchange: {:.2}% ± {:.2}%", 100.0 * mean, 100.0 * half);
    // Bounded by its closed form: 5 accesses/KI × LLC hit cycles / MLP over the CPI alone.
    let cpi = 1.0 / 1.2;
    let bound = 5.0 / 1000.0 * m.cache.llc_hit_cycles / 2.0 / cpi;
    assert!(mean < bound + 1e-3, "gain {mean:.4} vs bound {bound:.4}");
    // Apart (different cores), nothing changes.
    let on = pinned(&m, &[0, 2]);
    let ablated = pinned(&off, &[0, 2]);
    assert_eq!(on, ablated);
}

/// A random-access chase over `mb` MiB: one LLC access per 4 instructions, MLP 1.
fn chase(mb: f64, copies: u32, ipc: f64) -> String {
    format!(
        "name = \"chase\"\n[[job]]\nname = \"chase\"\ninstances = {copies}\n[[job.phase]]\ninstructions = 4e7\nipc = {ipc}\nllc_apki = 250\naccess = \"random\"\nfootprint_mb = {mb}\nmlp = 1\nl1_apki = 250\n"
    )
}

#[test]
fn the_random_access_miss_ratio_reproduces_the_recorded_latency_sweep() {
    // On the whole LLC, a random chase over W pays the sweep's latency at W:
    // an LLC hit plus the miss ratio times the memory latency.
    let m = machine("kvm-epyc-2c");
    let curve = m.cache.latency_curve.clone().expect("the calibrated preset records its sweep");
    let r = cosched_sim::model::RandomMisses::of(&m);
    let (l_llc, l_mem) = (m.cache.llc_hit_cycles / m.freq_ghz, m.memory.loaded_latency[0][1]);
    let mut worst: f64 = 0.0;
    for &[mb, ns] in &curve {
        worst = worst.max(ns);
        if worst < l_llc {
            continue; // private-cache hits: below what the LLC model describes
        }
        let modelled = l_llc + r.ratio(mb, m.cache.llc_mb) * l_mem;
        assert!((modelled / worst - 1.0).abs() < 1e-9, "{mb} MiB: {modelled} ns vs the sweep's {worst}");
    }
    // Holding half of what it held alone halves its hits.
    let (w, c) = (8.0, m.cache.llc_mb);
    let h0 = 1.0 - r.ratio(w, c);
    assert!((1.0 - r.ratio(w, c / 2.0) - h0 / 2.0).abs() < 1e-12);
    // Without a sweep, the analytic 1 - held/W.
    let mut bare = m.clone();
    bare.cache.latency_curve = None;
    let a = cosched_sim::model::RandomMisses::of(&bare);
    assert!((a.ratio(8.0, 2.0) - 0.75).abs() < 1e-12 && a.ratio(2.0, 4.0) == 0.0);
}

#[test]
fn two_random_chases_sharing_the_llc_slow_down_as_the_sweep_says() {
    // Each chase's solo time per load is the sweep's latency (an LLC hit's worth of core time
    // plus its misses); two split the LLC evenly, and each pays the misses of half the cache.
    let m = machine("kvm-epyc-2c");
    let r = cosched_sim::model::RandomMisses::of(&m);
    let (l_llc, l_mem, c) = (m.cache.llc_hit_cycles / m.freq_ghz, m.memory.loaded_latency[0][1], m.cache.llc_mb);
    for mb in [4.0, 8.0, 16.0] {
        let solo_ns = l_llc + r.ratio(mb, mb.min(c)) * l_mem;
        let ipc = 4.0 / (solo_ns * m.freq_ghz);
        let w = workload(&chase(mb, 2, ipc));
        let p = plan(&w, &m);
        let loads = 4e7 / 4.0;
        let solo = secs(run_static(&m, &p.solo(0), &[0], 1000).makespan) / loads;
        assert!((solo * 1e9 / solo_ns - 1.0).abs() < 0.01, "{mb} MiB alone: {} ns vs {solo_ns}", solo * 1e9);
        let pair = secs(run_static(&m, &p, &[0, 1], 1000).job_finish[0]) / loads;
        let want = solo_ns + (r.ratio(mb, c / 2.0) - r.ratio(mb, mb.min(c))) * l_mem;
        assert!((pair * 1e9 / want - 1.0).abs() < 0.03, "{mb} MiB co-run: {} ns a load vs {want} ns", pair * 1e9);
    }
}

#[test]
fn a_random_access_phase_refuses_a_miss_rate_curve() {
    let bad = chase(4.0, 1, 0.2).replace("access = \"random\"", "access = \"random\"\nllc_mpki = 3\nmrc_ref_mb = 4");
    let e = cosched_sim::presets::workload_from_toml("bad.toml", &bad).unwrap_err().to_string();
    assert!(e.contains("bad.toml") && e.contains("access") && e.contains("llc_mpki"), "{e}");
}

/// LLC capacity conserved across time-sharing threads, and refills paced by
/// the thread's own accesses (from the check against two
/// chases on one CPU): two random chases pinned to one context of the
/// calibrated guest, each sized from the preset's LLC. When the two working
/// sets together exceed the LLC, each resumes with at most what the other
/// leaves free and refills at the pace of its misses, so the pair runs slower
/// than with both switches off (the presets' default); conservation alone
/// already slows it; when both sets fit together, neither changes anything.
#[test]
fn time_sharing_threads_cannot_both_keep_more_than_the_llc() {
    let m0 = machine("kvm-epyc-2c-hostcheck");
    let with = |conserve: bool, by_access: bool| {
        let mut m = m0.clone();
        m.cache.conserve_capacity = conserve;
        m.costs.refill_by_access = by_access;
        m
    };
    let pair = |mb: f64, m: &cosched_machine::MachineSpec| {
        // IPC low enough that the chase's misses need no more MLP than 1.
        let w = workload(&chase(mb, 2, 0.05));
        let p = plan(&w, m);
        secs(run_static(m, &p, &[0, 0], 4).makespan)
    };
    // Each 3/4 of the LLC: together 1.5 LLCs.
    let big = 0.75 * m0.cache.llc_mb;
    let (off, conserve, both) =
        (pair(big, &with(false, false)), pair(big, &with(true, false)), pair(big, &with(true, true)));
    eprintln!("3/4 LLC each: off {off} s, conserve {conserve} s, both {both} s");
    assert!(conserve > 1.1 * off && both > 1.1 * conserve, "off {off}, conserve {conserve}, both {both}");
    // Each a fifth of the LLC: together well inside it.
    let small = 0.2 * m0.cache.llc_mb;
    let (off, conserve) = (pair(small, &with(false, false)), pair(small, &with(true, false)));
    assert!((conserve / off - 1.0).abs() < 1e-9, "conserve {conserve} s, off {off} s");
}

/// A random chase and a compute loop with no LLC traffic, pinned to one
/// context and alternating every `quantum_ms`: the chase's finish, s.
fn beside_a_compute_loop(m: &cosched_machine::MachineSpec, mb: f64, quantum_ms: u64) -> f64 {
    let text = format!(
        "{}[[job]]\nname = \"spin\"\n[[job.phase]]\ninstructions = 4e9\nipc = 2.0\nllc_apki = 0\nllc_mpki = 0\nmrc_ref_mb = 1\nfootprint_mb = 0.01\n",
        chase(mb, 1, 0.05)
    );
    let w = workload(&text);
    let p = plan(&w, m);
    secs(run_static(m, &p, &[0, 0], quantum_ms).job_finish[0])
}

/// Tenants of a shared host: while a thread is away, the
/// host's other tenants insert `cache.tenant_lines_per_s` lines into its LLC,
/// so a line survives an absence of `a` seconds with probability
/// `exp(−λa/C)`. Beside a compute loop that inserts nothing, a chase loses
/// nothing without tenants; with them each absence costs the refill of what
/// they evicted, at the memory latency, and the cost grows with the rate.
#[test]
fn the_hosts_other_tenants_evict_what_an_absent_thread_left() {
    let m0 = machine("kvm-epyc-2c-hostcheck");
    let at = |lambda: f64| {
        let mut m = m0.clone();
        m.cache.tenant_lines_per_s = lambda;
        m
    };
    let (mb, q) = (0.5 * m0.cache.llc_mb, 4);
    let cap = m0.cache.llc_mb * 1024.0 * 1024.0 / 64.0;
    // A tenant rate at which a tenth of the chase's lines go in one 4-ms absence, and twice it.
    let tenth = -cap * 0.9f64.ln() / (q as f64 * 1e-3);
    let (none, some, more) = (
        beside_a_compute_loop(&at(0.0), mb, q),
        beside_a_compute_loop(&at(tenth), mb, q),
        beside_a_compute_loop(&at(2.0 * tenth), mb, q),
    );
    eprintln!(
        "chase beside a compute loop: no tenants {none} s, a tenth lost per absence {some} s, about a fifth {more} s"
    );
    assert!(some > 1.1 * none && more > some, "none {none}, some {some}, more {more}");
    // Closed form: each absence costs the refill R of the lost lines at the memory latency, and
    // a slice of q holds the refill and the work, so the chase's own time is base / (1 − R/q)
    // and the pair alternates, doubling it.
    let lines = mb * 1024.0 * 1024.0 / 64.0;
    let refill_s = 0.1 * lines * m0.memory.loaded_latency[0][1] * 1e-9;
    let want = none / (1.0 - refill_s / (q as f64 * 1e-3));
    assert!((some / want - 1.0).abs() < 0.25, "{some} s against the closed form's {want} s");
    // A machine of its own (every paper's preset) has no tenants.
    for p in ["i5-2500", "xeon-e5645", "xeon-e5-2420", "xeon-x5550-16c", "ultrasparc-t2"] {
        assert_eq!(machine(p).cache.tenant_lines_per_s, 0.0, "{p}");
    }
}
