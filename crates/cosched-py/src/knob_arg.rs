//! A knob's value as Python gives it: a typed value, not
//! its text. It crosses as itself (`True`, `4`, `0.25`, `"fm"`, `["pairing"]`)
//! and the knob's declaration checks it (`cosched_core::knob::KnobSpec::accept`),
//! the check a flag's text goes through after it is read.

use cosched_core::knob::{Given, Value};
use pyo3::prelude::*;

/// One keyword's value.
#[derive(Debug, FromPyObject)]
pub enum KnobArg {
    /// `True` / `False` (tried first: a Python bool is an int too).
    Switch(bool),
    /// A whole number from 0.
    Int(u64),
    /// Any other number (a negative whole number included).
    Float(f64),
    /// A word, a file or free text.
    Text(String),
    /// A set of words.
    Words(Vec<String>),
}

impl KnobArg {
    /// The value the declaration checks.
    pub fn given(&self) -> Given<'static> {
        Given::Value(match self {
            KnobArg::Switch(b) => Value::Switch(*b),
            KnobArg::Int(n) => Value::Int(*n),
            KnobArg::Float(x) => Value::Float(*x),
            KnobArg::Text(t) => Value::Text(t.clone()),
            KnobArg::Words(w) => Value::Text(w.join(",")),
        })
    }
}

/// Keywords and their values, as Python passes them.
pub type KnobsIn = Vec<(String, KnobArg)>;
