//! Dispatch and preemption: putting a thread on a context and taking it
//! off, with their costs (context switch, refills of private caches and of
//! the LLC data evicted while it was away, migrations), the co-run pair set
//! of SLITS Fig. 1, trace slices; and the engine as a
//! [`Backend`](cosched_core::dispatch::Backend) of the core's dispatcher,
//! which validates the policy's decisions and calls these.

use super::state::{Engine, StepOutcome};
use cosched_core::dispatch::{Backend, ContractError, Dispatcher};
use cosched_core::policy::{Decision, Event, Policy};
use cosched_core::{Counters, CtxId, Nanos, PeriodId, ThreadId};
use cosched_machine::TraceSlice;

/// Bounds of the refill's share of a thread's time under
/// `costs.refill_by_access` [A]: some progress always (no livelock of copies
/// whose slices are shorter than their refills), some refill always.
const MIN_REFILL_SHARE: f64 = 0.05;
const MAX_REFILL_SHARE: f64 = 0.99;

/// The share of a thread's running time its refill takes under
/// `costs.refill_by_access`: the stall per instruction of its accesses to
/// evicted data over that stall plus the time of an instruction at the rate
/// it runs at (`ips`, instructions per second): a thread slowed by its
/// co-runners spends more of each instruction's time on hits and shared
/// misses, so the same refill stall is a smaller share of it.
pub(super) fn refill_share(evicted_stall_s: f64, ips: f64) -> f64 {
    let instr = 1.0 / ips.max(1e-300);
    (evicted_stall_s / (evicted_stall_s + instr)).clamp(MIN_REFILL_SHARE, MAX_REFILL_SHARE)
}

/// The costs of putting a thread on a context.
struct StartCosts {
    /// Stall owed: context switch plus refills, s.
    debt_s: f64,
    /// Lines refilled into the private caches.
    private_refill_lines: f64,
    /// Lines of private LLC data refilled from memory.
    llc_refill_lines: f64,
    /// Private LLC data that survived its absence, MiB.
    survived_mb: f64,
    /// Stall of the LLC refill, s.
    llc_refill_debt_s: f64,
    /// Share of the running time the debt takes while it lasts (until the
    /// first re-solve gives the thread its rate).
    share: f64,
    /// Stall per instruction of its accesses to evicted data, s (under
    /// `costs.refill_by_access`; 0 otherwise).
    evicted_stall_s: f64,
    /// Part of `debt_s` that is the context switch itself (a pure stall
    /// under `costs.refill_by_access`), s.
    switch_s: f64,
}

impl Engine<'_, '_> {
    /// Lines inserted into LLC domain `d` so far: the run's own, and the
    /// host's other tenants' at `cache.tenant_lines_per_s` (0 on a machine
    /// of its own). What absent threads left there ages by both.
    fn insertions(&self, d: u32) -> f64 {
        self.llc_insertions[d as usize] + self.machine.cache.tenant_lines_per_s * self.now as f64 * 1e-9
    }

    pub(super) fn mark(&mut self, pairs_thread: u32) {
        if self.pairs_n == 0 {
            return;
        }
        // Its row takes everyone running now (a pair co-ran iff one of the
        // two started while the other ran: `Engine::finish` reads both ways).
        let w = self.pairs_n.div_ceil(64);
        let t = pairs_thread as usize;
        for (row, &running) in self.pairs[t * w..(t + 1) * w].iter_mut().zip(&self.running_bits) {
            *row |= running;
        }
        self.running_bits[t / 64] |= 1 << (t % 64);
    }

    /// Put runnable thread `t` on context `c` (which must be free; the
    /// dispatcher has recorded it there).
    pub(super) fn start(&mut self, t: u32, c: u32) {
        let (s, u) = (self.socket_of(c), self.unit_of(c));
        self.settle_unit(u);
        let info = self.topo.contexts[c as usize];
        let (core, llc) = (info.core, info.llc);
        let cost = self.start_costs(t, c, s);
        self.charge_refill(t, s, llc, &cost);
        let now = self.now;
        let by_access = self.machine.costs.refill_by_access;
        let th = &mut self.threads[t as usize];
        if by_access {
            // The switch retires nothing; the refills share time with execution.
            th.stall_s += cost.switch_s;
            th.debt_s = cost.debt_s - cost.switch_s;
        } else {
            th.debt_s = cost.debt_s;
        }
        th.debt_share = cost.share;
        th.evicted_stall_s = cost.evicted_stall_s;
        th.refill_from_mb = cost.survived_mb;
        th.refill_debt_s = cost.llc_refill_debt_s;
        th.occupancy_mb = cost.survived_mb + (th.occupancy_mb - th.left_occupancy_mb).max(0.0);
        th.settled_at = now;
        // The migration `start_costs` counted for the run, counted for the thread.
        th.sched.migrations += u64::from(th.last_core.is_some_and(|k| k != core));
        th.last_core = Some(core);
        th.last_llc = Some(llc);
        self.ctx_last[c as usize] = Some(t);
        self.ctx_since[c as usize] = now;
        self.core_last[core as usize] = Some(t);
        if self.core_busy[core as usize] == 0 {
            self.n_active_cores += 1;
        }
        self.core_busy[core as usize] += 1;
        self.unit_runners[u].push(t);
        self.unit_dirty[u] = true;
        self.away.back(t);
        self.mark(t);
    }

    /// What starting thread `t` on context `c` (socket `s`) costs: a context
    /// switch, refills of the private caches when it changed core or another
    /// thread ran there, and the LLC refill of its private data evicted while
    /// it was away; counts switches and migrations.
    fn start_costs(&mut self, t: u32, c: u32, s: usize) -> StartCosts {
        let info = self.topo.contexts[c as usize];
        let (core, llc) = (info.core, info.llc);
        // The scheduler's own decision before the thread runs (0 unless an experiment charges it).
        let mut debt = self.decision_cost_s;
        if self.ctx_last[c as usize] != Some(t) {
            debt += self.machine.costs.context_switch_us * 1e-6;
            self.switches += 1;
            self.threads[t as usize].sched.switched_in += 1;
        }
        let switch_s = debt;
        let model = &self.plan.models[self.threads[t as usize].model as usize];
        let (mlp, footprint) = (model.mlp, model.private_mb + model.shared_mb);
        let private_kb =
            if self.machine.cache.l2_kb > 0.0 { self.machine.cache.l2_kb } else { self.machine.cache.l1d_kb };
        // Only data that would have hit must be refilled: what a cache held of a
        // stream far larger than itself would have been evicted unused anyway. A
        // uniformly random pattern over a footprint F (`access = "random"`) hits a
        // private cache of P in min(1, P/F) of its accesses
        // (checked against two chases time-sharing one CPU, docs/runtime.md).
        let l2_hit = if model.mrc.random.is_some() {
            (private_kb / 1024.0 / footprint.max(1e-9)).min(1.0)
        } else if model.l2_apki > 0.0 {
            (1.0 - model.mrc.apki / model.l2_apki).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let llc_hit = if model.mrc.apki > 0.0 {
            (1.0 - model.mrc.mpki(self.threads[t as usize].occupancy_mb) / model.mrc.apki).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let th = &self.threads[t as usize];
        // Stall per instruction of its accesses to evicted data (for the share
        // `costs.refill_by_access` gives the refill): L2 hits that now go to
        // the LLC, LLC hits that now go to memory.
        let mut evicted_stall = 0.0;
        let mut refill_l1 = 0.0;
        if th.last_core != Some(core) || self.core_last[core as usize] != Some(t) {
            refill_l1 = (footprint * 1024.0).min(private_kb) * 1024.0 / 64.0 * l2_hit;
            debt += refill_l1 * self.machine.cache.llc_hit_cycles / (mlp * self.f_hz);
            evicted_stall += model.l2_apki / 1000.0 * l2_hit * self.machine.cache.llc_hit_cycles / (mlp * self.f_hz);
            if th.last_core.is_some_and(|k| k != core) {
                self.migrations += 1;
            }
        }
        // LLC refill of the thread's private data evicted while it was away
        // (random replacement: a line survives N insertions into a C-line cache
        // with probability exp(-N/C)). Shared data is kept warm by the job's
        // other threads and is not charged here.
        let mut survived = 0.0;
        let mut refill_llc = 0.0;
        let mut refill_debt = 0.0;
        if let Some(prev) = th.last_llc {
            let survive = if prev == llc {
                let lines_cap = self.machine.cache.llc_mb * 1024.0 * 1024.0 / 64.0;
                (-(self.insertions(llc) - th.left_insertions) / lines_cap).exp()
            } else {
                0.0
            };
            survived = th.left_occupancy_mb * survive;
            if prev == llc && self.machine.cache.conserve_capacity {
                // Capacity is conserved: what survives fits beside what the
                // domain's other threads still hold.
                survived =
                    survived.min((self.machine.cache.llc_mb - self.held_by_others(t, llc, self.unit_of(c))).max(0.0));
            }
            refill_llc = (th.left_occupancy_mb - survived) * 1024.0 * 1024.0 / 64.0 * llc_hit;
            refill_debt = refill_llc * self.socket_bus[s].latency_ns * 1e-9 / mlp;
            debt += refill_debt;
            if th.left_occupancy_mb > 0.0 {
                let evicted = (th.left_occupancy_mb - survived) / th.left_occupancy_mb;
                evicted_stall +=
                    model.mrc.apki / 1000.0 * llc_hit * evicted * self.socket_bus[s].latency_ns * 1e-9 / mlp;
            }
        }
        let by_access = self.machine.costs.refill_by_access && evicted_stall > 0.0;
        let share = if by_access {
            // Its accesses to evicted data stall it for this share of its time
            // (their stall over that stall plus an instruction's time; alone
            // until the re-solve gives its rate: `refill_share`).
            refill_share(evicted_stall, model.ipc_alone * self.f_hz)
        } else {
            0.5
        };
        StartCosts {
            debt_s: debt,
            private_refill_lines: refill_l1,
            llc_refill_lines: refill_llc,
            survived_mb: survived,
            llc_refill_debt_s: refill_debt,
            share,
            evicted_stall_s: if by_access { evicted_stall } else { 0.0 },
            switch_s,
        }
    }

    /// Private LLC data the other threads of domain `llc` (in unit `u`) hold
    /// now, MiB: a running thread's share, and what a stopped thread left
    /// there aged by the insertions since (the survival rule of [`Engine::start_costs`]).
    fn held_by_others(&self, t: u32, llc: u32, u: usize) -> f64 {
        let running: f64 = self.unit_runners[u]
            .iter()
            .filter(|&&u| u != t && self.threads[u as usize].last_llc == Some(llc))
            .map(|&u| self.threads[u as usize].private_mb)
            .sum();
        running + self.away.held(llc, t, self.insertions(llc))
    }

    /// Count the refills of a start: LLC insertions, memory reads and DRAM
    /// energy, in the thread's and the socket's counters.
    fn charge_refill(&mut self, t: u32, s: usize, llc: u32, cost: &StartCosts) {
        let refill_llc = cost.llc_refill_lines;
        let refill = Counters {
            llc_misses: refill_llc,
            mem_reads: refill_llc,
            l1_misses: cost.private_refill_lines,
            ..Default::default()
        };
        self.llc_insertions[llc as usize] += refill_llc;
        self.socket_counters[s].add(&refill);
        self.energy.dram += refill_llc * self.machine.power.dram_nj_per_line * 1e-9;
        self.energy.system += refill_llc * self.machine.power.dram_nj_per_line * 1e-9;
        self.threads[t as usize].counters.add(&refill);
    }

    /// Take thread `t` off context `c` (the dispatcher has already
    /// recorded where it goes).
    pub(super) fn stop(&mut self, t: u32, c: u32) {
        let u = self.unit_of(c);
        self.settle_unit(u);
        let info = self.topo.contexts[c as usize];
        let left_insertions = self.insertions(info.llc);
        let since = self.ctx_since[c as usize];
        let th = &mut self.threads[t as usize];
        th.sched.on_cpu_ns += self.now.saturating_sub(since);
        // Private LLC data it leaves behind: all of its share, or, if it was
        // preempted while still refilling, what it had refilled so far.
        th.left_occupancy_mb = if th.debt_s > 0.0 && th.refill_debt_s > 0.0 {
            let done = (1.0 - th.debt_s / th.refill_debt_s).clamp(0.0, 1.0);
            th.refill_from_mb + (th.private_mb - th.refill_from_mb).max(0.0) * done
        } else {
            th.private_mb
        };
        th.left_insertions = left_insertions;
        self.away.leave(t, info.llc, th.left_occupancy_mb, th.left_insertions);
        self.core_busy[info.core as usize] -= 1;
        if self.core_busy[info.core as usize] == 0 {
            self.n_active_cores -= 1;
        }
        let r = &mut self.unit_runners[u];
        let pos = r.iter().position(|&x| x == t).expect("runner listed");
        r.swap_remove(pos);
        self.unit_dirty[u] = true;
        if self.pairs_n > 0 {
            self.running_bits[t as usize / 64] &= !(1 << (t % 64));
        }
        if let Some(tr) = self.trace.as_mut() {
            let job = self.threads[t as usize].job;
            tr(TraceSlice { ctx: c, thread: t, job, start: self.ctx_since[c as usize], end: self.now });
        }
    }
}

impl Backend for Engine<'_, '_> {
    fn dispatcher(&mut self) -> &mut Dispatcher {
        &mut self.d
    }
    fn decide(&mut self, policy: &mut dyn Policy, ev: &Event, out: &mut Vec<Decision>) {
        let t0 = self.decision_times.as_ref().map(|_| std::time::Instant::now());
        policy.on_event(ev, &*self, out);
        if let (Some(h), Some(t0)) = (self.decision_times.as_mut(), t0) {
            h.add(t0.elapsed().as_nanos() as u64);
        }
    }
    fn start(&mut self, t: ThreadId, c: CtxId) {
        Engine::start(self, t.0, c.0);
    }
    fn stop(&mut self, t: ThreadId, c: CtxId, _migrating: bool) {
        Engine::stop(self, t.0, c.0);
    }
    fn admit(&mut self, t: ThreadId, period: PeriodId) -> Result<(), ContractError> {
        let mut wakes = vec![];
        if !matches!(self.advance(t.0, &mut wakes), StepOutcome::Continue) {
            return Err(ContractError::NotComputing { period: period.0, thread: t.0 });
        }
        for w in wakes {
            self.resume(w);
        }
        Ok(())
    }
    fn arm(&mut self, key: u32, at: Nanos, generation: u32) {
        self.seq += 1;
        self.queue.arm(key, at.max(self.now), self.seq, generation);
    }
}
