//! Helpers shared by the simulator's integration tests.
#![allow(dead_code)]

use cosched_core::ids::{CtxId, MILLI};
use cosched_core::policies::{self, PolicyOptions};
use cosched_machine::MachineSpec;
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
