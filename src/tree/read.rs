//! Reading a tree file back, row by row in its order, whatever its format: for `tree --fen`
//! and `tree merge`.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use anyhow::{bail, Context};

use super::parquet::ParquetRows;
use super::rows::RowOut;
use super::Format;

/// The format of the tree file `path`: Parquet, a Polyglot book, JSON lines or CSV, told by
/// its first bytes (and, for a book, which has no mark, by its extension).
///
/// # Errors
///
/// A file that cannot be read.
pub fn format_of(path: &Path) -> anyhow::Result<Format> {
    if Format::of_path(path) == Some(Format::Polyglot) {
        return Ok(Format::Polyglot);
    }
    let mut head = [0u8; 4];
    let mut file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let n = file
        .read(&mut head)
        .with_context(|| format!("cannot read {}", path.display()))?;
    Ok(match &head[..n] {
        b"PAR1" => Format::Parquet,
        [b'{', ..] => Format::Jsonl,
        _ => Format::Csv,
    })
}

/// The rows of a tree file, in order.
pub struct TreeRows {
    name: String,
    source: Source,
}

enum Source {
    Csv(csv::DeserializeRecordsIntoIter<BufReader<File>, RowOut>),
    Jsonl(serde_json::StreamDeserializer<'static, serde_json::de::IoRead<BufReader<File>>, RowOut>),
    Parquet(Box<ParquetRows>),
}

impl TreeRows {
    /// Opens the tree file `path`, written in `format`.
    ///
    /// # Errors
    ///
    /// A file that cannot be opened, or a Polyglot book (which holds no rows).
    pub fn open(path: &Path, format: Format) -> anyhow::Result<TreeRows> {
        let name = path.display().to_string();
        let file = File::open(path).with_context(|| format!("cannot open {name}"))?;
        let source = match format {
            Format::Parquet => Source::Parquet(Box::new(
                ParquetRows::new(file).with_context(|| name.clone())?,
            )),
            Format::Csv => {
                Source::Csv(csv::Reader::from_reader(BufReader::new(file)).into_deserialize())
            }
            Format::Jsonl => Source::Jsonl(
                serde_json::Deserializer::from_reader(BufReader::new(file)).into_iter(),
            ),
            Format::Polyglot => bail!("{name} is a Polyglot book, not a table of rows"),
        };
        Ok(TreeRows { name, source })
    }

    /// The next row; `None` at the end.
    ///
    /// # Errors
    ///
    /// A file that cannot be read, or a row that is not one of a tree.
    pub fn next_row(&mut self) -> anyhow::Result<Option<RowOut>> {
        let name = &self.name;
        let not_a_row = || format!("{name}: not a row of a tree");
        match &mut self.source {
            Source::Csv(rows) => rows.next().transpose().with_context(not_a_row),
            Source::Jsonl(rows) => rows.next().transpose().with_context(not_a_row),
            Source::Parquet(rows) => rows.next_row().with_context(|| name.clone()),
        }
    }

    /// The file's name, as given.
    pub fn name(&self) -> &str {
        &self.name
    }
}
