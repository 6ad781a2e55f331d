//! Validation of the simulator: every calibration and check point of a
//! machine description (`[[check]]` in `data/machines/*.toml`) simulated and
//! judged against its published figure (docs/model.md, "Why trust the
//! simulator"). Points run on the exact model: a calibration point compares
//! the model with a published mean, not one noisy run with it.

mod measure;
mod sample;

use crate::error::RunError;
use cosched_machine::check::{Bound, CheckKind, CheckPoint};
use cosched_machine::MachineSpec;
use rayon::prelude::*;
use serde::Serialize;

/// One point's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    /// The machine's name.
    pub machine: String,
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
    /// Whether the point was fitted (else held out).
    pub fitted: bool,
    /// Where the published figure comes from.
    pub source: String,
    /// `pass`, `FAIL`, or `known gap`.
    pub status: String,
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
    let ok = error.abs() <= k.tolerance
        || match k.bound {
            Some(Bound::Upper) => simulated <= k.published,
            Some(Bound::Lower) => simulated >= k.published,
            None => false,
        };
    let status = match (ok, &k.known_gap) {
        (true, _) => "pass",
        (false, Some(_)) => "known gap",
        (false, None) => "FAIL",
    };
    Outcome {
        machine: m.name.clone(),
        name: k.name.clone(),
        kind: k.kind,
        published: k.published,
        simulated,
        error,
        tolerance: k.tolerance,
        bound: k.bound,
        fitted: k.fitted,
        source: k.source.clone(),
        status: status.into(),
        known_gap: if ok { None } else { k.known_gap.clone() },
        missing_mechanism: if ok { None } else { k.missing_mechanism.clone() },
        detail,
    }
}

/// Simulate and judge every check point of `machines`, in order; `tick` is
/// called once per point done (from any thread).
pub fn validate(machines: &[MachineSpec], tick: &(dyn Fn() + Sync)) -> Result<Vec<Outcome>, RunError> {
    let jobs: Vec<(&MachineSpec, &CheckPoint)> =
        machines.iter().flat_map(|m| m.checks.iter().map(move |k| (m, k))).collect();
    jobs.par_iter()
        .map(|&(m, k)| {
            let o = measure::simulate_point(m, k).map(|v| judge(m, k, v));
            tick();
            o
        })
        .collect()
}

/// The check points `validate` will run for `machines`.
pub fn points(machines: &[MachineSpec]) -> usize {
    machines.iter().map(|m| m.checks.len()).sum()
}

/// The Markdown table of `outcomes` that docs/model.md carries, so the
/// docs quote a rerun (a test compares the two).
pub fn doc_table(outcomes: &[Outcome]) -> String {
    let mut out =
        String::from("| machine | point | published | simulated | use | status |\n|---|---|---|---|---|---|\n");
    for o in outcomes {
        let status = match &o.missing_mechanism {
            Some(m) if o.status == "known gap" => format!("known gap; missing: {m}"),
            _ => o.status.clone(),
        };
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            o.machine,
            o.name.replace('|', "/"),
            short(o.published),
            short(o.simulated),
            if o.fitted { "fitted" } else { "held out" },
            status.replace('|', "/"),
        ));
    }
    out
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
