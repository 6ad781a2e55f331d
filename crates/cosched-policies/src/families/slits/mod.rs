//! SLITS-(Contention) and SLITS-(Fairness) (SLITS §3-4).
//!
//! * Profiling (§3.2): when a thread's interval ends (it blocks, exits or is
//!   preempted), its LLC misses per kilo-instruction (Contention) or IPC
//!   (Fairness) over the interval is recorded in the Thread-Interaction Matrix
//!   against every thread that was running in its LLC domain when it started,
//!   and the factorization machine takes a bounded number of SGD steps (the
//!   new observation plus a replay of recent ones): incremental, warm-started
//!   training inside the scheduler.
//! * Lazy Reschedule (§3.4): a context is rescheduled only when its thread
//!   stalls (blocks) or exits; no quantum, no preemption. The periodic
//!   alternative (`trigger = Periodic(q)`) preempts every q.
//! * Contention (§4.3.1): among the waiting threads, the one whose FM
//!   estimate of LLC misses, averaged over the threads running in the idle
//!   context's LLC domain, is the *least*. The paper's text says "maximum
//!   value of the averaged estimate" in one sentence and "the least amount of
//!   (estimated) contention" in the one before; with LLC misses as the
//!   statistic only the minimum serves the stated goal, so we take it.
//! * Fairness (§4.3.2): estimated IPC averaged the same way; a thread drawn
//!   at random (seeded) among those below the median.
//! * Step ① (§4.3.1): only the waiting threads "available to run on the idle
//!   core" are ranked. §5.3 assigns 2/4/8 threads to each core for SLITS as
//!   for P-RRS, so each thread gets a home context when it arrives (dealt
//!   round-robin in spread order, as P-RRS deals them) and a context picks
//!   among its own waiting threads (`Scope::PerCore`, the default);
//!   `Scope::Global` ranks every waiting thread (one global queue, kept as an
//!   ablation).
//! * Step ② uses what was measured before what is estimated: a running
//!   thread's TIM entry for the candidate, where observed, stands in for the
//!   FM's estimate of it (the FM only fills the missing entries, §3.3).
//! * Coverage (§6.4): a share `coverage` of the picks uses the FM, the rest
//!   round-robin (FIFO). Ablations (§6.3): the pairing rule is one
//!   knob under the same trigger — `Pairing::Fm` (the paper), `RoundRobin`
//!   (the paper's "without FM"), `Random` (a seeded uniform pick) and
//!   `Oracle` (the simulator's ground-truth co-run statistic, labelled oracle:
//!   what a perfect predictor would choose); periodic trigger with P-RRS's
//!   quantum for "without Lazy Reschedule".

mod params;
mod policy;

pub use params::{Pairing, Scope, SlitsKnobs, SlitsParams, Trigger};

use super::slots::{Dealer, Slots};
use crate::counters::Counters;
use crate::ids::{CtxId, ThreadId};
use crate::learn::Fm;
use crate::policy::{Decision, MachineView};
use crate::slits::{features, mean_over_running, PairProfile, Tim};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// What the TIM records and the policy optimises.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlitsObjective {
    /// LLC misses per kilo-instruction; least estimated contention first.
    Contention,
    /// IPC; random among the threads estimated below the median.
    Fairness,
}

const HISTORY: usize = 512;

/// A SLITS policy.
pub struct Slits {
    objective: SlitsObjective,
    p: SlitsParams,
    seed: u64,
    rng: ChaCha8Rng,
    queue: VecDeque<ThreadId>,
    slots: Option<Slots>,
    n: usize,
    fm: Option<Fm>,
    tim: Tim,
    history: Vec<([(usize, f64); 3], f64)>,
    next_slot: usize,
    snap: Vec<Option<(Counters, Vec<u32>)>>,
    fm_picks: u64,
    picks: u64,
    /// Picks with two or more waiting threads to rank (`Policy::found`).
    choices: u64,
    scores: Vec<f64>,
    profile: Option<PairProfile>,
    home: Vec<Option<CtxId>>,
    dealer: Dealer,
    trained: Vec<Observation>,
    held_out: Vec<Observation>,
}

/// One TIM observation as the FM sees it: features (running, waiting, core) and the statistic.
pub type Observation = ([(usize, f64); 3], f64);

impl Slits {
    /// A SLITS variant with the given knobs and seed.
    pub fn new(objective: SlitsObjective, p: SlitsParams, seed: u64) -> Slits {
        Slits {
            objective,
            tim: Tim::new(p.tim_alpha),
            p,
            seed,
            rng: ChaCha8Rng::seed_from_u64(seed),
            queue: VecDeque::new(),
            slots: None,
            n: 0,
            fm: None,
            history: vec![],
            next_slot: 0,
            snap: vec![],
            fm_picks: 0,
            picks: 0,
            choices: 0,
            scores: vec![],
            profile: None,
            home: vec![],
            dealer: Dealer::default(),
            trained: vec![],
            held_out: vec![],
        }
    }

    /// Warm-start the FM from a probed profile (no counters needed): the
    /// job-level matrix is completed by the Bayesian FM
    /// ([`PairProfile::complete`], [`crate::learn::complete_bayes`]:
    /// measured pairs as measured, the rest the posterior mean; row + column
    /// means below 10 measured pairs), and every job pair becomes TIM observations
    /// of every thread pair of those jobs on every context, with the
    /// objective's statistic computed from the slowdown (Contention: the
    /// slowdown itself, the contention suffered; Fairness: 1/slowdown,
    /// progress relative to running alone, the analogue of IPC).
    fn train_on_profile(&mut self, view: &dyn MachineView) {
        let (Some(p), Some(fm)) = (self.profile.as_ref(), self.fm.as_mut()) else { return };
        if p.observed.is_empty() {
            return;
        }
        let n = self.n;
        let ctxs = view.topology().n_contexts();
        let completed = p.complete(self.seed);
        let job = |t: usize| view.job_of(crate::ids::ThreadId(t as u32)).idx();
        let mut data = vec![];
        for (j, row) in completed.iter().enumerate() {
            for (k, &slowdown) in row.iter().enumerate() {
                let y = match self.objective {
                    SlitsObjective::Contention => slowdown,
                    SlitsObjective::Fairness => 1.0 / slowdown,
                };
                for w in (0..n).filter(|&t| job(t) == j) {
                    for r in (0..n).filter(|&t| t != w && job(t) == k) {
                        self.tim.record(r as u32, w as u32, y);
                        for c in 0..ctxs {
                            data.push((features(n, r, w, c).to_vec(), y));
                        }
                    }
                }
            }
        }
        if !data.is_empty() {
            fm.fit(&data, 60, self.seed);
        }
    }

    /// The Thread-Interaction Matrix gathered so far.
    pub fn tim(&self) -> &Tim {
        &self.tim
    }

    /// The factorization machine as trained so far.
    pub fn model(&self) -> Option<&Fm> {
        self.fm.as_ref()
    }

    /// Start from a trained model (warm start across runs; see `Fm`'s serde support).
    /// A model whose feature count does not fit the run is replaced at `init`.
    pub fn load_model(&mut self, fm: Fm) {
        self.fm = Some(fm);
    }

    /// Accuracy study (`holdout > 0`): the observations the FM trained on and
    /// the ones held out of training, in arrival order.
    pub fn observations(&self) -> (&[Observation], &[Observation]) {
        (&self.trained, &self.held_out)
    }

    /// Share of picks made with the pairing rule.
    pub fn fm_share(&self) -> f64 {
        if self.picks == 0 {
            0.0
        } else {
            self.fm_picks as f64 / self.picks as f64
        }
    }

    fn metric(&self, d: &Counters) -> Option<f64> {
        match self.objective {
            SlitsObjective::Contention if d.instructions > 0.0 => Some(d.llc_misses * 1000.0 / d.instructions),
            SlitsObjective::Fairness if d.cycles > 0.0 => Some(d.instructions / d.cycles),
            _ => None,
        }
    }

    /// Close `t`'s interval on context `c`: record it in the TIM and train.
    fn observe(&mut self, t: ThreadId, c: CtxId, view: &dyn MachineView) {
        let Some((before, corunners)) = self.snap.get_mut(t.idx()).and_then(Option::take) else { return };
        let Some(now) = view.thread_counters(t) else { return };
        let Some(y) = self.metric(&now.since(&before)) else { return };
        let n = self.n;
        for r in corunners {
            self.tim.record(r, t.0, y);
            let x = features(n, r as usize, t.idx(), c.idx());
            if self.p.holdout > 0 {
                if (r as u64 * 31 + t.0 as u64).is_multiple_of(self.p.holdout as u64) {
                    self.held_out.push((x, y));
                    continue;
                }
                self.trained.push((x, y));
            }
            if self.history.len() < HISTORY {
                self.history.push((x, y));
            } else {
                self.history[self.next_slot] = (x, y);
                self.next_slot = (self.next_slot + 1) % HISTORY;
            }
            if let Some(fm) = self.fm.as_mut() {
                fm.sgd_step(&x, y);
                for _ in 0..self.p.replay {
                    let (hx, hy) = self.history[self.rng.gen_range(0..self.history.len())];
                    fm.sgd_step(&hx, hy);
                }
            }
        }
    }

    /// Threads running in `c`'s LLC domain.
    fn domain_runners(&self, c: CtxId, view: &dyn MachineView) -> Vec<u32> {
        let topo = view.topology();
        let llc = topo.ctx(c).llc;
        let slots = self.slots.as_ref().expect("init");
        topo.ctx_ids()
            .filter(|&o| o != c && topo.ctx(o).llc == llc)
            .filter_map(|o| slots.running[o.idx()])
            .map(|t| t.0)
            .collect()
    }

    /// Give `t` its home context when it first arrives (dealt in spread order, as P-RRS deals).
    fn assign_home(&mut self, t: ThreadId) {
        if self.home[t.idx()].is_none() {
            self.home[t.idx()] = Some(self.dealer.next(&self.slots.as_ref().expect("init").order));
        }
    }

    /// Step ①: queue positions of the waiting threads `c` may run.
    fn candidates(&self, c: CtxId) -> Vec<usize> {
        let mine = |t: &ThreadId| self.p.scope == Scope::Global || self.home[t.idx()] == Some(c);
        self.queue.iter().enumerate().filter(|(_, t)| mine(t)).map(|(i, _)| i).collect()
    }

    /// Step ②: for each candidate, the statistic averaged over `running`,
    /// observed TIM entries first and the FM's estimate for the rest.
    fn estimate(&mut self, fm_scores: &mut Vec<f64>, running: &[usize], cands: &[usize], c: CtxId) {
        let Some(fm) = self.fm.as_ref() else { return };
        mean_over_running(fm, self.n, running, cands, c.idx(), fm_scores);
        let m = running.len() as f64;
        for (i, &w) in cands.iter().enumerate() {
            for &r in running {
                if let Some(e) = self.tim.get(r as u32, w as u32) {
                    fm_scores[i] += (e.value - fm.predict(&features(self.n, r, w, c.idx()))) / m;
                }
            }
        }
    }

    /// Index into the queue of the thread to run on idle context `c`.
    fn choose(&mut self, c: CtxId, view: &dyn MachineView) -> Option<usize> {
        let cands = self.candidates(c);
        if cands.is_empty() {
            return None;
        }
        self.picks += 1;
        self.choices += u64::from(cands.len() > 1);
        let running: Vec<usize> = self.domain_runners(c, view).into_iter().map(|t| t as usize).collect();
        let ranked = match self.p.pairing {
            Pairing::RoundRobin => false,
            Pairing::Random => true,
            Pairing::Fm => self.fm.is_some() && !running.is_empty(),
            Pairing::Oracle => view.oracle().is_some(),
        };
        if !ranked || !self.rng.gen_bool(self.p.coverage.clamp(0.0, 1.0)) {
            return Some(cands[0]);
        }
        self.fm_picks += 1;
        if self.p.pairing == Pairing::Random {
            return Some(cands[self.rng.gen_range(0..cands.len())]);
        }
        let threads: Vec<usize> = cands.iter().map(|&i| self.queue[i].idx()).collect();
        let mut scores = std::mem::take(&mut self.scores);
        match self.p.pairing {
            Pairing::Oracle => {
                let o = view.oracle().expect("checked above");
                scores.clear();
                scores.extend(threads.iter().map(|&w| {
                    // No answer ranks last under either objective (NaN is never below the median or the least).
                    o.corun(ThreadId(w as u32), c).map_or(f64::NAN, |r| match self.objective {
                        SlitsObjective::Contention => r.mpki,
                        SlitsObjective::Fairness => r.ipc,
                    })
                }));
            }
            _ => self.estimate(&mut scores, &running, &threads, c),
        }
        let pick = match self.objective {
            SlitsObjective::Contention => {
                (0..scores.len()).min_by(|&a, &b| scores[a].total_cmp(&scores[b]).then(a.cmp(&b)))
            }
            SlitsObjective::Fairness => {
                let mut sorted = scores.clone();
                sorted.sort_by(f64::total_cmp);
                let median = sorted[sorted.len() / 2];
                let below: Vec<usize> = (0..scores.len()).filter(|&i| scores[i] < median).collect();
                let pool = if below.is_empty() { (0..scores.len()).collect() } else { below };
                Some(pool[self.rng.gen_range(0..pool.len())])
            }
        };
        self.scores = scores;
        pick.map(|i| cands[i])
    }

    fn dispatch(&mut self, c: CtxId, view: &dyn MachineView, out: &mut Vec<Decision>) {
        let Some(i) = self.choose(c, view) else { return };
        let t = self.queue.remove(i).expect("index from the queue");
        let corunners = self.domain_runners(c, view);
        if let Some(cnt) = view.thread_counters(t) {
            self.snap[t.idx()] = Some((cnt, corunners));
        }
        let slots = self.slots.as_mut().expect("init");
        slots.running[c.idx()] = Some(t);
        out.push(Decision::Run { thread: t, ctx: c });
        if let Trigger::Periodic(q) = self.p.trigger {
            out.push(Decision::Timer { key: c.0, at: Some(view.now() + q) });
        }
    }

    fn fill_idle(&mut self, view: &dyn MachineView, out: &mut Vec<Decision>) {
        let idle: Vec<CtxId> = self.slots.as_ref().expect("init").idle().collect();
        for c in idle {
            if self.queue.is_empty() {
                break;
            }
            self.dispatch(c, view, out);
        }
    }
}

/// This family's policies in the registry ([`super::registry`]), at their rank
/// (registry order; `cosched new-policy` files take rank 1000).
pub(crate) const REGISTERED: super::Registered = super::Registered {
    rank: 70,
    policies: &[
    super::PolicyInfo {
        name: "slits-contention",
        description: "SLITS-(Contention): TIM of LLC misses completed by a factorization machine, Lazy Reschedule, least estimated contention first (SLITS §4.3.1)",
        oracle: false,
        knob_groups: &[<SlitsKnobs as super::knob::Declared>::GROUP],
        make: |o| Ok(Box::new(Slits::new(SlitsObjective::Contention, o.slits.clone(), o.seed))),
    },
    super::PolicyInfo {
        name: "slits-fairness",
        description: "SLITS-(Fairness): TIM of IPC completed by a factorization machine, Lazy Reschedule, random thread below the median estimated IPC (SLITS §4.3.2)",
        oracle: false,
        knob_groups: &[<SlitsKnobs as super::knob::Declared>::GROUP],
        make: |o| Ok(Box::new(Slits::new(SlitsObjective::Fairness, o.slits.clone(), o.seed))),
    },
    ],
};

#[cfg(test)]
mod tests;
