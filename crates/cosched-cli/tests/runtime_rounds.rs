//! `cosched run --rounds`: interleaved rounds of real runs, each policy
//! paired with the baseline round by round.

mod common;

use common::cosched;
use common::real::*;

#[test]
fn interleaved_rounds_pair_each_policy_with_the_baseline_and_the_same_policy_is_no_difference() {
    let d = tmpdir("rounds");
    let mix = d.join("naps.toml");
    std::fs::write(&mix, "name = \"naps\"\n[[job]]\nname = \"nap\"\ncmd = [\"sleep\", \"0.25\"]\ncount = 2\n").unwrap();
    let args = ["run", "--policies", "linux,g-rrs,linux", "--repeat", "3", "--seed", "5", "-w", mix.to_str().unwrap()];
    let o = cosched(&[&args[..], &["--format", "json"]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["rounds"], 3);
    let rows = v["policies"].as_array().unwrap();
    let labels: Vec<&str> = rows.iter().map(|r| r["policy"].as_str().unwrap()).collect();
    assert_eq!(labels, ["linux", "g-rrs", "linux#2"]);
    assert!(rows[0]["vs_baseline"].is_null());
    // The same policy twice: the paired interval holds 1.
    let same = &rows[2]["vs_baseline"];
    assert_eq!(same["verdict"], "no-difference", "{same}");
    assert!(same["lo"].as_f64().unwrap() <= 1.0 && same["hi"].as_f64().unwrap() >= 1.0, "{same}");
    // Every round measured the jobs alone and ran every entry once, in the seeded order.
    let rounds = v["round"].as_array().unwrap();
    let orders: Vec<Vec<String>> = rounds
        .iter()
        .map(|r| r["order"].as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_string()).collect())
        .collect();
    for (r, o) in rounds.iter().zip(&orders) {
        assert_eq!(r["solo_s"].as_array().unwrap().len(), 1); // one mix entry (two instances)
        let mut sorted = o.clone();
        sorted.sort();
        assert_eq!(sorted, ["g-rrs", "linux", "linux#2"]);
        assert!(r["drift"].as_f64().unwrap().is_finite());
    }
    // Same seed, same orders (the CSV of a second run; its rows are numeric).
    let o2 = cosched(&[&args[..], &["--format", "csv"]].concat());
    assert_eq!(o2.status.code(), Some(0));
    let text = String::from_utf8_lossy(&o2.stdout);
    let head: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    assert!(head.contains(&"speedup_lo") && head.contains(&"verdict"), "{text}");
    let err = String::from_utf8_lossy(&o2.stderr);
    for (k, o) in orders.iter().enumerate() {
        let line = format!("round {}/3: solo runs, then {}", k + 1, o.join(", "));
        assert!(err.contains(&line), "{line} not in {err}");
    }
}

#[test]
fn interleaved_rounds_fail_naming_a_job_that_failed() {
    let d = tmpdir("rounds-fail");
    let mix = d.join("bad.toml");
    std::fs::write(&mix, "name = \"bad\"\n[[job]]\nname = \"nope\"\ncmd = [\"false\"]\n").unwrap();
    let o = cosched(&[
        "run",
        "--policies",
        "linux,g-rrs",
        "--repeat",
        "2",
        "-w",
        mix.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("error: 4 job(s) failed: nope exited with status 1"), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["rounds"], 2, "the comparison is printed first");
}
