//! Remembered solutions: a socket's solve is a function of its co-schedule
//! key alone ([`Solver::solve`]), so repeats are answered from the run's own
//! cache, a slot's last solve, or a cache shared between the runs of one
//! machine and plan ([`SharedSolutions`]), bit for bit what a fresh solve gives.

use super::*;

/// Solutions shared between the runs of one machine and one plan (the many
/// runs of a search for the best static co-schedule): each solution is a
/// function of its co-schedule key alone ([`Solver::solve`]), so which run
/// solved it first does not matter and runs in parallel stay deterministic.
/// Bounded like a run's own cache ([`CACHE_ENTRIES`], [`CACHE_RUNNERS`]).
#[derive(Default)]
pub struct SharedSolutions {
    map: std::sync::Mutex<SharedMap>,
}

#[derive(Default)]
struct SharedMap {
    solutions: rustc_hash::FxHashMap<Vec<Key>, (Vec<Rates>, BusState)>,
    runners: usize,
}

impl SharedSolutions {
    pub(super) fn get(&self, key: &[Key]) -> Option<(Vec<Rates>, BusState)> {
        self.map.lock().ok()?.solutions.get(key).cloned()
    }

    pub(super) fn insert(&self, key: &[Key], solution: &(Vec<Rates>, BusState)) {
        let Ok(mut m) = self.map.lock() else { return };
        let n = solution.0.len();
        if m.solutions.len() < CACHE_ENTRIES && m.runners + n <= CACHE_RUNNERS && !m.solutions.contains_key(key) {
            m.solutions.insert(key.to_vec(), solution.clone());
            m.runners += n;
        }
    }

    /// Co-schedules remembered.
    pub fn len(&self) -> usize {
        self.map.lock().map_or(0, |m| m.solutions.len())
    }

    /// Whether none is remembered yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Solver {
    /// Solve one socket. `out` receives one [`Rates`] per runner.
    ///
    /// The solution depends only on which phase models run together and how
    /// they share pipes, cores, LLC domains and jobs, not on which pipe or
    /// core numbers they hold nor on what ran before: the runners are put in
    /// a canonical form ([`Solver::canonical`]: ids renumbered by first
    /// appearance, exchange shares on the key's 1e-6 grid) and a fresh solve
    /// works on that form from a cold start, so it is a function of the key
    /// alone. Solutions are remembered by that key (threads of one class
    /// share their models, so co-schedules repeat constantly), within the run
    /// and, when the solver was given one, in a cache shared between runs of
    /// the same machine and plan ([`SharedSolutions`]): a repeat returns the
    /// same bits a fresh solve would, whichever run solved it first.
    pub fn solve(&mut self, models: &[PhaseModel], runners: &[Runner], out: &mut Vec<Rates>) -> BusState {
        self.first_sort(runners);
        self.solve_sorted(models, runners, out)
    }

    /// [`Solver::solve`] for the runners of slot `slot` (the engine's socket):
    /// when they are, up to their order, those of the slot's last solve (the
    /// same first-sort keys), that solve's rates are returned without the
    /// renumbering and the lookup. Bit for bit what [`Solver::solve`] returns.
    pub fn solve_slot(
        &mut self,
        slot: usize,
        models: &[PhaseModel],
        runners: &[Runner],
        out: &mut Vec<Rates>,
    ) -> BusState {
        self.first_sort(runners);
        if self.last.len() <= slot {
            self.last.resize_with(slot + 1, LastSolve::default);
        }
        let last = &self.last[slot];
        if last.keys.len() == runners.len() && last.keys.iter().zip(&self.first).all(|(a, (b, _))| a == b) {
            out.clear();
            out.resize(runners.len(), Rates::default());
            for (p, &(_, i)) in self.first.iter().enumerate() {
                out[i as usize] = last.rates[p];
            }
            return last.bus;
        }
        let bus = self.solve_sorted(models, runners, out);
        let last = &mut self.last[slot];
        last.keys.clear();
        last.keys.extend(self.first.iter().map(|(k, _)| *k));
        last.rates.clear();
        last.rates.extend(self.first.iter().map(|&(_, i)| out[i as usize]));
        last.bus = bus;
        bus
    }

    /// The runners' first-sort keys with their indices, sorted (ties, which
    /// only identical keys make, in runner order): `self.first`.
    pub(super) fn first_sort(&mut self, runners: &[Runner]) {
        self.first.clear();
        self.first.extend(
            runners
                .iter()
                .enumerate()
                .map(|(i, r)| ([r.model, grid(r.local), grid(r.on_core), r.llc, r.core, r.pipe, r.job], i as u32)),
        );
        self.first.sort_unstable();
    }

    /// [`Solver::solve`] once `self.first` holds the runners' sorted first-sort keys.
    pub(super) fn solve_sorted(&mut self, models: &[PhaseModel], runners: &[Runner], out: &mut Vec<Rates>) -> BusState {
        self.solve_sorted_at(models, runners, out, None)
    }

    /// [`Solver::solve_sorted`], every runner's memory latency held at `fixed`
    /// ns when given (the latency is then part of the key).
    pub(super) fn solve_sorted_at(
        &mut self,
        models: &[PhaseModel],
        runners: &[Runner],
        out: &mut Vec<Rates>,
        fixed: Option<f64>,
    ) -> BusState {
        self.canonical(runners);
        if let Some(l) = fixed {
            // Above every runner's key (its model sits in the high bits): a key of its own.
            self.key.push((u128::MAX ^ u128::from(l.to_bits()), u32::MAX));
        }
        if let Some((rates, bus)) = self.cache.get(self.key.as_slice()) {
            out.clear();
            out.resize(runners.len(), Rates::default());
            for (k, &i) in self.order.iter().enumerate() {
                out[i] = rates[k];
            }
            return *bus;
        }
        let found = self.shared.as_ref().and_then(|s| s.get(&self.key));
        let (rates, bus) = match found {
            Some(hit) => {
                self.remember(hit.clone());
                hit
            }
            None => {
                let canon = std::mem::take(&mut self.canon);
                let mut sorted = vec![];
                let bus = self.solve_fresh_at(models, &canon, &mut sorted, fixed);
                self.canon = canon;
                let solution = (sorted, bus);
                if let Some(shared) = &self.shared {
                    shared.insert(&self.key, &solution);
                }
                self.remember(solution.clone());
                solution
            }
        };
        out.clear();
        out.resize(runners.len(), Rates::default());
        for (k, &i) in self.order.iter().enumerate() {
            out[i] = rates[k];
        }
        bus
    }

    /// Keep a solution for the current key while the run's cache has room.
    pub(super) fn remember(&mut self, solution: (Vec<Rates>, BusState)) {
        let n = solution.0.len();
        if self.cache.len() < CACHE_ENTRIES && self.cached_runners + n <= CACHE_RUNNERS {
            self.cache.insert(self.key.clone(), solution);
            self.cached_runners += n;
        }
    }

    /// The canonical form of a co-schedule: runners ordered by what they are
    /// (phase model and exchange shares, then where they run: `self.first`), their LLC
    /// domains, cores, pipes and jobs renumbered in order of first appearance,
    /// then sorted by their keys. Fills `self.canon` (the renumbered runners,
    /// in key order, exchange shares rounded to the key's grid), `self.key`
    /// (their keys) and `self.order` (the runner each canonical one is).
    /// Renumbering keeps which runners share a pipe, a core, a domain or a
    /// job, which is all the solution depends on; two co-schedules that
    /// differ only in numbering mostly (not always: ties break by the old
    /// numbers) get one key.
    pub(super) fn canonical(&mut self, runners: &[Runner]) {
        // The order of `self.first` (`Solver::first_sort`).
        self.order.clear();
        self.order.extend(self.first.iter().map(|&(_, i)| i as usize));
        self.canon.clear();
        let mut next = [0u32; 4];
        for &i in &self.order {
            let r = &runners[i];
            let mut ids = [r.llc, r.core, r.pipe, r.job];
            for (kind, id) in ids.iter_mut().enumerate() {
                let map = &mut self.renumber[kind];
                if map.len() <= *id as usize {
                    map.resize(*id as usize + 1, u32::MAX);
                }
                let slot = &mut map[*id as usize];
                if *slot == u32::MAX {
                    *slot = next[kind];
                    next[kind] += 1;
                }
                *id = *slot;
            }
            let [llc, core, pipe, job] = ids;
            let (local, on_core) = (grid(r.local) as f64 / 1e6, grid(r.on_core) as f64 / 1e6);
            self.canon.push(Runner { model: r.model, pipe, core, llc, job, local, on_core });
        }
        for r in runners {
            for (kind, id) in [r.llc, r.core, r.pipe, r.job].into_iter().enumerate() {
                self.renumber[kind][id as usize] = u32::MAX;
            }
        }
        // Sort by key (the canonical runners, their keys and the order together).
        self.keys.clear();
        self.keys.extend(self.canon.iter().map(Runner::key));
        self.perm.clear();
        self.perm.extend(0..runners.len());
        let keys = &self.keys;
        self.perm.sort_by_key(|&k| keys[k]);
        self.key.clear();
        self.key.extend(self.perm.iter().map(|&k| keys[k]));
        self.scratch_runners.clear();
        self.scratch_runners.extend(self.perm.iter().map(|&k| self.canon[k]));
        std::mem::swap(&mut self.canon, &mut self.scratch_runners);
        self.scratch_order.clear();
        self.scratch_order.extend(self.perm.iter().map(|&k| self.order[k]));
        std::mem::swap(&mut self.order, &mut self.scratch_order);
    }
}
