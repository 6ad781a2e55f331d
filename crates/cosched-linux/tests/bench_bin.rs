//! `cosched-bench` runs each micro-benchmark, reports progress and a summary,
//! paces streaming to a requested bandwidth, and rejects bad arguments.

use std::process::Command;

fn bench(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_cosched-bench")).args(args).output().unwrap()
}

fn summary(o: &std::process::Output) -> serde_json::Value {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.lines().any(|l| l.starts_with("progress ")), "{text}");
    serde_json::from_str(text.lines().last().unwrap()).unwrap()
}

#[test]
fn every_benchmark_reports_its_progress_rate() {
    for args in [["pointer-chase", "--wss-mb", "1"], ["stream", "--mb", "8"], ["compute", "--report-ms", "50"]] {
        let mut a: Vec<&str> = args.to_vec();
        a.extend(["--seconds", "0.3", "--report-ms", "50"]);
        let s = summary(&bench(&a));
        assert!(s["ops_per_s"].as_f64().unwrap() > 0.0 && s["kind"] == args[0]);
    }
}

#[test]
fn small_working_sets_chase_faster_than_large_ones() {
    let rate = |mb: &str| {
        summary(&bench(&["pointer-chase", "--wss-mb", mb, "--seconds", "0.4"]))["ops_per_s"].as_f64().unwrap()
    };
    assert!(rate("0.0625") > 1.5 * rate("256"), "64 KiB should chase much faster than 256 MiB");
}

#[test]
fn stream_is_paced_to_the_requested_bandwidth() {
    let s = summary(&bench(&["stream", "--mb", "64", "--gbs", "0.5", "--seconds", "0.5"]));
    let gbs = s["ops_per_s"].as_f64().unwrap() * 64.0 / 1e9;
    assert!((gbs / 0.5 - 1.0).abs() < 0.15, "asked 0.5 GB/s, got {gbs}");
}

#[test]
fn bad_arguments_exit_2_with_one_line() {
    for args in [vec!["nope"], vec!["stream", "--gbs", "x"], vec!["stream", "--gbs", "-1"]] {
        let o = bench(&args);
        assert_eq!(o.status.code(), Some(2));
        assert_eq!(String::from_utf8_lossy(&o.stderr).trim().lines().count(), 1);
    }
}

/// `--help` explains the benchmarks and exits 0;
/// progress lines carry their unit.
#[test]
fn help_exits_0_and_progress_has_units() {
    let o = bench(&["--help"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("pointer-chase") && text.contains("ops/s"), "{text}");
    let o = bench(&["compute", "--seconds", "0.2", "--report-ms", "50"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.lines().any(|l| l.starts_with("progress ") && l.contains(" ops/s ")), "{text}");
    // Each report carries the operations done and the seconds since the start, and the last one
    // the whole run's (what `characterise` splits into phases).
    let series = cosched_linux::reported::series_of(&text);
    assert!(series.len() >= 2, "{text}");
    let summary: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    let last = series[series.len() - 1];
    assert_eq!(last[1], summary["ops"].as_f64().unwrap(), "{text}");
    assert!((last[0] - summary["seconds"].as_f64().unwrap()).abs() < 0.01, "{text}");
}

/// The random family's kernels run fixed work and report it; independent
/// random loads overlap, so they go faster than a chase's dependent loads over the same 64 MiB.
#[test]
fn the_family_kernels_run_fixed_work() {
    for args in [
        vec!["random-access", "--wss-mb", "8", "--mops", "2"],
        vec!["random-update", "--wss-mb", "8", "--mops", "2"],
        vec!["phases", "--wss-mb", "8", "--phase-mops", "1", "--compute-mops", "5", "--mops", "12"],
    ] {
        let mut a = args.clone();
        a.extend(["--report-ms", "1"]);
        let s = summary(&bench(&a));
        let target: f64 = args[args.len() - 1].parse().unwrap();
        assert!(s["ops"].as_f64().unwrap() >= target * 1e6 && s["kind"] == args[0], "{s}");
    }
    let rate =
        |kind: &str| summary(&bench(&[kind, "--wss-mb", "64", "--seconds", "0.4"]))["ops_per_s"].as_f64().unwrap();
    assert!(rate("random-access") > 1.5 * rate("pointer-chase"), "independent loads overlap");
}
