//! Each paper's regime (the setting its figures were measured in) and a
//! comparison's place in it: which policies of a comparison run outside their
//! paper's regime, why, and, where the workload can be brought into it, what
//! that costs, measured on the same machine, mix and seeds
//! (docs/index.md, "Regimes").

use super::summary::PolicySummary;
use super::what::{Comparing, Steps};
use crate::error::RunError;
use crate::spec::Resolved;
use cosched_core::stats::{mean_ci, MeanCi};
use cosched_machine::MachineSpec;
use cosched_sim::experiment::Report;
use cosched_sim::spec::workload::JobSpec;
use cosched_sim::{Plan, WorkloadSpec};
use serde::Serialize;

/// Perf&Fair §2: each process's work is what it executes "during 100 seconds in standalone execution".
pub const PERF_FAIR_SOLO_S: f64 = 100.0;
/// The policies built on Perf&Fair's progress accounting and quanta (Perf&Fair §3-§5).
pub const PERF_FAIR_FAMILY: [&str; 4] = ["perf-fair", "perf", "fair", "perf-fair-oracle"];
/// The policies that gate declared progress periods (RDA §3).
pub const RDA_FAMILY: [&str; 2] = ["rda-strict", "rda-compromise"];

cosched_core::metric_fields! {
    /// One policy's unfairness minus the baseline's, paired by seed, on the
    /// workload as given and on it brought into the paper's regime.
    #[derive(Serialize)]
    pub struct PairedUnfairness {
        /// The policy.
        pub policy: String,
        /// On the workload as given: the policy's unfairness minus the baseline's, per seed.
        pub here: MeanCi,
        /// On the workload in the paper's regime, same seeds.
        pub in_regime: MeanCi,
    }
}

cosched_core::metric_fields! {
    /// The comparison rerun with every job stretched to the paper's length
    /// alone (Perf&Fair §2), same machine, mix, knobs and seeds.
    #[derive(Serialize)]
    pub struct RegimeRun {
        /// Seconds alone each job was stretched to.
        pub solo_s: f64,
        /// The family's policies and the baseline there, as the comparison's rows.
        pub policies: Vec<PolicySummary>,
        /// Unfairness against the baseline's, paired by seed, here and there.
        pub paired: Vec<PairedUnfairness>,
    }
}

cosched_core::metric_fields! {
    /// Policies of a comparison that run outside their paper's regime.
    #[derive(Serialize)]
    pub struct RegimeNote {
        /// The policies (those of the family in the comparison).
        pub policies: Vec<String>,
        /// The paper and its sections.
        pub paper: String,
        /// The paper's regime, in words.
        pub regime: String,
        /// Why this comparison is outside it, measured.
        pub here: String,
        /// The family in its regime on this machine and mix, where stretching the jobs brings it there.
        pub in_regime: Option<RegimeRun>,
        /// Where the paper's own evaluation is rerun, and its result file.
        pub paper_figures: String,
    }
}

/// `w` with every job's work scaled to `solo_s` seconds alone on `m` (its
/// whole-run solo IPC, as `cosched paper perf-fair` builds its mixes).
pub fn stretched(m: &MachineSpec, w: &WorkloadSpec, solo_s: f64) -> Result<WorkloadSpec, RunError> {
    let mut out = w.clone();
    for job in &mut out.jobs {
        let mut one = w.clone();
        one.jobs = vec![JobSpec { instances: 1, ..job.clone() }];
        let p = Plan::new(&one, m, None, 1, &w.name).map_err(RunError::from)?;
        let (ipc, _) = p.solo_rates(0);
        job.scale_work(ipc * m.freq_ghz * 1e9 * solo_s / p.job_instructions(0));
    }
    Ok(out)
}

/// Each job's solo seconds over every run of `runs` (its smallest and largest).
fn solo_range(runs: &[Report]) -> Option<(f64, f64)> {
    let s: Vec<f64> = runs.iter().flat_map(|r| r.jobs.iter().filter_map(|j| j.solo_s)).collect();
    (!s.is_empty()).then(|| (s.iter().copied().fold(f64::MAX, f64::min), s.iter().copied().fold(0.0, f64::max)))
}

/// Per seed, `policy`'s unfairness minus the baseline's, in `runs` (seed-major over `names`).
fn paired(runs: &[Report], names: &[String], policy: &str, baseline: &str) -> Option<MeanCi> {
    let (p, b) = (names.iter().position(|n| n == policy)?, names.iter().position(|n| n == baseline)?);
    let d: Option<Vec<f64>> = runs
        .chunks(names.len())
        .map(|seed| Some(seed[p].metrics.run.unfairness? - seed[b].metrics.run.unfairness?))
        .collect();
    d.map(|d| mean_ci(&d))
}

/// A comparison rerun in a paper's regime: its runs (seed-major) and its policies' summaries.
/// Given to [`notes`] by the comparison itself, which the notes are part of (so this module uses
/// the comparison's settings and never the comparison).
pub(super) type Rerun<'a> =
    &'a dyn Fn(&Resolved, &Comparing, &Steps) -> Result<(Vec<Report>, Vec<PolicySummary>), RunError>;

/// The regime notes of a comparison of `names` (seed-major `runs`) on `resolved`; `rerun` runs a
/// comparison in the regime.
pub(super) fn notes(
    resolved: &Resolved,
    what: &Comparing,
    names: &[String],
    runs: &[Report],
    steps: &Steps,
    rerun: Rerun,
) -> Result<Vec<RegimeNote>, RunError> {
    let among = |family: &[&str]| -> Vec<String> {
        names.iter().filter(|n| family.contains(&n.as_str()) && n.as_str() != what.baseline).cloned().collect()
    };
    let mut out = vec![];
    let pf = among(&PERF_FAIR_FAMILY);
    if !pf.is_empty() {
        out.extend(perf_fair_note(resolved, what, names, runs, (steps, rerun), pf)?);
    }
    let rda = among(&RDA_FAMILY);
    let declared = resolved
        .workload
        .jobs
        .iter()
        .flat_map(|j| j.phases.iter().chain(j.classes.iter().flat_map(|c| c.phases.iter())))
        .any(|p| p.pp.is_some());
    if !rda.is_empty() && !declared {
        out.push(RegimeNote {
            policies: rda,
            paper: "RDA §2.2, §3".into(),
            regime: "programs that declare their progress periods (pp_begin/pp_end: resource, size, reuse)".into(),
            here: "no job declares one, so RDA admits every thread and schedules as the Linux model".into(),
            in_regime: None,
            paper_figures: "`cosched paper rda` (docs/results/rda/)".into(),
        });
    }
    Ok(out)
}

/// Perf&Fair's family `pf` outside its regime: multi-threaded jobs, or jobs shorter than the
/// paper's alone, which are then rerun stretched with the baseline (a baseline given as code
/// included), reporting to `steps` like the comparison's own runs. A rerun the run's budgets
/// refuse (`--max-sim-time-s`, `--max-events`) is left out, the note saying why.
fn perf_fair_note(
    resolved: &Resolved,
    what: &Comparing,
    names: &[String],
    runs: &[Report],
    (steps, rerun): (&Steps, Rerun),
    pf: Vec<String>,
) -> Result<Option<RegimeNote>, RunError> {
    let w = &resolved.workload;
    let note = |policies: Vec<String>, here: String, in_regime: Option<RegimeRun>| RegimeNote {
        policies,
        paper: "Perf&Fair §2, §6".into(),
        regime: format!("single-threaded processes of {PERF_FAIR_SOLO_S:.0} s alone each, 500 of its 200-ms quanta"),
        here,
        in_regime,
        paper_figures: "`cosched paper perf-fair` (docs/results/perf-fair/: job-length.csv, this mix at each \
                        length; fig1-unfairness.csv, the paper's 13 mixes)"
            .to_string(),
    };
    if w.jobs.iter().any(|j| j.n_threads() > 1) || resolved.spec.threads.is_some_and(|t| t > 1) {
        let here = "multi-threaded jobs: Perf&Fair accounts the progress of processes of one thread";
        return Ok(Some(note(pf, here.into(), None)));
    }
    let Some((lo, hi)) = solo_range(runs).filter(|(lo, _)| *lo < PERF_FAIR_SOLO_S) else {
        return Ok(None);
    };
    let quantum_s = resolved.spec.policy_opts(&["perf-fair"], what.first_seed)?.0.perf_fair.quantum as f64 * 1e-9;
    let mut here = format!(
        "jobs run {lo:.1}-{hi:.1} s alone, {:.0}-{:.0} of its {:.0}-ms quanta",
        lo / quantum_s,
        hi / quantum_s,
        quantum_s * 1e3
    );
    let mut ran: Vec<String> = vec![what.baseline.to_string()];
    ran.extend(pf.iter().cloned());
    let long = stretched(&resolved.machine, w, PERF_FAIR_SOLO_S).and_then(|workload| {
        let long = Resolved { workload, ..resolved.clone() };
        rerun(&long, &Comparing { policies: &ran, gap: false, regimes: false, ..*what }, steps)
    });
    let (long_runs, long_policies) = match long {
        Ok(c) => c,
        Err(e @ RunError::Simulation(_)) => {
            here += &format!("; not rerun at {PERF_FAIR_SOLO_S:.0} s alone: {e}");
            return Ok(Some(note(pf, here, None)));
        }
        Err(e) => return Err(e),
    };
    let paired = pf
        .iter()
        .filter_map(|p| {
            Some(PairedUnfairness {
                policy: p.clone(),
                here: paired(runs, names, p, what.baseline)?,
                in_regime: paired(&long_runs, &ran, p, what.baseline)?,
            })
        })
        .collect();
    Ok(Some(note(pf, here, Some(RegimeRun { solo_s: PERF_FAIR_SOLO_S, policies: long_policies, paired }))))
}

/// The notes in lines, under the comparison's table.
pub fn regime_lines(notes: &[RegimeNote], baseline: &str) -> Vec<String> {
    let ci = |m: &MeanCi| format!("{:+.3} ±{:.3}", m.mean, (m.hi - m.lo) / 2.0);
    let mut out = vec![];
    for n in notes {
        out.push(format!(
            "outside its paper's regime: {}. {} measured {}; here {}.",
            n.policies.join(", "),
            n.paper,
            n.regime,
            n.here
        ));
        if let Some(r) = &n.in_regime {
            let list = |f: fn(&PairedUnfairness) -> &MeanCi| {
                r.paired.iter().map(|p| format!("{} {}", p.policy, ci(f(p)))).collect::<Vec<_>>().join(", ")
            };
            out.push(format!(
                "  what it costs, unfairness minus {baseline}'s paired by seed: here {}; with every job stretched to {:.0} s \
                 alone, same machine, mix and seeds: {}",
                list(|p| &p.here),
                r.solo_s,
                list(|p| &p.in_regime)
            ));
        }
        out.push(format!("  the paper's own evaluation: {}", n.paper_figures));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::comparison;
    use crate::RunSpec;
    use cosched_sim::experiment::solo_times;
    use cosched_sim::SimOptions;

    fn compared(machine: &str, workload: &str, policies: &[&str]) -> crate::compare::Comparison {
        let run = RunSpec { machine: machine.into(), workload: workload.into(), timing: false, ..RunSpec::default() };
        compared_run(&run, policies)
    }

    /// Every policy of `policies` over two seeds of `run`, regimes on, no bound.
    fn compared_run(run: &RunSpec, policies: &[&str]) -> crate::compare::Comparison {
        let names: Vec<String> = policies.iter().map(|p| p.to_string()).collect();
        let what = Comparing {
            policies: &names,
            customs: &[],
            baseline: "cfs",
            first_seed: 1,
            seeds: 2,
            gap: false,
            regimes: true,
            bound_cache: None,
        };
        comparison(&run.resolve().unwrap(), &what, &Steps::silent()).unwrap()
    }

    #[test]
    fn stretched_jobs_run_the_seconds_asked_alone() {
        let m = cosched_machine::presets::machine("xeon-e5645").unwrap();
        let w = cosched_sim::presets::workload("spec-mix8").unwrap();
        let long = stretched(&m, &w, 20.0).unwrap();
        let plan = Plan::new(&long, &m, None, 1, "spec-mix8").unwrap();
        let solo = solo_times(&m, &plan, &SimOptions::default()).unwrap();
        for s in solo {
            // The stretch reads each job's whole-run solo rates; the run adds its cold start.
            assert!((s / 20.0 - 1.0).abs() < 0.1, "a job stretched to 20 s ran {s} s alone");
        }
    }

    #[test]
    fn perf_fair_on_short_jobs_is_named_and_measured_at_the_papers_length() {
        let c = compared("xeon-e5645", "spec-mix8", &["cfs", "perf-fair", "rda-strict"]);
        let pf = c.regimes.iter().find(|n| n.policies == ["perf-fair"]).expect("perf-fair named");
        assert!(pf.here.contains("s alone"), "{}", pf.here);
        let run = pf.in_regime.as_ref().expect("rerun at the paper's length");
        assert_eq!(run.solo_s, PERF_FAIR_SOLO_S);
        assert_eq!(run.policies.iter().map(|r| r.policy.as_str()).collect::<Vec<_>>(), ["cfs", "perf-fair"]);
        let p = &run.paired[0];
        assert_eq!((p.policy.as_str(), p.here.n, p.in_regime.n), ("perf-fair", 2, 2));
        // RDA on a mix that declares no progress period is named too, with nothing to rerun.
        let rda = c.regimes.iter().find(|n| n.policies == ["rda-strict"]).expect("rda named");
        assert!(rda.in_regime.is_none());
        let lines = regime_lines(&c.regimes, "cfs");
        assert!(lines.iter().any(|l| l.starts_with("outside its paper's regime: perf-fair.")), "{lines:?}");
    }

    #[test]
    fn a_rerun_the_runs_budget_refuses_is_left_out_saying_why() {
        // spec-mix8's jobs run a few seconds alone; stretched to 100 s they pass a 60-s budget.
        let run = RunSpec {
            machine: "xeon-e5645".into(),
            workload: "spec-mix8".into(),
            timing: false,
            max_sim_time_s: 60.0,
            ..RunSpec::default()
        };
        let c = compared_run(&run, &["cfs", "perf-fair"]);
        let pf = &c.regimes[0];
        assert!(pf.in_regime.is_none() && pf.here.contains("not rerun at 100 s alone"), "{}", pf.here);
    }

    #[test]
    fn a_family_in_its_regime_is_not_named() {
        // RDA's own workload declares its progress periods; Perf&Fair is absent.
        let c = compared("xeon-e5-2420", "rda-blas3", &["cfs", "rda-strict"]);
        assert!(c.regimes.is_empty(), "{:?}", regime_lines(&c.regimes, "cfs"));
    }
}
