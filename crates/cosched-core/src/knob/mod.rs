//! The vocabulary of policy knobs: each policy declares the knobs it reads
//! next to its code, as [`KnobSpec`]s (name, kind and range, default, unit,
//! doc, paper section), and a value arriving as text (a flag, a keyword) is
//! checked here against its declaration, so every refusal names the flag.
//! The knobs of the registered policies, their values and which policies
//! read each are `cosched_policies::knob`'s (the framework knows no policy).

use crate::num::shortest;
use serde::Serialize;

mod declared;
pub use declared::*;

/// A knob's value or use refused. Each variant names the knob by its
/// keyword (`quantum_ms`); [`std::fmt::Display`] shows it as the command
/// line's flag (`--quantum-ms`), and a face that names knobs otherwise (Python's
/// keywords) renders [`KnobError::knob`] and [`KnobError::problem`] itself.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum KnobError {
    /// The text is not a value of the knob's kind, or lies outside its range.
    #[error("{}: {problem}", flag_of(knob))]
    Invalid {
        /// The knob's keyword.
        knob: String,
        /// What is wrong, with the value given.
        problem: String,
    },
    /// A knob's value read from a file is malformed (`--assignment FILE`).
    #[error("{file}: {problem}")]
    InFile {
        /// The file.
        file: String,
        /// What is wrong, with the value given.
        problem: String,
    },
    /// No policy declares a knob of this name.
    #[error("`{name}` is not a policy knob")]
    Unknown {
        /// The name given.
        name: String,
    },
    /// A declared options struct has no field of this name.
    #[error("{}: is not an option of {of}", flag_of(name))]
    NotOption {
        /// The name given.
        name: String,
        /// What the options are of.
        of: &'static str,
    },
    /// None of the chosen policies reads the knob.
    #[error("{}: {}", flag_of(knob), not_read(policies, readers))]
    NotRead {
        /// The knob's keyword.
        knob: String,
        /// The policies chosen.
        policies: Vec<String>,
        /// The policies that do read it.
        readers: Vec<&'static str>,
    },
}

/// The command-line flag of keyword `knob` (`quantum_ms` → `--quantum-ms`).
pub fn flag_of(knob: &str) -> String {
    format!("--{}", knob.replace('_', "-"))
}

fn not_read(policies: &[String], readers: &[&str]) -> String {
    format!(
        "{} {} {} not read it; it is read by {}",
        if policies.len() == 1 { "policy" } else { "policies" },
        policies.iter().map(|p| format!("`{p}`")).collect::<Vec<_>>().join(", "),
        if policies.len() == 1 { "does" } else { "do" },
        readers.join(", ")
    )
}

impl KnobError {
    /// The keyword of the knob at fault, when one is (not for a file's contents).
    pub fn knob(&self) -> Option<&str> {
        match self {
            KnobError::Invalid { knob, .. } | KnobError::NotRead { knob, .. } => Some(knob),
            KnobError::Unknown { name } | KnobError::NotOption { name, .. } => Some(name),
            KnobError::InFile { .. } => None,
        }
    }

    /// What is wrong, without the knob's name (the whole line when no knob is at fault).
    pub fn problem(&self) -> String {
        match self {
            KnobError::Invalid { problem, .. } => problem.clone(),
            KnobError::NotRead { policies, readers, .. } => not_read(policies, readers),
            KnobError::Unknown { .. } => "is not a policy knob".into(),
            KnobError::NotOption { of, .. } => format!("is not an option of {of}"),
            KnobError::InFile { .. } => self.to_string(),
        }
    }
}

/// What values a knob takes.
#[derive(Clone, Copy, Debug, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Kind {
    /// A number in `[min, max]` (`min` may be `f64::MIN_POSITIVE`: any positive number).
    Float {
        /// Smallest accepted value.
        min: f64,
        /// Largest accepted value.
        max: f64,
    },
    /// A whole number in `[min, max]`.
    Int {
        /// Smallest accepted value.
        min: u64,
        /// Largest accepted value.
        max: u64,
    },
    /// On or off (a flag without a value).
    Switch,
    /// One of these words.
    Choice {
        /// The words.
        choices: &'static [&'static str],
    },
    /// Any of these words, comma-separated, or `none` (a set of switches
    /// given as one value, e.g. the mechanisms of an ablation).
    Subset {
        /// The words.
        choices: &'static [&'static str],
    },
    /// Free text the policy parses itself (a list of context ids, a file).
    Text,
}

impl Kind {
    /// What a value of this kind is, in a refusal (`a number`).
    pub fn noun(&self) -> &'static str {
        match self {
            Kind::Float { .. } => "a number",
            Kind::Int { .. } => "a whole number",
            Kind::Switch => "true or false",
            Kind::Choice { .. } => "one word",
            Kind::Subset { .. } => "words",
            Kind::Text => "text",
        }
    }
}

/// One knob as a policy declares it.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct KnobSpec {
    /// The Python keyword; the flag is `--` and the name with `-` for `_`.
    pub name: &'static str,
    /// Values it takes.
    pub kind: Kind,
    /// Default as text; `""` when there is none (the policy derives it, or needs it given).
    pub default: &'static str,
    /// Default on the real runtime when it differs (`""`: the same).
    pub real_default: &'static str,
    /// Unit (`ms`, `µs`, `1`, `%`, ``).
    pub unit: &'static str,
    /// One line: what it does.
    pub doc: &'static str,
    /// Where the paper defines it (`EFS Eq. 20`), or what study added it.
    pub paper: &'static str,
}

impl KnobSpec {
    /// The command-line flag (`--quantum-ms`).
    pub fn flag(&self) -> String {
        flag_of(self.name)
    }

    /// The default on the simulator (`real = false`) or the real runtime.
    pub fn default_for(&self, real: bool) -> &'static str {
        if real && !self.real_default.is_empty() {
            self.real_default
        } else {
            self.default
        }
    }

    /// `text` checked against the declaration.
    pub fn parse(&self, text: &str) -> Result<Value, KnobError> {
        let invalid = |problem: String| KnobError::Invalid { knob: self.name.to_string(), problem };
        let shown = crate::text::quote(text);
        let read = match self.kind {
            Kind::Float { .. } => {
                Value::Float(text.trim().parse().map_err(|_| invalid(format!("`{shown}` is not a number")))?)
            }
            Kind::Int { .. } => {
                Value::Int(text.trim().parse().map_err(|_| invalid(format!("`{shown}` is not a whole number")))?)
            }
            Kind::Switch => match text {
                "true" => Value::Switch(true),
                "false" => Value::Switch(false),
                _ => return Err(invalid(format!("is a switch: true or false, got `{shown}`"))),
            },
            Kind::Choice { .. } | Kind::Subset { .. } | Kind::Text => Value::Text(text.to_string()),
        };
        self.accept(read)
    }

    /// Check a typed value (a face that has one, Python's keyword, need not
    /// write it as text): of the knob's kind (a whole number is a number
    /// too), in its range, one of its words; a set of words comes back in
    /// declared order, once each, so equal sets give equal values.
    pub fn accept(&self, v: Value) -> Result<Value, KnobError> {
        let invalid = |problem: String| KnobError::Invalid { knob: self.name.to_string(), problem };
        match (self.kind, v) {
            (Kind::Float { min, max }, Value::Float(v)) => {
                if v.is_finite() && v >= min && v <= max {
                    return Ok(Value::Float(v));
                }
                let unit =
                    if self.unit.is_empty() || self.unit == "1" { String::new() } else { format!(" {}", self.unit) };
                Err(invalid(match (min, max) {
                    (MIN_TIME_MS, MAX_TIME_MS) if self.unit == "ms" => {
                        format!("must be from 0.001 ms (1 µs) to 3600000 ms (1 hour), got {}", shortest(v))
                    }
                    (m, x) if m == f64::MIN && x == f64::MAX => format!("must be a finite number, got {}", shortest(v)),
                    (m, x) if m == f64::MIN_POSITIVE && x == f64::MAX => {
                        format!("must be a positive number, got {}", shortest(v))
                    }
                    (m, x) if x == f64::MAX => format!("must be ≥ {}{unit}, got {}", shortest(m), shortest(v)),
                    _ => format!("must be from {} to {}{unit}, got {}", shortest(min), shortest(max), shortest(v)),
                }))
            }
            (Kind::Float { .. }, Value::Int(n)) => self.accept(Value::Float(n as f64)),
            (Kind::Int { min, max }, Value::Int(v)) => {
                if (min..=max).contains(&v) {
                    Ok(Value::Int(v))
                } else {
                    Err(invalid(format!("must be from {min} to {max}, got {v}")))
                }
            }
            (Kind::Switch, Value::Switch(b)) => Ok(Value::Switch(b)),
            (Kind::Choice { choices }, Value::Text(text)) => {
                if choices.contains(&text.as_str()) {
                    Ok(Value::Text(text))
                } else {
                    let shown = crate::text::quote(&text);
                    Err(invalid(format!("must be {}, got `{shown}`", choices.join(", "))))
                }
            }
            (Kind::Subset { choices }, Value::Text(text)) => {
                let words: Vec<&str> = text.split(',').map(str::trim).filter(|w| !w.is_empty()).collect();
                if let Some(bad) = words.iter().find(|w| **w != "none" && !choices.contains(w)) {
                    return Err(invalid(format!(
                        "unknown word `{bad}`: expected none or any of {}",
                        choices.join(", ")
                    )));
                }
                let set: Vec<&str> = choices.iter().copied().filter(|c| words.contains(c)).collect();
                Ok(Value::Text(if set.is_empty() { "none".into() } else { set.join(",") }))
            }
            (Kind::Text, Value::Text(text)) => Ok(Value::Text(text)),
            // As the text of a negative or fractional number reads (`-1` is not a whole number).
            (Kind::Int { .. }, Value::Float(x)) => Err(invalid(format!("`{}` is not a whole number", shortest(x)))),
            (kind, v) => Err(invalid(format!("must be {}, got {}", kind.noun(), v.noun()))),
        }
    }
}

/// A knob's value. Equal values hash equally (a number by its bits, `-0`
/// as `0`; a declaration admits no NaN), so a run's given knobs can key a map.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A number.
    Float(f64),
    /// A whole number.
    Int(u64),
    /// A switch.
    Switch(bool),
    /// A word or free text.
    Text(String),
}

/// A knob's value as a face hands it over: the text of a flag, or a typed
/// value (a Python keyword's), checked by the same declaration either way.
#[derive(Clone, Debug)]
pub enum Given<'a> {
    /// The text of a flag (`--quantum-ms 4`).
    Text(&'a str),
    /// A typed value (`quantum_ms=4`).
    Value(Value),
}

impl KnobSpec {
    /// The checked value of `given` ([`KnobSpec::parse`] or [`KnobSpec::accept`]).
    pub fn read(&self, given: Given) -> Result<Value, KnobError> {
        match given {
            Given::Text(t) => self.parse(t),
            Given::Value(v) => self.accept(v),
        }
    }
}

impl Value {
    /// What this value is, in a refusal (`a number`).
    pub fn noun(&self) -> &'static str {
        match self {
            Value::Float(_) => "a number",
            Value::Int(_) => "a whole number",
            Value::Switch(_) => "a switch",
            Value::Text(_) => "text",
        }
    }
}

impl Eq for Value {}

impl std::hash::Hash for Value {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        std::mem::discriminant(self).hash(h);
        match self {
            Value::Float(v) => float_bits(*v).hash(h),
            Value::Int(v) => v.hash(h),
            Value::Switch(v) => v.hash(h),
            Value::Text(v) => v.hash(h),
        }
    }
}

/// The bits of `x` for hashing, `-0` as `0` (equal numbers, equal bits).
pub fn float_bits(x: f64) -> u64 {
    if x == 0.0 {
        0
    } else {
        x.to_bits()
    }
}

/// The shortest time knob, ms: 1 µs, the shortest stretch that does work between two switches.
pub const MIN_TIME_MS: f64 = 0.001;
/// The longest time knob, ms: one hour.
pub const MAX_TIME_MS: f64 = 3_600_000.0;
/// A time knob in ms, from 1 µs to one hour (every quantum, window and interval).
pub const TIME_MS: Kind = Kind::Float { min: MIN_TIME_MS, max: MAX_TIME_MS };

/// Milliseconds to nanoseconds, rounded.
pub fn ms_to_ns(ms: f64) -> u64 {
    (ms * crate::ids::MILLI as f64).round() as u64
}
