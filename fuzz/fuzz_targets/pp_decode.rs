//! Fuzz the progress-period request decoder (cosched_core::pp_wire): any
//! bytes decode to a request or an error, never a panic; decoded requests
//! re-encode to a line that decodes to the same request.
#![no_main]
use cosched_core::pp_wire::{decode, encode};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(r) = decode(data) {
        assert_eq!(decode(encode(&r).as_bytes()), Ok(r));
    }
});
