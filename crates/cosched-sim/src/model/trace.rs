//! An LLC access stream drawn from a phase's miss-rate curve, for profiling
//! a simulated program as RDA's profiler (§2.4) profiles a real one
//! (declarations "a profiler would produce").
//!
//! The miss-rate curve is read as the survival function of LRU stack
//! distances (Mattson et al., "Evaluation techniques for storage
//! hierarchies", IBM Systems Journal 1970: a fully associative LRU cache of C
//! lines misses exactly the accesses whose stack distance exceeds C), so
//! `P(distance > S) = mpki(S) / apki`. Each access draws a distance by
//! inverting that function and touches the line at that depth of an LRU
//! stack; a distance beyond every line so far, or an access in the
//! compulsory share `mpki_fit / apki`, touches a new line. The stack is a
//! Fenwick tree over access times (one mark per line, at its last access),
//! so the line at depth d is found in O(log n).

use super::mrc::{MissRateCurve, MIN_SIZE_MB};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Bytes per line.
const LINE: f64 = 64.0;

/// The stack distance, in lines, of an access whose survival draw is `u`
/// (uniform in [0, 1)); `None`: a new line (compulsory or streaming miss).
fn distance(mrc: &MissRateCurve, u: f64) -> Option<u64> {
    let lines = |mb: f64| (mb * 1024.0 * 1024.0 / LINE).max(1.0);
    let fit = if mrc.apki > 0.0 { mrc.mpki_fit / mrc.apki } else { 1.0 };
    if u < fit {
        return None;
    }
    if let Some(_r) = &mrc.random {
        // Uniformly random over the footprint: every depth within it equally likely.
        return Some((u * lines(mrc.footprint_mb)) as u64 + 1);
    }
    let survival = |mb: f64| (mrc.mpki(mb) / mrc.apki).min(1.0);
    // Just below the cliff (`mpki` returns `mpki_fit` from 0.999 of the footprint).
    let edge = mrc.footprint_mb * 0.99;
    if u < survival(edge) {
        // Below the curve's lowest point before the cliff: reused at the footprint.
        return Some(lines(mrc.footprint_mb) as u64);
    }
    if mrc.alpha == 0.0 || u >= survival(MIN_SIZE_MB) {
        // The curve is flat here: a hit in the smallest capacity the curve resolves.
        return Some(1);
    }
    // mpki_ref · (S / ref)^-α = u · apki  ⇒  S = ref · (u · apki / mpki_ref)^(-1/α).
    let s = mrc.ref_mb * (u * mrc.apki / mrc.mpki_ref).powf(-1.0 / mrc.alpha);
    Some(lines(s.clamp(MIN_SIZE_MB, mrc.footprint_mb)) as u64)
}

/// A Fenwick tree of 0/1 marks with "position of the k-th mark".
struct Marks {
    tree: Vec<i32>,
    log: usize,
}

impl Marks {
    fn new(n: usize) -> Marks {
        Marks { tree: vec![0; n + 1], log: usize::BITS as usize - n.leading_zeros() as usize }
    }
    fn add(&mut self, mut i: usize, v: i32) {
        i += 1;
        while i < self.tree.len() {
            self.tree[i] += v;
            i += i & i.wrapping_neg();
        }
    }
    /// Position (0-based) of the k-th mark (1-based k).
    fn kth(&self, mut k: i32) -> usize {
        let mut pos = 0;
        for b in (0..=self.log).rev() {
            let next = pos + (1 << b);
            if next < self.tree.len() && self.tree[next] < k {
                pos = next;
                k -= self.tree[next];
            }
        }
        pos
    }
}

/// `n` LLC accesses of a phase with curve `mrc` (byte addresses of 64-byte
/// lines from `base`), after `warmup` accesses that are drawn but not
/// returned (so the stream starts in the phase's steady state). Seeded:
/// the same inputs give the same stream.
pub fn llc_access_trace(mrc: &MissRateCurve, warmup: usize, n: usize, base: u64, seed: u64) -> Vec<u64> {
    let total = warmup + n;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut marks = Marks::new(total);
    let mut line_at: Vec<u64> = vec![0; total];
    let mut last: Vec<usize> = vec![];
    let mut out = Vec::with_capacity(n);
    for t in 0..total {
        let held = last.len() as u64;
        let line = match distance(mrc, rng.gen::<f64>()) {
            Some(d) if d <= held => {
                // The line at depth d: the (held − d + 1)-th mark in time order.
                let slot = marks.kth((held - d + 1) as i32);
                let l = line_at[slot];
                marks.add(slot, -1);
                l
            }
            _ => {
                last.push(0);
                held
            }
        };
        marks.add(t, 1);
        line_at[t] = line;
        last[line as usize] = t;
        if t >= warmup {
            out.push(base + line * LINE as u64);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn curve(alpha: f64, footprint_mb: f64, mpki_fit: f64) -> MissRateCurve {
        MissRateCurve { random: None, mpki_ref: 10.0, ref_mb: 0.5, alpha, footprint_mb, mpki_fit, apki: 20.0 }
    }

    /// The stream's LRU miss ratio at a capacity C, counted by brute force
    /// (a plain LRU list), equals the curve's mpki(C) / apki.
    #[test]
    fn an_lru_cache_of_the_stream_misses_as_the_curve_says() {
        let mrc = curve(0.5, 2.0, 0.5);
        let trace = llc_access_trace(&mrc, 40_000, 100_000, 0, 7);
        // The brute-force cache warms on the first 40,000 accesses of the stream, then counts.
        let counted = 40_000;
        for cap_mb in [0.125, 0.5, 1.0] {
            let cap = (cap_mb * 1024.0 * 1024.0 / 64.0) as usize;
            let mut lru: std::collections::VecDeque<u64> = Default::default();
            let mut misses = 0usize;
            for (i, &a) in trace.iter().enumerate() {
                if let Some(p) = lru.iter().position(|&x| x == a) {
                    lru.remove(p);
                } else {
                    misses += usize::from(i >= counted);
                    if lru.len() == cap {
                        lru.pop_back();
                    }
                }
                lru.push_front(a);
            }
            let got = misses as f64 / (trace.len() - counted) as f64;
            let want = mrc.mpki(cap_mb) / mrc.apki;
            assert!((got - want).abs() < 0.03, "C = {cap_mb} MiB: LRU miss ratio {got}, curve {want}");
        }
    }

    #[test]
    fn a_cliff_curve_reuses_at_its_footprint_and_a_stream_never_reuses() {
        // Every access misses below the footprint and none at it (the RDA cliff): a cyclic sweep.
        let cliff = MissRateCurve { mpki_ref: 20.0, alpha: 0.0, mpki_fit: 0.0, ..curve(0.0, 0.25, 0.0) };
        let trace = llc_access_trace(&cliff, 20_000, 20_000, 0, 1);
        let distinct: std::collections::HashSet<u64> = trace.iter().copied().collect();
        let lines = (0.25 * 1024.0 * 1024.0 / 64.0) as usize;
        assert!(distinct.len() <= lines + 1 && distinct.len() > lines * 9 / 10, "{} of {lines}", distinct.len());
        let stream = MissRateCurve { mpki_fit: 20.0, ..curve(0.5, 1.0, 20.0) };
        let s = llc_access_trace(&stream, 0, 5_000, 0, 1);
        let d: std::collections::HashSet<u64> = s.iter().copied().collect();
        assert_eq!(d.len(), s.len());
        assert_eq!(
            llc_access_trace(&curve(0.5, 2.0, 0.5), 100, 1_000, 0, 3),
            llc_access_trace(&curve(0.5, 2.0, 0.5), 100, 1_000, 0, 3)
        );
    }
}
