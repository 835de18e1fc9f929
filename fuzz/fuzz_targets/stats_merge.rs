//! libFuzzer target: `stats --partial` on pieces of the input, merged, writes the reports
//! one `stats` run over the same pieces writes (the first 3 bytes say where to cut).

#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/fuzz_support/mod.rs"]
mod fuzz_support;

fuzz_target!(|data: &[u8]| {
    let (control, input) = data.split_at(data.len().min(3));
    let dir = std::env::temp_dir().join(format!("pgnkit-fuzz-stats-{}", std::process::id()));
    fuzz_support::check_stats_merge(control, input, &dir);
});
