//! libFuzzer target over the whole input path, every way `tests/fuzz.rs` checks it: the
//! reader in three read sizes, the pipeline with one and two jobs, the lexer, the notation
//! readers, the replay and the notation round trips (`fuzz_support::check_input`). Slow:
//! each input is replayed some 20 ways.

#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/fuzz_support/mod.rs"]
mod fuzz_support;

fuzz_target!(|data: &[u8]| {
    fuzz_support::check_input(data, data.len());
});
