//! libFuzzer target over the whole input path: the reader (in three read sizes), the lexer,
//! the notation readers, the replay and the notation round trips, with the same properties
//! as `tests/fuzz.rs` (see `tests/fuzz_support/mod.rs`).
//!
//! `cargo +nightly fuzz run lex_replay fuzz/corpus/lex_replay testdata/fuzz -- -max_len=4096`

#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/fuzz_support/mod.rs"]
mod fuzz_support;

fuzz_target!(|data: &[u8]| {
    fuzz_support::check_input(data, data.len());
});
