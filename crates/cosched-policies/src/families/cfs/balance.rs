//! CFS's load balancing (the model of Linux's `load_balance`, `select_idle_sibling`
//! and newidle balancing): where a waking or new thread goes, what an idle
//! context pulls, and the periodic pass that evens out run-queue lengths.

use super::{CfsCore, Discipline, Gate};
use crate::ids::{Nanos, ThreadId};
use crate::policy::{Decision, MachineView};

impl CfsCore {
    /// Move one waiting thread from `src` to `dst` (the last in vruntime order
    /// that cache-aware aggregation lets go), renormalising its vruntime.
    pub(super) fn migrate_one(&mut self, src: usize, dst: usize) -> bool {
        let Some(&(_, t)) = self.rqs[src].tree.iter().rev().find(|&&(_, t)| self.cache_allows(t, src, dst)) else {
            return false;
        };
        self.migrate_thread(ThreadId(t), src, dst);
        true
    }

    /// Move waiting thread `t` from `src` to `dst`, renormalising its vruntime.
    pub(super) fn migrate_thread(&mut self, t: ThreadId, src: usize, dst: usize) {
        if self.disc == Discipline::Eevdf {
            self.eevdf_update_lag(src, t);
            self.dequeue_waiting(src, t);
            self.eevdf_place(dst, t, false);
        } else {
            self.dequeue_waiting(src, t);
            let task = &mut self.tasks[t.idx()];
            task.vruntime = task.vruntime.saturating_sub(self.rqs[src].min_vruntime) + self.rqs[dst].min_vruntime;
        }
        self.enqueue(dst, t);
    }

    pub(super) fn idle_balance(&mut self, c: usize, now: Nanos) {
        let topo = self.topo.as_ref().expect("init");
        let llc = topo.contexts[c].llc;
        let mut best: Option<(bool, u32, usize)> = None;
        for (i, rq) in self.rqs.iter().enumerate() {
            if i == c || rq.tree.is_empty() {
                continue;
            }
            let key = (topo.contexts[i].llc == llc, rq.nr, usize::MAX - i);
            if best.is_none_or(|b| key > b) {
                best = Some(key);
            }
        }
        if let Some((_, _, inv)) = best {
            let src = usize::MAX - inv;
            self.update_curr(src, now);
            self.migrate_one(src, c);
        }
    }

    pub(super) fn periodic_balance(&mut self, view: &dyn MachineView, out: &mut Vec<Decision>, gate: &mut dyn Gate) {
        let now = view.now();
        self.passes += 1;
        // Nothing waits anywhere and no rotation is pending: no pass can move a thread
        // (a busiest queue with an empty tree ends each pass), so skip the scans.
        if self.rqs.iter().all(|rq| rq.tree.is_empty()) && !self.failed.iter().any(|&f| f) {
            return;
        }
        for domain in 0..self.domains.len() {
            // The pass's contexts (computed once at init: a scan of the machine per pass was
            // most of a many-context machine's time).
            let members = std::mem::take(&mut self.domains[domain]);
            for _ in 0..members.len() {
                let busiest = *members.iter().max_by_key(|&&i| (self.rqs[i].nr, usize::MAX - i)).expect("nonempty");
                let idlest = *members.iter().min_by_key(|&&i| (self.rqs[i].nr, i)).expect("nonempty");
                if self.rqs[busiest].nr < self.rqs[idlest].nr + 2 || self.rqs[busiest].tree.is_empty() {
                    if self.rotate(domain, members.len(), busiest, idlest, now) && self.rqs[idlest].curr.is_none() {
                        self.pick_next(idlest, view, out, gate);
                    }
                    break;
                }
                self.update_curr(busiest, now);
                self.migrate_one(busiest, idlest);
                if self.rqs[idlest].curr.is_none() {
                    self.pick_next(idlest, view, out, gate);
                }
            }
            self.domains[domain] = members;
        }
    }

    /// Where a new thread starts: the context with the fewest runnable threads,
    /// among those the least loaded socket, then LLC domain, then core (Linux's
    /// fork placement, `sched_balance_find_dst_cpu`, descends the scheduling
    /// domains from the top, taking the idlest group at each level: a new task
    /// on a machine with idle sockets goes to an idle socket).
    ///
    /// With [`CfsCore::pipe_placement`] on a machine whose cores have several
    /// pipelines, the least loaded pipeline breaks the remaining ties.
    pub(super) fn select_idlest(&mut self, t: ThreadId) -> usize {
        if let Some(c) = self.cache_place(t) {
            return c;
        }
        let topo = self.topo.as_ref().expect("init");
        let pipes = self.pipes_apart();
        // Each group's runnable threads, summed once (one pass, not a scan of
        // every context per candidate): the same integers, so the same choice.
        // Sized by the ids themselves (a topology read from a host need not number densely).
        let size = |id: fn(&cosched_core::topology::ContextInfo) -> u32| {
            topo.contexts.iter().map(|c| id(c) as usize + 1).max().unwrap_or(0)
        };
        let mut load = [
            vec![0u32; size(|c| c.socket)],
            vec![0u32; size(|c| c.llc)],
            vec![0u32; size(|c| c.core)],
            vec![0u32; size(|c| c.pipe)],
        ];
        for (j, c) in topo.contexts.iter().enumerate() {
            let nr = self.rqs[j].nr;
            load[0][c.socket as usize] += nr;
            load[1][c.llc as usize] += nr;
            load[2][c.core as usize] += nr;
            load[3][c.pipe as usize] += nr;
        }
        (0..self.rqs.len())
            .min_by_key(|&i| {
                let c = topo.contexts[i];
                let pipe = if pipes { load[3][c.pipe as usize] } else { 0 };
                (self.rqs[i].nr, load[0][c.socket as usize], load[1][c.llc as usize], load[2][c.core as usize], pipe, i)
            })
            .expect("contexts")
    }

    pub(super) fn select_wake(&mut self, prev: usize, t: ThreadId) -> usize {
        if let Some(c) = self.cache_place(t) {
            return c;
        }
        if self.rqs[prev].nr == 0 {
            return prev;
        }
        let topo = self.topo.as_ref().expect("init");
        let llc = topo.contexts[prev].llc;
        let idle = (0..self.rqs.len()).filter(|&i| topo.contexts[i].llc == llc && self.rqs[i].nr == 0);
        if self.pipes_apart() {
            // The idle context of the LLC whose pipeline runs the fewest threads.
            let on_pipe = |p: u32| {
                (0..self.rqs.len()).filter(|&j| topo.contexts[j].pipe == p).map(|j| self.rqs[j].nr).sum::<u32>()
            };
            return idle.min_by_key(|&i| (on_pipe(topo.contexts[i].pipe), i)).unwrap_or(prev);
        }
        idle.min().unwrap_or(prev)
    }

    /// Whether placement weighs pipelines apart from cores: [`CfsCore::pipe_placement`]
    /// on a machine with more pipelines than cores.
    fn pipes_apart(&self) -> bool {
        self.pipe_placement && self.topo.as_ref().is_some_and(|t| t.n_pipes > t.n_cores)
    }
}
