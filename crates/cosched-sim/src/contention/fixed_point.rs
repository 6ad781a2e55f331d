//! The fresh solve of one socket in canonical form: SMT/pipe sharing, LLC
//! occupancy by water-filling, exchange between threads and the memory bus,
//! iterated to their fixed point (see the module above for the model).

use super::*;

impl Solver {
    /// A socket's fresh solve from a cold start. With `fixed`, every runner's
    /// memory latency is held at that many ns
    /// instead of solved from the bus (one LLC domain of a socket whose bus
    /// the domains share: `domain.rs`).
    pub(super) fn solve_fresh_at(
        &mut self,
        models: &[PhaseModel],
        runners: &[Runner],
        out: &mut Vec<Rates>,
        fixed: Option<f64>,
    ) -> BusState {
        let n = runners.len();
        out.clear();
        out.resize(n, Rates::default());
        if n == 0 {
            return BusState { latency_ns: self.lat.idle_ns(), utilisation: 0.0 };
        }
        self.smt_factors(models, runners);
        // Cold start: each thread holds what fits of its footprint (the
        // solution must not depend on what ran before).
        self.s_eff.clear();
        for r in runners {
            let m = &models[r.model as usize];
            self.s_eff.push(self.llc_mb.min(m.mrc.footprint_mb));
        }
        self.a.resize(n, 0.0);
        self.c.resize(n, 0.0);
        self.mrc_at.clear();
        self.mrc_at.resize(n, f64::NAN);
        self.mrc_mpki.clear();
        self.mrc_mpki.resize(n, 0.0);
        self.l.clear();
        self.l.resize(n, self.lat.idle_ns());
        self.own.clear();
        self.own.resize(n, 0.0);
        self.mlp.clear();
        self.mlp.extend(runners.iter().map(|r| models[r.model as usize].mlp));
        self.stretch = 1.0;
        let mut bus = BusState::default();
        let mut prev_ipc = std::mem::take(&mut self.prev_ipc);
        // The step taken towards the water-filled occupancy: whole at first,
        // then rescaled from how the last two steps relate (a secant estimate
        // of the map's slope J along them: the step that would land on the
        // fixed point of a linear map, 1/(1 − J)), within [MIN_RELAX, MAX_RELAX].
        let mut relax = 1.0;
        self.occ_prev.clear();
        for iter in 0..MAX_ITERS {
            for (i, r) in runners.iter().enumerate() {
                let m = &models[r.model as usize];
                // The miss curve is a power law (one `powf`); a runner whose
                // occupancy did not move since the last iteration (a capped
                // tenant, or one converged) reuses its value.
                if self.s_eff[i].to_bits() != self.mrc_at[i].to_bits() {
                    self.mrc_at[i] = self.s_eff[i];
                    self.mrc_mpki[i] = m.mrc.mpki(self.s_eff[i]);
                }
                let mpki = self.mrc_mpki[i] + m.comm_apki * (1.0 - r.local);
                out[i].mpki = mpki;
                (self.a[i], self.c[i]) = self.bus_terms(m, mpki);
            }
            // Row conflicts stretch each line's service: the same traffic is a
            // higher utilisation, and queueing at a utilisation takes longer.
            self.stretch = 1.0 + self.row_conflicts(models, runners);
            if self.stretch > 1.0 {
                let s = self.stretch;
                self.a.iter_mut().for_each(|a| *a *= s);
            }
            bus = match fixed {
                Some(l) => {
                    self.l.iter_mut().for_each(|x| *x = l);
                    BusState { latency_ns: l, utilisation: 0.0 }
                }
                None => self.solve_latency(bus.latency_ns),
            };
            let mut moved = 0.0f64;
            for i in 0..n {
                let ipc = 1.0 / (self.b[i] + self.c[i] * self.l[i]);
                if iter > 0 {
                    moved = moved.max((ipc - prev_ipc[i]).abs() / ipc);
                }
                out[i].ipc = ipc;
                self.own[i] = self.a[i] * ipc;
            }
            if iter > 0 && moved < TOL {
                break;
            }
            prev_ipc.clear();
            prev_ipc.extend(out.iter().map(|o| o.ipc));
            self.occupancy_step(models, runners, out);
            if !self.occ_prev.is_empty() {
                let (mut dot, mut norm) = (0.0, 0.0);
                for (d, p) in self.occ_step.iter().zip(&self.occ_prev) {
                    dot += d * p;
                    norm += p * p;
                }
                if norm > 0.0 {
                    relax = (relax / (1.0 - dot / norm)).clamp(MIN_RELAX, MAX_RELAX);
                    if !relax.is_finite() {
                        relax = MIN_RELAX;
                    }
                }
            }
            for (s, d) in self.s_eff.iter_mut().zip(&self.occ_step) {
                *s += relax * d;
            }
            std::mem::swap(&mut self.occ_prev, &mut self.occ_step);
        }
        self.prev_ipc = prev_ipc;
        for (i, r) in runners.iter().enumerate() {
            out[i].occupancy_mb = self.s_eff[i];
            // Another busy core stretches its time by its presence factor (design note 67): its
            // memory behaviour while it runs, and so the bus and the LLC it shares, are as solved.
            out[i].presence = self.pres[i];
            out[i].ipc /= self.pres[i];
            let m = &models[r.model as usize];
            let total = m.private_mb + m.shared_mb;
            out[i].private_mb =
                if total > 0.0 { (self.s_eff[i] * m.private_mb / total).min(m.private_mb) } else { 0.0 };
        }
        bus
    }

    pub(super) fn smt_factors(&mut self, models: &[PhaseModel], runners: &[Runner]) {
        self.b.clear();
        // Another core busy (design note 67): with runners on two cores or more, every runner
        // has one on a core not its own (its SMT siblings are the pipe model's, below).
        let others = runners.first().is_some_and(|f| runners.iter().any(|r| r.core != f.core));
        self.pres.clear();
        self.pres.extend(runners.iter().map(|r| if others { models[r.model as usize].presence } else { 1.0 }));
        let pen = self.smt_penalty;
        // Per-pipe and per-core sums in one pass over the runners (in runner
        // order, so each sum adds the same terms in the same order as a scan
        // of the runners sharing the pipe or core would): threads per pipe,
        // the pipe's issue demand, the core's L1 demand.
        let by = &mut self.by_unit;
        for r in runners {
            let m = &models[r.model as usize];
            let p = &mut by[r.pipe as usize];
            p.threads += 1;
            p.issue += m.ipc_alone;
            by[r.core as usize].l1_u += m.l1_rate_alone() / self.l1_bw;
        }
        self.s_pipe.clear();
        self.s_pipe.extend(runners.iter().map(|r| 1.0 + pen * (by[r.pipe as usize].threads as f64 - 1.0)));
        for (r, &s) in runners.iter().zip(&self.s_pipe) {
            by[r.core as usize].l1_pen += models[r.model as usize].l1_rate_alone() / s / self.l1_bw;
        }
        for (i, ri) in runners.iter().enumerate() {
            let mi = &models[ri.model as usize];
            let s_pipe = self.s_pipe[i];
            let (issue, l1_u, l1_pen) =
                (by[ri.pipe as usize].issue, by[ri.core as usize].l1_u, by[ri.core as usize].l1_pen);
            let own = mi.l1_rate_alone() / self.l1_bw;
            let issue_u = issue / (self.issue_width * s_pipe);
            let l1 = (1.0 + self.l1_contention * (l1_u * l1_u - own * own)).max(l1_pen);
            let b = mi.cpi_core * s_pipe * issue_u.max(1.0) * l1.max(1.0);
            // Exchange with partners on this core hits in the L1: the LLC hit
            // latency it paid alone (partners beside it in the LLC) is saved,
            // overlapped as its misses are (MLP), at most MAX_EXCHANGE_SAVING of b.
            let save = mi.comm_apki / 1000.0 * self.exchange_hit_cycles * ri.on_core / mi.mlp;
            self.b.push(b - save.min(MAX_EXCHANGE_SAVING * b));
        }
        for r in runners {
            by[r.pipe as usize] = UnitSums::default();
            by[r.core as usize] = UnitSums::default();
        }
    }
}
