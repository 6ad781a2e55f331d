//! The shapes of the reports Python receives (issue #64 item 6): each
//! report struct's fields as Rust declares them (`metric_fields!` writes
//! the shape beside the struct), from which `python -m cosched._report_gen`
//! generates the package's TypedDicts (`cosched/_report_types.py`), so a
//! field is declared once, in Rust, and `test_stubs.py` fails when the two differ.

use cosched_core::metrics::registry::{Shape, Shaped};
use cosched_core::metrics::Aggregate;
use cosched_sim::experiment::{JobReport, Metrics, Report};
use pyo3::prelude::*;

/// One field as Python reads it: (name, Rust type as written, flattened into its parent).
type FieldIn = (&'static str, &'static str, bool);

/// Every report struct Python's typed results are generated from, in dependency order.
const SHAPES: [Shape; 4] = [Aggregate::SHAPE, Metrics::SHAPE, JobReport::SHAPE, Report::SHAPE];

/// `(struct name, fields)` of every shape.
#[pyfunction]
pub fn report_shapes() -> Vec<(&'static str, Vec<FieldIn>)> {
    SHAPES.iter().map(|s| (s.name, s.fields.iter().map(|f| (f.name, f.ty, f.flatten)).collect())).collect()
}
