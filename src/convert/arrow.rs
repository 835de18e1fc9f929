//! Converted games as Arrow record batches: the games table (one row a game: the common tags as
//! typed columns, the rest in a map) and the moves table (one row a main-line ply). The Parquet
//! writer ([`super::parquet`]) writes these batches, and the Python package hands them to
//! pyarrow as they are.
//!
//! The row path is lean on purpose: a move gets its SAN and UCI (and its FEN only when asked)
//! as the replay plays it ([`PlyColumns`]), into one text buffer a game, and rows go straight
//! into the column builders. The JSON records ([`super::records`]) write seven notations a move
//! in strings of their own; built from them, a table cost about forty times a replay.

use std::sync::Arc;

use arrow_array::builder::{
    ArrayBuilder, BooleanBuilder, Date32Builder, FixedSizeBinaryBuilder, Int32Builder, Int8Builder,
    ListBuilder, MapBuilder, PrimitiveBuilder, StringBuilder, UInt16Builder, UInt32Builder,
    UInt64Builder, UInt8Builder,
};
use arrow_array::types::{ArrowPrimitiveType, Float64Type, Int32Type};
use arrow_array::{
    Array, ArrayRef, BooleanArray, FixedSizeBinaryArray, PrimitiveArray, RecordBatch, StringArray,
    UInt32Array, UInt8Array,
};
use arrow_buffer::{BooleanBuffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Move, Position};

use super::columns::{GameColumns, MoveColumn, MoveColumns};
use super::numbers::{self, MoveNumbers, PositionColumns, PositionNumbers};
use super::record::{GameRecord, PlyNote};
use super::records::Eval;
use crate::notation::fen;
use crate::notation::write::{self, Notation};
use crate::notation::CheckClaim;
use crate::rules::outcome::GameResult;
use crate::rules::visit::WrittenSan;

/// Bytes of a board: a piece code a square.
const BOARD_BYTES: i32 = 64;

/// Tags with a column of their own, as text, in this order.
pub const TEXT_TAGS: [&str; 15] = [
    "Event",
    "Site",
    "Round",
    "White",
    "Black",
    "Result",
    "WhiteTitle",
    "BlackTitle",
    "UTCTime",
    "ECO",
    "Opening",
    "TimeControl",
    "Variant",
    "FEN",
    "Termination",
];
/// Tags with an integer column (`+5` reads as 5).
pub const INT_TAGS: [&str; 4] = ["WhiteElo", "BlackElo", "WhiteRatingDiff", "BlackRatingDiff"];
/// Tags with a date column (`YYYY.MM.DD`, complete).
pub const DATE_TAGS: [&str; 2] = ["Date", "UTCDate"];

/// The column of a tag that has one of its own: an index into [`TEXT_TAGS`], [`INT_TAGS`] or
/// [`DATE_TAGS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TagColumn {
    Text(usize),
    Int(usize),
    Date(usize),
}

fn tag_column(name: &str) -> Option<TagColumn> {
    // A match on the name, not a search of the three lists: a game's tags go through it.
    Some(match name {
        "Event" => TagColumn::Text(0),
        "Site" => TagColumn::Text(1),
        "Round" => TagColumn::Text(2),
        "White" => TagColumn::Text(3),
        "Black" => TagColumn::Text(4),
        "Result" => TagColumn::Text(5),
        "WhiteTitle" => TagColumn::Text(6),
        "BlackTitle" => TagColumn::Text(7),
        "UTCTime" => TagColumn::Text(8),
        "ECO" => TagColumn::Text(9),
        "Opening" => TagColumn::Text(10),
        "TimeControl" => TagColumn::Text(11),
        "Variant" => TagColumn::Text(12),
        "FEN" => TagColumn::Text(13),
        "Termination" => TagColumn::Text(14),
        "WhiteElo" => TagColumn::Int(0),
        "BlackElo" => TagColumn::Int(1),
        "WhiteRatingDiff" => TagColumn::Int(2),
        "BlackRatingDiff" => TagColumn::Int(3),
        "Date" => TagColumn::Date(0),
        "UTCDate" => TagColumn::Date(1),
        _ => return None,
    })
}

/// The schema of the games table.
pub fn games_schema() -> SchemaRef {
    games_schema_with(GameColumns::default())
}

/// The schema of the games table with the optional columns `extra`.
pub fn games_schema_with(extra: GameColumns) -> SchemaRef {
    let mut fields = vec![
        Field::new("file", DataType::Utf8, false),
        Field::new("game", DataType::UInt64, false),
    ];
    fields.extend(
        TEXT_TAGS
            .iter()
            .map(|t| Field::new(*t, DataType::Utf8, true)),
    );
    fields.extend(
        INT_TAGS
            .iter()
            .map(|t| Field::new(*t, DataType::Int32, true)),
    );
    fields.extend(
        DATE_TAGS
            .iter()
            .map(|t| Field::new(*t, DataType::Date32, true)),
    );
    fields.extend([
        Field::new("tags", map_type(), false),
        Field::new("plies", DataType::UInt32, false),
        Field::new("result_by_rule", DataType::Utf8, true),
        // Not `termination`: a column name that differs from the `Termination` tag's only in
        // case is one name to DuckDB and pandas, which would give one for the other.
        Field::new("termination_by_rule", DataType::Utf8, false),
        Field::new("final_fen", DataType::Utf8, true),
        Field::new("errors", DataType::UInt32, false),
        Field::new("warnings", DataType::UInt32, false),
    ]);
    if extra.movetext {
        fields.push(Field::new("movetext", DataType::Utf8, false));
    }
    if extra.numbers {
        fields.extend([
            Field::new("outcome", DataType::Int8, true),
            Field::new("termination_code", DataType::UInt8, false),
            Field::new("is_checkmate", DataType::Boolean, true),
            Field::new("is_stalemate", DataType::Boolean, true),
            Field::new("is_insufficient_material", DataType::Boolean, true),
        ]);
    }
    if extra.boards {
        fields.extend([
            Field::new("start_board", DataType::FixedSizeBinary(64), true),
            Field::new("start_turn", DataType::Boolean, true),
            Field::new("start_castling", DataType::UInt8, true),
            Field::new("start_ep_square", DataType::UInt8, true),
            Field::new("start_halfmove_clock", DataType::UInt32, true),
        ]);
    }
    Arc::new(Schema::new(fields))
}

/// The schema of the moves table with its default columns; `fen` only when asked for.
pub fn moves_schema(fen: bool) -> SchemaRef {
    moves_schema_of(moves_columns(fen))
}

/// The schema of the moves table with the optional columns `columns`.
pub fn moves_schema_of(columns: MoveColumns) -> SchemaRef {
    let mut fields = vec![
        Field::new("file", DataType::Utf8, false),
        Field::new("game", DataType::UInt64, false),
        Field::new("ply", DataType::UInt32, false),
    ];
    fields.extend(columns.iter().map(move_field));
    Arc::new(Schema::new(fields))
}

/// An optional column of the moves table: its name, type and whether it may be null.
fn move_field(column: MoveColumn) -> Field {
    use MoveColumn as C;
    let (kind, nullable) = match column {
        C::San | C::Uci | C::Fen => (DataType::Utf8, false),
        // Null for a null move (no squares, no piece), or none captured or promoted to.
        C::FromSquare | C::ToSquare | C::Piece | C::Captured | C::Promotion | C::EpSquare => {
            (DataType::UInt8, true)
        }
        C::IsCheck | C::IsCapture | C::IsCastling | C::IsEnPassant | C::Turn => {
            (DataType::Boolean, false)
        }
        C::Board => (DataType::FixedSizeBinary(64), false),
        C::Castling => (DataType::UInt8, false),
        C::HalfmoveClock => (DataType::UInt32, false),
        C::Clock | C::Eval => (DataType::Float64, true),
        C::EvalMate => (DataType::Int32, true),
        C::Comment => (DataType::Utf8, true),
        C::Nags => (list_type(), false),
    };
    Field::new(column.name(), kind, nullable)
}

/// The type a [`MapBuilder`] of strings makes (so the schema and the arrays agree).
fn map_type() -> DataType {
    MapBuilder::new(None, StringBuilder::new(), StringBuilder::new())
        .finish()
        .data_type()
        .clone()
}

fn list_type() -> DataType {
    ListBuilder::new(UInt16Builder::new())
        .finish()
        .data_type()
        .clone()
}

/// Days since 1970-01-01 of a complete `YYYY.MM.DD` date that exists; `None` otherwise.
pub fn date32(text: &str) -> Option<i32> {
    use crate::pgn::date::GameDate;
    GameDate::parse_complete(text).and_then(GameDate::days_since_1970)
}

/// An integer tag's value (`1500`, `+5`, `-12`); `None` for anything else (`?`, ``).
pub fn int_tag(text: &str) -> Option<i32> {
    let t = text.trim();
    if t.is_empty() || t.len() > 10 {
        return None;
    }
    t.parse().ok()
}

/// Whether `text` is `n` as a Parquet reader writes the tag back (`input::parquet`): a rating
/// difference (`signed`) with its sign, `+0` too, any other number plainly.
fn int_written_as(n: i32, text: &str, signed: bool) -> bool {
    use std::io::Write as _;
    let mut buf = [0u8; 12];
    let mut out = &mut buf[..];
    let written = if signed && n >= 0 {
        write!(out, "+{n}")
    } else {
        write!(out, "{n}")
    };
    let len = 12 - out.len();
    written.is_ok() && &buf[..len] == text.as_bytes()
}

/// What the moves table keeps of each main-line ply, as the replay plays it: SAN, UCI and
/// (when asked) FEN each in a text buffer a game, so a ply costs no allocation and a table
/// takes a game's text of a column at once; the move and the position after it as numbers
/// ([`MoveNumbers`], [`PositionNumbers`]) when asked. What is not asked for is not made.
#[derive(Debug, Default)]
pub struct PlyColumns {
    /// Keep the position after each ply.
    pub fen: bool,
    /// Keep each ply's SAN, UCI and notes: false when only the games table is built, which
    /// shows the count of plies and nothing of each.
    moves: bool,
    /// Keep each ply's SAN and UCI.
    text: bool,
    /// Keep each ply's clock, evaluation, comment and NAGs.
    notes: bool,
    /// Keep each ply's comment text (a column of the notes).
    comments: bool,
    /// Keep each move as numbers, in `numbers`.
    with_numbers: bool,
    /// Keep the position after each ply as numbers, in `positions`.
    with_positions: bool,
    /// Keep the start position as numbers, in `start`.
    with_start: bool,
    /// Plies counted (the length of `ends` when `moves` and texts are kept).
    count: usize,
    /// The plies' SAN, UCI and FEN, one after the other in a buffer of each ([`SAN`], [`UCI`],
    /// [`FEN`]).
    texts: [String; 3],
    /// Where each ply's SAN, UCI and FEN end in `texts` (when any is kept).
    ends: Vec<[u32; 3]>,
    numbers: Vec<MoveNumbers>,
    positions: Vec<PositionNumbers>,
    /// The position the game starts from, as numbers (the games table's `start_*`).
    pub start: Option<PositionNumbers>,
    /// White made the first ply (the sides alternate, null moves too).
    first_white: bool,
    /// The last ply's FEN is written (from the position after it, which the replay tells)
    /// but not yet counted in `ends`: it is with the next ply, or once the game is settled
    /// ([`PlyColumns::settle`]). No position is kept for it.
    unsettled: bool,
}

impl PlyColumns {
    /// The table's default columns, with `fen` when asked.
    pub fn new(fen: bool) -> PlyColumns {
        PlyColumns::with_columns(moves_columns(fen), GameColumns::default())
    }

    /// What the moves table's `columns` and the games table's `games` columns need.
    pub fn with_columns(columns: MoveColumns, games: GameColumns) -> PlyColumns {
        PlyColumns {
            fen: columns.has(MoveColumn::Fen),
            moves: true,
            text: columns.any_of(MoveColumns::TEXT),
            notes: columns.any_of(MoveColumns::NOTES),
            comments: columns.has(MoveColumn::Comment),
            with_numbers: columns.any_of(MoveColumns::NUMBERS),
            with_positions: columns.any_of(MoveColumns::POSITION),
            with_start: games.boards,
            count: 0,
            texts: Default::default(),
            ends: Vec::new(),
            numbers: Vec::new(),
            positions: Vec::new(),
            start: None,
            first_white: true,
            unsettled: false,
        }
    }

    /// Plies counted only, for a games table alone: no text a ply, and the row gets no
    /// clocks, evaluations or comments of its plies ([`PlyColumns::has_moves`] is false);
    /// the start position as numbers when `games` asks for it.
    pub fn count_only(games: GameColumns) -> PlyColumns {
        PlyColumns {
            moves: false,
            ..PlyColumns::with_columns(MoveColumns::NONE, games)
        }
    }

    /// Makes room for a game of `plies` moves: a ply's SAN and UCI are about ten bytes, a
    /// position's FEN about sixty. Growing a ply at a time, from nothing for each game, cost
    /// more in copies than writing them.
    pub fn reserve(&mut self, plies: usize) {
        if self.moves {
            if self.keeps_ends() {
                self.ends.reserve(plies);
            }
            if self.text {
                self.texts[SAN].reserve(plies * 6);
                self.texts[UCI].reserve(plies * 5);
            }
            if self.fen {
                self.texts[FEN].reserve(plies * 60);
            }
            if self.with_numbers {
                self.numbers.reserve(plies);
            }
            if self.with_positions {
                self.positions.reserve(plies);
            }
        }
    }

    /// Whether each ply's SAN, UCI and notes are kept (for the moves table).
    pub fn has_moves(&self) -> bool {
        self.moves
    }

    /// Whether each ply's comment text is kept.
    pub fn keeps_comments(&self) -> bool {
        self.comments
    }

    /// Whether each ply's clock, evaluation, comment and NAGs are kept.
    pub fn has_notes(&self) -> bool {
        self.moves && self.notes
    }

    pub fn clear(&mut self) {
        self.unsettled = false;
        self.count = 0;
        self.texts.iter_mut().for_each(String::clear);
        self.ends.clear();
        self.numbers.clear();
        self.positions.clear();
        self.start = None;
        self.first_white = true;
    }

    pub fn len(&self) -> usize {
        self.count
    }

    /// The plies there is room for without growing.
    pub fn capacity(&self) -> usize {
        let vectors = [
            self.ends.capacity(),
            self.numbers.capacity(),
            self.positions.capacity(),
            self.texts[UCI].capacity() / 5,
        ];
        vectors.into_iter().fold(0, usize::max)
    }

    /// The count of plies, from the replay's report, when it told not all of them (see
    /// [`super::Collector::needs_nothing`]); only for a games table alone.
    pub fn set_count(&mut self, plies: usize) {
        debug_assert!(!self.moves);
        self.count = plies;
    }

    /// Whether White made the first ply (the sides alternate, null moves too).
    pub fn first_white(&self) -> bool {
        self.first_white
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The position the game starts from (the replay tells it once, before the moves).
    pub fn set_start(&mut self, start: &Chess) {
        if self.with_start {
            self.start = Some(PositionNumbers::of(start));
        }
    }

    /// A main-line move from `before` to `after`, with its SAN when the token was written so.
    pub fn push_move(
        &mut self,
        before: &Chess,
        after: &Chess,
        mv: Move,
        check: CheckClaim,
        san: Option<WrittenSan<'_>>,
    ) {
        if !self.count_ply(before.turn().is_white()) {
            return;
        }
        if self.fen {
            self.settle();
        }
        let san = san.map_or(MainSan::Before(before), MainSan::Written);
        self.push_text_and_numbers(mv, before.castles().mode(), check, Some(san));
        if self.with_positions {
            // From the last ply's board: the main line's plies follow one another.
            let numbers = match self.positions.last() {
                Some(last) => PositionNumbers::after_move(&last.board, mv, after),
                None => PositionNumbers::after_move(&numbers::board_codes(before), mv, after),
            };
            self.positions.push(numbers);
        }
        if self.fen {
            self.push_fen(after);
            self.unsettled = true;
        }
    }

    /// A main-line move by White (`white`) or Black of a game that starts at `start`, told
    /// with the main line at once ([`super::Collector::main_line_only`]): the position after
    /// it as the numbers kept from the moves, `after` (when [`Self::keeps_positions`]), the
    /// start read only for its castling mode, and its SAN when the text is kept (as written,
    /// or made from the position before it: `check` is then the move's whole claim, mate
    /// told apart).
    pub fn push_played(
        &mut self,
        start: &Chess,
        mv: Move,
        check: CheckClaim,
        white: bool,
        after: Option<&PositionNumbers>,
        san: Option<MainSan<'_>>,
    ) {
        debug_assert!(!self.fen, "a move's FEN needs its position");
        if !self.count_ply(white) {
            return;
        }
        self.push_text_and_numbers(mv, start.castles().mode(), check, san);
        if self.with_positions {
            debug_assert!(after.is_some(), "positions kept, none given");
            if let Some(after) = after {
                self.positions.push(after.clone());
            }
        }
    }

    /// Whether the position after each ply is kept as numbers.
    pub fn keeps_positions(&self) -> bool {
        self.moves && self.with_positions
    }

    /// A move's SAN (when the text is kept) and UCI, and its numbers: the columns every ply
    /// has, whatever its positions came from. A ply's cost counts: UCI is written from the
    /// numbers' squares, without formatting machinery.
    fn push_text_and_numbers(
        &mut self,
        mv: Move,
        mode: CastlingMode,
        check: CheckClaim,
        san: Option<MainSan<'_>>,
    ) {
        if self.text {
            let san_text = &mut self.texts[SAN];
            match san {
                Some(MainSan::Written(san)) => san.push_to(san_text),
                Some(MainSan::Before(before)) => {
                    write::write(before, mv, check, Notation::San, san_text);
                }
                None => debug_assert!(false, "SAN kept, none given"),
            }
        }
        let numbers = MoveNumbers::of(mv, mode, check);
        if self.text {
            numbers.push_uci(&mut self.texts[UCI]);
        }
        // A FEN is counted in with the next ply, or with `settle`.
        self.push_ends();
        if self.with_numbers {
            self.numbers.push(numbers);
        }
    }

    /// Whether each ply's SAN and UCI are kept.
    pub fn keeps_text(&self) -> bool {
        self.moves && self.text
    }

    /// Counts a ply made by White (`white`) or Black; whether its columns are kept.
    fn count_ply(&mut self, white: bool) -> bool {
        if self.count == 0 {
            self.first_white = white;
        }
        self.count += 1;
        self.moves
    }

    /// A main-line null move: `--` in SAN, `0000` in UCI, so that the moves still replay.
    pub fn push_null(&mut self, after: &Chess) {
        if !self.count_ply(after.turn().is_black()) {
            return;
        }
        if self.fen {
            self.settle();
        }
        if self.text {
            self.texts[SAN].push_str("--");
            self.texts[UCI].push_str("0000");
        }
        if self.fen {
            self.push_fen(after);
        }
        if self.with_numbers {
            self.numbers.push(MoveNumbers::null(after.is_check()));
        }
        if self.with_positions {
            self.positions.push(PositionNumbers::of(after));
        }
        self.push_ends();
    }

    /// Where the last ply's texts end, when there are texts.
    fn push_ends(&mut self) {
        if self.keeps_ends() {
            self.ends
                .push([self.end(SAN), self.end(UCI), self.end(FEN)]);
        }
    }

    /// Whether `ends` is kept: a table of numbers alone does without.
    fn keeps_ends(&self) -> bool {
        self.text || self.fen
    }

    /// Counts in the FEN of the last ply if it is not yet. Called before a game's plies are
    /// read ([`GameRecord::set_plies`] does).
    pub fn settle(&mut self) {
        if !std::mem::take(&mut self.unsettled) {
            return;
        }
        let end = self.end(FEN);
        if let Some(last) = self.ends.last_mut() {
            last[FEN] = end;
        }
    }

    fn push_fen(&mut self, after: &Chess) {
        let text = &mut self.texts[FEN];
        let start = text.len();
        fen::push_fen(after, text);
        debug_assert_eq!(
            text[start..],
            Fen::from_position(after, EnPassantMode::Legal).to_string(),
        );
    }

    /// The end of what is written of `column` ([`SAN`], [`UCI`] or [`FEN`]).
    fn end(&self, column: usize) -> u32 {
        u32::try_from(self.texts[column].len()).unwrap_or(u32::MAX)
    }

    /// The text of `column` ([`SAN`], [`UCI`] or [`FEN`]; empty when not kept) of the plies
    /// counted in, and where each ply's ends in it.
    fn column_text(&self, column: usize) -> (&str, impl ExactSizeIterator<Item = u32> + '_) {
        let counted = self.ends.last().map_or(0, |e| e[column]) as usize;
        let ends = self.ends.iter().map(move |e| e[column]);
        (&self.texts[column][..counted], ends)
    }

    /// SAN, UCI and FEN (empty when not kept) of ply `i`.
    #[cfg(test)]
    fn ply(&self, i: usize) -> [&str; 3] {
        [SAN, UCI, FEN].map(|k| {
            let start = if i == 0 { 0 } else { self.ends[i - 1][k] };
            &self.texts[k][start as usize..self.ends[i][k] as usize]
        })
    }
}

/// The text columns of [`PlyColumns`] and [`MovesBuilder`], by index.
const SAN: usize = 0;
const UCI: usize = 1;
const FEN: usize = 2;

/// A column of text made whole: its values one after the other and where each ends, taken
/// a game's at once ([`PlyColumns::column_text`]); a builder's call a value cost more than
/// the copy.
#[derive(Debug)]
struct TextColumn {
    values: Vec<u8>,
    /// Where each value ends, after the 0 the first starts at.
    offsets: Vec<i32>,
}

impl Default for TextColumn {
    fn default() -> TextColumn {
        TextColumn {
            values: Vec::new(),
            offsets: vec![0],
        }
    }
}

impl TextColumn {
    /// Appends the values of `text` that end at `ends`.
    fn extend(&mut self, text: &str, ends: impl Iterator<Item = u32>) {
        let base = self.values.len();
        self.values.extend_from_slice(text.as_bytes());
        // Arrow's own builder fails the same way past 2 GiB of text in one batch.
        let offset = |end: u32| i32::try_from(base + end as usize).expect("text offset overflow");
        self.offsets.extend(ends.map(offset));
    }

    /// The column of the values appended; it starts again empty, with as much room.
    fn refill(&mut self) -> ArrayRef {
        let values = taken(&mut self.values);
        let offsets = taken(&mut self.offsets);
        self.offsets.push(0);
        let offsets = OffsetBuffer::new(ScalarBuffer::from(offsets));
        Arc::new(StringArray::new(offsets, values.into(), None))
    }
}

/// The values of `v`, which is left empty with as much room as they took: the next batch
/// is about as large.
fn taken<T>(v: &mut Vec<T>) -> Vec<T> {
    let room = v.len();
    std::mem::replace(v, Vec::with_capacity(room))
}

/// The SAN of a move told with the main line at once ([`PlyColumns::push_played`]).
#[derive(Clone, Copy, Debug)]
pub enum MainSan<'a> {
    /// Its token, which is its canonical SAN.
    Written(WrittenSan<'a>),
    /// Made from the position before it.
    Before(&'a Chess),
}

/// What the two table builders share: the schema, the count of rows since the last batch, and
/// the batch made of their columns (which starts the count again).
macro_rules! table_rows {
    () => {
        pub fn schema(&self) -> SchemaRef {
            self.schema.clone()
        }

        /// Rows appended since the last `finish`.
        pub fn len(&self) -> usize {
            self.rows
        }

        pub fn is_empty(&self) -> bool {
            self.rows == 0
        }

        fn batch(&mut self, columns: Vec<ArrayRef>) -> Result<RecordBatch, ArrowError> {
            self.rows = 0;
            RecordBatch::try_new(self.schema.clone(), columns)
        }
    };
}

/// A column builder finished into its array, leaving in its place a builder with room for as
/// much. The batches of a run are about the same size, and a builder grown again from nothing
/// copied its bytes over at each doubling and touched fresh memory each time (the kernel's
/// page faults and the copies showed in profiles of Parquet output). The cost is memory: the
/// next batch's room is held while the last one is written.
trait Refill {
    fn refill(&mut self) -> ArrayRef;
}

impl Refill for StringBuilder {
    fn refill(&mut self) -> ArrayRef {
        let next = StringBuilder::with_capacity(self.len(), self.values_slice().len());
        Arc::new(std::mem::replace(self, next).finish())
    }
}

impl<T: ArrowPrimitiveType> Refill for PrimitiveBuilder<T> {
    fn refill(&mut self) -> ArrayRef {
        let next = PrimitiveBuilder::with_capacity(self.len());
        Arc::new(std::mem::replace(self, next).finish())
    }
}

impl Refill for BooleanBuilder {
    fn refill(&mut self) -> ArrayRef {
        let next = BooleanBuilder::with_capacity(self.len());
        Arc::new(std::mem::replace(self, next).finish())
    }
}

impl Refill for FixedSizeBinaryBuilder {
    fn refill(&mut self) -> ArrayRef {
        let next = FixedSizeBinaryBuilder::with_capacity(self.len(), BOARD_BYTES);
        Arc::new(std::mem::replace(self, next).finish())
    }
}

impl Refill for ListBuilder<UInt16Builder> {
    fn refill(&mut self) -> ArrayRef {
        let values = UInt16Builder::with_capacity(self.values_ref().len());
        let next = ListBuilder::with_capacity(values, self.len());
        Arc::new(std::mem::replace(self, next).finish())
    }
}

impl Refill for MapBuilder<StringBuilder, StringBuilder> {
    fn refill(&mut self) -> ArrayRef {
        let rows = self.len();
        let keys = self.keys();
        let keys = StringBuilder::with_capacity(keys.len(), keys.values_slice().len());
        let values = self.values();
        let values = StringBuilder::with_capacity(values.len(), values.values_slice().len());
        let next = MapBuilder::with_capacity(None, keys, values, rows);
        Arc::new(std::mem::replace(self, next).finish())
    }
}

/// The games table being built, a row at a time.
pub struct GamesBuilder {
    schema: SchemaRef,
    file: StringBuilder,
    game: UInt64Builder,
    text: Vec<StringBuilder>,
    ints: Vec<Int32Builder>,
    dates: Vec<Date32Builder>,
    tags: MapBuilder<StringBuilder, StringBuilder>,
    plies: UInt32Builder,
    by_rule: StringBuilder,
    termination: StringBuilder,
    final_fen: StringBuilder,
    errors: UInt32Builder,
    warnings: UInt32Builder,
    /// `None` without the movetext column.
    movetext: Option<StringBuilder>,
    /// The optional columns' builders, when asked for.
    numbers: Option<Box<OutcomeBuilders>>,
    start: Option<Box<PositionBuilders>>,
    rows: usize,
}

/// The games table's outcome as numbers.
#[derive(Default)]
struct OutcomeBuilders {
    outcome: Int8Builder,
    termination: UInt8Builder,
    checkmate: BooleanBuilder,
    stalemate: BooleanBuilder,
    insufficient: BooleanBuilder,
}

/// A position a row as numbers: the moves table's position after each ply, the games
/// table's start position.
struct PositionBuilders {
    board: FixedSizeBinaryBuilder,
    turn: BooleanBuilder,
    castling: UInt8Builder,
    ep_square: UInt8Builder,
    halfmove_clock: UInt32Builder,
}

impl Default for PositionBuilders {
    fn default() -> Self {
        PositionBuilders {
            board: FixedSizeBinaryBuilder::new(BOARD_BYTES),
            turn: BooleanBuilder::new(),
            castling: UInt8Builder::new(),
            ep_square: UInt8Builder::new(),
            halfmove_clock: UInt32Builder::new(),
        }
    }
}

impl PositionBuilders {
    fn append(&mut self, pos: Option<&PositionNumbers>) {
        match pos {
            Some(p) => {
                // A slice of 64 bytes into a builder of 64-byte values: never an error.
                let _ = self.board.append_value(p.board);
                self.turn.append_value(p.white_to_move);
                self.castling.append_value(p.castling);
                self.ep_square.append_option(p.ep_square);
                self.halfmove_clock.append_value(p.halfmove_clock);
            }
            None => {
                self.board.append_null();
                self.turn.append_null();
                self.castling.append_null();
                self.ep_square.append_null();
                self.halfmove_clock.append_null();
            }
        }
    }

    fn refill(&mut self) -> [ArrayRef; 5] {
        [
            self.board.refill(),
            self.turn.refill(),
            self.castling.refill(),
            self.ep_square.refill(),
            self.halfmove_clock.refill(),
        ]
    }
}

impl Default for GamesBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl GamesBuilder {
    /// The games table's default columns.
    pub fn new() -> GamesBuilder {
        GamesBuilder::with_columns(GameColumns::default())
    }

    /// The games table with the optional columns `extra`.
    pub fn with_columns(extra: GameColumns) -> GamesBuilder {
        GamesBuilder {
            schema: games_schema_with(extra),
            file: StringBuilder::new(),
            game: UInt64Builder::new(),
            text: TEXT_TAGS.iter().map(|_| StringBuilder::new()).collect(),
            ints: INT_TAGS.iter().map(|_| Int32Builder::new()).collect(),
            dates: DATE_TAGS.iter().map(|_| Date32Builder::new()).collect(),
            tags: MapBuilder::new(None, StringBuilder::new(), StringBuilder::new()),
            plies: UInt32Builder::new(),
            by_rule: StringBuilder::new(),
            termination: StringBuilder::new(),
            final_fen: StringBuilder::new(),
            errors: UInt32Builder::new(),
            warnings: UInt32Builder::new(),
            movetext: extra.movetext.then(StringBuilder::new),
            numbers: extra.numbers.then(Box::default),
            start: extra.boards.then(Box::default),
            rows: 0,
        }
    }

    table_rows!();

    /// Bytes of movetext appended since the last `finish` (most of a batch's size).
    pub fn movetext_bytes(&self) -> usize {
        self.movetext.as_ref().map_or(0, |m| m.values_slice().len())
    }

    /// Appends a game.
    ///
    /// # Errors
    ///
    /// Errors of Arrow's map builder (none for these types).
    pub fn append(&mut self, row: &GameRecord) -> Result<(), ArrowError> {
        self.file.append_value(&row.file);
        self.game.append_value(row.game);
        // One pass over the tags (a name is there once), each to its column or the map:
        // looking each column's tag up among them cost a tenth of a game's row.
        let mut text: [Option<&str>; TEXT_TAGS.len()] = [None; TEXT_TAGS.len()];
        let mut ints: [Option<i32>; INT_TAGS.len()] = [None; INT_TAGS.len()];
        let mut dates: [Option<i32>; DATE_TAGS.len()] = [None; DATE_TAGS.len()];
        for (name, value) in row.tags() {
            // Every other tag, and a typed tag whose text did not fit its type: nothing is
            // lost.
            let own = match tag_column(name) {
                Some(TagColumn::Text(i)) => {
                    text[i] = Some(value);
                    true
                }
                // Only a text the column gives back as it is: `+2105` or ` 2105` as an Elo,
                // read back, would be `2105`.
                Some(TagColumn::Int(i)) => {
                    ints[i] = int_tag(value)
                        .filter(|&n| int_written_as(n, value, INT_TAGS[i].ends_with("RatingDiff")));
                    ints[i].is_some()
                }
                Some(TagColumn::Date(i)) => {
                    dates[i] = date32(value).filter(|_| value.trim().len() == value.len());
                    dates[i].is_some()
                }
                None => false,
            };
            if !own {
                self.tags.keys().append_value(name);
                self.tags.values().append_value(value);
            }
        }
        for (b, v) in self.text.iter_mut().zip(text) {
            b.append_option(v);
        }
        for (b, v) in self.ints.iter_mut().zip(ints) {
            b.append_option(v);
        }
        for (b, v) in self.dates.iter_mut().zip(dates) {
            b.append_option(v);
        }
        self.tags.append(true)?;
        self.plies
            .append_value(u32::try_from(row.plies.len()).unwrap_or(u32::MAX));
        self.by_rule.append_option(row.result_by_rule);
        self.termination.append_value(row.termination.as_str());
        self.final_fen.append_option(row.final_fen.as_deref());
        self.errors.append_value(row.errors);
        self.warnings.append_value(row.warnings);
        if let Some(m) = &mut self.movetext {
            m.append_value(&row.movetext);
        }
        if let Some(n) = &mut self.numbers {
            n.outcome
                .append_option(GameResult::of_tag(row.result).and_then(GameResult::code));
            n.termination.append_value(row.termination.code());
            n.checkmate
                .append_option(row.final_flags.map(|f| f.checkmate));
            n.stalemate
                .append_option(row.final_flags.map(|f| f.stalemate));
            n.insufficient
                .append_option(row.final_flags.map(|f| f.insufficient_material));
        }
        if let Some(b) = &mut self.start {
            b.append(row.plies.start.as_ref());
        }
        self.rows += 1;
        Ok(())
    }

    /// The rows appended so far as a batch; the builder starts again empty.
    ///
    /// # Errors
    ///
    /// When the columns disagree with the schema (a bug).
    pub fn finish(&mut self) -> Result<RecordBatch, ArrowError> {
        let mut columns: Vec<ArrayRef> = vec![self.file.refill(), self.game.refill()];
        columns.extend(self.text.iter_mut().map(Refill::refill));
        columns.extend(self.ints.iter_mut().map(Refill::refill));
        columns.extend(self.dates.iter_mut().map(Refill::refill));
        columns.extend([
            self.tags.refill(),
            self.plies.refill(),
            self.by_rule.refill(),
            self.termination.refill(),
            self.final_fen.refill(),
            self.errors.refill(),
            self.warnings.refill(),
        ]);
        columns.extend(self.movetext.as_mut().map(Refill::refill));
        if let Some(n) = &mut self.numbers {
            columns.extend([
                n.outcome.refill(),
                n.termination.refill(),
                n.checkmate.refill(),
                n.stalemate.refill(),
                n.insufficient.refill(),
            ]);
        }
        if let Some(b) = &mut self.start {
            columns.extend(b.refill());
        }
        self.batch(columns)
    }
}

/// The moves table being built, a game's plies at a time.
pub struct MovesBuilder {
    schema: SchemaRef,
    columns: MoveColumns,
    file: StringBuilder,
    game: UInt64Builder,
    ply: UInt32Builder,
    /// SAN, UCI and FEN ([`SAN`], [`UCI`], [`FEN`]).
    texts: [TextColumn; 3],
    /// The plies as numbers, and the positions after them, as the games give them: a game's
    /// are copied at once, and the columns made of them at the batch's end (a builder's call
    /// for each value of nine columns cost more than the rest of a ply's row).
    numbers: Vec<MoveNumbers>,
    positions: PositionColumns,
    /// Each ply's clock and evaluation, for their three columns (made at the batch's end, as
    /// the numbers are).
    clocks_evals: Vec<(Option<f64>, Option<Eval>)>,
    comment: StringBuilder,
    nags: ListBuilder<UInt16Builder>,
    /// 1, 2, 3…: the `ply` column of a game, copied at once.
    ply_numbers: Vec<u32>,
    rows: usize,
}

impl MovesBuilder {
    /// The default columns; `fen`: the table has the position after each ply.
    pub fn new(fen: bool) -> MovesBuilder {
        MovesBuilder::with_columns(moves_columns(fen))
    }

    /// The table with the optional columns `columns`.
    pub fn with_columns(columns: MoveColumns) -> MovesBuilder {
        MovesBuilder {
            schema: moves_schema_of(columns),
            columns,
            file: StringBuilder::new(),
            game: UInt64Builder::new(),
            ply: UInt32Builder::new(),
            texts: Default::default(),
            numbers: Vec::new(),
            positions: PositionColumns::default(),
            clocks_evals: Vec::new(),
            comment: StringBuilder::new(),
            nags: ListBuilder::new(UInt16Builder::new()),
            ply_numbers: Vec::new(),
            rows: 0,
        }
    }

    table_rows!();

    /// Appends the main-line plies of a game.
    pub fn append(&mut self, row: &GameRecord) {
        use MoveColumn as C;
        let none = PlyNote::default();
        // A row made for the games table alone has no plies to give (a bug to append it).
        debug_assert!(row.plies.has_moves(), "a games-only row in the moves table");
        let cols = self.columns;
        let text = cols.any_of(MoveColumns::TEXT) || cols.has(C::Fen);
        let numbers = cols.any_of(MoveColumns::NUMBERS);
        let position = cols.any_of(MoveColumns::POSITION);
        let notes = cols.any_of(MoveColumns::NOTES);
        let plies = row.plies.len();
        // A game's plies share its file and number and count from 1, and a game without
        // notes has none a ply: whole runs, not a builder's call a value (which cost more
        // than the rest of a ply's row).
        self.file.append_value_n(&*row.file, plies);
        self.game.append_value_n(row.game, plies);
        if self.ply_numbers.len() < plies {
            let next = u32::try_from(self.ply_numbers.len() + 1).unwrap_or(u32::MAX);
            let last = u32::try_from(plies).unwrap_or(u32::MAX);
            self.ply_numbers.extend(next..=last);
        }
        self.ply.append_slice(&self.ply_numbers[..plies]);
        if text {
            for (k, column) in [(SAN, C::San), (UCI, C::Uci), (FEN, C::Fen)] {
                if cols.has(column) {
                    let (text, ends) = row.plies.column_text(k);
                    debug_assert_eq!(ends.len(), plies);
                    self.texts[k].extend(text, ends);
                }
            }
        }
        if notes && row.ply_notes.is_empty() {
            self.append_no_notes(plies);
        } else if notes {
            for i in 0..plies {
                let note = row.ply_notes.get(i).unwrap_or(&none);
                self.append_note(row, note);
            }
        }
        if numbers {
            debug_assert_eq!(row.plies.numbers.len(), plies);
            self.numbers.extend_from_slice(&row.plies.numbers);
        }
        if position {
            debug_assert_eq!(row.plies.positions.len(), plies);
            self.positions.extend(&row.plies.positions);
        }
        self.rows += plies;
    }

    /// `plies` plies without a clock, an evaluation, a comment or a NAG.
    fn append_no_notes(&mut self, plies: usize) {
        use MoveColumn as C;
        let cols = self.columns;
        if cols.any_of(MoveColumns::CLOCK_EVAL) {
            let none = (None, None);
            self.clocks_evals
                .resize(self.clocks_evals.len() + plies, none);
        }
        if cols.has(C::Comment) {
            self.comment.append_nulls(plies);
        }
        if cols.has(C::Nags) {
            for _ in 0..plies {
                self.nags.append(true);
            }
        }
    }

    fn append_note(&mut self, row: &GameRecord, note: &PlyNote) {
        use MoveColumn as C;
        let cols = self.columns;
        if cols.any_of(MoveColumns::CLOCK_EVAL) {
            self.clocks_evals.push((note.clock, note.eval));
        }
        if cols.has(C::Comment) {
            self.comment.append_option(
                note.comment
                    .as_ref()
                    .map(|r| &row.notes_text[r.start as usize..r.end as usize]),
            );
        }
        if cols.has(C::Nags) {
            self.nags
                .values()
                .append_slice(&row.nags[note.nags.start as usize..note.nags.end as usize]);
            self.nags.append(true);
        }
    }

    /// The rows appended so far as a batch; the builder starts again empty.
    ///
    /// # Errors
    ///
    /// When the columns disagree with the schema (a bug).
    pub fn finish(&mut self) -> Result<RecordBatch, ArrowError> {
        let mut columns: Vec<ArrayRef> =
            vec![self.file.refill(), self.game.refill(), self.ply.refill()];
        for column in self.columns.iter() {
            let array = self.column(column);
            columns.push(array);
        }
        // Emptied, their room kept for the next batch.
        self.numbers.clear();
        self.positions.clear();
        self.clocks_evals.clear();
        self.batch(columns)
    }

    /// The array of an optional column, its builder left empty.
    fn column(&mut self, column: MoveColumn) -> ArrayRef {
        use MoveColumn as C;
        match column {
            C::San => self.texts[SAN].refill(),
            C::Uci => self.texts[UCI].refill(),
            C::Fen => self.texts[FEN].refill(),
            C::FromSquare => bytes(&self.numbers, |n| n.from, MoveNumbers::NONE),
            C::ToSquare => bytes(&self.numbers, |n| n.to, MoveNumbers::NONE),
            C::Piece => bytes(&self.numbers, |n| n.piece, 0),
            C::Captured => bytes(&self.numbers, |n| n.captured, 0),
            C::Promotion => bytes(&self.numbers, |n| n.promotion, 0),
            C::IsCheck => flags(&self.numbers, MoveNumbers::CHECK),
            C::IsCapture => flags(&self.numbers, MoveNumbers::CAPTURE),
            C::IsCastling => flags(&self.numbers, MoveNumbers::CASTLING),
            C::IsEnPassant => flags(&self.numbers, MoveNumbers::EN_PASSANT),
            // The positions' vectors without nulls are handed over whole.
            C::Board => {
                let bytes = hand_over(&mut self.positions.boards).into_flattened();
                Arc::new(FixedSizeBinaryArray::new(BOARD_BYTES, bytes.into(), None))
            }
            C::Turn => {
                let bits = BooleanBuffer::from(&self.positions.white_to_move[..]);
                Arc::new(BooleanArray::new(bits, None))
            }
            C::Castling => {
                let castling = hand_over(&mut self.positions.castling);
                Arc::new(UInt8Array::new(castling.into(), None))
            }
            C::EpSquare => bytes(&self.positions.ep_square, |&s| s, MoveNumbers::NONE),
            C::HalfmoveClock => {
                let clocks = hand_over(&mut self.positions.halfmove_clock);
                Arc::new(UInt32Array::new(clocks.into(), None))
            }
            C::Clock => optional::<Float64Type, _>(&self.clocks_evals, |n| n.0),
            C::Eval => optional::<Float64Type, _>(&self.clocks_evals, |n| match n.1 {
                Some(Eval::Pawns(p)) => Some(p),
                _ => None,
            }),
            C::EvalMate => optional::<Int32Type, _>(&self.clocks_evals, |n| match n.1 {
                Some(Eval::Mate(m)) => Some(m),
                _ => None,
            }),
            C::Comment => self.comment.refill(),
            C::Nags => self.nags.refill(),
        }
    }
}

/// A column of bytes, `value` of each of `items`, null where it is `none`. The buffers are
/// made whole (the validity packed 64 values a word): an Arrow builder's call a value cost more
/// than the rest of the ply's row.
fn bytes<T>(items: &[T], value: impl Fn(&T) -> u8, none: u8) -> ArrayRef {
    let values: Vec<u8> = items.iter().map(&value).collect();
    let nulls = values
        .contains(&none)
        .then(|| BooleanBuffer::collect_bool(values.len(), |i| values[i] != none));
    Arc::new(UInt8Array::new(
        ScalarBuffer::from(values),
        nulls.map(NullBuffer::new),
    ))
}

/// A column of numbers, `value` of each of `items`, null where it is `None`: made whole, as
/// [`bytes`] is.
fn optional<T: ArrowPrimitiveType, I>(
    items: &[I],
    value: impl Fn(&I) -> Option<T::Native>,
) -> ArrayRef {
    let values: Vec<T::Native> = items.iter().map(|i| value(i).unwrap_or_default()).collect();
    let nulls = items
        .iter()
        .any(|i| value(i).is_none())
        .then(|| BooleanBuffer::collect_bool(items.len(), |i| value(&items[i]).is_some()));
    Arc::new(PrimitiveArray::<T>::new(
        ScalarBuffer::from(values),
        nulls.map(NullBuffer::new),
    ))
}

/// The values of `vector`, which is left empty with room for as many.
fn hand_over<T>(vector: &mut Vec<T>) -> Vec<T> {
    let room = Vec::with_capacity(vector.len());
    std::mem::replace(vector, room)
}

/// A column of one of [`MoveNumbers`]'s flags, packed 64 a word.
fn flags(numbers: &[MoveNumbers], flag: u8) -> ArrayRef {
    let bits = BooleanBuffer::collect_bool(numbers.len(), |i| numbers[i].has(flag));
    Arc::new(BooleanArray::new(bits, None))
}

/// The moves table's default columns, with `fen` when asked.
pub fn moves_columns(fen: bool) -> MoveColumns {
    if fen {
        MoveColumns::DEFAULT.with(MoveColumn::Fen)
    } else {
        MoveColumns::DEFAULT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complete_dates_count_days_from_1970() {
        assert_eq!(date32("1970.01.01"), Some(0));
        assert_eq!(date32("2000.03.01"), Some(11_017));
        assert_eq!(date32("2024.02.29"), Some(19_782));
        assert_eq!(date32("2023.02.29"), None);
        assert_eq!(date32("2024.??.??"), None);
        assert_eq!(date32("1851"), None);
    }

    #[test]
    fn every_tag_with_a_column_is_found_by_its_name() {
        type Column = fn(usize) -> TagColumn;
        let lists: [(&[&str], Column); 3] = [
            (&TEXT_TAGS, TagColumn::Text),
            (&INT_TAGS, TagColumn::Int),
            (&DATE_TAGS, TagColumn::Date),
        ];
        for (list, column) in lists {
            for (i, name) in list.iter().enumerate() {
                assert_eq!(tag_column(name), Some(column(i)), "{name}");
            }
        }
        assert_eq!(tag_column("Annotator"), None);
        assert_eq!(tag_column("event"), None);
    }

    #[test]
    fn rating_diffs_read_with_their_sign() {
        assert_eq!(int_tag("+5"), Some(5));
        assert_eq!(int_tag("-12"), Some(-12));
        assert_eq!(int_tag("?"), None);
        assert_eq!(int_tag(""), None);
    }

    #[test]
    fn only_numbers_read_back_as_written_go_to_a_column() {
        assert!(int_written_as(5, "+5", true));
        assert!(int_written_as(0, "+0", true));
        assert!(int_written_as(-3, "-3", true));
        assert!(int_written_as(2105, "2105", false));
        assert!(!int_written_as(5, "5", true));
        assert!(!int_written_as(2105, "+2105", false));
        assert!(!int_written_as(2105, "02105", false));
        assert!(!int_written_as(2105, " 2105", false));
        assert!(!int_written_as(0, "-0", true));
    }

    #[test]
    fn plies_keep_san_uci_and_fen_in_one_buffer() {
        let start = Chess::default();
        let mut cols = PlyColumns::new(true);
        let e4 = shakmaty::san::San::from_ascii(b"e4")
            .unwrap()
            .to_move(&start)
            .unwrap();
        let mut after = start.clone();
        after.play_unchecked(e4);
        cols.push_move(&start, &after, e4, CheckClaim::None, None);
        cols.push_null(&after);
        assert_eq!(
            cols.ply(0),
            [
                "e4",
                "e2e4",
                "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
            ]
        );
        assert_eq!(cols.ply(1)[..2], ["--", "0000"]);
        // A ply's FEN is written from the position the next ply is played from, the last
        // one's once the game is settled.
        let mut cols = PlyColumns::new(true);
        let mut pos = start.clone();
        for san in ["e4", "d5", "exd5", "c6"] {
            let mv = shakmaty::san::San::from_ascii(san.as_bytes())
                .unwrap()
                .to_move(&pos)
                .unwrap();
            let before = pos.clone();
            pos.play_unchecked(mv);
            cols.push_move(&before, &pos, mv, CheckClaim::None, None);
        }
        assert_eq!(cols.ply(3)[2], "", "the last FEN waits for the game's end");
        cols.settle();
        let want = [
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
            "rnbqkbnr/ppp1pppp/8/3P4/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2",
            "rnbqkbnr/pp2pppp/2p5/3P4/8/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3",
        ];
        for (i, fen) in want.iter().enumerate() {
            assert_eq!(cols.ply(i)[2], *fen, "ply {}", i + 1);
        }
        let mut lean = PlyColumns::new(false);
        lean.push_move(&start, &after, e4, CheckClaim::None, WrittenSan::new(b"e4"));
        assert_eq!(lean.ply(0), ["e4", "e2e4", ""]);
    }
}

/// A row made for the games table alone skips each ply's SAN, UCI and notes, and still gives
/// the games table the very same row.
#[cfg(test)]
mod games_only {
    use super::GamesBuilder;
    use crate::convert::{Convert, ConvertOptions, Format};
    use crate::pgn::Lexed;

    fn rows(games_only: bool) -> (arrow_array::RecordBatch, Vec<usize>) {
        rows_with(games_only, false)
    }

    /// The games table of the test file's games, and each row's plies.
    fn rows_with(games_only: bool, no_movetext: bool) -> (arrow_array::RecordBatch, Vec<usize>) {
        rows_of(&test_games(), games_only, no_movetext, false)
    }

    /// The games table of `games`, and each row's plies; with `every_move`, made from every
    /// move told.
    fn rows_of(
        games: &[String],
        games_only: bool,
        no_movetext: bool,
        every_move: bool,
    ) -> (arrow_array::RecordBatch, Vec<usize>) {
        let convert = Convert::new(ConvertOptions {
            format: Format::Parquet,
            every_row: true,
            games_only,
            no_movetext,
            ..ConvertOptions::default()
        })
        .unwrap();
        let mut table = GamesBuilder::with_columns(convert.options().game_columns());
        let mut plies = Vec::new();
        let mut lexed = Lexed::default();
        // A movetext in SAN is written from the main line told at once (the test below); a
        // games table alone without it needs no move told.
        let at_once = !(games_only && no_movetext);
        assert_eq!(convert.options().rows_need_main_line_only(), at_once);
        for (i, game) in games.iter().enumerate() {
            let (bytes, number) = (game.as_bytes(), i as u64 + 1);
            let row = if every_move {
                convert.game_row_every_move(bytes, number, &mut lexed)
            } else {
                convert.game_row(bytes, "t.pgn", number, &mut lexed)
            };
            let row = row.unwrap_or_else(|| panic!("game {} gave no row", i + 1));
            assert_eq!(row.plies.has_moves(), !games_only);
            plies.push(row.plies.len());
            table.append(&row).unwrap();
        }
        (table.finish().unwrap(), plies)
    }

    /// The games of the test file, each whole.
    pub(super) fn test_games() -> Vec<String> {
        games_of(include_str!("../../testdata/parquet/games-only.pgn"))
    }

    /// The games of `text`, each whole.
    fn games_of(text: &str) -> Vec<String> {
        let games = text.split("\n\n[Event").enumerate();
        let whole = |(i, game): (usize, &str)| {
            if i == 0 {
                game.to_owned()
            } else {
                format!("[Event{game}")
            }
        };
        games.map(whole).collect()
    }

    #[test]
    fn a_row_without_the_movetext_is_the_same_row_without_it() {
        let (full, plies) = rows(false);
        let (lean, lean_plies) = rows_with(true, true);
        // The replay told no move, and the count is the same, null moves too.
        assert_eq!(lean_plies, plies);
        let mut want = full.clone();
        want.remove_column(full.schema().index_of("movetext").unwrap());
        assert_eq!(lean, want);
    }

    #[test]
    fn a_games_only_row_is_the_same_games_row() {
        let (full, full_plies) = rows(false);
        let (lean, lean_plies) = rows(true);
        assert_eq!(full.num_rows(), 4);
        // Null moves count as plies; game 3 stops before its illegal move.
        assert_eq!(full_plies, [9, 5, 2, 5]);
        assert_eq!(lean_plies, full_plies);
        assert_eq!(lean, full);
        assert_eq!(rows_of(&test_games(), false, false, true).0, full);
    }

    #[test]
    fn a_movetext_written_from_the_main_line_at_once_is_the_one_written_from_every_move() {
        // Comments before the first move and after the last, NAGs, a `;` comment, a token that
        // is not its move's SAN, a move that mates without its sign, a start position, no
        // moves; and what the main line cannot write (a variation, a null move, an en passant
        // mark, glued moves), replayed again with every move told.
        let games = games_of(include_str!("../../testdata/parquet/movetext-at-once.pgn"));
        for games_only in [false, true] {
            let (every, every_plies) = rows_of(&games, games_only, false, true);
            let (lean, lean_plies) = rows_of(&games, games_only, false, false);
            assert_eq!(every.num_rows(), 9);
            assert_eq!(lean_plies, every_plies);
            assert_eq!(lean, every);
        }
        let (lean, _) = rows_of(&games, true, false, false);
        let movetext = lean
            .column_by_name("movetext")
            .unwrap()
            .as_any()
            .downcast_ref::<arrow_array::StringArray>()
            .unwrap();
        assert_eq!(
            movetext.value(0),
            "{Before the first move.} 1.e4 $1 $14 {[%clk 0:05:00]} 1...e5 ; a line comment } with \
             a brace\n2.Nf3 Nc6 3.Bb5 a6 4.Ba4 Nf6 5.O-O Be7 6.Re1 b5 7.Bb3 d6 8.c3 O-O 9.h3 Nb8 \
             10.d4 Nbd7 {After the last move.} $2 1-0"
        );
        assert_eq!(movetext.value(1), "1.e4 e5 2.Bc4 Nc6 3.Qh5 Nf6 4.Qxf7# 1-0");
    }
}

/// A moves table of numbers and boards made from the main line told at once (no movetext
/// column, or one in SAN) is the table made from every move told with its positions (a
/// movetext in LAN, which the main line told at once does not write).
#[cfg(test)]
mod main_line_only {
    use super::MovesBuilder;
    use crate::convert::columns::MoveColumns;
    use crate::convert::{Convert, ConvertOptions, Format, RowScratch, ToNotation};

    fn moves(at_once: bool) -> arrow_array::RecordBatch {
        moves_with(at_once, false)
    }

    fn moves_with(at_once: bool, moves_only: bool) -> arrow_array::RecordBatch {
        let convert = Convert::new(ConvertOptions {
            format: Format::Parquet,
            every_row: true,
            to: if at_once {
                ToNotation::San
            } else {
                ToNotation::Lan
            },
            moves_only,
            numbers: true,
            boards: true,
            moves_columns: Some(MoveColumns::NUMBERS.union(MoveColumns::POSITION)),
            ..ConvertOptions::default()
        })
        .unwrap();
        assert_eq!(convert.options().rows_need_main_line_only(), at_once);
        let mut moves = MovesBuilder::with_columns(convert.options().table_moves_columns());
        let mut scratch = RowScratch::default();
        for (i, game) in super::games_only::test_games().iter().enumerate() {
            let row = convert
                .game_row_in(game.as_bytes(), "t.pgn", i as u64 + 1, &mut scratch)
                .unwrap();
            moves.append(&row);
            convert.recycle(row);
        }
        moves.finish().unwrap()
    }

    #[test]
    fn the_main_line_told_at_once_gives_the_same_moves_table() {
        let all = moves(false);
        // Null moves count as plies; game 3 stops before its illegal move.
        assert_eq!(all.num_rows(), 9 + 5 + 2 + 5);
        assert_eq!(moves(true), all);
    }

    #[test]
    fn rows_for_the_moves_table_alone_give_the_same_moves_table() {
        let all = moves(false);
        assert_eq!(moves_with(false, true), all);
        assert_eq!(moves_with(true, true), all);
    }
}
