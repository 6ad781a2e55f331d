//! Mix files: the real commands a `cosched run` launches.
//!
//! ```toml
//! name = "cache-vs-compute"            # optional
//! description = "two chases, a compute" # optional
//! [[job]]
//! name = "chase16"                     # unique
//! cmd = ["cosched-bench", "chase", "--mb", "16", "--seconds", "8"]
//! count = 2                            # instances (default 1)
//! cwd = "."                            # relative to the mix file (default: its directory)
//! env = { OMP_NUM_THREADS = "1" }      # extra environment (optional)
//! solo_s = 8.1                         # declared solo turnaround, s (optional)
//! [job.profile]                        # declared profile (optional; RDA §2.2 demand
//! resource = "llc"                     #   held for the whole run of each instance)
//! mb = 16
//! reuse = "high"
//! ```
//!
//! A command named `cosched-bench` is found next to the `cosched` binary
//! when it is not on `PATH`.

use crate::ConfigError;
use cosched_core::policy::{Demand, Resource, Reuse};
use cosched_core::text::quote;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The longest time alone a mix may declare for a job (`solo_s`), s: a year.
pub const MAX_SOLO_S: f64 = 3.2e7;
/// A declared profile: one demand held for the whole run (RDA §2.2).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// `llc` or `membw`.
    pub resource: Resource,
    /// Amount: MB of cache, or (membw) MB/s.
    pub mb: f64,
    /// Reuse level.
    #[serde(default = "default_reuse")]
    pub reuse: Reuse,
}

fn default_reuse() -> Reuse {
    Reuse::High
}

impl Profile {
    /// As a progress-period demand (bytes, or bytes per second).
    pub fn demand(&self) -> Demand {
        Demand { resource: self.resource, amount: self.mb * 1024.0 * 1024.0, reuse: self.reuse }
    }
}

/// One job of a mix.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MixJob {
    /// Unique name.
    pub name: String,
    /// Program and arguments (no shell).
    pub cmd: Vec<String>,
    /// Instances.
    #[serde(default = "one")]
    pub count: u32,
    /// Working directory (relative to the mix file).
    #[serde(default)]
    pub cwd: Option<PathBuf>,
    /// Extra environment.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Declared solo turnaround, seconds.
    #[serde(default)]
    pub solo_s: Option<f64>,
    /// Declared profile.
    #[serde(default)]
    pub profile: Option<Profile>,
}

fn one() -> u32 {
    1
}

/// A mix file.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Mix {
    /// Name for reports (default: the file stem).
    #[serde(default)]
    pub name: Option<String>,
    /// One-line description (optional, as in workload files).
    #[serde(default)]
    pub description: Option<String>,
    /// The jobs.
    #[serde(rename = "job")]
    pub jobs: Vec<MixJob>,
    /// Directory relative paths are resolved against (not in the file).
    #[serde(skip)]
    pub base: PathBuf,
}

/// One instance to launch.
#[derive(Clone, Debug, PartialEq)]
pub struct Instance {
    /// `name#k` (or `name` when the job has one instance).
    pub name: String,
    /// Index of its job in the mix.
    pub job: usize,
}

impl Mix {
    /// Read and validate a mix file.
    pub fn load(path: &Path) -> Result<Mix, ConfigError> {
        let file = path.display().to_string();
        let src = crate::input::read_text(path, &file, crate::input::Kind::Config)?;
        let mut m = Mix::parse(&file, &src)?;
        m.base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        if m.name.is_none() {
            m.name = path.file_stem().map(|s| s.to_string_lossy().into_owned());
        }
        Ok(m)
    }

    /// Parse and validate mix text (`file` names it in errors).
    pub fn parse(file: &str, src: &str) -> Result<Mix, ConfigError> {
        let m: Mix = toml::from_str(src).map_err(|e| ConfigError::from_toml(file, src, &e))?;
        m.validate(file)?;
        Ok(m)
    }

    /// A mix of one command (`cosched run -- CMD ARGS`).
    pub fn single(cmd: Vec<String>) -> Mix {
        let name = cmd
            .first()
            .and_then(|c| Path::new(c).file_name().map(|f| f.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "cmd".into());
        Mix {
            name: Some(name.clone()),
            description: None,
            jobs: vec![MixJob { name, cmd, count: 1, cwd: None, env: BTreeMap::new(), solo_s: None, profile: None }],
            base: PathBuf::from("."),
        }
    }

    fn validate(&self, file: &str) -> Result<(), ConfigError> {
        if self.jobs.is_empty() {
            return Err(ConfigError::new(file, "job", "a mix needs at least one [[job]]"));
        }
        let mut seen = std::collections::BTreeSet::new();
        for (i, j) in self.jobs.iter().enumerate() {
            let f = |k: &str| format!("job[{i}].{k}");
            if j.name.is_empty() || j.name.contains(|c: char| c.is_whitespace() || c.is_control()) {
                return Err(ConfigError::new(
                    file,
                    f("name"),
                    format!("must be a non-empty word without control characters, got `{}`", quote(&j.name)),
                ));
            }
            if !seen.insert(&j.name) {
                return Err(ConfigError::new(file, f("name"), format!("`{}` is used twice", quote(&j.name))));
            }
            if j.cmd.is_empty() || j.cmd[0].is_empty() {
                return Err(ConfigError::new(file, f("cmd"), "must name a program"));
            }
            // What exec(2) cannot take is refused here, not at launch.
            if let Some(k) = j.cmd.iter().position(|a| a.contains('\0')) {
                return Err(ConfigError::new(file, f(&format!("cmd[{k}]")), "contains a NUL byte"));
            }
            for (k, v) in &j.env {
                let field = f(&format!("env.{}", quote(k)));
                if k.is_empty() || k.contains(['=', '\0']) {
                    return Err(ConfigError::new(
                        file,
                        field,
                        "an environment variable's name must be non-empty, without `=` or a NUL byte",
                    ));
                }
                if v.contains('\0') {
                    return Err(ConfigError::new(file, field, "the value contains a NUL byte"));
                }
            }
            if j.count == 0 || j.count > 4096 {
                return Err(ConfigError::new(file, f("count"), format!("must be 1..=4096, got {}", j.count)));
            }
            if let Some(s) = j.solo_s {
                // A job's time alone: a measurement of a real run, so at most a year.
                if !(s.is_finite() && s > 0.0 && s <= MAX_SOLO_S) {
                    return Err(ConfigError::new(
                        file,
                        f("solo_s"),
                        format!("must be from more than 0 to {MAX_SOLO_S} s, got {}", cosched_core::num::shortest(s)),
                    ));
                }
            }
            if let Some(p) = &j.profile {
                // MB of cache or MB/s of bandwidth: at most a petabyte (a second).
                if !(p.mb.is_finite() && p.mb > 0.0 && p.mb <= 1e9) {
                    return Err(ConfigError::new(
                        file,
                        f("profile.mb"),
                        format!("must be a positive number up to 1e9, got {}", cosched_core::num::shortest(p.mb)),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Every job's program must exist (on `PATH`, as a path, or beside the
    /// `cosched` binary): checked before anything is launched, so a missing
    /// program refuses the run instead of failing one job midway.
    pub fn check_programs(&self, file: &str) -> Result<(), ConfigError> {
        for (i, j) in self.jobs.iter().enumerate() {
            let dir = self.cwd(j);
            if !dir.is_dir() {
                return Err(ConfigError::new(
                    file,
                    format!("job[{i}].cwd"),
                    format!(
                        "`{}` (job `{}`) is not a directory (a relative cwd is from the mix file's folder)",
                        dir.display(),
                        j.name
                    ),
                ));
            }
            if let Some(problem) = program_problem(&j.cmd[0]) {
                let hint = if j.cmd[0].contains('/') {
                    String::new()
                } else {
                    "; install it, or use a mix of cosched-bench jobs (data/mixes/bench-mix.toml)".to_string()
                };
                return Err(ConfigError::new(
                    file,
                    format!("job[{i}].cmd"),
                    format!("program `{}` (job `{}`) {problem}{hint}", j.cmd[0], j.name),
                ));
            }
        }
        Ok(())
    }

    /// The sub-mix of the given jobs, one instance each; a job listed twice
    /// (a self-pair) becomes one job with two instances.
    pub fn only(&self, jobs: &[usize]) -> Mix {
        let mut m = self.clone();
        m.jobs = vec![];
        for &j in jobs {
            match m.jobs.iter_mut().find(|x| x.name == self.jobs[j].name) {
                Some(x) => x.count += 1,
                None => m.jobs.push(MixJob { count: 1, ..self.jobs[j].clone() }),
            }
        }
        m
    }

    /// Every instance, job by job.
    pub fn instances(&self) -> Vec<Instance> {
        let mut v = vec![];
        for (ji, j) in self.jobs.iter().enumerate() {
            for k in 0..j.count {
                let name = if j.count == 1 { j.name.clone() } else { format!("{}#{k}", j.name) };
                v.push(Instance { name, job: ji });
            }
        }
        v
    }

    /// The working directory of job `j`.
    pub fn cwd(&self, j: &MixJob) -> PathBuf {
        match &j.cwd {
            Some(c) if c.is_absolute() => c.clone(),
            Some(c) => self.base.join(c),
            None => {
                if self.base.as_os_str().is_empty() {
                    PathBuf::from(".")
                } else {
                    self.base.clone()
                }
            }
        }
    }
}

/// Whether instance `name` (`job` or `job#k`, see [`Mix::instances`]) belongs to mix job `job`.
pub fn belongs(name: &str, job: &str) -> bool {
    name == job || name.rsplit_once('#').is_some_and(|(n, _)| n == job)
}

/// Resolve a program name: a path as given, else `PATH`, else the directory
/// of the running executable (where `cosched-bench` lives beside `cosched`).
pub fn resolve_program(prog: &str) -> Option<PathBuf> {
    if prog.contains('/') {
        let p = PathBuf::from(prog);
        return is_executable(&p).then_some(p);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path) {
        let c = dir.join(prog);
        if is_executable(&c) {
            return Some(c);
        }
    }
    let beside = std::env::current_exe().ok()?.parent()?.join(prog);
    is_executable(&beside).then_some(beside)
}

/// The micro-benchmark program the calibration, characterisation and the development mixes run.
pub const BENCH: &str = "cosched-bench";

/// The subcommand of `cosched` that runs the same kernels as [`BENCH`].
pub const BENCH_SUBCOMMAND: &str = "bench";

/// How `prog` starts: the file to execute and the arguments that go before the command's own.
/// [`resolve_program`]'s answer; and for [`BENCH`], found nowhere, the running `cosched` itself
/// with [`BENCH_SUBCOMMAND`] (a build of `cosched` alone, the README's first command, runs the
/// kernels it carries).
pub fn resolve_command(prog: &str) -> Option<(PathBuf, Vec<String>)> {
    if let Some(p) = resolve_program(prog) {
        return Some((p, vec![]));
    }
    if prog != BENCH {
        return None;
    }
    let exe = std::env::current_exe().ok()?;
    (exe.file_name()? == "cosched").then(|| (exe, vec![BENCH_SUBCOMMAND.to_string()]))
}

/// Where [`resolve_command`] looks for `prog`, in words, and what it found (for `cosched doctor`).
pub fn command_found(prog: &str) -> (bool, String) {
    let looked = "PATH, then beside cosched";
    match resolve_command(prog) {
        Some((p, pre)) if pre.is_empty() => (true, format!("{} (looked in {looked})", p.display())),
        Some((p, pre)) => (true, format!("`{} {}` (not on {looked}: cosched carries it)", p.display(), pre.join(" "))),
        None => (false, format!("not on {looked}")),
    }
}

/// Why `prog` cannot be started, as words to follow its name (`None`: [`resolve_command`] finds
/// it): a path that does not exist, is a directory or is not executable, or a name on neither
/// `PATH` nor beside cosched.
pub fn program_problem(prog: &str) -> Option<String> {
    if resolve_command(prog).is_some() {
        return None;
    }
    if !prog.contains('/') {
        return Some("not found on PATH or beside cosched".to_string());
    }
    Some(match Path::new(prog).metadata() {
        Err(_) => "does not exist".to_string(),
        Ok(m) if m.is_dir() => "is a directory, not a program".to_string(),
        Ok(m) if !m.is_file() => "is not a regular file".to_string(),
        Ok(_) => format!("is not executable (`chmod +x {prog}`, or run it through its interpreter: `sh {prog}`)"),
    })
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata().map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0).unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
[[job]]
name = "chase"
cmd = ["cosched-bench", "chase"]
count = 2
[job.profile]
resource = "llc"
mb = 16

[[job]]
name = "xz"
cmd = ["xz", "-9"]
solo_s = 3.5
"#;

    #[test]
    fn parses_instances_and_profiles() {
        let m = Mix::parse("m.toml", GOOD).unwrap();
        let names: Vec<String> = m.instances().into_iter().map(|i| i.name).collect();
        assert_eq!(names, ["chase#0", "chase#1", "xz"]);
        let pair = |js: &[usize]| m.only(js).instances().into_iter().map(|i| i.name).collect::<Vec<_>>();
        assert_eq!(pair(&[1]), ["xz"]);
        assert_eq!(pair(&[0, 1]), ["chase", "xz"]);
        assert_eq!(pair(&[0, 0]), ["chase#0", "chase#1"]);
        let d = m.jobs[0].profile.as_ref().unwrap().demand();
        assert_eq!((d.resource, d.amount, d.reuse), (Resource::Llc, 16.0 * 1048576.0, Reuse::High));
    }

    #[test]
    fn bad_input_names_file_and_field() {
        let cases = [
            (GOOD.replace("count = 2", "count = 0"), "m.toml: job[0].count: must be 1..=4096, got 0"),
            (GOOD.replace("\"xz\", \"-9\"", ""), "m.toml: job[1].cmd: must name a program"),
            (GOOD.replace("name = \"xz\"", "name = \"chase\""), "m.toml: job[1].name: `chase` is used twice"),
            (
                GOOD.replace("mb = 16", "mb = -1"),
                "m.toml: job[0].profile.mb: must be a positive number up to 1e9, got -1",
            ),
            (
                GOOD.replace("solo_s = 3.5", "solo_s = 1e308"),
                "m.toml: job[1].solo_s: must be from more than 0 to 32000000 s, got 1e308",
            ),
            ("".to_string(), "m.toml: job: required field is missing"),
            (
                GOOD.replace("solo_s = 3.5", "env = { \"A=B\" = \"1\" }"),
                "m.toml: job[1].env.A=B: an environment variable's name must be non-empty, without `=` or a NUL byte",
            ),
            (
                GOOD.replace("solo_s = 3.5", "env = { A = \"x\\u0000y\" }"),
                "m.toml: job[1].env.A: the value contains a NUL byte",
            ),
            (GOOD.replace("\"-9\"", "\"a\\u0000\""), "m.toml: job[1].cmd[1]: contains a NUL byte"),
            (
                GOOD.replace("name = \"xz\"", "name = \"\\u001b]0;x\\u0007\""),
                "m.toml: job[1].name: must be a non-empty word without control characters, got `\\u{1b}]0;x\\u{7}`",
            ),
        ];
        for (src, want) in cases {
            assert_eq!(Mix::parse("m.toml", &src).unwrap_err().to_string(), want);
        }
        let e = Mix::parse("m.toml", &GOOD.replace("count = 2", "cuont = 2")).unwrap_err().to_string();
        assert!(e.starts_with("m.toml:5: job[0].cuont: unknown field `cuont`"), "{e}");
    }

    #[test]
    fn a_missing_program_is_named_before_launch() {
        let src =
            GOOD.replace("\"cosched-bench\", \"chase\"", "\"sh\"").replace("\"xz\", \"-9\"", "\"no-such-program-xyz\"");
        let m = Mix::parse("m.toml", &src).unwrap();
        let e = m.check_programs("m.toml").unwrap_err().to_string();
        assert!(e.starts_with("m.toml: job[1].cmd: program `no-such-program-xyz` (job `xz`) not found"), "{e}");
        let described = format!("description = \"a mix\"\n{GOOD}");
        assert_eq!(Mix::parse("m.toml", &described).unwrap().description.as_deref(), Some("a mix"));
    }

    #[test]
    fn programs_resolve_on_path() {
        assert!(resolve_program("sh").is_some());
        assert!(resolve_program("no-such-program-xyz").is_none());
        assert!(resolve_program("/no/such").is_none());
    }
}
