//! libFuzzer target: a `select --where` expression parses or is refused with a rendered
//! error, never a panic; one that parses is decided on a game's tags as its negation is, the
//! other way.

#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/fuzz_support/mod.rs"]
mod fuzz_support;

fuzz_target!(|data: &[u8]| {
    fuzz_support::check_select(data);
});
