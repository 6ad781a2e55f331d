//! The memory bus of one socket's solve: bus utilisation demanded at a
//! latency, DRAM row conflicts, and the latency every runner sees (one shared
//! latency, or per thread where the machine's `self_queueing` < 1, EFS Eqs. 7-8).

use super::{BusState, Runner, Solver};
use crate::model::PhaseModel;

impl Solver {
    /// ρ(L), the bus utilisation demanded at latency `l`, and dρ/dL.
    #[inline]
    pub(super) fn rho(&self, l: f64) -> (f64, f64) {
        let (mut r, mut d) = (0.0, 0.0);
        for i in 0..self.b.len() {
            let den = self.b[i] + self.c[i] * l;
            let x = self.a[i] / den;
            r += x;
            d -= x * self.c[i] / den;
        }
        (r, d)
    }

    /// DRAM interference between concurrent streams: the extra bus time per
    /// line, as a share of the sustained line time (0 without `[memory.dram]`).
    ///
    /// With `n` streams (the effective number, `(Σd)²/Σd²` over the threads'
    /// current demands `d`, so a light stream counts little), each stream's
    /// extra time is the cycle-level controller's measurement at `n` streams
    /// of its phase's `row_locality` (`[memory.dram] stretch`, read
    /// bilinearly), weighted by its share of the traffic (`docs/model.md`,
    /// "DRAM interference"). One stream alone costs nothing, so solo
    /// calibrations are unchanged.
    pub(super) fn row_conflicts(&self, models: &[PhaseModel], runners: &[Runner]) -> f64 {
        let Some(dram) = &self.dram else { return 0.0 };
        let (mut sum, mut sum2) = (0.0, 0.0);
        for i in 0..runners.len() {
            let d = self.demand(i, self.l[i]);
            sum += d;
            sum2 += d * d;
        }
        if sum <= 0.0 {
            return 0.0;
        }
        let streams = sum * sum / sum2;
        let mut extra = 0.0;
        for (i, r) in runners.iter().enumerate() {
            let h = models[r.model as usize].row_locality;
            let d = self.demand(i, self.l[i]);
            extra += d * crate::dram::table::read(&dram.streams, &dram.row_locality, &dram.stretch, streams, h);
        }
        extra / sum
    }

    /// Latency at utilisation `r` with the queueing part (above idle)
    /// stretched by the row-conflict service time, and its slope.
    #[inline]
    pub(super) fn curve_and_slope(&self, r: f64) -> (f64, f64) {
        let l0 = self.lat.idle_ns();
        let (ns, slope) = self.lat.ns_and_slope(r);
        (l0 + self.stretch * (ns - l0), self.stretch * slope)
    }

    /// [`Self::curve_and_slope`] without the slope.
    #[inline]
    pub(super) fn curve(&self, r: f64) -> f64 {
        self.curve_and_slope(r).0
    }

    /// Bus utilisation demanded by runner `i` at latency `l`.
    #[inline]
    pub(super) fn demand(&self, i: usize, l: f64) -> f64 {
        self.a[i] / (self.b[i] + self.c[i] * l)
    }

    /// Solve for the latency every runner sees (into `self.l`) and the bus
    /// state; `guess` is the last iteration's latency (Newton starts there).
    pub(super) fn solve_latency(&mut self, guess: f64) -> BusState {
        if self.lat.own_excluded() > 0.0 {
            return self.solve_latency_per_thread();
        }
        let bus = self.solve_latency_shared(guess);
        self.l.iter_mut().for_each(|l| *l = bus.latency_ns);
        bus
    }

    /// Every runner sees the same latency (`self_queueing` = 1); Newton's
    /// method starts at `guess` when it lies inside the bracket.
    pub(super) fn solve_latency_shared(&self, guess: f64) -> BusState {
        let (l0, l1) = (self.lat.idle_ns(), self.curve(1.0));
        if self.rho(l1).0 >= 1.0 {
            // Saturated: find L ≥ l1 with ρ(L) = 1. ρ is convex and decreasing,
            // so Newton from the left converges monotonically.
            let mut l = l1;
            for _ in 0..100 {
                let (r, d) = self.rho(l);
                if d == 0.0 {
                    break;
                }
                let step = (1.0 - r) / d;
                l += step;
                if step.abs() <= 1e-9 * l {
                    break;
                }
            }
            return BusState { latency_ns: l, utilisation: 1.0 };
        }
        let x = self.latency_where(if guess > l0 && guess < l1 { guess } else { l0 }, l0, l1, |l| self.rho(l));
        BusState { latency_ns: x, utilisation: self.rho(x).0 }
    }

    /// The latency in `[l0, l1]` where the loaded-latency curve meets the
    /// traffic `rho` gives (its value and slope at a latency), from `x`:
    /// φ(L) = curve(ρ(L)) − L is decreasing with φ(l0) ≥ 0 ≥ φ(l1), so
    /// Newton's method, falling back to bisection when a step leaves the bracket.
    pub(super) fn latency_where(&self, mut x: f64, l0: f64, l1: f64, rho: impl Fn(f64) -> (f64, f64)) -> f64 {
        let (mut lo, mut hi) = (l0, l1);
        for _ in 0..100 {
            let (r, dr) = rho(x);
            let (ns, slope) = self.curve_and_slope(r);
            let phi = ns - x;
            if phi.abs() < 1e-7 * x {
                break;
            }
            if phi > 0.0 {
                lo = x;
            } else {
                hi = x;
            }
            let dphi = slope * dr - 1.0;
            let next = x - phi / dphi;
            x = if next > lo && next < hi { next } else { 0.5 * (lo + hi) };
            if hi - lo < 1e-9 * hi {
                break;
            }
        }
        x
    }

    /// Each runner reads the curve at the total utilisation less the
    /// excluded share of its own, bounded by the closed population (the
    /// requests outstanding ahead of it, `Σ_j MLP_j − w·MLP_i`, one line time
    /// each: Little's law): `L_i = min(curve(ρ − w·u_i), L_0 + cap_i) + E`, `ρ` the total
    /// utilisation and `E` the extra queueing once the bus is saturated. `u_i`
    /// is the runner's demand from the previous iteration of the outer loop
    /// (its fixed point is the joint solution), so total demand is decreasing
    /// in `ρ` and in `E` and each has one root.
    pub(super) fn solve_latency_per_thread(&mut self) -> BusState {
        let w = self.lat.own_excluded();
        // Closed population: a request never waits behind more than the
        // requests the others (and, by self_queueing, it) have outstanding.
        let line_ns = 1e9 * self.stretch / self.mu;
        let outstanding: f64 = self.mlp.iter().sum();
        let total = |s: &mut Self, rho: f64, extra: f64| -> f64 {
            let mut sum = 0.0;
            for i in 0..s.b.len() {
                let cap = s.lat.idle_ns() + line_ns * (outstanding - w * s.mlp[i]);
                let l = s.curve(rho - w * s.own[i]).min(cap) + extra;
                s.l[i] = l;
                sum += s.demand(i, l);
            }
            sum
        };
        let (rho, extra) = if total(self, 1.0, 0.0) >= 1.0 {
            // Saturated: the extra queueing E that brings demand down to 1.
            let mut hi = self.curve(1.0).max(1.0);
            while total(self, 1.0, hi) > 1.0 {
                hi *= 2.0;
            }
            (1.0, root_decreasing(|e| total(self, 1.0, e) - 1.0, 0.0, hi, 1e-9 * hi))
        } else {
            (root_decreasing(|r| total(self, r, 0.0) - r, 0.0, 1.0, 1e-12), 0.0)
        };
        let sum = total(self, rho, extra);
        // What a typical access waits: the demand-weighted mean latency.
        let mean = (0..self.b.len()).map(|i| self.demand(i, self.l[i]) * self.l[i]).sum::<f64>();
        BusState { latency_ns: if sum > 0.0 { mean / sum } else { self.lat.idle_ns() }, utilisation: rho }
    }
}

/// The root of `f`, decreasing on `[lo, hi]` with `f(lo) ≥ 0 ≥ f(hi)`, to
/// within `tol` (Illinois false position: bisection's safety, near-secant speed).
fn root_decreasing(mut f: impl FnMut(f64) -> f64, mut lo: f64, mut hi: f64, tol: f64) -> f64 {
    let (mut flo, mut fhi) = (f(lo), f(hi));
    if flo <= 0.0 {
        return lo;
    }
    if fhi >= 0.0 {
        return hi;
    }
    let (mut side, mut last) = (0, f64::NAN);
    for _ in 0..200 {
        let x = (lo * fhi - hi * flo) / (fhi - flo);
        let fx = f(x);
        if fx == 0.0 || hi - lo <= tol || (x - last).abs() <= tol {
            return x;
        }
        last = x;
        if fx > 0.0 {
            lo = x;
            flo = fx;
            if side == 1 {
                fhi *= 0.5;
            }
            side = 1;
        } else {
            hi = x;
            fhi = fx;
            if side == -1 {
                flo *= 0.5;
            }
            side = -1;
        }
    }
    0.5 * (lo + hi)
}
