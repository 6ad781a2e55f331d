//! The engine's state: the simulated threads and jobs, what runs where, the
//! per-socket contention solution, energy, and the queue of timed events.

use super::options::SimOptions;
use super::queue::EventQueue;
pub(super) use super::queue::Scheduled;
use super::timing::DecisionTimes;
use crate::contention::{BusState, DomainTraffic, Rates, Runner, Solver};
use crate::plan::Plan;
use crate::program::Cursor;
use cosched_core::dispatch::{ContractError, Dispatcher, Offer, Supply};
use cosched_core::ids::{JobId, Nanos, PeriodId};
use cosched_core::policy::{BlockReason, Demand, Energy, Needs};
use cosched_core::{Counters, Topology};
use cosched_machine::power::{Power, PowerModel};
use cosched_machine::{MachineSpec, TraceSlice};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// What a thread's zero-time program steps led to.
pub(super) enum StepOutcome {
    /// It computes next.
    Continue,
    /// It sleeps.
    Blocked(BlockReason),
    /// It asked for a progress period and waits for admission.
    WaitPeriod(PeriodId, Demand),
    /// It exited.
    Exited,
}

/// One simulated thread: its program position, its current rates and
/// cumulative counters, and what it left in the caches.
#[derive(Clone)]
pub(super) struct SimThread {
    /// Job instance.
    pub(super) job: u32,
    /// Thread class within the job (selects its program).
    pub(super) class: u32,
    /// Work scale of this thread (load imbalance).
    pub(super) scale: f64,
    /// Position in its program.
    pub(super) cursor: Cursor,
    /// Phase model of the current compute step.
    pub(super) model: u32,
    /// Instructions left in the current compute step.
    pub(super) remaining: f64,
    /// Stall still owed (context switch, refills), s.
    pub(super) debt_s: f64,
    /// Share of its running time that goes to the debt while one remains
    /// (0.5, or by its accesses to evicted data: `costs.refill_by_access`).
    pub(super) debt_share: f64,
    /// Under `costs.refill_by_access`: the stall per instruction of its
    /// accesses to data evicted while it was away, s (0 otherwise); each
    /// re-solve sets `debt_share` from it and the thread's current rate.
    pub(super) evicted_stall_s: f64,
    /// Counter rates per second while running (the contention solution).
    pub(super) rate: Counters,
    /// Cumulative counters up to `settled_at`.
    pub(super) counters: Counters,
    /// Solo-equivalent seconds of the work retired up to `settled_at`: each
    /// phase's instructions at that phase's IPC alone (ground truth, oracle only).
    pub(super) solo_s: f64,
    pub(super) settled_at: Nanos,
    /// When its compute step ends at the current rates, and the sequence
    /// number that orders ties (set at each re-solve of its socket).
    pub(super) step_end: (Nanos, u64),
    /// LLC share now held, MiB.
    pub(super) occupancy_mb: f64,
    /// Private part of that share, MiB.
    pub(super) private_mb: f64,
    /// The presence factor its time was stretched by at its last solve (design note 67; 1: none).
    pub(super) presence: f64,
    /// LLC data that survived its absence at the last start, MiB.
    pub(super) refill_from_mb: f64,
    /// Stall of the LLC refill charged at the last start, s.
    pub(super) refill_debt_s: f64,
    /// Serial stall owed by progress-period calls (`pp_cost_ns` each): no
    /// instruction retires until it is paid, unlike refill debt, which
    /// interleaves with execution; kept across stops.
    pub(super) stall_s: f64,
    pub(super) last_core: Option<u32>,
    pub(super) last_llc: Option<u32>,
    /// Private LLC data it left behind when it last stopped, MiB.
    pub(super) left_occupancy_mb: f64,
    /// LLC insertions counted when it left (to age what it left behind).
    pub(super) left_insertions: f64,
    /// Its progress period, while in one.
    pub(super) period: Option<PeriodId>,
    /// What it went through of time-sharing.
    pub(super) sched: ThreadSched,
}

/// What one thread went through of time-sharing over a run (the
/// simulator's side of the per-job figures a real run measures).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ThreadSched {
    /// Time on a context, ns (running, stalled or paying a refill).
    pub on_cpu_ns: u64,
    /// Starts on a context another thread had run on since it last ran there
    /// (its first start included): one more than the times it was switched out
    /// while runnable, for a thread that never waits.
    pub switched_in: u64,
    /// Starts on another core than the one it last ran on.
    pub migrations: u64,
}

/// One job instance: barrier and lock bookkeeping and its finish time.
pub(super) struct JobState {
    /// Threads not yet exited.
    pub(super) live: u32,
    /// Threads waiting at the current barrier.
    pub(super) at_barrier: Vec<u32>,
    /// Index of its first lock in the engine's lock tables.
    pub(super) lock_base: u32,
    pub(super) finish: Option<Nanos>,
}

/// The simulated machine while a run is under way.
pub(super) struct Engine<'a, 't> {
    pub(super) machine: &'a MachineSpec,
    pub(super) plan: &'a Plan,
    pub(super) topo: Topology,
    pub(super) power: PowerModel,
    pub(super) solver: Solver,
    /// A second solver for an oracle's what-if questions ([`Oracle::corun`]),
    /// so they never touch the run's own solver or its remembered solutions.
    pub(super) what_if: std::cell::RefCell<Option<Solver>>,
    /// Clock, Hz.
    pub(super) f_hz: f64,
    pub(super) now: Nanos,
    pub(super) threads: Vec<SimThread>,
    pub(super) jobs: Vec<JobState>,
    pub(super) lock_owner: Vec<Option<u32>>,
    pub(super) lock_waiters: Vec<VecDeque<u32>>,
    /// The contract: thread statuses, who holds each context, the policy's
    /// timers and the events still to deliver.
    pub(super) d: Dispatcher,
    /// Thread that last ran on each context (context switches).
    pub(super) ctx_last: Vec<Option<u32>>,
    /// Start of the current slice on each context (traces).
    pub(super) ctx_since: Vec<Nanos>,
    /// Thread that last ran on each core (private-cache refills).
    pub(super) core_last: Vec<Option<u32>>,
    /// Busy contexts on each core.
    pub(super) core_busy: Vec<u32>,
    pub(super) n_active_cores: usize,
    /// Running threads per unit of solve, in the order the contention solver
    /// sees them. A unit is a socket, or, on a machine whose sockets hold
    /// several LLC domains the solver can take apart (`Solver::decomposable`),
    /// an LLC domain (design note 57).
    pub(super) unit_runners: Vec<Vec<u32>>,
    /// Units whose running set changed since their last solve.
    pub(super) unit_dirty: Vec<bool>,
    /// The unit of each context, the socket of each unit and the units of each socket.
    pub(super) ctx_unit: Vec<u32>,
    pub(super) unit_socket: Vec<u32>,
    pub(super) socket_units: Vec<Vec<u32>>,
    /// Whether units are LLC domains solved apart (else sockets, solved whole).
    pub(super) decomposed: bool,
    /// Each domain's bus traffic at the latency its rates were solved at (decomposed only).
    pub(super) unit_traffic: Vec<DomainTraffic>,
    /// The latency each domain's LLC occupancy was solved at (its rates may
    /// have been re-rated since, at the bus's: `Engine::rerate_unit`).
    pub(super) unit_solved_ns: Vec<f64>,
    pub(super) socket_bus: Vec<BusState>,
    /// Cumulative counters of the threads that left each socket.
    pub(super) socket_counters: Vec<Counters>,
    /// Memory lines per second moved by each unit's threads.
    pub(super) unit_lines: Vec<f64>,
    /// Lines inserted into each LLC so far (ages what absent threads left).
    pub(super) llc_insertions: Vec<f64>,
    /// What absent threads left in each LLC, aged by those insertions.
    pub(super) away: super::away::AwayLedger,
    pub(super) energy: Energy,
    pub(super) power_now: Power,
    pub(super) queue: EventQueue,
    /// Insertion counter: ties in time leave the queue in insertion order.
    pub(super) seq: u64,
    pub(super) oracle_ok: bool,
    pub(super) next_period: u32,
    /// Relative noise on counter increments.
    pub(super) noise: f64,
    /// Cost of one progress-period call, s.
    pub(super) pp_cost_s: f64,
    /// `SimOptions::decision_cost_ns`, s.
    pub(super) decision_cost_s: f64,
    pub(super) rng: ChaCha8Rng,
    pub(super) switches: u64,
    pub(super) migrations: u64,
    /// Bit set of thread pairs ever co-running (SLITS Fig. 1): row t, of
    /// `pairs_n.div_ceil(64)` words, holds who ran when t started.
    pub(super) pairs: Vec<u64>,
    /// Bit set of the threads running now (for `pairs`).
    pub(super) running_bits: Vec<u64>,
    /// Threads the pair set covers (0: off).
    pub(super) pairs_n: usize,
    pub(super) runners_buf: Vec<Runner>,
    pub(super) rates_buf: Vec<Rates>,
    /// Members of each partner group running in each LLC domain and on each
    /// core of the socket being solved (`Engine::solve_dirty`; reused).
    pub(super) group_llc: rustc_hash::FxHashMap<(u32, u32), u32>,
    pub(super) group_core: rustc_hash::FxHashMap<(u32, u32), u32>,
    /// Threads still to continue in [`Engine::resume`] (reused).
    pub(super) wake_buf: Vec<u32>,
    pub(super) trace: Option<&'t mut dyn FnMut(TraceSlice)>,
    /// The policy's decision times, when measured.
    pub(super) decision_times: Option<DecisionTimes>,
}

impl<'a, 't> Engine<'a, 't> {
    /// A machine at time 0 with every job still to arrive, for a policy
    /// (`name`, `needs`); an error when the simulator cannot meet a need.
    pub(super) fn new(
        m: &'a MachineSpec,
        plan: &'a Plan,
        (name, needs): (&'static str, Needs),
        opts: &SimOptions,
        trace: Option<&'t mut dyn FnMut(TraceSlice)>,
    ) -> Result<Engine<'a, 't>, ContractError> {
        let topo = m.topology();
        let offer = Offer {
            backend: "the simulator",
            counters: Supply::Yes,
            energy: Supply::Yes,
            oracle: Supply::Yes,
            smt: topo.has_smt(),
        };
        let jobs = plan.threads.iter().map(|tp| JobId(tp.job)).collect();
        let d = Dispatcher::new(name, needs, &offer, jobs, topo.n_contexts())?;
        let n_threads = plan.threads.len();
        let mut lock_base = 0;
        let jobs: Vec<JobState> = plan
            .jobs
            .iter()
            .map(|j| {
                let js =
                    JobState { live: j.threads.end - j.threads.start, at_barrier: vec![], lock_base, finish: None };
                lock_base += j.n_locks;
                js
            })
            .collect();
        let pairs_n = if n_threads <= 4096 { n_threads } else { 0 };
        let nctx = topo.n_contexts();
        let n_sockets = topo.n_sockets as usize;
        let solver = {
            let mut s = Solver::new(m);
            if let Some(shared) = &opts.shared.0 {
                s.share(shared.clone());
            }
            s
        };
        // LLC domains are units of their own where a socket holds several and the model allows.
        let decomposed = !opts.whole_sockets && solver.decomposable() && (topo.n_llc as usize) > n_sockets;
        let ctx_unit: Vec<u32> = topo.contexts.iter().map(|c| if decomposed { c.llc } else { c.socket }).collect();
        let n_units = if decomposed { topo.n_llc as usize } else { n_sockets };
        let mut unit_socket = vec![0u32; n_units];
        let mut socket_units = vec![vec![]; n_sockets];
        for c in &topo.contexts {
            let u = if decomposed { c.llc } else { c.socket };
            if !socket_units[c.socket as usize].contains(&u) {
                socket_units[c.socket as usize].push(u);
            }
            unit_socket[u as usize] = c.socket;
        }
        let mut engine = Engine {
            machine: m,
            plan,
            power: PowerModel::new(&m.power, topo.n_cores as usize),
            solver,
            what_if: std::cell::RefCell::new(None),
            f_hz: m.freq_ghz * 1e9,
            now: 0,
            threads: plan.threads.iter().map(|tp| SimThread::new(tp.job, tp.class, tp.scale)).collect(),
            jobs,
            lock_owner: vec![None; lock_base as usize],
            lock_waiters: vec![VecDeque::new(); lock_base as usize],
            d,
            ctx_last: vec![None; nctx],
            ctx_since: vec![0; nctx],
            core_last: vec![None; topo.n_cores as usize],
            core_busy: vec![0; topo.n_cores as usize],
            n_active_cores: 0,
            unit_runners: vec![vec![]; n_units],
            unit_dirty: vec![false; n_units],
            ctx_unit,
            unit_socket,
            socket_units,
            decomposed,
            unit_traffic: vec![DomainTraffic::default(); n_units],
            unit_solved_ns: vec![0.0; n_units],
            socket_bus: vec![BusState::default(); n_sockets],
            socket_counters: vec![Counters::default(); n_sockets],
            unit_lines: vec![0.0; n_units],
            llc_insertions: vec![0.0; topo.n_llc as usize],
            away: super::away::AwayLedger::new(n_threads, topo.n_llc as usize, m.cache.llc_mb),
            energy: Energy::default(),
            power_now: Power::default(),
            queue: EventQueue::new(n_units),
            seq: 0,
            oracle_ok: needs.oracle,
            next_period: 0,
            noise: opts.counter_noise,
            pp_cost_s: opts.pp_cost_ns as f64 * 1e-9,
            decision_cost_s: opts.decision_cost_ns as f64 * 1e-9,
            rng: ChaCha8Rng::seed_from_u64(opts.seed ^ 0x5EED_0FC0_5C4E_D000),
            switches: 0,
            migrations: 0,
            pairs: vec![0; pairs_n * pairs_n.div_ceil(64)],
            running_bits: vec![0; pairs_n.div_ceil(64)],
            pairs_n,
            runners_buf: vec![],
            rates_buf: vec![],
            group_llc: Default::default(),
            group_core: Default::default(),
            wake_buf: vec![],
            topo,
            trace,
            decision_times: opts.timing.then(DecisionTimes::new),
        };
        for s in 0..engine.socket_bus.len() {
            engine.socket_bus[s] = BusState { latency_ns: engine.solver.latency_curve().idle_ns(), utilisation: 0.0 };
        }
        engine.power_now = engine.power.power(0, 0.0);
        for (j, jp) in plan.jobs.iter().enumerate() {
            engine.push(jp.arrival, Scheduled::Arrive(j as u32));
        }
        Ok(engine)
    }

    /// Queue an arrival or an I/O end.
    pub(super) fn push(&mut self, at: Nanos, ev: Scheduled) {
        self.seq += 1;
        self.queue.push(at, self.seq, ev);
    }

    /// Socket of context `c`.
    pub(super) fn socket_of(&self, c: u32) -> usize {
        self.topo.contexts[c as usize].socket as usize
    }

    /// Unit of solve of context `c` (its socket, or its LLC domain when decomposed).
    pub(super) fn unit_of(&self, c: u32) -> usize {
        self.ctx_unit[c as usize] as usize
    }
}

impl SimThread {
    /// A thread whose job has not arrived yet.
    fn new(job: u32, class: u32, scale: f64) -> SimThread {
        SimThread {
            job,
            class,
            scale,
            cursor: Cursor::default(),
            model: 0,
            remaining: 0.0,
            debt_s: 0.0,
            rate: Counters::default(),
            counters: Counters::default(),
            solo_s: 0.0,
            settled_at: 0,
            step_end: (0, 0),
            occupancy_mb: 0.0,
            private_mb: 0.0,
            presence: 1.0,
            refill_from_mb: 0.0,
            refill_debt_s: 0.0,
            stall_s: 0.0,
            last_core: None,
            last_llc: None,
            left_occupancy_mb: 0.0,
            debt_share: 0.5,
            evicted_stall_s: 0.0,
            left_insertions: 0.0,
            period: None,
            sched: ThreadSched::default(),
        }
    }
}
