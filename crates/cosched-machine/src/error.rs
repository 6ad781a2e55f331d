//! Configuration errors: one line naming the file, the field and the problem.

use cosched_core::num::shortest;
use std::fmt;

/// A problem with an input file (a machine or workload preset, a trace).
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigError {
    /// File name or preset name.
    pub file: String,
    /// The line of the file at fault (from 1), when one is.
    pub line: Option<usize>,
    /// The field (dotted path, with indices), when a single field is at fault.
    pub field: Option<String>,
    /// What is wrong.
    pub problem: String,
}

impl ConfigError {
    /// A problem with `field` of `file`.
    pub fn new(file: &str, field: impl Into<String>, problem: impl Into<String>) -> ConfigError {
        ConfigError { file: file.to_string(), line: None, field: Some(field.into()), problem: problem.into() }
    }

    /// A problem with `file` as a whole (no single field at fault).
    pub fn whole(file: &str, problem: impl Into<String>) -> ConfigError {
        ConfigError { file: file.to_string(), line: None, field: None, problem: problem.into() }
    }

    /// The same problem, at `line` of the file.
    pub fn at_line(self, line: usize) -> ConfigError {
        ConfigError { line: Some(line), ..self }
    }

    /// Turn a TOML parse error into one line with the line number and the
    /// dotted path of the key (`job[0].phase[1].ipcc`).
    pub fn from_toml(file: &str, src: &str, e: &toml::de::Error) -> ConfigError {
        let msg = e.message().replace('\n', " ");
        let Some(span) = e.span() else {
            return ConfigError::whole(file, msg);
        };
        let at = span.start.min(src.len());
        let line_no = src[..at].matches('\n').count() + 1;
        let table = table_path(src, at);
        if let Some(missing) = msg.strip_prefix("missing field `").and_then(|m| m.split('`').next()) {
            // The span covers the table that lacks the field.
            let field =
                if span.is_empty() || table.is_empty() { missing.to_string() } else { format!("{table}.{missing}") };
            let line = (!span.is_empty()).then_some(line_no);
            return ConfigError {
                file: file.into(),
                line,
                field: Some(field),
                problem: "required field is missing".into(),
            };
        }
        let line = src.lines().nth(line_no - 1).unwrap_or("").trim();
        let key = if line.starts_with('[') { "" } else { line.split('=').next().unwrap_or("").trim() };
        let field = match (table.is_empty(), key.is_empty()) {
            (_, true) if table.is_empty() => None,
            (_, true) => Some(table),
            (true, false) => Some(key.to_string()),
            (false, false) => Some(format!("{table}.{key}")),
        };
        ConfigError { file: file.into(), line: Some(line_no), field, problem: msg }
    }
}

/// The dotted path, with array-of-tables indices, of the table that holds
/// byte `at` of `src` (`job[1].phase[0]`; empty at the top level): each
/// `[[a.b]]` header counts within the current `a` entry.
fn table_path(src: &str, at: usize) -> String {
    let mut index: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    let mut current = String::new();
    let mut offset = 0;
    for line in src.split_inclusive('\n') {
        if offset > at {
            break;
        }
        let l = line.trim();
        let (array, name) = if let Some(n) = l.strip_prefix("[[").and_then(|r| r.split("]]").next()) {
            (true, n.trim())
        } else if let Some(n) = l.strip_prefix('[').and_then(|r| r.split(']').next()) {
            (false, n.trim())
        } else {
            offset += line.len();
            continue;
        };
        if array {
            // A new entry of `name`: its own count goes up, its sub-arrays start again.
            *index.entry(name.to_string()).or_insert(0) += 1;
            let prefix = format!("{name}.");
            for (k, v) in index.iter_mut() {
                if k.starts_with(&prefix) {
                    *v = 0;
                }
            }
        }
        let mut path = String::new();
        let mut so_far = String::new();
        for (i, part) in name.split('.').enumerate() {
            if i > 0 {
                so_far.push('.');
                path.push('.');
            }
            so_far.push_str(part.trim());
            path.push_str(part.trim());
            if let Some(&n) = index.get(&so_far) {
                if n > 0 {
                    path.push_str(&format!("[{}]", n - 1));
                }
            }
        }
        current = path;
        offset += line.len();
    }
    current
}

/// `file[:line]: field: problem`, or `file[:line]: problem` when no single field is at fault.
impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
        }
        match self.field.as_deref().filter(|x| !x.is_empty()) {
            Some(field) => write!(f, ": {field}: {}", self.problem),
            None => write!(f, ": {}", self.problem),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn err(src: &str) -> ConfigError {
        #[derive(serde::Deserialize, Debug)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct Phase {
            ipc: f64,
        }
        #[derive(serde::Deserialize, Debug)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct Job {
            name: String,
            #[serde(default)]
            phase: Vec<Phase>,
        }
        #[derive(serde::Deserialize, Debug)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct W {
            name: String,
            job: Vec<Job>,
        }
        let e = toml::from_str::<W>(src).unwrap_err();
        ConfigError::from_toml("w.toml", src, &e)
    }

    #[test]
    fn errors_name_the_dotted_path_with_indices() {
        let src = "name = \"w\"\n[[job]]\nname = \"a\"\n[[job.phase]]\nipc = 1\n[[job]]\nname = \"b\"\n\
                   [[job.phase]]\nipc = 1\n[[job.phase]]\nipcc = 2\n";
        let e = err(src);
        assert_eq!(e.field.as_deref(), Some("job[1].phase[1].ipcc"), "{e}");
        assert_eq!((e.file.as_str(), e.line), ("w.toml", Some(11)));
        assert!(e.to_string().starts_with("w.toml:11: job[1].phase[1].ipcc: "), "{e}");
        let e = err("name = \"w\"\n[[job]]\n[[job.phase]]\nipc = 1\n");
        assert_eq!(e.field.as_deref(), Some("job[0].name"), "{e}");
        let e = err("nam = \"w\"\n");
        assert_eq!(e.field.as_deref(), Some("nam"), "{e}");
    }
}
