//! `Needs` gating (docs/architecture.md, "The policy boundary": "A backend
//! that cannot provide it refuses with a clear message, or runs a documented
//! degraded mode"): what a backend offers, checked once against what a
//! policy needs, before the first event.

use super::ContractError;
use crate::policy::Needs;

/// Whether a backend can give something, and if not, why not.
#[derive(Clone, Debug, PartialEq)]
pub enum Supply {
    /// Provided.
    Yes,
    /// Not provided, for this reason (shown to the user).
    No(String),
}

/// What a backend can give a policy.
#[derive(Clone, Debug, PartialEq)]
pub struct Offer {
    /// The backend, in words (`the simulator`, `this machine`).
    pub backend: &'static str,
    /// Per-thread hardware counters (or a stand-in the policy accepted).
    pub counters: Supply,
    /// Energy readings through [`MachineView::energy`](crate::MachineView::energy).
    pub energy: Supply,
    /// Ground truth through [`MachineView::oracle`](crate::MachineView::oracle).
    pub oracle: Supply,
    /// More than one context per core somewhere on the machine.
    pub smt: bool,
}

impl Offer {
    /// Check `needs` of `policy`: an error for the first need that cannot be
    /// met (oracle, counters, energy); for SMT, which only some of a policy's
    /// mechanisms use, a note on the documented degraded mode instead.
    pub fn gate(&self, policy: &'static str, needs: Needs) -> Result<Vec<String>, ContractError> {
        let wanted = [
            (needs.oracle, &self.oracle, "ground truth (it is an oracle)"),
            (needs.counters, &self.counters, "per-thread hardware counters"),
            (needs.energy, &self.energy, "energy readings"),
        ];
        for (need, supply, what) in wanted {
            if let (true, Supply::No(why)) = (need, supply) {
                return Err(ContractError::Unsupported { policy, need: what, backend: self.backend, why: why.clone() });
            }
        }
        let mut notes = vec![];
        if needs.smt && !self.smt {
            notes.push(format!(
                "policy `{policy}` pairs threads on SMT siblings, and {} has one context per core: \
                 it runs without that pairing",
                self.backend
            ));
        }
        Ok(notes)
    }
}
