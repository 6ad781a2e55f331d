//! RDA §4.4: Fig. 12 (working set of the top two progress periods of
//! water_nsquared and ocean_cp against input size, a logarithmic fit on the
//! first three inputs predicting the fourth) and Fig. 13 (water_nsquared's
//! longest period at 1, 6 and 12 concurrent instances).
//!
//! Fig. 12 runs our profiler (`rda::profile`, §2.4) on memory-access traces
//! of the two programs' main loops, generated here from their algorithms
//! (SPLASH-2): the profiler, not the generator, decides each period's
//! working set. Readings (also in docs/rda.md):
//! * water_nsquared, 672 bytes per molecule (SPLASH-2's molecule record:
//!   positions, forces and derivatives of 3 atoms, 10.5 lines).
//!   PP1 `INTERF`: for each molecule i, the n/2 molecules after it (wrapping),
//!   reading each partner's position lines and updating its force lines.
//!   PP2 `PREDIC`/`CORREC`: each molecule's whole record read and written.
//! * ocean_cp, n×n grids of doubles (n = 514 … 4098 cells per side).
//!   PP1 red-black relaxation: a 5-point stencil over one grid and its
//!   right-hand side. PP2 multigrid restriction: each coarse point averages
//!   a 2×2 block of the fine grid.
//!
//! Each period's trace is `WINDOWS` profiler windows long and profiled on its
//! own (the paper selects "the top two progress periods" of each program;
//! profiled back to back, water_nsquared's two periods at 64,000 molecules
//! have working sets within 3% and reuse within 20% of each other, and the
//! profiler's similarity rule merges them).

use super::{over_trials, Trial};
use crate::error::RunError;
use crate::failure::StudyError;
use crate::report::Sink;
use crate::table::{Cell, Table};
use cosched_machine::MachineSpec;
use cosched_policies::rda::profile::{periods, windows, ProfileParams};
use cosched_policies::rda::LogFit;
use cosched_policies::{self as policies, PolicyOptions};
use cosched_sim::engine::{self, SimOptions};
use cosched_sim::presets;
use rayon::prelude::*;

/// Accesses per profiler window in Fig. 12.
const WINDOW: usize = 250_000;
/// Windows of trace per progress period.
const WINDOWS: usize = 8;
const LINE: u64 = 64;
const MOLECULE: u64 = 672;

/// The two programs and their four input sizes (§4.4: "8000, 15625, 32768,
/// and 64000 molecules; and 514, 1026, 2050, and 4098 cells").
const WATER: [u64; 4] = [8000, 15625, 32768, 64000];
const OCEAN: [u64; 4] = [514, 1026, 2050, 4098];

/// Emits addresses until `budget` of them are out.
struct Tracer {
    out: Vec<u64>,
    budget: usize,
}

impl Tracer {
    fn full(&self) -> bool {
        self.out.len() >= self.budget
    }
    fn touch(&mut self, a: u64) {
        if !self.full() {
            self.out.push(a);
        }
    }
}

/// water_nsquared's PP1 (INTERF) and PP2 (PREDIC/CORREC) traces at `n` molecules.
fn water(n: u64) -> [Vec<u64>; 2] {
    let per = WINDOW * WINDOWS;
    let mut t = Tracer { out: Vec::with_capacity(per), budget: per };
    let base = 1u64 << 32;
    'interf: for i in 0.. {
        for k in 1..=n / 2 {
            let j = (i + k) % n;
            let m = base + j * MOLECULE;
            t.touch(m); // positions of partner j (2 lines)
            t.touch(m + LINE);
            t.touch(m + 2 * LINE); // its forces, read and written
            t.touch(m + 3 * LINE);
            if t.full() {
                break 'interf;
            }
        }
    }
    let pp1 = std::mem::replace(&mut t.out, Vec::with_capacity(per));
    'predic: for i in 0.. {
        let m = base + (i % n) * MOLECULE;
        for l in 0..MOLECULE.div_ceil(LINE) {
            t.touch(m + l * LINE); // read the derivative line
            t.touch(m + l * LINE); // and write it back
        }
        if t.full() {
            break 'predic;
        }
    }
    [pp1, t.out]
}

/// ocean_cp's PP1 (red-black relaxation) and PP2 (restriction) traces at `n` cells per side.
fn ocean(n: u64) -> [Vec<u64>; 2] {
    let per = WINDOW * WINDOWS;
    let mut t = Tracer { out: Vec::with_capacity(per), budget: per };
    let (grid, rhs, coarse) = (1u64 << 36, 2u64 << 36, 3u64 << 36);
    let at = |g: u64, r: u64, c: u64, w: u64| g + (r * w + c) * 8;
    'relax: for sweep in 0.. {
        for r in 1..n - 1 {
            for c in (1 + (r + sweep) % 2..n - 1).step_by(2) {
                for (dr, dc) in [(0, 1), (2, 1), (1, 0), (1, 2)] {
                    t.touch(at(grid, r + dr - 1, c + dc - 1, n));
                }
                t.touch(at(rhs, r, c, n));
                t.touch(at(grid, r, c, n));
                if t.full() {
                    break 'relax;
                }
            }
        }
    }
    let pp1 = std::mem::replace(&mut t.out, Vec::with_capacity(per));
    let half = n / 2;
    'restrict: loop {
        for r in 0..half {
            for c in 0..half {
                for (dr, dc) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                    t.touch(at(grid, 2 * r + dr, 2 * c + dc, n));
                }
                t.touch(at(coarse, r, c, half));
                if t.full() {
                    break 'restrict;
                }
            }
        }
    }
    [pp1, t.out]
}

/// Working set (MB) of the longest progress period the profiler finds in `trace`.
fn profiled_wss(trace: &[u64]) -> Result<f64, RunError> {
    let p = ProfileParams { window: WINDOW, ..ProfileParams::default() };
    periods(&windows(trace.iter().copied(), &p), &p)
        .iter()
        .max_by_key(|x| x.end_window - x.start_window)
        .map(|x| x.wss / 1048576.0)
        .ok_or(RunError::Study(StudyError::NoPeriodFound))
}

/// Working sets (MB) of PP1 and PP2.
fn top_two(traces: [Vec<u64>; 2]) -> Result<(f64, f64), RunError> {
    Ok((profiled_wss(&traces[0])?, profiled_wss(&traces[1])?))
}

/// Fig. 12: profiled working sets, the log fit on the first three inputs, its prediction of the fourth.
pub fn fig12(out: &mut dyn Sink) -> Result<(), RunError> {
    let cases: Vec<(&str, u64)> =
        WATER.iter().map(|&n| ("water", n)).chain(OCEAN.iter().map(|&n| ("ocean", n))).collect();
    let wss: Vec<(f64, f64)> = cases
        .par_iter()
        .map(|&(app, n)| top_two(if app == "water" { water(n) } else { ocean(n) }))
        .collect::<Result<_, _>>()?;
    let mut tab = Table::new(&[
        "period",
        "1x MB",
        "2x MB",
        "4x MB",
        "8x MB (profiled)",
        "8x MB (predicted)",
        "prediction accuracy %",
        "fit R²",
    ]);
    for (app, label, sizes) in [("water", "Wnsq", WATER), ("ocean", "Ocp", OCEAN)] {
        for pp in 0..2 {
            let pts: Vec<(f64, f64)> = cases
                .iter()
                .zip(&wss)
                .filter(|(c, _)| c.0 == app)
                .map(|(c, w)| (c.1 as f64, if pp == 0 { w.0 } else { w.1 }))
                .collect();
            let fit = LogFit::fit(&pts[..3]).ok_or(RunError::Study(StudyError::DegenerateFit))?;
            let (pred, actual) = (fit.predict(sizes[3] as f64), pts[3].1);
            let mut row: Vec<Cell> = vec![format!("{label} PP{}", pp + 1).into()];
            row.extend(pts.iter().map(|p| Cell::from(format!("{:.3}", p.1))));
            row.push(format!("{pred:.3}").into());
            row.push(format!("{:.1}", (1.0 - (pred - actual).abs() / actual) * 100.0).into());
            row.push(format!("{:.3}", fit.r2).into());
            tab.push(row);
        }
    }
    out.heading(String::from(
        "## Fig. 12: working set of the top two progress periods against input size (profiler on generated traces)\n",
    ));
    out.line(format!("Paper: growth \"in the shape of a logarithmic curve\"; a logarithmic regression over the first three inputs predicts the fourth with 92% and 80% accuracy (water_nsquared PP1, PP2) and 95% and 94% (ocean_cp). Inputs: {WATER:?} molecules, {OCEAN:?} cells per side. Our profiler: windows of {WINDOW} accesses, lines touched at least twice; traces are exact, so no seeds.\n"));
    out.table(tab, "fig12.csv");
    Ok(())
}

/// Fig. 13: the longest period of water_nsquared (`rda-water-nsq-8000`, its
/// working set scaled with the molecule count) at 1, 6 and 12 concurrent
/// instances under CFS: throughput relative to one instance.
pub fn fig13(m: &MachineSpec, trials: &[Trial], out: &mut dyn Sink) -> Result<(), RunError> {
    let base = presets::workload("rda-water-nsq-8000").map_err(RunError::from)?;
    let sizes = [512.0, 3375.0, 8000.0, 32768.0];
    let counts = [1u32, 6, 12];
    let cells: Vec<(f64, u32)> = sizes.iter().flat_map(|&s| counts.iter().map(move |&c| (s, c))).collect();
    let rates = over_trials(&cells, trials, |&(size, count), t| {
        let mut w = base.clone();
        w.name = format!("rda-water-nsq-{size}");
        let job = &mut w.jobs[0];
        job.instances = count;
        for ph in &mut job.phases {
            ph.footprint_mb *= size / 8000.0;
            ph.mrc_ref_mb = ph.mrc_ref_mb.map(|r| r * size / 8000.0);
        }
        let mm = t.machine(m);
        let plan = t.plan(&w, &mm)?;
        let o = PolicyOptions { seed: t.seed, ..PolicyOptions::default() };
        let r = engine::run(
            &mm,
            &plan,
            &mut *policies::make("cfs", &o)?,
            &SimOptions { seed: t.seed, ..SimOptions::default() },
            None,
        )?;
        Ok(r.totals.instructions / (r.makespan as f64 * 1e-9))
    })?;
    let mut tab =
        Table::new(&["molecules", "working set MB", "6 / 1 instances", "12 / 1 instances", "12 / 6 instances"]);
    let nt = trials.len();
    for (i, &size) in sizes.iter().enumerate() {
        let r = |c: usize, k: usize| rates[i * counts.len() + c][k];
        let ratio = |a: usize, b: usize| (0..nt).map(|k| r(a, k) / r(b, k)).collect::<Vec<f64>>();
        tab.push(vec![
            format!("{size}").into(),
            format!("{:.2}", base.jobs[0].phases[0].footprint_mb * size / 8000.0).into(),
            Cell::value(&ratio(1, 0), 2),
            Cell::value(&ratio(2, 0), 2),
            Cell::value(&ratio(2, 1), 3),
        ]);
    }
    out.heading(String::from(
        "## Fig. 13: water_nsquared's longest period at 1, 6 and 12 concurrent instances (CFS; throughput ratios)\n",
    ));
    out.line("Paper: at 512 and 3375 molecules \"the performance scales fairly well\"; at 8000 it scales from 1 to 6 but \"the GFLOPS drops from 33 to 20\" from 6 to 12 (12/6 = 0.606); at 32768 it scales from 1 to 6 and \"from 6 processes to 12, the performance remains unchanged\" (12/6 = 1). 8000 is the fitted calibration point (`cosched validate`), 32768 held out; working set scaled linearly with molecules.\n".to_string());
    out.table(tab, "fig13.csv");
    Ok(())
}
