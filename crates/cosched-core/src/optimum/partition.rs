//! The static partition of least predicted makespan on two-context sharing
//! domains, idle contexts allowed: every instance pinned to one context, a
//! context's instances taking turns, any context idle — the family of the
//! simulator's bound (`Instance::bound`), searched here from what a real
//! host's profile gives, each job's time alone and its slowdown beside each
//! other job (Jiang et al., PACT 2008, §3's pair costs, extended from one
//! instance per context to time-shared contexts).
//!
//! The prediction, per domain of contexts `c₁`, `c₂` holding instance sets
//! `A` and `B`: `c₁` has `W₁ = Σ_A solo` seconds of solo work, slowed by the
//! mean slowdown of `A` beside `B` weighted by both sides' solo shares
//! (`r₁`; 1 beside an idle context), and likewise `c₂`. Both run until the
//! first finishes, `t* = min(W₁r₁, W₂r₂)`; the other's remaining work then
//! runs alone. The domain takes `t*` plus that remainder; the makespan is
//! the longest domain. What it leaves out: anything shared between domains
//! (the LLC across SMT cores, the memory bus), and the cost of taking turns
//! (cache refill after each switch). A backend measures the partition it
//! picks; the prediction only chooses it.

use super::SearchError;

/// The chosen partition.
#[derive(Clone, Debug, PartialEq)]
pub struct PartitionPlacement {
    /// The context of every instance.
    pub assignment: Vec<u32>,
    /// Its predicted makespan (the unit of the solo times).
    pub makespan: f64,
    /// Partitions evaluated (distinct up to swapping domains and a domain's two contexts).
    pub candidates: u64,
}

/// Predicted time of one domain whose contexts hold instances `a` and `b`
/// (`solo[i]`: instance `i`'s time alone; `slow(i, j)`: `i`'s slowdown beside `j`).
pub fn domain_time(a: &[usize], b: &[usize], solo: &[f64], slow: &dyn Fn(usize, usize) -> f64) -> f64 {
    let work = |s: &[usize]| s.iter().map(|&i| solo[i]).sum::<f64>();
    let (w1, w2) = (work(a), work(b));
    if w1 == 0.0 || w2 == 0.0 {
        return w1 + w2;
    }
    // Mean slowdown of `x`'s work beside `y`, each pair weighted by both solo shares.
    let rate = |x: &[usize], y: &[usize], wx: f64, wy: f64| {
        x.iter().map(|&i| y.iter().map(|&j| solo[i] * solo[j] * slow(i, j)).sum::<f64>()).sum::<f64>() / (wx * wy)
    };
    let (r1, r2) = (rate(a, b, w1, w2), rate(b, a, w2, w1));
    let (t1, t2) = (w1 * r1, w2 * r2);
    if t1 <= t2 {
        t1 + (w2 - t1 / r2)
    } else {
        t2 + (w1 - t2 / r1)
    }
}

/// Predicted makespan of `assignment` (the context of every instance) on `domains`.
pub fn predicted_makespan(
    assignment: &[u32],
    solo: &[f64],
    slow: &dyn Fn(usize, usize) -> f64,
    domains: &[[u32; 2]],
) -> f64 {
    let on = |c: u32| -> Vec<usize> { (0..assignment.len()).filter(|&i| assignment[i] == c).collect() };
    domains.iter().map(|d| domain_time(&on(d[0]), &on(d[1]), solo, slow)).fold(0.0, f64::max)
}

/// The partition of least predicted makespan of `solo.len()` instances on
/// `domains`, searched exhaustively up to swapping domains and a domain's
/// two contexts (the prediction is blind to both); ties go to the first
/// found. Refused beyond `budget` evaluated partitions, or on a cost that is
/// not finite and positive.
pub fn best_partition(
    solo: &[f64],
    slowdown: &[f64],
    domains: &[[u32; 2]],
    budget: u64,
) -> Result<PartitionPlacement, SearchError> {
    let k = solo.len();
    if slowdown.len() != k * k {
        return Err(SearchError::Slowdowns { got: slowdown.len(), instances: k, want: k * k });
    }
    if let Some(bad) = solo.iter().chain(slowdown).find(|x| !(x.is_finite() && **x > 0.0)) {
        return Err(SearchError::NotPositive(*bad));
    }
    if domains.is_empty() || k == 0 {
        return Err(SearchError::Empty);
    }
    let slow = |i: usize, j: usize| slowdown[i * k + j];
    // The prediction is blind to which domain is which: search on domains numbered 2d, 2d + 1.
    let canonical: Vec<[u32; 2]> = (0..domains.len() as u32).map(|d| [2 * d, 2 * d + 1]).collect();
    let mut search = Search { solo, slow: &slow, domains: &canonical, budget, best: None, candidates: 0, side: vec![] };
    search.place(0, 0)?;
    let (makespan, side) = search.best.expect("one partition at least");
    // Canonical (domain rank, side) to the context ids.
    let assignment = side.iter().map(|&(d, s)| domains[d][s]).collect();
    Ok(PartitionPlacement { assignment, makespan, candidates: search.candidates })
}

struct Search<'a> {
    solo: &'a [f64],
    slow: &'a dyn Fn(usize, usize) -> f64,
    domains: &'a [[u32; 2]],
    budget: u64,
    best: Option<(f64, Vec<(usize, usize)>)>,
    candidates: u64,
    /// (domain rank, side) of each instance placed so far.
    side: Vec<(usize, usize)>,
}

impl Search<'_> {
    /// Place instance `i` with `open` domains in use: on either side of an open domain (its
    /// second side only once its first holds an instance, which it does from its opening), or
    /// on the first side of the next domain.
    fn place(&mut self, i: usize, open: usize) -> Result<(), SearchError> {
        if i == self.solo.len() {
            self.candidates += 1;
            if self.candidates > self.budget {
                return Err(SearchError::Partitions {
                    budget: self.budget,
                    instances: self.solo.len(),
                    domains: self.domains.len(),
                });
            }
            let assignment: Vec<u32> = self.side.iter().map(|&(d, s)| (2 * d + s) as u32).collect();
            let t = predicted_makespan(&assignment, self.solo, self.slow, self.domains);
            if self.best.as_ref().is_none_or(|b| t < b.0) {
                self.best = Some((t, self.side.clone()));
            }
            return Ok(());
        }
        for d in 0..open {
            for s in 0..2 {
                self.side.push((d, s));
                self.place(i + 1, open)?;
                self.side.pop();
            }
        }
        if open < self.domains.len() {
            self.side.push((open, 0));
            self.place(i + 1, open + 1)?;
            self.side.pop();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn brute(solo: &[f64], slowdown: &[f64], domains: &[[u32; 2]]) -> f64 {
        let k = solo.len();
        let c = 2 * domains.len();
        let slow = |i: usize, j: usize| slowdown[i * k + j];
        let mut best = f64::INFINITY;
        for code in 0..c.pow(k as u32) {
            let a: Vec<u32> = (0..k).map(|i| ((code / c.pow(i as u32)) % c) as u32).collect();
            let ids: Vec<u32> = domains.iter().flatten().copied().collect();
            let a: Vec<u32> = a.iter().map(|&x| ids[x as usize]).collect();
            best = best.min(predicted_makespan(&a, solo, &slow, domains));
        }
        best
    }

    /// The canonical search finds the brute-force best over every assignment (no symmetry
    /// used) on 200 seeded instances, and its assignment predicts what it says.
    #[test]
    fn the_search_finds_the_brute_force_best() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for _ in 0..200 {
            let k = rng.gen_range(1..=5);
            let n = rng.gen_range(1..=3);
            let domains: Vec<[u32; 2]> = (0..n as u32).map(|d| [2 * d + 1, 2 * d]).collect();
            let solo: Vec<f64> = (0..k).map(|_| rng.gen_range(0.5..3.0)).collect();
            let slowdown: Vec<f64> = (0..k * k).map(|_| rng.gen_range(1.0..3.5)).collect();
            let p = best_partition(&solo, &slowdown, &domains, 1_000_000).unwrap();
            let slow = |i: usize, j: usize| slowdown[i * k + j];
            let again = predicted_makespan(&p.assignment, &solo, &slow, &domains);
            assert!((again - p.makespan).abs() < 1e-12);
            assert!((p.makespan - brute(&solo, &slowdown, &domains)).abs() < 1e-12, "{k} on {n}");
        }
    }

    /// Closed forms: co-running at no cost takes the longer solo time; at a slowdown of 3 each
    /// way, taking turns on one context (the other idle, 2 s) beats co-running (3 s).
    #[test]
    fn a_context_is_left_idle_when_co_running_costs_more_than_taking_turns() {
        let d = [[0, 1]];
        let free = best_partition(&[1.0, 2.0], &[1.0, 1.0, 1.0, 1.0], &d, 100).unwrap();
        assert_eq!((free.makespan, free.assignment.clone()), (2.0, vec![0, 1]));
        let costly = best_partition(&[1.0, 1.0], &[3.0, 3.0, 3.0, 3.0], &d, 100).unwrap();
        assert_eq!((costly.makespan, costly.assignment), (2.0, vec![0, 0]));
        // One finishes first, the other runs on alone: 1 s at 1.5× (0.667 s of work), then 1.333 s alone.
        let t = domain_time(&[0], &[1], &[1.0, 2.0], &|_, _| 1.5);
        assert!((t - (1.5 + (2.0 - 1.0))).abs() < 1e-12, "{t}");
        // Three instances, two domains: the candidates are counted up to symmetry.
        let p = best_partition(&[1.0; 3], &[1.0; 9], &[[0, 1], [2, 3]], 1000).unwrap();
        // The second instance beside the first's domain (2 ways) then 3 places, or on its own domain then 4.
        assert_eq!(p.candidates, 2 * 3 + 4);
    }

    #[test]
    fn refusals_name_what_is_wrong() {
        let d = [[0, 1]];
        assert!(best_partition(&[1.0], &[1.0, 1.0], &d, 10).unwrap_err().to_string().contains("2 slowdowns"));
        assert!(best_partition(&[1.0], &[f64::NAN], &d, 10).unwrap_err().to_string().contains("finite"));
        let e = best_partition(&[1.0; 6], &[1.0; 36], &[[0, 1], [2, 3]], 10).unwrap_err().to_string();
        assert!(e.contains("more than 10 static partitions"), "{e}");
    }
}
