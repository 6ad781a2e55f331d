//! The engine's queue of timed events, delivered in (time, sequence)
//! order. Three sources, merged at each pop:
//!
//! * arrivals and I/O ends, in a binary heap (each is queued once and is
//!   always current);
//! * the earliest compute-step end of each socket, one slot per socket (a
//!   re-solve of the socket overwrites it);
//! * the policy's timers, in a heap indexed by key (re-arming a key moves
//!   its entry instead of leaving a stale one behind).
//!
//! Before, all three shared one heap and superseded entries were dropped
//! when they surfaced: a third of all pops under CFS, which re-arms each
//! context's slice timer at every pick. Sequence numbers are unique, so the
//! merged order is exactly the single heap's.

use cosched_core::ids::Nanos;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A timed event in the engine's queue (the policy never sees these; it
/// sees the [`Event`]s they cause).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Scheduled {
    /// Job `j` arrives: its threads start their programs.
    Arrive(u32),
    /// The earliest compute-step end among socket `s`'s runners (one queue
    /// slot per socket, which every re-solve of the socket overwrites; each
    /// runner's end keeps the sequence number it would have had, so the
    /// order of events is that of one entry per runner).
    SocketStep(u32),
    /// Thread `t`'s I/O wait ends.
    IoDone(u32),
    /// The policy's timer `key` fires (valid while its generation matches).
    Timer(u32, u32),
}

/// Events in (time, sequence) order; see the module doc.
#[derive(Default)]
pub(super) struct EventQueue {
    once: BinaryHeap<Reverse<(Nanos, u64, Scheduled)>>,
    socket: Vec<Option<(Nanos, u64)>>,
    timers: KeyedHeap,
}

/// Where the earliest event comes from.
enum Source {
    Once,
    Socket(usize),
    Timer,
}

impl EventQueue {
    /// A queue for a machine with `n_sockets` sockets.
    pub(super) fn new(n_sockets: usize) -> EventQueue {
        EventQueue { socket: vec![None; n_sockets], ..Default::default() }
    }

    /// Queue an arrival or an I/O end.
    pub(super) fn push(&mut self, at: Nanos, seq: u64, ev: Scheduled) {
        debug_assert!(matches!(ev, Scheduled::Arrive(_) | Scheduled::IoDone(_)));
        self.once.push(Reverse((at, seq, ev)));
    }

    /// Socket `s`'s earliest step end is now `next` (none: nothing runs there).
    pub(super) fn set_socket(&mut self, s: usize, next: Option<(Nanos, u64)>) {
        self.socket[s] = next;
    }

    /// Timer `key` fires at `at` under `generation` (replacing its earlier setting).
    pub(super) fn arm(&mut self, key: u32, at: Nanos, seq: u64, generation: u32) {
        self.timers.set(TimerEntry { at, seq, key, generation });
    }

    /// When the earliest event is due, and its socket when it is a socket's step end.
    pub(super) fn peek(&self) -> Option<(Nanos, Option<usize>)> {
        let ((at, _), source) = self.earliest()?;
        Some((at, if let Source::Socket(s) = source { Some(s) } else { None }))
    }

    /// The earliest event's key and source.
    fn earliest(&self) -> Option<((Nanos, u64), Source)> {
        let mut best: Option<((Nanos, u64), Source)> =
            self.once.peek().map(|Reverse((at, seq, _))| ((*at, *seq), Source::Once));
        for (s, slot) in self.socket.iter().enumerate() {
            if let Some(k) = *slot {
                if best.as_ref().is_none_or(|(b, _)| k < *b) {
                    best = Some((k, Source::Socket(s)));
                }
            }
        }
        if let Some(e) = self.timers.peek() {
            if best.as_ref().is_none_or(|(b, _)| (e.at, e.seq) < *b) {
                best = Some(((e.at, e.seq), Source::Timer));
            }
        }
        best
    }

    /// The earliest event, removed.
    pub(super) fn pop(&mut self) -> Option<(Nanos, u64, Scheduled)> {
        let ((at, seq), source) = self.earliest()?;
        Some(match source {
            Source::Once => {
                let Reverse(e) = self.once.pop().expect("peeked");
                e
            }
            Source::Socket(s) => {
                self.socket[s] = None;
                (at, seq, Scheduled::SocketStep(s as u32))
            }
            Source::Timer => {
                let e = self.timers.pop().expect("peeked");
                (at, seq, Scheduled::Timer(e.key, e.generation))
            }
        })
    }
}

/// One armed timer.
#[derive(Clone, Copy, Debug)]
struct TimerEntry {
    at: Nanos,
    seq: u64,
    key: u32,
    generation: u32,
}

impl TimerEntry {
    fn order(&self) -> (Nanos, u64) {
        (self.at, self.seq)
    }
}

/// A binary min-heap of timers with at most one entry per key and each
/// key's position recorded, so a re-armed key moves in place.
#[derive(Default)]
struct KeyedHeap {
    heap: Vec<TimerEntry>,
    /// Position of each key's entry in `heap` (`NONE`: not queued).
    pos: Vec<u32>,
}

const NONE: u32 = u32::MAX;

impl KeyedHeap {
    fn peek(&self) -> Option<&TimerEntry> {
        self.heap.first()
    }

    fn set(&mut self, e: TimerEntry) {
        let k = e.key as usize;
        if self.pos.len() <= k {
            self.pos.resize(k + 1, NONE);
        }
        match self.pos[k] {
            NONE => {
                self.heap.push(e);
                let i = self.heap.len() - 1;
                self.pos[k] = i as u32;
                self.up(i);
            }
            i => {
                let i = i as usize;
                self.heap[i] = e;
                let i = self.up(i);
                self.down(i);
            }
        }
    }

    fn pop(&mut self) -> Option<TimerEntry> {
        let last = self.heap.pop()?;
        let top = if self.heap.is_empty() {
            last
        } else {
            let top = std::mem::replace(&mut self.heap[0], last);
            self.pos[last.key as usize] = 0;
            self.down(0);
            top
        };
        self.pos[top.key as usize] = NONE;
        Some(top)
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.heap.swap(i, j);
        self.pos[self.heap[i].key as usize] = i as u32;
        self.pos[self.heap[j].key as usize] = j as u32;
    }

    fn up(&mut self, mut i: usize) -> usize {
        while i > 0 {
            let parent = (i - 1) / 2;
            if self.heap[i].order() >= self.heap[parent].order() {
                break;
            }
            self.swap(i, parent);
            i = parent;
        }
        i
    }

    fn down(&mut self, mut i: usize) {
        let n = self.heap.len();
        loop {
            let (l, r) = (2 * i + 1, 2 * i + 2);
            let mut least = i;
            if l < n && self.heap[l].order() < self.heap[least].order() {
                least = l;
            }
            if r < n && self.heap[r].order() < self.heap[least].order() {
                least = r;
            }
            if least == i {
                return;
            }
            self.swap(i, least);
            i = least;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Against a reference: one heap holding every setting, superseded ones
    /// skipped when they surface (the engine's old queue).
    #[test]
    fn merged_order_matches_one_heap_with_stale_entries_skipped() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let (n_sockets, n_keys) = (3usize, 40u32);
        let mut q = EventQueue::new(n_sockets);
        let mut reference: BinaryHeap<Reverse<(Nanos, u64, Scheduled)>> = BinaryHeap::new();
        let mut socket_gen = vec![0u32; n_sockets];
        let mut timer_gen = vec![0u32; n_keys as usize];
        let mut seq = 0u64;
        let mut now = 0;
        for _ in 0..20_000 {
            seq += 1;
            let at = now + rng.gen_range(0..1_000);
            match rng.gen_range(0..4) {
                0 => {
                    let ev = Scheduled::IoDone(rng.gen_range(0..100));
                    q.push(at, seq, ev);
                    reference.push(Reverse((at, seq, ev)));
                }
                1 => {
                    let s = rng.gen_range(0..n_sockets);
                    socket_gen[s] += 1;
                    q.set_socket(s, Some((at, seq)));
                    reference.push(Reverse((at, seq, Scheduled::SocketStep(s as u32 | socket_gen[s] << 8))));
                }
                2 => {
                    let k = rng.gen_range(0..n_keys);
                    timer_gen[k as usize] += 1;
                    let g = timer_gen[k as usize];
                    q.arm(k, at, seq, g);
                    reference.push(Reverse((at, seq, Scheduled::Timer(k, g))));
                }
                _ => {
                    let want = loop {
                        let Some(Reverse((at, seq, ev))) = reference.pop() else { break None };
                        match ev {
                            Scheduled::SocketStep(x) if (x >> 8) != socket_gen[(x & 0xff) as usize] => continue,
                            Scheduled::SocketStep(x) => {
                                break Some((at, seq, Scheduled::SocketStep(x & 0xff)));
                            }
                            Scheduled::Timer(k, g) if g != timer_gen[k as usize] => continue,
                            _ => break Some((at, seq, ev)),
                        }
                    };
                    let got = q.pop();
                    assert_eq!(got, want);
                    if let Some((at, _, ev)) = got {
                        now = at;
                        // A popped socket slot or timer is spent: supersede
                        // whatever the reference still holds for it.
                        match ev {
                            Scheduled::SocketStep(s) => socket_gen[s as usize] += 1,
                            Scheduled::Timer(k, _) => timer_gen[k as usize] += 1,
                            _ => {}
                        }
                    }
                }
            }
        }
    }
}
