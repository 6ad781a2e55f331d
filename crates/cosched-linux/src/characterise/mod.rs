//! Characterising any command without a PMU (`cosched characterise`):
//! each job of a mix runs alone, then beside a cache *pirate*
//! (a `cosched-bench` pointer chase of known working set on another core
//! sharing the LLC: Cache Pirating, Eklov et al., ICPP 2011) and beside a
//! bandwidth *bandit* (a `cosched-bench` stream paced to a known rate:
//! Bandwidth Bandit, Eklov et al., PACT 2012), and beside a compute loop, which
//! holds no cache (what another busy core costs it whatever it runs: design note
//! 67). Progress is wall time over the
//! job's fixed work. The [`Record`] these runs give is what the fit
//! (`cosched_lab::characterise`) turns into a workload file; it is written
//! out so a fit can be redone, and tested, without the host.

use crate::mix::{Mix, MixJob};
use crate::probing::{probe_contexts, ProbeError};
use crate::reported;
use crate::runtime::{self, RunConfig};
use cosched_core::progress::Reporter;
use cosched_machine::pirate_sweep::next_pirate;

pub use cosched_machine::characterised::{CoRun, JobRecord, Record, Series};

pub use cosched_core::stats::median;

mod time;
use time::stopped;
pub use time::{TimeBound, Until, RUN_COST_S, WARMUP_S};

/// `cmd` started after [`WARMUP_S`] (the waiting is subtracted from its
/// turnaround); its program resolved as the runtime resolves it (`cosched-bench` beside
/// `cosched`, or `cosched bench`), since the shell only searches `PATH`.
pub fn delayed(cmd: &[String]) -> Vec<String> {
    let mut v = vec!["sh".to_string(), "-c".into(), format!("sleep {WARMUP_S}; exec \"$0\" \"$@\"")];
    if let Some((prog, args)) = cmd.split_first() {
        match crate::mix::resolve_command(prog) {
            Some((p, pre)) => {
                v.push(p.display().to_string());
                v.extend(pre);
            }
            None => v.push(prog.clone()),
        }
        v.extend(args.iter().cloned());
    }
    v
}

/// Longest a co-runner is asked to run, s.
pub const MAX_CORUN_S: f64 = 3600.0;

/// The co-runner's wall time for a job whose solo turnaround is `solo_s`:
/// long enough to cover a slowdown of 10 (the run ends with the job, so a
/// long co-runner costs nothing: `RunConfig::end_with`).
pub fn corun_seconds(solo_s: f64) -> f64 {
    (10.0 * solo_s + 1.0 + WARMUP_S).ceil().min(MAX_CORUN_S)
}

/// A `cosched-bench` co-runner job: a pointer chase over `mb` MiB, or a
/// stream over `mb` MiB paced to `gbs` GB/s.
pub fn corunner(kind: &str, mb: f64, gbs: Option<f64>, seconds: f64) -> MixJob {
    let mut cmd = vec!["cosched-bench".to_string(), kind.to_string(), "--wss-mb".into(), format!("{mb}")];
    if let Some(g) = gbs {
        cmd.extend(["--gbs".to_string(), format!("{g}")]);
    }
    cmd.extend(["--seconds".to_string(), format!("{seconds}")]);
    MixJob {
        name: format!("{kind}-corunner"),
        cmd,
        count: 1,
        cwd: None,
        env: Default::default(),
        solo_s: None,
        profile: None,
    }
}

/// A `cosched-bench compute` co-runner (an integer mix with no memory traffic) for `seconds`:
/// the presence co-run's, which holds no cache (design note 67).
pub fn compute_loop(seconds: f64) -> MixJob {
    let cmd = ["cosched-bench", "compute", "--seconds"].map(String::from).into_iter().chain([format!("{seconds}")]);
    MixJob { name: "compute-corunner".into(), cmd: cmd.collect(), ..corunner("compute", 0.0, None, seconds) }
}

/// A directory removed when dropped (the measured job's stdout, on every way out of `measure`).
struct Removed(std::path::PathBuf);

impl Drop for Removed {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What a co-run runs beside.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Beside {
    /// A cache pirate (a pointer chase of known working set).
    Pirate,
    /// A bandwidth bandit (a stream paced to a known rate).
    Bandit,
    /// A compute loop, which holds no cache: the presence co-run (design note 67).
    Compute,
}

/// One co-run's runs so far: what it is beside, its size (MiB, GB/s, 0 for the compute loop), each
/// turnaround, whether the co-runner covered every one, and each run's own progress reports.
type CoRuns = (Beside, f64, Vec<f64>, bool, Vec<Series>);

/// A job's record from its runs so far: medians, the solo spread, every run kept (with its
/// progress reports where every run of that kind has some).
fn record_of(job: &MixJob, solo: &[(f64, Series)], co: &[CoRuns]) -> JobRecord {
    let times: Vec<f64> = solo.iter().map(|r| r.0).collect();
    let solo_s = median(&times);
    let spread = times.iter().cloned().fold(f64::MIN, f64::max) / times.iter().cloned().fold(f64::MAX, f64::min) - 1.0;
    let kept = |v: Vec<Series>| if v.iter().all(|s| s.len() >= 2) { v } else { vec![] };
    let run = |(_, size, t, covered, p): &CoRuns| CoRun {
        size: *size,
        slowdown: median(t) / solo_s,
        covered: *covered,
        runs: t.clone(),
        progress: kept(p.clone()),
    };
    JobRecord {
        name: job.name.clone(),
        cmd: job.cmd.clone(),
        solo_s,
        solo_spread: spread,
        pirates: co.iter().filter(|c| c.0 == Beside::Pirate).map(run).collect(),
        bandits: co.iter().filter(|c| c.0 == Beside::Bandit).map(run).collect(),
        solo_runs: times,
        solo_progress: kept(solo.iter().map(|r| r.1.clone()).collect()),
        presence: co.iter().find(|c| c.0 == Beside::Compute).map(run),
    }
}

/// The co-runners of a characterisation: the fixed pirate sweep (MiB), the bandits (GB/s, each a
/// stream over `stream_mb` MiB), and how many pirates the adaptive sweep may add to each job
/// (`cosched_machine::pirate_sweep`).
#[derive(Clone, Debug, PartialEq)]
pub struct Sweep {
    /// The fixed sweep's pirate working sets, MiB.
    pub pirate_mb: Vec<f64>,
    /// The bandits' rates, GB/s.
    pub bandit_gbs: Vec<f64>,
    /// The bandits' stream, MiB.
    pub stream_mb: f64,
    /// Most pirates added where the job's response bends (0: the fixed sweep only).
    pub added: u32,
    /// Whether each round also runs the job beside a compute loop, which holds no cache (the
    /// presence co-run, design note 67).
    pub presence: bool,
}

/// Measure every job of `mix` alone and beside each co-runner of `sweep`, on two contexts of
/// different cores sharing an LLC, in rounds (one solo run and one of each co-run a round, so the
/// host's drift falls on all alike) until `until` stops them ([`Until`]; at least `repeat`); then
/// the adaptive sweep's pirates, `repeat` rounds each (a solo run and the new pirate a round),
/// while the job's response bends beyond its noise, within a budget of their own of
/// `until.budget_s`. `base` supplies the
/// freezer, watchdog and tick; progress lines go to `report`.
#[allow(clippy::too_many_arguments)]
pub fn measure(
    mix: &Mix,
    machine: &str,
    date: &str,
    repeat: u32,
    until: &Until,
    sweep: &Sweep,
    base: impl Fn(Mix, &str) -> RunConfig,
    report: &Reporter,
) -> Result<Record, ProbeError> {
    let host = crate::host::Host::live();
    let (c0, c1) = probe_contexts(&host).ok_or(ProbeError::NoSharedLlc)?;
    // The measured job's stdout goes here, for its progress reports (phases).
    let out_dir = std::env::temp_dir().join(format!("cosched-characterise-{}", std::process::id()));
    let _gone = Removed(out_dir.clone());
    // `capture`: the job's stdout is kept for its reports; else discarded, as a check's runs do (a
    // program that writes its output to stdout is not timed writing it to a file).
    let turnaround = |m: Mix, ctxs: Vec<cosched_core::CtxId>, capture: bool| -> Result<(f64, Series), ProbeError> {
        let mut cfg = base(m, "static");
        cfg.opts.assignment = Some(ctxs);
        // The co-runner needs only cover the job measured.
        cfg.end_with = Some(0);
        if capture {
            cfg.output_dir = Some(out_dir.clone());
        }
        let r = runtime::run(cfg)?.completed()?;
        let j = &r.jobs[0];
        let series = if capture { reported::series_in(&out_dir.join(format!("{}.out", j.name))) } else { vec![] };
        let t = j.turnaround_s.ok_or_else(|| ProbeError::Job { job: j.name.clone(), error: j.error.clone() })?;
        Ok((t, series))
    };
    let repeat = repeat.max(1);
    let coruns = sweep.pirate_mb.len() + sweep.bandit_gbs.len() + usize::from(sweep.presence);
    let bound = TimeBound::of(coruns as u32, sweep.added, repeat, until);
    report.line(|| format!("characterise: {}", bound.words()));
    let mut jobs = vec![];
    for (k, job) in mix.jobs.iter().enumerate() {
        let alone = mix.only(&[k]);
        let t0 = std::time::Instant::now();
        let mut solo = vec![];
        let mut co: Vec<CoRuns> = sweep
            .pirate_mb
            .iter()
            .map(|&mb| (Beside::Pirate, mb, vec![], true, vec![]))
            .chain(sweep.bandit_gbs.iter().map(|&g| (Beside::Bandit, g, vec![], true, vec![])))
            .chain(sweep.presence.then_some((Beside::Compute, 0.0, vec![], true, vec![])))
            .collect();
        // One solo run, then one run beside each co-runner of `co` (round `round`).
        let round = |solo: &mut Vec<(f64, Series)>, co: &mut [CoRuns], round: u32| -> Result<(), ProbeError> {
            report.line(|| format!("characterise: {} alone (round {round})", job.name));
            // The first solo run's stdout is kept, to see whether the job reports its progress; the
            // other runs' only if it does.
            let capture = solo.first().is_none_or(|r: &(f64, Series)| !r.1.is_empty());
            solo.push(turnaround(alone.clone(), vec![c0], capture)?);
            let capture = !solo[0].1.is_empty();
            let seconds = corun_seconds(solo.iter().map(|r| r.0).fold(0.0, f64::max));
            for (beside, size, t, covered, series) in co.iter_mut() {
                let (what, co_job) = match beside {
                    Beside::Pirate => (format!("a {size} MiB pirate"), corunner("pointer-chase", *size, None, seconds)),
                    Beside::Bandit => {
                        (format!("a {size} GB/s bandit"), corunner("stream", sweep.stream_mb, Some(*size), seconds))
                    }
                    Beside::Compute => ("a compute loop".to_string(), compute_loop(seconds)),
                };
                report.line(|| format!("characterise: {} beside {what} (round {round})", job.name));
                let mut m = alone.clone();
                m.jobs[0].cmd = delayed(&job.cmd);
                m.jobs.push(co_job);
                let (took, s) = turnaround(m, vec![c0, c1], capture)?;
                t.push(took - WARMUP_S);
                series.push(s);
                *covered &= took <= 0.95 * seconds;
            }
            Ok(())
        };
        let mut rounds = 0;
        let why = loop {
            rounds += 1;
            round(&mut solo, &mut co, rounds)?;
            let rec = record_of(job, &solo, &co);
            if rounds == 1 {
                let most = bound.job_s(rec.solo_s);
                report.line(|| {
                    format!(
                        "characterise: {}: at most about {most:.0} s in all ({:.3} s alone; longer by its slowdown \
                         beside a co-runner)",
                        job.name, rec.solo_s
                    )
                });
            }
            if let Some(why) = stopped(&rec, rounds, repeat, until, t0.elapsed().as_secs_f64()) {
                break why;
            }
        };
        report.line(|| format!("characterise: {}: {why}", job.name));
        // The adaptive sweep: a pirate where the response bends most, `repeat` rounds each, within
        // a budget of its own (a noisy job's rounds spend theirs, and its response is the one that
        // most needs more points).
        let t1 = std::time::Instant::now();
        for _ in 0..sweep.added {
            let spent = t1.elapsed().as_secs_f64();
            if spent >= until.budget_s {
                report.line(|| {
                    format!("characterise: {}: no pirate added: the sweep's budget is spent ({spent:.0} s)", job.name)
                });
                break;
            }
            let Some(size) = next_pirate(&record_of(job, &solo, &co)) else {
                report.line(|| format!("characterise: {}: no pirate added: no change of its slowdown between neighbouring pirates is beyond its noise", job.name));
                break;
            };
            report.line(|| {
                format!("characterise: {}: a {size} MiB pirate added, where its slowdown changes most", job.name)
            });
            let mut new = [(Beside::Pirate, size, vec![], true, vec![])];
            for r in 1..=repeat {
                round(&mut solo, &mut new, r)?;
            }
            co.extend(new);
        }
        jobs.push(record_of(job, &solo, &co));
    }
    Ok(Record { machine: machine.into(), date: date.into(), jobs })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corunners_are_bench_commands_that_outlast_the_job() {
        let p = corunner("pointer-chase", 4.0, None, corun_seconds(2.5));
        assert_eq!(p.cmd, ["cosched-bench", "pointer-chase", "--wss-mb", "4", "--seconds", "27"]);
        // A program not found stays as written (the run then refuses it, naming the job).
        assert_eq!(delayed(&["no-such-program-x".to_string(), "-9".into()])[3..], ["no-such-program-x", "-9"]);
        assert_eq!(delayed(&["/bin/sh".to_string()])[3..], ["/bin/sh"]);
        let b = corunner("stream", 64.0, Some(9.5), 3.0);
        assert_eq!(b.cmd, ["cosched-bench", "stream", "--wss-mb", "64", "--gbs", "9.5", "--seconds", "3"]);
        assert_eq!(corun_seconds(1e6), MAX_CORUN_S);
        assert_eq!(compute_loop(3.0).cmd, ["cosched-bench", "compute", "--seconds", "3"]);
    }

    #[test]
    fn rounds_stop_when_precise_at_the_most_rounds_or_at_the_budget() {
        let job = MixJob { name: "j".into(), cmd: vec!["x".into()], ..corunner("compute", 1.0, None, 1.0) };
        let co = |t: Vec<f64>| vec![(Beside::Pirate, 4.0, t, true, vec![])];
        let solo = |t: &[f64]| t.iter().map(|&x| (x, vec![])).collect::<Vec<_>>();
        let until = Until { within: 0.05, max_rounds: 5, budget_s: 100.0 };
        // Fewer than `repeat` rounds: never.
        let tight = record_of(&job, &solo(&[1.0, 1.0, 1.0]), &co(vec![1.2, 1.2, 1.2]));
        assert_eq!(stopped(&tight, 2, 3, &until, 0.0), None);
        assert!(stopped(&tight, 3, 3, &until, 0.0).unwrap().contains("within ±5%"));
        // Wide: on to the most rounds or the budget, whichever first.
        let wide = record_of(&job, &solo(&[1.0, 1.5]), &co(vec![1.2, 2.4]));
        assert_eq!(stopped(&wide, 2, 2, &until, 0.0), None);
        assert!(stopped(&wide, 5, 2, &until, 0.0).unwrap().contains("the most asked"));
        assert!(stopped(&wide, 2, 2, &until, 100.0).unwrap().contains("the budget"));
        // No goal: exactly `repeat`.
        let exact = Until { within: 0.0, ..until };
        assert!(stopped(&wide, 2, 2, &exact, 0.0).unwrap().contains("as asked"));
        // The record keeps each run, its medians and spread.
        assert_eq!((wide.solo_runs.len(), wide.pirates[0].runs.len()), (2, 2));
        assert!((wide.solo_s - 1.25).abs() < 1e-12 && (wide.solo_spread - 0.5).abs() < 1e-12);
        assert!((wide.pirates[0].slowdown - 1.8 / 1.25).abs() < 1e-12);
    }

    #[test]
    fn the_compute_loop_runs_are_the_records_presence_and_count_in_its_precision() {
        let job = MixJob { name: "j".into(), cmd: vec!["x".into()], ..corunner("compute", 1.0, None, 1.0) };
        let solo = [(1.0, vec![]), (1.0, vec![])];
        let pirate = (Beside::Pirate, 4.0, vec![1.2, 1.2], true, vec![]);
        // A tight pirate and a tight compute loop: precise; the compute loop's median over alone
        // is the presence slowdown, size 0, and it is neither a pirate nor a bandit.
        let tight = record_of(&job, &solo, &[pirate.clone(), (Beside::Compute, 0.0, vec![1.5, 1.5], true, vec![])]);
        assert_eq!((tight.pirates.len(), tight.bandits.len()), (1, 0));
        let p = tight.presence.as_ref().expect("presence");
        assert!((p.slowdown - 1.5).abs() < 1e-12 && p.size == 0.0 && p.runs.len() == 2);
        assert!(tight.precise(0.05));
        // A wide compute loop keeps the rounds going as a wide pirate would.
        let wide = record_of(&job, &solo, &[pirate.clone(), (Beside::Compute, 0.0, vec![1.0, 2.0], true, vec![])]);
        assert!(!wide.precise(0.05));
        let until = Until { within: 0.05, max_rounds: 5, budget_s: 100.0 };
        assert_eq!(stopped(&wide, 2, 2, &until, 0.0), None);
        // Without one (the default, no `--presence`): none.
        assert!(record_of(&job, &solo, &[pirate]).presence.is_none());
    }

    #[test]
    fn a_record_round_trips_and_refuses_unknown_fields() {
        let r = Record {
            machine: "m".into(),
            date: "d".into(),
            jobs: vec![JobRecord {
                name: "x".into(),
                cmd: vec!["xz".into()],
                solo_s: 1.5,
                solo_spread: 0.01,
                pirates: vec![CoRun {
                    size: 4.0,
                    slowdown: 1.2,
                    covered: true,
                    runs: vec![1.8, 1.9],
                    progress: vec![],
                }],
                bandits: vec![],
                solo_runs: vec![1.5, 1.52],
                solo_progress: vec![],
                presence: None,
            }],
        };
        let text = serde_json::to_string(&r).unwrap();
        assert_eq!(serde_json::from_str::<Record>(&text).unwrap(), r);
        assert!(serde_json::from_str::<Record>(&text.replace("\"date\"", "\"dat\"")).is_err());
    }
}
