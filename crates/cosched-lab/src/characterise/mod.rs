//! Characterising a program without a PMU: its slowdowns beside cache
//! pirates and bandwidth bandits (a [`Record`], measured by
//! `cosched characterise` on the real machine) fitted, on the calibrated
//! preset of that machine, by a one-phase program whose footprint, LLC
//! accesses and memory-level parallelism make the simulator reproduce them.
//! The result is a workload file the simulator runs, every field tagged
//! measured, derived (fitted) or assumed.
//!
//! The model of a job: `instructions` = solo turnaround × clock at IPC 1
//! (assumed: only their product is measured), random access over
//! `footprint_mb` (`access = "random"`, its miss ratio from the preset's
//! latency sweep), `llc_apki` LLC accesses per kilo-instruction and `mlp`
//! misses in flight (1, assumed: only accesses per MLP show in wall time).
//! The fit is a grid search ([`FOOTPRINTS`] × [`APKI`]) minimising the
//! squared log error of the predicted slowdowns; a
//! co-run whose co-runner ended first counts only where the prediction falls
//! short of it (the measurement is a lower bound).

use crate::error::RunError;
use crate::failure::StudyError;
use crate::mix_model::{chase_phase, INSTR_PER_OP};
use cosched_core::topology::corun_pair;
use cosched_machine::characterised::{CoRun, JobRecord, Record};
use cosched_machine::ConfigError;
use cosched_machine::MachineSpec;
use cosched_policies::{self as policies, PolicyOptions};
use cosched_sim::engine::{run as simulate, SimOptions};
use cosched_sim::model::RandomMisses;
use cosched_sim::{presets, Plan};
use rayon::prelude::*;

mod unfit;

pub use unfit::{unfit, Unfit, FASTER_LIMIT};

/// Footprints tried, as multiples of the preset's LLC.
pub const FOOTPRINTS: [f64; 11] = [0.125, 0.177, 0.25, 0.354, 0.5, 0.707, 1.0, 1.414, 2.0, 2.828, 4.0];
/// LLC accesses per kilo-instruction tried (at IPC 1).
pub const APKI: [f64; 12] = [0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0];
/// Memory-level parallelism [A]: wall-time slowdowns see a job's misses only
/// through LLC accesses per MLP (a miss costs latency / MLP), so the two are
/// not separately identifiable; the fit varies the accesses at MLP 1.
pub const MLP: f64 = 1.0;
/// Most jobs a record may hold, and most co-runs per job (a record is user input).
pub const MAX_RECORD_JOBS: usize = 256;
/// Most co-runs of one job in a record.
pub const MAX_CORUNS: usize = 64;
/// Most repetitions of each run.
pub const MAX_REPEAT: u32 = 100;
/// Solo spread (largest / smallest − 1) above which a job's fit is flagged: the host moved more
/// between its solo runs than most co-runners slow it.
pub const NOISY_SPREAD: f64 = 0.25;

/// A job's fitted model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fit {
    /// Footprint, MiB.
    pub footprint_mb: f64,
    /// LLC accesses per kilo-instruction.
    pub llc_apki: f64,
    /// Memory-level parallelism.
    pub mlp: f64,
    /// Root-mean-square relative error of the fitted slowdowns.
    pub rms: f64,
}

/// Pirate working sets for a machine whose LLC is `llc_mb`: a quarter to twice it.
pub fn pirate_sizes(llc_mb: f64) -> Vec<f64> {
    [0.25, 0.5, 1.0, 2.0].iter().map(|f| round2(f * llc_mb)).collect()
}

/// Bandit rates for a machine that sustains `gbs`: a quarter and a half of it.
pub fn bandit_rates(gbs: f64) -> Vec<f64> {
    [0.25, 0.5].iter().map(|f| round2(f * gbs)).collect()
}

/// `x` rounded to two decimals (the sizes a record names).
pub fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// The phase of a job with `fit`, at IPC 1 for `solo_s` seconds on `m`.
fn job_phase(m: &MachineSpec, solo_s: f64, f: &Fit) -> String {
    let l1 = (f.llc_apki.max(300.0)).min(1000.0 * m.core.l1_accesses_per_cycle);
    format!(
        "instructions = {:e}\nipc = 1.0\nllc_apki = {}\naccess = \"random\"\nfootprint_mb = {}\nmlp = {}\nl1_apki = {l1}\n",
        solo_s * m.freq_ghz * 1e9,
        f.llc_apki,
        f.footprint_mb,
        f.mlp
    )
}

/// The co-runner's phase: a pirate chase over `mb` at the rate the preset's
/// sweep gives it, or a bandit streaming `gbs` GB/s over `4·LLC`.
fn corunner_phase(m: &MachineSpec, pirate: bool, size: f64, seconds: f64) -> String {
    if pirate {
        let r = RandomMisses::of(m);
        let ns = m.cache.llc_hit_cycles / m.freq_ghz
            + r.ratio(size, size.min(m.cache.llc_mb)) * m.memory.loaded_latency[0][1];
        let ipc = INSTR_PER_OP / (ns * m.freq_ghz);
        format!("instructions = {:e}\nipc = {ipc}\n{}", seconds * 1e9 / ns * INSTR_PER_OP, chase_phase(size))
    } else {
        let u = (size / m.memory.bandwidth_gbs).min(0.95);
        format!(
            "instructions = {:e}\nipc = 1.0\nllc_apki = 125\nsolo_bus_util = {u}\nfootprint_mb = {}\nmlp = 10\nwb_ratio = 0.0\nl1_apki = 1000\n",
            seconds * m.freq_ghz * 1e9,
            4.0 * m.cache.llc_mb
        )
    }
}

/// Predicted slowdown of a job with `fit` beside a pirate (`pirate`) or bandit of `size`.
pub fn predict(m: &MachineSpec, solo_s: f64, f: &Fit, pirate: bool, size: f64) -> Result<f64, RunError> {
    let text = format!(
        "name = \"fit\"\n[[job]]\nname = \"job\"\n[[job.phase]]\n{}\n[[job]]\nname = \"corunner\"\n[[job.phase]]\n{}",
        job_phase(m, solo_s, f),
        corunner_phase(m, pirate, size, 10.0 * solo_s)
    );
    let w = presets::workload_from_toml("fit", &text).map_err(RunError::from)?;
    let plan = Plan::new(&w, m, None, 1, "fit").map_err(RunError::from)?;
    let (c0, c1) = corun_pair(&m.topology())
        .ok_or_else(|| RunError::Config(ConfigError::new(&m.name, "topology", "no two cores share an LLC")))?;
    let opts = PolicyOptions { assignment: Some(vec![c0, c1]), quantum: 1_000_000_000, ..Default::default() };
    let out = simulate(m, &plan, &mut *policies::make("static", &opts)?, &SimOptions::default(), None)
        .map_err(RunError::from)?;
    Ok(out.job_finish[0] as f64 * 1e-9 / solo_s)
}

/// A grid point, its squared log error and its predicted slowdowns.
type Scored = (Fit, f64, Vec<f64>);

/// The grid point that best reproduces job `j`'s co-runs on `m`, with its
/// predicted slowdown beside each (pirates, then bandits).
pub fn fit(m: &MachineSpec, j: &JobRecord) -> Result<(Fit, Vec<f64>), RunError> {
    let c = m.cache.llc_mb;
    let runs: Vec<(bool, &CoRun)> =
        j.pirates.iter().map(|r| (true, r)).chain(j.bandits.iter().map(|r| (false, r))).collect();
    if runs.is_empty() {
        return Err(RunError::option(format!("{}: no co-runs to fit", j.name)));
    }
    let grid: Vec<Fit> = FOOTPRINTS
        .iter()
        .flat_map(|&w| APKI.iter().map(move |&a| (w, a)))
        .map(|(w, a)| Fit { footprint_mb: round2(w * c).max(0.01), llc_apki: a, mlp: MLP, rms: 0.0 })
        .collect();
    // Each grid point with its squared log error and predictions, in grid
    // order; a point the machine cannot run (the simulator refuses it: more
    // bandwidth alone than the machine has) is skipped with its reason.
    let scored: Vec<Result<Scored, RunError>> = grid
        .par_iter()
        .map(|f| {
            let predicted: Vec<f64> =
                runs.iter().map(|(pirate, r)| predict(m, j.solo_s, f, *pirate, r.size)).collect::<Result<_, _>>()?;
            let (mut sq, mut rel) = (0.0, 0.0);
            for (p, (_, r)) in predicted.iter().zip(&runs) {
                let e = (p / r.slowdown).ln();
                // A co-runner that ended first leaves a lower bound: only a shortfall counts.
                sq += if r.covered { e * e } else { e.min(0.0).powi(2) };
                rel += (p / r.slowdown - 1.0).powi(2);
            }
            Ok((Fit { rms: (rel / runs.len() as f64).sqrt(), ..*f }, sq, predicted))
        })
        .collect();
    // Deterministic: the first grid point with the least error.
    let mut best: Option<Scored> = None;
    for s in scored.iter().flatten() {
        if best.as_ref().is_none_or(|b| s.1 < b.1 - 1e-12) {
            best = Some(s.clone());
        }
    }
    match best {
        Some((f, _, predicted)) => Ok((f, predicted)),
        None => Err(RunError::Study(StudyError::NoGridModel {
            job: j.name.clone(),
            machine: m.name.clone(),
            first: scored.into_iter().find_map(Result::err).map(Box::new),
        })),
    }
}

/// A record's job, checked before any fitting: a positive solo time, at
/// least one co-run, every size and slowdown a positive number.
fn check_job(j: &JobRecord) -> Result<(), RunError> {
    let ok = |x: f64| x.is_finite() && x > 0.0 && x <= 1e6;
    if !ok(j.solo_s) {
        return Err(RunError::option(format!(
            "{}: solo_s must be a positive number of seconds up to 1e6, got {}",
            j.name, j.solo_s
        )));
    }
    if j.pirates.is_empty() && j.bandits.is_empty() {
        return Err(RunError::option(format!("{}: no co-runs to fit", j.name)));
    }
    if j.pirates.len() + j.bandits.len() > MAX_CORUNS {
        return Err(RunError::option(format!("{}: at most {MAX_CORUNS} co-runs per job", j.name)));
    }
    for r in j.pirates.iter().chain(&j.bandits) {
        if !ok(r.size) || !ok(r.slowdown) {
            return Err(RunError::option(format!(
                "{}: co-run sizes and slowdowns must be positive numbers, got {} and {}",
                j.name, r.size, r.slowdown
            )));
        }
    }
    Ok(())
}

/// `s` inside a TOML basic string (quotes and backslashes escaped).
fn escaped(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The workload file of the fitted jobs, every field's provenance in `sources`; its header names
/// the machine as the user gave it (`machine_arg`: a preset name or a file), so that the command
/// it proposes runs.
pub fn workload_file(m: &MachineSpec, machine_arg: &str, rec: &Record, fits: &[Fit]) -> String {
    let mut sources = vec![format!(
        "Characterised by `cosched characterise` on {} against preset `{}` (docs/runtime.md, 'Characterising a program')",
        rec.date, rec.machine
    )];
    let mut jobs = String::new();
    for (j, f) in rec.jobs.iter().zip(fits) {
        let runs = |v: &[CoRun], unit: &str| {
            v.iter().map(|r| format!("{}{unit} {:.3}", r.size, r.slowdown)).collect::<Vec<_>>().join(", ")
        };
        sources.push(format!(
            "{}: solo {:.3} s, spread {:.1}% [M]; footprint {} MiB, {} LLC accesses/KI, MLP {}: fitted to its slowdowns beside pirates ({}) and bandits ({}), RMS error {:.1}% [D]; IPC 1 and instructions = solo time x clock [A] (only their product is measured)",
            j.name,
            j.solo_s,
            100.0 * j.solo_spread,
            f.footprint_mb,
            f.llc_apki,
            f.mlp,
            runs(&j.pirates, " MiB"),
            runs(&j.bandits, " GB/s"),
            100.0 * f.rms
        ));
        let flags = unfit(j);
        if !flags.is_empty() {
            let what: Vec<String> = flags.iter().map(ToString::to_string).collect();
            sources.push(format!("{}: not characterisable on this host as measured: {} [M]", j.name, what.join("; ")));
        }
        jobs.push_str(&format!(
            "\n[[job]]\nname = \"{}\"\n[[job.phase]]\n{}",
            escaped(&j.name),
            job_phase(m, j.solo_s, f)
        ));
    }
    let quoted: Vec<String> = sources.iter().map(|s| format!("  \"{}\",", escaped(s))).collect();
    format!(
        "# Written by `cosched characterise`: a workload file the simulator runs (cosched simulate -m {} -w FILE).\nname = \"characterised\"\ndescription = \"{} job(s) characterised without a PMU on {}\"\nsources = [\n{}\n]\n{jobs}",
        machine_arg,
        rec.jobs.len(),
        rec.date,
        quoted.join("\n")
    )
}

/// Check `rec` against `m` and fit each of its jobs (`each` is told the job
/// before its fit): the fitted models and each job's predicted slowdowns.
pub fn fit_record(
    m: &MachineSpec,
    rec: &Record,
    each: &dyn Fn(&JobRecord),
) -> Result<(Vec<Fit>, Vec<Vec<f64>>), RunError> {
    if rec.machine != m.name {
        return Err(RunError::option(format!(
            "the record was measured against preset `{}`, not `{}`: its co-runners' sizes come from that preset, so fit it there",
            rec.machine, m.name
        )));
    }
    if rec.jobs.len() > MAX_RECORD_JOBS {
        return Err(RunError::option(format!("the record holds {} jobs: at most {MAX_RECORD_JOBS}", rec.jobs.len())));
    }
    for j in &rec.jobs {
        check_job(j)?;
    }
    let mut fits = vec![];
    let mut predicted = vec![];
    for j in &rec.jobs {
        each(j);
        let (f, p) = fit(m, j)?;
        fits.push(f);
        predicted.push(p);
    }
    Ok((fits, predicted))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn machine() -> MachineSpec {
        cosched_machine::presets::machine("kvm-epyc-2c-nov24").unwrap()
    }

    #[test]
    fn a_program_of_known_working_set_is_recovered_from_its_recorded_co_runs() {
        // The recorded stream: what the simulated host measures of a program with a 1.414 × LLC
        // random working set and 2 LLC accesses per kilo-instruction (a grid point).
        let m = machine();
        let truth = Fit { footprint_mb: round2(1.414 * m.cache.llc_mb), llc_apki: 2.0, mlp: 1.0, rms: 0.0 };
        let solo_s = 2.0;
        let co = |pirate: bool, sizes: Vec<f64>| -> Vec<CoRun> {
            sizes
                .into_iter()
                .map(|s| CoRun { size: s, slowdown: predict(&m, solo_s, &truth, pirate, s).unwrap(), covered: true })
                .collect()
        };
        let job = JobRecord {
            name: "known".into(),
            cmd: vec!["x".into()],
            solo_s,
            solo_spread: 0.0,
            pirates: co(true, pirate_sizes(m.cache.llc_mb)),
            bandits: co(false, bandit_rates(m.memory.bandwidth_gbs)),
        };
        assert!(job.pirates.iter().any(|r| r.slowdown > 1.05), "the pirates must bite: {:?}", job.pirates);
        let (f, predicted) = fit(&m, &job).unwrap();
        assert_eq!(predicted.len(), job.pirates.len() + job.bandits.len());
        assert_eq!((f.footprint_mb, f.llc_apki, f.mlp), (truth.footprint_mb, truth.llc_apki, truth.mlp), "{f:?}");
        assert!(f.rms < 1e-9);
        // A compute-bound program: nothing bites, and the fit says so (the least memory traffic).
        let flat = JobRecord {
            pirates: job.pirates.iter().map(|r| CoRun { slowdown: 1.0, ..r.clone() }).collect(),
            bandits: job.bandits.iter().map(|r| CoRun { slowdown: 1.0, ..r.clone() }).collect(),
            ..job.clone()
        };
        let (f, _) = fit(&m, &flat).unwrap();
        assert!(f.llc_apki <= 1.0 && f.rms < 0.01, "{f:?}");
    }

    #[test]
    fn the_workload_file_loads_and_says_where_each_field_comes_from() {
        let m = machine();
        let rec = Record {
            machine: m.name.clone(),
            date: "2026-11-24".into(),
            jobs: vec![JobRecord {
                name: "xz".into(),
                cmd: vec!["xz".into()],
                solo_s: 1.5,
                solo_spread: 0.02,
                pirates: vec![CoRun { size: 8.0, slowdown: 1.1, covered: true }],
                bandits: vec![],
            }],
        };
        let f = Fit { footprint_mb: 8.0, llc_apki: 10.0, mlp: 2.0, rms: 0.03 };
        // The header's command names the machine as given, a file too (#68: it named the machine's
        // `name`, which `-m` could not find).
        let from_file = workload_file(&m, "/some/where/local.toml", &rec, &[f]);
        assert!(from_file.starts_with("# Written by `cosched characterise`: a workload file the simulator runs (cosched simulate -m /some/where/local.toml -w FILE)."));
        let text = workload_file(&m, "kvm-epyc-2c-nov24", &rec, &[f]);
        let w = presets::workload_from_toml("c.toml", &text).unwrap();
        assert_eq!(w.jobs.len(), 1);
        for tag in ["[M]", "[D]", "[A]", "2026-11-24", "kvm-epyc-2c-nov24"] {
            assert!(text.contains(tag), "{tag} missing:\n{text}");
        }
        // Its solo time on the preset is the measured one.
        let plan = Plan::new(&w, &m, None, 1, "c").unwrap();
        let solo = cosched_sim::experiment::solo_times(&m, &plan, &SimOptions::default()).unwrap();
        assert!((solo[0] / 1.5 - 1.0).abs() < 0.01, "{solo:?}");
    }
}
