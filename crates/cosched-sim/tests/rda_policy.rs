//! RDA on the simulated Xeon E5-2420 (RDA §3): the predicate's limits hold in
//! a real run, every period eventually runs, unannotated threads are never held.

mod common;
use common::*;
use cosched_core::policy::{Decision, Event, MachineView, Resource};
use cosched_policies::rda::RdaPolicy;
use cosched_policies::Rda;
use cosched_sim::engine::{run, SimOptions};

fn mixed() -> cosched_sim::WorkloadSpec {
    let mut w = workload(
        "name = \"m\"\ndescription = \"d\"\n[[job]]\npreset = \"rda-blas3\"\ninstances = 24\n\
         [[job]]\nname = \"plain\"\n[[job.phase]]\ninstructions = 4e8\nipc = 1.5\nllc_apki = 2\nllc_mpki = 0.1\nmrc_ref_mb = 8\nfootprint_mb = 1\n",
    );
    w.jobs[0].iterations = Some(2);
    w
}

#[test]
fn strict_and_compromise_respect_capacity_and_every_period_runs() {
    let m = machine("xeon-e5-2420");
    let p = plan(&mixed(), &m);
    for (policy, limit) in [(RdaPolicy::Strict, 1.0), (RdaPolicy::Compromise { factor: 2.0 }, 2.0)] {
        // The load table is checked after every event.
        let mut worst = 0.0f64;
        let mut checked = Watched {
            name: "checked",
            inner: Rda::new(policy),
            after: |rda: &Rda, _: &Event, _: &dyn MachineView, _: &mut Vec<Decision>| {
                let m = rda.monitor().unwrap();
                // A single period may exceed the capacity alone; otherwise the limit holds.
                if m.active() > 1 {
                    let ratio = m.usage(Resource::Llc) / m.capacity(Resource::Llc);
                    worst = worst.max(ratio);
                    assert!(ratio <= limit + 1e-9, "usage {ratio} x capacity");
                }
            },
        };
        let out = run(&m, &p, &mut checked, &SimOptions::default(), None).unwrap();
        // The run completed: every waitlisted period was admitted and finished.
        assert_eq!(out.job_finish.len(), p.jobs.len());
        let w = worst;
        assert!(w > 0.5 * limit, "{policy:?}: the limit was approached ({w}), so the check is not vacuous");
    }
}

#[test]
fn unannotated_threads_are_never_held() {
    let m = machine("xeon-e5-2420");
    let p = plan(&mixed(), &m);
    let plain = p.jobs.len() - 1;
    let cfs = run_policy(&m, &p, "cfs", Default::default());
    let strict = run_policy(&m, &p, "rda-strict", Default::default());
    // With annotated processes waiting, the unannotated one runs at least as soon as under CFS.
    assert!(
        strict.job_finish[plain] as f64 <= 1.05 * cfs.job_finish[plain] as f64,
        "{} vs {}",
        strict.job_finish[plain],
        cfs.job_finish[plain]
    );
}

#[test]
fn each_progress_period_call_stalls_its_thread_for_its_whole_cost() {
    // One process alone, cut into N periods: the run lasts its compute time plus
    // 2·N call costs, however short the periods (a call is not refill debt).
    let m = machine("xeon-e5-2420");
    let go = |periods: u64, cost_ns: u64| {
        let w = workload(&format!(
            "name = \"d\"\ndescription = \"d\"\n[[job]]\nname = \"d\"\niterations = {periods}\n[[job.phase]]\n\
             instructions = {:e}\nipc = 1.5\nllc_apki = 1\nllc_mpki = 0.1\nmrc_ref_mb = 0.5\nfootprint_mb = 0.5\n\
             pp = {{ resource = \"llc\", amount = 0.5, reuse = \"high\" }}",
            1.0e9 / periods as f64
        ));
        let p = plan(&w, &m);
        let o = run(
            &m,
            &p,
            &mut *cosched_policies::make("rda-strict", &Default::default()).unwrap(),
            &SimOptions { pp_cost_ns: cost_ns, ..Default::default() },
            None,
        )
        .unwrap();
        secs(o.makespan)
    };
    let base = go(1, 0);
    for (periods, cost_ns) in [(1000u64, 2_000u64), (100_000, 2_000)] {
        let t = go(periods, cost_ns);
        let want = base + 2.0 * periods as f64 * cost_ns as f64 * 1e-9;
        assert!((t - want).abs() < 0.01 * want, "{periods} periods at {cost_ns} ns: {t} s, want {want} s");
    }
}

#[test]
fn declarations_scaled_down_admit_more_and_scaled_up_fewer() {
    // raytrace's Table 2 demands overfill the LLC: halving them lets more threads in
    // (shorter run), doubling them fewer (longer run); x0.5 Strict is x1 Compromise (x = 2).
    let m = machine("xeon-e5-2420");
    let w = cosched_sim::presets::workload("rda-raytrace").unwrap();
    let p = plan(&w, &m);
    let go = |policy: &str, x: f64| {
        let o = cosched_policies::PolicyOptions { rda_declare_scale: x, ..Default::default() };
        run_policy(&m, &p, policy, o).makespan
    };
    let (half, one, two) = (go("rda-strict", 0.5), go("rda-strict", 1.0), go("rda-strict", 2.0));
    assert!(half < one && one < two, "{half} {one} {two}");
    assert_eq!(half, go("rda-compromise", 1.0));
}

#[test]
fn the_thread_pool_hold_is_a_switch_that_changes_some_schedules() {
    // The ablation: §3.4's hold off. Across the RDA presets it must change at
    // least one schedule (else the switch would be dead), and every job still finishes.
    let m = machine("xeon-e5-2420");
    let mut changed = vec![];
    for name in cosched_sim::presets::RDA_WORKLOADS {
        let w = cosched_sim::presets::workload(name).unwrap();
        let p = plan(&w, &m);
        let go = |hold: bool| {
            let o = cosched_policies::PolicyOptions { rda_pool_hold: hold, ..Default::default() };
            run_policy(&m, &p, "rda-strict", o)
        };
        let (on, off) = (go(true), go(false));
        assert_eq!(off.job_finish.len(), p.jobs.len(), "{name}: every job finished with the hold off");
        if on.job_finish != off.job_finish {
            changed.push(name);
        }
    }
    assert!(!changed.is_empty(), "the hold changed no schedule: the switch is dead");
}
