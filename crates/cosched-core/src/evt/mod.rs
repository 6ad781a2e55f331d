//! Extreme-value statistics for thread assignment (statistical thread
//! assignment paper, §4-6): the Peak-Over-Threshold method with a Generalized
//! Pareto fit, the Upper Performance Bound and its profile-likelihood
//! interval, threshold selection and diagnostics, prerequisite checks, and
//! random-sampling probabilities.

pub mod checks;
pub mod gpd;
pub mod pot;
pub mod sampling;

pub use gpd::{fit_gpd, GpdFit};
pub use pot::{pot, PotError, PotResult, Threshold};
