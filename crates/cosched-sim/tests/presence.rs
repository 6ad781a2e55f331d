//! The presence mechanism (design note 67; docs/model.md, "Another busy core"): a phase's
//! `presence_slowdown` stretches its time while another core of its LLC domain runs a thread,
//! whatever that thread does; alone, or beside an SMT sibling of its own core only (the pipe
//! model's), it costs nothing, and at 1 (the default, the ablation) nothing changes.

mod common;
use common::*;

/// A compute phase (no LLC traffic) of 1e10 instructions at IPC 1, with `presence`.
fn compute(presence: f64) -> String {
    format!(
        "instructions = 1e10\nipc = 1.0\nllc_apki = 0.01\nllc_mpki = 0.0\nmrc_ref_mb = 1\nfootprint_mb = 0.01\npresence_slowdown = {presence}"
    )
}

/// A random-access phase over `mb` MiB, with `presence`.
fn chase(mb: f64, presence: f64) -> String {
    format!(
        "instructions = 2e9\nipc = 1.0\nllc_apki = 20\naccess = \"random\"\nfootprint_mb = {mb}\npresence_slowdown = {presence}"
    )
}

/// Job 0's finish over its time alone, pinned to context `ctx[0]` beside a compute loop on `ctx[1]`.
fn slowdown(machine_name: &str, job: &str, ctx: [u32; 2]) -> f64 {
    // The co-runner outlasts job 0 (3 times its work).
    slowdown_on(machine_name, job, &compute(1.0).replace("1e10", "3e10"), ctx)
}

/// Job 0's finish over its time alone beside `other` on two cores of one LLC.
fn slowdown_beside(machine_name: &str, job: &str, other: &str) -> f64 {
    slowdown_on(machine_name, job, other, [0, 1])
}

/// Job 0's finish over its time alone, pinned to context `ctx[0]` beside `other` on `ctx[1]`.
fn slowdown_on(machine_name: &str, job: &str, other: &str, ctx: [u32; 2]) -> f64 {
    let m = machine(machine_name);
    let p = plan(&single_threaded(&[("a", job), ("b", other)]), &m);
    let alone = secs(run_static(&m, &p.solo(0), &[ctx[0]], 1000).makespan);
    secs(run_static(&m, &p, &ctx, 1000).job_finish[0]) / alone
}

#[test]
fn another_busy_core_multiplies_a_compute_phase_by_its_presence() {
    // kvm-epyc-2c: two cores, one LLC. A compute loop beside a compute loop: exactly the factor.
    for p in [1.0, 1.07, 1.5] {
        let s = slowdown("kvm-epyc-2c", &compute(p), [0, 1]);
        assert!((s - p).abs() < 1e-3, "presence {p}: slowdown {s}");
    }
}

/// A sequential sweep over `mb` MiB drawing most of the bus alone (its own queueing matters).
fn stream(mb: f64, presence: f64) -> String {
    format!(
        "instructions = 4e9\nipc = 1.0\nllc_apki = 40\nllc_mpki = 40\nmrc_ref_mb = 1\nmrc_alpha = 0.0\nllc_mpki_fit = 0.0\nfootprint_mb = {mb}\nmlp = 32\npresence_slowdown = {presence}"
    )
}

#[test]
fn a_memory_phase_beside_a_compute_loop_is_slowed_by_exactly_its_factor() {
    // Beside a compute loop nothing else is shared, and its traffic while it runs is as solved:
    // a latency-bound chase and a stream that queues on its own traffic alike (design note 67).
    for job in [chase(0.5, 1.0), chase(3.0, 1.0), chase(16.0, 1.0), stream(64.0, 1.0)] {
        let base = slowdown("kvm-epyc-2c", &job, [0, 1]);
        let with = slowdown("kvm-epyc-2c", &job.replace("presence_slowdown = 1", "presence_slowdown = 1.3"), [0, 1]);
        assert!((with / base / 1.3 - 1.0).abs() < 1e-3, "{job}: {base} -> {with}");
    }
}

#[test]
fn a_memory_phase_beside_a_pirate_takes_both() {
    // Beside a chase that shares its LLC: the cache's slowdown (solved as without the factor),
    // times the factor.
    let m = machine("kvm-epyc-2c");
    let pirate = chase(m.cache.llc_mb, 1.0).replace("2e9", "2e10");
    for share in [0.5, 1.0, 2.0] {
        let mb = share * m.cache.llc_mb;
        let base = slowdown_beside("kvm-epyc-2c", &chase(mb, 1.0), &pirate);
        let with = slowdown_beside("kvm-epyc-2c", &chase(mb, 1.3), &pirate);
        assert!(base > 1.01, "{mb} MiB: the pirate must slow it ({base})");
        assert!((with / base / 1.3 - 1.0).abs() < 1e-3, "{mb} MiB: {base} -> {with}");
    }
}

#[test]
fn an_smt_sibling_alone_on_its_core_is_not_another_core() {
    // xeon-e5645: contexts 0 and 1 are the two SMT contexts of core 0 (the pipe model charges
    // their sharing); contexts 0 and 2 are two cores of one LLC.
    let m = machine("xeon-e5645");
    let t = m.topology();
    let (c0, c1) = (&t.contexts[0], &t.contexts[1]);
    assert!(c0.core == c1.core && c0.llc == c1.llc, "contexts 0 and 1 must be SMT siblings");
    let other = t.contexts.iter().position(|c| c.core != c0.core && c.llc == c0.llc).expect("another core") as u32;
    let sibling_with = slowdown("xeon-e5645", &compute(1.4), [0, 1]);
    let sibling_without = slowdown("xeon-e5645", &compute(1.0), [0, 1]);
    assert!((sibling_with - sibling_without).abs() < 1e-9, "{sibling_with} vs {sibling_without}");
    let core = slowdown("xeon-e5645", &compute(1.4), [0, other]);
    assert!((core - 1.4).abs() < 1e-3, "another core: {core}");
}

#[test]
fn a_presence_factor_below_one_or_above_ten_is_refused() {
    for bad in ["0.9", "11", "nan"] {
        let src = format!(
            "name = \"t\"\n[[job]]\nname = \"a\"\n[[job.phase]]\n{}",
            compute(1.0).replace("presence_slowdown = 1", &format!("presence_slowdown = {bad}"))
        );
        let e = cosched_sim::presets::workload_from_toml("w.toml", &src).map(|_| ()).unwrap_err().to_string();
        assert!(e.contains("w.toml") && e.contains("presence_slowdown"), "{bad}: {e}");
    }
}
