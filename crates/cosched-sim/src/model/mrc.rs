//! Miss-rate curves: LLC misses per kilo-instruction as a function of the
//! LLC capacity a thread holds.
//!
//! Below the footprint F the power law of Hartstein et al. ("Cache miss
//! behavior: is it √2?", CF 2006; `shared/data/workload-sources.md` §3):
//! `mpki(S) = mpki_ref · (S / S_ref)^-α`, capped by the access rate. At or
//! above F the whole working set fits and only compulsory/streaming misses
//! remain (`mpki_fit`), which gives the cliff of reuse-heavy working sets
//! (the RDA premise) when `mpki_fit` is set well below the curve.

/// The smallest capacity the power law is evaluated at (16 KiB), so a thread
/// holding nothing still has a finite miss rate.
pub const MIN_SIZE_MB: f64 = 1.0 / 64.0;

/// A thread's miss-rate curve.
#[derive(Clone, Debug, PartialEq)]
pub struct MissRateCurve {
    /// MPKI at the reference capacity.
    pub mpki_ref: f64,
    /// Reference capacity, MiB.
    pub ref_mb: f64,
    /// Power-law exponent α.
    pub alpha: f64,
    /// Footprint F (private + shared data the thread touches), MiB.
    pub footprint_mb: f64,
    /// MPKI once the footprint fits.
    pub mpki_fit: f64,
    /// LLC accesses per kilo-instruction (upper bound of the MPKI).
    pub apki: f64,
}

impl MissRateCurve {
    /// MPKI holding `size_mb` of LLC.
    #[inline]
    pub fn mpki(&self, size_mb: f64) -> f64 {
        if size_mb >= self.footprint_mb * 0.999 {
            return self.mpki_fit;
        }
        let s = size_mb.max(MIN_SIZE_MB);
        let v = if self.alpha == 0.0 { self.mpki_ref } else { self.mpki_ref * (s / self.ref_mb).powf(-self.alpha) };
        v.min(self.apki).max(self.mpki_fit)
    }

    /// The power-law value at the footprint (the default `mpki_fit`: no cliff).
    pub fn at_footprint(mpki_ref: f64, ref_mb: f64, alpha: f64, footprint_mb: f64, apki: f64) -> f64 {
        (mpki_ref * (footprint_mb.max(MIN_SIZE_MB) / ref_mb).powf(-alpha)).min(apki)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn power_law_below_footprint_and_floor_above() {
        let m =
            MissRateCurve { mpki_ref: 10.0, ref_mb: 8.0, alpha: 0.5, footprint_mb: 64.0, mpki_fit: 1.0, apki: 40.0 };
        assert!((m.mpki(8.0) - 10.0).abs() < 1e-12);
        assert!((m.mpki(2.0) - 20.0).abs() < 1e-12);
        assert_eq!(m.mpki(64.0), 1.0);
        assert_eq!(m.mpki(0.0001), 40.0_f64.min(10.0 * (MIN_SIZE_MB / 8.0).powf(-0.5)));
    }
}
