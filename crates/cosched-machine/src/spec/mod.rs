//! The machine description both backends use: topology, caches, core
//! resources, memory bus, power and costs (docs/architecture.md, "The simulated
//! machine"), as written in `data/machines/*.toml`.

use crate::check::CheckPoint;
use crate::error::{Check, ConfigError};
use cosched_core::Topology;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

mod dram;
mod validate;

pub use dram::DramSpec;

/// Parse TOML text into `T`, strictly (unknown fields are errors), naming
/// `file` in errors with the line and key of the problem.
pub fn parse_toml<T: DeserializeOwned>(file: &str, src: &str) -> Result<T, ConfigError> {
    toml::from_str(src).map_err(|e| ConfigError::from_toml(file, src, &e))
}

/// Where a machine description's figures come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    /// A machine of the literature: its figures from papers and datasheets.
    #[default]
    Published,
    /// A machine measured by `cosched calibrate` (this project's guest, or yours).
    Calibrated,
}

impl Origin {
    /// Whether the figures are the literature's (the default, not written out).
    pub fn is_published(&self) -> bool {
        *self == Origin::Published
    }
}

/// A machine as written in `data/machines/*.toml`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MachineSpec {
    /// Preset name.
    pub name: String,
    /// One-line description (optional).
    #[serde(default)]
    pub description: String,
    /// Where each figure comes from.
    #[serde(default)]
    pub sources: Vec<String>,
    /// Whether the figures are the literature's or measured by `cosched calibrate`
    /// (`cosched validate` counts the two kinds of point apart).
    #[serde(default, skip_serializing_if = "Origin::is_published")]
    pub origin: Origin,
    /// Where each constant comes from, by key (`power.cpu_idle_w`, or a section such as
    /// `cache` for all of it): a tag `[P]` published, `[C]` computed from published figures,
    /// `[M]` measured on the host by `cosched calibrate`, `[A]` assumed (with what the assumption
    /// rests on), or `[F: point; point]` fitted to the named check points, which are then fitted
    /// points (`docs/model.md`, "Why trust the simulator"; a test holds every preset to it).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub provenance: std::collections::BTreeMap<String, String>,
    /// Core clock, GHz.
    pub freq_ghz: f64,
    /// The sharing tree.
    pub topology: TopologySpec,
    /// Cache sizes and latencies.
    pub cache: CacheSpec,
    /// Per-core resources shared by SMT contexts.
    pub core: CoreSpec,
    /// The memory bus of each socket.
    pub memory: MemorySpec,
    /// The power model (EFS Eq. 13 plus DRAM).
    pub power: PowerSpec,
    /// Scheduling costs.
    #[serde(default)]
    pub costs: CostSpec,
    /// Calibration and check points: published measurements of this machine
    /// the simulator is compared with (`cosched validate`).
    #[serde(default, rename = "check", skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<CheckPoint>,
}

/// `sockets × llc_per_socket × cores_per_llc × pipes_per_core × contexts_per_pipe`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TopologySpec {
    /// Sockets (each with its own memory bus).
    pub sockets: u32,
    /// LLC domains per socket.
    #[serde(default = "one")]
    pub llc_per_socket: u32,
    /// Cores per LLC domain.
    pub cores_per_llc: u32,
    /// Execution pipes per core (2 on the UltraSPARC T2, else 1).
    #[serde(default = "one")]
    pub pipes_per_core: u32,
    /// Hardware contexts per pipe (SMT width).
    #[serde(default = "one")]
    pub contexts_per_pipe: u32,
}

fn one() -> u32 {
    1
}

/// Cache capacities.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CacheSpec {
    /// L1 data cache per core, KiB.
    pub l1d_kb: f64,
    /// Private L2 per core, KiB (0 when the LLC is the L2, as on the T2).
    pub l2_kb: f64,
    /// Capacity of one LLC domain, MiB.
    pub llc_mb: f64,
    /// LLC hit latency, cycles (cost of refilling private caches from the LLC).
    pub llc_hit_cycles: f64,
    /// Measured dependent-load latency against working set, `[MiB, ns]`
    /// pairs in increasing MiB (`cosched calibrate`'s pointer-chase sweep):
    /// where present, phases with `access = "random"` take their miss ratio
    /// from it (docs/model.md, "Random access").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_curve: Option<Vec<[f64; 2]>>,
    /// LLC capacity is conserved across threads that time-share a domain
    /// (from the time-sharing check; docs/model.md,
    /// "Switches, migrations and absences"): what survives of a resuming
    /// thread's data is capped at the LLC minus what the domain's other
    /// threads still hold. `false`: the ablation (each thread's data ages by
    /// insertions only, as the model was before).
    #[serde(default = "default_true", skip_serializing_if = "is_true")]
    pub conserve_capacity: bool,
    /// Lines per second that the host's other tenants insert into each LLC
    /// domain, ageing what absent threads left there as the domain's own
    /// insertions do (a guest's L3 shared with other virtual machines;
    /// docs/model.md, "Tenants of a shared host"). Measured by `cosched
    /// calibrate`'s absence probe; 0 (the default) on a machine of its own,
    /// as every paper's was.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub tenant_lines_per_s: f64,
}

/// Core resources shared by the contexts of a core or pipe.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CoreSpec {
    /// Instructions a pipe can issue per cycle.
    pub issue_width: f64,
    /// L1 data-cache accesses a core can serve per cycle.
    pub l1_accesses_per_cycle: f64,
    /// Extra core-bound CPI per additional thread on the same pipe (fetch/ROB
    /// partitioning on Intel SMT; 0 on fine-grained multithreading).
    pub smt_penalty: f64,
    /// L1 port contention κ: a thread's core-bound CPI grows by
    /// `κ·(U² − u²)`, `U` the core's L1 utilisation, `u` its own (convex, so
    /// pairing heavy with light L1 users beats heavy with heavy).
    #[serde(default = "default_l1_contention")]
    pub l1_contention: f64,
    /// Whether threads on one core exchange data through its L1: a thread's
    /// accesses to data an SMT sibling wrote hit there;
    /// `false` is the ablation (they hit in the LLC as from any other core).
    #[serde(default = "default_true", skip_serializing_if = "is_true")]
    pub l1_exchange: bool,
}

fn default_true() -> bool {
    true
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

fn is_true(b: &bool) -> bool {
    *b
}

fn default_l1_contention() -> f64 {
    0.4
}

/// Memory bus per socket.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MemorySpec {
    /// Sustained maximum bandwidth of one socket's bus, GB/s (10⁹ bytes).
    pub bandwidth_gbs: f64,
    /// Loaded-latency curve: `[utilisation of the maximum, latency ns]` pairs,
    /// utilisation from 0 to 1, increasing; interpolated linearly.
    pub loaded_latency: Vec<[f64; 2]>,
    /// How much of a thread's own traffic counts in the utilisation at which
    /// it reads the curve: 1 (default) = all of it (a curve measured with one
    /// loader, Intel MLC style); 0 = none, a thread's own back-to-back
    /// requests never collide with each other, only with other threads'
    /// (EFS Eqs. 7-8: ρ_i = U − u_i).
    #[serde(default = "full")]
    pub self_queueing: f64,
    /// DRAM row-buffer interference between concurrent streams; absent = none
    /// (`docs/model.md`, "DRAM interference").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dram: Option<DramSpec>,
}

fn full() -> f64 {
    1.0
}

/// The tag of a provenance entry (`[P]`, `[C]`, `[M]`, `[A]`) and, for `[F: a; b]`, the check
/// points it names; `None` when the entry has no tag.
pub fn provenance_tag(why: &str) -> Option<(char, Vec<&str>)> {
    let rest = why.strip_prefix('[')?;
    let close = rest.find(']')?;
    let tag = &rest[..close];
    match tag {
        "P" | "C" | "M" | "A" => Some((tag.chars().next()?, vec![])),
        _ => {
            let points = tag.strip_prefix("F:")?;
            let names: Vec<&str> = points.split(';').map(str::trim).filter(|n| !n.is_empty()).collect();
            (!names.is_empty()).then_some(('F', names))
        }
    }
}

/// Power model: idle plus per-active-core increments (EFS Eq. 13, P0..Pn),
/// plus DRAM static and per-access energy.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PowerSpec {
    /// System power with every core idle (P0), W.
    pub system_idle_w: f64,
    /// CPU-package part of the idle power, W.
    pub cpu_idle_w: f64,
    /// System power added by the 1st, 2nd, … active core (P1, P2, …), W: one
    /// value per core, or a single value that every core adds (a number or a
    /// one-element list).
    #[serde(deserialize_with = "one_or_many")]
    pub core_active_w: Vec<f64>,
    /// Share of each core increment drawn by the CPU package (the rest: fans, VRs, board).
    pub cpu_share_of_active: f64,
    /// DRAM background power, W (counted in system and DRAM energy).
    pub dram_static_w: f64,
    /// DRAM energy per 64-byte line transferred, nJ.
    pub dram_nj_per_line: f64,
}

/// A number or a list of numbers, as a list.
fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(f64),
        Many(Vec<f64>),
    }
    match OneOrMany::deserialize(d).map_err(|_| serde::de::Error::custom("expected a number or a list of numbers"))? {
        OneOrMany::One(x) => Ok(vec![x]),
        OneOrMany::Many(v) => Ok(v),
    }
}

/// Scheduling costs.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CostSpec {
    /// Direct cost of a context switch, µs.
    #[serde(default = "default_cs")]
    pub context_switch_us: f64,
    /// How a refill after a switch shares a thread's time with execution
    /// (docs/model.md, "Switches, migrations and absences"):
    /// `true` (the default), the share the thread's own accesses to its
    /// evicted data take (their stall over that stall plus the time of an
    /// instruction alone); `false`, the ablation: half of the time to the
    /// refill while it lasts, as the model was before.
    #[serde(default = "default_true", skip_serializing_if = "is_true")]
    pub refill_by_access: bool,
    /// The kernel's scheduler tick (1 / `CONFIG_HZ`), ms, at which the Linux
    /// fair-class models check a slice (docs/model.md, "The scheduler tick"):
    /// a slice ends at the first tick after it is used up, and a few end off
    /// the tick grid, so two contexts' run queues drift out of step as the
    /// kernel's do. Default 4 ms (`HZ_250`, the Kconfig default, measured on
    /// this host by `scripts/tick-phase`); 0, the ablation: every slice ends
    /// exactly when used up, and run queues that start together stay in step.
    #[serde(default = "default_tick_ms", skip_serializing_if = "is_default_tick")]
    pub scheduler_tick_ms: f64,
    /// Share of Linux-model slices that end off the tick grid (a wake-up, a
    /// kernel thread or an interrupt preempting between ticks): 1/16 by
    /// default, within the 3.5-8% per slice `scripts/tick-phase` measured on
    /// this host. It sets how fast two run queues drift apart
    /// (`docs/results/sensitivity/tick-off-grid.txt`).
    #[serde(default = "default_off_grid", skip_serializing_if = "is_default_off_grid")]
    pub scheduler_off_grid: f64,
    /// Whether the Linux fair-class models' balancer moves a one-thread
    /// excess (two runnable threads on one context, one on another) at a
    /// domain's second busy pass, as `detach_tasks` in `kernel/sched/fair.c`
    /// does once `nr_balance_failed` halves the task's load to the imbalance
    /// (docs/model.md, "Three threads on two contexts"): `true` (the
    /// default), three CPU-bound threads on two contexts each get two thirds
    /// of one, as `scripts/balance-share` measured on this host; `false`, the
    /// ablation: only a difference of two or more threads moves, and a 2-1
    /// split stays until a thread ends.
    #[serde(default = "default_true", skip_serializing_if = "is_true")]
    pub balance_rotation: bool,
}

fn default_cs() -> f64 {
    3.0
}

fn default_tick_ms() -> f64 {
    4.0
}

fn is_default_tick(x: &f64) -> bool {
    *x == default_tick_ms()
}

fn default_off_grid() -> f64 {
    1.0 / 16.0
}

fn is_default_off_grid(x: &f64) -> bool {
    *x == default_off_grid()
}

impl Default for CostSpec {
    fn default() -> Self {
        CostSpec {
            context_switch_us: default_cs(),
            refill_by_access: true,
            scheduler_tick_ms: default_tick_ms(),
            scheduler_off_grid: default_off_grid(),
            balance_rotation: true,
        }
    }
}

impl MachineSpec {
    /// Parse and validate TOML text; `file` names the source in errors.
    pub fn from_toml(file: &str, src: &str) -> Result<MachineSpec, ConfigError> {
        let m: MachineSpec = parse_toml(file, src)?;
        m.validate(file)?;
        Ok(m)
    }

    /// Number of hardware contexts.
    pub fn n_contexts(&self) -> usize {
        let t = &self.topology;
        [t.sockets, t.llc_per_socket, t.cores_per_llc, t.pipes_per_core, t.contexts_per_pipe]
            .iter()
            .map(|&x| x as usize)
            .product()
    }

    /// Number of cores (contexts over pipes × contexts per pipe).
    pub fn n_cores(&self) -> usize {
        (self.n_contexts() / (self.topology.pipes_per_core * self.topology.contexts_per_pipe) as usize).max(1)
    }

    /// Remarks on a valid file worth telling its author (printed by the CLI
    /// when the machine comes from a file): shorthand that stands for more.
    /// A file `cosched calibrate` wrote has none: its one assumed power value
    /// is the tool's, not shorthand a person typed (every use of a
    /// calibrated file printed it).
    pub fn notes(&self) -> Vec<String> {
        let mut v = vec![];
        let cores = self.n_cores();
        if self.power.core_active_w.len() == 1 && cores > 1 && self.origin != Origin::Calibrated {
            v.push(format!(
                "power.core_active_w: one value for {cores} cores: every active core adds {} W",
                self.power.core_active_w[0]
            ));
        }
        v
    }

    /// The topology tree a policy sees.
    pub fn topology(&self) -> Topology {
        let t = &self.topology;
        Topology::regular(t.sockets, t.llc_per_socket, t.cores_per_llc, t.pipes_per_core, t.contexts_per_pipe)
    }

    /// EFS Eq. 13's table for this machine: P0 (idle system power), then the
    /// increment of each additional active core, one per core.
    pub fn power_table(&self) -> Vec<f64> {
        let p = &self.power;
        let cores = self.n_cores();
        std::iter::once(p.system_idle_w)
            .chain((0..cores).map(|k| p.core_active_w[k.min(p.core_active_w.len() - 1)]))
            .collect()
    }

    /// Memory-bus peak of one socket, in 64-byte lines per second (EFS's μ).
    pub fn bus_lines_per_s(&self) -> f64 {
        self.memory.bandwidth_gbs * 1e9 / 64.0
    }
}
