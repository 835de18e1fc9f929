//! Input: opening paths and stdin, and the parallel game pipeline that reads games on one
//! thread, works on them on several, and hands the results back in input order.

pub mod decode;
pub mod open;
pub mod pipeline;
pub mod progress;

use std::io;

/// Worker threads for `--jobs`: the number given, or the number of cores.
pub fn jobs(given: Option<usize>) -> usize {
    given.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// The encoding named by `--encoding`, if any.
///
/// # Errors
///
/// When the name is not an encoding pgnkit knows.
pub fn forced_encoding(
    name: Option<&str>,
) -> Result<Option<&'static encoding_rs::Encoding>, String> {
    match name {
        None => Ok(None),
        Some(name) => decode::by_name(name).map(Some).ok_or_else(|| {
            format!("unknown encoding '{name}' (try utf-8, windows-1252, latin1, gbk, gb18030, big5, utf-16le)")
        }),
    }
}

/// Expands the paths and reports the directories that cannot be read on stderr; returns the
/// sources and how many directories failed.
pub fn sources(paths: &[std::path::PathBuf]) -> (Vec<open::Source>, usize) {
    let (sources, errors) = open::expand(paths);
    for (path, e) in &errors {
        eprintln!("pgnkit: cannot read directory {}: {e}", path.display());
    }
    (sources, errors.len())
}

/// Opens a source, decompressed and decoded to UTF-8.
///
/// # Errors
///
/// When it cannot be opened or its first bytes cannot be read.
pub fn open_text(
    source: &open::Source,
    forced: Option<&'static encoding_rs::Encoding>,
) -> io::Result<(
    Box<dyn io::Read + Send>,
    decode::Detected,
    decode::Malformed,
)> {
    open::open(source).and_then(|(input, _)| decode::decoded(input, forced))
}
