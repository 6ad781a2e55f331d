//! Helpers shared by the `cosched` binary's integration tests.
#![allow(dead_code)]

pub mod real;

use std::process::{Command, Output};

pub fn cosched(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cosched")).args(args).output().expect("run cosched")
}

/// The workspace's root (the data, docs and results the tests read).
pub fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn tmp(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("cosched-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

pub fn preset(kind: &str, name: &str) -> String {
    std::fs::read_to_string(format!("{}/../../data/{kind}/{name}.toml", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// A heartbeat of `cosched`'s progress (`NAME: still running (8.0 s)`, `progress.rs`): what a
/// command prints when it runs long, as on a loaded host, and not part of its error.
pub fn is_heartbeat(line: &str) -> bool {
    line.split_once(": still running (")
        .is_some_and(|(_, t)| t.strip_suffix(" s)").is_some_and(|n| n.parse::<f64>().is_ok()))
}

/// Exit code 2, exactly one line on stderr containing every `needle` besides any heartbeat of a
/// slow host ([`is_heartbeat`]), no panic.
pub fn fails_cleanly(args: &[&str], needles: &[&str]) {
    let o = cosched(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    let lines = err.trim_end().lines().filter(|l| !is_heartbeat(l)).count();
    assert_eq!(lines, 1, "{args:?}: one line, got: {err}");
    assert!(!err.contains("panicked"), "{err}");
    for n in needles {
        assert!(err.contains(n), "{args:?}: `{n}` missing from: {err}");
    }
    assert!(o.stdout.is_empty(), "nothing on stdout for a failed run");
}
