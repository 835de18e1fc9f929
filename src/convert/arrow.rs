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
    ArrayBuilder, Date32Builder, Float64Builder, Int32Builder, ListBuilder, MapBuilder,
    PrimitiveBuilder, StringBuilder, UInt16Builder, UInt32Builder, UInt64Builder,
};
use arrow_array::types::ArrowPrimitiveType;
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef};
use shakmaty::fen::Fen;
use shakmaty::{Chess, EnPassantMode, Move, Position};

use super::record::{GameRecord, PlyNote};
use super::records::Eval;
use crate::notation::fen;
use crate::notation::write::{self, Notation};
use crate::notation::CheckClaim;

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
        Field::new("movetext", DataType::Utf8, false),
    ]);
    Arc::new(Schema::new(fields))
}

/// The schema of the moves table; `fen` only when asked for.
pub fn moves_schema(fen: bool) -> SchemaRef {
    let mut fields = vec![
        Field::new("file", DataType::Utf8, false),
        Field::new("game", DataType::UInt64, false),
        Field::new("ply", DataType::UInt32, false),
        Field::new("san", DataType::Utf8, false),
        Field::new("uci", DataType::Utf8, false),
    ];
    if fen {
        fields.push(Field::new("fen", DataType::Utf8, false));
    }
    fields.extend([
        Field::new("clock", DataType::Float64, true),
        Field::new("eval", DataType::Float64, true),
        Field::new("eval_mate", DataType::Int32, true),
        Field::new("comment", DataType::Utf8, true),
        Field::new("nags", list_type(), false),
    ]);
    Arc::new(Schema::new(fields))
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

/// SAN, UCI and (when asked) FEN of each main-line ply, as the replay plays it: the texts of a
/// game in one buffer, so a ply costs no allocation.
#[derive(Debug, Default)]
pub struct PlyColumns {
    /// Keep the position after each ply.
    pub fen: bool,
    /// Keep each ply's SAN, UCI (and FEN): false when only the games table is built, which
    /// shows the count of plies and nothing of each.
    moves: bool,
    /// Plies counted (the length of `ends` when `moves`).
    count: usize,
    text: String,
    /// Where each ply's SAN, UCI and FEN end in `text`.
    ends: Vec<[u32; 3]>,
    /// White made the first ply (the sides alternate, null moves too).
    first_white: bool,
    /// The last ply's FEN is written (from the position after it, which the replay tells)
    /// but not yet counted in `ends`: it is with the next ply, or once the game is settled
    /// ([`PlyColumns::settle`]). No position is kept for it.
    unsettled: bool,
}

impl PlyColumns {
    pub fn new(fen: bool) -> PlyColumns {
        PlyColumns {
            fen,
            moves: true,
            count: 0,
            text: String::new(),
            ends: Vec::new(),
            first_white: true,
            unsettled: false,
        }
    }

    /// Plies counted only, for a games table alone: no text a ply, and the row gets no
    /// clocks, evaluations or comments of its plies ([`PlyColumns::has_moves`] is false).
    pub fn count_only() -> PlyColumns {
        PlyColumns {
            moves: false,
            ..PlyColumns::new(false)
        }
    }

    /// Makes room for a game of `plies` moves: a ply's SAN and UCI are about ten bytes, a
    /// position's FEN about sixty. Growing a ply at a time, from nothing for each game, cost
    /// more in copies than writing them.
    pub fn reserve(&mut self, plies: usize) {
        if self.moves {
            self.ends.reserve(plies);
            self.text.reserve(plies * if self.fen { 72 } else { 12 });
        }
    }

    /// Whether each ply's SAN, UCI and notes are kept (for the moves table).
    pub fn has_moves(&self) -> bool {
        self.moves
    }

    pub fn clear(&mut self) {
        self.unsettled = false;
        self.count = 0;
        self.text.clear();
        self.ends.clear();
    }

    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether White made the first ply (the sides alternate, null moves too).
    pub fn first_white(&self) -> bool {
        self.first_white
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// A main-line move from `before` to `after`, with its SAN when the token was written so.
    pub fn push_move(
        &mut self,
        before: &Chess,
        after: &Chess,
        mv: Move,
        check: CheckClaim,
        san: Option<&str>,
    ) {
        if self.count == 0 {
            self.first_white = before.turn().is_white();
        }
        self.count += 1;
        if !self.moves {
            return;
        }
        if self.fen {
            self.settle();
        }
        match san {
            Some(san) => self.text.push_str(san),
            None => write::write(before, mv, check, Notation::San, &mut self.text),
        }
        let san_end = self.end();
        // As `write::write` writes UCI, without the formatting machinery (a ply's cost counts).
        mv.to_uci(before.castles().mode())
            .append_to_string(&mut self.text);
        let uci_end = self.end();
        // Its FEN is counted in with the next ply, or with `settle`.
        self.ends.push([san_end, uci_end, uci_end]);
        if self.fen {
            self.push_fen(after);
            self.unsettled = true;
        }
    }

    /// A main-line null move: `--` in SAN, `0000` in UCI, so that the moves still replay.
    pub fn push_null(&mut self, after: &Chess) {
        if self.count == 0 {
            self.first_white = after.turn().is_black();
        }
        self.count += 1;
        if !self.moves {
            return;
        }
        if self.fen {
            self.settle();
        }
        self.text.push_str("--");
        let san_end = self.end();
        self.text.push_str("0000");
        let uci_end = self.end();
        if self.fen {
            self.push_fen(after);
        }
        self.ends.push([san_end, uci_end, self.end()]);
    }

    /// Counts in the FEN of the last ply if it is not yet. Called before a game's plies are
    /// read ([`GameRecord::set_plies`] does).
    pub fn settle(&mut self) {
        if !std::mem::take(&mut self.unsettled) {
            return;
        }
        let end = self.end();
        if let Some(last) = self.ends.last_mut() {
            last[2] = end;
        }
    }

    fn push_fen(&mut self, after: &Chess) {
        let start = self.text.len();
        fen::push_fen(after, &mut self.text);
        debug_assert_eq!(
            self.text[start..],
            Fen::from_position(after, EnPassantMode::Legal).to_string(),
        );
    }

    fn end(&self) -> u32 {
        u32::try_from(self.text.len()).unwrap_or(u32::MAX)
    }

    /// SAN, UCI and FEN (empty when not kept) of ply `i`.
    fn ply(&self, i: usize) -> [&str; 3] {
        let start = if i == 0 { 0 } else { self.ends[i - 1][2] };
        let [san, uci, fen] = self.ends[i];
        let at = |a: u32, b: u32| &self.text[a as usize..b as usize];
        [at(start, san), at(san, uci), at(uci, fen)]
    }
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
    movetext: StringBuilder,
    rows: usize,
}

impl Default for GamesBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl GamesBuilder {
    pub fn new() -> GamesBuilder {
        GamesBuilder {
            schema: games_schema(),
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
            movetext: StringBuilder::new(),
            rows: 0,
        }
    }

    table_rows!();

    /// Bytes of movetext appended since the last `finish` (most of a batch's size).
    pub fn movetext_bytes(&self) -> usize {
        self.movetext.values_slice().len()
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
        self.termination.append_value(row.termination);
        self.final_fen.append_option(row.final_fen.as_deref());
        self.errors.append_value(row.errors);
        self.warnings.append_value(row.warnings);
        self.movetext.append_value(&row.movetext);
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
            self.movetext.refill(),
        ]);
        self.batch(columns)
    }
}

/// The moves table being built, a game's plies at a time.
pub struct MovesBuilder {
    schema: SchemaRef,
    with_fen: bool,
    file: StringBuilder,
    game: UInt64Builder,
    ply: UInt32Builder,
    san: StringBuilder,
    uci: StringBuilder,
    fen: StringBuilder,
    clock: Float64Builder,
    eval: Float64Builder,
    mate: Int32Builder,
    comment: StringBuilder,
    nags: ListBuilder<UInt16Builder>,
    rows: usize,
}

impl MovesBuilder {
    /// `fen`: the table has the position after each ply.
    pub fn new(fen: bool) -> MovesBuilder {
        MovesBuilder {
            schema: moves_schema(fen),
            with_fen: fen,
            file: StringBuilder::new(),
            game: UInt64Builder::new(),
            ply: UInt32Builder::new(),
            san: StringBuilder::new(),
            uci: StringBuilder::new(),
            fen: StringBuilder::new(),
            clock: Float64Builder::new(),
            eval: Float64Builder::new(),
            mate: Int32Builder::new(),
            comment: StringBuilder::new(),
            nags: ListBuilder::new(UInt16Builder::new()),
            rows: 0,
        }
    }

    table_rows!();

    /// Appends the main-line plies of a game.
    pub fn append(&mut self, row: &GameRecord) {
        let none = PlyNote::default();
        // A row made for the games table alone has no plies to give (a bug to append it).
        debug_assert!(row.plies.has_moves(), "a games-only row in the moves table");
        let plies = row.plies.ends.len();
        for i in 0..plies {
            let [san, uci, fen] = row.plies.ply(i);
            let note = row.ply_notes.get(i).unwrap_or(&none);
            self.file.append_value(&row.file);
            self.game.append_value(row.game);
            self.ply
                .append_value(u32::try_from(i + 1).unwrap_or(u32::MAX));
            self.san.append_value(san);
            self.uci.append_value(uci);
            if self.with_fen {
                self.fen.append_value(fen);
            }
            self.clock.append_option(note.clock);
            match note.eval {
                Some(Eval::Pawns(p)) => {
                    self.eval.append_value(p);
                    self.mate.append_null();
                }
                Some(Eval::Mate(n)) => {
                    self.eval.append_null();
                    self.mate.append_value(n);
                }
                None => {
                    self.eval.append_null();
                    self.mate.append_null();
                }
            }
            self.comment.append_option(
                note.comment
                    .as_ref()
                    .map(|r| &row.notes_text[r.start as usize..r.end as usize]),
            );
            self.nags
                .values()
                .append_slice(&row.nags[note.nags.start as usize..note.nags.end as usize]);
            self.nags.append(true);
        }
        self.rows += plies;
    }

    /// The rows appended so far as a batch; the builder starts again empty.
    ///
    /// # Errors
    ///
    /// When the columns disagree with the schema (a bug).
    pub fn finish(&mut self) -> Result<RecordBatch, ArrowError> {
        let mut columns: Vec<ArrayRef> = vec![
            self.file.refill(),
            self.game.refill(),
            self.ply.refill(),
            self.san.refill(),
            self.uci.refill(),
        ];
        if self.with_fen {
            columns.push(self.fen.refill());
        }
        columns.extend([
            self.clock.refill(),
            self.eval.refill(),
            self.mate.refill(),
            self.comment.refill(),
            self.nags.refill(),
        ]);
        self.batch(columns)
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
        lean.push_move(&start, &after, e4, CheckClaim::None, Some("e4"));
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
        let text = include_str!("../../testdata/parquet/games-only.pgn");
        let convert = Convert::new(ConvertOptions {
            format: Format::Parquet,
            every_row: true,
            games_only,
            ..ConvertOptions::default()
        })
        .unwrap();
        let mut games = GamesBuilder::new();
        let mut plies = Vec::new();
        let mut lexed = Lexed::default();
        for (i, game) in text.split("\n\n[Event").enumerate() {
            let game = if i == 0 {
                game.to_owned()
            } else {
                format!("[Event{game}")
            };
            let row = convert
                .game_row(game.as_bytes(), "t.pgn", i as u64 + 1, &mut lexed)
                .unwrap_or_else(|| panic!("game {} gave no row", i + 1));
            assert_eq!(row.plies.has_moves(), !games_only);
            plies.push(row.plies.len());
            games.append(&row).unwrap();
        }
        (games.finish().unwrap(), plies)
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
    }
}
