//! A socket's LLC domains solved apart (design note 57): the domains of one
//! socket share nothing but the memory bus, so each is solved with every
//! thread's memory latency held at the bus's (rounded to a grid), and the
//! bus is solved from each domain's traffic, linear in the latency around the
//! latency it was solved at. A domain is solved again when its running set
//! changes or when the bus's latency has moved more than [`DRIFT_TOL`] from
//! the one its rates assume: the stated tolerance on the bus coupling. Exact
//! only up to that tolerance; a socket of one domain is solved whole
//! (`Solver::solve_slot`), exactly as before.

use super::{BusState, PhaseModel, Rates, Runner, Solver};

/// Relative step of the latency grid a domain is solved on: a domain's
/// solution is cached by its co-schedule and its grid latency.
pub const LATENCY_GRID: f64 = 1e-3;

/// Largest relative distance between the bus's latency and the latency a
/// domain's rates were solved at before the domain is solved again.
pub const DRIFT_TOL: f64 = 5e-3;

/// Largest relative distance between the bus's latency and the latency a
/// domain's LLC occupancy was solved at before the domain is solved again (its
/// rates follow the bus more closely, at [`DRIFT_TOL`], with the occupancy held).
pub const OCCUPANCY_TOL: f64 = 5e-2;

/// The point of the latency grid nearest `latency_ns` ([`LATENCY_GRID`]).
pub fn latency_grid(latency_ns: f64) -> f64 {
    let step = LATENCY_GRID.ln_1p();
    ((latency_ns.ln() / step).round() * step).exp()
}

/// A domain's memory traffic as the bus sees it: lines per second over the
/// bus's service rate at the latency it was solved at, and its slope in the
/// latency (a thread's traffic a/(b + c·L) falls as the latency grows).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DomainTraffic {
    /// Latency the domain's rates were solved at, ns.
    pub at_ns: f64,
    /// Bus utilisation the domain's threads make at that latency.
    pub rho: f64,
    /// Its derivative in the latency, per ns (≤ 0).
    pub slope: f64,
}

impl Solver {
    /// A thread's terms in the solver's model at `mpki` misses per
    /// kilo-instruction: `a`, the bus utilisation one IPC of it makes, and
    /// `c`, the memory stall per instruction per ns of latency (its IPC is
    /// 1/(b + c·L), its traffic a·IPC).
    pub fn bus_terms(&self, m: &PhaseModel, mpki: f64) -> (f64, f64) {
        (mpki / 1000.0 * (1.0 + m.wb_ratio) * self.f_ghz * 1e9 / self.mu, mpki / 1000.0 * self.f_ghz / m.mlp)
    }

    /// Whether a socket's LLC domains can be solved apart, coupled only
    /// through their bus's latency: no DRAM row-conflict table (its stretch
    /// depends on every stream of the socket) and one latency for every
    /// thread (not the per-thread latency that leaves out a thread's own traffic).
    pub fn decomposable(&self) -> bool {
        self.dram.is_none() && self.lat.own_excluded() <= 0.0
    }

    /// The runners of one LLC domain, every memory latency held at
    /// `latency_ns` (a point of [`latency_grid`]); remembered by their
    /// co-schedule and that latency like a socket's solve, so a function of
    /// both alone. Returns the domain's traffic at that latency.
    pub fn solve_domain(
        &mut self,
        models: &[PhaseModel],
        runners: &[Runner],
        latency_ns: f64,
        out: &mut Vec<Rates>,
    ) -> DomainTraffic {
        self.first_sort(runners);
        self.solve_sorted_at(models, runners, out, Some(latency_ns));
        let (mut rho, mut slope) = (0.0, 0.0);
        for (r, rate) in runners.iter().zip(out.iter()) {
            let m = &models[r.model as usize];
            let (a, c) = self.bus_terms(m, rate.mpki);
            // The bus sees its traffic while it runs, before the presence factor stretches its time.
            let ipc = rate.ipc * rate.presence;
            rho += a * ipc;
            slope -= a * c * ipc * ipc;
        }
        DomainTraffic { at_ns: latency_ns, rho, slope }
    }

    /// The bus of a socket whose domains' traffic is `domains` (each linear
    /// in the latency around the latency it was solved at): the latency at
    /// which the loaded-latency curve meets that traffic, as
    /// `Solver::solve_latency_shared` finds it for a whole socket.
    pub fn solve_bus(&mut self, domains: impl Iterator<Item = DomainTraffic>) -> BusState {
        self.stretch = 1.0;
        let (mut a, mut b) = (0.0, 0.0);
        for d in domains {
            a += d.rho - d.slope * d.at_ns;
            b += d.slope;
        }
        let rho = |l: f64| (a + b * l).max(0.0);
        let (l0, l1) = (self.lat.idle_ns(), self.curve(1.0));
        if rho(l1) >= 1.0 {
            // Saturated: the latency at which the traffic falls to the bus's rate.
            let l = if b < 0.0 { (1.0 - a) / b } else { l1 };
            return BusState { latency_ns: l.max(l1), utilisation: 1.0 };
        }
        let x = self.latency_where(l0, l0, l1, |l| (rho(l), b));
        BusState { latency_ns: x, utilisation: rho(x) }
    }
}
