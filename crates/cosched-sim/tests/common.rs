//! Helpers shared by the simulator's integration tests.
#![allow(dead_code)]

use cosched_core::ids::{CtxId, MILLI};
use cosched_machine::MachineSpec;
use cosched_policies::{self as policies, PolicyOptions};
use cosched_sim::engine::{run, RunOutput, SimOptions};
use cosched_sim::{presets, Plan, WorkloadSpec};

pub fn machine(name: &str) -> MachineSpec {
    cosched_machine::presets::machine(name).unwrap()
}

pub fn workload(src: &str) -> WorkloadSpec {
    presets::workload_from_toml("test.toml", src).unwrap()
}

/// A workload of `jobs` single-threaded jobs, each running `phase` (TOML key = value lines).
pub fn single_threaded(jobs: &[(&str, &str)]) -> WorkloadSpec {
    let mut s = String::from("name = \"t\"\ndescription = \"test\"\n");
    for (name, phase) in jobs {
        s += &format!("[[job]]\nname = \"{name}\"\n[[job.phase]]\n{phase}\n");
    }
    workload(&s)
}

/// `instances` compute-bound threads of equal work (2e10 instructions at IPC 2, no LLC traffic).
pub fn spinners(instances: u32) -> WorkloadSpec {
    workload(&format!(
        "name = \"spinners\"\n[[job]]\nname = \"spin\"\ninstances = {instances}\n[[job.phase]]\n\
         instructions = 2e10\nipc = 2.0\nllc_apki = 0.01\nllc_mpki = 0.0\nmrc_ref_mb = 1\nfootprint_mb = 0.01\n"
    ))
}

pub fn plan(w: &WorkloadSpec, m: &MachineSpec) -> Plan {
    Plan::new(w, m, None, 1, "test.toml").unwrap()
}

pub fn run_policy(m: &MachineSpec, p: &Plan, policy: &str, opts: PolicyOptions) -> RunOutput {
    run(m, p, &mut *policies::make(policy, &opts).unwrap(), &SimOptions::default(), None).unwrap()
}

/// Run with `static`: thread i pinned to `ctx[i]`, with a long quantum.
pub fn run_static(m: &MachineSpec, p: &Plan, ctx: &[u32], quantum_ms: u64) -> RunOutput {
    let o = PolicyOptions {
        assignment: Some(ctx.iter().map(|&c| CtxId(c)).collect()),
        quantum: quantum_ms * MILLI,
        ..Default::default()
    };
    run_policy(m, p, "static", o)
}

pub fn secs(n: u64) -> f64 {
    n as f64 * 1e-9
}

/// A policy that forwards every call to `inner` and then lets `after` see
/// the event, the machine and the decisions `inner` made (to log, check or
/// add to them). Reports itself as `name`.
pub struct Watched<P, F> {
    /// Name in messages.
    pub name: &'static str,
    /// The policy under test.
    pub inner: P,
    /// Called after each of `inner`'s events.
    pub after: F,
}

impl<P, F> cosched_core::policy::Policy for Watched<P, F>
where
    P: cosched_core::policy::Policy,
    F: FnMut(
            &P,
            &cosched_core::policy::Event,
            &dyn cosched_core::policy::MachineView,
            &mut Vec<cosched_core::policy::Decision>,
        ) + Send,
{
    fn name(&self) -> &'static str {
        self.name
    }
    fn needs(&self) -> cosched_core::policy::Needs {
        self.inner.needs()
    }
    fn init(&mut self, v: &dyn cosched_core::policy::MachineView) -> Result<(), cosched_policies::PolicyError> {
        self.inner.init(v)
    }
    fn on_event(
        &mut self,
        ev: &cosched_core::policy::Event,
        v: &dyn cosched_core::policy::MachineView,
        out: &mut Vec<cosched_core::policy::Decision>,
    ) {
        self.inner.on_event(ev, v, out);
        (self.after)(&self.inner, ev, v, out);
    }
}
