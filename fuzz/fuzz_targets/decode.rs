//! Arbitrary bytes as a client's text frame: the decoder never panics, and every frame it accepts
//! survives a round trip through its own serialisation.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../invariants/decode.rs"]
mod invariant;

fuzz_target!(|data: &[u8]| {
    invariant::check_bytes(data);
});
