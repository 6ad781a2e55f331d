//! Engine semantics: synchronisation really blocks, jobs end with their last
//! thread, runs are deterministic, policy mistakes are reported, not obeyed.

mod common;
use common::*;
use cosched_core::ids::{CtxId, Nanos, ThreadId};
use cosched_core::policy::{BlockReason, Decision, Event, MachineView, Policy};
use cosched_policies::{self as policies, PolicyOptions};
use cosched_sim::engine::{run, SimOptions};

/// Wraps a policy and records every event with its time.
struct Recorder {
    inner: Box<dyn Policy>,
    log: Vec<(Nanos, Event)>,
}

impl Policy for Recorder {
    fn name(&self) -> &'static str {
        "recorder"
    }
    fn init(&mut self, v: &dyn MachineView) -> Result<(), cosched_policies::PolicyError> {
        self.inner.init(v)
    }
    fn on_event(&mut self, ev: &Event, v: &dyn MachineView, out: &mut Vec<Decision>) {
        self.log.push((v.now(), *ev));
        self.inner.on_event(ev, v, out)
    }
}

fn barrier_job(threads: u32, iterations: u32) -> cosched_sim::WorkloadSpec {
    workload(&format!(
        "name = \"b\"\ndescription = \"d\"\n[[job]]\nname = \"b\"\nthreads = {threads}\niterations = {iterations}\nbarrier = true\njitter = 0.5\n\
         [[job.phase]]\ninstructions = 4e8\nipc = 1.0\nllc_apki = 5\nllc_mpki = 1\nmrc_ref_mb = 8\nfootprint_mb = 16"
    ))
}

#[test]
fn barriers_block_threads_and_release_them_together() {
    let m = machine("xeon-x5550-16c");
    let p = plan(&barrier_job(8, 5), &m);
    let mut rec = Recorder { inner: policies::make("cfs", &PolicyOptions::default()).unwrap(), log: vec![] };
    let out = run(&m, &p, &mut rec, &SimOptions::default(), None).unwrap();
    let log = &rec.log;
    let blocks: Vec<(Nanos, ThreadId)> = log
        .iter()
        .filter_map(|(t, e)| match e {
            Event::Blocked { thread, reason: BlockReason::Barrier, .. } => Some((*t, *thread)),
            _ => None,
        })
        .collect();
    let wakes: Vec<Nanos> = log.iter().filter_map(|(t, e)| matches!(e, Event::Runnable { .. }).then_some(*t)).collect();
    // 4 barriers between 5 iterations; at each, 8 − 1 threads wait (the last arrival does not block).
    assert_eq!(blocks.len(), 4 * 7);
    assert_eq!(wakes.len(), 4 * 7);
    // Every release happens at the instant of a barrier's last arrival: 4 distinct instants, 7 wakes each.
    let mut instants = wakes.clone();
    instants.dedup();
    assert_eq!(instants.len(), 4, "{instants:?}");
    for w in &instants {
        assert_eq!(wakes.iter().filter(|x| *x == w).count(), 7);
        // nobody was released before every thread had blocked for this round
        let round_blocks = blocks.iter().filter(|(t, _)| t <= w).count();
        assert_eq!(round_blocks % 7, 0);
    }
    // The job ends with its last thread.
    let exits: Vec<Nanos> = log.iter().filter_map(|(t, e)| matches!(e, Event::Exited { .. }).then_some(*t)).collect();
    assert_eq!(out.job_finish[0], *exits.iter().max().unwrap());
    assert_eq!(exits.len(), 8);
    assert_eq!(out.makespan, out.job_finish[0]);
}

#[test]
fn locks_serialise_critical_sections() {
    let m = machine("xeon-x5550-16c");
    let w = workload(
        "name = \"l\"\ndescription = \"d\"\n[[job]]\nname = \"l\"\nthreads = 4\n\
         [[job.phase]]\ninstructions = 4e8\nipc = 1.0\nllc_apki = 1\nllc_mpki = 0.1\nmrc_ref_mb = 8\nfootprint_mb = 1\nlock = \"x\"",
    );
    let p = plan(&w, &m);
    let out = run_policy(&m, &p, "cfs", PolicyOptions::default());
    // Four critical sections of 1e8 instructions at IPC 1 and 2.66 GHz cannot overlap.
    let one = 1e8 / 2.66e9;
    assert!(secs(out.makespan) > 3.9 * one, "makespan {} vs 4 × {one}", secs(out.makespan));
    let free = run_policy(&m, &plan(&barrier_job(4, 1), &m), "cfs", PolicyOptions::default());
    assert!(free.makespan < out.makespan);
}

#[test]
fn io_waits_block_for_their_duration() {
    let m = machine("i5-2500");
    let w = single_threaded(&[(
        "io",
        "instructions = 3.3e6\nipc = 1.0\nllc_apki = 1\nllc_mpki = 0.1\nmrc_ref_mb = 8\nfootprint_mb = 1\nio_ms = 10",
    )]);
    let out = run_policy(&m, &plan(&w, &m), "cfs", PolicyOptions::default());
    let t = secs(out.makespan);
    assert!(t > 0.011 && t < 0.0112, "1 ms of compute + 10 ms of I/O: {t}");
}

#[test]
fn same_seed_same_run_and_another_seed_another_run() {
    let m = machine("xeon-x5550-16c");
    let w = cosched_sim::presets::workload("vips").unwrap();
    let go = |seed: u64, policy: &str| {
        let p = cosched_sim::Plan::new(&w, &m, Some(64), seed, "vips").unwrap();
        let o = PolicyOptions { seed, ..Default::default() };
        let out =
            run(&m, &p, &mut *policies::make(policy, &o).unwrap(), &SimOptions { seed, ..Default::default() }, None)
                .unwrap();
        format!("{:?} {:?} {:?} {}", out.makespan, out.job_finish, out.totals, out.ctx_switches)
    };
    for policy in ["cfs", "random", "wss"] {
        assert_eq!(go(7, policy), go(7, policy), "{policy}");
        assert_ne!(go(7, policy), go(8, policy), "{policy}");
    }
}

/// A policy that runs the first thread again after it blocked.
struct Rogue;
impl Policy for Rogue {
    fn name(&self) -> &'static str {
        "rogue"
    }
    fn on_event(&mut self, ev: &Event, _v: &dyn MachineView, out: &mut Vec<Decision>) {
        match ev {
            Event::Arrived { thread, .. } if thread.0 == 0 => {
                out.push(Decision::Run { thread: *thread, ctx: CtxId(0) })
            }
            Event::Blocked { thread, .. } => out.push(Decision::Run { thread: *thread, ctx: CtxId(1) }),
            _ => {}
        }
    }
}

#[test]
fn illegal_decisions_and_stalls_are_errors() {
    let m = machine("xeon-x5550-16c");
    let p = plan(&barrier_job(2, 2), &m);
    let e = run(&m, &p, &mut Rogue, &SimOptions::default(), None).unwrap_err();
    assert!(matches!(e, cosched_sim::SimError::Contract(_) | cosched_sim::SimError::Stalled { .. }), "{e:?}");
    let e = e.to_string();
    assert!(e.contains("not runnable") || e.contains("stalled"), "{e}");
}

#[test]
fn runs_512_threads_on_16_contexts_with_a_bounded_pair_table() {
    // 512 threads on 16 contexts: the run completes and the engine keeps O(threads) state
    // (the pair bitset for the sparsity metric is the one O(n²) table: 32 KiB here).
    let m = machine("xeon-x5550-16c");
    let w = cosched_sim::presets::workload("swaptions").unwrap();
    let p = cosched_sim::Plan::new(&w, &m, Some(512), 1, "swaptions").unwrap();
    let out = run_policy(&m, &p, "g-rrs", PolicyOptions::default());
    assert_eq!(out.job_finish.len(), 1);
    assert!(out.explored_pct > 0.0 && out.explored_pct <= 100.0);
}

/// Asks the oracle what-if questions when threads arrive, then runs them
/// one per context: thread 0 on ctx 0, thread 1 on ctx 1.
struct AskOracle {
    answers: Vec<cosched_core::policy::CoRun>,
}
impl Policy for AskOracle {
    fn name(&self) -> &'static str {
        "ask-oracle"
    }
    fn needs(&self) -> cosched_core::policy::Needs {
        cosched_core::policy::Needs { oracle: true, ..Default::default() }
    }
    fn on_event(&mut self, ev: &Event, v: &dyn MachineView, out: &mut Vec<Decision>) {
        if let Event::Arrived { thread, .. } = *ev {
            let o = v.oracle().expect("oracle granted");
            let ask = |t: u32| o.corun(ThreadId(t), CtxId(1)).unwrap();
            if thread.0 == 0 {
                self.answers.push(ask(0)); // nothing runs: alone
                out.push(Decision::Run { thread, ctx: CtxId(0) });
            } else {
                self.answers.push(ask(1)); // beside thread 0 on ctx 0
                out.push(Decision::Run { thread, ctx: CtxId(1) });
            }
        }
    }
}

#[test]
fn the_oracles_what_if_answers_are_the_models_rates() {
    let m = machine("i5-2500");
    let heavy = "instructions = 4e9\nipc = 1.2\nllc_apki = 30\nllc_mpki = 20\nmrc_ref_mb = 6\nfootprint_mb = 64";
    let w = single_threaded(&[("a", heavy), ("b", heavy)]);
    let p = plan(&w, &m);
    let mut asker = AskOracle { answers: vec![] };
    let out = run(&m, &p, &mut asker, &SimOptions::default(), None).unwrap();
    let a = asker.answers;
    assert_eq!(a.len(), 2);
    // Alone: the published rates the phase was calibrated to.
    assert!((a[0].ipc - 1.2).abs() < 0.02, "alone ipc {}", a[0].ipc);
    assert!((a[0].mpki - 20.0).abs() < 0.5, "alone mpki {}", a[0].mpki);
    // Beside its twin: slower and missing at least as often, and exactly what the run then measured.
    assert!(a[1].ipc < a[0].ipc * 0.95 && a[1].mpki >= a[0].mpki - 1e-9, "{a:?}");
    let measured_ipc = out.totals.instructions / out.totals.cycles; // the twins run side by side throughout
    assert!((measured_ipc - a[1].ipc).abs() < 0.05 * a[1].ipc, "run {measured_ipc} vs what-if {}", a[1].ipc);
}

/// `SimOptions::decision_cost_ns`: every thread start
/// stalls its context that long, so with one thread per context and
/// nothing else changing, the makespan grows by exactly the cost times the
/// starts of the longest thread (one trace slice per start), and the energy
/// grows with it.
#[test]
fn a_charged_decision_cost_stalls_every_start_by_exactly_that_much() {
    let m = machine("i5-2500");
    let w = single_threaded(&[(
        "a",
        "instructions = 4e8\nipc = 1.0\nllc_apki = 5\nllc_mpki = 1\nmrc_ref_mb = 8\nfootprint_mb = 4",
    )]);
    let p = plan(&w, &m);
    let go = |cost: u64| {
        let mut slices = vec![];
        let mut sink = |s: cosched_machine::TraceSlice| slices.push(s);
        let sim = SimOptions { decision_cost_ns: cost, ..SimOptions::default() };
        let pol = &mut *policies::make("cfs", &PolicyOptions::default()).unwrap();
        let out = run(&m, &p, pol, &sim, Some(&mut sink)).unwrap();
        (out, slices.len() as u64)
    };
    let (free, starts_free) = go(0);
    let cost = 2_000_000; // 2 ms, far above rounding
    let (charged, starts) = go(cost);
    assert!(starts >= 1);
    assert_eq!(starts, starts_free, "the schedule itself must not change");
    let grown = charged.makespan - free.makespan;
    assert!(grown.abs_diff(cost * starts) <= starts, "grew {grown} ns for {starts} starts of {cost} ns");
    assert!(charged.energy.system > free.energy.system);
}

/// A policy whose timer re-arms itself at the instant it fired.
struct Rearm;
impl Policy for Rearm {
    fn name(&self) -> &'static str {
        "rearm"
    }
    fn on_event(&mut self, ev: &Event, v: &dyn MachineView, out: &mut Vec<Decision>) {
        match ev {
            Event::Arrived { thread, .. } if thread.0 == 0 => {
                out.push(Decision::Run { thread: *thread, ctx: CtxId(0) });
                out.push(Decision::Timer { key: 0, at: Some(v.now()) });
            }
            Event::Timer { key } => out.push(Decision::Timer { key: *key, at: Some(v.now()) }),
            _ => {}
        }
    }
}

#[test]
fn a_timer_re_armed_at_the_same_instant_stops_the_run_early_naming_the_policy() {
    let m = machine("xeon-x5550-16c");
    let p = plan(&barrier_job(2, 2), &m);
    let e = run(&m, &p, &mut Rearm, &SimOptions::default(), None).unwrap_err();
    let events = match &e {
        cosched_sim::SimError::TimeStuck { policy, events, .. } if policy == "rearm" => *events,
        e => panic!("{e:?}"),
    };
    // Stopped long before the event budget: within the bound the engine states.
    let bound = 64 * (p.threads.len() + m.n_contexts()) as u64 + 10_000;
    assert_eq!(events, bound + 1);
    assert!(events < SimOptions::default().max_events / 1000);
    assert!(e.to_string().starts_with("policy `rearm` made") && e.to_string().contains("same instant"), "{e}");
}
