//! The scheduler tick: when a fair-class slice really ends (docs/model.md,
//! "The scheduler tick").
//!
//! Without `HRTICK` (off by default, `kernel/sched/features.h`) the kernel
//! checks the running thread's slice only at the tick (`check_preempt_tick`
//! in CFS, `update_deadline` in EEVDF), so a slice ends at the first tick after
//! it is used up, and contexts whose ticks are aligned switch together. What
//! keeps two contexts' run queues from staying in step is the few switches off
//! the tick grid (a wake-up, a kernel thread, an interrupt long enough to
//! preempt): measured on this host by `scripts/tick-phase`, 81-92% of a
//! spinner's slices lasted one tick and 7-16% were cut short, and each spinner
//! of one CPU spent half its time beside each of the other CPU's two.
//! Which slices end off the grid depends on timing the model does not track; a
//! hash of the context, the time and the thread draws it.

use super::CfsCore;
use crate::ids::{Nanos, ThreadId};

impl CfsCore {
    /// When a slice `s` that `t` starts on context `c` at `now` ends: exactly
    /// `now + s` without a tick; with one, at the first tick at or after
    /// `now + s` (and after `now`), or, for the machine's share of slices off
    /// the grid (`costs.scheduler_off_grid`, 1/16 by default: within the
    /// 3.5-8% of switches per slice this host showed, each cutting two slices
    /// short), at a uniform point of the tick before that one, as a preemption
    /// between ticks would. The share sets how fast run queues drift apart.
    pub(super) fn expiry(&self, c: usize, t: ThreadId, now: Nanos, s: Nanos) -> Nanos {
        let tick = self.tick;
        let used = now + s;
        if tick == 0 {
            return used;
        }
        let on_grid = (used.div_ceil(tick) * tick).max((now / tick + 1) * tick);
        let h = mix(c as u64, now, t.0 as u64);
        if unit(h) < self.off_grid {
            let cut = (tick as f64 * unit(mix(h, 1, 2))) as Nanos;
            (on_grid - cut).max(now + 1)
        } else {
            on_grid
        }
    }
}

/// SplitMix64 of three words: the model's stand-in for sub-tick timing.
fn mix(a: u64, b: u64, c: u64) -> u64 {
    let mut z = a
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(b.rotate_left(21))
        .wrapping_add(c.wrapping_mul(0xC2B2_AE3D_27D4_EB4F));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A hash as a uniform number in [0, 1).
fn unit(h: u64) -> f64 {
    (h >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::families::cfs::{CfsParams, Discipline};

    const OFF_GRID: f64 = 1.0 / 16.0;

    fn core(tick: Nanos) -> CfsCore {
        let mut c = CfsCore::with(CfsParams::default(), Discipline::Cfs);
        c.tick = tick;
        c.off_grid = OFF_GRID;
        c
    }

    #[test]
    fn without_a_tick_a_slice_ends_when_used_up() {
        assert_eq!(core(0).expiry(0, ThreadId(0), 1_234, 12_000_000), 12_001_234);
    }

    #[test]
    fn with_a_tick_most_slices_end_on_the_grid_and_a_few_inside_their_last_tick() {
        let c = core(4_000_000);
        let (mut on, mut n) = (0, 0);
        for t in 0..4000u32 {
            let now = 4_000_000 * (t as u64 % 97) + 10_000;
            let end = c.expiry(t as usize % 12, ThreadId(t), now, 12_000_000);
            let grid = (now + 12_000_000).div_ceil(4_000_000) * 4_000_000;
            assert!(end > grid - 4_000_000 && end <= grid, "{end} outside the last tick before {grid}");
            on += (end == grid) as u32;
            n += 1;
        }
        let off = 1.0 - on as f64 / n as f64;
        // A binomial share: 4 standard deviations either side of OFF_GRID.
        let sd = (OFF_GRID * (1.0 - OFF_GRID) / n as f64).sqrt();
        assert!((off - OFF_GRID).abs() < 4.0 * sd, "off-grid share {off}");
    }

    #[test]
    fn a_short_request_lasts_until_the_next_tick() {
        let c = core(4_000_000);
        let ends: Vec<Nanos> = (0..64).map(|t| c.expiry(0, ThreadId(t), 8_000_000, 1_500_000)).collect();
        assert!(ends.iter().all(|&e| (8_000_001..=12_000_000).contains(&e)));
        assert!(ends.iter().filter(|&&e| e == 12_000_000).count() > 48);
    }
}
