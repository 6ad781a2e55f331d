//! Extreme-value statistics for thread assignment (statistical thread
//! assignment paper, §4-6): the Peak-Over-Threshold method with a Generalized
//! Pareto fit, the Upper Performance Bound and its profile-likelihood
//! interval, threshold selection (Anderson-Darling tests with ForwardStop)
//! and diagnostics, prerequisite checks, and random-sampling probabilities.

pub mod ad;
mod ad_table;
pub mod calibration;
pub mod checks;
pub mod diagnostics;
pub mod gpd;
mod lr_table;
pub mod pot;
pub mod predict;
pub mod sampling;
pub mod threshold;

pub use gpd::{fit_gpd, GpdFit};
pub use pot::{pot, BadSample, PotError, PotResult, Threshold};
