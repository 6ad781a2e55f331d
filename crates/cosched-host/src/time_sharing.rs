//! Time-sharing measured per job beside the simulator's figures
//! (the refill a job pays after each switch is measured on the host before it
//! is modelled). For every cell of a check: the job's CPU time over that
//! round's solo CPU time (1 when time-sharing and contention cost it nothing:
//! what contention and refills add to its work shows here, what waiting for
//! a CPU adds does not), its context switches and its migrations, each as a
//! mean and 95% interval over the rounds, and the simulator's prediction of
//! the same three ([`cosched_lab::job_sched`]).

use crate::rounds::Interleaved;
use cosched_core::stats::{mean_ci, MeanCi};
use cosched_lab::job_sched::JobSched;
use serde::Serialize;

cosched_core::metric_fields! {
    /// One job under one policy: what the kernel counted, and what the simulator predicts.
    #[derive(Clone, Debug, Serialize)]
    pub struct TimeSharing {
        /// CPU time (`wait4` rusage) over the same round's solo CPU time: mean and 95% interval over rounds.
        pub cpu_ratio: MeanCi,
        /// Context switches per instance, voluntary and involuntary (a freezer's stop is a voluntary one).
        pub switches: MeanCi,
        /// Of those, the ones the kernel imposed (a slice ended, a task preempted it).
        pub involuntary: MeanCi,
        /// Moves of the job's leader thread to another CPU; none where the kernel has no `/proc/PID/sched`.
        pub migrations: Option<MeanCi>,
        /// The simulator's figures for the same cell (means over the rounds' seeds).
        pub predicted: JobSched,
    }
}

/// The cell of entry `entry` (index into `real.policies`) and mix job `job`
/// (index `j` into the rounds' solo runs) beside `predicted`; none when a
/// round lacks the job's CPU time or switch counts.
pub fn measure(real: &Interleaved, entry: usize, job: &str, j: usize, predicted: JobSched) -> Option<TimeSharing> {
    let mut cpu = vec![];
    let mut switches = vec![];
    let mut involuntary = vec![];
    let mut migrations = vec![];
    for (round, runs) in real.round.iter().zip(&real.runs) {
        let run = runs.get(entry)?;
        let solo_cpu = round.solo_cpu_s.get(j).copied().filter(|&s| s > 0.0)?;
        cpu.push(run.mean_of(job, |x| Some(x.cpu_s / solo_cpu))?);
        switches.push(run.mean_of(job, |x| Some((x.voluntary_switches? + x.involuntary_switches?) as f64))?);
        involuntary.push(run.mean_of(job, |x| x.involuntary_switches.map(|n| n as f64))?);
        migrations.extend(run.mean_of(job, |x| x.migrations.map(|n| n as f64)));
    }
    if cpu.is_empty() {
        return None;
    }
    Some(TimeSharing {
        cpu_ratio: mean_ci(&cpu),
        switches: mean_ci(&switches),
        involuntary: mean_ci(&involuntary),
        migrations: (migrations.len() == cpu.len()).then(|| mean_ci(&migrations)),
        predicted,
    })
}

/// The check's time-sharing table in text: one line per cell that has the figures.
pub fn lines(cells: &[(String, String, &TimeSharing)]) -> Vec<String> {
    let mut out = vec!["time-sharing per job: CPU time over solo CPU time, switches and migrations per run; \
         measured mean [95% interval] over the rounds → simulated"
        .to_string()];
    let ci = |m: &MeanCi, digits: usize| format!("{:.digits$} [{:.digits$}, {:.digits$}]", m.mean, m.lo, m.hi);
    for (policy, job, t) in cells {
        let migrations = t.migrations.as_ref().map_or("unmeasured (no /proc/PID/sched)".to_string(), |m| ci(m, 0));
        out.push(format!(
            "  {policy:<18} {job:<24} cpu {} → {:.3}; switches {} ({} involuntary) → {:.0}; migrations {} → {:.0}",
            ci(&t.cpu_ratio, 3),
            t.predicted.cpu_ratio,
            ci(&t.switches, 0),
            ci(&t.involuntary, 0),
            t.predicted.switches,
            migrations,
            t.predicted.migrations
        ));
    }
    out
}
