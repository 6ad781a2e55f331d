//! The model's version: a hash of every source the simulated results are a
//! function of (the sources of this crate and of the crates it builds on, the
//! embedded presets under `data/`, and `Cargo.lock`'s dependency versions).
//! A result kept between runs (the bound beside `compare`,
//! `src/compare/bound_cache.rs`) is keyed by it, so a change to any of them
//! is a new model and nothing kept from the old one is reused.

use std::hash::Hasher;
use std::path::{Path, PathBuf};

/// Every file under `dir`, sorted.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut inputs = vec![];
    for krate in ["cosched-core", "cosched-machine", "cosched-sim", "cosched-policies", "cosched-lab"] {
        let dir = root.join("crates").join(krate);
        for part in ["src", "build.rs", "Cargo.toml"] {
            let p = dir.join(part);
            // A path that does not exist would make cargo run this script, and rebuild the
            // crate, on every build.
            if !p.exists() {
                continue;
            }
            println!("cargo:rerun-if-changed={}", p.display());
            if p.is_dir() {
                files(&p, &mut inputs);
            } else {
                inputs.push(p);
            }
        }
    }
    for p in [root.join("data"), root.join("Cargo.lock")] {
        println!("cargo:rerun-if-changed={}", p.display());
        if p.is_dir() {
            files(&p, &mut inputs);
        } else {
            inputs.push(p);
        }
    }
    inputs.sort();
    // The standard library's hasher with its fixed keys: a change detector for a
    // cache on one machine, not a checksum between machines.
    let mut h = std::hash::DefaultHasher::new();
    for p in &inputs {
        let Ok(bytes) = std::fs::read(p) else { continue };
        let rel = p.strip_prefix(&root).unwrap_or(p);
        h.write(rel.to_string_lossy().as_bytes());
        h.write_u8(0);
        h.write_usize(bytes.len());
        h.write(&bytes);
    }
    println!("cargo:rustc-env=COSCHED_MODEL_VERSION={}-{:016x}", env!("CARGO_PKG_VERSION"), h.finish());
}
