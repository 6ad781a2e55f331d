//! Characterising a program without a PMU: its slowdowns beside cache
//! pirates and bandwidth bandits (a [`Record`], measured by
//! `cosched characterise` on the real machine) fitted, on the calibrated
//! preset of that machine, by a one-phase program whose footprint, LLC
//! accesses and memory-level parallelism make the simulator reproduce them.
//! The result is a workload file the simulator runs, every field tagged
//! measured, derived (fitted) or assumed.
//!
//! The model of a job ([`model`]): `instructions` = solo turnaround × clock
//! at IPC 1 (assumed: only their product is measured), a random or sequential
//! access pattern (or, on request, none) over `footprint_mb`, `llc_apki` LLC accesses
//! per kilo-instruction and `mlp` misses in flight (1 for random access,
//! assumed: only accesses per MLP show in wall time; Little's law's for a
//! prefetched sweep). The fit ([`search`]) is a grid search over both
//! patterns refined to a continuous footprint, each constant with its 95%
//! interval and the fit's residual. Where the record measured the job beside a
//! compute loop, which holds no cache, every model carries that slowdown as the
//! factor another busy core stretches its time by (`presence_slowdown`, design
//! note 67): measured, not fitted.

use crate::error::RunError;
use cosched_machine::characterised::{CoRun, JobRecord, Record, Series, MAX_SERIES};
use cosched_machine::MachineSpec;

pub mod model;
pub mod phases;
pub mod search;
mod unfit;

pub use model::{predict, sequential_mlp, Fit, Pattern};
pub use phases::{fit_phased, Phased};
pub use search::{fit, fit_patterns, APKI, FOOTPRINTS, PATTERNS, WITH_NONE};
pub use unfit::{solo_spread, unfit, Unfit, D2_THREE, FASTER_LIMIT};

/// Memory-level parallelism [A]: wall-time slowdowns see a job's misses only
/// through LLC accesses per MLP (a miss costs latency / MLP), so the two are
/// not separately identifiable; the fit varies the accesses at MLP 1.
pub const MLP: f64 = 1.0;
/// Which fit this is, for caches of its output (`run --characterise`): changed with the fit.
pub const FIT: &str = "3: random or sequential access, refined footprint, 95% intervals, phases from progress reports";
/// Most jobs a record may hold, and most co-runs per job (a record is user input).
pub const MAX_RECORD_JOBS: usize = 256;
/// Most co-runs of one job in a record.
pub const MAX_CORUNS: usize = 64;
/// Most repetitions of each run: as many as a check's rounds ([`crate::limits::MAX_ROUNDS`]).
pub const MAX_REPEAT: u32 = crate::limits::MAX_ROUNDS.max as u32;
/// Solo spread (largest / smallest − 1) above which a job's fit is flagged: the host moved more
/// between its solo runs than most co-runners slow it.
pub const NOISY_SPREAD: f64 = 0.25;

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
    if j.solo_runs.len() > MAX_REPEAT as usize || !j.solo_runs.iter().all(|&x| ok(x)) {
        return Err(RunError::option(format!(
            "{}: solo_runs must be at most {MAX_REPEAT} positive numbers of seconds up to 1e6",
            j.name
        )));
    }
    check_series(j, &j.solo_progress, j.solo_runs.len())?;
    for r in j.pirates.iter().chain(&j.bandits).chain(&j.presence) {
        check_series(j, &r.progress, r.runs.len())?;
        if r.runs.len() > MAX_REPEAT as usize || !r.runs.iter().all(|&x| ok(x)) {
            return Err(RunError::option(format!(
                "{}: a co-run's runs must be at most {MAX_REPEAT} positive numbers of seconds up to 1e6",
                j.name
            )));
        }
        // The compute loop of the presence co-run has no size (0).
        let presence = j.presence.as_ref().is_some_and(|p| std::ptr::eq(p, r));
        if !(ok(r.size) || presence && r.size == 0.0) || !ok(r.slowdown) {
            return Err(RunError::option(format!(
                "{}: co-run sizes and slowdowns must be positive numbers, got {} and {}",
                j.name, r.size, r.slowdown
            )));
        }
    }
    Ok(())
}

/// A record's progress reports, checked: none, or one series per run, each at most
/// [`MAX_SERIES`] reports of finite non-negative seconds and operations, both rising.
fn check_series(j: &JobRecord, series: &[Series], runs: usize) -> Result<(), RunError> {
    let rising = |s: &Series| {
        s.len() <= MAX_SERIES
            && s.iter().all(|p| p.iter().all(|x| x.is_finite() && *x >= 0.0))
            && s.windows(2).all(|w| w[1][0] > w[0][0] && w[1][1] >= w[0][1])
    };
    if !(series.is_empty() || series.len() == runs) || !series.iter().all(rising) {
        return Err(RunError::option(format!(
            "{}: progress must hold one series per run, each at most {MAX_SERIES} [seconds, operations] pairs, both rising",
            j.name
        )));
    }
    Ok(())
}

/// `s` inside a TOML basic string (quotes and backslashes escaped).
fn escaped(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// What a job's (or a phase's) record measured beside a compute loop, for its source line (design
/// note 67): its slowdown there with its 95% interval where its runs are kept; empty where not
/// measured.
fn presence_text(j: &JobRecord) -> String {
    let Some(r) = &j.presence else { return String::new() };
    let df = r.runs.len().min(j.solo_runs.len()).saturating_sub(1);
    let interval = j.log_se(r).map_or(String::new(), |se| {
        let h = cosched_core::stats::t95(df) * se;
        format!(" (95% interval {:.3}-{:.3})", r.slowdown * (-h).exp(), r.slowdown * h.exp())
    });
    format!(
        "; {:.3} x its time alone beside a compute loop on the other core{interval} [M], so presence_slowdown {:.3}: the factor that stretches its time while another core is busy [M]",
        r.slowdown,
        j.presence_factor()
    )
}

/// The source line of a job's (or a phase's) fit: what was measured, what was fitted, and how well.
fn source_of(j: &JobRecord, f: &Fit) -> String {
    let runs = |v: &[CoRun], unit: &str| {
        v.iter().map(|r| format!("{}{unit} {:.3}", r.size, r.slowdown)).collect::<Vec<_>>().join(", ")
    };
    if f.access == Pattern::None {
        return format!(
            "{}: solo {:.3} s, spread {:.1}% [M]{}; no memory traffic: its slowdowns beside pirates ({}) and bandits ({}) do not exclude a program that makes none (models inside the 95% interval reach {} MiB and {} LLC accesses/KI), RMS error {:.1}% [D]; IPC 1 and instructions = solo time x clock [A] (only their product is measured)",
            j.name,
            j.solo_s,
            100.0 * solo_spread(j),
            presence_text(j),
            runs(&j.pirates, " MiB"),
            runs(&j.bandits, " GB/s"),
            f.footprint_range.1,
            f.apki_range.1,
            100.0 * f.rms
        );
    }
    let mlp = match f.access {
        Pattern::None => "no misses to overlap",
        Pattern::Random => "assumed [A]: only accesses per MLP show in wall time",
        Pattern::Sequential => "Little's law at the machine's bandwidth and latency [D]",
    };
    format!(
        "{}: solo {:.3} s, spread {:.1}% [M]{}; {} access{}, footprint {} MiB (95% interval {}-{}), {} LLC accesses/KI ({}-{}): fitted to its slowdowns beside pirates ({}) and bandits ({}), RMS error {:.1}% [D]; MLP {} ({mlp}); IPC 1 and instructions = solo time x clock [A] (only their product is measured)",
        j.name,
        j.solo_s,
        100.0 * solo_spread(j),
        presence_text(j),
        f.access,
        if f.either { " (the other pattern fits inside the interval too)" } else { "" },
        f.footprint_mb,
        f.footprint_range.0,
        f.footprint_range.1,
        f.llc_apki,
        f.apki_range.0,
        f.apki_range.1,
        runs(&j.pirates, " MiB"),
        runs(&j.bandits, " GB/s"),
        100.0 * f.rms,
        f.mlp
    )
}

/// What makes a job (or phase) not characterisable as measured ([`unfit`]), if anything does.
fn unfit_text(j: &JobRecord) -> Option<String> {
    let flags = unfit(j);
    let what: Vec<String> = flags.iter().map(ToString::to_string).collect();
    (!flags.is_empty()).then(|| what.join("; "))
}

/// Why a job (or phase) is not to be trusted, named: the workload file's `untrusted` field.
fn why_unfit(j: &JobRecord) -> Option<String> {
    unfit_text(j).map(|what| format!("{}: {what}", j.name))
}

/// The flag line of a job (or phase) not characterisable as measured, if it is one.
fn flag_of(j: &JobRecord) -> Option<String> {
    unfit_text(j).map(|what| format!("{}: not characterisable on this host as measured: {what} [M]", j.name))
}

/// The workload file of the fitted jobs, every field's provenance in `sources`; its header names
/// the machine as the user gave it (`machine_arg`: a preset name or a file), so that the command
/// it proposes runs. A job with phases ([`phases`]) runs them in the order its solo run showed.
pub fn workload_file(m: &MachineSpec, machine_arg: &str, rec: &Record, fitted: &Fitted) -> String {
    let mut sources = vec![format!(
        "Characterised by `cosched characterise` on {} against preset `{}` (docs/runtime.md, 'Characterising a program')",
        rec.date, rec.machine
    )];
    let mut jobs = String::new();
    for ((j, f), ph) in rec.jobs.iter().zip(&fitted.fits).zip(&fitted.phased) {
        jobs.push_str(&format!("\n[[job]]\nname = \"{}\"\n", escaped(&j.name)));
        // The whole run's flags, or its phases': a job is as trustworthy as its least.
        let records = ph.as_ref().map_or(vec![j], |p| p.records.iter().collect());
        let why: Vec<String> = records.into_iter().filter_map(why_unfit).collect();
        if !why.is_empty() {
            jobs.push_str(&format!("untrusted = \"{}\"\n", escaped(&why.join("; "))));
        }
        match ph {
            None => {
                sources.push(source_of(j, f));
                sources.extend(flag_of(j));
                jobs.push_str(&format!("[[job.phase]]\n{}", model::job_phase(m, j.solo_s, f)));
            }
            Some(p) => {
                let order: Vec<String> = p.phases.kind.iter().map(|k| (k + 1).to_string()).collect();
                let shares: Vec<String> = p.phases.share.iter().map(|x| format!("{:.1}%", 100.0 * x)).collect();
                sources.push(format!(
                    "{}: {} kinds of phase in its own progress reports, in the order {} ({} of its solo time), each fitted alone to its time beside each co-runner [M]",
                    j.name,
                    p.phases.kinds(),
                    order.join(", "),
                    shares.join(", ")
                ));
                for (r, f) in p.records.iter().zip(&p.fits) {
                    sources.push(source_of(r, f));
                    sources.extend(flag_of(r));
                }
                for (k, share) in p.phases.kind.iter().zip(&p.phases.share) {
                    jobs.push_str(&format!("[[job.phase]]\n{}", model::job_phase(m, share * j.solo_s, &p.fits[*k])));
                }
            }
        }
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

/// A record's fit: each job's whole-run model and predictions, and its phases' where it has them.
#[derive(Clone, Debug)]
pub struct Fitted {
    /// Each job's model, fitted to its whole runs.
    pub fits: Vec<Fit>,
    /// Each job's predicted slowdowns (pirates, then bandits) by that model.
    pub predicted: Vec<Vec<f64>>,
    /// Each job's fit per phase, where its progress reports show phases ([`phases::split`]).
    pub phased: Vec<Option<Phased>>,
}

/// Check `rec` against `m` and fit each of its jobs over the access patterns `patterns`, whole
/// and per phase where it has phases and `phases` asks (`each` is told the job before its fit).
pub fn fit_record(
    m: &MachineSpec,
    rec: &Record,
    patterns: &[Pattern],
    phases: bool,
    each: &dyn Fn(&JobRecord),
) -> Result<Fitted, RunError> {
    check_record(m, rec)?;
    let mut fitted = Fitted { fits: vec![], predicted: vec![], phased: vec![] };
    for j in &rec.jobs {
        each(j);
        let (f, p) = fit_patterns(m, j, patterns)?;
        fitted.fits.push(f);
        fitted.predicted.push(p);
        fitted.phased.push(if phases { fit_phased(m, j, patterns, each)? } else { None });
    }
    Ok(fitted)
}

/// Check `rec` against `m` before any fitting: measured against this preset, at most
/// [`MAX_RECORD_JOBS`] jobs, each job's figures in range (its compute-loop runs too, whether or
/// not the fit will use them).
pub fn check_record(m: &MachineSpec, rec: &Record) -> Result<(), RunError> {
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
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use cosched_sim::engine::SimOptions;
    use cosched_sim::{presets, Plan};

    /// One job fitted whole.
    fn whole(f: Fit) -> Fitted {
        Fitted { fits: vec![f], predicted: vec![vec![]], phased: vec![None] }
    }

    fn machine() -> MachineSpec {
        cosched_machine::presets::machine("kvm-epyc-2c-nov24").unwrap()
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
                pirates: vec![CoRun { size: 8.0, slowdown: 1.1, covered: true, runs: vec![], progress: vec![] }],
                bandits: vec![],
                solo_runs: vec![],
                solo_progress: vec![],
                presence: None,
            }],
        };
        let f = Fit { rms: 0.03, ..Fit::point(Pattern::Random, 8.0, 10.0, 2.0) };
        // The header's command names the machine as given, a file too (it named the machine's
        // `name`, which `-m` could not find).
        let from_file = workload_file(&m, "/some/where/local.toml", &rec, &whole(f));
        assert!(from_file.starts_with("# Written by `cosched characterise`: a workload file the simulator runs (cosched simulate -m /some/where/local.toml -w FILE)."));
        let text = workload_file(&m, "kvm-epyc-2c-nov24", &rec, &whole(f));
        let w = presets::workload_from_toml("c.toml", &text).unwrap();
        assert_eq!(w.jobs.len(), 1);
        for tag in ["[M]", "[D]", "[A]", "2026-11-24", "kvm-epyc-2c-nov24"] {
            assert!(text.contains(tag), "{tag} missing:\n{text}");
        }
        // Its solo time on the preset is the measured one.
        let plan = Plan::new(&w, &m, None, 1, "c").unwrap();
        let solo = cosched_sim::experiment::solo_times(&m, &plan, &SimOptions::default()).unwrap();
        assert!((solo[0] / 1.5 - 1.0).abs() < 0.01, "{solo:?}");
        // A sequential fit loads too, its interval and pattern in its sources.
        let seq = Fit { footprint_range: (6.0, 9.0), ..Fit::point(Pattern::Sequential, 8.0, 10.0, 60.0) };
        let text = workload_file(&m, "kvm-epyc-2c-nov24", &rec, &whole(seq));
        let w = presets::workload_from_toml("c.toml", &text).unwrap();
        assert_eq!(w.jobs.len(), 1);
        assert!(text.contains("sequential access, footprint 8 MiB (95% interval 6-9)"), "{text}");
        // So does a program with no memory traffic (design note 64), at its measured solo time.
        let none = Fit { footprint_range: (0.0, 16.0), apki_range: (0.0, 100.0), ..Fit::no_traffic() };
        let text = workload_file(&m, "kvm-epyc-2c-nov24", &rec, &whole(none));
        assert!(text.contains("no memory traffic") && text.contains("reach 16 MiB and 100 LLC accesses/KI"), "{text}");
        let w = presets::workload_from_toml("c.toml", &text).unwrap();
        let plan = Plan::new(&w, &m, None, 1, "c").unwrap();
        let solo = cosched_sim::experiment::solo_times(&m, &plan, &SimOptions::default()).unwrap();
        assert!((solo[0] / 1.5 - 1.0).abs() < 0.01, "{solo:?}");
        assert!(w.jobs[0].untrusted.is_none(), "a fit measured quietly is trusted");
        // A job faster beside a pirate than alone: its fit is written, with why it is not to be
        // trusted in its `untrusted` field (read back by `run`).
        let mut noisy = rec.clone();
        noisy.jobs[0].pirates[0].slowdown = 0.5;
        let text = workload_file(&m, "kvm-epyc-2c-nov24", &noisy, &whole(f));
        let w = presets::workload_from_toml("c.toml", &text).unwrap();
        let why = w.jobs[0].untrusted.clone().unwrap_or_default();
        assert!(why.starts_with("xz: beside a 8 MiB pirate it ran at 0.50"), "{why}");
    }
}

#[cfg(test)]
mod truth;

#[cfg(test)]
mod phases_truth;
