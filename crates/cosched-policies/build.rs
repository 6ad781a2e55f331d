//! Finds the policy families: every module of `src/families/` (a `NAME.rs`
//! or a `NAME/mod.rs`) that declares `pub(crate) const REGISTERED`, and
//! writes `families.rs` into the build's output folder, which
//! `src/families/mod.rs` includes: a `mod NAME;` for each (by absolute path)
//! and `FAMILIES`, the list the registry is built from. Adding a policy is
//! adding a file (`cosched new-policy`).

use std::path::{Path, PathBuf};

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/families");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut found: Vec<(String, PathBuf)> = vec![];
    for entry in std::fs::read_dir(&dir).expect("src/families is readable") {
        let path = entry.expect("a folder entry").path();
        let (name, file) = if path.is_dir() {
            (path.file_name(), path.join("mod.rs"))
        } else if path.extension().is_some_and(|e| e == "rs") {
            (path.file_stem(), path.clone())
        } else {
            continue;
        };
        let name = name.expect("a file name").to_string_lossy().into_owned();
        let declares = std::fs::read_to_string(&file).is_ok_and(|t| t.contains("pub(crate) const REGISTERED"));
        if name != "mod" && declares {
            found.push((name, file));
        }
    }
    found.sort();
    let mut out = String::new();
    for (name, file) in &found {
        out += &format!("#[path = {:?}]\nmod {name};\n", file.display().to_string());
    }
    out += "/// Every family of this folder, by module name (the registry orders them by rank).\n";
    out += "pub(crate) const FAMILIES: &[&Registered] = &[\n";
    for (name, _) in &found {
        out += &format!("    &{name}::REGISTERED,\n");
    }
    out += "];\n";
    let dest = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR is set by cargo")).join("families.rs");
    std::fs::write(dest, out).expect("OUT_DIR is writable");
}
