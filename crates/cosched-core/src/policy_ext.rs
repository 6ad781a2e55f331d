//! Capabilities only some policies have, as traits of their own rather than
//! default methods every policy carries: a policy that has one says so
//! through its `Policy::as_*` accessor, and a backend asks before it uses it.

use crate::pair_profile::PairProfile;

/// A policy that can take a profile measured by co-run probing in place of
/// the counters its `Needs` ask for (SLITS §3.2's TIM from probed pairs, on
/// a backend without a PMU).
pub trait UsesProfile {
    /// Take `profile` (jobs in the run's `JobId` order); whether it can stand
    /// in for the counters.
    fn use_profile(&mut self, profile: &PairProfile) -> bool;
}

/// A policy that can become unable to continue (a user policy whose code
/// raised): the backends ask after every event and stop the run with
/// `ContractError::Failed`.
pub trait Fallible {
    /// Why the policy cannot continue, once it cannot.
    fn failure(&mut self) -> Option<String>;
}
