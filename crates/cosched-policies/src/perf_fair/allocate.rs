//! Process allocation (Perf&Fair §5.3, Algorithm 1 lines 21-25).

/// Place processes onto cores of `contexts_per_core` contexts: each
/// `reserved` process gets a core of its own; the others, sorted by L1
/// bandwidth ascending (`l1[i]` for process `others[i]`), are paired head
/// with tail (highest with lowest) on the remaining cores. Reading chosen:
/// when there are fewer processes than free contexts, only as many cores as
/// needed are doubled up and the middle of the list runs one per core (the
/// paper always has 24 processes for 12 contexts and does not say). With more
/// than two contexts per core the pairing repeats: head, tail, next head, ….
/// Returns, per core, the processes placed on it.
pub fn allocate(
    reserved: &[usize],
    others: &[(usize, f64)],
    cores: usize,
    contexts_per_core: usize,
) -> Vec<Vec<usize>> {
    let mut placed: Vec<Vec<usize>> = vec![vec![]; cores];
    let mut core = 0;
    for &p in reserved.iter().take(cores) {
        placed[core].push(p);
        core += 1;
    }
    let mut sorted: Vec<(usize, f64)> = others.to_vec();
    sorted.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
    let free_cores = cores - core;
    // How many processes must share a core beyond one each.
    let mut extra = sorted.len().saturating_sub(free_cores);
    let (mut lo, mut hi) = (0usize, sorted.len());
    while lo < hi && core < cores {
        placed[core].push(sorted[lo].0);
        lo += 1;
        let mut take_tail = true;
        while extra > 0 && placed[core].len() < contexts_per_core && lo < hi {
            if take_tail {
                hi -= 1;
                placed[core].push(sorted[hi].0);
            } else {
                placed[core].push(sorted[lo].0);
                lo += 1;
            }
            take_tail = !take_tail;
            extra -= 1;
        }
        core += 1;
    }
    placed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_the_highest_with_the_lowest_l1_bandwidth() {
        let others = [(10, 5.0), (11, 1.0), (12, 9.0), (13, 3.0)];
        let p = allocate(&[7], &others, 3, 2);
        assert_eq!(p[0], vec![7]);
        assert_eq!(p[1], vec![11, 12]); // lowest with highest
        assert_eq!(p[2], vec![13, 10]);
    }

    #[test]
    fn odd_counts_leave_a_context_free_and_overflow_is_dropped() {
        let p = allocate(&[], &[(0, 1.0), (1, 2.0), (2, 3.0)], 2, 2);
        assert_eq!(p, vec![vec![0, 2], vec![1]]);
        // Fewer processes than cores: one per core, nothing doubled up.
        let p = allocate(&[], &[(0, 1.0), (1, 2.0)], 3, 2);
        assert_eq!(p, vec![vec![0], vec![1], vec![]]);
        let p = allocate(&[0, 1, 2], &[], 2, 2);
        assert_eq!(p, vec![vec![0], vec![1]]);
    }
}
