//! `quintet`'s learned interaction costs: SLITS's Thread-Interaction Matrix
//! and factorization machine (SLITS §3.2-3.3) on a statistic a pairing can
//! add up over both sides of a co-run.
//!
//! The statistic of waiting thread `w` beside running thread `r` is `w`'s
//! relative speed over one interval minus 1: its IPC over the interval over
//! its own mean IPC so far (Σ instructions / Σ cycles), so 0 is "as usual",
//! −0.2 "20% slower than usual". Centring at 0 keeps a pair never observed
//! (the FM's estimate near 0 at the start) neutral, neither preferred nor
//! avoided. The cost of running `w` beside `R` is the speed both sides are
//! predicted to lose: `−Σ_r (s(w | r) + s(r | w))`, observed TIM entries
//! first and the FM's estimate for the rest (SLITS §3.3: the FM fills only
//! what was not measured).

use crate::learn::{Fm, FmParams};
use crate::slits::{features, Tim};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Observations kept for replay (SLITS's online training: each new
/// observation is followed by `REPLAY` steps on earlier ones).
const HISTORY: usize = 512;
const REPLAY: usize = 4;

type Observation = ([(usize, f64); 3], f64);

/// The TIM of relative speeds, completed by an FM trained online.
pub(crate) struct Interactions {
    n: usize,
    tim: Tim,
    fm: Fm,
    history: Vec<Observation>,
    next_slot: usize,
    rng: ChaCha8Rng,
    /// Σ instructions and Σ cycles per thread (its mean IPC).
    totals: Vec<(f64, f64)>,
}

impl Interactions {
    /// An empty model for `n` threads on `contexts` contexts.
    pub(crate) fn new(n: usize, contexts: usize, fm: FmParams, seed: u64) -> Interactions {
        Interactions {
            n,
            tim: Tim::new(0.5),
            fm: Fm::new(2 * n + contexts, fm, seed),
            history: vec![],
            next_slot: 0,
            rng: ChaCha8Rng::seed_from_u64(seed ^ 0x5157),
            totals: vec![(0.0, 0.0); n],
        }
    }

    /// Fold in one interval of `w` on context `c`: `instructions` over
    /// `cycles`, beside the threads `corunners` that ran with it when it started.
    pub(crate) fn record(&mut self, w: usize, c: usize, corunners: &[u32], instructions: f64, cycles: f64) {
        if w >= self.n || cycles <= 0.0 || instructions <= 0.0 {
            return;
        }
        let t = &mut self.totals[w];
        t.0 += instructions;
        t.1 += cycles;
        let speed = (instructions / cycles) / (t.0 / t.1) - 1.0;
        for &r in corunners {
            let r = r as usize;
            if r >= self.n || r == w {
                continue;
            }
            self.tim.record(r as u32, w as u32, speed);
            let x = features(self.n, r, w, c);
            if self.history.len() < HISTORY {
                self.history.push((x, speed));
            } else {
                self.history[self.next_slot] = (x, speed);
                self.next_slot = (self.next_slot + 1) % HISTORY;
            }
            self.fm.sgd_step(&x, speed);
            for _ in 0..REPLAY {
                let (hx, hy) = self.history[self.rng.gen_range(0..self.history.len())];
                self.fm.sgd_step(&hx, hy);
            }
        }
    }

    /// `w`'s relative speed beside `r` when `w` runs on context `c`: the TIM's
    /// entry where observed, else the FM's estimate.
    pub(crate) fn speed(&self, r: usize, w: usize, c: usize) -> f64 {
        match self.tim.get(r as u32, w as u32) {
            Some(e) => e.value,
            None => self.fm.predict(&features(self.n, r, w, c)),
        }
    }

    /// Speed both sides are predicted to lose if `w` runs on `c` beside
    /// `runners` (each with the context it runs on): lower is better.
    pub(crate) fn cost(&self, w: usize, c: usize, runners: &[(usize, usize)]) -> f64 {
        -runners.iter().map(|&(r, rc)| self.speed(r, w, c) + self.speed(w, r, rc)).sum::<f64>()
    }

    /// Observed entries of the TIM.
    pub(crate) fn observed(&self) -> usize {
        self.tim.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Thread 0 runs at half its usual speed beside thread 1 and at its usual
    /// speed beside thread 2: the cost of pairing it with 1 exceeds that with 2.
    #[test]
    fn a_pair_that_slows_down_costs_more_than_one_that_does_not() {
        let mut m = Interactions::new(3, 2, FmParams::default(), 7);
        for _ in 0..20 {
            m.record(0, 0, &[1], 1.0e6, 2.0e6); // IPC 0.5 beside 1
            m.record(0, 0, &[2], 1.0e6, 1.0e6); // IPC 1.0 beside 2
        }
        assert!(m.speed(1, 0, 0) < m.speed(2, 0, 0));
        assert!(m.cost(0, 0, &[(1, 1)]) > m.cost(0, 0, &[(2, 1)]));
        assert_eq!(m.observed(), 2);
    }

    /// A pair never observed is neutral: its FM estimate starts near 0.
    #[test]
    fn an_unobserved_pair_is_near_neutral() {
        let m = Interactions::new(4, 2, FmParams::default(), 1);
        assert!(m.cost(0, 0, &[(1, 1)]).abs() < 0.1);
    }
}
