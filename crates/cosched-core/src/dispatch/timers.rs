//! The policy's timers, keyed by the policy's own keys: arming replaces an
//! earlier setting of the same key, cancelling forgets it, and every change
//! bumps the key's generation, so a backend that queued an earlier setting
//! can tell it is stale ([`Decision::Timer`](crate::Decision::Timer)).

use crate::ids::Nanos;

/// Keys a policy may use: `0..MAX_TIMER_KEYS` (they index a table).
pub const MAX_TIMER_KEYS: u32 = 1 << 16;

/// One key's setting.
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    generation: u32,
    at: Option<Nanos>,
}

/// Every key's setting.
#[derive(Clone, Debug, Default)]
pub(super) struct Timers {
    slots: Vec<Slot>,
}

impl Timers {
    /// Arm (`Some`) or cancel (`None`) `key`; returns its new generation.
    pub(super) fn set(&mut self, key: u32, at: Option<Nanos>) -> u32 {
        let k = key as usize;
        if self.slots.len() <= k {
            self.slots.resize(k + 1, Slot::default());
        }
        let s = &mut self.slots[k];
        s.generation = s.generation.wrapping_add(1);
        s.at = at;
        s.generation
    }

    /// Whether `key` is armed under `generation` (the setting a backend queued is current).
    pub(super) fn live(&self, key: u32, generation: u32) -> bool {
        self.slots.get(key as usize).is_some_and(|s| s.generation == generation && s.at.is_some())
    }

    /// Disarm `key` as it fires.
    pub(super) fn fired(&mut self, key: u32) {
        if let Some(s) = self.slots.get_mut(key as usize) {
            s.at = None;
        }
    }

    /// The earliest armed time.
    pub(super) fn next(&self) -> Option<Nanos> {
        self.slots.iter().filter_map(|s| s.at).min()
    }

    /// Keys armed for `now` or earlier, in key order.
    pub(super) fn due(&self, now: Nanos) -> Vec<u32> {
        (0..self.slots.len()).filter(|&k| self.slots[k].at.is_some_and(|t| t <= now)).map(|k| k as u32).collect()
    }
}
