//! What absent threads left in each LLC domain, aged as the domain fills:
//! a line survives N insertions into a C-line cache with probability
//! exp(−N/C) (random replacement; `Engine::start_costs`). Kept as one sum per
//! domain, `Σ left_j · exp((inserted_j − base)/C)`, so what every absent
//! thread still holds there is that sum times `exp(−(now − base)/C)`: one
//! `exp` per query instead of one per absent thread (a scan of all threads
//! at every start was an eighth of a time-shared run's cost). The base
//! moves to `now` (and the sum is recomputed) before its factors grow past
//! `exp(REBASE)`, so nothing overflows and cancellation stays far below
//! what a MiB of cache means.

/// Largest exponent a term may reach before the domain's base moves.
const REBASE: f64 = 16.0;

/// Absent threads' LLC data per domain (see the module doc).
#[derive(Clone, Debug, Default)]
pub(super) struct AwayLedger {
    /// Per domain: the base insertion count, and the sum of terms over it.
    domains: Vec<(f64, f64)>,
    /// Per thread: (domain, MiB left, insertions when it left) while absent.
    left: Vec<Option<(u32, f64, f64)>>,
    /// Lines in one domain's LLC.
    lines_cap: f64,
}

impl AwayLedger {
    /// A ledger for `threads` threads and `domains` LLC domains of `llc_mb` MiB.
    pub(super) fn new(threads: usize, domains: usize, llc_mb: f64) -> AwayLedger {
        AwayLedger {
            domains: vec![(0.0, 0.0); domains],
            left: vec![None; threads],
            lines_cap: llc_mb * 1024.0 * 1024.0 / 64.0,
        }
    }

    fn term(&self, d: usize, mb: f64, inserted: f64) -> f64 {
        mb * ((inserted - self.domains[d].0) / self.lines_cap).exp()
    }

    /// Thread `t` left `mb` MiB in domain `d` when it had seen `inserted` insertions.
    pub(super) fn leave(&mut self, t: u32, d: u32, mb: f64, inserted: f64) {
        self.back(t);
        let di = d as usize;
        if (inserted - self.domains[di].0) / self.lines_cap > REBASE {
            self.domains[di] = (inserted, 0.0);
            let members: Vec<(f64, f64)> =
                self.left.iter().flatten().filter(|e| e.0 == d).map(|&(_, m, i)| (m, i)).collect();
            self.domains[di].1 = members.iter().map(|&(m, i)| self.term(di, m, i)).sum();
        }
        self.domains[di].1 += self.term(di, mb, inserted);
        self.left[t as usize] = Some((d, mb, inserted));
    }

    /// Thread `t` runs again: what it left no longer counts as absent.
    pub(super) fn back(&mut self, t: u32) {
        if let Some((d, mb, inserted)) = self.left[t as usize].take() {
            let di = d as usize;
            let x = self.term(di, mb, inserted);
            self.domains[di].1 = (self.domains[di].1 - x).max(0.0);
        }
    }

    /// MiB the absent threads other than `t` still hold in domain `d` after `now` insertions there.
    pub(super) fn held(&self, d: u32, t: u32, now: f64) -> f64 {
        let di = d as usize;
        let own = match self.left[t as usize] {
            Some((dt, mb, inserted)) if dt == d => self.term(di, mb, inserted),
            _ => 0.0,
        };
        let (base, sum) = self.domains[di];
        ((sum - own).max(0.0) * (-(now - base) / self.lines_cap).exp()).max(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::AwayLedger;

    /// The ledger against the direct sum over absent threads, through many
    /// leaves and returns and several rebases.
    #[test]
    fn matches_the_direct_sum() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let (threads, llc_mb) = (12usize, 8.0);
        let cap = llc_mb * 1024.0 * 1024.0 / 64.0;
        let mut ledger = AwayLedger::new(threads, 2, llc_mb);
        let mut direct: Vec<Option<(u32, f64, f64)>> = vec![None; threads];
        let mut now = [0.0f64; 2];
        for _ in 0..20_000 {
            let t = rng.gen_range(0..threads) as u32;
            let d = rng.gen_range(0..2u32);
            now[d as usize] += rng.gen::<f64>() * cap * 0.05;
            if rng.gen_bool(0.5) {
                let mb = rng.gen::<f64>() * llc_mb;
                ledger.leave(t, d, mb, now[d as usize]);
                direct[t as usize] = Some((d, mb, now[d as usize]));
            } else {
                ledger.back(t);
                direct[t as usize] = None;
            }
            let q = rng.gen_range(0..threads) as u32;
            let want: f64 = direct
                .iter()
                .enumerate()
                .filter(|&(u, e)| u as u32 != q && e.is_some_and(|e| e.0 == d))
                .map(|(_, e)| {
                    let (_, mb, i) = e.unwrap();
                    mb * (-(now[d as usize] - i) / cap).exp()
                })
                .sum();
            let got = ledger.held(d, q, now[d as usize]);
            assert!((got - want).abs() <= 1e-9 * llc_mb, "{got} vs {want}");
        }
    }
}
