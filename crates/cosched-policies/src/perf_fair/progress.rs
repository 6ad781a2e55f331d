//! Progress accounting (Perf&Fair §3, Eq. 1): `Progress = Σ IPC_co-runners / IPC_alone`
//! over the quanta a process ran.
//!
//! Quanta have different lengths (100 ms estimation quanta, 200 ms otherwise),
//! so each term is weighted by the quantum's length and progress is kept in
//! units of one 200 ms quantum of solo execution; "Progress + 1 < MaxP"
//! (Algorithm 1, line 15) then means "less than one full quantum behind".
//! Quanta run before the first IPC-alone estimate exists are kept as
//! Σ IPC·dt and divided by that first estimate when it arrives.

/// Length of one progress unit (a performance-and-fairness quantum), seconds.
pub const UNIT_S: f64 = 0.2;

/// One process's accumulated progress.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Progress {
    /// Accumulated progress, in solo-execution quanta of [`UNIT_S`].
    pub value: f64,
    /// Σ IPC·dt of quanta run before any IPC-alone estimate.
    pending: f64,
}

impl Progress {
    /// Account one quantum of `dt` seconds at measured IPC `ipc_co`, with the
    /// current IPC-alone estimate `ipc_alone` (None before the first one).
    pub fn add(&mut self, ipc_co: f64, dt: f64, ipc_alone: Option<f64>) {
        match ipc_alone {
            Some(a) if a > 0.0 => {
                if self.pending > 0.0 {
                    self.value += self.pending / a / UNIT_S;
                    self.pending = 0.0;
                }
                self.value += ipc_co / a * dt / UNIT_S;
            }
            _ => self.pending += ipc_co * dt,
        }
    }

    /// Account `solo_s` seconds of solo-equivalent work known exactly (the Oracle's traces).
    pub fn add_solo(&mut self, solo_s: f64) {
        self.value += solo_s / UNIT_S;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_is_solo_equivalent_time_in_quanta() {
        let mut p = Progress::default();
        p.add(1.0, 0.2, Some(2.0)); // half speed for one quantum
        assert!((p.value - 0.5).abs() < 1e-12);
        p.add(2.0, 0.1, Some(2.0)); // full speed for half a quantum
        assert!((p.value - 1.0).abs() < 1e-12);
    }

    #[test]
    fn quanta_before_the_first_estimate_are_settled_with_it() {
        let mut p = Progress::default();
        p.add(1.5, 0.2, None);
        assert_eq!(p.value, 0.0);
        p.add(3.0, 0.1, Some(3.0));
        assert!((p.value - (1.5 * 0.2 / 3.0 / 0.2 + 0.5)).abs() < 1e-12);
    }
}
