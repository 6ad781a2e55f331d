//! What one job instance of a plan does alone: the plan holding only that
//! job (its solo reference run, design note 7), its whole-run solo rates
//! (Perf&Fair §6.1's IPC alone and bandwidth) and its total instructions.

use super::{ClassPlan, JobPlan, Partners, Plan, ThreadPlan};
use std::collections::BTreeMap;

impl Plan {
    /// The same plan holding only job instance `job`, arriving at time 0:
    /// the solo reference run of that job.
    pub fn solo(&self, job: usize) -> Plan {
        let name = format!("{}/solo:{}", self.name, self.jobs[job].name);
        self.subset(&[(job, 1.0)], name)
    }

    /// The same plan holding only these job instances, each with its work
    /// multiplied by the factor beside it, all arriving at time 0 (in this
    /// order: job k of the new plan is the k-th listed). A solo run is one
    /// instance at factor 1; a pairwise co-run two, the co-runner
    /// stretched to outlast the job measured.
    pub fn subset(&self, jobs: &[(usize, f64)], name: String) -> Plan {
        let mut partners = vec![];
        // Only these jobs' classes and their phases are copied (renumbered), so
        // the solo runs of a workload cost O(its size), not O(jobs²).
        let (mut models, mut steps, mut classes) = (vec![], vec![], vec![]);
        let mut class_of: BTreeMap<u32, u32> = BTreeMap::new();
        let (mut threads, mut job_plans) = (vec![], vec![]);
        for (k, &(job, work)) in jobs.iter().enumerate() {
            let jp = &self.jobs[job];
            let (base, at) = (jp.threads.start, threads.len() as u32);
            for t in &self.threads[base as usize..jp.threads.end as usize] {
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
                        let first = partners.len() as u32;
                        partners.extend(
                            self.partners[start as usize..(start + len) as usize]
                                .iter()
                                .map(|&(j, w)| (j - base + at, w)),
                        );
                        Partners::List { start: first, len }
                    }
                    other => other,
                };
                threads.push(ThreadPlan { job: k as u32, class, partners: p, scale: t.scale * work });
            }
            job_plans.push(JobPlan {
                name: jp.name.clone(),
                arrival: 0,
                threads: at..threads.len() as u32,
                n_locks: jp.n_locks,
            });
        }
        Plan {
            name,
            models,
            steps,
            classes,
            jobs: job_plans,
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

    /// Resident data of a job instance when it starts, MiB: its threads' first
    /// phases, private parts summed and the shared part once (what the
    /// engine reports as `MachineView::job_rss_bytes` until a phase changes).
    pub fn job_rss_mb(&self, job: usize) -> f64 {
        let (mut private, mut shared) = (0.0, 0.0f64);
        for t in self.jobs[job].threads.clone() {
            let c = &self.classes[self.threads[t as usize].class as usize];
            let m = &self.models[c.phases.start as usize];
            private += m.private_mb;
            shared = shared.max(m.shared_mb);
        }
        private + shared
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
