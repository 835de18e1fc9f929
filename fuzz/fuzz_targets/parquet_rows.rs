//! libFuzzer target: a Parquet file of the input's cells (an `Event` and a `movetext` a row,
//! cut at NUL bytes; the first 8 bytes pick the codec, the pages and a flipped byte) reads
//! back as pgnkit reads Parquet input without a panic, one game a row at most.

#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/fuzz_support/mod.rs"]
mod fuzz_support;

fuzz_target!(|data: &[u8]| {
    let (control, input) = data.split_at(data.len().min(8));
    let path = std::env::temp_dir().join(format!("pgnkit-fuzz-parquet-{}.parquet", std::process::id()));
    fuzz_support::check_parquet_rows(control, input, &path);
});
