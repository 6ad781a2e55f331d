//! `cosched paper quintet`: the combined policy (`quintet`)
//! on each paper's own machine, workloads and objective, against that
//! paper's policy and CFS, with every borrowed mechanism ablated, paired by
//! seed; beside it the best static co-schedule where every thread can run
//! at once (the statistical study's yardstick).
#![allow(clippy::needless_range_loop)] // cells are addressed by (workload, variant, trial) indices

use super::{over_trials, Seeds, Trial};
use crate::error::RunError;
use crate::optimum::{best_static, weakest_kind, Instance, Objective};
use crate::report::Sink;
use crate::table::{Cell, Table};
use cosched_core::policies::{Mechanism, PolicyOptions, Quintet, QuintetObjective, QuintetParams};
use cosched_core::stats::geomean;
use cosched_machine::MachineSpec;
use cosched_sim::engine::SimOptions;
use cosched_sim::experiment::solo_times;

/// Options of the quintet rerun.
#[derive(Clone, Debug)]
pub struct Options {
    /// Seeds and run-to-run variation.
    pub seeds: Seeds,
    /// Random assignments per estimate of the best static co-schedule.
    pub samples: usize,
    /// Random time-shared partitions per estimate of the best partition.
    pub partition_samples: usize,
    /// Include wall-clock timings; off for byte-identical reruns.
    pub timing: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            seeds: Seeds::default(),
            samples: 1000,
            partition_samples: crate::compare::GAP_PARTITION_SAMPLES,
            timing: true,
        }
    }
}

/// What a study measures (each paper's own objective).
#[derive(Clone, Copy, PartialEq)]
enum Metric {
    /// Makespan; differences as speed, % (positive: quintet faster).
    Speed,
    /// System energy; differences as saving, % (positive: quintet uses less).
    Energy,
    /// Unfairness (max slowdown / min slowdown, the registry's ratio); differences of the ratio
    /// (positive: quintet fairer).
    Unfairness,
}

impl Metric {
    fn label(self) -> &'static str {
        match self {
            Metric::Speed => "makespan s",
            Metric::Energy => "system energy J",
            Metric::Unfairness => "unfairness",
        }
    }

    fn gain(self) -> &'static str {
        match self {
            Metric::Speed => "speed gain %",
            Metric::Energy => "energy saving %",
            Metric::Unfairness => "unfairness cut (ratio)",
        }
    }

    /// How much better `ours` is than `other` (positive: ours better).
    fn better(self, ours: f64, other: f64) -> f64 {
        match self {
            Metric::Speed => (other / ours - 1.0) * 100.0,
            Metric::Energy => (1.0 - ours / other) * 100.0,
            Metric::Unfairness => other - ours,
        }
    }

    /// Decimals of a difference: a ratio's needs three, a percentage two.
    fn digits(self) -> usize {
        if self == Metric::Unfairness {
            3
        } else {
            2
        }
    }
}

/// One paper's study: its machine, workloads (preset, copies), objective and policy.
struct Study {
    paper: &'static str,
    machine: &'static str,
    workloads: &'static [(&'static str, u32)],
    objective: QuintetObjective,
    metric: Metric,
    /// The paper's policy (`None`: the statistical study, whose yardstick is the optimum).
    rival: Option<&'static str>,
    /// Whether its programs declare progress periods (RDA's do; periods are ablated only there).
    periods: bool,
}

const STUDIES: [Study; 5] = [
    Study {
        paper: "SLITS",
        machine: "xeon-x5550-16c",
        workloads: &[("canneal", 1), ("facesim", 1), ("fluidanimate", 1), ("vips", 1)],
        objective: QuintetObjective::Throughput,
        metric: Metric::Speed,
        rival: Some("slits-contention"),
        periods: false,
    },
    Study {
        paper: "EFS",
        machine: "i5-2500",
        workloads: &[("libquantum", 4), ("gemsfdtd", 4), ("milc", 4), ("mcf", 4), ("lbm", 4), ("soplex", 4)],
        objective: QuintetObjective::Energy,
        metric: Metric::Energy,
        rival: Some("efs"),
        periods: false,
    },
    Study {
        paper: "RDA",
        machine: "xeon-e5-2420",
        workloads: &[("rda-blas3", 1), ("rda-volrend", 1), ("rda-water-nsq", 1), ("rda-ocean-cp", 1)],
        objective: QuintetObjective::Throughput,
        metric: Metric::Speed,
        rival: Some("rda-strict"),
        periods: true,
    },
    Study {
        paper: "Perf&Fair",
        machine: "xeon-e5645",
        workloads: &[("spec-mix24", 1), ("spec-mix8", 3)],
        objective: QuintetObjective::Fairness,
        metric: Metric::Unfairness,
        rival: Some("perf-fair"),
        periods: false,
    },
    Study {
        paper: "Statistical assignment",
        machine: "ultrasparc-t2",
        workloads: &[("ipfwd-mem", 1), ("packet-analyzer", 1), ("aho-corasick", 1), ("stateful", 1)],
        objective: QuintetObjective::Throughput,
        metric: Metric::Speed,
        rival: None,
        periods: false,
    },
];

/// One policy run of a study: the registry name, and `quintet`'s parameters.
struct Variant {
    policy: &'static str,
    quintet: Option<QuintetParams>,
}

impl Variant {
    /// The mechanism this variant of `quintet` runs without (an ablation arm).
    fn ablated(&self) -> Option<Mechanism> {
        self.quintet.as_ref().and_then(|p| p.without.first().copied())
    }
}

/// CFS, the paper's policy, `quintet`, and `quintet` without each mechanism that acts under the objective.
fn variants(s: &Study) -> Vec<Variant> {
    let q = |without: Vec<Mechanism>| QuintetParams { objective: s.objective, without, ..QuintetParams::default() };
    let mut v = vec![Variant { policy: "cfs", quintet: None }];
    v.extend(s.rival.map(|r| Variant { policy: r, quintet: None }));
    v.push(Variant { policy: "quintet", quintet: Some(q(vec![])) });
    for m in Mechanism::ALL {
        // Periods act only where programs declare them (RDA's workloads).
        if q(vec![]).uses(m) && (m != Mechanism::Periods || s.periods) {
            v.push(Variant { policy: "quintet", quintet: Some(q(vec![m])) });
        }
    }
    v
}

/// The metric of one run, and its throughput (GIPS) for the gap to the best.
#[derive(Clone, Copy)]
struct Run {
    value: f64,
    /// `quintet`'s share of picks with two or more threads in its window (0 for the others).
    choice: f64,
    makespan: f64,
    gips: f64,
}

/// The combined policy on each paper's workloads and objective, against the paper's policy and CFS, with ablations.
pub fn run(a: &Options, out: &mut dyn Sink) -> Result<(), RunError> {
    a.seeds.check()?;
    crate::limits::SAMPLES.check(a.samples as u64)?;
    crate::limits::SAMPLES.check(a.partition_samples as u64)?;
    let trials = a.seeds.trials();
    out.heading(format!(
        "# quintet on each paper's workloads\n\n{} seeds, run-to-run variation {}, mean ±95% interval: \
         simulation precision; gains are quintet's over the named policy, paired by seed (positive: \
         quintet better on the paper's objective); \"no difference\" when the 95% interval holds 0.\n",
        trials.len(),
        a.seeds.noise
    ));
    let mut summary = Table::new(&["paper", "objective", "workloads", "vs the paper's policy", "vs cfs"]);
    let mut results = Table::new(&[
        "paper",
        "workload",
        "measure",
        "cfs",
        "paper's policy",
        "quintet",
        "gain over paper's",
        "gain over cfs",
        "speed gain over paper's %",
        "speed gain over cfs %",
        "quintet picks with a choice %",
    ]);
    let mut ablations = Table::new(&["paper", "workload", "mechanism off", "gain of the mechanism"]);
    let mut gaps = Table::new(&[
        "paper",
        "workload",
        "bound",
        "bound gips",
        "bound's 95% interval per seed (mean of its ends)",
        "cfs gap to bound %",
        "paper's policy gap to bound %",
        "quintet gap to bound %",
    ]);
    for s in &STUDIES {
        let m = cosched_machine::presets::machine(s.machine).map_err(RunError::from)?;
        let vs = variants(s);
        let wl: Vec<(String, cosched_sim::WorkloadSpec)> = s
            .workloads
            .iter()
            .map(|&(p, n)| {
                let mut w = cosched_sim::presets::workload(p).map_err(RunError::from)?;
                for j in &mut w.jobs {
                    j.instances *= n; // `--copies`
                }
                Ok((if n > 1 { format!("{p} x{n}") } else { p.to_string() }, w))
            })
            .collect::<Result<_, RunError>>()?;
        let cells =
            over_trials(&wl, &trials, |(_, w), t| study_cell(s, &vs, &m, w, t, (a.samples, a.partition_samples)))?;
        let at = |w: usize, v: usize| -> Vec<Run> { cells[w].iter().map(|c| c.0[v]).collect() };
        let q = vs.iter().position(|v| v.quintet.is_some()).expect("quintet");
        let rival = s.rival.map(|_| 1);
        let diff = |w: usize, v: usize| -> Vec<f64> {
            at(w, q).iter().zip(at(w, v)).map(|(o, x)| s.metric.better(o.value, x.value)).collect()
        };
        let speed = |w: usize, v: usize| -> Vec<f64> {
            at(w, q).iter().zip(at(w, v)).map(|(o, x)| Metric::Speed.better(o.makespan, x.makespan)).collect()
        };
        for (w, (name, _)) in wl.iter().enumerate() {
            let vals = |v: usize| Cell::value(&at(w, v).iter().map(|r| r.value).collect::<Vec<_>>(), 3);
            results.push(vec![
                s.paper.into(),
                name.clone().into(),
                s.metric.label().into(),
                vals(0),
                rival.map_or("-".into(), vals),
                vals(q),
                rival.map_or("-".into(), |r| Cell::diff(&diff(w, r), s.metric.digits())),
                Cell::diff(&diff(w, 0), s.metric.digits()),
                rival.map_or("-".into(), |r| Cell::diff(&speed(w, r), 2)),
                Cell::diff(&speed(w, 0), 2),
                Cell::value(&at(w, q).iter().map(|r| r.choice * 100.0).collect::<Vec<_>>(), 1),
            ]);
            for v in q + 1..vs.len() {
                ablations.push(vec![
                    s.paper.into(),
                    name.clone().into(),
                    vs[v].ablated().map_or("-", Mechanism::word).into(),
                    Cell::diff(&diff(w, v), s.metric.digits()),
                ]);
            }
            let best: Option<Vec<f64>> = cells[w].iter().map(|c| c.1.as_ref().map(|b| b.1)).collect();
            if let Some(best) = best {
                let ends: Vec<Option<(f64, f64)>> = cells[w].iter().map(|c| c.1.as_ref().and_then(|b| b.2)).collect();
                // The weakest kind any seed needed names the bound.
                let bound = weakest_kind(cells[w].iter().filter_map(|c| c.1.as_ref().map(|b| b.0.as_str())));
                let gap = |v: usize| -> Vec<f64> {
                    at(w, v).iter().zip(&best).map(|(r, b)| (1.0 - r.gips / b) * 100.0).collect()
                };
                gaps.push(vec![
                    s.paper.into(),
                    name.clone().into(),
                    bound.into(),
                    Cell::value(&best, 3),
                    interval_ends(&ends).into(),
                    Cell::value(&gap(0), 2),
                    rival.map_or("-".into(), |r| Cell::value(&gap(r), 2)),
                    Cell::value(&gap(q), 2),
                ]);
            }
        }
        // The study as a whole: per seed, the geometric mean over workloads of each ratio.
        let overall = |v: usize| -> Vec<f64> {
            (0..trials.len())
                .map(|k| {
                    let ratios: Vec<f64> = (0..wl.len())
                        .map(|w| 1.0 + s.metric.better(cells[w][k].0[q].value, cells[w][k].0[v].value) / 100.0)
                        .collect();
                    (geomean(&ratios) - 1.0) * 100.0
                })
                .collect()
        };
        let as_ratio = s.metric != Metric::Unfairness;
        let whole = |v: usize| -> Cell {
            if as_ratio {
                Cell::diff(&overall(v), 2)
            } else {
                let d: Vec<f64> = (0..trials.len())
                    .map(|k| {
                        (0..wl.len())
                            .map(|w| s.metric.better(cells[w][k].0[q].value, cells[w][k].0[v].value))
                            .sum::<f64>()
                            / wl.len() as f64
                    })
                    .collect();
                Cell::diff(&d, s.metric.digits())
            }
        };
        summary.push(vec![
            s.paper.into(),
            format!("{} ({})", s.objective.word(), s.metric.gain()).into(),
            wl.len().to_string().into(),
            rival.map_or("- (no policy: the optimum is the yardstick)".into(), whole),
            whole(0),
        ]);
    }
    out.heading("## Each paper's study as a whole (mean over its workloads, per seed)\n".to_string());
    out.table(summary, "summary.csv");
    out.heading("## Per workload\n".to_string());
    out.table(results, "results.csv");
    out.heading(
        "## Ablations: quintet minus quintet without one mechanism (positive: the mechanism helps)\n".to_string(),
    );
    out.table(ablations, "ablations.csv");
    out.heading(String::from(
        "## Distance to the bound: the best static partition with idle contexts allowed (throughput below it, % per \
         seed; negative: above it)\n\n\
         The bound's family: each thread pinned to one context for the whole run, a context's threads taking turns of \
         the round-robin quantum, any context idle (what RDA and EFS exploit). It is exact where the family is small \
         enough to simulate whole, else the exact best static co-schedule beside the EVT estimate over random \
         partitions, or the EVT estimate alone; a policy that moves threads can be above it. Beating it takes a paired \
         interval below zero at 10 seeds or more, against its upper interval end.\n",
    ));
    out.table(gaps, "gap-to-bound.csv");
    Ok(())
}

/// Every variant on one workload under one trial, and the best static
/// co-schedule's throughput (with its kind): over assignments when the
/// threads fit the contexts, else over time-shared partitions.
type StudyCell = (Vec<Run>, Option<(String, f64, Option<(f64, f64)>)>);

/// The mean of each end of the per-seed intervals, or why there is none: an
/// exact bound has no interval, an unbounded upper end is said.
fn interval_ends(ends: &[Option<(f64, f64)>]) -> String {
    let known: Vec<(f64, f64)> = ends.iter().flatten().copied().collect();
    if known.is_empty() {
        return "- (exact)".to_string();
    }
    let lo = known.iter().map(|e| e.0).sum::<f64>() / known.len() as f64;
    let unbounded = known.iter().filter(|e| !e.1.is_finite()).count();
    if unbounded > 0 {
        return format!("[{lo:.3}, unbounded on {unbounded} of {} seeds]", known.len());
    }
    let hi = known.iter().map(|e| e.1).sum::<f64>() / known.len() as f64;
    format!("[{lo:.3}, {hi:.3}]")
}

fn study_cell(
    s: &Study,
    vs: &[Variant],
    m: &MachineSpec,
    w: &cosched_sim::WorkloadSpec,
    t: &Trial,
    (samples, partition_samples): (usize, usize),
) -> Result<StudyCell, RunError> {
    let mm = t.machine(m);
    let plan = t.plan(w, &mm)?;
    let solo = if s.metric == Metric::Unfairness {
        Some(solo_times(&mm, &plan, &SimOptions { seed: t.seed, ..SimOptions::default() })?)
    } else {
        None
    };
    let mut runs = vec![];
    for v in vs {
        let (out, choice) = match &v.quintet {
            Some(p) => {
                let mut q = Quintet::new(p.clone(), t.seed);
                (t.run_policy(&mm, &plan, &mut q, &SimOptions::default())?, q.choice_share())
            }
            None => (t.run(&mm, &plan, v.policy, &PolicyOptions::default())?, 0.0),
        };
        let makespan = out.makespan as f64 * 1e-9;
        let value = match s.metric {
            Metric::Speed => makespan,
            Metric::Energy => out.energy.system,
            Metric::Unfairness => {
                let finish: Vec<f64> = out.job_finish.iter().map(|&f| f as f64 * 1e-9).collect();
                super::perf_fair::unfairness(&finish, solo.as_deref().expect("solo times"))
            }
        };
        runs.push(Run { value, choice, makespan, gips: out.totals.instructions / makespan / 1e9 });
    }
    let inst = Instance::bound(&mm, &plan)?;
    let n = if inst.partitioned { partition_samples } else { samples };
    let b = best_static(&inst, Objective::Throughput, crate::compare::GAP_BUDGET, n, t.seed, &|| {})?;
    Ok((runs, Some((b.kind.to_string(), b.value, b.ci))))
}
