//! `cosched assign`: random thread assignments measured on the simulated
//! machine, the best one found, and the POT estimate of the optimum
//! (statistical thread assignment §4-6), optionally with SP-POT pruning.

use crate::error::RunError;
use crate::evt::parse_threshold;
use crate::opts::Format;
use crate::output::table;
use clap::Args as ClapArgs;
use cosched_core::evt::sampling::{falling_factorial, prob_in_top};
use cosched_core::evt::{pot, PotResult};
use cosched_machine::ConfigError;
use cosched_sim::assignment::{measure_in_run, random_assignment, sample_run, Predictor, SimplePredictor};
use cosched_sim::{presets, Plan};
use indicatif::{ProgressBar, ProgressStyle};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::Serialize;

/// `cosched assign`'s arguments.
#[derive(ClapArgs)]
pub struct Args {
    /// Machine preset or file.
    #[arg(long, short = 'm', default_value = "ultrasparc-t2")]
    machine: String,
    /// Workload preset or file.
    #[arg(long, short = 'w', default_value = "ipfwd-mem")]
    workload: String,
    /// Random assignments to draw.
    #[arg(long, default_value_t = 2000)]
    samples: usize,
    /// SP-POT: share of the predicted-worst assignments not measured (0, 0.5, 0.75, 0.9).
    #[arg(long, default_value_t = 0.0)]
    prune: f64,
    /// Predictor for pruning.
    #[arg(long, default_value = "simple")]
    predictor: String,
    /// Threshold: `auto`, a value or `qQUANTILE`.
    #[arg(long, default_value = "auto")]
    threshold: String,
    /// Confidence level of the interval.
    #[arg(long, default_value_t = 0.95)]
    confidence: f64,
    /// Seed of the random assignments (and of each measurement's run-to-run variation).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Run-to-run variation of each measurement, in units of the published magnitudes (each
    /// assignment is measured in a run of its own, as on the real machine; 0 = exact model).
    #[arg(long, default_value_t = 1.0)]
    noise: f64,
    /// With --prune, also measure every assignment and report plain POT beside SP-POT.
    #[arg(long)]
    compare_plain: bool,
    /// Write every measured assignment's performance to this CSV (for `cosched evt`).
    #[arg(long)]
    dump: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
}

/// Random assignments, the best measured and the POT estimate of the
/// optimum (`cosched assign --format json`; Python's `cosched.assign`).
#[derive(Serialize)]
pub struct Report {
    /// Machine name.
    pub machine: String,
    /// Workload name.
    pub workload: String,
    /// Threads placed.
    pub threads: usize,
    /// Number of distinct placements (a falling factorial, as text: it may not fit 64 bits).
    pub population: String,
    /// Assignments drawn.
    pub samples: usize,
    /// Assignments measured (after SP-POT pruning).
    pub measured: usize,
    /// Share pruned (§5).
    pub prune: f64,
    /// Best measured performance, GIPS.
    pub best: f64,
    /// Context of each thread in the best assignment.
    pub best_assignment: Vec<u32>,
    /// POT (or SP-POT) estimate of the optimum.
    pub pot: PotResult,
    /// With `--compare-plain`: plain POT on every assignment.
    pub plain_pot: Option<PotResult>,
    /// Eq. 2: probability that the sample holds one of the top 1% assignments.
    pub prob_sample_has_top_1pct: f64,
    /// Every measured assignment: (sample index, GIPS), in sample order.
    #[serde(skip)]
    pub measured_perf: Vec<(usize, f64)>,
    /// The predictor's score of every measured assignment, same order.
    #[serde(skip)]
    pub predicted: Vec<f64>,
}

/// `cosched assign`: print the report (and `--dump` the measurements).
pub fn run(a: Args) -> Result<(), String> {
    crate::output::check_out_file("--dump", a.dump.as_deref().map(std::path::Path::new))?;
    let bar = ProgressBar::new(0);
    bar.set_style(ProgressStyle::with_template("{bar:30} {pos}/{len} assignments {elapsed}").expect("template"));
    let mut dump = |perf: &[(usize, f64)], predicted: &[f64]| -> Result<(), String> {
        bar.finish_and_clear();
        let Some(path) = &a.dump else { return Ok(()) };
        // In sample (measurement) order, with the predictor's score beside the
        // measurement; written before the estimate, so a failed fit loses nothing.
        let text: String = std::iter::once("sample,gips,predicted\n".to_string())
            .chain(perf.iter().zip(predicted).map(|((i, p), q)| format!("{i},{p},{q}\n")))
            .collect();
        std::fs::write(path, text).map_err(|e| format!("{path}: {e}"))
    };
    let rep = report(&a, &|n| bar.inc_length(n as u64), &|| bar.inc(1), &mut dump)?;
    if rep.pot.gpd_rejected_everywhere {
        eprintln!("{}: warning: {}", a.workload, crate::evt::REJECTED);
    }
    print(&rep, a.format)
}

/// Receives every measured (sample, GIPS) and the predictor's score of each.
pub type Measured<'a> = dyn FnMut(&[(usize, f64)], &[f64]) -> Result<(), String> + 'a;

/// Draw, (prune,) measure and estimate; `total` is told how many
/// measurements there will be, `tick` each one; `measured` receives every
/// (sample, GIPS) measured and the predictor's score of each before the estimate.
pub fn report(
    a: &Args,
    total: &dyn Fn(usize),
    tick: &(dyn Fn() + Sync),
    measured: &mut Measured<'_>,
) -> Result<Report, RunError> {
    if !(0.0..1.0).contains(&a.prune) {
        return Err(RunError::Option(format!(
            "--prune: must be in [0, 1), got {}",
            cosched_core::num::shortest(a.prune)
        )));
    }
    crate::limits::SAMPLES.check(a.samples as u64).map_err(RunError::Option)?;
    if a.predictor != "simple" {
        return Err(RunError::Option(format!("--predictor: unknown predictor `{}` (known: simple)", a.predictor)));
    }
    let m = cosched_machine::presets::machine(&a.machine)?;
    let w = presets::workload(&a.workload)?;
    cosched_sim::variation::check_noise(a.noise).map_err(|e| RunError::Option(format!("--noise: {e}")))?;
    // The exact plan: the predictor's profiles, and every measurement when --noise 0.
    let plan = Plan::new(&w, &m, None, 1, &a.workload)?;
    let topo = m.topology();
    let threads = plan.threads.len();
    if threads > topo.n_contexts() {
        return Err(RunError::Config(ConfigError::new(
            &a.workload,
            "-",
            format!("{threads} threads do not fit {} contexts one per context", topo.n_contexts()),
        )));
    }
    let threshold = parse_threshold(&a.threshold).map_err(RunError::Option)?;
    let mut rng = ChaCha8Rng::seed_from_u64(a.seed);
    let all: Vec<_> = (0..a.samples).map(|_| random_assignment(&topo, threads, &mut rng)).collect();
    let mut order: Vec<usize> = (0..all.len()).collect();
    if a.prune > 0.0 {
        let pred: Vec<f64> = all.iter().map(|x| SimplePredictor.predict(&plan, &topo, x)).collect();
        order.sort_by(|&i, &j| pred[j].total_cmp(&pred[i]).then(i.cmp(&j)));
        order.truncate(((1.0 - a.prune) * all.len() as f64).ceil() as usize);
        order.sort();
    }
    let to_measure: Vec<usize> = if a.compare_plain { (0..all.len()).collect() } else { order.clone() };
    total(to_measure.len());
    let perf: Vec<(usize, f64)> = to_measure
        .par_iter()
        .map(|&i| {
            // Assignment i is measured in run i: its own draw of the ground truth.
            let p = measure_in_run(&m, &w, &plan, &all[i], sample_run(a.seed, i), a.noise)
                .map_err(|e| RunError::Simulation(format!("{}: {e}", a.workload)))?;
            tick();
            Ok((i, p))
        })
        .collect::<Result<_, RunError>>()?;
    let of = |i: usize| perf.iter().find(|p| p.0 == i).map(|p| p.1).expect("measured");
    let predicted: Vec<f64> = perf.iter().map(|(i, _)| SimplePredictor.predict(&plan, &topo, &all[*i])).collect();
    measured(&perf, &predicted).map_err(RunError::Option)?;
    let kept: Vec<f64> = order.iter().map(|&i| of(i)).collect();
    let sp_threshold = match threshold {
        cosched_core::evt::Threshold::Auto if a.prune > 0.0 => {
            cosched_core::evt::Threshold::AutoPruned { total: all.len() }
        }
        t => t,
    };
    let r =
        pot(&kept, sp_threshold, a.confidence).map_err(|error| RunError::Evt { context: a.workload.clone(), error })?;
    let plain = if a.compare_plain && a.prune > 0.0 {
        let xs: Vec<f64> = (0..all.len()).map(of).collect();
        Some(
            pot(&xs, threshold, a.confidence)
                .map_err(|error| RunError::Evt { context: format!("{}: plain POT", a.workload), error })?,
        )
    } else {
        None
    };
    let (bi, best) = order.iter().map(|&i| (i, of(i))).max_by(|x, y| x.1.total_cmp(&y.1)).expect("nonempty");
    Ok(Report {
        machine: m.name.clone(),
        workload: w.name.clone(),
        threads,
        population: falling_factorial(topo.n_contexts() as u64, threads as u64),
        samples: a.samples,
        measured: order.len(),
        prune: a.prune,
        best,
        best_assignment: all[bi].iter().map(|c| c.0).collect(),
        pot: r,
        plain_pot: plain,
        prob_sample_has_top_1pct: prob_in_top(1.0, a.samples as u64),
        measured_perf: perf,
        predicted,
    })
}

fn print(rep: &Report, format: Format) -> Result<(), String> {
    match format {
        crate::opts::Format::Json => println!("{}", serde_json::to_string_pretty(rep).map_err(|e| e.to_string())?),
        _ => {
            let p = &rep.pot;
            let mut rows = vec![
                vec!["quantity".to_string(), "value".into()],
                vec!["assignment population (placements)".into(), rep.population.clone()],
                vec!["samples drawn / measured".into(), format!("{} / {}", rep.samples, rep.measured)],
                vec!["best measured (GIPS)".into(), format!("{:.5}", rep.best)],
                vec!["POT upper bound (GIPS)".into(), format!("{:.5}", p.upb)],
                vec![format!("{:.0}% interval", p.confidence * 100.0), format!("[{:.5}, {:.5}]", p.ci.0, p.ci.1)],
                vec!["gap best→bound".into(), format!("{:.3}%", p.gap / p.upb * 100.0)],
                vec![
                    "threshold / exceedances / ξ".into(),
                    format!("{:.5} / {} / {:.4}", p.threshold, p.exceedances, p.fit.xi),
                ],
                vec!["P(sample holds a top-1% assignment)".into(), format!("{:.4}", rep.prob_sample_has_top_1pct)],
            ];
            if let Some(pl) = &rep.plain_pot {
                rows.push(vec![
                    "plain POT bound (all measured)".into(),
                    format!("{:.5} (SP-POT differs by {:+.3}%)", pl.upb, (p.upb / pl.upb - 1.0) * 100.0),
                ]);
            }
            table(&rows);
            println!("best assignment (context of each thread): {:?}", rep.best_assignment);
        }
    }
    Ok(())
}
