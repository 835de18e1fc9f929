//! `parse_movetext`: games given as an Arrow array of movetext strings (the `movetext` column of
//! the lichess Parquet files), each replayed and checked as `convert --format parquet` does, into
//! a games table and a moves table. The array is read where pyarrow holds it (the Arrow C data
//! interface: no copy); blocks of games go to the threads and come back in order, so the tables
//! are the same whatever the thread count.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;

use arrow_array::cast::AsArray;
use arrow_array::ffi::{from_ffi, FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::{make_array, Array, ArrayRef, RecordBatch, RecordBatchIterator};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use pgnkit::convert::arrow::{GamesBuilder, MovesBuilder};
use pgnkit::convert::columns::{GameColumns, MoveColumns};
use pgnkit::convert::{Convert, RowScratch};

use crate::diagnostics::DiagnosticsBuilder;
use crate::Stream;

/// Games a thread takes at a time, and a batch of the tables holds, at most.
const BLOCK: usize = 1024;

/// Blocks hold fewer games when the array is short for several threads: at least four a
/// thread, so that the last does not leave one thread working alone (five blocks of 1,024 on
/// two threads kept one waiting for the fifth). Each holds 64 games or more; one thread takes
/// blocks of [`BLOCK`].
fn block_len(games: usize, jobs: usize) -> usize {
    if jobs <= 1 {
        return BLOCK;
    }
    games.div_ceil(jobs * 4).clamp(64, BLOCK)
}

/// The columns of the games table: (column of the converted batch, its name here).
const GAME_COLUMNS: [(&str, &str); 9] = [
    ("game", "index"),
    ("plies", "plies"),
    ("Result", "result"),
    ("result_by_rule", "result_by_rule"),
    ("termination_by_rule", "termination_by_rule"),
    ("final_fen", "final_fen"),
    ("errors", "errors"),
    ("warnings", "warnings"),
    ("movetext", "movetext"),
];

/// One array of text (a column, in chunks), read in place.
struct Texts {
    chunks: Vec<ArrayRef>,
    /// Index of each chunk's first value.
    starts: Vec<usize>,
    len: usize,
}

impl Texts {
    /// The arrays of `__arrow_c_array__` capsules, which must hold text or bytes.
    fn import(
        what: &str,
        capsules: &[(Bound<'_, PyCapsule>, Bound<'_, PyCapsule>)],
    ) -> PyResult<Texts> {
        let mut texts = Texts {
            chunks: Vec::new(),
            starts: Vec::new(),
            len: 0,
        };
        for (schema, array) in capsules {
            let array = import(schema, array)?;
            match array.data_type() {
                DataType::Utf8
                | DataType::LargeUtf8
                | DataType::Utf8View
                | DataType::Binary
                | DataType::LargeBinary
                | DataType::BinaryView
                | DataType::Null => {}
                other => {
                    return Err(PyTypeError::new_err(format!(
                        "{what}: an array of {other} values; give strings (cast it: \
                         array.cast(pyarrow.string()))"
                    )))
                }
            }
            texts.starts.push(texts.len);
            texts.len += array.len();
            texts.chunks.push(array);
        }
        Ok(texts)
    }

    /// The bytes of value `i`; `None` for a null.
    fn get(&self, i: usize) -> Option<&[u8]> {
        let c = self.starts.partition_point(|&s| s <= i).checked_sub(1)?;
        let (a, j) = (&self.chunks[c], i - self.starts[c]);
        if j >= a.len() || a.is_null(j) {
            return None;
        }
        Some(match a.data_type() {
            DataType::Utf8 => a.as_string::<i32>().value(j).as_bytes(),
            DataType::LargeUtf8 => a.as_string::<i64>().value(j).as_bytes(),
            DataType::Utf8View => a.as_string_view().value(j).as_bytes(),
            DataType::Binary => a.as_binary::<i32>().value(j),
            DataType::LargeBinary => a.as_binary::<i64>().value(j),
            DataType::BinaryView => a.as_binary_view().value(j),
            _ => return None,
        })
    }
}

/// The array of the two capsules `__arrow_c_array__` gives, in pyarrow's memory.
fn import(schema: &Bound<'_, PyCapsule>, array: &Bound<'_, PyCapsule>) -> PyResult<ArrayRef> {
    let schema = schema
        .pointer_checked(Some(c"arrow_schema"))?
        .cast::<FFI_ArrowSchema>();
    let array = array
        .pointer_checked(Some(c"arrow_array"))?
        .cast::<FFI_ArrowArray>();
    // SAFETY: the capsules are those of `__arrow_c_array__`, named as the interface names
    // them. The array is moved out of its capsule (its release callback left empty, so the
    // capsule's destructor then does nothing) and released when the last use of its buffers
    // ends; the schema is only read.
    let data = unsafe {
        let array = FFI_ArrowArray::from_raw(array.as_ptr());
        from_ffi(array, schema.as_ref())
    }
    .map_err(|e| PyValueError::new_err(format!("the array could not be read: {e}")))?;
    Ok(make_array(data))
}

/// What every game of a call shares.
struct Job {
    convert: Convert,
    moves_columns: MoveColumns,
    game_columns: GameColumns,
    movetext: Texts,
    /// One start position for every game, or one a game.
    fen: Option<Vec<u8>>,
    fens: Option<Texts>,
}

/// Replays the movetext strings of the arrays (`(schema, array)` capsules, in order) and gives
/// the games table and the moves table as Arrow C streams. `fen` is one start position for
/// every game, `fens` one a game (null: the standard one); `to`, `fix_results`, `repair` and
/// `checks` are `convert`'s options, `positions` gives the moves table its positions; `numbers`,
/// `boards` and `columns` its numeric columns and its choice of columns (as `--numbers`,
/// `--boards` and `--moves-columns`), `movetext_column` the games table's movetext column.
#[pyfunction]
#[pyo3(signature = (
    movetext, fen=None, fens=None, *, to="san", positions=false, threads=None,
    fix_results=false, repair=false, checks="all", numbers=false, boards=false, columns=None,
    movetext_column=true
))]
#[allow(clippy::type_complexity, clippy::too_many_arguments)]
pub fn parse_movetext(
    py: Python<'_>,
    movetext: Vec<(Bound<'_, PyCapsule>, Bound<'_, PyCapsule>)>,
    fen: Option<String>,
    fens: Option<Vec<(Bound<'_, PyCapsule>, Bound<'_, PyCapsule>)>>,
    to: &str,
    positions: bool,
    threads: Option<usize>,
    fix_results: bool,
    repair: bool,
    checks: &str,
    numbers: bool,
    boards: bool,
    columns: Option<Vec<String>>,
    movetext_column: bool,
) -> PyResult<(Stream, Stream)> {
    let mut options = crate::convert_options(to, fix_results, repair, checks)?;
    options.fen = positions;
    crate::table_columns(&mut options, numbers, boards, columns, movetext_column)?;
    let (moves_columns, game_columns) = (options.table_moves_columns(), options.game_columns());
    let jobs = crate::jobs(threads)?;
    let convert = Convert::new(options).map_err(|e| PyValueError::new_err(format!("{e:#}")))?;
    let movetext = Texts::import("movetext", &movetext)?;
    let fens = fens.map(|f| Texts::import("fen", &f)).transpose()?;
    if let Some(f) = &fens {
        if f.len != movetext.len {
            return Err(PyValueError::new_err(format!(
                "fen: {} start positions for {} games; give one a game (null for the standard \
                 start), or one string for all",
                f.len, movetext.len
            )));
        }
    }
    let job = Job {
        convert,
        moves_columns,
        game_columns,
        movetext,
        fen: fen.map(String::into_bytes),
        fens,
    };
    let (games, moves) = py
        .detach(|| run(&job, jobs))
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok((games, moves))
}

/// A block's games and moves batches.
type Block = Result<(RecordBatch, RecordBatch), ArrowError>;

/// The games of `job` on `jobs` threads, as two streams of batches in input order.
fn run(job: &Job, jobs: usize) -> Result<(Stream, Stream), ArrowError> {
    let n = job.movetext.len;
    let block_len = block_len(n, jobs);
    let blocks = n.div_ceil(block_len);
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<Option<Block>>> = Mutex::new((0..blocks).map(|_| None).collect());
    thread::scope(|s| {
        for _ in 0..jobs.clamp(1, blocks.max(1)) {
            s.spawn(|| {
                let mut scratch = RowScratch::default();
                let mut text = Vec::new();
                // Kept from block to block: their vectors keep the room the last one grew.
                let mut builders = Builders::new(job);
                loop {
                    let b = next.fetch_add(1, Ordering::Relaxed);
                    if b >= blocks {
                        break;
                    }
                    let rows = b * block_len..((b + 1) * block_len).min(n);
                    let out = block(job, rows, &mut scratch, &mut text, &mut builders);
                    if let Ok(mut done) = done.lock() {
                        done[b] = Some(out);
                    }
                }
            });
        }
    });
    let done = done
        .into_inner()
        .map_err(|_| ArrowError::ComputeError("a thread failed".into()))?;
    let (mut games, mut moves) = (Vec::with_capacity(blocks), Vec::with_capacity(blocks));
    for out in done {
        let (g, m) = out.ok_or_else(|| ArrowError::ComputeError("a block was lost".into()))??;
        games.push(g);
        moves.push(m);
    }
    let (games_schema, moves_schema) = schemas(job)?;
    Ok((stream(games, games_schema), stream(moves, moves_schema)))
}

fn stream(batches: Vec<RecordBatch>, schema: SchemaRef) -> Stream {
    Stream::new(Box::new(RecordBatchIterator::new(
        batches.into_iter().map(Ok),
        schema,
    )))
}

/// The schemas of the two tables (those of an empty block).
fn schemas(job: &Job) -> Result<(SchemaRef, SchemaRef), ArrowError> {
    let Builders {
        mut games,
        mut diagnostics,
        mut moves,
    } = Builders::new(job);
    let (g, m) = tables(&mut games, &mut diagnostics, &mut moves)?;
    Ok((g.schema(), m.schema()))
}

/// The builders of a block's batches.
struct Builders {
    games: GamesBuilder,
    diagnostics: DiagnosticsBuilder,
    moves: MovesBuilder,
}

impl Builders {
    fn new(job: &Job) -> Builders {
        Builders {
            games: GamesBuilder::with_columns(job.game_columns),
            diagnostics: DiagnosticsBuilder::default(),
            moves: MovesBuilder::with_columns(job.moves_columns),
        }
    }
}

/// Replays games `rows` into a batch of each table, with `builders` (left empty).
fn block(
    job: &Job,
    rows: std::ops::Range<usize>,
    scratch: &mut RowScratch,
    text: &mut Vec<u8>,
    builders: &mut Builders,
) -> Result<(RecordBatch, RecordBatch), ArrowError> {
    let Builders {
        games,
        diagnostics,
        moves,
    } = builders;
    for i in rows {
        text.clear();
        let fen = job.fens.as_ref().map_or(job.fen.as_deref(), |f| f.get(i));
        // The start position as tags on a line of their own: the movetext's lines are the
        // game's from the second on.
        let shift = u32::from(fen.is_some());
        if let Some(fen) = fen {
            text.extend_from_slice(b"[SetUp \"1\"] [FEN \"");
            for &b in fen {
                match b {
                    b'"' | b'\\' => text.extend_from_slice(&[b'\\', b]),
                    b'\n' | b'\r' => text.push(b' '),
                    _ => text.push(b),
                }
            }
            text.extend_from_slice(b"\"]\n");
        }
        // A null is a game without moves.
        text.extend_from_slice(job.movetext.get(i).unwrap_or_default());
        let row = job
            .convert
            .game_row_in(text, "", i as u64, scratch)
            .ok_or_else(|| {
                ArrowError::ComputeError(format!("game {i} was not converted (a bug in pgnkit)"))
            })?;
        games.append(&row)?;
        // A finding on the tags' line is about the start position, which the caller gave.
        diagnostics.append(&row.findings, |line, column| {
            (line > shift).then(|| (line - shift, column))
        });
        moves.append(&row);
        job.convert.recycle(row);
    }
    tables(games, diagnostics, moves)
}

/// The batches of the builders, with the columns of the two tables of `parse_movetext`.
fn tables(
    games: &mut GamesBuilder,
    diagnostics: &mut DiagnosticsBuilder,
    moves: &mut MovesBuilder,
) -> Result<(RecordBatch, RecordBatch), ArrowError> {
    let g = games.finish()?;
    let mut fields = Vec::new();
    let mut columns = Vec::new();
    for (from, to) in GAME_COLUMNS {
        let Some((i, field)) = g
            .schema()
            .column_with_name(from)
            .map(|(i, f)| (i, f.clone()))
        else {
            // Left out when asked (`movetext=False`).
            if from == "movetext" {
                continue;
            }
            return Err(ArrowError::SchemaError(format!("no column {from}")));
        };
        fields.push(field.with_name(to));
        columns.push(g.column(i).clone());
    }
    // The optional columns (the outcome and the start position as numbers) follow
    // `warnings` and `movetext`, as in `games.parquet`.
    let optional = g.schema().index_of("warnings")? + 1;
    let schema = g.schema();
    let columns_after = schema.fields().iter().zip(g.columns()).skip(optional);
    for (field, column) in columns_after.filter(|(f, _)| f.name() != "movetext") {
        fields.push(field.as_ref().clone());
        columns.push(column.clone());
    }
    fields.push(crate::diagnostics::field());
    columns.push(diagnostics.finish());
    let games = RecordBatch::try_new(Arc::new(Schema::new(fields)), columns)?;
    let m = moves.finish()?;
    let mut fields = Vec::new();
    let mut columns = Vec::new();
    for (field, column) in m.schema().fields().iter().zip(m.columns()) {
        match field.name().as_str() {
            "file" => continue,
            "game" => fields.push(Field::new("index", DataType::UInt64, false)),
            _ => fields.push(field.as_ref().clone()),
        }
        columns.push(column.clone());
    }
    let moves = RecordBatch::try_new(Arc::new(Schema::new(fields)), columns)?;
    Ok((games, moves))
}
