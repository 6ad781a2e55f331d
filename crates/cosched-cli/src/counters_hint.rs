//! `cosched run` of a counter-driven policy on a host without counters: the
//! refusal names the exact commands that run it anyway. SLITS
//! (§4.3) can rank pairs from slowdowns the simulator predicts for
//! characterised programs (`--programs`); EFS and Perf&Fair read counters
//! as they run and need a PMU or recorded rates (`--counters`).

use cosched_linux::probe::{live_pmu, PmuStatus};
use std::path::Path;

/// Whether the policy `p` reads per-thread counters as it runs.
pub fn needs_counters(p: &str) -> bool {
    p != "linux" && cosched_policies::make(p, &Default::default()).is_ok_and(|x| x.needs().counters)
}

/// Why this host has no PMU the runtime can read, or `None` when it has one.
pub fn no_pmu() -> Option<String> {
    match live_pmu() {
        PmuStatus::Unavailable(why) => Some(why.to_string()),
        PmuStatus::Available => None,
    }
}

/// What the user gave `run` that stands in for counters.
pub struct Given<'a> {
    /// The mix file (`-w`), or `None` for a command after `--`.
    pub workload: Option<&'a Path>,
    /// The machine (`-m`) or calibration (`--calibration`) named, with its flag.
    pub machine: Option<(&'static str, &'a str)>,
    /// Whether `--counters`, `--profile` or `--programs` was given.
    pub stand_in: bool,
}

/// The refusal of the first policy of `policies` that needs counters this host
/// lacks and was given nothing in their place, with the commands that run it
/// here; `None` when every policy can run (or the host has a PMU).
pub fn refusal(policies: &[String], given: &Given) -> Option<String> {
    if given.stand_in {
        return None;
    }
    let p = policies.iter().find(|p| needs_counters(p))?;
    let why = no_pmu()?;
    let head =
        format!("policy `{p}` needs per-thread hardware counters, and this host has none (perf_event_open: {why})");
    if !p.starts_with("slits-") {
        return Some(format!(
            "{head}: it reads them as it runs, so it needs a PMU, or --counters FILE with each job's rates per \
             CPU-second recorded on a host that has one (docs/runtime.md); `cosched doctor` says what this host offers"
        ));
    }
    let Some(w) = given.workload else {
        return Some(format!(
            "{head}: write the command into a mix file (docs/formats.md, Mix files) and run this again with -w \
             FILE: the refusal then names the commands that characterise it and run {p} on it"
        ));
    };
    let w = w.display().to_string();
    let stem = w.strip_suffix(".toml").unwrap_or(&w);
    let (programs, profile) = (format!("{stem}.programs.toml"), format!("{stem}.profile.json"));
    let machine = given.machine.map_or(String::new(), |(flag, m)| format!(" {flag} {m}"));
    let (calibrate, flag, host) = match given.machine {
        Some((flag, m)) => (String::new(), flag, m.to_string()),
        None => ("cosched calibrate -o host.toml && ".to_string(), "-m", "host.toml".to_string()),
    };
    Some(format!(
        "{head}; SLITS can rank pairs from the slowdowns the simulator predicts for characterised programs, in one \
         command: cosched run -p {p} -w {w}{machine} --characterise (both kept for the next run), or step by step: \
         {calibrate}cosched characterise -w {w} -m {host} -o {programs} && cosched run -p {p} -w {w} {flag} {host} \
         --programs {programs} (characterise runs each job alone and beside cache pirates and bandwidth bandits: \
         minutes); or on slowdowns measured pair by pair: cosched probe -w {w} -o {profile} && cosched run -p {p} \
         -w {w} --profile {profile}"
    ))
}
