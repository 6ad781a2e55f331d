//! The bound beside a comparison, kept between runs: a seed's bound is a
//! function of its machine and plan (both drawn from the seed), the search's
//! sizes and the model, so it is kept under a key of all of them and reused
//! when they are all the same. The model is named by its version, a hash of
//! every source and preset the simulated results depend on (`build.rs`), so
//! any change to the code or the data is a miss, never a stale value.

use crate::optimum::KINDS;
use cosched_machine::spec::MachineSpec;
use cosched_sim::plan::Plan;
use serde::{Deserialize, Serialize};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

/// The model's version: the crate's version and a hash of the sources of the
/// simulator, the policies, the machine descriptions, the presets and the
/// locked dependencies (`build.rs`).
pub const MODEL_VERSION: &str = env!("COSCHED_MODEL_VERSION");

/// One seed's bound: its kind, the family's size (text), the value, its POT
/// interval and the random members simulated (0: exact).
pub(super) type PerSeed = (&'static str, String, f64, Option<(f64, f64)>, usize);

/// The largest kept bound read back, in bytes (one is about 300).
const ENTRY_LIMIT: u64 = 4096;

/// The most bounds kept (about 1.2 MB): past it the oldest go first, those
/// of earlier model versions among them.
pub const MAX_KEPT: usize = 4096;

/// Bounds kept in a folder (`bound/` of the cache folder, [`crate::cache::folder`]).
#[derive(Debug, Clone)]
pub struct BoundCache {
    dir: PathBuf,
}

/// One kept bound: the values as their bits, so the reused value is the
/// computed one to the last bit.
#[derive(Serialize, Deserialize)]
struct Entry {
    model_version: String,
    key: String,
    kind: String,
    coschedules: String,
    value_bits: u64,
    ci_bits: Option<(u64, u64)>,
    samples: usize,
}

impl BoundCache {
    /// Bounds kept under `cache_folder` (in its `bound` folder).
    pub fn new(cache_folder: &Path) -> BoundCache {
        BoundCache { dir: cache_folder.join("bound") }
    }

    /// Where the bounds are kept.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The key of one seed's bound: the model's version, the search's sizes
    /// (`budget` co-schedules enumerated at most, `samples` random members),
    /// the seed, and the machine and plan that seed drew (every field, as
    /// their debug text: every number in its shortest exact form).
    pub fn key(machine: &MachineSpec, plan: &Plan, budget: usize, samples: usize, seed: u64) -> String {
        let text = format!("{MODEL_VERSION}|throughput|{budget}|{samples}|{seed}|{machine:?}|{plan:?}");
        let half = |salt: u8| {
            let mut h = std::hash::DefaultHasher::new();
            salt.hash(&mut h);
            text.hash(&mut h);
            h.finish()
        };
        format!("{:016x}{:016x}", half(1), half(2))
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.json"))
    }

    /// The bound kept under `key`, if one was kept by this model.
    pub(super) fn get(&self, key: &str) -> Option<PerSeed> {
        let text = crate::cache::read_kept(&self.path(key), ENTRY_LIMIT)?;
        let e: Entry = serde_json::from_str(&text).ok()?;
        if e.model_version != MODEL_VERSION || e.key != key {
            return None;
        }
        let kind = KINDS.into_iter().find(|k| *k == e.kind)?;
        let ci = e.ci_bits.map(|(lo, hi)| (f64::from_bits(lo), f64::from_bits(hi)));
        Some((kind, e.coschedules, f64::from_bits(e.value_bits), ci, e.samples))
    }

    /// Keep `bound` under `key` (written whole or not at all).
    pub(super) fn put(&self, key: &str, bound: &PerSeed) -> Result<(), cosched_machine::ConfigError> {
        let (kind, coschedules, value, ci, samples) = bound;
        let e = Entry {
            model_version: MODEL_VERSION.to_string(),
            key: key.to_string(),
            kind: kind.to_string(),
            coschedules: coschedules.clone(),
            value_bits: value.to_bits(),
            ci_bits: ci.map(|(lo, hi)| (lo.to_bits(), hi.to_bits())),
            samples: *samples,
        };
        let text = serde_json::to_string(&e).expect("an entry of strings and integers serializes");
        crate::cache::keep(&self.path(key), &text)?;
        self.prune(MAX_KEPT);
        Ok(())
    }

    /// Remove the oldest kept bounds (by modification time, then name) until
    /// at most `keep` are left. Best effort: a file another run removed first
    /// is no error.
    fn prune(&self, keep: usize) {
        let Ok(rd) = std::fs::read_dir(&self.dir) else { return };
        let mut kept: Vec<(std::time::SystemTime, PathBuf)> = rd
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
            .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
            .collect();
        if kept.len() <= keep {
            return;
        }
        kept.sort();
        for (_, p) in &kept[..kept.len() - keep] {
            let _ = std::fs::remove_file(p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cosched_machine::presets::machine;
    use cosched_sim::presets::workload;

    fn plan(m: &MachineSpec, w: &str) -> Plan {
        let w = workload(w).unwrap();
        Plan::new(&w, m, None, 1, &w.name).unwrap()
    }

    fn folder(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("cosched-bound-cache-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn the_key_changes_with_the_machine_the_workload_and_the_seed() {
        let (a, b) = (machine("i5-2500").unwrap(), machine("xeon-e5645").unwrap());
        let pa = plan(&a, "spec-mix8");
        let base = BoundCache::key(&a, &pa, 20_000, 300, 1);
        assert_eq!(base, BoundCache::key(&a, &pa, 20_000, 300, 1), "a function of its inputs");
        assert_ne!(base, BoundCache::key(&b, &pa, 20_000, 300, 1), "another machine");
        assert_ne!(base, BoundCache::key(&a, &plan(&a, "spec-mix24"), 20_000, 300, 1), "another workload");
        assert_ne!(base, BoundCache::key(&a, &pa, 20_000, 300, 2), "another seed");
        assert_ne!(base, BoundCache::key(&a, &pa, 20_000, 1000, 1), "another sample count");
        assert_ne!(base, BoundCache::key(&a, &pa, 10_000, 300, 1), "another budget");
        // One number of the machine moved in its last digit is another machine.
        let mut c = a.clone();
        c.power.system_idle_w = f64::from_bits(c.power.system_idle_w.to_bits() + 1);
        assert_ne!(base, BoundCache::key(&c, &pa, 20_000, 300, 1), "a machine one ulp apart");
    }

    #[test]
    fn a_bound_kept_by_another_model_or_damaged_is_not_reused() {
        let cache = BoundCache::new(&folder("model"));
        let bound: PerSeed = (KINDS[5], "12".into(), 1.0 / 3.0, Some((0.1, f64::INFINITY)), 300);
        cache.put("k", &bound).unwrap();
        let got = cache.get("k").expect("kept by this model");
        assert_eq!(got.0, bound.0);
        assert_eq!(got.2.to_bits(), bound.2.to_bits(), "bit for bit");
        assert_eq!(got.3.map(|c| (c.0.to_bits(), c.1.to_bits())), bound.3.map(|c| (c.0.to_bits(), c.1.to_bits())));
        let path = cache.path("k");
        let text = std::fs::read_to_string(&path).unwrap();
        // Another model version: a miss.
        std::fs::write(&path, text.replace(MODEL_VERSION, "0.0.0-0000000000000000")).unwrap();
        assert!(cache.get("k").is_none(), "kept by another model");
        // Kept under another key (a file renamed), an unknown kind, damaged text: misses.
        std::fs::write(&path, text.replace("\"key\":\"k\"", "\"key\":\"j\"")).unwrap();
        assert!(cache.get("k").is_none());
        std::fs::write(&path, text.replace(KINDS[5], "best guess")).unwrap();
        assert!(cache.get("k").is_none());
        std::fs::write(&path, &text[..text.len() / 2]).unwrap();
        assert!(cache.get("k").is_none());
        std::fs::write(&path, &text).unwrap();
        assert!(cache.get("k").is_some(), "the intact file is read again");
        let _ = std::fs::remove_dir_all(cache.dir().parent().unwrap());
    }

    #[test]
    fn the_cache_keeps_at_most_its_bound_the_newest_first() {
        let cache = BoundCache::new(&folder("prune"));
        let bound: PerSeed = (KINDS[9], "3".into(), 2.0, None, 0);
        for k in 0..5 {
            cache.put(&format!("k{k}"), &bound).unwrap();
            // Distinct modification times, oldest first.
            let t = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000 + k);
            std::fs::File::options().write(true).open(cache.path(&format!("k{k}"))).unwrap().set_modified(t).unwrap();
        }
        cache.prune(3);
        let left: Vec<bool> = (0..5).map(|k| cache.get(&format!("k{k}")).is_some()).collect();
        assert_eq!(left, [false, false, true, true, true]);
        let _ = std::fs::remove_dir_all(cache.dir().parent().unwrap());
    }
}
