//! The simulator's refill model against a measured time-sharing run:
//! `cosched calibrate` pins two copies of a pointer chase to
//! one CPU ([`Timeshare`]); this module simulates the same two copies
//! pinned to one context of the calibrated preset, alternating at the
//! kernel's measured quantum (CPU time per involuntary switch), and sets the
//! simulated pair/solo time beside the measured one. The engine's refill
//! model (`cosched_sim::engine::dispatch`, `start_costs`: private-cache
//! refill at the LLC hit latency, LLC refill of what the other copy's
//! insertions evicted) is not fitted to this measurement; it is checked by it.

use crate::error::RunError;
use crate::mix_model::{model_mix, simulate_policy};
use cosched_core::CtxId;
use cosched_machine::check::Timeshare;
use cosched_machine::mix::Mix;
use cosched_machine::MachineSpec;
use cosched_policies::PolicyOptions;
use serde::Serialize;

/// One measured time-sharing run beside its simulation.
#[derive(Clone, Debug, Serialize)]
pub struct TimeshareCheck {
    /// What was measured.
    pub measured: Timeshare,
    /// The kernel's quantum the simulation alternates at, ms.
    pub quantum_ms: f64,
    /// Simulated pair wall time over solo time (2 when switches cost nothing).
    pub predicted_slowdown: f64,
    /// predicted / measured pair slowdown − 1.
    pub error: f64,
}

/// Simulate `t` on `m`: two copies of the chase pinned to one context, the
/// static policy alternating them at the measured quantum.
pub fn check(m: &MachineSpec, t: &Timeshare) -> Result<TimeshareCheck, RunError> {
    let job = |name: &str| {
        format!(
            "[[job]]\nname = \"{name}\"\ncmd = [\"cosched-bench\", \"pointer-chase\", \"--wss-mb\", \"{}\", \"--mops\", \"{}\"]\n",
            t.wss_mb, t.mops
        )
    };
    let mix =
        Mix::parse("timeshare", &format!("name = \"timeshare\"\n{}{}", job("a"), job("b"))).map_err(RunError::from)?;
    let model = model_mix(&mix, &[Some(t.solo_s), Some(t.solo_s)], m, None)?;
    let quantum = (t.slice_s() * 1e9).round().max(1e5) as u64;
    let opts = PolicyOptions { assignment: Some(vec![CtxId(0), CtxId(0)]), quantum, ..Default::default() };
    let p = simulate_policy(m, &model, "static", &opts, &[1])?;
    let predicted = p.makespan_s / t.solo_s;
    Ok(TimeshareCheck {
        measured: t.clone(),
        quantum_ms: quantum as f64 * 1e-6,
        predicted_slowdown: predicted,
        error: predicted / t.slowdown() - 1.0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measured(mb: f64, cpu_s: f64) -> Timeshare {
        Timeshare { wss_mb: mb, mops: 20.0, solo_s: 0.4, pair_s: 2.0 * cpu_s, cpu_s, switches: 100.0 }
    }

    #[test]
    fn a_pair_that_flushes_the_cache_costs_more_than_one_that_fits() {
        let m = cosched_machine::presets::machine("kvm-epyc-2c-nov24").unwrap();
        // Derived from the preset: a working set inside L2, one of ¾ of the LLC.
        let small = check(&m, &measured(m.cache.l2_kb / 1024.0 / 4.0, 0.4)).unwrap();
        let big = check(&m, &measured(0.75 * m.cache.llc_mb, 0.4)).unwrap();
        // Two copies alternate: at least twice the solo time, and the copies that
        // evict each other from the LLC pay more refill than the ones that fit in L2.
        assert!(small.predicted_slowdown >= 1.99, "{small:?}");
        assert!(big.predicted_slowdown > small.predicted_slowdown, "{small:?} {big:?}");
        assert!((small.quantum_ms - 4.0).abs() < 1e-9, "{small:?}");
        // The error is against the measured pair/solo (here exactly 2).
        assert!((small.error - (small.predicted_slowdown / 2.0 - 1.0)).abs() < 1e-12);
    }
}
