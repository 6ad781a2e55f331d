//! `cosched-bench`: micro-benchmarks that report their own progress rate, for
//! calibrating the simulator against this machine and for real mixes
//! (issue "The real machine"):
//!
//! * `pointer-chase --wss-mb N`: dependent loads over a random cycle of N MiB
//!   of cache lines (latency-bound; rate falls once N exceeds the caches);
//! * `stream --mb N [--gbs G]`: sequential reads of an N MiB array, paced to G
//!   GB/s when given (the EFS synthetic benchmark's configurable bandwidth);
//! * `compute`: an integer mix with no memory traffic.
//!
//! Each runs for `--seconds S` of wall time, or, with `--mops N`, until it
//! has done N million operations (fixed work: what a mix needs, so that
//! contention shows up as a longer turnaround).
//!
//! Every `--report-ms` it prints `progress <N> ops/s`; at the end one JSON line
//! `{"kind":…,"ops":…,"seconds":…,"ops_per_s":…}`.

use std::hint::black_box;
use std::time::{Duration, Instant};

struct Opts {
    kind: String,
    wss_mb: f64,
    gbs: f64,
    seconds: f64,
    mops: f64,
    report_ms: u64,
}

const USAGE: &str = "usage: cosched-bench pointer-chase|stream|compute [--wss-mb N] [--mb N] [--gbs G] [--seconds S | --mops N] [--report-ms M]";

fn usage() -> ! {
    eprintln!("{USAGE}");
    std::process::exit(2)
}

/// `--help`: what each benchmark does and what it prints.
fn help() -> ! {
    println!(
        "cosched-bench: micro-benchmarks that report their own progress rate\n\n{USAGE}\n\n\
         pointer-chase --wss-mb N   dependent loads over a random cycle of N MiB (default 16); latency-bound\n\
         stream --mb N [--gbs G]    sequential 8-byte reads of an N MiB array, paced to G GB/s when given\n\
         compute                    an integer mix with no memory traffic\n\
         --seconds S                run for S seconds of wall time (default 1)\n\
         --mops N                   or until N million operations are done (fixed work)\n\
         --report-ms M              print `progress <N> ops/s` every M ms (default 100)\n\n\
         At the end one JSON line: {{\"kind\", \"ops\", \"seconds\", \"ops_per_s\"}}."
    );
    std::process::exit(0)
}

fn parse() -> Opts {
    let mut a = std::env::args().skip(1);
    let kind = a.next().unwrap_or_else(|| usage());
    if kind == "--help" || kind == "-h" {
        help();
    }
    if !["pointer-chase", "stream", "compute"].contains(&kind.as_str()) {
        eprintln!("error: unknown benchmark `{kind}` (known: pointer-chase, stream, compute)");
        std::process::exit(2);
    }
    let mut o = Opts { kind, wss_mb: 16.0, gbs: 0.0, seconds: 1.0, mops: 0.0, report_ms: 100 };
    while let Some(flag) = a.next() {
        let v = a.next().unwrap_or_else(|| usage());
        let num: f64 = v.parse().unwrap_or_else(|_| {
            eprintln!("error: {flag}: `{v}` is not a number");
            std::process::exit(2)
        });
        if !(num.is_finite() && num >= 0.0) {
            eprintln!("error: {flag}: must be ≥ 0, got {v}");
            std::process::exit(2);
        }
        match flag.as_str() {
            "--wss-mb" | "--mb" => o.wss_mb = num,
            "--gbs" => o.gbs = num,
            "--seconds" => o.seconds = num,
            "--mops" => o.mops = num,
            "--report-ms" => o.report_ms = num as u64,
            _ => usage(),
        }
    }
    o
}

/// Run `step` (which does `batch` operations) until `seconds` pass, reporting progress.
fn drive(o: &Opts, batch: u64, mut step: impl FnMut() -> u64) -> (u64, f64) {
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
            println!("progress {:.0} ops/s", (ops - last_ops) as f64 / dt);
            last_ops = ops;
            last = Instant::now();
        }
    }
    (ops, start.elapsed().as_secs_f64())
}

fn main() {
    let o = parse();
    let (ops, secs) = match o.kind.as_str() {
        "pointer-chase" => {
            // A random single cycle over the lines (Sattolo's algorithm), seeded.
            let n = ((o.wss_mb * 1024.0 * 1024.0 / 64.0) as usize).max(2);
            let mut next: Vec<usize> = (0..n).collect();
            let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
            for i in (1..n).rev() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let j = (x % i as u64) as usize;
                next.swap(i, j);
            }
            // One pointer per 64-byte line: index k lives at lines[k * 8].
            let mut lines = vec![0usize; n * 8];
            for k in 0..n {
                lines[k * 8] = next[k] * 8;
            }
            let mut p = 0usize;
            drive(&o, 10_000, || {
                for _ in 0..10_000 {
                    p = lines[p];
                }
                p as u64
            })
        }
        "stream" => {
            let n = ((o.wss_mb * 1024.0 * 1024.0 / 8.0) as usize).max(8);
            let a: Vec<u64> = (0..n as u64).collect();
            let mut i = 0usize;
            let chunk = 8 * 4096; // 4096 lines per step
            drive(&o, 4096, || {
                let mut s = 0u64;
                for k in (0..chunk).step_by(8) {
                    s = s.wrapping_add(a[(i + k) % n]);
                }
                i = (i + chunk) % n;
                s
            })
        }
        _ => {
            let mut v: u64 = 1;
            drive(&o, 100_000, || {
                for k in 0..100_000u64 {
                    v = v.wrapping_mul(6364136223846793005).wrapping_add(k) ^ (v >> 29);
                }
                v
            })
        }
    };
    println!("{{\"kind\":\"{}\",\"ops\":{ops},\"seconds\":{secs:.6},\"ops_per_s\":{:.1}}}", o.kind, ops as f64 / secs);
}
