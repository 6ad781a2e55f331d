//! What the simulator predicts of each mix job's time-sharing:
//! the CPU time it spends over its solo time, how often it is switched out,
//! how often it moves between cores: the figures a real run measures per job
//! (`wait4` rusage and `/proc/PID/sched`, `cosched_linux::reap`), predicted
//! from the engine's own count of each thread's starts and time on a context.

use cosched_machine::mix::belongs;
use cosched_sim::engine::ThreadSched;
use cosched_sim::experiment::Report;
use serde::Serialize;

cosched_core::metric_fields! {
    /// One job's time-sharing figures (means over its instances; a prediction's also over the seeds).
    #[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
    pub struct JobSched {
        /// Time on a CPU over its solo time: 1 when time-sharing cost it nothing.
        pub cpu_ratio: f64,
        /// Times it was switched out while it still had work (starts on a context
        /// another thread used since, its first start not counted).
        pub switches: f64,
        /// Starts on another core than the one it last ran on.
        pub migrations: f64,
    }
}

impl JobSched {
    /// A thread's (or a job's summed threads') figures, its solo time `solo_s`.
    pub fn of(t: &ThreadSched, solo_s: f64) -> JobSched {
        JobSched {
            cpu_ratio: t.on_cpu_ns as f64 * 1e-9 / solo_s,
            switches: t.switched_in.saturating_sub(1) as f64,
            migrations: t.migrations as f64,
        }
    }

    /// The figures of mix job `job` in `r`: the mean over its instances
    /// (each against its own solo time in `r`); none when no instance has one.
    pub fn in_report(r: &Report, job: &str) -> Option<JobSched> {
        let each: Vec<JobSched> = r
            .jobs
            .iter()
            .zip(&r.sched)
            .filter(|(j, _)| belongs(&j.name, job))
            .filter_map(|(j, s)| Some(JobSched::of(s, j.solo_s?)))
            .collect();
        JobSched::mean(&each)
    }

    /// The mean of `xs` field by field (none for none).
    pub fn mean(xs: &[JobSched]) -> Option<JobSched> {
        if xs.is_empty() {
            return None;
        }
        let n = xs.len() as f64;
        let sum = |f: fn(&JobSched) -> f64| xs.iter().map(f).sum::<f64>() / n;
        Some(JobSched {
            cpu_ratio: sum(|x| x.cpu_ratio),
            switches: sum(|x| x.switches),
            migrations: sum(|x| x.migrations),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_threads_figures_are_read_against_its_solo_time() {
        let t = ThreadSched { on_cpu_ns: 3_000_000_000, switched_in: 11, migrations: 2 };
        let s = JobSched::of(&t, 2.0);
        assert_eq!(s, JobSched { cpu_ratio: 1.5, switches: 10.0, migrations: 2.0 });
        // A thread that never ran was never switched out.
        assert_eq!(JobSched::of(&ThreadSched::default(), 1.0).switches, 0.0);
        let m = JobSched::mean(&[s, JobSched { cpu_ratio: 0.5, switches: 0.0, migrations: 0.0 }]);
        assert_eq!(m, Some(JobSched { cpu_ratio: 1.0, switches: 5.0, migrations: 1.0 }));
        assert_eq!(JobSched::mean(&[]), None);
    }
}
