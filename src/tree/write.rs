//! Where the rows of a tree go: CSV, JSON lines, Parquet or a Polyglot book, chosen by
//! [`Format`]. One writer for `tree` and `tree merge`, handed rows in order.

use std::io::{self, BufWriter, Write};
use std::path::Path;

use super::parquet::TreeParquet;
use super::polyglot::{BookOptions, BookWriter};
use super::rows::{texts, Row, RowOut, COLUMNS};

/// A Parquet error as an I/O error (of the same kind when it is one).
fn parquet_io(e: parquet::errors::ParquetError) -> io::Error {
    match e {
        parquet::errors::ParquetError::External(inner) => match inner.downcast::<io::Error>() {
            Ok(io) => *io,
            Err(other) => io::Error::other(other),
        },
        other => io::Error::other(other),
    }
}

/// The format of a tree file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// One row a (position, move), for DuckDB and Polars (the default).
    #[default]
    Parquet,
    Csv,
    /// JSON lines: one object a row.
    Jsonl,
    /// A Polyglot opening book (`.bin`).
    Polyglot,
}

impl Format {
    /// The format a file's name ends with (`.parquet`, `.csv`, `.jsonl` or `.ndjson`,
    /// `.bin`), if any.
    pub fn of_path(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "parquet" => Some(Format::Parquet),
            "csv" => Some(Format::Csv),
            "jsonl" | "ndjson" => Some(Format::Jsonl),
            "bin" => Some(Format::Polyglot),
            _ => None,
        }
    }

    /// Its name, as `--format` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Format::Parquet => "parquet",
            Format::Csv => "csv",
            Format::Jsonl => "jsonl",
            Format::Polyglot => "bin",
        }
    }
}

/// Writes rows in one format.
pub enum RowWriter<W: Write + Send> {
    Csv(Box<csv::Writer<W>>),
    Jsonl(BufWriter<W>),
    Parquet(Box<TreeParquet<BufWriter<W>>>),
    Book(BookWriter<W>),
}

impl<W: Write + Send> RowWriter<W> {
    /// Starts a file of `format` on `out`.
    ///
    /// # Errors
    ///
    /// When the header cannot be written, or the format is not one of rows.
    pub fn new(format: Format, out: W, book: BookOptions) -> io::Result<RowWriter<W>> {
        Ok(match format {
            Format::Csv => {
                // The header is written here, so that a tree without rows has one too.
                let mut w = csv::WriterBuilder::new()
                    .has_headers(false)
                    .from_writer(out);
                w.write_record(COLUMNS).map_err(crate::outcome::csv_io)?;
                RowWriter::Csv(Box::new(w))
            }
            Format::Jsonl => RowWriter::Jsonl(BufWriter::with_capacity(1 << 16, out)),
            Format::Parquet => RowWriter::Parquet(Box::new(
                TreeParquet::new(BufWriter::with_capacity(1 << 16, out)).map_err(parquet_io)?,
            )),
            Format::Polyglot => RowWriter::Book(BookWriter::new(out, book)),
        })
    }

    /// Writes `row`; `names` are the inputs `row.example_file` indexes.
    ///
    /// # Errors
    ///
    /// When the output cannot be written, or the row's position is damaged.
    pub fn write(&mut self, row: &Row, names: &[String]) -> io::Result<()> {
        if let RowWriter::Book(w) = self {
            // A book keeps no text.
            return w.push(row);
        }
        let texts = texts(&row.position, row.mv).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("a damaged row (key {:016x})", row.key),
            )
        })?;
        let out = RowOut::of(row, texts, names);
        match self {
            RowWriter::Csv(w) => w.serialize(&out).map_err(crate::outcome::csv_io),
            RowWriter::Jsonl(w) => {
                serde_json::to_writer(&mut *w, &out)?;
                w.write_all(b"\n")
            }
            RowWriter::Parquet(w) => w.push(&out).map_err(parquet_io),
            RowWriter::Book(_) => Ok(()),
        }
    }

    /// Flushes what is left and gives the output back, with the entries of a book.
    ///
    /// # Errors
    ///
    /// When the output cannot be written.
    pub fn finish(self) -> io::Result<(W, Option<u64>)> {
        let out = match self {
            RowWriter::Csv(w) => w
                .into_inner()
                .map_err(|e| io::Error::other(e.to_string()))?,
            RowWriter::Jsonl(w) => w.into_inner().map_err(|e| e.into_error())?,
            RowWriter::Parquet(w) => w
                .finish()
                .map_err(parquet_io)?
                .into_inner()
                .map_err(|e| e.into_error())?,
            RowWriter::Book(w) => {
                let (out, entries) = w.finish()?;
                return Ok((out, Some(entries)));
            }
        };
        Ok((out, None))
    }
}

/// Where the rows of a run go: left out below `--min-games` (a book leaves out its own
/// entries), counted, written. What `tree` and `tree merge` share past their rows.
pub struct TreeOut<W: Write + Send> {
    writer: RowWriter<W>,
    min_games: u64,
    book: bool,
    rows: u64,
    positions: u64,
    last: Option<u64>,
}

impl<W: Write + Send> TreeOut<W> {
    /// Starts the output of `format` on `out`.
    ///
    /// # Errors
    ///
    /// As [`RowWriter::new`].
    pub fn new(format: Format, out: W, book: BookOptions) -> io::Result<TreeOut<W>> {
        Ok(TreeOut {
            writer: RowWriter::new(format, out, book)?,
            min_games: book.min_games,
            book: format == Format::Polyglot,
            rows: 0,
            positions: 0,
            last: None,
        })
    }

    /// Writes `row` unless it has too few games; `names` are the inputs its example indexes.
    ///
    /// # Errors
    ///
    /// As [`RowWriter::write`].
    pub fn put(&mut self, row: &Row, names: &[String]) -> io::Result<()> {
        // A book filters its entries itself, once their counts are as make-book keeps them.
        if row.games < self.min_games && !self.book {
            return Ok(());
        }
        if self.last != Some(row.key) {
            self.positions += 1;
            self.last = Some(row.key);
        }
        self.rows += 1;
        self.writer.write(row, names)
    }

    /// Writes what is left and gives the output back (flushed), with what was written as the
    /// summary says it: `5 rows of 3 positions`, and the entries of a book.
    ///
    /// # Errors
    ///
    /// When the output cannot be written.
    pub fn finish(self) -> io::Result<(W, String)> {
        let (mut out, entries) = self.writer.finish()?;
        out.flush()?;
        let mut said = format!(
            "{} of {}",
            counted(self.rows, "row", "rows"),
            counted(self.positions, "position", "positions")
        );
        if let Some(n) = entries {
            said += &format!(": {} in the book", counted(n, "entry", "entries"));
        }
        Ok((out, said))
    }
}

/// `n` and the noun, singular for one.
pub fn counted(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
