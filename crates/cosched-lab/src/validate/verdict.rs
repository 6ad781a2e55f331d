//! What a check point's judgement can be, as types (their JSON words unchanged): how it came out
//! ([`Status`]), what its simulated figure must meet ([`Target`]) and how the point is used
//! ([`Usage`]). Validation's reading of "Why trust the simulator" (docs/model.md).

use serde::Serialize;

/// How a point came out against its published figure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Status {
    /// Within its tolerance, or on the stated side of a one-sided bound.
    #[serde(rename = "pass")]
    Pass,
    /// Outside, with what the model lacks named (a gap of the model, not a finding).
    #[serde(rename = "known gap")]
    KnownGap,
    /// Outside, unexplained: `cosched validate` exits 1.
    #[serde(rename = "fail")]
    Fail,
}

impl Status {
    /// The word the table and the JSON print.
    pub fn word(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::KnownGap => "known gap",
            Status::Fail => "fail",
        }
    }
}

/// What a point's simulated figure must meet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Target {
    /// The published value within the tolerance.
    Value,
    /// Also anywhere on the stated side of the published figure (a one-sided bound).
    Bound,
}

impl Target {
    /// The word the table prints.
    pub fn word(self) -> &'static str {
        match self {
            Target::Value => "value",
            Target::Bound => "bound",
        }
    }
}

/// How a point is used: a preset constant was set from it, it shaped a mechanism of the model, or
/// it is held out (only held-out points judge the model).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Usage {
    /// A preset constant was set from it.
    Fitted,
    /// It shaped a mechanism of the model.
    Development,
    /// Neither: it judges the model.
    HeldOut,
}

impl Usage {
    /// The word the table prints.
    pub fn word(self) -> &'static str {
        match self {
            Usage::Fitted => "fitted",
            Usage::Development => "development",
            Usage::HeldOut => "held out",
        }
    }
}
