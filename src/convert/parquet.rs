//! Parquet output: `games.parquet` (one row a game: the common tags as typed columns, the rest
//! in a map) and `moves.parquet` (one row a main-line ply), zstd-compressed, built from the
//! same [`GameRecord`]s the JSON lines are.
//!
//! Rows are buffered a batch at a time and the Arrow writer closes a row group once it holds
//! [`GAME_ROWS`] or [`MOVE_ROWS`] rows, so memory stays flat whatever the input's size. The
//! writer owns no path: the caller hands it the files and renames them into place.

use std::io::Write;
use std::sync::Arc;

use arrow_array::builder::{
    Date32Builder, Float64Builder, Int32Builder, ListBuilder, MapBuilder, StringBuilder,
    UInt16Builder, UInt32Builder, UInt64Builder,
};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::errors::ParquetError;
use parquet::file::properties::WriterProperties;

use super::records::{Eval, GameRecord};

/// Games a row group of `games.parquet` holds at most.
pub const GAME_ROWS: usize = 65_536;
/// Plies a row group of `moves.parquet` holds at most.
pub const MOVE_ROWS: usize = 131_072;
/// Rows buffered before they are handed to the Arrow writer as one batch.
const BATCH_GAMES: usize = 1_024;

/// Tags with a column of their own, as text, in this order.
const TEXT_TAGS: [&str; 14] = [
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
];
/// Tags with an integer column (`+5` reads as 5).
const INT_TAGS: [&str; 4] = ["WhiteElo", "BlackElo", "WhiteRatingDiff", "BlackRatingDiff"];
/// Tags with a date column (`YYYY.MM.DD`, complete).
const DATE_TAGS: [&str; 2] = ["Date", "UTCDate"];

/// One converted game, as the Parquet files hold it.
#[derive(Debug)]
pub struct GameRow {
    pub record: GameRecord,
    /// The movetext in the `--to` notation, as `convert --format pgn` writes it.
    pub movetext: String,
    /// Error and warning findings the game kept (errors that do not block output).
    pub errors: u32,
    pub warnings: u32,
}

/// The schema of `games.parquet`.
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
        Field::new("termination", DataType::Utf8, false),
        Field::new("final_fen", DataType::Utf8, true),
        Field::new("errors", DataType::UInt32, false),
        Field::new("warnings", DataType::UInt32, false),
        Field::new("movetext", DataType::Utf8, false),
    ]);
    Arc::new(Schema::new(fields))
}

/// The schema of `moves.parquet`; `fen` only when asked for.
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
    let mut parts = text.trim().split('.');
    let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || y.len() != 4 || m.len() != 2 || d.len() != 2 {
        return None;
    }
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if !(digits(y) && digits(m) && digits(d)) {
        return None;
    }
    let (y, m, d): (i64, i64, i64) = (y.parse().ok()?, m.parse().ok()?, d.parse().ok()?);
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let days_in_month = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    if d < 1 || d > days_in_month {
        return None;
    }
    // Howard Hinnant's days_from_civil.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    i32::try_from(era * 146_097 + doe - 719_468).ok()
}

/// An integer tag's value (`1500`, `+5`, `-12`); `None` for anything else (`?`, ``).
pub fn int_tag(text: &str) -> Option<i32> {
    let t = text.trim();
    if t.is_empty() || t.len() > 10 {
        return None;
    }
    t.parse().ok()
}

/// Writes the two Parquet files, a batch of games at a time.
pub struct ParquetOut<W: Write + Send> {
    games: ArrowWriter<W>,
    moves: ArrowWriter<W>,
    fen: bool,
    pending: Vec<GameRow>,
    moves_schema: SchemaRef,
    games_schema: SchemaRef,
}

impl<W: Write + Send> ParquetOut<W> {
    /// Starts both files; `fen` keeps the position after each move in `moves.parquet`.
    ///
    /// # Errors
    ///
    /// Errors of the writers.
    pub fn new(games: W, moves: W, fen: bool) -> Result<Self, ParquetError> {
        let props = |rows| {
            WriterProperties::builder()
                .set_compression(Compression::ZSTD(ZstdLevel::default()))
                .set_max_row_group_row_count(Some(rows))
                .build()
        };
        let games_schema = games_schema();
        let moves_schema = moves_schema(fen);
        Ok(ParquetOut {
            games: ArrowWriter::try_new(games, games_schema.clone(), Some(props(GAME_ROWS)))?,
            moves: ArrowWriter::try_new(moves, moves_schema.clone(), Some(props(MOVE_ROWS)))?,
            fen,
            pending: Vec::with_capacity(BATCH_GAMES),
            moves_schema,
            games_schema,
        })
    }

    /// Adds a game.
    ///
    /// # Errors
    ///
    /// Errors of the writers.
    pub fn push(&mut self, row: GameRow) -> Result<(), ParquetError> {
        self.pending.push(row);
        let plies: usize = self.pending.iter().map(|g| g.record.moves.len()).sum();
        if self.pending.len() >= BATCH_GAMES || plies >= BATCH_GAMES * 64 {
            self.flush_batch()?;
        }
        Ok(())
    }

    fn flush_batch(&mut self) -> Result<(), ParquetError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let games = games_batch(&self.games_schema, &self.pending)?;
        self.games.write(&games)?;
        let moves = moves_batch(&self.moves_schema, &self.pending, self.fen)?;
        self.moves.write(&moves)?;
        self.pending.clear();
        Ok(())
    }

    /// Writes what is buffered and the files' footers, and gives the files back.
    ///
    /// # Errors
    ///
    /// Errors of the writers.
    pub fn finish(mut self) -> Result<(W, W), ParquetError> {
        self.flush_batch()?;
        Ok((self.games.into_inner()?, self.moves.into_inner()?))
    }
}

fn games_batch(schema: &SchemaRef, rows: &[GameRow]) -> Result<RecordBatch, ParquetError> {
    let n = rows.len();
    let mut file = StringBuilder::new();
    let mut game = UInt64Builder::with_capacity(n);
    let mut text: Vec<StringBuilder> = TEXT_TAGS.iter().map(|_| StringBuilder::new()).collect();
    let mut ints: Vec<Int32Builder> = INT_TAGS.iter().map(|_| Int32Builder::new()).collect();
    let mut dates: Vec<Date32Builder> = DATE_TAGS.iter().map(|_| Date32Builder::new()).collect();
    let mut tags = MapBuilder::new(None, StringBuilder::new(), StringBuilder::new());
    let mut plies = UInt32Builder::with_capacity(n);
    let mut by_rule = StringBuilder::new();
    let mut termination = StringBuilder::new();
    let mut final_fen = StringBuilder::new();
    let mut errors = UInt32Builder::with_capacity(n);
    let mut warnings = UInt32Builder::with_capacity(n);
    let mut movetext = StringBuilder::new();
    for row in rows {
        let r = &row.record;
        file.append_value(&r.file);
        game.append_value(r.game);
        for (b, t) in text.iter_mut().zip(TEXT_TAGS) {
            b.append_option(r.tags.get(t));
        }
        for (b, t) in ints.iter_mut().zip(INT_TAGS) {
            b.append_option(r.tags.get(t).and_then(|v| int_tag(v)));
        }
        for (b, t) in dates.iter_mut().zip(DATE_TAGS) {
            b.append_option(r.tags.get(t).and_then(|v| date32(v)));
        }
        // Every other tag, and a typed tag whose text did not fit its type: nothing is lost.
        for (name, value) in &r.tags {
            let own = TEXT_TAGS.contains(&name.as_str())
                || INT_TAGS.contains(&name.as_str()) && int_tag(value).is_some()
                || DATE_TAGS.contains(&name.as_str()) && date32(value).is_some();
            if !own {
                tags.keys().append_value(name);
                tags.values().append_value(value);
            }
        }
        tags.append(true).map_err(arrow_error)?;
        plies.append_value(u32::try_from(r.moves.len()).unwrap_or(u32::MAX));
        by_rule.append_option(r.result_by_rule);
        termination.append_value(r.termination);
        final_fen.append_option(r.final_fen.as_deref());
        errors.append_value(row.errors);
        warnings.append_value(row.warnings);
        movetext.append_value(&row.movetext);
    }
    let mut columns: Vec<ArrayRef> = vec![Arc::new(file.finish()), Arc::new(game.finish())];
    columns.extend(text.iter_mut().map(|b| Arc::new(b.finish()) as ArrayRef));
    columns.extend(ints.iter_mut().map(|b| Arc::new(b.finish()) as ArrayRef));
    columns.extend(dates.iter_mut().map(|b| Arc::new(b.finish()) as ArrayRef));
    columns.extend([
        Arc::new(tags.finish()) as ArrayRef,
        Arc::new(plies.finish()),
        Arc::new(by_rule.finish()),
        Arc::new(termination.finish()),
        Arc::new(final_fen.finish()),
        Arc::new(errors.finish()),
        Arc::new(warnings.finish()),
        Arc::new(movetext.finish()),
    ]);
    RecordBatch::try_new(schema.clone(), columns).map_err(arrow_error)
}

fn moves_batch(
    schema: &SchemaRef,
    rows: &[GameRow],
    with_fen: bool,
) -> Result<RecordBatch, ParquetError> {
    let mut file = StringBuilder::new();
    let mut game = UInt64Builder::new();
    let mut ply = UInt32Builder::new();
    let mut san = StringBuilder::new();
    let mut uci = StringBuilder::new();
    let mut fen = StringBuilder::new();
    let mut clock = Float64Builder::new();
    let mut eval = Float64Builder::new();
    let mut mate = Int32Builder::new();
    let mut comment = StringBuilder::new();
    let mut nags = ListBuilder::new(UInt16Builder::new());
    for row in rows {
        let r = &row.record;
        for (i, m) in r.moves.iter().enumerate() {
            file.append_value(&r.file);
            game.append_value(r.game);
            ply.append_value(u32::try_from(i + 1).unwrap_or(u32::MAX));
            san.append_value(&m.san);
            uci.append_value(&m.uci);
            if with_fen {
                fen.append_value(&m.fen);
            }
            clock.append_option(m.clock);
            match m.eval {
                Some(Eval::Pawns(p)) => {
                    eval.append_value(p);
                    mate.append_null();
                }
                Some(Eval::Mate(n)) => {
                    eval.append_null();
                    mate.append_value(n);
                }
                None => {
                    eval.append_null();
                    mate.append_null();
                }
            }
            if m.comments.is_empty() {
                comment.append_null();
            } else {
                comment.append_value(m.comments.join(" "));
            }
            nags.values().append_slice(&m.nags);
            nags.append(true);
        }
    }
    let mut columns: Vec<ArrayRef> = vec![
        Arc::new(file.finish()),
        Arc::new(game.finish()),
        Arc::new(ply.finish()),
        Arc::new(san.finish()),
        Arc::new(uci.finish()),
    ];
    if with_fen {
        columns.push(Arc::new(fen.finish()));
    }
    columns.extend([
        Arc::new(clock.finish()) as ArrayRef,
        Arc::new(eval.finish()),
        Arc::new(mate.finish()),
        Arc::new(comment.finish()),
        Arc::new(nags.finish()),
    ]);
    RecordBatch::try_new(schema.clone(), columns).map_err(arrow_error)
}

fn arrow_error(e: arrow_schema::ArrowError) -> ParquetError {
    ParquetError::External(Box::new(e))
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
    fn rating_diffs_read_with_their_sign() {
        assert_eq!(int_tag("+5"), Some(5));
        assert_eq!(int_tag("-12"), Some(-12));
        assert_eq!(int_tag("?"), None);
        assert_eq!(int_tag(""), None);
    }
}
