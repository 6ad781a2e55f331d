//! The machine as a policy sees it: a tree of sharing domains
//! (socket → LLC domain → core → pipe → hardware context).

use crate::ids::CtxId;
use serde::Serialize;

/// Where one hardware context sits in the sharing tree. All indices are global.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ContextInfo {
    /// Execution pipe (shares issue slots; equal to `core` on machines without pipes).
    pub pipe: u32,
    /// Core (shares L1/L2 and L1 bandwidth).
    pub core: u32,
    /// Last-level-cache domain.
    pub llc: u32,
    /// Socket (shares the memory bus).
    pub socket: u32,
}

/// The hardware contexts of a machine and how they share resources.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Topology {
    /// One entry per hardware context; the index is the [`CtxId`].
    pub contexts: Vec<ContextInfo>,
    /// Number of pipes.
    pub n_pipes: u32,
    /// Number of cores.
    pub n_cores: u32,
    /// Number of LLC domains.
    pub n_llc: u32,
    /// Number of sockets.
    pub n_sockets: u32,
}

impl Topology {
    /// A regular tree: `sockets × llc_per_socket × cores_per_llc × pipes_per_core × contexts_per_pipe`.
    pub fn regular(
        sockets: u32,
        llc_per_socket: u32,
        cores_per_llc: u32,
        pipes_per_core: u32,
        contexts_per_pipe: u32,
    ) -> Topology {
        let mut contexts = Vec::new();
        let (mut pipe, mut core, mut llc) = (0, 0, 0);
        for socket in 0..sockets {
            for _ in 0..llc_per_socket {
                for _ in 0..cores_per_llc {
                    for _ in 0..pipes_per_core {
                        for _ in 0..contexts_per_pipe {
                            contexts.push(ContextInfo { pipe, core, llc, socket });
                        }
                        pipe += 1;
                    }
                    core += 1;
                }
                llc += 1;
            }
        }
        Topology { contexts, n_pipes: pipe, n_cores: core, n_llc: llc, n_sockets: sockets }
    }

    /// Number of hardware contexts.
    pub fn n_contexts(&self) -> usize {
        self.contexts.len()
    }

    /// Whether some core has more than one context (SMT; Perf&Fair §5.3 pairs on it).
    pub fn has_smt(&self) -> bool {
        let mut per_core = vec![0u32; self.n_cores as usize];
        self.contexts.iter().any(|c| {
            per_core[c.core as usize] += 1;
            per_core[c.core as usize] > 1
        })
    }

    /// The sharing position of a context.
    #[inline]
    pub fn ctx(&self, c: CtxId) -> &ContextInfo {
        &self.contexts[c.idx()]
    }

    /// All context ids.
    pub fn ctx_ids(&self) -> impl Iterator<Item = CtxId> + '_ {
        (0..self.contexts.len() as u32).map(CtxId)
    }

    /// Hardware contexts per core (SMT width × pipes).
    pub fn contexts_per_core(&self) -> usize {
        self.contexts.len() / self.n_cores.max(1) as usize
    }

    /// The contexts that share a core with `c` (including `c`).
    pub fn core_siblings(&self, c: CtxId) -> impl Iterator<Item = CtxId> + '_ {
        let core = self.ctx(c).core;
        self.ctx_ids().filter(move |&o| self.ctx(o).core == core)
    }
}

/// The first two contexts of `t` on different cores sharing an LLC: where a
/// job runs beside a co-runner (probing, characterising, and the simulated
/// co-runs a characterisation is fitted on).
pub fn corun_pair(t: &Topology) -> Option<(CtxId, CtxId)> {
    for a in t.ctx_ids() {
        for b in t.ctx_ids() {
            if a < b && t.ctx(a).llc == t.ctx(b).llc && t.ctx(a).core != t.ctx(b).core {
                return Some((a, b));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_tree_numbers_levels_globally() {
        let t = Topology::regular(2, 1, 2, 2, 4);
        assert_eq!(t.n_contexts(), 32);
        assert_eq!(t.n_cores, 4);
        assert_eq!(t.n_pipes, 8);
        assert_eq!(t.ctx(CtxId(31)).socket, 1);
        assert_eq!(t.ctx(CtxId(31)).core, 3);
        assert_eq!(t.ctx(CtxId(4)).pipe, 1);
        assert_eq!(t.contexts_per_core(), 8);
        assert_eq!(t.core_siblings(CtxId(9)).count(), 8);
    }
}
