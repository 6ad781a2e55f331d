//! Characterising any command without a PMU (`cosched characterise`):
//! each job of a mix runs alone, then beside a cache *pirate*
//! (a `cosched-bench` pointer chase of known working set on another core
//! sharing the LLC: Cache Pirating, Eklov et al., ICPP 2011) and beside a
//! bandwidth *bandit* (a `cosched-bench` stream paced to a known rate:
//! Bandwidth Bandit, Eklov et al., PACT 2012). Progress is wall time over the
//! job's fixed work. The [`Record`] these runs give is what the fit
//! (`cosched_lab::characterise`) turns into a workload file; it is written
//! out so a fit can be redone, and tested, without the host.

use crate::mix::{Mix, MixJob};
use crate::probing::{probe_contexts, ProbeError};
use crate::runtime::{self, RunConfig};
use cosched_core::progress::Reporter;

pub use cosched_machine::characterised::{CoRun, JobRecord, Record};

/// The median of `v` (the mean of the middle two for an even count).
pub fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n == 0 {
        f64::NAN
    } else if n % 2 == 1 {
        s[n / 2]
    } else {
        0.5 * (s[n / 2 - 1] + s[n / 2])
    }
}

/// How long a job waits, beside a co-runner, before it starts: the
/// co-runner builds its working set first (a 32 MiB chase shuffles 4 M
/// pointers), and a job that started with it would run its first part alone.
pub const WARMUP_S: f64 = 0.5;

/// `cmd` started after [`WARMUP_S`] (the waiting is subtracted from its
/// turnaround); its program resolved as the runtime resolves it (`cosched-bench`
/// beside `cosched`), since the shell only searches `PATH`.
pub fn delayed(cmd: &[String]) -> Vec<String> {
    let mut v = vec!["sh".to_string(), "-c".into(), format!("sleep {WARMUP_S}; exec \"$0\" \"$@\"")];
    if let Some((prog, args)) = cmd.split_first() {
        let resolved = crate::mix::resolve_program(prog).map_or(prog.clone(), |p| p.display().to_string());
        v.push(resolved);
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

/// Measure every job of `mix` alone and beside each pirate (each `repeat` times)
/// of `pirate_mb` MiB and each bandit of `bandit_gbs` GB/s (a stream over
/// `stream_mb` MiB), on two contexts of different cores sharing an LLC.
/// `base` supplies the freezer, watchdog and tick; progress lines go to `report`.
#[allow(clippy::too_many_arguments)]
pub fn measure(
    mix: &Mix,
    machine: &str,
    date: &str,
    repeat: u32,
    pirate_mb: &[f64],
    bandit_gbs: &[f64],
    stream_mb: f64,
    base: impl Fn(Mix, &str) -> RunConfig,
    report: &Reporter,
) -> Result<Record, ProbeError> {
    let host = crate::host::Host::live();
    let (c0, c1) = probe_contexts(&host).ok_or(ProbeError::NoSharedLlc)?;
    let turnaround = |m: Mix, ctxs: Vec<cosched_core::CtxId>| -> Result<f64, ProbeError> {
        let mut cfg = base(m, "static");
        cfg.opts.assignment = Some(ctxs);
        // The co-runner needs only cover the job measured.
        cfg.end_with = Some(0);
        let r = runtime::run(cfg)?.completed()?;
        let j = &r.jobs[0];
        j.turnaround_s.ok_or_else(|| ProbeError::Job { job: j.name.clone(), error: j.error.clone() })
    };
    let mut jobs = vec![];
    for (k, job) in mix.jobs.iter().enumerate() {
        let alone = mix.only(&[k]);
        let mut solo = vec![];
        for r in 0..repeat.max(1) {
            report.line(|| format!("characterise: {} alone ({}/{})", job.name, r + 1, repeat.max(1)));
            solo.push(turnaround(alone.clone(), vec![c0])?);
        }
        let solo_s = median(&solo);
        let spread =
            solo.iter().cloned().fold(f64::MIN, f64::max) / solo.iter().cloned().fold(f64::MAX, f64::min) - 1.0;
        let seconds = corun_seconds(solo_s);
        // Each co-run `repeat` times; its median turnaround over the median solo one.
        let beside = |what: &str, co: MixJob| -> Result<CoRun, ProbeError> {
            let mut m = alone.clone();
            m.jobs[0].cmd = delayed(&job.cmd);
            m.jobs.push(co);
            let mut t = vec![];
            for r in 0..repeat.max(1) {
                report.line(|| format!("characterise: {} beside {what} ({}/{})", job.name, r + 1, repeat.max(1)));
                t.push(turnaround(m.clone(), vec![c0, c1])? - WARMUP_S);
            }
            let t = median(&t);
            Ok(CoRun { size: 0.0, slowdown: t / solo_s, covered: t + WARMUP_S <= 0.95 * seconds })
        };
        let mut pirates = vec![];
        for &mb in pirate_mb {
            let c = beside(&format!("a {mb} MiB pirate"), corunner("pointer-chase", mb, None, seconds))?;
            pirates.push(CoRun { size: mb, ..c });
        }
        let mut bandits = vec![];
        for &g in bandit_gbs {
            let c = beside(&format!("a {g} GB/s bandit"), corunner("stream", stream_mb, Some(g), seconds))?;
            bandits.push(CoRun { size: g, ..c });
        }
        jobs.push(JobRecord {
            name: job.name.clone(),
            cmd: job.cmd.clone(),
            solo_s,
            solo_spread: spread,
            pirates,
            bandits,
        });
    }
    Ok(Record { machine: machine.into(), date: date.into(), jobs })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_of_odd_and_even_counts() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&[]).is_nan());
    }

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
                pirates: vec![CoRun { size: 4.0, slowdown: 1.2, covered: true }],
                bandits: vec![],
            }],
        };
        let text = serde_json::to_string(&r).unwrap();
        assert_eq!(serde_json::from_str::<Record>(&text).unwrap(), r);
        assert!(serde_json::from_str::<Record>(&text.replace("\"date\"", "\"dat\"")).is_err());
    }
}
