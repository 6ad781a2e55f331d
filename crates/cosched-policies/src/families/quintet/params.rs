//! `quintet`'s knobs: the objective, and which borrowed mechanism to switch
//! off (the ablations of `paper quintet`).

use super::super::knob::{choice, subset};
#[cfg(test)]
use super::super::knob::{Declared, Kind, Word};
use crate::efs::model::Objective as EfsObjective;
use crate::learn::FmParams;

/// What `quintet` optimises (the objective is a knob).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuintetObjective {
    /// Work done per second: pairing by learned interaction costs.
    Throughput,
    /// Equal progress: Perf&Fair's progress accounting chooses who may run.
    Fairness,
    /// Energy per unit of work: EFS's admission may leave contexts idle (EFS Eq. 14).
    Energy,
    /// Energy × delay per unit of work (EFS's EDP variant).
    Edp,
}

cosched_core::words!(QuintetObjective { Throughput = "throughput", Fairness = "fairness", Energy = "energy", Edp = "edp" });

impl QuintetObjective {
    /// Every objective, in the knob's order.
    pub const ALL: [QuintetObjective; 4] =
        [QuintetObjective::Throughput, QuintetObjective::Fairness, QuintetObjective::Energy, QuintetObjective::Edp];

    /// EFS's cost function (Eq. 14 or its EDP form) when energy is the objective.
    pub fn efs(self) -> Option<EfsObjective> {
        match self {
            QuintetObjective::Energy => Some(EfsObjective::Energy),
            QuintetObjective::Edp => Some(EfsObjective::EnergyDelay),
            _ => None,
        }
    }
}

/// A mechanism `quintet` borrows from one of the papers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mechanism {
    /// SLITS §3-4: TIM + FM learned interaction costs rank the candidates.
    Pairing,
    /// Perf&Fair §3: progress accounting decides who may run (fairness objective).
    Progress,
    /// EFS §4.2-4.3: the bus model admits or leaves the context idle (energy objectives).
    Admission,
    /// RDA §3: declared progress periods gate admission (Strict predicate).
    Periods,
    /// Statistical assignment §3.1: threads compete at the IntraPipe level too, so new and
    /// woken threads go to the least loaded pipeline of a core (acts only on machines whose
    /// cores have several pipelines, the UltraSPARC T2's two).
    Pipes,
}

impl Mechanism {
    /// Every mechanism, in the order the docs list them.
    pub const ALL: [Mechanism; 5] =
        [Mechanism::Pairing, Mechanism::Progress, Mechanism::Admission, Mechanism::Periods, Mechanism::Pipes];
}

cosched_core::words!(Mechanism { Pairing = "pairing", Progress = "progress", Admission = "admission", Periods = "periods", Pipes = "pipes" });

cosched_core::options! {
    /// `quintet`'s knobs: the objective, and which borrowed mechanism to switch off.
    pub struct QuintetKnobs of "quintet", "quintet (SLITS §4.3, Perf&Fair §3, EFS Eq. 14)" {
        /// quintet: what to optimise: throughput (pairing), fairness (progress accounting), energy or edp (EFS admission may idle contexts)
        quintet_objective: QuintetObjective = (choice::<QuintetObjective>(), "throughput"),
        /// quintet: mechanisms switched off, comma-separated: pairing, progress, admission, periods, pipes (an ablation; none = all on)
        quintet_without: Vec<Mechanism> = (subset::<Mechanism>(), "none", paper "quintet (ablations of `paper quintet`)"),
    }
}

/// `quintet`'s parameters.
#[derive(Clone, Debug)]
pub struct QuintetParams {
    /// What it optimises.
    pub objective: QuintetObjective,
    /// Mechanisms switched off.
    pub without: Vec<Mechanism>,
    /// The factorization machine's hyper-parameters (SLITS's defaults).
    pub fm: FmParams,
    /// With progress accounting, a context pulls the machine's least advanced waiting
    /// thread (Perf&Fair's machine-wide selection, §3); off: the fair window evens out
    /// only the threads of each run queue (the reading before 2026-11-26, kept for its ablation).
    pub global_progress: bool,
    /// With progress accounting on an SMT machine, a thread's IPC alone is measured with its
    /// sibling context left idle (Perf&Fair's estimation quanta, §5.1); off: only the
    /// opportunistic estimate (the reading before 2026-11-26, kept for its ablation).
    pub estimate_alone: bool,
    /// While a thread's IPC alone is measured, the other cores start only light-sharing threads
    /// (Perf&Fair §5.1's estimation mode fills the free contexts with light processes only).
    /// Off by default: measured as an added arm, it was no fairer on the paper's mixes and on
    /// short jobs it can starve a heavy thread (docs/quintet.md).
    pub light_fill: bool,
    /// A thread due for its IPC-alone estimate that starts with its siblings idle runs one
    /// Perf&Fair quantum (200 ms), the interval the paper measures over; off: its CFS slice
    /// (the reading before 2026-11-26, kept for its ablation).
    pub measure_quantum: bool,
}

impl Default for QuintetParams {
    fn default() -> Self {
        QuintetParams::from(&QuintetKnobs::default())
    }
}

impl From<&QuintetKnobs> for QuintetParams {
    /// The parameters the knobs give (the readings of 2026-11-26 on).
    fn from(k: &QuintetKnobs) -> QuintetParams {
        QuintetParams {
            objective: k.quintet_objective,
            without: k.quintet_without.clone(),
            fm: FmParams::default(),
            global_progress: true,
            estimate_alone: true,
            light_fill: false,
            measure_quantum: true,
        }
    }
}

impl QuintetParams {

    /// Whether mechanism `m` acts: not switched off, and (for progress and
    /// admission) serving the objective.
    pub fn uses(&self, m: Mechanism) -> bool {
        if self.without.contains(&m) {
            return false;
        }
        match m {
            Mechanism::Progress => self.objective == QuintetObjective::Fairness,
            Mechanism::Admission => self.objective.efs().is_some(),
            Mechanism::Pairing | Mechanism::Periods | Mechanism::Pipes => true,
        }
    }
}


#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_names_mechanisms_in_declared_order() {
        let mut k = QuintetKnobs::default();
        assert_eq!(k.quintet_without, vec![]);
        k.set("quintet_without", "periods, pairing").unwrap();
        assert_eq!(k.quintet_without, vec![Mechanism::Pairing, Mechanism::Periods]);
        let words: Vec<&str> = Mechanism::ALL.iter().map(|m| m.word()).collect();
        assert!(matches!(QuintetKnobs::DECLARED[1].kind, Kind::Subset { choices } if choices == words.as_slice()));
        k.set("quintet_without", &words.join(",")).unwrap();
        assert_eq!(k.quintet_without, Mechanism::ALL.to_vec());
    }

    #[test]
    fn progress_and_admission_serve_their_objectives_only() {
        let mut p = QuintetParams::default();
        assert!(p.uses(Mechanism::Pairing) && !p.uses(Mechanism::Progress) && !p.uses(Mechanism::Admission));
        p.objective = QuintetObjective::Energy;
        assert!(p.uses(Mechanism::Admission));
        p.without = vec![Mechanism::Admission];
        assert!(!p.uses(Mechanism::Admission));
    }
}
