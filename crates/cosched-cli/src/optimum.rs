//! `cosched optimum`: the best static co-schedule of a workload on the
//! simulated machine, its simulated outcome and what kind of bound it is
//! (`cosched_lab::optimum`).

use crate::flags::Flags;
use crate::opts::Format;
use crate::output::table;
use crate::progress::Progress;
use crate::OneLine;
use clap::Args as ClapArgs;
pub use cosched_lab::best_static::{gap_pct, report, OptimumOptions, OptimumReport};
use cosched_lab::optimum::{
    Found, Objective, IDLE_EVT_ESTIMATE, IDLE_EXACT, IDLE_EXACT_AND_EVT, IDLE_EXACT_AND_RANDOM,
};
use cosched_machine::MachineSpec;

/// `cosched optimum`'s arguments.
#[derive(ClapArgs)]
pub struct Args {
    #[command(flatten)]
    options: Flags<OptimumOptions>,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
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
    let bar = Progress::new(format!("optimum: {} on {}", a.options.workload, a.options.machine), "runs");
    let (m, _, _) = cosched_lab::best_static::load(&a.options).one_line()?;
    let rep = report(&a.options, &|n| bar.add(n), &|| bar.tick()).one_line()?;
    bar.finish();
    match a.format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&rep).map_err(|e| e.to_string())?),
        _ => print(&rep, &m),
    }
    Ok(())
}

fn print(rep: &OptimumReport, m: &MachineSpec) {
    let objective = Objective::parse(if rep.objective == "antt" { "antt" } else { "throughput" }).expect("known");
    println!(
        "Best static partition of {} on {} ({} threads on {} contexts; objective {}): each thread pinned to one \
         context, a context's threads taking turns, any context idle; {} such partitions up to symmetry, of which \
         static co-schedules (a context each): {}\n",
        rep.workload, rep.machine, rep.threads, rep.contexts, rep.objective, rep.coschedules, rep.static_coschedules
    );
    let mut rows = vec![vec![
        "candidate".to_string(),
        "kind".into(),
        rep.objective.into(),
        "gap to bound %".into(),
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
    // Notes on the searches that did not apply, printed after the table they refer to.
    let mut notes: Vec<String> = vec![];
    if let Some(e) = &rep.exhaustive {
        let (what, kind) =
            if e.idle { ("partitions", "exact best partition") } else { ("co-schedules", "exact best co-schedule") };
        rows.push(row(&format!("best of all {} {what}", e.evaluated), kind, &e.best));
        rows.push(row(&format!("worst of all {} {what}", e.evaluated), "measured", &e.worst));
    }
    match (&rep.matching, &rep.no_matching) {
        (Some(mt), _) => rows.push(row(
            &format!("pairwise matching ({} co-runs)", mt.corun_runs),
            "optimal for pairwise costs only",
            &mt.found,
        )),
        (None, why) => notes.push(format!("pairwise matching: not applicable: {}", why.as_deref().unwrap_or_default())),
    }
    match (&rep.grouping, &rep.no_grouping) {
        (Some(g), _) => rows.push(row(
            &format!("grouping by {} ({} co-runs)", g.size, g.corun_runs),
            "optimal for group costs only",
            &g.found,
        )),
        (None, why) => notes.push(format!("grouping: not applicable: {}", why.as_deref().unwrap_or_default())),
    }
    if let Some(s) = &rep.sampled {
        let what = if s.idle { "random partitions" } else { "random" };
        rows.push(row(&format!("best of {} {what}", s.samples), "measured", &s.best));
    }
    table(&rows);
    for n in &notes {
        println!("\n{n}");
    }
    let end = |x: f64| if x.is_finite() { format!("{x:.4}") } else { "unbounded".to_string() };
    let interval = match (&rep.best_ci, &rep.sampled) {
        (Some(ci), Some(s)) => {
            let conf = s.estimate.as_ref().map(|p| p.confidence * 100.0).unwrap_or(95.0);
            format!(", {conf:.0}% interval [{}, {}]", end(ci.0), end(ci.1))
        }
        _ => String::new(),
    };
    let samples = rep.sampled.as_ref().map_or(0, |s| s.samples);
    let why = rep.sampled.as_ref().and_then(|s| s.estimate.as_ref().err()).map_or("-", |e| e.as_str());
    let said = match rep.bound {
        IDLE_EXACT => "the exact best: every static partition simulated (identical siblings of the machine's tree are one)".to_string(),
        IDLE_EXACT_AND_EVT => format!(
            "the exact best static co-schedule, or the EVT estimate (POT upper bound over {samples} random partitions) if \
             higher; not a proven best"
        ),
        IDLE_EVT_ESTIMATE => format!("the EVT estimate (POT upper bound over {samples} random partitions), not a proven best"),
        IDLE_EXACT_AND_RANDOM => format!(
            "the exact best static co-schedule, or the best of {samples} random partitions if higher: POT found no bounded \
             tail ({why}), so below the family's best"
        ),
        _ => format!("the best of {samples} random partitions: POT found no bounded tail ({why}), so below the family's best"),
    };
    println!(
        "\nbound = {said}: {:.4} {}{interval}; gaps are to it. It is no ceiling for a policy that moves threads.",
        rep.best, rep.objective
    );
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
