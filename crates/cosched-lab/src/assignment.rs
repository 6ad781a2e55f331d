//! Thread assignments (statistical thread assignment paper, §3-5): uniform
//! random assignments of a workload's threads to hardware contexts, their
//! performance measured by simulating them under `static`, and cheap
//! predictors for sample pruning (SP-POT).

use cosched_core::ids::{CtxId, SECOND};
use cosched_core::Topology;
use cosched_machine::MachineSpec;
use cosched_policies::{self as policies, PolicyOptions};
use cosched_sim::engine::{run, Shared, SimError, SimOptions};
use cosched_sim::Plan;
use rand::Rng;

/// A uniformly random assignment of `threads` threads to distinct contexts
/// (every context distinguishable: placements at strand, pipe, core and chip
/// level all differ). Needs `threads ≤ contexts`.
pub fn random_assignment(topo: &Topology, threads: usize, rng: &mut impl Rng) -> Vec<CtxId> {
    let mut ctx: Vec<u32> = (0..topo.n_contexts() as u32).collect();
    for i in 0..threads.min(ctx.len()) {
        let j = rng.gen_range(i..ctx.len());
        ctx.swap(i, j);
    }
    ctx.truncate(threads);
    ctx.into_iter().map(CtxId).collect()
}

/// A uniformly random balanced partition of `threads` threads over the
/// contexts of `topo` (more threads than contexts): the threads in a random
/// order dealt over the contexts in a random order, so every context holds
/// ⌊threads/contexts⌋ or ⌈threads/contexts⌉ of them. The statistical study's
/// random assignment (§3) carried to an oversubscribed workload, where
/// threads sharing a context take turns.
pub fn random_partition(topo: &Topology, threads: usize, rng: &mut impl Rng) -> Vec<CtxId> {
    use rand::seq::SliceRandom;
    let n = topo.n_contexts().max(1);
    let ctx = random_assignment(topo, n, rng);
    let mut order: Vec<usize> = (0..threads).collect();
    order.shuffle(rng);
    let mut out = vec![CtxId(0); threads];
    for (k, &t) in order.iter().enumerate() {
        out[t] = ctx[k % n];
    }
    out
}

/// The shapes [`random_static_partition`] draws the contexts of a partition
/// from: every context, one context of each core (SMT siblings idle), one of
/// each LLC domain, or a uniformly random subset of uniformly random size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Every context (the balanced partitions and static co-schedules of the papers' families).
    Every,
    /// One context of each core, the others idle.
    PerCore,
    /// One context of each LLC domain, the others idle.
    PerLlc,
    /// `k` contexts, `k` uniform in 1..=contexts, the subset uniform.
    Subset,
}

impl Shape {
    /// The shapes that differ on `topo` (one context per core only with SMT
    /// or pipes, one per LLC domain only where a domain holds several cores).
    pub fn available(topo: &Topology) -> Vec<Shape> {
        let mut shapes = vec![Shape::Every];
        if (topo.n_cores as usize) < topo.n_contexts() {
            shapes.push(Shape::PerCore);
        }
        if topo.n_llc < topo.n_cores {
            shapes.push(Shape::PerLlc);
        }
        shapes.push(Shape::Subset);
        shapes
    }
}

/// A random time-shared static partition with idle contexts allowed: a shape
/// drawn uniformly from [`Shape::available`], its contexts drawn, and the
/// threads in a random order dealt over them in a random order (each holds
/// ⌊threads/k⌋ or ⌈threads/k⌉; with no more threads than contexts, each
/// thread on a context of its own and the rest idle). Every static partition
/// of the family the bound beside a comparison names (`crate::optimum`) has a
/// positive probability, and the papers' families are the shape `Every`.
pub fn random_static_partition(topo: &Topology, threads: usize, rng: &mut impl Rng) -> (Shape, Vec<CtxId>) {
    use rand::seq::SliceRandom;
    let shapes = Shape::available(topo);
    let shape = shapes[rng.gen_range(0..shapes.len())];
    let n = topo.n_contexts();
    let mut chosen: Vec<u32> = match shape {
        Shape::Every => (0..n as u32).collect(),
        Shape::PerCore | Shape::PerLlc => {
            // One context per unit (core or domain), uniform among the unit's contexts.
            let unit = |c: usize| if shape == Shape::PerCore { topo.contexts[c].core } else { topo.contexts[c].llc };
            let units = if shape == Shape::PerCore { topo.n_cores } else { topo.n_llc } as usize;
            let mut members: Vec<Vec<u32>> = vec![vec![]; units];
            for c in 0..n {
                members[unit(c) as usize].push(c as u32);
            }
            members.iter().filter(|m| !m.is_empty()).map(|m| m[rng.gen_range(0..m.len())]).collect()
        }
        Shape::Subset => {
            let k = rng.gen_range(1..=n);
            let mut all: Vec<u32> = (0..n as u32).collect();
            all.partial_shuffle(rng, k);
            all.truncate(k);
            all
        }
    };
    chosen.shuffle(rng);
    let mut order: Vec<usize> = (0..threads).collect();
    order.shuffle(rng);
    let k = chosen.len().max(1);
    let mut out = vec![CtxId(0); threads];
    for (i, &t) in order.iter().enumerate() {
        out[t] = CtxId(chosen[i % k]);
    }
    (shape, out)
}

/// One run of `plan` on `m` under a time-shared static partition: thread t
/// only on context `assignment[t]`, the threads of a context taking turns of
/// the round-robin quantum (`static`'s default, SLITS §5.2's 4 ms).
pub fn partition_run(m: &MachineSpec, plan: &Plan, assignment: &[CtxId]) -> Result<cosched_sim::RunOutput, SimError> {
    partition_run_sharing(m, plan, assignment, &Shared::default())
}

/// [`partition_run`], sharing contention solutions with the other runs of `m` and `plan` that hold `shared`.
pub fn partition_run_sharing(
    m: &MachineSpec,
    plan: &Plan,
    assignment: &[CtxId],
    shared: &Shared,
) -> Result<cosched_sim::RunOutput, SimError> {
    let o = PolicyOptions { assignment: Some(assignment.to_vec()), ..Default::default() };
    let mut policy =
        policies::make("static", &o).map_err(|error| SimError::Policy { policy: "static".into(), error })?;
    run(m, plan, &mut *policy, &SimOptions { shared: shared.clone(), ..SimOptions::default() }, None)
}

/// One run of `plan` on `m` with thread t pinned to context `assignment[t]`
/// for the whole run (`static` policy, no time slicing): what every
/// assignment and co-schedule measurement runs (also `crate::optimum`).
pub fn static_run(m: &MachineSpec, plan: &Plan, assignment: &[CtxId]) -> Result<cosched_sim::RunOutput, SimError> {
    static_run_sharing(m, plan, assignment, &Shared::default())
}

/// [`static_run`], sharing contention solutions with the other runs of `m` and `plan` that hold `shared`.
pub fn static_run_sharing(
    m: &MachineSpec,
    plan: &Plan,
    assignment: &[CtxId],
    shared: &Shared,
) -> Result<cosched_sim::RunOutput, SimError> {
    let o = PolicyOptions { assignment: Some(assignment.to_vec()), quantum: 1000 * SECOND, ..Default::default() };
    let mut policy =
        policies::make("static", &o).map_err(|error| SimError::Policy { policy: "static".into(), error })?;
    run(m, plan, &mut *policy, &SimOptions { shared: shared.clone(), ..SimOptions::default() }, None)
}

/// Performance of an assignment: instructions retired per second of makespan
/// (GIPS; for the packet-processing workloads, proportional to packets per second).
pub fn measure(m: &MachineSpec, plan: &Plan, assignment: &[CtxId]) -> Result<f64, SimError> {
    let out = static_run(m, plan, assignment)?;
    let instr: f64 = (0..plan.jobs.len()).map(|j| plan.job_instructions(j)).sum();
    Ok(instr / (out.makespan as f64 * 1e-9) / 1e9)
}

/// Measure `assignment` in a run of its own: the machine and `w` as run `run`
/// finds them (run-to-run variation `noise`; 0 = the exact `plan`), so repeated
/// measurements differ as on a real machine (EVT §4's populations are continuous).
pub fn measure_in_run(
    m: &MachineSpec,
    w: &cosched_sim::WorkloadSpec,
    plan: &Plan,
    assignment: &[CtxId],
    run: u64,
    noise: f64,
) -> Result<f64, SimError> {
    if noise > 0.0 {
        let pi = Plan::varied(w, m, None, run, &w.name, noise)?;
        measure(&cosched_sim::variation::machine(m, noise, run), &pi, assignment)
    } else {
        measure(m, plan, assignment)
    }
}

/// The run number of sample `i` of a sample drawn with `seed`.
pub fn sample_run(seed: u64, i: usize) -> u64 {
    seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ i as u64
}

/// A cheap model of an assignment's performance, used to prune samples (SP-POT, §5).
pub trait Predictor {
    /// Predicted performance (larger is better; only the order matters).
    fn predict(&self, plan: &Plan, topo: &Topology, assignment: &[CtxId]) -> f64;
}

/// A contention-model predictor from solo profiles only: a thread's speed is
/// its solo IPC divided by the over-subscription of its pipe's issue slots
/// (sum of solo IPCs against the width of one) and by its core's L1-port
/// pressure (`max(1 + κ(U² − u²), U)`, U the core's summed solo L1 rate
/// against one port, κ = 0.4: the convex form of `docs/model.md`); the job
/// ends with its slowest thread, so the prediction is total work over the
/// longest predicted thread time. Caches and memory, shared alike by every
/// assignment on one chip, are left out.
pub struct SimplePredictor;

impl Predictor for SimplePredictor {
    fn predict(&self, plan: &Plan, topo: &Topology, a: &[CtxId]) -> f64 {
        let model = |t: usize| &plan.models[plan.classes[plan.threads[t].class as usize].phases.start as usize];
        let work = |t: usize| {
            let tp = plan.threads[t];
            let c = &plan.classes[tp.class as usize];
            (c.phases.start..c.phases.end).map(|p| plan.steps[p as usize].instructions).sum::<f64>()
                * c.iterations as f64
                * tp.scale
        };
        let mut pipe = vec![0.0; topo.n_pipes as usize];
        let mut core = vec![0.0; topo.n_cores as usize];
        for (t, c) in a.iter().enumerate() {
            let m = model(t);
            let info = topo.ctx(*c);
            pipe[info.pipe as usize] += m.ipc_alone;
            core[info.core as usize] += m.l1_rate_alone();
        }
        let mut longest: f64 = 0.0;
        let mut total = 0.0;
        for (t, c) in a.iter().enumerate() {
            let info = topo.ctx(*c);
            let m = model(t);
            let (u_core, u) = (core[info.core as usize], m.l1_rate_alone());
            let l1 = (1.0 + 0.4 * (u_core * u_core - u * u)).max(u_core).max(1.0);
            let speed = m.ipc_alone / (pipe[info.pipe as usize].max(1.0) * l1);
            longest = longest.max(work(t) / speed);
            total += work(t);
        }
        total / longest
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn random_assignments_are_injective_and_cover_every_context() {
        let topo = Topology::regular(1, 1, 8, 2, 4);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut seen = vec![0u32; 64];
        for _ in 0..2000 {
            let a = random_assignment(&topo, 24, &mut rng);
            let mut s = a.clone();
            s.sort();
            s.dedup();
            assert_eq!(s.len(), 24);
            for c in a {
                seen[c.idx()] += 1;
            }
        }
        // uniform: each context used 2000·24/64 = 750 times on average
        assert!(seen.iter().all(|&k| (600..900).contains(&k)), "{seen:?}");
    }

    #[test]
    fn random_partitions_are_balanced_and_uniform() {
        let topo = Topology::regular(1, 1, 3, 1, 2);
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let mut seen = vec![[0u32; 6]; 14];
        for _ in 0..3000 {
            let a = random_partition(&topo, 14, &mut rng);
            let mut load = [0usize; 6];
            for (t, c) in a.iter().enumerate() {
                load[c.idx()] += 1;
                seen[t][c.idx()] += 1;
            }
            // 14 threads on 6 contexts: two or three each.
            assert!(load.iter().all(|&l| l == 2 || l == 3), "{load:?}");
        }
        // Every thread on every context about 3000/6 = 500 times.
        assert!(seen.iter().flatten().all(|&k| (420..580).contains(&k)), "{seen:?}");
    }
}
