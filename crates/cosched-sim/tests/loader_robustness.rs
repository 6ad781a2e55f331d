//! The loaders never panic: every file of the fuzz regression corpus, and
//! seeded byte-level mutations of every preset, load or fail with a
//! ConfigError.

use cosched_machine::MachineSpec;
use cosched_sim::{presets, Plan};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::Path;

fn try_machine(s: &str) {
    if let Ok(m) = MachineSpec::from_toml("fuzz.toml", s) {
        let _ = m.topology();
        let _ = m.bus_lines_per_s();
    }
}

fn try_workload(s: &str) {
    if let Ok(w) = presets::workload_from_toml("fuzz.toml", s) {
        let m = cosched_machine::presets::machine("i5-2500").unwrap();
        for t in [None, Some(1), Some(7)] {
            let _ = Plan::new(&w, &m, t, 1, "fuzz.toml");
        }
    }
}

fn corpus(dir: &str) -> Vec<String> {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus").join(dir);
    let mut v: Vec<_> = std::fs::read_dir(d).unwrap().map(|e| e.unwrap().path()).collect();
    v.sort();
    v.iter().filter_map(|p| std::fs::read(p).ok()).filter_map(|b| String::from_utf8(b).ok()).collect()
}

#[test]
fn regression_corpus_loads_or_errors() {
    let m = corpus("load_machine");
    let w = corpus("load_workload");
    assert!(m.len() >= 5 && w.len() >= 5);
    m.iter().for_each(|s| try_machine(s));
    w.iter().for_each(|s| try_workload(s));
}

fn mutate(rng: &mut ChaCha8Rng, src: &str) -> String {
    let mut b = src.as_bytes().to_vec();
    const TOKENS: [&[u8]; 12] =
        [b"-", b"0", b"1e308", b"nan", b"inf", b"\"", b"[", b"]", b"=", b"\n", b"-1", b"4294967296"];
    for _ in 0..rng.gen_range(1..6) {
        let i = rng.gen_range(0..b.len().max(1));
        match rng.gen_range(0..3) {
            0 if !b.is_empty() => {
                b.remove(i.min(b.len() - 1));
            }
            1 => {
                let t = TOKENS[rng.gen_range(0..TOKENS.len())];
                let i = i.min(b.len());
                b.splice(i..i, t.iter().copied());
            }
            _ => {
                if let Some(x) = b.get_mut(i) {
                    *x = b"0123456789.-e"[rng.gen_range(0..13)];
                }
            }
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

#[test]
fn mutated_presets_load_or_error() {
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    for m in corpus("load_machine") {
        for _ in 0..300 {
            try_machine(&mutate(&mut rng, &m));
        }
    }
    for w in corpus("load_workload") {
        for _ in 0..300 {
            try_workload(&mutate(&mut rng, &w));
        }
    }
}
