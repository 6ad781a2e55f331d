//! Miss-rate curves: LLC misses per kilo-instruction as a function of the
//! LLC capacity a thread holds.
//!
//! Below the footprint F the power law of Hartstein et al. ("Cache miss
//! behavior: is it √2?", CF 2006; each workload preset's exponent cites its source):
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
    /// A uniformly random access pattern over the footprint: the miss ratio
    /// comes from here, not from the power law.
    pub random: Option<RandomMisses>,
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
        if let Some(r) = &self.random {
            return self.apki * r.ratio(self.footprint_mb, size_mb);
        }
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

/// The LLC miss ratio of a uniformly random access pattern over a working
/// set W of which the thread holds `s` MiB of LLC (docs/model.md, "Random
/// access"). The machine's measured latency sweep says what W costs with the
/// whole cache to itself: the miss ratio `r₀(W) = (L(W) − L_llc) / L_mem`,
/// the latency above an LLC hit in units of the memory latency, L
/// log-interpolated between the sweep's points (its running maximum, so
/// noise cannot make a larger set cheaper); without a sweep, the analytic
/// `r₀(W) = max(0, 1 − C/W)`. Alone it holds `min(W, C)`; holding less, its
/// hits shrink in proportion (random access: hits ∝ lines held):
/// `r(W, s) = 1 − (1 − r₀(W)) · min(1, s / min(W, C))`, which is exactly
/// `1 − s/W` for an ideal cache.
#[derive(Clone, Debug, PartialEq)]
pub struct RandomMisses {
    /// The machine's LLC (one domain), MiB.
    pub llc_mb: f64,
    /// `(ln MiB, miss ratio)` per point of the sweep, increasing; empty without one.
    pub curve: std::sync::Arc<[(f64, f64)]>,
    /// Run-to-run factor on the ratio (`crate::variation`).
    pub scale: f64,
}

impl RandomMisses {
    /// The random-access miss ratios of machine `m`.
    pub fn of(m: &cosched_machine::MachineSpec) -> RandomMisses {
        let l_llc = m.cache.llc_hit_cycles / m.freq_ghz;
        let l_mem = m.memory.loaded_latency[0][1];
        let mut worst: f64 = 0.0;
        let curve = m
            .cache
            .latency_curve
            .iter()
            .flatten()
            .map(|&[mb, ns]| {
                worst = worst.max(ns);
                (mb.ln(), ((worst - l_llc) / l_mem).clamp(0.0, 1.0))
            })
            .collect();
        RandomMisses { llc_mb: m.cache.llc_mb, curve, scale: 1.0 }
    }

    /// Miss ratio of a random pattern over `working_mb` holding `held_mb`.
    pub fn ratio(&self, working_mb: f64, held_mb: f64) -> f64 {
        let w = working_mb.max(MIN_SIZE_MB);
        let alone = match (self.curve.first(), self.curve.last()) {
            (Some(&(x0, r0)), Some(&(xn, rn))) => {
                let x = w.ln();
                if x <= x0 {
                    r0
                } else if x >= xn {
                    rn
                } else {
                    let k = self.curve.partition_point(|p| p.0 <= x);
                    let ((xa, ra), (xb, rb)) = (self.curve[k - 1], self.curve[k]);
                    ra + (rb - ra) * (x - xa) / (xb - xa)
                }
            }
            _ => (1.0 - self.llc_mb / w).max(0.0),
        };
        let kept = (held_mb / w.min(self.llc_mb)).clamp(0.0, 1.0);
        ((1.0 - (1.0 - alone) * kept) * self.scale).min(1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn power_law_below_footprint_and_floor_above() {
        let m = MissRateCurve {
            mpki_ref: 10.0,
            ref_mb: 8.0,
            alpha: 0.5,
            footprint_mb: 64.0,
            mpki_fit: 1.0,
            apki: 40.0,
            random: None,
        };
        assert!((m.mpki(8.0) - 10.0).abs() < 1e-12);
        assert!((m.mpki(2.0) - 20.0).abs() < 1e-12);
        assert_eq!(m.mpki(64.0), 1.0);
        assert_eq!(m.mpki(0.0001), 40.0_f64.min(10.0 * (MIN_SIZE_MB / 8.0).powf(-0.5)));
    }
}
