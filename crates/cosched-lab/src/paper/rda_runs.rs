//! One RDA run and how the RDA rerun reads it against CFS (§4: work rate
//! and system energy), shared by the rerun's figures and its profiled
//! declarations.

use super::Trial;
use crate::error::RunError;
use cosched_policies::{self as policies, PolicyOptions};
use cosched_sim::engine::{self, RunOutput, SimOptions};

/// One run of `policy` on `w` under trial `t` with the default options.
pub fn go(
    m: &cosched_machine::MachineSpec,
    w: &cosched_sim::WorkloadSpec,
    policy: &str,
    pp_cost_ns: u64,
    t: &Trial,
) -> Result<RunOutput, RunError> {
    go_with(m, w, policy, PolicyOptions::default(), pp_cost_ns, t)
}

/// One run of `policy` on `w` under trial `t` with these options (their seed
/// is replaced by the trial's) and `pp_cost_ns` per progress-period call.
pub fn go_with(
    m: &cosched_machine::MachineSpec,
    w: &cosched_sim::WorkloadSpec,
    policy: &str,
    opts: PolicyOptions,
    pp_cost_ns: u64,
    t: &Trial,
) -> Result<RunOutput, RunError> {
    let mm = t.machine(m);
    let plan = t.plan(w, &mm)?;
    let o = PolicyOptions { seed: t.seed, ..opts };
    let sim = SimOptions { seed: t.seed, pp_cost_ns, ..SimOptions::default() };
    Ok(engine::run(&mm, &plan, &mut *policies::make(policy, &o)?, &sim, None)?)
}

/// Work rate: instructions per second of the run.
pub fn ops(o: &RunOutput) -> f64 {
    o.totals.instructions / (o.makespan as f64 * 1e-9)
}

/// Of run `o` against `cfs`: (ops/s speedup %, system energy saved %).
pub fn against(o: &RunOutput, cfs: &RunOutput) -> (f64, f64) {
    ((ops(o) / ops(cfs) - 1.0) * 100.0, (1.0 - o.energy.system / cfs.energy.system) * 100.0)
}
