//! The report of a real run: each instance's turnaround, slowdown, CPU time
//! and exit, the shared metrics, and where each metric comes from
//! (measured, modelled or unavailable, and why).

use super::config::{RealJob, RealReport, RunConfig};
use super::error::RuntimeError;
use super::state::Runtime;
use crate::sys;
use cosched_core::metrics::{aggregate, JobOutcome};
use std::collections::BTreeMap;

/// What the event loop leaves for the report.
pub(super) struct RunRecord {
    /// Launched instances (index, name), in launch order.
    pub(super) launched: Vec<(usize, String)>,
    /// Instances that could not be launched.
    pub(super) failures: Vec<RealJob>,
    /// Wall time of the run, s.
    pub(super) wall_s: f64,
    /// CPU time of the scheduler over the run, s.
    pub(super) scheduler_cpu_s: f64,
    /// How the run was cut short, if it was.
    pub(super) stop: Option<super::stop::StopRecord>,
    /// Provenance of the energy figures.
    pub(super) energy_provenance: String,
    /// Provenance of the policy's counters, when it needs counters.
    pub(super) counters_provenance: Option<String>,
    /// The machine description's line ([`Description::line`](crate::describe::Description::line)).
    pub(super) description: String,
}

impl Runtime {
    /// One report row per launched instance.
    fn job_rows(&self, cfg: &RunConfig, launched: &[(usize, String)]) -> Vec<RealJob> {
        launched
            .iter()
            .map(|(e, name)| {
                let inst = &self.instances[*e];
                let turnaround = inst.end.map(|t| t.duration_since(inst.start).as_secs_f64());
                let solo = cfg.solo[inst.mix_job];
                RealJob {
                    name: name.clone(),
                    turnaround_s: turnaround,
                    solo_s: solo,
                    slowdown: turnaround.zip(solo).map(|(t, s)| t / s),
                    cpu_s: inst.cpu_s,
                    voluntary_switches: inst.reaped.map(|r| r.voluntary),
                    involuntary_switches: inst.reaped.map(|r| r.involuntary),
                    migrations: inst.reaped.and_then(|r| r.migrations),
                    exit_code: inst.exit_code,
                    error: None,
                }
            })
            .collect()
    }

    /// Where each metric comes from.
    fn provenance(&self, cfg: &RunConfig, rec: RunRecord) -> BTreeMap<String, String> {
        let mut provenance = BTreeMap::new();
        provenance.insert(
            "turnaround, makespan".into(),
            match &rec.stop {
                None => "measured (wall clock, launch to last process of the tree gone)".into(),
                Some(s) => format!(
                    "measured; the run {}, so makespan is the wall time until the stop and a job still running then \
                     has no turnaround",
                    s.reason
                ),
            },
        );
        provenance.insert(
            "slowdown, unfairness, stp, antt".into(),
            if cfg.solo.iter().all(Option::is_some) {
                "measured turnaround over solo turnaround (solo measured with --solo, or declared solo_s)".into()
            } else {
                "unavailable (solo turnaround neither measured (--solo) nor declared (solo_s) for every job)".into()
            },
        );
        provenance.insert("energy".into(), rec.energy_provenance);
        provenance.insert("machine description".into(), rec.description);
        provenance
            .insert("instructions, throughput".into(), "unavailable (the runtime reads no instruction counter)".into());
        if let Some(src) = rec.counters_provenance {
            let mux = self.counters.as_ref().map(|c| c.borrow().multiplexed()).unwrap_or(0);
            let text = if mux > 0 { format!("{src}; {mux} readings multiplexed (scaled)") } else { src };
            provenance.insert("policy counters".into(), text);
        }
        if let Some(why) = &cfg.untrusted_fits {
            provenance.insert(
                "untrusted fits".into(),
                format!("the policy's predicted pair slowdowns rest on characterisations not to be trusted on this host: {why}"),
            );
        }
        provenance
    }

    /// Sum up the run (the trace is finished here too).
    pub(super) fn report(&mut self, cfg: &RunConfig, mut rec: RunRecord) -> Result<RealReport, RuntimeError> {
        let mut jobs = self.job_rows(cfg, &rec.launched);
        // A co-runner ended on purpose (`RunConfig::end_with`) is not worth a warning.
        // Nor is one the stop of a cut-short run ended (its report says so).
        let ended = |name: &str, code: i32| {
            let by_stop = rec.stop.as_ref().is_some_and(|s| s.terminated.iter().any(|t| t == name));
            (code == 128 + libc::SIGTERM || code == 128 + libc::SIGKILL) && by_stop
                || code == 128 + libc::SIGTERM
                    && cfg.end_with.is_some_and(|l| !crate::mix::belongs(name, &cfg.mix.jobs[l].name))
        };
        for j in &jobs {
            if let Some(code) = j.exit_code.filter(|&c| c != 0 && !ended(&j.name, c)) {
                cfg.report.line(|| format!("warning: {} exited with status {code}", j.name));
            }
        }
        jobs.append(&mut rec.failures);
        let outcomes: Vec<JobOutcome> = jobs
            .iter()
            .filter_map(|j| {
                Some(JobOutcome {
                    name: j.name.clone(),
                    threads: 1,
                    arrival_s: 0.0,
                    turnaround_s: j.turnaround_s?,
                    solo_s: j.solo_s,
                    slowdown: j.slowdown,
                    instructions: 0.0,
                })
            })
            .collect();
        // A cut-short run's makespan is the time until the stop (its
        // provenance says so): the unfinished jobs ran at least that long.
        let makespan = match &rec.stop {
            Some(_) => rec.wall_s,
            None => outcomes.iter().map(|o| o.turnaround_s).fold(0.0, f64::max),
        };
        self.sample_energy(sys::cpu_jiffies());
        let energy = self.energy().unwrap_or_default();
        let metrics = aggregate(&outcomes, makespan, energy);
        if let Some(tr) = self.trace.take() {
            let out = tr.finish().map_err(|source| RuntimeError::File { file: "trace".into(), source })?;
            out.commit().map_err(RuntimeError::output)?;
        }
        let linux = self.policy.is_none();
        let (wall, sched_cpu, stop) = (rec.wall_s, rec.scheduler_cpu_s, rec.stop.clone());
        Ok(RealReport {
            policy: cfg.policy.clone(),
            mix: cfg.mix.name.clone().unwrap_or_else(|| "mix".into()),
            freezer: if linux { "none (kernel scheduling)".into() } else { self.control.method.label().into() },
            jobs,
            metrics,
            provenance: self.provenance(cfg, rec),
            scheduler_cpu_pct: if wall > 0.0 { 100.0 * sched_cpu / wall } else { 0.0 },
            policy_events: self.d.as_ref().map_or(0, |d| d.delivered()),
            interrupted: stop.is_some(),
            stop,
        })
    }
}
