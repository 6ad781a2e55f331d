//! Estimating bus use from counters (EFS §3.2, Eqs. 18-19) and predicting a
//! thread's solo bandwidth for its next scheduling interval (§4.1, Eq. 20).

use super::model::solo_utilisation;
use crate::counters::Counters;

/// Eq. 18: bus utilisation of the chip over `dt` seconds, from its memory
/// accesses (`accesses_p`), with bus rate `mu` accesses per second.
pub fn bus_utilisation(accesses_p: f64, mu: f64, dt: f64) -> f64 {
    accesses_p / (mu * dt)
}

/// Eq. 19: bus utilisation of one thread over `dt` seconds from its own
/// memory reads and the chip's writes, assuming writes are distributed like
/// reads.
pub fn thread_utilisation(reads_i: f64, writes_p: f64, accesses_p: f64, mu: f64, dt: f64) -> f64 {
    let reads_p = accesses_p - writes_p;
    let share = if reads_p > 0.0 { reads_i / reads_p } else { 0.0 };
    (reads_i + writes_p * share) / (mu * dt)
}

/// One interval's estimates for a thread, from the counter deltas of the
/// thread and of its chip over `dt` seconds: its solo utilisation by Eq. 9
/// (from Eqs. 18-19 measured under interference) and its measured
/// utilisation u (what an additive model would take as its solo one).
/// `(b, u)`; b is 1e-4 when the thread made no memory access.
pub fn interval_estimate(thread: &Counters, chip: &Counters, mu: f64, dt: f64) -> (f64, f64) {
    let accesses = chip.mem_reads + chip.mem_writes;
    let total = bus_utilisation(accesses, mu, dt).min(0.999);
    let u = thread_utilisation(thread.mem_reads, chip.mem_writes, accesses, mu, dt).min(total);
    let b = if u > 0.0 { solo_utilisation(u, total).clamp(1e-4, 0.999) } else { 1e-4 };
    (b, u)
}

/// Eq. 20: the exponentially windowed predictor of a thread's solo bandwidth.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Predictor {
    /// Current prediction B_i^k.
    pub value: f64,
    /// Window t0, seconds.
    pub window: f64,
}

impl Predictor {
    /// A new thread's prediction: `1 / cores` (§4.1).
    pub fn new(cores: usize, window: f64) -> Predictor {
        Predictor { value: 1.0 / cores.max(1) as f64, window }
    }

    /// Fold in the solo bandwidth `b` estimated over an interval of `dt` seconds.
    pub fn update(&mut self, b: f64, dt: f64) {
        self.value = if dt < self.window { (b * dt + self.value * (self.window - dt)) / self.window } else { b };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eq18_and_eq19_split_the_bus_among_readers() {
        let mu = 150e6;
        // 1 ms: 100k accesses, 20k of them writes; the thread made 40k of the 80k reads.
        assert!((bus_utilisation(1e5, mu, 1e-3) - 1e5 / 1.5e5).abs() < 1e-12);
        let u = thread_utilisation(4e4, 2e4, 1e5, mu, 1e-3);
        assert!((u - (4e4 + 1e4) / 1.5e5).abs() < 1e-12);
    }

    #[test]
    fn eq20_weights_short_intervals_by_their_length() {
        let mut p = Predictor::new(4, 1e-3);
        assert_eq!(p.value, 0.25);
        p.update(0.65, 0.5e-3);
        assert!((p.value - (0.65 * 0.5 + 0.25 * 0.5)).abs() < 1e-12);
        p.update(0.1, 2e-3);
        assert_eq!(p.value, 0.1);
    }
}
