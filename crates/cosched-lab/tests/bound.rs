//! The bound beside every comparison: the best static partition with idle
//! contexts allowed (`Instance::bound`). Sizes come from the presets the code
//! under test reads.

use cosched_lab::assignment::{random_static_partition, Shape};
use cosched_lab::compare::{GAP_BUDGET, GAP_PARTITION_SAMPLES, GAP_SAMPLES};
use cosched_lab::optimum::{best_static, Instance, Objective};
use cosched_machine::presets::machine;
use cosched_sim::{presets, Plan};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn setup(m: &str, w: &str, copies: u32) -> (cosched_machine::MachineSpec, Plan) {
    let m = machine(m).unwrap();
    let mut w = presets::workload(w).unwrap();
    for j in &mut w.jobs {
        j.instances *= copies;
    }
    let plan = Plan::new(&w, &m, None, 1, &w.name).unwrap();
    (m, plan)
}

/// The threads dealt in order over one context of each core (the first, as
/// `Topology::regular` numbers them): the static assignment that leaves every
/// SMT sibling idle.
fn one_per_core(m: &cosched_machine::MachineSpec, threads: usize) -> Vec<u32> {
    let topo = m.topology();
    let mut firsts: Vec<u32> = vec![];
    for (c, x) in topo.contexts.iter().enumerate() {
        if !topo.contexts[..c].iter().any(|y| y.core == x.core) {
            firsts.push(c as u32);
        }
    }
    (0..threads).map(|t| firsts[t % firsts.len()]).collect()
}

#[test]
fn the_bound_is_at_least_the_one_context_per_core_assignment() {
    // RDA's workloads on its E5-2420 and EFS's four copies on the i5-2500: where idling
    // contexts pays, the bound must know it.
    for (m, w, copies) in
        [("xeon-e5-2420", "rda-volrend", 1), ("xeon-e5-2420", "rda-blas3", 1), ("i5-2500", "efs-synthetic", 4)]
    {
        let (m, plan) = setup(m, w, copies);
        let inst = Instance::bound(&m, &plan).unwrap();
        let samples = if inst.partitioned { GAP_PARTITION_SAMPLES } else { GAP_SAMPLES };
        let b = best_static(&inst, Objective::Throughput, GAP_BUDGET, samples, 1, &|| {}).unwrap();
        let per_core = inst.evaluate(&one_per_core(&m, inst.threads())).unwrap().throughput_gips;
        assert!(
            b.value >= per_core,
            "{w}: the bound ({}) {} is below one context per core's {per_core}",
            b.kind,
            b.value
        );
    }
}

#[test]
fn the_sampler_draws_every_shape_and_partitions_with_idle_contexts() {
    // The E5645: SMT cores, so one context per core is a shape of its own.
    let m = machine("xeon-e5645").unwrap();
    let topo = m.topology();
    let shapes = Shape::available(&topo);
    let mut want = vec![Shape::Every, Shape::PerCore];
    if topo.n_llc < topo.n_cores {
        want.push(Shape::PerLlc);
    }
    want.push(Shape::Subset);
    assert_eq!(shapes, want);
    for threads in [4usize, topo.n_contexts(), 2 * topo.n_contexts()] {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let draws = 600;
        let mut counts = vec![0usize; shapes.len()];
        let mut idle = 0;
        for _ in 0..draws {
            let (shape, a) = random_static_partition(&topo, threads, &mut rng);
            counts[shapes.iter().position(|&s| s == shape).unwrap()] += 1;
            assert_eq!(a.len(), threads);
            let mut per = vec![0usize; topo.n_contexts()];
            a.iter().for_each(|c| per[c.idx()] += 1);
            let used: Vec<usize> = per.iter().copied().filter(|&k| k > 0).collect();
            // Balanced over the contexts it uses.
            let (lo, hi) = (used.iter().min().unwrap(), used.iter().max().unwrap());
            assert!(hi - lo <= 1, "{shape:?}: {per:?}");
            if shape == Shape::PerCore {
                // Never two contexts of one core.
                for core in 0..topo.n_cores {
                    let busy = (0..topo.n_contexts()).filter(|&c| topo.contexts[c].core == core && per[c] > 0).count();
                    assert!(busy <= 1, "core {core}: {per:?}");
                }
            }
            if used.len() < threads.min(topo.n_contexts()) {
                idle += 1;
            }
        }
        // Each shape its share of the draws (binomial, 600 draws: 6 s.d. is at most 0.12).
        for (s, &k) in shapes.iter().zip(&counts) {
            let share = k as f64 / draws as f64;
            assert!((share - 1.0 / shapes.len() as f64).abs() < 0.12, "{s:?}: {share}");
        }
        // One per core (with more threads than cores) and the random subsets leave contexts
        // idle that every-context would use.
        assert!(idle > draws / 5, "{threads} threads: only {idle} of {draws} draws left a context idle");
    }
}

#[test]
fn a_sampled_bound_counts_its_idle_draws_and_the_exact_family_holds_the_every_context_one() {
    // Four copies of one job on the i5-2500's four cores: the family is small enough to enumerate
    // (Bell(4) = 15 partitions up to symmetry), and its best is no worse than the only
    // every-context co-schedule.
    let (m, plan) = setup("i5-2500", "efs-synthetic", 4);
    let inst = Instance::bound(&m, &plan).unwrap();
    assert_eq!(inst.coschedules(), 15);
    let e = inst.exhaustive(Objective::Throughput, GAP_BUDGET, &|| {}).unwrap();
    assert_eq!(e.evaluated, 15);
    let every: Vec<u32> = (0..4).collect();
    assert!(e.best.outcome.throughput_gips >= inst.evaluate(&every).unwrap().throughput_gips);
    let s = inst.sampled(Objective::Throughput, 200, 2, 0.95, &|| {}).unwrap();
    assert!(s.idle && s.idle_draws > 0 && s.idle_draws < 200, "{} idle draws", s.idle_draws);
}

/// Beating the bound (`BestStatic::beaten_by`): ten seeds or more, a paired interval below
/// zero against each seed's upper end, an unbounded end never beaten, and floating-point
/// rounding (a policy that is the exact bound's own co-schedule) no difference.
#[test]
fn beating_the_bound_takes_ten_seeds_and_a_paired_interval() {
    use cosched_lab::compare::{BestStatic, BEAT_SEEDS};
    let exact = |gips: Vec<f64>| BestStatic {
        bound: "exact",
        coschedules: "1".into(),
        best_ci: vec![None; gips.len()],
        best_gips: gips,
        samples: 0,
    };
    let bound: Vec<f64> = (0..BEAT_SEEDS).map(|k| 10.0 + k as f64 * 0.1).collect();
    let above: Vec<f64> = bound.iter().enumerate().map(|(k, b)| b * (1.01 + 0.001 * (k % 3) as f64)).collect();
    assert!(exact(bound.clone()).beaten_by(&above), "1% above on every seed");
    assert!(!exact(bound[1..].to_vec()).beaten_by(&above[1..]), "one seed too few");
    let same: Vec<f64> = bound.iter().map(|b| b * (1.0 + 1e-10)).collect();
    assert!(!exact(bound.clone()).beaten_by(&same), "rounding is no difference");
    let mut open = exact(bound.clone());
    open.best_ci = bound.iter().map(|b| Some((*b, f64::INFINITY))).collect();
    assert!(!open.beaten_by(&above), "an unbounded upper end is never beaten");
    open.best_ci = bound.iter().map(|b| Some((*b, b * 1.005))).collect();
    assert!(open.beaten_by(&above), "above the upper ends on every seed");
}
