//! The contention solver against what its solution must be: a function of the
//! co-schedule alone (whatever was solved before, wherever the threads sit,
//! whichever run solved it first), and the fixed point of the model it solves
//! (LLC shares in proportion to insertion rates; IPC from the loaded latency).

mod common;
use common::*;
use cosched_sim::contention::{Rates, Runner, SharedSolutions, Solver};
use rand::{Rng, SeedableRng};
use std::sync::Arc;

/// Random co-schedules of spec-mix8's phases on the E5645 (6 cores × 2 SMT
/// contexts, one LLC): each context busy with probability 3/4.
fn coschedules(models: usize, count: usize, seed: u64) -> Vec<Vec<Runner>> {
    let m = machine("xeon-e5645");
    let topo = m.topology();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    (0..count)
        .map(|_| {
            let mut r = vec![];
            for c in &topo.contexts {
                if rng.gen_bool(0.75) {
                    let model = rng.gen_range(0..models) as u32;
                    let job = r.len() as u32;
                    r.push(Runner { model, pipe: c.pipe, core: c.core, llc: c.llc, job, ..Runner::alone() });
                }
            }
            r
        })
        .collect()
}

fn setup() -> (cosched_machine::MachineSpec, cosched_sim::Plan) {
    let m = machine("xeon-e5645");
    let p = plan(&cosched_sim::presets::workload("spec-mix8").unwrap(), &m);
    (m, p)
}

fn solve(s: &mut Solver, p: &cosched_sim::Plan, r: &[Runner]) -> Vec<Rates> {
    let mut out = vec![];
    s.solve(&p.models, r, &mut out);
    out
}

#[test]
fn a_solution_does_not_depend_on_what_was_solved_before() {
    let (m, p) = setup();
    let mut warm = Solver::new(&m);
    for r in coschedules(p.models.len(), 300, 1) {
        let a = solve(&mut warm, &p, &r);
        let b = solve(&mut Solver::new(&m), &p, &r);
        assert_eq!(a, b, "a solver with a history and a fresh one agree bit for bit");
    }
}

#[test]
fn renumbering_cores_moves_no_rate_beyond_the_tolerance() {
    let (m, p) = setup();
    let topo = m.topology();
    let (cores, per_core) = (topo.n_cores, topo.n_pipes / topo.n_cores);
    for r in coschedules(p.models.len(), 200, 2) {
        // The same co-schedule with the cores in reverse order (pipes follow their core).
        let moved: Vec<Runner> = r
            .iter()
            .map(|x| {
                let core = cores - 1 - x.core;
                Runner { core, pipe: core * per_core + x.pipe % per_core, ..*x }
            })
            .collect();
        let a = solve(&mut Solver::new(&m), &p, &r);
        let b = solve(&mut Solver::new(&m), &p, &moved);
        for (x, y) in a.iter().zip(&b) {
            assert!((x.ipc - y.ipc).abs() <= 1e-5 * x.ipc, "{} vs {}", x.ipc, y.ipc);
        }
    }
}

#[test]
fn shared_solutions_are_the_ones_each_run_would_find() {
    let (m, p) = setup();
    let shared = Arc::new(SharedSolutions::default());
    let all = coschedules(p.models.len(), 200, 3);
    // Two "runs" sharing, in parallel, each solving every co-schedule in its own order.
    let runs: Vec<Vec<Vec<Rates>>> = std::thread::scope(|sc| {
        let hs: Vec<_> = (0..2)
            .map(|k| {
                let (shared, all, p, m) = (shared.clone(), &all, &p, &m);
                sc.spawn(move || {
                    let mut s = Solver::new(m);
                    s.share(shared);
                    let order: Vec<usize> =
                        if k == 0 { (0..all.len()).collect() } else { (0..all.len()).rev().collect() };
                    let mut got = vec![vec![]; all.len()];
                    for i in order {
                        got[i] = solve(&mut s, p, &all[i]);
                    }
                    got
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(!shared.is_empty());
    for (i, r) in all.iter().enumerate() {
        let alone = solve(&mut Solver::new(&m), &p, r);
        assert_eq!(runs[0][i], alone);
        assert_eq!(runs[1][i], alone);
    }
}

#[test]
fn the_solution_is_the_models_fixed_point() {
    // spec-mix8's threads hold private data only: each is one LLC tenant, and
    // the uncapped tenants' shares are proportional to their insertion rates
    // (IPC × MPKI) and fill the cache; each MPKI is its miss curve at its share.
    let (m, p) = setup();
    for r in coschedules(p.models.len(), 300, 4) {
        let out = solve(&mut Solver::new(&m), &p, &r);
        let mut ratios = vec![];
        let mut held = 0.0;
        for (x, o) in r.iter().zip(&out) {
            let model = &p.models[x.model as usize];
            assert_eq!(model.shared_mb, 0.0);
            assert!((o.mpki - model.mrc.mpki(o.occupancy_mb)).abs() <= 1e-9 * o.mpki.max(1e-9));
            held += o.occupancy_mb;
            if o.occupancy_mb < model.private_mb * (1.0 - 1e-4) {
                ratios.push(o.occupancy_mb / (o.ipc * o.mpki + 1e-9));
            }
        }
        assert!(held <= m.cache.llc_mb * (1.0 + 1e-9), "held {held}");
        if ratios.len() > 1 {
            assert!((held - m.cache.llc_mb).abs() <= 1e-4 * m.cache.llc_mb, "an uncapped tenant leaves room: {held}");
            let (lo, hi) = ratios.iter().fold((f64::MAX, 0.0f64), |(a, b), &x| (a.min(x), b.max(x)));
            assert!(hi / lo - 1.0 <= 1e-4, "shares proportional to insertion rates: {lo} .. {hi}");
        }
    }
}

#[test]
fn a_slot_returns_what_a_fresh_solve_returns_whatever_the_runners_order() {
    // A slot remembers its last solve: the same runners in another order (the
    // engine's socket after a thread stopped and restarted) must get the rates a
    // fresh solver gives them, bit for bit, and so must a different co-schedule.
    let (m, p) = setup();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
    let mut slots = Solver::new(&m);
    let mut repeats = 0;
    for r in coschedules(p.models.len(), 150, 3) {
        for _ in 0..3 {
            let mut shuffled = r.clone();
            for i in (1..shuffled.len()).rev() {
                shuffled.swap(i, rng.gen_range(0..=i));
            }
            // Two jobs of one model on one pipe are interchangeable: make some.
            if shuffled.len() > 1 && rng.gen_bool(0.3) {
                shuffled[1] = Runner { model: shuffled[0].model, job: shuffled[0].job, ..shuffled[1] };
            }
            let slot = rng.gen_range(0..2);
            let mut got = vec![];
            let bus = slots.solve_slot(slot, &p.models, &shuffled, &mut got);
            let mut want = vec![];
            let want_bus = Solver::new(&m).solve(&p.models, &shuffled, &mut want);
            assert_eq!(got, want, "slot {slot}");
            assert_eq!(bus, want_bus);
            repeats += 1;
        }
    }
    assert!(repeats > 0);
}
