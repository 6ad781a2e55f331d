//! The Thread-Interaction Matrix (SLITS §3.2, §4.2): profiled statistics
//! `(running thread, waiting thread, statistic)` gathered as threads co-run,
//! stored sparsely (only what was observed) and aggregated so that recent
//! behaviour counts more (an exponential moving average per entry).

use serde::Serialize;
use std::collections::BTreeMap;

/// One observed entry.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Entry {
    /// Aggregated statistic.
    pub value: f64,
    /// Number of observations folded in.
    pub count: u32,
}

/// A sparse Thread-Interaction Matrix.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Tim {
    entries: BTreeMap<(u32, u32), Entry>,
    /// Weight of a new observation in the moving average (1 = keep only the latest).
    pub alpha: f64,
}

impl Tim {
    /// An empty matrix with moving-average weight `alpha`.
    pub fn new(alpha: f64) -> Tim {
        Tim { entries: BTreeMap::new(), alpha }
    }

    /// Fold in `value` observed for waiting thread `waiting` while `running` ran.
    pub fn record(&mut self, running: u32, waiting: u32, value: f64) {
        let a = self.alpha;
        self.entries
            .entry((running, waiting))
            .and_modify(|e| {
                e.value = a * value + (1.0 - a) * e.value;
                e.count += 1;
            })
            .or_insert(Entry { value, count: 1 });
    }

    /// The aggregated statistic, if observed.
    pub fn get(&self, running: u32, waiting: u32) -> Option<Entry> {
        self.entries.get(&(running, waiting)).copied()
    }

    /// Observed entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when nothing was observed.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Observed share of the n·(n−1) ordered pairs of `n` threads.
    pub fn density(&self, n: usize) -> f64 {
        if n < 2 {
            0.0
        } else {
            self.entries.len() as f64 / (n * (n - 1)) as f64
        }
    }

    /// Every observed entry, in (running, waiting) order.
    pub fn iter(&self) -> impl Iterator<Item = ((u32, u32), Entry)> + '_ {
        self.entries.iter().map(|(k, v)| (*k, *v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recent_observations_weigh_more_and_storage_is_sparse() {
        let mut t = Tim::new(0.5);
        t.record(1, 2, 10.0);
        t.record(1, 2, 20.0);
        assert_eq!(t.get(1, 2), Some(Entry { value: 15.0, count: 2 }));
        assert_eq!(t.get(2, 1), None);
        assert_eq!(t.len(), 1);
        assert!((t.density(4) - 1.0 / 12.0).abs() < 1e-12);
    }
}
