//! The discrete-event engine (`shared/design.md`, "Engine"): one priority
//! queue of timed events, one seeded RNG, rates constant between events.
//! Whenever the set of threads running on a socket changes, the socket is
//! settled (counters and progress advanced to now) and its contention
//! re-solved; the next phase end of each of its threads is then exact.

use crate::contention::{BusState, Rates, Runner, Solver};
use crate::plan::Plan;
use crate::program::{Cursor, Step};
use cosched_core::ids::{CtxId, JobId, Nanos, PeriodId, ThreadId, SECOND};
use cosched_core::policy::{BlockReason, Decision, Demand, Energy, Event, MachineView, Oracle, Policy};
use cosched_core::{Counters, Topology};
use cosched_machine::power::{Power, PowerModel};
use cosched_machine::MachineSpec;
use cosched_machine::TraceSlice;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::time::Instant;

/// Engine options.
#[derive(Clone, Debug)]
pub struct SimOptions {
    /// Seed of the engine's RNG (counter noise).
    pub seed: u64,
    /// Relative standard deviation of multiplicative noise on counter increments.
    pub counter_noise: f64,
    /// Measure the policy's decision time (wall clock: results then differ run to run).
    pub timing: bool,
    /// Abort when simulated time passes this many seconds.
    pub max_time_s: f64,
    /// Cost of each `pp_begin` / `pp_end` call, charged to the calling thread (RDA Fig. 11).
    pub pp_cost_ns: u64,
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions { seed: 1, counter_noise: 0.0, timing: false, max_time_s: 3600.0, pp_cost_ns: 0 }
    }
}

/// What one run produced.
#[derive(Clone, Debug)]
pub struct RunOutput {
    /// Time the last job finished.
    pub makespan: Nanos,
    /// Finish time of each job instance.
    pub job_finish: Vec<Nanos>,
    /// Instructions retired, all threads.
    pub totals: Counters,
    /// Energy, joules.
    pub energy: Energy,
    /// Dispatches of a different thread onto a context.
    pub context_switches: u64,
    /// Dispatches onto a different core than the thread last ran on.
    pub migrations: u64,
    /// Events delivered to the policy.
    pub policy_events: u64,
    /// Share of ordered thread pairs ever co-running, % (SLITS Fig. 1).
    pub explored_pairs_pct: f64,
    /// Decision time percentiles (p50, p99), µs, when timed.
    pub decision_us: Option<(f64, f64)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    Arrive(u32),
    StepEnd(u32, u32),
    IoDone(u32),
    Timer(u32, u32),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Status {
    Pending,
    Runnable,
    Running(u32),
    Blocked,
    WaitPeriod,
    Done,
}

enum Outcome {
    Continue,
    Blocked(BlockReason),
    WaitPeriod(PeriodId, Demand),
    Exited,
}

#[derive(Clone)]
struct Th {
    job: u32,
    class: u32,
    scale: f64,
    cursor: Cursor,
    status: Status,
    announced: bool,
    model: u32,
    remaining: f64,
    debt_s: f64,
    rate: Counters,
    counters: Counters,
    settled_at: Nanos,
    gen: u32,
    occupancy_mb: f64,
    private_mb: f64,
    refill_from_mb: f64,
    refill_debt_s: f64,
    /// Stall owed by API calls made while not running (charged at the next start).
    extra_debt_s: f64,
    last_core: Option<u32>,
    last_llc: Option<u32>,
    left_occ_mb: f64,
    left_mark: f64,
    period: Option<PeriodId>,
}

struct JobSt {
    live: u32,
    at_barrier: Vec<u32>,
    lock_base: u32,
    finish: Option<Nanos>,
}

/// Log-bucketed histogram of decision times (8 buckets per octave, ±4.5%).
struct Histogram {
    buckets: Vec<u64>,
    n: u64,
}

impl Histogram {
    fn new() -> Self {
        Histogram { buckets: vec![0; 8 * 64], n: 0 }
    }
    fn add(&mut self, ns: u64) {
        let i = ((8.0 * ((ns + 1) as f64).log2()) as usize).min(self.buckets.len() - 1);
        self.buckets[i] += 1;
        self.n += 1;
    }
    fn quantile_us(&self, q: f64) -> f64 {
        let target = (q * self.n as f64).ceil().max(1.0) as u64;
        let mut acc = 0;
        for (i, &b) in self.buckets.iter().enumerate() {
            acc += b;
            if acc >= target {
                return (2f64.powf((i as f64 + 0.5) / 8.0) - 1.0) / 1000.0;
            }
        }
        0.0
    }
}

struct State<'a, 't> {
    m: &'a MachineSpec,
    plan: &'a Plan,
    topo: Topology,
    power: PowerModel,
    solver: Solver,
    f_hz: f64,
    now: Nanos,
    th: Vec<Th>,
    jobs: Vec<JobSt>,
    lock_owner: Vec<Option<u32>>,
    lock_waiters: Vec<VecDeque<u32>>,
    ctx_thread: Vec<Option<u32>>,
    ctx_last: Vec<Option<u32>>,
    ctx_since: Vec<Nanos>,
    core_last: Vec<Option<u32>>,
    core_busy: Vec<u32>,
    n_active_cores: usize,
    socket_runners: Vec<Vec<u32>>,
    socket_dirty: Vec<bool>,
    socket_bus: Vec<BusState>,
    socket_ctr: Vec<Counters>,
    socket_lines: Vec<f64>,
    llc_ins: Vec<f64>,
    energy: Energy,
    power_now: Power,
    heap: BinaryHeap<Reverse<(Nanos, u64, Ev)>>,
    seq: u64,
    timer_gen: Vec<u32>,
    pending: VecDeque<Event>,
    needs_pp: bool,
    oracle_ok: bool,
    next_period: u32,
    n_done: usize,
    noise: f64,
    pp_cost_s: f64,
    rng: ChaCha8Rng,
    switches: u64,
    migrations: u64,
    pairs: Vec<u64>,
    pairs_n: usize,
    runners_buf: Vec<Runner>,
    rates_buf: Vec<Rates>,
    trace: Option<&'t mut dyn FnMut(TraceSlice)>,
}

impl State<'_, '_> {
    fn push(&mut self, at: Nanos, ev: Ev) {
        self.seq += 1;
        self.heap.push(Reverse((at, self.seq, ev)));
    }

    fn socket_of(&self, c: u32) -> usize {
        self.topo.contexts[c as usize].socket as usize
    }

    /// Advance counters and progress of a running thread to now.
    fn settle_thread(&mut self, t: u32) {
        let now = self.now;
        let th = &mut self.th[t as usize];
        if th.settled_at >= now {
            return;
        }
        let dt = (now - th.settled_at) as f64 * 1e-9;
        th.settled_at = now;
        // Refills interleave with execution: while a debt remains, half of the
        // time goes to it and half to retiring instructions (so a thread always
        // progresses, even when its slices are shorter than its refills).
        let debt = th.debt_s.min(dt * 0.5);
        th.debt_s -= debt;
        let prog = dt - debt;
        let mut inc = th.rate.scaled(prog);
        inc.cycles = self.f_hz * dt;
        th.remaining = (th.remaining - inc.instructions).max(0.0);
        let llc = th.last_llc.expect("running thread has an LLC") as usize;
        self.llc_ins[llc] += inc.llc_misses;
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
        let th = &mut self.th[t as usize];
        th.counters.add(&inc);
        let s = self.topo.contexts[match th.status {
            Status::Running(c) => c as usize,
            _ => unreachable!("settling a thread that is not running"),
        }]
        .socket as usize;
        self.socket_ctr[s].add(&inc);
    }

    fn settle_socket(&mut self, s: usize) {
        for i in 0..self.socket_runners[s].len() {
            let t = self.socket_runners[s][i];
            self.settle_thread(t);
        }
    }

    fn settle_energy(&mut self, to: Nanos) {
        let dt = (to - self.now) as f64 * 1e-9;
        self.energy.system += self.power_now.system * dt;
        self.energy.cpu += self.power_now.cpu * dt;
        self.energy.dram += self.power_now.dram * dt;
    }

    fn mark(&mut self, pairs_thread: u32) {
        if self.pairs_n == 0 {
            return;
        }
        let n = self.pairs_n;
        for c in 0..self.ctx_thread.len() {
            if let Some(u) = self.ctx_thread[c] {
                if u != pairs_thread {
                    for (a, b) in [(pairs_thread as usize, u as usize), (u as usize, pairs_thread as usize)] {
                        let bit = a * n + b;
                        self.pairs[bit / 64] |= 1 << (bit % 64);
                    }
                }
            }
        }
    }

    /// Put runnable thread `t` on context `c` (which must be free).
    fn start(&mut self, t: u32, c: u32) {
        let s = self.socket_of(c);
        self.settle_socket(s);
        let info = self.topo.contexts[c as usize];
        let (core, llc) = (info.core, info.llc);
        let mut debt = 0.0;
        if self.ctx_last[c as usize] != Some(t) {
            debt += self.m.costs.context_switch_us * 1e-6;
            self.switches += 1;
        }
        let model = &self.plan.models[self.th[t as usize].model as usize];
        let (mlp, footprint) = (model.mlp, model.private_mb + model.shared_mb);
        // Only data that would have hit must be refilled: what a cache held of a
        // stream far larger than itself would have been evicted unused anyway.
        let l2_hit = if model.l2_apki > 0.0 { (1.0 - model.mrc.apki / model.l2_apki).clamp(0.0, 1.0) } else { 0.0 };
        let llc_hit = if model.mrc.apki > 0.0 {
            (1.0 - model.mrc.mpki(self.th[t as usize].occupancy_mb) / model.mrc.apki).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let th = &self.th[t as usize];
        let mut refill_l1 = 0.0;
        if th.last_core != Some(core) || self.core_last[core as usize] != Some(t) {
            let private_kb = if self.m.cache.l2_kb > 0.0 { self.m.cache.l2_kb } else { self.m.cache.l1d_kb };
            refill_l1 = (footprint * 1024.0).min(private_kb) * 1024.0 / 64.0 * l2_hit;
            debt += refill_l1 * self.m.cache.llc_hit_cycles / (mlp * self.f_hz);
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
                let lines_cap = self.m.cache.llc_mb * 1024.0 * 1024.0 / 64.0;
                (-(self.llc_ins[llc as usize] - th.left_mark) / lines_cap).exp()
            } else {
                0.0
            };
            survived = th.left_occ_mb * survive;
            refill_llc = (th.left_occ_mb - survived) * 1024.0 * 1024.0 / 64.0 * llc_hit;
            refill_debt = refill_llc * self.socket_bus[s].latency_ns * 1e-9 / mlp;
            debt += refill_debt;
        }
        let refill =
            Counters { llc_misses: refill_llc, mem_reads: refill_llc, l1_misses: refill_l1, ..Default::default() };
        self.llc_ins[llc as usize] += refill_llc;
        self.socket_ctr[s].add(&refill);
        self.energy.dram += refill_llc * self.m.power.dram_nj_per_line * 1e-9;
        self.energy.system += refill_llc * self.m.power.dram_nj_per_line * 1e-9;
        let now = self.now;
        let th = &mut self.th[t as usize];
        th.counters.add(&refill);
        th.debt_s = debt + std::mem::take(&mut th.extra_debt_s);
        th.refill_from_mb = survived;
        th.refill_debt_s = refill_debt;
        th.occupancy_mb = survived + (th.occupancy_mb - th.left_occ_mb).max(0.0);
        th.status = Status::Running(c);
        th.settled_at = now;
        th.last_core = Some(core);
        th.last_llc = Some(llc);
        self.ctx_thread[c as usize] = Some(t);
        self.ctx_last[c as usize] = Some(t);
        self.ctx_since[c as usize] = now;
        self.core_last[core as usize] = Some(t);
        if self.core_busy[core as usize] == 0 {
            self.n_active_cores += 1;
        }
        self.core_busy[core as usize] += 1;
        self.socket_runners[s].push(t);
        self.socket_dirty[s] = true;
        self.mark(t);
    }

    /// Take running thread `t` off its context; `to` is its new status.
    fn stop(&mut self, t: u32, to: Status) -> u32 {
        let Status::Running(c) = self.th[t as usize].status else { unreachable!("stop of a thread not running") };
        let s = self.socket_of(c);
        self.settle_socket(s);
        let info = self.topo.contexts[c as usize];
        let th = &mut self.th[t as usize];
        // Private LLC data it leaves behind: all of its share, or, if it was
        // preempted while still refilling, what it had refilled so far.
        th.left_occ_mb = if th.debt_s > 0.0 && th.refill_debt_s > 0.0 {
            let done = (1.0 - th.debt_s / th.refill_debt_s).clamp(0.0, 1.0);
            th.refill_from_mb + (th.private_mb - th.refill_from_mb).max(0.0) * done
        } else {
            th.private_mb
        };
        th.left_mark = self.llc_ins[info.llc as usize];
        th.status = to;
        th.gen += 1;
        self.ctx_thread[c as usize] = None;
        self.core_busy[info.core as usize] -= 1;
        if self.core_busy[info.core as usize] == 0 {
            self.n_active_cores -= 1;
        }
        let r = &mut self.socket_runners[s];
        let pos = r.iter().position(|&x| x == t).expect("runner listed");
        r.swap_remove(pos);
        self.socket_dirty[s] = true;
        if let Some(tr) = self.trace.as_mut() {
            let job = self.th[t as usize].job;
            tr(TraceSlice { ctx: c, thread: t, job, start: self.ctx_since[c as usize], end: self.now });
        }
        c
    }

    /// Run zero-time steps until the thread computes, blocks or exits.
    fn advance(&mut self, t: u32, wakes: &mut Vec<u32>) -> Outcome {
        loop {
            let th = &mut self.th[t as usize];
            let step = th.cursor.next(self.plan, th.class, th.scale);
            let job = th.job as usize;
            match step {
                Step::Compute { model, instructions } => {
                    th.model = model;
                    th.remaining = instructions;
                    return Outcome::Continue;
                }
                Step::Acquire(l) => {
                    let l = (self.jobs[job].lock_base + l) as usize;
                    if self.lock_owner[l].is_none() {
                        self.lock_owner[l] = Some(t);
                    } else {
                        self.lock_waiters[l].push_back(t);
                        return Outcome::Blocked(BlockReason::Lock);
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
                    th.extra_debt_s += self.pp_cost_s;
                    if self.needs_pp {
                        let p = PeriodId(self.next_period);
                        self.next_period += 1;
                        th.period = Some(p);
                        return Outcome::WaitPeriod(p, d);
                    }
                }
                Step::PpEnd => {
                    th.extra_debt_s += self.pp_cost_s;
                    if let Some(p) = th.period.take() {
                        self.pending.push_back(Event::PeriodEnd { thread: ThreadId(t), period: p });
                    }
                }
                Step::Io(ns) => {
                    let at = self.now + ns;
                    self.push(at, Ev::IoDone(t));
                    return Outcome::Blocked(BlockReason::Io);
                }
                Step::Barrier => {
                    let j = &mut self.jobs[job];
                    j.at_barrier.push(t);
                    if j.at_barrier.len() as u32 >= j.live {
                        wakes.extend(j.at_barrier.drain(..).filter(|&w| w != t));
                    } else {
                        return Outcome::Blocked(BlockReason::Barrier);
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
                    self.n_done += 1;
                    return Outcome::Exited;
                }
            }
        }
    }

    /// Continue a thread that is not running (woken, arrived or admitted).
    fn resume(&mut self, t: u32) {
        let mut wakes = vec![t];
        while let Some(w) = wakes.pop() {
            let out = self.advance(w, &mut wakes);
            let th = &mut self.th[w as usize];
            match out {
                Outcome::Continue => {
                    th.status = Status::Runnable;
                    let ev = if th.announced {
                        Event::Runnable { thread: ThreadId(w) }
                    } else {
                        th.announced = true;
                        Event::Arrived { thread: ThreadId(w), job: JobId(th.job) }
                    };
                    self.pending.push_back(ev);
                }
                Outcome::Blocked(_) => th.status = Status::Blocked,
                Outcome::WaitPeriod(p, d) => {
                    th.status = Status::WaitPeriod;
                    self.pending.push_back(Event::PeriodBegin { thread: ThreadId(w), ctx: None, period: p, demand: d });
                }
                Outcome::Exited => th.status = Status::Done,
            }
        }
    }

    /// The running thread `t` finished its compute step.
    fn step_done(&mut self, t: u32) {
        let mut wakes = vec![];
        let out = self.advance(t, &mut wakes);
        let Status::Running(c) = self.th[t as usize].status else { unreachable!() };
        match out {
            Outcome::Continue => {
                let th = &mut self.th[t as usize];
                th.debt_s += std::mem::take(&mut th.extra_debt_s);
                let s = self.socket_of(c);
                self.socket_dirty[s] = true;
            }
            Outcome::Blocked(reason) => {
                self.stop(t, Status::Blocked);
                self.pending.push_back(Event::Blocked { thread: ThreadId(t), ctx: CtxId(c), reason });
            }
            Outcome::WaitPeriod(p, d) => {
                self.stop(t, Status::WaitPeriod);
                self.pending.push_back(Event::PeriodBegin {
                    thread: ThreadId(t),
                    ctx: Some(CtxId(c)),
                    period: p,
                    demand: d,
                });
            }
            Outcome::Exited => {
                self.stop(t, Status::Done);
                self.pending.push_back(Event::Exited { thread: ThreadId(t), ctx: CtxId(c) });
            }
        }
        for w in wakes {
            self.resume(w);
        }
    }

    fn apply(&mut self, d: Decision, policy: &str) -> Result<(), String> {
        match d {
            Decision::Run { thread, ctx } => {
                let (t, c) = (thread.0, ctx.0);
                if c as usize >= self.ctx_thread.len() || t as usize >= self.th.len() {
                    return Err(format!("policy `{policy}` named thread {t} / context {c}, which do not exist"));
                }
                match self.th[t as usize].status {
                    Status::Running(c2) if c2 == c => return Ok(()),
                    Status::Running(_) => {
                        self.stop(t, Status::Runnable);
                    }
                    Status::Runnable => {}
                    s => return Err(format!("policy `{policy}` ran thread {t}, which is not runnable ({s:?})")),
                }
                if let Some(u) = self.ctx_thread[c as usize] {
                    self.stop(u, Status::Runnable);
                }
                self.start(t, c);
            }
            Decision::Preempt { ctx } => {
                if let Some(u) = self.ctx_thread.get(ctx.idx()).copied().flatten() {
                    self.stop(u, Status::Runnable);
                }
            }
            Decision::Idle { .. } => {}
            Decision::Timer { key, at } => {
                let k = key as usize;
                if self.timer_gen.len() <= k {
                    self.timer_gen.resize(k + 1, 0);
                }
                self.timer_gen[k] += 1;
                if let Some(at) = at {
                    let g = self.timer_gen[k];
                    self.push(at.max(self.now), Ev::Timer(key, g));
                }
            }
            Decision::Admit { period } => {
                let Some(t) =
                    self.th.iter().position(|th| th.status == Status::WaitPeriod && th.period == Some(period))
                else {
                    return Err(format!("policy `{policy}` admitted period {}, which is not waiting", period.0));
                };
                let mut wakes = vec![];
                match self.advance(t as u32, &mut wakes) {
                    Outcome::Continue => self.th[t].status = Status::Runnable,
                    _ => return Err(format!("period {} admitted but its thread cannot compute", period.0)),
                }
                for w in wakes {
                    self.resume(w);
                }
            }
        }
        Ok(())
    }

    fn solve_dirty(&mut self) {
        for s in 0..self.socket_dirty.len() {
            if !self.socket_dirty[s] {
                continue;
            }
            self.socket_dirty[s] = false;
            self.runners_buf.clear();
            for &t in &self.socket_runners[s] {
                let th = &self.th[t as usize];
                let Status::Running(c) = th.status else { unreachable!() };
                let info = self.topo.contexts[c as usize];
                self.runners_buf.push(Runner {
                    model: th.model,
                    pipe: info.pipe,
                    core: info.core,
                    llc: info.llc,
                    job: th.job,
                    occupancy_mb: th.occupancy_mb,
                });
            }
            let mut rates = std::mem::take(&mut self.rates_buf);
            self.socket_bus[s] = self.solver.solve(&self.plan.models, &self.runners_buf, &mut rates);
            let mut lines = 0.0;
            for (i, &r) in rates.iter().enumerate() {
                let t = self.socket_runners[s][i];
                let model = &self.plan.models[self.th[t as usize].model as usize];
                let ips = r.ipc * self.f_hz;
                let miss = ips * r.mpki / 1000.0;
                let rate = Counters {
                    instructions: ips,
                    cycles: self.f_hz,
                    llc_accesses: ips * model.mrc.apki / 1000.0,
                    llc_misses: miss,
                    mem_reads: miss,
                    mem_writes: miss * model.wb_ratio,
                    l1_accesses: ips * model.l1_apki / 1000.0,
                    l1_misses: ips * model.l2_apki / 1000.0,
                };
                lines += miss * (1.0 + model.wb_ratio);
                let th = &mut self.th[t as usize];
                th.rate = rate;
                th.occupancy_mb = r.occupancy_mb;
                th.private_mb = r.private_mb;
                th.gen += 1;
                let work = th.remaining / ips;
                let secs = work + th.debt_s.min(work);
                let at = self.now + (secs * 1e9).ceil() as Nanos;
                let ev = Ev::StepEnd(t, th.gen);
                self.push(at, ev);
            }
            self.rates_buf = rates;
            self.socket_lines[s] = lines;
        }
        self.power_now = self.power.power(self.n_active_cores, self.socket_lines.iter().sum());
    }

    fn peek(&self, t: u32) -> Counters {
        let th = &self.th[t as usize];
        let mut c = th.counters;
        if let Status::Running(_) = th.status {
            let dt = (self.now - th.settled_at) as f64 * 1e-9;
            let prog = dt - th.debt_s.min(dt * 0.5);
            let mut inc = th.rate.scaled(prog);
            inc.cycles = self.f_hz * dt;
            c.add(&inc);
        }
        c
    }
}

impl MachineView for State<'_, '_> {
    fn now(&self) -> Nanos {
        self.now
    }
    fn topology(&self) -> &Topology {
        &self.topo
    }
    fn running_on(&self, ctx: CtxId) -> Option<ThreadId> {
        self.ctx_thread.get(ctx.idx()).copied().flatten().map(ThreadId)
    }
    fn job_of(&self, thread: ThreadId) -> JobId {
        JobId(self.th[thread.idx()].job)
    }
    fn n_threads_total(&self) -> usize {
        self.th.len()
    }
    fn thread_counters(&self, thread: ThreadId) -> Option<Counters> {
        (thread.idx() < self.th.len()).then(|| self.peek(thread.0))
    }
    fn socket_counters(&self, socket: u32) -> Option<Counters> {
        let s = socket as usize;
        let mut c = *self.socket_ctr.get(s)?;
        for &t in &self.socket_runners[s] {
            let th = &self.th[t as usize];
            c.add(&self.peek(t).since(&th.counters));
        }
        Some(c)
    }
    fn energy(&self) -> Option<Energy> {
        Some(self.energy)
    }
    fn bus_lines_per_s(&self) -> Option<f64> {
        Some(self.m.bus_lines_per_s())
    }
    fn llc_bytes(&self) -> Option<f64> {
        Some(self.m.cache.llc_mb * 1024.0 * 1024.0)
    }
    fn oracle(&self) -> Option<&dyn Oracle> {
        if self.oracle_ok {
            Some(self)
        } else {
            None
        }
    }
}

impl Oracle for State<'_, '_> {
    fn ipc_alone(&self, thread: ThreadId) -> Option<f64> {
        let th = self.th.get(thread.idx())?;
        Some(self.plan.models[th.model as usize].ipc_alone)
    }
    fn solo_mem_bandwidth(&self, thread: ThreadId) -> Option<f64> {
        let th = self.th.get(thread.idx())?;
        let m = &self.plan.models[th.model as usize];
        Some(m.ipc_alone * self.f_hz * m.mpki_alone / 1000.0 * (1.0 + m.wb_ratio))
    }
}

/// Run `plan` on machine `m` under `policy`. `trace` receives every slice.
pub fn run(
    m: &MachineSpec,
    plan: &Plan,
    mut policy: Box<dyn Policy>,
    opts: &SimOptions,
    trace: Option<&mut dyn FnMut(TraceSlice)>,
) -> Result<RunOutput, String> {
    let topo = m.topology();
    let n_threads = plan.threads.len();
    let needs = policy.needs();
    let mut lock_base = 0;
    let jobs: Vec<JobSt> = plan
        .jobs
        .iter()
        .map(|j| {
            let js = JobSt { live: j.threads.end - j.threads.start, at_barrier: vec![], lock_base, finish: None };
            lock_base += j.n_locks;
            js
        })
        .collect();
    let pairs_n = if n_threads <= 4096 { n_threads } else { 0 };
    let nctx = topo.n_contexts();
    let mut st = State {
        m,
        plan,
        power: PowerModel::new(&m.power, topo.n_cores as usize),
        solver: Solver::new(m),
        f_hz: m.freq_ghz * 1e9,
        now: 0,
        th: plan
            .threads
            .iter()
            .map(|tp| Th {
                job: tp.job,
                class: tp.class,
                scale: tp.scale,
                cursor: Cursor::default(),
                status: Status::Pending,
                announced: false,
                model: 0,
                remaining: 0.0,
                debt_s: 0.0,
                rate: Counters::default(),
                counters: Counters::default(),
                settled_at: 0,
                gen: 0,
                occupancy_mb: 0.0,
                private_mb: 0.0,
                refill_from_mb: 0.0,
                refill_debt_s: 0.0,
                extra_debt_s: 0.0,
                last_core: None,
                last_llc: None,
                left_occ_mb: 0.0,
                left_mark: 0.0,
                period: None,
            })
            .collect(),
        jobs,
        lock_owner: vec![None; lock_base as usize],
        lock_waiters: vec![VecDeque::new(); lock_base as usize],
        ctx_thread: vec![None; nctx],
        ctx_last: vec![None; nctx],
        ctx_since: vec![0; nctx],
        core_last: vec![None; topo.n_cores as usize],
        core_busy: vec![0; topo.n_cores as usize],
        n_active_cores: 0,
        socket_runners: vec![vec![]; topo.n_sockets as usize],
        socket_dirty: vec![false; topo.n_sockets as usize],
        socket_bus: vec![BusState::default(); topo.n_sockets as usize],
        socket_ctr: vec![Counters::default(); topo.n_sockets as usize],
        socket_lines: vec![0.0; topo.n_sockets as usize],
        llc_ins: vec![0.0; topo.n_llc as usize],
        energy: Energy::default(),
        power_now: Power::default(),
        heap: BinaryHeap::new(),
        seq: 0,
        timer_gen: vec![],
        pending: VecDeque::new(),
        needs_pp: needs.progress_periods,
        oracle_ok: needs.oracle,
        next_period: 0,
        n_done: 0,
        noise: opts.counter_noise,
        pp_cost_s: opts.pp_cost_ns as f64 * 1e-9,
        rng: ChaCha8Rng::seed_from_u64(opts.seed ^ 0x5EED_0FC0_5C4E_D000),
        switches: 0,
        migrations: 0,
        pairs: vec![0; (pairs_n * pairs_n).div_ceil(64)],
        pairs_n,
        runners_buf: vec![],
        rates_buf: vec![],
        topo,
        trace,
    };
    for s in 0..st.socket_bus.len() {
        st.socket_bus[s] = BusState { latency_ns: st.solver.latency_curve().idle_ns(), utilisation: 0.0 };
    }
    st.power_now = st.power.power(0, 0.0);
    for (j, jp) in plan.jobs.iter().enumerate() {
        st.push(jp.arrival, Ev::Arrive(j as u32));
    }
    let name = policy.name();
    policy.init(&st).map_err(|e| format!("policy `{name}`: {e}"))?;
    let max_t = (opts.max_time_s * SECOND as f64) as Nanos;
    let mut hist = opts.timing.then(Histogram::new);
    let mut decisions = Vec::new();
    let mut events = 0u64;
    while st.n_done < n_threads {
        let Some(Reverse((at, _, ev))) = st.heap.pop() else {
            let waiting = st.th.iter().filter(|t| t.status == Status::Runnable).count();
            return Err(format!(
                "policy `{name}` stalled at t={:.6}s: {} threads unfinished, {waiting} runnable but not scheduled, nothing pending",
                st.now as f64 * 1e-9,
                n_threads - st.n_done
            ));
        };
        if at > max_t {
            return Err(format!("run exceeded the simulated-time limit of {} s", opts.max_time_s));
        }
        let live = match ev {
            Ev::StepEnd(t, g) => st.th[t as usize].gen == g,
            Ev::Timer(k, g) => st.timer_gen[k as usize] == g,
            _ => true,
        };
        if !live {
            continue;
        }
        st.settle_energy(at);
        st.now = at;
        match ev {
            Ev::Arrive(j) => {
                for t in plan.jobs[j as usize].threads.clone() {
                    st.resume(t);
                }
            }
            Ev::StepEnd(t, _) => {
                let Status::Running(c) = st.th[t as usize].status else { unreachable!() };
                let s = st.socket_of(c);
                st.settle_socket(s);
                st.th[t as usize].remaining = 0.0;
                st.step_done(t);
            }
            Ev::IoDone(t) => st.resume(t),
            Ev::Timer(k, _) => st.pending.push_back(Event::Timer { key: k }),
        }
        while let Some(e) = st.pending.pop_front() {
            decisions.clear();
            events += 1;
            let t0 = hist.as_ref().map(|_| Instant::now());
            policy.on_event(&e, &st, &mut decisions);
            if let (Some(h), Some(t0)) = (hist.as_mut(), t0) {
                h.add(t0.elapsed().as_nanos() as u64);
            }
            for &d in &decisions {
                st.apply(d, name)?;
            }
        }
        st.solve_dirty();
    }
    let makespan = st.now;
    // close open trace slices
    for c in 0..st.ctx_thread.len() {
        if let Some(t) = st.ctx_thread[c] {
            st.stop(t, Status::Done);
        }
    }
    let mut totals = Counters::default();
    for th in &st.th {
        totals.add(&th.counters);
    }
    let explored = if pairs_n > 1 {
        let set: u64 = st.pairs.iter().map(|w| w.count_ones() as u64).sum();
        set as f64 * 100.0 / (pairs_n * (pairs_n - 1)) as f64
    } else {
        0.0
    };
    Ok(RunOutput {
        makespan,
        job_finish: st.jobs.iter().map(|j| j.finish.unwrap_or(makespan)).collect(),
        totals,
        energy: st.energy,
        context_switches: st.switches,
        migrations: st.migrations,
        policy_events: events,
        explored_pairs_pct: explored,
        decision_us: hist.map(|h| (h.quantile_us(0.5), h.quantile_us(0.99))),
    })
}
