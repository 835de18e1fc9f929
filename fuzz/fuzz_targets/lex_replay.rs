//! libFuzzer target, the fast one: the reader, the lexer's spans and coverage, and the
//! replay's fast path against the general one (`fuzz_support::check_input_fast`). The slow
//! cross-checks are `lex_replay_full`.

#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/fuzz_support/mod.rs"]
mod fuzz_support;

fuzz_target!(|data: &[u8]| {
    fuzz_support::check_input_fast(data);
});
