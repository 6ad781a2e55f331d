//! `quintet`: one policy combining the five papers (design and measurements in `docs/quintet.md`).
//!
//! It is CFS (the base scheduler of EFS and RDA, and the "Linux" of SLITS
//! and Perf&Fair) whose task selection borrows one mechanism from each
//! paper, and whose placement the statistical study's pipelines, every one
//! switchable off (`--quintet-without`) for the ablations:
//!
//! 1. **periods** (RDA §3): a thread entering a declared progress period
//!    waits until the Strict predicate admits its demand; a waiting
//!    process's other threads are held (§3.4). Without declarations it does nothing.
//! 2. **progress** (Perf&Fair §3, Eq. 1; fairness objective): the fair
//!    window is the waiting threads within one scheduling latency of the
//!    least solo-equivalent progress, least advanced first, instead of CFS's
//!    vruntime window, and a context pulls the machine's least advanced
//!    waiting thread when it is more than one latency behind every thread
//!    waiting there (Perf&Fair selects machine-wide). IPC alone is measured
//!    as Perf&Fair's estimation quanta do (§5.1), carried to CFS: a context
//!    whose SMT sibling runs a thread without a valid estimate stays idle, so
//!    the sibling's next interval runs alone on its core; the estimate stays
//!    valid for 8 s of the thread's run time (40 quanta of 200 ms). Before the
//!    first estimate, and on machines without SMT, the best IPC the thread has
//!    shown stands in, fading with a 1 s half-life of its run time: on 100-s
//!    jobs that tracks the co-run IPC, so progress becomes CPU time (the
//!    ablation in `paper quintet` measures it).
//! 3. **pairing** (SLITS §3-4): the window is ranked by the speed both sides
//!    of the co-run are predicted to lose, from a TIM of relative speeds
//!    completed by an online FM (`interact.rs`); the neighbours are the SMT
//!    siblings on a machine with SMT (Perf&Fair's pairing level), else the
//!    LLC domain (SLITS's).
//! 4. **admission** (EFS §4.2-4.3; energy and EDP objectives): the
//!    best-ranked thread the bus-collision model admits runs, else the next,
//!    else the context stays idle; the longest-starved thread is forced in.
//! 5. **pipes** (statistical assignment §3.1: threads "share (and compete
//!    for) hardware resources at three different levels: *IntraPipe*,
//!    *IntraCore*, and *InterCore*"): a new thread goes to the least loaded
//!    pipeline of the least loaded core, a woken thread whose context is taken
//!    to the idle context of its LLC on the least loaded pipeline; Linux's
//!    placement balances cores only.
//!    It acts only where cores have several pipelines (the UltraSPARC T2);
//!    it is what the best static partitions there do.
//!
//! The fifth paper's estimate is also the yardstick: `cosched paper quintet`
//! and `compare` print each result's gap to the bound (the best static
//! partition with idle contexts allowed: exact, or its EVT estimate).

mod gate;
mod interact;
mod params;

pub use params::{Mechanism, QuintetKnobs, QuintetObjective, QuintetParams};

use super::efs::{expire_alone, recheck_after_forced, retry_idle, EfsGate, EfsParams};
use super::rda::PeriodGated;
use crate::ids::ThreadId;
use crate::families::PolicyError;
use crate::policy::{Decision, Event, MachineView, Needs, Policy};
use crate::rda::RdaPolicy;
use gate::QuintetGate;

/// The combined policy.
pub struct Quintet {
    inner: PeriodGated<QuintetGate>,
}

impl Quintet {
    /// A `quintet` with the given knobs, seeded `seed` (the FM's initial factors).
    pub fn new(p: QuintetParams, seed: u64) -> Quintet {
        let efs = EfsParams {
            objective: p.objective.efs().unwrap_or(crate::efs::model::Objective::Energy),
            ..EfsParams::default()
        };
        let pipes = p.uses(Mechanism::Pipes);
        let gate = QuintetGate::new(p, EfsGate::new(efs), seed);
        let mut inner = PeriodGated::with_gate(RdaPolicy::Strict, gate);
        inner.core.pipe_placement = pipes;
        Quintet { inner }
    }

    fn gate(&self) -> &QuintetGate {
        &self.inner.gate.inner
    }

    /// Solo-equivalent progress of a thread (Perf&Fair Eq. 1, in 200 ms units), when accounted.
    pub fn progress(&self, t: ThreadId) -> Option<f64> {
        self.gate().progress.get(t.idx()).map(|p| p.value)
    }

    /// Observed entries of the interaction matrix (0 with pairing off).
    pub fn observed_pairs(&self) -> usize {
        self.gate().model.as_ref().map_or(0, |m| m.observed())
    }

    /// Share of picks whose fair window held two or more threads: how often
    /// the pairing had a choice to make (0 before any pick).
    pub fn choice_share(&self) -> f64 {
        let (picks, choices) = self.gate().picks;
        if picks == 0 {
            0.0
        } else {
            choices as f64 / picks as f64
        }
    }

    /// The knobs it runs with.
    pub fn params(&self) -> &QuintetParams {
        &self.gate().p
    }
}

impl Policy for Quintet {
    fn name(&self) -> &'static str {
        "quintet"
    }

    fn needs(&self) -> Needs {
        Needs { counters: true, progress_periods: self.params().uses(Mechanism::Periods), ..Needs::default() }
    }

    fn init(&mut self, view: &dyn MachineView) -> Result<(), PolicyError> {
        self.inner.init(view).map_err(|e| PolicyError::from(format!("quintet: {e}")))?;
        self.inner.gate.inner.init(view)
    }

    fn on_event(&mut self, ev: &Event, view: &dyn MachineView, out: &mut Vec<Decision>) {
        let admission = self.params().uses(Mechanism::Admission);
        let inner = &mut self.inner;
        if !(admission && expire_alone(&mut inner.core, &mut inner.gate, ev, view, out)) {
            inner.on_event(ev, view, out);
        }
        if admission || inner.gate.inner.estimating() {
            // Idle contexts with waiting threads try again (freed bus; a sibling measured alone).
            retry_idle(&mut inner.core, &mut inner.gate, view, out);
        }
        if admission {
            recheck_after_forced(&mut inner.core, &mut inner.gate, |g| &mut g.inner.efs, view, out);
        }
    }
}

/// This family's policies in the registry ([`super::registry`]), at their rank
/// (registry order; `cosched new-policy` files take rank 1000).
pub(crate) const REGISTERED: super::Registered = super::Registered {
    rank: 90,
    policies: &[
    super::PolicyInfo {
        name: "quintet",
        description: "quintet: CFS whose task selection combines the papers: RDA's period gate, Perf&Fair's progress window (fairness), SLITS's learned pairing, EFS's bus-model admission (energy, edp); --quintet-objective, --quintet-without",
        oracle: false,
        knob_groups: &[<QuintetKnobs as super::knob::Declared>::GROUP],
        make: |o| Ok(Box::new(Quintet::new(o.quintet.clone(), o.seed))),
    },
    ],
};
