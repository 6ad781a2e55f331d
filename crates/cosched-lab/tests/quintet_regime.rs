//! `quintet` in Perf&Fair's own regime: the paper's mixes of 24 SPEC CPU2006
//! processes, each job's work what it executes in 100 s alone (§2), as
//! `paper perf-fair` and `paper quintet` build them.

use cosched_lab::paper::perf_fair::{mixes, parse_range, unfairness, PAPER_BW_RANGE, PAPER_MIXES, PAPER_SOLO_S};
use cosched_machine::presets::machine;
use cosched_policies::{self as policies, PolicyOptions, QuintetObjective, QuintetParams};
use cosched_sim::engine::{run, SimOptions};
use cosched_sim::experiment::solo_times;
use cosched_sim::Plan;

/// Measuring IPC alone on an idle SMT sibling (Perf&Fair §5.1 carried to CFS)
/// makes `quintet` fairer over the paper's mixes than its opportunistic
/// estimate alone, whose reference tracks the co-run IPC on jobs this long;
/// and measuring it over a whole 200-ms quantum, as the paper's estimation
/// mode does, fairer than over a CFS slice.
#[test]
fn measuring_ipc_alone_cuts_unfairness_over_the_papers_mixes() {
    let m = machine("xeon-e5645").unwrap();
    let all = mixes(&m, PAPER_MIXES, parse_range(PAPER_BW_RANGE).unwrap(), PAPER_SOLO_S).unwrap();
    let on = QuintetParams { objective: QuintetObjective::Fairness, ..QuintetParams::default() };
    let off = QuintetParams { estimate_alone: false, ..on.clone() };
    let slice = QuintetParams { measure_quantum: false, ..on.clone() };
    let (mut sum_on, mut sum_off, mut sum_slice) = (0.0, 0.0, 0.0);
    for (_, w, _) in &all {
        let plan = Plan::new(w, &m, None, 1, &w.name).unwrap();
        let solo = solo_times(&m, &plan, &SimOptions::default()).unwrap();
        let each = |p: &QuintetParams| {
            let o = PolicyOptions { quintet: p.clone(), ..PolicyOptions::default() };
            let out =
                run(&m, &plan, &mut *policies::make("quintet", &o).unwrap(), &SimOptions::default(), None).unwrap();
            let finish: Vec<f64> = out.job_finish.iter().map(|&f| f as f64 * 1e-9).collect();
            unfairness(&finish, &solo)
        };
        sum_on += each(&on);
        sum_off += each(&off);
        sum_slice += each(&slice);
    }
    let n = all.len() as f64;
    assert!(sum_on / n < sum_off / n, "mean unfairness {} with the measurement, {} without", sum_on / n, sum_off / n);
    assert!(sum_on < sum_slice, "mean unfairness {} as the paper measures, {} over a slice", sum_on / n, sum_slice / n);
}
