//! SLITS driven through scripted events (§4.3: Lazy Reschedule, the TIM, the FM).

use super::*;
use crate::families::{Pairing, Scope, Slits, SlitsObjective, SlitsParams};
use crate::learn::{Fm, FmParams};
use crate::policy::BlockReason;

fn global() -> SlitsParams {
    SlitsParams { scope: Scope::Global, ..Default::default() }
}

/// Which thread ctx 1 picks after t1 stalls, for 8 threads on 2 contexts
/// (t0 keeps ctx 0), under `pairing` with the given FM biases and truth.
fn pick_after_stall(pairing: Pairing, scope: Scope, bias: &[f64], truth: &[f64], seed: u64) -> ThreadId {
    let n = bias.len();
    let mut p = Slits::new(SlitsObjective::Contention, SlitsParams { pairing, scope, ..Default::default() }, seed);
    p.load_model(fm_with(n, 2, bias));
    let mut s = Script::with_truth(Topology::regular(1, 1, 2, 1, 1), n, Some(truth.to_vec()), &mut p);
    s.arrive_all(&mut p);
    s.send(&mut p, Event::Blocked { thread: ThreadId(1), ctx: CtxId(1), reason: BlockReason::Io });
    s.running[1].unwrap()
}

#[test]
fn pairing_rules_are_different_code_paths() {
    // Queue order puts t2 first; the FM estimates t6 least; the truth says t4.
    let bias = [0.0, 0.0, 3.0, 2.0, 4.0, 5.0, 1.0, 6.0];
    let truth = [9.0, 9.0, 8.0, 7.0, 0.5, 6.0, 9.0, 9.0];
    let g = Scope::Global;
    assert_eq!(pick_after_stall(Pairing::RoundRobin, g, &bias, &truth, 1), ThreadId(2), "queue order");
    assert_eq!(pick_after_stall(Pairing::Fm, g, &bias, &truth, 1), ThreadId(6), "least FM estimate");
    assert_eq!(pick_after_stall(Pairing::Oracle, g, &bias, &truth, 1), ThreadId(4), "least true contention");
    let random: std::collections::BTreeSet<u32> =
        (0..30).map(|seed| pick_after_stall(Pairing::Random, g, &bias, &truth, seed).0).collect();
    assert!(
        random.len() >= 4 && random.iter().all(|&t| t >= 2),
        "random picks vary over the waiting threads: {random:?}"
    );
}

#[test]
fn step_one_ranks_only_the_threads_assigned_to_the_idle_core() {
    // Homes are dealt alternately: odd threads belong to ctx 1. The FM's favourite, t6,
    // is ctx 0's; per-core SLITS must pick ctx 1's best (t3, bias 2), global SLITS t6.
    let bias = [0.0, 0.0, 3.0, 2.0, 4.0, 5.0, 1.0, 6.0];
    let truth = [0.0; 8];
    assert_eq!(pick_after_stall(Pairing::Fm, Scope::PerCore, &bias, &truth, 1), ThreadId(3));
    assert_eq!(pick_after_stall(Pairing::Fm, Scope::Global, &bias, &truth, 1), ThreadId(6));
}

#[test]
fn oracle_pairing_refuses_a_backend_without_ground_truth() {
    let mut p =
        Slits::new(SlitsObjective::Contention, SlitsParams { pairing: Pairing::Oracle, ..Default::default() }, 1);
    assert!(p.needs().oracle);
    let s = Script::bare(Topology::regular(1, 1, 2, 1, 1), 4);
    let e = p.init(&s).unwrap_err().to_string();
    assert!(e.contains("oracle"), "{e}");
}

#[test]
fn efs_oracle_admission_refuses_a_backend_without_ground_truth() {
    use crate::families::{Admission, Efs, EfsParams};
    for admission in [Admission::OracleSolo, Admission::Oracle] {
        let mut p =
            Efs::new(EfsParams { admission, power: Some(vec![10.0, 5.0]), mu: Some(1e8), ..Default::default() });
        assert!(p.needs().oracle);
        let e = p.init(&Script::bare(Topology::regular(1, 1, 2, 1, 1), 4)).unwrap_err().to_string();
        assert!(e.contains("ground truth"), "{e}");
    }
    let mut p = Efs::new(EfsParams { power: Some(vec![10.0, 5.0]), mu: Some(1e8), ..Default::default() });
    assert!(!p.needs().oracle);
    p.init(&Script::bare(Topology::regular(1, 1, 2, 1, 1), 4)).unwrap();
}

/// An FM whose estimate for waiting thread w is `w0 + bias[w]` (no interactions).
fn fm_with(n: usize, ctx: usize, bias: &[f64]) -> Fm {
    let mut fm = Fm::new(2 * n + ctx, FmParams { k: 2, init_std: 0.0, ..Default::default() }, 1);
    for (w, b) in bias.iter().enumerate() {
        fm.w[n + w] = *b;
    }
    fm
}

#[test]
fn contention_picks_the_least_contending_waiting_thread() {
    let n = 5;
    let mut p = Slits::new(SlitsObjective::Contention, global(), 1);
    p.load_model(fm_with(n, 2, &[0.0, 0.0, 5.0, 1.0, 3.0]));
    let mut s = Script::new(Topology::regular(1, 1, 2, 1, 1), n, &mut p);
    s.arrive_all(&mut p);
    assert_eq!(s.running, vec![Some(ThreadId(0)), Some(ThreadId(1))]);
    // t1 stalls: ctx 1 ranks the waiting t2, t3, t4 beside the running t0.
    s.send(&mut p, Event::Blocked { thread: ThreadId(1), ctx: CtxId(1), reason: BlockReason::Io });
    assert_eq!(s.running[1], Some(ThreadId(3)), "least estimated misses");
}

#[test]
fn fairness_picks_only_threads_below_the_median_estimated_ipc() {
    let n = 10;
    let bias: Vec<f64> = (0..n).map(|w| w as f64).collect(); // estimated IPC grows with id
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..40 {
        let mut p = Slits::new(SlitsObjective::Fairness, global(), seed);
        p.load_model(fm_with(n, 2, &bias));
        let mut s = Script::new(Topology::regular(1, 1, 2, 1, 1), n, &mut p);
        s.arrive_all(&mut p);
        s.send(&mut p, Event::Blocked { thread: ThreadId(1), ctx: CtxId(1), reason: BlockReason::Io });
        let t = s.running[1].unwrap().idx();
        // candidates 2..=9, median (upper) 6: below it are 2..=5
        assert!((2..=5).contains(&t), "seed {seed} picked {t}");
        seen.insert(t);
    }
    assert!(seen.len() > 1, "the pick among below-median threads is random");
}

#[test]
fn lazy_reschedule_never_preempts() {
    let mut p = Slits::new(SlitsObjective::Contention, SlitsParams::default(), 1);
    let mut s = Script::new(Topology::regular(1, 1, 2, 1, 1), 6, &mut p);
    s.arrive_all(&mut p);
    assert!(s.timers.is_empty(), "no quantum timers");
    for round in 0..4 {
        let c = round % 2;
        let t = s.running[c].unwrap();
        s.send(&mut p, Event::Blocked { thread: t, ctx: CtxId(c as u32), reason: BlockReason::Barrier });
    }
    assert!(s.log.iter().all(|d| !matches!(d, Decision::Preempt { .. })));
}

#[test]
fn coverage_schedules_the_stated_share_with_the_fm() {
    for (cov, lo, hi) in [(0.0, 0.0, 0.0), (0.5, 0.35, 0.65), (1.0, 0.99, 1.0)] {
        let mut p = Slits::new(SlitsObjective::Contention, SlitsParams { coverage: cov, ..global() }, 7);
        let n = 200;
        let mut s = Script::new(Topology::regular(1, 1, 2, 1, 1), n, &mut p);
        s.arrive_all(&mut p);
        for _ in 0..150 {
            let c = 1; // ctx 0 stays busy, so every pick on ctx 1 has a co-runner
            let t = s.running[c].unwrap();
            s.send(&mut p, Event::Exited { thread: t, ctx: CtxId(c as u32) });
        }
        // picks on ctx 1 always have a co-runner; the first pick on ctx 0 had none (round-robin)
        let share = p.fm_share();
        assert!(share >= lo * 150.0 / 152.0 && share <= hi, "coverage {cov}: FM share {share}");
    }
}
