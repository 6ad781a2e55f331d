//! LLC occupancy in one socket's solve: capacity shared in proportion to
//! insertion (miss) rates, each tenant capped at its footprint (water-filling);
//! a job's shared data is one tenant fed by all its threads in the domain
//! (`workload-sources.md` §3, "Occupancy ∝ insertion rate").

use super::{Rates, Runner, Solver, Tenant};
use crate::model::PhaseModel;

impl Solver {
    pub(super) fn occupancy(&mut self, models: &[PhaseModel], runners: &[Runner], out: &[Rates], step: f64) {
        let n = runners.len();
        self.tenants.clear();
        // Private tenants at 0..n, one shared tenant per (LLC domain, job) after them.
        for (i, r) in runners.iter().enumerate() {
            let m = &models[r.model as usize];
            let total = m.private_mb + m.shared_mb;
            let share_priv = if total > 0.0 { m.private_mb / total } else { 1.0 };
            let misses = out[i].ipc * out[i].mpki + 1e-9;
            self.tenants.push(Tenant {
                llc: r.llc,
                job: r.job,
                weight: misses * share_priv,
                cap: m.private_mb,
                alloc: 0.0,
                fixed: false,
            });
        }
        for (i, r) in runners.iter().enumerate() {
            let m = &models[r.model as usize];
            if m.shared_mb <= 0.0 {
                continue;
            }
            let share_shared = m.shared_mb / (m.private_mb + m.shared_mb);
            let w = (out[i].ipc * out[i].mpki + 1e-9) * share_shared;
            match self.tenants[n..].iter_mut().find(|t| t.llc == r.llc && t.job == r.job) {
                Some(t) => {
                    t.weight += w;
                    t.cap = t.cap.max(m.shared_mb);
                }
                None => self.tenants.push(Tenant {
                    llc: r.llc,
                    job: r.job,
                    weight: w,
                    cap: m.shared_mb,
                    alloc: 0.0,
                    fixed: false,
                }),
            }
        }
        waterfill(&mut self.tenants, self.llc_mb);
        for (i, r) in runners.iter().enumerate() {
            let shared = self.tenants[n..].iter().find(|t| t.llc == r.llc && t.job == r.job).map_or(0.0, |t| t.alloc);
            let target = self.tenants[i].alloc + shared;
            self.s_eff[i] += step * (target - self.s_eff[i]);
        }
    }
}

/// Share each LLC domain's capacity among its tenants in proportion to their
/// weights, capping each at its footprint and handing the surplus on.
fn waterfill(tenants: &mut [Tenant], capacity: f64) {
    let mut next_domain = tenants.iter().map(|t| t.llc).min();
    while let Some(d) = next_domain {
        let mut rem = capacity;
        loop {
            let (mut wsum, mut nfree) = (0.0, 0usize);
            for t in tenants.iter().filter(|t| t.llc == d && !t.fixed) {
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
            for t in tenants.iter_mut().filter(|t| t.llc == d && !t.fixed) {
                if share(t) >= t.cap {
                    t.alloc = t.cap;
                    t.fixed = true;
                    capped = true;
                }
            }
            if capped {
                rem = capacity - tenants.iter().filter(|t| t.llc == d && t.fixed).map(|t| t.alloc).sum::<f64>();
                continue;
            }
            for t in tenants.iter_mut().filter(|t| t.llc == d && !t.fixed) {
                t.alloc = share(t);
                t.fixed = true;
            }
            break;
        }
        next_domain = tenants.iter().map(|t| t.llc).filter(|&l| l > d).min();
    }
}
