//! The rerun itself: every study's workloads under every variant, paired by
//! seed, and the report's tables (see the module above).

use super::*;
use crate::error::RunError;
use crate::optimum::weakest_kind;
use crate::paper::{over_trials, Seeds};
use crate::report::Sink;
use crate::table::{Cell, Table};
use cosched_core::stats::geomean;
use cosched_policies::knob::Word;

/// The combined policy on each paper's workloads and objective, against the paper's policy and CFS, with ablations.
pub fn run(a: &Options, out: &mut dyn Sink) -> Result<(), RunError> {
    a.seeds.check()?;
    crate::limits::SAMPLES.check(a.samples as u64)?;
    crate::limits::SAMPLES.check(a.partition_samples as u64)?;
    let trials = a.seeds.trials();
    crate::limits::SEEDS.check(a.bound_seeds)?;
    // The further seeds of the distance to the bound.
    let more = Seeds { seeds: a.bound_seeds.max(a.seeds.seeds), noise: a.seeds.noise }.trials().split_off(trials.len());
    if let Some(ws) = &a.studies {
        if let Some(bad) = ws.iter().find(|w| !STUDY_WORDS.contains(&w.as_str())) {
            return Err(RunError::knob(
                "studies",
                format!("`{bad}` is not a study (known: {})", STUDY_WORDS.join(", ")),
            ));
        }
    }
    let chosen = |i: usize| a.studies.as_ref().is_none_or(|ws| ws.iter().any(|w| w == STUDY_WORDS[i]));
    out.heading(format!(
        "# quintet on each paper's workloads\n\n{} seeds, run-to-run variation {}, mean ±95% interval: \
         simulation precision; gains are quintet's over the named policy, paired by seed (positive: \
         quintet better on the paper's objective); \"no difference\" when the 95% interval holds 0.\n",
        trials.len(),
        a.seeds.noise
    ));
    let mut summary = Table::new(&[
        "paper",
        "jobs",
        "objective",
        "workloads",
        "vs the paper's policy",
        "vs cfs",
        "speed vs the paper's policy %",
    ]);
    let mut results = Table::new(&[
        "paper",
        "workload",
        "jobs",
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
    let mut ablations = Table::new(&[
        "paper",
        "workload",
        "mechanism",
        "leave-one-out: quintet minus quintet without it",
        "add-one: quintet with it alone minus quintet with none",
        "all of them: quintet minus quintet with none",
    ]);
    let mut gaps = Table::new(&[
        "paper",
        "workload",
        "seeds",
        "bound",
        "bound gips",
        "bound's 95% interval per seed (mean of its ends)",
        "cfs gap to bound %",
        "paper's policy gap to bound %",
        "quintet gap to bound %",
        "beats the bound",
    ]);
    for (i, s) in STUDIES.iter().enumerate() {
        if !chosen(i) {
            continue;
        }
        let m = cosched_machine::presets::machine(s.machine).map_err(RunError::from)?;
        crate::paper::progress_label(format!("quintet, {} study", s.paper));
        let vs = variants(s, &m);
        let mechanisms = used(s, &m);
        let wl = study_workloads(s, &m)?;
        let cells = over_trials(&wl, &trials, |w, t| {
            let bound = w.bound.then_some((a.samples, a.partition_samples));
            study_cell(s, &vs, &m, &w.spec, t, bound)
        })?;
        let at = |w: usize, v: usize| -> Vec<Run> { cells[w].iter().map(|c| c.0[v]).collect() };
        let q = vs.iter().position(|v| v.role == Role::Full).expect("quintet");
        // CFS, the paper's policy and quintet (the first variants) on the further seeds, with the bound.
        let bounded: Vec<&Workload> = wl.iter().filter(|w| w.bound).collect();
        let further = over_trials(&bounded, &more, |w, t| {
            study_cell(s, &vs[..=q], &m, &w.spec, t, Some((a.samples, a.partition_samples)))
        })?;
        let rival = s.rival.map(|_| 1);
        let none = bare(&vs, &mechanisms);
        let diff_of = |w: usize, x: usize, y: usize| -> Vec<f64> {
            at(w, x).iter().zip(at(w, y)).map(|(o, r)| s.metric.better(o.value, r.value)).collect()
        };
        let diff = |w: usize, v: usize| diff_of(w, q, v);
        let speed = |w: usize, v: usize| -> Vec<f64> {
            at(w, q).iter().zip(at(w, v)).map(|(o, x)| Metric::Speed.better(o.makespan, x.makespan)).collect()
        };
        // Each workload's jobs: how long alone, against the paper's.
        let jobs_of = |w: usize| -> String {
            match cells[w][0].2 {
                Some((lo, hi)) if wl[w].paper_length => format!("{lo:.0}-{hi:.0} s alone: the paper's 100 s"),
                Some((lo, hi)) => format!("{lo:.1}-{hi:.1} s alone; {}", s.regime),
                None => s.regime.to_string(),
            }
        };
        for (w, wk) in wl.iter().enumerate() {
            let name = &wk.name;
            let vals = |v: usize| Cell::value(&at(w, v).iter().map(|r| r.value).collect::<Vec<_>>(), 3);
            results.push(vec![
                s.paper.into(),
                name.clone().into(),
                jobs_of(w).into(),
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
            for &mech in &mechanisms {
                let without = vs.iter().position(|v| v.role == Role::Without(mech)).expect("a leave-one-out arm");
                ablations.push(vec![
                    s.paper.into(),
                    name.clone().into(),
                    mech.word().into(),
                    Cell::diff(&diff(w, without), s.metric.digits()),
                    Cell::diff(&diff_of(w, only(&vs, &mechanisms, mech), none), s.metric.digits()),
                    Cell::diff(&diff(w, none), s.metric.digits()),
                ]);
            }
            for (role, what) in [
                (Role::QueueProgress, "progress: the pull across run queues"),
                (Role::NoEstimation, "progress: IPC alone measured on an idle sibling"),
                (Role::LightFill, "progress, added (not in quintet; positive: better without it): only light threads start while one is measured alone"),
                (Role::SliceMeasure, "progress: IPC alone measured over a 200-ms quantum"),
            ] {
                if let Some(arm) = vs.iter().position(|v| v.role == role) {
                    ablations.push(vec![
                        s.paper.into(),
                        name.clone().into(),
                        what.into(),
                        Cell::diff(&diff(w, arm), s.metric.digits()),
                        "-".into(),
                        "-".into(),
                    ]);
                }
            }
            if wk.bound {
                let b = bounded.iter().position(|x| std::ptr::eq(*x, wk)).expect("a bounded workload");
                let all: Vec<&StudyCell> = cells[w].iter().chain(&further[b]).collect();
                let bounds: Vec<&Bound> = all.iter().map(|c| c.1.as_ref().expect("the bound was computed")).collect();
                // The weakest kind any seed needed names the bound.
                let bs = crate::compare::BestStatic {
                    bound: weakest_kind(bounds.iter().map(|b| b.0.as_str())),
                    coschedules: String::new(),
                    best_gips: bounds.iter().map(|b| b.1).collect(),
                    best_ci: bounds.iter().map(|b| b.2).collect(),
                    samples: 0,
                };
                let gips = |v: usize| -> Vec<f64> { all.iter().map(|c| c.0[v].gips).collect() };
                let gap = |v: usize| -> Vec<f64> {
                    gips(v).iter().zip(&bs.best_gips).map(|(g, b)| (1.0 - g / b) * 100.0).collect()
                };
                let mut named = vec![(0, "cfs")];
                named.extend(rival.zip(s.rival));
                named.push((q, "quintet"));
                let beat: Vec<&str> = named.iter().filter(|(v, _)| bs.beaten_by(&gips(*v))).map(|x| x.1).collect();
                gaps.push(vec![
                    s.paper.into(),
                    name.clone().into(),
                    all.len().to_string().into(),
                    bs.bound.into(),
                    Cell::value(&bs.best_gips, 3),
                    interval_ends(&bs.best_ci).into(),
                    Cell::value(&gap(0), 2),
                    rival.map_or("-".into(), |r| Cell::value(&gap(r), 2)),
                    Cell::value(&gap(q), 2),
                    if beat.is_empty() { "none".into() } else { beat.join(", ").into() },
                ]);
            }
        }
        // The study as a whole, one row per regime (the paper's job length, or the presets'):
        // per seed, the geometric mean over the regime's workloads of each ratio (the mean of the
        // differences for unfairness, a ratio of ratios having no meaning).
        for paper_length in [true, false] {
            let ws: Vec<usize> = (0..wl.len()).filter(|&w| wl[w].paper_length == paper_length).collect();
            if ws.is_empty() {
                continue;
            }
            let over = |metric: Metric, v: usize, value: &dyn Fn(&Run) -> f64| -> Cell {
                let d: Vec<f64> = (0..trials.len())
                    .map(|k| {
                        let each =
                            ws.iter().map(|&w| metric.better(value(&cells[w][k].0[q]), value(&cells[w][k].0[v])));
                        if metric == Metric::Unfairness {
                            each.sum::<f64>() / ws.len() as f64
                        } else {
                            let ratios: Vec<f64> = each.map(|x| 1.0 + x / 100.0).collect();
                            (geomean(&ratios) - 1.0) * 100.0
                        }
                    })
                    .collect();
                Cell::diff(&d, metric.digits())
            };
            let whole = |v: usize| over(s.metric, v, &|r: &Run| r.value);
            let jobs = if paper_length {
                format!("{} mixes of `paper perf-fair`, each job 100 s alone: the paper's regime", ws.len())
            } else {
                s.regime.to_string()
            };
            summary.push(vec![
                s.paper.into(),
                jobs.into(),
                format!("{} ({})", s.objective.word(), s.metric.gain()).into(),
                ws.len().to_string().into(),
                rival.map_or("- (no policy: the optimum is the yardstick)".into(), whole),
                whole(0),
                rival.map_or("-".into(), |r| over(Metric::Speed, r, &|x: &Run| x.makespan)),
            ]);
        }
    }
    out.heading(
        "## Each paper's study as a whole, per regime (geometric mean over its workloads of each seed's ratio; \
         unfairness: the mean difference)\n"
            .to_string(),
    );
    out.table(summary, "summary.csv");
    out.heading("## Per workload\n".to_string());
    out.table(results, "results.csv");
    out.heading(
        "## Ablations: each mechanism left out of quintet, and alone (positive: the mechanism helps)\n\n\
         When the add-one gains of a workload's mechanisms sum to more than the gain of all of them together, \
         the mechanisms overlap: each alone does part of what the others do, and leaving one out costs less \
         than its gain alone.\n"
            .to_string(),
    );
    out.table(ablations, "ablations.csv");
    out.heading(format!(
        "## Distance to the bound: the best static partition with idle contexts allowed (throughput below it, % per \
         seed; negative: above it)\n\n\
         At {} seeds: the first {} are the runs above; on the others only CFS, the paper's policy and quintet run, \
         each seed with its own bound.\n\n\
         The bound's family: each thread pinned to one context for the whole run, a context's threads taking turns of \
         the round-robin quantum, any context idle (what RDA and EFS exploit). It is exact where the family is small \
         enough to simulate whole, else the exact best static co-schedule beside the EVT estimate over random \
         partitions, or the EVT estimate alone; a policy that moves threads can be above it. Beating it takes a paired \
         interval below zero at {} seeds or more, against its upper interval end (\"beats the bound\").\n",
        trials.len() + more.len(),
        trials.len(),
        crate::compare::BEAT_SEEDS,
    ));
    out.table(gaps, "gap-to-bound.csv");
    Ok(())
}
