//! `cosched characterise` from a record: bad input refused in one line, and the choice of models
//! the fit may make (design note 64).

mod common;

use common::{cosched, fails_cleanly, preset, tmp};

#[test]
fn characterise_refuses_bad_input_with_one_line() {
    let rec = tmp(
        "rec.json",
        r#"{"machine": "kvm-epyc-2c-nov24", "date": "2026-11-24", "jobs": [{"name": "x", "cmd": ["x"], "solo_s": 1.0, "solo_spread": 0.0, "pirates": [], "bandits": []}]}"#,
    );
    let out = tmp("char-out.toml", "");
    fails_cleanly(
        &["characterise", "--from-record", &rec, "-m", "kvm-epyc-2c-nov24", "-o", &out],
        &["x", "no co-runs to fit"],
    );
    let bad = tmp("rec-bad.json", &std::fs::read_to_string(&rec).unwrap().replace("\"date\"", "\"when\""));
    fails_cleanly(
        &["characterise", "--from-record", &bad, "-m", "kvm-epyc-2c-nov24", "-o", &out],
        &["rec-bad.json", "when"],
    );
    // A mix given where a record is asked for: named as such, not only the JSON parser's words.
    let mix = tmp("rec-mix.toml", "[[job]]\nname = \"a\"\ncmd = [\"true\"]\n");
    fails_cleanly(
        &["characterise", "--from-record", &mix, "-m", "kvm-epyc-2c-nov24", "-o", &out],
        &["rec-mix.toml", "not a characterisation record", "a mix goes to -w"],
    );
    // The ablation of the adaptive sweep tells added pirates by the machine's fixed sizes: a
    // record whose pirates are none of them was measured on another machine.
    let other = tmp(
        "rec-other.json",
        r#"{"machine": "m", "date": "d", "jobs": [{"name": "x", "cmd": ["x"], "solo_s": 1.0, "solo_spread": 0.0, "pirates": [{"size": 0.77, "slowdown": 1.1, "covered": true}], "bandits": []}]}"#,
    );
    fails_cleanly(
        &["characterise", "--from-record", &other, "-m", "kvm-epyc-2c-nov24", "-o", &out, "--added-pirates", "0"],
        &["--added-pirates", "rec-other.json", "job x", "fixed sweep"],
    );
    fails_cleanly(
        &["characterise", "--from-record", &rec, "-m", "kvm-epyc-2c-nov24", "-o", &out, "--added-pirates", "9"],
        &["--added-pirates: must be from 0 to 8"],
    );
    // A compute-loop run (design note 67) is checked as any co-run, whether or not --presence
    // asks the fit to read it.
    let pres = tmp(
        "rec-presence.json",
        &std::fs::read_to_string(&rec).unwrap().replace(
            "\"bandits\": []",
            r#""bandits": [], "pirates": [{"size": 1.0, "slowdown": 1.1, "covered": true}], "presence": {"size": 0.0, "slowdown": -1.0, "covered": true}"#,
        ).replacen("\"pirates\": [], ", "", 1),
    );
    for extra in [&[][..], &["--presence"][..]] {
        let mut args = vec!["characterise", "--from-record", &pres, "-m", "kvm-epyc-2c-nov24", "-o", &out];
        args.extend_from_slice(extra);
        fails_cleanly(&args, &["x", "co-run sizes and slowdowns must be positive numbers", "-1"]);
    }
    // Four sockets of one core each: no two cores share an LLC.
    let lone = preset("machines", "i5-2500").replacen("cores_per_llc = 4", "cores_per_llc = 1", 1);
    let lone = tmp("lone.toml", &lone.replacen("sockets = 1", "sockets = 4", 1));
    fails_cleanly(
        &["characterise", "--from-record", &rec, "-m", "kvm-epyc-2c-nov24", "-o", &out, "--repeat", "0"],
        &["--repeat", "from 1 to 1000"],
    );
    for (flag, value, says) in [
        ("--within", "100", "--within: must be a percentage from 0 to 100"),
        ("--max-rounds", "0", "--max-rounds: must be from 1 to 1000"),
        // Its name before the checks shared the flag still works, and is refused as the same flag.
        ("--max-repeat", "0", "--max-rounds: must be from 1 to 1000"),
        ("--budget-s", "0", "--budget-s: must be from 0 to 86400"),
    ] {
        fails_cleanly(
            &["characterise", "--from-record", &rec, "-m", "kvm-epyc-2c-nov24", "-o", &out, flag, value],
            &[says],
        );
    }
    fails_cleanly(
        &["characterise", "--from-record", &rec, "-m", &lone, "-o", &out],
        &["i5-2500", "no two cores share an LLC"],
    );
}

#[test]
fn characterise_access_all_keeps_no_traffic_where_the_co_runs_allow_it() {
    // The development record of time-sharing (docs/results/runtime/time-sharing): the compute loop's
    // co-runs lie within its noise, the 4 MiB chase's do not (design note 64).
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/results/runtime/time-sharing");
    let (rec, host) = (format!("{dir}/record.json"), format!("{dir}/host.toml"));
    let out = tmp("char-all.toml", "");
    let row = |stdout: &str, job: &str| {
        stdout.lines().find(|l| l.split_whitespace().next() == Some(job)).map(str::to_string).unwrap_or_default()
    };
    let o = cosched(&["characterise", "--from-record", &rec, "-m", &host, "-o", &out, "--access", "all"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(row(&stdout, "compute").contains(" none"), "{stdout}");
    assert!(!row(&stdout, "chase4").contains(" none"), "{stdout}");
    let file = std::fs::read_to_string(&out).unwrap();
    assert!(file.contains("compute: solo") && file.contains("no memory traffic"), "{file}");
    // The workload file it writes runs.
    let o = cosched(&["simulate", "-m", &host, "-w", &out, "--policy", "cfs"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The default keeps traffic in every job.
    let o = cosched(&["characterise", "--from-record", &rec, "-m", &host, "-o", &out]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(row(&stdout, "compute").contains(" random") && !row(&stdout, "compute").contains(" none"), "{stdout}");
    fails_cleanly(
        &["characterise", "--from-record", &rec, "-m", &host, "-o", &out, "--access", "some"],
        &["--access", "some"],
    );
}
