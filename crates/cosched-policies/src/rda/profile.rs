//! The progress-period profiler (RDA §2.4): cut a memory-access trace into
//! windows of a fixed number of accesses; per window compute the footprint
//! (distinct 64-byte lines), the working-set size (lines touched at least
//! `min_touches` times) and the reuse ratio (accesses per distinct line);
//! then find progress periods as runs of at least `min_windows` consecutive
//! windows whose statistics stay within `similarity` (relative) of the run's
//! running average, extending each run until a window differs.
//!
//! Reuse levels (our reading; the paper names levels but not their limits):
//! low below 2 accesses per line per window, medium below 8, high from 8.

use crate::policy::Reuse;
use serde::Serialize;
use std::collections::HashMap;

/// Profiler knobs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProfileParams {
    /// Accesses per window.
    pub window: usize,
    /// Touches for a line to count in the working set.
    pub min_touches: u32,
    /// Relative tolerance of "similar" windows.
    pub similarity: f64,
    /// Minimum windows in a progress period.
    pub min_windows: usize,
}

impl Default for ProfileParams {
    fn default() -> Self {
        ProfileParams { window: 100_000, min_touches: 2, similarity: 0.2, min_windows: 3 }
    }
}

/// Statistics of one window.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct WindowStats {
    /// Distinct lines × 64, bytes.
    pub footprint: f64,
    /// Lines touched ≥ min_touches times × 64, bytes.
    pub wss: f64,
    /// Accesses per distinct line.
    pub reuse: f64,
}

/// A progress period found in the trace.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Period {
    /// First window (inclusive).
    pub start_window: usize,
    /// Last window (inclusive).
    pub end_window: usize,
    /// First access of the period.
    pub start_access: usize,
    /// Average working set, bytes.
    pub wss: f64,
    /// Average footprint, bytes.
    pub footprint: f64,
    /// Average reuse ratio.
    pub reuse: f64,
    /// Reuse level.
    pub level: Reuse,
    /// Suggested annotation: the `pp_begin` call for this period, written
    /// against the C header `include/cosched/pp.h` (`COSCHED_PP_*` names).
    pub annotation: String,
}

/// Per-window statistics of an address stream.
pub fn windows(addresses: impl IntoIterator<Item = u64>, p: &ProfileParams) -> Vec<WindowStats> {
    let mut out = vec![];
    let mut counts: HashMap<u64, u32> = HashMap::new();
    let mut n = 0usize;
    let close = |counts: &HashMap<u64, u32>, n: usize| {
        let distinct = counts.len() as f64;
        let ws = counts.values().filter(|&&c| c >= p.min_touches).count() as f64;
        WindowStats {
            footprint: distinct * 64.0,
            wss: ws * 64.0,
            reuse: if distinct > 0.0 { n as f64 / distinct } else { 0.0 },
        }
    };
    for a in addresses {
        *counts.entry(a >> 6).or_insert(0) += 1;
        n += 1;
        if n == p.window {
            out.push(close(&counts, n));
            counts.clear();
            n = 0;
        }
    }
    // A trailing partial window counts when it holds at least half a window
    // (and at least one access: with `window = 1` nothing is left over).
    if n > 0 && 2 * n >= p.window {
        out.push(close(&counts, n));
    }
    out
}

/// The reuse level of a reuse ratio (accesses per distinct line per window;
/// our reading of the paper's three levels, in the module doc).
pub fn level(reuse: f64) -> Reuse {
    if reuse < 2.0 {
        Reuse::Low
    } else if reuse < 8.0 {
        Reuse::Medium
    } else {
        Reuse::High
    }
}

fn close_to(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * a.abs().max(b.abs()).max(1e-12)
}

/// Progress periods in a sequence of window statistics.
pub fn periods(w: &[WindowStats], p: &ProfileParams) -> Vec<Period> {
    let mut out = vec![];
    let mut i = 0;
    while i < w.len() {
        let (mut sw, mut sf, mut sr, mut k) = (w[i].wss, w[i].footprint, w[i].reuse, 1.0);
        let mut j = i + 1;
        while j < w.len() && close_to(w[j].wss, sw / k, p.similarity) && close_to(w[j].reuse, sr / k, p.similarity) {
            sw += w[j].wss;
            sf += w[j].footprint;
            sr += w[j].reuse;
            k += 1.0;
            j += 1;
        }
        if j - i >= p.min_windows {
            let (wss, reuse) = (sw / k, sr / k);
            let lv = level(reuse);
            let name = match lv {
                Reuse::Low => "COSCHED_PP_REUSE_LOW",
                Reuse::Medium => "COSCHED_PP_REUSE_MEDIUM",
                Reuse::High => "COSCHED_PP_REUSE_HIGH",
            };
            out.push(Period {
                start_window: i,
                end_window: j - 1,
                start_access: i * p.window,
                wss,
                footprint: sf / k,
                reuse,
                level: lv,
                annotation: format!("pp_begin(COSCHED_PP_LLC, {}, {name})", wss.round() as u64),
            });
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sweep `bytes` of 8-byte elements `times` times, starting at `base`.
    fn sweep(base: u64, bytes: u64, times: usize) -> impl Iterator<Item = u64> {
        (0..times).flat_map(move |_| (0..bytes / 8).map(move |i| base + i * 8))
    }

    #[test]
    fn window_edges_give_no_phantom_windows() {
        let p = |window| ProfileParams { window, min_touches: 1, similarity: 0.2, min_windows: 3 };
        let addrs: Vec<u64> = (0..10u64).map(|i| i * 64).collect();
        // Window 1: one window per access, none past the end.
        let w = windows(addrs.iter().copied(), &p(1));
        assert_eq!(w.len(), 10);
        assert!(w.iter().all(|x| x.footprint == 64.0));
        let found = periods(&w, &p(1));
        assert!(found.iter().all(|f| f.end_window < 10 && f.start_access < 10), "{found:?}");
        // Window = trace length: exactly one window.
        assert_eq!(windows(addrs.iter().copied(), &p(10)).len(), 1);
        // Trace shorter than a window: one partial window from half a window up, none below.
        assert_eq!(windows(addrs.iter().copied(), &p(20)).len(), 1);
        assert_eq!(windows(addrs.iter().copied(), &p(21)).len(), 0);
        assert!(windows(std::iter::empty(), &p(1)).is_empty());
    }

    #[test]
    fn finds_planted_phases_with_their_working_sets() {
        // 1 MiB swept 40 times, then 256 KiB swept 160 times, then a 64 MiB stream read once.
        let trace: Vec<u64> = sweep(0x1000_0000, 1 << 20, 40)
            .chain(sweep(0x4000_0000, 256 << 10, 160))
            .chain(sweep(0x8000_0000, 64 << 20, 1))
            .collect();
        let p = ProfileParams { window: 262_144, min_touches: 2, similarity: 0.2, min_windows: 3 };
        let w = windows(trace.iter().copied(), &p);
        let found = periods(&w, &p);
        assert!(found.len() >= 2, "{found:?}");
        let big = &found[0];
        assert!((big.wss / (1 << 20) as f64 - 1.0).abs() < 0.1, "{big:?}");
        assert_eq!(big.level, Reuse::High);
        let small = &found[1];
        assert!((small.wss / (256 << 10) as f64 - 1.0).abs() < 0.1, "{small:?}");
        // The stream: every line touched 8 times in a row (8 doubles per line): large
        // footprint; its reuse per line stays 8, but nothing is reused across windows.
        if let Some(s) = found.get(2) {
            assert!(s.footprint >= 0.9 * 262_144.0 / 8.0 * 64.0);
        }
    }
}
