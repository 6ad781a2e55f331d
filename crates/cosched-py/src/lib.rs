//! `cosched._cosched`: the Python bindings of cosched (PyO3). A thin layer
//! over `cosched-lab`, the library the command line calls too: knobs arrive
//! as (keyword, typed value) pairs ([`knob_arg`]) and go through their declarations, so Python's
//! results are the CLI's JSON for the same inputs.
//! Results cross the boundary as Python dicts and lists built in Rust
//! ([`data`]; the `--format json` shapes), turned into DataFrames by the `cosched` package
//! (`python/cosched`). Binding files mirror the modules they wrap: [`sim`]
//! (experiments), [`host`] (experiments on the real machine), [`evt`] (statistical thread assignment), [`learn`]
//! (matrix completion), [`output`] (files written whole, never replacing a device), [`policy`] (policies written in Python); [`errors`] maps each error variant to its exception
//! class in `cosched.errors`.

use pyo3::prelude::*;

mod characterise;
mod data;
mod errors;
mod evt;
mod host;
mod interrupt;
mod knob_arg;
mod learn;
mod output;
mod policy;
mod policy_view;
mod shapes;
mod sim;

/// The extension module.
#[pymodule]
fn _cosched(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // The source tree the extension was built from: `cosched.cli` runs its
    // `target/release/cosched` (the command line is not linked in).
    m.add("SOURCE_TREE", concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))?;
    // `compare`'s defaults as the lab declares them (the command line reads the same constants).
    m.add("COMPARE_BASELINE", cosched_lab::compare::DEFAULT_BASELINE)?;
    m.add("COMPARE_SEEDS", cosched_lab::compare::DEFAULT_SEEDS)?;
    m.add("COMPARE_FIRST_SEED", cosched_lab::compare::DEFAULT_FIRST_SEED)?;
    m.add("CHARACTERISE_REPEAT", cosched_host::characterise::DEFAULT_REPEAT)?;
    m.add("CHARACTERISE_WITHIN", cosched_host::characterise::DEFAULT_WITHIN_PCT)?;
    m.add("CHARACTERISE_MAX_ROUNDS", cosched_host::characterise::DEFAULT_MAX_ROUNDS)?;
    m.add("CHARACTERISE_BUDGET_S", cosched_host::characterise::DEFAULT_BUDGET_S)?;
    sim::register(m)?;
    evt::register(m)?;
    learn::register(m)?;
    host::register(m)?;
    characterise::register(m)?;
    output::register(m)?;
    m.add_function(wrap_pyfunction!(shapes::report_shapes, m)?)?;
    m.add_function(wrap_pyfunction!(errors::_variant_errors, m)?)?;
    m.add_function(wrap_pyfunction!(errors::_error_classes, m)?)?;
    Ok(())
}
