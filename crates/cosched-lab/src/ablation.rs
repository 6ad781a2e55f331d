//! The mechanisms `cosched validate --ablate` can take out of every machine (docs/model.md names
//! each): one type, so the names, what each switches off and how are said once. Apart from
//! validation, which checks the model with them, because the paper reruns take them out too
//! (Perf&Fair's job-length study, `paper::perf_fair_length`) and validation reruns the papers:
//! both use this module, neither the other's.

use crate::error::RunError;
use cosched_machine::MachineSpec;

/// A mechanism of the ground truth that validation can take out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mechanism {
    /// Other tenants of the host ageing an absent thread's LLC data.
    Tenants,
    /// A resuming thread's data ageing by the capacity it conserves.
    ConserveCapacity,
    /// A refill paid by access.
    RefillByAccess,
    /// The Linux models' scheduler tick.
    SchedulerTick,
    /// The Linux models' rotation of a one-thread excess between run queues.
    BalanceRotation,
}

impl Mechanism {
    /// Every mechanism, in the order the help lists them.
    pub const ALL: [Mechanism; 5] = [
        Mechanism::Tenants,
        Mechanism::ConserveCapacity,
        Mechanism::RefillByAccess,
        Mechanism::SchedulerTick,
        Mechanism::BalanceRotation,
    ];

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Mechanism::Tenants => "tenants",
            Mechanism::ConserveCapacity => "conserve-capacity",
            Mechanism::RefillByAccess => "refill-by-access",
            Mechanism::SchedulerTick => "scheduler-tick",
            Mechanism::BalanceRotation => "balance-rotation",
        }
    }

    /// What taking it out switches off.
    pub fn what(self) -> &'static str {
        match self {
            Mechanism::Tenants => {
                "cache.tenant_lines_per_s = 0: no other tenant of the host ages an absent thread's LLC data"
            }
            Mechanism::ConserveCapacity => {
                "cache.conserve_capacity = false: a resuming thread's data ages by insertions only"
            }
            Mechanism::RefillByAccess => "costs.refill_by_access = false: a refill takes half of each slice until paid",
            Mechanism::SchedulerTick => {
                "costs.scheduler_tick_ms = 0: Linux-model slices end exactly when used up, and run queues that start together stay in step"
            }
            Mechanism::BalanceRotation => {
                "costs.balance_rotation = false: a Linux-model run queue with one thread more than another keeps it until a thread ends"
            }
        }
    }

    /// The mechanism named `name`; an unknown name is refused naming the known ones.
    pub fn from_name(name: &str) -> Result<Mechanism, RunError> {
        Mechanism::ALL.into_iter().find(|m| m.name() == name).ok_or_else(|| {
            let known: Vec<&str> = Mechanism::ALL.iter().map(|m| m.name()).collect();
            RunError::knob("ablate", format!("unknown mechanism `{name}` (known: {})", known.join(", ")))
        })
    }

    /// Take it out of machine `m`.
    pub fn take_out(self, m: &mut MachineSpec) {
        match self {
            Mechanism::Tenants => m.cache.tenant_lines_per_s = 0.0,
            Mechanism::ConserveCapacity => m.cache.conserve_capacity = false,
            Mechanism::RefillByAccess => m.costs.refill_by_access = false,
            Mechanism::SchedulerTick => m.costs.scheduler_tick_ms = 0.0,
            Mechanism::BalanceRotation => m.costs.balance_rotation = false,
        }
    }
}

/// Take mechanism `name` out of machine `m` ([`Mechanism::from_name`], [`Mechanism::take_out`]).
pub fn ablate(m: &mut MachineSpec, name: &str) -> Result<(), RunError> {
    Mechanism::from_name(name)?.take_out(m);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mechanism_is_named_once_and_found_by_its_name() {
        for m in Mechanism::ALL {
            assert_eq!(Mechanism::from_name(m.name()).ok(), Some(m));
            assert!(m.what().contains(" = "), "{}", m.what());
        }
        let names: std::collections::BTreeSet<&str> = Mechanism::ALL.iter().map(|m| m.name()).collect();
        assert_eq!(names.len(), Mechanism::ALL.len());
        let e = Mechanism::from_name("nope").unwrap_err().to_string();
        assert!(e.contains("unknown mechanism `nope`") && e.contains("balance-rotation"), "{e}");
    }
}
