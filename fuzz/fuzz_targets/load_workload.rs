//! Fuzz the workload loader and planner: any bytes give a plan or a ConfigError, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(s) = std::str::from_utf8(data) {
        if let Ok(w) = cosched_sim::presets::workload_from_toml("fuzz.toml", s) {
            let m = cosched_machine::presets::machine("i5-2500").expect("preset");
            let _ = cosched_sim::Plan::new(&w, &m, Some(4), 1, "fuzz.toml");
        }
    }
});
