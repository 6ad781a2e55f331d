//! The progress-period decoder never panics: every file of the fuzz
//! regression corpus (fuzz/corpus/pp_decode) and seeded mutations of them
//! decode or fail with a message; decoded requests round-trip.

use cosched_core::pp_wire::{decode, encode};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn check(b: &[u8]) {
    if let Ok(r) = decode(b) {
        assert_eq!(decode(encode(&r).as_bytes()), Ok(r));
    }
}

#[test]
fn corpus_and_mutations_decode_or_error() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/pp_decode");
    let mut files: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    assert!(files.len() >= 8);
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut ok = 0;
    for f in files {
        let b = std::fs::read(f).unwrap();
        check(&b);
        ok += decode(&b).is_ok() as usize;
        for _ in 0..2000 {
            let mut m = b.clone();
            for _ in 0..rng.gen_range(1..4) {
                let i = rng.gen_range(0..=m.len());
                match rng.gen_range(0..3) {
                    0 if i < m.len() => {
                        m.remove(i);
                    }
                    1 => m.insert(i, rng.gen()),
                    _ => m.insert(i, b" 09\nEND-"[rng.gen_range(0..8)]),
                }
            }
            check(&m);
        }
    }
    assert!(ok >= 3, "the corpus holds valid requests too");
}
