//! A workload planned for a machine: phase models derived, instances and
//! threads laid out, per-thread load imbalance drawn (seeded), locks numbered.

mod partners;
mod solo;

use crate::model::{LoadedLatency, PhaseModel};
use crate::spec::workload::{JobSpec, PhaseSpec};
use crate::spec::WorkloadSpec;
use crate::variation::{instance_seed, Draw};
use cosched_core::ids::{Nanos, SECOND};
use cosched_core::knob::flag_of;
use cosched_core::policy::{Demand, Resource};
use cosched_machine::ConfigError;
use cosched_machine::MachineSpec;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;
use std::ops::Range;

/// What a phase does besides computing.
#[derive(Clone, Debug)]
pub struct PhaseStep {
    /// Phase name.
    pub name: String,
    /// Instructions per thread per iteration (before the thread's jitter).
    pub instructions: f64,
    /// Lock number within the job instance (critical section), if any.
    pub lock: Option<u32>,
    /// I/O wait after the phase.
    pub io: Nanos,
    /// Declared progress period.
    pub pp: Option<Demand>,
}

/// A thread class of a job.
#[derive(Clone, Debug)]
pub struct ClassPlan {
    /// Its phases: indices into [`Plan::steps`] and [`Plan::models`].
    pub phases: Range<u32>,
    /// Iterations of the phase list.
    pub iterations: u32,
    /// Barrier after each iteration.
    pub barrier: bool,
}

/// A job instance.
#[derive(Clone, Debug)]
pub struct JobPlan {
    /// Instance-qualified name (`mcf#2` when there are several).
    pub name: String,
    /// Arrival time.
    pub arrival: Nanos,
    /// Its threads (indices into [`Plan::threads`]).
    pub threads: Range<u32>,
    /// Number of distinct locks it uses.
    pub n_locks: u32,
}

/// A thread.
#[derive(Clone, Copy, Debug)]
pub struct ThreadPlan {
    /// Job instance.
    pub job: u32,
    /// Class (index into [`Plan::classes`]).
    pub class: u32,
    /// Work multiplier from the job's jitter.
    pub scale: f64,
    /// The threads it exchanges data with.
    pub partners: Partners,
}

/// Whom a thread exchanges data with (from its job's sharing pattern).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Partners {
    /// Nobody.
    None,
    /// [`Plan::partners`]`[start..start + len]`: (thread, weight), weights summing to 1.
    List {
        /// First entry.
        start: u32,
        /// Entries.
        len: u32,
    },
    /// Every other member of group `id` (of `size` threads), equally.
    Group {
        /// Group id (unique in the plan).
        id: u32,
        /// Members.
        size: u32,
    },
}

/// A workload laid out for one machine.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Workload name.
    pub name: String,
    /// One model per class phase.
    pub models: Vec<PhaseModel>,
    /// One step description per class phase.
    pub steps: Vec<PhaseStep>,
    /// Classes.
    pub classes: Vec<ClassPlan>,
    /// Job instances.
    pub jobs: Vec<JobPlan>,
    /// Threads.
    pub threads: Vec<ThreadPlan>,
    /// Partner lists of [`Partners::List`] threads: (global thread index, weight).
    pub partners: Vec<(u32, f32)>,
    /// Groups handed out so far.
    pub(crate) n_groups: u32,
    /// Run-to-run variation it was drawn with (`--noise`; 0 = exact model).
    pub noise: f64,
}

/// Split `n` threads over classes by share (largest remainder, deterministic).
fn split_threads(n: u32, shares: &[f64]) -> Vec<u32> {
    let total: f64 = shares.iter().sum();
    let exact: Vec<f64> = shares.iter().map(|s| s / total * n as f64).collect();
    let mut got: Vec<u32> = exact.iter().map(|e| e.floor() as u32).collect();
    let mut left = n - got.iter().sum::<u32>();
    let mut order: Vec<usize> = (0..shares.len()).collect();
    order.sort_by(|&a, &b| (exact[b] - exact[b].floor()).total_cmp(&(exact[a] - exact[a].floor())).then(a.cmp(&b)));
    for &i in order.iter().cycle() {
        if left == 0 {
            break;
        }
        got[i] += 1;
        left -= 1;
    }
    got
}

impl Plan {
    /// Lay out `w` on `m` with the exact ground truth (no run-to-run
    /// variation). `threads` overrides the thread count of scalable jobs.
    pub fn new(
        w: &WorkloadSpec,
        m: &MachineSpec,
        threads: Option<u32>,
        seed: u64,
        file: &str,
    ) -> Result<Plan, ConfigError> {
        Plan::varied(w, m, threads, seed, file, 0.0)
    }

    /// Lay out `w` on `m` as one run of a real machine would find it: each
    /// job instance's ground truth varied by seeded draws at `noise` times the
    /// published magnitudes ([`crate::variation`]; 0 = exact).
    pub fn varied(
        w: &WorkloadSpec,
        m: &MachineSpec,
        threads: Option<u32>,
        seed: u64,
        file: &str,
        noise: f64,
    ) -> Result<Plan, ConfigError> {
        crate::variation::check_noise(noise).map_err(|e| ConfigError::new(file, flag_of("noise"), e.to_string()))?;
        let max = crate::spec::workload::MAX_THREADS;
        if threads == Some(0) || threads > Some(max) {
            return Err(ConfigError::new(file, flag_of("threads"), format!("must be from 1 to {max}")));
        }
        if let Some(t) = threads.filter(|_| !w.jobs.iter().any(|j| j.is_scalable())) {
            return Err(ConfigError::new(
                file,
                flag_of("threads"),
                format!(
                    "workload `{}` has no multi-threaded job (each of its jobs runs one thread), so {} {t} \
                     would change nothing; for {t} copies of its jobs use {} {t}",
                    w.name,
                    flag_of("threads"),
                    flag_of("copies")
                ),
            ));
        }
        let mut total: u64 = 0;
        for job in &w.jobs {
            let n = match threads {
                Some(t) if job.is_scalable() => t,
                _ => job.n_threads(),
            };
            total += n as u64 * job.instances as u64;
        }
        if total > max as u64 {
            return Err(ConfigError::new(file, "job", format!("{total} threads in all: at most {max} supported")));
        }
        let lat = LoadedLatency::of(&m.memory);
        let mut plan = Plan {
            name: w.name.clone(),
            models: vec![],
            steps: vec![],
            classes: vec![],
            jobs: vec![],
            threads: vec![],
            partners: vec![],
            n_groups: 0,
            noise,
        };
        for (j, job) in w.jobs.iter().enumerate() {
            let n = match threads {
                Some(t) if job.is_scalable() => t,
                _ => job.n_threads(),
            };
            // Without variation the instances of a job share its classes (and so its
            // models); with it each instance draws its own ground truth.
            let mut shared: Option<(Vec<u32>, Vec<u32>, u32)> = None;
            for inst in 0..job.instances {
                let draw = (noise > 0.0).then(|| Draw::instance(noise, seed, j, inst));
                let (counts, class_ids, n_locks) = match (&shared, draw) {
                    (Some(c), None) => c.clone(),
                    (_, draw) => {
                        let c = plan.add_classes(job, j, n, m, &lat, file, draw.as_ref())?;
                        shared = Some(c.clone());
                        c
                    }
                };
                plan.add_instance(job, j, inst, seed, &counts, &class_ids, n_locks, noise);
            }
        }
        Ok(plan)
    }

    /// The classes of `job` (with `n` threads per instance), their models
    /// drawn with `draw` when given: (threads per class, class ids, locks).
    #[allow(clippy::too_many_arguments)]
    fn add_classes(
        &mut self,
        job: &JobSpec,
        j: usize,
        n: u32,
        m: &MachineSpec,
        lat: &LoadedLatency,
        file: &str,
        draw: Option<&Draw>,
    ) -> Result<(Vec<u32>, Vec<u32>, u32), ConfigError> {
        let classes: Vec<(String, f64, &Vec<PhaseSpec>)> = if job.classes.is_empty() {
            vec![("main".into(), 1.0, &job.phases)]
        } else {
            job.classes.iter().map(|c| (c.name.clone(), c.share, &c.phases)).collect()
        };
        let counts = split_threads(n, &classes.iter().map(|c| c.1).collect::<Vec<_>>());
        let mut locks = BTreeMap::new();
        let mut class_ids = vec![];
        for (k, ((cname, _, phases), &cnt)) in classes.iter().zip(&counts).enumerate() {
            let first = self.models.len() as u32;
            for (p, ph) in phases.iter().enumerate() {
                let at = if job.classes.is_empty() {
                    format!("job[{j}].phase[{p}]")
                } else {
                    format!("job[{j}].class[{k}].phase[{p}]")
                };
                let mut model = PhaseModel::new(ph, m, lat, cnt, file, &at)?;
                model.comm_apki = ph.comm_apki.unwrap_or(job.sharing.as_ref().map_or(0.0, |s| s.apki));
                if let Some(d) = draw {
                    model.vary(d.core, d.miss, m);
                }
                self.models.push(model);
                let nl = locks.len() as u32;
                self.steps.push(PhaseStep {
                    name: format!("{cname}/{}", ph.name),
                    instructions: ph.instructions / cnt.max(1) as f64,
                    lock: ph.lock.as_ref().map(|l| *locks.entry(l.clone()).or_insert(nl)),
                    io: (ph.io_ms * 1e6).round() as Nanos,
                    pp: ph.pp.as_ref().map(|pp| Demand {
                        resource: pp.resource,
                        amount: match pp.resource {
                            Resource::Llc => pp.amount * 1024.0 * 1024.0,
                            Resource::MemBw => pp.amount * 1e9,
                        },
                        reuse: pp.reuse,
                    }),
                });
            }
            class_ids.push(self.classes.len() as u32);
            self.classes.push(ClassPlan {
                phases: first..self.models.len() as u32,
                iterations: job.n_iterations(),
                barrier: job.barrier,
            });
        }
        Ok((counts, class_ids, locks.len() as u32))
    }

    #[allow(clippy::too_many_arguments)]
    fn add_instance(
        &mut self,
        job: &JobSpec,
        j: usize,
        inst: u32,
        seed: u64,
        counts: &[u32],
        class_ids: &[u32],
        n_locks: u32,
        noise: f64,
    ) {
        let mut rng = ChaCha8Rng::seed_from_u64(instance_seed(seed, j, inst));
        let mut os = (noise > 0.0).then(|| crate::variation::OsNoise::new(noise, seed, j, inst));
        let id = self.jobs.len() as u32;
        let first = self.threads.len() as u32;
        for (&cnt, &class) in counts.iter().zip(class_ids) {
            for _ in 0..cnt {
                let mut scale = if job.jitter > 0.0 { 1.0 + job.jitter * rng.gen_range(-1.0..1.0) } else { 1.0 };
                if let Some(o) = os.as_mut() {
                    scale *= o.next_factor();
                }
                self.threads.push(ThreadPlan { job: id, class, scale, partners: Partners::None });
            }
        }
        if let Some(sh) = &job.sharing {
            self.add_partners(sh, first, counts);
        }
        let name = if job.instances > 1 { format!("{}#{}", job.name, inst) } else { job.name.clone() };
        self.jobs.push(JobPlan {
            name,
            arrival: (job.arrival_s * SECOND as f64).round() as Nanos,
            threads: first..self.threads.len() as u32,
            n_locks,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::split_threads;

    #[test]
    fn thread_split_is_exact_and_proportional() {
        assert_eq!(split_threads(10, &[1.0, 1.0]), vec![5, 5]);
        assert_eq!(split_threads(7, &[0.5, 0.25, 0.25]), vec![3, 2, 2]);
        assert_eq!(split_threads(1, &[1.0, 1.0]).iter().sum::<u32>(), 1);
    }
}
