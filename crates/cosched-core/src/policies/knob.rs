//! Policy knobs: each policy declares the knobs it reads
//! next to its code, as [`KnobSpec`]s (name, kind and range, default, unit,
//! doc, paper section). The command line's flags, `cosched run`, Python's
//! keywords and `cosched list policies --format json` are built from these
//! declarations, and a knob the chosen policy does not read is refused
//! ([`unread`]). Values arrive as text (a flag, a keyword) and are checked
//! here against the declaration, so every refusal names the flag.

use crate::num::shortest;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

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
            KnobError::Unknown { name } => Some(name),
            KnobError::InFile { .. } => None,
        }
    }

    /// What is wrong, without the knob's name (the whole line when no knob is at fault).
    pub fn problem(&self) -> String {
        match self {
            KnobError::Invalid { problem, .. } => problem.clone(),
            KnobError::NotRead { policies, readers, .. } => not_read(policies, readers),
            KnobError::Unknown { .. } => "is not a policy knob".into(),
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
        match self.kind {
            Kind::Float { min, max } => {
                let v: f64 = text.trim().parse().map_err(|_| invalid(format!("`{shown}` is not a number")))?;
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
            Kind::Int { min, max } => {
                let v: u64 = text.trim().parse().map_err(|_| invalid(format!("`{shown}` is not a whole number")))?;
                if (min..=max).contains(&v) {
                    Ok(Value::Int(v))
                } else {
                    Err(invalid(format!("must be from {min} to {max}, got {v}")))
                }
            }
            Kind::Switch => match text {
                "true" => Ok(Value::Switch(true)),
                "false" => Ok(Value::Switch(false)),
                _ => Err(invalid(format!("is a switch: true or false, got `{shown}`"))),
            },
            Kind::Choice { choices } => {
                if choices.contains(&text) {
                    Ok(Value::Text(text.to_string()))
                } else {
                    Err(invalid(format!("must be {}, got `{shown}`", choices.join(", "))))
                }
            }
            Kind::Subset { choices } => {
                let words: Vec<&str> = text.split(',').map(str::trim).filter(|w| !w.is_empty()).collect();
                if let Some(bad) = words.iter().find(|w| **w != "none" && !choices.contains(w)) {
                    return Err(invalid(format!(
                        "unknown word `{bad}`: expected none or any of {}",
                        choices.join(", ")
                    )));
                }
                // In declared order, once each: equal sets give equal values.
                let set: Vec<&str> = choices.iter().copied().filter(|c| words.contains(c)).collect();
                Ok(Value::Text(if set.is_empty() { "none".into() } else { set.join(",") }))
            }
            Kind::Text => Ok(Value::Text(text.to_string())),
        }
    }
}

/// A knob's value.
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

/// The knobs of one run: every declared knob's value (given or default) and
/// which ones the user gave.
#[derive(Clone, Debug, Default)]
pub struct KnobValues {
    values: BTreeMap<&'static str, Value>,
    given: BTreeSet<&'static str>,
}

impl KnobValues {
    /// Every declared knob at its default (`real`: the real runtime's defaults).
    pub fn defaults(real: bool) -> KnobValues {
        let mut v = KnobValues::default();
        for k in all() {
            let d = k.default_for(real);
            if !d.is_empty() {
                v.values.insert(k.name, k.parse(d).unwrap_or_else(|e| panic!("declared default: {e}")));
            } else if matches!(k.kind, Kind::Switch) {
                v.values.insert(k.name, Value::Switch(false));
            }
        }
        v
    }

    /// Set knob `name` from `text`, as given by the user.
    pub fn set(&mut self, name: &str, text: &str) -> Result<(), KnobError> {
        let k = spec(name).ok_or_else(|| KnobError::Unknown { name: name.to_string() })?;
        self.values.insert(k.name, k.parse(text)?);
        self.given.insert(k.name);
        Ok(())
    }

    /// The knobs the user gave, in name order.
    pub fn given(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.given.iter().copied()
    }

    fn get(&self, name: &str) -> Option<&Value> {
        debug_assert!(spec(name).is_some(), "`{name}` is not declared");
        self.values.get(name)
    }

    /// A number knob (declared with a default).
    pub fn float(&self, name: &str) -> f64 {
        self.opt_float(name).unwrap_or_else(|| panic!("knob `{name}` has no value"))
    }

    /// A number knob that may be unset.
    pub fn opt_float(&self, name: &str) -> Option<f64> {
        match self.get(name) {
            Some(Value::Float(v)) => Some(*v),
            None => None,
            Some(v) => panic!("knob `{name}` is not a number: {v:?}"),
        }
    }

    /// A whole-number knob.
    pub fn int(&self, name: &str) -> u64 {
        match self.get(name) {
            Some(Value::Int(v)) => *v,
            v => panic!("knob `{name}` is not a whole number: {v:?}"),
        }
    }

    /// A switch.
    pub fn switch(&self, name: &str) -> bool {
        matches!(self.get(name), Some(Value::Switch(true)))
    }

    /// A word or text knob that may be unset.
    pub fn text(&self, name: &str) -> Option<&str> {
        match self.get(name) {
            Some(Value::Text(s)) => Some(s),
            None => None,
            Some(v) => panic!("knob `{name}` is not text: {v:?}"),
        }
    }
}

/// Every declared knob, once, in declaration order of the registry.
pub fn all() -> Vec<&'static KnobSpec> {
    let mut out: Vec<&'static KnobSpec> = vec![];
    for p in super::registry() {
        for k in p.knobs() {
            if !out.iter().any(|o| o.name == k.name) {
                out.push(k);
            }
        }
    }
    out
}

/// The declaration of knob `name`.
pub fn spec(name: &str) -> Option<&'static KnobSpec> {
    all().into_iter().find(|k| k.name == name)
}

/// The policies that read knob `name`.
pub fn readers(name: &str) -> Vec<&'static str> {
    super::registry().iter().filter(|p| p.knobs().any(|k| k.name == name)).map(|p| p.name).collect()
}

/// The knobs `given` that none of `policies` reads: the one-line refusal
/// naming the policies that do read each, or, when some of `policies` read
/// every given knob, one note per knob that only some of them read.
pub fn unread(given: &[&str], policies: &[&str]) -> Result<Vec<String>, KnobError> {
    let mut notes = vec![];
    for &k in given {
        let who = readers(k);
        let flag = flag_of(k);
        let reading: Vec<&str> = policies.iter().copied().filter(|p| who.contains(p)).collect();
        if reading.is_empty() {
            return Err(KnobError::NotRead {
                knob: k.to_string(),
                policies: policies.iter().map(|p| p.to_string()).collect(),
                readers: who,
            });
        }
        if reading.len() < policies.len() {
            notes.push(format!("{flag} applies to {} only", reading.join(", ")));
        }
    }
    Ok(notes)
}

/// The shortest time knob, ms: 1 µs, the shortest stretch that does work between two switches.
pub const MIN_TIME_MS: f64 = 0.001;
/// The longest time knob, ms: one hour.
pub const MAX_TIME_MS: f64 = 3_600_000.0;
/// A time knob in ms, from 1 µs to one hour (every quantum, window and interval).
pub const TIME_MS: Kind = Kind::Float { min: MIN_TIME_MS, max: MAX_TIME_MS };

/// Any positive number.
pub const POSITIVE: Kind = Kind::Float { min: f64::MIN_POSITIVE, max: f64::MAX };

/// Milliseconds to nanoseconds, rounded.
pub fn ms_to_ns(ms: f64) -> u64 {
    (ms * crate::ids::MILLI as f64).round() as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policies::PolicyOptions;

    /// A valid value of `k` other than its default, from the declaration alone.
    fn other(k: &KnobSpec) -> String {
        let d = k.default;
        match k.kind {
            Kind::Float { min, max } => {
                let d: f64 = d.parse().unwrap_or(min.max(1.0));
                let v = if d * 2.0 <= max && d > 0.0 {
                    d * 2.0
                } else if d == 0.0 {
                    (min + max.min(1.0)) / 2.0 + 0.5
                } else {
                    (min + d) / 2.0
                };
                assert!(v != d && v >= min && v <= max, "{}: {v}", k.name);
                v.to_string()
            }
            Kind::Int { min, max } => {
                let d: u64 = d.parse().unwrap();
                (if d < max { d + 1 } else { d.max(min + 1) - 1 }).to_string()
            }
            Kind::Switch => "true".into(),
            Kind::Choice { choices } => choices.iter().find(|c| **c != d).unwrap().to_string(),
            Kind::Subset { choices } => choices[0].to_string(),
            Kind::Text => "0".into(),
        }
    }

    #[test]
    fn the_declared_defaults_are_the_default_options() {
        let o = PolicyOptions::from_knobs(&KnobValues::defaults(false), 1).unwrap();
        assert_eq!(format!("{o:?}"), format!("{:?}", PolicyOptions::default()));
        let real = PolicyOptions::from_knobs(&KnobValues::defaults(true), 1).unwrap();
        assert_eq!(real.quantum, 100 * crate::ids::MILLI, "the real runtime's quantum");
    }

    #[test]
    fn every_knob_changes_the_options_its_policies_are_built_from() {
        let base = format!("{:?}", PolicyOptions::from_knobs(&KnobValues::defaults(false), 1).unwrap());
        for k in all() {
            let mut v = KnobValues::defaults(false);
            v.set(k.name, &other(k)).unwrap_or_else(|e| panic!("{e}"));
            let o = PolicyOptions::from_knobs(&v, 1).unwrap_or_else(|e| panic!("{}: {e}", k.name));
            assert_ne!(format!("{o:?}"), base, "{} does not reach the options", k.name);
            assert!(!readers(k.name).is_empty(), "{} is read by no policy", k.name);
            assert_eq!(v.given().collect::<Vec<_>>(), [k.name]);
        }
    }

    #[test]
    fn values_outside_the_declaration_are_refused_naming_the_flag() {
        let mut v = KnobValues::defaults(false);
        assert_eq!(
            v.set("quantum_ms", "0").unwrap_err().to_string(),
            "--quantum-ms: must be from 0.001 ms (1 µs) to 3600000 ms (1 hour), got 0"
        );
        assert_eq!(
            v.set("rda_factor", "-1").unwrap_err().to_string(),
            "--rda-factor: must be a positive number, got -1"
        );
        assert_eq!(v.set("slits_k", "x").unwrap_err().to_string(), "--slits-k: `x` is not a whole number");
        assert!(v.set("efs_objective", "speed").unwrap_err().to_string().contains("energy, energy-delay"));
        assert_eq!(
            v.set("quintet_without", "pairing,bus").unwrap_err().to_string(),
            "--quintet-without: unknown word `bus`: expected none or any of pairing, progress, admission, periods, pipes"
        );
        v.set("quintet_without", "periods, pairing,pairing").unwrap();
        assert_eq!(v.text("quintet_without"), Some("pairing,periods"));
        assert!(v.set("no_such", "1").is_err());
    }

    #[test]
    fn an_unread_knob_is_refused_naming_its_readers_or_noted_when_some_read_it() {
        let e = unread(&["quantum_ms"], &["cfs"]).unwrap_err().to_string();
        let readers = readers("quantum_ms");
        assert!(readers.starts_with(&["g-rrs", "p-rrs", "wss"]) && readers.contains(&"static"), "{readers:?}");
        assert_eq!(e, format!("--quantum-ms: policy `cfs` does not read it; it is read by {}", readers.join(", ")));
        assert_eq!(unread(&["quantum_ms"], &["cfs", "g-rrs"]).unwrap(), ["--quantum-ms applies to g-rrs only"]);
        assert!(unread(&["efs_window_ms"], &["efs"]).unwrap().is_empty());
        assert!(unread(&["assignment"], &["cfs", "efs"])
            .unwrap_err()
            .to_string()
            .contains("policies `cfs`, `efs` do not read it"));
    }
}
