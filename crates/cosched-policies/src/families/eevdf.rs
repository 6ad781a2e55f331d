//! A model of Linux's EEVDF fair class (Linux ≥ 6.6; the "Linux" of today),
//! written from the kernel's `Documentation/scheduler/sched-eevdf.rst` and
//! Stoica & Abdel-Wahab, "Earliest Eligible Virtual Deadline First"
//! (Old Dominion Univ. TR 95-22, 1995), with the kernel's 6.6 feature set
//! (`PLACE_LAG`, `PLACE_DEADLINE_INITIAL`, `RUN_TO_PARITY`):
//!
//! * **virtual time**: as in CFS, `vruntime += delta × NICE_0_LOAD / weight`;
//!   the run queue's average `V = Σ wᵢ·vᵢ / Σ wᵢ` over the waiting threads and
//!   the running one (`avg_vruntime`);
//! * **eligibility**: a thread is eligible when its lag `V − vᵢ` is ≥ 0, i.e.
//!   it has received no more than its share (`entity_eligible`, compared in
//!   exact integers as the kernel does);
//! * **virtual deadline**: `deadline = vruntime + base_slice × NICE_0_LOAD / weight`
//!   (the request size is `sysctl_sched_base_slice`, 0.75 ms scaled by
//!   `1 + log2(min(ncpus, 8))` as CFS's granularities are);
//! * **pick**: the eligible thread with the earliest virtual deadline
//!   (`pick_eevdf`); with `RUN_TO_PARITY` a running thread that is still
//!   eligible keeps the CPU until it has used its request;
//! * **request end**: when `vruntime` reaches the deadline a new one is set
//!   one request later and the CPU is re-picked (`update_deadline`); the model
//!   re-picks at that instant (as with `HRTICK`; with a periodic tick the
//!   kernel re-picks at the next tick after it);
//! * **lag placement**: a thread leaving a run queue (sleep, exit or
//!   migration) keeps its lag clamped to `±max(2·slice, TICK_NSEC)` in virtual
//!   time (`update_entity_lag`); when it is enqueued again it is placed at
//!   `V − lag·(W + w)/W` so that its lag survives the change of load
//!   (`place_entity`); a new thread starts with zero lag and half a request
//!   (`PLACE_DEADLINE_INITIAL`);
//! * **wake-up preemption**: the woken thread preempts when EEVDF would pick
//!   it over the running one (`check_preempt_wakeup_fair`).
//!
//! Run-queue selection on wake-up and fork, and the load balancer, are the
//! ones CFS uses (EEVDF replaced the pick, not the balancer), so this shares
//! [`CfsCore`] with `cfs`; the policy is `Cfs::eevdf`. Not modelled:
//! `DELAY_DEQUEUE` and `PREEMPT_SHORT` (6.12+), custom slices
//! (`sched_attr.sched_runtime`), nice levels.

use super::cfs::{CfsCore, NICE_0_LOAD};
use crate::ids::{Nanos, ThreadId, MILLI};

/// `TICK_NSEC` at `CONFIG_HZ=1000`: the floor of the lag clamp.
pub const TICK: Nanos = MILLI;

impl CfsCore {
    /// The request of `t` in virtual time (`calc_delta_fair(se->slice, se)`).
    fn vslice(&self, t: ThreadId) -> u64 {
        self.p.base_slice * NICE_0_LOAD / self.tasks[t.idx()].weight
    }

    /// `(Σ wᵢ·(vᵢ − base), Σ wᵢ, base)` over the waiting and running threads of `c`.
    fn weighted_vruntime(&self, c: usize) -> (i128, i128, u64) {
        let rq = &self.rqs[c];
        let base = rq.min_vruntime;
        let mut sum = 0i128;
        let mut load = 0i128;
        let mut add = |t: usize| {
            let task = &self.tasks[t];
            sum += task.weight as i128 * (task.vruntime as i128 - base as i128);
            load += task.weight as i128;
        };
        for &(_, t) in &rq.tree {
            add(t as usize);
        }
        if let Some(t) = rq.curr {
            add(t.idx());
        }
        (sum, load, base)
    }

    /// The run queue's average virtual runtime `V` (`avg_vruntime`).
    pub(crate) fn avg_vruntime(&self, c: usize) -> u64 {
        self.avg_and_load(c).0
    }

    /// `V` and the queue's total weight `Σ wᵢ`.
    fn avg_and_load(&self, c: usize) -> (u64, i128) {
        let (sum, load, base) = self.weighted_vruntime(c);
        if load == 0 {
            return (base, 0);
        }
        ((base as i128 + sum.div_euclid(load)) as u64, load)
    }

    /// Whether a thread at virtual runtime `v` is eligible on `c`: `V ≥ v`,
    /// tested as `Σ wᵢ(vᵢ − base) ≥ (v − base)·Σ wᵢ` (`entity_eligible`).
    #[cfg(test)]
    pub(crate) fn eligible(&self, c: usize, v: u64) -> bool {
        let (sum, load, base) = self.weighted_vruntime(c);
        sum >= (v as i128 - base as i128) * load
    }

    /// EEVDF's choice on `c`: the eligible thread with the earliest virtual
    /// deadline among the waiting ones and, with `with_curr`, the running one
    /// (which keeps the CPU while eligible and inside its request: RUN_TO_PARITY).
    pub(crate) fn eevdf_pick(&self, c: usize, with_curr: bool) -> Option<ThreadId> {
        let rq = &self.rqs[c];
        let (sum, load, base) = self.weighted_vruntime(c);
        let ok = |v: u64| sum >= (v as i128 - base as i128) * load;
        let curr = rq.curr.filter(|t| with_curr && ok(self.tasks[t.idx()].vruntime));
        if let Some(t) = curr.filter(|t| self.tasks[t.idx()].protected) {
            return Some(t);
        }
        let mut best: Option<(u64, u32)> = curr.map(|t| (self.tasks[t.idx()].deadline, t.0));
        // The tree is in vruntime order, so the eligible threads are a prefix.
        // (Never empty when threads wait: the smallest vruntime is ≤ V.)
        for &(_, t) in rq.tree.iter().take_while(|&&(v, _)| ok(v)) {
            let key = (self.tasks[t as usize].deadline, t);
            if best.is_none_or(|b| key < b) {
                best = Some(key);
            }
        }
        best.map(|(_, t)| ThreadId(t))
    }

    /// Remember `t`'s lag on `c` as it leaves the queue (`update_entity_lag`).
    pub(crate) fn eevdf_update_lag(&mut self, c: usize, t: ThreadId) {
        let v = self.avg_vruntime(c) as i64;
        let task = &self.tasks[t.idx()];
        let limit = ((2 * self.p.base_slice).max(TICK) * NICE_0_LOAD / task.weight) as i64;
        let lag = (v - task.vruntime as i64).clamp(-limit, limit);
        self.tasks[t.idx()].vlag = lag;
    }

    /// Place `t` (not yet enqueued) on `c` keeping its lag, and give it a
    /// deadline one request later (half a request when `initial`: a new thread).
    pub(crate) fn eevdf_place(&mut self, c: usize, t: ThreadId, initial: bool) {
        let (v, load) = self.avg_and_load(c);
        let v = v as i128;
        let w = self.tasks[t.idx()].weight as i128;
        let mut lag = if initial { 0 } else { self.tasks[t.idx()].vlag as i128 };
        if load > 0 {
            lag = lag * (load + w) / load;
        }
        let mut vslice = self.vslice(t);
        if initial {
            vslice /= 2;
        }
        let task = &mut self.tasks[t.idx()];
        task.vruntime = (v - lag).max(0) as u64;
        task.deadline = task.vruntime + vslice;
        task.protected = false;
    }

    /// When running thread `t` has used its request, set the next deadline and
    /// say so: the CPU must be re-picked (`update_deadline`).
    pub(crate) fn eevdf_update_deadline(&mut self, t: ThreadId) -> bool {
        let vslice = self.vslice(t);
        let task = &mut self.tasks[t.idx()];
        if task.vruntime < task.deadline {
            return false;
        }
        task.deadline = task.vruntime + vslice;
        task.protected = false;
        true
    }

    /// Real time until running thread `t` reaches its deadline (at least 1 ns).
    pub(crate) fn eevdf_remaining(&self, t: ThreadId) -> Nanos {
        let task = &self.tasks[t.idx()];
        (task.deadline.saturating_sub(task.vruntime) * task.weight / NICE_0_LOAD).max(1)
    }
}

/// This family's policies in the registry ([`super::registry`]), at their rank
/// (registry order; `cosched new-policy` files take rank 1000).
pub(crate) const REGISTERED: super::Registered = super::Registered {
    rank: 41,
    policies: &[
    super::PolicyInfo {
        name: "eevdf",
        description: "Linux >= 6.6 fair class: earliest eligible virtual deadline first, lag-preserving placement, run-to-parity, CFS's load balancer",
        oracle: false,
        knob_groups: &[],
        make: |_| Ok(Box::new(super::Cfs::eevdf(super::CfsParams::default()))),
    },
    super::PolicyInfo {
        name: "linux-cache",
        description: "Linux cache-aware scheduling (CONFIG_SCHED_CACHE, series v4, 2026): EEVDF that aggregates a process's threads into its preferred LLC when its RSS fits the LLC and its threads fit the LLC's cores",
        oracle: false,
        knob_groups: &[],
        make: |_| Ok(Box::new(super::Cfs::linux_cache(super::CfsParams::default()))),
    },
    ],
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{CtxId, JobId};
    use crate::families::cfs::{CfsParams, Open, V_ORIGIN};
    use crate::families::script::Script;
    use crate::families::Cfs;
    use crate::policy::BlockReason;
    use crate::policy::Event;
    use cosched_core::Topology;

    fn one_cpu(n: usize) -> (Cfs, Script) {
        let mut p = Cfs::eevdf(CfsParams::default());
        let s = Script::new(Topology::regular(1, 1, 1, 1, 1), n, &mut p);
        (p, s)
    }

    #[test]
    fn base_slice_scales_with_the_cpu_count() {
        for (cpus, want) in [(1, 750_000), (2, 1_500_000), (4, 2_250_000), (8, 3_000_000), (64, 3_000_000)] {
            let mut p = Cfs::eevdf(CfsParams::default());
            let _s = Script::new(Topology::regular(1, 1, cpus, 1, 1), 1, &mut p);
            assert_eq!(p.core.p.base_slice, want, "{cpus} CPUs");
        }
    }

    #[test]
    fn new_threads_start_at_zero_lag_with_half_a_request() {
        let (mut p, mut s) = one_cpu(2);
        s.send(&mut p, Event::Arrived { thread: ThreadId(0), job: JobId(0) });
        let t0 = p.core.tasks[0];
        assert_eq!(t0.vruntime, V_ORIGIN);
        assert_eq!(t0.deadline - t0.vruntime, 750_000 / 2);
        // The first thread runs exactly its half request, then (alone) gets a full one.
        assert_eq!(s.timers[&0], 375_000);
        s.fire_next_timer(&mut p);
        assert_eq!(s.running[0], Some(ThreadId(0)));
        assert_eq!(s.timers[&0], 375_000 + 750_000);
    }

    #[test]
    fn picks_the_eligible_thread_with_the_earliest_deadline() {
        let (mut p, mut s) = one_cpu(3);
        s.arrive_all(&mut p);
        // Hand-made queue: thread 1 has the earlier deadline but is not eligible
        // (ran ahead of the average); thread 2 is eligible with a later deadline.
        s.now = 0;
        let c = &mut p.core;
        let cur = c.rqs[0].curr.expect("one runs");
        let waiting: Vec<u32> = c.rqs[0].tree.iter().map(|&(_, t)| t).collect();
        for &t in &waiting {
            c.dequeue_waiting(0, ThreadId(t));
        }
        let set = |c: &mut CfsCore, t: u32, v: u64, d: u64| {
            c.tasks[t as usize].vruntime = v;
            c.tasks[t as usize].deadline = d;
        };
        set(c, cur.0, V_ORIGIN, V_ORIGIN + 10_000_000);
        let (a, b) = (waiting[0], waiting[1]);
        set(c, a, V_ORIGIN + 3_000_000, V_ORIGIN + 3_500_000); // ahead: V < v
        set(c, b, V_ORIGIN + 1_000_000, V_ORIGIN + 4_000_000);
        c.enqueue(0, ThreadId(a));
        c.enqueue(0, ThreadId(b));
        // V = (0 + 3 + 1)/3 ms ≈ 1.33 ms past the origin.
        assert!(!c.eligible(0, V_ORIGIN + 3_000_000));
        assert!(c.eligible(0, V_ORIGIN + 1_000_000));
        assert_eq!(c.eevdf_pick(0, false), Some(ThreadId(b)));
        // The running thread is eligible but protected until its request is used.
        c.tasks[cur.idx()].protected = true;
        assert_eq!(c.eevdf_pick(0, true), Some(cur));
        c.tasks[cur.idx()].protected = false;
        assert_eq!(c.eevdf_pick(0, true), Some(ThreadId(b)));
    }

    #[test]
    fn equal_threads_share_one_cpu_in_request_sized_turns() {
        let (mut p, mut s) = one_cpu(3);
        s.arrive_all(&mut p);
        let mut ran = [0u64; 3];
        let mut last = (s.now, s.running[0].unwrap());
        for _ in 0..300 {
            s.fire_next_timer(&mut p);
            ran[last.1.idx()] += s.now - last.0;
            last = (s.now, s.running[0].unwrap());
        }
        let (lo, hi) = (*ran.iter().min().unwrap(), *ran.iter().max().unwrap());
        // After 300 turns everyone is within one request of everyone else.
        assert!(hi - lo <= 750_000, "{ran:?}");
        // Turns are requests: 0.75 ms on one CPU (apart from the initial half-requests).
        assert_eq!(s.timers[&0] - s.now, 750_000);
    }

    #[test]
    fn lag_survives_a_sleep_and_is_clamped() {
        let (mut p, mut s) = one_cpu(3);
        s.arrive_all(&mut p);
        // Let the three share the CPU a while, then put the running one to sleep.
        for _ in 0..10 {
            s.fire_next_timer(&mut p);
        }
        let t = s.running[0].unwrap();
        let v_before = p.core.avg_vruntime(0) as i64 - p.core.tasks[t.idx()].vruntime as i64;
        s.send(&mut p, Event::Blocked { thread: t, ctx: CtxId(0), reason: BlockReason::Io });
        let kept = p.core.tasks[t.idx()].vlag;
        assert_eq!(kept, v_before.clamp(-1_500_000, 1_500_000), "lag = V − v at the dequeue");
        // The others run on for a long time; then it wakes with its lag scaled by (W + w)/W.
        for _ in 0..20 {
            s.fire_next_timer(&mut p);
        }
        s.send(&mut p, Event::Runnable { thread: t });
        let v_now = p.core.avg_vruntime(0) as i64;
        let placed = p.core.tasks[t.idx()].vruntime as i64;
        // Two others of weight 1024 were queued: lag × 3/2, and V moved by at most
        // that much when it was added back.
        let want = kept * 3 / 2;
        assert!((v_now - placed - kept).abs() <= 1, "V − v = {} after placement, lag {kept}", v_now - placed);
        assert!((placed - (v_now - want)).abs() <= want.abs() / 2 + 1);
        // A big lag is clamped: a thread far behind gets at most 2 requests of credit.
        p.core.tasks[t.idx()].vruntime = 0;
        p.core.eevdf_update_lag(0, t);
        assert_eq!(p.core.tasks[t.idx()].vlag, 1_500_000);
    }

    #[test]
    fn a_woken_thread_preempts_only_a_running_thread_past_its_share() {
        let (mut p, mut s) = one_cpu(3);
        s.arrive_all(&mut p);
        let a = s.running[0].unwrap();
        // a is inside its request and eligible: a woken thread with zero lag waits
        // (RUN_TO_PARITY), however early its deadline.
        let sleeper = (0..3).map(ThreadId).find(|&t| t != a).unwrap();
        p.core.withdraw(sleeper, &s, &mut vec![], &mut Open);
        s.withdrawn(sleeper);
        p.core.tasks[sleeper.idx()].vlag = 0;
        s.now += 10_000;
        s.send(&mut p, Event::Runnable { thread: sleeper });
        assert_eq!(s.running[0], Some(a), "protected while eligible");
        // Two threads: b sleeps early in its turn (positive lag), a runs on past
        // the average; when b wakes a is no longer eligible and b takes over at once.
        let (mut p, mut s) = one_cpu(2);
        s.arrive_all(&mut p);
        let a = s.running[0].unwrap();
        let b = ThreadId(1 - a.0);
        s.fire_next_timer(&mut p);
        assert_eq!(s.running[0], Some(b), "b's deadline was the earlier");
        s.now += 100_000;
        s.send(&mut p, Event::Blocked { thread: b, ctx: CtxId(0), reason: BlockReason::Io });
        assert!(p.core.tasks[b.idx()].vlag > 0, "b left before using its share");
        assert_eq!(s.running[0], Some(a));
        s.now += 200_000;
        s.send(&mut p, Event::Runnable { thread: b });
        assert!(!p.core.eligible(0, p.core.tasks[a.idx()].vruntime));
        assert_eq!(s.running[0], Some(b));
    }

    #[test]
    fn migration_keeps_lag_and_balances() {
        let mut p = Cfs::eevdf(CfsParams::default());
        let mut s = Script::new(Topology::regular(1, 1, 2, 1, 1), 6, &mut p);
        s.arrive_all(&mut p);
        assert_eq!(s.busy(), 2);
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..400 {
            s.fire_next_timer(&mut p);
            seen.extend(s.running.iter().flatten().copied());
            assert_eq!(s.busy(), 2);
        }
        assert_eq!(seen.len(), 6, "every thread ran");
        let nr: Vec<u32> = p.core.rqs.iter().map(|r| r.nr).collect();
        assert_eq!(nr, vec![3, 3]);
    }
}
