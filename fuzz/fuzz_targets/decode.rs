//! libFuzzer target: the streaming decoder equals a one-shot decode of the whole input, for
//! any encoding (forced or detected) and any read sizes (the first 7 bytes pick them).

#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/fuzz_support/mod.rs"]
mod fuzz_support;

fuzz_target!(|data: &[u8]| {
    let (control, input) = data.split_at(data.len().min(7));
    fuzz_support::check_decode(control, input);
});
