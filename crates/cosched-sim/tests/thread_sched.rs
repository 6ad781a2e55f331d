//! Each thread's time-sharing figures (what the host check sets
//! beside a real run's per-job CPU time, switches and migrations) agree with
//! the run's own totals and with what the schedule makes them.

mod common;
use common::*;
use cosched_policies::PolicyOptions;

const CHASE: &str = "instructions = 4e8\nipc = 1.0\nllc_apki = 30\nllc_mpki = 10\nmrc_ref_mb = 4\nfootprint_mb = 4";
const COMPUTE: &str =
    "instructions = 4e8\nipc = 2.0\nllc_apki = 0.01\nllc_mpki = 0\nmrc_ref_mb = 1\nfootprint_mb = 0.01";

#[test]
fn per_thread_figures_sum_to_the_runs_totals() {
    let m = machine("kvm-epyc-2c");
    let w = single_threaded(&[("a", CHASE), ("b", COMPUTE), ("c", CHASE), ("d", COMPUTE), ("e", COMPUTE)]);
    let p = plan(&w, &m);
    for policy in ["cfs", "eevdf", "g-rrs", "random"] {
        let out = run_policy(&m, &p, policy, PolicyOptions::default());
        assert_eq!(out.threads.len(), 5, "{policy}");
        assert_eq!(out.threads.iter().map(|t| t.switched_in).sum::<u64>(), out.ctx_switches, "{policy}");
        assert_eq!(out.threads.iter().map(|t| t.migrations).sum::<u64>(), out.migrations, "{policy}");
        let contexts = m.topology().n_contexts() as u64;
        let on_cpu: u64 = out.threads.iter().map(|t| t.on_cpu_ns).sum();
        assert!(on_cpu <= out.makespan * contexts, "{policy}: {on_cpu} on a CPU in {} × {contexts}", out.makespan);
        for (j, t) in out.threads.iter().enumerate() {
            // Every job started once and ran to its end: it was on a context
            // no longer than from its start to its finish.
            assert!(t.switched_in >= 1, "{policy} {j}");
            assert!(t.on_cpu_ns > 0 && t.on_cpu_ns <= out.job_finish[j], "{policy} {j}: {t:?}");
        }
    }
}

#[test]
fn a_job_alone_is_on_a_cpu_its_whole_run_and_switched_in_once() {
    let m = machine("kvm-epyc-2c");
    let p = plan(&single_threaded(&[("a", CHASE)]), &m);
    let out = run_policy(&m, &p, "cfs", PolicyOptions::default());
    let t = out.threads[0];
    assert_eq!((t.switched_in, t.migrations), (1, 0));
    assert_eq!(t.on_cpu_ns, out.makespan);
}

#[test]
fn time_sharing_one_cpu_switches_at_the_quantum_and_costs_cpu_time() {
    // Two chases pinned to context 0 alternate at the quantum: each is
    // switched in about once per two quanta of the pair's run, and each is on
    // the CPU at least as long as alone (refills after each switch only add).
    let m = machine("kvm-epyc-2c");
    let p = plan(&single_threaded(&[("a", CHASE), ("b", CHASE)]), &m);
    let alone = plan(&single_threaded(&[("a", CHASE)]), &m);
    let solo = run_policy(&m, &alone, "cfs", PolicyOptions::default()).makespan;
    let quantum_ms = 4;
    let out = run_static(&m, &p, &[0, 0], quantum_ms);
    let quanta = out.makespan as f64 / (quantum_ms as f64 * 1e6);
    for t in &out.threads {
        assert!(t.on_cpu_ns >= solo, "{t:?} against {solo} ns alone");
        let expected = quanta / 2.0;
        assert!((t.switched_in as f64 - expected).abs() <= 0.1 * expected + 2.0, "{t:?}: {expected:.1} expected");
        assert_eq!(t.migrations, 0);
    }
    let on_cpu: u64 = out.threads.iter().map(|t| t.on_cpu_ns).sum();
    assert!(on_cpu <= out.makespan, "one context: {on_cpu} > {}", out.makespan);
}
