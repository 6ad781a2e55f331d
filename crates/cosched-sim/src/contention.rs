//! Contention: the ground truth no policy sees. Given the threads running on
//! one socket, find each one's IPC, LLC miss rate and LLC occupancy.
//!
//! * **SMT/pipe sharing**: a thread's core-bound CPI grows by
//!   `1 + smt_penalty·(k−1)` with `k` threads on its pipe, and further when
//!   the pipe's issue demand or the core's L1 demand exceeds capacity
//!   (demands at solo IPC, scaled by the SMT slowdown).
//! * **LLC occupancy**: capacity shared in proportion to insertion (miss)
//!   rates, each tenant capped at its footprint (water-filling); a job's
//!   shared data is one tenant fed by all its threads in the domain
//!   (`workload-sources.md` §3, "Occupancy ∝ insertion rate").
//! * **Exchange between threads**: a thread's accesses to data its partners
//!   wrote (`comm_apki`) hit in the LLC for the share of partners running in
//!   its LLC domain and miss for the rest.
//! * **Memory bus**: latency from the loaded-latency curve at the socket's
//!   utilisation (less the thread's own share where the machine's
//!   `self_queueing` < 1, EFS Eqs. 7-8); past the sustained maximum the
//!   latency is whatever makes demand equal the maximum.
//! * **DRAM interference**: concurrent streams break each other's open rows;
//!   each row switch costs bank time, so the bus delivers less than its
//!   sustained maximum (`Solver::row_conflicts`).
//!
//! Occupancy, miss rates, IPC and latency depend on each other; the solver
//! iterates occupancy (warm-started from the last solution, damped by half
//! as soon as an iteration fails to contract) around
//! a latency solve (relative tolerance 1e-7) until IPCs move less than 1e-6
//! relatively.

use crate::model::{LoadedLatency, PhaseModel};
use cosched_machine::MachineSpec;

/// A running thread as the solver sees it.
#[derive(Clone, Copy, Debug)]
pub struct Runner {
    /// Index of its current phase model.
    pub model: u32,
    /// Its pipe, core and LLC domain (global indices).
    pub pipe: u32,
    /// Core.
    pub core: u32,
    /// LLC domain.
    pub llc: u32,
    /// Job instance (for shared data).
    pub job: u32,
    /// LLC capacity it held at the last solve, MiB (warm start; 0 = none).
    pub occupancy_mb: f64,
    /// Share of its exchange with partner threads that stays in its LLC
    /// domain (partners running there), 0-1; the rest misses.
    pub local: f64,
}

impl Runner {
    /// A thread alone on the machine, its partners (if any) beside it: the
    /// setting a phase's published IPC and miss rates describe.
    pub fn alone() -> Runner {
        Runner { model: 0, pipe: 0, core: 0, llc: 0, job: 0, occupancy_mb: 0.0, local: 1.0 }
    }

    /// What the solution depends on: phase model, pipe, core, LLC domain, job
    /// and the local share of its exchange (to 1e-6), packed into one integer
    /// whose order is the lexicographic order of those six fields (pipes,
    /// cores and LLC domains number fewer than 4096: the machine loader's
    /// bound on contexts).
    fn key(&self) -> u128 {
        let local = (self.local * 1e6).round() as u32;
        debug_assert!(self.pipe < 1 << 12 && self.core < 1 << 12 && self.llc < 1 << 12 && local < 1 << 20);
        let local = local as u128;
        (self.model as u128) << 88
            | (self.pipe as u128) << 76
            | (self.core as u128) << 64
            | (self.llc as u128) << 52
            | (self.job as u128) << 20
            | local
    }
}

/// The solution for one runner.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Rates {
    /// Instructions per cycle.
    pub ipc: f64,
    /// LLC misses per kilo-instruction.
    pub mpki: f64,
    /// LLC capacity held (private + shared share), MiB.
    pub occupancy_mb: f64,
    /// The private part of it, MiB.
    pub private_mb: f64,
}

/// Socket-level result.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BusState {
    /// Memory latency a newly arriving stream sees (all traffic is others'), ns.
    pub latency_ns: f64,
    /// Bus utilisation (delivered / sustained maximum).
    pub utilisation: f64,
}

/// The solver, with the machine's constants and reusable scratch space.
pub struct Solver {
    f_ghz: f64,
    mu: f64,
    llc_mb: f64,
    smt_penalty: f64,
    l1_contention: f64,
    issue_width: f64,
    l1_bw: f64,
    lat: LoadedLatency,
    /// DRAM banks and row-switch time (ns), when the machine models row conflicts.
    dram: Option<(f64, f64)>,
    /// Service-time stretch from row conflicts at the current solve (1 = none).
    stretch: f64,
    // scratch
    /// Latency each runner sees, ns.
    l: Vec<f64>,
    /// Each runner's bus demand at the previous iteration (utilisation).
    own: Vec<f64>,
    /// Each runner's memory-level parallelism.
    mlp: Vec<f64>,
    b: Vec<f64>,
    a: Vec<f64>,
    c: Vec<f64>,
    s_eff: Vec<f64>,
    s_pipe: Vec<f64>,
    /// Occupancy at which each runner's miss curve was last read, and the value.
    mrc_at: Vec<f64>,
    mrc_mpki: Vec<f64>,
    prev_ipc: Vec<f64>,
    tenants: Vec<Tenant>,
    /// Solutions by co-schedule (Fx hashing: the keys are small integer
    /// arrays, and SipHash cost 7% of a run's time; nothing iterates the map).
    cache: rustc_hash::FxHashMap<Vec<u128>, (Vec<Rates>, BusState)>,
    order: Vec<usize>,
    /// Each runner's key, and the co-schedule's (sorted), reused between solves.
    keys: Vec<u128>,
    key: Vec<u128>,
}

/// Most distinct co-schedules whose solutions are remembered per run (the
/// cache then stops growing; memory stays bounded).
pub const CACHE_ENTRIES: usize = 1 << 16;

#[derive(Clone, Copy, Debug)]
struct Tenant {
    llc: u32,
    job: u32,
    weight: f64,
    cap: f64,
    alloc: f64,
    fixed: bool,
}

const MAX_ITERS: usize = 40;
const TOL: f64 = 1e-6;

impl Solver {
    /// A solver for machine `m`.
    pub fn new(m: &MachineSpec) -> Solver {
        Solver {
            f_ghz: m.freq_ghz,
            mu: m.bus_lines_per_s(),
            llc_mb: m.cache.llc_mb,
            smt_penalty: m.core.smt_penalty,
            l1_contention: m.core.l1_contention,
            issue_width: m.core.issue_width,
            l1_bw: m.core.l1_accesses_per_cycle,
            lat: LoadedLatency::of(&m.memory),
            dram: m.memory.dram.as_ref().map(|d| (d.banks as f64, d.switch_ns)),
            l: vec![],
            own: vec![],
            mlp: vec![],
            stretch: 1.0,
            b: vec![],
            a: vec![],
            c: vec![],
            s_eff: vec![],
            s_pipe: vec![],
            mrc_at: vec![],
            mrc_mpki: vec![],
            prev_ipc: vec![],
            tenants: vec![],
            cache: Default::default(),
            order: vec![],
            keys: vec![],
            key: vec![],
        }
    }

    /// The loaded-latency curve.
    pub fn latency_curve(&self) -> &LoadedLatency {
        &self.lat
    }

    /// Solve one socket. `out` receives one [`Rates`] per runner.
    ///
    /// The solution depends only on which phase models run on which pipes,
    /// cores, LLC domains and jobs, so solutions are remembered by that
    /// co-schedule (threads of one class share their models, so co-schedules
    /// repeat constantly); a repeat returns the remembered solution instead
    /// of iterating again (it differs from a fresh warm-started solve only
    /// within the solver's 1e-6 tolerance, and deterministically).
    pub fn solve(&mut self, models: &[PhaseModel], runners: &[Runner], out: &mut Vec<Rates>) -> BusState {
        self.keys.clear();
        self.keys.extend(runners.iter().map(Runner::key));
        self.order.clear();
        self.order.extend(0..runners.len());
        let keys = &self.keys;
        self.order.sort_by_key(|&i| keys[i]);
        self.key.clear();
        self.key.extend(self.order.iter().map(|&i| keys[i]));
        if let Some((rates, bus)) = self.cache.get(self.key.as_slice()) {
            out.clear();
            out.resize(runners.len(), Rates::default());
            for (k, &i) in self.order.iter().enumerate() {
                out[i] = rates[k];
            }
            return *bus;
        }
        let bus = self.solve_fresh(models, runners, out);
        if self.cache.len() < CACHE_ENTRIES {
            let sorted: Vec<Rates> = self.order.iter().map(|&i| out[i]).collect();
            self.cache.insert(self.key.clone(), (sorted, bus));
        }
        bus
    }

    fn solve_fresh(&mut self, models: &[PhaseModel], runners: &[Runner], out: &mut Vec<Rates>) -> BusState {
        let n = runners.len();
        out.clear();
        out.resize(n, Rates::default());
        if n == 0 {
            return BusState { latency_ns: self.lat.idle_ns(), utilisation: 0.0 };
        }
        self.smt_factors(models, runners);
        // initial occupancy
        self.s_eff.clear();
        for r in runners {
            let m = &models[r.model as usize];
            let s = if r.occupancy_mb > 0.0 { r.occupancy_mb } else { self.llc_mb.min(m.mrc.footprint_mb) };
            self.s_eff.push(s);
        }
        self.a.resize(n, 0.0);
        self.c.resize(n, 0.0);
        self.mrc_at.clear();
        self.mrc_at.resize(n, f64::NAN);
        self.mrc_mpki.clear();
        self.mrc_mpki.resize(n, 0.0);
        self.l.clear();
        self.l.resize(n, self.lat.idle_ns());
        self.own.clear();
        self.own.resize(n, 0.0);
        self.mlp.clear();
        self.mlp.extend(runners.iter().map(|r| models[r.model as usize].mlp));
        self.stretch = 1.0;
        let mut bus = BusState::default();
        let mut prev_ipc = std::mem::take(&mut self.prev_ipc);
        let mut damp = 1.0;
        let mut last_moved = f64::INFINITY;
        for iter in 0..MAX_ITERS {
            for (i, r) in runners.iter().enumerate() {
                let m = &models[r.model as usize];
                // The miss curve is a power law (one `powf`); a runner whose
                // occupancy did not move since the last iteration (a capped
                // tenant, or one converged) reuses its value.
                if self.s_eff[i].to_bits() != self.mrc_at[i].to_bits() {
                    self.mrc_at[i] = self.s_eff[i];
                    self.mrc_mpki[i] = m.mrc.mpki(self.s_eff[i]);
                }
                let mpki = self.mrc_mpki[i] + m.comm_apki * (1.0 - r.local);
                out[i].mpki = mpki;
                self.a[i] = mpki / 1000.0 * (1.0 + m.wb_ratio) * self.f_ghz * 1e9 / self.mu;
                self.c[i] = mpki / 1000.0 * self.f_ghz / m.mlp;
            }
            // Row conflicts stretch each line's service: the same traffic is a
            // higher utilisation, and queueing at a utilisation takes longer.
            self.stretch = 1.0 + self.row_conflicts(models, runners);
            if self.stretch > 1.0 {
                let s = self.stretch;
                self.a.iter_mut().for_each(|a| *a *= s);
            }
            bus = self.solve_latency();
            let mut moved = 0.0f64;
            for i in 0..n {
                let ipc = 1.0 / (self.b[i] + self.c[i] * self.l[i]);
                if iter > 0 {
                    moved = moved.max((ipc - prev_ipc[i]).abs() / ipc);
                }
                out[i].ipc = ipc;
                self.own[i] = self.a[i] * ipc;
            }
            if iter > 0 && moved < TOL {
                break;
            }
            if iter > 1 && moved >= last_moved {
                damp = 0.5; // not contracting: damp from here on
            }
            last_moved = moved;
            prev_ipc.clear();
            prev_ipc.extend(out.iter().map(|o| o.ipc));
            self.occupancy(models, runners, out, if iter == 0 { 1.0 } else { damp });
        }
        self.prev_ipc = prev_ipc;
        for (i, r) in runners.iter().enumerate() {
            out[i].occupancy_mb = self.s_eff[i];
            let m = &models[r.model as usize];
            let total = m.private_mb + m.shared_mb;
            out[i].private_mb =
                if total > 0.0 { (self.s_eff[i] * m.private_mb / total).min(m.private_mb) } else { 0.0 };
        }
        bus
    }

    fn smt_factors(&mut self, models: &[PhaseModel], runners: &[Runner]) {
        self.b.clear();
        let pen = self.smt_penalty;
        // Threads per pipe, then each thread's SMT slowdown and L1 demand.
        self.s_pipe.clear();
        for ri in runners {
            let k = runners.iter().filter(|r| r.pipe == ri.pipe).count() as f64;
            self.s_pipe.push(1.0 + pen * (k - 1.0));
        }
        for (i, ri) in runners.iter().enumerate() {
            let mi = &models[ri.model as usize];
            let s_pipe = self.s_pipe[i];
            let (mut issue, mut l1_pen, mut l1_u) = (0.0, 0.0, 0.0);
            for (j, rj) in runners.iter().enumerate() {
                let mj = &models[rj.model as usize];
                if rj.pipe == ri.pipe {
                    issue += mj.ipc_alone;
                }
                if rj.core == ri.core {
                    l1_u += mj.l1_rate_alone() / self.l1_bw;
                    l1_pen += mj.l1_rate_alone() / self.s_pipe[j] / self.l1_bw;
                }
            }
            let own = mi.l1_rate_alone() / self.l1_bw;
            let issue_u = issue / (self.issue_width * s_pipe);
            let l1 = (1.0 + self.l1_contention * (l1_u * l1_u - own * own)).max(l1_pen);
            self.b.push(mi.cpi_core * s_pipe * issue_u.max(1.0) * l1.max(1.0));
        }
    }

    /// ρ(L), the bus utilisation demanded at latency `l`, and dρ/dL.
    #[inline]
    fn rho(&self, l: f64) -> (f64, f64) {
        let (mut r, mut d) = (0.0, 0.0);
        for i in 0..self.b.len() {
            let den = self.b[i] + self.c[i] * l;
            let x = self.a[i] / den;
            r += x;
            d -= x * self.c[i] / den;
        }
        (r, d)
    }

    /// DRAM row conflicts between concurrent streams: the extra bus time per
    /// line, as a share of the sustained line time (0 without `[memory.dram]`).
    ///
    /// With `n` streams (the effective number, `(Σd)²/Σd²` over the threads'
    /// current demands `d`) spread over `B` banks, a stream shares its bank
    /// with another with probability `p = 1 − (1 − 1/B)^(n−1)`. A controller
    /// that serves open-row hits first (FR-FCFS) then alternates between the
    /// sharers' rows every batch of `MLP` requests (what one stream has
    /// outstanding), each switch costing `switch_ns` of bank time; only the
    /// `row_locality` share of a stream's accesses had an open row to lose.
    /// Extra time per line of stream `i`: `h_i · p · switch / MLP_i`, weighted
    /// by its share of the traffic (`docs/model.md`, "DRAM interference").
    fn row_conflicts(&self, models: &[PhaseModel], runners: &[Runner]) -> f64 {
        let Some((banks, switch_ns)) = self.dram else { return 0.0 };
        let (mut sum, mut sum2, mut extra) = (0.0, 0.0, 0.0);
        for (i, r) in runners.iter().enumerate() {
            let m = &models[r.model as usize];
            let d = self.demand(i, self.l[i]);
            sum += d;
            sum2 += d * d;
            extra += d * m.row_locality * switch_ns / m.mlp;
        }
        if sum <= 0.0 {
            return 0.0;
        }
        let streams = sum * sum / sum2;
        let p = 1.0 - (1.0 - 1.0 / banks).powf(streams - 1.0);
        let line_ns = 1e9 / self.mu;
        p * extra / sum / line_ns
    }

    /// Latency at utilisation `r` with the queueing part (above idle)
    /// stretched by the row-conflict service time, and its slope.
    #[inline]
    fn curve_and_slope(&self, r: f64) -> (f64, f64) {
        let l0 = self.lat.idle_ns();
        let (ns, slope) = self.lat.ns_and_slope(r);
        (l0 + self.stretch * (ns - l0), self.stretch * slope)
    }

    /// [`Self::curve_and_slope`] without the slope.
    #[inline]
    fn curve(&self, r: f64) -> f64 {
        self.curve_and_slope(r).0
    }

    /// Bus utilisation demanded by runner `i` at latency `l`.
    #[inline]
    fn demand(&self, i: usize, l: f64) -> f64 {
        self.a[i] / (self.b[i] + self.c[i] * l)
    }

    /// Solve for the latency every runner sees (into `self.l`) and the bus state.
    fn solve_latency(&mut self) -> BusState {
        if self.lat.own_excluded() > 0.0 {
            return self.solve_latency_per_thread();
        }
        let bus = self.solve_latency_shared();
        self.l.iter_mut().for_each(|l| *l = bus.latency_ns);
        bus
    }

    /// Every runner sees the same latency (`self_queueing` = 1).
    fn solve_latency_shared(&self) -> BusState {
        let (l0, l1) = (self.lat.idle_ns(), self.curve(1.0));
        if self.rho(l1).0 >= 1.0 {
            // Saturated: find L ≥ l1 with ρ(L) = 1. ρ is convex and decreasing,
            // so Newton from the left converges monotonically.
            let mut l = l1;
            for _ in 0..100 {
                let (r, d) = self.rho(l);
                if d == 0.0 {
                    break;
                }
                let step = (1.0 - r) / d;
                l += step;
                if step.abs() <= 1e-9 * l {
                    break;
                }
            }
            return BusState { latency_ns: l, utilisation: 1.0 };
        }
        // φ(L) = curve(ρ(L)) − L is decreasing with φ(l0) ≥ 0 ≥ φ(l1):
        // Newton's method, falling back to bisection when a step leaves the bracket.
        let (mut lo, mut hi) = (l0, l1);
        let mut x = l0;
        for _ in 0..100 {
            let (r, dr) = self.rho(x);
            let (ns, slope) = self.curve_and_slope(r);
            let phi = ns - x;
            if phi.abs() < 1e-7 * x {
                break;
            }
            if phi > 0.0 {
                lo = x;
            } else {
                hi = x;
            }
            let dphi = slope * dr - 1.0;
            let next = x - phi / dphi;
            x = if next > lo && next < hi { next } else { 0.5 * (lo + hi) };
            if hi - lo < 1e-9 * hi {
                break;
            }
        }
        BusState { latency_ns: x, utilisation: self.rho(x).0 }
    }

    /// Each runner reads the curve at the total utilisation less the
    /// excluded share of its own, bounded by the closed population (the
    /// requests outstanding ahead of it, `Σ_j MLP_j − w·MLP_i`, one line time
    /// each: Little's law): `L_i = min(curve(ρ − w·u_i), L_0 + cap_i) + E`, `ρ` the total
    /// utilisation and `E` the extra queueing once the bus is saturated. `u_i`
    /// is the runner's demand from the previous iteration of the outer loop
    /// (its fixed point is the joint solution), so total demand is decreasing
    /// in `ρ` and in `E` and each has one root.
    fn solve_latency_per_thread(&mut self) -> BusState {
        let w = self.lat.own_excluded();
        // Closed population: a request never waits behind more than the
        // requests the others (and, by self_queueing, it) have outstanding.
        let line_ns = 1e9 * self.stretch / self.mu;
        let outstanding: f64 = self.mlp.iter().sum();
        let total = |s: &mut Self, rho: f64, extra: f64| -> f64 {
            let mut sum = 0.0;
            for i in 0..s.b.len() {
                let cap = s.lat.idle_ns() + line_ns * (outstanding - w * s.mlp[i]);
                let l = s.curve(rho - w * s.own[i]).min(cap) + extra;
                s.l[i] = l;
                sum += s.demand(i, l);
            }
            sum
        };
        let (rho, extra) = if total(self, 1.0, 0.0) >= 1.0 {
            // Saturated: the extra queueing E that brings demand down to 1.
            let mut hi = self.curve(1.0).max(1.0);
            while total(self, 1.0, hi) > 1.0 {
                hi *= 2.0;
            }
            (1.0, root_decreasing(|e| total(self, 1.0, e) - 1.0, 0.0, hi, 1e-9 * hi))
        } else {
            (root_decreasing(|r| total(self, r, 0.0) - r, 0.0, 1.0, 1e-12), 0.0)
        };
        let sum = total(self, rho, extra);
        // What a typical access waits: the demand-weighted mean latency.
        let mean = (0..self.b.len()).map(|i| self.demand(i, self.l[i]) * self.l[i]).sum::<f64>();
        BusState { latency_ns: if sum > 0.0 { mean / sum } else { self.lat.idle_ns() }, utilisation: rho }
    }

    fn occupancy(&mut self, models: &[PhaseModel], runners: &[Runner], out: &[Rates], step: f64) {
        let n = runners.len();
        self.tenants.clear();
        // Private tenants at 0..n, one shared tenant per (LLC domain, job) after them.
        for (i, r) in runners.iter().enumerate() {
            let m = &models[r.model as usize];
            let total = m.private_mb + m.shared_mb;
            let share_priv = if total > 0.0 { m.private_mb / total } else { 1.0 };
            let misses = out[i].ipc * out[i].mpki + 1e-9;
            self.tenants.push(Tenant {
                llc: r.llc,
                job: r.job,
                weight: misses * share_priv,
                cap: m.private_mb,
                alloc: 0.0,
                fixed: false,
            });
        }
        for (i, r) in runners.iter().enumerate() {
            let m = &models[r.model as usize];
            if m.shared_mb <= 0.0 {
                continue;
            }
            let share_shared = m.shared_mb / (m.private_mb + m.shared_mb);
            let w = (out[i].ipc * out[i].mpki + 1e-9) * share_shared;
            match self.tenants[n..].iter_mut().find(|t| t.llc == r.llc && t.job == r.job) {
                Some(t) => {
                    t.weight += w;
                    t.cap = t.cap.max(m.shared_mb);
                }
                None => self.tenants.push(Tenant {
                    llc: r.llc,
                    job: r.job,
                    weight: w,
                    cap: m.shared_mb,
                    alloc: 0.0,
                    fixed: false,
                }),
            }
        }
        waterfill(&mut self.tenants, self.llc_mb);
        for (i, r) in runners.iter().enumerate() {
            let shared = self.tenants[n..].iter().find(|t| t.llc == r.llc && t.job == r.job).map_or(0.0, |t| t.alloc);
            let target = self.tenants[i].alloc + shared;
            self.s_eff[i] += step * (target - self.s_eff[i]);
        }
    }
}

/// The root of `f`, decreasing on `[lo, hi]` with `f(lo) ≥ 0 ≥ f(hi)`, to
/// within `tol` (Illinois false position: bisection's safety, near-secant speed).
fn root_decreasing(mut f: impl FnMut(f64) -> f64, mut lo: f64, mut hi: f64, tol: f64) -> f64 {
    let (mut flo, mut fhi) = (f(lo), f(hi));
    if flo <= 0.0 {
        return lo;
    }
    if fhi >= 0.0 {
        return hi;
    }
    let (mut side, mut last) = (0, f64::NAN);
    for _ in 0..200 {
        let x = (lo * fhi - hi * flo) / (fhi - flo);
        let fx = f(x);
        if fx == 0.0 || hi - lo <= tol || (x - last).abs() <= tol {
            return x;
        }
        last = x;
        if fx > 0.0 {
            lo = x;
            flo = fx;
            if side == 1 {
                fhi *= 0.5;
            }
            side = 1;
        } else {
            hi = x;
            fhi = fx;
            if side == -1 {
                flo *= 0.5;
            }
            side = -1;
        }
    }
    0.5 * (lo + hi)
}

/// Share each LLC domain's capacity among its tenants in proportion to their
/// weights, capping each at its footprint and handing the surplus on.
fn waterfill(tenants: &mut [Tenant], capacity: f64) {
    let mut next_domain = tenants.iter().map(|t| t.llc).min();
    while let Some(d) = next_domain {
        let mut rem = capacity;
        loop {
            let (mut wsum, mut nfree) = (0.0, 0usize);
            for t in tenants.iter().filter(|t| t.llc == d && !t.fixed) {
                wsum += t.weight;
                nfree += 1;
            }
            if nfree == 0 {
                break;
            }
            let share = |t: &Tenant| {
                if wsum > 0.0 {
                    rem * t.weight / wsum
                } else {
                    rem / nfree as f64
                }
            };
            let mut capped = false;
            for t in tenants.iter_mut().filter(|t| t.llc == d && !t.fixed) {
                if share(t) >= t.cap {
                    t.alloc = t.cap;
                    t.fixed = true;
                    capped = true;
                }
            }
            if capped {
                rem = capacity - tenants.iter().filter(|t| t.llc == d && t.fixed).map(|t| t.alloc).sum::<f64>();
                continue;
            }
            for t in tenants.iter_mut().filter(|t| t.llc == d && !t.fixed) {
                t.alloc = share(t);
                t.fixed = true;
            }
            break;
        }
        next_domain = tenants.iter().map(|t| t.llc).filter(|&l| l > d).min();
    }
}
