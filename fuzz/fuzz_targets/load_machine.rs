//! Fuzz the machine-preset loader: any bytes give a spec or a ConfigError, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(s) = std::str::from_utf8(data) {
        if let Ok(m) = cosched_machine::MachineSpec::from_toml("fuzz.toml", s) {
            let _ = m.topology();
        }
    }
});
