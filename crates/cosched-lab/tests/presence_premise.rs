//! The presence factor's premise on a recorded host (design note 67; docs/model.md, "Another
//! busy core"): what `cosched characterise` measured beside a compute loop, which holds no cache,
//! is what the simulator gives the fitted workload file beside one. Read from the held-out
//! characterisation of the random family's mixes 31-33 (`docs/results/runtime/host-random-31-33/`:
//! `record.json`, its fit `programs.toml`, the host `host.toml`), so the chain from the
//! measurement through the fit to the simulator is checked on a stranger's programs, not on a
//! truth of our own.

use cosched_core::ids::CtxId;
use cosched_machine::characterised::Record;
use cosched_policies::{self as policies, PolicyOptions};
use cosched_sim::engine::{run, SimOptions};
use cosched_sim::{presets, Plan};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/results/runtime/host-random-31-33");

/// A compute loop that outlasts any job of the record (no LLC traffic, 10¹¹ instructions: tens of seconds).
const COMPUTE: &str = "[[job]]\nname = \"compute-loop\"\n[[job.phase]]\ninstructions = 1e11\nipc = 1.0\nllc_apki = 0.0\nllc_mpki = 0.0\nmrc_ref_mb = 1\nfootprint_mb = 0.0\n";

#[test]
fn each_recorded_job_beside_a_compute_loop_is_slowed_in_the_simulator_as_measured() {
    let m = cosched_machine::presets::machine(&format!("{DIR}/host.toml")).unwrap();
    let rec: Record = serde_json::from_str(&std::fs::read_to_string(format!("{DIR}/record.json")).unwrap()).unwrap();
    let programs =
        presets::workload_from_toml("programs.toml", &std::fs::read_to_string(format!("{DIR}/programs.toml")).unwrap())
            .unwrap();
    let loop_job = presets::workload_from_toml("c.toml", &format!("name = \"c\"\n{COMPUTE}")).unwrap().jobs.remove(0);
    let (c0, c1) = cosched_core::topology::corun_pair(&m.topology()).expect("two cores share an LLC");
    let mut measured = 0;
    for (j, spec) in rec.jobs.iter().zip(&programs.jobs) {
        assert_eq!(j.name, spec.name);
        let Some(p) = &j.presence else { continue };
        measured += 1;
        let mut w = programs.clone();
        w.jobs = vec![spec.clone(), loop_job.clone()];
        let plan = Plan::new(&w, &m, None, 1, "premise").unwrap();
        let static_on =
            |ctx: Vec<CtxId>| PolicyOptions { assignment: Some(ctx), quantum: 1_000_000_000, ..Default::default() };
        let mut solo_policy = policies::make("static", &static_on(vec![c0])).unwrap();
        let alone = run(&m, &plan.solo(0), &mut *solo_policy, &SimOptions::default(), None).unwrap().makespan as f64;
        let mut pair_policy = policies::make("static", &static_on(vec![c0, c1])).unwrap();
        let beside = run(&m, &plan, &mut *pair_policy, &SimOptions::default(), None).unwrap().job_finish[0] as f64;
        let want = j.presence_factor();
        // A job fitted whole takes exactly its factor; a job fitted per phase takes each phase's,
        // which average to about the whole run's (each phase's time beside the loop over alone).
        let tol = if spec.phases.len() > 1 || spec.classes.len() > 1 { 0.05 } else { 1e-3 };
        let got = beside / alone;
        assert!(
            (got / want - 1.0).abs() < tol,
            "{}: measured {:.3} beside the compute loop (factor {want:.3}), simulated {got:.3}",
            j.name,
            p.slowdown
        );
    }
    assert_eq!(measured, rec.jobs.len(), "every job of the record was measured beside a compute loop");
}
