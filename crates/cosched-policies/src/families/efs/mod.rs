//! EFS, the Energy-Friendly Scheduler (paper 001, §4): CFS whose task
//! selection runs a thread only if the memory-bus model says the machine
//! gains from it (Eqs. 10 + 16), else tries the next thread in vruntime order,
//! else leaves the core idle; with starvation freedom (§4.3).
//!
//! Readings chosen where the paper is terse (also in `docs/efs.md`):
//! * the running set whose solo bandwidths enter Eq. 16 is the threads on the
//!   *other* contexts; the number of active cores in Eq. 13 counts busy
//!   contexts (the i5-2500 has no SMT);
//! * a thread's solo bandwidth is estimated at the end of each scheduling
//!   interval (preemption, block, exit) from the interval's counter deltas
//!   (Eqs. 18, 19, 9) and folded into Eq. 20's predictor;
//! * "longest starved": among the leftmost threads of every context that are
//!   starved (Eq. 22 lag or Eq. 23 absence), the one that has not run for the
//!   longest; it runs on its own context with a slice of
//!   `min(period(n_c), max vruntime − its vruntime)`, but never less than
//!   CFS's own slice (a thread alone on its core has no lag, and a zero slice
//!   would not let it run), and every other busy context re-checks its thread;
//! * freed resources: after every event, idle contexts with waiting threads
//!   re-run task selection (the paper tracks each core's lowest requirement
//!   in O(1); scanning 4–16 queues is as cheap here).

mod params;

pub use params::{Admission, EfsKnobs, EfsParams};

use super::cfs::{CfsCore, CfsParams, Gate, Pick};
use crate::counters::Counters;
use crate::efs::model::threshold_or_capacity;
use crate::efs::starvation::period;
use crate::efs::Predictor;
use crate::ids::{Nanos, ThreadId};
use crate::families::PolicyError;
use crate::policy::{Decision, Event, MachineView, Needs, Oracle, Policy};

#[derive(Clone, Copy)]
struct Snapshot {
    at: Nanos,
    thread: Counters,
    socket: Counters,
}

/// EFS's task selection (§4.2-4.3) as a CFS [`Gate`]; `quintet` reuses its
/// admission test and starvation freedom.
pub(crate) struct EfsGate {
    p: EfsParams,
    cumulative_power: Vec<f64>,
    mu: f64,
    cores: usize,
    pred: Vec<Predictor>,
    snap: Vec<Option<Snapshot>>,
    recheck_others: bool,
    /// One longest-starved thread is forced in per event.
    forced_this_event: bool,
    /// End of each forced thread's compensated slice (re-checks spare it until then).
    protected_until: Vec<Nanos>,
}

impl EfsGate {
    fn power(&self, active: usize) -> f64 {
        self.cumulative_power[active.min(self.cumulative_power.len() - 1)]
    }

    fn grow(&mut self, t: ThreadId) {
        while self.pred.len() <= t.idx() {
            self.pred.push(Predictor::new(self.cores, self.p.window as f64 * 1e-9));
            self.snap.push(None);
            self.protected_until.push(0);
        }
    }

    /// A thread's solo bus utilisation as admission sees it: Eq. 20's
    /// prediction (1/#cores before any), or the oracle's under `OracleSolo`.
    fn solo(&self, t: ThreadId, view: &dyn MachineView) -> f64 {
        if self.p.admission == Admission::OracleSolo {
            if let Some(bw) = view.oracle().and_then(|o| o.solo_mem_bandwidth(t)) {
                // A demand at or above μ saturates the bus alone (as Eq. 9's estimates never exceed 1).
                return (bw / self.mu).min(0.999);
            }
        }
        self.pred.get(t.idx()).map_or(1.0 / self.cores as f64, |p| p.value)
    }

    /// Eq. 15 on the true outcome: the first waiting thread (vruntime order)
    /// whose co-schedule costs no more than leaving context `c` idle.
    fn choose_by_truth(&self, c: usize, core: &CfsCore, o: &dyn Oracle, n: usize) -> Pick {
        let ctx = crate::ids::CtxId(c as u32);
        // Throughput of Eq. 12 measured: each thread's speed relative to alone.
        let speed = |runs: &[(ThreadId, crate::policy::CoRun)]| -> f64 {
            runs.iter().filter_map(|(t, r)| o.solo_ipc(*t).map(|a| r.ipc / a)).sum()
        };
        let now = o.coschedule(ctx, None).map_or(0.0, |r| speed(&r));
        let cost_now = if now > 0.0 { self.p.objective.cost(self.power(n), now) } else { f64::INFINITY };
        for &(_, t) in &core.rqs[c].tree {
            let t = ThreadId(t);
            let with = o.coschedule(ctx, Some(t)).map_or(0.0, |r| speed(&r));
            if with > 0.0 && self.p.objective.cost(self.power(n + 1), with) <= cost_now {
                return Pick::Thread(t, None);
            }
        }
        Pick::Idle
    }

    /// The longest-starved thread, if it waits on context `c`.
    fn starved_here(&self, c: usize, core: &CfsCore, now: Nanos) -> Option<(ThreadId, Nanos)> {
        let n_p = core.n_runnable();
        let mut best: Option<(Nanos, usize, ThreadId)> = None;
        for (i, rq) in core.rqs.iter().enumerate() {
            let Some(&(v, t)) = rq.tree.first() else { continue };
            let t = ThreadId(t);
            let waited = now.saturating_sub(core.tasks[t.idx()].last_ran);
            let lag = core.max_vruntime(i).saturating_sub(v);
            let starved = lag > self.p.thresholds.local(rq.nr as usize) || waited > self.p.thresholds.global(n_p);
            if starved && best.is_none_or(|b| waited > b.0) {
                best = Some((waited, i, t));
            }
        }
        let (_, i, t) = best?;
        if i != c {
            return None;
        }
        let lag = core.max_vruntime(c).saturating_sub(core.tasks[t.idx()].vruntime);
        let compensated = period(core.rqs[c].nr as usize).min(lag);
        Some((t, compensated.max(core.slice(c, t))))
    }
}

impl EfsGate {
    /// A gate with the given knobs; [`EfsGate::init`] reads the machine.
    pub(crate) fn new(p: EfsParams) -> EfsGate {
        EfsGate {
            p,
            cumulative_power: vec![],
            mu: 0.0,
            cores: 1,
            pred: vec![],
            snap: vec![],
            recheck_others: false,
            forced_this_event: false,
            protected_until: vec![],
        }
    }

    /// Read μ and the power table (Eq. 13) from the knobs or the machine.
    pub(crate) fn init(&mut self, view: &dyn MachineView) -> Result<(), PolicyError> {
        if self.p.admission.is_oracle() && view.oracle().is_none() {
            let flag = crate::knob::flag_of("efs_admission");
            return Err(format!("efs: {flag} oracle/oracle-solo reads the simulator's ground truth; this backend has none").into());
        }
        self.cores = view.topology().n_contexts();
        self.mu =
            self.p.mu.or(view.bus_lines_per_s()).ok_or("efs needs the memory-bus rate mu (accesses per second)")?;
        let table = self.p.power.clone().or_else(|| view.power_table()).ok_or(
            "efs needs the machine's power table P0, P1, … (EFS Eq. 13): give the machine a description with one",
        )?;
        if table.len() < 2 || table.iter().any(|w| !(w.is_finite() && *w >= 0.0)) {
            return Err("efs: the power table needs P0 and at least one non-negative increment".into());
        }
        self.cumulative_power = vec![table[0]];
        for k in 1..=self.cores {
            let inc = table[k.min(table.len() - 1)];
            self.cumulative_power.push(self.cumulative_power[k - 1] + inc);
        }
        Ok(())
    }

    /// §4.3: the longest-starved thread, forced onto `c` with its compensated
    /// slice when it waits there (one per event; other contexts re-check).
    /// `allowed` may refuse the thread (RDA's hold, under `quintet`).
    pub(crate) fn force_starved(
        &mut self,
        c: usize,
        core: &CfsCore,
        view: &dyn MachineView,
        allowed: &dyn Fn(ThreadId) -> bool,
    ) -> Option<Pick> {
        if !self.p.starvation || self.forced_this_event {
            return None;
        }
        let (t, slice) = self.starved_here(c, core, view.now()).filter(|s| allowed(s.0))?;
        self.recheck_others = true;
        self.forced_this_event = true;
        self.grow(t);
        self.protected_until[t.idx()] = view.now() + slice;
        Some(Pick::Thread(t, Some(slice)))
    }

    /// Eqs. 10 + 16: the largest solo utilisation a thread may have to run on
    /// `c` beside the threads on the other contexts (capacity rule when the solve fails).
    pub(crate) fn threshold(&self, c: usize, core: &CfsCore, view: &dyn MachineView) -> f64 {
        let others: Vec<ThreadId> =
            core.rqs.iter().enumerate().filter(|&(i, _)| i != c).filter_map(|(_, rq)| rq.curr).collect();
        let n = others.len();
        let running: Vec<f64> = others.iter().map(|&t| self.solo(t, view).clamp(1e-4, 0.999)).collect();
        if self.p.admission == Admission::Capacity {
            (1.0 - running.iter().sum::<f64>()).max(0.0)
        } else {
            threshold_or_capacity(&running, self.power(n), self.power(n + 1), self.p.objective, self.p.newton).0
        }
    }

    /// Whether `t` passes admission under `threshold` (its Eq. 20 prediction at or below it).
    pub(crate) fn admits(&self, t: ThreadId, threshold: f64, view: &dyn MachineView) -> bool {
        self.solo(t, view) <= threshold
    }
}

impl Gate for EfsGate {
    fn choose(&mut self, c: usize, core: &CfsCore, view: &dyn MachineView) -> Pick {
        if core.rqs[c].tree.is_empty() {
            return Pick::Idle;
        }
        if let Some(p) = self.force_starved(c, core, view, &|_| true) {
            return p;
        }
        if let (Admission::Oracle, Some(o)) = (self.p.admission, view.oracle()) {
            let n = core.rqs.iter().enumerate().filter(|&(i, rq)| i != c && rq.curr.is_some()).count();
            return self.choose_by_truth(c, core, o, n);
        }
        // A failed solve falls back to the capacity rule, never to admitting everyone.
        let threshold = self.threshold(c, core, view);
        for &(_, t) in &core.rqs[c].tree {
            let t = ThreadId(t);
            if self.admits(t, threshold, view) {
                return Pick::Thread(t, None);
            }
        }
        Pick::Idle
    }

    fn started(&mut self, t: ThreadId, c: usize, view: &dyn MachineView) {
        self.grow(t);
        let socket = view.topology().contexts[c].socket;
        self.snap[t.idx()] = match (view.thread_counters(t), view.socket_counters(socket)) {
            (Some(thread), Some(socket)) => Some(Snapshot { at: view.now(), thread, socket }),
            _ => None,
        };
    }

    fn stopped(&mut self, t: ThreadId, c: usize, view: &dyn MachineView) {
        self.grow(t);
        let Some(s) = self.snap[t.idx()].take() else { return };
        let socket = view.topology().contexts[c].socket;
        let (Some(th), Some(so)) = (view.thread_counters(t), view.socket_counters(socket)) else { return };
        let dt = view.now().saturating_sub(s.at) as f64 * 1e-9;
        if dt <= 0.0 {
            return;
        }
        let (b, _) = crate::efs::interval_estimate(&th.since(&s.thread), &so.since(&s.socket), self.mu, dt);
        self.pred[t.idx()].update(b, dt);
    }
}

/// The EFS policy.
pub struct Efs {
    core: CfsCore,
    gate: EfsGate,
}

impl Efs {
    /// An EFS with the given knobs on top of CFS's default tunables.
    pub fn new(p: EfsParams) -> Efs {
        Efs { core: CfsCore::new(CfsParams::default()), gate: EfsGate::new(p) }
    }

    /// A thread's current solo-bandwidth prediction (B_i of Eq. 20).
    pub fn prediction(&self, t: ThreadId) -> Option<f64> {
        self.gate.pred.get(t.idx()).map(|p| p.value)
    }
}

impl Policy for Efs {
    fn name(&self) -> &'static str {
        "efs"
    }

    fn needs(&self) -> Needs {
        Needs { counters: true, oracle: self.gate.p.admission.is_oracle(), ..Needs::default() }
    }

    fn init(&mut self, view: &dyn MachineView) -> Result<(), PolicyError> {
        self.core.init(view);
        self.gate.init(view)
    }

    fn on_event(&mut self, ev: &Event, view: &dyn MachineView, out: &mut Vec<Decision>) {
        if !expire_alone(&mut self.core, &mut self.gate, ev, view, out) {
            self.core.on_event(ev, view, out, &mut self.gate);
        }
        retry_idle(&mut self.core, &mut self.gate, view, out);
        recheck_after_forced(&mut self.core, &mut self.gate, |g| g, view, out);
    }
}

/// Slice expiry is a scheduling event even for a thread alone on its
/// context: its interval ends (Eq. 20 learns from it) and it must pass
/// admission again. Returns whether `ev` was such an expiry (then handled).
pub(crate) fn expire_alone(
    core: &mut CfsCore,
    gate: &mut dyn Gate,
    ev: &Event,
    view: &dyn MachineView,
    out: &mut Vec<Decision>,
) -> bool {
    let Event::Timer { key } = *ev else { return false };
    let c = key as usize;
    if c >= core.rqs.len() || !core.rqs[c].tree.is_empty() {
        return false;
    }
    if core.rqs[c].curr.is_some() {
        core.update_curr(c, view.now());
        core.put_prev(c, view, gate);
        core.pick_next(c, view, out, gate);
    }
    true
}

/// Freed resources (§4.2): idle contexts with waiting threads try again.
pub(crate) fn retry_idle(core: &mut CfsCore, gate: &mut dyn Gate, view: &dyn MachineView, out: &mut Vec<Decision>) {
    for c in 0..core.rqs.len() {
        if core.rqs[c].curr.is_none() && !core.rqs[c].tree.is_empty() {
            core.pick_next(c, view, out, gate);
        }
    }
}

/// §4.3: after a starved thread was forced in, every other busy context
/// re-checks its thread, except threads serving their own compensated slice.
/// `efs` finds EFS's state inside the gate `G`.
pub(crate) fn recheck_after_forced<G: Gate>(
    core: &mut CfsCore,
    gate: &mut G,
    efs: fn(&mut G) -> &mut EfsGate,
    view: &dyn MachineView,
    out: &mut Vec<Decision>,
) {
    if std::mem::take(&mut efs(gate).recheck_others) {
        let now = view.now();
        for c in 0..core.rqs.len() {
            let Some(t) = core.rqs[c].curr else { continue };
            let protected = efs(gate).protected_until.get(t.idx()).is_some_and(|&u| u > now);
            if !protected && !out.iter().any(|d| matches!(d, Decision::Run { ctx, .. } if ctx.idx() == c)) {
                core.update_curr(c, now);
                core.put_prev(c, view, gate);
                core.pick_next(c, view, out, gate);
            }
        }
    }
    efs(gate).forced_this_event = false;
}

/// This family's policies in the registry ([`super::registry`]), at their rank
/// (registry order; `cosched new-policy` files take rank 1000).
pub(crate) const REGISTERED: super::Registered = super::Registered {
    rank: 50,
    policies: &[
    super::PolicyInfo {
        name: "efs",
        description: "EFS: CFS that runs a thread only when the memory-bus collision model says it saves energy, else leaves the core idle; starvation-free (EFS §4)",
        oracle: false,
        knob_groups: &[<EfsKnobs as super::knob::Declared>::GROUP],
        make: |o| Ok(Box::new(Efs::new(o.efs.clone()))),
    },
    ],
};
