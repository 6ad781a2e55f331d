//! How `cosched validate` measures each kind of point on the simulated
//! machine (`CheckKind`'s doc names the published figure each reproduces).
//! The sampling kinds (assignments, seeds, co-running sets) are in
//! `sample.rs`.

use super::sample::{self, EXACT};
use crate::error::RunError;
use crate::mix_model::{chase_phase, INSTR_PER_OP};
use crate::paper::efs::{fig4_point, measure_mu, serial_run};
use crate::paper::efs_bench::{secs, synthetic};
use crate::paper::run_one;
use cosched_machine::check::{CheckKind, CheckPoint, PowerDomain, Statistic};
use cosched_machine::ConfigError;
use cosched_machine::MachineSpec;
use cosched_policies::PolicyOptions;
use cosched_sim::{presets, Plan};
use rayon::prelude::*;

/// A simulated value, with the parts it summarises where it summarises
/// several (each workload's value).
pub(super) type Measured = (f64, Option<String>);

/// The simulated value of point `k` on machine `m`.
pub(super) fn simulate_point(m: &MachineSpec, k: &CheckPoint) -> Result<Measured, RunError> {
    let cores = m.n_contexts() as u32;
    let copies = k.copies.unwrap_or(cores);
    match k.kind {
        CheckKind::BusRate => Ok((measure_mu(m, cores)? / 1e6, None)),
        CheckKind::EfsModelFit => Ok((efs_model_error(m, copies, k.statistic.unwrap_or(Statistic::Max))?, None)),
        CheckKind::AggregateThroughput => {
            Ok((fig4_point(m, k.utilisation.expect("validated"), copies, &EXACT)?.1, None))
        }
        CheckKind::ParallelOverSerial => {
            let (serial, par) = table1_runs(m, copies)?;
            Ok((secs(par.makespan) / secs(serial.makespan), None))
        }
        CheckKind::MeanPower => {
            let (serial, par) = table1_runs(m, copies)?;
            let r = if k.serial.expect("validated") { serial } else { par };
            let joules = match k.domain.expect("validated") {
                PowerDomain::System => r.energy.system,
                PowerDomain::Cpu => r.energy.cpu,
            };
            Ok((joules / secs(r.makespan), None))
        }
        CheckKind::ThroughputRatio => {
            let name = k.workload.as_deref().expect("validated");
            let rate = |copies: u32| -> Result<f64, RunError> {
                let mut w = presets::workload(name).map_err(RunError::from)?;
                for j in &mut w.jobs {
                    j.instances = copies;
                }
                let p = Plan::new(&w, m, None, 1, name).map_err(RunError::from)?;
                let r = run_one(m, &p, "cfs", &PolicyOptions::default())?;
                Ok(r.totals.instructions / secs(r.makespan))
            };
            Ok((rate(k.copies.expect("validated"))? / rate(k.base_copies.expect("validated"))?, None))
        }
        CheckKind::RerunCell => unreachable!("`validate` reads rerun cells from the reruns it ran first"),
        CheckKind::SoloIpc => Ok((solo_ipc_at_reference(m, k.workload.as_deref().expect("validated"))?, None)),
        CheckKind::LinuxUnfairness => Ok((linux_unfairness(m, k.top)?, None)),
        CheckKind::ChaseCorun => {
            Ok((chase_corun(m, k.footprint_mb.expect("validated"), k.solo_rate_m.expect("validated"))?, None))
        }
        CheckKind::Timeshare => timeshare(m, k),
        CheckKind::AssignmentSpread => largest(k, |name| sample::assignment_spread(m, name, k.samples.unwrap_or(1000))),
        CheckKind::BalancerLoss => largest(k, |name| sample::balancer_loss(m, name, k.samples.unwrap_or(1000))),
        CheckKind::RunToRunSd => {
            let parts = each(k, |name| sample::run_to_run_sd(m, name, k.samples.unwrap_or(8)))?;
            let mean = parts.iter().map(|p| p.1).sum::<f64>() / parts.len() as f64;
            Ok((mean, Some(format!("per workload: {}", listed(&parts)))))
        }
        CheckKind::ExploredPermutations => {
            let threads = k.threads.expect("validated");
            largest(k, |name| sample::explored_permutations(m, name, threads))
        }
    }
}

/// `f` of each of the point's workloads.
fn each(k: &CheckPoint, f: impl Fn(&str) -> Result<f64, RunError> + Sync) -> Result<Vec<(String, f64)>, RunError> {
    k.workloads.as_deref().expect("validated").par_iter().map(|n| Ok((n.clone(), f(n)?))).collect()
}

/// The largest `f` over the point's workloads, with each workload's value.
fn largest(k: &CheckPoint, f: impl Fn(&str) -> Result<f64, RunError> + Sync) -> Result<Measured, RunError> {
    let parts = each(k, f)?;
    let widest = parts.iter().map(|p| p.1).fold(f64::MIN, f64::max);
    Ok((widest, Some(format!("per workload: {}", listed(&parts)))))
}

fn listed(parts: &[(String, f64)]) -> String {
    parts.iter().map(|(n, v)| format!("{n} {v:.4}")).collect::<Vec<_>>().join(", ")
}

/// EFS Fig. 4: the bus model's error, %, against the simulated machine for
/// `n` synthetic threads at solo utilisations 0.1-0.9, largest or s.d.
fn efs_model_error(m: &MachineSpec, n: u32, stat: Statistic) -> Result<f64, RunError> {
    let errs: Vec<f64> = (1..=9)
        .into_par_iter()
        .map(|i| fig4_point(m, i as f64 / 10.0, n, &EXACT).map(|(model, sim)| 100.0 * (model / sim - 1.0)))
        .collect::<Result<_, crate::RunError>>()?;
    Ok(match stat {
        Statistic::Max => errs.iter().fold(0.0, |a, e| f64::max(a, e.abs())),
        Statistic::Sd => {
            let mean = errs.iter().sum::<f64>() / errs.len() as f64;
            (errs.iter().map(|e| (e - mean).powi(2)).sum::<f64>() / (errs.len() - 1) as f64).sqrt()
        }
    })
}

/// EFS Table 1's serial and parallel (`cfs`) runs of `n` synthetic
/// instances at solo bus utilisation 0.97.
fn table1_runs(
    m: &MachineSpec,
    n: u32,
) -> Result<(cosched_sim::engine::RunOutput, cosched_sim::engine::RunOutput), RunError> {
    let w = synthetic(0.97, n, 2.5e9)?;
    let serial = serial_run(m, &w, n, &EXACT)?;
    let p = Plan::new(&w, m, None, 1, "syn").map_err(RunError::from)?;
    Ok((serial, run_one(m, &p, "cfs", &PolicyOptions::default())?))
}

/// Perf&Fair Fig. 1's Linux: unfairness (max/min slowdown, the registry's
/// ratio) under `cfs` per mix of the study (exact model, seed 1), as the
/// geometric mean over all mixes or the arithmetic mean over the `top` most
/// unfair.
fn linux_unfairness(m: &MachineSpec, top: Option<u32>) -> Result<f64, RunError> {
    use crate::paper::perf_fair::{mixes, unfairness, PAPER_BW_RANGE, PAPER_MIXES, PAPER_SOLO_S};
    let mixes = mixes(m, PAPER_MIXES, PAPER_BW_RANGE, PAPER_SOLO_S)?;
    let mut ratio: Vec<f64> = mixes
        .par_iter()
        .map(|(_, w, _)| {
            let p = Plan::new(w, m, None, 1, &w.name).map_err(RunError::from)?;
            let solo = cosched_sim::experiment::solo_times(m, &p, &cosched_sim::SimOptions::default())?;
            let out = run_one(m, &p, "cfs", &PolicyOptions::default())?;
            let finish: Vec<f64> = out.job_finish.iter().map(|&f| secs(f)).collect();
            Ok(unfairness(&finish, &solo))
        })
        .collect::<Result<_, RunError>>()?;
    Ok(match top {
        None => (ratio.iter().map(|r| r.ln()).sum::<f64>() / ratio.len() as f64).exp(),
        Some(t) => {
            ratio.sort_by(|a, b| b.total_cmp(a));
            let t = (t as usize).min(ratio.len());
            ratio[..t].iter().sum::<f64>() / t as f64
        }
    })
}

/// Two pointer chases over `wss_mb` MiB each, one per core, modelled as
/// `cosched calibrate --check` models them (solo IPC from the measured solo
/// rate `solo_rate_m` M loads/s): loads/s of the pair over one alone.
fn chase_corun(m: &MachineSpec, wss_mb: f64, solo_rate_m: f64) -> Result<f64, RunError> {
    let ops = 20e6;
    let ipc = INSTR_PER_OP * solo_rate_m * 1e6 / (m.freq_ghz * 1e9);
    if ipc > m.core.issue_width {
        return Err(RunError::Config(ConfigError::new(
            &m.name,
            "check.solo_rate_m",
            format!(
                "{solo_rate_m} M loads/s (chase_corun) would need IPC {ipc:.2} at {} GHz, above the issue width {}",
                m.freq_ghz, m.core.issue_width
            ),
        )));
    }
    let text = format!(
        "name = \"chase\"\n[[job]]\nname = \"chase\"\ninstances = 2\n[[job.phase]]\ninstructions = {}\nipc = {ipc}\n{}",
        ops * INSTR_PER_OP,
        chase_phase(wss_mb)
    );
    let w = presets::workload_from_toml("chase", &text).map_err(RunError::from)?;
    let p = Plan::new(&w, m, None, 1, "chase").map_err(RunError::from)?;
    let solo = secs(run_one(m, &p.solo(0), "cfs", &PolicyOptions::default())?.makespan);
    let pair = run_one(m, &p, "cfs", &PolicyOptions::default())?;
    let mean = pair.job_finish.iter().map(|&f| secs(f)).sum::<f64>() / pair.job_finish.len() as f64;
    Ok(solo / mean)
}

/// A `timeshare` point: two pointer chases over `footprint_mb` pinned to one
/// context, alternating at the measured quantum (`timeshare_check::check`,
/// the model `cosched calibrate` sets beside its measurement): pair wall time
/// over one copy alone. Each copy's loads are what `solo_s` holds at the
/// machine's measured latency for that working set (the chase is sized to run
/// `solo_s` alone).
fn timeshare(m: &MachineSpec, k: &CheckPoint) -> Result<(f64, Option<String>), RunError> {
    let (mb, solo_s, q) =
        (k.footprint_mb.expect("validated"), k.solo_s.expect("validated"), k.quantum_ms.expect("validated"));
    let ns = m.cache.latency_curve.as_ref().and_then(|c| latency_at(c, mb)).ok_or_else(|| {
        RunError::Config(ConfigError::new(&m.name, "cache.latency_curve", "a `timeshare` point needs it"))
    })?;
    let cpu_s = k.published * solo_s / 2.0;
    let t = cosched_machine::check::Timeshare {
        wss_mb: mb,
        mops: solo_s / (ns * 1e-9) / 1e6,
        solo_s,
        pair_s: 2.0 * cpu_s,
        cpu_s,
        switches: cpu_s / (q * 1e-3),
    };
    let c = crate::timeshare_check::check(m, &t)?;
    Ok((c.predicted_slowdown, Some(format!("at a quantum of {:.2} ms", c.quantum_ms))))
}

/// The latency of `curve` (`[MiB, ns]`, increasing MiB) at `mb`,
/// interpolated linearly in log MiB; the end values beyond its ends.
fn latency_at(curve: &[[f64; 2]], mb: f64) -> Option<f64> {
    let (first, last) = (curve.first()?, curve.last()?);
    if mb <= first[0] {
        return Some(first[1]);
    }
    if mb >= last[0] {
        return Some(last[1]);
    }
    let k = curve.partition_point(|p| p[0] <= mb);
    let (a, b) = (curve[k - 1], curve[k]);
    Some(a[1] + (b[1] - a[1]) * (mb.ln() - a[0].ln()) / (b[0].ln() - a[0].ln()))
}

/// Sustained bandwidth of the reference machine a `solo_ipc` point runs on,
/// GB/s: ample for one thread (a Skylake-SP socket has six DDR4 channels) [A].
const REFERENCE_BANDWIDTH_GBS: f64 = 200.0;

/// IPC of workload `name` alone on `m` altered to the `measured_on`
/// reference of its first phase (clock, idle latency, LLC).
fn solo_ipc_at_reference(m: &MachineSpec, name: &str) -> Result<f64, RunError> {
    let w = presets::workload(name).map_err(RunError::from)?;
    let reference =
        w.jobs.iter().flat_map(|j| j.all_phases()).find_map(|(_, _, ph)| ph.measured_on.clone()).ok_or_else(|| {
            RunError::Config(ConfigError::new(
                name,
                "measured_on",
                "no phase has it, so there is no reference machine to run it on",
            ))
        })?;
    let mut r = m.clone();
    r.freq_ghz = reference.freq_ghz;
    r.cache.llc_mb = reference.llc_mb;
    let idle = r.memory.loaded_latency[0][1];
    for p in r.memory.loaded_latency.iter_mut() {
        p[1] *= reference.latency_ns / idle;
    }
    r.memory.bandwidth_gbs = REFERENCE_BANDWIDTH_GBS;
    r.memory.dram = None;
    let p = Plan::new(&w, &r, None, 1, name).map_err(RunError::from)?;
    let out = run_one(&r, &p, "cfs", &PolicyOptions::default())?;
    Ok(out.totals.instructions / out.totals.cycles)
}
