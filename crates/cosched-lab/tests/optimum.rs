//! The best static co-schedule on the simulated machine.
//! Sizes come from the machine preset the code under test reads.

use cosched_core::optimum::{brute_force_groups, brute_force_pairs, pairing_cost};
use cosched_lab::assignment::random_assignment;
use cosched_lab::optimum::{Instance, Objective};
use cosched_machine::presets::machine;
use cosched_sim::{presets, Plan};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn setup(m: &str, w: &str) -> (cosched_machine::MachineSpec, Plan) {
    let m = machine(m).unwrap();
    let w = presets::workload(w).unwrap();
    let plan = Plan::new(&w, &m, None, 1, &w.name).unwrap();
    (m, plan)
}

#[test]
fn the_exact_optimum_is_never_worse_than_any_static_co_schedule() {
    let (m, plan) = setup("xeon-e5645", "spec-mix8");
    let inst = Instance::new(&m, &plan).unwrap();
    assert!(inst.threads() < m.n_contexts(), "the test needs spare contexts");
    for objective in [Objective::Throughput, Objective::Antt] {
        let e = inst.exhaustive(objective, 20_000, &|| {}).unwrap();
        assert_eq!(e.evaluated as u128, inst.coschedules());
        let best = objective.value(&e.best.outcome);
        let worst = objective.value(&e.worst.outcome);
        assert!(objective.better(best, worst), "{objective:?}: best {best} vs worst {worst}");
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let topo = m.topology();
        for _ in 0..200 {
            let a: Vec<u32> = random_assignment(&topo, inst.threads(), &mut rng).into_iter().map(|c| c.0).collect();
            let v = objective.value(&inst.evaluate(&a).unwrap());
            // Symmetric placements of one co-schedule agree to rounding only.
            let tol = 1e-9 * best.abs();
            assert!(
                !objective.better(v, best + if objective.maximise() { tol } else { -tol }),
                "{objective:?}: {a:?} gives {v}, better than the optimum {best}"
            );
            assert!(
                !objective.better(worst, v + if objective.maximise() { tol } else { -tol }) || (v - worst).abs() <= tol
            );
        }
        let mt = inst.matching(&|| {}).unwrap();
        let v = objective.value(&mt.found.outcome);
        assert!(!objective.better(v, best), "{objective:?}: matching {v} beats the exact optimum {best}");
    }
}

#[test]
fn matching_minimises_the_pairwise_cost_it_is_given() {
    let (m, plan) = setup("xeon-e5645", "spec-mix8");
    let inst = Instance::new(&m, &plan).unwrap();
    let mt = inst.matching(&|| {}).unwrap();
    let jobs = plan.jobs.len();
    assert_eq!(mt.corun_runs, jobs * (jobs - 1));
    // The same cost matrix (jobs plus idle partners), brute-forced.
    let n = m.n_contexts();
    let mut cost = vec![0.0; n * n];
    for i in 0..jobs {
        for j in i + 1..jobs {
            let c = mt.degradation[i * jobs + j] + mt.degradation[j * jobs + i];
            cost[i * n + j] = c;
            cost[j * n + i] = c;
        }
    }
    let (_, best) = brute_force_pairs(&cost, n).unwrap();
    assert!((mt.pair_cost - best).abs() < 1e-9, "matching {} vs brute force {best}", mt.pair_cost);
    let pairs: Vec<(usize, usize)> = mt.pairs.iter().filter_map(|&(i, j)| j.map(|j| (i.min(j), i.max(j)))).collect();
    assert!((pairing_cost(&cost, n, &pairs) - mt.pair_cost).abs() < 1e-12);
    // Co-running on one core slows both jobs of a pair (no data is shared between them).
    for i in 0..jobs {
        for j in 0..jobs {
            if i != j {
                assert!(mt.degradation[i * jobs + j] > 0.0, "{i} beside {j}: {}", mt.degradation[i * jobs + j]);
            }
        }
    }
}

/// The larger sharing groups: on a machine whose cores share
/// an LLC in fours and have no SMT, the exact grouping of the group costs
/// equals brute force over every assignment to domains, and its simulated
/// co-schedule never beats the exact optimum.
#[test]
fn grouping_on_larger_domains_minimises_its_cost_and_never_beats_the_optimum() {
    let (m, plan) = setup("xeon-x5550-16c", "spec-mix8");
    let inst = Instance::new(&m, &plan).unwrap();
    let size = inst.tree.capacity(inst.tree.group_level().unwrap());
    assert!(size > 2 && inst.tree.pair_level().is_none(), "the test needs domains of more than two contexts");
    let g = inst.grouped(20_000, &|| {}).unwrap();
    assert!(inst.grouped(g.corun_runs - 1, &|| {}).unwrap_err().to_string().contains("exceed the budget"));
    let jobs = plan.jobs.len();
    assert_eq!(g.size, size);
    let domains = m.n_contexts() / size;
    let oracle = brute_force_groups(jobs, size, domains, &g.cost).unwrap();
    assert!((g.group_cost - oracle).abs() < 1e-9, "grouping {} vs brute force {oracle}", g.group_cost);
    assert!(g.groups.iter().all(|x| x.len() <= size) && g.groups.len() <= domains);
    let e = inst.exhaustive(Objective::Throughput, 20_000, &|| {}).unwrap();
    let (v, best) = (g.found.outcome.throughput_gips, e.best.outcome.throughput_gips);
    assert!(v <= best * (1.0 + 1e-9), "grouping {v} beats the exact optimum {best}");
}

/// Where the deepest shared level holds pairs, the grouping is the matching's problem and cost.
#[test]
fn on_pairs_grouping_and_matching_agree() {
    let (m, plan) = setup("xeon-e5645", "spec-mix8");
    let inst = Instance::new(&m, &plan).unwrap();
    let (g, mt) = (inst.grouped(20_000, &|| {}).unwrap(), inst.matching(&|| {}).unwrap());
    assert_eq!(g.size, 2);
    assert!((g.group_cost - mt.pair_cost).abs() < 1e-9, "{} vs {}", g.group_cost, mt.pair_cost);
}

#[test]
fn searches_are_deterministic() {
    let (m, plan) = setup("xeon-e5645", "spec-mix8");
    let inst = Instance::new(&m, &plan).unwrap();
    let a = inst.exhaustive(Objective::Throughput, 20_000, &|| {}).unwrap();
    let b = inst.exhaustive(Objective::Throughput, 20_000, &|| {}).unwrap();
    assert_eq!(a.best.assignment, b.best.assignment);
    assert_eq!(a.best.outcome.throughput_gips.to_bits(), b.best.outcome.throughput_gips.to_bits());
    let s1 = inst.sampled(Objective::Throughput, 50, 3, 0.95, &|| {}).unwrap();
    let s2 = inst.sampled(Objective::Throughput, 50, 3, 0.95, &|| {}).unwrap();
    assert_eq!(
        s1.values.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        s2.values.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
    );
}

#[test]
fn oversubscribed_workloads_and_over_budget_searches_are_refused_with_the_reason() {
    let (m, plan) = setup("xeon-e5645", "spec-mix24");
    assert!(plan.threads.len() > m.n_contexts());
    let e = Instance::new(&m, &plan).err().unwrap().to_string();
    assert!(e.contains("do not fit"), "{e}");
    let (m, plan) = setup("xeon-e5645", "spec-mix8");
    let e = Instance::partitioned(&m, &plan).err().unwrap().to_string();
    assert!(e.contains("fit"), "{e}");
    let inst = Instance::new(&m, &plan).unwrap();
    let e = inst.exhaustive(Objective::Throughput, 10, &|| {}).err().unwrap().to_string();
    assert!(e.contains("exceed the budget"), "{e}");
    assert!(inst.sampled(Objective::Throughput, 0, 1, 0.95, &|| {}).is_err());
    // A machine without a two-context level: no pairwise matching.
    let (m, plan) = setup("i5-2500", "mcf");
    let e = Instance::new(&m, &plan).unwrap().matching(&|| {}).err().unwrap().to_string();
    assert!(e.contains("two contexts"), "{e}");
}

#[test]
fn placements_that_differ_by_the_machines_symmetry_give_the_same_outcome() {
    // The premise of counting co-schedules up to symmetry (docs/optimum.md):
    // every random placement scores what its canonical co-schedule scored.
    let (m, plan) = setup("xeon-e5645", "spec-mix8");
    let inst = Instance::new(&m, &plan).unwrap();
    let e = inst.exhaustive(Objective::Throughput, 20_000, &|| {}).unwrap();
    let mut by_key = std::collections::HashMap::new();
    let mut k = 0;
    inst.tree.for_each(inst.threads(), &mut |a| {
        by_key.insert(inst.tree.canonical(a), e.values[k]);
        k += 1;
        true
    });
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let topo = m.topology();
    for _ in 0..100 {
        let a: Vec<u32> = random_assignment(&topo, inst.threads(), &mut rng).into_iter().map(|c| c.0).collect();
        let v = inst.evaluate(&a).unwrap().throughput_gips;
        let want = by_key[&inst.tree.canonical(&a)];
        assert!((v - want).abs() <= 1e-9 * want, "{a:?}: {v} vs its co-schedule's {want}");
    }
}

#[test]
fn an_oversubscribed_workload_samples_balanced_time_shared_partitions_each_measured_as_it_runs() {
    // spec-mix8 on the i5-2500: more jobs than contexts, sizes from the preset.
    let (m, plan) = setup("i5-2500", "spec-mix8");
    let contexts = m.n_contexts();
    assert!(plan.threads.len() > contexts, "the test needs an oversubscribed workload");
    let inst = Instance::any(&m, &plan).unwrap();
    assert!(inst.partitioned);
    for e in [
        inst.exhaustive(Objective::Throughput, 20_000, &|| {}).err().unwrap().to_string(),
        inst.matching(&|| {}).err().unwrap().to_string(),
        inst.grouped(20_000, &|| {}).err().unwrap().to_string(),
    ] {
        assert!(e.contains("only time-shared partitions are sampled"), "{e}");
    }
    let s = inst.sampled(Objective::Throughput, 300, 5, 0.95, &|| {}).unwrap();
    assert!(s.partitioned);
    // Balanced: every context holds ⌊T/C⌋ or ⌈T/C⌉ threads.
    let (lo, hi) = (plan.threads.len() / contexts, plan.threads.len().div_ceil(contexts));
    for c in 0..contexts as u32 {
        let k = s.best.assignment.iter().filter(|&&x| x == c).count();
        assert!((lo..=hi).contains(&k), "context {c}: {k} threads");
    }
    // The best drawn is what its partition scores in a run of its own, and the
    // samples are not all alike (time-sharing partners matter).
    let ctx: Vec<_> = s.best.assignment.iter().map(|&c| cosched_core::CtxId(c)).collect();
    let out = cosched_lab::assignment::partition_run(&m, &plan, &ctx).unwrap();
    assert_eq!(out.makespan as f64 * 1e-9, s.best.outcome.makespan_s);
    let (min, max) = s.values.iter().fold((f64::MAX, f64::MIN), |(a, b), &v| (a.min(v), b.max(v)));
    assert!(max > min * 1.001, "{min}..{max}");
    // The bound is named for partitions, and an estimate is never below the best measured.
    let b = cosched_lab::optimum::best_of(Objective::Throughput, None, Some(&s)).unwrap();
    assert!(b.kind.contains("partition"), "{}", b.kind);
    assert!(b.value >= objective_best(&s) - 1e-9);
}

fn objective_best(s: &cosched_lab::optimum::Sampled) -> f64 {
    Objective::Throughput.value(&s.best.outcome)
}
