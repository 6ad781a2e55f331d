//! Families of held-out mixes: how `cosched draw-mixes` draws the random
//! mixes a host's predictions are judged on. A family is
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

/// A verdict declared before the blocks it reads ran: which mixes of the family it is read at
/// (mixes `from..=to`, pooled over every block that measured them) and when that was fixed,
/// so a pooled verdict is never read at a count chosen after its data were seen.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FamilyVerdict {
    /// What the verdict judges, in words.
    pub reads: String,
    /// The first mix it reads (mix numbers as `draw-mixes` numbers them).
    #[serde(default = "first_mix")]
    pub from: u32,
    /// The last mix it reads: the verdict is read when every mix up to it has been measured.
    pub to: u32,
    /// When the count was fixed (an ISO date).
    pub declared: String,
    /// What had been seen when it was fixed (an honest history: "after blocks 1-36 were seen").
    #[serde(default)]
    pub note: Option<String>,
}

fn first_mix() -> u32 {
    1
}

/// A family of random mixes.
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
    /// The verdicts declared on the family's mixes (read by `scripts/family_pooled.py`); they
    /// change nothing that is drawn.
    #[serde(default, rename = "verdict")]
    pub verdicts: Vec<FamilyVerdict>,
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
        for (i, v) in self.verdicts.iter().enumerate() {
            let f = |k: &str| format!("verdict[{i}].{k}");
            if v.from < 1 || v.from > v.to || v.to > MAX_MIXES {
                return bad(
                    &f("to"),
                    format!("must read mixes from..=to with 1 <= from <= to <= {MAX_MIXES}, got {}..={}", v.from, v.to),
                );
            }
            let date = v.declared.as_bytes();
            let iso = date.len() == 10
                && date.iter().enumerate().all(|(k, c)| if k == 4 || k == 7 { *c == b'-' } else { c.is_ascii_digit() });
            if !iso {
                return bad(&f("declared"), format!("must be a date as YYYY-MM-DD, got `{}`", quote(&v.declared)));
            }
            if v.reads.trim().is_empty() {
                return bad(&f("reads"), "must say what the verdict judges".into());
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

    #[test]
    fn declared_verdicts_parse_and_bad_ones_name_the_field() {
        let v = "[[verdict]]\nreads = \"accuracy\"\nto = 24\ndeclared = \"2026-11-30\"\n";
        let f = Family::parse("f.toml", &format!("{OK}{v}")).expect("valid");
        assert_eq!((f.verdicts[0].from, f.verdicts[0].to), (1, 24));
        for (bad, field) in [
            (v.replace("to = 24", "to = 0"), "verdict[0].to"),
            (v.replace("to = 24", "to = 24\nfrom = 25"), "verdict[0].to"),
            (v.replace("2026-11-30", "last week"), "verdict[0].declared"),
            (v.replace("\"accuracy\"", "\" \""), "verdict[0].reads"),
        ] {
            let e = Family::parse("f.toml", &format!("{OK}{bad}")).expect_err(field).to_string();
            assert!(e.starts_with(&format!("f.toml: {field}")), "{e}");
        }
    }
}
