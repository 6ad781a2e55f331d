//! `cosched optimum` from the command line, and compare's gap to the best.

mod common;

use common::{cosched, fails_cleanly};
use serde_json::Value;

fn json(args: &[&str]) -> Value {
    let o = cosched(args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn optimum_reports_the_exact_optimum_and_matching_never_beats_it() {
    let v = json(&["optimum", "-m", "xeon-e5645", "-w", "spec-mix8", "--format", "json"]);
    assert_eq!(v["bound"], "exact");
    let e = &v["exhaustive"];
    let n: u64 = v["coschedules"].as_str().unwrap().parse().unwrap();
    assert_eq!(e["evaluated"].as_u64().unwrap(), n);
    let best = e["best"]["outcome"]["throughput_gips"].as_f64().unwrap();
    assert_eq!(best, v["best"].as_f64().unwrap());
    assert!(e["worst"]["outcome"]["throughput_gips"].as_f64().unwrap() < best);
    let m = v["matching"]["Ok"]["found"]["outcome"]["throughput_gips"].as_f64().unwrap();
    assert!(m <= best, "matching {m} above the exact optimum {best}");
    // Same inputs, same bytes.
    let a = cosched(&["optimum", "-w", "spec-mix8", "--format", "json"]);
    let b = cosched(&["optimum", "-w", "spec-mix8", "--format", "json"]);
    assert_eq!(a.stdout, b.stdout);
}

#[test]
fn beyond_the_budget_the_bound_is_an_evt_estimate_and_says_so() {
    let v = json(&["optimum", "-w", "spec-mix8", "--budget", "10", "--samples", "300", "--format", "json"]);
    assert_ne!(v["bound"], "exact");
    assert!(v["exhaustive"].is_null());
    let o = cosched(&["optimum", "-w", "spec-mix8", "--budget", "10", "--samples", "300", "--no-matching"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("not to a proven optimum") && !out.contains("NaN"), "{out}");
    // Too few samples for a POT fit: the best assignment measured, named a lower bound, not an error.
    let v =
        json(&["optimum", "-w", "spec-mix8", "--budget", "10", "--samples", "5", "--no-matching", "--format", "json"]);
    assert_eq!(v["bound"], "best of random (no EVT estimate)");
    assert_eq!(v["best"], v["sampled"]["best"]["outcome"]["throughput_gips"]);
}

#[test]
fn bad_optimum_input_is_one_line_naming_the_flag() {
    fails_cleanly(&["optimum", "--objective", "fast"], &["--objective", "fast"]);
    fails_cleanly(&["optimum", "--budget", "2000000"], &["--budget", "1000000"]);
    fails_cleanly(&["optimum", "--samples", "1000000000"], &["--samples"]);
    fails_cleanly(&["optimum", "--confidence", "1.5"], &["--confidence"]);
}

#[test]
fn an_oversubscribed_workload_gets_the_evt_estimate_of_the_best_time_shared_partition() {
    // spec-mix8 on the i5-2500: more jobs than contexts (both counts from the report, i.e. the presets).
    let v = json(&["optimum", "-m", "i5-2500", "-w", "spec-mix8", "--samples", "300", "--format", "json"]);
    let (threads, contexts) = (v["threads"].as_u64().unwrap(), v["contexts"].as_u64().unwrap());
    assert!(threads > contexts, "the test needs an oversubscribed workload");
    assert!(v["bound"].as_str().unwrap().contains("partition"), "{}", v["bound"]);
    assert!(v["coschedules"].as_str().unwrap().contains("more threads than contexts"));
    assert!(v["exhaustive"].is_null());
    let why = format!("{threads} threads on {contexts} contexts");
    assert!(v["matching"]["Err"].as_str().unwrap().contains(&why), "{}", v["matching"]);
    // Balanced: every context holds ⌊T/C⌋ or ⌈T/C⌉ jobs in the best partition drawn.
    let a: Vec<u64> =
        v["sampled"]["best"]["assignment"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).collect();
    for c in 0..contexts {
        let k = a.iter().filter(|&&x| x == c).count() as u64;
        assert!((threads / contexts..=threads.div_ceil(contexts)).contains(&k), "{a:?}");
    }
    let best = v["best"].as_f64().unwrap();
    assert!(best.is_finite() && best >= v["sampled"]["best"]["outcome"]["throughput_gips"].as_f64().unwrap() - 1e-9);
}

#[test]
fn compare_prints_the_gap_to_the_best_static_co_schedule_where_one_exists() {
    let v = json(&["compare", "-w", "spec-mix8", "--policies", "cfs,g-rrs", "--seeds", "2", "--format", "json"]);
    assert_eq!(v["best_static"]["Ok"]["bound"], "exact");
    for p in v["policies"].as_array().unwrap() {
        let g = p["gap_to_bound_pct"]["mean"].as_f64().unwrap();
        assert!(g.is_finite() && g > -50.0 && g < 100.0, "{g}");
    }
    // More threads than contexts: no static co-schedule, so the best time-shared partition, named so.
    let v =
        json(&["compare", "-m", "i5-2500", "-w", "spec-mix8", "--policies", "cfs", "--seeds", "1", "--format", "json"]);
    assert!(v["best_static"]["Ok"]["bound"].as_str().unwrap().contains("partition"), "{}", v["best_static"]);
    assert!(v["policies"][0]["gap_to_bound_pct"]["mean"].as_f64().unwrap().is_finite());
    let v =
        json(&["compare", "-w", "spec-mix24", "--policies", "cfs", "--seeds", "1", "--no-bound", "--format", "json"]);
    assert!(v["best_static"]["Err"].as_str().unwrap().contains("--no-bound"));
    assert!(v["policies"][0]["gap_to_bound_pct"].is_null());
}
