//! Random thread assignments measured on the simulated machine, the best
//! one found, and the POT estimate of the optimum (statistical thread
//! assignment §4-6), optionally with SP-POT pruning (§5).

use crate::assignment::{measure_in_run, random_assignment, sample_run, Predictor, SimplePredictor};
use crate::error::{RunError, SimFailure};
use crate::evt::parse_threshold;
use cosched_core::evt::sampling::{falling_factorial, prob_in_top};
use cosched_core::evt::{pot, PotResult};
use cosched_machine::ConfigError;
use cosched_policies::knob::Kind;
use cosched_sim::{presets, Plan};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::Serialize;

/// A confidence level: the interval's coverage, short of 0 and 1.
const CONFIDENCE: Kind = Kind::Float { min: 0.001, max: 0.999 };
const SIZE: Kind = Kind::Int { min: 0, max: u64::MAX };

cosched_core::options! {
    /// The options of a random-assignment study (`cosched assign`'s flags,
    /// Python's `cosched.assign` keywords).
    pub struct AssignOptions of "assign", "statistical thread assignment §4-6" {
        /// Machine preset or file.
        machine: String = (Kind::Text, "ultrasparc-t2"),
        /// Workload preset or file.
        workload: String = (Kind::Text, "ipfwd-mem"),
        /// Random assignments to draw.
        samples: usize = (SIZE, "2000"),
        /// SP-POT: share of the predicted-worst assignments not measured (0, 0.5, 0.75, 0.9).
        prune: f64 = (Kind::Float { min: 0.0, max: 0.999 }, "0"),
        /// Predictor for pruning.
        predictor: String = (Kind::Text, "simple"),
        /// Threshold: `auto`, a value or `qQUANTILE`.
        threshold: String = (Kind::Text, "auto"),
        /// Confidence level of the interval.
        confidence: f64 = (CONFIDENCE, "0.95"),
        /// Seed of the random assignments (and of each measurement's run-to-run variation).
        seed: u64 = (SIZE, "1"),
        /// Run-to-run variation of each measurement, in units of the published magnitudes (each
        /// assignment is measured in a run of its own, as on the real machine; 0 = exact model).
        noise: f64 = (Kind::Float { min: 0.0, max: cosched_sim::variation::MAX_NOISE }, "1"),
        /// With --prune, also measure every assignment and report plain POT beside SP-POT.
        compare_plain: bool = (Kind::Switch, ""),
    }
}

cosched_core::metric_fields! {
    /// Random assignments, the best measured and the POT estimate of the
    /// optimum (`cosched assign --format json`; Python's `cosched.assign`).
    #[derive(Serialize)]
    pub struct AssignmentReport {
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
}

/// Receives every measured (sample, GIPS) and the predictor's score of each.
pub type Measured<'a> = dyn FnMut(&[(usize, f64)], &[f64]) -> Result<(), RunError> + 'a;

/// Draw, (prune,) measure and estimate; `total` is told how many
/// measurements there will be, `tick` each one; `measured` receives every
/// (sample, GIPS) measured and the predictor's score of each before the estimate.
pub fn report(
    a: &AssignOptions,
    total: &dyn Fn(usize),
    tick: &(dyn Fn() + Sync),
    measured: &mut Measured<'_>,
) -> Result<AssignmentReport, RunError> {
    // Options built in code meet the ranges their declaration gives the faces (one rule).
    for (name, v) in [("prune", a.prune), ("confidence", a.confidence), ("noise", a.noise)] {
        crate::declared::check_float::<AssignOptions>(name, v)?;
    }
    crate::limits::SAMPLES.check(a.samples as u64)?;
    if a.predictor != "simple" {
        return Err(RunError::knob("predictor", format!("unknown predictor `{}` (known: simple)", a.predictor)));
    }
    let m = cosched_machine::presets::machine(&a.machine)?;
    let w = presets::workload(&a.workload)?;
    cosched_sim::variation::check_noise(a.noise).map_err(|e| RunError::knob("noise", e.to_string()))?;
    // The exact plan: the predictor's profiles, and every measurement when --noise 0.
    let plan = Plan::new(&w, &m, None, 1, &a.workload)?;
    let topo = m.topology();
    let threads = plan.threads.len();
    if threads > topo.n_contexts() {
        return Err(RunError::Config(ConfigError::whole(
            &a.workload,
            format!("{threads} threads do not fit {} contexts one per context", topo.n_contexts()),
        )));
    }
    let threshold = parse_threshold(&a.threshold)?;
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
            let p = measure_in_run(&m, &w, &plan, &all[i], sample_run(a.seed, i), a.noise).map_err(|error| {
                RunError::Simulation(Box::new(SimFailure::Run { workload: a.workload.clone(), error }))
            })?;
            tick();
            Ok((i, p))
        })
        .collect::<Result<_, RunError>>()?;
    let of = |i: usize| perf.iter().find(|p| p.0 == i).map(|p| p.1).expect("measured");
    let predicted: Vec<f64> = perf.iter().map(|(i, _)| SimplePredictor.predict(&plan, &topo, &all[*i])).collect();
    measured(&perf, &predicted)?;
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
    Ok(AssignmentReport {
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
