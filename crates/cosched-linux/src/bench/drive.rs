//! What every `cosched-bench` kernel shares: its options, and the loop that drives a kernel's
//! steps for its seconds or its work, paced to a bandwidth when asked, reporting its progress.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// A kernel's options, as parsed from its flags.
pub(super) struct Opts {
    pub(super) kind: String,
    pub(super) wss_mb: f64,
    pub(super) gbs: f64,
    pub(super) seconds: f64,
    pub(super) mops: f64,
    pub(super) report_ms: u64,
    pub(super) kernels: u64,
    pub(super) reuse: i32,
    pub(super) huge_pages: bool,
    pub(super) phase_mops: f64,
    pub(super) compute_mops: f64,
}

/// Run `step` (which does `batch` operations) until `seconds` pass, reporting progress.
pub(super) fn drive(o: &Opts, batch: u64, mut step: impl FnMut() -> u64) -> (u64, f64) {
    let start = Instant::now();
    let (mut ops, mut last_ops, mut last) = (0u64, 0u64, start);
    let report = Duration::from_millis(o.report_ms.max(1));
    let bytes_per_op = 64.0;
    let target = (o.mops * 1e6) as u64;
    let more = |ops: u64| if target > 0 { ops < target } else { start.elapsed().as_secs_f64() < o.seconds };
    while more(ops) {
        black_box(step());
        ops += batch;
        if o.gbs > 0.0 {
            // Pace to the target bandwidth: sleep off any lead over it.
            let due = ops as f64 * bytes_per_op / (o.gbs * 1e9);
            let ahead = due - start.elapsed().as_secs_f64();
            if ahead > 0.0 {
                std::thread::sleep(Duration::from_secs_f64(ahead));
            }
        }
        if last.elapsed() >= report {
            let dt = last.elapsed().as_secs_f64();
            println!(
                "progress {:.0} ops/s {ops} ops {:.6} s",
                (ops - last_ops) as f64 / dt,
                start.elapsed().as_secs_f64()
            );
            last_ops = ops;
            last = Instant::now();
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    // The last report closes the series at the end of the work (`characterise`'s phases).
    println!(
        "progress {:.0} ops/s {ops} ops {seconds:.6} s",
        (ops - last_ops) as f64 / last.elapsed().as_secs_f64().max(1e-9)
    );
    (ops, seconds)
}
