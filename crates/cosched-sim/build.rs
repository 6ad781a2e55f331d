//! Embed every workload preset under `data/workloads` so the binary works from any directory.

use std::fmt::Write;
use std::path::Path;

fn main() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data");
    let mut out = String::new();
    for kind in ["workloads"] {
        let dir = data.join(kind);
        println!("cargo:rerun-if-changed={}", dir.display());
        let mut files: Vec<_> =
            std::fs::read_dir(&dir).map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.path()).collect()).unwrap_or_default();
        files.retain(|p| p.extension().is_some_and(|e| e == "toml"));
        files.sort();
        writeln!(out, "pub(crate) const {}: &[(&str, &str)] = &[", kind.to_uppercase()).unwrap();
        for f in files {
            println!("cargo:rerun-if-changed={}", f.display());
            let name = f.file_stem().unwrap().to_string_lossy().to_string();
            writeln!(out, "    ({name:?}, include_str!({:?})),", f.canonicalize().unwrap().display().to_string())
                .unwrap();
        }
        writeln!(out, "];").unwrap();
    }
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("presets.rs");
    std::fs::write(dest, out).unwrap();
}
