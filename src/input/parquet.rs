//! Parquet as input: a file whose rows are games (the lichess dataset's schema by default) is
//! read as the PGN text each row stands for, so that the games go through the same per-game
//! work as any PGN file and get the same verdicts and the same converted output.
//!
//! Each row becomes three lines of text: its tags on one line (`[Event "…"] [Site "…"] …`,
//! the typed columns written as lichess's PGN export writes them), its movetext on the next,
//! then a blank line. That fixed shape is what lets a diagnostic's line and column be told
//! back as a row and a place in the movetext ([`Rows::locate`]) without a table per row.
//! Rows are read one row group at a time, in batches: memory stays flat on any shard.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, TimeUnit};
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReader,
    ParquetRecordBatchReaderBuilder, RowSelection, RowSelectionPolicy, RowSelector,
};
use parquet::arrow::ProjectionMask;

use crate::diag::Code;
use crate::pgn::lexer::{
    break_start, lex_game_mode, skip_spaces, LexEnd, LexProblem, LexProblemKind, Span,
};
use crate::pgn::reader::RECORD_END;
use crate::pgn::{GameReader, Lexed};

mod pages;

/// The first (and last) four bytes of every Parquet file.
pub const MAGIC: &[u8; 4] = b"PAR1";

/// The movetext column of the lichess schema.
pub const DEFAULT_MOVETEXT: &str = "movetext";

/// The column of tags by name (a map of text to text), as `convert --format parquet` writes
/// every tag that has no column of its own.
pub const TAGS_MAP: &str = "tags";

/// Lines of text a row with a one-line movetext becomes: tags, movetext, a blank line. A
/// movetext of more lines (a `;` comment ends its line; other writers break lines at 80
/// columns) makes every row of its batch take as many, the others padded with blank lines, so
/// that a line of the text still tells its row (see [`Segment`]).
const ROW_LINES: u32 = 3;

/// Line breaks a movetext keeps at most. One of more lines is read on one line, its breaks as
/// spaces: the padding it would call for in every row of its batch is bounded so.
const MAX_MOVETEXT_BREAKS: u32 = 1023;

/// Rows decoded at a time, at most: fewer when the pages of a row group say that a batch
/// of them could hold more than [`BATCH_BUDGET_GAMES`] games' worth of bytes.
const BATCH_ROWS: usize = 1024;

/// The bytes a batch may decode to, in games of `--max-game-size`: with the pages of one row
/// at the limit each (a zstd page of a 30 MiB comment is a few KiB in the file), a batch of
/// [`BATCH_ROWS`] rows would decode to that many times the limit.
const BATCH_BUDGET_GAMES: u64 = 8;

/// What a movetext page holds besides its cells' text: their lengths (4 bytes each) and
/// levels. A page of one cell of the size limit says it decompresses to less than the limit
/// and this.
const PAGE_SLACK: u64 = 64 << 10;

/// The order lichess's PGN export writes its tags in; other tags follow in column order.
const LICHESS_ORDER: &[&str] = &[
    "Event",
    "Site",
    "Date",
    "Round",
    "White",
    "Black",
    "Result",
    "UTCDate",
    "UTCTime",
    "WhiteElo",
    "BlackElo",
    "WhiteRatingDiff",
    "BlackRatingDiff",
    "WhiteTitle",
    "BlackTitle",
    "Variant",
    "ECO",
    "Opening",
    "TimeControl",
    "Termination",
];

/// `--row-groups START:END`: the row groups of a Parquet file a task reads (START included,
/// END not, counted from 0 as pyarrow's `ParquetFile.read_row_group` counts them), as a byte
/// range is a PGN file's split. An END past the last row group reads to the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowGroups {
    pub start: usize,
    pub end: usize,
}

impl std::str::FromStr for RowGroups {
    type Err = String;

    fn from_str(s: &str) -> Result<RowGroups, String> {
        let bad = || format!("'{s}' is not START:END, two row group numbers (e.g. 0:4)");
        let (a, b) = s.split_once(':').ok_or_else(bad)?;
        let start = a.trim().parse::<usize>().map_err(|_| bad())?;
        let end = b.trim().parse::<usize>().map_err(|_| bad())?;
        if end < start {
            return Err(format!("'{s}': END ({end}) is before START ({start})"));
        }
        Ok(RowGroups { start, end })
    }
}

/// Whether a file starts with the Parquet magic bytes (whatever its name).
pub fn is_parquet(path: &Path) -> bool {
    let mut head = [0u8; 4];
    File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok()
        && &head == MAGIC
}

/// Which columns hold what: `--movetext-column` and `--tag-column TAG=COLUMN`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Columns {
    /// The movetext column (default [`DEFAULT_MOVETEXT`]).
    pub movetext: Option<String>,
    /// Tags read from columns of other names, as (tag, column).
    pub tags: Vec<(String, String)>,
}

impl Columns {
    /// Parses one `--tag-column` value, `TAG=COLUMN`.
    ///
    /// # Errors
    ///
    /// When it is not of that form or the tag is not a PGN tag name.
    pub fn parse_tag_column(value: &str) -> Result<(String, String), String> {
        match value.split_once('=') {
            Some((tag, column)) if is_tag_name(tag) && !column.is_empty() => {
                Ok((tag.to_string(), column.to_string()))
            }
            _ => Err(format!(
                "'{value}' is not TAG=COLUMN with TAG a tag name (e.g. --tag-column WhiteElo=white_rating)"
            )),
        }
    }
}

/// Whether a column's name is taken as a tag's: a PGN tag name as tags are written, a capital
/// letter then letters, digits and `_` (`Event`, `WhiteElo`), not `movetext` or `plies`.
fn is_tag_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_uppercase())
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// A problem of a Parquet file, for the input loop to report as a finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub code: Code,
    pub message: String,
    pub help: &'static str,
}

/// How a column's values become tag text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Text,
    /// An integer; a rating difference gets its sign (`+5`, `+0`, `-3`).
    Int {
        signed_diff: bool,
    },
    /// Days since 1970-01-01: `2025.05.01`.
    Date32,
    /// Milliseconds since 1970-01-01.
    Date64,
    /// A time of day in this many units a second: `00:00:06`.
    Time(i64),
}

impl Kind {
    fn of(data_type: &DataType, tag: &str) -> Option<Kind> {
        Some(match data_type {
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => Kind::Text,
            DataType::Dictionary(_, values)
                if matches!(**values, DataType::Utf8 | DataType::LargeUtf8) =>
            {
                Kind::Text
            }
            DataType::Int8
            | DataType::Int16
            | DataType::Int32
            | DataType::Int64
            | DataType::UInt8
            | DataType::UInt16
            | DataType::UInt32
            | DataType::UInt64 => Kind::Int {
                signed_diff: tag.ends_with("RatingDiff"),
            },
            DataType::Date32 => Kind::Date32,
            DataType::Date64 => Kind::Date64,
            DataType::Time32(TimeUnit::Second) => Kind::Time(1),
            DataType::Time32(TimeUnit::Millisecond) => Kind::Time(1_000),
            DataType::Time64(TimeUnit::Microsecond) => Kind::Time(1_000_000),
            DataType::Time64(TimeUnit::Nanosecond) => Kind::Time(1_000_000_000),
            _ => return None,
        })
    }
}

/// Where a tag's text comes from.
#[derive(Clone, Debug)]
enum Value {
    Column {
        name: String,
        kind: Kind,
    },
    /// Written for every row (`Round "-"`, which lichess's export writes and its dataset drops).
    Constant(&'static str),
}

/// The tags each row gets, in order, and the movetext column.
#[derive(Clone, Debug)]
struct Plan {
    tags: Vec<(String, Value)>,
    /// The [`TAGS_MAP`] column, when the file has one of text to text: its tags follow.
    map: Option<String>,
    movetext: String,
}

/// Where a run of rows of the same number of lines starts: its first row, the line of text
/// that row's tags are on, and the lines each row takes. A run starts with each row group
/// and with each batch whose rows take other lines than the batch before: one a row group
/// for movetexts of one line (lichess's), whatever the number of rows.
#[derive(Clone, Copy, Debug)]
struct Segment {
    first_line: u32,
    first_row: u64,
    row_lines: u32,
}

#[derive(Debug, Default)]
struct Shared {
    segments: Vec<Segment>,
    problems: Vec<Problem>,
    /// Rows whose movetext cell held more than their game, until their game takes them
    /// ([`Rows::cell_problems`]): as many as the rows read ahead of the work at most.
    cells: std::collections::BTreeMap<u64, Cell>,
}

/// What a movetext cell held besides its game ([`Rows::cell_problems`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Cell {
    /// Tag pairs before its moves.
    tags: bool,
    /// Text after the result that ends its game, which the row's text leaves out.
    goes_on: bool,
}

/// Tells a place in the text back as a row, shared with the workers while the rows are read.
#[derive(Clone, Debug, Default)]
pub struct Rows(Arc<Mutex<Shared>>);

/// A place in a Parquet file: the row (0-based, as pyarrow and DuckDB count) and the line
/// within the row's text (1 for its tags, 2 for its movetext).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowPlace {
    pub row: u64,
    pub line: u32,
}

impl Rows {
    /// The row a line of the text belongs to, and the line within the row.
    pub fn locate(&self, line: u32) -> Option<RowPlace> {
        let shared = self.0.lock().ok()?;
        let i = shared
            .segments
            .partition_point(|s| s.first_line <= line)
            .checked_sub(1)?;
        let segment = shared.segments[i];
        let within = line - segment.first_line;
        Some(RowPlace {
            row: segment.first_row + u64::from(within / segment.row_lines),
            line: within % segment.row_lines + 1,
        })
    }

    /// The problems of a row's movetext cell that held more than its game (P036), placed in
    /// the row's game as it was read: `bytes` from `line` and `col` (the row's text, its
    /// tags on line 1). Taken once: the row's game asks for them.
    pub fn cell_problems(&self, row: u64, bytes: &[u8], line: u32, col: u32) -> Vec<LexProblem> {
        let cell = self
            .0
            .lock()
            .ok()
            .and_then(|mut s| s.cells.remove(&row))
            .unwrap_or_default();
        let mut found = Vec::new();
        let span = |start: usize, end: usize| {
            let before = &bytes[..start];
            let lines = memchr::memchr_iter(b'\n', before).count();
            let line_start = memchr::memrchr(b'\n', before).map_or(0, |i| i + 1);
            let chars = crate::pgn::lexer::count_chars(&bytes[line_start..start]);
            Span {
                start: u32::try_from(start).unwrap_or(u32::MAX),
                end: u32::try_from(end).unwrap_or(u32::MAX),
                line: line.saturating_add(u32::try_from(lines).unwrap_or(u32::MAX)),
                col: if line_start == 0 { col } else { 1 }.saturating_add(chars),
            }
        };
        if cell.tags {
            // The cell's first tag: the first `[` of the movetext's line (line 2).
            let movetext = if line == 1 {
                memchr::memchr(b'\n', bytes).map_or(bytes.len(), |i| i + 1)
            } else {
                0
            };
            let at = memchr::memchr(b'[', &bytes[movetext..]).map_or(movetext, |i| movetext + i);
            let end = memchr::memchr(b']', &bytes[at..]).map_or(at, |i| at + i + 1);
            found.push(LexProblem {
                kind: LexProblemKind::TagsInCell,
                span: span(at, end),
            });
        }
        if cell.goes_on {
            // The game's last token, its result, after which the cell went on.
            let end = bytes.len();
            let start = bytes
                .iter()
                .rposition(|b| b.is_ascii_whitespace())
                .map_or(0, |i| i + 1);
            found.push(LexProblem {
                kind: LexProblemKind::CellGoesOn,
                span: span(start, end),
            });
        }
        found
    }

    /// Problems met while the rows were read (row groups that could not be read).
    pub fn take_problems(&self) -> Vec<Problem> {
        self.0
            .lock()
            .map(|mut s| std::mem::take(&mut s.problems))
            .unwrap_or_default()
    }

    fn push_segment(&self, segment: Segment) {
        if let Ok(mut s) = self.0.lock() {
            s.segments.push(segment);
        }
    }

    fn push_cell(&self, row: u64, cell: Cell) {
        if let Ok(mut s) = self.0.lock() {
            s.cells.insert(row, cell);
        }
    }

    fn push_problem(&self, problem: Problem) {
        if let Ok(mut s) = self.0.lock() {
            s.problems.push(problem);
        }
    }
}

/// The PGN text of a Parquet file's rows, read one row group at a time.
pub struct RowText {
    file: File,
    meta: ArrowReaderMetadata,
    plan: Plan,
    /// Next row group to open.
    group: usize,
    /// First row of each row group.
    group_rows: Vec<(u64, u64)>,
    batches: Option<ParquetRecordBatchReader>,
    buf: Vec<u8>,
    pos: usize,
    /// Lines of text given so far.
    lines: u32,
    /// The row the next batch starts with.
    next_row: u64,
    /// Lines a row takes in the run of rows written last; 0 when a row group starts.
    row_lines: u32,
    rows: Rows,
    /// Scratch for [`RowText::cell_game`].
    cell: (Vec<u8>, Lexed),
    /// The largest game, in bytes (`--max-game-size`): no movetext page larger is decoded.
    max_game: u64,
    /// The leaf columns read (the movetext and the tags'), each with whether it is flat (a
    /// value a row): only those are decoded, and their page headers are read first.
    leaves: Vec<(usize, bool)>,
    /// The same columns, for the decoder.
    projection: ProjectionMask,
    /// The rows of the open row group the batches give, as (first, count), in order: all of
    /// them but those of the movetext pages refused for their size.
    kept: std::collections::VecDeque<(u64, u64)>,
}

impl RowText {
    /// Opens a Parquet file and plans which columns become which tags. Returns the reader and
    /// the problems found in the schema that do not stop it (a column of a type that has no
    /// tag text, a `--tag-column` the file lacks).
    ///
    /// # Errors
    ///
    /// When the file cannot be read as Parquet (its footer is missing or damaged: nothing of
    /// it can be located) or has no movetext column.
    pub fn open(path: &Path, columns: &Columns) -> Result<(RowText, Vec<Problem>), Problem> {
        let file = File::open(path).map_err(|e| Problem {
            code: Code::ParquetUnreadable,
            message: format!("cannot open the Parquet file: {e}"),
            help: "check the path and its permissions",
        })?;
        // As for the row groups: a panic of the decoder on a damaged footer is a damaged file.
        let loaded = std::panic::catch_unwind(|| {
            ArrowReaderMetadata::load(&file, ArrowReaderOptions::new()).map_err(|e| e.to_string())
        })
        .unwrap_or_else(|_| Err("the Parquet decoder failed on the footer".into()));
        let meta = loaded.map_err(|e| Problem {
            code: Code::ParquetUnreadable,
            message: format!(
                "cannot read the Parquet footer ({e}): without it no row can be located, \
                     so nothing of the file was read"
            ),
            help: "the file is truncated or damaged (the footer, the index of its row \
                       groups, is at its end): download or copy it again",
        })?;
        let (plan, warnings) = plan(meta.schema(), columns)?;
        // Only the columns the rows' text is made of: a column no tag is read from is not
        // decoded, so no page of it can cost memory.
        let descr = meta.metadata().file_metadata().schema_descr();
        let read = |name: &str| {
            name == plan.movetext
                || plan.map.as_deref() == Some(name)
                || plan
                    .tags
                    .iter()
                    .any(|(_, v)| matches!(v, Value::Column { name: c, .. } if c == name))
        };
        let roots: Vec<usize> = descr
            .root_schema()
            .get_fields()
            .iter()
            .enumerate()
            .filter(|(_, f)| read(f.name()))
            .map(|(i, _)| i)
            .collect();
        let leaves = (0..descr.num_columns())
            .filter(|&i| roots.contains(&descr.get_column_root_idx(i)))
            .map(|i| (i, descr.column(i).max_rep_level() == 0))
            .collect();
        let projection = ProjectionMask::roots(descr, roots.iter().copied());
        let mut first = 0;
        let group_rows = meta
            .metadata()
            .row_groups()
            .iter()
            .map(|g| {
                let n = u64::try_from(g.num_rows()).unwrap_or(0);
                let at = (first, n);
                first += n;
                at
            })
            .collect();
        Ok((
            RowText {
                file,
                meta,
                plan,
                group: 0,
                group_rows,
                batches: None,
                buf: Vec::new(),
                pos: 0,
                lines: 0,
                next_row: 0,
                row_lines: 0,
                rows: Rows::default(),
                cell: Default::default(),
                max_game: crate::pgn::reader::DEFAULT_MAX_GAME as u64,
                leaves,
                projection,
                kept: Default::default(),
            },
            warnings,
        ))
    }

    /// How many row groups the file has.
    pub fn row_group_count(&self) -> usize {
        self.group_rows.len()
    }

    /// Reads only the row groups of `groups` (row numbers stay the file's: row 0 is the
    /// file's first row whichever group is read first).
    #[must_use]
    pub fn with_row_groups(mut self, groups: RowGroups) -> RowText {
        let end = groups.end.min(self.group_rows.len());
        self.group_rows.truncate(end);
        self.group = groups.start.min(end);
        self
    }

    /// The reader of the games the rows hold, one a row at most ([`GameReader::with_records`]),
    /// skipping (and reporting) a game larger than `max_game` bytes.
    pub fn games(self, max_game: usize) -> GameReader<RowText> {
        GameReader::with_limit(self, max_game).with_records(true)
    }

    /// Refuses movetext pages that say they decompress to more than `bytes` and this
    /// (the size limit of a game): their rows are reported (P012), not decoded.
    #[must_use]
    pub fn with_max_game(mut self, bytes: usize) -> RowText {
        self.max_game = bytes as u64;
        self
    }

    /// Tells lines of the text back as rows.
    pub fn rows(&self) -> Rows {
        self.rows.clone()
    }

    /// Fills `buf` with the text of the next batch of rows; false at the end.
    fn refill(&mut self) -> bool {
        self.buf.clear();
        self.pos = 0;
        loop {
            if self.batches.is_none() {
                let Some(&(first_row, n)) = self.group_rows.get(self.group) else {
                    return false;
                };
                // Before a page is decompressed: one too large is not.
                let GroupPlan { kept, batch_rows } = match self.page_plan(first_row, n) {
                    Ok(plan) => plan,
                    Err(e) => {
                        self.group_unreadable(first_row, n, &e);
                        self.group += 1;
                        continue;
                    }
                };
                let all = kept.len() == 1 && kept[0] == (first_row, n);
                let selection = (!all).then(|| selection(first_row, n, &kept));
                if kept.is_empty() {
                    self.group += 1;
                    continue;
                }
                self.kept = kept.into();
                let (file, meta, group) = (&self.file, &self.meta, self.group);
                let projection = self.projection.clone();
                let opened = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    file.try_clone().map_err(|e| e.to_string()).and_then(|f| {
                        let mut builder =
                            ParquetRecordBatchReaderBuilder::new_with_metadata(f, meta.clone())
                                .with_row_groups(vec![group])
                                .with_projection(projection)
                                .with_batch_size(batch_rows);
                        if let Some(selection) = selection {
                            // Skipped by whole pages, never decoded and filtered.
                            builder = builder
                                .with_row_selection(selection)
                                .with_row_selection_policy(RowSelectionPolicy::Selectors);
                        }
                        builder.build().map_err(|e| e.to_string())
                    })
                }))
                .unwrap_or_else(|_| Err("the Parquet decoder failed on this row group".into()));
                match opened {
                    Ok(reader) => {
                        self.batches = Some(reader);
                        // The group's first batch starts a run of rows.
                        self.next_row = first_row;
                        self.row_lines = 0;
                    }
                    Err(e) => {
                        self.group_unreadable(first_row, n, &e);
                        self.group += 1;
                        continue;
                    }
                }
            }
            // The decoder is another crate's code on untrusted bytes: a panic in it is a row
            // group that cannot be read, not the end of the run.
            let batches = &mut self.batches;
            let next = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                batches.as_mut().and_then(Iterator::next)
            }))
            .unwrap_or_else(|_| {
                Some(Err(arrow_schema::ArrowError::ExternalError(
                    "the Parquet decoder failed on this row group".into(),
                )))
            });
            match next {
                None => {
                    self.batches = None;
                    self.group += 1;
                }
                Some(Ok(batch)) => {
                    if batch.num_rows() == 0 {
                        continue;
                    }
                    match self.write_batch(&batch) {
                        Ok(()) => return true,
                        Err(e) => {
                            // A column whose type changed between row groups: the group's
                            // rows after those written are left.
                            self.buf.clear();
                            let (first_row, n) = self.group_rows[self.group];
                            self.group_unreadable(first_row, n, &e);
                            self.batches = None;
                            self.group += 1;
                        }
                    }
                }
                Some(Err(e)) => {
                    let (first_row, n) = self.group_rows[self.group];
                    self.group_unreadable(first_row, n, &e.to_string());
                    self.batches = None;
                    self.group += 1;
                }
            }
        }
    }

    /// The rows of the open row group (`first_row`, `n` rows) to decode, as (first, count):
    /// all but those of the pages, in the columns read, that say they decompress to more than
    /// a game may be, which are reported (P012) from their headers alone.
    ///
    /// # Errors
    ///
    /// When the page headers of a column read cannot be read, or do not hold the row group's
    /// rows: the row group is damaged, and decoding it would trust those sizes.
    fn page_plan(&self, first_row: u64, n: u64) -> Result<GroupPlan, String> {
        let end = first_row + n;
        let budget = self.max_game.saturating_mul(BATCH_BUDGET_GAMES);
        // Bytes one row of a batch may decode to, summed over the columns read (see
        // `GroupPlan::batch_rows`).
        let mut row_bytes: u64 = 0;
        let group = self.meta.metadata().row_group(self.group);
        let limit = self.max_game.saturating_add(PAGE_SLACK);
        let too_large = |p: &pages::PageSize| u64::try_from(p.uncompressed).unwrap_or(0) > limit;
        // Bytes a page may decode to: what it says, but for an old-LZ4 page in the frame
        // layout, whose decoder does not stop there.
        let decoded = |p: &pages::PageSize| {
            let said = u64::try_from(p.uncompressed).unwrap_or(0);
            if p.lz4_frame {
                said.max(pages::lz4_frame_bound(p.compressed))
            } else {
                said
            }
        };
        // Rows [from, to) of pages refused, in any column.
        let mut refused: Vec<(u64, u64)> = Vec::new();
        for &(leaf, flat) in &self.leaves {
            let Some(chunk) = group.columns().get(leaf) else {
                return Err(format!("no column chunk {leaf} in the row group"));
            };
            let name = chunk.column_path().string();
            let start = match chunk.dictionary_page_offset() {
                Some(d) if d > 0 => d.min(chunk.data_page_offset()),
                _ => chunk.data_page_offset(),
            };
            let (Ok(start), Ok(len)) =
                (u64::try_from(start), u64::try_from(chunk.compressed_size()))
            else {
                return Err(format!(
                    "the {name} column chunk has a negative offset or size"
                ));
            };
            let lz4 = chunk.compression() == parquet::basic::Compression::LZ4;
            let pages = pages::chunk_pages(&self.file, start, start.saturating_add(len), lz4)
                .map_err(|e| format!("the {name} pages: {e}"))?;
            if let Some(p) = pages.iter().find(|p| p.lz4_frame && decoded(p) > limit) {
                self.lz4_unbounded(first_row, end - 1, p.compressed, &name);
                return Ok(GroupPlan::default());
            }
            // A dictionary page's values are the cells of every data page of the chunk; the
            // pages of a column of lists (the tags map) do not say their rows.
            if let Some(p) = pages
                .iter()
                .find(|p| (p.dictionary || !flat) && too_large(p))
            {
                let what = if p.dictionary {
                    "dictionary page"
                } else {
                    "page"
                };
                self.too_large(first_row, end - 1, p.uncompressed, &name, what);
                return Ok(GroupPlan::default());
            }
            let size = |p: &pages::PageSize| decoded(p);
            if !flat {
                // The pages of a list do not say their rows: a row may hold a whole page.
                row_bytes = row_bytes.saturating_add(pages.iter().map(size).max().unwrap_or(0));
                continue;
            }
            // A value of the dictionary is copied into each row that uses it (once in the
            // decoded batch, once in the rows' text): any row may be the page's size.
            let dictionary = pages.iter().filter(|p| p.dictionary).map(size).max();
            row_bytes = row_bytes.saturating_add(dictionary.unwrap_or(0));
            // A data page's cells average its size over its rows; the pages at a batch's two
            // ends add at most the limit each.
            let widest = pages
                .iter()
                .filter(|p| !p.dictionary)
                .map(|p| size(p).div_ceil(u64::try_from(p.values.max(1)).unwrap_or(1)))
                .max()
                .unwrap_or(0);
            row_bytes = row_bytes.saturating_add(widest);
            let mut row = first_row;
            for page in pages.iter().filter(|p| !p.dictionary) {
                let rows = u64::try_from(page.values)
                    .ok()
                    .filter(|&r| row + r <= end)
                    .ok_or_else(|| format!("the {name} pages hold more rows than the row group"))?;
                if too_large(page) {
                    let last = row + rows.saturating_sub(1);
                    self.too_large(row, last, page.uncompressed, &name, "page");
                    refused.push((row, row + rows));
                }
                row += rows;
            }
            if row != end {
                return Err(format!(
                    "the {name} pages hold {} rows of the row group's {n}",
                    row - first_row
                ));
            }
        }
        refused.sort_unstable();
        let mut kept = Vec::new();
        let mut at = first_row;
        for (from, to) in refused {
            if from > at {
                kept.push((at, from - at));
            }
            at = at.max(to);
        }
        if end > at {
            kept.push((at, end - at));
        }
        let batch_rows = (budget / row_bytes.max(1)).clamp(1, BATCH_ROWS as u64) as usize;
        Ok(GroupPlan { kept, batch_rows })
    }

    /// Reports the rows `first..=last` of a page (or dictionary page) of `column` that says
    /// it decompresses to `size` bytes, more than a game may be: not one byte of it was
    /// decompressed.
    fn too_large(&self, first: u64, last: u64, size: i64, column: &str, what: &str) {
        let mib = |b: u64| b as f64 / f64::from(1u32 << 20);
        self.rows.push_problem(Problem {
            code: Code::GameTooLarge,
            message: format!(
                "rows {first} to {last} of row group {}: their {column} {what} says it \
                 decompresses to {:.1} MiB, more than the size limit of a game ({:.1} MiB), \
                 so it was not decompressed and its rows were skipped",
                self.group,
                mib(u64::try_from(size).unwrap_or(0)),
                mib(self.max_game)
            ),
            help: "raise --max-game-size if the games are genuine",
        });
    }

    /// Reports rows `first..=last`, skipped for a page of the old LZ4 codec in the LZ4
    /// frame layout that could decode to more than a game may be.
    fn lz4_unbounded(&self, first: u64, last: u64, compressed: i64, column: &str) {
        self.rows.push_problem(Problem {
            code: Code::GameTooLarge,
            message: format!(
                "rows {first} to {last} of row group {}: their {column} page uses the old LZ4 \
                 codec in the LZ4 frame layout, whose decoder does not keep to the size the \
                 page says; its {compressed} bytes could decode to more than the size limit \
                 of a game ({:.1} MiB), so it was not decompressed and the row group's rows \
                 were skipped",
                self.group,
                self.max_game as f64 / f64::from(1u32 << 20)
            ),
            help: "rewrite the file with ZSTD, Snappy or LZ4_RAW (pyarrow: \
                   compression=\"zstd\"), or raise --max-game-size if the games are genuine",
        });
    }

    fn group_unreadable(&self, first_row: u64, n: u64, error: &str) {
        self.rows.push_problem(Problem {
            code: Code::ParquetRowGroupUnreadable,
            message: format!(
                "row group {} (rows {first_row} to {}) cannot be read ({error}); its rows \
                 from there on were skipped, and the run went on with the next row group",
                self.group,
                (first_row + n).saturating_sub(1)
            ),
            help: "the file is damaged: download or copy it again, or rewrite it with the tool \
                   that made it",
        });
    }

    /// The numbers of the next `k` rows the open row group's batches give (see
    /// [`RowText::kept`]).
    fn take_rows(&mut self, k: usize) -> Vec<u64> {
        let mut numbers = Vec::with_capacity(k);
        while numbers.len() < k {
            match self.kept.front_mut() {
                Some((_, 0)) => {
                    self.kept.pop_front();
                }
                Some((first, count)) => {
                    numbers.push(*first);
                    *first += 1;
                    *count -= 1;
                }
                // More rows than the row group said: numbered on.
                None => numbers.push(numbers.last().map_or(self.next_row, |r| r + 1)),
            }
        }
        numbers
    }

    /// Writes the text of a batch's rows.
    fn write_batch(&mut self, batch: &RecordBatch) -> Result<(), String> {
        let numbers = self.take_rows(batch.num_rows());
        let movetext = batch
            .column_by_name(&self.plan.movetext)
            .ok_or_else(|| format!("no column '{}' in this row group", self.plan.movetext))?;
        let tags: Vec<(&str, Option<&dyn Array>, &Value)> = self
            .plan
            .tags
            .iter()
            .map(|(tag, value)| {
                let column = match value {
                    Value::Column { name, .. } => Some(
                        batch
                            .column_by_name(name)
                            .map(|c| c.as_ref())
                            .ok_or_else(|| format!("no column '{name}' in this row group"))?,
                    ),
                    Value::Constant(_) => None,
                };
                Ok((tag.as_str(), column, value))
            })
            .collect::<Result<_, String>>()?;
        let map = match &self.plan.map {
            Some(name) => Some(
                batch
                    .column_by_name(name)
                    .and_then(|c| c.as_map_opt())
                    .ok_or_else(|| format!("no map column '{name}' in this row group"))?,
            ),
            None => None,
        };
        // The lines each row takes: those of the batch's longest movetext.
        let mut texts = Vec::with_capacity(batch.num_rows());
        for (row, &number) in numbers.iter().enumerate() {
            let text = text_at(movetext.as_ref(), row)?.map(|text| {
                let (game, cell) = cell_game(&mut self.cell, text);
                if cell != Cell::default() {
                    self.rows.push_cell(number, cell);
                }
                game
            });
            texts.push((text, text.map_or(Some(0), movetext_breaks)));
        }
        let breaks = texts.iter().filter_map(|t| t.1).max().unwrap_or(0);
        let row_lines = ROW_LINES + breaks;
        for (i, &number) in numbers.iter().enumerate() {
            // A run of rows starts with a batch of other lines a row, and after rows skipped.
            if (i == 0 && row_lines != self.row_lines) || number != self.next_row {
                let before = u32::try_from(i)
                    .unwrap_or(u32::MAX)
                    .saturating_mul(row_lines);
                self.rows.push_segment(Segment {
                    first_line: self.lines.saturating_add(before).saturating_add(1),
                    first_row: number,
                    row_lines,
                });
            }
            self.next_row = number + 1;
        }
        self.row_lines = row_lines;
        // The lines of a batch that fails are not given (the caller drops its text).
        let lines_before = self.lines;
        let buf = &mut self.buf;
        for (row, &(text, own)) in texts.iter().enumerate() {
            let mut first = true;
            for &(tag, column, value) in &tags {
                let start = buf.len();
                if !first {
                    buf.push(b' ');
                }
                buf.push(b'[');
                buf.extend_from_slice(tag.as_bytes());
                buf.extend_from_slice(b" \"");
                let written = match (value, column) {
                    (Value::Constant(text), _) => {
                        crate::pgn::quote_tag_value(text, |piece| {
                            buf.extend_from_slice(piece.as_bytes())
                        });
                        true
                    }
                    (Value::Column { kind, .. }, Some(column)) => {
                        match write_cell(buf, column, row, *kind) {
                            Ok(written) => written,
                            Err(e) => {
                                self.lines = lines_before;
                                return Err(e);
                            }
                        }
                    }
                    (Value::Column { .. }, None) => false,
                };
                if written {
                    buf.extend_from_slice(b"\"]");
                    first = false;
                } else {
                    // A null: the tag is absent, as in lichess's export.
                    buf.truncate(start);
                }
            }
            if let Some(map) = map {
                if let Err(e) = write_map_tags(buf, map, row, first) {
                    self.lines = lines_before;
                    return Err(e);
                }
            }
            buf.push(b'\n');
            if let Some(text) = text {
                push_movetext(buf, text, own);
            }
            // A row is one game, whatever its text holds: its game never runs on into the
            // next row's (a movetext without a result, a comment left open, a row of no tags).
            buf.push(RECORD_END);
            // Its line's end, a blank line, and the lines that make it as long as the others.
            buf.resize(buf.len() + 2 + (breaks - own.unwrap_or(0)) as usize, b'\n');
            self.lines = self.lines.saturating_add(row_lines);
        }
        Ok(())
    }
}

impl Read for RowText {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.pos == self.buf.len() {
            if !self.refill() {
                return Ok(0);
            }
        }
        let n = out.len().min(self.buf.len() - self.pos);
        out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// How a row group is read: its rows to decode, as (first, count), in order, and the rows a
/// batch holds.
#[derive(Debug, Default)]
struct GroupPlan {
    kept: Vec<(u64, u64)>,
    /// [`BATCH_ROWS`], or fewer: as many as keep a batch within [`BATCH_BUDGET_GAMES`] games
    /// by what the pages say a row may decode to, summed over the columns read (the largest
    /// average cell of a data page, a list's largest page, the dictionary page's size).
    batch_rows: usize,
}

/// The rows of a row group (`first_row`, `n` rows) to decode, `kept`, as a selection of
/// the group's rows.
fn selection(first_row: u64, n: u64, kept: &[(u64, u64)]) -> RowSelection {
    let mut selectors = Vec::with_capacity(kept.len() * 2 + 1);
    let mut at = first_row;
    let count = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
    for &(from, rows) in kept {
        if from > at {
            selectors.push(RowSelector::skip(count(from - at)));
        }
        selectors.push(RowSelector::select(count(rows)));
        at = from + rows;
    }
    if first_row + n > at {
        selectors.push(RowSelector::skip(count(first_row + n - at)));
    }
    selectors.into()
}

/// Plans the tags of each row from the file's schema.
fn plan(schema: &arrow_schema::Schema, columns: &Columns) -> Result<(Plan, Vec<Problem>), Problem> {
    let movetext = columns.movetext.as_deref().unwrap_or(DEFAULT_MOVETEXT);
    let field = |name: &str| schema.fields().iter().find(|f| f.name() == name);
    let Some(movetext_field) = field(movetext) else {
        let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        return Err(Problem {
            code: Code::ParquetNoMovetext,
            message: format!(
                "no movetext column '{movetext}' (the columns are {}); nothing of the file was read",
                names.join(", ")
            ),
            help: "name the column that holds the moves with --movetext-column",
        });
    };
    if Kind::of(movetext_field.data_type(), "") != Some(Kind::Text) {
        return Err(Problem {
            code: Code::ParquetNoMovetext,
            message: format!(
                "the movetext column '{movetext}' holds {}, not text; nothing of the file was read",
                movetext_field.data_type()
            ),
            help: "name the column that holds the moves as text with --movetext-column",
        });
    }
    let mut warnings = Vec::new();
    let mut tags: Vec<(String, String)> = Vec::new();
    for (tag, column) in &columns.tags {
        if field(column).is_some() {
            tags.push((tag.clone(), column.clone()));
        } else {
            warnings.push(Problem {
                code: Code::ParquetTagColumnMissing,
                message: format!(
                    "--tag-column {tag}={column}: the file has no column '{column}'; the games \
                     are read without that tag"
                ),
                help: "check the column's name (pyarrow: pq.read_schema(path))",
            });
        }
    }
    for f in schema.fields() {
        let name = f.name();
        let mapped = tags.iter().any(|(t, c)| c == name || t == name);
        if name != movetext && is_tag_name(name) && !mapped {
            tags.push((name.clone(), name.clone()));
        }
    }
    // pgnkit's own map of the other tags: without it a converted file would lose them.
    let map = field(TAGS_MAP)
        .filter(|f| match f.data_type() {
            DataType::Map(entries, _) => match entries.data_type() {
                DataType::Struct(kv) => {
                    kv.len() == 2
                        && kv
                            .iter()
                            .all(|c| Kind::of(c.data_type(), "") == Some(Kind::Text))
                }
                _ => false,
            },
            _ => false,
        })
        .map(|f| f.name().clone());
    let mut planned: Vec<(String, Value)> = Vec::new();
    for (tag, column) in tags {
        let Some(f) = field(&column) else { continue };
        match Kind::of(f.data_type(), &tag) {
            Some(kind) => planned.push((tag, Value::Column { name: column, kind })),
            None => warnings.push(Problem {
                code: Code::ParquetColumnType,
                message: format!(
                    "column '{column}' holds {}, which pgnkit cannot write as the text of tag \
                     {tag}; the games are read without it",
                    f.data_type()
                ),
                help: "give it as text, an integer, a date32 or a time32 column",
            }),
        }
    }
    // The lichess dataset drops two tags its PGN export writes: the date (it is the UTC
    // date) and the round (always "-"). They are put back, so that its games read as the
    // PGN export does.
    let has = |planned: &[(String, Value)], tag: &str| planned.iter().any(|(t, _)| t == tag);
    if let Some((_, utc)) = planned.iter().find(|(t, _)| t == "UTCDate").cloned() {
        if !has(&planned, "Date") {
            planned.push(("Date".into(), utc));
        }
        if !has(&planned, "Round") {
            planned.push(("Round".into(), Value::Constant("-")));
        }
    }
    let rank = |tag: &str| {
        LICHESS_ORDER
            .iter()
            .position(|t| *t == tag)
            .unwrap_or(LICHESS_ORDER.len())
    };
    // Stable: the tags lichess does not write keep their column order, after its own.
    planned.sort_by_key(|(tag, _)| rank(tag));
    Ok((
        Plan {
            tags: planned,
            map,
            movetext: movetext.to_string(),
        },
        warnings,
    ))
}

/// Writes a row's entries of the tags map as tags, after those of the columns (`first`: none
/// was written). A name that is no tag name is written as it is, so that the row gets the
/// diagnostic of a malformed tag rather than losing it unseen; only its line breaks become
/// spaces, since a row's tags are one line.
fn write_map_tags(
    buf: &mut Vec<u8>,
    map: &arrow_array::MapArray,
    row: usize,
    mut first: bool,
) -> Result<(), String> {
    if map.is_null(row) {
        return Ok(());
    }
    let offsets = map.value_offsets();
    let (Ok(from), Ok(to)) = (
        usize::try_from(offsets[row]),
        usize::try_from(offsets[row + 1]),
    ) else {
        return Err("a tags map with negative offsets".into());
    };
    let (keys, values) = (map.keys().as_ref(), map.values().as_ref());
    for entry in from..to {
        let (Some(name), Some(value)) = (text_at(keys, entry)?, text_at(values, entry)?) else {
            continue;
        };
        if !first {
            buf.push(b' ');
        }
        first = false;
        buf.push(b'[');
        let start = buf.len();
        buf.extend_from_slice(name.as_bytes());
        for b in &mut buf[start..] {
            if matches!(*b, b'\n' | b'\r') {
                *b = b' ';
            }
        }
        buf.extend_from_slice(b" \"");
        crate::pgn::quote_tag_value(value, |piece| buf.extend_from_slice(piece.as_bytes()));
        buf.extend_from_slice(b"\"]");
    }
    Ok(())
}

/// The game a movetext cell holds, as the row's text gives it to the PGN reader (its line
/// breaks as [`push_movetext`] writes them), and what else the cell held: tag pairs before
/// the moves, which would pass for the row's tags, or text after the result that ends the
/// game, which the reader would take as another game. A row is one game: the text after it
/// is left out of the row's text, and both are the row's diagnostics (P036).
fn cell_game<'t>(scratch: &mut (Vec<u8>, Lexed), text: &'t str) -> (&'t str, Cell) {
    let (bytes, lexed) = scratch;
    bytes.clear();
    let breaks = movetext_breaks(text);
    // The cheap pass that finds where games end, on the bytes the reader will see.
    push_movetext(bytes, text, breaks);
    let LexEnd::Complete(end) = lex_game_mode(bytes, true, 1, 1, false, lexed) else {
        return (text, Cell::default());
    };
    let goes_on = skip_spaces(bytes, end) < bytes.len();
    let cell = Cell {
        tags: lexed.tag_count() > 0,
        goes_on,
    };
    match text.get(..end) {
        Some(game) if goes_on => (game, cell),
        _ => (text, cell),
    }
}

/// The text of a text column's row, `None` for a null.
fn text_at(array: &dyn Array, row: usize) -> Result<Option<&str>, String> {
    if array.is_null(row) {
        return Ok(None);
    }
    if let Some(a) = array.as_string_opt::<i32>() {
        return Ok(Some(a.value(row)));
    }
    if let Some(a) = array.as_string_opt::<i64>() {
        return Ok(Some(a.value(row)));
    }
    if let Some(a) = array.as_string_view_opt() {
        return Ok(Some(a.value(row)));
    }
    // A dictionary column (pandas' categoricals): the key, then the value, for this row only.
    macro_rules! dictionary {
        ($($t:ty),*) => {
            $(if let Some(d) = array.as_dictionary_opt::<$t>() {
                let key = usize::try_from(d.keys().value(row)).map_err(|e| e.to_string())?;
                if key < d.values().len() {
                    return text_at(d.values().as_ref(), key);
                }
                return Err(format!("a dictionary key ({key}) out of its values"));
            })*
        };
    }
    dictionary!(
        Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type, UInt32Type, UInt64Type
    );
    Err(format!("a column holds {}, not text", array.data_type()))
}

/// Writes a row's value of `column` as tag text (escaped); false for a null.
fn write_cell(
    buf: &mut Vec<u8>,
    column: &dyn Array,
    row: usize,
    kind: Kind,
) -> Result<bool, String> {
    if column.is_null(row) {
        return Ok(false);
    }
    match kind {
        Kind::Text => {
            if let Some(text) = text_at(column, row)? {
                crate::pgn::quote_tag_value(text, |piece| buf.extend_from_slice(piece.as_bytes()));
            }
        }
        Kind::Int { signed_diff } => {
            let n = int_at(column, row)?;
            let sign = if signed_diff && n >= 0 { "+" } else { "" };
            let _ = write!(buf, "{sign}{n}");
        }
        Kind::Date32 => {
            let days = column
                .as_primitive_opt::<arrow_array::types::Date32Type>()
                .ok_or("a date32 column is not")?
                .value(row);
            write_date(buf, i64::from(days));
        }
        Kind::Date64 => {
            let ms = column
                .as_primitive_opt::<arrow_array::types::Date64Type>()
                .ok_or("a date64 column is not")?
                .value(row);
            write_date(buf, ms.div_euclid(86_400_000));
        }
        Kind::Time(per_second) => {
            let units = time_at(column, row)?;
            let secs = (units.div_euclid(per_second)).rem_euclid(86_400);
            let _ = write!(
                buf,
                "{:02}:{:02}:{:02}",
                secs / 3600,
                secs / 60 % 60,
                secs % 60
            );
        }
    }
    Ok(true)
}

fn int_at(a: &dyn Array, row: usize) -> Result<i128, String> {
    macro_rules! try_type {
        ($($t:ty),*) => {
            $(if let Some(p) = a.as_primitive_opt::<$t>() {
                return Ok(i128::from(p.value(row)));
            })*
        };
    }
    try_type!(
        Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type, UInt32Type, UInt64Type
    );
    Err(format!("a column holds {}, not integers", a.data_type()))
}

fn time_at(a: &dyn Array, row: usize) -> Result<i64, String> {
    use arrow_array::types::{
        Time32MillisecondType, Time32SecondType, Time64MicrosecondType, Time64NanosecondType,
    };
    if let Some(p) = a.as_primitive_opt::<Time32SecondType>() {
        return Ok(i64::from(p.value(row)));
    }
    if let Some(p) = a.as_primitive_opt::<Time32MillisecondType>() {
        return Ok(i64::from(p.value(row)));
    }
    if let Some(p) = a.as_primitive_opt::<Time64MicrosecondType>() {
        return Ok(p.value(row));
    }
    if let Some(p) = a.as_primitive_opt::<Time64NanosecondType>() {
        return Ok(p.value(row));
    }
    Err(format!("a column holds {}, not times", a.data_type()))
}

/// Writes a date, days after 1970-01-01, as PGN writes dates: `2025.05.01`.
fn write_date(buf: &mut Vec<u8>, days: i64) {
    let (y, m, d) = civil_from_days(days);
    let _ = write!(buf, "{y:04}.{m:02}.{d:02}");
}

/// The proleptic Gregorian date of a day count (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// The line breaks of a movetext, each as its bytes' range (`\r\n` is one break) and whether
/// the row's text keeps it: every one but those before a line whose first token is a `[`
/// (after spaces or blank lines). In PGN text such a line starts the next game's tags, and
/// ends a brace comment it falls in; a row is one game, whatever its movetext holds.
fn line_breaks(text: &[u8]) -> impl Iterator<Item = (usize, usize, bool)> + '_ {
    memchr::memchr2_iter(b'\n', b'\r', text).filter_map(move |i| {
        if text[i] == b'\r' && text.get(i + 1) == Some(&b'\n') {
            // Its `\n` is the break.
            return None;
        }
        let start = break_start(text, i);
        // A `\r` that ends the cell would make one break with the row's own `\n` after it.
        if i + 1 == text.len() && text[i] == b'\r' {
            return Some((start, i + 1, false));
        }
        let next = skip_spaces(text, i + 1);
        Some((start, i + 1, text.get(next) != Some(&b'[')))
    })
}

/// The line breaks the row's text keeps of a movetext ([`line_breaks`]); `None` for one of
/// more than [`MAX_MOVETEXT_BREAKS`], which is read on one line.
fn movetext_breaks(text: &str) -> Option<u32> {
    let kept = line_breaks(text.as_bytes()).filter(|b| b.2).count();
    u32::try_from(kept)
        .ok()
        .filter(|&n| n <= MAX_MOVETEXT_BREAKS)
}

/// Writes a movetext as it is, with the line breaks the row's text keeps (`breaks`, from
/// [`movetext_breaks`]): a `;` comment ends at its line's end, a `%` line is an escape, as in
/// a PGN file. The others are written as spaces: all of them when `breaks` is `None`.
fn push_movetext(buf: &mut Vec<u8>, text: &str, breaks: Option<u32>) {
    let start = buf.len();
    buf.extend_from_slice(text.as_bytes());
    for (from, to, kept) in line_breaks(text.as_bytes()) {
        if !kept || breaks.is_none() {
            buf[start + from..start + to].fill(b' ');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_as_pgn_writes_them() {
        let mut buf = Vec::new();
        write_date(&mut buf, 0);
        buf.push(b' ');
        // 2025-05-01 is day 20209.
        write_date(&mut buf, 20_209);
        buf.push(b' ');
        write_date(&mut buf, -1);
        buf.push(b' ');
        // 2000-02-29, a leap day of a century year.
        write_date(&mut buf, 11_016);
        assert_eq!(buf, b"1970.01.01 2025.05.01 1969.12.31 2000.02.29");
    }

    #[test]
    fn tag_names_and_tag_columns() {
        assert!(is_tag_name("WhiteElo"));
        assert!(is_tag_name("UTCDate"));
        assert!(!is_tag_name("movetext"));
        assert!(!is_tag_name("Elo-White"));
        assert!(!is_tag_name(""));
        assert_eq!(
            Columns::parse_tag_column("WhiteElo=white_rating"),
            Ok(("WhiteElo".into(), "white_rating".into()))
        );
        assert!(Columns::parse_tag_column("white=x").is_err());
        assert!(Columns::parse_tag_column("White=").is_err());
    }

    #[test]
    fn rows_are_located_across_row_groups() {
        let rows = Rows::default();
        rows.push_segment(Segment {
            first_line: 1,
            first_row: 0,
            row_lines: 3,
        });
        // Row group 1 (rows 2..) was unreadable; row group 2 starts at row 5.
        rows.push_segment(Segment {
            first_line: 7,
            first_row: 5,
            row_lines: 3,
        });
        // From row 7 on a batch of rows of five lines (a movetext of three).
        rows.push_segment(Segment {
            first_line: 13,
            first_row: 7,
            row_lines: 5,
        });
        assert_eq!(rows.locate(1), Some(RowPlace { row: 0, line: 1 }));
        assert_eq!(rows.locate(5), Some(RowPlace { row: 1, line: 2 }));
        assert_eq!(rows.locate(8), Some(RowPlace { row: 5, line: 2 }));
        assert_eq!(rows.locate(10), Some(RowPlace { row: 6, line: 1 }));
        assert_eq!(rows.locate(13), Some(RowPlace { row: 7, line: 1 }));
        assert_eq!(rows.locate(16), Some(RowPlace { row: 7, line: 4 }));
        assert_eq!(rows.locate(19), Some(RowPlace { row: 8, line: 2 }));
        assert_eq!(rows.locate(0), None);
    }
}
