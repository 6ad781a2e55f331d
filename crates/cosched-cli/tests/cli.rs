//! The `cosched` binary: bad input gives one clear line and exit 2; outputs
//! are deterministic; the JSON has the documented fields.

mod common;

use common::{cosched, fails_cleanly, preset, tmp};

#[test]
fn bad_input_is_one_line_naming_file_field_and_problem() {
    fails_cleanly(&["simulate", "-m", "no-such-machine"], &["no-such-machine", "no such preset"]);
    fails_cleanly(&["simulate", "-w", "no-such-workload"], &["no-such-workload"]);
    let m = tmp("malformed.toml", "name = \"x\"\ndescription = \"d\"\nfreq_ghz = = 2\n");
    fails_cleanly(&["simulate", "-m", &m], &["malformed.toml:3", "freq_ghz"]);
    let zero = tmp("zero.toml", &preset("machines", "i5-2500").replace("cores_per_llc = 4", "cores_per_llc = 0"));
    fails_cleanly(&["simulate", "-m", &zero], &["zero.toml", "topology.cores_per_llc", "at least 1"]);
    let neg = tmp("neg.toml", &preset("machines", "i5-2500").replace("llc_mb = 6", "llc_mb = -6"));
    fails_cleanly(&["simulate", "-m", &neg], &["neg.toml", "cache.llc_mb", "must be in [0.0625, 65536], got -6"]);
    let w = tmp("negw.toml", &preset("workloads", "mcf").replace("footprint_mb = 1700", "footprint_mb = -3"));
    fails_cleanly(&["simulate", "-w", &w], &["negw.toml", "job[0].phase[0].footprint_mb"]);
    let w = tmp("typo.toml", &preset("workloads", "mcf").replace("ipc = 0.45", "ipcc = 0.45"));
    fails_cleanly(&["simulate", "-w", &w], &["typo.toml", "ipcc", "unknown field"]);
    let w = tmp("badlatency.toml", &preset("machines", "i5-2500").replace("[0.0, 62.0]", "[0.5, 62.0]"));
    fails_cleanly(&["simulate", "-m", &w], &["badlatency.toml", "memory.loaded_latency"]);
    let i5 = preset("machines", "i5-2500");
    let w = tmp("nobanks.toml", &i5.replace("banks = 8", "banks = 0"));
    fails_cleanly(&["simulate", "-m", &w], &["nobanks.toml", "memory.dram.banks", "must be in [1, 64], got 0"]);
    let w = tmp("nodevice.toml", &i5.replace("device = \"ddr3-1333h\"", "device = \"ddr5\""));
    fails_cleanly(&["simulate", "-m", &w], &["nodevice.toml", "memory.dram.device", "unknown device \"ddr5\""]);
    let w = tmp("halfstream.toml", &i5.replace("streams = [1, 2, 4, 8]", "streams = [1, 2.5, 4, 8]"));
    fails_cleanly(&["simulate", "-m", &w], &["halfstream.toml", "memory.dram.streams[1]", "whole number"]);
    let w = tmp("shortrow.toml", &i5.replace("  [0, 0, 0, 0],\n]", "  [0, 0, 0],\n]"));
    fails_cleanly(&["simulate", "-m", &w], &["shortrow.toml", "memory.dram.stretch[3]", "one value per streams entry"]);
    let w = tmp("selfq.toml", &i5.replace("self_queueing = 0.0", "self_queueing = 1.5"));
    fails_cleanly(&["simulate", "-m", &w], &["selfq.toml", "memory.self_queueing"]);
    let w = tmp(
        "rowloc.toml",
        &preset("workloads", "mcf").replace("wb_ratio = 0.25", "wb_ratio = 0.25\nrow_locality = 1.2"),
    );
    fails_cleanly(&["simulate", "-w", &w], &["rowloc.toml", "job[0].phase[0].row_locality"]);
    fails_cleanly(
        &["simulate", "-w", "canneal", "-p", "static", "--assignment", "0,1"],
        &["has 2 entries", "32 threads"],
    );
    fails_cleanly(&["simulate", "-w", "canneal", "-p", "static", "--assignment", "0,x"], &["--assignment", "thread 1"]);
    fails_cleanly(&["simulate", "-w", "mcf", "-p", "static", "--assignment", "99"], &["context 99"]);
    fails_cleanly(&["simulate", "-p", "no-such-policy"], &["unknown policy", "no-such-policy"]);
    let vips = preset("workloads", "vips");
    let w = tmp("badpattern.toml", &vips.replace("pattern = \"pipeline\"", "pattern = \"pipe-line\""));
    fails_cleanly(&["simulate", "-w", &w], &["badpattern.toml", "pattern", "pipe-line", "stencil"]);
    let w = tmp("nosize.toml", &vips.replace("pattern = \"pipeline\"", "pattern = \"groups\""));
    fails_cleanly(&["simulate", "-w", &w], &["nosize.toml", "job[0].sharing.size", "missing"]);
    let w = tmp("negcomm.toml", &vips.replace("apki = 2.0\n", "apki = -2\n"));
    fails_cleanly(&["simulate", "-w", &w], &["negcomm.toml", "job[0].sharing.apki"]);
    let w =
        tmp("nopattern.toml", &preset("workloads", "mcf").replace("wb_ratio = 0.25", "wb_ratio = 0.25\ncomm_apki = 3"));
    fails_cleanly(&["simulate", "-w", &w], &["nopattern.toml", "job[0].phase[0].comm_apki", "no [job.sharing]"]);
    fails_cleanly(&["simulate", "--threads", "0"], &["--threads"]);
    fails_cleanly(&["simulate", "--quantum-ms=-1"], &["--quantum-ms"]);
    fails_cleanly(&["simulate", "--trace", "/nonexistent-dir/x.json"], &["/nonexistent-dir/x.json"]);
    fails_cleanly(&["compare", "--baseline", "nope"], &["--baseline", "nope"]);
    fails_cleanly(&["compare", "--seeds", "0"], &["--seeds"]);
}

#[test]
fn same_seed_gives_byte_identical_json_and_another_seed_does_not() {
    let args = |seed: &str| {
        let o = cosched(&[
            "simulate",
            "-w",
            "vips",
            "--threads",
            "48",
            "-p",
            "wss",
            "--seed",
            seed,
            "--format",
            "json",
            "--no-timing",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        o.stdout
    };
    assert_eq!(args("5"), args("5"));
    assert_ne!(args("5"), args("6"));
}

#[test]
fn run_to_run_variation_is_seeded_and_noise_zero_is_exact() {
    // mcf alone has no load imbalance and no policy randomness: any difference
    // between seeds is the ground truth's run-to-run variation.
    let makespan = |seed: &str, noise: &str| -> f64 {
        let o = cosched(&[
            "simulate",
            "-m",
            "i5-2500",
            "-w",
            "mcf",
            "-p",
            "cfs",
            "--seed",
            seed,
            "--noise",
            noise,
            "--format",
            "json",
            "--no-timing",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["metrics"]["makespan_s"].as_f64().unwrap()
    };
    assert_eq!(makespan("1", "0"), makespan("2", "0"));
    let runs: Vec<f64> = (1..=8).map(|s| makespan(&s.to_string(), "1")).collect();
    assert_eq!(runs[0], makespan("1", "1"), "same seed, same run");
    let mean = runs.iter().sum::<f64>() / runs.len() as f64;
    let cv = (runs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (runs.len() - 1) as f64).sqrt() / mean;
    // Published magnitudes give a spread of about 1-2% for a memory-bound program.
    assert!(cv > 0.002 && cv < 0.05, "coefficient of variation {cv}: {runs:?}");
    fails_cleanly(&["simulate", "--noise=-1"], &["--noise"]);
    fails_cleanly(&["assign", "--noise=nan"], &["--noise"]);
}

#[test]
fn simulate_json_has_the_documented_fields() {
    let o = cosched(&["simulate", "-w", "water-nsq", "-p", "g-rrs", "--format", "json"]);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    for k in ["policy", "machine", "workload", "seed", "noise", "metrics", "jobs"] {
        assert!(v.get(k).is_some(), "missing {k}");
    }
    let m = &v["metrics"];
    for k in ["makespan_s", "throughput_gips", "stp", "antt", "unfairness", "edp_js", "llc_misses", "ctx_switches"] {
        assert!(m[k].is_number(), "metrics.{k}: {}", m[k]);
    }
    for k in ["energy_j", "energy_cpu_j", "energy_dram_j"] {
        assert!(m[k].as_f64().unwrap() > 0.0, "metrics.{k}");
    }
    assert!(m["decide_p50_us"].is_number() && m["decide_p99_us"].is_number());
    let j = &v["jobs"][0];
    assert!(j["name"].is_string() && j["turnaround_s"].is_number() && j["slowdown"].is_number());
}

#[test]
fn list_json_is_an_array_of_named_described_objects() {
    for what in ["policies", "machines", "workloads"] {
        let o = cosched(&["list", what, "--format", "json"]);
        assert!(o.status.success());
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let a = v.as_array().unwrap();
        assert!(!a.is_empty());
        for item in a {
            assert!(item["name"].is_string() && item["description"].is_string());
        }
    }
}

#[test]
fn compare_reports_speedups_against_a_baseline_measured_in_the_same_run() {
    let o = cosched(&[
        "compare",
        "-w",
        "swaptions",
        "--policies",
        "g-rrs,cfs",
        "--baseline",
        "g-rrs",
        "--seeds",
        "2",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = v["policies"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    let base = rows.iter().find(|r| r["policy"] == "g-rrs").unwrap();
    assert!((base["speedup"]["mean"].as_f64().unwrap() - 1.0).abs() < 1e-12);
    assert_eq!(v["runs"].as_array().unwrap().len(), 4);
}

#[test]
fn compare_names_the_policies_outside_their_papers_regime_under_the_table() {
    let args =
        ["compare", "-w", "spec-mix8", "--policies", "cfs,perf-fair", "--seeds", "2", "--no-bound", "--no-timing"];
    let o = cosched(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("outside its paper's regime: perf-fair."), "{out}");
    assert!(out.contains("with every job stretched to 100 s alone"), "{out}");
    let o = cosched(&[&args[..], &["--no-regime"]].concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!String::from_utf8_lossy(&o.stdout).contains("regime"));
}

#[test]
fn trace_is_valid_chrome_trace_json_with_a_track_per_context() {
    let path = tmp("trace.json", "");
    let o = cosched(&["simulate", "-m", "i5-2500", "-w", "raytrace", "--threads", "8", "--trace", &path]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let ev = v["traceEvents"].as_array().unwrap();
    let tracks = ev.iter().filter(|e| e["ph"] == "M" && e["name"] == "thread_name").count();
    assert_eq!(tracks, 4);
    let slices: Vec<_> = ev.iter().filter(|e| e["ph"] == "X").collect();
    assert!(slices.len() > 8);
    assert!(slices.iter().all(|s| s["dur"].as_f64().unwrap() >= 0.0 && s["tid"].as_u64().unwrap() < 4));
    // It says where it wrote, and a run that fails leaves no trace file, whole or half.
    assert!(String::from_utf8_lossy(&o.stderr).contains(&format!("trace: wrote {path}")));
    let failed = tmp("failed-trace.json", "");
    std::fs::remove_file(&failed).unwrap();
    let o = cosched(&["simulate", "-m", "i5-2500", "-w", "raytrace", "--max-events", "50", "--trace", &failed]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!std::path::Path::new(&failed).exists() && !std::path::Path::new(&format!("{failed}.part")).exists());
}

/// The reruns themselves are tested in-process (`crates/cosched-lab/tests/papers.rs`)
/// and at full size by `scripts/check-results`; here, the face: a small rerun
/// prints its report and writes the CSV files it names, and bad flags are refused
/// by name before any work.
#[test]
fn paper_prints_the_report_writes_its_csvs_and_refuses_bad_flags() {
    let dir = std::env::temp_dir().join(format!("cosched-paper-{}", std::process::id()));
    let d = dir.to_str().unwrap();
    let o = cosched(&["paper", "evt", "--seeds", "1", "--samples", "300", "--no-timing", "--out", d]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.starts_with("# Statistical thread assignment") && text.contains("## SP-POT"), "{text}");
    for f in ["pot.csv", "sample-size.csv", "sp-pot.csv", "random-sampling.csv"] {
        let csv = std::fs::read_to_string(dir.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
        assert!(csv.lines().next().is_some_and(|h| h.starts_with("application,")), "{f}: {csv}");
    }
    let _ = std::fs::remove_dir_all(&dir);
    fails_cleanly(&["paper", "efs", "--seeds", "0"], &["--seeds", "from 1 to 10000"]);
    fails_cleanly(&["paper", "efs", "--noise", "-1"], &["--noise"]);
    fails_cleanly(&["paper", "evt", "--seeds", "0"], &["--seeds"]);
    fails_cleanly(&["paper", "slits", "--seeds", "0"], &["--seeds"]);
    fails_cleanly(&["paper", "slits", "--ablation-seeds", "0"], &["--ablation-seeds"]);
    fails_cleanly(&["paper", "perf-fair", "--bw-range", "140:40"], &["--bw-range", "LOW:HIGH"]);
    fails_cleanly(&["paper", "perf-fair", "--mixes", "0"], &["--mixes"]);
    fails_cleanly(&["paper", "rda", "--pp-cost-us", "-1"], &["--pp-cost-us"]);
    fails_cleanly(&["paper", "rda", "--seeds", "0"], &["--seeds"]);
}

#[test]
fn evt_and_assign_estimate_bounds_and_reject_bad_input() {
    // A bounded sample: uniform on [0, 10].
    let mut x: u64 = 12345;
    let mut rows = String::from("run,perf\n");
    for i in 0..3000 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        rows += &format!("{i},{}\n", (x >> 11) as f64 / (1u64 << 53) as f64 * 10.0);
    }
    let f = tmp("uniform.csv", &rows);
    let o = cosched(&["evt", &f, "--column", "perf", "--format", "json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let upb = v["result"]["upb"].as_f64().unwrap();
    assert!((9.9..10.2).contains(&upb), "UPB {upb}");
    assert!(v["result"]["fit"]["xi"].as_f64().unwrap() < 0.0);
    let d = &v["diagnostics"];
    assert!(d["mean_residual_life"].as_array().unwrap().len() > 5 && d["stability"].as_array().unwrap().len() > 3);
    for s in d["stability"].as_array().unwrap() {
        let (lo, hi) = (s["xi_lo"].as_f64().unwrap(), s["xi_hi"].as_f64().unwrap());
        assert!(lo <= s["fit"]["xi"].as_f64().unwrap() && s["fit"]["xi"].as_f64().unwrap() <= hi, "{s}");
        assert!(s["p_value"].as_f64().is_some() && s["forward_stop"].as_f64().is_some());
    }
    assert!(d["chosen"].as_u64().is_some());
    fails_cleanly(&["evt", &f, "--column", "nope"], &["uniform.csv", "nope"]);
    fails_cleanly(&["evt", &f, "--threshold", "x1"], &["--threshold"]);
    fails_cleanly(&["evt", &tmp("bad.csv", "a\n1\nzz\n"), "--column", "a"], &["bad.csv:3", "zz"]);
    fails_cleanly(&["evt", &tmp("few.csv", "1\n2\n3\n")], &["few.csv", "exceedances"]);
    // Several numeric columns and no --column: refused, listing them
    // (a run index must never be taken for the measurements).
    fails_cleanly(&["evt", &f], &["uniform.csv", "2 numeric columns (run, perf)", "--column"]);
    let o = cosched(&["evt", &f, "--column", "1"]);
    assert!(String::from_utf8_lossy(&o.stdout).lines().any(|l| l.starts_with("column") && l.ends_with("perf")));
    let o = cosched(&["assign", "--samples", "2500", "--prune", "0.5", "--format", "json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["measured"], 1250);
    assert!(v["pot"]["upb"].as_f64().unwrap() >= v["best"].as_f64().unwrap());
    assert_eq!(v["best_assignment"].as_array().unwrap().len(), 24);
    fails_cleanly(&["assign", "--prune", "1.5"], &["--prune"]);
    fails_cleanly(&["assign", "--predictor", "magic"], &["--predictor", "magic"]);
}

#[test]
fn doctor_reports_every_capability_of_this_machine() {
    let o = cosched(&["doctor", "--format", "json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let names: Vec<&str> = v["report"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    for n in ["hardware counters", "RAPL energy", "cgroups", "SMT", "LLC domains", "privileges"] {
        assert!(names.contains(&n), "missing {n}: {names:?}");
    }
    assert!(!v["probe"]["llc_domains"].as_array().unwrap().is_empty());
}

#[test]
fn validate_reports_every_point_and_fails_on_one_out_of_tolerance() {
    // One full run (about 30 s) with every rendering written beside its JSON (`--out`).
    let dir = std::env::temp_dir().join(format!("cosched-validate-{}", std::process::id()));
    let o = cosched(&["validate", "--format", "json", "--out", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    assert_eq!(read("points.json"), String::from_utf8_lossy(&o.stdout), "--out's points.json is what it prints");
    let (pts, bare): (Vec<_>, Vec<_>) = v.as_array().unwrap().iter().partition(|p| p["status"] != "no points");
    // At least 25 points, 10 of them held out, every preset covered.
    assert!(pts.len() >= 25, "{} points", pts.len());
    assert!(pts.iter().filter(|p| p["fitted"] == false).count() >= 10);
    let presets = cosched_machine::presets::machine_names().count();
    let covered: std::collections::BTreeSet<&str> = pts.iter().map(|p| p["machine"].as_str().unwrap()).collect();
    assert_eq!(covered.len(), presets, "presets without points: {bare:?}");
    // A point out of tolerance passes only as a known gap naming what the model lacks.
    for p in pts.iter().filter(|p| p["status"] == "known gap") {
        assert!(p["missing_mechanism"].as_str().is_some_and(|m| !m.is_empty()), "{p}");
    }
    for p in &pts {
        for k in [
            "machine",
            "origin",
            "name",
            "published",
            "simulated",
            "error",
            "tolerance",
            "target",
            "fitted",
            "source",
            "status",
        ] {
            assert!(p.get(k).is_some(), "missing {k}: {p}");
        }
        // A bound point says so; a pass outside the tolerance is a pass on the bound alone.
        assert_eq!(p["target"] == "bound", !p["bound"].is_null(), "{p}");
        if p["status"] == "pass" && p["within_tolerance"] == false {
            assert_eq!(p["target"], "bound", "{p}");
        }
        assert!(["pass", "known gap", "fail"].contains(&p["status"].as_str().unwrap()), "{p}");
        assert!(!(p["fitted"] == true && p["development"] == true), "fitted and development: {p}");
    }
    // Every machine is of one origin, and both origins are counted apart in the summary.
    for m in &covered {
        let origins: std::collections::BTreeSet<&str> =
            pts.iter().filter(|p| p["machine"] == *m).map(|p| p["origin"].as_str().unwrap()).collect();
        assert_eq!(origins.len(), 1, "{m}: {origins:?}");
    }
    // At least 10 held-out points written down before the mechanisms they judge (pre-registered).
    let registered: Vec<_> = pts.iter().filter(|p| p["registered"].is_string()).collect();
    assert!(registered.len() >= 10, "{} pre-registered points", registered.len());
    assert!(registered.iter().all(|p| p["fitted"] == false && p["development"] == false));
    // The docs' table is this run's `--doc` rendering; a machine's own file is what validating it alone prints.
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/model.md")).unwrap();
    let begin = docs.find("<!-- validate:begin -->\n").expect("docs/model.md has the validate:begin marker");
    let end = docs.find("<!-- validate:end -->").expect("docs/model.md has the validate:end marker");
    assert_eq!(
        &docs[begin + "<!-- validate:begin -->\n".len()..end],
        read("doc.md"),
        "docs/model.md's table differs from `cosched validate --doc`: paste the rerun between the markers"
    );
    let alone = cosched(&["validate", "xeon-x5550-16c"]);
    assert_eq!(String::from_utf8_lossy(&alone.stdout), read("xeon-x5550-16c.txt"));
    let table = read("all.txt");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(table.contains("\npublished machines: ") && table.contains("\ncalibrated hosts: "), "{table}");
    assert!(table.contains("\npre-registered held-out points"), "{table}");
    let bus = pts.iter().find(|p| p["kind"] == "bus_rate").unwrap();
    assert_eq!(bus["status"], "pass");
    // The same point with a wrong published value and no known gap fails with exit 1.
    let m = preset("machines", "i5-2500").replace("published = 150.0", "published = 300.0");
    let f = tmp("wrongbus.toml", &m);
    let o = cosched(&["validate", &f]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("out of tolerance") && err.contains("bus rate"), "{err}");
    let f = tmp("badkind.toml", &preset("machines", "i5-2500").replace("kind = \"bus_rate\"", "kind = \"bus_rat\""));
    fails_cleanly(&["validate", &f], &["badkind.toml", "kind", "unknown variant `bus_rat`", "bus_rate"]);
    // A rerun cell that is not in the rerun names the field and what the rerun has.
    for (from, to, expect) in [
        ("table = \"fig10\"", "table = \"fig99\"", ["check.table", "no table `fig99`"]),
        ("column = \"CPU energy J\"", "column = \"CPU joules\"", ["check.column", "no column `CPU joules`"]),
        ("row = [\"gemsfdtd\"]", "row = [\"gems\"]", ["check.row", "0 rows of table `fig8`"]),
    ] {
        let f = tmp("badcell.toml", &preset("machines", "i5-2500").replacen(from, to, 1));
        fails_cleanly(&["validate", &f], &["i5-2500", expect[0], expect[1]]);
    }
    // An ablation names a mechanism the model has.
    fails_cleanly(&["validate", "i5-2500", "--ablate", "bogus"], &["--ablate", "unknown mechanism `bogus`", "tenants"]);
    // A known gap must name the mechanism the model lacks.
    let m = preset("machines", "i5-2500");
    let cut = m.lines().filter(|l| !l.starts_with("missing_mechanism")).collect::<Vec<_>>().join("\n");
    let f = tmp("nomechanism.toml", &cut);
    fails_cleanly(&["validate", &f], &["nomechanism.toml", "missing_mechanism", "must name the mechanism"]);
    // A kind without the field it needs names the field; counts a user types are bounded before
    // anything runs; a chase faster than the machine could run it is refused.
    for (machine, from, to, file, expect) in [
        ("kvm-epyc-2c", "solo_rate_m = 75.7\n", "", "nochase.toml", ["check[0].solo_rate_m", "M loads/s"]),
        ("i5-2500", "copies = 4", "copies = 5000", "manycopies.toml", ["copies", "from 1 to 4096"]),
        ("xeon-e5-2420", "samples = 8", "samples = 5000", "manyseeds.toml", ["samples", "at most 1000"]),
        ("kvm-epyc-2c", "solo_rate_m = 75.7", "solo_rate_m = 90000", "fastchase.toml", ["solo_rate_m", "issue width"]),
    ] {
        let f = tmp(file, &preset("machines", machine).replacen(from, to, 1));
        let blame = if file == "fastchase.toml" { machine } else { file };
        fails_cleanly(&["validate", &f], &[blame, expect[0], expect[1]]);
    }
}

#[test]
fn validate_of_a_machine_without_points_says_so() {
    let m = preset("machines", "i5-2500");
    let bare = m.split("[[check]]").next().unwrap().to_string();
    let f = tmp("nopoints.toml", &bare);
    let o = cosched(&["validate", &f]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains(": no points"), "{out}");
    assert!(out.contains("0 points on 0 of 1 machines"), "{out}");
}

#[test]
fn dram_checks_table_1_at_the_dram_and_regenerates_the_presets_table() {
    // The check: one line per row locality, parallel / serial for 2, 4 and 8 streams.
    let o = cosched(&["dram", "-m", "i5-2500"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("4 streams: parallel / serial") && out.lines().filter(|l| l.starts_with("0.9")).count() == 1,
        "{out}"
    );
    // --toml: the machine's block, which a machine file takes as it is.
    let o = cosched(&["dram", "-m", "i5-2500", "--toml"]);
    let block = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(block.starts_with("[memory.dram]\ndevice = \"ddr3-1333h\"") && block.contains("stretch = ["), "{block}");
    let i5 = preset("machines", "i5-2500");
    let at = i5.find("[memory.dram]").expect("the i5-2500 has a DRAM");
    let end = at + i5[at..].find("\n[power]").expect("[power] follows");
    let rebuilt = format!("{}{}\n{}", &i5[..at], block.trim_end(), &i5[end..]);
    let path = tmp("dram-rebuilt.toml", &rebuilt);
    let o = cosched(&["simulate", "-m", &path, "-w", "mcf", "-p", "cfs", "--format", "json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // A machine without [memory.dram] is refused in one line.
    fails_cleanly(&["dram", "-m", "xeon-e5645"], &["xeon-e5645", "no [memory.dram]"]);
}

#[test]
fn a_heartbeat_is_told_from_an_error_line() {
    // fails_cleanly's one error line: a slow host's heartbeats are set aside, nothing else is.
    assert!(common::is_heartbeat("validate: still running (8.0 s)"));
    assert!(!common::is_heartbeat("error: i5-2500: check.table: the rerun has no table `fig99`"));
    assert!(!common::is_heartbeat("error: x: still running (soon)"));
}

/// `validate` names its machine as every other command does (`-m`), as well as by argument.
#[test]
fn validate_takes_the_machine_by_m_as_every_command_does() {
    // A calibrated guest: its points take a moment (the E5645's take a minute).
    let by_m = cosched(&["validate", "-m", "kvm-epyc-2c", "--format", "csv"]);
    let by_arg = cosched(&["validate", "kvm-epyc-2c", "--format", "csv"]);
    assert_eq!(by_m.status.code(), by_arg.status.code());
    assert_eq!(by_m.stdout, by_arg.stdout);
    assert!(String::from_utf8_lossy(&by_m.stdout).contains("kvm-epyc-2c"));
}
