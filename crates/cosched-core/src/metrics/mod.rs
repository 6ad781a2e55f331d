//! Per-run metrics every policy is judged by (docs/architecture.md, "Metrics
//! everyone shares"): turnaround and slowdown per job; makespan, throughput,
//! STP and ANTT (Eyerman & Eeckhout, IEEE Micro 2008), unfairness
//! (max slowdown / min slowdown, Perf&Fair §6), energy and energy-delay.

pub mod registry;

use crate::policy::Energy;
use serde::Serialize;

crate::metric_fields! {
    /// What one job did in a run.
    #[derive(Clone, Debug, Serialize)]
    pub struct JobOutcome {
        /// Job name (instance-qualified, e.g. `mcf#2`).
        pub name: String,
        /// Number of threads.
        pub threads: usize,
        /// Arrival time, seconds.
        pub arrival_s: f64,
        /// Turnaround time (finish − arrival), seconds.
        [metric] pub turnaround_s: f64,
        /// Turnaround of the same job alone on the same machine, seconds.
        [metric] pub solo_s: Option<f64>,
        /// Turnaround / solo turnaround.
        [metric] pub slowdown: Option<f64>,
        /// Instructions retired.
        pub instructions: f64,
    }
}

crate::metric_fields! {
    /// Aggregate metrics of a run.
    #[derive(Clone, Debug, PartialEq, Serialize)]
    pub struct Aggregate {
        /// Time until the last job finished, seconds.
        [metric] pub makespan_s: f64,
        /// Instructions retired per second of makespan, in billions (GIPS).
        [metric] pub throughput_gips: f64,
        /// System throughput: Σ 1/slowdown.
        [metric] pub stp: Option<f64>,
        /// Average normalised turnaround time: mean slowdown.
        [metric] pub antt: Option<f64>,
        /// Max slowdown / min slowdown.
        [metric] pub unfairness: Option<f64>,
        /// System (wall) energy, joules.
        [metric] pub energy_j: f64,
        /// CPU package energy, joules.
        [metric] pub energy_cpu_j: f64,
        /// DRAM energy, joules.
        [metric] pub energy_dram_j: f64,
        /// Energy-delay product: system energy × makespan (J·s).
        [metric] pub edp_js: f64,
        /// Instructions per joule of system energy.
        [metric] pub instructions_per_joule: f64,
    }
}

impl Aggregate {
    /// The three energy figures as one [`Energy`].
    pub fn energy(&self) -> Energy {
        Energy { system: self.energy_j, cpu: self.energy_cpu_j, dram: self.energy_dram_j }
    }
}

/// Unfairness of a run (Perf&Fair §6, Fig. 1): its jobs' largest slowdown over
/// their smallest.
pub fn unfairness(slowdowns: &[f64]) -> f64 {
    let max = slowdowns.iter().cloned().fold(f64::MIN, f64::max);
    let min = slowdowns.iter().cloned().fold(f64::MAX, f64::min);
    max / min
}

/// Compute the aggregate metrics from job outcomes, makespan and energy.
pub fn aggregate(jobs: &[JobOutcome], makespan_s: f64, energy: Energy) -> Aggregate {
    let instr: f64 = jobs.iter().map(|j| j.instructions).sum();
    // A slowdown that is not a finite positive number (a zero solo time) is no measurement.
    let slow: Vec<f64> = jobs.iter().filter_map(|j| j.slowdown).filter(|s| s.is_finite() && *s > 0.0).collect();
    let complete = !jobs.is_empty() && slow.len() == jobs.len();
    let (stp, antt, unfairness) = if complete {
        let (stp, antt) = (slow.iter().map(|s| 1.0 / s).sum(), slow.iter().sum::<f64>() / slow.len() as f64);
        (Some(stp), Some(antt), Some(unfairness(&slow)))
    } else {
        (None, None, None)
    };
    Aggregate {
        makespan_s,
        throughput_gips: if makespan_s > 0.0 { instr / makespan_s / 1e9 } else { 0.0 },
        stp,
        antt,
        unfairness,
        energy_j: energy.system,
        energy_cpu_j: energy.cpu,
        energy_dram_j: energy.dram,
        edp_js: energy.system * makespan_s,
        instructions_per_joule: if energy.system > 0.0 { instr / energy.system } else { 0.0 },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(t: f64, solo: f64) -> JobOutcome {
        JobOutcome {
            name: "j".into(),
            threads: 1,
            arrival_s: 0.0,
            turnaround_s: t,
            solo_s: Some(solo),
            slowdown: Some(t / solo),
            instructions: 1e9,
        }
    }

    #[test]
    fn stp_antt_unfairness_follow_their_definitions() {
        let a = aggregate(&[job(2.0, 1.0), job(4.0, 1.0)], 4.0, Energy { system: 10.0, cpu: 5.0, dram: 1.0 });
        assert!((a.stp.unwrap() - 0.75).abs() < 1e-12);
        assert!((a.antt.unwrap() - 3.0).abs() < 1e-12);
        assert!((a.unfairness.unwrap() - 2.0).abs() < 1e-12);
        assert!((a.edp_js - 40.0).abs() < 1e-12);
        assert!((a.throughput_gips - 0.5).abs() < 1e-12);
        assert!((a.instructions_per_joule - 2e8).abs() < 1e-3);
    }
}
