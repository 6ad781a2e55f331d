//! Validation of the simulator: every calibration and check point of a
//! machine description (`[[check]]` in `data/machines/*.toml`) simulated and
//! judged against its published figure (docs/model.md, "Why trust the
//! simulator"). Points run on the exact model: a calibration point compares
//! the model with a published mean, not one noisy run with it.

mod measure;
mod rerun;
mod sample;
mod verdict;

pub use crate::ablation::{ablate, Mechanism};
pub use verdict::{Status, Target, Usage};

use crate::error::RunError;
use cosched_machine::check::{Bound, CheckKind, CheckPoint};
use cosched_machine::{MachineSpec, Origin};
use rayon::prelude::*;
use serde::Serialize;

/// One point's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    /// The machine's name.
    pub machine: String,
    /// Whether the machine's figures are the literature's or calibrated on a host.
    pub origin: Origin,
    /// The point's name.
    pub name: String,
    /// What is measured.
    pub kind: CheckKind,
    /// The published figure.
    pub published: f64,
    /// The simulated figure.
    pub simulated: f64,
    /// `simulated / published − 1`.
    pub error: f64,
    /// The relative tolerance.
    pub tolerance: f64,
    /// A one-sided bound the point also passes by.
    pub bound: Option<Bound>,
    /// `value` (the simulated figure must be within the tolerance) or `bound`
    /// (it may also be anywhere on the stated side of the published figure).
    pub target: Target,
    /// Whether the simulated figure is within the tolerance (a bound point
    /// that passes without it passes on the bound alone).
    pub within_tolerance: bool,
    /// Whether a preset constant was set from this point.
    pub fitted: bool,
    /// Whether the point shaped a mechanism of the model (not held out either).
    pub development: bool,
    /// The day a pre-registered held-out point was written down, before any
    /// mechanism it judges was tuned.
    pub registered: Option<String>,
    /// Where the published figure comes from.
    pub source: String,
    /// `pass`, `known gap` or `fail`.
    pub status: Status,
    /// Why the model misses it, for a known gap.
    pub known_gap: Option<String>,
    /// What the model lacks, for a known gap.
    pub missing_mechanism: Option<String>,
    /// The values the simulated one is the largest of (`assignment_spread`: each workload).
    pub detail: Option<String>,
}

/// Judge one simulated point against its published figure.
fn judge(m: &MachineSpec, k: &CheckPoint, (simulated, detail): (f64, Option<String>)) -> Outcome {
    let error = simulated / k.published - 1.0;
    let within = error.abs() <= k.tolerance;
    let ok = within
        || match k.bound {
            Some(Bound::Upper) => simulated <= k.published,
            Some(Bound::Lower) => simulated >= k.published,
            None => false,
        };
    let status = match (ok, &k.known_gap) {
        (true, _) => Status::Pass,
        (false, Some(_)) => Status::KnownGap,
        (false, None) => Status::Fail,
    };
    Outcome {
        machine: m.name.clone(),
        origin: m.origin,
        name: k.name.clone(),
        kind: k.kind,
        published: k.published,
        simulated,
        error,
        tolerance: k.tolerance,
        bound: k.bound,
        target: if k.bound.is_some() { Target::Bound } else { Target::Value },
        within_tolerance: within,
        fitted: k.fitted,
        development: k.development,
        registered: k.registered.clone(),
        source: k.source.clone(),
        status,
        // Checked by the loader; a malformed text is printed as written.
        known_gap: if ok {
            None
        } else {
            k.known_gap.as_ref().map(|g| {
                cosched_machine::check::fill_known_gap(g, Some(simulated), &m.name, "known_gap")
                    .unwrap_or_else(|_| g.clone())
            })
        },
        missing_mechanism: if ok { None } else { k.missing_mechanism.clone() },
        detail,
    }
}

impl Outcome {
    /// How the point is used: fitted, development or held out.
    pub fn usage(&self) -> Usage {
        match (self.fitted, self.development) {
            (true, _) => Usage::Fitted,
            (false, true) => Usage::Development,
            (false, false) => Usage::HeldOut,
        }
    }
}

/// The points of one origin counted as a reviewer reads them: held-out
/// points apart from fitted and development ones, and among held-out passes
/// those on a value apart from those that pass on a bound alone.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Points.
    pub points: usize,
    /// Fitted points.
    pub fitted: usize,
    /// Development points.
    pub development: usize,
    /// Held-out points.
    pub held_out: usize,
    /// Held-out points that pass within their tolerance.
    pub held_out_pass_value: usize,
    /// Held-out points that pass only because they sit on the stated side of a bound.
    pub held_out_pass_bound_only: usize,
    /// Held-out known gaps.
    pub held_out_known_gap: usize,
    /// Points that fail (any use).
    pub fail: usize,
}

/// The tally of the outcomes from machines of `origin`.
pub fn tally(outcomes: &[Outcome], origin: Origin) -> Tally {
    let mut t = Tally::default();
    for o in outcomes.iter().filter(|o| o.origin == origin) {
        t.points += 1;
        match o.usage() {
            Usage::Fitted => t.fitted += 1,
            Usage::Development => t.development += 1,
            Usage::HeldOut => {
                t.held_out += 1;
                match (o.status, o.within_tolerance) {
                    (Status::Pass, true) => t.held_out_pass_value += 1,
                    (Status::Pass, false) => t.held_out_pass_bound_only += 1,
                    (Status::KnownGap, _) => t.held_out_known_gap += 1,
                    (Status::Fail, _) => {}
                }
            }
        }
        if o.status == Status::Fail {
            t.fail += 1;
        }
    }
    t
}

/// Simulate and judge every check point of `machines`, in order; `tick` is
/// called once per point done (from any thread).
pub fn validate(machines: &[MachineSpec], tick: &(dyn Fn() + Sync)) -> Result<Vec<Outcome>, RunError> {
    let jobs: Vec<(usize, &CheckPoint)> =
        machines.iter().enumerate().flat_map(|(i, m)| m.checks.iter().map(move |k| (i, k))).collect();
    // Every rerun cell is read before any point is simulated, so a cell the
    // rerun lacks is one error line before any progress.
    let reruns = rerun::run_all(machines)?;
    let cells: Vec<Option<f64>> = jobs
        .iter()
        .map(|&(i, k)| (k.kind == CheckKind::RerunCell).then(|| reruns.cell(i, &machines[i], k)).transpose())
        .collect::<Result<_, _>>()?;
    jobs.par_iter()
        .zip(&cells)
        .map(|(&(i, k), cell)| {
            let m = &machines[i];
            let v = match cell {
                Some(v) => Ok((*v, None)),
                None => measure::simulate_point(m, k),
            };
            tick();
            v.map(|v| judge(m, k, v))
        })
        .collect()
}

/// The check points `validate` will run for `machines`.
pub fn points(machines: &[MachineSpec]) -> usize {
    machines.iter().map(|m| m.checks.len()).sum()
}

/// One origin's tally in words (`cosched validate`'s summary lines).
pub fn tally_line(outcomes: &[Outcome], origin: Origin) -> String {
    let t = tally(outcomes, origin);
    let what = match origin {
        Origin::Published => "published machines",
        Origin::Calibrated => "calibrated hosts",
    };
    format!(
        "{what}: {} points ({} fitted, {} development, {} held out); held out: {} pass on a value, {} pass on a bound alone, {} known gap; {} fail",
        t.points,
        t.fitted,
        t.development,
        t.held_out,
        t.held_out_pass_value,
        t.held_out_pass_bound_only,
        t.held_out_known_gap,
        t.fail
    )
}

/// The Markdown table of `outcomes` that docs/model.md carries, followed by
/// the tally of each origin, so the docs quote a rerun (a test compares the two).
pub fn doc_table(outcomes: &[Outcome]) -> String {
    let mut out = String::from(
        "| machine | point | published | simulated | target | use | status |\n|---|---|---|---|---|---|---|\n",
    );
    for o in outcomes {
        let status = match &o.missing_mechanism {
            Some(m) if o.status == Status::KnownGap => format!("known gap; missing: {m}"),
            _ => o.status.word().to_string(),
        };
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} |\n",
            o.machine,
            o.name.replace('|', "/"),
            short(o.published),
            short(o.simulated),
            o.target.word(),
            o.usage().word(),
            status.replace('|', "/"),
        ));
    }
    out.push('\n');
    for origin in [Origin::Published, Origin::Calibrated] {
        out += &format!("- {}\n", tally_line(outcomes, origin));
    }
    if let Some(line) = registered_line(outcomes) {
        out += &format!("- {line}\n");
    }
    out
}

/// The pre-registered points in words: how many, how
/// many pass on a value, by the day they were written down; `None` without any.
pub fn registered_line(outcomes: &[Outcome]) -> Option<String> {
    let mut days: Vec<&str> = outcomes.iter().filter_map(|o| o.registered.as_deref()).collect();
    days.sort_unstable();
    days.dedup();
    let parts: Vec<String> = days
        .iter()
        .map(|d| {
            let of_day: Vec<&Outcome> = outcomes.iter().filter(|o| o.registered.as_deref() == Some(d)).collect();
            let pass = of_day.iter().filter(|o| o.status == Status::Pass && o.within_tolerance).count();
            format!("{} written down {d}, {pass} pass on a value", of_day.len())
        })
        .collect();
    (!parts.is_empty())
        .then(|| format!("pre-registered held-out points (already in the counts above): {}", parts.join("; ")))
}

/// Four significant digits, no trailing zeros.
fn short(v: f64) -> String {
    let digits = (3 - v.abs().max(1e-12).log10().floor() as i32).clamp(0, 8) as usize;
    let s = format!("{v:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}
