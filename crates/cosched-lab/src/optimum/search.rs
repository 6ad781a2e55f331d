//! The searches of an [`Instance`]: exhaustive enumeration, pairwise
//! matching, grouping and random sampling with its POT estimate (see the
//! module above for what each finds).

use super::*;
use crate::assignment::{random_assignment, random_partition, random_static_partition};
use cosched_core::evt::{pot, Threshold};
use cosched_core::ids::CtxId;
use cosched_core::optimum::{grouping, min_cost_groups, place_pairs, Tree};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

impl<'a> Instance<'a> {
    /// Simulate every assignment, in parallel (results in input order); `tick` per run.
    fn evaluate_all(&self, all: &[Vec<u32>], tick: &(dyn Fn() + Sync)) -> Result<Vec<Outcome>, OptimumError> {
        all.par_iter()
            .map(|a| {
                let o = self.evaluate(a);
                tick();
                o
            })
            .collect()
    }

    /// The best (and worst) of every distinct co-schedule, in parallel;
    /// refused when there are more than `budget`. `tick` is called per run.
    pub fn exhaustive(
        &self,
        objective: Objective,
        budget: usize,
        tick: &(dyn Fn() + Sync),
    ) -> Result<Exhaustive, OptimumError> {
        if !self.enumerable() {
            self.static_only("the exhaustive search")?;
        }
        self.enumerate(self.family_tree(), self.idle, objective, budget, tick)
    }

    /// Distinct static co-schedules (each thread on a context of its own; the
    /// sub-family of [`Instance::bound`]'s without time-sharing; saturating).
    pub fn static_coschedules(&self) -> u128 {
        self.tree.count(self.threads())
    }

    /// [`Instance::exhaustive`] over the static co-schedules only (each thread
    /// on a context of its own), whatever the family: with an
    /// [`Instance::bound`] too large to enumerate, the exact part of its bound.
    pub fn exhaustive_static(
        &self,
        objective: Objective,
        budget: usize,
        tick: &(dyn Fn() + Sync),
    ) -> Result<Exhaustive, OptimumError> {
        self.static_only("the exhaustive search")?;
        self.enumerate(self.tree, false, objective, budget, tick)
    }

    /// Every candidate of `tree` simulated (`idle`: the tree is the idle-allowed family's).
    fn enumerate(
        &self,
        tree: Tree,
        idle: bool,
        objective: Objective,
        budget: usize,
        tick: &(dyn Fn() + Sync),
    ) -> Result<Exhaustive, OptimumError> {
        let count = tree.count(self.threads());
        if count > budget.min(MAX_BUDGET) as u128 {
            return Err(OptimumError::Budget { count, budget: budget.min(MAX_BUDGET) });
        }
        let mut all: Vec<Vec<u32>> = Vec::with_capacity(count as usize);
        tree.for_each(self.threads(), &mut |a| {
            all.push(a.to_vec());
            true
        });
        let outs = self.evaluate_all(&all, tick)?;
        let values: Vec<f64> = outs.iter().map(|o| objective.value(o)).collect();
        let pick = |want_best: bool| {
            let k = first_extreme(objective, &values, want_best);
            Found { assignment: all[k].clone(), outcome: outs[k].clone() }
        };
        Ok(Exhaustive { best: pick(true), worst: pick(false), evaluated: outs.len(), values, idle })
    }

    /// Jiang et al.'s pairwise co-scheduling: the co-run cost of every pair of
    /// jobs on one pair domain, the minimum-cost perfect pairing (idle
    /// partners where jobs are fewer than contexts), placed spread over the
    /// machine and simulated. Refused unless every job is single-threaded and
    /// some level of the machine holds exactly two contexts.
    pub fn matching(&self, tick: &(dyn Fn() + Sync)) -> Result<Matched, OptimumError> {
        self.static_only("pairwise matching")?;
        let level = self.tree.pair_level().ok_or(OptimumError::NoPairLevel)?;
        let jobs = self.plan.jobs.len();
        self.single_threaded("pairwise matching pairs")?;
        let ordered: Vec<(usize, usize)> =
            (0..jobs).flat_map(|i| (0..jobs).filter(move |&j| j != i).map(move |j| (i, j))).collect();
        let slow: Vec<f64> = ordered
            .par_iter()
            .map(|&(i, j)| {
                let d = self.corun_slowdown(i, j);
                tick();
                d
            })
            .collect::<Result<_, _>>()?;
        let mut degradation = vec![0.0; jobs * jobs];
        for (&(i, j), s) in ordered.iter().zip(&slow) {
            degradation[i * jobs + j] = s - 1.0;
        }
        let domains: Vec<[u32; 2]> =
            self.tree.spread_order(level).iter().map(|&d| [2 * d as u32, 2 * d as u32 + 1]).collect();
        let placed = place_pairs(&degradation, jobs, &domains)?;
        let outcome = self.evaluate(&placed.assignment)?;
        Ok(Matched {
            found: Found { assignment: placed.assignment, outcome },
            pairs: placed.pairs,
            pair_cost: placed.pair_cost,
            degradation,
            corun_runs: ordered.len(),
        })
    }

    /// Refuse a workload with a multi-threaded job: the co-run searches place jobs, one context each.
    fn single_threaded(&self, search: &'static str) -> Result<(), OptimumError> {
        match self.plan.jobs.iter().find(|j| j.threads.len() != 1) {
            Some(j) => Err(OptimumError::MultiThreaded { search, job: j.name.clone(), threads: j.threads.len() }),
            None => Ok(()),
        }
    }

    /// Job `i`'s turnaround beside job `j` on the two contexts of one pair
    /// domain, over its solo turnaround; `j` is stretched to outlast `i`.
    fn corun_slowdown(&self, i: usize, j: usize) -> Result<f64, OptimumError> {
        self.group_slowdown(i, &[j])
    }

    /// Job `i`'s turnaround beside the jobs `others` on the first contexts of
    /// one sharing domain, over its solo turnaround; each co-runner is
    /// stretched to outlast `i` (so `i` never runs beside fewer of them).
    fn group_slowdown(&self, i: usize, others: &[usize]) -> Result<f64, OptimumError> {
        let mut stretch: Vec<f64> = others.iter().map(|&j| (3.0 * self.solo_s[i] / self.solo_s[j]).max(1.0)).collect();
        let names: Vec<&str> = others.iter().map(|&j| self.plan.jobs[j].name.as_str()).collect();
        let name = format!("{}/group:{}+{}", self.plan.name, self.plan.jobs[i].name, names.join("+"));
        let first: Vec<CtxId> = (0..=others.len() as u32).map(CtxId).collect();
        for _ in 0..4 {
            let mut jobs = vec![(i, 1.0)];
            jobs.extend(others.iter().zip(&stretch).map(|(&j, &k)| (j, k)));
            let out = crate::assignment::static_run(self.machine, &self.plan.subset(&jobs, name.clone()), &first)?;
            if out.job_finish[1..].iter().all(|&f| f >= out.job_finish[0]) {
                return Ok(out.job_finish[0] as f64 * 1e-9 / self.solo_s[i]);
            }
            stretch.iter_mut().for_each(|k| *k *= 4.0);
        }
        Err(OptimumError::CoRunnersEnded {
            co_runners: names.iter().map(|n| n.to_string()).collect(),
            job: self.plan.jobs[i].name.clone(),
        })
    }

    /// Jiang et al.'s co-scheduling generalised to sharing domains of more
    /// than two contexts: the co-run cost of every group
    /// of jobs that fits one domain of the deepest shared level (the sum of
    /// its members' degradations, each measured beside the others), the
    /// exact minimum-cost grouping ([`min_cost_groups`]), placed spread over
    /// the machine and simulated. Refused unless every job is
    /// single-threaded, some level shares 2 to [`grouping::MAX_GROUP`]
    /// contexts, and there are at most [`grouping::MAX_JOBS`] jobs. Like the
    /// matching, it is optimal for the group costs, not for the machine: each
    /// cost is measured with the co-runners running throughout, and groups on
    /// different domains still share what their domains share.
    /// At most `budget` co-runs are simulated (else refused, naming the count).
    pub fn grouped(&self, budget: usize, tick: &(dyn Fn() + Sync)) -> Result<Grouped, OptimumError> {
        self.static_only("grouping")?;
        let level = self.tree.group_level().ok_or(OptimumError::NoGroupLevel)?;
        let size = self.tree.capacity(level);
        let jobs = self.plan.jobs.len();
        self.single_threaded("grouping places")?;
        if jobs > grouping::MAX_JOBS {
            return Err(cosched_core::optimum::SearchError::GroupingJobs { jobs, limit: grouping::MAX_JOBS }.into());
        }
        let count = grouping::corun_count(jobs, size);
        if count > budget.min(MAX_BUDGET) as u128 {
            return Err(OptimumError::GroupingBudget { count, jobs, size, budget: budget.min(MAX_BUDGET) });
        }
        // Every group of 2..=size jobs, each member measured beside the others.
        let groups: Vec<usize> =
            (1usize..1 << jobs).filter(|m| (2..=size).contains(&(m.count_ones() as usize))).collect();
        let runs: Vec<(usize, usize)> =
            groups.iter().flat_map(|&g| grouping::members(g).into_iter().map(move |i| (g, i))).collect();
        let slow: Vec<f64> = runs
            .par_iter()
            .map(|&(g, i)| {
                let others: Vec<usize> = grouping::members(g).into_iter().filter(|&j| j != i).collect();
                let d = self.group_slowdown(i, &others);
                tick();
                d
            })
            .collect::<Result<_, _>>()?;
        let mut cost = vec![0.0; 1 << jobs];
        for (&(g, _), s) in runs.iter().zip(&slow) {
            cost[g] += s - 1.0;
        }
        let domains = self.tree.contexts() / size;
        let (chosen, group_cost) = min_cost_groups(jobs, size, domains, &cost)?;
        // Larger groups first, domains in spread order.
        let mut placed: Vec<Vec<usize>> = chosen.iter().map(|&g| grouping::members(g)).collect();
        placed.sort_by_key(|g| (std::cmp::Reverse(g.len()), g[0]));
        let order = self.tree.spread_order(level);
        let mut assignment = vec![0u32; jobs];
        for (g, &d) in placed.iter().zip(&order) {
            for (k, &j) in g.iter().enumerate() {
                assignment[j] = (d * size + k) as u32;
            }
        }
        let outcome = self.evaluate(&assignment)?;
        Ok(Grouped {
            found: Found { assignment, outcome },
            size,
            groups: placed,
            group_cost,
            cost,
            corun_runs: runs.len(),
        })
    }

    /// `samples` uniformly random assignments (seeded; balanced time-shared
    /// partitions for a [`Instance::partitioned`] instance), simulated in
    /// parallel, the best kept and the POT estimate of the objective's best
    /// value (its sign flipped for ANTT, a minimum) at `confidence`.
    pub fn sampled(
        &self,
        objective: Objective,
        samples: usize,
        seed: u64,
        confidence: f64,
        tick: &(dyn Fn() + Sync),
    ) -> Result<Sampled, OptimumError> {
        if samples == 0 || samples > MAX_SAMPLES {
            return Err(OptimumError::Knob {
                knob: "samples",
                problem: format!("from 1 to {MAX_SAMPLES}, got {samples}"),
            });
        }
        let topo = self.machine.topology();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let draw = |rng: &mut ChaCha8Rng| {
            if self.idle {
                random_static_partition(&topo, self.threads(), rng).1
            } else if self.partitioned {
                random_partition(&topo, self.threads(), rng)
            } else {
                random_assignment(&topo, self.threads(), rng)
            }
        };
        let draws: Vec<Vec<u32>> = (0..samples).map(|_| draw(&mut rng).into_iter().map(|c| c.0).collect()).collect();
        let contexts = self.tree.contexts();
        let idle_draws = draws
            .iter()
            .filter(|a| {
                let mut used = vec![false; contexts];
                a.iter().for_each(|&c| used[c as usize] = true);
                used.iter().filter(|&&u| u).count() < contexts.min(a.len())
            })
            .count();
        let outs = self.evaluate_all(&draws, tick)?;
        let sign = if objective.maximise() { 1.0 } else { -1.0 };
        let values: Vec<f64> = outs.iter().map(|o| objective.value(o)).collect();
        let k = first_extreme(objective, &values, true);
        let signed: Vec<f64> = values.iter().map(|v| sign * v).collect();
        let estimate = pot(&signed, Threshold::Auto, confidence).map(|mut r| {
            if sign < 0.0 {
                r.upb = -r.upb;
                r.ci = (-r.ci.1, -r.ci.0);
                r.best = -r.best;
                r.threshold = -r.threshold;
            }
            r
        });
        Ok(Sampled {
            best: Found { assignment: draws[k].clone(), outcome: outs[k].clone() },
            samples,
            estimate: estimate.map_err(|e| e.to_string()),
            values,
            partitioned: self.partitioned,
            idle: self.idle,
            idle_draws,
        })
    }
}
