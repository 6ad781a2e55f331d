//! A workload planned for a machine: phase models derived, instances and
//! threads laid out, per-thread load imbalance drawn (seeded), locks numbered.

use crate::model::{LoadedLatency, PhaseModel};
use crate::spec::workload::{JobSpec, Pattern, PhaseSpec, SharingSpec};
use crate::spec::WorkloadSpec;
use crate::variation::Draw;
use cosched_core::ids::{Nanos, SECOND};
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
    n_groups: u32,
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

/// The seed of one job instance's RNG, so solo runs draw what the mix drew.
pub(crate) fn instance_seed(seed: u64, job: usize, instance: u32) -> u64 {
    let mut z = seed ^ ((job as u64) << 32 | instance as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
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
        crate::variation::check_noise(noise).map_err(|e| ConfigError::new(file, "--noise", e))?;
        let max = crate::spec::workload::MAX_THREADS;
        if threads == Some(0) || threads > Some(max) {
            return Err(ConfigError::new(file, "--threads", format!("must be from 1 to {max}")));
        }
        if let Some(t) = threads.filter(|_| !w.jobs.iter().any(|j| j.is_scalable())) {
            return Err(ConfigError::new(
                file,
                "--threads",
                format!(
                    "workload `{}` has no multi-threaded job (each of its jobs runs one thread), so --threads {t} \
                     would change nothing; for {t} copies of its jobs use --copies {t}",
                    w.name
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

    /// Partners of the threads `first..` of one instance (classes in order,
    /// `counts` threads each) under pattern `sh`.
    fn add_partners(&mut self, sh: &SharingSpec, first: u32, counts: &[u32]) {
        let n: u32 = counts.iter().sum();
        let lists: Vec<Vec<u32>> = match sh.pattern {
            Pattern::AllToAll | Pattern::Groups => {
                let size = if sh.pattern == Pattern::Groups { sh.size.unwrap_or(2).min(n) } else { n };
                for k in 0..n {
                    let start = k / size.max(1) * size;
                    let members = size.min(n - start);
                    let id = self.n_groups + k / size.max(1);
                    self.threads[(first + k) as usize].partners = Partners::Group { id, size: members };
                }
                self.n_groups += n.div_ceil(size.max(1));
                return;
            }
            Pattern::Ring => (0..n).map(|k| if n < 2 { vec![] } else { vec![(k + n - 1) % n, (k + 1) % n] }).collect(),
            Pattern::Stencil => {
                let rows = (1..=n).filter(|r| n.is_multiple_of(*r) && r * r <= n).max().unwrap_or(1);
                let cols = n / rows;
                (0..n)
                    .map(|k| {
                        let (r, c) = (k / cols, k % cols);
                        let mut v = vec![];
                        if r > 0 {
                            v.push(k - cols);
                        }
                        if r + 1 < rows {
                            v.push(k + cols);
                        }
                        if c > 0 {
                            v.push(k - 1);
                        }
                        if c + 1 < cols {
                            v.push(k + 1);
                        }
                        v
                    })
                    .collect()
            }
            Pattern::Pipeline => {
                let starts: Vec<u32> =
                    counts.iter().scan(0, |acc, &c| Some(std::mem::replace(acc, *acc + c))).collect();
                let mut out = vec![];
                for (st, &cnt) in counts.iter().enumerate() {
                    for q in 0..cnt {
                        let mut v = vec![];
                        for nb in [st.checked_sub(1), Some(st + 1).filter(|&x| x < counts.len())].into_iter().flatten()
                        {
                            if counts[nb] > 0 {
                                v.push(starts[nb] + (q as u64 * counts[nb] as u64 / cnt as u64) as u32);
                            }
                        }
                        out.push(v);
                    }
                }
                out
            }
        };
        for (k, mut v) in lists.into_iter().enumerate() {
            v.sort_unstable();
            v.dedup();
            v.retain(|&j| j != k as u32);
            let start = self.partners.len() as u32;
            let w = 1.0 / v.len().max(1) as f32;
            self.partners.extend(v.iter().map(|&j| (first + j, w)));
            let len = v.len() as u32;
            self.threads[first as usize + k].partners =
                if len == 0 { Partners::None } else { Partners::List { start, len } };
        }
    }

    /// The same plan holding only job instance `job`, arriving at time 0:
    /// the solo reference run of that job.
    pub fn solo(&self, job: usize) -> Plan {
        let jp = &self.jobs[job];
        let base = jp.threads.start;
        let mut partners = vec![];
        // Only this job's classes and their phases are copied (renumbered), so
        // the solo runs of a workload cost O(its size), not O(jobs²).
        let (mut models, mut steps, mut classes) = (vec![], vec![], vec![]);
        let mut class_of: BTreeMap<u32, u32> = BTreeMap::new();
        let threads = self.threads[base as usize..jp.threads.end as usize]
            .iter()
            .map(|t| {
                let class = *class_of.entry(t.class).or_insert_with(|| {
                    let c = &self.classes[t.class as usize];
                    let (lo, hi) = (c.phases.start as usize, c.phases.end as usize);
                    let start = steps.len() as u32;
                    steps.extend_from_slice(&self.steps[lo..hi]);
                    models.extend_from_slice(&self.models[lo..hi]);
                    classes.push(ClassPlan { phases: start..steps.len() as u32, ..c.clone() });
                    classes.len() as u32 - 1
                });
                let p = match t.partners {
                    Partners::List { start, len } => {
                        let at = partners.len() as u32;
                        partners.extend(
                            self.partners[start as usize..(start + len) as usize].iter().map(|&(j, w)| (j - base, w)),
                        );
                        Partners::List { start: at, len }
                    }
                    other => other,
                };
                ThreadPlan { job: 0, class, partners: p, ..*t }
            })
            .collect::<Vec<_>>();
        Plan {
            name: format!("{}/solo:{}", self.name, jp.name),
            models,
            steps,
            classes,
            jobs: vec![JobPlan {
                name: jp.name.clone(),
                arrival: 0,
                threads: 0..threads.len() as u32,
                n_locks: jp.n_locks,
            }],
            threads,
            partners,
            n_groups: self.n_groups,
            noise: self.noise,
        }
    }

    /// Whole-run solo rates of a job instance over all its phases: IPC alone
    /// (total instructions / total solo cycles, the harmonic mean of the phases'
    /// IPC weighted by instructions) and memory lines (misses and write-backs)
    /// per instruction. Threads are summed as if each ran alone, so this is the
    /// single-threaded program's profile (Perf&Fair §6.1's solo IPC and bandwidth).
    pub fn solo_rates(&self, job: usize) -> (f64, f64) {
        let jp = &self.jobs[job];
        let (mut instr, mut cycles, mut lines) = (0.0, 0.0, 0.0);
        for t in jp.threads.clone() {
            let tp = self.threads[t as usize];
            let c = &self.classes[tp.class as usize];
            for p in c.phases.clone() {
                let (st, md) = (&self.steps[p as usize], &self.models[p as usize]);
                let n = st.instructions * c.iterations as f64 * tp.scale;
                instr += n;
                cycles += n / md.ipc_alone;
                lines += n * md.mpki_alone / 1000.0 * (1.0 + md.wb_ratio);
            }
        }
        (instr / cycles, lines / instr)
    }

    /// Total instructions of a job instance.
    pub fn job_instructions(&self, job: usize) -> f64 {
        let jp = &self.jobs[job];
        (jp.threads.start..jp.threads.end)
            .map(|t| {
                let tp = self.threads[t as usize];
                let c = &self.classes[tp.class as usize];
                let per_iter: f64 = (c.phases.start..c.phases.end).map(|p| self.steps[p as usize].instructions).sum();
                per_iter * c.iterations as f64 * tp.scale
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::{split_threads, Partners, Plan};

    fn plan_of(sharing: &str, classes: &str, n: u32) -> Plan {
        let src = format!(
            "name = \"t\"\n[[job]]\nname = \"j\"\nthreads = {n}\ninstances = 2\n[job.sharing]\n{sharing}\n{classes}"
        );
        let w = crate::presets::workload_from_toml("t.toml", &src).unwrap();
        let m = cosched_machine::presets::machine("xeon-x5550-16c").unwrap();
        Plan::new(&w, &m, None, 1, "t.toml").unwrap()
    }

    const ONE: &str =
        "[[job.phase]]\ninstructions = 1e9\nipc = 1\nllc_apki = 5\nllc_mpki = 1\nmrc_ref_mb = 8\nfootprint_mb = 8";

    fn partners(p: &Plan, t: usize) -> Vec<(u32, f32)> {
        match p.threads[t].partners {
            Partners::List { start, len } => p.partners[start as usize..(start + len) as usize].to_vec(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn patterns_give_the_stated_partners() {
        let p = plan_of("pattern = \"ring\"\napki = 1", ONE, 4);
        assert_eq!(partners(&p, 0), vec![(1, 0.5), (3, 0.5)]);
        assert_eq!(partners(&p, 5), vec![(4, 0.5), (6, 0.5)], "second instance: its own threads");
        let p = plan_of("pattern = \"stencil\"\napki = 1", ONE, 6); // 2 x 3 grid
        assert_eq!(partners(&p, 0).iter().map(|x| x.0).collect::<Vec<_>>(), vec![1, 3]);
        assert_eq!(partners(&p, 4).iter().map(|x| x.0).collect::<Vec<_>>(), vec![1, 3, 5]);
        let stages = format!(
            "[[job.class]]\nname = \"a\"\nshare = 1\n{}\n[[job.class]]\nname = \"b\"\nshare = 2\n{}",
            ONE.replace("job.phase", "job.class.phase"),
            ONE.replace("job.phase", "job.class.phase")
        );
        let p = plan_of("pattern = \"pipeline\"\napki = 1", &stages, 6); // stage a: 0-1, stage b: 2-5
        assert_eq!(partners(&p, 0), vec![(2, 1.0)]);
        assert_eq!(partners(&p, 1), vec![(4, 1.0)]);
        assert_eq!(partners(&p, 5), vec![(1, 1.0)]);
        let p = plan_of("pattern = \"groups\"\napki = 1\nsize = 4", ONE, 6);
        let g: Vec<Partners> = p.threads.iter().map(|t| t.partners).collect();
        assert_eq!(g[0], g[3]);
        assert_ne!(g[3], g[4]);
        assert_eq!(g[4], Partners::Group { id: 1, size: 2 }, "the last group is what is left");
        assert_eq!(g[6], Partners::Group { id: 2, size: 4 }, "instances do not share groups");
        // A solo plan renumbers partners to its own threads.
        let p = plan_of("pattern = \"ring\"\napki = 1", ONE, 4);
        assert_eq!(partners(&p.solo(1), 0), vec![(1, 0.5), (3, 0.5)]);
    }

    #[test]
    fn thread_split_is_exact_and_proportional() {
        assert_eq!(split_threads(10, &[1.0, 1.0]), vec![5, 5]);
        assert_eq!(split_threads(7, &[0.5, 0.25, 0.25]), vec![3, 2, 2]);
        assert_eq!(split_threads(1, &[1.0, 1.0]).iter().sum::<u32>(), 1);
    }
}
