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
//! iterates occupancy (from a cold start: each thread holding what fits of
//! its footprint; each step scaled by a secant estimate of the map's slope) around
//! a latency solve (relative tolerance 1e-7) until IPCs move less than 1e-6
//! relatively.

mod bus;
mod domain;
mod fixed_point;
mod llc;
mod memo;

pub use domain::{latency_grid, DomainTraffic, DRIFT_TOL, LATENCY_GRID, OCCUPANCY_TOL};
pub use memo::SharedSolutions;

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
        Runner { model: 0, pipe: 0, core: 0, llc: 0, job: 0, local: 1.0, on_core: 0.0 }
    }

    /// What the solution depends on: phase model, pipe, core, LLC domain, job
    /// and the local share of its exchange (to 1e-6), packed into one integer
    /// whose order is the lexicographic order of those six fields (pipes,
    /// cores and LLC domains number fewer than 4096: the machine loader's
    /// bound on contexts), and the on-core share of its exchange (to 1e-6).
    fn key(&self) -> Key {
        let local = grid(self.local);
        debug_assert!(self.pipe < 1 << 12 && self.core < 1 << 12 && self.llc < 1 << 12 && local < 1 << 20);
        let local = local as u128;
        let packed = (self.model as u128) << 88
            | (self.pipe as u128) << 76
            | (self.core as u128) << 64
            | (self.llc as u128) << 52
            | (self.job as u128) << 20
            | local;
        (packed, grid(self.on_core))
    }
}

/// A share in 0-1 on the keys' 1e-6 grid (to nearest; the cast truncates,
/// and a share is never negative).
#[inline]
fn grid(x: f64) -> u32 {
    (x * 1e6 + 0.5) as u32
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
    /// The factor another busy core of its LLC domain stretches its time by
    /// (`PhaseModel::presence` where one runs, else 1; design note 67): `ipc`
    /// is its rate stretched; the bus saw `ipc × presence`.
    pub presence: f64,
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
    /// Each runner's presence factor (design note 67): its model's where a
    /// runner of another core is in the solve, else 1.
    pres: Vec<f64>,
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
    /// The canonical form of the co-schedule being solved (`Solver::canonical`),
    /// and scratch space for building it: renumbered ids of each kind (LLC
    /// domain, core, pipe, job; `u32::MAX` between solves), a permutation,
    /// runners and an order.
    canon: Vec<Runner>,
    renumber: [Vec<u32>; 4],
    perm: Vec<usize>,
    scratch_runners: Vec<Runner>,
    scratch_order: Vec<usize>,
    /// Solutions shared with other runs of the same machine and plan.
    shared: Option<std::sync::Arc<SharedSolutions>>,
    /// Each runner's first-sort key ([`Solver::canonical`]) with its index, sorted.
    first: Vec<(FirstKey, u32)>,
    /// The last solution of each slot ([`Solver::solve_slot`]: one per socket).
    last: Vec<LastSolve>,
    /// The occupancy iteration's step per runner, this iteration's and the last.
    occ_step: Vec<f64>,
    occ_prev: Vec<f64>,
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

/// What orders runners before their renumbering ([`Solver::canonical`]): phase
/// model, exchange shares on the key's grid, LLC domain, core, pipe, job.
type FirstKey = [u32; 7];

/// A slot's last solve: the runners' first-sort keys in order, the rates of the
/// runner at each of those places, and the bus. The solution is a function of
/// that key sequence alone (the renumbering and the keys are computed from it),
/// so a solve whose sequence equals it has these rates, bit for bit.
#[derive(Default)]
struct LastSolve {
    keys: Vec<FirstKey>,
    rates: Vec<Rates>,
    bus: BusState,
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
/// Bounds of the occupancy iteration's step (`Solver::solve_fresh_at`).
const MIN_RELAX: f64 = 0.1;
const MAX_RELAX: f64 = 2.0;
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
            pres: vec![],
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
            canon: vec![],
            renumber: Default::default(),
            perm: vec![],
            scratch_runners: vec![],
            scratch_order: vec![],
            shared: None,
            first: vec![],
            last: vec![],
            occ_step: vec![],
            occ_prev: vec![],
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

    /// Share solutions with the other runs of the same machine and plan that hold `shared`.
    pub fn share(&mut self, shared: std::sync::Arc<SharedSolutions>) {
        self.shared = Some(shared);
    }

    /// Runners the remembered co-schedules hold together (bounded by [`CACHE_RUNNERS`]).
    pub fn cached_runners(&self) -> usize {
        self.cached_runners
    }
}
