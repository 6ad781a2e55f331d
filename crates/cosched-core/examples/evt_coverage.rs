//! Coverage study of the POT upper bound's interval: bounded
//! distributions with known endpoints, several sample sizes, seeded
//! replicates; for each threshold rule, how often the nominal-95% profile
//! interval contains the true endpoint and the median interval width
//! (relative to the fixed 95th-percentile rule's, same samples).
//!
//! Run: `scripts/bench-evt-coverage [REPLICATES]` (default 200), which calls
//! `cargo run --release -p cosched-core --example evt_coverage -- REPLICATES`.

use cosched_core::evt::threshold::{candidates, candidates_above, forward_stop, stability_rule, FORWARD_STOP_ALPHA};
use cosched_core::evt::{pot, Threshold};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

mod par;
use par::par_map;

/// A bounded distribution: name, sampler, true endpoint.
struct Dist {
    name: &'static str,
    endpoint: f64,
    draw: fn(&mut ChaCha8Rng) -> f64,
}

fn normal(r: &mut ChaCha8Rng) -> f64 {
    let (a, b): (f64, f64) = (r.gen_range(1e-300..1.0), r.gen());
    (-2.0 * a.ln()).sqrt() * (std::f64::consts::TAU * b).cos()
}

/// Gamma(shape, 1) by Marsaglia & Tsang (2000), boosted for shape < 1.
fn gamma(r: &mut ChaCha8Rng, shape: f64) -> f64 {
    if shape < 1.0 {
        return gamma(r, shape + 1.0) * r.gen_range(1e-300..1.0f64).powf(1.0 / shape);
    }
    let d = shape - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let x = normal(r);
        let v = (1.0 + c * x).powi(3);
        if v <= 0.0 {
            continue;
        }
        let u: f64 = r.gen_range(1e-300..1.0);
        if u.ln() < 0.5 * x * x + d - d * v + d * v.ln() {
            return d * v;
        }
    }
}

fn beta(r: &mut ChaCha8Rng, a: f64, b: f64) -> f64 {
    let x = gamma(r, a);
    x / (x + gamma(r, b))
}

const DISTS: [Dist; 7] = [
    Dist { name: "uniform(0, 10)", endpoint: 10.0, draw: |r| r.gen_range(0.0..10.0) },
    Dist { name: "beta(2, 2)", endpoint: 1.0, draw: |r| beta(r, 2.0, 2.0) },
    Dist { name: "beta(5, 1.5)", endpoint: 1.0, draw: |r| beta(r, 5.0, 1.5) },
    Dist { name: "beta(1, 3)", endpoint: 1.0, draw: |r| beta(r, 1.0, 3.0) },
    Dist { name: "beta(0.5, 0.8)", endpoint: 1.0, draw: |r| beta(r, 0.5, 0.8) },
    Dist {
        name: "reversed Weibull(2.5), endpoint 10",
        endpoint: 10.0,
        draw: |r| 10.0 - (-(r.gen_range(1e-300..1.0f64)).ln()).powf(1.0 / 2.5),
    },
    // Plateaus like the simulator's: 12 levels of a beta(2, 2), each with
    // uniform noise of 2% of the range (endpoint: top level + noise).
    Dist {
        name: "staircase(12 levels) + noise",
        endpoint: 11.0 / 12.0 + 0.02,
        draw: |r| (beta(r, 2.0, 2.0) * 12.0).floor() / 12.0 + r.gen_range(0.0..0.02),
    },
];

const SIZES: [usize; 5] = [500, 1000, 2000, 5000, 10000];
const RULES: [&str; 4] =
    ["automatic (ForwardStop + guard)", "ForwardStop alone", "stability rule (earlier)", "fixed q0.95"];

/// (covered, estimated, widths) per rule.
type Tally = Vec<(usize, usize, Vec<f64>)>;

fn study(d: &Dist, n: usize, reps: usize) -> Tally {
    let mut out: Tally = vec![(0, 0, vec![]); RULES.len()];
    for rep in 0..reps {
        let mut r = ChaCha8Rng::seed_from_u64(((n as u64) << 20) ^ rep as u64 ^ (d.name.len() as u64) << 40);
        let xs: Vec<f64> = (0..n).map(|_| (d.draw)(&mut r)).collect();
        let mut sorted = xs.clone();
        sorted.sort_by(f64::total_cmp);
        let c = candidates(&sorted, n);
        let alone = forward_stop(&c, FORWARD_STOP_ALPHA).map(|i| Threshold::Value(c[i].threshold));
        let old = candidates_above(&sorted, n, 0.3);
        let stab = stability_rule(&old).map(|i| Threshold::Value(old[i].threshold));
        let rules = [Some(Threshold::Auto), alone, stab, Some(Threshold::Quantile(0.95))];
        for (k, t) in rules.into_iter().enumerate() {
            if let Some(Ok(p)) = t.map(|t| pot(&xs, t, 0.95)) {
                out[k].1 += 1;
                out[k].0 += (p.ci.0 <= d.endpoint && d.endpoint <= p.ci.1) as usize;
                out[k].2.push(p.ci.1 - p.ci.0);
            }
        }
    }
    out
}

fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let reps: usize = std::env::args().nth(1).map_or(200, |s| s.parse().expect("REPLICATES: a number"));
    let jobs: Vec<(usize, usize)> = (0..DISTS.len()).flat_map(|d| (0..SIZES.len()).map(move |s| (d, s))).collect();
    let mut results: Vec<Option<Tally>> =
        par_map(jobs.len(), |j| Some(study(&DISTS[jobs[j].0], SIZES[jobs[j].1], reps)));
    println!("Coverage of the nominal 95% interval of the upper bound, {reps} replicates per row (seeded).");
    println!("Cell: coverage % among replicates with an estimate [median width / fixed q0.95's] (replicates without an estimate).");
    println!();
    println!("| distribution | n | {} |", RULES.join(" | "));
    println!("|---|---|{}", "---|".repeat(RULES.len()));
    let mut worst = vec![f64::INFINITY; RULES.len()];
    // The automatic rule (column 0) against the 92% target and against the fixed rule's width.
    let (mut met, mut cells_auto, mut below) = (0, 0, Vec::new());
    let (mut narrower, mut compared, mut wider) = (0, 0, Vec::new());
    // ForwardStop alone (column 1), and what the guard adds to it.
    let (mut alone_met, mut alone_cells) = (0, 0);
    let (mut gains, mut widths) = (Vec::new(), Vec::new());
    for (j, &(d, s)) in jobs.iter().enumerate() {
        let mut t = results[j].take().expect("studied");
        let base = median(&mut t[RULES.len() - 1].2);
        let mut ratios = vec![f64::NAN; RULES.len()];
        let cells: Vec<String> = t
            .iter_mut()
            .enumerate()
            .map(|(k, (cov, est, w))| {
                let miss = reps - *est;
                let missing = if miss > 0 { format!(" ({miss})") } else { String::new() };
                if *est == 0 {
                    // No estimate in any replicate: no coverage to report.
                    return format!("—{missing}");
                }
                let c = 100.0 * *cov as f64 / *est as f64;
                worst[k] = worst[k].min(c);
                let m = median(w) / base;
                ratios[k] = m;
                let width = if m.is_finite() { format!("{m:.2}") } else { "—".to_string() };
                format!("{c:.1} [{width}]{missing}")
            })
            .collect();
        let name = format!("{} at n = {}", DISTS[d].name, SIZES[s]);
        let (cov, est, _) = &t[0];
        if *est > 0 {
            cells_auto += 1;
            let c = 100.0 * *cov as f64 / *est as f64;
            if c >= TARGET {
                met += 1;
            } else {
                below.push(format!("{name} ({c:.1}%)"));
            }
        }
        let (cov1, est1, _) = &t[1];
        if *est1 > 0 {
            alone_cells += 1;
            let c1 = 100.0 * *cov1 as f64 / *est1 as f64;
            alone_met += (c1 >= TARGET) as usize;
            if *est > 0 {
                gains.push(100.0 * *cov as f64 / *est as f64 - c1);
            }
            if ratios[0].is_finite() && ratios[1].is_finite() && ratios[1] > 0.0 {
                widths.push(ratios[0] / ratios[1]);
            }
        }
        if ratios[0].is_finite() {
            compared += 1;
            if ratios[0] <= 1.0 + 0.5e-2 {
                narrower += 1;
            } else {
                wider.push(format!("{name} ({:.2}×)", ratios[0]));
            }
        }
        println!("| {} | {} | {} |", DISTS[d].name, SIZES[s], cells.join(" | "));
    }
    println!();
    let w: Vec<String> = RULES
        .iter()
        .zip(&worst)
        .map(|(r, w)| if w.is_finite() { format!("{r}: {w:.1}%") } else { format!("{r}: no estimate") })
        .collect();
    println!("Lowest coverage per rule (cells with an estimate): {}", w.join("; "));
    println!();
    let list = |v: &[String]| if v.is_empty() { "none".to_string() } else { v.join(", ") };
    println!("Automatic rule: coverage ≥ {TARGET:.0}% in {met} of {cells_auto} cells; below: {}.", list(&below));
    let (mut gains, mut widths) = (gains, widths);
    let spread = |v: &mut Vec<f64>, d: usize, unit: &str| {
        v.sort_by(f64::total_cmp);
        match (v.first(), v.last()) {
            (Some(lo), Some(hi)) => format!("{lo:.d$} to {hi:.d$}{unit} (median {:.d$}{unit})", v[v.len() / 2]),
            _ => "none".to_string(),
        }
    };
    println!(
        "ForwardStop alone: coverage ≥ {TARGET:.0}% in {alone_met} of {alone_cells} cells; the guard adds {} points of coverage per cell, for intervals {} as wide.",
        spread(&mut gains, 1, ""),
        spread(&mut widths, 2, "×")
    );
    println!(
        "Automatic rule: median width at most the fixed rule's (to 2 decimals) in {narrower} of {compared} cells where both estimate; wider: {}.",
        list(&wider)
    );
}

/// The coverage the automatic rule is held to (docs/evt.md).
const TARGET: f64 = 92.0;
