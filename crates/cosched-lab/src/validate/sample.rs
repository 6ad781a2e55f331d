//! The points `cosched validate` measures by sampling: random thread
//! assignments (the statistical study's spread and load-balancing loss),
//! seeds of the run-to-run variation (RDA's 2%), and the sets of threads
//! a run has co-running (SLITS Fig. 1).

use crate::assignment::{measure, random_assignment};
use crate::error::RunError;
use crate::paper::efs_bench::secs;
use crate::paper::Trial;
use cosched_core::topology::Topology;
use cosched_core::CtxId;
use cosched_machine::ConfigError;
use cosched_machine::MachineSpec;
use cosched_policies::{self as policies, PolicyOptions};
use cosched_sim::engine::{run, SimOptions};
use cosched_sim::{presets, Plan};
use rand::SeedableRng;
use rayon::prelude::*;
use std::collections::HashSet;

/// Points run on the exact model: one run, no run-to-run variation.
pub(super) const EXACT: Trial = Trial { seed: 1, noise: 0.0 };

/// A workload preset's plan, one context per thread (the statistical study
/// pins every thread).
fn pinned_plan(m: &MachineSpec, name: &str) -> Result<(Plan, Topology), RunError> {
    let w = presets::workload(name).map_err(RunError::from)?;
    let plan = Plan::new(&w, m, None, 1, name).map_err(RunError::from)?;
    let topo = m.topology();
    if plan.threads.len() > topo.n_contexts() {
        return Err(RunError::Config(ConfigError::whole(
            name,
            format!(
                "{} threads on {} contexts of {}: an assignment needs one context per thread",
                plan.threads.len(),
                topo.n_contexts(),
                m.name
            ),
        )));
    }
    Ok((plan, topo))
}

/// Performance of `samples` uniformly random assignments (seeded, exact model).
fn sampled(m: &MachineSpec, plan: &Plan, topo: &Topology, samples: u32) -> Result<Vec<f64>, RunError> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let all: Vec<_> = (0..samples).map(|_| random_assignment(topo, plan.threads.len(), &mut rng)).collect();
    Ok(all.par_iter().map(|a| measure(m, plan, a)).collect::<Result<_, _>>()?)
}

/// Best over worst performance, less 1, among `samples` random assignments
/// of workload `name` (statistical thread assignment §3).
pub(super) fn assignment_spread(m: &MachineSpec, name: &str, samples: u32) -> Result<f64, RunError> {
    let (plan, topo) = pinned_plan(m, name)?;
    let perf = sampled(m, &plan, &topo, samples)?;
    let (lo, hi) = perf.iter().fold((f64::MAX, f64::MIN), |(lo, hi), &p| (lo.min(p), hi.max(p)));
    Ok(hi / lo - 1.0)
}

/// The contexts in the order a load balancer fills them: one thread per
/// core (across LLCs first) before any core gets a second pipe's thread,
/// one per pipe before any pipe gets a second strand (the even spread of
/// Linux's and Solaris's balancers the statistical study compares with).
pub(super) fn balanced_order(topo: &Topology) -> Vec<CtxId> {
    use std::collections::HashMap;
    // Ranks in order of first appearance: a context's strand within its pipe,
    // its pipe among its core's, its core among its LLC domain's.
    let (mut strands, mut pipes_of_core, mut pipe_rank) = (HashMap::new(), HashMap::new(), HashMap::new());
    let (mut cores_of_llc, mut core_rank) = (HashMap::new(), HashMap::new());
    let mut keyed: Vec<((usize, usize, usize, u32), CtxId)> = topo
        .contexts
        .iter()
        .enumerate()
        .map(|(c, x)| {
            let seen = strands.entry(x.pipe).or_insert(0usize);
            let strand = *seen;
            *seen += 1;
            let pipe = *pipe_rank.entry(x.pipe).or_insert_with(|| {
                let n = pipes_of_core.entry(x.core).or_insert(0usize);
                *n += 1;
                *n - 1
            });
            let core = *core_rank.entry(x.core).or_insert_with(|| {
                let n = cores_of_llc.entry(x.llc).or_insert(0usize);
                *n += 1;
                *n - 1
            });
            ((strand, pipe, core, x.llc), CtxId(c as u32))
        })
        .collect();
    keyed.sort_by_key(|k| k.0);
    keyed.into_iter().map(|k| k.1).collect()
}

/// 1 − performance of the load-balanced assignment of workload `name` over
/// the best of `samples` random ones (statistical thread assignment §1).
pub(super) fn balancer_loss(m: &MachineSpec, name: &str, samples: u32) -> Result<f64, RunError> {
    let (plan, topo) = pinned_plan(m, name)?;
    let best = sampled(m, &plan, &topo, samples)?.into_iter().fold(f64::MIN, f64::max);
    let balanced: Vec<CtxId> = balanced_order(&topo).into_iter().take(plan.threads.len()).collect();
    let bal = measure(m, &plan, &balanced)?;
    Ok((1.0 - bal / best).max(0.0))
}

/// Relative standard deviation of workload `name`'s makespan under `cfs`
/// over seeds 1..=`seeds` of the run-to-run variation at `--noise 1`.
pub(super) fn run_to_run_sd(m: &MachineSpec, name: &str, seeds: u32) -> Result<f64, RunError> {
    let w = presets::workload(name).map_err(RunError::from)?;
    let t: Vec<f64> = (1..=seeds as u64)
        .into_par_iter()
        .map(|seed| {
            let t = Trial { seed, noise: 1.0 };
            let mt = t.machine(m);
            let p = t.plan(&w, &mt)?;
            Ok(secs(t.run(&mt, &p, "cfs", &PolicyOptions::default())?.makespan))
        })
        .collect::<Result<_, RunError>>()?;
    let n = t.len() as f64;
    let mean = t.iter().sum::<f64>() / n;
    Ok((t.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt() / mean)
}

/// C(n, k) as a float (SLITS Fig. 1's count of thread permutations, footnote 9).
pub(super) fn choose(n: u32, k: u32) -> f64 {
    (0..k.min(n - k.min(n))).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

/// Largest share, %, over `g-rrs` and `random`, of the C(`threads`,
/// contexts) sets of threads that a run of `name` with `threads` threads
/// ever has running at once, one per context (SLITS Fig. 1).
pub(super) fn explored_permutations(m: &MachineSpec, name: &str, threads: u32) -> Result<f64, RunError> {
    let w = presets::workload(name).map_err(RunError::from)?;
    let plan = EXACT.plan_threads(&w, m, Some(threads))?;
    let contexts = m.n_contexts();
    let mut best: f64 = 0.0;
    for policy in ["g-rrs", "random"] {
        let mut edges: Vec<(u64, bool, u32)> = vec![];
        let mut record = |s: cosched_machine::trace::TraceSlice| {
            edges.push((s.end, false, s.thread));
            edges.push((s.start, true, s.thread));
        };
        let opts = PolicyOptions::default();
        run(m, &plan, &mut *policies::make(policy, &opts)?, &SimOptions::default(), Some(&mut record))
            .map_err(RunError::from)?;
        // Ends before starts at one instant: a switch is not a moment with both running.
        edges.sort_unstable();
        let words = (plan.threads.len()).div_ceil(64);
        let mut running = vec![0u64; words];
        let mut count = 0usize;
        let mut seen: HashSet<Vec<u64>> = HashSet::new();
        for (i, &(at, starts, t)) in edges.iter().enumerate() {
            let bit = 1u64 << (t % 64);
            if starts {
                running[t as usize / 64] |= bit;
                count += 1;
            } else {
                running[t as usize / 64] &= !bit;
                count -= 1;
            }
            let instant_done = edges.get(i + 1).is_none_or(|e| e.0 != at);
            if instant_done && count == contexts {
                seen.insert(running.clone());
            }
        }
        best = best.max(seen.len() as f64 * 100.0 / choose(threads, contexts as u32));
    }
    Ok(best)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choose_is_pascal() {
        assert_eq!(choose(5, 2), 10.0);
        assert_eq!(choose(4, 4), 1.0);
        // SLITS footnote 9: C(32, 16) = 601,080,390 (the paper prints 6,010,080,390).
        assert!((choose(32, 16) - 601_080_390.0).abs() < 1.0);
    }

    #[test]
    fn the_balancer_fills_cores_then_pipes_then_strands() {
        let m = cosched_machine::presets::machine("ultrasparc-t2").unwrap();
        let topo = m.topology();
        let order = balanced_order(&topo);
        assert_eq!(order.len(), topo.n_contexts());
        let c = |i: usize| *topo.ctx(order[i]);
        let cores: HashSet<u32> = (0..8).map(|i| c(i).core).collect();
        assert_eq!(cores.len(), 8, "the first eight threads go to eight cores");
        let pipes: HashSet<u32> = (0..16).map(|i| c(i).pipe).collect();
        assert_eq!(pipes.len(), 16, "the first sixteen to sixteen pipes");
        let all: HashSet<CtxId> = order.iter().copied().collect();
        assert_eq!(all.len(), topo.n_contexts(), "every context once");
    }
}
