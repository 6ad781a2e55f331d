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
mod llc;

use crate::model::{LoadedLatency, PhaseModel};
use cosched_machine::MachineSpec;

/// Solutions shared between the runs of one machine and one plan (the many
/// runs of a search for the best static co-schedule): each solution is a
/// function of its co-schedule key alone ([`Solver::solve`]), so which run
/// solved it first does not matter and runs in parallel stay deterministic.
/// Bounded like a run's own cache ([`CACHE_ENTRIES`], [`CACHE_RUNNERS`]).
#[derive(Default)]
pub struct SharedSolutions {
    map: std::sync::Mutex<SharedMap>,
}

#[derive(Default)]
struct SharedMap {
    solutions: rustc_hash::FxHashMap<Vec<Key>, (Vec<Rates>, BusState)>,
    runners: usize,
}

impl SharedSolutions {
    fn get(&self, key: &[Key]) -> Option<(Vec<Rates>, BusState)> {
        self.map.lock().ok()?.solutions.get(key).cloned()
    }

    fn insert(&self, key: &[Key], solution: &(Vec<Rates>, BusState)) {
        let Ok(mut m) = self.map.lock() else { return };
        let n = solution.0.len();
        if m.solutions.len() < CACHE_ENTRIES && m.runners + n <= CACHE_RUNNERS && !m.solutions.contains_key(key) {
            m.solutions.insert(key.to_vec(), solution.clone());
            m.runners += n;
        }
    }

    /// Co-schedules remembered.
    pub fn len(&self) -> usize {
        self.map.lock().map_or(0, |m| m.solutions.len())
    }

    /// Whether none is remembered yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

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
/// Bounds of the occupancy iteration's step (`Solver::solve_fresh`).
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

    /// Solve one socket. `out` receives one [`Rates`] per runner.
    ///
    /// The solution depends only on which phase models run together and how
    /// they share pipes, cores, LLC domains and jobs, not on which pipe or
    /// core numbers they hold nor on what ran before: the runners are put in
    /// a canonical form ([`Solver::canonical`]: ids renumbered by first
    /// appearance, exchange shares on the key's 1e-6 grid) and a fresh solve
    /// works on that form from a cold start, so it is a function of the key
    /// alone. Solutions are remembered by that key (threads of one class
    /// share their models, so co-schedules repeat constantly), within the run
    /// and, when the solver was given one, in a cache shared between runs of
    /// the same machine and plan ([`SharedSolutions`]): a repeat returns the
    /// same bits a fresh solve would, whichever run solved it first.
    pub fn solve(&mut self, models: &[PhaseModel], runners: &[Runner], out: &mut Vec<Rates>) -> BusState {
        self.first_sort(runners);
        self.solve_sorted(models, runners, out)
    }

    /// [`Solver::solve`] for the runners of slot `slot` (the engine's socket):
    /// when they are, up to their order, those of the slot's last solve (the
    /// same first-sort keys), that solve's rates are returned without the
    /// renumbering and the lookup. Bit for bit what [`Solver::solve`] returns.
    pub fn solve_slot(
        &mut self,
        slot: usize,
        models: &[PhaseModel],
        runners: &[Runner],
        out: &mut Vec<Rates>,
    ) -> BusState {
        self.first_sort(runners);
        if self.last.len() <= slot {
            self.last.resize_with(slot + 1, LastSolve::default);
        }
        let last = &self.last[slot];
        if last.keys.len() == runners.len() && last.keys.iter().zip(&self.first).all(|(a, (b, _))| a == b) {
            out.clear();
            out.resize(runners.len(), Rates::default());
            for (p, &(_, i)) in self.first.iter().enumerate() {
                out[i as usize] = last.rates[p];
            }
            return last.bus;
        }
        let bus = self.solve_sorted(models, runners, out);
        let last = &mut self.last[slot];
        last.keys.clear();
        last.keys.extend(self.first.iter().map(|(k, _)| *k));
        last.rates.clear();
        last.rates.extend(self.first.iter().map(|&(_, i)| out[i as usize]));
        last.bus = bus;
        bus
    }

    /// The runners' first-sort keys with their indices, sorted (ties, which
    /// only identical keys make, in runner order): `self.first`.
    fn first_sort(&mut self, runners: &[Runner]) {
        self.first.clear();
        self.first.extend(
            runners
                .iter()
                .enumerate()
                .map(|(i, r)| ([r.model, grid(r.local), grid(r.on_core), r.llc, r.core, r.pipe, r.job], i as u32)),
        );
        self.first.sort_unstable();
    }

    /// [`Solver::solve`] once `self.first` holds the runners' sorted first-sort keys.
    fn solve_sorted(&mut self, models: &[PhaseModel], runners: &[Runner], out: &mut Vec<Rates>) -> BusState {
        self.canonical(runners);
        if let Some((rates, bus)) = self.cache.get(self.key.as_slice()) {
            out.clear();
            out.resize(runners.len(), Rates::default());
            for (k, &i) in self.order.iter().enumerate() {
                out[i] = rates[k];
            }
            return *bus;
        }
        let found = self.shared.as_ref().and_then(|s| s.get(&self.key));
        let (rates, bus) = match found {
            Some(hit) => {
                self.remember(hit.clone());
                hit
            }
            None => {
                let canon = std::mem::take(&mut self.canon);
                let mut sorted = vec![];
                let bus = self.solve_fresh(models, &canon, &mut sorted);
                self.canon = canon;
                let solution = (sorted, bus);
                if let Some(shared) = &self.shared {
                    shared.insert(&self.key, &solution);
                }
                self.remember(solution.clone());
                solution
            }
        };
        out.clear();
        out.resize(runners.len(), Rates::default());
        for (k, &i) in self.order.iter().enumerate() {
            out[i] = rates[k];
        }
        bus
    }

    /// Keep a solution for the current key while the run's cache has room.
    fn remember(&mut self, solution: (Vec<Rates>, BusState)) {
        let n = solution.0.len();
        if self.cache.len() < CACHE_ENTRIES && self.cached_runners + n <= CACHE_RUNNERS {
            self.cache.insert(self.key.clone(), solution);
            self.cached_runners += n;
        }
    }

    /// The canonical form of a co-schedule: runners ordered by what they are
    /// (phase model and exchange shares, then where they run: `self.first`), their LLC
    /// domains, cores, pipes and jobs renumbered in order of first appearance,
    /// then sorted by their keys. Fills `self.canon` (the renumbered runners,
    /// in key order, exchange shares rounded to the key's grid), `self.key`
    /// (their keys) and `self.order` (the runner each canonical one is).
    /// Renumbering keeps which runners share a pipe, a core, a domain or a
    /// job, which is all the solution depends on; two co-schedules that
    /// differ only in numbering mostly (not always: ties break by the old
    /// numbers) get one key.
    fn canonical(&mut self, runners: &[Runner]) {
        // The order of `self.first` (`Solver::first_sort`).
        self.order.clear();
        self.order.extend(self.first.iter().map(|&(_, i)| i as usize));
        self.canon.clear();
        let mut next = [0u32; 4];
        for &i in &self.order {
            let r = &runners[i];
            let mut ids = [r.llc, r.core, r.pipe, r.job];
            for (kind, id) in ids.iter_mut().enumerate() {
                let map = &mut self.renumber[kind];
                if map.len() <= *id as usize {
                    map.resize(*id as usize + 1, u32::MAX);
                }
                let slot = &mut map[*id as usize];
                if *slot == u32::MAX {
                    *slot = next[kind];
                    next[kind] += 1;
                }
                *id = *slot;
            }
            let [llc, core, pipe, job] = ids;
            let (local, on_core) = (grid(r.local) as f64 / 1e6, grid(r.on_core) as f64 / 1e6);
            self.canon.push(Runner { model: r.model, pipe, core, llc, job, local, on_core });
        }
        for r in runners {
            for (kind, id) in [r.llc, r.core, r.pipe, r.job].into_iter().enumerate() {
                self.renumber[kind][id as usize] = u32::MAX;
            }
        }
        // Sort by key (the canonical runners, their keys and the order together).
        self.keys.clear();
        self.keys.extend(self.canon.iter().map(Runner::key));
        self.perm.clear();
        self.perm.extend(0..runners.len());
        let keys = &self.keys;
        self.perm.sort_by_key(|&k| keys[k]);
        self.key.clear();
        self.key.extend(self.perm.iter().map(|&k| keys[k]));
        self.scratch_runners.clear();
        self.scratch_runners.extend(self.perm.iter().map(|&k| self.canon[k]));
        std::mem::swap(&mut self.canon, &mut self.scratch_runners);
        self.scratch_order.clear();
        self.scratch_order.extend(self.perm.iter().map(|&k| self.order[k]));
        std::mem::swap(&mut self.order, &mut self.scratch_order);
    }

    fn solve_fresh(&mut self, models: &[PhaseModel], runners: &[Runner], out: &mut Vec<Rates>) -> BusState {
        let n = runners.len();
        out.clear();
        out.resize(n, Rates::default());
        if n == 0 {
            return BusState { latency_ns: self.lat.idle_ns(), utilisation: 0.0 };
        }
        self.smt_factors(models, runners);
        // Cold start: each thread holds what fits of its footprint (the
        // solution must not depend on what ran before).
        self.s_eff.clear();
        for r in runners {
            let m = &models[r.model as usize];
            self.s_eff.push(self.llc_mb.min(m.mrc.footprint_mb));
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
        // The step taken towards the water-filled occupancy: whole at first,
        // then rescaled from how the last two steps relate (a secant estimate
        // of the map's slope J along them: the step that would land on the
        // fixed point of a linear map, 1/(1 − J)), within [MIN_RELAX, MAX_RELAX].
        let mut relax = 1.0;
        self.occ_prev.clear();
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
            bus = self.solve_latency(bus.latency_ns);
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
            prev_ipc.clear();
            prev_ipc.extend(out.iter().map(|o| o.ipc));
            self.occupancy_step(models, runners, out);
            if !self.occ_prev.is_empty() {
                let (mut dot, mut norm) = (0.0, 0.0);
                for (d, p) in self.occ_step.iter().zip(&self.occ_prev) {
                    dot += d * p;
                    norm += p * p;
                }
                if norm > 0.0 {
                    relax = (relax / (1.0 - dot / norm)).clamp(MIN_RELAX, MAX_RELAX);
                    if !relax.is_finite() {
                        relax = MIN_RELAX;
                    }
                }
            }
            for (s, d) in self.s_eff.iter_mut().zip(&self.occ_step) {
                *s += relax * d;
            }
            std::mem::swap(&mut self.occ_prev, &mut self.occ_step);
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
