//! Energy: whichever source the machine has — RAPL through powercap, RAPL
//! through perf power events, or the machine preset's power model (EFS Eq.
//! 13) on measured CPU utilisation — labelled measured or modelled.

use crate::energy::{ModelledEnergy, PerfPower, Rapl};
use crate::host::Host;
use cosched_core::policy::Energy;
use cosched_machine::{MachineSpec, PowerModel};
use std::cell::RefCell;

/// Meter of whichever energy source the machine has.
pub(super) enum Meter {
    /// RAPL package and DRAM domains through powercap.
    Rapl(Rapl),
    /// RAPL through perf power events.
    PerfPower(RefCell<PerfPower>),
    /// The preset's power model on measured utilisation.
    Model(ModelledEnergy),
    /// Nothing to measure or model with.
    None,
}

impl Meter {
    /// The best meter this machine offers, and its provenance line.
    pub(super) fn open(machine: Option<&MachineSpec>, host: &Host) -> (Meter, String) {
        match Rapl::open(std::path::Path::new("/sys/class/powercap")) {
            Some(r) => (Meter::Rapl(r), "measured (RAPL package + DRAM via powercap)".to_string()),
            None => match (PerfPower::open(), machine) {
                (Ok(p), _) => (Meter::PerfPower(RefCell::new(p)), "measured (RAPL through perf power events)".to_string()),
                (Err(_), Some(m)) => (
                    Meter::Model(ModelledEnergy::new(PowerModel::new(&m.power, host.topology.n_cores as usize))),
                    format!("modelled (no RAPL here; `{}` power model, EFS Eq. 13, on measured CPU utilisation, memory traffic unknown)", m.name),
                ),
                (Err(_), None) => {
                    (Meter::None, "unavailable (no RAPL here, and neither a --machine preset nor a --calibration file to model it)".to_string())
                }
            },
        }
    }
}

impl Meter {
    /// Energy so far, where the machine has a source.
    pub(super) fn energy(&self) -> Option<Energy> {
        match self {
            Meter::Rapl(r) => Some(r.energy()),
            Meter::PerfPower(p) => Some(p.borrow_mut().energy()),
            Meter::Model(m) => Some(m.energy()),
            Meter::None => None,
        }
    }

    /// Integrate energy over the `dt` seconds since the last sample, in
    /// which each CPU's (busy, total) jiffies went from `before` to `now`.
    pub(super) fn sample(&mut self, dt: f64, before: &[(u64, u64)], now: &[(u64, u64)]) {
        match self {
            Meter::Rapl(r) => r.sample(),
            Meter::PerfPower(_) => {}
            Meter::Model(m) => {
                let busy: f64 = now
                    .iter()
                    .zip(before)
                    .map(|(a, b)| {
                        let (db, dt) = (a.0.saturating_sub(b.0), a.1.saturating_sub(b.1));
                        if dt > 0 {
                            db as f64 / dt as f64
                        } else {
                            0.0
                        }
                    })
                    .sum();
                m.add(dt, busy);
            }
            Meter::None => {}
        }
    }
}
