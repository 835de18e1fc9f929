//! libFuzzer target: a Parquet file of the input's cells (an `Event` and a `movetext` a row,
//! cut at NUL bytes; the first 8 bytes pick the codec, the pages and a flipped byte) reads
//! back as pgnkit reads Parquet input without a panic, one game a row at most.

#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/fuzz_support/mod.rs"]
mod fuzz_support;

static DEFAULT_HOOK: std::sync::Once = std::sync::Once::new();

fuzz_target!(|data: &[u8]| {
    // pgnkit catches a panic of the Parquet decoder (another crate's code on damaged bytes)
    // and reports the row group (P032); libFuzzer's panic hook would abort at the panic,
    // before the catch. With the default hook back, a panic pgnkit does not catch still
    // reaches libFuzzer, which aborts on it.
    DEFAULT_HOOK.call_once(|| drop(std::panic::take_hook()));
    let (control, input) = data.split_at(data.len().min(8));
    let path = std::env::temp_dir().join(format!(
        "pgnkit-fuzz-parquet-{}.parquet",
        std::process::id()
    ));
    fuzz_support::check_parquet_rows(control, input, &path);
});
