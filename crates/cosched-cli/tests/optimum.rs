//! `cosched optimum` from the command line, and compare's gap to the bound.

mod common;

use common::{cosched, fails_cleanly};
use serde_json::Value;

fn json(args: &[&str]) -> Value {
    let o = cosched(args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn optimum_reports_the_exact_co_schedule_beside_the_estimate_and_matching_never_beats_it() {
    // 8 threads on 12 contexts: every static co-schedule simulated, the partitions with idle
    // contexts (too many to enumerate) sampled; the bound is the higher of the two.
    let v = json(&["optimum", "-m", "xeon-e5645", "-w", "spec-mix8", "--format", "json"]);
    assert_eq!(v["bound"], cosched_lab::optimum::IDLE_EXACT_AND_EVT);
    let e = &v["exhaustive"];
    assert_eq!(e["idle"], false, "the exact part is the static co-schedules");
    let n: u64 = v["static_coschedules"].as_str().unwrap().parse().unwrap();
    assert_eq!(e["evaluated"].as_u64().unwrap(), n);
    let partitions: u128 = v["coschedules"].as_str().unwrap().parse().unwrap();
    assert!(partitions > n as u128, "the family holds the co-schedules and more");
    let exact = e["best"]["outcome"]["throughput_gips"].as_f64().unwrap();
    let bound = v["best"].as_f64().unwrap();
    assert!(bound >= exact, "the bound {bound} below the exact best co-schedule {exact}");
    let ci = v["best_ci"].as_array().unwrap();
    assert!(ci[0].as_f64().unwrap() >= exact && ci[0].as_f64().unwrap() <= bound);
    assert!(e["worst"]["outcome"]["throughput_gips"].as_f64().unwrap() < exact);
    let m = v["matching"]["found"]["outcome"]["throughput_gips"].as_f64().unwrap();
    assert!(m <= exact, "matching {m} above the exact optimum {exact}");
    // Same inputs, same bytes.
    let a = cosched(&["optimum", "-w", "spec-mix8", "--format", "json"]);
    let b = cosched(&["optimum", "-w", "spec-mix8", "--format", "json"]);
    assert_eq!(a.stdout, b.stdout);
}

#[test]
fn beyond_the_budget_the_bound_is_an_evt_estimate_and_says_so() {
    let v = json(&["optimum", "-w", "spec-mix8", "--budget", "10", "--samples", "300", "--format", "json"]);
    assert_eq!(v["bound"], cosched_lab::optimum::IDLE_EVT_ESTIMATE);
    assert!(v["exhaustive"].is_null());
    let o = cosched(&["optimum", "-w", "spec-mix8", "--budget", "10", "--samples", "300", "--no-matching"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("not a proven best") && out.contains("% interval") && !out.contains("NaN"), "{out}");
    // Too few samples for a POT fit: the best partition measured, named as such, not an error.
    let v =
        json(&["optimum", "-w", "spec-mix8", "--budget", "10", "--samples", "5", "--no-matching", "--format", "json"]);
    assert_eq!(v["bound"], cosched_lab::optimum::IDLE_BEST_OF_RANDOM);
    assert_eq!(v["best"], v["sampled"]["best"]["outcome"]["throughput_gips"]);
    // Why there is no estimate is a field of its own beside it, no serde `Err` shape.
    assert!(v["sampled"]["estimate"].is_null() && v["sampled"]["no_estimate"].is_string(), "{}", v["sampled"]);
}

#[test]
fn bad_optimum_input_is_one_line_naming_the_flag() {
    fails_cleanly(&["optimum", "--objective", "fast"], &["--objective", "fast"]);
    fails_cleanly(&["optimum", "--budget", "2000000"], &["--budget", "1000000"]);
    fails_cleanly(&["optimum", "--samples", "1000000000"], &["--samples"]);
    fails_cleanly(&["optimum", "--confidence", "1.5"], &["--confidence"]);
}

#[test]
fn an_oversubscribed_workload_gets_the_bound_over_partitions_with_idle_contexts() {
    // spec-mix8 on the i5-2500: more jobs than contexts (both counts from the report, i.e. the presets).
    let v = json(&["optimum", "-m", "i5-2500", "-w", "spec-mix8", "--samples", "300", "--format", "json"]);
    let (threads, contexts) = (v["threads"].as_u64().unwrap(), v["contexts"].as_u64().unwrap());
    assert!(threads > contexts, "the test needs an oversubscribed workload");
    assert!(v["bound"].as_str().unwrap().contains("idle contexts allowed"), "{}", v["bound"]);
    assert!(v["static_coschedules"].as_str().unwrap().contains("more threads than contexts"));
    let why = format!("{threads} threads on {contexts} contexts");
    assert!(v["no_matching"].as_str().unwrap().contains(&why), "{}", v["matching"]);
    // Balanced over the contexts it uses: ⌊T/k⌋ or ⌈T/k⌉ jobs on each of its k contexts.
    let a: Vec<u64> =
        v["sampled"]["best"]["assignment"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).collect();
    let per: Vec<u64> =
        (0..contexts).map(|c| a.iter().filter(|&&x| x == c).count() as u64).filter(|&k| k > 0).collect();
    assert!(per.iter().max().unwrap() - per.iter().min().unwrap() <= 1, "{a:?}");
    let best = v["best"].as_f64().unwrap();
    assert!(best.is_finite() && best >= v["sampled"]["best"]["outcome"]["throughput_gips"].as_f64().unwrap() - 1e-9);
}

#[test]
fn compare_prints_the_gap_to_the_bound_with_its_interval() {
    let v = json(&["compare", "-w", "spec-mix8", "--policies", "cfs,g-rrs", "--seeds", "2", "--format", "json"]);
    let b = &v["best_static"];
    assert!(b["bound"].as_str().unwrap().contains("idle contexts allowed"), "{b}");
    assert_eq!(b["best_ci"].as_array().unwrap().len(), 2, "an interval (or null) per seed");
    // Each run's speedup is in the JSON, aligned with the runs, and the summary is their mean.
    let (runs, speedups) = (v["runs"].as_array().unwrap(), v["speedups"].as_array().unwrap());
    assert_eq!(runs.len(), speedups.len());
    for p in v["policies"].as_array().unwrap() {
        let mine: Vec<f64> = runs
            .iter()
            .zip(speedups)
            .filter(|(r, _)| r["policy"] == p["policy"])
            .map(|(_, s)| s.as_f64().unwrap())
            .collect();
        let mean = mine.iter().sum::<f64>() / mine.len() as f64;
        assert!((mean - p["speedup"]["mean"].as_f64().unwrap()).abs() < 1e-12, "{}", p["policy"]);
    }
    for p in v["policies"].as_array().unwrap() {
        let g = p["gap_to_bound_pct"]["mean"].as_f64().unwrap();
        assert!(g.is_finite() && g > -50.0 && g < 100.0, "{g}");
        assert_eq!(p["beats_bound"], false, "two seeds are too few to beat it");
    }
    let o = cosched(&["compare", "-w", "spec-mix8", "--policies", "cfs", "--seeds", "2"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("throughput_gips per seed [95% interval]") && out.contains("too few to say"), "{out}");
    // The legend says what this bound is: the exact co-schedules beside the estimate over partitions.
    assert_eq!(b["bound"], cosched_lab::optimum::IDLE_EXACT_AND_EVT);
    assert!(out.contains("the exact best static co-schedule") && !out.contains("no bounded tail"), "{out}");
    // More threads than contexts: partitions only, named so.
    let v =
        json(&["compare", "-m", "i5-2500", "-w", "spec-mix8", "--policies", "cfs", "--seeds", "1", "--format", "json"]);
    assert!(v["best_static"]["bound"].as_str().unwrap().contains("partition"), "{}", v["best_static"]);
    assert!(v["policies"][0]["gap_to_bound_pct"]["mean"].as_f64().unwrap().is_finite());
    let v =
        json(&["compare", "-w", "spec-mix24", "--policies", "cfs", "--seeds", "1", "--no-bound", "--format", "json"]);
    assert!(v["no_best_static"].as_str().unwrap().contains("--no-bound"));
    assert!(v["policies"][0]["gap_to_bound_pct"].is_null());
}
