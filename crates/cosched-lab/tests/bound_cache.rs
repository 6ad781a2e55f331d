//! The bound beside a comparison kept between runs (`BoundCache`): reused
//! bit for bit for the same machine, workload and seed, computed again for a
//! seed not kept, never kept when not asked for.

use cosched_lab::compare::{comparison, BoundCache, Comparing, Comparison, Steps};
use cosched_lab::RunSpec;

fn compare(first_seed: u64, seeds: u64, cache: Option<&BoundCache>) -> Comparison {
    // Four copies on four cores: the family is small enough to search exactly.
    let run = RunSpec {
        machine: "i5-2500".into(),
        workload: "mcf".into(),
        copies: Some(4),
        timing: false,
        ..RunSpec::default()
    };
    let names = ["cfs".to_string()];
    let what = Comparing {
        policies: &names,
        customs: &[],
        baseline: "cfs",
        first_seed,
        seeds,
        gap: true,
        regimes: false,
        bound_cache: cache,
    };
    comparison(&run.resolve().unwrap(), &what, &Steps::silent()).unwrap()
}

fn kept(cache: &BoundCache) -> usize {
    std::fs::read_dir(cache.dir()).map_or(0, |d| d.count())
}

#[test]
fn a_kept_bound_is_reused_bit_for_bit_for_the_same_seeds_only() {
    let dir = std::env::temp_dir().join(format!("cosched-bound-reuse-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let cache = BoundCache::new(&dir);
    let fresh = compare(1, 2, None);
    assert_eq!(kept(&cache), 0, "nothing kept without a cache");
    let first = compare(1, 2, Some(&cache));
    let cost = first.bound_cost.clone().unwrap();
    assert_eq!((cost.computed, cost.reused), (2, 0));
    assert_eq!(kept(&cache), 2, "one bound kept per seed");
    let again = compare(1, 2, Some(&cache));
    let cost = again.bound_cost.clone().unwrap();
    assert_eq!((cost.computed, cost.reused), (0, 2));
    let json = |c: &Comparison| serde_json::to_string(c).unwrap();
    assert_eq!(json(&first), json(&fresh), "keeping the bound changes nothing");
    assert_eq!(json(&again), json(&fresh), "the reused bound is the computed one, bit for bit");
    // Seeds 2 and 3: seed 2's bound reused, seed 3's computed and kept.
    let moved = compare(2, 2, Some(&cache));
    let cost = moved.bound_cost.clone().unwrap();
    assert_eq!((cost.computed, cost.reused), (1, 1));
    assert_eq!(json(&moved), json(&compare(2, 2, None)));
    assert_eq!(kept(&cache), 3);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The crates whose sources name the model's version (`build.rs`) are every
/// workspace crate this one builds on: a crate added below the lab and left
/// out of the hash would let a changed model reuse an old bound.
#[test]
fn the_model_version_hashes_every_crate_the_lab_builds_on() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let deps = |krate: &str| -> Vec<String> {
        let text = std::fs::read_to_string(root.join("crates").join(krate).join("Cargo.toml")).unwrap();
        let normal = text.split("[dev-dependencies]").next().unwrap().to_string();
        normal
            .lines()
            .filter_map(|l| l.trim().split_once(".workspace").map(|(n, _)| n.to_string()))
            .filter(|n| n.starts_with("cosched-"))
            .collect()
    };
    let mut closure = vec!["cosched-lab".to_string()];
    let mut i = 0;
    while i < closure.len() {
        for d in deps(&closure[i].clone()) {
            if !closure.contains(&d) {
                closure.push(d);
            }
        }
        i += 1;
    }
    closure.sort();
    let build = std::fs::read_to_string(root.join("crates/cosched-lab/build.rs")).unwrap();
    let list = build.split("for krate in [").nth(1).unwrap().split(']').next().unwrap();
    let mut hashed: Vec<String> = list.split(',').map(|s| s.trim().trim_matches('"').to_string()).collect();
    hashed.retain(|s| !s.is_empty());
    hashed.sort();
    assert_eq!(hashed, closure, "build.rs's crates against cosched-lab's workspace dependencies");
    assert!(cosched_lab::compare::MODEL_VERSION.starts_with(env!("CARGO_PKG_VERSION")));
}
