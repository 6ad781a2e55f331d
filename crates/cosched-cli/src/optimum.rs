//! `cosched optimum`: the best static co-schedule of a workload on the
//! simulated machine, its simulated outcome and what kind of bound it is
//! (issue #33 item 1; `cosched_sim::optimum`).

use crate::error::RunError;
use crate::opts::Format;
use crate::output::table;
use clap::Args as ClapArgs;
use cosched_core::optimum::grouping::corun_count;
use cosched_machine::MachineSpec;
use cosched_sim::optimum::{
    best_of, Best, Exhaustive, Found, Grouped, Instance, Matched, Objective, Sampled, EVT_ESTIMATE, EXACT, MAX_BUDGET,
    MAX_SAMPLES, PARTITION_EVT_ESTIMATE,
};
use cosched_sim::{presets, Plan};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

/// `cosched optimum`'s arguments.
#[derive(ClapArgs)]
pub struct Args {
    /// Machine preset or file.
    #[arg(long, short = 'm', default_value = "xeon-e5645")]
    machine: String,
    /// Workload preset or file (with more threads than contexts, time-shared partitions are sampled).
    #[arg(long, short = 'w', default_value = "spec-mix8")]
    workload: String,
    /// Thread count of the workload's multi-threaded jobs.
    #[arg(long)]
    threads: Option<u32>,
    /// Run N copies of every job.
    #[arg(long)]
    copies: Option<u32>,
    /// What "best" means: throughput (GIPS, larger is better) or antt (mean turnaround over solo, smaller is better).
    #[arg(long, default_value = "throughput")]
    objective: String,
    /// Simulate every distinct static co-schedule when there are at most this many (the exact optimum).
    #[arg(long, default_value_t = 20_000)]
    budget: usize,
    /// Random assignments for the EVT estimate when the co-schedules exceed --budget (0 with an exhaustive search: none).
    #[arg(long)]
    samples: Option<usize>,
    /// Seed of the random assignments.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Confidence level of the EVT interval.
    #[arg(long, default_value_t = 0.95)]
    confidence: f64,
    /// Skip Jiang et al.'s pairwise matching (it runs jobs × (jobs − 1) pairwise co-runs) and its
    /// grouping on larger sharing domains (every member of every group that fits a domain: at most --budget co-runs).
    #[arg(long)]
    no_matching: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
}

/// Random assignments drawn when the co-schedules are too many to simulate them all.
const DEFAULT_SAMPLES: usize = 1000;

/// What the co-schedule count says for an oversubscribed workload.
const PARTITIONS: &str = "no static co-schedules (more threads than contexts): time-shared partitions sampled";

/// What `cosched optimum` found (`--format json`).
#[derive(Serialize)]
pub struct Report {
    /// Machine name.
    pub machine: String,
    /// Workload name.
    pub workload: String,
    /// The objective's metric name.
    pub objective: &'static str,
    /// Threads placed.
    pub threads: usize,
    /// Contexts of the machine.
    pub contexts: usize,
    /// Distinct static co-schedules (text: it may not fit 64 bits).
    pub coschedules: String,
    /// Which bound the report's `best` is: `exact`, `evt estimate`, or `best of random (no EVT estimate)`.
    pub bound: &'static str,
    /// The best value of the objective: the exact optimum, the POT estimate, or the best random assignment.
    pub best: f64,
    /// The POT interval when `best` is an estimate.
    pub best_ci: Option<(f64, f64)>,
    /// Every co-schedule simulated, when they were few enough.
    pub exhaustive: Option<Exhaustive>,
    /// Pairwise matching, where it applies (or why not).
    pub matching: Result<Matched, String>,
    /// Its generalisation to sharing domains of more than two contexts (issue #33 item 1),
    /// where the deepest shared level holds more than two (or why not).
    pub grouping: Result<Grouped, String>,
    /// Random assignments and the POT estimate, when not exhaustive.
    pub sampled: Option<Sampled>,
    /// Job name of each thread (thread order of the assignments).
    pub thread_jobs: Vec<String>,
}

/// The objective of `a` over `b` as a signed gap in % ("how far from the best"):
/// positive when `a` is worse than `b`.
pub fn gap_pct(objective: Objective, a: f64, b: f64) -> f64 {
    if objective.maximise() {
        (1.0 - a / b) * 100.0
    } else {
        (a / b - 1.0) * 100.0
    }
}

/// Load the machine and the planned workload (exact ground truth).
fn load(a: &Args) -> Result<(MachineSpec, Plan, String), RunError> {
    let m = cosched_machine::presets::machine(&a.machine)?;
    let mut w = presets::workload(&a.workload)?;
    if let Some(n) = a.copies {
        if n == 0 || n > 4096 {
            return Err(RunError::Option(format!("--copies: must be from 1 to 4096, got {n}")));
        }
        for j in &mut w.jobs {
            j.instances *= n;
        }
    }
    let plan = Plan::new(&w, &m, a.threads, 1, &a.workload)?;
    Ok((m, plan, w.name))
}

/// Search for the best static co-schedule as the flags say; `total` is told
/// how many runs more there will be, `tick` each one (`cosched optimum`, Python's `cosched.optimum`).
pub fn report(a: &Args, total: &dyn Fn(u64), tick: &(dyn Fn() + Sync)) -> Result<Report, RunError> {
    let opt = |e: String| RunError::Option(e);
    let objective = Objective::parse(&a.objective).map_err(opt)?;
    if a.budget > MAX_BUDGET {
        return Err(opt(format!("--budget: at most {MAX_BUDGET} simulations, got {}", a.budget)));
    }
    if let Some(s) = a.samples.filter(|&s| s > MAX_SAMPLES) {
        return Err(opt(format!("--samples: at most {MAX_SAMPLES}, got {s}")));
    }
    if !(a.confidence > 0.0 && a.confidence < 1.0) {
        return Err(opt(format!("--confidence: must be in (0, 1), got {}", cosched_core::num::shortest(a.confidence))));
    }
    let (m, plan, name) = load(a)?;
    let sim = |e: String| RunError::Simulation(format!("{}: {e}", a.workload));
    let inst = Instance::any(&m, &plan).map_err(sim)?;
    let count = inst.coschedules();
    let exhaustive = if !inst.partitioned && count <= a.budget as u128 {
        total(count as u64);
        Some(inst.exhaustive(objective, a.budget, tick).map_err(sim)?)
    } else {
        None
    };
    let matching = if a.no_matching {
        Err("skipped (--no-matching)".to_string())
    } else {
        let jobs = plan.jobs.len() as u64;
        total(jobs * jobs.saturating_sub(1));
        inst.matching(tick)
    };
    let grouping = match inst.tree.group_level().map(|l| inst.tree.capacity(l)) {
        _ if a.no_matching => Err("skipped (--no-matching)".to_string()),
        Some(2) => Err("the deepest shared level holds pairs: the matching above is the grouping".to_string()),
        Some(size) if a.budget as u128 >= corun_count(plan.jobs.len(), size) => {
            total(corun_count(plan.jobs.len(), size) as u64);
            inst.grouped(a.budget, tick)
        }
        _ => inst.grouped(a.budget, tick), // refused, naming why
    };
    let samples = a.samples.unwrap_or(if exhaustive.is_some() { 0 } else { DEFAULT_SAMPLES });
    let sampled = if samples > 0 {
        total(samples as u64);
        Some(inst.sampled(objective, samples, a.seed, a.confidence, tick).map_err(sim)?)
    } else {
        None
    };
    let Best { kind: bound, value: best, ci: best_ci } = best_of(objective, exhaustive.as_ref(), sampled.as_ref())
        .ok_or_else(|| {
            RunError::Option("--samples 0 with more co-schedules than --budget: nothing to search".into())
        })?;
    let thread_jobs = plan.threads.iter().map(|t| plan.jobs[t.job as usize].name.clone()).collect();
    Ok(Report {
        machine: m.name.clone(),
        workload: name,
        objective: objective.metric(),
        threads: inst.threads(),
        contexts: m.n_contexts(),
        coschedules: if inst.partitioned { PARTITIONS.to_string() } else { count.to_string() },
        bound,
        best,
        best_ci,
        exhaustive,
        matching,
        grouping,
        sampled,
        thread_jobs,
    })
}

/// The co-schedule as groups of jobs sharing a core (or an LLC on machines without SMT).
fn groups(m: &MachineSpec, f: &Found, jobs: &[String]) -> String {
    let topo = m.topology();
    let smt = topo.has_smt();
    let mut by: std::collections::BTreeMap<u32, Vec<&str>> = Default::default();
    for (t, &c) in f.assignment.iter().enumerate() {
        let info = topo.contexts[c as usize];
        by.entry(if smt { info.core } else { info.llc }).or_default().push(&jobs[t]);
    }
    let mut g: Vec<String> = by
        .values()
        .map(|v| {
            let mut names: Vec<(&str, usize)> = vec![];
            for n in v {
                let n = n.split('#').next().unwrap_or(n);
                match names.iter_mut().find(|(m, _)| *m == n) {
                    Some(e) => e.1 += 1,
                    None => names.push((n, 1)),
                }
            }
            names
                .iter()
                .map(|&(n, k)| if k > 1 { format!("{n}×{k}") } else { n.to_string() })
                .collect::<Vec<_>>()
                .join("+")
        })
        .collect();
    g.sort();
    g.join(" | ")
}

/// `cosched optimum`.
pub fn run(a: Args) -> Result<(), String> {
    let bar = ProgressBar::new(0);
    bar.set_style(ProgressStyle::with_template("{bar:30} {pos}/{len} runs {elapsed}").expect("template"));
    let (m, _, _) = load(&a)?;
    let rep = report(&a, &|n| bar.inc_length(n), &|| bar.inc(1))?;
    bar.finish_and_clear();
    match a.format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&rep).map_err(|e| e.to_string())?),
        _ => print(&rep, &m),
    }
    Ok(())
}

fn print(rep: &Report, m: &MachineSpec) {
    let objective = Objective::parse(if rep.objective == "antt" { "antt" } else { "throughput" }).expect("known");
    let count = if rep.coschedules == PARTITIONS {
        rep.coschedules.clone()
    } else {
        format!("{} distinct co-schedules", rep.coschedules)
    };
    println!(
        "Best static co-schedule of {} on {} ({} threads on {} contexts, {count}; objective {})\n",
        rep.workload, rep.machine, rep.threads, rep.contexts, rep.objective
    );
    let mut rows = vec![vec![
        "co-schedule".to_string(),
        "kind".into(),
        rep.objective.into(),
        "gap to best %".into(),
        "makespan_s".into(),
        if rep.objective == "antt" { "throughput_gips".into() } else { "antt".into() },
        "energy_j".into(),
        "jobs sharing a core (LLC without SMT)".into(),
    ]];
    let row = |label: &str, kind: &str, f: &Found| {
        let v = objective.value(&f.outcome);
        vec![
            label.to_string(),
            kind.to_string(),
            format!("{v:.4}"),
            format!("{:+.2}", gap_pct(objective, v, rep.best)),
            format!("{:.3}", f.outcome.makespan_s),
            format!("{:.4}", if rep.objective == "antt" { f.outcome.throughput_gips } else { f.outcome.antt }),
            format!("{:.1}", f.outcome.energy_j),
            groups(m, f, &rep.thread_jobs),
        ]
    };
    if let Some(e) = &rep.exhaustive {
        rows.push(row(&format!("best of all {}", e.evaluated), "exact optimum", &e.best));
        rows.push(row(&format!("worst of all {}", e.evaluated), "measured", &e.worst));
    }
    match &rep.matching {
        Ok(mt) => rows.push(row(
            &format!("pairwise matching ({} co-runs)", mt.corun_runs),
            "optimal for pairwise costs only",
            &mt.found,
        )),
        Err(why) => println!("pairwise matching: not applicable: {why}\n"),
    }
    match &rep.grouping {
        Ok(g) => rows.push(row(
            &format!("grouping by {} ({} co-runs)", g.size, g.corun_runs),
            "optimal for group costs only",
            &g.found,
        )),
        Err(why) => println!("grouping: not applicable: {why}\n"),
    }
    if let Some(s) = &rep.sampled {
        let what = if s.partitioned { "random partitions" } else { "random" };
        rows.push(row(&format!("best of {} {what}", s.samples), "measured", &s.best));
    }
    table(&rows);
    match (rep.bound, &rep.best_ci, &rep.sampled) {
        (EXACT, _, _) => println!(
            "\nbest = exact optimum: every distinct static co-schedule simulated (identical siblings of the machine's tree are one co-schedule)."
        ),
        (EVT_ESTIMATE, Some(ci), Some(s)) => {
            let conf = s.estimate.as_ref().map(|p| p.confidence * 100.0).unwrap_or(95.0);
            let end = |x: f64| if x.is_finite() { format!("{x:.4}") } else { "unbounded".to_string() };
            println!(
                "\nbest = EVT estimate (POT upper bound over {} random assignments): {:.4} {}, {conf:.0}% interval [{}, {}]; \
                 gaps are to this estimate, not to a proven optimum.",
                s.samples,
                rep.best,
                rep.objective,
                end(ci.0),
                end(ci.1)
            );
        }
        (PARTITION_EVT_ESTIMATE, Some(ci), Some(s)) => {
            let conf = s.estimate.as_ref().map(|p| p.confidence * 100.0).unwrap_or(95.0);
            let end = |x: f64| if x.is_finite() { format!("{x:.4}") } else { "unbounded".to_string() };
            println!(
                "\nbest = EVT estimate of the best time-shared partition (POT upper bound over {} random balanced partitions, \
                 each thread pinned to one context and sharing it round-robin): {:.4} {}, {conf:.0}% interval [{}, {}]. \
                 It is no ceiling for a policy that moves threads between contexts.",
                s.samples,
                rep.best,
                rep.objective,
                end(ci.0),
                end(ci.1)
            );
        }
        (_, _, s) => println!(
            "\nbest = the best of {} random assignments, a lower bound of the optimum: POT found no bounded tail ({}); gaps are to it.",
            s.as_ref().map_or(0, |s| s.samples),
            s.as_ref().and_then(|s| s.estimate.as_ref().err()).map_or("-", |e| e.as_str())
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaps_are_positive_when_worse_for_either_direction() {
        assert!((gap_pct(Objective::Throughput, 9.0, 10.0) - 10.0).abs() < 1e-12);
        assert!((gap_pct(Objective::Antt, 1.1, 1.0) - 10.0).abs() < 1e-9);
        assert!(gap_pct(Objective::Throughput, 10.0, 10.0).abs() < 1e-12);
    }
}
