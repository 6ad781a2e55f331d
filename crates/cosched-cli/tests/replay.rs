//! `cosched calibrate --check MIX --replay FILE`: the recorded rounds of a
//! check predicted again, on the host check the repository keeps.

mod common;

use common::{cosched, fails_cleanly, tmp};
use serde_json::Value;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/results/runtime/host-check");
const MIX: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/mixes/host-check/check-bandwidth.toml");

fn replay(file: &str) -> Value {
    let programs = format!("{DIR}/programs.toml");
    let o = cosched(&["calibrate", "--check", MIX, "--programs", &programs, "--replay", file, "--format", "json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// A replay reads the measurements and the recorded predictions from the file
/// and predicts every cell again; fed its own predictions as the recorded
/// ones, it gives them back exactly (deterministic, nothing else read).
#[test]
fn a_replay_of_its_own_predictions_gives_them_back() {
    let file = format!("{DIR}/check-bandwidth.json");
    let recorded: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let first = replay(&file);
    let cells = first["cells"].as_array().unwrap();
    let jobs = recorded["check"]["result"]["jobs"].as_array().unwrap();
    assert_eq!(cells.len(), jobs.len(), "every recorded cell of a modelled job is replayed");
    for (c, j) in cells.iter().zip(jobs) {
        assert_eq!(c["measured"], j["measured"]["mean"]);
        assert_eq!(c["recorded"], j["predicted"]);
    }
    let mut again = recorded.clone();
    for (c, j) in cells.iter().zip(again["check"]["result"]["jobs"].as_array_mut().unwrap()) {
        j["predicted"] = c["replayed"].clone();
    }
    let path = tmp("replay-own.json", &serde_json::to_string(&again).unwrap());
    let second = replay(&path);
    for c in second["cells"].as_array().unwrap() {
        assert_eq!(c["recorded"], c["replayed"], "{c}");
    }
    assert_eq!(second["median_abs_error"][0], second["median_abs_error"][1]);
}

/// A file that is not a check's output is refused in one line naming the
/// file and the field.
#[test]
fn a_file_without_the_checks_fields_is_refused_naming_the_field() {
    let file = format!("{DIR}/check-bandwidth.json");
    let good: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let mut no_preset = good.clone();
    no_preset.as_object_mut().unwrap().remove("preset");
    let mut bad_solo = good.clone();
    bad_solo["check"]["result"]["solo_s"][0][1] = Value::from("fast");
    let mut no_model = good.clone();
    no_model["check"].as_object_mut().unwrap().remove("model");
    let mut bad_policy = good.clone();
    bad_policy["check"]["result"]["policies"][0]["policy"] = Value::from("nope");
    let mut many_rounds = good.clone();
    let row = many_rounds["check"]["result"]["solo_s"][0].clone();
    let bound = 1 + 1000; // one past `--repeat`'s bound (crate::limits::REPEAT)
    many_rounds["check"]["result"]["solo_s"] = Value::Array(vec![row; bound]);
    for (name, v, field) in [
        ("no-preset.json", no_preset, "preset: missing"),
        ("bad-solo.json", bad_solo, "check.result.solo_s.0.1: not a finite number"),
        ("no-model.json", no_model, "check.model: missing"),
        ("bad-policy.json", bad_policy, "check.result.policies[0].policy"),
        ("many-rounds.json", many_rounds, "check.result.solo_s"),
    ] {
        let p = tmp(name, &serde_json::to_string(&v).unwrap());
        fails_cleanly(&["calibrate", "--check", MIX, "--replay", &p], &[name, field]);
    }
    fails_cleanly(&["calibrate", "--check", MIX, "--replay", "/nonexistent/check.json"], &["/nonexistent/check.json"]);
}

/// How long a check measures: each setting out of range is refused by its own
/// flag before anything runs.
#[test]
fn a_checks_round_settings_are_refused_by_their_flags() {
    let base = ["calibrate", "--preset", "kvm-epyc-2c", "--check", MIX];
    let with = |extra: [&'static str; 2]| -> Vec<&str> { base.iter().copied().chain(extra).collect() };
    fails_cleanly(&with(["--max-rounds", "0"]), &["--max-rounds: must be from 1 to 1000, got 0"]);
    fails_cleanly(&with(["--within", "120"]), &["--within: must be a percentage from 0 to 100, got 120"]);
    fails_cleanly(&with(["--budget-s", "0"]), &["--budget-s: must be from 0 to 86400, got 0"]);
    // More rounds at first than at most; the rounds' settings without a check to apply them to.
    fails_cleanly(
        &base.iter().copied().chain(["--max-rounds", "2", "--repeat", "5"]).collect::<Vec<_>>(),
        &["--max-rounds: must be at least --repeat (5), got 2"],
    );
    for flag in ["--within", "--max-rounds", "--budget-s"] {
        fails_cleanly(
            &["calibrate", "--preset", "kvm-epyc-2c", flag, "5"],
            &[flag, "applies to the rounds of --check only"],
        );
    }
}

/// slits-* run on the pair slowdowns the model predicts, so a check of user commands with no
/// `--programs` to model them is refused from the files alone, before any job runs.
#[test]
fn a_check_with_slits_and_unmodelled_jobs_is_refused_before_anything_runs() {
    let mix = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/mixes/host-check/check-user-commands.toml");
    let args = ["calibrate", "--preset", "kvm-epyc-2c", "--check", mix, "--policies", "linux,slits-contention"];
    // One line on stderr: no "check: solo runs" progress line came before the refusal.
    fails_cleanly(&args, &["slits-* run on the pair slowdowns the model predicts", "no model"]);
}

/// A check that measured each job's CPU time is replayed with
/// it: every cell carries the measured CPU ratio beside today's simulated one,
/// and the summary counts the simulated ratios inside the measured intervals;
/// a file from before, without it, replays with none.
#[test]
fn a_replay_sets_the_measured_cpu_ratio_beside_todays() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/results/runtime/time-sharing");
    let programs = format!("{dir}/programs.toml");
    let file = format!("{dir}/check-bandwidth.json");
    let o = cosched(&["calibrate", "--check", MIX, "--programs", &programs, "--replay", &file, "--format", "json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    let cells = r["cells"].as_array().unwrap();
    let mut inside = 0;
    for c in cells {
        let m = &c["measured_cpu"];
        let (lo, hi, now) = (m["lo"].as_f64().unwrap(), m["hi"].as_f64().unwrap(), c["replayed_cpu"].as_f64().unwrap());
        assert!(lo <= m["mean"].as_f64().unwrap() && now >= 0.99, "{c}");
        inside += usize::from((lo..=hi).contains(&now));
    }
    assert_eq!(r["cpu_inside"], serde_json::json!([inside, cells.len()]));
    assert!(r["cpu_median_abs_error"].as_f64().is_some_and(f64::is_finite));
    let old = replay(&format!("{DIR}/check-bandwidth.json"));
    assert!(old["cells"].as_array().unwrap().iter().all(|c| c["measured_cpu"].is_null()));
    assert!(old["cpu_median_abs_error"].is_null());
}

/// A replay runs nothing: a mix whose program is not installed here is replayed (a held-out
/// record of another machine's packages, `scripts/host-refit`), where a check refuses it.
#[test]
fn a_replay_needs_no_program_installed() {
    let mix = std::fs::read_to_string(MIX).unwrap();
    let first_cmd = mix.lines().find(|l| l.starts_with("cmd = [\"")).unwrap();
    let gone = mix.replacen(first_cmd, "cmd = [\"no-such-program-66\"]", 1);
    let gone = tmp("replay-gone.toml", &gone);
    let programs = format!("{DIR}/programs.toml");
    let file = format!("{DIR}/check-bandwidth.json");
    // Nor does it touch --out, which only a measurement writes (it once created the file for a
    // moment, racing other runs in the same folder).
    let out = std::env::temp_dir().join(format!("cosched-replay-out-{}.toml", std::process::id()));
    let o = cosched(&[
        "calibrate",
        "--check",
        &gone,
        "--programs",
        &programs,
        "--replay",
        &file,
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!out.exists(), "a replay created {}", out.display());
    fails_cleanly(
        &["calibrate", "--check", &gone, "--programs", &programs, "--seconds", "0.1"],
        &["no-such-program-66", "not found on PATH"],
    );
}
