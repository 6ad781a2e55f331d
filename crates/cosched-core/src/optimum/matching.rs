//! Minimum-cost perfect pairing (Jiang et al., PACT 2008, §3: with two jobs
//! per shared-cache domain, the co-schedule minimising the summed co-run
//! degradation is a minimum-weight perfect matching on the degradation graph,
//! solvable in polynomial time by Edmonds' blossom algorithm).
//!
//! The solver is the `integer-blossom` crate (O(V³) primal-dual blossom on a
//! dense matrix, no dependencies, checked against a brute-force oracle by its
//! author): well kept, small, and it takes exactly the dense symmetric cost
//! matrix a pairwise co-run study produces. It wants integer costs, so ours are
//! shifted to start at 0 and scaled so that the largest is [`SCALE`]: two
//! pairings are ordered correctly unless their costs differ by less than
//! `n/2 · range / SCALE` (10⁻¹⁰ of the range at 200 vertices). [`brute_force_pairs`]
//! is the independent oracle the tests hold it to.

use super::SearchError;

/// Largest integer cost handed to the solver (the range maps onto 0..=SCALE).
pub const SCALE: f64 = 1e12;

/// Most vertices [`min_cost_pairs`] takes (its O(n²) matrix and O(n³) time stay small).
pub const MAX_VERTICES: usize = 4096;

/// Most vertices [`brute_force_pairs`] enumerates ((n−1)!! pairings: 2,027,025 at 16).
pub const MAX_BRUTE_FORCE: usize = 16;

fn check(cost: &[f64], n: usize, max: usize) -> Result<(), SearchError> {
    if !n.is_multiple_of(2) {
        return Err(SearchError::OddVertices(n));
    }
    if n > max {
        return Err(SearchError::Vertices { n, max });
    }
    if cost.len() != n * n {
        return Err(SearchError::CostMatrix { got: cost.len(), n, want: n * n });
    }
    if let Some(k) = (0..n * n).find(|&k| k / n < k % n && !cost[k].is_finite()) {
        return Err(SearchError::PairCost { i: k / n, j: k % n, cost: cost[k] });
    }
    Ok(())
}

/// Sum of `cost[i][j]` (upper triangle, `i < j`) over the pairs.
pub fn pairing_cost(cost: &[f64], n: usize, pairs: &[(usize, usize)]) -> f64 {
    pairs.iter().map(|&(i, j)| cost[i.min(j) * n + i.max(j)]).sum()
}

/// The minimum-cost perfect pairing of `n` vertices (n even) under the
/// symmetric cost `cost[i * n + j]` (only `i < j` is read), as pairs `(i, j)`
/// with `i < j`, sorted by `i`.
pub fn min_cost_pairs(cost: &[f64], n: usize) -> Result<Vec<(usize, usize)>, SearchError> {
    check(cost, n, MAX_VERTICES)?;
    if n == 0 {
        return Ok(vec![]);
    }
    let upper = (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j)));
    let (lo, hi) = upper.clone().fold((f64::MAX, f64::MIN), |(lo, hi), (i, j)| {
        let c = cost[i * n + j];
        (lo.min(c), hi.max(c))
    });
    let unit = if hi > lo { SCALE / (hi - lo) } else { 0.0 };
    let mut w = vec![0i64; n * n];
    for (i, j) in upper {
        w[i * n + j] = ((cost[i * n + j] - lo) * unit).round() as i64;
    }
    let mate = integer_blossom::min_weight_perfect_matching(&w, n);
    Ok((0..n).filter(|&i| i < mate[i]).map(|i| (i, mate[i])).collect())
}

/// A minimum-cost pairing of jobs placed on two-context domains.
#[derive(Clone, Debug, PartialEq)]
pub struct PairPlacement {
    /// Job pairs (job, partner; `None` = an idle context), real pairs first.
    pub pairs: Vec<(usize, Option<usize>)>,
    /// The context of every job.
    pub assignment: Vec<u32>,
    /// Summed pairwise cost of the pairing (the quantity it minimises).
    pub pair_cost: f64,
}

/// Jiang et al.'s pairwise co-schedule (PACT 2008, §3) of `jobs` jobs, one
/// context each, on `domains` (the two contexts of every two-context sharing
/// domain, in the order they are filled): the pair cost is the summed
/// degradation `degradation[i * jobs + j] + degradation[j * jobs + i]`
/// (job i's co-run/solo − 1 beside j), a job beside an idle context costs 0,
/// the minimum-cost perfect pairing ([`min_cost_pairs`]) is placed real
/// pairs first, then lone jobs, on the domains in order.
pub fn place_pairs(degradation: &[f64], jobs: usize, domains: &[[u32; 2]]) -> Result<PairPlacement, SearchError> {
    if degradation.len() != jobs * jobs {
        return Err(SearchError::Degradations { got: degradation.len(), jobs, want: jobs * jobs });
    }
    if jobs > 2 * domains.len() {
        return Err(SearchError::PairsDoNotFit { jobs, domains: domains.len() });
    }
    let n = 2 * domains.len(); // jobs plus idle partners
    let mut cost = vec![0.0; n * n];
    for i in 0..jobs {
        for j in i + 1..jobs {
            let c = degradation[i * jobs + j] + degradation[j * jobs + i];
            cost[i * n + j] = c;
            cost[j * n + i] = c;
        }
    }
    let matched = min_cost_pairs(&cost, n)?;
    let mut pairs: Vec<(usize, Option<usize>)> =
        matched.iter().filter(|&&(i, _)| i < jobs).map(|&(i, j)| (i, (j < jobs).then_some(j))).collect();
    pairs.sort_by_key(|&(i, j)| (j.is_none(), i));
    let mut assignment = vec![0u32; jobs];
    for (&(i, j), d) in pairs.iter().zip(domains) {
        assignment[i] = d[0];
        if let Some(j) = j {
            assignment[j] = d[1];
        }
    }
    let pair_cost = pairs.iter().map(|&(i, j)| j.map_or(0.0, |j| cost[i * n + j])).sum();
    Ok(PairPlacement { pairs, assignment, pair_cost })
}

/// Every perfect pairing enumerated, the cheapest kept (ties: the first in
/// enumeration order): the test oracle of [`min_cost_pairs`], up to
/// [`MAX_BRUTE_FORCE`] vertices.
pub fn brute_force_pairs(cost: &[f64], n: usize) -> Result<(Vec<(usize, usize)>, f64), SearchError> {
    check(cost, n, MAX_BRUTE_FORCE)?;
    fn go(
        cost: &[f64],
        n: usize,
        free: &[usize],
        cur: &mut Vec<(usize, usize)>,
        sum: f64,
        best: &mut (Vec<(usize, usize)>, f64),
    ) {
        let Some(&i) = free.first() else {
            if sum < best.1 {
                *best = (cur.clone(), sum);
            }
            return;
        };
        for k in 1..free.len() {
            let j = free[k];
            let rest: Vec<usize> = free.iter().copied().filter(|&x| x != i && x != j).collect();
            cur.push((i, j));
            go(cost, n, &rest, cur, sum + cost[i * n + j], best);
            cur.pop();
        }
    }
    let mut best = (vec![], f64::INFINITY);
    if n == 0 {
        return Ok((vec![], 0.0));
    }
    go(cost, n, &(0..n).collect::<Vec<_>>(), &mut vec![], 0.0, &mut best);
    Ok(best)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn random_costs(n: usize, rng: &mut ChaCha8Rng, ties: bool) -> Vec<f64> {
        let mut c = vec![0.0; n * n];
        for i in 0..n {
            for j in i + 1..n {
                let v = if ties { rng.gen_range(0..4) as f64 } else { rng.gen_range(-1.0..3.0) };
                c[i * n + j] = v;
                c[j * n + i] = v;
            }
        }
        c
    }

    #[test]
    fn placed_pairs_cost_the_brute_force_minimum_and_lone_jobs_sit_beside_idle_contexts() {
        let mut rng = ChaCha8Rng::seed_from_u64(34);
        for case in 0..200 {
            let domains = rng.gen_range(1..=5);
            let jobs = rng.gen_range(1..=2 * domains);
            let deg: Vec<f64> = (0..jobs * jobs).map(|_| rng.gen_range(0.0..1.5)).collect();
            let doms: Vec<[u32; 2]> = (0..domains as u32).rev().map(|d| [2 * d + 1, 2 * d]).collect();
            let p = place_pairs(&deg, jobs, &doms).unwrap();
            // The oracle: every pairing of the jobs and idle partners.
            let n = 2 * domains;
            let mut c = vec![0.0; n * n];
            for i in 0..jobs {
                for j in 0..jobs {
                    if i != j {
                        c[i * n + j] = deg[i * jobs + j] + deg[j * jobs + i];
                    }
                }
            }
            let (_, best) = brute_force_pairs(&c, n).unwrap();
            assert!((p.pair_cost - best).abs() < 1e-9, "case {case}: {} vs {best}", p.pair_cost);
            // Domains filled in the order given, each job on its own context.
            let mut used: Vec<u32> = p.assignment.clone();
            used.sort_unstable();
            used.dedup();
            assert_eq!(used.len(), jobs, "case {case}");
            for (k, &(i, j)) in p.pairs.iter().enumerate() {
                assert_eq!(p.assignment[i], doms[k][0]);
                assert_eq!(j.map(|j| p.assignment[j]), j.map(|_| doms[k][1]));
            }
        }
        assert!(place_pairs(&[0.0; 9], 3, &[[0, 1]]).unwrap_err().to_string().contains("3 jobs do not fit 1"));
    }

    #[test]
    fn blossom_matches_brute_force_on_hundreds_of_random_instances() {
        let mut rng = ChaCha8Rng::seed_from_u64(33);
        let mut checked = 0;
        for case in 0..400 {
            let n = 2 * rng.gen_range(1..=6); // 2..12 vertices
            let c = random_costs(n, &mut rng, case % 3 == 0);
            let fast = min_cost_pairs(&c, n).unwrap();
            let (_, best) = brute_force_pairs(&c, n).unwrap();
            // A perfect pairing: every vertex exactly once.
            let mut seen = vec![false; n];
            for &(i, j) in &fast {
                assert!(i < j && !seen[i] && !seen[j], "case {case}: {fast:?}");
                seen[i] = true;
                seen[j] = true;
            }
            assert!(seen.iter().all(|&s| s), "case {case}: not perfect {fast:?}");
            let got = pairing_cost(&c, n, &fast);
            assert!((got - best).abs() < 1e-9, "case {case}: blossom {got} vs brute force {best}");
            checked += 1;
        }
        assert_eq!(checked, 400);
    }

    #[test]
    fn bad_matrices_are_refused_with_the_reason() {
        assert!(min_cost_pairs(&[0.0; 9], 3).unwrap_err().to_string().contains("even"));
        assert!(min_cost_pairs(&[0.0; 3], 2).unwrap_err().to_string().contains("4 expected"));
        assert!(min_cost_pairs(&[0.0, f64::NAN, 0.0, 0.0], 2).unwrap_err().to_string().contains("finite"));
        assert!(brute_force_pairs(&vec![0.0; 18 * 18], 18).unwrap_err().to_string().contains("at most 16"));
        assert_eq!(min_cost_pairs(&[], 0).unwrap(), vec![]);
    }

    #[test]
    fn equal_costs_still_give_a_perfect_pairing() {
        let n = 8;
        let p = min_cost_pairs(&vec![1.0; n * n], n).unwrap();
        assert_eq!(p.len(), n / 2);
    }
}
