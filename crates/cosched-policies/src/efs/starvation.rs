//! Starvation thresholds (EFS §4.3, Eqs. 21-24).

use crate::ids::{Nanos, MILLI};

/// Eq. 21: CFS's scheduling period for `n` runnable threads (18 ms below 5, else 4 ms each).
pub fn period(n: usize) -> Nanos {
    if n < 5 {
        18 * MILLI
    } else {
        4 * MILLI * n as Nanos
    }
}

/// The local and global starvation constants.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Thresholds {
    /// c_l of Eq. 22 (20 in the paper).
    pub c_local: f64,
    /// c_g of Eq. 23 (5 in the paper).
    pub c_global: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds { c_local: 20.0, c_global: 5.0 }
    }
}

impl Thresholds {
    /// Eq. 22: vruntime lag on a core with `n_c` runnable threads beyond which its leftmost thread is starved.
    pub fn local(&self, n_c: usize) -> Nanos {
        (self.c_local * period(n_c) as f64) as Nanos
    }

    /// Eq. 23: time without running, with `n_p` runnable threads on the chip, beyond which a thread is starved.
    pub fn global(&self, n_p: usize) -> Nanos {
        (self.c_global * period(n_p) as f64) as Nanos
    }

    /// Eq. 24: the longest a thread can wait, all `n_p` threads of the chip being starved.
    pub fn max_wait(n_p: usize) -> Nanos {
        n_p as Nanos * period(n_p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_follow_eqs_21_to_24() {
        let t = Thresholds::default();
        assert_eq!(period(4), 18 * MILLI);
        assert_eq!(period(6), 24 * MILLI);
        assert_eq!(t.local(2), 360 * MILLI);
        assert_eq!(t.global(8), 160 * MILLI);
        assert_eq!(Thresholds::max_wait(8), 256 * MILLI);
    }
}
