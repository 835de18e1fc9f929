//! What the Spark job's executors and driver call (`spark/pgnkit_spark.py`): one split of one
//! input (a byte range of a PGN file, row groups of a Parquet file, or a whole file) validated
//! into per-game records and diagnostics, its statistics as a mergeable partial, and the
//! partials merged by `pgnkit stats merge` itself, with their games renumbered as one file's.
//!
//! Options arrive as the command line's words, parsed by the commands' own clap definitions,
//! so a split is read exactly as `pgnkit --range`/`--row-groups` reads it.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use arrow_array::builder::{StringBuilder, UInt32Builder, UInt64Builder};
use arrow_array::{ArrayRef, RecordBatch, RecordBatchIterator};
use arrow_schema::{DataType, Field, Schema};
use clap::Parser;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use pgnkit::input::pipeline::{Game, Lexing};
use pgnkit::input::{Found, InputProblem, Inputs, WriteError};
use pgnkit::report;
use pgnkit::rules::game::CheckOptions;
use pgnkit::rules::visit::NoVisitor;

use super::{bad_option, failed, Stream, ValidateCli};

#[derive(Parser)]
#[command(name = "pgnkit stats", no_binary_name = true)]
struct StatsCli {
    #[command(flatten)]
    args: pgnkit::cmd::stats::Args,
}

/// What validating one game gave: its diagnostics as CSV rows and its record.
struct Checked {
    csv: Vec<u8>,
    line: u32,
    number: u64,
    white: String,
    black: String,
    result: String,
    errors: u32,
    warnings: u32,
    notes: u32,
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
    fn push(&mut self, name: &str, g: &Checked) {
        self.file.append_value(name);
        self.game.append_value(g.number);
        self.line.append_value(g.line);
        self.white.append_value(&g.white);
        self.black.append_value(&g.black);
        self.result.append_value(&g.result);
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

/// Validates one split (`words`: the input options, `--range` or `--row-groups`, and the
/// path) and gives its per-game records (an Arrow stream), its diagnostics as the CSV of
/// `validate --format csv` (header included) and its totals, as the CLI's summary counts
/// them (`files`, `games`, `errors`, `warnings`, `notes`, `problems`, `failed`, `bytes`).
/// A broken game is a diagnostic; only an input that cannot be read at all raises.
#[pyfunction]
pub fn validate_split<'py>(
    py: Python<'py>,
    words: Vec<String>,
) -> PyResult<(Stream, Bound<'py, PyBytes>, Bound<'py, PyDict>)> {
    let cli = ValidateCli::try_parse_from(&words).map_err(bad_option)?;
    let options = cli
        .input
        .resolve()
        .map_err(|e| PyValueError::new_err(format!("{e:#}")))?;
    type Out = (RecordBatch, Vec<u8>, [u64; 8]);
    let out = py.detach(|| -> anyhow::Result<Out> {
        let mut inputs = Inputs::new(options)?;
        let opts = CheckOptions::default();
        let work = |name: &str, game: &mut Game<'_>| {
            let report = pgnkit::cmd::check_pipeline_game(game, &opts, &mut NoVisitor)?;
            let ctx = report::GameContext {
                file: name,
                number: game.number,
                line: game.line,
                white: game.lexed.tag("White").unwrap_or("?"),
                black: game.lexed.tag("Black").unwrap_or("?"),
                bytes: game.bytes,
            };
            let mut w = csv::Writer::from_writer(Vec::new());
            let (mut errors, mut warnings, mut notes) = (0, 0, 0);
            for f in &report.findings {
                match f.severity {
                    pgnkit::diag::Severity::Error => errors += 1,
                    pgnkit::diag::Severity::Warning => warnings += 1,
                    pgnkit::diag::Severity::Note => notes += 1,
                }
                if f.severity != pgnkit::diag::Severity::Note {
                    let _ = report::write_csv(&mut w, &ctx, f);
                }
            }
            Some(Checked {
                csv: w.into_inner().unwrap_or_default(),
                line: game.line,
                number: game.number,
                white: ctx.white.to_owned(),
                black: ctx.black.to_owned(),
                result: game.lexed.tag("Result").unwrap_or("?").to_owned(),
                errors,
                warnings,
                notes,
            })
        };
        let mut csv_out = csv::Writer::from_writer(Vec::new());
        csv_out.write_record(report::CSV_HEADER)?;
        let mut text = csv_out.into_inner().map_err(|e| anyhow::anyhow!("{e}"))?;
        let mut records = Records::default();
        let (mut errors, mut warnings, mut notes) = (0u64, 0u64, 0u64);
        let sink = |name: &str, g: Checked| -> Result<(), WriteError> {
            errors += u64::from(g.errors);
            warnings += u64::from(g.warnings);
            notes += u64::from(g.notes);
            text.extend_from_slice(&g.csv);
            records.push(name, &g);
            Ok(())
        };
        let mut problems = Vec::new();
        let on_problem = |p: &InputProblem<'_>| -> Result<(), WriteError> {
            let mut w = csv::Writer::from_writer(Vec::new());
            let _ = report::write_csv(&mut w, &p.context(), &p.finding);
            problems.extend_from_slice(&w.into_inner().unwrap_or_default());
            Ok(())
        };
        inputs.run(Lexing::Tags, work, sink, on_problem)?;
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
        Ok((records.finish()?, text, totals))
    });
    let (batch, text, totals) = out.map_err(failed)?;
    let dict = PyDict::new(py);
    let names = [
        "files", "games", "errors", "warnings", "notes", "problems", "failed", "bytes",
    ];
    for (name, value) in names.iter().zip(totals) {
        dict.set_item(name, value)?;
    }
    let schema = batch.schema();
    let reader = RecordBatchIterator::new(vec![Ok(batch)], schema);
    let stream = Stream {
        reader: Mutex::new(Some(Box::new(reader))),
    };
    Ok((stream, PyBytes::new(py, &text), dict))
}

/// A file name no other call of this process uses, in the system's temporary folder.
fn scratch_path(what: &str) -> PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!("pgnkit-spark-{}-{n}-{what}", std::process::id()))
}

/// The statistics of one split (`words`: `pgnkit stats`' options, `--range` or
/// `--row-groups`, and the path) as the partial file of `pgnkit stats --partial`: its bytes.
///
/// # Errors
///
/// A bad option (ValueError), or an input that cannot be read (OSError): `pgnkit stats`
/// writes no partial then, and a task must not pass for done without its games.
#[pyfunction]
pub fn stats_partial<'py>(py: Python<'py>, words: Vec<String>) -> PyResult<Bound<'py, PyBytes>> {
    let path = scratch_path("partial.jsonl");
    let mut all = vec!["--quiet".to_owned(), "--partial".to_owned()];
    all.push(path.display().to_string());
    all.extend(words);
    let cli = StatsCli::try_parse_from(&all).map_err(bad_option)?;
    let outcome = py.detach(|| pgnkit::cmd::stats::run(cli.args));
    let read = outcome.and_then(|outcome| {
        if outcome == pgnkit::cli::Outcome::Failed {
            anyhow::bail!("an input of the split could not be read (see standard error)");
        }
        Ok(std::fs::read(&path)?)
    });
    let _ = std::fs::remove_file(&path);
    let bytes = read.map_err(failed)?;
    Ok(PyBytes::new(py, &bytes))
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

/// One partial of [`stats_merge`]: the file it is in, the name its input had on the
/// executor (`local`), the name to give it (`display`, the path as the user gave it), and the
/// line breaks before its first game in that input (0 but for the byte ranges after a file's
/// first).
type Part = (PathBuf, String, String, u64);

/// Merges partials (`parts`, in input order, one per split, duplicates already dropped) into
/// the reports `words` asks for (`--out DIR` and the CSV options of `pgnkit stats merge`), by
/// `pgnkit stats merge` itself. Before that, each games.csv row gets the names, game numbers
/// and line numbers of one machine's run: the input as `display` names it (a range's `@START`
/// dropped), games and lines counted from the input's first split; and each input counts
/// once in `files`, however many splits it was cut into.
///
/// # Errors
///
/// A bad option (ValueError); a partial that cannot be read or merged (OSError).
#[pyfunction]
pub fn stats_merge(py: Python<'_>, parts: Vec<Part>, words: Vec<String>) -> PyResult<()> {
    py.detach(|| -> anyhow::Result<()> {
        let mut renamed = Vec::new();
        let mut seen: std::collections::HashMap<String, u64> = Default::default();
        let result = (|| -> anyhow::Result<()> {
            for (i, (path, local, display, lines_before)) in parts.iter().enumerate() {
                let games_before = seen.get(display).copied();
                let out = scratch_path(&format!("part-{i}.jsonl"));
                renamed.push(out.clone());
                let games = renumber(
                    path,
                    &out,
                    local,
                    display,
                    games_before.unwrap_or(0),
                    *lines_before,
                    games_before.is_none(),
                )?;
                *seen.entry(display.clone()).or_insert(0) += games;
            }
            let mut all = vec!["merge".to_owned(), "--quiet".to_owned()];
            all.extend(renamed.iter().map(|p| p.display().to_string()));
            all.extend(words);
            let cli = StatsCli::try_parse_from(&all)
                .map_err(|e| anyhow::anyhow!("{}", e.render().to_string().trim()))?;
            pgnkit::cmd::stats::run(cli.args)?;
            Ok(())
        })();
        for p in &renamed {
            let _ = std::fs::remove_file(p);
        }
        result
    })
    .map_err(failed)
}

/// Copies a partial file, giving its games.csv rows their one-machine names and numbers and
/// its totals the input's `files` count (1 for an input's first split, 0 for the others).
/// Returns its games.
fn renumber(
    from: &Path,
    to: &Path,
    local: &str,
    display: &str,
    games_before: u64,
    lines_before: u64,
    first_split: bool,
) -> anyhow::Result<u64> {
    use serde_json::Value;
    let input = BufReader::new(File::open(from)?);
    let mut out = BufWriter::new(File::create(to)?);
    let mut games = 0u64;
    for line in input.lines() {
        let line = line?;
        let kind = line.get(..12).unwrap_or("");
        if kind.starts_with("{\"game\":") {
            let mut v: Value = serde_json::from_str(&line)?;
            let row = v.get_mut("game").and_then(Value::as_object_mut);
            let row = row.ok_or_else(|| anyhow::anyhow!("a damaged partial game row"))?;
            let file = row.get("file").and_then(Value::as_str).unwrap_or("");
            let rest = file.strip_prefix(local).unwrap_or(file);
            // A range's name: `FILE@START`, whose lines count from START.
            let ranged = rest.starts_with('@');
            let name = if ranged {
                display.to_owned()
            } else {
                format!("{display}{rest}")
            };
            row.insert("file".into(), Value::from(name));
            let game = row.get("game").and_then(Value::as_u64).unwrap_or(0);
            row.insert("game".into(), Value::from(game + games_before));
            if ranged {
                let at = row.get("line").and_then(Value::as_u64).unwrap_or(0);
                row.insert("line".into(), Value::from(at + lines_before));
            }
            games += 1;
            serde_json::to_writer(&mut out, &v)?;
        } else if kind.starts_with("{\"totals\":") {
            let mut v: Value = serde_json::from_str(&line)?;
            if let Some(tally) = v
                .pointer_mut("/totals/tally")
                .and_then(Value::as_object_mut)
            {
                tally.insert("files".into(), Value::from(u64::from(first_split)));
            }
            serde_json::to_writer(&mut out, &v)?;
        } else {
            out.write_all(line.as_bytes())?;
        }
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(games)
}

/// Adds this file's functions to the module (one line in `lib.rs`).
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(validate_split, m)?)?;
    m.add_function(wrap_pyfunction!(stats_partial, m)?)?;
    m.add_function(wrap_pyfunction!(range_lines, m)?)?;
    m.add_function(wrap_pyfunction!(stats_merge, m)?)?;
    Ok(())
}
