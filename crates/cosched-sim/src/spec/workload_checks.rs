//! Validation of a workload's jobs and phases: every field against its
//! physical range (`docs/formats.md` gives each with its unit).

use super::workload::{JobSpec, PhaseSpec};
use cosched_machine::error::{Check, ConfigError};

impl JobSpec {
    /// Every phase with its path prefix (`class[k].` or empty) and index.
    pub fn all_phases(&self) -> impl Iterator<Item = (String, usize, &PhaseSpec)> + '_ {
        let direct = self.phases.iter().enumerate().map(|(p, ph)| (String::new(), p, ph));
        let classes = self
            .classes
            .iter()
            .enumerate()
            .flat_map(|(k, cl)| cl.phases.iter().enumerate().map(move |(p, ph)| (format!("class[{k}]."), p, ph)));
        direct.chain(classes)
    }

    /// Whether `--threads N` sets this job's thread count (`scalable`,
    /// default: when it has more than one thread).
    pub fn is_scalable(&self) -> bool {
        self.scalable.unwrap_or(self.n_threads() > 1)
    }

    /// Threads per instance.
    pub fn n_threads(&self) -> u32 {
        self.threads.unwrap_or(1)
    }

    /// Iterations of the phase list.
    pub fn n_iterations(&self) -> u32 {
        self.iterations.unwrap_or(1)
    }

    /// Multiply this job's work by `factor` by repeating its phase list more
    /// often (iterations × round(factor), at least 1) and scaling every phase's
    /// instructions by the remainder, so a longer run keeps the program's phase
    /// lengths and the total is exactly `factor` × today's.
    pub fn scale_work(&mut self, factor: f64) {
        let it = self.n_iterations();
        let new_it = ((it as f64 * factor).round() as u32).max(1);
        let k = factor * it as f64 / new_it as f64;
        self.iterations = Some(new_it);
        let phases = self.phases.iter_mut().chain(self.classes.iter_mut().flat_map(|c| c.phases.iter_mut()));
        for p in phases {
            p.instructions *= k;
        }
    }

    /// Fill what this job leaves unsaid from `base` (a preset's job).
    pub(crate) fn inherit(&mut self, base: &JobSpec) {
        if self.name.is_empty() {
            self.name = base.name.clone();
        }
        self.threads = self.threads.or(base.threads);
        self.scalable = self.scalable.or(base.scalable);
        self.iterations = self.iterations.or(base.iterations);
        self.barrier |= base.barrier;
        if self.jitter == 0.0 {
            self.jitter = base.jitter;
        }
        if self.classes.is_empty() && self.phases.is_empty() {
            self.classes = base.classes.clone();
            self.phases = base.phases.clone();
        }
        if self.sharing.is_none() {
            self.sharing = base.sharing.clone();
        }
        self.preset = None;
    }
}

impl PhaseSpec {
    pub(super) fn validate(&self, c: &Check, at: &str) -> Result<(), ConfigError> {
        let f = |s: &str| format!("{at}.{s}");
        // Physical ranges (docs/formats.md gives each with its unit).
        c.within(f("instructions"), self.instructions, 1.0, 1e15)?;
        c.within(f("ipc"), self.ipc, 0.001, 64.0)?;
        c.within(f("llc_apki"), self.llc_apki, 0.0, 1000.0)?;
        c.within(f("mrc_alpha"), self.mrc_alpha, 0.0, 4.0)?;
        c.within(f("footprint_mb"), self.footprint_mb, 0.0, 1e7)?;
        c.within(f("shared_mb"), self.shared_mb, 0.0, 1e7)?;
        c.within(f("mlp"), self.mlp, 1.0, 64.0)?;
        c.within(f("wb_ratio"), self.wb_ratio, 0.0, 1.0)?;
        c.within(f("row_locality"), self.row_locality, 0.0, 1.0)?;
        c.within(f("presence_slowdown"), self.presence_slowdown, 1.0, 10.0)?;
        c.within(f("l1_apki"), self.l1_apki, 0.0, 2000.0)?;
        if let Some(l2) = self.l2_apki {
            c.within(f("l2_apki"), l2, self.llc_apki, self.l1_apki.max(self.llc_apki))?;
        }
        c.within(f("io_ms"), self.io_ms, 0.0, 3.6e6)?;
        if let Some(a) = self.comm_apki {
            c.within(f("comm_apki"), a, 0.0, 1000.0)?;
        }
        let random = self.access == Some(super::workload::Access::Random);
        if random && (self.llc_mpki.is_some() || self.solo_bus_util.is_some() || self.mrc_ref_mb.is_some()) {
            return Err(c.fail(
                f("access"),
                "a random-access phase takes its misses from the machine: give no llc_mpki, mrc_ref_mb or solo_bus_util",
            ));
        }
        if random && self.footprint_mb + self.shared_mb <= 0.0 {
            return Err(c.fail(f("footprint_mb"), "a random-access phase needs a footprint > 0"));
        }
        match (self.llc_mpki, self.solo_bus_util) {
            _ if random => {}
            (Some(_), Some(_)) => return Err(c.fail(f("solo_bus_util"), "give llc_mpki or solo_bus_util, not both")),
            (None, None) => {
                return Err(c.fail(f("llc_mpki"), "missing: give llc_mpki (with mrc_ref_mb) or solo_bus_util"))
            }
            (Some(m), None) => {
                c.zero_or_within(f("llc_mpki"), m, 1e-9, 1000.0)?;
                if m > self.llc_apki {
                    return Err(c.fail(
                        f("llc_mpki"),
                        format!("{m} misses exceed {} accesses per kilo-instruction", self.llc_apki),
                    ));
                }
                match self.mrc_ref_mb {
                    Some(r) => c.within(f("mrc_ref_mb"), r, 0.0625, 65_536.0)?,
                    None => return Err(c.fail(f("mrc_ref_mb"), "missing: the LLC size llc_mpki was measured at")),
                }
            }
            (None, Some(u)) => c.zero_or_within(f("solo_bus_util"), u, 1e-9, 0.999)?,
        }
        if let Some(m) = self.llc_mpki_fit {
            c.within(f("llc_mpki_fit"), m, 0.0, 1000.0)?;
        }
        if let Some(r) = &self.measured_on {
            c.within(f("measured_on.freq_ghz"), r.freq_ghz, 0.05, 10.0)?;
            c.within(f("measured_on.latency_ns"), r.latency_ns, 1.0, 100_000.0)?;
            c.within(f("measured_on.llc_mb"), r.llc_mb, 0.0625, 65_536.0)?;
        }
        if let Some(pp) = &self.pp {
            c.within(f("pp.amount"), pp.amount, 1e-6, 1e6)?;
        }
        if self.footprint_mb + self.shared_mb <= 0.0 && self.llc_mpki.is_some_and(|m| m > 0.0) {
            return Err(c.fail(f("footprint_mb"), "a phase that misses in the LLC needs a footprint > 0"));
        }
        Ok(())
    }
}
