//! The power model: EFS Eq. 13's additive model (idle power P0 plus an
//! increment per active core P1, P2, …), split into CPU-package and the rest
//! of the system, plus DRAM background power and energy per line moved.

use crate::spec::PowerSpec;

/// Power draw, W, by domain.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Power {
    /// Whole system.
    pub system: f64,
    /// CPU package.
    pub cpu: f64,
    /// DRAM.
    pub dram: f64,
}

/// The power model of a machine.
#[derive(Clone, Debug)]
pub struct PowerModel {
    spec: PowerSpec,
    /// Cumulative active-core power for 0..=n active cores (EFS Eq. 13's Σ P_k).
    cumulative: Vec<f64>,
}

impl PowerModel {
    /// Build for a machine with `n_cores` cores.
    pub fn new(spec: &PowerSpec, n_cores: usize) -> PowerModel {
        let mut cumulative = vec![0.0];
        for k in 0..n_cores {
            let w = spec.core_active_w[k.min(spec.core_active_w.len() - 1)];
            cumulative.push(cumulative[k] + w);
        }
        PowerModel { spec: spec.clone(), cumulative }
    }

    /// Power with `active_cores` cores running something and DRAM moving
    /// `lines_per_s` 64-byte lines per second.
    #[inline]
    pub fn power(&self, active_cores: usize, lines_per_s: f64) -> Power {
        let active = self.cumulative[active_cores.min(self.cumulative.len() - 1)];
        let dram = self.spec.dram_static_w + lines_per_s * self.spec.dram_nj_per_line * 1e-9;
        Power {
            system: self.spec.system_idle_w + active + dram,
            cpu: self.spec.cpu_idle_w + active * self.spec.cpu_share_of_active,
            dram,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn efs_eq13_is_additive_in_active_cores() {
        // EFS Eq. 25 (i5-2500): P0 = 26.6, P1 = 22.6, P2 = 12, P3 = P4 = 12.3.
        let spec = PowerSpec {
            system_idle_w: 26.6,
            cpu_idle_w: 6.0,
            core_active_w: vec![22.6, 12.0, 12.3, 12.3],
            cpu_share_of_active: 0.8,
            dram_static_w: 0.0,
            dram_nj_per_line: 0.0,
        };
        let m = PowerModel::new(&spec, 4);
        assert!((m.power(0, 0.0).system - 26.6).abs() < 1e-9);
        assert!((m.power(1, 0.0).system - 49.2).abs() < 1e-9);
        assert!((m.power(4, 0.0).system - 85.8).abs() < 1e-9);
        assert!((m.power(4, 0.0).cpu - (6.0 + 0.8 * 59.2)).abs() < 1e-9);
    }
}
