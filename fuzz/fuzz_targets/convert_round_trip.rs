//! libFuzzer target: each game `convert` accepts, written in a notation (the first byte picks
//! it) as PGN and in the book layout, reads back with the same moves, final position and
//! termination; EPD gives that final position.

#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/fuzz_support/mod.rs"]
mod fuzz_support;

fuzz_target!(|data: &[u8]| {
    if let Some((&pick, input)) = data.split_first() {
        fuzz_support::check_convert_round_trip(input, usize::from(pick));
    }
});
