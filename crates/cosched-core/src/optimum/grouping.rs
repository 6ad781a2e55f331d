//! The minimum-cost grouping of jobs onto sharing domains of more than two
//! contexts. Jiang et al. (PACT 2008, §3) solve pairs
//! exactly as a minimum-weight perfect matching ([`super::matching`]); for
//! groups of three or more they show the problem NP-complete, and their TPDS
//! 2011 version formulates it as an integer program. For the small sizes a
//! simulator can afford to measure (every group's co-run cost), this module
//! solves it exactly by dynamic programming over subsets: `f(k, S)` is the
//! least cost of covering the jobs in `S` with `k` groups, each group built
//! around the lowest job not yet covered, so every partition is reached once.
//! [`brute_force_groups`] (every assignment of jobs to domains) is its oracle.

use super::SearchError;

/// Most jobs the exact search takes (its table has `2^n` entries per group count).
pub const MAX_JOBS: usize = 16;
/// Largest sharing domain (contexts per group) it takes.
pub const MAX_GROUP: usize = 8;
/// Most jobs [`brute_force_groups`] takes (it visits `domains^n` assignments).
pub const MAX_BRUTE_FORCE: usize = 8;

fn check(n: usize, size: usize, domains: usize, cost: &[f64], max_n: usize) -> Result<(), SearchError> {
    if n > max_n {
        return Err(SearchError::GroupingJobs { jobs: n, limit: max_n });
    }
    if size == 0 || size > MAX_GROUP {
        return Err(SearchError::GroupSize { size, max: MAX_GROUP });
    }
    if n > size * domains {
        return Err(SearchError::GroupsDoNotFit { jobs: n, domains, size });
    }
    if cost.len() != 1 << n {
        return Err(SearchError::GroupCosts { got: cost.len(), jobs: n, want: 1u64 << n });
    }
    if let Some(bad) = (1..cost.len()).find(|&m| (m as u32).count_ones() as usize <= size && !cost[m].is_finite()) {
        return Err(SearchError::GroupCost { group: bad, cost: cost[bad] });
    }
    Ok(())
}

/// Co-runs a grouping measures: every member of every group of 2 to `size`
/// of `jobs` jobs, `Σ_k k·C(jobs, k)` (saturating).
pub fn corun_count(jobs: usize, size: usize) -> u128 {
    let mut c: u128 = 1; // C(jobs, k), built up
    let mut total: u128 = 0;
    for k in 1..=size.min(jobs) {
        c = c.saturating_mul((jobs + 1 - k) as u128) / k as u128;
        if k >= 2 {
            total = total.saturating_add(c.saturating_mul(k as u128));
        }
    }
    total
}

/// The jobs of a subset mask, ascending.
pub fn members(mask: usize) -> Vec<usize> {
    (0..usize::BITS as usize).filter(|&b| mask >> b & 1 == 1).collect()
}

/// The partition of jobs `0..n` into at most `domains` groups of at most
/// `size` jobs with the least total cost, where `cost[mask]` is the cost of
/// the group whose members are the set bits of `mask` (read only for masks
/// of at most `size` jobs). Returns the groups (as masks, in the order the
/// search built them: each around the lowest job left) and their total cost.
pub fn min_cost_groups(n: usize, size: usize, domains: usize, cost: &[f64]) -> Result<(Vec<usize>, f64), SearchError> {
    check(n, size, domains, cost, MAX_JOBS)?;
    let full = (1usize << n) - 1;
    let states = 1usize << n;
    let k_max = domains.min(n);
    // best[k][mask]: least cost of covering `mask` with k groups; from[k][mask]: the last group added.
    let mut best = vec![vec![f64::INFINITY; states]; k_max + 1];
    let mut from = vec![vec![0usize; states]; k_max + 1];
    best[0][0] = 0.0;
    for k in 0..k_max {
        for mask in 0..states {
            let here = best[k][mask];
            if !here.is_finite() || mask == full {
                continue;
            }
            let rest = full & !mask;
            let low = rest & rest.wrapping_neg();
            let others: Vec<usize> = members(rest & !low).into_iter().map(|b| 1 << b).collect();
            let mut visit = |group: usize| {
                let v = here + cost[group];
                if v < best[k + 1][mask | group] {
                    best[k + 1][mask | group] = v;
                    from[k + 1][mask | group] = group;
                }
            };
            extend(low, 0, size - 1, &others, &mut visit);
        }
    }
    let (k, total) = (1..=k_max)
        .map(|k| (k, best[k][full]))
        .filter(|p| p.1.is_finite())
        .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)))
        .ok_or(SearchError::NoGrouping)?;
    let mut groups = vec![];
    let (mut mask, mut k) = (full, k);
    while mask != 0 {
        let g = from[k][mask];
        groups.push(g);
        mask &= !g;
        k -= 1;
    }
    groups.reverse();
    Ok((groups, total))
}

/// Visit `group` and every group made by adding up to `more` of `others[start..]` to it.
fn extend(group: usize, start: usize, more: usize, others: &[usize], visit: &mut dyn FnMut(usize)) {
    visit(group);
    if more == 0 {
        return;
    }
    for i in start..others.len() {
        extend(group | others[i], i + 1, more - 1, others, visit);
    }
}

/// The oracle: every assignment of jobs to `domains` domains of at most `size` each, the cheapest kept.
pub fn brute_force_groups(n: usize, size: usize, domains: usize, cost: &[f64]) -> Result<f64, SearchError> {
    check(n, size, domains, cost, MAX_BRUTE_FORCE)?;
    let mut best = f64::INFINITY;
    let mut of = vec![0usize; domains];
    fn walk(i: usize, n: usize, size: usize, of: &mut [usize], cost: &[f64], best: &mut f64) {
        if i == n {
            let total: f64 = of.iter().filter(|&&m| m != 0).map(|&m| cost[m]).sum();
            *best = best.min(total);
            return;
        }
        for d in 0..of.len() {
            if (of[d].count_ones() as usize) < size {
                of[d] |= 1 << i;
                walk(i + 1, n, size, of, cost, best);
                of[d] &= !(1 << i);
            }
        }
    }
    walk(0, n, size, &mut of, cost, &mut best);
    Ok(best)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::optimum::matching::{min_cost_pairs, pairing_cost};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// A random cost per subset: 0 alone, and for a group the sum of random
    /// pairwise interferences plus a random extra for the whole group (not pairwise).
    fn random_costs(n: usize, rng: &mut ChaCha8Rng) -> Vec<f64> {
        let pair: Vec<f64> = (0..n * n).map(|_| rng.gen_range(0.0..1.0)).collect();
        (0..1usize << n)
            .map(|m| {
                let js = members(m);
                if js.len() < 2 {
                    return 0.0;
                }
                let p: f64 = js
                    .iter()
                    .flat_map(|&i| js.iter().map(move |&j| (i, j)))
                    .filter(|(i, j)| i < j)
                    .map(|(i, j)| pair[i * n + j])
                    .sum();
                p + rng.gen_range(0.0..0.5) * (js.len() as f64 - 1.0)
            })
            .collect()
    }

    #[test]
    fn the_exact_search_equals_brute_force_on_hundreds_of_random_instances() {
        let mut rng = ChaCha8Rng::seed_from_u64(33);
        for case in 0..300 {
            let size = rng.gen_range(1..=4);
            let domains = rng.gen_range(1..=4);
            let n = rng.gen_range(1..=(size * domains).min(MAX_BRUTE_FORCE));
            let cost = random_costs(n, &mut rng);
            let (groups, total) = min_cost_groups(n, size, domains, &cost).unwrap();
            let oracle = brute_force_groups(n, size, domains, &cost).unwrap();
            assert!((total - oracle).abs() < 1e-9, "case {case}: {total} vs {oracle}");
            // The groups are a partition within the limits, and cost what was claimed.
            assert!(groups.len() <= domains && groups.iter().all(|&g| (g.count_ones() as usize) <= size));
            assert_eq!(
                groups.iter().fold(0, |a, &g| {
                    assert_eq!(a & g, 0);
                    a | g
                }),
                (1 << n) - 1
            );
            assert!((groups.iter().map(|&g| cost[g]).sum::<f64>() - total).abs() < 1e-9);
        }
    }

    #[test]
    fn for_pairs_it_agrees_with_the_matching() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for _ in 0..100 {
            let n = 2 * rng.gen_range(1..=6);
            let pc: Vec<f64> = (0..n * n).map(|_| rng.gen_range(0.0..2.0)).collect();
            let sym: Vec<f64> =
                (0..n * n).map(|k| if k / n == k % n { 0.0 } else { pc[k] + pc[(k % n) * n + k / n] }).collect();
            let cost: Vec<f64> = (0..1usize << n)
                .map(|m| match members(m)[..] {
                    [i, j] => sym[i * n + j],
                    _ => 0.0,
                })
                .collect();
            let (_, total) = min_cost_groups(n, 2, n / 2, &cost).unwrap();
            let pairs = min_cost_pairs(&sym, n).unwrap();
            assert!((total - pairing_cost(&sym, n, &pairs)).abs() < 1e-6);
        }
    }

    #[test]
    fn corun_count_is_every_member_of_every_group() {
        for (jobs, size) in [(8, 4), (12, 2), (16, 4), (3, 8)] {
            let brute: usize = (1usize..1 << jobs)
                .filter(|m| (2..=size).contains(&(m.count_ones() as usize)))
                .map(|m| m.count_ones() as usize)
                .sum();
            assert_eq!(corun_count(jobs, size), brute as u128, "{jobs} jobs, groups of {size}");
        }
    }

    #[test]
    fn inputs_outside_its_limits_are_refused_in_one_line() {
        let e = min_cost_groups(17, 4, 5, &[]).unwrap_err().to_string();
        assert!(e.contains("17 jobs exceed") && !e.contains('\n'), "{e}");
        assert!(min_cost_groups(5, 2, 2, &vec![0.0; 32]).unwrap_err().to_string().contains("do not fit"));
        let mut c = vec![0.0; 8];
        c[3] = f64::NAN;
        assert!(min_cost_groups(3, 2, 2, &c).unwrap_err().to_string().contains("not a finite number"));
    }
}
