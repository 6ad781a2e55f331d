//! The policy's decision times (`--no-timing` turns measuring off so that
//! output stays byte-identical): a log-bucketed histogram.

/// Log-bucketed histogram of decision times (8 buckets per octave, ±4.5%).
pub(super) struct DecisionTimes {
    buckets: Vec<u64>,
    n: u64,
    sum_ns: u64,
}

impl DecisionTimes {
    pub(super) fn new() -> Self {
        DecisionTimes { buckets: vec![0; 8 * 64], n: 0, sum_ns: 0 }
    }
    pub(super) fn add(&mut self, ns: u64) {
        let i = ((8.0 * ((ns + 1) as f64).log2()) as usize).min(self.buckets.len() - 1);
        self.buckets[i] += 1;
        self.n += 1;
        self.sum_ns = self.sum_ns.saturating_add(ns);
    }
    /// Mean decision time, µs (exact, not bucketed); 0 before any decision.
    pub(super) fn mean_us(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sum_ns as f64 / self.n as f64 / 1000.0
        }
    }
    pub(super) fn quantile_us(&self, q: f64) -> f64 {
        let target = (q * self.n as f64).ceil().max(1.0) as u64;
        let mut acc = 0;
        for (i, &b) in self.buckets.iter().enumerate() {
            acc += b;
            if acc >= target {
                return (2f64.powf((i as f64 + 0.5) / 8.0) - 1.0) / 1000.0;
            }
        }
        0.0
    }
}
