//! The simulator keeps the policy contract through the core's dispatcher
//! (issue #29): an illegal decision ends the run with the dispatcher's error,
//! the same words the real runtime and the test scripts use.

mod common;
use common::*;
use cosched_core::policies::{make, PolicyOptions};
use cosched_core::policy::{Decision, Event, MachineView, Needs, Policy};
use cosched_core::PeriodId;
use cosched_sim::engine::{run, SimOptions};

/// Forwards to CFS, and after the first `Blocked` event adds one illegal decision.
struct Rogue {
    inner: Box<dyn Policy>,
    bad: fn(&Event) -> Option<Decision>,
}

impl Policy for Rogue {
    fn name(&self) -> &'static str {
        "rogue"
    }
    fn needs(&self) -> Needs {
        self.inner.needs()
    }
    fn init(&mut self, v: &dyn MachineView) -> Result<(), cosched_core::policies::PolicyError> {
        self.inner.init(v)
    }
    fn on_event(&mut self, ev: &Event, v: &dyn MachineView, out: &mut Vec<Decision>) {
        self.inner.on_event(ev, v, out);
        out.extend((self.bad)(ev));
    }
}

fn run_rogue(bad: fn(&Event) -> Option<Decision>) -> String {
    let m = machine("xeon-e5645");
    let w = cosched_sim::presets::workload("fluidanimate").expect("preset");
    let p = plan(&w, &m);
    let mut rogue = Rogue { inner: make("cfs", &PolicyOptions::default()).unwrap(), bad };
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
