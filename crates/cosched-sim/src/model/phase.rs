//! Per-phase constants on a given machine.
//!
//! A phase's CPI alone splits into a core-bound part and a memory-stall part
//! (the StatCC-style decomposition, `workload-sources.md` §3):
//!
//! `CPI = CPI_core · smt + MPKI(S)/1000 · L(ρ) · f / MLP`
//!
//! where `smt` is the SMT interference factor (1 alone), `S` the LLC
//! capacity held, `L(ρ)` the loaded memory latency in ns, `f` the clock in
//! GHz. The split is fixed by the solo run: alone on the machine the thread
//! holds `min(F, C_llc)`, sees the latency of its own bandwidth, and must run
//! at exactly its configured IPC. The memory part is capped at 90% of the solo
//! CPI (a phase must retain some core work); when the configured MLP would
//! need more, the effective MLP is raised to fit — both choices documented in
//! `docs/model.md`.

use super::latency::LoadedLatency;
use super::mrc::{MissRateCurve, RandomMisses};
use crate::spec::workload::{Access, PhaseSpec};
use cosched_machine::error::{Check, ConfigError};
use cosched_machine::MachineSpec;

/// Largest share of the solo CPI that memory stalls may take.
pub const MAX_MEM_FRACTION: f64 = 0.9;

/// A phase's ground-truth constants for one thread of its class.
#[derive(Clone, Debug)]
pub struct PhaseModel {
    /// IPC alone (the configured value).
    pub ipc_alone: f64,
    /// Core-bound CPI (no memory stalls, no SMT sibling).
    pub cpi_core: f64,
    /// Effective memory-level parallelism.
    pub mlp: f64,
    /// The miss-rate curve.
    pub mrc: MissRateCurve,
    /// Private data of one thread, MiB.
    pub private_mb: f64,
    /// Data shared by the job instance's threads, MiB.
    pub shared_mb: f64,
    /// L1 accesses per kilo-instruction.
    pub l1_apki: f64,
    /// L1 misses per kilo-instruction.
    pub l2_apki: f64,
    /// Written-back lines per miss.
    pub wb_ratio: f64,
    /// Row-buffer locality of its DRAM accesses alone (0-1).
    pub row_locality: f64,
    /// The factor its time is stretched by while another core of its LLC domain
    /// runs a thread (`presence_slowdown`, design note 67; 1: none).
    pub presence: f64,
    /// MPKI alone on this machine.
    pub mpki_alone: f64,
    /// Memory latency alone, ns.
    pub latency_alone_ns: f64,
    /// Accesses per kilo-instruction to data partner threads wrote (hits
    /// when they run in its LLC domain; set by the plan from the job's sharing).
    pub comm_apki: f64,
}

impl PhaseModel {
    /// Derive the constants of `p` for one of `threads` threads on machine `m`.
    pub fn new(
        p: &PhaseSpec,
        m: &MachineSpec,
        lat: &LoadedLatency,
        threads: u32,
        file: &str,
        at: &str,
    ) -> Result<PhaseModel, ConfigError> {
        let c = Check { file };
        let n = threads.max(1) as f64;
        let f_hz = m.freq_ghz * 1e9;
        let mu = m.bus_lines_per_s();
        let private_mb = p.footprint_mb / n;
        let footprint = private_mb + p.shared_mb;
        let mrc = match (p.llc_mpki, p.solo_bus_util) {
            _ if p.access == Some(Access::Random) => MissRateCurve {
                mpki_ref: 0.0,
                ref_mb: 1.0,
                alpha: 0.0,
                footprint_mb: footprint,
                mpki_fit: 0.0,
                apki: p.llc_apki,
                random: Some(RandomMisses::of(m)),
            },
            (_, Some(u)) => {
                // EFS synthetic: every LLC access misses; the miss rate alone is u·μ.
                let mpki = 1000.0 * u * mu / (p.ipc * f_hz * (1.0 + p.wb_ratio));
                MissRateCurve {
                    mpki_ref: mpki,
                    ref_mb: 1.0,
                    alpha: 0.0,
                    footprint_mb: footprint.max(1e6),
                    mpki_fit: mpki,
                    apki: mpki.max(p.llc_apki),
                    random: None,
                }
            }
            (Some(mpki), None) => {
                let r = p.mrc_ref_mb.unwrap_or(m.cache.llc_mb);
                let fit = p
                    .llc_mpki_fit
                    .unwrap_or_else(|| MissRateCurve::at_footprint(mpki, r, p.mrc_alpha, footprint, p.llc_apki));
                MissRateCurve {
                    mpki_ref: mpki,
                    ref_mb: r,
                    alpha: p.mrc_alpha,
                    footprint_mb: footprint,
                    mpki_fit: fit,
                    apki: p.llc_apki,
                    random: None,
                }
            }
            (None, None) => return Err(c.fail(format!("{at}.llc_mpki"), "missing")),
        };
        if p.ipc > m.core.issue_width {
            return Err(c.fail(
                format!("{at}.ipc"),
                format!("{} exceeds the machine's issue width {}", p.ipc, m.core.issue_width),
            ));
        }
        let l1_rate = p.l1_apki / 1000.0 * p.ipc;
        if l1_rate > m.core.l1_accesses_per_cycle {
            return Err(c.fail(
                format!("{at}.l1_apki"),
                format!("{l1_rate:.2} L1 accesses/cycle alone exceed the machine's {}", m.core.l1_accesses_per_cycle),
            ));
        }
        let mpki_alone = mrc.mpki(footprint.min(m.cache.llc_mb));
        let l2_apki = p.l2_apki.unwrap_or((2.0 * p.llc_apki).min(p.l1_apki.max(p.llc_apki)));
        let mut model = PhaseModel {
            ipc_alone: p.ipc,
            cpi_core: 0.0,
            mlp: p.mlp,
            mrc,
            private_mb,
            shared_mb: p.shared_mb,
            l1_apki: p.l1_apki,
            l2_apki,
            wb_ratio: p.wb_ratio,
            row_locality: p.row_locality,
            presence: p.presence_slowdown,
            mpki_alone,
            latency_alone_ns: 0.0,
            comm_apki: 0.0,
        };
        let cpi = 1.0 / p.ipc;
        if let Some(r) = &p.measured_on {
            // Split the CPI where it was measured, then solve the solo run here.
            let stall = model.mrc.mpki(footprint.min(r.llc_mb)) / 1000.0 * r.latency_ns * r.freq_ghz;
            model.mlp = model.mlp.max(stall / (MAX_MEM_FRACTION * cpi));
            model.cpi_core = cpi - stall / model.mlp;
            model.solve_alone(m);
            return Ok(model);
        }
        let rho = mpki_alone / 1000.0 * (1.0 + p.wb_ratio) * p.ipc * f_hz / mu;
        if rho >= 1.0 {
            return Err(c.fail(
                format!("{at}.llc_mpki"),
                format!("alone it would need {:.0}% of the machine's memory bandwidth (give measured_on if the figures come from another machine)", rho * 100.0),
            ));
        }
        let latency_alone_ns = lat.ns_seen(rho, rho);
        let stall = mpki_alone / 1000.0 * latency_alone_ns * m.freq_ghz; // cycles/instr at MLP 1
        if stall / model.mlp > MAX_MEM_FRACTION * cpi {
            model.mlp = stall / (MAX_MEM_FRACTION * cpi);
        }
        model.cpi_core = cpi - stall / model.mlp;
        model.latency_alone_ns = latency_alone_ns;
        Ok(model)
    }

    /// This phase as one run finds it (run-to-run variation, `crate::variation`):
    /// core-bound CPI × `core`, miss-rate curve × `miss` (at most every access a
    /// miss); the solo IPC, miss rate and latency follow from a solo solve on `m`.
    pub fn vary(&mut self, core: f64, miss: f64, m: &MachineSpec) {
        self.cpi_core *= core;
        let apki = self.mrc.apki;
        self.mrc.mpki_ref = (self.mrc.mpki_ref * miss).min(apki);
        self.mrc.mpki_fit = (self.mrc.mpki_fit * miss).min(apki);
        if let Some(r) = &mut self.mrc.random {
            r.scale *= miss;
        }
        self.solve_alone(m);
    }

    /// Set the solo IPC, miss rate and latency from a solo solve on `m`.
    fn solve_alone(&mut self, m: &MachineSpec) {
        let mut solver = crate::contention::Solver::new(m);
        let mut out = vec![];
        let bus = solver.solve(std::slice::from_ref(self), &[crate::contention::Runner::alone()], &mut out);
        self.ipc_alone = out[0].ipc;
        self.mpki_alone = out[0].mpki;
        self.latency_alone_ns = bus.latency_ns;
    }

    /// L1 accesses per cycle when alone.
    pub fn l1_rate_alone(&self) -> f64 {
        self.l1_apki / 1000.0 * self.ipc_alone
    }
}
