//! `compare`'s bound kept in the cache folder: reused for the same machine,
//! workload and seeds with the same output, computed again on `--fresh-bound`,
//! and a cache folder that cannot keep anything refused before any run.

use std::process::{Command, Output};

mod common;

fn compare_in(cache: &std::ffi::OsStr, extra: &[&str]) -> Output {
    let mut args = vec!["compare", "-m", "i5-2500", "-w", "mcf", "--copies", "4", "--seeds", "2", "--no-timing"];
    args.extend_from_slice(extra);
    Command::new(env!("CARGO_BIN_EXE_cosched"))
        .args(&args)
        .env("COSCHED_CACHE_DIR", cache)
        .output()
        .expect("run cosched")
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

#[test]
fn the_bound_is_kept_then_reused_with_the_same_table() {
    let dir = std::env::temp_dir().join(format!("cosched-cli-bound-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let first = compare_in(dir.as_os_str(), &[]);
    assert_eq!(first.status.code(), Some(0), "{}", err(&first));
    assert!(err(&first).contains("2 seeds computed, 0 reused (kept in"), "{}", err(&first));
    let again = compare_in(dir.as_os_str(), &[]);
    assert!(err(&again).contains("0 seeds computed, 2 reused"), "{}", err(&again));
    assert_eq!(first.stdout, again.stdout, "the reused bound prints the same table");
    let fresh = compare_in(dir.as_os_str(), &["--fresh-bound"]);
    assert!(err(&fresh).contains("2 seeds computed, 0 reused"), "{}", err(&fresh));
    assert_eq!(first.stdout, fresh.stdout);
    // Another seed range: the seed kept is reused, the other computed.
    let moved = compare_in(dir.as_os_str(), &["--seed", "2"]);
    assert!(err(&moved).contains("1 seed computed, 1 reused"), "{}", err(&moved));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_cache_folder_that_cannot_keep_anything_is_refused_before_any_run() {
    let file = common::tmp("not-a-folder", "x");
    for (cache, needles) in [
        ("", vec!["COSCHED_CACHE_DIR", "empty"]),
        (file.as_str(), vec!["COSCHED_CACHE_DIR", "not-a-folder", "cannot create"]),
    ] {
        let o = compare_in(std::ffi::OsStr::new(cache), &[]);
        let e = err(&o);
        assert_eq!(o.status.code(), Some(2), "{cache:?}: {e}");
        assert_eq!(e.trim_end().lines().count(), 1, "one line before any run: {e}");
        for n in needles {
            assert!(e.contains(n), "{cache:?}: `{n}` missing: {e}");
        }
        assert!(o.stdout.is_empty());
    }
    // `run --characterise` keeps this host's calibration there: refused before it calibrates.
    let mix = common::root().join("data/mixes/bench-mix.toml");
    let o = Command::new(env!("CARGO_BIN_EXE_cosched"))
        .args(["run", "-p", "slits-contention", "-w", mix.to_str().unwrap(), "--characterise"])
        .env("COSCHED_CACHE_DIR", "")
        .output()
        .expect("run cosched");
    let e = err(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert_eq!(e.trim_end().lines().count(), 1, "one line, nothing calibrated: {e}");
    assert!(e.contains("--characterise: COSCHED_CACHE_DIR is set but empty"), "{e}");
    // Without the bound nothing is kept, so the folder is not needed.
    let o = compare_in(std::ffi::OsStr::new(""), &["--no-bound"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
}
