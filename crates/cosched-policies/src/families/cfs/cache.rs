//! Cache-aware scheduling, the `linux-cache` policy: EEVDF with the LLC
//! aggregation of the Linux "Cache aware scheduling" series (Tim Chen, Chen
//! Yu, Peter Zijlstra et al., `[Patch v4 00/22] Cache aware scheduling`,
//! LKML, 2026-04-01; the version read for this model).
//!
//! What the series does, as its cover letter and patches describe it:
//! * threads of one process are taken to share data, and the process gets a
//!   *preferred LLC*: the LLC domain where its threads have been running most
//!   (per-process occupancy per LLC, "the CPU within an LLC that has the
//!   highest recent runtime");
//! * load balancing migrates the process's threads toward its preferred LLC
//!   ("During load balancing, the scheduler attempts to aggregate such threads
//!   onto the same LLC domain whenever possible"), and the ordinary balancer is
//!   kept from pulling them out again;
//! * aggregation is skipped for a process whose RSS (anonymous and shared
//!   pages) exceeds the LLC's size (patch 17, "Avoid cache-aware scheduling
//!   for memory-heavy processes"; `aggr_tolerance` 1, the strict default) or
//!   whose active threads exceed the LLC's cores (SMT siblings do not add
//!   capacity; patch 20), and when the preferred LLC is overloaded (per-LLC
//!   utilisation, patch "Record per LLC utilization").
//!
//! Our reading, where the model is coarser than the kernel: occupancy is the
//! count of the process's live threads last placed in each LLC (equal-weight
//! threads make recent runtime proportional to it), ties keep the previous
//! preference; "overloaded" is "has no idle context left" (a move never
//! stacks two threads on a context); RSS is what the backend reports
//! (`MachineView::job_rss_bytes`: the simulator's footprint of the job's
//! current phases, `/proc/PID/status` on the real machine), and unknown RSS
//! means no aggregation. The series aggregates in the balancer only (its
//! wake-up aggregation, `SCHED_CACHE_WAKE`, is off by default); the model
//! also honours the preference when it places a new or woken thread, which
//! reaches the balancer's steady state without its transient, and moves
//! running threads as the kernel's active balance does.

use super::{CfsCore, Gate};
use crate::ids::{JobId, ThreadId};
use crate::policy::{Decision, MachineView};
use std::collections::BTreeMap;

impl CfsCore {
    /// Note a new thread of `job` and read the job's RSS.
    pub(super) fn cache_arrived(&mut self, t: ThreadId, job: JobId, view: &dyn MachineView) {
        let Some(ca) = self.cache.as_mut() else { return };
        if ca.job.len() <= t.idx() {
            ca.job.resize(t.idx() + 1, u32::MAX);
        }
        ca.job[t.idx()] = job.0;
        ca.live.entry(job.0).or_default().push(t.0);
        ca.rss.insert(job.0, view.job_rss_bytes(job));
        ca.llc_bytes = view.llc_bytes();
    }

    /// Forget an exited thread.
    pub(super) fn cache_exited(&mut self, t: ThreadId) {
        let Some(ca) = self.cache.as_mut() else { return };
        if let Some(&j) = ca.job.get(t.idx()) {
            if let Some(v) = ca.live.get_mut(&j) {
                v.retain(|&x| x != t.0);
            }
        }
    }

    fn llc_of(&self, c: usize) -> u32 {
        self.topo.as_ref().expect("init").contexts[c].llc
    }

    /// The job's preferred LLC when its threads should be aggregated there:
    /// at least two live threads, no more than the LLC's cores, RSS known and
    /// within the LLC. `except` is a thread being placed (not counted where it was).
    fn aggregate_into(&self, job: u32, except: Option<u32>) -> Option<u32> {
        let ca = self.cache.as_ref()?;
        let topo = self.topo.as_ref()?;
        let live = ca.live.get(&job)?;
        let cores_per_llc = (topo.n_cores / topo.n_llc.max(1)) as usize;
        if live.len() < 2 || live.len() > cores_per_llc || topo.n_llc < 2 {
            return None;
        }
        let (rss, llc) = (ca.rss.get(&job).copied().flatten()?, ca.llc_bytes?);
        if rss > llc {
            return None;
        }
        let mut occupancy = vec![0usize; topo.n_llc as usize];
        for &t in live.iter().filter(|&&t| Some(t) != except) {
            occupancy[self.llc_of(self.tasks[t as usize].cpu as usize) as usize] += 1;
        }
        let best = *occupancy.iter().max()?;
        match ca.preferred.get(&job) {
            Some(&p) if occupancy[p as usize] == best => Some(p),
            _ => occupancy.iter().position(|&o| o == best).map(|l| l as u32),
        }
    }

    /// An idle context of LLC `llc` (on an idle core first), if any: the
    /// preferred LLC is not overloaded while it has one.
    fn idle_in(&self, llc: u32) -> Option<usize> {
        let topo = self.topo.as_ref()?;
        (0..self.rqs.len()).filter(|&i| topo.contexts[i].llc == llc && self.rqs[i].nr == 0).min_by_key(|&i| {
            let core = topo.contexts[i].core;
            let busy: u32 =
                (0..self.rqs.len()).filter(|&j| topo.contexts[j].core == core).map(|j| self.rqs[j].nr).sum();
            (busy, i)
        })
    }

    /// Where `t` goes when it starts or wakes under cache-aware placement:
    /// an idle context of its job's preferred LLC, if the job is aggregated.
    pub(super) fn cache_place(&mut self, t: ThreadId) -> Option<usize> {
        let job = *self.cache.as_ref()?.job.get(t.idx())?;
        let p = self.aggregate_into(job, Some(t.0))?;
        self.cache.as_mut()?.preferred.insert(job, p);
        self.idle_in(p)
    }

    /// Whether the ordinary balancer may move `t` from `src` to `dst`: not out
    /// of its aggregated job's preferred LLC (the series' `mig_forbid`).
    pub(super) fn cache_allows(&self, t: u32, src: usize, dst: usize) -> bool {
        let Some(ca) = self.cache.as_ref() else { return true };
        let Some(&job) = ca.job.get(t as usize) else { return true };
        match ca.preferred.get(&job) {
            Some(&p) if self.aggregate_into(job, None).is_some() => !(self.llc_of(src) == p && self.llc_of(dst) != p),
            _ => true,
        }
    }

    /// The aggregation pass of the load balancer: every aggregated job's
    /// threads outside its preferred LLC move to idle contexts inside it,
    /// waiting or running (active balance). RSS is re-read first.
    pub(super) fn cache_balance(&mut self, view: &dyn MachineView, out: &mut Vec<Decision>, gate: &mut dyn Gate) {
        let Some(ca) = self.cache.as_mut() else { return };
        let jobs: Vec<u32> = ca.live.iter().filter(|(_, v)| v.len() >= 2).map(|(&j, _)| j).collect();
        for &j in &jobs {
            ca.rss.insert(j, view.job_rss_bytes(JobId(j)));
        }
        let now = view.now();
        for j in jobs {
            let Some(p) = self.aggregate_into(j, None) else { continue };
            self.cache.as_mut().expect("on").preferred.insert(j, p);
            let live = self.cache.as_ref().expect("on").live[&j].clone();
            for t in live {
                let src = self.tasks[t as usize].cpu as usize;
                if self.llc_of(src) == p {
                    continue;
                }
                let Some(dst) = self.idle_in(p) else { break };
                let t = ThreadId(t);
                let running = self.rqs[src].curr == Some(t);
                let waiting = self.rqs[src].tree.contains(&(self.tasks[t.idx()].vruntime, t.0));
                if !running && !waiting {
                    continue; // blocked: it is placed when it wakes
                }
                self.update_curr(src, now);
                if running {
                    self.put_prev(src, view, gate);
                }
                self.migrate_thread(t, src, dst);
                self.pick_next(src, view, out, gate);
                if self.rqs[dst].curr.is_none() {
                    self.pick_next(dst, view, out, gate);
                }
            }
        }
    }
}

impl CfsCore {
    /// What `linux-cache` found to aggregate over its run (`Policy::found`):
    /// the processes of two or more threads, and how many it aggregated.
    pub(super) fn cache_found(&self) -> Option<String> {
        let ca = self.cache.as_ref()?;
        let mut threads: BTreeMap<u32, usize> = BTreeMap::new();
        for &j in ca.job.iter().filter(|&&j| j != u32::MAX) {
            *threads.entry(j).or_default() += 1;
        }
        let multi = threads.values().filter(|&&n| n >= 2).count();
        let llcs = self.topo.as_ref().map_or(0, |t| t.n_llc);
        Some(if llcs < 2 {
            "the machine has one LLC: nothing to aggregate into, so it placed threads as eevdf".to_string()
        } else if multi == 0 {
            "no process has two or more threads: nothing to aggregate, so it placed threads as eevdf".to_string()
        } else if ca.preferred.is_empty() {
            format!(
                "none of the {multi} multi-threaded processes fit one LLC (RSS within it, threads within its cores): \
                 nothing aggregated, so it placed threads as eevdf"
            )
        } else {
            format!("aggregated {} of the {multi} multi-threaded processes into their preferred LLC", ca.preferred.len())
        })
    }
}
