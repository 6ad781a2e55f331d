//! The range check of every field of a machine description, each error
//! naming the file and the field (`docs/formats.md`, "Machines").

use super::*;
use crate::check::CheckKind;
use crate::error::{Check, ConfigError};

impl MachineSpec {
    /// Check every field's range.
    pub fn validate(&self, file: &str) -> Result<(), ConfigError> {
        let c = Check { file };
        if cosched_core::text::has_control(&self.name) {
            return Err(c.fail(
                "name",
                format!(
                    "`{}` has control characters (a name is printed on terminals)",
                    cosched_core::text::quote(&self.name)
                ),
            ));
        }
        for (i, k) in self.checks.iter().enumerate() {
            let f = |s: &str| format!("check[{i}].{s}");
            // A rerun's cell may be a loss (a negative speedup, %); every other point is a positive quantity.
            let magnitude = if k.kind == CheckKind::RerunCell { k.published.abs() } else { k.published };
            c.within(f("published"), magnitude, 1e-9, 1e12)?;
            c.within(f("tolerance"), k.tolerance, 1e-6, 100.0)?;
            if let Some((field, what)) = k.missing() {
                return Err(c.fail(f(field), what));
            }
            if let Some(g) = &k.known_gap {
                crate::check::fill_known_gap(g, None, c.file, &f("known_gap"))?;
            }
            if k.known_gap.is_some() && k.missing_mechanism.as_deref().is_none_or(|m| m.trim().is_empty()) {
                return Err(c.fail(
                    f("missing_mechanism"),
                    "a known gap must name the mechanism the model lacks; a gap without one is a failure",
                ));
            }
        }
        // Physical ranges: wide enough for any machine built,
        // narrow enough that no result overflows, underflows or divides by zero.
        c.within("freq_ghz", self.freq_ghz, 0.05, 10.0)?;
        let t = &self.topology;
        for (f, v) in [
            ("topology.sockets", t.sockets),
            ("topology.llc_per_socket", t.llc_per_socket),
            ("topology.cores_per_llc", t.cores_per_llc),
            ("topology.pipes_per_core", t.pipes_per_core),
            ("topology.contexts_per_pipe", t.contexts_per_pipe),
        ] {
            if v == 0 {
                return Err(c.fail(f, "must be at least 1"));
            }
        }
        if self.n_contexts() > 4096 {
            return Err(c.fail("topology", format!("{} contexts: at most 4096 supported", self.n_contexts())));
        }
        c.within("cache.l1d_kb", self.cache.l1d_kb, 1.0, 16_384.0)?;
        c.within("cache.l2_kb", self.cache.l2_kb, 0.0, 1_048_576.0)?;
        c.within("cache.llc_mb", self.cache.llc_mb, 0.0625, 65_536.0)?;
        c.within("cache.llc_hit_cycles", self.cache.llc_hit_cycles, 0.0, 10_000.0)?;
        c.within("cache.tenant_lines_per_s", self.cache.tenant_lines_per_s, 0.0, 1e12)?;
        if let Some(curve) = &self.cache.latency_curve {
            if curve.len() < 2 {
                return Err(c.fail("cache.latency_curve", "needs at least two [MiB, ns] points"));
            }
            for (i, [mb, ns]) in curve.iter().enumerate() {
                c.within(format!("cache.latency_curve[{i}][0]"), *mb, 1e-3, 1e6)?;
                c.within(format!("cache.latency_curve[{i}][1]"), *ns, 0.01, 1e5)?;
            }
            if curve.windows(2).any(|w| w[1][0] <= w[0][0]) {
                return Err(c.fail("cache.latency_curve", "working sets (MiB) must increase from point to point"));
            }
        }
        c.within("core.issue_width", self.core.issue_width, 0.1, 64.0)?;
        c.within("core.l1_accesses_per_cycle", self.core.l1_accesses_per_cycle, 0.1, 64.0)?;
        c.within("core.smt_penalty", self.core.smt_penalty, 0.0, 100.0)?;
        c.within("core.l1_contention", self.core.l1_contention, 0.0, 10.0)?;
        c.within("memory.bandwidth_gbs", self.memory.bandwidth_gbs, 0.01, 100_000.0)?;
        let ll = &self.memory.loaded_latency;
        if ll.len() < 2 {
            return Err(c.fail("memory.loaded_latency", "needs at least two [utilisation, ns] points"));
        }
        if ll[0][0] != 0.0 || ll[ll.len() - 1][0] != 1.0 {
            return Err(c.fail("memory.loaded_latency", "utilisation must run from 0 to 1"));
        }
        for (i, w) in ll.windows(2).enumerate() {
            if w[1][0] <= w[0][0] || w[1][1] < w[0][1] {
                return Err(c.fail(
                    format!("memory.loaded_latency[{}]", i + 1),
                    "utilisation must increase and latency must not decrease",
                ));
            }
        }
        for (i, p) in ll.iter().enumerate() {
            c.within(format!("memory.loaded_latency[{i}]"), p[1], 1.0, 100_000.0)?;
        }
        c.within("memory.self_queueing", self.memory.self_queueing, 0.0, 1.0)?;
        if let Some(d) = &self.memory.dram {
            d.check(&c)?;
        }
        if self.provenance.len() > 1000 {
            return Err(c.fail("provenance", format!("at most 1000 entries, got {}", self.provenance.len())));
        }
        for (key, why) in &self.provenance {
            if provenance_tag(why).is_none() {
                return Err(
                    c.fail(format!("provenance.{key}"), "must start with [P], [C], [M], [A] or [F: check point; ...]")
                );
            }
        }
        let p = &self.power;
        c.within("power.system_idle_w", p.system_idle_w, 0.0, 1e6)?;
        c.within("power.cpu_idle_w", p.cpu_idle_w, 0.0, p.system_idle_w)?;
        if p.core_active_w.is_empty() {
            return Err(c.fail("power.core_active_w", "needs at least one value"));
        }
        let cores = self.n_cores();
        if p.core_active_w.len() != 1 && p.core_active_w.len() != cores {
            return Err(c.fail(
                "power.core_active_w",
                format!(
                    "{} values for {cores} cores: give one value (every core adds the same) or one per core",
                    p.core_active_w.len()
                ),
            ));
        }
        for (i, w) in p.core_active_w.iter().enumerate() {
            c.within(format!("power.core_active_w[{i}]"), *w, 0.0, 10_000.0)?;
        }
        c.within("power.cpu_share_of_active", p.cpu_share_of_active, 0.0, 1.0)?;
        c.within("power.dram_static_w", p.dram_static_w, 0.0, 1e5)?;
        c.within("power.dram_nj_per_line", p.dram_nj_per_line, 0.0, 10_000.0)?;
        c.within("costs.context_switch_us", self.costs.context_switch_us, 0.0, 1e6)?;
        c.within("costs.scheduler_tick_ms", self.costs.scheduler_tick_ms, 0.0, 1000.0)?;
        c.within("costs.scheduler_off_grid", self.costs.scheduler_off_grid, 0.0, 1.0)?;
        Ok(())
    }
}
