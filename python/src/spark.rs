//! What the Spark job's executors and driver call (`spark/pgnkit_spark.py`): one split of one
//! input (a byte range of a PGN file, row groups of a Parquet file, or a whole file) validated
//! into per-game records and diagnostics, its statistics as a mergeable partial, and the
//! partials merged by `pgnkit stats merge` itself, with their games renumbered as one file's.
//!
//! Options arrive as keyword arguments and become the library's options (a bad value is a
//! `ValueError` naming the keyword); a split is read as `pgnkit --range`/`--row-groups` reads
//! it, one worker thread a task.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use arrow_array::builder::{StringBuilder, UInt32Builder, UInt64Builder};
use arrow_array::{ArrayRef, RecordBatch, RecordBatchIterator};
use arrow_schema::{DataType, Field, Schema};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use pgnkit::convert::record::GameRecord;
use pgnkit::input::parquet::RowGroups;
use pgnkit::input::pipeline::Game;
use pgnkit::input::range::ByteRange;
use pgnkit::input::{Found, InputOptions, InputProblem, Inputs};
use pgnkit::outcome::{Outcome, WriteError};
use pgnkit::report;
use pgnkit::rules::game::CheckOptions;
use pgnkit::rules::visit::NoVisitor;
use pgnkit::stats::engine::MAX_OPENING_PLIES;
use pgnkit::stats::tiebreak::team::TeamTieBreakList;
use pgnkit::stats::tiebreak::TieBreakList;
use pgnkit::stats::{MergeOptions, Merger, Renumber, ReportOptions, Stats, StatsOptions};

use super::{failed, Stream};

/// A `ValueError` that names the keyword whose value is bad.
fn bad_keyword(keyword: &str, why: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(format!("{keyword}: {why}"))
}

/// A `(start, end)` keyword (`range`, `row_groups`): two whole numbers, `end` not before
/// `start`.
fn span(keyword: &str, value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<(u64, u64)>> {
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok(None);
    };
    let (start, end): (u64, u64) = value.extract().map_err(|_| {
        bad_keyword(
            keyword,
            format!("{value} is not (start, end), two whole numbers of 0 or more"),
        )
    })?;
    if end < start {
        return Err(bad_keyword(
            keyword,
            format!("end ({end}) is before start ({start})"),
        ));
    }
    Ok(Some((start, end)))
}

/// How a task reads its split: the one `path`, in one worker thread, without a progress bar,
/// only the byte `range` (of a PGN file) or the `row_groups` (of a Parquet file) if given.
fn split_input(
    path: PathBuf,
    range: Option<&Bound<'_, PyAny>>,
    row_groups: Option<&Bound<'_, PyAny>>,
) -> PyResult<InputOptions> {
    let mut input = InputOptions::new(vec![path]);
    input.jobs = 1;
    input.progress = false;
    input.range = span("range", range)?.map(|(start, end)| ByteRange { start, end });
    input.row_groups = match span("row_groups", row_groups)? {
        Some((start, end)) => Some(RowGroups {
            start: usize::try_from(start).map_err(|e| bad_keyword("row_groups", e))?,
            end: usize::try_from(end).map_err(|e| bad_keyword("row_groups", e))?,
        }),
        None => None,
    };
    Ok(input)
}

/// What validating one game gave: its diagnostics as CSV rows, their counts, and its record
/// when records are asked for.
struct Checked {
    csv: Vec<u8>,
    errors: u32,
    warnings: u32,
    notes: u32,
    record: Option<GameRecord<'static>>,
}

impl Found for Checked {
    fn errors(&self) -> u64 {
        u64::from(self.errors)
    }
}

/// The columns of the per-game records.
fn records_schema() -> Arc<Schema> {
    Arc::new(Schema::new(vec![
        Field::new("file", DataType::Utf8, false),
        Field::new("game", DataType::UInt64, false),
        Field::new("line", DataType::UInt32, false),
        Field::new("white", DataType::Utf8, false),
        Field::new("black", DataType::Utf8, false),
        Field::new("result", DataType::Utf8, false),
        Field::new("errors", DataType::UInt32, false),
        Field::new("warnings", DataType::UInt32, false),
        Field::new("notes", DataType::UInt32, false),
    ]))
}

/// The per-game records of a split, built as the games come (in input order).
#[derive(Default)]
struct Records {
    file: StringBuilder,
    game: UInt64Builder,
    line: UInt32Builder,
    white: StringBuilder,
    black: StringBuilder,
    result: StringBuilder,
    errors: UInt32Builder,
    warnings: UInt32Builder,
    notes: UInt32Builder,
}

impl Records {
    /// A game's row: its `Result` tag as the game has it (`?` without one), not the result a
    /// conversion would write.
    fn push(&mut self, g: &GameRecord) {
        self.file.append_value(&g.file);
        self.game.append_value(g.game);
        self.line.append_value(g.line);
        self.white.append_value(g.tag("White").unwrap_or("?"));
        self.black.append_value(g.tag("Black").unwrap_or("?"));
        self.result.append_value(g.tag("Result").unwrap_or("?"));
        self.errors.append_value(g.errors);
        self.warnings.append_value(g.warnings);
        self.notes.append_value(g.notes);
    }

    fn finish(mut self) -> Result<RecordBatch, arrow_schema::ArrowError> {
        let columns: Vec<ArrayRef> = vec![
            Arc::new(self.file.finish()),
            Arc::new(self.game.finish()),
            Arc::new(self.line.finish()),
            Arc::new(self.white.finish()),
            Arc::new(self.black.finish()),
            Arc::new(self.result.finish()),
            Arc::new(self.errors.finish()),
            Arc::new(self.warnings.finish()),
            Arc::new(self.notes.finish()),
        ];
        RecordBatch::try_new(records_schema(), columns)
    }
}

/// What validating some inputs gave: per-game records (when asked for), the diagnostics as
/// the CSV of `validate --format csv` (header included), and the totals as the CLI's summary
/// counts them.
pub(crate) struct Validated {
    pub records: Option<RecordBatch>,
    pub csv: Vec<u8>,
    pub totals: [u64; 8],
}

/// The names of [`Validated::totals`].
const TOTALS: [&str; 8] = [
    "files", "games", "errors", "warnings", "notes", "problems", "failed", "bytes",
];

/// Validates the inputs `options` names: the one loop behind `validate_split` and the
/// package's `validate_csv`. A broken game is a diagnostic; only an input that cannot be read
/// at all fails.
pub(crate) fn validate_inputs(
    py: Python<'_>,
    options: InputOptions,
    with_records: bool,
) -> PyResult<Validated> {
    py.detach(|| -> anyhow::Result<Validated> {
        let mut inputs = Inputs::new(options)?;
        let opts = CheckOptions::default();
        let work = |name: &str, game: &mut Game<'_>| {
            let report = game.check(&opts, &mut NoVisitor);
            let ctx = game.context(name);
            let mut w = csv::Writer::from_writer(Vec::new());
            let (mut errors, mut warnings, mut notes) = (0, 0, 0);
            for f in &report.findings {
                match f.severity {
                    pgnkit::diag::Severity::Error => errors += 1,
                    pgnkit::diag::Severity::Warning => warnings += 1,
                    pgnkit::diag::Severity::Note => notes += 1,
                }
                if f.severity != pgnkit::diag::Severity::Note {
                    let _ = report::write_csv_cells(&mut w, &ctx, f, true);
                }
            }
            let record = with_records.then(|| {
                GameRecord::checked(name, game.number, game.line, game.lexed, &report).into_owned()
            });
            Checked {
                csv: w.into_inner().unwrap_or_default(),
                errors,
                warnings,
                notes,
                record,
            }
        };
        let mut csv_out = csv::Writer::from_writer(Vec::new());
        csv_out.write_record(report::CSV_HEADER)?;
        let mut text = csv_out.into_inner().map_err(|e| anyhow::anyhow!("{e}"))?;
        let mut records = Records::default();
        let (mut errors, mut warnings, mut notes) = (0u64, 0u64, 0u64);
        let sink = |_: &str, g: Checked| -> Result<(), WriteError> {
            errors += u64::from(g.errors);
            warnings += u64::from(g.warnings);
            notes += u64::from(g.notes);
            text.extend_from_slice(&g.csv);
            if let Some(record) = &g.record {
                records.push(record);
            }
            Ok(())
        };
        let mut problems = Vec::new();
        let on_problem = |p: &InputProblem<'_>| -> Result<(), WriteError> {
            let mut w = csv::Writer::from_writer(Vec::new());
            let _ = report::write_csv_cells(&mut w, &p.context(), &p.finding, true);
            problems.extend_from_slice(&w.into_inner().unwrap_or_default());
            Ok(())
        };
        inputs.run(work, sink, on_problem)?;
        text.extend_from_slice(&problems);
        let read = &inputs.totals;
        // As the CLI's summary: problems of inputs as a whole are errors.
        let totals = [
            read.files as u64,
            read.games,
            errors + read.problems,
            warnings,
            notes,
            read.problems,
            read.failed as u64,
            read.bytes,
        ];
        let records = if with_records {
            Some(records.finish()?)
        } else {
            None
        };
        Ok(Validated {
            records,
            csv: text,
            totals,
        })
    })
    .map_err(failed)
}

/// Validates one split (`path`, only its byte `range=(start, end)` of a PGN file or its
/// `row_groups=(start, end)` of a Parquet file if given) and gives its per-game records (an Arrow stream), its diagnostics as the CSV of
/// `validate --format csv` (header included) and its totals, as the CLI's summary counts
/// them (`files`, `games`, `errors`, `warnings`, `notes`, `problems`, `failed`, `bytes`).
/// A broken game is a diagnostic; only an input that cannot be read at all raises.
#[pyfunction]
#[pyo3(signature = (path, *, range=None, row_groups=None))]
pub fn validate_split<'py>(
    py: Python<'py>,
    path: PathBuf,
    range: Option<Bound<'py, PyAny>>,
    row_groups: Option<Bound<'py, PyAny>>,
) -> PyResult<(Stream, Bound<'py, PyBytes>, Bound<'py, PyDict>)> {
    let input = split_input(path, range.as_ref(), row_groups.as_ref())?;
    let out = validate_inputs(py, input, true)?;
    let dict = PyDict::new(py);
    for (name, value) in TOTALS.iter().zip(out.totals) {
        dict.set_item(name, value)?;
    }
    let batch = out
        .records
        .unwrap_or_else(|| RecordBatch::new_empty(records_schema()));
    let schema = batch.schema();
    let reader = RecordBatchIterator::new(vec![Ok(batch)], schema);
    let stream = Stream {
        reader: Mutex::new(Some(Box::new(reader))),
    };
    Ok((stream, PyBytes::new(py, &out.csv), dict))
}

/// A file name no other call of this process uses, in the system's temporary folder.
pub(crate) fn scratch_path(what: &str) -> PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!("pgnkit-spark-{}-{n}-{what}", std::process::id()))
}

/// The statistics of one split (`path`, its `range` or `row_groups` as for
/// [`validate_split`]; `opening_plies` and `add_eco` as `pgnkit stats` takes them) as the
/// partial file of `pgnkit stats --partial`: its bytes, compressed as one zstd frame. The
/// JSON lines compress to a tenth of their size or less, and every byte of them crosses
/// Spark's block store and the socket to the driver.
///
/// # Errors
///
/// A bad keyword (ValueError), or an input that cannot be read (OSError): `pgnkit stats`
/// writes no partial then, and a task must not pass for done without its games.
#[pyfunction]
#[pyo3(signature = (path, *, range=None, row_groups=None, opening_plies=None, add_eco=None))]
pub fn stats_partial<'py>(
    py: Python<'py>,
    path: PathBuf,
    range: Option<Bound<'py, PyAny>>,
    row_groups: Option<Bound<'py, PyAny>>,
    opening_plies: Option<Bound<'py, PyAny>>,
    add_eco: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let input = split_input(path, range.as_ref(), row_groups.as_ref())?;
    let mut options = StatsOptions::default();
    if let Some(plies) = opening_plies.filter(|v| !v.is_none()) {
        options.opening_plies = plies
            .extract::<usize>()
            .ok()
            .filter(|&n| n <= MAX_OPENING_PLIES)
            .ok_or_else(|| {
                bad_keyword(
                    "opening_plies",
                    format!("{plies} is not a whole number from 0 to {MAX_OPENING_PLIES}"),
                )
            })?;
    }
    options.add_eco = truthy(add_eco)?;
    options.quiet = true;
    let partial = scratch_path("partial.jsonl");
    options.partial = Some(partial.clone());
    let read = py.detach(|| {
        let outcome = Stats::new(options)?.run(input)?;
        if outcome == Outcome::Failed {
            anyhow::bail!("an input of the split could not be read (see standard error)");
        }
        // Level 1: the fastest, and already some fifteen times smaller on lichess games.
        Ok(zstd::stream::encode_all(File::open(&partial)?, 1)?)
    });
    let _ = std::fs::remove_file(&partial);
    let bytes = read.map_err(failed)?;
    Ok(PyBytes::new(py, &bytes))
}

/// A yes-or-no keyword, as Python reads a condition (`None`: no).
fn truthy(value: Option<Bound<'_, PyAny>>) -> PyResult<bool> {
    value.map_or(Ok(false), |v| v.is_truthy())
}

/// The line breaks of a PGN file's range `[start, end)` as `--range START:END` reads it:
/// `(first, last, lines)`, the game starts it runs between and the line breaks in between
/// (`\n`, `\r\n` and a lone `\r` one each, as the reader counts lines). The Spark job adds them
/// up to number the lines of the next split's games as the whole file's.
///
/// # Errors
///
/// When the file cannot be read.
#[pyfunction]
pub fn range_lines(
    py: Python<'_>,
    path: PathBuf,
    start: u64,
    end: u64,
) -> PyResult<(u64, u64, u64)> {
    py.detach(|| -> io::Result<(u64, u64, u64)> {
        let mut file = File::open(&path)?;
        let first = pgnkit::input::range::game_start_at(&mut file, start)?;
        let last = pgnkit::input::range::game_start_at(&mut file, end.max(start))?;
        file.seek(SeekFrom::Start(first))?;
        let mut reader = BufReader::with_capacity(1 << 20, file).take(last - first);
        let mut lines = 0u64;
        // Whether the chunk before ended in `\r`, whose `\n` would then be the same break.
        let mut after_cr = false;
        loop {
            let buf = reader.fill_buf()?;
            if buf.is_empty() {
                break;
            }
            for &b in buf {
                match b {
                    b'\n' if after_cr => after_cr = false,
                    b'\n' => lines += 1,
                    b'\r' => {
                        lines += 1;
                        after_cr = true;
                    }
                    _ => after_cr = false,
                }
            }
            let n = buf.len();
            reader.consume(n);
        }
        Ok((first, last, lines))
    })
    .map_err(failed)
}

/// What the merging thread of [`StatsMerger`] is handed: a split's partial, or the word to
/// write the reports (without it, a merge that stops writes none).
enum Msg {
    Part(Part),
    Finish,
}

/// The first bytes of a zstd frame, as [`stats_partial`] gives a partial (a plain one starts
/// with `{`).
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// One split's partial.
struct Part {
    data: Vec<u8>,
    local: String,
    display: String,
    lines_before: u64,
}

/// `pgnkit stats merge` fed one split's partial at a time, in input order, by the driver as
/// the partials arrive: each is merged on a thread of its own while Python fetches the next,
/// and parsed once, its games.csv rows given the names, game numbers and line numbers of one
/// machine's run as they are read (the input as `display` names it, a range's `@START`
/// dropped; games and lines counted from the input's first split); each input counts once in
/// `files`, however many splits it was cut into.
#[pyclass]
pub struct StatsMerger {
    tx: Option<std::sync::mpsc::SyncSender<Msg>>,
    thread: Option<std::thread::JoinHandle<anyhow::Result<()>>>,
}

impl StatsMerger {
    /// Waits for the merging thread to stop (its channel closed) and gives its outcome.
    fn join(&mut self, py: Python<'_>) -> PyResult<()> {
        self.tx = None;
        let Some(thread) = self.thread.take() else {
            return Ok(());
        };
        match py.detach(|| thread.join()) {
            Ok(outcome) => outcome.map_err(failed),
            Err(_) => Err(failed("the merge stopped unexpectedly")),
        }
    }
}

#[pymethods]
impl StatsMerger {
    /// A merge into every report, written into the folder `out` (created if missing), with
    /// the options of `pgnkit stats merge`: `excel` (a byte order mark), `raw_csv`, and the
    /// tie-breaks `tiebreaks` (a list as `--tiebreaks` takes it, `"BH,DE"`),
    /// `team_tiebreaks` and `played_without_moves`, which go with `tiebreaks`.
    ///
    /// # Errors
    ///
    /// A tie-break list that does not parse, or an option given without `tiebreaks`
    /// (ValueError, naming the keyword); a report that cannot be created (OSError).
    #[new]
    #[pyo3(signature = (
        *, out, excel=None, raw_csv=None, tiebreaks=None, team_tiebreaks=None,
        played_without_moves=None
    ))]
    fn new(
        out: PathBuf,
        excel: Option<Bound<'_, PyAny>>,
        raw_csv: Option<Bound<'_, PyAny>>,
        tiebreaks: Option<&str>,
        team_tiebreaks: Option<&str>,
        played_without_moves: Option<Bound<'_, PyAny>>,
    ) -> PyResult<StatsMerger> {
        let played_without_moves = truthy(played_without_moves)?;
        let tiebreaks = tiebreaks
            .map(|l| l.parse::<TieBreakList>())
            .transpose()
            .map_err(|e| bad_keyword("tiebreaks", e))?;
        let team_tiebreaks = team_tiebreaks
            .map(|l| l.parse::<TeamTieBreakList>())
            .transpose()
            .map_err(|e| bad_keyword("team_tiebreaks", e))?;
        if tiebreaks.is_none() {
            let given = [
                ("team_tiebreaks", team_tiebreaks.is_some()),
                ("played_without_moves", played_without_moves),
            ];
            if let Some((keyword, _)) = given.into_iter().find(|&(_, given)| given) {
                return Err(bad_keyword(keyword, "goes with tiebreaks"));
            }
        }
        let options = MergeOptions {
            reports: ReportOptions {
                out: Some(out),
                excel: truthy(excel)?,
                raw_csv: truthy(raw_csv)?,
                ..ReportOptions::default()
            },
            tiebreaks,
            team_tiebreaks,
            played_without_moves,
            ..MergeOptions::default()
        };
        // One partial waits while the thread merges another: the driver holds at most a few.
        let (tx, rx) = std::sync::mpsc::sync_channel::<Msg>(1);
        let thread = std::thread::spawn(move || -> anyhow::Result<()> {
            // Made on its thread, which alone writes the reports.
            let mut merger = Merger::new(options)?;
            let mut seen: std::collections::HashMap<String, u64> = Default::default();
            for msg in rx {
                let part = match msg {
                    Msg::Part(part) => part,
                    Msg::Finish => {
                        merger.finish()?;
                        return Ok(());
                    }
                };
                let games_before = seen.get(&part.display).copied();
                let renumber = Renumber {
                    local: part.local,
                    display: part.display.clone(),
                    games_before: games_before.unwrap_or(0),
                    lines_before: part.lines_before,
                    first_split: games_before.is_none(),
                };
                let games = if part.data.starts_with(&ZSTD_MAGIC) {
                    let plain = zstd::stream::read::Decoder::with_buffer(&part.data[..])?;
                    merger.add(BufReader::with_capacity(1 << 16, plain), Some(&renumber))?
                } else {
                    merger.add(&part.data[..], Some(&renumber))?
                };
                *seen.entry(part.display).or_insert(0) += games;
            }
            // Dropped unfinished (a split missing, Python's error): no report is written.
            Ok(())
        });
        Ok(StatsMerger {
            tx: Some(tx),
            thread: Some(thread),
        })
    }

    /// Hands over the next split's partial (the bytes of `pgnkit stats --partial`, plain or
    /// compressed as [`stats_partial`] gives them), the name
    /// its input had on the executor (`local`), the name to give it (`display`) and the line
    /// breaks before its first game in that input (0 but for the byte ranges after a file's
    /// first). Returns once the merging thread has taken it.
    ///
    /// # Errors
    ///
    /// When an earlier partial could not be merged (OSError).
    fn add(
        &mut self,
        py: Python<'_>,
        data: pyo3::pybacked::PyBackedBytes,
        local: String,
        display: String,
        lines_before: u64,
    ) -> PyResult<()> {
        let part = Part {
            data: data.to_vec(),
            local,
            display,
            lines_before,
        };
        let Some(tx) = self.tx.as_ref() else {
            return Err(failed("the merge is finished"));
        };
        if py.detach(|| tx.send(Msg::Part(part))).is_err() {
            // The thread stopped on an error: that error is the answer.
            self.join(py)?;
            return Err(failed("the merge stopped"));
        }
        Ok(())
    }

    /// Merges what is left and writes the reports.
    ///
    /// # Errors
    ///
    /// A partial that cannot be merged, or a report that cannot be written (OSError).
    fn finish(&mut self, py: Python<'_>) -> PyResult<()> {
        if let Some(tx) = self.tx.as_ref() {
            // A thread that stopped on an error has closed its end: join gives the error.
            let _ = py.detach(|| tx.send(Msg::Finish));
        }
        self.join(py)
    }
}

/// Adds this file's functions to the module (one line in `lib.rs`).
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(validate_split, m)?)?;
    m.add_function(wrap_pyfunction!(stats_partial, m)?)?;
    m.add_function(wrap_pyfunction!(range_lines, m)?)?;
    m.add_class::<StatsMerger>()?;
    Ok(())
}
