//! Learning components: the factorization machine (SLITS §3.3) and the
//! self-tuning matrix completion built on it, and the Bayesian
//! FM by Gibbs sampling.

pub mod bayes;
pub mod bfm;
pub mod complete;
pub mod fm;

pub use bayes::{complete_bayes, BayesCompletion};
pub use bfm::BfmParams;
pub use complete::{complete, Chosen, Completion, Validation};
pub use fm::{Fm, FmParams};
