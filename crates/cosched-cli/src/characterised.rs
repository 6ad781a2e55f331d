//! `cosched run --characterise`: a counter-driven policy on a host without
//! counters in one command. SLITS ranks pairs from the
//! slowdowns the simulator predicts for characterised programs (§4.3 with
//! `--programs`); this finds, or makes and keeps, the two inputs that takes:
//! this host's calibration (`cosched calibrate`, kept per host) and the mix's
//! characterisation on it (`cosched characterise`, kept per commands and
//! calibration), in the cache folder.

use crate::characterise::{characterise, Job};
use crate::live::ProcessOpts;
use crate::output::write_whole;
use crate::OneLine;
use cosched_linux::mix::Mix;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

/// Rounds of each characterisation measurement (`characterise --repeat`'s default).
const REPEAT: u32 = 3;

/// When a job's rounds stop: `characterise`'s ±5% goal, with at most 6 rounds and 60 s a job (its
/// defaults are 9 and 120 s): the one-command path is for a first run, not a measurement campaign.
const UNTIL: cosched_linux::characterise::Until =
    cosched_linux::characterise::Until { within: 0.05, max_rounds: 6, budget_s: 60.0 };

/// Seconds per calibration point (`calibrate --seconds`' default).
const CALIBRATE_S: f64 = 0.4;

/// The cache folder ([`cosched_lab::cache::folder`]: created and proved
/// writable before anything is measured).
fn cache_dir() -> Result<PathBuf, String> {
    cosched_lab::cache::folder().map_err(|e| format!("--characterise: {e}"))
}

/// A short stable name for `what` (a hash, hex).
fn key(what: &impl Hash) -> String {
    let mut h = rustc_hash::FxHasher::default();
    what.hash(&mut h);
    format!("{:016x}", h.finish())
}

/// This host's calibration: the one kept for this host (its topology, LLC and
/// kernel as sysfs and procfs give them), else measured now and kept.
fn host_calibration(dir: &Path) -> Result<PathBuf, String> {
    let host = cosched_linux::host::Host::live();
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let path = dir.join(format!("host-{}.toml", key(&(format!("{host:?}"), kernel.trim()))));
    if path.exists() {
        eprintln!(
            "characterise: this host's calibration kept at {} (delete it, or give -m, to measure again)",
            path.display()
        );
        return Ok(path);
    }
    eprintln!(
        "characterise: calibrating this host (memory latency and bandwidth; about a minute), kept at {}",
        path.display()
    );
    let m = cosched_linux::calibrate::measure(&host, CALIBRATE_S, &|s| eprintln!("calibrate: {s}")).one_line()?;
    let spec = cosched_linux::calibrate::derive("local", &host, &m).one_line()?;
    let text = toml::to_string(&spec).map_err(|e| e.to_string())?;
    write_whole(&path, &format!("# Written by `cosched run --characterise` (as `cosched calibrate`).\n{text}"))?;
    Ok(path)
}

/// The programs file `run --programs` reads for `mix` (the file `workload`) on
/// the machine `machine` names (`None`: this host, calibrated and kept), and
/// the machine file it was fitted on when that was this host's calibration.
fn programs_for(
    workload: &Path,
    mix: &Mix,
    machine: Option<&str>,
    live: &ProcessOpts,
    accept_untrusted: bool,
) -> Result<(PathBuf, Option<PathBuf>), String> {
    let dir = cache_dir()?;
    let (machine, calibrated) = match machine {
        Some(m) => (m.to_string(), None),
        None => {
            let p = host_calibration(&dir)?;
            (p.display().to_string(), Some(p))
        }
    };
    // The characterisation depends on the commands as they run (program, arguments, folder,
    // environment) and on the machine description the fit reads; not on the file's name.
    let spec = cosched_machine::presets::machine(&machine).map_err(|e| e.to_string())?;
    let described = toml::to_string(&spec).map_err(|e| e.to_string())?;
    let jobs: Vec<String> =
        mix.jobs.iter().map(|j| format!("{}|{:?}|{:?}|{:?}", j.name, j.cmd, j.cwd, j.env)).collect();
    // And on the fit itself: a characterisation cached by an earlier fit is not this one's.
    let out = dir.join(format!(
        "programs-{}.toml",
        key(&(
            jobs,
            described,
            REPEAT,
            format!("{UNTIL:?}"),
            cosched_machine::pirate_sweep::ADDED,
            cosched_lab::characterise::FIT
        ))
    ));
    // A kept characterisation with untrustworthy fits is measured again unless they are accepted:
    // the host may be quiet now.
    // (A kept file that no longer loads is measured again too.)
    let kept = out.exists().then(|| cosched_lab::mix_model::Programs::load(&out).ok()).flatten();
    match kept.map(|p| p.untrusted(mix).len()) {
        Some(0) => {
            eprintln!(
                "characterise: the mix's commands were characterised on this machine before: {} (delete it to measure again)",
                out.display()
            );
            return Ok((out, calibrated));
        }
        Some(_) if accept_untrusted => {
            eprintln!(
                "characterise: the mix's commands were characterised on this machine before, some fits not to be \
                 trusted (--accept-untrusted): {}",
                out.display()
            );
            return Ok((out, calibrated));
        }
        Some(n) => eprintln!(
            "characterise: the characterisation kept at {} holds {n} fit(s) not to be trusted: measuring again",
            out.display()
        ),
        None => {}
    }
    eprintln!(
        "characterise: each job alone and beside cache pirates and bandwidth bandits (minutes), kept at {}",
        out.display()
    );
    let job = Job {
        workload: Some(workload),
        from_record: None,
        machine: &machine,
        out: &out,
        record: None,
        settings: cosched_host::characterise::Settings {
            repeat: REPEAT,
            until: UNTIL,
            added_pirates: None,
            patterns: &cosched_lab::characterise::PATTERNS,
            phases: true,
            presence: false,
        },
        live,
        fit_to_stderr: true,
    };
    characterise(&job)?;
    Ok((out, calibrated))
}

/// `run --characterise`: the programs file (and, unless `machine` is named, this host's
/// calibration) that stands in for counters for the run's slits-* `entries`; `None` (with a note)
/// when no entry reads counters or this host has them.
pub fn stand_in(
    workload: &Path,
    mix: &Mix,
    entries: &[String],
    machine: Option<&str>,
    live: &ProcessOpts,
    accept_untrusted: bool,
) -> Result<Option<(PathBuf, Option<PathBuf>)>, String> {
    use crate::counters_hint::{needs_counters, no_pmu};
    let reading: Vec<&String> = entries.iter().filter(|p| needs_counters(p)).collect();
    if reading.is_empty() {
        eprintln!("note: --characterise: no policy of this run reads counters, so nothing is characterised");
        return Ok(None);
    }
    if no_pmu().is_none() {
        eprintln!("note: --characterise: this host has counters, so nothing is characterised");
        return Ok(None);
    }
    if let Some(p) = reading.iter().find(|p| !p.starts_with("slits-")) {
        return Err(format!(
            "--characterise: `{p}` reads counters as it runs; characterised programs stand in for them for slits-* \
             only (for {p}: a PMU, or --counters FILE)"
        ));
    }
    programs_for(workload, mix, machine, live, accept_untrusted).map(Some)
}

/// Why `mix`'s jobs' characterisations in `programs` are not to be trusted, one text naming each
/// such job (`None`: all are trusted). Said on stderr before the run; `refuse` (`run
/// --characterise` without `--accept-untrusted`) makes it an error instead: SLITS would pair the
/// jobs on guesses.
pub fn untrusted(
    programs: &cosched_lab::mix_model::Programs,
    mix: &Mix,
    refuse: bool,
) -> Result<Option<String>, String> {
    let why = programs.untrusted(mix);
    if why.is_empty() {
        return Ok(None);
    }
    let text = why.join("; ");
    if refuse {
        return Err(format!(
            "--characterise: {} of the mix's jobs measured as not to be trusted on this host ({text}): rerun when the \
             host is quiet, or give --accept-untrusted to schedule on these fits",
            why.len()
        ));
    }
    eprintln!("warning: --programs {}: predictions rest on fits not to be trusted: {text}", programs.file);
    Ok(Some(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untrustworthy_fits_are_named_refused_for_characterise_and_carried_otherwise() {
        let mix =
            Mix::parse("m.toml", "[[job]]\nname = \"a\"\ncmd = [\"true\"]\n[[job]]\nname = \"b\"\ncmd = [\"true\"]\n")
                .unwrap();
        let text =
            "name = \"p\"\n[[job]]\nname = \"a\"\npreset = \"mcf\"\nuntrusted = \"a: its solo runs spread 56%\"\n\
                    [[job]]\nname = \"b\"\npreset = \"mcf\"\n";
        let spec = cosched_sim::presets::workload_from_toml("p.toml", text).unwrap();
        let programs = cosched_lab::mix_model::Programs { file: "p.toml".into(), spec };
        let refused = untrusted(&programs, &mix, true).unwrap_err();
        assert!(refused.starts_with("--characterise: 1 of the mix's jobs"), "{refused}");
        assert!(refused.contains("a: its solo runs spread 56%") && refused.contains("--accept-untrusted"), "{refused}");
        assert_eq!(untrusted(&programs, &mix, false).unwrap().as_deref(), Some("a: its solo runs spread 56%"));
        // A mix without the untrusted job rests on trusted fits only.
        assert_eq!(untrusted(&programs, &mix.only(&[1]), true).unwrap(), None);
    }
}
