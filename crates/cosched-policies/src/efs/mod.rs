//! EFS, the Energy-Friendly Scheduler (Zidenberg, Keslassy, Weiser; paper 001):
//! the memory-bus collision model (§3.1, Eqs. 1-16), counter-based estimates
//! and the bandwidth predictor (§3.2, §4.1, Eqs. 18-20), and the starvation
//! thresholds (§4.3, Eqs. 21-24). The policy itself is
//! [`crate::families::Efs`].

pub mod estimate;
pub mod model;
pub mod starvation;

pub use estimate::{bus_utilisation, interval_estimate, thread_utilisation, Predictor};
pub use model::{admission_threshold, solo_utilisation, solve_interaction, Interaction, Newton, Objective, SolveError};
pub use starvation::Thresholds;
