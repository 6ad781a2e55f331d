//! The contention re-solve of every unit whose running set changed (a
//! socket whole, or its LLC domains apart with their shared bus: design note
//! 57), and each runner's rate and step end from it.

use super::progress::COUNT_GROUPS_ABOVE;
use super::state::Engine;
use crate::contention::{latency_grid, DomainTraffic, Runner, DRIFT_TOL, OCCUPANCY_TOL};
use cosched_core::ids::{Nanos, ThreadId};
use cosched_core::Counters;

/// Rounds of domain solves and bus solve a socket's change may take before
/// its domains' rates are kept as they are (design note 57).
const BUS_PASSES: usize = 6;

impl Engine<'_, '_> {
    /// Re-solve every unit whose running set changed, and the machine's power.
    pub(super) fn solve_dirty(&mut self) {
        if self.decomposed {
            for s in 0..self.socket_units.len() {
                self.solve_domains(s);
            }
        } else {
            for u in 0..self.unit_dirty.len() {
                if self.unit_dirty[u] {
                    self.unit_dirty[u] = false;
                    self.solve_unit(u, None);
                }
            }
        }
        self.power_now = self.power.power(self.n_active_cores, self.unit_lines.iter().sum());
    }

    /// Re-solve the dirty LLC domains of socket `s` at the latency of its bus
    /// (on the grid), then its bus from their traffic; a domain whose rates
    /// assume a latency more than `DRIFT_TOL` away from the bus's is settled
    /// and solved again, until none is (at most `BUS_PASSES` rounds; design note 57).
    fn solve_domains(&mut self, s: usize) {
        if !self.socket_units[s].iter().any(|&u| self.unit_dirty[u as usize]) {
            return;
        }
        for pass in 0..BUS_PASSES {
            let at = latency_grid(self.socket_bus[s].latency_ns);
            for k in 0..self.socket_units[s].len() {
                let u = self.socket_units[s][k] as usize;
                if self.unit_dirty[u] {
                    self.unit_dirty[u] = false;
                    self.solve_unit(u, Some(at));
                }
            }
            let traffic = &self.unit_traffic;
            let bus = self.solver.solve_bus(self.socket_units[s].iter().map(|&u| traffic[u as usize]));
            self.socket_bus[s] = bus;
            if pass + 1 == BUS_PASSES {
                break;
            }
            let mut drifted = false;
            for k in 0..self.socket_units[s].len() {
                let u = self.socket_units[s][k] as usize;
                let was = self.unit_traffic[u].at_ns;
                if !self.unit_runners[u].is_empty() && (bus.latency_ns - was).abs() > DRIFT_TOL * was {
                    let solved = self.unit_solved_ns[u];
                    if (bus.latency_ns - solved).abs() > OCCUPANCY_TOL * solved {
                        // Its occupancy assumes a latency too far off: solved again.
                        self.settle_unit(u);
                        self.unit_dirty[u] = true;
                    } else {
                        self.rerate_unit(u, bus.latency_ns);
                    }
                    drifted = true;
                }
            }
            if !drifted {
                break;
            }
        }
    }

    /// Solve unit `u`: its whole socket (`at` None), or its LLC domain with
    /// every memory latency held at `at` ns; then its runners' rates, step ends
    /// and memory traffic.
    fn solve_unit(&mut self, u: usize, at: Option<f64>) {
        let s = self.unit_socket[u] as usize;
        // Counting costs more than the scan below a few dozen runners.
        let counted = self.unit_runners[u].len() > COUNT_GROUPS_ABOVE;
        if counted {
            self.count_groups(u);
        }
        self.runners_buf.clear();
        for &t in &self.unit_runners[u] {
            let th = &self.threads[t as usize];
            let c = self.d.ctx_of(ThreadId(t)).expect("a unit's runner runs");
            let info = self.topo.contexts[c.idx()];
            let (local, on_core) = self.exchange_shares_with(u, t, th.model, &info, counted);
            self.runners_buf.push(Runner {
                model: th.model,
                pipe: info.pipe,
                core: info.core,
                llc: info.llc,
                job: th.job,
                local,
                on_core,
            });
        }
        let mut rates = std::mem::take(&mut self.rates_buf);
        match at {
            None => self.socket_bus[s] = self.solver.solve_slot(u, &self.plan.models, &self.runners_buf, &mut rates),
            Some(l) => {
                self.unit_traffic[u] = self.solver.solve_domain(&self.plan.models, &self.runners_buf, l, &mut rates);
                self.unit_solved_ns[u] = l;
            }
        }
        let mut lines = 0.0;
        let mut first: Option<(Nanos, u64)> = None;
        for (i, &r) in rates.iter().enumerate() {
            let t = self.unit_runners[u][i];
            let on_core = self.runners_buf[i].on_core;
            let model = &self.plan.models[self.threads[t as usize].model as usize];
            let ips = r.ipc * self.f_hz;
            let miss = ips * r.mpki / 1000.0;
            let rate = Counters {
                instructions: ips,
                cycles: self.f_hz,
                llc_accesses: ips * (model.mrc.apki + model.comm_apki * (1.0 - on_core)) / 1000.0,
                llc_misses: miss,
                mem_reads: miss,
                mem_writes: miss * model.wb_ratio,
                l1_accesses: ips * model.l1_apki / 1000.0,
                l1_misses: ips * (model.l2_apki - model.comm_apki * on_core).max(0.0) / 1000.0,
            };
            lines += miss * (1.0 + model.wb_ratio);
            let th = &mut self.threads[t as usize];
            th.rate = rate;
            th.occupancy_mb = r.occupancy_mb;
            th.private_mb = r.private_mb;
            th.presence = r.presence;
            let end = self.step_end(t);
            if first.is_none_or(|f| end < f) {
                first = Some(end);
            }
        }
        self.queue.set_socket(u, first);
        self.rates_buf = rates;
        self.unit_lines[u] = lines;
    }

    /// Thread `t`'s step end at its rate now (a new insertion in time order).
    fn step_end(&mut self, t: u32) -> (Nanos, u64) {
        let th = &mut self.threads[t as usize];
        let ips = th.rate.instructions;
        if th.evicted_stall_s > 0.0 {
            th.debt_share = super::dispatch::refill_share(th.evicted_stall_s, ips);
        }
        let work = th.remaining / ips;
        let secs = th.stall_s + debt_time(work, th.debt_s, th.debt_share);
        let at = self.now + (secs * 1e9).ceil() as Nanos;
        self.seq += 1;
        th.step_end = (at, self.seq);
        th.step_end
    }

    /// Domain `u`'s runners at bus latency `l` ns instead of the one their
    /// rates were solved at, their LLC occupancy (and so their misses per
    /// instruction) held: each thread's IPC is 1/(b + c·L) in the solver, so
    /// b follows from its IPC at the old latency and c from its misses
    /// (design note 57). Settles them first; updates their step ends and the
    /// domain's traffic.
    fn rerate_unit(&mut self, u: usize, l: f64) {
        self.settle_unit(u);
        let was = self.unit_traffic[u].at_ns;
        let (mut rho, mut slope, mut lines) = (0.0, 0.0, 0.0);
        let mut first: Option<(Nanos, u64)> = None;
        for i in 0..self.unit_runners[u].len() {
            let t = self.unit_runners[u][i];
            let th = &self.threads[t as usize];
            let model = &self.plan.models[th.model as usize];
            let ips = th.rate.instructions;
            let mpki = if ips > 0.0 { th.rate.llc_misses / ips * 1000.0 } else { 0.0 };
            let (a, c) = self.solver.bus_terms(model, mpki);
            // Its IPC while it runs, before the presence factor stretches its time (design note 67).
            let p = th.presence;
            let ipc = ips / self.f_hz * p;
            let new_ipc = 1.0 / (1.0 / ipc - c * was + c * l);
            let mut rate = th.rate.scaled(new_ipc / ipc);
            rate.cycles = self.f_hz;
            rho += a * new_ipc;
            slope -= a * c * new_ipc * new_ipc;
            lines += rate.llc_misses * (1.0 + model.wb_ratio);
            self.threads[t as usize].rate = rate;
            let end = self.step_end(t);
            if first.is_none_or(|f| end < f) {
                first = Some(end);
            }
        }
        self.queue.set_socket(u, first);
        self.unit_lines[u] = lines;
        self.unit_traffic[u] = DomainTraffic { at_ns: l, rho, slope };
    }
}

/// Wall time to retire `work` seconds of execution while `debt` seconds of
/// refill are owed and a share `share` of the time goes to the debt while it
/// lasts: the work ends during the debt (at `work / (1 − share)`) or after it
/// (at `work + debt`). With `share` 0.5: `work + min(debt, work)`.
pub(super) fn debt_time(work: f64, debt: f64, share: f64) -> f64 {
    if work * share <= debt * (1.0 - share) {
        work / (1.0 - share)
    } else {
        work + debt
    }
}

#[cfg(test)]
mod group_count_tests {
    use crate::engine::{run, SimOptions};
    use crate::{presets, Plan};
    use cosched_policies::{self as policies, PolicyOptions};

    /// A socket of more than `COUNT_GROUPS_ABOVE` runners counts group
    /// members; in test builds every counted share is checked against the
    /// scan (`exchange_shares_with`), so this run fails if they ever differ.
    #[test]
    fn counted_group_shares_equal_the_scan_on_a_big_socket() {
        let mut m = cosched_machine::presets::machine("xeon-e5645").expect("preset");
        m.topology.sockets = 1;
        m.topology.cores_per_llc = 8;
        m.topology.llc_per_socket = 4;
        let contexts = m.n_contexts();
        assert!(contexts > super::COUNT_GROUPS_ABOVE, "the socket must be above the threshold");
        let w = presets::workload("canneal").expect("preset");
        let plan = Plan::new(&w, &m, Some(2 * contexts as u32), 1, "canneal").expect("plan");
        assert!(plan.n_groups > 0, "canneal's threads must share data in groups");
        let mut p = policies::make("cfs", &PolicyOptions::default()).expect("policy");
        let out = run(&m, &plan, &mut *p, &SimOptions::default(), None).expect("run");
        assert!(out.policy_events > 0);
    }
}

#[cfg(test)]
mod debt_tests {
    use super::debt_time;

    #[test]
    fn half_share_is_the_old_rule_and_the_two_branches_meet() {
        for (w, d) in [(1.0, 0.5), (0.5, 1.0), (2.0, 2.0), (0.0, 1.0), (1.0, 0.0)] {
            assert!((debt_time(w, d, 0.5) - (w + f64::min(d, w))).abs() < 1e-12, "{w} {d}");
        }
        // At the boundary work·σ = debt·(1 − σ) both branches give the same time.
        let (d, s): (f64, f64) = (0.3, 0.9);
        let w = d * (1.0 - s) / s;
        assert!((w / (1.0 - s) - (w + d)).abs() < 1e-12);
        assert!((debt_time(w, d, s) - (w + d)).abs() < 1e-12);
    }
}
