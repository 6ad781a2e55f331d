//! `cosched run`: the user-level scheduler on this machine (see
//! `cosched_linux::runtime`), with solo measurement and repetitions.

use crate::live::{load_mix, LiveOpts};
use crate::opts::Format;
use crate::policy_knobs::RealKnobs;
use crate::rounds;
use crate::Failure;
use crate::OneLine;
use clap::Args as ClapArgs;
use cosched_core::pair_profile::PairProfile;
use cosched_host::rounds::Bound;
use cosched_linux::best_static::{best_static, ENTRY};
use cosched_linux::runtime::{self, RealReport, RunConfig, LINUX};
use cosched_machine::mix::Mix;
use cosched_policies::PolicyOptions;
use std::path::PathBuf;

#[derive(ClapArgs)]
pub struct Args {
    /// Policy: `linux` (the kernel schedules; the baseline) or any of `cosched list policies` except the
    /// oracle. Those that read counters (efs, perf-fair, slits-*) need a PMU, `--counters`, or (slits-*) `--profile`.
    #[arg(long, short = 'p', default_value = LINUX)]
    policy: String,
    /// Mix file listing the commands (see docs/runtime.md); or give one command after `--`.
    #[arg(long, short = 'w')]
    workload: Option<PathBuf>,
    /// Measure each job's solo turnaround first (alone, under `linux`), so slowdowns and unfairness are reported.
    #[arg(long)]
    solo: bool,
    /// Repetitions of the run (solo runs are measured once); with --policies, the number of interleaved rounds.
    #[arg(long, default_value_t = 1)]
    repeat: u32,
    /// Compare these policies in interleaved rounds: each round measures the jobs alone, then runs
    /// every policy once in a seeded random order; paired ratios against --baseline (docs/runtime.md).
    /// A policy listed twice runs twice, the second named `NAME#2`: an A/A check of this host's
    /// noise (`linux,g-rrs,linux`: the two `linux` must come out no different).
    #[arg(long, value_delimiter = ',', conflicts_with = "policy")]
    policies: Option<Vec<String>>,
    /// With --policies: the policy every other is paired with.
    #[arg(long, default_value = LINUX)]
    baseline: String,
    /// With --policies: mark a round whose solo times moved more than this fraction from their medians.
    #[arg(long, default_value_t = 0.10)]
    drift_threshold: f64,
    /// With --policies: the smallest speedup change (fraction) claimed as a difference.
    #[arg(long, default_value_t = 0.01)]
    min_effect: f64,
    /// With --policies: skip the bound (the best static partition with idle contexts allowed, predicted from
    /// the pairwise slowdowns --profile or --programs gives, run every round as entry `best-static`; the
    /// gap_to_bound_pct column).
    #[arg(long = "no-bound", visible_alias = "no-gap-to-best")]
    no_bound: bool,
    /// Every policy's knobs, as the policies declare them (the real runtime's defaults).
    #[command(flatten)]
    knobs: RealKnobs,
    /// Seed of randomised policies.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Counter rates per CPU-second by mix job (JSON), replayed against each tree's measured CPU time:
    /// counter-driven policies (efs, perf-fair, slits-*) on machines without a PMU.
    #[arg(long)]
    counters: Option<PathBuf>,
    /// Profile from `cosched probe`, used by policies that need counters this machine lacks (slits-*).
    #[arg(long)]
    profile: Option<PathBuf>,
    /// Characterised programs (`cosched characterise` output): slits-* run on the pair slowdowns the
    /// simulator predicts for them on the machine of -m/--calibration; with --profile, only the pairs
    /// the probe did not measure are predicted.
    #[arg(long)]
    programs: Option<PathBuf>,
    /// slits-* on a host without counters in one command: characterise the mix's commands on this
    /// host (calibrated first when no -m/--calibration is given) and run on them as with --programs;
    /// both are kept in the cache folder (COSCHED_CACHE_DIR, else ~/.cache/cosched) and reused
    /// while the commands and the machine description are the same.
    #[arg(long, requires = "workload", conflicts_with_all = ["programs", "counters"])]
    characterise: bool,
    /// With --characterise: schedule on fits `characterise` judged not to be trusted on this host
    /// (solo runs that spread, a job faster beside a co-runner than alone). Without it such a
    /// characterisation is measured again, and refused if it is untrustworthy again: SLITS would
    /// pair the jobs on guesses. The run's report names those jobs either way.
    #[arg(long)]
    accept_untrusted: bool,
    #[command(flatten)]
    live: LiveOpts,
    /// Write a Perfetto/Chrome trace of the (last) run.
    #[arg(long)]
    trace: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
    /// Discard the command's stdout and stderr (a single command's pass through by default).
    #[arg(long, short = 'q')]
    quiet: bool,
    /// The command to run (when no --workload).
    #[arg(last = true)]
    cmd: Vec<String>,
}

/// A policy `cosched run` can run: `linux` or one of the registry.
pub(crate) fn check_policy(p: &str) -> Result<(), String> {
    cosched_host::error::known_policy(p).one_line()
}

/// The options every policy of the run is built from: the declared knobs at
/// the real runtime's defaults, with those given; a knob none of the run's
/// policies reads is refused, one only some read is noted on stderr.
fn policy_options(a: &Args) -> Result<PolicyOptions, String> {
    let mut entries: Vec<&str> = match &a.policies {
        Some(p) => p.iter().map(String::as_str).chain([a.baseline.as_str()]).collect(),
        None => vec![a.policy.as_str()],
    };
    entries.dedup();
    let (opts, notes) = a.knobs.options(&entries, a.seed).one_line()?;
    for n in notes {
        eprintln!("note: {n}");
    }
    Ok(opts)
}

/// `cosched run`: exit status 0 when every job ran and exited 0, 1 when a
/// job failed (the report is printed first, and the failures are named), 2
/// for bad input.
pub fn run(mut a: Args) -> Result<(), Failure> {
    crate::output::check_out_file("--trace", a.trace.as_deref())?;
    crate::output::check_out_dir("--output-dir", a.live.process.output_dir.as_deref().and_then(|p| p.to_str()))?;
    let single = a.workload.is_none();
    let mix = match (&a.workload, a.cmd.is_empty()) {
        (Some(w), true) => load_mix(w)?,
        (None, false) => {
            if let Some(problem) = cosched_machine::mix::program_problem(&a.cmd[0]) {
                return Err(format!("command `{}` {problem}", a.cmd[0]).into());
            }
            Mix::single(a.cmd.clone())
        }
        (Some(_), false) => {
            return Err("give either --workload FILE or a command after `--`, not both".to_string().into())
        }
        (None, true) => return Err("nothing to run: give --workload FILE or a command after `--`".to_string().into()),
    };
    let entries = a.policies.clone().unwrap_or_else(|| vec![a.policy.clone()]);
    if a.accept_untrusted && !a.characterise {
        // (clap's `requires` is met by a flag's default, so the pairing is checked here.)
        return Err("--accept-untrusted goes with --characterise (with --programs FILE a run names untrustworthy \
                    fits and goes on)"
            .to_string()
            .into());
    }
    if a.characterise {
        let machine = a.live.named().map(|(_, m)| m.to_string());
        let w = a.workload.clone().expect("clap: --characterise requires --workload");
        if let Some((programs, calibrated)) =
            crate::characterised::stand_in(&w, &mix, &entries, machine.as_deref(), &a.live.process, a.accept_untrusted)?
        {
            a.programs = Some(programs);
            if let Some(c) = calibrated {
                a.live.use_calibration(c.display().to_string());
            }
        }
    }
    let given = crate::counters_hint::Given {
        workload: a.workload.as_deref(),
        machine: a.live.named(),
        stand_in: a.counters.is_some() || a.profile.is_some() || a.programs.is_some(),
    };
    if let Some(refused) = crate::counters_hint::refusal(&entries, &given) {
        return Err(refused.into());
    }
    for p in entries.iter().chain(a.policies.as_ref().map(|_| &a.baseline)) {
        check_policy(p)?;
    }
    if a.quiet && a.live.process.output_dir.is_some() {
        return Err("--quiet and --output-dir: choose one".to_string().into());
    }
    let opts = policy_options(&a)?;
    crate::limits::REPEAT.check(a.repeat as u64).one_line()?;
    let profile = match &a.profile {
        Some(p) => {
            let text = crate::input::read_config(p)?;
            Some(
                serde_json::from_str::<PairProfile>(&text)
                    .map_err(|e| format!("{}: not a probe profile: {e}", p.display()))?,
            )
        }
        None => None,
    };
    // Which jobs' predicted pair slowdowns rest on fits not to be trusted (named in every report).
    let mut untrusted = None;
    let predicted = match &a.programs {
        Some(p) => {
            let spec = a.live.spec()?.ok_or_else(|| {
                "--programs: give the calibrated machine the predictions run on (-m PRESET or --calibration FILE)"
                    .to_string()
            })?;
            let programs = cosched_lab::mix_model::Programs::load(p)?;
            untrusted = crate::characterised::untrusted(&programs, &mix, a.characterise && !a.accept_untrusted)?;
            let solo = vec![None; mix.jobs.len()];
            Some(cosched_lab::mix_model::programs_profile(&mix, &solo, &spec, &programs)?)
        }
        None => None,
    };
    let profile = match (profile, predicted) {
        (Some(measured), Some(p)) => Some(measured.filled_from(&p)),
        (m, p) => m.or(p),
    };
    let base = a.live.builder()?;
    let config = |mix: Mix, policy: &str, trace: Option<PathBuf>| -> RunConfig {
        let mut c = base(mix, policy);
        // EFS's power table (Eq. 13) comes through the machine view, from the description.
        c.opts = opts.clone();
        c.trace = trace;
        c.profile = profile.clone();
        c.recorded_counters = a.counters.clone();
        // Only a policy that reads the predicted pair slowdowns rests on them.
        c.untrusted_fits = untrusted.clone().filter(|_| crate::counters_hint::needs_counters(policy));
        c.inherit_output = single && !a.quiet;
        c
    };
    if let Some(policies) = &a.policies {
        if !(a.drift_threshold > 0.0 && a.min_effect >= 0.0) {
            return Err("--drift-threshold must be > 0 and --min-effect ≥ 0".to_string().into());
        }
        let absent = |why: String| Bound::Absent { why };
        let bound = match (&profile, a.no_bound) {
            (_, true) => absent("not computed (--no-bound)".into()),
            (None, false) => absent(
                "give --profile (from `cosched probe`) or --programs: the best static partition is predicted from pairwise slowdowns"
                    .into(),
            ),
            (Some(p), false) => {
                let host = base(mix.clone(), LINUX).host.unwrap_or_else(cosched_linux::host::Host::live);
                best_static(&host.topology, &mix, p, a.seed).map_or_else(|e| absent(e.to_string()), Bound::Pinned)
            }
        };
        let pinned = match &bound {
            Bound::Pinned(b) => Some(b.assignment.clone()),
            Bound::Absent { .. } => None,
        };
        let build = |m: Mix, p: &str| {
            if p == ENTRY {
                let mut c = config(m, "static", None);
                c.opts.assignment = pinned.clone();
                c
            } else {
                config(m, p, None)
            }
        };
        let plan = cosched_host::rounds::Plan {
            policies: policies.clone(),
            baseline: a.baseline.clone(),
            rounds: a.repeat as usize,
            seed: a.seed,
            drift_threshold: a.drift_threshold,
            min_effect: a.min_effect,
            config: &build,
            bound,
            report: crate::progress::stderr(),
            until: None,
        };
        // A round of real runs takes as long as its jobs: the heartbeat fills the silences.
        crate::progress::begin(format!("run --policies {}", policies.join(",")));
        let c = cosched_host::rounds::run(&mix, &plan).one_line()?;
        rounds::print(&c, a.format)?;
        // A job that failed in any round fails the comparison, as it fails a single run.
        return failures(&c.runs.concat());
    }
    let solo: Vec<Option<f64>> = if a.solo {
        runtime::solo_turnarounds(&mix, |m, p| config(m, p, None))?
    } else {
        mix.jobs.iter().map(|j| j.solo_s).collect()
    };
    let mut reports = vec![];
    // A run lasts as long as its jobs, which may print nothing (or detach and say nothing more):
    // the heartbeat says the scheduler is still running, whatever the jobs print.
    crate::progress::begin(format!("run -p {}", a.policy));
    for k in 0..a.repeat {
        let trace = if k + 1 == a.repeat { a.trace.clone() } else { None };
        let mut c = config(mix.clone(), &a.policy, trace);
        c.solo = solo.clone();
        if a.repeat > 1 {
            eprintln!("run {}/{} under {} …", k + 1, a.repeat, a.policy);
        }
        reports.push(runtime::run(c)?);
        if reports.last().is_some_and(|r| r.interrupted) {
            break; // a timeout or Ctrl-C ends the command, not only this repetition
        }
    }
    crate::run_view::print(&reports, a.format, single.then_some(a.cmd.as_slice()))?;
    if let Some(s) = reports.iter().find_map(|r| r.stop.as_ref()) {
        return Err(Failure::stopped(s.exit_status(), s.sentence()));
    }
    failures(&reports)
}

/// What a status above 128 means as shells number it (128 + the signal that ended the process).
fn signal_note(code: i32) -> String {
    match cosched_linux::sys::signal_name(code - 128) {
        Some(sig) if code > 128 => format!(" (128 + {}: ended by {sig})", code - 128),
        _ => String::new(),
    }
}

/// Exit status 1 naming every job that did not start or exited non-zero in `reports`.
fn failures(reports: &[RealReport]) -> Result<(), Failure> {
    let failed: Vec<String> = reports
        .iter()
        .flat_map(|r| &r.jobs)
        .filter_map(|j| match (&j.error, j.exit_code) {
            (Some(e), _) => Some(format!("{} did not start ({e})", j.name)),
            (None, Some(c)) if c != 0 => Some(format!("{} exited with status {c}{}", j.name, signal_note(c))),
            _ => None,
        })
        .collect();
    if !failed.is_empty() {
        return Err(Failure::jobs(format!("{} job(s) failed: {}", failed.len(), failed.join("; "))));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(flags: &[&str]) -> Args {
        crate::knobs::parse_flags(&flags.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn every_knob_flag_reaches_the_options_the_runtime_is_given() {
        let o = policy_options(&args(&["-p", "efs", "--efs-window-ms", "5", "--", "true"])).unwrap();
        assert_eq!(o.efs.window, 5 * cosched_core::ids::MILLI);
        assert_eq!(
            policy_options(&args(&["-p", "g-rrs", "--", "true"])).unwrap().quantum,
            100 * cosched_core::ids::MILLI
        );
        for k in cosched_policies::knob::all() {
            let reader = cosched_policies::knob::readers(k.name)[0];
            let value = match k.kind {
                cosched_policies::knob::Kind::Switch => None,
                // The last reading the real machine offers (not the simulator's oracles).
                cosched_policies::knob::Kind::Choice { choices } => {
                    choices.iter().rev().find(|c| !c.starts_with("oracle")).map(|c| c.to_string())
                }
                cosched_policies::knob::Kind::Subset { choices } => Some(choices[choices.len() - 1].to_string()),
                cosched_policies::knob::Kind::Text => Some("0".into()),
                _ => {
                    Some(
                        k.default
                            .parse::<f64>()
                            .map_or("3".into(), |d| if d == 0.0 { "1".into() } else { d.to_string() }),
                    )
                }
            };
            let mut f = vec!["-p".to_string(), reader.into(), k.flag()];
            f.extend(value);
            f.extend(["--".into(), "true".into()]);
            let a: Args = crate::knobs::parse_flags(&f).unwrap();
            assert_eq!(a.knobs.given(), [k.name], "{f:?}");
            policy_options(&a).unwrap_or_else(|e| panic!("{f:?}: {e}"));
        }
    }

    #[test]
    fn a_knob_the_policy_does_not_read_is_refused() {
        let e = policy_options(&args(&["-p", "cfs", "--quantum-ms", "7", "--", "true"])).unwrap_err();
        assert!(e.starts_with("--quantum-ms: policy `cfs` does not read it"), "{e}");
        let e = policy_options(&args(&["-p", "linux", "--efs-window-ms", "2", "--", "true"])).unwrap_err();
        assert!(e.contains("read by efs"), "{e}");
        assert!(policy_options(&args(&["--policies", "g-rrs,cfs", "--quantum-ms", "7", "--", "true"])).is_ok());
    }
}
