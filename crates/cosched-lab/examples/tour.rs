//! The library's three main entry points, each checking its own result
//! (`cargo run --release --example tour`; `scripts/test-all` runs it):
//!
//! 1. one simulated run of a registered policy ([`cosched_sim::engine::run`]);
//! 2. your own policy, written against the one policy interface
//!    (docs/architecture.md, "The policy boundary"), run like a registered one;
//! 3. a comparison of policies over seeds with 95% intervals
//!    ([`cosched_lab::compare::comparison`]), your policy among them.
//!
//! It panics, naming what failed, when a result is not what the models
//! guarantee, so a change that breaks an entry point fails CI.

use cosched_core::ids::{CtxId, Nanos, ThreadId};
use cosched_core::policy::{Decision, Event, MachineView, Policy};
use cosched_lab::compare::{comparison, Comparing, Steps};
use cosched_lab::sweep::Custom;
use cosched_lab::RunSpec;
use cosched_policies::{self as policies, PolicyError, PolicyOptions};
use cosched_sim::engine::{self, SimOptions};
use std::collections::VecDeque;
use std::sync::Arc;

/// A first-come, first-served policy: waiting threads in one queue, each
/// idle context takes the oldest; no preemption.
#[derive(Default)]
struct Fifo {
    queue: VecDeque<ThreadId>,
    idle: Vec<CtxId>,
}

impl Fifo {
    fn fill(&mut self, out: &mut Vec<Decision>) {
        while !self.idle.is_empty() && !self.queue.is_empty() {
            let (thread, ctx) = (self.queue.pop_front().expect("queued"), self.idle.remove(0));
            out.push(Decision::Run { thread, ctx });
        }
    }
}

impl Policy for Fifo {
    fn name(&self) -> &'static str {
        "fifo"
    }

    fn init(&mut self, view: &dyn MachineView) -> Result<(), PolicyError> {
        self.idle = (0..view.topology().n_contexts() as u32).map(CtxId).collect();
        Ok(())
    }

    fn on_event(&mut self, ev: &Event, _view: &dyn MachineView, out: &mut Vec<Decision>) {
        match *ev {
            Event::Arrived { thread, .. } | Event::Runnable { thread } => self.queue.push_back(thread),
            Event::Blocked { ctx, .. } | Event::Exited { ctx, .. } => self.idle.push(ctx),
            _ => {}
        }
        self.fill(out);
    }
}

fn secs(n: Nanos) -> f64 {
    n as f64 * 1e-9
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // 1. One run: eight SPEC programs on the EFS paper's quad-core, under the CFS model.
    let run = RunSpec { machine: "i5-2500".into(), workload: "spec-mix8".into(), ..RunSpec::default() };
    let (m, w) = (run.machine_spec()?, run.workload_spec()?);
    let (m, plan) = run.plan(&m, &w, 1)?;
    let sim = SimOptions { timing: false, ..run.sim_opts(1)? };
    let mut cfs = policies::make("cfs", &PolicyOptions::default())?;
    let out = engine::run(&m, &plan, &mut *cfs, &sim, None)?;
    let last = out.job_finish.iter().copied().max().unwrap_or(0);
    assert_eq!(out.job_finish.len(), plan.jobs.len(), "every job has a finish time");
    assert_eq!(out.makespan, last, "the makespan is the last job's finish");
    assert!(out.energy.system > 0.0 && out.totals.instructions > 0.0, "a run does work and spends energy");
    println!("1. cfs on {}/{}: makespan {:.3} s, {:.1} J", m.name, w.name, secs(out.makespan), out.energy.system);

    // The same run again: byte-identical (same inputs and seed).
    let again = engine::run(&m, &plan, &mut *policies::make("cfs", &PolicyOptions::default())?, &sim, None)?;
    assert_eq!((again.makespan, again.job_finish.clone()), (out.makespan, out.job_finish.clone()), "deterministic");

    // 2. Your own policy on the same run: FIFO never runs more threads than contexts.
    let fifo = engine::run(&m, &plan, &mut Fifo::default(), &sim, None)?;
    assert_eq!(fifo.job_finish.len(), plan.jobs.len(), "FIFO finishes every job");
    assert!(fifo.ctx_switches <= plan.threads.len() as u64, "FIFO switches each thread in once");
    println!("2. fifo: makespan {:.3} s, {} context switches", secs(fifo.makespan), fifo.ctx_switches);

    // 3. A comparison over 3 seeds, speedups (baseline makespan / makespan) against CFS with 95% intervals,
    //    your policy beside the registered ones.
    let names: Vec<String> = ["cfs", "efs", "fifo"].map(String::from).into();
    let customs = [Custom { name: "fifo".into(), make: Arc::new(|| Ok(Box::new(Fifo::default()) as Box<dyn Policy>)) }];
    let run = RunSpec { timing: false, ..run };
    let what = Comparing {
        policies: &names,
        customs: &customs,
        baseline: "cfs",
        first_seed: 1,
        seeds: 3,
        gap: false,
        regimes: false,
        bound_cache: None,
    };
    let c = comparison(&run.resolve()?, &what, &Steps::silent())?;
    assert_eq!(c.seeds, [1, 2, 3]);
    assert_eq!(c.runs.len(), 3 * names.len(), "one report per policy and seed");
    let row = |p: &str| c.policies.iter().find(|r| r.policy == p).expect("a row per policy");
    let base = row("cfs");
    let s = &base.speedup;
    assert_eq!((s.mean, s.lo, s.hi), (1.0, 1.0, 1.0), "the baseline's speedup over itself is 1");
    for r in &c.policies {
        let s = &r.speedup;
        assert!(s.lo <= s.mean && s.mean <= s.hi && s.n == 3, "{}: a mean inside its interval", r.policy);
        assert!(r.makespan_s.mean > 0.0, "{}: a makespan", r.policy);
        let pct = |x: f64| (x - 1.0) * 100.0;
        println!("3. {:>4}: speedup over cfs {:+.2}% [{:+.2}, {:+.2}]", r.policy, pct(s.mean), pct(s.lo), pct(s.hi));
    }
    println!("tour: every check held");
    Ok(())
}
