//! LLC occupancy in one socket's solve: capacity shared in proportion to
//! insertion (miss) rates, each tenant capped at its footprint (water-filling);
//! a job's shared data is one tenant fed by all its threads in the domain
//! (`workload-sources.md` §3, "Occupancy ∝ insertion rate").

use super::{Rates, Runner, Solver, Tenant};
use crate::model::PhaseModel;

impl Solver {
    /// Each runner's step towards the occupancy its current miss rates earn
    /// (the water-filled share, less what it holds now), into `self.occ_step`.
    pub(super) fn occupancy_step(&mut self, models: &[PhaseModel], runners: &[Runner], out: &[Rates]) {
        let n = runners.len();
        self.occ_step.resize(n, 0.0);
        self.tenants.clear();
        // Private tenants at 0..n, one shared tenant per (LLC domain, job) after them.
        for (i, r) in runners.iter().enumerate() {
            let m = &models[r.model as usize];
            let total = m.private_mb + m.shared_mb;
            let share_priv = if total > 0.0 { m.private_mb / total } else { 1.0 };
            let misses = out[i].ipc * out[i].mpki + 1e-9;
            self.tenants.push(Tenant {
                llc: r.llc,
                weight: misses * share_priv,
                cap: m.private_mb,
                alloc: 0.0,
                fixed: false,
            });
        }
        // One shared tenant per (LLC domain, job), in the order its first thread comes.
        self.shared_of.clear();
        self.shared_at.clear();
        for (i, r) in runners.iter().enumerate() {
            let m = &models[r.model as usize];
            if m.shared_mb <= 0.0 {
                self.shared_of.push(usize::MAX);
                continue;
            }
            let share_shared = m.shared_mb / (m.private_mb + m.shared_mb);
            let w = (out[i].ipc * out[i].mpki + 1e-9) * share_shared;
            let next = self.tenants.len();
            let k = *self.shared_at.entry((r.llc, r.job)).or_insert(next);
            if k == next {
                self.tenants.push(Tenant { llc: r.llc, weight: w, cap: m.shared_mb, alloc: 0.0, fixed: false });
            } else {
                let t = &mut self.tenants[k];
                t.weight += w;
                t.cap = t.cap.max(m.shared_mb);
            }
            self.shared_of.push(k);
        }
        waterfill(&mut self.tenants, &mut self.by_domain, self.llc_mb);
        for (i, r) in runners.iter().enumerate() {
            // A thread without shared data of its own still reads its job's
            // shared tenant in the domain (another thread's phase may have one).
            let k = match self.shared_of[i] {
                usize::MAX if self.shared_at.is_empty() => None,
                usize::MAX => self.shared_at.get(&(r.llc, r.job)).copied(),
                k => Some(k),
            };
            let shared = k.map_or(0.0, |k| self.tenants[k].alloc);
            let target = self.tenants[i].alloc + shared;
            self.occ_step[i] = target - self.s_eff[i];
        }
    }
}

/// Share each LLC domain's capacity among its tenants in proportion to their
/// weights, capping each at its footprint and handing the surplus on. The
/// domains are taken in increasing order and each domain's tenants in their
/// order (`by_domain` is scratch space for that grouping), so every sum adds
/// the same terms in the same order whatever the other domains hold.
fn waterfill(tenants: &mut [Tenant], by_domain: &mut Vec<usize>, capacity: f64) {
    by_domain.clear();
    by_domain.extend(0..tenants.len());
    if tenants.windows(2).any(|w| w[0].llc != w[1].llc) {
        by_domain.sort_by_key(|&k| tenants[k].llc); // stable
    }
    let mut start = 0;
    while start < by_domain.len() {
        let d = tenants[by_domain[start]].llc;
        let len = by_domain[start..].iter().take_while(|&&k| tenants[k].llc == d).count();
        let group = &by_domain[start..start + len];
        start += len;
        let mut rem = capacity;
        loop {
            let (mut wsum, mut nfree) = (0.0, 0usize);
            for t in group.iter().map(|&k| &tenants[k]).filter(|t| !t.fixed) {
                wsum += t.weight;
                nfree += 1;
            }
            if nfree == 0 {
                break;
            }
            let share = |t: &Tenant| {
                if wsum > 0.0 {
                    rem * t.weight / wsum
                } else {
                    rem / nfree as f64
                }
            };
            let mut capped = false;
            for &k in group {
                let t = &mut tenants[k];
                if !t.fixed && share(t) >= t.cap {
                    t.alloc = t.cap;
                    t.fixed = true;
                    capped = true;
                }
            }
            if capped {
                rem = capacity - group.iter().map(|&k| &tenants[k]).filter(|t| t.fixed).map(|t| t.alloc).sum::<f64>();
                continue;
            }
            for &k in group {
                let t = &mut tenants[k];
                if !t.fixed {
                    t.alloc = share(t);
                    t.fixed = true;
                }
            }
            break;
        }
    }
}
