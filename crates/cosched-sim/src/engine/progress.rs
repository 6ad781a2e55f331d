//! Thread progress: counters and instructions advanced at the solved rates
//! ("rates are constant between events"), the program's zero-time steps
//! (locks, barriers, I/O, progress periods, exit) between compute phases,
//! and the contention re-solve of every socket whose running set changed.

use super::state::{Engine, Scheduled, StepOutcome};
use crate::plan::Partners;
use crate::program::Step;
use cosched_core::ids::{Nanos, PeriodId, ThreadId};
use cosched_core::policy::BlockReason;
use cosched_core::topology::ContextInfo;
use rand::Rng;

/// Runners on a socket above which a solve counts each partner group's
/// members per LLC domain and core once, instead of each runner scanning the
/// socket for its group's (O(runners²); hash counting is slower on the
/// papers' 4-16-context sockets: 14.0× against 13.5× the bare loop).
pub(super) const COUNT_GROUPS_ABOVE: usize = 32;

impl Engine<'_, '_> {
    /// Advance counters and progress of thread `t`, running on socket `s`, to now.
    pub(super) fn settle_thread(&mut self, t: u32, s: usize) {
        let now = self.now;
        let th = &mut self.threads[t as usize];
        if th.settled_at >= now {
            return;
        }
        let dt = (now - th.settled_at) as f64 * 1e-9;
        th.settled_at = now;
        // Refills interleave with execution: while a debt remains, a share σ of
        // the time goes to it and the rest to retiring instructions (so a thread
        // always progresses, even when its slices are shorter than its refills;
        // σ = 0.5, or by its accesses: `debt_time`). A call's stall comes first
        // and retires nothing.
        let stall = th.stall_s.min(dt);
        th.stall_s -= stall;
        let run = dt - stall;
        let debt = th.debt_s.min(run * th.debt_share);
        th.debt_s -= debt;
        let prog = run - debt;
        let mut inc = th.rate.scaled(prog);
        inc.cycles = self.f_hz * dt;
        th.remaining = (th.remaining - inc.instructions).max(0.0);
        th.solo_s += inc.instructions / (self.plan.models[th.model as usize].ipc_alone * self.f_hz);
        let llc = th.last_llc.expect("running thread has an LLC") as usize;
        self.llc_insertions[llc] += inc.llc_misses;
        if self.noise > 0.0 {
            let sd = self.noise;
            let mut z =
                || 1.0 + sd * (self.rng.gen::<f64>() + self.rng.gen::<f64>() + self.rng.gen::<f64>() - 1.5) * 2.0;
            inc.instructions *= z();
            inc.llc_accesses *= z();
            inc.llc_misses *= z();
            inc.mem_reads *= z();
            inc.mem_writes *= z();
            inc.l1_accesses *= z();
            inc.l1_misses *= z();
        }
        self.threads[t as usize].counters.add(&inc);
        self.socket_counters[s].add(&inc);
    }

    /// Settle every runner of unit `u` (its rates are about to change).
    pub(super) fn settle_unit(&mut self, u: usize) {
        let s = self.unit_socket[u] as usize;
        for i in 0..self.unit_runners[u].len() {
            let t = self.unit_runners[u][i];
            self.settle_thread(t, s);
        }
    }

    pub(super) fn settle_energy(&mut self, to: Nanos) {
        let dt = (to - self.now) as f64 * 1e-9;
        self.energy.system += self.power_now.system * dt;
        self.energy.cpu += self.power_now.cpu * dt;
        self.energy.dram += self.power_now.dram * dt;
    }

    /// Run zero-time steps until the thread computes, blocks or exits.
    pub(super) fn advance(&mut self, t: u32, wakes: &mut Vec<u32>) -> StepOutcome {
        loop {
            let th = &mut self.threads[t as usize];
            let step = th.cursor.next(self.plan, th.class, th.scale);
            let job = th.job as usize;
            match step {
                Step::Compute { model, instructions } => {
                    th.model = model;
                    th.remaining = instructions;
                    return StepOutcome::Continue;
                }
                Step::Acquire(l) => {
                    let l = (self.jobs[job].lock_base + l) as usize;
                    if self.lock_owner[l].is_none() {
                        self.lock_owner[l] = Some(t);
                    } else {
                        self.lock_waiters[l].push_back(t);
                        return StepOutcome::Blocked(BlockReason::Lock);
                    }
                }
                Step::Release(l) => {
                    let l = (self.jobs[job].lock_base + l) as usize;
                    self.lock_owner[l] = self.lock_waiters[l].pop_front();
                    if let Some(w) = self.lock_owner[l] {
                        wakes.push(w);
                    }
                }
                Step::PpBegin(d) => {
                    th.stall_s += self.pp_cost_s;
                    if self.d.admits_periods() {
                        let p = PeriodId(self.next_period);
                        self.next_period += 1;
                        th.period = Some(p);
                        return StepOutcome::WaitPeriod(p, d);
                    }
                }
                Step::PpEnd => {
                    th.stall_s += self.pp_cost_s;
                    if let Some(p) = th.period.take() {
                        self.d.end_period(ThreadId(t), p);
                    }
                }
                Step::Io(ns) => {
                    let at = self.now + ns;
                    self.push(at, Scheduled::IoDone(t));
                    return StepOutcome::Blocked(BlockReason::Io);
                }
                Step::Barrier => {
                    let j = &mut self.jobs[job];
                    j.at_barrier.push(t);
                    if j.at_barrier.len() as u32 >= j.live {
                        wakes.extend(j.at_barrier.drain(..).filter(|&w| w != t));
                    } else {
                        return StepOutcome::Blocked(BlockReason::Barrier);
                    }
                }
                Step::Exit => {
                    let j = &mut self.jobs[job];
                    j.live -= 1;
                    if j.live == 0 {
                        j.finish = Some(self.now);
                    } else if !j.at_barrier.is_empty() && j.at_barrier.len() as u32 >= j.live {
                        wakes.append(&mut j.at_barrier);
                    }
                    return StepOutcome::Exited;
                }
            }
        }
    }

    /// Continue a thread that is not running (arrived or woken).
    pub(super) fn resume(&mut self, t: u32) {
        let mut wakes = std::mem::take(&mut self.wake_buf);
        wakes.push(t);
        while let Some(w) = wakes.pop() {
            let out = self.advance(w, &mut wakes);
            let id = ThreadId(w);
            match out {
                StepOutcome::Continue => self.d.wake(id),
                StepOutcome::Blocked(_) => self.d.sleep(id),
                StepOutcome::WaitPeriod(p, d) => {
                    self.d.begin_period(id, p, d);
                }
                StepOutcome::Exited => {
                    self.d.exit(id);
                }
            }
        }
        self.wake_buf = wakes;
    }

    /// The running thread `t` finished its compute step.
    pub(super) fn step_done(&mut self, t: u32) {
        let mut wakes = vec![];
        let out = self.advance(t, &mut wakes);
        let id = ThreadId(t);
        let c = self.d.ctx_of(id).expect("a thread ending a step runs").0;
        match out {
            StepOutcome::Continue => {
                let u = self.unit_of(c);
                self.unit_dirty[u] = true;
            }
            StepOutcome::Blocked(reason) => {
                self.d.block(id, reason);
                self.stop(t, c);
            }
            StepOutcome::WaitPeriod(p, d) => {
                self.d.begin_period(id, p, d);
                self.stop(t, c);
            }
            StepOutcome::Exited => {
                self.d.exit(id);
                self.stop(t, c);
            }
        }
        for w in wakes {
            self.resume(w);
        }
    }

    /// The exchange shares of running thread `t` on context `info` (unit of
    /// solve `s`, which holds its LLC domain), in one pass over its partners: the weight of those running in
    /// its LLC domain (their writes hit there; the rest miss) and of those
    /// running on its own core (SMT siblings: their writes are in the L1 they
    /// share). (1, 0) when it exchanges nothing or has no partner; the on-core
    /// share is 0 when the machine's `core.l1_exchange` is off (the ablation).
    pub(super) fn exchange_shares(&self, s: usize, t: u32, model: u32, info: &ContextInfo) -> (f64, f64) {
        self.exchange_shares_with(s, t, model, info, false)
    }

    /// [`Engine::exchange_shares`]; `counted`: a group's members near `t` are
    /// read from `group_llc` and `group_core` (filled for socket `s` by
    /// `Engine::count_groups`, `t` running at `info`) instead of a scan of the
    /// socket's runners. The same integers either way.
    pub(super) fn exchange_shares_with(
        &self,
        s: usize,
        t: u32,
        model: u32,
        info: &ContextInfo,
        counted: bool,
    ) -> (f64, f64) {
        if self.plan.models[model as usize].comm_apki <= 0.0 {
            return (1.0, 0.0);
        }
        // Where partner `j` runs: (in this LLC domain, on this core).
        let near = |j: u32| {
            self.d.ctx_of(ThreadId(j)).map_or((false, false), |c| {
                let x = &self.topo.contexts[c.idx()];
                (x.llc == info.llc, x.core == info.core)
            })
        };
        let (local, on_core) = match self.plan.threads[t as usize].partners {
            Partners::None => return (1.0, 0.0),
            Partners::List { start, len } => {
                self.plan.partners[start as usize..(start + len) as usize].iter().fold((0.0, 0.0), |(l, k), &(j, w)| {
                    let (in_llc, in_core) = near(j);
                    (l + if in_llc { w as f64 } else { 0.0 }, k + if in_core { w as f64 } else { 0.0 })
                })
            }
            Partners::Group { id, size } if counted => {
                // Its group's members in its domain and on its core, itself among them.
                let l = self.group_llc.get(&(id, info.llc)).map_or(0, |&n| n - 1);
                let k = self.group_core.get(&(id, info.core)).map_or(0, |&n| n - 1);
                let n = (size.max(2) - 1) as f64;
                #[cfg(test)]
                {
                    let scanned = self.exchange_shares_with(s, t, model, info, false);
                    let on_core = if self.machine.core.l1_exchange { k as f64 / n } else { 0.0 };
                    assert_eq!(scanned, (l as f64 / n, on_core), "counted and scanned group shares differ");
                }
                (l as f64 / n, k as f64 / n)
            }
            Partners::Group { id, size } => {
                let (mut l, mut k) = (0usize, 0usize);
                for &j in &self.unit_runners[s] {
                    let same =
                        matches!(self.plan.threads[j as usize].partners, Partners::Group { id: g, .. } if g == id);
                    if j != t && same {
                        let (in_llc, in_core) = near(j);
                        l += usize::from(in_llc);
                        k += usize::from(in_core);
                    }
                }
                let n = (size.max(2) - 1) as f64;
                (l as f64 / n, k as f64 / n)
            }
        };
        (local, if self.machine.core.l1_exchange { on_core } else { 0.0 })
    }

    /// Count the members of each partner group running in each LLC domain and
    /// on each core of unit `s` (one pass, for `exchange_shares_with`).
    pub(super) fn count_groups(&mut self, s: usize) {
        self.group_llc.clear();
        self.group_core.clear();
        for &j in &self.unit_runners[s] {
            if let Partners::Group { id, .. } = self.plan.threads[j as usize].partners {
                let c = self.d.ctx_of(ThreadId(j)).expect("a socket's runner runs");
                let x = &self.topo.contexts[c.idx()];
                *self.group_llc.entry((id, x.llc)).or_insert(0) += 1;
                *self.group_core.entry((id, x.core)).or_insert(0) += 1;
            }
        }
    }
}
