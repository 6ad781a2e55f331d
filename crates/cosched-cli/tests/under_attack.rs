//! Inputs that could exhaust memory, block forever, corrupt a terminal or
//! break the workspace, and output that cannot be written: each gets one
//! error line naming what is wrong and exit status 2, at once.

use std::process::{Command, Output, Stdio};

fn cosched(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cosched")).args(args).stdin(Stdio::null()).output().unwrap()
}

/// One `error:` line, the last on stderr (a command's own notes, such as
/// `complete`'s model line, may come before it), status 2, no panic;
/// returns the line.
fn one_line(o: &Output) -> String {
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(!err.contains("panicked") && err.lines().filter(|l| l.starts_with("error")).count() == 1, "{err}");
    let last = err.trim_end().lines().last().unwrap_or_default();
    assert!(last.starts_with("error: "), "{err}");
    last.to_string()
}

fn tmp(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("cosched-attack-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn output_to_a_full_disk_is_one_line_and_status_2_for_every_command() {
    let d = tmp("full");
    let csv = d.join("s.csv");
    std::fs::write(&csv, (1..200).map(|i| format!("{}\n", (i as f64).sqrt())).collect::<String>()).unwrap();
    let cells = d.join("c.csv");
    let rows: String = (0..36)
        .map(|i| format!("{},{},{}\n", i / 6, i % 6, if i % 7 == 0 { String::new() } else { format!("{}", 1 + i % 5) }))
        .collect();
    std::fs::write(&cells, format!("row,col,value\n{rows}")).unwrap();
    let (csv, cells) = (csv.to_str().unwrap(), cells.to_str().unwrap());
    for args in [
        &["list", "policies"][..],
        &["simulate", "-m", "i5-2500", "-w", "mcf", "-p", "cfs"],
        &["compare", "-m", "i5-2500", "-w", "mcf", "--policies", "cfs,efs", "--seeds", "2", "--no-bound"],
        &["complete", cells],
        &["evt", csv, "--threshold", "q0.8"],
    ] {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let o = Command::new(env!("CARGO_BIN_EXE_cosched")).args(args).stdout(full).output().unwrap();
        let line = one_line(&o);
        assert!(line.contains("cannot write the output") && line.contains("No space left"), "{args:?}: {line}");
    }
}

#[test]
fn oversized_and_endless_inputs_are_refused_before_they_are_read() {
    let d = tmp("big");
    // A workload over the description cap (4 MiB): refused from its size, not parsed.
    let big = d.join("big.toml");
    let job = "[[job]]\nname = \"a\"\npreset = \"mcf\"\n";
    std::fs::write(&big, job.repeat((5 << 20) / job.len())).unwrap();
    let t = std::time::Instant::now();
    let line = one_line(&cosched(&["simulate", "-w", big.to_str().unwrap(), "-p", "cfs"]));
    assert!(line.contains("over the 4 MiB cap") && line.contains("COSCHED_INPUT_LIMIT_MB"), "{line}");
    let refused = t.elapsed();
    // The override is honoured (the same file then parses, and is refused for what it says, not its size).
    let o = Command::new(env!("CARGO_BIN_EXE_cosched"))
        .args(["list", "workloads", "--format", "json"])
        .env("COSCHED_INPUT_LIMIT_MB", "8")
        .output()
        .unwrap();
    assert!(o.status.success());
    assert!(refused < std::time::Duration::from_secs(30), "refused in {refused:?}: it was parsed");
    for (args, want) in [
        (&["profile", "/dev/zero"][..], "/dev/zero:1: a line longer than the 1 MiB line cap"),
        (&["simulate", "-w", "/dev/zero", "-p", "cfs"], "/dev/zero: is a device"),
        (&["evt", "/dev/zero"], "/dev/zero: is a device"),
        (&["simulate", "-w", "/tmp", "-p", "cfs"], "/tmp: is a directory"),
    ] {
        let line = one_line(&cosched(args));
        assert!(line.contains(want), "{args:?}: {line}");
    }
    let fifo = d.join("w.toml");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let line = one_line(&cosched(&["simulate", "-w", fifo.to_str().unwrap(), "-p", "cfs"]));
    assert!(line.contains("is a FIFO"), "{line}");
}

#[test]
fn names_are_escaped_and_long_values_quoted_short() {
    let d = tmp("names");
    let w = d.join("w.toml");
    std::fs::write(&w, "name = \"\\u001b]0;pwned\\u0007\"\ndescription = \"d\"\n[[job]]\npreset = \"mcf\"\n").unwrap();
    let o = cosched(&["simulate", "-w", w.to_str().unwrap(), "-p", "cfs"]);
    let line = one_line(&o);
    assert!(!line.contains('\u{1b}') && line.contains("\\u{1b}]0;pwned\\u{7}"), "{line}");
    let token = "x".repeat(100_000); // under the kernel's 128 KiB per argument
    for args in [
        &["simulate", "-p", &token][..],
        &["simulate", "-m", &token],
        &["simulate", "-p", "g-rrs", "--quantum-ms", &token],
    ] {
        let line = one_line(&cosched(args));
        assert!(
            line.len() < 600 && line.contains(&format!("({} bytes)", token.len())),
            "{}",
            &line[..200.min(line.len())]
        );
    }
    let m = d.join("m.toml");
    let preset = include_str!("../../../data/machines/i5-2500.toml");
    std::fs::write(&m, preset.replacen("name = \"i5-2500\"", "name = \"\\u001b]0;x\"", 1)).unwrap();
    let line = one_line(&cosched(&["simulate", "-m", m.to_str().unwrap(), "-w", "mcf", "-p", "cfs"]));
    assert!(line.ends_with("name: `\\u{1b}]0;x` has control characters (a name is printed on terminals)"), "{line}");
    // Refused where the knob is declared (its range), naming the flag, before anything runs.
    let line = one_line(&cosched(&["simulate", "-w", "mcf", "-p", "cfs", "--noise", "1e300"]));
    assert!(line.starts_with("error: --noise: must be from 0 to 20, got 1e300"), "{line}");
    let line = one_line(&cosched(&["simulate", "-w", "mcf", "-p", "static", "--assignment", "-1"]));
    assert!(line.contains("`-1` is not a context id"), "{line}");
}

#[test]
fn new_policy_refuses_rust_keywords_and_writes_nothing() {
    for kw in ["type", "self", "crate", "loop", "async"] {
        let line = one_line(&cosched(&["new-policy", kw]));
        assert!(line.contains("is a Rust keyword"), "{kw}: {line}");
    }
}

#[test]
fn mix_environment_keys_and_nul_bytes_are_refused_at_load() {
    let d = tmp("mix");
    for (env, want) in [
        ("env = { \"A=B\" = \"1\" }", "job[0].env.A=B: an environment variable's name must be non-empty"),
        ("env = { A = \"x\\u0000y\" }", "job[0].env.A: the value contains a NUL byte"),
    ] {
        let mix = d.join("m.toml");
        std::fs::write(&mix, format!("[[job]]\nname = \"t\"\ncmd = [\"true\"]\n{env}\n")).unwrap();
        let line = one_line(&cosched(&["run", "-p", "g-rrs", "-w", mix.to_str().unwrap()]));
        assert!(line.contains(want), "{line}");
    }
}
