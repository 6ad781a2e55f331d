//! The two-context sharing domains of a described machine, in the order a
//! co-schedule fills them: where Jiang et al.'s pairwise co-scheduling (PACT
//! 2008, §3) applies on a host read from sysfs, whose context numbering need
//! not follow the sharing tree (SMT siblings are often `k` and `k + N`).

use super::SearchError;
use crate::topology::{ContextInfo, Topology};
use std::collections::BTreeMap;

/// The node of a context at one sharing level.
type NodeOf = fn(&ContextInfo) -> u32;

/// The sharing levels from the deepest, with the key of a context's node.
const LEVELS: [(&str, NodeOf); 4] =
    [("pipe", |c| c.pipe), ("core", |c| c.core), ("LLC", |c| c.llc), ("socket", |c| c.socket)];

/// The contexts of every node of the deepest level of `t` whose nodes all
/// hold exactly two contexts (SMT siblings, or two cores sharing a cache),
/// with that level's name, ordered to spread: the first domain of every LLC
/// on every socket before any second one, sockets innermost (the same order
/// as [`super::Tree::spread_order`] on a regular machine). `Err` says why
/// no level pairs contexts.
pub fn pair_domains(t: &Topology) -> Result<(&'static str, Vec<[u32; 2]>), SearchError> {
    for (name, key) in LEVELS {
        let mut nodes: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
        for (i, c) in t.contexts.iter().enumerate() {
            nodes.entry(key(c)).or_default().push(i as u32);
        }
        if nodes.is_empty() || nodes.values().any(|v| v.len() != 2) {
            continue;
        }
        let mut domains: Vec<[u32; 2]> = nodes.into_values().map(|v| [v[0], v[1]]).collect();
        // Rank of each domain among those of its LLC, and of its LLC among those of its socket.
        let rank = |d: &[u32; 2], within: NodeOf, node: NodeOf, all: &[[u32; 2]]| {
            let me = &t.contexts[d[0] as usize];
            let mut peers: Vec<u32> =
                all.iter().map(|o| &t.contexts[o[0] as usize]).filter(|o| within(o) == within(me)).map(node).collect();
            peers.sort_unstable();
            peers.dedup();
            peers.iter().position(|&n| n == node(me)).unwrap_or(0)
        };
        let all = domains.clone();
        domains.sort_by_key(|d| {
            let c = &t.contexts[d[0] as usize];
            (rank(d, |c| c.llc, key, &all), rank(d, |c| c.socket, |c| c.llc, &all), c.socket, d[0])
        });
        return Ok((name, domains));
    }
    Err(SearchError::NoPairLevel { contexts: t.n_contexts(), cores: t.n_cores, llcs: t.n_llc, sockets: t.n_sockets })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::optimum::Tree;

    #[test]
    fn on_a_regular_machine_the_domains_and_their_order_are_the_trees() {
        for shape in
            [[1, 1, 2, 1, 1], [1, 1, 4, 1, 2], [2, 1, 2, 1, 1], [2, 2, 2, 1, 1], [2, 2, 3, 1, 2], [4, 1, 2, 1, 1]]
        {
            let t = Topology::regular(shape[0], shape[1], shape[2], shape[3], shape[4]);
            let tree = Tree::new(shape);
            let level = tree.pair_level().unwrap();
            let want: Vec<[u32; 2]> =
                tree.spread_order(level).iter().map(|&d| [2 * d as u32, 2 * d as u32 + 1]).collect();
            let (_, got) = pair_domains(&t).unwrap();
            assert_eq!(got, want, "{shape:?}");
        }
    }

    #[test]
    fn siblings_numbered_apart_are_found_and_a_machine_without_pairs_is_refused() {
        // Two SMT cores whose siblings are contexts k and k + 2, as Linux numbers them.
        let mut t = Topology::regular(1, 1, 2, 1, 2);
        t.contexts.swap(1, 2);
        let (level, d) = pair_domains(&t).unwrap();
        assert_eq!((level, d), ("pipe", vec![[0, 2], [1, 3]]));
        let e = pair_domains(&Topology::regular(1, 1, 3, 1, 1)).unwrap_err().to_string();
        assert!(e.contains("3 contexts, 3 cores"), "{e}");
    }
}
