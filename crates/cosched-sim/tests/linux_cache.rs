//! `linux-cache` (Linux's cache-aware scheduling series,
//! docs/optimum.md) keeps a process whose RSS fits the LLC and whose threads
//! fit its cores in one LLC, and spreads one that does not. Sizes come from
//! the machine preset the engine reads.

use cosched_machine::presets::machine;
use cosched_machine::{MachineSpec, TraceSlice};
use cosched_policies::{self as policies, PolicyOptions};
use cosched_sim::engine::{run, SimOptions};
use cosched_sim::{presets, Plan};
use std::collections::BTreeSet;

/// One process of `threads` threads whose data (private + shared) is `mb` MiB, and
/// a second, single-threaded process.
fn workload(threads: u32, mb: f64, barrier: bool) -> String {
    format!(
        "name = \"lc\"\ndescription = \"cache-aware test\"\n\
         [[job]]\nname = \"proc\"\nthreads = {threads}\nbarrier = {barrier}\niterations = {it}\n\
         [[job.phase]]\ninstructions = {ins}\nipc = 1.0\nllc_apki = 10\nllc_mpki = 1\nmrc_ref_mb = 1\nfootprint_mb = {p}\nshared_mb = {s}\n\
         [[job]]\nname = \"other\"\n[[job.phase]]\ninstructions = 5e8\nipc = 1.0\nllc_apki = 1\nllc_mpki = 0.1\nmrc_ref_mb = 1\nfootprint_mb = 1\n",
        it = if barrier { 20 } else { 1 },
        ins = if barrier { 5e7 } else { 1e9 },
        p = mb * 0.5,
        s = mb * 0.5
    )
}

/// The LLC domains each job's threads ran in after the first 20 ms (the balancer's time to act).
fn llcs_used(m: &MachineSpec, policy: &str, w: &str) -> Vec<BTreeSet<u32>> {
    let w = presets::workload_from_toml("lc", w).unwrap();
    let plan = Plan::new(&w, m, None, 1, "lc").unwrap();
    let topo = m.topology();
    let mut used = vec![BTreeSet::new(); plan.jobs.len()];
    let mut sink = |s: TraceSlice| {
        if s.end > 20_000_000 {
            used[s.job as usize].insert(topo.contexts[s.ctx as usize].llc);
        }
    };
    run(
        m,
        &plan,
        &mut *policies::make(policy, &PolicyOptions::default()).unwrap(),
        &SimOptions::default(),
        Some(&mut sink),
    )
    .unwrap();
    used
}

fn multi_llc() -> MachineSpec {
    let m = machine("xeon-x5550-16c").unwrap();
    assert!(m.topology().n_llc >= 2, "the test needs several LLC domains");
    m
}

#[test]
fn a_process_that_fits_is_kept_in_one_llc_and_eevdf_spreads_it() {
    let m = multi_llc();
    let t = m.topology();
    let cores = t.n_cores / t.n_llc;
    for barrier in [false, true] {
        let w = workload(cores, 0.25 * m.cache.llc_mb, barrier);
        let lc = llcs_used(&m, "linux-cache", &w);
        assert_eq!(lc[0].len(), 1, "barrier={barrier}: linux-cache ran the fitting process in {:?}", lc[0]);
        let ev = llcs_used(&m, "eevdf", &w);
        assert!(ev[0].len() > 1, "barrier={barrier}: eevdf kept it in one LLC {:?}", ev[0]);
    }
}

#[test]
fn a_process_whose_rss_or_threads_exceed_the_llc_is_spread() {
    let m = multi_llc();
    let t = m.topology();
    let cores = t.n_cores / t.n_llc;
    // RSS twice the LLC: no aggregation (the series' patch 17).
    let lc = llcs_used(&m, "linux-cache", &workload(cores, 2.0 * m.cache.llc_mb, false));
    assert!(lc[0].len() > 1, "a process twice the LLC was aggregated into {:?}", lc[0]);
    // More threads than the LLC has cores: no aggregation (patch 20's thread limit).
    let lc = llcs_used(&m, "linux-cache", &workload(cores + 1, 0.25 * m.cache.llc_mb, false));
    assert!(lc[0].len() > 1, "{} threads on {cores}-core LLCs were aggregated into {:?}", cores + 1, lc[0]);
}

#[test]
fn on_a_machine_with_one_llc_it_is_eevdf() {
    let m = machine("xeon-e5645").unwrap();
    assert_eq!(m.topology().n_llc, 1);
    let w = presets::workload("spec-mix24").unwrap();
    let plan = Plan::new(&w, &m, None, 1, "spec-mix24").unwrap();
    let go = |p: &str| {
        run(&m, &plan, &mut *policies::make(p, &PolicyOptions::default()).unwrap(), &SimOptions::default(), None)
            .unwrap()
            .makespan
    };
    assert_eq!(go("linux-cache"), go("eevdf"));
}
