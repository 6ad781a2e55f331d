//! The simulator keeps the policy contract through the core's dispatcher:
//! an illegal decision ends the run with the dispatcher's error,
//! the same words the real runtime and the test scripts use.

mod common;
use common::*;
use cosched_core::policy::{Decision, Event, MachineView};
use cosched_core::PeriodId;
use cosched_policies::{Cfs, CfsParams};
use cosched_sim::engine::{run, SimOptions};

fn run_rogue(bad: fn(&Event) -> Option<Decision>) -> String {
    let m = machine("xeon-e5645");
    let w = cosched_sim::presets::workload("fluidanimate").expect("preset");
    let p = plan(&w, &m);
    // CFS, with one illegal decision added where `bad` says.
    let mut rogue = Watched {
        name: "rogue",
        inner: Cfs::new(CfsParams::default()),
        after: |_: &Cfs, ev: &Event, _: &dyn MachineView, out: &mut Vec<Decision>| out.extend(bad(ev)),
    };
    run(&m, &p, &mut rogue, &SimOptions::default(), None).unwrap_err().to_string()
}

#[test]
fn illegal_decisions_end_the_run_with_the_dispatchers_error() {
    let blocked = |ev: &Event| match *ev {
        Event::Blocked { thread, ctx, .. } => Some(Decision::Run { thread, ctx }),
        _ => None,
    };
    let e = run_rogue(blocked);
    assert!(e.starts_with("policy `rogue` ran thread ") && e.ends_with("which is not runnable (blocked)"), "{e}");
    let e = run_rogue(|ev| matches!(ev, Event::Arrived { .. }).then_some(Decision::Admit { period: PeriodId(3) }));
    assert_eq!(e, "policy `rogue` admitted period 3, which is not waiting");
    let e = run_rogue(|ev| {
        matches!(ev, Event::Arrived { .. }).then_some(Decision::Preempt { ctx: cosched_core::CtxId(4096) })
    });
    assert!(e.starts_with("policy `rogue` named context 4096, but the machine has contexts 0.."), "{e}");
}
