//! The harness's own tests: policies driven through scripted events.

use super::*;
use crate::families::{make, PolicyOptions};
use crate::policy::BlockReason;

fn opts() -> PolicyOptions {
    PolicyOptions::default()
}

#[test]
fn every_baseline_keeps_all_contexts_busy_and_rotates_threads() {
    for name in ["g-rrs", "p-rrs", "wss", "cfs", "eevdf", "random"] {
        let mut p = make(name, &opts()).unwrap();
        let mut s = Script::new(Topology::regular(1, 1, 4, 1, 1), 8, p.as_mut());
        s.arrive_all(p.as_mut());
        assert_eq!(s.busy(), 4, "{name}: all contexts busy");
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..200 {
            s.fire_next_timer(p.as_mut());
            assert_eq!(s.busy(), 4, "{name}: stays busy");
            seen.extend(s.running.iter().flatten().copied());
        }
        assert_eq!(seen.len(), 8, "{name}: every thread got to run");
    }
}

#[test]
fn blocked_context_is_refilled_and_no_thread_runs_twice() {
    for name in ["g-rrs", "p-rrs", "wss", "cfs", "eevdf", "random"] {
        let mut p = make(name, &opts()).unwrap();
        let mut s = Script::new(Topology::regular(1, 1, 2, 1, 1), 4, p.as_mut());
        s.arrive_all(p.as_mut());
        let t = s.running[0].unwrap();
        s.send(p.as_mut(), Event::Blocked { thread: t, ctx: CtxId(0), reason: BlockReason::Barrier });
        // p-rrs/wss keep per-context queues: context 0 has its own waiting thread.
        assert_eq!(s.busy(), 2, "{name}: refilled");
        let mut r: Vec<_> = s.running.iter().flatten().collect();
        r.dedup();
        assert_eq!(r.len(), 2);
        assert!(!s.running.contains(&Some(t)));
    }
}

#[test]
fn g_rrs_serves_in_fifo_order() {
    let mut p = make("g-rrs", &opts()).unwrap();
    let mut s = Script::new(Topology::regular(1, 1, 1, 1, 1), 3, p.as_mut());
    s.arrive_all(p.as_mut());
    let mut order = vec![s.running[0].unwrap().0];
    for _ in 0..5 {
        s.fire_next_timer(p.as_mut());
        order.push(s.running[0].unwrap().0);
    }
    assert_eq!(order, vec![0, 1, 2, 0, 1, 2]);
}

#[test]
fn p_rrs_never_migrates() {
    let mut p = make("p-rrs", &opts()).unwrap();
    let mut s = Script::new(Topology::regular(1, 1, 2, 1, 1), 6, p.as_mut());
    s.arrive_all(p.as_mut());
    let mut home = std::collections::BTreeMap::new();
    for _ in 0..50 {
        s.fire_next_timer(p.as_mut());
        for (c, t) in s.running.iter().enumerate() {
            let t = t.unwrap();
            assert_eq!(*home.entry(t).or_insert(c), c, "thread {t:?} moved");
        }
    }
}

#[test]
fn wss_steals_into_an_empty_queue() {
    let mut p = make("wss", &opts()).unwrap();
    let mut s = Script::new(Topology::regular(1, 1, 2, 1, 1), 4, p.as_mut());
    s.arrive_all(p.as_mut());
    // Threads 0,2 on ctx 0; 1,3 on ctx 1. Block both on ctx 1: its queue drains.
    for _ in 0..2 {
        let t = s.running[1].unwrap();
        s.send(p.as_mut(), Event::Blocked { thread: t, ctx: CtxId(1), reason: BlockReason::Io });
    }
    assert_eq!(s.running[1], None);
    for _ in 0..100 {
        s.fire_next_timer(p.as_mut());
        if s.running[1].is_some() {
            return;
        }
    }
    panic!("no steal into the idle context");
}

#[test]
fn static_runs_threads_only_where_assigned_and_rejects_short_assignments() {
    let a = vec![CtxId(1), CtxId(1), CtxId(0)];
    let o = PolicyOptions { assignment: Some(a.clone()), ..opts() };
    let mut p = make("static", &o).unwrap();
    let mut s = Script::new(Topology::regular(1, 1, 2, 1, 1), 3, p.as_mut());
    s.arrive_all(p.as_mut());
    for _ in 0..20 {
        for (c, t) in s.running.iter().enumerate() {
            if let Some(t) = t {
                assert_eq!(a[t.idx()].idx(), c);
            }
        }
        s.fire_next_timer(p.as_mut());
    }
    let mut p = make("static", &o).unwrap();
    let s = Script::bare(Topology::regular(1, 1, 2, 1, 1), 4);
    let err = p.init(&s).unwrap_err().to_string();
    assert!(err.contains("has 3 entries"), "{err}");
}

#[test]
fn cfs_shares_a_context_fairly_by_vruntime() {
    let mut p = make("cfs", &opts()).unwrap();
    let mut s = Script::new(Topology::regular(1, 1, 1, 1, 1), 3, p.as_mut());
    s.arrive_all(p.as_mut());
    let mut ran = [0u64; 3];
    let mut last = (s.now, s.running[0].unwrap());
    for _ in 0..300 {
        s.fire_next_timer(p.as_mut());
        if let Some(t) = s.running[0] {
            ran[last.1.idx()] += s.now - last.0;
            last = (s.now, t);
        }
    }
    let total: u64 = ran.iter().sum();
    for r in ran {
        let share = r as f64 / total as f64;
        assert!((share - 1.0 / 3.0).abs() < 0.02, "share {share}");
    }
}

#[test]
fn cfs_balances_threads_across_contexts() {
    let mut p = make("cfs", &opts()).unwrap();
    let mut s = Script::new(Topology::regular(1, 1, 4, 1, 1), 8, p.as_mut());
    s.arrive_all(p.as_mut());
    // Everyone on ctx 2,3 blocks: ctx 2,3 then pull work from 0,1 (idle balance).
    for c in [2u32, 3] {
        let t = s.running[c as usize].unwrap();
        s.send(p.as_mut(), Event::Blocked { thread: t, ctx: CtxId(c), reason: BlockReason::Io });
    }
    assert_eq!(s.busy(), 4);
}
