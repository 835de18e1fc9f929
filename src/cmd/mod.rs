//! Subcommands: one file each, its arguments next to its `run`.

pub mod convert;
pub mod stats;
pub mod validate;

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

use anyhow::Context;

/// Opens the `--rejects` file, when one was asked for.
///
/// # Errors
///
/// When the file cannot be created; the message names it.
pub(crate) fn rejects_file(path: Option<&Path>) -> anyhow::Result<Option<BufWriter<File>>> {
    path.map(|path| {
        File::create(path)
            .map(BufWriter::new)
            .with_context(|| format!("cannot create {}", path.display()))
    })
    .transpose()
}
