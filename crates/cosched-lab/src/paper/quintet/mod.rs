//! `cosched paper quintet`: the combined policy (`quintet`)
//! on each paper's own machine, workloads and objective, against that
//! paper's policy and CFS, with every borrowed mechanism ablated, paired by
//! seed; beside it the best static co-schedule where every thread can run
//! at once (the statistical study's yardstick).
#![allow(clippy::needless_range_loop)] // cells are addressed by (workload, variant, trial) indices

use super::{Seeds, Trial};
use crate::error::RunError;
use crate::optimum::{best_static, Instance, Objective};
use cosched_machine::MachineSpec;
use cosched_policies::{Mechanism, PolicyOptions, Quintet, QuintetObjective, QuintetParams};
use cosched_sim::engine::SimOptions;
use cosched_sim::experiment::solo_times;

mod rerun;

pub use rerun::run;

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
    /// Only these studies (by [`STUDY_WORDS`]); `None`: all five.
    pub studies: Option<Vec<String>>,
    /// Seeds of the distance to the bound (at least `seeds`): the seeds beyond `seeds` run
    /// CFS, the paper's policy and `quintet` only, with the bound; a policy beats the bound
    /// only at [`crate::compare::BEAT_SEEDS`] seeds or more.
    pub bound_seeds: u64,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            seeds: Seeds::default(),
            samples: 1000,
            partition_samples: crate::compare::GAP_PARTITION_SAMPLES,
            timing: true,
            studies: None,
            bound_seeds: crate::compare::BEAT_SEEDS as u64,
        }
    }
}

/// The word naming each study in [`Options::studies`], in [`STUDIES`] order.
pub const STUDY_WORDS: [&str; 5] = ["slits", "efs", "rda", "perf-fair", "statistical"];

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
    /// The paper's own mixes of `paper perf-fair` run too (each job 100 s alone, the paper's
    /// length), before the presets: how many (0: none).
    paper_mixes: usize,
    /// How the preset workloads' jobs compare with the paper's (a study row's regime).
    regime: &'static str,
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
        paper_mixes: 0,
        regime: "the presets' models of the paper's PARSEC runs",
    },
    Study {
        paper: "EFS",
        machine: "i5-2500",
        workloads: &[("libquantum", 4), ("gemsfdtd", 4), ("milc", 4), ("mcf", 4), ("lbm", 4), ("soplex", 4)],
        objective: QuintetObjective::Energy,
        metric: Metric::Energy,
        rival: Some("efs"),
        periods: false,
        paper_mixes: 0,
        regime: "four copies of each preset to completion, as the paper's Fig. 4-10 runs",
    },
    Study {
        paper: "RDA",
        machine: "xeon-e5-2420",
        workloads: &[("rda-blas3", 1), ("rda-volrend", 1), ("rda-water-nsq", 1), ("rda-ocean-cp", 1)],
        objective: QuintetObjective::Throughput,
        metric: Metric::Speed,
        rival: Some("rda-strict"),
        periods: true,
        paper_mixes: 0,
        regime: "the presets' models of the paper's Table 2 workloads",
    },
    Study {
        paper: "Perf&Fair",
        machine: "xeon-e5645",
        workloads: &[("spec-mix24", 1), ("spec-mix8", 3)],
        objective: QuintetObjective::Fairness,
        metric: Metric::Unfairness,
        rival: Some("perf-fair"),
        periods: false,
        paper_mixes: super::perf_fair::PAPER_MIXES,
        regime: "preset length, shorter than the paper's 100 s alone: outside its regime",
    },
    Study {
        paper: "Statistical assignment",
        machine: "ultrasparc-t2",
        workloads: &[("ipfwd-mem", 1), ("packet-analyzer", 1), ("aho-corasick", 1), ("stateful", 1)],
        objective: QuintetObjective::Throughput,
        metric: Metric::Speed,
        rival: None,
        periods: false,
        paper_mixes: 0,
        regime: "the presets' models of the paper's packet-processing pipelines",
    },
];

/// What a variant of a study is.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Role {
    /// CFS or the paper's policy.
    Policy,
    /// `quintet` with every mechanism that acts under the objective.
    Full,
    /// `quintet` without one mechanism (a leave-one-out arm).
    Without(Mechanism),
    /// `quintet` with none of its mechanisms.
    Bare,
    /// `quintet` with only one mechanism (an add-one arm).
    Only(Mechanism),
    /// `quintet` whose progress accounting evens out each run queue only (no pull across queues).
    QueueProgress,
    /// `quintet` whose progress accounting estimates IPC alone opportunistically only (no idle sibling).
    NoEstimation,
    /// `quintet` whose other cores start only light-sharing threads while one is measured alone
    /// (Perf&Fair's light-only fill, added: not in `quintet`).
    LightFill,
    /// `quintet` measuring IPC alone over a CFS slice, not a 200-ms quantum.
    SliceMeasure,
}

/// One policy run of a study: the registry name, `quintet`'s parameters, and what it is.
struct Variant {
    policy: &'static str,
    quintet: Option<QuintetParams>,
    role: Role,
}

/// The mechanisms of `quintet` that act in study `s` on machine `m` (periods only where programs
/// declare them, pipes only where cores have several pipelines).
fn used(s: &Study, m: &MachineSpec) -> Vec<Mechanism> {
    let full = QuintetParams { objective: s.objective, ..QuintetParams::default() };
    let topo = m.topology();
    let acts = |x: Mechanism| match x {
        Mechanism::Periods => s.periods,
        Mechanism::Pipes => topo.n_pipes > topo.n_cores,
        _ => true,
    };
    Mechanism::ALL.into_iter().filter(|&x| full.uses(x) && acts(x)).collect()
}

/// CFS, the paper's policy, `quintet`, `quintet` without each mechanism that acts under the
/// objective (leave-one-out), `quintet` with none, and `quintet` with each one alone (add-one;
/// with two mechanisms, one alone is the other left out, run once).
fn variants(s: &Study, m: &MachineSpec) -> Vec<Variant> {
    let q = |without: Vec<Mechanism>| QuintetParams { objective: s.objective, without, ..QuintetParams::default() };
    let mechanisms = used(s, m);
    let mut v = vec![Variant { policy: "cfs", quintet: None, role: Role::Policy }];
    v.extend(s.rival.map(|r| Variant { policy: r, quintet: None, role: Role::Policy }));
    v.push(Variant { policy: "quintet", quintet: Some(q(vec![])), role: Role::Full });
    for &m in &mechanisms {
        v.push(Variant { policy: "quintet", quintet: Some(q(vec![m])), role: Role::Without(m) });
    }
    if mechanisms.len() > 1 {
        v.push(Variant { policy: "quintet", quintet: Some(q(mechanisms.clone())), role: Role::Bare });
    }
    if mechanisms.contains(&Mechanism::Progress) {
        let p = QuintetParams { global_progress: false, ..q(vec![]) };
        v.push(Variant { policy: "quintet", quintet: Some(p), role: Role::QueueProgress });
        let p = QuintetParams { estimate_alone: false, ..q(vec![]) };
        v.push(Variant { policy: "quintet", quintet: Some(p), role: Role::NoEstimation });
        let p = QuintetParams { light_fill: !QuintetParams::default().light_fill, ..q(vec![]) };
        v.push(Variant { policy: "quintet", quintet: Some(p), role: Role::LightFill });
        let p = QuintetParams { measure_quantum: !QuintetParams::default().measure_quantum, ..q(vec![]) };
        v.push(Variant { policy: "quintet", quintet: Some(p), role: Role::SliceMeasure });
    }
    for &m in &mechanisms {
        let others: Vec<Mechanism> = mechanisms.iter().copied().filter(|&x| x != m).collect();
        let already = v.iter().any(|x| x.quintet.as_ref().is_some_and(|p| p.without == others && standard(p)));
        if !already {
            v.push(Variant { policy: "quintet", quintet: Some(q(others)), role: Role::Only(m) });
        }
    }
    v
}

/// Whether `p` runs every mechanism's default reading (not one of the progress arms).
fn standard(p: &QuintetParams) -> bool {
    let d = QuintetParams::default();
    (p.global_progress, p.estimate_alone, p.light_fill, p.measure_quantum)
        == (d.global_progress, d.estimate_alone, d.light_fill, d.measure_quantum)
}

/// The variant running `quintet` with none of `mechanisms` (the leave-one-out arm when there is one).
fn bare(vs: &[Variant], mechanisms: &[Mechanism]) -> usize {
    vs.iter()
        .position(|x| x.quintet.as_ref().is_some_and(|p| p.without == mechanisms && standard(p)))
        .expect("a bare arm")
}

/// The variant running `quintet` with only `m` of `mechanisms` (an add-one arm, or the
/// leave-one-out arm of the other when there are two; the full one when `m` is the only one).
fn only(vs: &[Variant], mechanisms: &[Mechanism], m: Mechanism) -> usize {
    let others: Vec<Mechanism> = mechanisms.iter().copied().filter(|&x| x != m).collect();
    vs.iter()
        .position(|x| x.quintet.as_ref().is_some_and(|p| p.without == others && standard(p)))
        .expect("an add-one arm")
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

/// Every variant on one workload under one trial, the bound's throughput (with its kind and
/// interval) where it was computed, and the shortest and longest job alone (where solo times were
/// measured: the unfairness studies).
type StudyCell = (Vec<Run>, Option<Bound>, Option<(f64, f64)>);

/// The bound of one seed: its kind, throughput (GIPS) and POT interval (`None`: exact).
type Bound = (String, f64, Option<(f64, f64)>);

/// One workload of a study.
struct Workload {
    /// Its row's name.
    name: String,
    spec: cosched_sim::WorkloadSpec,
    /// The paper's own job length (`paper perf-fair`'s mixes), not a preset's.
    paper_length: bool,
    /// Whether the bound is computed (not on the paper-length mixes: 300 partitions of 24
    /// 100-s jobs per seed and mix would cost more than the rest of the rerun together).
    bound: bool,
}

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

/// A study's workloads: the paper's own mixes first where it has them, then its presets.
fn study_workloads(s: &Study, m: &MachineSpec) -> Result<Vec<Workload>, RunError> {
    let mut wl = vec![];
    if s.paper_mixes > 0 {
        use super::perf_fair::{mixes, PAPER_BW_RANGE, PAPER_SOLO_S};
        for (k, (_, spec, bw)) in mixes(m, s.paper_mixes, PAPER_BW_RANGE, PAPER_SOLO_S)?.into_iter().enumerate() {
            let name = format!("paper mix {} ({bw:.0} trans/us)", k + 1);
            wl.push(Workload { name, spec, paper_length: true, bound: false });
        }
    }
    for &(p, n) in s.workloads {
        let mut spec = cosched_sim::presets::workload(p).map_err(RunError::from)?;
        for j in &mut spec.jobs {
            j.instances *= n; // `--copies`
        }
        let name = if n > 1 { format!("{p} x{n}") } else { p.to_string() };
        wl.push(Workload { name, spec, paper_length: false, bound: true });
    }
    Ok(wl)
}

fn study_cell(
    s: &Study,
    vs: &[Variant],
    m: &MachineSpec,
    w: &cosched_sim::WorkloadSpec,
    t: &Trial,
    bound: Option<(usize, usize)>,
) -> Result<StudyCell, RunError> {
    let mm = t.machine(m);
    let plan = t.plan(w, &mm)?;
    // Every variant runs this machine and plan: the socket solves one solved, the others reuse
    // (a solution is a function of its co-schedule's key alone: byte-identical). Not the solo
    // runs: each is a plan of its own, whose model numbers mean other models.
    let sim = SimOptions { shared: cosched_sim::engine::Shared::new(), ..SimOptions::default() };
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
                (t.run_policy(&mm, &plan, &mut q, &sim)?, q.choice_share())
            }
            None => (t.run_sim(&mm, &plan, v.policy, &PolicyOptions::default(), &sim)?, 0.0),
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
    let range =
        solo.as_ref().map(|v| (v.iter().copied().fold(f64::INFINITY, f64::min), v.iter().copied().fold(0.0, f64::max)));
    let Some((samples, partition_samples)) = bound else { return Ok((runs, None, range)) };
    let inst = Instance::bound(&mm, &plan)?;
    let n = if inst.partitioned { partition_samples } else { samples };
    let b = best_static(&inst, Objective::Throughput, crate::compare::GAP_BUDGET, n, t.seed, &|| {})?;
    Ok((runs, Some((b.kind.to_string(), b.value, b.ci)), range))
}
