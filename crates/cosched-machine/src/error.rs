//! Configuration errors: one line naming the file, the field and the problem.

use cosched_core::num::shortest;
use std::fmt;

/// A problem with an input file (a machine or workload preset, a trace).
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigError {
    /// File name or preset name.
    pub file: String,
    /// The field (dotted path, with indices), or `-` when not about one field.
    pub field: String,
    /// What is wrong.
    pub problem: String,
}

impl ConfigError {
    /// A new error.
    pub fn new(file: &str, field: impl Into<String>, problem: impl Into<String>) -> ConfigError {
        ConfigError { file: file.to_string(), field: field.into(), problem: problem.into() }
    }

    /// Turn a TOML parse error into one line with the line number and key.
    pub fn from_toml(file: &str, src: &str, e: &toml::de::Error) -> ConfigError {
        let msg = e.message().replace('\n', " ");
        let Some(span) = e.span() else {
            return ConfigError::new(file, "-", msg);
        };
        if let Some(missing) = msg.strip_prefix("missing field `").and_then(|m| m.split('`').next()) {
            return ConfigError::missing_field(file, src, span, missing);
        }
        let line_no = src[..span.start.min(src.len())].matches('\n').count() + 1;
        let line = src.lines().nth(line_no - 1).unwrap_or("").trim();
        let key = line.split('=').next().unwrap_or("").trim().trim_matches(['[', ']']);
        let field = if key.is_empty() { "-".to_string() } else { key.to_string() };
        ConfigError { file: format!("{file}:{line_no}"), field, problem: msg }
    }
}

impl ConfigError {
    /// A required field is missing from the table spanning `span` of `src`
    /// (an empty span: the top level). Names the field by its path, with the
    /// index of an array-of-tables entry (`job[1].name`).
    fn missing_field(file: &str, src: &str, span: std::ops::Range<usize>, name: &str) -> ConfigError {
        let problem = "required field is missing";
        let at = span.start.min(src.len());
        let header = src[at..].lines().next().unwrap_or("").trim();
        if span.is_empty() || !header.starts_with('[') {
            return ConfigError::new(file, name, problem);
        }
        let line_no = src[..at].matches('\n').count() + 1;
        let table = header.trim_matches(['[', ']']).trim();
        let path = if header.starts_with("[[") {
            let index = src[..at].lines().filter(|l| l.trim() == header).count();
            format!("{table}[{index}].{name}")
        } else {
            format!("{table}.{name}")
        };
        ConfigError { file: format!("{file}:{line_no}"), field: path, problem: problem.into() }
    }
}

/// `file: field: problem`, or `file: problem` when no single field is at fault.
impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field == "-" || self.field.is_empty() {
            write!(f, "{}: {}", self.file, self.problem)
        } else {
            write!(f, "{}: {}: {}", self.file, self.field, self.problem)
        }
    }
}

impl std::error::Error for ConfigError {}

/// Range checks used by the spec validators (machine here, workloads in the
/// simulator): each failure is a [`ConfigError`] naming `file` and the field.
pub struct Check<'a> {
    /// The file (or preset) being validated.
    pub file: &'a str,
}

impl Check<'_> {
    /// `v` must be finite and > 0.
    pub fn positive(&self, field: impl Into<String>, v: f64) -> Result<(), ConfigError> {
        if v.is_finite() && v > 0.0 {
            Ok(())
        } else {
            Err(ConfigError::new(self.file, field, format!("must be a positive number, got {}", shortest(v))))
        }
    }

    /// `v` must be finite and ≥ 0.
    pub fn non_negative(&self, field: impl Into<String>, v: f64) -> Result<(), ConfigError> {
        if v.is_finite() && v >= 0.0 {
            Ok(())
        } else {
            Err(ConfigError::new(self.file, field, format!("must be ≥ 0, got {}", shortest(v))))
        }
    }

    /// `v` must be finite and in `[lo, hi]`.
    pub fn within(&self, field: impl Into<String>, v: f64, lo: f64, hi: f64) -> Result<(), ConfigError> {
        if v.is_finite() && v >= lo && v <= hi {
            Ok(())
        } else {
            Err(ConfigError::new(
                self.file,
                field,
                format!("must be in [{}, {}], got {}", shortest(lo), shortest(hi), shortest(v)),
            ))
        }
    }

    /// `v` must be exactly 0 or finite in `[lo, hi]` (a rate below `lo` is
    /// no measurement, and its square underflows in the model's algebra).
    pub fn zero_or_within(&self, field: impl Into<String>, v: f64, lo: f64, hi: f64) -> Result<(), ConfigError> {
        if v == 0.0 || (v.is_finite() && v >= lo && v <= hi) {
            Ok(())
        } else {
            Err(ConfigError::new(
                self.file,
                field,
                format!("must be 0 or in [{}, {}], got {}", shortest(lo), shortest(hi), shortest(v)),
            ))
        }
    }

    /// An error about `field` of this file.
    pub fn fail(&self, field: impl Into<String>, problem: impl Into<String>) -> ConfigError {
        ConfigError::new(self.file, field, problem)
    }
}
