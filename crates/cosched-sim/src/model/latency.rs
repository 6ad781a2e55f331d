//! Memory latency as the bus fills: a loaded-latency table (Intel MLC
//! `--loaded_latency` style; each preset's `memory.loaded_latency` cites its source),
//! interpolated linearly in utilisation of the sustained maximum. Beyond
//! utilisation 1 the bus delivers no more: the contention solver finds the
//! latency at which demand equals the maximum (the plateau), which an
//! unbounded M/M/1 delay would not produce.
//!
//! A thread reads the curve at the utilisation of *other* threads' traffic
//! plus `self_queueing` times its own (`MemorySpec::self_queueing`): 1 for a
//! curve measured with one loader, 0 where a thread's own back-to-back
//! requests do not collide with each other (EFS Eqs. 7-8, ρ_i = U − u_i).

/// A loaded-latency curve.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedLatency {
    pts: Vec<(f64, f64)>,
    /// 1 − self_queueing: the share of a thread's own utilisation it does not queue behind.
    own_excluded: f64,
}

impl LoadedLatency {
    /// From validated `[utilisation, ns]` points (utilisation 0 … 1,
    /// increasing); a thread's own traffic counts in full.
    pub fn new(points: &[[f64; 2]]) -> LoadedLatency {
        LoadedLatency { pts: points.iter().map(|p| (p[0], p[1])).collect(), own_excluded: 0.0 }
    }

    /// The curve of a machine's memory spec, with its `self_queueing`.
    pub fn of(m: &cosched_machine::spec::MemorySpec) -> LoadedLatency {
        LoadedLatency { own_excluded: 1.0 - m.self_queueing, ..LoadedLatency::new(&m.loaded_latency) }
    }

    /// Share of a thread's own utilisation that it does not queue behind
    /// (`1 − self_queueing`).
    pub fn own_excluded(&self) -> f64 {
        self.own_excluded
    }

    /// Latency a thread of utilisation `own` sees with the bus at total
    /// utilisation `total`, ns.
    #[inline]
    pub fn ns_seen(&self, total: f64, own: f64) -> f64 {
        self.ns(total - self.own_excluded * own)
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

    #[test]
    fn own_traffic_excluded_by_self_queueing() {
        let mut spec = cosched_machine::presets::machine("i5-2500").unwrap().memory;
        spec.loaded_latency = vec![[0.0, 80.0], [1.0, 180.0]];
        spec.self_queueing = 1.0;
        assert_eq!(LoadedLatency::of(&spec).ns_seen(0.6, 0.4), 140.0);
        spec.self_queueing = 0.0;
        let l = LoadedLatency::of(&spec);
        assert!((l.ns_seen(0.6, 0.4) - 100.0).abs() < 1e-9);
        assert_eq!(l.ns_seen(0.4, 0.4), 80.0); // alone: no queueing behind itself
    }
}
