//! Memory latency as the bus fills: a loaded-latency table (Intel MLC
//! `--loaded_latency` style, `shared/data/workload-sources.md` §4),
//! interpolated linearly in utilisation of the sustained maximum. Beyond
//! utilisation 1 the bus delivers no more: the contention solver finds the
//! latency at which demand equals the maximum (the plateau), which an
//! unbounded M/M/1 delay would not produce.

/// A loaded-latency curve.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedLatency {
    pts: Vec<(f64, f64)>,
}

impl LoadedLatency {
    /// From validated `[utilisation, ns]` points (utilisation 0 … 1, increasing).
    pub fn new(points: &[[f64; 2]]) -> LoadedLatency {
        LoadedLatency { pts: points.iter().map(|p| (p[0], p[1])).collect() }
    }

    /// Latency with the bus at utilisation `rho` (clamped to [0, 1]), ns.
    #[inline]
    pub fn ns(&self, rho: f64) -> f64 {
        let r = rho.clamp(0.0, 1.0);
        let p = &self.pts;
        let i = p.partition_point(|q| q.0 < r).clamp(1, p.len() - 1);
        let (x0, y0) = p[i - 1];
        let (x1, y1) = p[i];
        y0 + (y1 - y0) * (r - x0) / (x1 - x0)
    }

    /// Latency and its slope d(ns)/d(rho) at `rho` (clamped to [0, 1]).
    #[inline]
    pub fn ns_and_slope(&self, rho: f64) -> (f64, f64) {
        let r = rho.clamp(0.0, 1.0);
        let p = &self.pts;
        let i = p.partition_point(|q| q.0 < r).clamp(1, p.len() - 1);
        let (x0, y0) = p[i - 1];
        let (x1, y1) = p[i];
        let slope = (y1 - y0) / (x1 - x0);
        (y0 + slope * (r - x0), slope)
    }

    /// Unloaded latency, ns.
    pub fn idle_ns(&self) -> f64 {
        self.pts[0].1
    }

    /// Latency at the sustained maximum, ns.
    pub fn saturated_ns(&self) -> f64 {
        self.pts[self.pts.len() - 1].1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolates_and_clamps() {
        let l = LoadedLatency::new(&[[0.0, 80.0], [0.5, 90.0], [1.0, 190.0]]);
        assert_eq!(l.ns(0.0), 80.0);
        assert_eq!(l.ns(0.25), 85.0);
        assert_eq!(l.ns(0.75), 140.0);
        assert_eq!(l.ns(2.0), 190.0);
        assert_eq!(l.ns(-1.0), 80.0);
    }
}
