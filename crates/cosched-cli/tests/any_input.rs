//! Any input: counts are bounded before anything is allocated,
//! runs have an event budget, results are never NaN, and errors blame the
//! right thing before the work. One test per numbered item of the issue.

mod common;

use common::{cosched, fails_cleanly, tmp};
use std::time::{Duration, Instant};

/// Item 3: every count a user can type is refused above its bound, with
/// the bound and why, at once (no allocation, no panic).
#[test]
fn counts_past_their_bounds_are_refused_at_once() {
    let t = Instant::now();
    fails_cleanly(
        &["assign", "-m", "ultrasparc-t2", "-w", "ipfwd-mem", "--samples", "1000000000000"],
        &["--samples", "from 1 to 1000000", "each assignment"],
    );
    fails_cleanly(
        &["compare", "-m", "i5-2500", "-w", "mcf", "--policies", "cfs", "--seeds", "1000000000"],
        &["--seeds", "10000"],
    );
    fails_cleanly(&["paper", "evt", "--samples", "99999999999"], &["--samples"]);
    fails_cleanly(&["paper", "slits", "--seeds", "99999999"], &["--seeds"]);
    fails_cleanly(&["simulate", "-p", "slits-contention", "--slits-k", "100000000"], &["--slits-k", "256"]);
    fails_cleanly(&["simulate", "-p", "efs", "--efs-newton-iters", "99999999"], &["--efs-newton-iters"]);
    fails_cleanly(&["run", "--repeat", "99999999", "--", "true"], &["--repeat", "1000"]);
    fails_cleanly(
        &["simulate", "-m", "i5-2500", "-w", "spec-mix24", "-p", "g-rrs", "--quantum-ms", "1e-9"],
        &["--quantum-ms", "1 µs"],
    );
    fails_cleanly(&["simulate", "-p", "g-rrs", "--quantum-ms", "1e300"], &["--quantum-ms", "1 hour"]);
    fails_cleanly(&["run", "--timeout-s", "1e300", "--", "true"], &["--timeout-s"]);
    fails_cleanly(&["run", "--tick-ms", "1e300", "--", "true"], &["--tick-ms", "10000"]);
    fails_cleanly(&["calibrate", "--seconds", "1e300", "-o", "/tmp/never.toml"], &["--seconds", "3600"]);
    assert!(t.elapsed() < Duration::from_secs(30), "refusals are immediate");
}

/// Item 3: a run past its event budget ends with one line naming the budget
/// and the flag that raises it, within seconds of reaching it.
#[test]
fn a_runaway_workload_ends_at_its_event_budget() {
    let w = tmp(
        "runaway.toml",
        "name = \"runaway\"\n[[job]]\nname = \"loop\"\niterations = 4000000000\n[[job.phase]]\ninstructions = 1e6\n\
         ipc = 1.0\nllc_apki = 1.0\nllc_mpki = 0.1\nmrc_ref_mb = 8\nfootprint_mb = 1\n",
    );
    let t = Instant::now();
    fails_cleanly(
        &["simulate", "-m", "i5-2500", "-w", &w, "--max-events", "200000"],
        &["runaway.toml", "event budget of 200000 events", "--max-events"],
    );
    assert!(t.elapsed() < Duration::from_secs(20), "took {:?}", t.elapsed());
    fails_cleanly(&["simulate", "--max-events", "0"], &["--max-events"]);
}

/// Every numeric leaf of a TOML document, as a path of keys and indices.
fn numeric_leaves(v: &toml::Value, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match v {
        toml::Value::Table(t) => {
            for (k, x) in t {
                path.push(k.clone());
                numeric_leaves(x, path, out);
                path.pop();
            }
        }
        toml::Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                path.push(i.to_string());
                numeric_leaves(x, path, out);
                path.pop();
            }
        }
        toml::Value::Integer(_) | toml::Value::Float(_) => out.push(path.clone()),
        _ => {}
    }
}

fn set(v: &mut toml::Value, path: &[String], x: toml::Value) {
    let mut at = v;
    for k in path {
        at = match at {
            toml::Value::Table(t) => t.get_mut(k).unwrap(),
            toml::Value::Array(a) => &mut a[k.parse::<usize>().unwrap()],
            _ => unreachable!(),
        };
    }
    *at = x;
}

/// Item 4: every numeric field of a machine and of a workload set to extreme
/// values is refused with one line naming the file, or gives finite results.
#[test]
fn every_numeric_field_at_extreme_values_is_refused_or_gives_finite_results() {
    let extremes = [
        toml::Value::Float(1e300),
        toml::Value::Float(1e-300),
        toml::Value::Float(-1.0),
        toml::Value::Float(0.0),
        toml::Value::Float(-1e300),
        toml::Value::Float(f64::NAN),
        toml::Value::Float(f64::INFINITY),
        toml::Value::Integer(0),
        toml::Value::Integer(i64::MAX),
    ];
    let mut cases = vec![];
    for (kind, name) in
        [("machines", "i5-2500"), ("workloads", "mcf"), ("workloads", "canneal"), ("workloads", "efs-synthetic")]
    {
        let doc: toml::Value = toml::from_str(&common::preset(kind, name)).unwrap();
        let mut leaves = vec![];
        numeric_leaves(&doc, &mut vec![], &mut leaves);
        assert!(leaves.len() >= 5, "{name}: {leaves:?}");
        for leaf in &leaves {
            for (k, x) in extremes.iter().enumerate() {
                let mut d = doc.clone();
                set(&mut d, leaf, x.clone());
                let file = tmp(&format!("extreme-{name}-{}-{k}.toml", leaf.join("_")), &toml::to_string(&d).unwrap());
                cases.push((kind, name, leaf.join("."), file));
            }
        }
    }
    let failures: Vec<String> = std::thread::scope(|s| {
        let chunks: Vec<_> = cases.chunks(cases.len().div_ceil(4)).collect();
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                s.spawn(move || {
                    let mut bad = vec![];
                    for (kind, name, leaf, file) in chunk {
                        let (m, w) =
                            if *kind == "machines" { (file.as_str(), "mcf") } else { ("i5-2500", file.as_str()) };
                        let mut args = vec!["simulate", "-m", m, "-w", w, "-p", "cfs", "--max-events", "2000000"];
                        if *name == "canneal" {
                            args.extend(["--threads", "4"]);
                        }
                        let o = cosched(&[&args[..], &["--format", "json"]].concat());
                        let err = String::from_utf8_lossy(&o.stderr).to_string();
                        let out = String::from_utf8_lossy(&o.stdout).to_string();
                        let ok = match o.status.code() {
                            Some(2) => {
                                err.trim_end().lines().count() == 1
                                    && !err.contains("panicked")
                                    && err.contains(file.as_str())
                            }
                            Some(0) => match serde_json::from_str::<serde_json::Value>(&out) {
                                Ok(v) => {
                                    let met = &v["metrics"];
                                    ["makespan_s", "throughput_gips", "edp_js"]
                                        .iter()
                                        .all(|k| met[k].as_f64().is_some_and(f64::is_finite))
                                        && !out.contains("NaN")
                                        && !out.contains("null,\n    \"antt")
                                }
                                Err(_) => false,
                            },
                            _ => false,
                        };
                        if !ok {
                            bad.push(format!(
                                "{name} {leaf} ({file}): exit {:?}: {} {}",
                                o.status.code(),
                                err.trim(),
                                &out[..out.len().min(300)]
                            ));
                        }
                    }
                    bad
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    assert!(failures.is_empty(), "{} of {} cases:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

/// Item 4: completion and POT on values at the edge of f64 give finite,
/// short numbers (no NaN, no 300-digit decimals).
#[test]
fn edge_of_f64_values_give_finite_short_numbers() {
    let c = tmp("edge-complete.csv", "row,col,value\n0,0,1e154\n0,1,-1e154\n1,0,2\n1,1,\n");
    let o = cosched(&["complete", &c]);
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8_lossy(&o.stdout);
    let v: f64 = out.lines().nth(1).unwrap().split(',').nth(2).unwrap().parse().unwrap();
    assert!(v.is_finite() && !out.contains("NaN"), "{out}");
    assert!(out.lines().all(|l| l.len() < 80), "{out}");
    let mut rows = String::from("value\n");
    let mut x: u64 = 7;
    for _ in 0..500 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let u = (x >> 11) as f64 / (1u64 << 53) as f64;
        rows.push_str(&format!("{:e}\n", (u * 2.0 - 1.0) * 1e308));
    }
    let e = tmp("edge-evt.csv", &rows);
    for extra in [vec![], vec!["--threshold=1e308"], vec!["--threshold=-1e308"]] {
        let o = cosched(&[&["evt", &e][..], &extra[..]].concat());
        let err = String::from_utf8_lossy(&o.stderr);
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(!err.contains("panicked") && !out.contains("NaN"), "{err}{out}");
        assert!(err.lines().all(|l| l.len() < 600) && out.lines().all(|l| l.len() < 120), "{extra:?}: {err}{out}");
    }
}

/// Item 5: `profile --window 1` has one window per access and nothing past the end.
#[test]
fn profile_windows_end_with_the_trace() {
    let t = tmp("ten.csv", &(1..=10).map(|i| format!("{}\n", i * 64)).collect::<String>());
    for (window, expect) in [("1", 10), ("10", 1), ("20", 1), ("21", 0)] {
        let o = cosched(&[
            "profile",
            &t,
            "--trace-format",
            "csv",
            "--window",
            window,
            "--min-touches",
            "1",
            "--format",
            "json",
        ]);
        assert_eq!(o.status.code(), Some(0));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["windows"], expect, "--window {window}: {v}");
        assert_eq!(v["accesses"], 10);
        for p in v["periods"].as_array().unwrap() {
            assert!(p["start_access"].as_u64().unwrap() < 10 && p["footprint"].as_f64().unwrap() > 0.0, "{p}");
        }
    }
}

/// Item 8: a byte-order mark at the start of a CSV is read past; a sample
/// that is not independent is warned about on stderr.
#[test]
fn spreadsheet_csv_files_and_dependent_samples() {
    let c = tmp("bom-complete.csv", "\u{feff}row,col,value\n0,0,1\n0,1,2\n1,0,3\n1,1,\n");
    let o = cosched(&["complete", &c]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let sorted: String =
        std::iter::once("\u{feff}value\n".to_string()).chain((0..1000).map(|i| format!("{i}\n"))).collect();
    let e = tmp("bom-sorted.csv", &sorted);
    let o = cosched(&["evt", &e, "--format", "json"]);
    let err = String::from_utf8_lossy(&o.stderr);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["column"], "value", "the header is `value`, not `\\u{{feff}}value`");
    assert!(err.contains("not independent") && err.contains("not to be trusted"), "{err}");
    assert!(v["warnings"][0].as_str().unwrap().contains("not independent"));
}

/// Item 7: an error blames the option or file at fault, and output paths
/// are checked before any work is done.
#[test]
fn errors_blame_the_right_thing_before_the_work() {
    let o = cosched(&["simulate", "-m", "i5-2500", "-w", "mcf", "-p", "cfs", "--noise", "-1"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2));
    assert!(err.starts_with("error: --noise: must be from 0"), "the workload is not at fault: {err}");
    let mix = tmp("nocwd.toml", "[[job]]\nname = \"t\"\ncmd = [\"true\"]\ncwd = \"/no/such/dir\"\n");
    fails_cleanly(&["run", "-w", &mix], &["nocwd.toml", "job[0].cwd", "/no/such/dir", "not a directory"]);
    let t = Instant::now();
    fails_cleanly(&["paper", "efs", "--out", "/proc/x"], &["--out", "/proc/x"]);
    fails_cleanly(&["paper", "perf-fair", "--out", "/proc/x"], &["--out", "/proc/x"]);
    assert!(t.elapsed() < Duration::from_secs(5), "refused before running: {:?}", t.elapsed());
    fails_cleanly(
        &["assign", "--samples", "10", "--dump", "/nonexistent/dir/x.csv"],
        &["--dump", "/nonexistent/dir/x.csv"],
    );
    let c = tmp("mo.csv", "row,col,value\n0,0,1\n0,1,\n");
    fails_cleanly(&["complete", &c, "--model-out", "/nonexistent/dir/m.json"], &["--model-out"]);
    fails_cleanly(
        &["run", "--trace", "/nonexistent/dir/t.json", "--", "true"],
        &["--trace", "/nonexistent/dir/t.json"],
    );
}
