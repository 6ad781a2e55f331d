//! A new user's first hour: what they type first, and what they should see
//! (the annotation `cosched profile` suggests is compiled in `tests/profile.rs`;
//! the note on slowdowns below 1 is a unit test in `src/probe.rs`).

mod common;

use common::{cosched, fails_cleanly, tmp};
use std::process::{Command, Stdio};

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Item 1: `cosched run -- CMD`: a failing command fails the run (exit 1, named);
/// a missing one is refused (exit 2); a single command's output passes
/// through unless `--quiet`.
#[test]
fn item1_run_reports_failures_and_passes_output_through() {
    let o = cosched(&["run", "--", "false"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("error: 1 job(s) failed: false exited with status 1"), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("policy linux"), "the report is still printed");
    fails_cleanly(&["run", "--", "no-such-program-xyz"], &["command `no-such-program-xyz` not found"]);
    let o = cosched(&["run", "--", "sh", "-c", "echo hello-from-child; echo oops >&2"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(text(&o.stdout).starts_with("hello-from-child\n"), "{}", text(&o.stdout));
    assert!(text(&o.stderr).contains("oops"), "{}", text(&o.stderr));
    let o = cosched(&["run", "--quiet", "--", "sh", "-c", "echo hello-from-child"]);
    assert_eq!(o.status.code(), Some(0));
    // The report names the command (`on the command `sh -c echo hello-from-child``); its output is not passed.
    assert!(!text(&o.stdout).lines().any(|l| l == "hello-from-child"), "{}", text(&o.stdout));
}

/// Item 3: The README's mix needs nothing outside the project, and a mix naming a
/// missing program is refused before anything is launched.
#[test]
fn item3_readme_mix_is_self_contained_and_missing_programs_refuse_before_launch() {
    let path = format!("{}/../../data/mixes/bench-mix.toml", env!("CARGO_MANIFEST_DIR"));
    let mix: toml::Table = toml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    for job in mix["job"].as_array().unwrap() {
        assert_eq!(job["cmd"][0].as_str(), Some("cosched-bench"), "{job:?}");
    }
    let readme = std::fs::read_to_string(format!("{}/../../README.md", env!("CARGO_MANIFEST_DIR"))).unwrap();
    assert!(
        readme.contains("-w data/mixes/bench-mix.toml")
            && !readme.contains("run -p rda-strict -m kvm-epyc-2c -w data/mixes/runtime-results.toml")
    );
    let marker = std::env::temp_dir().join(format!("cosched-item3-{}", std::process::id()));
    let _ = std::fs::remove_file(&marker);
    let bad = tmp(
        "missing-program.toml",
        &format!(
            "[[job]]\nname = \"touch\"\ncmd = [\"sh\", \"-c\", \"touch {}\"]\n[[job]]\nname = \"stream\"\ncmd = [\"stress-ng-not-here\", \"--stream\", \"1\"]\n",
            marker.display()
        ),
    );
    fails_cleanly(&["run", "-w", &bad], &["missing-program.toml", "job[1].cmd", "stress-ng-not-here", "not found"]);
    assert!(!marker.exists(), "nothing may be launched when a program is missing");
}

/// Item 4: Workload files: `description` optional; missing fields named by their
/// path; mix files take a description.
#[test]
fn item4_workload_and_mix_files() {
    let w = tmp("my-4x-lbm.toml", "name = \"my-4x-lbm\"\n[[job]]\npreset = \"lbm\"\ninstances = 4\n");
    let o = cosched(&["simulate", "-w", &w, "-m", "i5-2500", "-p", "cfs", "--no-timing", "--format", "json"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let no_name = tmp("no-name.toml", "[[job]]\npreset = \"lbm\"\n");
    fails_cleanly(&["simulate", "-w", &no_name], &["no-name.toml: name: required field is missing"]);
    let job_no_name = tmp("job-no-name.toml", "name = \"x\"\n[[job]]\ninstances = 2\n[[job]]\nthreads = 1\n");
    fails_cleanly(&["simulate", "-w", &job_no_name], &["job-no-name.toml", "job[0].name"]);
    let mix = tmp("described.toml", "description = \"one true\"\n[[job]]\nname = \"t\"\ncmd = [\"true\"]\n");
    let o = cosched(&["run", "-w", &mix]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let formats = std::fs::read_to_string(format!("{}/../../docs/formats.md", env!("CARGO_MANIFEST_DIR"))).unwrap();
    for field in ["description", "instances", "llc_apki", "core_active_w", "loaded_latency", "solo_s", "[job.profile]"]
    {
        assert!(formats.contains(field), "docs/formats.md does not document `{field}`");
    }
}

/// Item 5: Flags are done or refused, never ignored.
#[test]
fn item5_threads_copies_and_assignment_are_never_ignored() {
    fails_cleanly(&["simulate", "-w", "mcf", "-m", "i5-2500", "--threads", "4"], &["--threads 4", "--copies 4"]);
    fails_cleanly(&["simulate", "-p", "cfs", "--assignment", "0,1"], &["--assignment", "`cfs`", "read by static"]);
    let o = cosched(&[
        "simulate",
        "-w",
        "efs-synthetic",
        "-m",
        "i5-2500",
        "-p",
        "cfs",
        "--copies",
        "4",
        "--format",
        "json",
        "--no-timing",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["jobs"].as_array().unwrap().len(), 4, "four copies of efs-synthetic");
    fails_cleanly(&["simulate", "-w", "mcf", "--copies", "0"], &["--copies"]);
}

/// Item 6: Command-line errors keep the useful part.
#[test]
fn item6_command_line_errors_name_what_is_wrong() {
    fails_cleanly(&["list"], &["<WHAT>", "cosched list --help"]);
    fails_cleanly(&["probe"], &["--workload"]);
    fails_cleanly(&["paper"], &["efs", "perf-fair", "slits", "evt", "rda"]);
    fails_cleanly(&["list", "foo"], &["foo", "policies", "machines", "workloads"]);
    fails_cleanly(&["compare", "--seeds", "-1"], &["--seeds", "-1"]);
    fails_cleanly(&["compare", "--seeds", "0"], &["--seeds: must be from 1 to 10000"]);
    fails_cleanly(&["simulate", "-w", "mfc"], &["did you mean `mcf`?"]);
    fails_cleanly(&["simulate", "-p", "g-rr"], &["did you mean `g-rrs`?"]);
    let o = cosched(&["simulate", "-m", "bogus"]);
    let err = text(&o.stderr);
    assert!(err.starts_with("error: machine `bogus`: no such preset") && !err.contains("-:"), "{err}");
}

/// Item 7: A closed pipe ends the command with one error line and status 2,
/// no panic message (as a full disk does: `output_cannot_be_written_…`).
#[test]
fn item7_a_closed_pipe_is_not_a_panic() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cosched"))
        .args(["list", "workloads", "--format", "json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    let err = text(&o.stderr);
    assert!(!err.contains("panicked") && err.trim_end().lines().count() == 1, "{err}");
    assert!(err.starts_with("error: cannot write the output: stdout failed: Broken pipe"), "{err}");
    assert_eq!(o.status.code(), Some(2), "{err}");
}

/// Item 8: `compare --format csv`: numeric columns, mean and interval apart.
#[test]
fn item8_compare_csv_has_numeric_columns() {
    let o = cosched(&[
        "compare",
        "-w",
        "mcf",
        "-m",
        "i5-2500",
        "--policies",
        "cfs,g-rrs",
        "--seeds",
        "2",
        "--format",
        "csv",
        "--no-timing",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let mut lines = out.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    for col in [
        "policy",
        "speedup_mean",
        "speedup_lo",
        "speedup_hi",
        "makespan_s_mean",
        "antt_mean",
        "unfairness_hi",
        "energy_j_mean",
    ] {
        assert!(header.contains(&col), "missing column {col}: {header:?}");
    }
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 2);
    for r in &rows {
        assert_eq!(r.len(), header.len());
        for (h, cell) in header.iter().zip(r) {
            if h.ends_with("_mean") || h.ends_with("_lo") || h.ends_with("_hi") {
                assert!(cell.is_empty() || cell.parse::<f64>().is_ok(), "{h} = `{cell}` is not a number");
            }
        }
    }
    let help = text(&cosched(&["compare", "--help"]).stdout);
    assert!(help.contains("antt = mean slowdown") && help.contains("explored_pct"), "legend in --help");
}

/// Item 10: The smaller frictions.
#[test]
fn item10_smaller_frictions() {
    let list = text(&cosched(&["list", "workloads"]).stdout);
    assert!(list.contains("[1 thread]") && !list.contains("[1 threads]"));
    // cosched-bench --help and its progress units: crates/cosched-linux/tests/bench_bin.rs.
    fails_cleanly(
        &["simulate", "-w", "mcf", "-m", "i5-2500", "--max-sim-time-s", "0.5"],
        &["mcf: the solo run of job `mcf`", "run exceeded the simulated-time limit of 0.5 s", "--max-sim-time-s"],
    );
    let readme = std::fs::read_to_string(format!("{}/../../README.md", env!("CARGO_MANIFEST_DIR"))).unwrap();
    assert!(!readme.contains("--out docs/results"), "README must not suggest overwriting recorded results");
    assert!(readme.contains("C compiler") && readme.contains("Python 3"));
    let base =
        std::fs::read_to_string(format!("{}/../../data/machines/i5-2500.toml", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let two = tmp(
        "two-values.toml",
        &base.replace("core_active_w = [22.6, 12.0, 12.3, 12.3]", "core_active_w = [22.6, 12.0]"),
    );
    fails_cleanly(&["simulate", "-m", &two, "-w", "mcf"], &["power.core_active_w", "2 values for 4 cores"]);
    let one =
        tmp("one-value.toml", &base.replace("core_active_w = [22.6, 12.0, 12.3, 12.3]", "core_active_w = [12.0]"));
    let o = cosched(&["simulate", "-m", &one, "-w", "mcf", "-p", "cfs", "--no-timing"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("one value for 4 cores: every active core adds 12 W"), "{}", text(&o.stderr));
}
