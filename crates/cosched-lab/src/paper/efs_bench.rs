//! What every part of the EFS rerun shares: the paper's synthetic benchmark
//! (§3.2), a CFS/EFS pair of runs, and the measures its figures print
//! (savings and speed-ups of Figs. 8-10, the unfairness of §5.3).

use crate::error::RunError;
use cosched_core::ids::SECOND;
use cosched_sim::engine::RunOutput;
use cosched_sim::{presets, WorkloadSpec};

/// `n` instances of the EFS synthetic benchmark (§3.2) at solo bus utilisation `u`.
pub fn synthetic(u: f64, n: u32, instructions: f64) -> Result<WorkloadSpec, RunError> {
    synthetic_jobs(&format!("efs-synthetic-{u}"), &[(u, n, instructions)])
}

/// Jobs of the EFS synthetic benchmark (§3.2): `(solo bus utilisation, instances, instructions)` each.
pub fn synthetic_jobs(name: &str, jobs: &[(f64, u32, f64)]) -> Result<WorkloadSpec, RunError> {
    let mut s = format!("name = \"{name}\"\ndescription = \"EFS synthetic benchmark\"\n");
    for (k, (u, n, instructions)) in jobs.iter().enumerate() {
        s += &format!(
            "[[job]]\nname = \"syn{}\"\ninstances = {n}\n\
             [[job.phase]]\ninstructions = {instructions:e}\nipc = 0.5\nllc_apki = 60\nsolo_bus_util = {u}\nfootprint_mb = 1024\nmlp = 10\nwb_ratio = 0.0\nrow_locality = 0.9\n",
            if jobs.len() == 1 { String::new() } else { k.to_string() }
        );
    }
    presets::workload_from_toml(name, &s).map_err(RunError::from)
}

/// One CFS run and one EFS run of a workload under one trial.
pub struct Pair {
    /// CFS's run.
    pub cfs: RunOutput,
    /// EFS's run.
    pub efs: RunOutput,
}

/// Nanoseconds as seconds.
pub fn secs(n: u64) -> f64 {
    n as f64 / SECOND as f64
}

/// Saving of `new` against `old`, % (EFS Figs. 8-10).
pub fn pct(new: f64, old: f64) -> f64 {
    (1.0 - new / old) * 100.0
}

/// Speed-up of `new` over `base` in makespan, %.
pub fn speedup_pct(base: &RunOutput, new: &RunOutput) -> f64 {
    (secs(base.makespan) / secs(new.makespan) - 1.0) * 100.0
}

/// Longest / shortest turnaround of a run's jobs.
pub fn unfairness(o: &RunOutput) -> f64 {
    let t: Vec<f64> = o.job_finish.iter().map(|&f| secs(f)).collect();
    t.iter().cloned().fold(0.0, f64::max) / t.iter().cloned().fold(f64::MAX, f64::min)
}

/// Per-trial mean over items of `f` (the "average" rows, with an interval over trials).
pub fn per_trial_mean<R>(res: &[Vec<R>], pick: &[usize], f: impl Fn(&R) -> f64) -> Vec<f64> {
    let n = res.first().map_or(0, |r| r.len());
    (0..n).map(|k| pick.iter().map(|&i| f(&res[i][k])).sum::<f64>() / pick.len() as f64).collect()
}
