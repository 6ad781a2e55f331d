//! EFS's parameters and the knobs that set them (EFS §3-4; the policy
//! itself is in `mod.rs`).

use super::super::knob::{choice, ms_to_ns, Kind, TIME_MS};
use crate::efs::model::{Newton, Objective};
use crate::efs::starvation::Thresholds;
use crate::ids::Nanos;
#[cfg(doc)]
use crate::policy::MachineView;

/// What EFS's admission test reads (the ablation; the paper's EFS is
/// `Model`). The other two read the simulator's ground truth and are oracles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    /// §4: solo bandwidths predicted from counters (Eqs. 18-20, 9), outcome from the collision model (Eqs. 10, 16).
    Model,
    /// The capacity rule without the collision model (an
    /// ablation): the predicted solo bandwidths as in `Model`, but a thread is
    /// admitted when its solo utilisation fits the bus time the running
    /// threads leave free, `1 − Σ b` (additive bandwidths, no collisions, no
    /// power in the decision; the fallback of a failed solve).
    Capacity,
    /// Oracle solo bandwidths (the current phase's true demand ÷ μ) into the same collision model:
    /// what the model costs when its inputs are exact.
    OracleSolo,
    /// Oracle outcome: run the candidate only if the true co-schedule with it costs no more
    /// (Eq. 15: power over the sum of each thread's speed relative to alone) than without it.
    Oracle,
}

impl Admission {
    /// Whether this admission reads the simulator's ground truth (an oracle).
    pub fn is_oracle(self) -> bool {
        matches!(self, Admission::OracleSolo | Admission::Oracle)
    }
}

/// EFS knobs.
#[derive(Clone, Debug)]
pub struct EfsParams {
    /// Predictor window t0 (Eq. 20; 1 ms in the paper).
    pub window: Nanos,
    /// Starvation constants c_l, c_g (20 and 5).
    pub thresholds: Thresholds,
    /// Newton variant for Eq. 10.
    pub newton: Newton,
    /// What Eq. 15 compares.
    pub objective: Objective,
    /// Power table P0, P1, … (Eq. 13, W); the last increment repeats. `None`:
    /// the machine view's ([`MachineView::power_table`]).
    pub power: Option<Vec<f64>>,
    /// Bus rate μ in accesses (lines) per second; default: the backend's.
    pub mu: Option<f64>,
    /// What admission reads (the paper: the model).
    pub admission: Admission,
    /// §4.3's starvation freedom (Eqs. 21-23: the longest starved thread is
    /// forced in); `false` only for the ablation of `paper efs`.
    pub starvation: bool,
}

impl Default for EfsParams {
    fn default() -> Self {
        EfsParams::from(&EfsKnobs::default())
    }
}

cosched_core::words!(Admission { Model = "model", Capacity = "capacity", OracleSolo = "oracle-solo", Oracle = "oracle" });

cosched_core::options! {
    /// EFS's knobs (§3-4; defaults are the paper's). The power table (Eq. 13)
    /// and the bus rate μ come from the machine view unless overridden.
    pub struct EfsKnobs of "EFS", "EFS §3-4" {
        /// EFS: predictor window t0
        efs_window_ms: f64 = (TIME_MS, "1", unit "ms", paper "EFS Eq. 20"),
        /// EFS: local starvation constant c_l
        efs_c_local: f64 = (Kind::Float { min: 0.01, max: 10_000.0 }, "20", paper "EFS Eq. 22"),
        /// EFS: global starvation constant c_g
        efs_c_global: f64 = (Kind::Float { min: 0.01, max: 10_000.0 }, "5", paper "EFS Eq. 23"),
        /// EFS: Newton iterations for Eq. 10 (the paper: 4; 0 = iterate to convergence, under 50)
        efs_newton_iters: usize = (Kind::Int { min: 0, max: 1_000 }, "4", paper "EFS §3.1"),
        /// EFS: objective of Eq. 15 (energy per work, or energy-delay per work)
        efs_objective: Objective = (choice::<Objective>(), "energy", paper "EFS Eqs. 14-15"),
        /// EFS: memory-bus rate mu (default: the machine's sustained maximum)
        efs_mu_m: Option<f64> = (Kind::Float { min: 1.0, max: 1e7 }, "", unit "M accesses/s", paper "EFS §3.1"),
        /// EFS: what admission reads; `capacity` admits by 1 - sum of running solo utilisations (no collision model); `oracle-solo` and `oracle` read the simulator's ground truth (ablations)
        efs_admission: Admission = (choice::<Admission>(), "model", paper "EFS §4; ablations of `paper efs`"),
        /// EFS: turn off starvation freedom (no thread is forced in; ablation)
        efs_no_starvation: bool = (Kind::Switch, "", paper "EFS §4.3; ablation of `paper efs`"),
    }
}

impl From<&EfsKnobs> for EfsParams {
    /// The parameters the knobs give (power table: the machine view's).
    fn from(k: &EfsKnobs) -> EfsParams {
        EfsParams {
            window: ms_to_ns(k.efs_window_ms),
            thresholds: Thresholds { c_local: k.efs_c_local, c_global: k.efs_c_global },
            newton: match k.efs_newton_iters {
                0 => Newton::CONVERGED,
                n => Newton { max_iters: n, ..Newton::PAPER },
            },
            objective: k.efs_objective,
            power: None,
            mu: k.efs_mu_m.map(|x| x * 1e6),
            admission: k.efs_admission,
            starvation: !k.efs_no_starvation,
        }
    }
}
