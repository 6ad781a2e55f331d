//! The model a characterisation fits: a one-phase job of a given
//! access pattern, footprint and LLC accesses, and what the simulator
//! predicts of it beside a cache pirate or a bandwidth bandit (Cache
//! Pirating, Eklov et al., ICPP 2011; Bandwidth Bandit, PACT 2012).

use crate::error::RunError;
use crate::mix_model::{chase_phase, INSTR_PER_OP};
use cosched_core::topology::corun_pair;
use cosched_machine::ConfigError;
use cosched_machine::MachineSpec;
use cosched_policies::{self as policies, PolicyOptions};
use cosched_sim::engine::{run as simulate, SimOptions};
use cosched_sim::model::RandomMisses;
use cosched_sim::{presets, Plan};

/// How a job walks its working set, told apart by its response to pirates
/// versus bandits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// No memory traffic (a compute-bound program): no LLC accesses, no footprint, slowed by
    /// nothing a pirate or bandit does. The limit of both patterns as their accesses go to 0,
    /// tried first only on request (`characterise --access all`, design note 64).
    None,
    /// Uniformly random over the footprint: its hits shrink with the LLC it
    /// holds (the capacity wall; `access = "random"`, docs/model.md).
    Random,
    /// A sequential sweep: every access misses while the footprint does not
    /// fit, none once it does (an LRU cliff), and hardware prefetching keeps
    /// [`sequential_mlp`] misses in flight (the bandwidth wall).
    Sequential,
}

impl std::fmt::Display for Pattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Pattern::None => "none",
            Pattern::Random => "random",
            Pattern::Sequential => "sequential",
        })
    }
}

/// A job's fitted model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fit {
    /// Its access pattern.
    pub access: Pattern,
    /// Footprint, MiB.
    pub footprint_mb: f64,
    /// LLC accesses per kilo-instruction.
    pub llc_apki: f64,
    /// Memory-level parallelism.
    pub mlp: f64,
    /// Root-mean-square relative error of the fitted slowdowns (the fit's residual).
    pub rms: f64,
    /// Lowest and highest footprint, MiB, of the models of this pattern inside the fit's 95%
    /// confidence region (`search::region`).
    pub footprint_range: (f64, f64),
    /// Lowest and highest LLC accesses per kilo-instruction inside it.
    pub apki_range: (f64, f64),
    /// Whether a model of the other pattern lies inside it too (the pattern not told apart).
    pub either: bool,
    /// Its measured slowdown beside a compute loop, the factor that stretches its time while another core
    /// is busy (`presence_slowdown`, design note 67): measured, not fitted; 1 where not measured.
    pub presence: f64,
}

impl Fit {
    /// The model with no memory traffic ([`Pattern::None`]): no footprint, no LLC accesses, one
    /// miss in flight (none happen).
    pub fn no_traffic() -> Fit {
        Fit::point(Pattern::None, 0.0, 0.0, 1.0)
    }

    /// A model with no interval yet (its ranges its own values).
    pub fn point(access: Pattern, footprint_mb: f64, llc_apki: f64, mlp: f64) -> Fit {
        Fit {
            access,
            footprint_mb,
            llc_apki,
            mlp,
            rms: 0.0,
            footprint_range: (footprint_mb, footprint_mb),
            apki_range: (llc_apki, llc_apki),
            either: false,
            presence: 1.0,
        }
    }
}

/// Memory-level parallelism of a sequential sweep on `m` [D]: by Little's law the misses in
/// flight that draw the machine's whole bandwidth at its unloaded latency (a prefetched stream
/// is bandwidth-bound, not latency-bound), at most [`MAX_MLP`].
pub fn sequential_mlp(m: &MachineSpec) -> f64 {
    (m.memory.bandwidth_gbs * m.memory.loaded_latency[0][1] / 64.0).round().clamp(1.0, MAX_MLP)
}

/// The most misses in flight a workload file's phase may declare (`mlp`, checked by the
/// simulator's workload validation).
pub const MAX_MLP: f64 = 64.0;

/// The phase of a job with `fit`, at IPC 1 for `solo_s` seconds on `m`.
pub(super) fn job_phase(m: &MachineSpec, solo_s: f64, f: &Fit) -> String {
    let l1 = (f.llc_apki.max(300.0)).min(1000.0 * m.core.l1_accesses_per_cycle);
    let access = match f.access {
        // No LLC accesses, so no misses: the LLC size the (zero) misses were measured at is the machine's.
        Pattern::None => format!("llc_mpki = 0.0\nmrc_ref_mb = {}", m.cache.llc_mb),
        Pattern::Random => "access = \"random\"".to_string(),
        // Every access a miss below the footprint (α = 0), none once it fits.
        Pattern::Sequential => {
            format!("llc_mpki = {}\nmrc_ref_mb = {}\nmrc_alpha = 0.0\nllc_mpki_fit = 0.0", f.llc_apki, m.cache.llc_mb)
        }
    };
    // Written only where measured above 1, so that a fit without it is the file it was.
    let presence = if f.presence > 1.0 { format!("presence_slowdown = {}\n", f.presence) } else { String::new() };
    format!(
        "instructions = {:e}\nipc = 1.0\nllc_apki = {}\n{access}\nfootprint_mb = {}\nmlp = {}\nl1_apki = {l1}\n{presence}",
        solo_s * m.freq_ghz * 1e9,
        f.llc_apki,
        f.footprint_mb,
        f.mlp
    )
}

/// The co-runner's phase: a pirate chase over `mb` at the rate the preset's
/// sweep gives it, or a bandit streaming `gbs` GB/s over `4·LLC`.
fn corunner_phase(m: &MachineSpec, pirate: bool, size: f64, seconds: f64) -> String {
    if pirate {
        let r = RandomMisses::of(m);
        let ns = m.cache.llc_hit_cycles / m.freq_ghz
            + r.ratio(size, size.min(m.cache.llc_mb)) * m.memory.loaded_latency[0][1];
        let ipc = INSTR_PER_OP / (ns * m.freq_ghz);
        format!("instructions = {:e}\nipc = {ipc}\n{}", seconds * 1e9 / ns * INSTR_PER_OP, chase_phase(size))
    } else {
        let u = (size / m.memory.bandwidth_gbs).min(0.95);
        format!(
            "instructions = {:e}\nipc = 1.0\nllc_apki = 125\nsolo_bus_util = {u}\nfootprint_mb = {}\nmlp = 10\nwb_ratio = 0.0\nl1_apki = 1000\n",
            seconds * m.freq_ghz * 1e9,
            4.0 * m.cache.llc_mb
        )
    }
}

/// Predicted slowdown of a job with `fit` beside a pirate (`pirate`) or bandit of `size`.
pub fn predict(m: &MachineSpec, solo_s: f64, f: &Fit, pirate: bool, size: f64) -> Result<f64, RunError> {
    let text = format!(
        "name = \"fit\"\n[[job]]\nname = \"job\"\n[[job.phase]]\n{}\n[[job]]\nname = \"corunner\"\n[[job.phase]]\n{}",
        job_phase(m, solo_s, f),
        corunner_phase(m, pirate, size, 10.0 * solo_s)
    );
    let w = presets::workload_from_toml("fit", &text).map_err(RunError::from)?;
    let plan = Plan::new(&w, m, None, 1, "fit").map_err(RunError::from)?;
    let (c0, c1) = corun_pair(&m.topology())
        .ok_or_else(|| RunError::Config(ConfigError::new(&m.name, "topology", "no two cores share an LLC")))?;
    let opts = PolicyOptions { assignment: Some(vec![c0, c1]), quantum: 1_000_000_000, ..Default::default() };
    let out = simulate(m, &plan, &mut *policies::make("static", &opts)?, &SimOptions::default(), None)
        .map_err(RunError::from)?;
    Ok(out.job_finish[0] as f64 * 1e-9 / solo_s)
}
