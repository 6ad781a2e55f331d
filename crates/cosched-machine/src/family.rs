//! Families of held-out mixes: how `cosched draw-mixes` draws the random
//! mixes a host's predictions are judged on (issue #66 item 4). A family is
//! written down with its seed before any mechanism is tuned and never
//! retuned; mix `k` of a family is a function of the family file, `k` and
//! the host's calibration alone.
//!
//! ```toml
//! name = "host-random"
//! seed = 6629
//! mixes = 12                    # the mixes a report uses: 1..=mixes
//! jobs = [2, 6]                 # jobs per mix, uniform, inclusive
//! alone_s = [0.6, 2.0]          # a synthetic job's time alone, uniform
//! size_llc = [0.25, 8.0]        # its working set / the host's LLC, log-uniform
//! kinds = ["stream", "pointer-chase", "compute"]   # drawn uniformly
//! ```
//!
//! or, for real programs, `[[program]]` tables (`name`, `cmd`) instead of
//! `kinds`, each job one of them drawn uniformly.

use crate::ConfigError;
use cosched_core::text::quote;
use serde::Deserialize;

/// The synthetic programs a family may draw (`cosched-bench` kernels).
pub const KINDS: [&str; 6] = ["stream", "random-access", "random-update", "pointer-chase", "phases", "compute"];

/// Most mixes a family may name, jobs a mix may hold, and seconds a job may last alone.
pub const MAX_MIXES: u32 = 1000;
/// Most jobs of one drawn mix.
pub const MAX_JOBS: u32 = 64;
/// Longest time alone a family may ask of one job, s.
pub const MAX_ALONE_S: f64 = 600.0;
/// Largest working set a family may ask, × the host's LLC (64 × an 18 MiB LLC is 1.1 GiB per job).
pub const MAX_SIZE_LLC: f64 = 64.0;

/// A real program of a family.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FamilyProgram {
    /// Its name (a job name of the drawn mixes).
    pub name: String,
    /// Program and arguments (no shell unless it names one).
    pub cmd: Vec<String>,
}

/// A family of random mixes (issue #66 item 4).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Family {
    /// Its name.
    pub name: String,
    /// One line on what it is and when it was written down.
    #[serde(default)]
    pub description: Option<String>,
    /// The seed every mix is drawn from.
    pub seed: u64,
    /// The mixes a report uses (1..=mixes).
    pub mixes: u32,
    /// Jobs per mix, inclusive range.
    pub jobs: [u32; 2],
    /// A synthetic job's time alone, s (uniform).
    #[serde(default = "default_alone")]
    pub alone_s: [f64; 2],
    /// A synthetic job's working set over the host's LLC (log-uniform).
    #[serde(default = "default_size")]
    pub size_llc: [f64; 2],
    /// Synthetic kinds drawn uniformly ([`KINDS`]).
    #[serde(default)]
    pub kinds: Vec<String>,
    /// Real programs drawn uniformly.
    #[serde(default, rename = "program")]
    pub programs: Vec<FamilyProgram>,
}

fn default_alone() -> [f64; 2] {
    [0.6, 2.0]
}

fn default_size() -> [f64; 2] {
    [0.25, 8.0]
}

impl Family {
    /// Read and validate a family file.
    pub fn load(path: &std::path::Path) -> Result<Family, ConfigError> {
        let file = path.display().to_string();
        let src = crate::input::read_text(path, &file, crate::input::Kind::Config)?;
        Family::parse(&file, &src)
    }

    /// Parse and validate family text (`file` names it in errors).
    pub fn parse(file: &str, src: &str) -> Result<Family, ConfigError> {
        let f: Family = toml::from_str(src).map_err(|e| ConfigError::from_toml(file, src, &e))?;
        f.validate(file)?;
        Ok(f)
    }

    fn validate(&self, file: &str) -> Result<(), ConfigError> {
        let bad = |field: &str, problem: String| Err(ConfigError::new(file, field, problem));
        if !(1..=MAX_MIXES).contains(&self.mixes) {
            return bad("mixes", format!("must be 1..={MAX_MIXES}, got {}", self.mixes));
        }
        let [lo, hi] = self.jobs;
        if lo < 1 || lo > hi || hi > MAX_JOBS {
            return bad("jobs", format!("must be [low, high] with 1 <= low <= high <= {MAX_JOBS}, got [{lo}, {hi}]"));
        }
        let [lo, hi] = self.alone_s;
        if !(lo > 0.0 && lo <= hi && hi <= MAX_ALONE_S) {
            return bad(
                "alone_s",
                format!("must be [low, high] with 0 < low <= high <= {MAX_ALONE_S}, got [{lo}, {hi}]"),
            );
        }
        let [lo, hi] = self.size_llc;
        if !(lo > 0.0 && lo <= hi && hi <= MAX_SIZE_LLC) {
            return bad(
                "size_llc",
                format!("must be [low, high] with 0 < low <= high <= {MAX_SIZE_LLC}, got [{lo}, {hi}]"),
            );
        }
        match (self.kinds.is_empty(), self.programs.is_empty()) {
            (true, true) => return bad("kinds", "a family needs `kinds` or [[program]] tables".into()),
            (false, false) => return bad("kinds", "give `kinds` or [[program]] tables, not both".into()),
            _ => {}
        }
        for (i, k) in self.kinds.iter().enumerate() {
            if !KINDS.contains(&k.as_str()) {
                return bad(
                    &format!("kinds[{i}]"),
                    format!("`{}` is not a kind (known: {})", quote(k), KINDS.join(", ")),
                );
            }
        }
        let mut seen = std::collections::BTreeSet::new();
        for (i, p) in self.programs.iter().enumerate() {
            let f = |k: &str| format!("program[{i}].{k}");
            if p.name.is_empty() || !p.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
                return bad(
                    &f("name"),
                    format!("must be a word of letters, digits, - and _, got `{}`", quote(&p.name)),
                );
            }
            if !seen.insert(&p.name) {
                return bad(&f("name"), format!("`{}` is used twice", quote(&p.name)));
            }
            if p.cmd.is_empty() || p.cmd[0].is_empty() {
                return bad(&f("cmd"), "must name a program".into());
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OK: &str = "name = \"f\"\nseed = 1\nmixes = 3\njobs = [2, 4]\nkinds = [\"stream\", \"compute\"]\n";

    #[test]
    fn a_family_parses_with_its_defaults() {
        let f = Family::parse("f.toml", OK).expect("valid");
        assert_eq!((f.mixes, f.jobs, f.alone_s, f.size_llc), (3, [2, 4], [0.6, 2.0], [0.25, 8.0]));
    }

    #[test]
    fn bad_families_name_the_field() {
        for (src, field) in [
            (OK.replace("mixes = 3", "mixes = 0"), "mixes"),
            (OK.replace("[2, 4]", "[4, 2]"), "jobs"),
            (OK.replace("\"compute\"", "\"gups\""), "kinds[1]"),
            (format!("{OK}alone_s = [0.0, 1.0]\n"), "alone_s"),
            (OK.replace("kinds = [\"stream\", \"compute\"]\n", ""), "kinds"),
            (format!("{OK}size_llc = [0.5, 100.0]\n"), "size_llc"),
            (format!("{OK}[[program]]\nname = \"xz\"\ncmd = [\"xz\"]\n"), "kinds"),
        ] {
            let e = Family::parse("f.toml", &src).expect_err(field).to_string();
            assert!(e.starts_with(&format!("f.toml: {field}")), "{e}");
        }
        let two = "name = \"r\"\nseed = 1\nmixes = 1\njobs = [1, 2]\n[[program]]\nname = \"a\"\ncmd = [\"true\"]\n\
                   [[program]]\nname = \"a\"\ncmd = [\"true\"]\n";
        let e = Family::parse("r.toml", two).expect_err("twice").to_string();
        assert!(e.contains("program[1].name") && e.contains("used twice"), "{e}");
    }
}
