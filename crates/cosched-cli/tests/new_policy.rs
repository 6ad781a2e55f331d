//! `cosched new-policy NAME` writes a policy that compiles,
//! is registered, and passes its own scripted-stream tests, in a copy of this
//! workspace (the checkout itself is never touched).

mod common;

use common::{cosched, fails_cleanly};
use std::path::{Path, PathBuf};
use std::process::Command;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if e.file_type().unwrap().is_dir() {
            if e.file_name() != "target" {
                copy_dir(&src, &dst);
            }
        } else {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

/// A copy of the workspace's sources (no build output).
fn workspace_copy(tag: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dst = std::env::temp_dir().join(format!("cosched-new-policy-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dst);
    for d in ["crates", "data", "include"] {
        copy_dir(&root.join(d), &dst.join(d));
    }
    for f in ["Cargo.toml", "Cargo.lock", "rustfmt.toml"] {
        std::fs::copy(root.join(f), dst.join(f)).unwrap();
    }
    dst
}

/// Every file of a folder with its text, for a before/after comparison.
fn snapshot(dir: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(p.clone(), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

#[test]
fn a_new_policy_is_one_new_file_that_registers_itself_and_passes_its_tests() {
    let ws = workspace_copy("ok");
    let root = ws.to_str().unwrap();
    let before = snapshot(&ws);
    let o = cosched(&["new-policy", "my-first", "--root", root]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let file = ws.join("crates/cosched-policies/src/families/my_first.rs");
    // Patches nothing: the one new file is the only difference.
    let mut after = snapshot(&ws);
    assert!(after.remove(&file).is_some(), "the new file is written");
    assert!(after == before, "new-policy changed a file besides {}", file.display());
    // Again: refused, nothing changed.
    let text = std::fs::read(&file).unwrap();
    fails_cleanly(&["new-policy", "my-first", "--root", root], &["my_first.rs", "already exists"]);
    assert_eq!(std::fs::read(&file).unwrap(), text);
    // It is registered and its tests compile and pass (the policies crate alone, in a target folder of its own).
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/new-policy-check");
    let out = Command::new(cargo)
        .args(["test", "--offline", "-q", "-p", "cosched-policies", "my_first"])
        .current_dir(&ws)
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .expect("run cargo");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("3 passed"),
        "the three template tests ran (one builds it by name from the registry): {text}"
    );
    a_field_added_to_its_options_is_a_flag_a_keyword_and_a_listed_knob(&ws, &file, &target);
    let _ = std::fs::remove_dir_all(&ws);
}

/// Options declared once: one field added to the new family's options struct, and
/// nothing else edited, is a flag of every simulating command, a row of
/// `cosched list knobs` and a knob Python accepts (Python's keywords are
/// checked against `cosched_lab::knobs::knobs()`, the rows `list knobs
/// --format json` prints) read by that policy alone.
fn a_field_added_to_its_options_is_a_flag_a_keyword_and_a_listed_knob(ws: &Path, file: &Path, target: &Path) {
    let text = std::fs::read_to_string(file).unwrap();
    let field = "        my_first_quantum_ms: f64 = (TIME_MS, \"4\", real \"100\", unit \"ms\"),\n";
    assert!(text.contains(field), "the template declares its quantum");
    let added = "        /// my-first: a knob added by the test\n        my_first_depth: u64 = (super::knob::Kind::Int { min: 1, max: 9 }, \"3\"),\n";
    std::fs::write(file, text.replace(field, &format!("{field}{added}"))).unwrap();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["build", "--offline", "-q", "-p", "cosched-cli", "--bin", "cosched"])
        .current_dir(ws)
        .env("CARGO_TARGET_DIR", target)
        .output()
        .expect("run cargo");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let bin = target.join("debug/cosched");
    let run = |args: &[&str]| {
        let o = Command::new(&bin).args(args).output().expect("run the copy's cosched");
        assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let rows: serde_json::Value = serde_json::from_str(&run(&["list", "knobs", "--format", "json"])).unwrap();
    let row = rows.as_array().unwrap().iter().find(|r| r["name"] == "my_first_depth").expect("a `list knobs` row");
    assert_eq!(
        (row["flag"].as_str(), row["default"].as_str(), row["kind"].as_str()),
        (Some("--my-first-depth"), Some("3"), Some("integer"))
    );
    assert!(row["help"].as_str().unwrap().contains("read by my-first"), "{row}");
    for command in ["simulate", "compare", "run"] {
        assert!(run(&[command, "--help"]).contains("--my-first-depth <MY_FIRST_DEPTH>"), "{command} --help");
    }
    let table = run(&["list", "knobs"]);
    assert!(table.lines().any(|l| l.starts_with("my_first_depth") && l.contains("--my-first-depth")), "{table}");
    assert!(run(&["list", "policies", "--format", "json"]).contains("\"my_first_depth\""));
}

#[test]
fn bad_names_and_a_folder_that_is_not_a_checkout_are_refused_in_one_line() {
    fails_cleanly(&["new-policy", "My_Policy"], &["`My_Policy` is not a policy name"]);
    fails_cleanly(&["new-policy", "cfs"], &["already a policy's name"]);
    let empty = std::env::temp_dir().join(format!("cosched-new-policy-empty-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    fails_cleanly(&["new-policy", "fine-name", "--root", empty.to_str().unwrap()], &["families", "--root"]);
    assert!(snapshot(&empty).is_empty(), "nothing written into a folder that is not a checkout");
    let _ = std::fs::remove_dir_all(&empty);
}
