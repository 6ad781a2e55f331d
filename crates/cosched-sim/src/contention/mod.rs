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
//!   its LLC domain and miss for the rest; the share written by partners on
//!   its own core (SMT siblings, sharing its L1 and L2) hits in the L1 and
//!   saves the LLC hit's latency (`core.l1_exchange`).
//! * **Memory bus**: latency from the loaded-latency curve at the socket's
//!   utilisation (less the thread's own share where the machine's
//!   `self_queueing` < 1, EFS Eqs. 7-8); past the sustained maximum the
//!   latency is whatever makes demand equal the maximum.
//! * **DRAM interference**: what concurrent streams cost each other at the
//!   DRAM, read from the table the cycle-level controller measured for the
//!   machine's device and organisation (`crate::dram`, `Solver::row_conflicts`).
//!
//! Occupancy, miss rates, IPC and latency depend on each other; the solver
//! iterates occupancy (warm-started from the last solution, damped by half
//! as soon as an iteration fails to contract) around
//! a latency solve (relative tolerance 1e-7) until IPCs move less than 1e-6
//! relatively.

mod bus;
mod llc;

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
    /// Share of its exchange with partners running on its own core (SMT
    /// siblings: their writes are in the L1 and L2 it shares), 0 to `local`;
    /// those accesses hit in the L1 instead of the LLC.
    pub on_core: f64,
}

impl Runner {
    /// A thread alone on the machine, its partners (if any) beside it: the
    /// setting a phase's published IPC and miss rates describe.
    pub fn alone() -> Runner {
        Runner { model: 0, pipe: 0, core: 0, llc: 0, job: 0, occupancy_mb: 0.0, local: 1.0, on_core: 0.0 }
    }

    /// What the solution depends on: phase model, pipe, core, LLC domain, job
    /// and the local share of its exchange (to 1e-6), packed into one integer
    /// whose order is the lexicographic order of those six fields (pipes,
    /// cores and LLC domains number fewer than 4096: the machine loader's
    /// bound on contexts), and the on-core share of its exchange (to 1e-6).
    fn key(&self) -> Key {
        let local = (self.local * 1e6).round() as u32;
        debug_assert!(self.pipe < 1 << 12 && self.core < 1 << 12 && self.llc < 1 << 12 && local < 1 << 20);
        let local = local as u128;
        let packed = (self.model as u128) << 88
            | (self.pipe as u128) << 76
            | (self.core as u128) << 64
            | (self.llc as u128) << 52
            | (self.job as u128) << 20
            | local;
        (packed, (self.on_core * 1e6).round() as u32)
    }
}

/// A runner's co-schedule key (`Runner::key`).
type Key = (u128, u32);

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
    /// Cycles an exchange access saves when its writer shares the core (the
    /// LLC hit latency).
    exchange_hit_cycles: f64,
    lat: LoadedLatency,
    /// The cycle-level DRAM's row-conflict table, when the machine has `[memory.dram]` and
    /// the table has a non-zero entry.
    dram: Option<cosched_machine::spec::DramSpec>,
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
    cache: rustc_hash::FxHashMap<Vec<Key>, (Vec<Rates>, BusState)>,
    /// Runners held by `cache`'s co-schedules together (at most [`CACHE_RUNNERS`]).
    cached_runners: usize,
    order: Vec<usize>,
    /// Each runner's key, and the co-schedule's (sorted), reused between solves.
    keys: Vec<Key>,
    key: Vec<Key>,
    /// Sums per pipe and per core (indexed by the global pipe or core
    /// number; zero between solves).
    by_unit: Vec<UnitSums>,
    /// Each runner's shared tenant in `tenants` (`usize::MAX`: none), and
    /// the shared tenant of each (LLC domain, job) met so far.
    shared_of: Vec<usize>,
    shared_at: rustc_hash::FxHashMap<(u32, u32), usize>,
    /// Tenant indices grouped by LLC domain (stable: tenant order within a domain).
    by_domain: Vec<usize>,
}

/// What one solve sums over the runners of a pipe or a core.
#[derive(Clone, Copy, Debug, Default)]
struct UnitSums {
    threads: u32,
    issue: f64,
    l1_u: f64,
    l1_pen: f64,
}

/// Most distinct co-schedules whose solutions are remembered per run (the
/// cache then stops growing; memory stays bounded).
pub const CACHE_ENTRIES: usize = 1 << 16;

/// Most runners the remembered co-schedules hold together: each costs its key
/// and its rates (about 50 bytes), so a socket of hundreds of contexts would
/// otherwise remember gigabytes (1,024 runners × `CACHE_ENTRIES`). A socket of
/// up to 64 contexts (every preset's) still remembers `CACHE_ENTRIES`
/// co-schedules, so its runs are unchanged.
pub const CACHE_RUNNERS: usize = CACHE_ENTRIES * 64;

#[derive(Clone, Copy, Debug)]
struct Tenant {
    llc: u32,
    weight: f64,
    cap: f64,
    alloc: f64,
    fixed: bool,
}

/// Largest share of a thread's core-bound CPI that exchange hitting in the
/// L1 may save [A] (the LLC hits it replaces are part of that CPI alone).
pub const MAX_EXCHANGE_SAVING: f64 = 0.5;

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
            exchange_hit_cycles: m.cache.llc_hit_cycles,
            lat: LoadedLatency::of(&m.memory),
            // An all-zero table (the i5-2500's) costs nothing: the solve skips it.
            dram: m.memory.dram.clone().filter(|d| d.stretch.iter().flatten().any(|&x| x > 0.0)),
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
            cached_runners: 0,
            order: vec![],
            keys: vec![],
            key: vec![],
            by_unit: vec![UnitSums::default(); m.n_contexts()],
            shared_of: vec![],
            shared_at: Default::default(),
            by_domain: vec![],
        }
    }

    /// The loaded-latency curve.
    pub fn latency_curve(&self) -> &LoadedLatency {
        &self.lat
    }

    /// Runners the remembered co-schedules hold together (bounded by [`CACHE_RUNNERS`]).
    pub fn cached_runners(&self) -> usize {
        self.cached_runners
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
        if self.cache.len() < CACHE_ENTRIES && self.cached_runners + runners.len() <= CACHE_RUNNERS {
            let sorted: Vec<Rates> = self.order.iter().map(|&i| out[i]).collect();
            self.cache.insert(self.key.clone(), (sorted, bus));
            self.cached_runners += runners.len();
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
        // Per-pipe and per-core sums in one pass over the runners (in runner
        // order, so each sum adds the same terms in the same order as a scan
        // of the runners sharing the pipe or core would): threads per pipe,
        // the pipe's issue demand, the core's L1 demand.
        let by = &mut self.by_unit;
        for r in runners {
            let m = &models[r.model as usize];
            let p = &mut by[r.pipe as usize];
            p.threads += 1;
            p.issue += m.ipc_alone;
            by[r.core as usize].l1_u += m.l1_rate_alone() / self.l1_bw;
        }
        self.s_pipe.clear();
        self.s_pipe.extend(runners.iter().map(|r| 1.0 + pen * (by[r.pipe as usize].threads as f64 - 1.0)));
        for (r, &s) in runners.iter().zip(&self.s_pipe) {
            by[r.core as usize].l1_pen += models[r.model as usize].l1_rate_alone() / s / self.l1_bw;
        }
        for (i, ri) in runners.iter().enumerate() {
            let mi = &models[ri.model as usize];
            let s_pipe = self.s_pipe[i];
            let (issue, l1_u, l1_pen) =
                (by[ri.pipe as usize].issue, by[ri.core as usize].l1_u, by[ri.core as usize].l1_pen);
            let own = mi.l1_rate_alone() / self.l1_bw;
            let issue_u = issue / (self.issue_width * s_pipe);
            let l1 = (1.0 + self.l1_contention * (l1_u * l1_u - own * own)).max(l1_pen);
            let b = mi.cpi_core * s_pipe * issue_u.max(1.0) * l1.max(1.0);
            // Exchange with partners on this core hits in the L1: the LLC hit
            // latency it paid alone (partners beside it in the LLC) is saved,
            // overlapped as its misses are (MLP), at most MAX_EXCHANGE_SAVING of b.
            let save = mi.comm_apki / 1000.0 * self.exchange_hit_cycles * ri.on_core / mi.mlp;
            self.b.push(b - save.min(MAX_EXCHANGE_SAVING * b));
        }
        for r in runners {
            by[r.pipe as usize] = UnitSums::default();
            by[r.core as usize] = UnitSums::default();
        }
    }
}
