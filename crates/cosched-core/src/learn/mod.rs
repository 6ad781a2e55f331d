//! Learning: the factorization machine SLITS completes its Thread-Interaction
//! Matrix with (SLITS §3.3, Eqs. 1-3; Rendle, ICDM 2010).

pub mod fm;

pub use fm::{Fm, FmParams};
