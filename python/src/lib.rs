//! The `pgnkit._pgnkit` extension module: pgnkit's input loop and conversion, with the games
//! and moves tables handed to pyarrow as Arrow C streams (no copy) and the diagnostics of
//! `validate` as CSV. The Python wrapper (`pgnkit/__init__.py`) gives the documented API.
//!
//! Options arrive as keyword arguments and are built into the library's own options
//! ([`InputOptions`], [`ConvertOptions`]); a bad value is a `ValueError` naming the keyword.

mod diagnostics;
mod movetext;
mod spark;
mod tree;

use std::io;
use std::path::PathBuf;
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::{Arc, Mutex};
use std::thread;

use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, Schema, SchemaRef};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyCapsule};

use pgnkit::convert::arrow::{GamesBuilder, MovesBuilder};
use pgnkit::convert::columns::{GameColumns, MoveColumns};
use pgnkit::convert::record::GameRecord;
use pgnkit::convert::{Convert, ConvertOptions, Format};

use crate::diagnostics::DiagnosticsBuilder;
use pgnkit::convert::parquet::BATCH_GAMES;
use pgnkit::input::{InputOptions, Inputs};
use pgnkit::outcome::WriteError;

/// Batches in flight between the converting thread and the reader: memory stays flat.
const IN_FLIGHT: usize = 2;
/// Plies a moves batch holds at most.
const BATCH_PLIES: usize = 65_536;

pub(crate) fn failed(e: impl std::fmt::Display) -> PyErr {
    PyOSError::new_err(format!("{e:#}"))
}

/// A bad value of keyword `keyword`: a `ValueError` that names it.
fn bad_value(keyword: &str, e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(format!("{keyword}: {e:#}"))
}

/// The worker threads of `threads` (`None`: one a core), in the range `--jobs` takes.
pub(crate) fn jobs(threads: Option<usize>) -> PyResult<usize> {
    if let Some(n) = threads.filter(|n| !(1..=pgnkit::input::MAX_JOBS).contains(n)) {
        return Err(PyValueError::new_err(format!(
            "threads={n}: give a whole number of threads from 1 to {}, or None for all cores",
            pgnkit::input::MAX_JOBS
        )));
    }
    Ok(pgnkit::input::jobs(threads))
}

/// How the inputs `paths` are read, from the keywords every reading function takes: as the
/// command line reads them with `--quiet`, and `--jobs`, `--encoding`, `--ext`, `--range`,
/// `--row-groups` where given.
///
/// # Errors
///
/// A `ValueError` naming the keyword of a bad value.
pub(crate) fn input_options(
    paths: Vec<PathBuf>,
    threads: Option<usize>,
    encoding: Option<&str>,
    ext: Option<Vec<String>>,
    range: Option<(u64, u64)>,
    row_groups: Option<(usize, usize)>,
) -> PyResult<InputOptions> {
    let mut opts = InputOptions::new(paths);
    opts.jobs = jobs(threads)?;
    opts.encoding =
        pgnkit::input::forced_encoding(encoding).map_err(|e| bad_value("encoding", e))?;
    // As `--ext` takes them: comma-separated too, without the dot, in any case.
    let extensions: Vec<String> = ext
        .iter()
        .flatten()
        .flat_map(|e| e.split(','))
        .map(|e| e.trim().trim_start_matches('.').to_ascii_lowercase())
        .filter(|e| !e.is_empty())
        .collect();
    if !extensions.is_empty() {
        opts.extensions = extensions;
    }
    let range = range.map(|r| span("range", r)).transpose()?;
    opts.range = range.map(|(start, end)| pgnkit::input::range::ByteRange { start, end });
    let groups = row_groups.map(|r| span("row_groups", r)).transpose()?;
    opts.row_groups = groups.map(|(start, end)| pgnkit::input::parquet::RowGroups { start, end });
    Ok(opts)
}

/// `(start, end)`, the value of `keyword`, unless its end is before its start.
fn span<T: PartialOrd + std::fmt::Display>(
    keyword: &str,
    (start, end): (T, T),
) -> PyResult<(T, T)> {
    if end < start {
        return Err(bad_value(
            keyword,
            format!("END ({end}) is before START ({start})"),
        ));
    }
    Ok((start, end))
}

/// The conversion of the package's tables (`convert --format parquet --quiet`): every game a
/// row, with its diagnostics, its movetext in notation `to`.
///
/// # Errors
///
/// A `ValueError` for an unknown notation.
pub(crate) fn convert_options(
    to: &str,
    fix_results: bool,
    repair: bool,
    checks: &str,
) -> PyResult<ConvertOptions> {
    Ok(ConvertOptions {
        checks: checks
            .parse()
            .map_err(|e| bad_value(&format!("checks='{checks}'"), e))?,
        to: to
            .parse()
            .map_err(|e| bad_value(&format!("to='{to}'"), e))?,
        format: Format::Parquet,
        fix_results,
        repair,
        quiet: true,
        every_row: true,
        ..ConvertOptions::default()
    })
}

/// The columns the keywords `numbers`, `boards`, `columns` (names and groups, as
/// `--moves-columns` takes them) and `movetext` ask for, set in `options`.
///
/// # Errors
///
/// A `ValueError` naming `columns` for a name that is no column.
pub(crate) fn table_columns(
    options: &mut ConvertOptions,
    numbers: bool,
    boards: bool,
    columns: Option<Vec<String>>,
    movetext: bool,
) -> PyResult<()> {
    options.no_movetext = !movetext;
    options.numbers = numbers;
    options.boards = boards;
    options.moves_columns = columns
        .map(|c| c.join(",").parse::<MoveColumns>())
        .transpose()
        .map_err(|e| bad_value("columns", e))?;
    Ok(())
}

/// The batches of one table, read from the converting thread.
struct ChannelReader {
    schema: SchemaRef,
    rx: Receiver<Result<RecordBatch, ArrowError>>,
}

impl Iterator for ChannelReader {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.rx.recv().ok()
    }
}

impl RecordBatchReader for ChannelReader {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}

/// An Arrow C stream of record batches (`__arrow_c_stream__`), read once.
#[pyclass(module = "pgnkit._pgnkit")]
struct Stream {
    reader: Mutex<Option<Box<dyn RecordBatchReader + Send>>>,
}

impl Stream {
    fn new(reader: Box<dyn RecordBatchReader + Send>) -> Stream {
        Stream {
            reader: Mutex::new(Some(reader)),
        }
    }
}

#[pymethods]
impl Stream {
    /// Hands the stream to its consumer (pyarrow, Polars, DuckDB) as a PyCapsule.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        // The schema is fixed; a consumer that asks for another casts what it gets.
        let _ = requested_schema;
        let reader = self
            .reader
            .lock()
            .map_err(|_| PyValueError::new_err("the stream is broken"))?
            .take()
            .ok_or_else(|| PyValueError::new_err("the stream was read already"))?;
        let stream = FFI_ArrowArrayStream::new(reader);
        // Dropping the capsule drops the stream, which releases it unless the consumer took it.
        PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
    }
}

/// The games table of the package: the columns of `games.parquet`, then `diagnostics`.
struct GamesOut {
    schema: SchemaRef,
    games: GamesBuilder,
    diagnostics: DiagnosticsBuilder,
}

impl GamesOut {
    fn new(columns: GameColumns) -> GamesOut {
        let games = GamesBuilder::with_columns(columns);
        let mut fields: Vec<_> = games.schema().fields().iter().cloned().collect();
        fields.push(diagnostics::field().into());
        GamesOut {
            schema: Arc::new(Schema::new(fields)),
            games,
            diagnostics: DiagnosticsBuilder::default(),
        }
    }

    fn append(&mut self, row: &GameRecord) -> Result<(), ArrowError> {
        self.games.append(row)?;
        self.diagnostics
            .append(&row.findings, |line, column| Some((line, column)));
        Ok(())
    }

    fn len(&self) -> usize {
        self.games.len()
    }

    fn is_empty(&self) -> bool {
        self.games.is_empty()
    }

    fn finish(&mut self) -> Result<RecordBatch, ArrowError> {
        let batch = self.games.finish()?;
        let mut columns = batch.columns().to_vec();
        columns.push(self.diagnostics.finish());
        RecordBatch::try_new(self.schema.clone(), columns)
    }
}

/// Which table a conversion builds.
#[derive(Clone, Copy, PartialEq)]
enum Table {
    Games,
    Moves,
}

/// Converts the games of `paths` and streams the games or the moves table (`table`), as
/// `pgnkit convert --format parquet` reads and replays them: `to` is the notation of the
/// movetext, `fen` gives the moves table its positions, `numbers`, `boards` and `columns` its
/// numeric columns and its choice of columns (as `--numbers`, `--boards` and
/// `--moves-columns`), `movetext=False` leaves the games table's movetext out (`--no-movetext`),
/// `where` keeps the games a `select` expression picks (`--where`); `threads`, `encoding`, `ext`,
/// `range=(start, end)` and `row_groups=(start, end)` are the input options of `--jobs`,
/// `--encoding`, `--ext`, `--range` and `--row-groups`. The inputs are listed here, so a missing
/// file raises at once; a file that cannot be read during the run ends the stream with an
/// error naming it.
#[pyfunction]
#[pyo3(signature = (
    paths, table, *, to="san", fen=false, fix_results=false, repair=false, checks="all",
    threads=None,
    encoding=None, ext=None, range=None, row_groups=None, numbers=false, boards=false,
    columns=None, movetext=true, r#where=None
))]
#[allow(clippy::too_many_arguments)]
fn convert_stream(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    table: &str,
    to: &str,
    fen: bool,
    fix_results: bool,
    repair: bool,
    checks: &str,
    threads: Option<usize>,
    encoding: Option<&str>,
    ext: Option<Vec<String>>,
    range: Option<(u64, u64)>,
    row_groups: Option<(usize, usize)>,
    numbers: bool,
    boards: bool,
    columns: Option<Vec<String>>,
    movetext: bool,
    r#where: Option<String>,
) -> PyResult<Stream> {
    let table = match table {
        "games" => Table::Games,
        "moves" => Table::Moves,
        other => return Err(PyValueError::new_err(format!("no table {other:?}"))),
    };
    let mut options = convert_options(to, fix_results, repair, checks)?;
    options.where_expr = r#where;
    // The positions are written only when the moves table has them.
    options.fen = table == Table::Moves && fen;
    // The games table shows no ply's SAN, UCI or clock: none is made.
    options.games_only = table == Table::Games;
    // Nor does the moves table show a game's tags or final position.
    options.moves_only = table == Table::Moves;
    // The moves table is streamed alone: the games table's movetext, which nobody reads, is
    // not written (a sixth of `read_moves`'s time), and a moves table of numbers and boards
    // alone is made from the main line told at once.
    table_columns(
        &mut options,
        numbers,
        boards,
        columns,
        movetext && table == Table::Games,
    )?;
    let (moves_columns, game_columns) = (options.table_moves_columns(), options.game_columns());
    let convert = Convert::new(options).map_err(|e| PyValueError::new_err(format!("{e:#}")))?;
    let opts = input_options(paths, threads, encoding, ext, range, row_groups)?;
    // An input that cannot be listed is an OSError.
    let mut inputs = py.detach(|| Inputs::new(opts)).map_err(failed)?;
    let schema = match table {
        Table::Games => GamesOut::new(game_columns).schema.clone(),
        Table::Moves => MovesBuilder::with_columns(moves_columns).schema(),
    };
    let (tx, rx) = sync_channel::<Result<RecordBatch, ArrowError>>(IN_FLIGHT);
    thread::Builder::new()
        .name("pgnkit-convert".into())
        .spawn(move || {
            let mut games = GamesOut::new(game_columns);
            let mut moves = MovesBuilder::with_columns(moves_columns);
            let gone = || WriteError::new("the reader", io::Error::from(io::ErrorKind::BrokenPipe));
            let send = |batch: Result<RecordBatch, ArrowError>| tx.send(batch).map_err(|_| gone());
            let mut each = |row: &GameRecord| -> Result<(), WriteError> {
                match table {
                    Table::Games => {
                        games
                            .append(row)
                            .map_err(|e| WriteError::new("a batch", io::Error::other(e)))?;
                        if games.len() >= BATCH_GAMES {
                            send(games.finish())?;
                        }
                    }
                    Table::Moves => {
                        moves.append(row);
                        if moves.len() >= BATCH_PLIES {
                            send(moves.finish())?;
                        }
                    }
                }
                Ok(())
            };
            let outcome = convert.run_rows(&mut inputs, &mut each);
            if inputs.totals.broken_pipe {
                return;
            }
            let last = match table {
                Table::Games if !games.is_empty() => Some(games.finish()),
                Table::Moves if !moves.is_empty() => Some(moves.finish()),
                _ => None,
            };
            if let Some(batch) = last {
                if send(batch).is_err() {
                    return;
                }
            }
            let read = &inputs.totals;
            let end = match outcome {
                Err(e) => Some(format!("{e:#}")),
                Ok(_) if read.interrupted => Some("interrupted".to_owned()),
                Ok(_) if read.failed > 0 => Some(format!(
                    "{} input{} could not be read (see the messages on standard error)",
                    read.failed,
                    if read.failed == 1 { "" } else { "s" }
                )),
                Ok(_) => None,
            };
            if let Some(message) = end {
                let _ = send(Err(ArrowError::IoError(
                    message.clone(),
                    io::Error::other(message),
                )));
            }
        })
        .map_err(failed)?;
    Ok(Stream {
        reader: Mutex::new(Some(Box::new(ChannelReader { schema, rx }))),
    })
}

/// Validates the inputs `paths` names and gives the diagnostics as the CSV of
/// `validate --format csv`, header included.
#[pyfunction]
#[pyo3(signature = (paths, *, threads=None, encoding=None, ext=None))]
fn validate_csv<'py>(
    py: Python<'py>,
    paths: Vec<PathBuf>,
    threads: Option<usize>,
    encoding: Option<&str>,
    ext: Option<Vec<String>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let options = input_options(paths, threads, encoding, ext, None, None)?;
    let out = spark::validate_inputs(py, options, false)?;
    Ok(PyBytes::new(py, &out.csv))
}

#[pymodule]
fn _pgnkit(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Stream>()?;
    m.add_function(wrap_pyfunction!(convert_stream, m)?)?;
    m.add_function(wrap_pyfunction!(validate_csv, m)?)?;
    m.add_function(wrap_pyfunction!(movetext::parse_movetext, m)?)?;
    tree::register(m)?;
    spark::register(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // `threads` is checked in Python against the bound `--jobs` has, so that the error names
    // the keyword.
    m.add("MAX_THREADS", pgnkit::input::MAX_JOBS)?;
    Ok(())
}
