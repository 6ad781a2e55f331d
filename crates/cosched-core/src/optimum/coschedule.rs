//! The static co-schedules of `n` threads on a machine, up to its symmetry.
//!
//! A static co-schedule puts each thread on its own hardware context for the
//! whole run (the statistical thread assignment paper's "assignment", §3, and
//! the co-schedules of Jiang et al., PACT 2008). On a regular machine
//! (`sockets × llc_per_socket × cores_per_llc × pipes_per_core ×
//! contexts_per_pipe`, identical siblings at every level) two assignments that
//! differ by a permutation of sibling sockets, LLC domains, cores, pipes or
//! contexts place every thread beside the same co-runners at every level, so
//! they are the same co-schedule. [`Tree::count`] counts the distinct ones and
//! [`Tree::for_each`] visits one assignment of each; [`Tree::canonical`] is the
//! brute-force oracle both are tested against.
//!
//! With [`Tree::with_slots`] a context holds up to that many threads, which
//! take turns on it (a time-shared static partition; the threads of one
//! context are interchangeable), and contexts may stay idle: the family the
//! bound beside every comparison searches (`cosched_lab::optimum`).

/// Levels below the machine: socket, LLC domain, core, pipe, context.
pub const LEVELS: usize = 5;

/// A regular sharing tree: the fan-out of each level (sockets, LLC domains per
/// socket, cores per LLC, pipes per core, contexts per pipe).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tree {
    /// Children per node, from the machine down to the contexts of a pipe.
    pub fanout: [u32; LEVELS],
    /// Threads a context may hold (1: a static co-schedule, each thread on a
    /// context of its own; more: time-shared partitions).
    pub slots: u32,
}

impl Tree {
    /// The tree of these fan-outs (each at least 1).
    pub fn new(fanout: [u32; LEVELS]) -> Tree {
        Tree { fanout: fanout.map(|f| f.max(1)), slots: 1 }
    }

    /// The tree of these fan-outs whose contexts hold up to `slots` threads each
    /// (at least 1), taking turns: the time-shared static partitions, idle
    /// contexts allowed.
    pub fn with_slots(fanout: [u32; LEVELS], slots: u32) -> Tree {
        Tree { slots: slots.max(1), ..Tree::new(fanout) }
    }

    /// Threads one node of `level` can hold: its contexts times [`Tree::slots`].
    fn room(&self, level: usize) -> usize {
        self.capacity(level) * self.slots as usize
    }

    /// Contexts under one node of `level` (0 = the machine, [`LEVELS`] = one context).
    pub fn capacity(&self, level: usize) -> usize {
        self.fanout[level.min(LEVELS)..].iter().map(|&f| f as usize).product()
    }

    /// Hardware contexts of the machine.
    pub fn contexts(&self) -> usize {
        self.capacity(0)
    }

    /// The deepest level whose nodes hold exactly two contexts (SMT siblings,
    /// two cores of an LLC, ...): where co-runners come in pairs (Jiang et al.'s
    /// setting). `None` when no level does.
    pub fn pair_level(&self) -> Option<usize> {
        (1..LEVELS).rev().find(|&l| self.capacity(l) == 2)
    }

    /// The deepest level whose nodes share 2 to [`super::grouping::MAX_GROUP`]
    /// contexts: where co-runners come in groups (pairs on an SMT machine,
    /// a socket's cores on the X5550). `None` when no level does.
    pub fn group_level(&self) -> Option<usize> {
        (1..LEVELS).rev().find(|&l| (2..=super::grouping::MAX_GROUP).contains(&self.capacity(l)))
    }

    /// The nodes of `level` in an order that spreads over the machine: each
    /// next node is as far as possible from the previous ones (index digits
    /// read innermost first), so filling the first k nodes uses k different
    /// sockets while it can, then LLC domains, and so on.
    pub fn spread_order(&self, level: usize) -> Vec<usize> {
        let radix = &self.fanout[..level.min(LEVELS)];
        let nodes: usize = radix.iter().map(|&r| r as usize).product();
        let innermost_first = |mut i: usize| -> Vec<usize> {
            let mut d = Vec::with_capacity(radix.len());
            for &r in radix.iter().rev() {
                d.push(i % r as usize);
                i /= r as usize;
            }
            d
        };
        let mut order: Vec<usize> = (0..nodes).collect();
        order.sort_by_key(|&i| innermost_first(i));
        order
    }

    /// Number of distinct static co-schedules of `n` threads (saturating at `u128::MAX`;
    /// 0 when `n` exceeds the contexts times [`Tree::slots`]).
    pub fn count(&self, n: usize) -> u128 {
        if n > self.room(0) {
            return 0;
        }
        // ways[l][k]: distinct arrangements of k labelled threads under one node of level l
        // (one context: one way for up to `slots` threads, its threads being interchangeable).
        let mut ways = vec![vec![0u128; n + 1]; LEVELS + 1];
        for w in ways[LEVELS].iter_mut().take(n.min(self.slots as usize) + 1) {
            *w = 1;
        }
        let binom = binomials(n);
        for l in (0..LEVELS).rev() {
            let f = self.fanout[l] as usize;
            // p[b][k]: k labelled threads into at most b unordered non-empty blocks,
            // each weighted by the child's arrangements (the block holding the
            // smallest thread is chosen first).
            let mut p = vec![vec![0u128; n + 1]; f + 1];
            for row in p.iter_mut() {
                row[0] = 1;
            }
            for b in 1..=f {
                for k in 1..=n {
                    let mut s = 0u128;
                    for size in 1..=k {
                        let w = ways[l + 1][size];
                        if w == 0 {
                            continue;
                        }
                        let t = binom[k - 1][size - 1].saturating_mul(w).saturating_mul(p[b - 1][k - size]);
                        s = s.saturating_add(t);
                    }
                    p[b][k] = s;
                }
            }
            ways[l] = p[f].clone();
        }
        ways[0][n]
    }

    /// Visit one assignment (thread → context index) of each distinct static
    /// co-schedule of `n` threads, until `visit` returns false. Returns false
    /// when stopped early. Contexts are numbered as `Topology::regular` numbers them.
    pub fn for_each(&self, n: usize, visit: &mut dyn FnMut(&[u32]) -> bool) -> bool {
        if n > self.room(0) {
            return true;
        }
        let threads: Vec<u32> = (0..n as u32).collect();
        let mut out = vec![0u32; n];
        self.place(0, 0, &threads, &mut out, &mut |a: &mut [u32]| visit(a))
    }

    fn place(
        &self,
        level: usize,
        base: u32,
        threads: &[u32],
        out: &mut [u32],
        k: &mut dyn FnMut(&mut [u32]) -> bool,
    ) -> bool {
        if level == LEVELS {
            for &t in threads {
                out[t as usize] = base;
            }
            return k(out);
        }
        let (f, cap, step) = (self.fanout[level] as usize, self.room(level + 1), self.capacity(level + 1));
        let mut blocks: Vec<Vec<u32>> = Vec::new();
        partitions(threads, 0, f, cap, &mut blocks, &mut |blocks: &[Vec<u32>]| {
            self.place_blocks(level + 1, base, step as u32, blocks, out, k)
        })
    }

    fn place_blocks(
        &self,
        level: usize,
        base: u32,
        step: u32,
        blocks: &[Vec<u32>],
        out: &mut [u32],
        k: &mut dyn FnMut(&mut [u32]) -> bool,
    ) -> bool {
        match blocks.split_first() {
            None => k(out),
            Some((b, rest)) => self.place(level, base, b, out, &mut |out: &mut [u32]| {
                self.place_blocks(level, base + step, step, rest, out, k)
            }),
        }
    }

    /// A key equal for two assignments exactly when they are the same
    /// co-schedule (sibling subtrees sorted at every level): the oracle of
    /// [`Tree::count`] and [`Tree::for_each`].
    pub fn canonical(&self, assignment: &[u32]) -> String {
        let mut at: Vec<Vec<usize>> = vec![vec![]; self.contexts()];
        for (t, &c) in assignment.iter().enumerate() {
            at[c as usize].push(t);
        }
        self.key(0, 0, &at)
    }

    fn key(&self, level: usize, base: usize, at: &[Vec<usize>]) -> String {
        if level == LEVELS {
            let here = &at[base];
            if here.is_empty() {
                return "-".into();
            }
            return here.iter().map(|t| t.to_string()).collect::<Vec<_>>().join("+");
        }
        let cap = self.capacity(level + 1);
        let mut kids: Vec<String> =
            (0..self.fanout[level] as usize).map(|i| self.key(level + 1, base + i * cap, at)).collect();
        kids.sort();
        format!("({})", kids.join(","))
    }
}

/// Set partitions of `threads[i..]` added to `blocks` (restricted growth:
/// blocks ordered by their first thread), at most `f` blocks of at most `cap`.
fn partitions(
    threads: &[u32],
    i: usize,
    f: usize,
    cap: usize,
    blocks: &mut Vec<Vec<u32>>,
    k: &mut dyn FnMut(&[Vec<u32>]) -> bool,
) -> bool {
    if i == threads.len() {
        return k(blocks);
    }
    for b in 0..blocks.len() {
        if blocks[b].len() < cap {
            blocks[b].push(threads[i]);
            let go = partitions(threads, i + 1, f, cap, blocks, k);
            blocks[b].pop();
            if !go {
                return false;
            }
        }
    }
    if blocks.len() < f {
        blocks.push(vec![threads[i]]);
        let go = partitions(threads, i + 1, f, cap, blocks, k);
        blocks.pop();
        if !go {
            return false;
        }
    }
    true
}

/// Pascal's triangle up to `n` (saturating).
fn binomials(n: usize) -> Vec<Vec<u128>> {
    let mut c = vec![vec![0u128; n + 1]; n + 1];
    for i in 0..=n {
        c[i][0] = 1;
        for j in 1..=i {
            c[i][j] = c[i - 1][j - 1].saturating_add(c[i - 1][j]);
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn enumeration_and_count_equal_brute_force_on_small_trees() {
        let trees = [
            [1, 1, 4, 1, 1], // i5-2500: four cores, one LLC
            [1, 1, 3, 1, 2], // three SMT cores
            [2, 1, 2, 1, 2], // two sockets of two SMT cores
            [1, 2, 2, 1, 1], // two LLCs of two cores
            [1, 1, 2, 2, 2], // T2-like: pipes of strands
            [2, 2, 1, 1, 2],
        ];
        for f in trees {
            let t = Tree::new(f);
            for n in 0..=t.contexts().min(6) {
                let want = brute_slots(&t, n); // one slot: the injective assignments
                let mut seen = BTreeSet::new();
                let mut visits = 0;
                t.for_each(n, &mut |a| {
                    // Injective and within the machine.
                    let distinct: BTreeSet<u32> = a.iter().copied().collect();
                    assert_eq!(distinct.len(), n, "{f:?} n={n}: {a:?}");
                    assert!(a.iter().all(|&c| (c as usize) < t.contexts()));
                    seen.insert(t.canonical(a));
                    visits += 1;
                    true
                });
                assert_eq!(visits, seen.len(), "{f:?} n={n}: a co-schedule visited twice");
                assert_eq!(seen, want, "{f:?} n={n}");
                assert_eq!(t.count(n), want.len() as u128, "{f:?} n={n}");
            }
        }
    }

    /// Every assignment of `n` threads with at most `t.slots` per context, canonicalised: the
    /// brute-force set (with one slot, every injective assignment).
    fn brute_slots(t: &Tree, n: usize) -> BTreeSet<String> {
        fn go(t: &Tree, n: usize, cur: &mut Vec<u32>, used: &mut Vec<u32>, out: &mut BTreeSet<String>) {
            if cur.len() == n {
                out.insert(t.canonical(cur));
                return;
            }
            for c in 0..used.len() {
                if used[c] < t.slots {
                    used[c] += 1;
                    cur.push(c as u32);
                    go(t, n, cur, used, out);
                    cur.pop();
                    used[c] -= 1;
                }
            }
        }
        let mut out = BTreeSet::new();
        go(t, n, &mut vec![], &mut vec![0; t.contexts()], &mut out);
        out
    }

    #[test]
    fn time_shared_partitions_equal_brute_force_on_small_trees() {
        for (f, slots) in [
            ([1, 1, 4, 1, 1], 4), // i5-2500, four copies: any number per core
            ([1, 1, 3, 1, 2], 2),
            ([2, 1, 2, 1, 1], 3),
            ([1, 2, 2, 1, 1], 2),
            ([1, 1, 2, 2, 2], 2),
        ] {
            let t = Tree::with_slots(f, slots);
            for n in 0..=(t.contexts() * slots as usize).min(6) {
                let want = brute_slots(&t, n);
                let mut seen = BTreeSet::new();
                let mut visits = 0;
                t.for_each(n, &mut |a| {
                    let mut per = vec![0u32; t.contexts()];
                    for &c in a {
                        per[c as usize] += 1;
                    }
                    assert!(per.iter().all(|&k| k <= slots), "{f:?}/{slots} n={n}: {a:?}");
                    seen.insert(t.canonical(a));
                    visits += 1;
                    true
                });
                assert_eq!(visits, seen.len(), "{f:?}/{slots} n={n}: a partition visited twice");
                assert_eq!(seen, want, "{f:?}/{slots} n={n}");
                assert_eq!(t.count(n), want.len() as u128, "{f:?}/{slots} n={n}");
            }
        }
        // Four threads on the i5-2500's four cores, any number per core: the set partitions of
        // four labelled threads, Bell(4) = 15; one of them (one thread per core) is the only
        // static co-schedule.
        assert_eq!(Tree::with_slots([1, 1, 4, 1, 1], 4).count(4), 15);
        assert_eq!(Tree::new([1, 1, 4, 1, 1]).count(4), 1);
    }

    #[test]
    fn counts_of_the_papers_machines_follow_closed_forms() {
        // Twelve jobs on the E5645's six SMT cores (one LLC): the pairings, 11!! = 10,395.
        assert_eq!(Tree::new([1, 1, 6, 1, 2]).count(12), 10_395);
        // Four jobs on the i5-2500's four cores (one LLC): one co-schedule.
        assert_eq!(Tree::new([1, 1, 4, 1, 1]).count(4), 1);
        // Too many threads: none.
        assert_eq!(Tree::new([1, 1, 2, 1, 1]).count(3), 0);
        // 64 threads on the T2's 64 strands: astronomically many, and no overflow panic.
        assert!(Tree::new([1, 1, 8, 2, 4]).count(64) > 1_000_000_000_000);
    }

    #[test]
    fn stopping_early_stops() {
        let t = Tree::new([1, 1, 6, 1, 2]);
        let mut n = 0;
        assert!(!t.for_each(12, &mut |_| {
            n += 1;
            n < 10
        }));
        assert_eq!(n, 10);
    }

    #[test]
    fn pair_level_and_spread_order() {
        assert_eq!(Tree::new([1, 1, 6, 1, 2]).pair_level(), Some(4)); // a pipe of two contexts (= the core)
        assert_eq!(Tree::new([1, 1, 2, 1, 1]).pair_level(), Some(2)); // two cores of one LLC
        assert_eq!(Tree::new([1, 1, 8, 2, 4]).pair_level(), None); // T2: four strands a pipe
        assert_eq!(Tree::new([1, 1, 4, 1, 1]).pair_level(), None);
        // Two sockets of two cores: the first two nodes are on different sockets.
        let t = Tree::new([2, 1, 2, 1, 2]);
        let order = t.spread_order(t.pair_level().unwrap());
        assert_eq!(order, vec![0, 2, 1, 3]);
    }
}
