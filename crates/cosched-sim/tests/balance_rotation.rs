//! Premise of the Linux models' rotation of a one-thread excess (a model
//! measured against this host's kernel; docs/model.md, "Three threads on two contexts"): three CPU-bound
//! threads of equal work on two contexts each get two thirds of a context,
//! as `scripts/balance-share` measured this host's kernel doing, and without
//! the rotation (the ablation) a 2-1 split stays until a thread ends.

mod common;
use common::*;
use cosched_policies::PolicyOptions;

/// Each thread's finish time over what it would take at an even share of the
/// two contexts (3/2 of its time alone), for `policy`, with the rotation on or off.
fn finish_over_even_share(policy: &str, rotation: bool) -> Vec<f64> {
    let mut m = machine("kvm-epyc-2c");
    assert_eq!(m.topology().contexts.len(), 2, "the premise is stated for two contexts");
    m.costs.balance_rotation = rotation;
    let p = plan(&spinners(3), &m);
    let alone = secs(run_policy(&m, &p.solo(0), policy, PolicyOptions::default()).makespan);
    let out = run_policy(&m, &p, policy, PolicyOptions::default());
    out.job_finish.iter().map(|&f| secs(f) / (1.5 * alone)).collect()
}

#[test]
fn three_threads_on_two_contexts_each_get_two_thirds() {
    for policy in ["cfs", "eevdf"] {
        // Each thread's work at an even share ends at 1.5 x its time alone; the
        // switch and migration costs of the rotation add a little (their share
        // of a 4-ms slice), and a 2-1 split would end the lone thread at 2/3 of it.
        let r = finish_over_even_share(policy, true);
        for f in &r {
            assert!((0.9..1.1).contains(f), "{policy}: finish over an even share {r:?}");
        }
    }
}

#[test]
fn without_rotation_a_two_one_split_stays() {
    for policy in ["cfs", "eevdf"] {
        let mut r = finish_over_even_share(policy, false);
        r.sort_by(f64::total_cmp);
        // The lone thread ends at its time alone: 2/3 of an even share.
        assert!((r[0] - 2.0 / 3.0).abs() < 0.05, "{policy}: {r:?}");
    }
}
