//! What a comparison compares ([`Comparing`]) and how it reports its steps ([`Steps`]): the
//! settings the comparison (`mod.rs`) and its regime reruns (`regime.rs`) both take.

use super::bound_cache::BoundCache;
use crate::sweep::Custom;

/// What a comparison compares: the policies (registry names, or the names of
/// `customs`, policies given as code), the baseline, the seeds and whether the
/// bound is computed beside them (`cosched compare`'s flags, Python's
/// `cosched.compare` arguments).
#[derive(Clone, Copy, Debug)]
pub struct Comparing<'a> {
    /// The policies, in column order.
    pub policies: &'a [String],
    /// The policies of `policies` given as code.
    pub customs: &'a [Custom],
    /// The policy speedups are measured against (run first when not in `policies`).
    pub baseline: &'a str,
    /// The first seed.
    pub first_seed: u64,
    /// How many seeds, from `first_seed` on.
    pub seeds: u64,
    /// Whether each seed's best static co-schedule is computed ([`BestStatic`]).
    pub gap: bool,
    /// Whether the policies run outside their paper's regime are named, and
    /// measured in it where the jobs can be stretched there ([`RegimeNote`]).
    pub regimes: bool,
    /// Where each seed's bound is kept and reused from (`None`: computed every
    /// time, nothing kept).
    pub bound_cache: Option<&'a BoundCache>,
}

/// How a long computation reports its steps: told their number once, then
/// ticked at each (a progress bar's two calls).
pub struct Steps<'a> {
    /// Told the number of steps, once.
    pub total: &'a dyn Fn(usize),
    /// Called at each step, from any thread.
    pub tick: &'a (dyn Fn() + Sync),
}

impl Steps<'static> {
    /// Steps no one watches.
    pub fn silent() -> Steps<'static> {
        Steps { total: &|_| {}, tick: &|| {} }
    }
}
