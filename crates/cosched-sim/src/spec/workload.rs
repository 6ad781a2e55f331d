//! Workload presets: jobs (processes) of threads, each thread a sequence of
//! phases (docs/architecture.md, "Workloads as data").
//!
//! All sizes and counts in a phase are totals for the job (per iteration for
//! instructions) and are split evenly over the threads of its class, so the
//! same file describes a 32-, 64- or 128-thread run of the same problem
//! (strong scaling, as the SLITS study runs its workloads).

use cosched_core::policy::{Resource, Reuse};
use cosched_machine::error::{Check, ConfigError};
use serde::{Deserialize, Serialize};

/// Most threads a run may have (all jobs and instances together).
pub const MAX_THREADS: u32 = 1 << 20;

/// A workload as written in `data/workloads/*.toml`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSpec {
    /// Preset name.
    pub name: String,
    /// One-line description (optional).
    #[serde(default)]
    pub description: String,
    /// Published figures the preset is built from, with their source.
    #[serde(default)]
    pub sources: Vec<String>,
    /// The jobs.
    #[serde(rename = "job")]
    pub jobs: Vec<JobSpec>,
}

/// One job (process), possibly instantiated several times.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct JobSpec {
    /// Job name (default: the preset's).
    #[serde(default)]
    pub name: String,
    /// Copy the single job of this workload preset (its phases, threads,
    /// iterations); fields given here override it.
    #[serde(default)]
    pub preset: Option<String>,
    /// Number of identical instances.
    #[serde(default = "one")]
    pub instances: u32,
    /// Threads per instance (default 1, or the preset's).
    #[serde(default)]
    pub threads: Option<u32>,
    /// Whether `--threads N` overrides `threads` (default: when `threads > 1`).
    #[serde(default)]
    pub scalable: Option<bool>,
    /// Arrival time, seconds.
    #[serde(default)]
    pub arrival_s: f64,
    /// How many times the phase list runs (default 1, or the preset's).
    #[serde(default)]
    pub iterations: Option<u32>,
    /// A barrier across the instance's threads at the end of every iteration.
    #[serde(default)]
    pub barrier: bool,
    /// Per-thread variation of instruction counts: each thread's work is
    /// multiplied by `1 + jitter × U(−1, 1)` (seeded), modelling load imbalance.
    #[serde(default)]
    pub jitter: f64,
    /// Thread classes (roles) with their own phases.
    #[serde(default, rename = "class")]
    pub classes: Vec<ClassSpec>,
    /// Shorthand for a single class holding every thread.
    #[serde(default, rename = "phase")]
    pub phases: Vec<PhaseSpec>,
    /// Which threads exchange data with which (thread-to-thread communication).
    #[serde(default)]
    pub sharing: Option<SharingSpec>,
    /// Why this job's characterisation is not to be trusted on the host it was measured on
    /// (written by `cosched characterise`; SLITS §4.3's pair slowdowns predicted from it are
    /// then guesses): a run that predicts from it names the job, and `run --characterise`
    /// schedules on it only with `--accept-untrusted`. The simulator reads nothing from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub untrusted: Option<String>,
}

/// A thread-to-thread communication pattern (Barrow-Williams, Fensch & Moore,
/// IISWC 2009: PARSEC/SPLASH-2 communication matrices are rings, stencils,
/// pipelines, all-to-all and groups). A thread reads data its partners wrote:
/// an LLC hit when a partner runs in its LLC domain, a miss otherwise
/// (`docs/model.md`, "Data exchanged between threads").
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SharingSpec {
    /// The pattern.
    pub pattern: Pattern,
    /// Accesses to partners' data per kilo-instruction (a phase's `comm_apki` overrides).
    pub apki: f64,
    /// `groups`: threads per group (consecutive thread numbers).
    #[serde(default)]
    pub size: Option<u32>,
}

/// Who a thread's partners are (threads numbered within the job instance).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Pattern {
    /// Threads i−1 and i+1 (cyclic).
    Ring,
    /// Up, down, left and right neighbours on the most nearly square 2-D grid of the threads (not cyclic: edge threads have fewer).
    Stencil,
    /// Classes are stages in file order; a thread exchanges with the threads of the stages next to its own, matched by index.
    Pipeline,
    /// Every other thread of the instance, equally.
    AllToAll,
    /// Every other thread of its group of `size`.
    Groups,
}

fn one() -> u32 {
    1
}

fn one_f64() -> f64 {
    1.0
}

fn is_one(x: &f64) -> bool {
    *x == 1.0
}

/// A class of threads in a job (e.g. the stages of a pipeline).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ClassSpec {
    /// Class name.
    pub name: String,
    /// Share of the job's threads (normalised over the classes).
    pub share: f64,
    /// The phases each thread of the class runs per iteration.
    #[serde(rename = "phase")]
    pub phases: Vec<PhaseSpec>,
}

/// One phase: a stretch of execution with stable behaviour.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PhaseSpec {
    /// Phase name.
    #[serde(default = "main_name")]
    pub name: String,
    /// Instructions per iteration, total over the class's threads.
    pub instructions: f64,
    /// IPC of one thread running alone on the machine (warm caches).
    pub ipc: f64,
    /// LLC accesses per kilo-instruction (private-cache misses).
    pub llc_apki: f64,
    /// LLC misses per kilo-instruction with `mrc_ref_mb` of LLC (the miss-rate-curve anchor).
    #[serde(default)]
    pub llc_mpki: Option<f64>,
    /// LLC size at which `llc_mpki` was measured, MiB.
    #[serde(default)]
    pub mrc_ref_mb: Option<f64>,
    /// Miss-rate-curve exponent α: misses ∝ size^-α below the footprint.
    #[serde(default = "half")]
    pub mrc_alpha: f64,
    /// LLC MPKI once the whole footprint fits (compulsory/streaming misses);
    /// default: the curve's value at the footprint (no cliff).
    #[serde(default)]
    pub llc_mpki_fit: Option<f64>,
    /// Solo memory-bus utilisation instead of `llc_mpki` (the EFS synthetic
    /// benchmark, §3.2): the MPKI is derived from the machine's bus rate.
    #[serde(default)]
    pub solo_bus_util: Option<f64>,
    /// Private data, MiB, total over the class's threads.
    pub footprint_mb: f64,
    /// Data shared by all threads of the job instance, MiB.
    #[serde(default)]
    pub shared_mb: f64,
    /// Memory-level parallelism: LLC misses outstanding at once.
    #[serde(default = "default_mlp")]
    pub mlp: f64,
    /// Written-back lines per LLC miss.
    #[serde(default = "default_wb")]
    pub wb_ratio: f64,
    /// Share of its DRAM accesses that find their row open when it runs
    /// alone (row-buffer locality): what concurrent streams can destroy
    /// (`docs/model.md`, "DRAM interference"). Default 0.5 [A].
    #[serde(default = "half")]
    pub row_locality: f64,
    /// Turnaround beside a co-runner on another core of its LLC domain that
    /// holds no cache (a compute loop) over alone: what another busy core costs
    /// it whatever that core runs (design note 67, measured by `cosched
    /// characterise`). While any other core of its LLC domain runs a thread,
    /// the phase's time is stretched by it: its rate is divided by it, its
    /// memory traffic while it runs (what the bus and LLC see) is as solved.
    /// Default 1: no such cost.
    #[serde(default = "one_f64", skip_serializing_if = "is_one")]
    pub presence_slowdown: f64,
    /// L1 data accesses per kilo-instruction.
    #[serde(default = "default_l1")]
    pub l1_apki: f64,
    /// L1 misses (L2 accesses) per kilo-instruction; default twice `llc_apki`
    /// (an L2 that filters about half its accesses).
    #[serde(default)]
    pub l2_apki: Option<f64>,
    /// The phase is a critical section under this lock.
    #[serde(default)]
    pub lock: Option<String>,
    /// After the phase the thread waits this long for I/O, ms.
    #[serde(default)]
    pub io_ms: f64,
    /// The phase is a declared progress period (RDA §2.2).
    #[serde(default)]
    pub pp: Option<PpSpec>,
    /// Accesses per kilo-instruction to data written by partner threads
    /// (default: the job's `sharing.apki`, 0 without sharing).
    #[serde(default)]
    pub comm_apki: Option<f64>,
    /// `random`: the phase accesses its footprint uniformly at random (a
    /// pointer chase, a hash table): its LLC miss ratio is that of a random
    /// access pattern at the capacity it holds, from the machine's measured
    /// `cache.latency_curve` where it has one, else
    /// `1 − held / footprint`; `llc_mpki`, `mrc_*` and `solo_bus_util` are
    /// then not given.
    #[serde(default)]
    pub access: Option<Access>,
    /// Where `ipc` and `llc_mpki` were measured, when not on the simulated
    /// machine: the core-bound CPI is derived there and the solo IPC on the
    /// simulated machine follows from its cache, latency and bandwidth.
    #[serde(default)]
    pub measured_on: Option<MeasuredOn>,
}

/// A phase's access pattern where it is not described by a miss-rate curve.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    /// Uniformly random over the footprint (docs/model.md, "Random access").
    Random,
}

/// The machine a phase's published figures come from.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MeasuredOn {
    /// Its clock, GHz.
    pub freq_ghz: f64,
    /// Its unloaded memory latency, ns.
    pub latency_ns: f64,
    /// LLC capacity the program had, MiB.
    pub llc_mb: f64,
}

/// A declared progress period: `pp_begin(resource, size, reuse)`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PpSpec {
    /// The resource.
    pub resource: Resource,
    /// Demand: MiB of LLC, or GB/s of memory bandwidth.
    pub amount: f64,
    /// Reuse level.
    pub reuse: Reuse,
}

fn main_name() -> String {
    "main".into()
}
fn half() -> f64 {
    0.5
}
fn default_mlp() -> f64 {
    4.0
}
fn default_wb() -> f64 {
    0.25
}
fn default_l1() -> f64 {
    350.0
}

impl WorkloadSpec {
    /// Parse and validate TOML text with no `preset = …` jobs (see
    /// `presets::workload_from_toml` for files that use presets).
    pub fn from_toml(file: &str, src: &str) -> Result<WorkloadSpec, ConfigError> {
        let w = WorkloadSpec::from_toml_unresolved(file, src)?;
        if let Some(j) = w.jobs.iter().position(|j| j.preset.is_some()) {
            return Err(ConfigError::new(
                file,
                format!("job[{j}].preset"),
                "presets are resolved by presets::workload",
            ));
        }
        w.validate(file)?;
        Ok(w)
    }

    /// Parse without validating (preset references unresolved).
    pub(crate) fn from_toml_unresolved(file: &str, src: &str) -> Result<WorkloadSpec, ConfigError> {
        cosched_machine::spec::parse_toml(file, src)
    }

    /// Check every field.
    pub fn validate(&self, file: &str) -> Result<(), ConfigError> {
        let c = Check { file };
        if self.jobs.is_empty() {
            return Err(c.fail("job", "a workload needs at least one [[job]]"));
        }
        let named = |field: String, name: &str| match cosched_core::text::has_control(name) {
            true => Err(c.fail(
                field,
                format!(
                    "`{}` has control characters (a name is printed on terminals)",
                    cosched_core::text::quote(name)
                ),
            )),
            false => Ok(()),
        };
        named("name".into(), &self.name)?;
        for (j, job) in self.jobs.iter().enumerate() {
            let f = |s: &str| format!("job[{j}].{s}");
            if job.name.is_empty() {
                return Err(c.fail(f("name"), "missing"));
            }
            named(f("name"), &job.name)?;
            for (k, class) in job.classes.iter().enumerate() {
                named(f(&format!("class[{k}].name")), &class.name)?;
            }
            for (k, phase) in job.phases.iter().enumerate() {
                named(f(&format!("phase[{k}].name")), &phase.name)?;
            }
            if job.instances == 0 || job.instances > MAX_THREADS {
                return Err(c.fail(f("instances"), format!("must be from 1 to {MAX_THREADS}")));
            }
            if job.threads == Some(0) || job.threads > Some(MAX_THREADS) {
                return Err(c.fail(f("threads"), format!("must be from 1 to {MAX_THREADS}")));
            }
            if job.iterations == Some(0) {
                return Err(c.fail(f("iterations"), "must be at least 1"));
            }
            c.within(f("arrival_s"), job.arrival_s, 0.0, 1e6)?;
            c.within(f("jitter"), job.jitter, 0.0, 0.9)?;
            match (job.classes.is_empty(), job.phases.is_empty()) {
                (true, true) => return Err(c.fail(f("phase"), "a job needs [[job.phase]] or [[job.class]]")),
                (false, false) => {
                    return Err(c.fail(f("phase"), "give either [[job.phase]] or [[job.class]], not both"))
                }
                _ => {}
            }
            for (k, cl) in job.classes.iter().enumerate() {
                c.within(f(&format!("class[{k}].share")), cl.share, 1e-6, 1e6)?;
                if cl.phases.is_empty() {
                    return Err(c.fail(f(&format!("class[{k}].phase")), "a class needs at least one phase"));
                }
                for (p, ph) in cl.phases.iter().enumerate() {
                    ph.validate(&c, &f(&format!("class[{k}].phase[{p}]")))?;
                }
            }
            for (p, ph) in job.phases.iter().enumerate() {
                ph.validate(&c, &f(&format!("phase[{p}]")))?;
            }
            if let Some(sh) = &job.sharing {
                c.within(f("sharing.apki"), sh.apki, 0.0, 1000.0)?;
                match (sh.pattern, sh.size) {
                    (Pattern::Groups, None) => {
                        return Err(c.fail(f("sharing.size"), "missing: `groups` needs the threads per group"))
                    }
                    (Pattern::Groups, Some(n)) if n < 2 => {
                        return Err(c.fail(f("sharing.size"), format!("must be at least 2, got {n}")))
                    }
                    (Pattern::Groups, _) => {}
                    (p, Some(_)) => {
                        return Err(c.fail(f("sharing.size"), format!("only `groups` takes a size, not `{p:?}`")))
                    }
                    (Pattern::Pipeline, None) if job.classes.len() < 2 => {
                        return Err(c.fail(
                            f("sharing.pattern"),
                            "`pipeline` needs two or more [[job.class]] (the stages, in order)",
                        ))
                    }
                    _ => {}
                }
            } else if let Some((k, p, _)) = job.all_phases().find(|(_, _, ph)| ph.comm_apki.is_some_and(|a| a > 0.0)) {
                return Err(c.fail(
                    f(&format!("{k}phase[{p}].comm_apki")),
                    "exchanges data but the job has no [job.sharing] pattern saying with whom",
                ));
            }
        }
        Ok(())
    }
}
