//! The `cosched-bench` kernels: micro-benchmarks that report their own progress rate, for
//! calibrating the simulator against this machine and for real mixes. The same program runs as
//! the `cosched-bench` binary and as `cosched bench` (so a build of `cosched` alone can calibrate
//! and characterise: [`cosched_machine::mix::resolve_command`]):
//!
//! * `pointer-chase --wss-mb N`: dependent loads over a random cycle of N MiB
//!   of cache lines (latency-bound; rate falls once N exceeds the caches);
//! * `stream --mb N [--gbs G]`: sequential reads of an N MiB array, paced to G
//!   GB/s when given (the EFS synthetic benchmark's configurable bandwidth);
//! * `compute`: an integer mix with no memory traffic;
//! * `random-access`, `random-update`, `phases` (`kernels`): independent random
//!   loads, random read-modify-writes, and phases alternating streaming and
//!   computing (the random family of host-check mixes);
//! * `pp-kernels --kernels K --wss-mb N --mops M`: K pointer-chase kernels
//!   over N MiB, M million loads in all, each wrapped in
//!   `pp_begin(COSCHED_PP_LLC, N MiB, reuse)` / `pp_end` through the C
//!   library's functions (`cosched-pp`), as an RDA-annotated program
//!   declares its periods (RDA §2.3). It prints the latency of every call
//!   pair: `pp_round_trip_us` p50/p99 of the periods admitted at once (the
//!   call's cost), and how many periods waited (frozen until admitted) and
//!   for how long.
//!
//! Each runs for `--seconds S` of wall time, or, with `--mops N`, until it
//! has done N million operations (fixed work: what a mix needs, so that
//! contention shows up as a longer turnaround).
//!
//! Every `--report-ms`, and once at the end, it prints `progress <R> ops/s <OPS> ops <T> s`
//! (the rate since the last report, the operations done and the seconds since it started: the
//! series `cosched characterise` splits into phases); at the end one JSON line
//! `{"kind":…,"ops":…,"seconds":…,"ops_per_s":…}`.

use std::hint::black_box;
use std::time::Instant;

mod drive;
mod kernels;

use drive::{drive, Opts};

/// The benchmarks by name.
const KINDS: [&str; 7] =
    ["pointer-chase", "stream", "compute", "random-access", "random-update", "phases", "pp-kernels"];

const USAGE: &str = "usage: cosched-bench pointer-chase|stream|compute|random-access|random-update|phases|pp-kernels [--wss-mb N] [--mb N] [--gbs G] [--seconds S | --mops N] [--report-ms M] [--kernels K] [--reuse 0|1|2] [--huge-pages 0|1] [--phase-mops P] [--compute-mops C]";

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
         random-access --wss-mb N   independent loads from random lines of N MiB (they overlap: memory-level parallelism)\n\
         random-update --wss-mb N   a read-modify-write of a random line of N MiB per operation (each line written back)\n\
         phases --wss-mb N          P million lines streamed over N MiB (--phase-mops P, default 20), then C million\n\
                                    compute operations (--compute-mops C, default 200), and again until --mops\n\
         pp-kernels --kernels K     K pointer-chase kernels over --wss-mb N MiB (--mops M in all), each wrapped in\n\
                                    pp_begin/pp_end (C library); prints the calls' latencies (--reuse 0/1/2, default 2)\n\
         --seconds S                run for S seconds of wall time (default 1)\n\
         --mops N                   or until N million operations are done (fixed work)\n\
         --report-ms M              print `progress <R> ops/s <OPS> ops <T> s` every M ms (default 100) and at the end:\n\
                                    the rate since the last report, the operations done, the seconds since the start\n\
         --huge-pages 1             pointer-chase: ask for 2 MiB pages (transparent huge pages, madvise) for its\n\
                                    cycle; the JSON line then also gives `huge_kb`, what the kernel granted\n\n\
         At the end one JSON line: {{\"kind\", \"ops\", \"seconds\", \"ops_per_s\"}}."
    );
    std::process::exit(0)
}

fn parse(args: Vec<String>) -> Opts {
    let mut a = args.into_iter();
    let kind = a.next().unwrap_or_else(|| usage());
    if kind == "--help" || kind == "-h" {
        help();
    }
    if !KINDS.contains(&kind.as_str()) {
        eprintln!("error: unknown benchmark `{kind}` (known: {})", KINDS.join(", "));
        std::process::exit(2);
    }
    let mut o = Opts {
        kind,
        wss_mb: 16.0,
        gbs: 0.0,
        seconds: 1.0,
        mops: 0.0,
        report_ms: 100,
        kernels: 100,
        reuse: 2,
        huge_pages: false,
        phase_mops: 20.0,
        compute_mops: 200.0,
    };
    while let Some(flag) = a.next() {
        let v = a.next().unwrap_or_else(|| usage());
        let num: f64 = v.parse().unwrap_or_else(|_| {
            eprintln!("error: {flag}: `{v}` is not a number");
            std::process::exit(2)
        });
        // Every count is bounded: a working set must fit memory, a run must end.
        let max = match flag.as_str() {
            "--wss-mb" | "--mb" => 65_536.0,
            "--gbs" => 10_000.0,
            "--seconds" => 86_400.0,
            "--mops" | "--phase-mops" | "--compute-mops" => 1e9,
            "--report-ms" => 60_000.0,
            "--kernels" => 1e6,
            "--huge-pages" => 1.0,
            _ => f64::MAX,
        };
        if !(num.is_finite() && num >= 0.0 && num <= max) {
            eprintln!("error: {flag}: must be from 0 to {max}, got {v}");
            std::process::exit(2);
        }
        match flag.as_str() {
            "--wss-mb" | "--mb" => o.wss_mb = num,
            "--gbs" => o.gbs = num,
            "--seconds" => o.seconds = num,
            "--mops" => o.mops = num,
            "--report-ms" => o.report_ms = num as u64,
            "--kernels" if num >= 1.0 => o.kernels = num as u64,
            "--reuse" if num <= 2.0 => o.reuse = num as i32,
            "--huge-pages" => o.huge_pages = num >= 1.0,
            "--phase-mops" => o.phase_mops = num,
            "--compute-mops" => o.compute_mops = num,
            _ => usage(),
        }
    }
    o
}

/// A random single cycle over the 64-byte lines of `wss_mb` MiB (Sattolo's
/// algorithm, seeded): index k's successor lives at `lines[k * 8]`.
fn cycle(wss_mb: f64, huge_pages: bool) -> Vec<usize> {
    let n = ((wss_mb * 1024.0 * 1024.0 / 64.0) as usize).max(2);
    let mut next: Vec<usize> = (0..n).collect();
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for i in (1..n).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let j = (x % i as u64) as usize;
        next.swap(i, j);
    }
    let mut lines = vec![0usize; n * 8];
    if huge_pages {
        advise_huge(&lines);
    }
    for k in 0..n {
        lines[k * 8] = next[k] * 8;
    }
    lines
}

/// Ask for 2 MiB pages under the 2 MiB-aligned interior of `v`, before it is
/// first written (`madvise(MADV_HUGEPAGE)`: transparent huge pages in
/// `madvise` mode), so that a chase over it needs one translation per 2 MiB
/// instead of per 4 KiB: `scripts/page-size` asks whether a latency knee is the
/// LLC or the TLB's reach (docs/runtime.md, "The page size").
fn advise_huge(v: &[usize]) {
    const HUGE: usize = 2 << 20;
    let (start, len) = (v.as_ptr() as usize, std::mem::size_of_val(v));
    let (lo, hi) = (start.div_ceil(HUGE) * HUGE, (start + len) / HUGE * HUGE);
    if hi > lo {
        // SAFETY: the range lies inside `v`'s allocation; MADV_HUGEPAGE only changes how it is backed.
        let rc = unsafe { libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE) };
        if rc != 0 {
            eprintln!("warning: madvise(MADV_HUGEPAGE): {}", std::io::Error::last_os_error());
        }
    }
}

/// The anonymous memory of this process the kernel backs with huge pages, KiB
/// (`AnonHugePages` of /proc/self/smaps_rollup; 0 where it cannot be read).
fn huge_kb() -> u64 {
    std::fs::read_to_string("/proc/self/smaps_rollup")
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("AnonHugePages:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// The progress-period C library's calls, as `pp-kernels` measures them (the `cosched-bench`
/// program links the library and passes its functions; this library does not link it, so the
/// crates above it need no C library to build or to document).
#[derive(Clone, Copy)]
pub struct PpCalls {
    /// `pp_begin(resource, amount, reuse)`.
    pub begin: extern "C" fn(i32, u64, i32) -> i64,
    /// `pp_end(id)`.
    pub end: extern "C" fn(i64) -> i32,
    /// The LLC resource's number (`COSCHED_PP_LLC`).
    pub llc: i32,
}

/// `pp-kernels`: the kernels, each in a progress period; prints the calls' latencies.
fn pp_kernels(o: &Opts, pp: Option<PpCalls>) {
    let Some(PpCalls { begin: pp_begin, end: pp_end, llc }) = pp else {
        eprintln!(
            "error: pp-kernels measures the progress-period C library, which only the cosched-bench program links (cargo build --release --bin cosched-bench)"
        );
        std::process::exit(2)
    };
    let lines = cycle(o.wss_mb, false);
    let bytes = (o.wss_mb * 1024.0 * 1024.0) as u64;
    let per_kernel = ((o.mops.max(0.001) * 1e6) as u64 / o.kernels).max(1);
    let start = Instant::now();
    let (mut p, mut ops) = (0usize, 0u64);
    let (mut immediate, mut waited): (Vec<f64>, Vec<f64>) = (vec![], vec![]);
    let mut served = true;
    for _ in 0..o.kernels {
        let t = Instant::now();
        let id = pp_begin(llc, bytes.max(1), o.reuse);
        let begin = t.elapsed().as_secs_f64() * 1e6;
        if id < 0 {
            eprintln!("error: pp_begin refused (code {id})");
            std::process::exit(1);
        }
        served &= id > 0;
        for _ in 0..per_kernel {
            p = lines[p];
        }
        ops += per_kernel;
        let t = Instant::now();
        if pp_end(id) != 0 {
            eprintln!("error: pp_end failed");
            std::process::exit(1);
        }
        let end = t.elapsed().as_secs_f64() * 1e6;
        // A begin that took over 1 ms waited for admission (its tree was frozen meanwhile).
        if begin > 1000.0 {
            waited.push(begin);
        } else {
            immediate.push(begin + end);
        }
    }
    black_box(p);
    let secs = start.elapsed().as_secs_f64();
    // JSON null when there is nothing to take a percentile of.
    let pct = |v: &[f64], p: f64| -> String {
        cosched_core::stats::percentile(v, p).map_or("null".into(), |x| format!("{x:.3}"))
    };
    println!(
        "{{\"kind\":\"pp-kernels\",\"served\":{served},\"kernels\":{},\"immediate\":{},\"pp_round_trip_us_p50\":{},\"pp_round_trip_us_p99\":{},\"waited\":{},\"wait_us_p50\":{},\"ops\":{ops},\"seconds\":{secs:.6},\"ops_per_s\":{:.1}}}",
        o.kernels,
        immediate.len(),
        pct(&immediate, 50.0),
        pct(&immediate, 99.0),
        waited.len(),
        pct(&waited, 50.0),
        ops as f64 / secs
    );
}

/// `pointer-chase`: dependent loads around the cycle `lines`.
fn chase(o: &Opts, lines: &[usize]) -> (u64, f64) {
    let mut p = 0usize;
    drive(o, 10_000, || {
        for _ in 0..10_000 {
            p = lines[p];
        }
        p as u64
    })
}

/// Run the benchmark its arguments name (`KIND [--flag value]...`, without the program's name)
/// and exit: 0 when it ran, 2 on bad arguments (one line), 1 when it could not run. `pp` is the
/// progress-period C library's calls for `pp-kernels` (`None`: that kernel is refused).
pub fn main(args: Vec<String>, pp: Option<PpCalls>) -> ! {
    run(args, pp);
    std::process::exit(0)
}

fn run(args: Vec<String>, pp: Option<PpCalls>) {
    // A reader that stops early (`cosched-bench phases | head`) ends the benchmark quietly, as a
    // closed pipe ends any Unix filter, rather than with a panic on the next report.
    // SAFETY: restoring the default disposition of one signal before any thread starts.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    let o = parse(args);
    let (ops, secs) = match o.kind.as_str() {
        "pp-kernels" => return pp_kernels(&o, pp),
        "pointer-chase" => {
            let lines = cycle(o.wss_mb, o.huge_pages);
            if o.huge_pages {
                let (ops, secs) = chase(&o, &lines);
                println!(
                    "{{\"kind\":\"{}\",\"ops\":{ops},\"seconds\":{secs:.6},\"ops_per_s\":{:.1},\"huge_kb\":{}}}",
                    o.kind,
                    ops as f64 / secs,
                    huge_kb()
                );
                return;
            }
            chase(&o, &lines)
        }
        "random-access" => kernels::random_access(&o),
        "random-update" => kernels::random_update(&o),
        "phases" => kernels::phases(&o),
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
