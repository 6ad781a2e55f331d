//! EFS's parameters and the knobs that set them (EFS §3-4; the policy
//! itself is in `mod.rs`).

use super::super::knob::{ms_to_ns, Kind, KnobSpec, KnobValues, POSITIVE, TIME_MS};
use crate::efs::model::{Newton, Objective};
use crate::efs::starvation::Thresholds;
use crate::ids::{Nanos, MILLI};
#[cfg(doc)]
use crate::policy::MachineView;

/// What EFS's admission test reads (the ablation; the paper's EFS is
/// `Model`). The other two read the simulator's ground truth and are oracles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Admission {
    /// §4: solo bandwidths predicted from counters (Eqs. 18-20, 9), outcome from the collision model (Eqs. 10, 16).
    #[default]
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
        EfsParams {
            window: MILLI,
            thresholds: Thresholds::default(),
            newton: Newton::PAPER,
            objective: Objective::Energy,
            power: None,
            mu: None,
            admission: Admission::Model,
            starvation: true,
        }
    }
}

/// EFS's knobs (§3-4; defaults are the paper's). The power table (Eq. 13)
/// and the bus rate μ come from the machine view unless overridden.
pub const KNOBS: [KnobSpec; 8] = [
    KnobSpec {
        name: "efs_window_ms",
        kind: TIME_MS,
        default: "1",
        real_default: "",
        unit: "ms",
        doc: "EFS: predictor window t0",
        paper: "EFS Eq. 20",
    },
    KnobSpec {
        name: "efs_c_local",
        kind: POSITIVE,
        default: "20",
        real_default: "",
        unit: "",
        doc: "EFS: local starvation constant c_l",
        paper: "EFS Eq. 22",
    },
    KnobSpec {
        name: "efs_c_global",
        kind: POSITIVE,
        default: "5",
        real_default: "",
        unit: "",
        doc: "EFS: global starvation constant c_g",
        paper: "EFS Eq. 23",
    },
    KnobSpec {
        name: "efs_newton_iters",
        kind: Kind::Int { min: 0, max: 1_000 },
        default: "4",
        real_default: "",
        unit: "",
        doc: "EFS: Newton iterations for Eq. 10 (the paper: 4; 0 = iterate to convergence, under 50)",
        paper: "EFS §3.1",
    },
    KnobSpec {
        name: "efs_objective",
        kind: Kind::Choice { choices: &["energy", "energy-delay"] },
        default: "energy",
        real_default: "",
        unit: "",
        doc: "EFS: objective of Eq. 15 (energy per work, or energy-delay per work)",
        paper: "EFS Eqs. 14-15",
    },
    KnobSpec {
        name: "efs_mu_m",
        kind: POSITIVE,
        default: "",
        real_default: "",
        unit: "M accesses/s",
        doc: "EFS: memory-bus rate mu (default: the machine's sustained maximum)",
        paper: "EFS §3.1",
    },
    KnobSpec {
        name: "efs_admission",
        kind: Kind::Choice { choices: &["model", "capacity", "oracle-solo", "oracle"] },
        default: "model",
        real_default: "",
        unit: "",
        doc: "EFS: what admission reads; `capacity` admits by 1 - sum of running solo utilisations (no collision model); `oracle-solo` and `oracle` read the simulator's ground truth (ablations)",
        paper: "EFS §4; ablations of `paper efs`",
    },
    KnobSpec {
        name: "efs_no_starvation",
        kind: Kind::Switch,
        default: "",
        real_default: "",
        unit: "",
        doc: "EFS: turn off starvation freedom (no thread is forced in; ablation)",
        paper: "EFS §4.3; ablation of `paper efs`",
    },
];

impl EfsParams {
    /// The parameters the knobs [`KNOBS`] give (power table: the machine view's).
    pub fn from_knobs(v: &KnobValues) -> EfsParams {
        EfsParams {
            window: ms_to_ns(v.float("efs_window_ms")),
            thresholds: Thresholds { c_local: v.float("efs_c_local"), c_global: v.float("efs_c_global") },
            newton: match v.int("efs_newton_iters") {
                0 => Newton::CONVERGED,
                n => Newton { max_iters: n as usize, ..Newton::PAPER },
            },
            objective: match v.text("efs_objective") {
                Some("energy-delay") => Objective::EnergyDelay,
                _ => Objective::Energy,
            },
            power: None,
            mu: v.opt_float("efs_mu_m").map(|x| x * 1e6),
            admission: match v.text("efs_admission") {
                Some("capacity") => Admission::Capacity,
                Some("oracle-solo") => Admission::OracleSolo,
                Some("oracle") => Admission::Oracle,
                _ => Admission::Model,
            },
            starvation: !v.switch("efs_no_starvation"),
        }
    }
}
