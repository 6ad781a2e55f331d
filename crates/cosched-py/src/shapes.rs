//! The shapes of the reports Python receives: each
//! report struct's fields as Rust declares them (`metric_fields!` writes
//! the shape beside the struct), from which `python -m cosched._report_gen`
//! generates the package's TypedDicts (`cosched/_report_types.py`), so a
//! field is declared once, in Rust, and `test_stubs.py` fails when the two differ.

use cosched_core::evt::{GpdFit, PotResult};
use cosched_core::metrics::registry::{Shape, Shaped};
use cosched_core::metrics::Aggregate;
use cosched_core::paired::PairedRatio;
use cosched_core::stats::MeanCi;
use cosched_host::calibrate::CheckReport;
use cosched_host::check::{Check, JobCheck, MovedJob, PolicyCheck};
use cosched_host::replay::{Cell, Replay};
use cosched_host::rounds::{EntrySummary, Interleaved, Round, Stopped};
use cosched_host::ties::Ties;
use cosched_host::time_sharing::TimeSharing;
use cosched_lab::assign::AssignmentReport;
use cosched_lab::best_static::OptimumReport;
use cosched_lab::compare::{
    BestStatic, Comparison, Finding, IdenticalRows, PairedUnfairness, PolicySummary, RegimeNote, RegimeRun,
};
use cosched_lab::job_sched::JobSched;
use cosched_lab::optimum::{Exhaustive, Found, Grouped, Matched, Outcome, Sampled, POT_OR_WHY};
use cosched_linux::best_static::StaticPartition;
use cosched_linux::runtime::{RealJob, RealReport, StopRecord};
use cosched_sim::experiment::{JobReport, Metrics, Report};
use pyo3::prelude::*;

/// One field as Python reads it: (name, Rust type as written, flattened into its parent, left out).
type FieldIn = (&'static str, &'static str, bool, bool);

/// Every report struct Python's typed results are generated from, in
/// dependency order: a simulated run (`Run.report`), a comparison (`compare`'s
/// attributes), the bound's search (`Optimum.report`), random assignments
/// (`Assignment.report`), and the real machine's rounds, check and replay
/// (`cosched.host`'s `.data`).
const SHAPES: [Shape; 43] = [
    Aggregate::SHAPE,
    Metrics::SHAPE,
    JobReport::SHAPE,
    Report::SHAPE,
    MeanCi::SHAPE,
    PolicySummary::SHAPE,
    GpdFit::SHAPE,
    PotResult::SHAPE,
    POT_OR_WHY,
    BestStatic::SHAPE,
    PairedUnfairness::SHAPE,
    RegimeRun::SHAPE,
    RegimeNote::SHAPE,
    Finding::SHAPE,
    IdenticalRows::SHAPE,
    Comparison::SHAPE,
    Outcome::SHAPE,
    Found::SHAPE,
    Exhaustive::SHAPE,
    Matched::SHAPE,
    Grouped::SHAPE,
    Sampled::SHAPE,
    OptimumReport::SHAPE,
    AssignmentReport::SHAPE,
    PairedRatio::SHAPE,
    StopRecord::SHAPE,
    RealJob::SHAPE,
    RealReport::SHAPE,
    StaticPartition::SHAPE,
    Round::SHAPE,
    Stopped::SHAPE,
    EntrySummary::SHAPE,
    Interleaved::SHAPE,
    JobSched::SHAPE,
    TimeSharing::SHAPE,
    JobCheck::SHAPE,
    PolicyCheck::SHAPE,
    MovedJob::SHAPE,
    Ties::SHAPE,
    Check::SHAPE,
    CheckReport::SHAPE,
    Cell::SHAPE,
    Replay::SHAPE,
];

/// `(struct name, fields)` of every shape.
#[pyfunction]
pub fn report_shapes() -> Vec<(&'static str, Vec<FieldIn>)> {
    SHAPES.iter().map(|s| (s.name, s.fields.iter().map(|f| (f.name, f.ty, f.flatten, f.skip)).collect())).collect()
}
