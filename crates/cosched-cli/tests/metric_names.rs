//! Every column `simulate`, `compare` and `list` print (table, CSV, JSON) is a
//! metric of the registry (`cosched_core::metrics::registry`) or a label, and
//! docs/formats.md carries the registry as it is.

mod common;

use common::cosched;
use cosched_core::metrics::registry::{self, is_known_column};
use serde_json::Value;

fn stdout(args: &[&str]) -> String {
    let o = cosched(args);
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

fn assert_known<'a>(what: &str, columns: impl IntoIterator<Item = &'a str>) {
    let mut n = 0;
    for c in columns {
        assert!(is_known_column(c), "{what}: column `{c}` is not in the metric registry (cosched list metrics)");
        n += 1;
    }
    assert!(n > 0, "{what}: no columns read");
}

fn keys(v: &Value) -> Vec<&str> {
    v.as_object().expect("an object").keys().map(String::as_str).collect()
}

const RUN: [&str; 5] = ["-w", "mcf", "--no-timing", "--machine", "i5-2500"];

#[test]
fn simulate_prints_only_registered_columns() {
    let base = [&["simulate"][..], &RUN[..]].concat();
    let csv = stdout(&[&base[..], &["--format", "csv"]].concat());
    assert_known("simulate csv", csv.lines().next().unwrap().split(','));
    let table = stdout(&[&base[..], &["--format", "table"]].concat());
    let mut blocks = table.split("\n\n");
    let metrics = blocks.next().unwrap();
    assert_known("simulate table header", metrics.lines().nth(1).unwrap().split_whitespace());
    assert_known("simulate table rows", metrics.lines().skip(3).map(|l| l.split_whitespace().next().unwrap()));
    assert_known("simulate job table", blocks.next().unwrap().lines().next().unwrap().split_whitespace());
    let v: Value = serde_json::from_str(&stdout(&[&base[..], &["--format", "json"]].concat())).unwrap();
    assert_known("simulate json metrics", keys(&v["metrics"]));
    assert_known("simulate json jobs", keys(&v["jobs"][0]).into_iter().filter(|k| *k != "name"));
}

#[test]
fn compare_prints_only_registered_columns() {
    let base = [&["compare"][..], &RUN[..], &["--policies", "cfs,g-rrs", "--seeds", "2"]].concat();
    let csv = stdout(&[&base[..], &["--format", "csv"]].concat());
    assert_known("compare csv", csv.lines().next().unwrap().split(','));
    let table = stdout(&[&base[..], &["--format", "table"]].concat());
    assert_known("compare table", table.lines().nth(1).unwrap().split_whitespace());
    let v: Value = serde_json::from_str(&stdout(&[&base[..], &["--format", "json"]].concat())).unwrap();
    assert_known("compare json rows", keys(&v["policies"][0]));
    assert_known("compare json runs", keys(&v["runs"][0]["metrics"]));
    let help = stdout(&["compare", "--help"]);
    for m in ["speedup", "makespan_s", "energy_j", "explored_pct", "decide_p99_us"] {
        assert!(help.contains(&format!("{m} = {}", registry::metric(m).unwrap().about)), "--help legend lacks {m}");
    }
}

#[test]
fn list_metrics_is_the_registry_and_docs_carry_it() {
    let v: Value = serde_json::from_str(&stdout(&["list", "metrics", "--format", "json"])).unwrap();
    let names: Vec<&str> = v.as_array().unwrap().iter().map(|m| m["name"].as_str().unwrap()).collect();
    assert_eq!(names, registry::METRICS.iter().map(|m| m.name).collect::<Vec<_>>());
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/formats.md")).unwrap();
    assert!(
        docs.contains(&registry::markdown()),
        "docs/formats.md's \"Output metrics\" table differs from the registry; paste `cosched_core::metrics::registry::markdown()`:\n{}",
        registry::markdown()
    );
}

/// `simulate --format csv` writes what the JSON holds: counts whole, every other number in the
/// shortest form that reads back to the JSON's value (the table keeps its display precision).
#[test]
fn simulate_csv_numbers_are_the_json_numbers() {
    let args = ["simulate", "-m", "i5-2500", "-w", "spec-mix8", "-p", "cfs", "--no-timing"];
    let csv = stdout(&[&args[..], &["--format", "csv"]].concat());
    let json: Value = serde_json::from_str(&stdout(&[&args[..], &["--format", "json"]].concat())).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    let (head, row): (Vec<&str>, Vec<&str>) = (lines[0].split(',').collect(), lines[1].split(',').collect());
    let cell = |name: &str| row[head.iter().position(|h| *h == name).unwrap()];
    let m = &json["metrics"];
    for count in ["llc_misses", "l1_hits"] {
        assert_eq!(cell(count).parse::<i64>().ok(), m[count].as_i64(), "{count}: {}", cell(count));
    }
    for name in ["makespan_s", "energy_j", "instructions_per_joule"] {
        assert_eq!(cell(name).parse::<f64>().ok(), m[name].as_f64(), "{name}: {}", cell(name));
    }
}
