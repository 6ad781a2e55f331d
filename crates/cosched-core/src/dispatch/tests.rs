//! The dispatcher driven by scripted event streams, without either backend:
//! every decision kind in every thread status, accepted or refused.

use super::*;
use crate::policy::{MachineView, Resource};
use crate::policy::{Policy, Reuse};
use crate::topology::Topology;

/// A backend that records what it was asked to do.
struct Fake {
    d: Dispatcher,
    topo: Topology,
    log: Vec<String>,
}

impl MachineView for Fake {
    fn now(&self) -> Nanos {
        0
    }
    fn topology(&self) -> &Topology {
        &self.topo
    }
    fn running_on(&self, ctx: CtxId) -> Option<ThreadId> {
        self.d.running_on(ctx)
    }
    fn job_of(&self, t: ThreadId) -> JobId {
        self.d.job_of(t)
    }
    fn n_threads_total(&self) -> usize {
        self.d.n_threads()
    }
}

impl Backend for Fake {
    fn dispatcher(&mut self) -> &mut Dispatcher {
        &mut self.d
    }
    fn decide(&mut self, policy: &mut dyn Policy, ev: &Event, out: &mut Vec<Decision>) {
        policy.on_event(ev, self, out);
    }
    fn start(&mut self, t: ThreadId, c: CtxId) {
        self.log.push(format!("start {} {}", t.0, c.0));
    }
    fn stop(&mut self, t: ThreadId, c: CtxId, migrating: bool) {
        self.log.push(format!("stop {} {} {migrating}", t.0, c.0));
    }
    fn admit(&mut self, t: ThreadId, p: PeriodId) -> Result<(), ContractError> {
        self.log.push(format!("admit {} {}", t.0, p.0));
        Ok(())
    }
    fn arm(&mut self, key: u32, at: Nanos, g: u32) {
        self.log.push(format!("arm {key} {at} {g}"));
    }
}

/// A policy that answers the first event it sees with a fixed list of
/// decisions and records every event.
struct Scripted {
    answer: Vec<Decision>,
    heard: Vec<Event>,
    periods: bool,
}

impl Policy for Scripted {
    fn name(&self) -> &'static str {
        "scripted"
    }
    fn needs(&self) -> Needs {
        Needs { progress_periods: self.periods, ..Needs::default() }
    }
    fn on_event(&mut self, ev: &Event, _v: &dyn MachineView, out: &mut Vec<Decision>) {
        self.heard.push(*ev);
        out.append(&mut self.answer);
    }
}

fn offer() -> Offer {
    Offer { backend: "the test", counters: Supply::Yes, energy: Supply::Yes, oracle: Supply::Yes, smt: false }
}

fn fake(n_threads: usize, n_ctx: usize) -> Fake {
    let needs = Needs { progress_periods: true, ..Needs::default() };
    Fake {
        d: Dispatcher::new("scripted", needs, &offer(), vec![JobId(0); n_threads], n_ctx).unwrap(),
        topo: Topology::regular(1, 1, n_ctx as u32, 1, 1),
        log: vec![],
    }
}

fn policy(answer: Vec<Decision>) -> Scripted {
    Scripted { answer, heard: vec![], periods: true }
}

/// Deliver a trigger event and apply the policy's answer to it.
fn answer(f: &mut Fake, p: &mut Scripted) -> Result<u64, ContractError> {
    f.d.pending.push_back(Event::Timer { key: u32::MAX });
    deliver(f, p)
}

const DEMAND: Demand = Demand { resource: Resource::Llc, amount: 1.0, reuse: Reuse::High };

/// The statuses a thread can be in, each set up on thread 0 with thread 1
/// running on context 1 (context 0 free unless thread 0 runs there).
fn in_state(name: &str) -> Fake {
    let mut f = fake(2, 2);
    let t0 = ThreadId(0);
    f.d.wake(ThreadId(1));
    deliver(&mut f, &mut policy(vec![Decision::Run { thread: ThreadId(1), ctx: CtxId(1) }])).unwrap();
    match name {
        "pending" => {}
        "runnable" => f.d.wake(t0),
        "running" => {
            f.d.wake(t0);
            deliver(&mut f, &mut policy(vec![Decision::Run { thread: t0, ctx: CtxId(0) }])).unwrap();
        }
        "blocked" => {
            f.d.wake(t0);
            deliver(&mut f, &mut policy(vec![Decision::Run { thread: t0, ctx: CtxId(0) }])).unwrap();
            f.d.block(t0, BlockReason::Lock);
        }
        "waiting" => {
            f.d.begin_period(t0, PeriodId(7), DEMAND);
        }
        "exit-pending" => {
            f.d.wake(t0);
            f.d.exit(t0);
        }
        "done" => {
            f.d.wake(t0);
            deliver(&mut f, &mut policy(vec![Decision::Run { thread: t0, ctx: CtxId(0) }])).unwrap();
            f.d.exit(t0);
        }
        _ => unreachable!(),
    }
    deliver(&mut f, &mut policy(vec![])).unwrap();
    f.log.clear();
    f
}

const STATES: [&str; 7] = ["pending", "runnable", "running", "blocked", "waiting", "exit-pending", "done"];

#[test]
fn run_is_accepted_only_for_runnable_threads() {
    for state in STATES {
        let mut f = in_state(state);
        let r = answer(&mut f, &mut policy(vec![Decision::Run { thread: ThreadId(0), ctx: CtxId(0) }]));
        match state {
            "runnable" => {
                assert_eq!(r, Ok(1));
                assert_eq!(f.log, ["start 0 0"]);
                assert_eq!(f.d.status(ThreadId(0)), Status::Running(CtxId(0)));
            }
            "running" => {
                assert_eq!(r, Ok(1), "running there already: nothing to do");
                assert!(f.log.is_empty());
            }
            "exit-pending" => {
                assert_eq!(r, Ok(2), "the run is answered by Exited");
                assert!(f.log.is_empty(), "nothing is started: {:?}", f.log);
                assert_eq!(f.d.status(ThreadId(0)), Status::Done);
                assert_eq!(f.d.running_on(CtxId(0)), None);
            }
            _ => {
                let e = r.unwrap_err();
                assert!(matches!(e, ContractError::NotRunnable { .. }), "{state}: {e}");
                assert!(e.to_string().contains("not runnable"), "{e}");
                assert!(f.log.is_empty());
            }
        }
    }
}

#[test]
fn a_run_made_before_the_policy_heard_of_an_exit_or_block_is_dropped_not_refused() {
    // The real runtime can notice a process exit (or block) while an earlier
    // event is still queued: the policy answers that event from a view in which
    // the thread still runs. Its Run is stale, and the queued news follows it.
    for news in ["exit", "block"] {
        let mut f = in_state("running");
        let t0 = ThreadId(0);
        f.d.pending.push_back(Event::Timer { key: u32::MAX });
        match news {
            "exit" => assert_eq!(f.d.exit(t0), Some(CtxId(0))),
            _ => assert_eq!(f.d.block(t0, BlockReason::Lock), Some(CtxId(0))),
        }
        let mut p = policy(vec![Decision::Run { thread: t0, ctx: CtxId(1) }]);
        assert_eq!(deliver(&mut f, &mut p), Ok(2), "{news}");
        assert!(f.log.is_empty(), "{news}: nothing started or stopped: {:?}", f.log);
        assert_eq!(f.d.running_on(CtxId(1)), Some(ThreadId(1)), "{news}: context 1 keeps its thread");
        assert!(matches!(p.heard[1], Event::Exited { .. } | Event::Blocked { .. }), "{news}: {:?}", p.heard);
    }
    // With nothing queued about the thread, the same Run is a contract error.
    let mut f = in_state("done");
    let r = answer(&mut f, &mut policy(vec![Decision::Run { thread: ThreadId(0), ctx: CtxId(1) }]));
    assert!(matches!(r, Err(ContractError::NotRunnable { .. })), "{r:?}");
}

#[test]
fn run_onto_an_occupied_context_preempts_and_migration_moves() {
    let mut f = in_state("running");
    // Thread 0 runs on 0, thread 1 on 1: run 0 on 1.
    answer(&mut f, &mut policy(vec![Decision::Run { thread: ThreadId(0), ctx: CtxId(1) }])).unwrap();
    assert_eq!(f.log, ["stop 0 0 true", "stop 1 1 false", "start 0 1"]);
    assert_eq!(f.d.status(ThreadId(1)), Status::Runnable);
    assert_eq!(f.d.running_on(CtxId(0)), None);
    assert_eq!(f.d.running_on(CtxId(1)), Some(ThreadId(0)));
}

#[test]
fn preempt_and_idle_name_existing_contexts_in_every_state() {
    for state in STATES {
        let mut f = in_state(state);
        answer(&mut f, &mut policy(vec![Decision::Preempt { ctx: CtxId(0) }, Decision::Idle { ctx: CtxId(0) }]))
            .unwrap();
        if state == "running" {
            assert_eq!(f.log, ["stop 0 0 false"]);
            assert_eq!(f.d.status(ThreadId(0)), Status::Runnable);
        } else {
            assert!(f.log.is_empty(), "{state}: {:?}", f.log);
        }
        for d in [Decision::Preempt { ctx: CtxId(2) }, Decision::Idle { ctx: CtxId(9) }] {
            let e = answer(&mut f, &mut policy(vec![d])).unwrap_err();
            assert!(matches!(e, ContractError::UnknownContext { n: 2, .. }), "{e}");
        }
    }
}

#[test]
fn admit_is_accepted_only_for_a_waiting_period() {
    for state in STATES {
        let mut f = in_state(state);
        let r = answer(&mut f, &mut policy(vec![Decision::Admit { period: PeriodId(7) }]));
        if state == "waiting" {
            assert_eq!(r, Ok(1));
            assert_eq!(f.log, ["admit 0 7"]);
            assert_eq!(f.d.status(ThreadId(0)), Status::Runnable);
            // Admitted once: a second admission is refused.
            let e = answer(&mut f, &mut policy(vec![Decision::Admit { period: PeriodId(7) }])).unwrap_err();
            assert!(matches!(e, ContractError::NotWaiting { .. }));
        } else {
            let e = r.unwrap_err();
            assert!(matches!(e, ContractError::NotWaiting { .. }), "{state}: {e}");
        }
    }
}

#[test]
fn timers_are_generation_keyed_and_bounded() {
    for state in STATES {
        let mut f = in_state(state);
        let set = |key, at| Decision::Timer { key, at };
        answer(&mut f, &mut policy(vec![set(3, Some(50)), set(3, Some(40)), set(1, Some(60))])).unwrap();
        assert_eq!(f.log, ["arm 3 50 1", "arm 3 40 2", "arm 1 60 1"]);
        assert!(!f.d.timer_live(3, 1), "replaced");
        assert!(f.d.timer_live(3, 2));
        assert_eq!(f.d.next_timer(), Some(40));
        answer(&mut f, &mut policy(vec![set(1, None)])).unwrap();
        assert!(!f.d.timer_live(1, 1), "cancelled");
        assert_eq!(f.d.fire_due(45), 1);
        let mut p = policy(vec![]);
        deliver(&mut f, &mut p).unwrap();
        assert_eq!(p.heard, [Event::Timer { key: 3 }]);
        assert_eq!(f.d.next_timer(), None, "fired timers are disarmed");
        let e = answer(&mut f, &mut policy(vec![set(MAX_TIMER_KEYS, Some(1))])).unwrap_err();
        assert!(matches!(e, ContractError::TimerKey { .. }), "{e}");
    }
}

#[test]
fn run_names_existing_threads_and_contexts() {
    let mut f = in_state("runnable");
    let e = answer(&mut f, &mut policy(vec![Decision::Run { thread: ThreadId(5), ctx: CtxId(0) }])).unwrap_err();
    assert!(matches!(e, ContractError::UnknownThread { n: 2, .. }), "{e}");
    let e = answer(&mut f, &mut policy(vec![Decision::Run { thread: ThreadId(0), ctx: CtxId(2) }])).unwrap_err();
    assert!(matches!(e, ContractError::UnknownContext { .. }), "{e}");
}

#[test]
fn first_event_is_arrived_or_period_begin_and_later_wakes_are_runnable() {
    let mut f = fake(2, 2);
    f.d.wake(ThreadId(0));
    f.d.begin_period(ThreadId(1), PeriodId(0), DEMAND);
    let mut p =
        policy(vec![Decision::Admit { period: PeriodId(0) }, Decision::Run { thread: ThreadId(1), ctx: CtxId(0) }]);
    deliver(&mut f, &mut p).unwrap();
    f.d.block(ThreadId(1), BlockReason::Io);
    f.d.wake(ThreadId(1));
    deliver(&mut f, &mut p).unwrap();
    assert_eq!(
        p.heard,
        [
            Event::Arrived { thread: ThreadId(0), job: JobId(0) },
            Event::PeriodBegin { thread: ThreadId(1), ctx: None, period: PeriodId(0), demand: DEMAND },
            Event::Blocked { thread: ThreadId(1), ctx: CtxId(0), reason: BlockReason::Io },
            Event::Runnable { thread: ThreadId(1) },
        ]
    );
}

#[test]
fn period_begin_on_a_context_frees_it_and_names_it() {
    let mut f = in_state("running");
    let ctx = f.d.begin_period(ThreadId(0), PeriodId(3), DEMAND);
    assert_eq!(ctx, Some(CtxId(0)));
    assert_eq!(f.d.running_on(CtxId(0)), None);
    let mut p = policy(vec![]);
    deliver(&mut f, &mut p).unwrap();
    assert_eq!(
        p.heard,
        [Event::PeriodBegin { thread: ThreadId(0), ctx: Some(CtxId(0)), period: PeriodId(3), demand: DEMAND }]
    );
}

#[test]
fn exit_follows_one_rule_per_status() {
    for state in STATES {
        let mut f = in_state(state);
        let ctx = f.d.exit(ThreadId(0));
        let mut p = policy(vec![]);
        deliver(&mut f, &mut p).unwrap();
        let (want_ctx, want_events, want_status): (_, &[Event], _) = match state {
            "running" => (Some(CtxId(0)), &[Event::Exited { thread: ThreadId(0), ctx: CtxId(0) }], Status::Done),
            "pending" | "blocked" | "done" => (None, &[], Status::Done),
            "runnable" | "exit-pending" => (None, &[], Status::Runnable),
            "waiting" => (None, &[], Status::WaitPeriod(PeriodId(7))),
            _ => unreachable!(),
        };
        assert_eq!((ctx, p.heard.as_slice(), f.d.status(ThreadId(0))), (want_ctx, want_events, want_status), "{state}");
    }
    // Waiting when it ended: admitted, then run, then Exited.
    let mut f = in_state("waiting");
    f.d.exit(ThreadId(0));
    let mut p =
        policy(vec![Decision::Admit { period: PeriodId(7) }, Decision::Run { thread: ThreadId(0), ctx: CtxId(0) }]);
    f.d.pending.push_back(Event::Timer { key: 0 });
    deliver(&mut f, &mut p).unwrap();
    assert_eq!(p.heard.last(), Some(&Event::Exited { thread: ThreadId(0), ctx: CtxId(0) }));
    assert_eq!(f.d.n_done(), 1);
}

#[test]
fn events_a_batch_causes_wait_for_the_batch() {
    // Thread 1 on context 1 exits while the policy's batch preempts it first:
    // the Exited event of a later happening queues behind.
    let mut f = in_state("runnable");
    f.d.exit(ThreadId(0));
    let mut p = policy(vec![Decision::Run { thread: ThreadId(0), ctx: CtxId(1) }, Decision::Idle { ctx: CtxId(1) }]);
    f.d.pending.push_back(Event::Timer { key: 0 });
    deliver(&mut f, &mut p).unwrap();
    assert_eq!(p.heard, [Event::Timer { key: 0 }, Event::Exited { thread: ThreadId(0), ctx: CtxId(1) }]);
    assert_eq!(f.log, ["stop 1 1 false"], "whoever held the context was preempted");
    assert_eq!(f.d.status(ThreadId(1)), Status::Runnable);
}

#[test]
fn needs_are_gated_by_the_offer() {
    let no = |why: &str| Supply::No(why.into());
    let o = Offer { counters: no("no PMU"), oracle: no("real machine"), ..offer() };
    let e = Dispatcher::new("p", Needs { counters: true, ..Needs::default() }, &o, vec![], 1).unwrap_err();
    assert_eq!(e.to_string(), "policy `p` needs per-thread hardware counters, which the test cannot provide: no PMU");
    let e = Dispatcher::new("p", Needs { oracle: true, ..Needs::default() }, &o, vec![], 1).unwrap_err();
    assert!(matches!(e, ContractError::Unsupported { need: "ground truth (it is an oracle)", .. }));
    let d = Dispatcher::new("p", Needs { smt: true, ..Needs::default() }, &o, vec![], 1).unwrap();
    assert_eq!(d.notes().len(), 1, "no SMT: degraded mode, noted");
    let d =
        Dispatcher::new("p", Needs { smt: true, ..Needs::default() }, &Offer { smt: true, ..o }, vec![], 1).unwrap();
    assert!(d.notes().is_empty());
}

#[test]
fn period_end_reaches_only_policies_that_admit_periods() {
    let mut f = fake(1, 1);
    f.d.end_period(ThreadId(0), PeriodId(1));
    assert!(f.d.has_pending());
    let mut d = Dispatcher::new("p", Needs::default(), &offer(), vec![JobId(0)], 1).unwrap();
    d.end_period(ThreadId(0), PeriodId(1));
    assert!(!d.has_pending());
}

/// A policy that fails at its second event.
struct Failing {
    heard: usize,
}

impl Policy for Failing {
    fn name(&self) -> &'static str {
        "failing"
    }
    fn on_event(&mut self, _ev: &Event, _v: &dyn MachineView, out: &mut Vec<Decision>) {
        self.heard += 1;
        out.push(Decision::Idle { ctx: CtxId(0) });
    }
    fn as_fallible(&mut self) -> Option<&mut dyn crate::policy_ext::Fallible> {
        Some(self)
    }
}

impl crate::policy_ext::Fallible for Failing {
    fn failure(&mut self) -> Option<String> {
        (self.heard >= 2).then(|| "raised at 0.5 s".to_string())
    }
}

#[test]
fn a_policy_that_reports_a_failure_stops_the_delivery_at_once() {
    let mut f = fake(1, 1);
    let mut p = Failing { heard: 0 };
    f.d.pending.push_back(Event::Timer { key: 1 });
    f.d.pending.push_back(Event::Timer { key: 2 });
    f.d.pending.push_back(Event::Timer { key: 3 });
    let e = deliver(&mut f, &mut p).unwrap_err();
    assert_eq!(e.to_string(), "policy `failing` failed: raised at 0.5 s");
    assert_eq!(p.heard, 2, "no event after the failure");
}
