//! The user-level scheduler (`cosched run`): launches a mix of real
//! commands and drives any [`Policy`] with them, the way Perf&Fair §6.1 and
//! EFS §4 run their policies at user level on Linux.
//!
//! Vocabulary mapping: a policy *thread* is one managed process tree (a mix
//! instance); its *job* is the mix entry. `Run{thread, ctx}` pins every
//! thread of the tree to the context's CPU and thaws it; a tree the policy
//! does not run is frozen. The event loop wakes every `tick` to reap exits,
//! detect blocking (no task of a running tree runnable for `block_ticks`
//! ticks → `Blocked`; a blocked tree with a runnable task → frozen and
//! `Runnable`), fire policy timers and sample energy; progress-period
//! requests arrive from the [`pp`](crate::pp) server between ticks.
//!
//! `--policy linux` launches everything and leaves scheduling to the
//! kernel (no freezing, no pinning): the baseline of every real comparison.

use crate::control::{Control, Method, Tree};
use crate::counters::{CounterSource, PerfSource, RecordedSource};
use crate::energy::{ModelledEnergy, PerfPower, Rapl};
use crate::host::Host;
use crate::mix::{resolve_program, Mix};
use crate::pp::{PpMsg, PpServer, SOCKET_ENV};
use crate::sys;
use crate::watchdog::Watchdog;
use cosched_core::counters::Counters;
use cosched_core::metrics::{aggregate, Aggregate, JobOutcome};
use cosched_core::policies::{self, PolicyOptions};
use cosched_core::policy::{Decision, Demand, Energy, Event, MachineView, Policy};
use cosched_core::slits::PairProfile;
use cosched_core::{CtxId, JobId, Nanos, PeriodId, ThreadId};
use cosched_machine::ChromeTrace;
use cosched_machine::PowerModel;
use cosched_machine::{MachineSpec, TraceSlice};
use serde::Serialize;
use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};
use std::io::BufWriter;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

/// The name of the kernel-scheduling baseline.
pub const LINUX: &str = "linux";

/// What to run and how.
pub struct RunConfig {
    /// The commands.
    pub mix: Mix,
    /// Policy name: [`LINUX`] or a registry name.
    pub policy: String,
    /// Policy options.
    pub opts: PolicyOptions,
    /// Sampling period of the event loop.
    pub tick: Duration,
    /// Ticks without a runnable task before a running tree counts as blocked.
    pub block_ticks: u32,
    /// Freezing method.
    pub method: Method,
    /// The executable to start as watchdog (`None`: no watchdog, tests of the library only).
    pub watchdog_exe: Option<PathBuf>,
    /// Write a Perfetto/Chrome trace here.
    pub trace: Option<PathBuf>,
    /// Machine preset for modelled quantities (memory bandwidth, power model).
    pub machine: Option<MachineSpec>,
    /// Solo turnaround per mix job (declared or measured), seconds.
    pub solo: Vec<Option<f64>>,
    /// Stop the run (releasing and terminating every process) after this long.
    pub timeout: Option<Duration>,
    /// Where each instance's stdout/stderr go (`None`: discarded).
    pub output_dir: Option<PathBuf>,
    /// Recorded counter rates to replay (see [`RecordedSource`]); without
    /// one, hardware counters are used when the machine has them.
    pub recorded_counters: Option<PathBuf>,
    /// A profile measured by co-run probing (`cosched probe`), offered to
    /// policies that need counters this machine cannot give.
    pub profile: Option<PairProfile>,
}

impl RunConfig {
    /// Defaults for a mix and a policy: 20 ms tick, 3 ticks to block, best freezer, no watchdog.
    pub fn new(mix: Mix, policy: &str) -> RunConfig {
        let solo = mix.jobs.iter().map(|j| j.solo_s).collect();
        RunConfig {
            mix,
            policy: policy.into(),
            opts: PolicyOptions::default(),
            tick: Duration::from_millis(20),
            block_ticks: 3,
            method: Method::detect(),
            watchdog_exe: None,
            trace: None,
            machine: None,
            solo,
            timeout: None,
            output_dir: None,
            profile: None,
            recorded_counters: None,
        }
    }
}

/// One instance in the report.
#[derive(Clone, Debug, Serialize)]
pub struct RealJob {
    /// Instance name.
    pub name: String,
    /// Turnaround (launch to the last process of its tree gone), s; measured.
    pub turnaround_s: Option<f64>,
    /// Solo turnaround, s (declared or measured).
    pub solo_s: Option<f64>,
    /// Turnaround / solo.
    pub slowdown: Option<f64>,
    /// CPU time of the tree's leader (and reaped children), s; measured.
    pub cpu_s: f64,
    /// Exit code of the leader (128 + signal when killed).
    pub exit_code: Option<i32>,
    /// Why it did not run, if it did not.
    pub error: Option<String>,
}

/// The result of a real run.
#[derive(Clone, Debug, Serialize)]
pub struct RealReport {
    /// Policy.
    pub policy: String,
    /// Mix name.
    pub mix: String,
    /// How trees were frozen (or `none` under `linux`).
    pub freezer: String,
    /// Instances.
    pub jobs: Vec<RealJob>,
    /// Shared metrics (instructions and throughput are 0 without counters).
    pub metrics: Aggregate,
    /// Where each metric comes from: `measured`, `modelled (...)` or `unavailable (...)`.
    pub provenance: BTreeMap<String, String>,
    /// CPU time of the scheduler (all its threads) over the run, % of one core.
    pub scheduler_cpu_pct: f64,
    /// Policy events handled.
    pub policy_events: u64,
    /// Whether the run was cut short (timeout or signal).
    pub interrupted: bool,
}

/// Where a tree is in its life, as the runtime applies the policy.
#[derive(Clone, Copy, Debug, PartialEq)]
enum St {
    /// Runnable, frozen, not on a context.
    Queued,
    /// Thawed and pinned to a context.
    Running(CtxId),
    /// Thawed, sleeping, not on a context.
    Blocked,
    /// Frozen, waiting for admission of a progress period.
    PeriodWait,
    /// Finished.
    Done,
}

struct Ent {
    mix_job: usize,
    tree: Tree,
    start: Instant,
    end: Option<Instant>,
    st: St,
    exit_code: Option<i32>,
    idle_ticks: u32,
    /// The tree is gone but the policy has it off-context: `Exited` on its next `Run`.
    exit_pending: bool,
    /// A `pp_begin` (declared profile or early request) to deliver at its next `Run`.
    begin_pending: Option<u64>,
    /// CPU time of the leader and the children it reaped (from `wait4`), s.
    cpu_s: f64,
    /// The leader thread's time on a CPU at the last tick, ns (`schedstat`).
    run_ns: u64,
    slice: Option<(u32, Nanos)>,
}

struct PeriodRec {
    ent: usize,
    conn: Option<u64>,
    demand: Demand,
    admitted: bool,
    reply: Option<Sender<String>>,
    cancelled: bool,
}

static SIGNALLED: AtomicI32 = AtomicI32::new(0);
static CHILD_EXITED: AtomicBool = AtomicBool::new(true);

extern "C" fn on_signal(sig: libc::c_int) {
    SIGNALLED.store(sig, Ordering::Relaxed);
}

extern "C" fn on_child(_: libc::c_int) {
    CHILD_EXITED.store(true, Ordering::Relaxed);
}

struct View<'a> {
    now: Nanos,
    host: &'a Host,
    running: &'a [Option<ThreadId>],
    job_of: &'a [JobId],
    bus: Option<f64>,
    energy: Option<Energy>,
    counters: Option<&'a RefCell<Box<dyn CounterSource>>>,
    leaders: &'a [i32],
    hz: f64,
    llc: Option<f64>,
}

impl View<'_> {
    /// CPU time of a tree's leader and its reaped children (proc(5) fields 14-17), s.
    fn cpu_s(&self, t: usize) -> f64 {
        let pid = self.leaders[t];
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|text| {
                let rest = &text[text.rfind(')')? + 1..];
                let f: Vec<u64> = rest.split_whitespace().skip(11).take(4).filter_map(|x| x.parse().ok()).collect();
                (f.len() == 4).then(|| f.iter().sum::<u64>() as f64 / self.hz)
            })
            .unwrap_or(0.0)
    }
}

impl MachineView for View<'_> {
    fn now(&self) -> Nanos {
        self.now
    }
    fn topology(&self) -> &cosched_core::Topology {
        &self.host.topology
    }
    fn running_on(&self, ctx: CtxId) -> Option<ThreadId> {
        self.running[ctx.idx()]
    }
    fn job_of(&self, thread: ThreadId) -> JobId {
        self.job_of[thread.idx()]
    }
    fn n_threads_total(&self) -> usize {
        self.job_of.len()
    }
    fn thread_counters(&self, t: ThreadId) -> Option<Counters> {
        let src = self.counters?;
        let cpu = self.cpu_s(t.idx());
        src.borrow_mut().read(t.idx(), cpu)
    }
    fn socket_counters(&self, _: u32) -> Option<Counters> {
        self.counters?;
        let mut sum = Counters::default();
        for t in 0..self.leaders.len() {
            if let Some(c) = self.thread_counters(ThreadId(t as u32)) {
                sum.add(&c);
            }
        }
        Some(sum)
    }
    fn energy(&self) -> Option<Energy> {
        self.energy
    }
    fn bus_lines_per_s(&self) -> Option<f64> {
        self.bus
    }
    fn llc_bytes(&self) -> Option<f64> {
        self.llc
    }
}

/// Meter of whichever energy source the machine has.
enum Meter {
    Rapl(Rapl),
    PerfPower(RefCell<PerfPower>),
    Model(ModelledEnergy),
    None,
}

/// The running scheduler. Dropping it releases every managed process.
struct Runtime {
    cfg_policy: String,
    host: Host,
    control: Control,
    watchdog: Option<Watchdog>,
    policy: Option<Box<dyn Policy>>,
    pp_needed: bool,
    ents: Vec<Ent>,
    job_of: Vec<JobId>,
    running: Vec<Option<ThreadId>>,
    leader_of: BTreeMap<i32, usize>,
    periods: BTreeMap<u64, PeriodRec>,
    next_period: u64,
    timers: BTreeMap<u32, Nanos>,
    queue: VecDeque<Event>,
    out: Vec<Decision>,
    t0: Instant,
    bus: Option<f64>,
    meter: Meter,
    jiffies: Vec<(u64, u64)>,
    last_sample: Instant,
    trace: Option<ChromeTrace<BufWriter<std::fs::File>>>,
    events: u64,
    ticks: u64,
    block_ticks: u32,
    counters: Option<RefCell<Box<dyn CounterSource>>>,
    leaders: Vec<i32>,
    hz: f64,
    /// LLC capacity policies see: the preset's (calibrated: effective) when
    /// one is given, else what sysfs reports.
    llc: Option<f64>,
}

fn ns_since(t0: Instant, t: Instant) -> Nanos {
    t.saturating_duration_since(t0).as_nanos() as Nanos
}

impl Runtime {
    fn now(&self) -> Nanos {
        ns_since(self.t0, Instant::now())
    }

    fn energy(&self) -> Option<Energy> {
        match &self.meter {
            Meter::Rapl(r) => Some(r.energy()),
            Meter::PerfPower(p) => Some(p.borrow_mut().energy()),
            Meter::Model(m) => Some(m.energy()),
            Meter::None => None,
        }
    }

    /// Deliver an event (and whatever it causes) to the policy.
    /// The machine as the policy sees it now.
    fn view(&self) -> View<'_> {
        View {
            now: self.now(),
            host: &self.host,
            running: &self.running,
            job_of: &self.job_of,
            bus: self.bus,
            energy: None,
            counters: self.counters.as_ref(),
            leaders: &self.leaders,
            hz: self.hz,
            llc: self.llc,
        }
    }

    fn dispatch(&mut self, ev: Event) {
        self.queue.push_back(ev);
        while let Some(ev) = self.queue.pop_front() {
            let Some(mut policy) = self.policy.take() else { continue };
            let mut out = std::mem::take(&mut self.out);
            policy.on_event(&ev, &self.view(), &mut out);
            self.policy = Some(policy);
            self.events += 1;
            for d in out.drain(..) {
                self.apply(d);
            }
            self.out = out;
        }
    }

    fn close_slice(&mut self, e: usize) {
        let now = self.now();
        if let (Some((ctx, start)), Some(tr)) = (self.ents[e].slice.take(), self.trace.as_mut()) {
            tr.slice(TraceSlice { ctx, thread: e as u32, job: self.ents[e].mix_job as u32, start, end: now });
        }
    }

    /// Take a tree off its context (frozen, or left thawed when it blocked).
    fn off_ctx(&mut self, e: usize, freeze: bool) {
        if let St::Running(c) = self.ents[e].st {
            if self.running[c.idx()] == Some(ThreadId(e as u32)) {
                self.running[c.idx()] = None;
            }
        }
        self.close_slice(e);
        if freeze {
            self.control.freeze(&mut self.ents[e].tree);
        }
    }

    fn apply(&mut self, d: Decision) {
        match d {
            Decision::Run { thread, ctx } => {
                let e = thread.idx();
                if e >= self.ents.len() || ctx.idx() >= self.running.len() || self.ents[e].st == St::Done {
                    return;
                }
                if let Some(u) = self.running[ctx.idx()] {
                    if u != thread {
                        self.off_ctx(u.idx(), true);
                        self.ents[u.idx()].st = St::Queued;
                    }
                }
                if let St::Running(old) = self.ents[e].st {
                    if old != ctx {
                        self.off_ctx(e, false);
                    }
                }
                self.running[ctx.idx()] = Some(thread);
                self.ents[e].st = St::Running(ctx);
                self.ents[e].idle_ticks = 0;
                let cpu = self.host.cpu(ctx);
                self.control.pin(&mut self.ents[e].tree, &[cpu]);
                self.control.thaw(&mut self.ents[e].tree);
                if self.ents[e].slice.is_none() {
                    self.ents[e].slice = Some((ctx.0, self.now()));
                }
                if self.ents[e].exit_pending {
                    self.finish_on_ctx(e, ctx);
                } else if let Some(id) = self.ents[e].begin_pending.take() {
                    self.begin_period(e, id);
                }
            }
            Decision::Preempt { ctx } => {
                if let Some(u) = self.running.get(ctx.idx()).copied().flatten() {
                    self.off_ctx(u.idx(), true);
                    self.ents[u.idx()].st = St::Queued;
                }
            }
            Decision::Idle { .. } => {}
            Decision::Timer { key, at } => {
                match at {
                    Some(t) => self.timers.insert(key, t),
                    None => self.timers.remove(&key),
                };
            }
            Decision::Admit { period } => {
                let id = period.0 as u64;
                let Some(rec) = self.periods.get_mut(&id) else { return };
                rec.admitted = true;
                if let Some(r) = rec.reply.take() {
                    let _ = r.send(format!("OK {id}\n"));
                }
                let (e, cancelled) = (rec.ent, rec.cancelled);
                if self.ents[e].st == St::PeriodWait {
                    self.ents[e].st = St::Queued;
                }
                if cancelled {
                    self.end_period(id);
                }
            }
        }
    }

    /// A period whose thread is running on a context begins (RDA §2.3): the
    /// tree is frozen until the policy admits it.
    fn begin_period(&mut self, e: usize, id: u64) {
        let St::Running(ctx) = self.ents[e].st else {
            self.ents[e].begin_pending = Some(id);
            return;
        };
        self.off_ctx(e, true);
        self.ents[e].st = St::PeriodWait;
        let demand = self.periods[&id].demand;
        self.dispatch(Event::PeriodBegin {
            thread: ThreadId(e as u32),
            ctx: Some(ctx),
            period: PeriodId(id as u32),
            demand,
        });
    }

    fn end_period(&mut self, id: u64) {
        if let Some(rec) = self.periods.remove(&id) {
            if rec.admitted && self.pp_needed {
                self.dispatch(Event::PeriodEnd { thread: ThreadId(rec.ent as u32), period: PeriodId(id as u32) });
            }
        }
    }

    /// The tree is gone while on `ctx`: end its periods, then `Exited`.
    fn finish_on_ctx(&mut self, e: usize, ctx: CtxId) {
        self.ents[e].exit_pending = false;
        let ids: Vec<u64> = self.periods.iter().filter(|(_, r)| r.ent == e && r.admitted).map(|(&i, _)| i).collect();
        for id in ids {
            self.end_period(id);
        }
        self.close_slice(e);
        if self.running[ctx.idx()] == Some(ThreadId(e as u32)) {
            self.running[ctx.idx()] = None;
        }
        self.ents[e].st = St::Done;
        self.dispatch(Event::Exited { thread: ThreadId(e as u32), ctx });
    }

    fn new_period(&mut self, e: usize, conn: Option<u64>, demand: Demand, reply: Option<Sender<String>>) -> u64 {
        let id = self.next_period;
        self.next_period += 1;
        self.periods.insert(id, PeriodRec { ent: e, conn, demand, admitted: false, reply, cancelled: false });
        id
    }

    /// The managed tree a process belongs to (peer-credential check of the pp server).
    fn ent_of_pid(&mut self, pid: i32) -> Option<usize> {
        if let Some(&e) = self.leader_of.get(&pid) {
            return Some(e);
        }
        (0..self.ents.len())
            .find(|&e| self.ents[e].st != St::Done && self.control.members(&mut self.ents[e].tree).contains(&pid))
    }

    fn on_pp(&mut self, msg: PpMsg) {
        match msg {
            PpMsg::Begin { conn, pid, demand, reply } => {
                let Some(e) = self.ent_of_pid(pid).filter(|&e| self.ents[e].st != St::Done) else {
                    let _ = reply.send(format!("ERR process {pid} is not managed by this run\n"));
                    return;
                };
                if !self.pp_needed {
                    let id = self.new_period(e, Some(conn), demand, None);
                    self.periods.get_mut(&id).expect("just added").admitted = true;
                    let _ = reply.send(format!("OK {id}\n"));
                    return;
                }
                let id = self.new_period(e, Some(conn), demand, Some(reply));
                match self.ents[e].st {
                    St::Running(_) => self.begin_period(e, id),
                    St::Blocked => {
                        self.control.freeze(&mut self.ents[e].tree);
                        self.ents[e].st = St::Queued;
                        self.ents[e].begin_pending = Some(id);
                        self.dispatch(Event::Runnable { thread: ThreadId(e as u32) });
                    }
                    _ => self.ents[e].begin_pending = Some(id),
                }
            }
            PpMsg::End { pid, id, reply, .. } => {
                let owner = self.ent_of_pid(pid);
                let ok = self.periods.get(&id).is_some_and(|r| r.admitted && owner == Some(r.ent));
                if ok {
                    self.end_period(id);
                    let _ = reply.send("OK\n".into());
                } else {
                    let _ = reply.send(format!("ERR no admitted period {id} of this process\n"));
                }
            }
            PpMsg::Gone { conn } => {
                let ids: Vec<u64> =
                    self.periods.iter().filter(|(_, r)| r.conn == Some(conn)).map(|(&i, _)| i).collect();
                for id in ids {
                    let rec = self.periods.get_mut(&id).expect("listed");
                    if rec.admitted {
                        self.end_period(id);
                    } else {
                        rec.cancelled = true;
                        rec.reply = None;
                    }
                }
            }
        }
    }

    /// One tick: reap, detect exits and blocking, fire timers, sample energy.
    fn tick(&mut self) {
        // Reap when SIGCHLD said a child changed state, and once a second regardless.
        let chld = CHILD_EXITED.swap(false, Ordering::Relaxed);
        let periodic = self.ticks.is_multiple_of(50);
        self.ticks += 1;
        while let Some((pid, code, cpu_s)) = if chld || periodic { sys::reap_any() } else { None } {
            if let Some(&e) = self.leader_of.get(&pid) {
                self.ents[e].exit_code = Some(code);
                self.ents[e].cpu_s = cpu_s;
            }
        }
        let linux = self.policy.is_none();
        let need_jiffies = matches!(self.meter, Meter::Model(_));
        let jiffies = if need_jiffies { sys::cpu_jiffies() } else { vec![] };
        for e in 0..self.ents.len() {
            if self.ents[e].st == St::Done {
                continue;
            }
            let leader = self.ents[e].tree.leader;
            if self.ents[e].exit_code.is_some() && self.ents[e].end.is_none() {
                let members = self.control.members(&mut self.ents[e].tree);
                if members.is_empty() {
                    self.ents[e].end = Some(Instant::now());
                    self.leader_of.remove(&leader);
                    if linux {
                        self.ents[e].st = St::Done;
                        continue;
                    }
                    match self.ents[e].st {
                        St::Running(ctx) => self.finish_on_ctx(e, ctx),
                        St::Blocked => {
                            self.ents[e].exit_pending = true;
                            self.ents[e].st = St::Queued;
                            self.dispatch(Event::Runnable { thread: ThreadId(e as u32) });
                        }
                        _ => self.ents[e].exit_pending = true,
                    }
                    continue;
                }
            }
            if linux {
                if self.trace.is_some() {
                    self.sample_slice(e);
                }
                continue;
            }
            let st = self.ents[e].st;
            match st {
                St::Running(ctx) => {
                    // Cheap first: if the leader gained CPU time since the last
                    // tick (`/proc/PID/schedstat`, one small read), the tree ran;
                    // only otherwise read every task's state.
                    let ran = sys::run_ns(self.ents[e].tree.leader);
                    let busy = ran.is_some_and(|r| r > self.ents[e].run_ns);
                    if let Some(r) = ran {
                        self.ents[e].run_ns = r;
                    }
                    if busy || self.any_runnable(e) {
                        self.ents[e].idle_ticks = 0;
                    } else {
                        self.ents[e].idle_ticks += 1;
                        if self.ents[e].idle_ticks >= self.block_ticks {
                            self.off_ctx(e, false);
                            let restore = self.control.restore.clone();
                            self.control.pin(&mut self.ents[e].tree, &restore);
                            self.ents[e].st = St::Blocked;
                            self.dispatch(Event::Blocked {
                                thread: ThreadId(e as u32),
                                ctx,
                                reason: cosched_core::policy::BlockReason::Io,
                            });
                        }
                    }
                }
                St::Blocked if self.any_runnable(e) => {
                    self.control.freeze(&mut self.ents[e].tree);
                    self.ents[e].st = St::Queued;
                    self.dispatch(Event::Runnable { thread: ThreadId(e as u32) });
                }
                _ => {}
            }
        }
        let now = self.now();
        let due: Vec<u32> = self.timers.iter().filter(|(_, &t)| t <= now).map(|(&k, _)| k).collect();
        for k in due {
            self.timers.remove(&k);
            self.dispatch(Event::Timer { key: k });
        }
        self.sample_energy(jiffies);
    }

    /// Under `linux` the kernel places processes: trace where the leader
    /// last ran, one slice per stretch on one CPU while it is runnable
    /// (sampled every tick).
    fn sample_slice(&mut self, e: usize) {
        let stat = sys::proc_stat(self.ents[e].tree.leader);
        let ctx = stat
            .filter(|s| s.state == 'R')
            .and_then(|s| self.host.cpus.iter().position(|&c| c == s.processor))
            .map(|c| c as u32);
        if self.ents[e].slice.map(|(c, _)| c) != ctx {
            self.close_slice(e);
            if let Some(c) = ctx {
                self.ents[e].slice = Some((c, self.now()));
            }
        }
    }

    fn any_runnable(&mut self, e: usize) -> bool {
        self.control
            .tasks(&mut self.ents[e].tree)
            .iter()
            .any(|&(p, t)| sys::task_stat(p, t).is_some_and(|s| s.state == 'R'))
    }

    /// Integrate energy up to now; `j` is a fresh reading of `/proc/stat`.
    fn sample_energy(&mut self, j: Vec<(u64, u64)>) {
        let now = Instant::now();
        let dt = now.duration_since(self.last_sample).as_secs_f64();
        self.last_sample = now;
        match &mut self.meter {
            Meter::Rapl(r) => r.sample(),
            Meter::PerfPower(_) => {}
            Meter::Model(m) => {
                let busy: f64 = j
                    .iter()
                    .zip(&self.jiffies)
                    .map(|(a, b)| {
                        let (db, dt) = (a.0.saturating_sub(b.0), a.1.saturating_sub(b.1));
                        if dt > 0 {
                            db as f64 / dt as f64
                        } else {
                            0.0
                        }
                    })
                    .sum();
                m.add(dt, busy);
            }
            Meter::None => {}
        }
        self.jiffies = j;
    }

    fn next_wake(&self, tick: Duration) -> Duration {
        let now = self.now();
        let t = self.timers.values().min().map(|&t| Duration::from_nanos(t.saturating_sub(now))).unwrap_or(tick);
        t.min(tick)
    }

    /// Release every tree (thaw, unpin, cgroups removed); with `terminate`
    /// also send them SIGTERM.
    fn release(&mut self, terminate: bool) {
        for e in 0..self.ents.len() {
            let members = self.control.members(&mut self.ents[e].tree);
            self.control.release(&mut self.ents[e].tree);
            if terminate {
                for p in members {
                    sys::signal(p, libc::SIGTERM);
                }
            }
        }
        let leaders: Vec<i32> = self.leader_of.keys().copied().collect();
        crate::control::release_all(&self.control.method, self.control.dir(), &leaders, &self.control.restore);
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        self.release(false);
        if let Some(w) = self.watchdog.take() {
            w.finish();
        }
    }
}

/// Run a mix under a policy until every tree is gone; returns the report.
pub fn run(cfg: RunConfig) -> Result<RealReport, String> {
    let linux = cfg.policy == LINUX;
    let mut policy = if linux { None } else { Some(policies::make(&cfg.policy, &cfg.opts)?) };
    let counter_source: Option<Box<dyn CounterSource>> = match &cfg.recorded_counters {
        Some(p) => {
            let src = RecordedSource::load(p)?;
            src.covers(&cfg.mix.jobs.iter().map(|j| j.name.clone()).collect::<Vec<_>>())?;
            Some(Box::new(src))
        }
        None if !linux && PerfSource::available().is_ok() => Some(Box::new(PerfSource::default())),
        None => None,
    };
    let mut policy_needs_counters = false;
    let mut counters_src = "unavailable (the runtime reads no instruction counter)".to_string();
    if let Some(p) = policy.as_mut() {
        let needs = p.needs();
        if needs.oracle {
            return Err(format!("policy `{}` reads ground truth, which only the simulator has", cfg.policy));
        }
        policy_needs_counters = needs.counters;
        if needs.counters && counter_source.is_some() {
            counters_src = counter_source.as_ref().map(|c| c.label()).unwrap_or_default();
        } else if needs.counters {
            let names: Vec<String> = cfg.mix.jobs.iter().map(|j| j.name.clone()).collect();
            let profile =
                cfg.profile.as_ref().map(|pr| pr.reorder(&names)).transpose().map_err(|e| format!("--profile: {e}"))?;
            match profile {
                Some(pr) if p.use_profile(&pr) => {
                    counters_src = format!(
                        "replaced by a probed profile ({} measured job pairs, {:.0}% of the matrix, FM-completed)",
                        pr.observed.len(),
                        100.0 * pr.density()
                    );
                }
                _ => {
                    return Err(format!(
                        "policy `{}` needs per-thread hardware counters, which this runtime reads only through perf_event_open; \
                         this machine has none ({}); see `cosched doctor`{}",
                        cfg.policy,
                        match crate::probe::live_pmu() {
                            crate::PmuStatus::Available => "the runtime's counter source is not wired for it yet".to_string(),
                            crate::PmuStatus::Unavailable(e) => format!("perf_event_open: {e}"),
                        },
                        if cfg.profile.is_some() { "; this policy cannot use a probed profile instead" } else { "; slits-* can run on a profile from `cosched probe` (--profile)" }
                    ))
                }
            }
        }
    }
    let pp_needed = policy.as_ref().is_some_and(|p| p.needs().progress_periods);
    let host = Host::live();
    let control = Control::new(if linux { Method::Signals } else { cfg.method.clone() })
        .map_err(|e| format!("cannot set up {}: {e}", cfg.method.label()))?;
    let watchdog = match &cfg.watchdog_exe {
        Some(exe) => {
            let mut w = Watchdog::spawn(exe).map_err(|e| format!("cannot start the watchdog: {e}"))?;
            let restore: Vec<String> = control.restore.iter().map(u32::to_string).collect();
            w.tell(&format!("method {}", control.method.encode())).map_err(|e| format!("watchdog: {e}"))?;
            if let Some(d) = control.dir() {
                w.tell(&format!("dir {}", d.display())).map_err(|e| format!("watchdog: {e}"))?;
            }
            w.tell(&format!("restore {}", restore.join(","))).map_err(|e| format!("watchdog: {e}"))?;
            Some(w)
        }
        None => None,
    };
    sys::become_subreaper();
    SIGNALLED.store(0, Ordering::Relaxed);
    // SAFETY: the handler only stores to an atomic.
    unsafe {
        libc::signal(libc::SIGINT, on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t);
        libc::signal(libc::SIGCHLD, on_child as extern "C" fn(libc::c_int) as libc::sighandler_t);
    }
    let run_tmp = std::env::temp_dir().join(format!("cosched-run-{}", std::process::id()));
    let (tx, rx): (Sender<PpMsg>, Receiver<PpMsg>) = channel();
    let server = PpServer::start(&run_tmp, tx).map_err(|e| format!("cannot start the progress-period server: {e}"))?;
    let bus = cfg.machine.as_ref().map(|m| m.bus_lines_per_s());
    let (meter, energy_src) = match Rapl::open(std::path::Path::new("/sys/class/powercap")) {
        Some(r) => (Meter::Rapl(r), "measured (RAPL package + DRAM via powercap)".to_string()),
        None => match (PerfPower::open(), &cfg.machine) {
            (Ok(p), _) => (Meter::PerfPower(RefCell::new(p)), "measured (RAPL through perf power events)".to_string()),
            (Err(_), Some(m)) => (
                Meter::Model(ModelledEnergy::new(PowerModel::new(&m.power, host.topology.n_cores as usize))),
                format!("modelled (no RAPL here; preset `{}` power model, EFS Eq. 13, on measured CPU utilisation, memory traffic unknown)", m.name),
            ),
            (Err(_), None) => {
                (Meter::None, "unavailable (no RAPL here and no --machine preset to model it)".to_string())
            }
        },
    };
    let trace = match &cfg.trace {
        Some(p) => {
            let f = std::fs::File::create(p).map_err(|e| format!("{}: cannot write trace: {e}", p.display()))?;
            let names = cfg.mix.instances().into_iter().map(|i| i.name).collect();
            Some(
                ChromeTrace::new(BufWriter::new(f), &host.topology, names)
                    .map_err(|e| format!("{}: {e}", p.display()))?,
            )
        }
        None => None,
    };
    let n_ctx = host.topology.n_contexts();
    let host_llc = host.llc_bytes;
    let mut rt = Runtime {
        cfg_policy: cfg.policy.clone(),
        host,
        control,
        watchdog,
        policy,
        pp_needed,
        ents: vec![],
        job_of: vec![],
        running: vec![None; n_ctx],
        leader_of: BTreeMap::new(),
        periods: BTreeMap::new(),
        next_period: 1,
        timers: BTreeMap::new(),
        queue: VecDeque::new(),
        out: vec![],
        t0: Instant::now(),
        bus,
        meter,
        jiffies: sys::cpu_jiffies(),
        last_sample: Instant::now(),
        trace,
        events: 0,
        ticks: 0,
        block_ticks: cfg.block_ticks.max(1),
        counters: counter_source.map(RefCell::new),
        leaders: vec![],
        hz: sys::clock_ticks(),
        llc: cfg.machine.as_ref().map(|m| m.cache.llc_mb * 1024.0 * 1024.0).or(host_llc),
    };
    // Check the policy can start on this machine before launching anything:
    // a dry `init` on the planned instances (a refusal must not leave
    // launched processes behind).
    if !linux {
        let planned: Vec<JobId> = cfg.mix.instances().iter().map(|i| JobId(i.job as u32)).collect();
        let leaders = vec![0; planned.len()];
        let view = View { job_of: &planned, leaders: &leaders, counters: None, ..rt.view() };
        policies::make(&cfg.policy, &cfg.opts)?.init(&view).map_err(|e| format!("{}: {e}", cfg.policy))?;
    }
    let cpu0 = sys::self_cpu_s();
    let mut failures: Vec<RealJob> = vec![];
    let mut order: Vec<(usize, String)> = vec![];
    for inst in cfg.mix.instances() {
        match launch(&mut rt, &cfg, inst.job, &inst.name, server.path()) {
            Ok(e) => order.push((e, inst.name.clone())),
            Err(why) => {
                eprintln!("warning: {}: {why}; the rest of the run goes on", inst.name);
                failures.push(RealJob {
                    name: inst.name.clone(),
                    turnaround_s: None,
                    solo_s: cfg.solo[inst.job],
                    slowdown: None,
                    cpu_s: 0.0,
                    exit_code: None,
                    error: Some(why),
                });
            }
        }
    }
    if let Some(mut p) = rt.policy.take() {
        let started = p.init(&rt.view());
        rt.policy = Some(p);
        if let Err(e) = started {
            let msg = format!("{}: {e}", rt.cfg_policy);
            rt.release(true);
            return Err(msg);
        }
        for e in 0..rt.ents.len() {
            rt.control.freeze(&mut rt.ents[e].tree);
        }
        for e in 0..rt.ents.len() {
            let job = rt.job_of[e];
            rt.dispatch(Event::Arrived { thread: ThreadId(e as u32), job });
            if let Some(prof) = &cfg.mix.jobs[rt.ents[e].mix_job].profile {
                if pp_needed {
                    let id = rt.new_period(e, None, prof.demand(), None);
                    rt.begin_period(e, id);
                }
            }
        }
    }
    let deadline = cfg.timeout.map(|t| rt.t0 + t);
    let mut next_tick = Instant::now() + cfg.tick;
    let mut interrupted = false;
    while rt.ents.iter().any(|e| e.st != St::Done) {
        if SIGNALLED.load(Ordering::Relaxed) != 0 || deadline.is_some_and(|d| Instant::now() >= d) {
            interrupted = true;
            break;
        }
        let wait = rt.next_wake(next_tick.saturating_duration_since(Instant::now()));
        match rx.recv_timeout(wait) {
            Ok(msg) => {
                rt.on_pp(msg);
                while let Ok(m) = rx.try_recv() {
                    rt.on_pp(m);
                }
            }
            Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => {}
        }
        if Instant::now() >= next_tick || rt.timers.values().any(|&t| t <= rt.now()) {
            rt.tick();
            next_tick = Instant::now() + cfg.tick;
        }
    }
    let wall = rt.t0.elapsed().as_secs_f64();
    if interrupted {
        rt.release(true);
    }
    for e in 0..rt.ents.len() {
        let slice_open = rt.ents[e].slice.is_some();
        if slice_open {
            rt.close_slice(e);
        }
    }
    let sched_cpu = sys::self_cpu_s() - cpu0;
    let mut jobs: Vec<RealJob> = order
        .iter()
        .map(|(e, name)| {
            let ent = &rt.ents[*e];
            let turnaround = ent.end.map(|t| t.duration_since(ent.start).as_secs_f64());
            let solo = cfg.solo[ent.mix_job];
            RealJob {
                name: name.clone(),
                turnaround_s: turnaround,
                solo_s: solo,
                slowdown: turnaround.zip(solo).map(|(t, s)| t / s),
                cpu_s: ent.cpu_s,
                exit_code: ent.exit_code,
                error: None,
            }
        })
        .collect();
    for j in &jobs {
        if let Some(code) = j.exit_code.filter(|&c| c != 0) {
            eprintln!("warning: {} exited with status {code}", j.name);
        }
    }
    jobs.extend(failures);
    let outcomes: Vec<JobOutcome> = jobs
        .iter()
        .filter_map(|j| {
            Some(JobOutcome {
                name: j.name.clone(),
                threads: 1,
                arrival_s: 0.0,
                turnaround_s: j.turnaround_s?,
                solo_s: j.solo_s,
                slowdown: j.slowdown,
                instructions: 0.0,
            })
        })
        .collect();
    let makespan = outcomes.iter().map(|o| o.turnaround_s).fold(0.0, f64::max);
    rt.sample_energy(sys::cpu_jiffies());
    let energy = rt.energy().unwrap_or_default();
    let metrics = aggregate(&outcomes, makespan, energy);
    let mut provenance = BTreeMap::new();
    provenance
        .insert("turnaround, makespan".into(), "measured (wall clock, launch to last process of the tree gone)".into());
    provenance.insert(
        "slowdown, unfairness, stp, antt".into(),
        if cfg.solo.iter().all(Option::is_some) {
            "measured turnaround over solo turnaround (solo measured with --solo, or declared solo_s)".into()
        } else {
            "unavailable (solo turnaround neither measured (--solo) nor declared (solo_s) for every job)".into()
        },
    );
    provenance.insert("energy".into(), energy_src);
    provenance
        .insert("instructions, throughput".into(), "unavailable (the runtime reads no instruction counter)".into());
    if policy_needs_counters {
        let mux = rt.counters.as_ref().map(|c| c.borrow().multiplexed()).unwrap_or(0);
        let text = if mux > 0 { format!("{counters_src}; {mux} readings multiplexed (scaled)") } else { counters_src };
        provenance.insert("policy counters".into(), text);
    }
    if let Some(tr) = rt.trace.take() {
        tr.finish().map_err(|e| format!("trace: {e}"))?;
    }
    let report = RealReport {
        policy: cfg.policy.clone(),
        mix: cfg.mix.name.clone().unwrap_or_else(|| "mix".into()),
        freezer: if linux { "none (kernel scheduling)".into() } else { rt.control.method.label().into() },
        jobs,
        metrics,
        provenance,
        scheduler_cpu_pct: if wall > 0.0 { 100.0 * sched_cpu / wall } else { 0.0 },
        policy_events: rt.events,
        interrupted,
    };
    drop(server);
    drop(rt);
    let _ = std::fs::remove_dir_all(&run_tmp);
    // SAFETY: restoring default dispositions.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_DFL);
        libc::signal(libc::SIGTERM, libc::SIG_DFL);
        libc::signal(libc::SIGCHLD, libc::SIG_DFL);
    }
    Ok(report)
}

/// Solo turnaround of each job of `mix` (one instance alone, under `linux`),
/// `None` where the run failed; `config` builds each run's configuration.
pub fn solo_turnarounds(mix: &Mix, config: impl Fn(Mix, &str) -> RunConfig) -> Result<Vec<Option<f64>>, String> {
    let mut out = vec![];
    for j in 0..mix.jobs.len() {
        eprintln!("solo: {} …", mix.jobs[j].name);
        let r = run(config(mix.only(&[j]), LINUX))?;
        if let Some(e) = &r.jobs[0].error {
            eprintln!("warning: solo run of {}: {e}", mix.jobs[j].name);
        }
        out.push(r.jobs[0].turnaround_s);
    }
    Ok(out)
}

impl RealReport {
    /// Mean slowdown of the instances of mix job `job`, when measured.
    pub fn mean_slowdown(&self, job: &str) -> Option<f64> {
        let s: Vec<f64> =
            self.jobs.iter().filter(|x| crate::mix::belongs(&x.name, job)).filter_map(|x| x.slowdown).collect();
        (!s.is_empty()).then(|| s.iter().sum::<f64>() / s.len() as f64)
    }
}

/// Start one instance; registers it with the watchdog before it can be frozen or pinned.
fn launch(
    rt: &mut Runtime,
    cfg: &RunConfig,
    job: usize,
    name: &str,
    socket: &std::path::Path,
) -> Result<usize, String> {
    let j = &cfg.mix.jobs[job];
    let prog = resolve_program(&j.cmd[0]).ok_or_else(|| format!("command `{}` not found", j.cmd[0]))?;
    let idx = rt.ents.len();
    let (cg, joiner) = rt.control.prepare(idx).map_err(|e| format!("cannot create its cgroup: {e}"))?;
    let mut cmd = Command::new(&prog);
    cmd.args(&j.cmd[1..]).current_dir(cfg.mix.cwd(j)).envs(&j.env).env(SOCKET_ENV, socket).stdin(Stdio::null());
    match &cfg.output_dir {
        Some(d) => {
            let _ = std::fs::create_dir_all(d);
            let file = |ext: &str| std::fs::File::create(d.join(format!("{name}.{ext}"))).map(Stdio::from);
            cmd.stdout(file("out").map_err(|e| e.to_string())?).stderr(file("err").map_err(|e| e.to_string())?);
        }
        None => {
            cmd.stdout(Stdio::null()).stderr(Stdio::null());
        }
    }
    // SAFETY: the joiner only makes async-signal-safe system calls.
    unsafe {
        cmd.pre_exec(move || joiner.join());
    }
    let mut child = cmd.spawn().map_err(|e| format!("cannot start `{}`: {e}", prog.display()))?;
    let pid = child.id() as i32;
    let mut tree = rt.control.adopt(pid, cg);
    // Registration must succeed, or the instance is stopped again: no process
    // may run that the watchdog does not know or the policy cannot see.
    let registered = rt
        .watchdog
        .as_mut()
        .map_or(Ok(()), |w| w.tell(&format!("leader {pid}")).map_err(|e| format!("watchdog: {e}")))
        .and_then(|_| rt.counters.as_ref().map_or(Ok(()), |src| src.borrow_mut().attach(idx, pid, &j.name)));
    if let Err(e) = registered {
        for p in rt.control.members(&mut tree) {
            sys::signal(p, libc::SIGKILL);
        }
        let _ = child.kill();
        let _ = child.wait();
        rt.control.release(&mut tree);
        return Err(e);
    }
    rt.leaders.push(pid);
    rt.leader_of.insert(pid, idx);
    rt.job_of.push(JobId(job as u32));
    rt.ents.push(Ent {
        mix_job: job,
        tree,
        start: Instant::now(),
        end: None,
        st: St::Queued,
        exit_code: None,
        idle_ticks: 0,
        exit_pending: false,
        begin_pending: None,
        cpu_s: 0.0,
        run_ns: 0,
        slice: None,
    });
    // The std Child is not waited on: the event loop reaps with waitpid(-1).
    std::mem::forget(child);
    Ok(idx)
}
