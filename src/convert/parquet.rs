//! Parquet output: `games.parquet` (one row a game: the common tags as typed columns, the rest
//! in a map) and `moves.parquet` (one row a main-line ply), zstd-compressed, written from the
//! record batches of [`super::arrow`].
//!
//! Rows go into the column builders as they come, and a batch is handed to the Arrow writer
//! every [`BATCH_GAMES`] games (or plies' worth); the writer closes a row group once it holds
//! [`GAME_ROWS`] or [`MOVE_ROWS`] rows, so memory stays flat whatever the input's size. The
//! writer owns no path: the caller hands it the files and renames them into place.

use std::io::Write;

use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::errors::ParquetError;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::schema::types::ColumnPath;

pub use super::arrow::{date32, games_schema, int_tag, moves_schema};
use super::arrow::{GamesBuilder, MovesBuilder};
use super::columns::{GameColumns, MoveColumns};
pub use super::record::GameRecord;

/// Games a row group of `games.parquet` holds at most.
pub const GAME_ROWS: usize = 65_536;
/// Plies a row group of `moves.parquet` holds at most.
pub const MOVE_ROWS: usize = 131_072;
/// Games built before they are handed to the Arrow writer as one batch.
pub const BATCH_GAMES: usize = 1_024;
/// Bytes a file's row group may hold in memory before it is closed, whatever its rows: 65,536
/// games of engine play with long comments are hundreds of MiB of movetext, which a row group
/// bounded by rows alone kept until the end of the input.
pub const ROW_GROUP_BYTES: usize = 16 << 20;
/// Bytes of movetext a batch holds at most (a thousand engine games with long comments are
/// tens of MiB).
pub const BATCH_BYTES: usize = 8 << 20;

/// Text columns whose values are nearly all different (a position a ply, a game's movetext),
/// and the boards (64 bytes a position): written without dictionary, minimum and maximum
/// ([`properties`]), which cost instructions for nothing there (benches/NOTES.md, branch
/// arrow2).
const UNIQUE_TEXT: [&str; 6] = [
    "fen",
    "comment",
    "movetext",
    "final_fen",
    "board",
    "start_board",
];

/// How the pages of the Parquet files are compressed (`--parquet-compression`): zstd at level
/// 1 by default (the parquet crate's default level: about a fifth of a lichess conversion's
/// instructions, docs/performance.md), a stronger zstd level, or what other writers use by
/// default (snappy: pyarrow, DuckDB, Spark), LZ4, or none. Every Parquet reader reads all
/// four.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PageCompression {
    /// zstd at this level (1 to 22).
    Zstd(u8),
    /// Snappy.
    Snappy,
    /// LZ4 (the `LZ4_RAW` codec: blocks without a frame, which readers agree on).
    Lz4,
    /// No compression.
    None,
}

impl Default for PageCompression {
    fn default() -> Self {
        PageCompression::Zstd(1)
    }
}

impl PageCompression {
    /// The parquet crate's codec.
    fn codec(self) -> Compression {
        match self {
            PageCompression::Zstd(level) => Compression::ZSTD(
                // Levels outside 1..=22 are refused when read: this cannot fail.
                ZstdLevel::try_new(i32::from(level)).unwrap_or_default(),
            ),
            PageCompression::Snappy => Compression::SNAPPY,
            PageCompression::Lz4 => Compression::LZ4_RAW,
            PageCompression::None => Compression::UNCOMPRESSED,
        }
    }
}

impl std::str::FromStr for PageCompression {
    type Err = String;

    /// `zstd`, `zstd:LEVEL` (1 to 22), `snappy`, `lz4` or `none`.
    fn from_str(s: &str) -> Result<Self, String> {
        let teach = "give zstd, zstd:LEVEL (1 to 22; zstd is zstd:1), snappy, lz4 or none";
        match s.to_ascii_lowercase().as_str() {
            "zstd" => Ok(PageCompression::Zstd(1)),
            "snappy" => Ok(PageCompression::Snappy),
            "lz4" => Ok(PageCompression::Lz4),
            "none" => Ok(PageCompression::None),
            other => {
                let level = other.strip_prefix("zstd:").ok_or_else(|| {
                    format!("`{s}` is no Parquet compression pgnkit writes; {teach}")
                })?;
                match level.parse::<u8>() {
                    Ok(n @ 1..=22) => Ok(PageCompression::Zstd(n)),
                    _ => Err(format!("`{level}` is no zstd level; {teach}")),
                }
            }
        }
    }
}

/// The writer's settings for pgnkit's Parquet files: pages compressed with `compression`, row
/// groups of `rows` at most, and a minimum and maximum per column chunk (what readers prune
/// row groups by; statistics per page cost more to write), except for the `unique` columns,
/// whose values are nearly all different: those have neither dictionary (which overflows
/// after hashing every value into it) nor minimum and maximum (which no query prunes by).
pub(crate) fn properties(
    compression: PageCompression,
    rows: usize,
    unique: &[&str],
) -> WriterProperties {
    let mut props = WriterProperties::builder()
        .set_compression(compression.codec())
        .set_max_row_group_row_count(Some(rows))
        .set_statistics_enabled(EnabledStatistics::Chunk);
    for &column in unique {
        let path = ColumnPath::from(column);
        props = props
            .set_column_dictionary_enabled(path.clone(), false)
            .set_column_statistics_enabled(path, EnabledStatistics::None);
    }
    props.build()
}

/// Writes the two Parquet files, a batch of games at a time.
pub struct ParquetOut<W: Write + Send> {
    games: ArrowWriter<W>,
    moves: ArrowWriter<W>,
    games_rows: GamesBuilder,
    moves_rows: MovesBuilder,
    /// [`ROW_GROUP_BYTES`], smaller in tests.
    row_group_bytes: usize,
}

impl<W: Write + Send> ParquetOut<W> {
    /// Starts both files; `fen` keeps the position after each move in `moves.parquet`.
    ///
    /// # Errors
    ///
    /// Errors of the writers.
    pub fn new(games: W, moves: W, fen: bool) -> Result<Self, ParquetError> {
        let moves_columns = super::arrow::moves_columns(fen);
        let columns = (moves_columns, GameColumns::default());
        Self::with_columns(games, moves, columns, PageCompression::default())
    }

    /// Starts both files, with the optional columns `moves_columns` in `moves.parquet` and
    /// `game_columns` in `games.parquet`, their pages compressed with `compression`.
    ///
    /// # Errors
    ///
    /// Errors of the writers.
    pub fn with_columns(
        games: W,
        moves: W,
        (moves_columns, game_columns): (MoveColumns, GameColumns),
        compression: PageCompression,
    ) -> Result<Self, ParquetError> {
        let props = |rows| properties(compression, rows, &UNIQUE_TEXT);
        let games_rows = GamesBuilder::with_columns(game_columns);
        let moves_rows = MovesBuilder::with_columns(moves_columns);
        Ok(ParquetOut {
            games: ArrowWriter::try_new(games, games_rows.schema(), Some(props(GAME_ROWS)))?,
            moves: ArrowWriter::try_new(moves, moves_rows.schema(), Some(props(MOVE_ROWS)))?,
            games_rows,
            moves_rows,
            row_group_bytes: ROW_GROUP_BYTES,
        })
    }

    /// Adds a game.
    ///
    /// # Errors
    ///
    /// Errors of the writers.
    pub fn push(&mut self, row: &GameRecord) -> Result<(), ParquetError> {
        self.games_rows.append(row).map_err(arrow_error)?;
        self.moves_rows.append(row);
        if self.games_rows.len() >= BATCH_GAMES
            || self.moves_rows.len() >= BATCH_GAMES * 64
            || self.games_rows.movetext_bytes() >= BATCH_BYTES
        {
            self.flush_batch()?;
        }
        Ok(())
    }

    fn flush_batch(&mut self) -> Result<(), ParquetError> {
        if self.games_rows.is_empty() {
            return Ok(());
        }
        let games = self.games_rows.finish().map_err(arrow_error)?;
        self.games.write(&games)?;
        if self.games.memory_size() >= self.row_group_bytes {
            self.games.flush()?;
        }
        let moves = self.moves_rows.finish().map_err(arrow_error)?;
        self.moves.write(&moves)?;
        if self.moves.memory_size() >= self.row_group_bytes {
            self.moves.flush()?;
        }
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

fn arrow_error(e: arrow_schema::ArrowError) -> ParquetError {
    ParquetError::External(Box::new(e))
}

#[cfg(test)]
mod tests {
    use parquet::file::reader::{FileReader, SerializedFileReader};

    use super::*;
    use crate::convert::{Convert, ConvertOptions, Format};
    use crate::pgn::Lexed;

    #[test]
    fn compressions_are_read_as_the_option_writes_them() {
        let read = |s: &str| s.parse::<PageCompression>().map(PageCompression::codec);
        let zstd = |n| Ok(Compression::ZSTD(ZstdLevel::try_new(n).unwrap()));
        assert_eq!(read("zstd"), zstd(1));
        assert_eq!(PageCompression::default().codec(), zstd(1).unwrap());
        assert_eq!(read("ZSTD:9"), zstd(9));
        assert_eq!(read("zstd:22"), zstd(22));
        assert_eq!(read("snappy"), Ok(Compression::SNAPPY));
        assert_eq!(read("lz4"), Ok(Compression::LZ4_RAW));
        assert_eq!(read("none"), Ok(Compression::UNCOMPRESSED));
        for bad in ["zstd:0", "zstd:23", "zstd:", "zstd:x", "gzip", "brotli", ""] {
            assert!(read(bad).is_err(), "{bad}");
        }
    }

    /// Row groups of the two files written from `copies` times the games of a test file, with
    /// row groups closed past `bytes`.
    fn row_groups(copies: usize, bytes: usize) -> (usize, usize) {
        let text = include_str!("../../testdata/parquet/games-only.pgn");
        let convert = Convert::new(ConvertOptions {
            format: Format::Parquet,
            // Game 3 has an illegal move: its row too.
            every_row: true,
            ..ConvertOptions::default()
        })
        .unwrap();
        let mut out = ParquetOut::new(Vec::new(), Vec::new(), true).unwrap();
        out.row_group_bytes = bytes;
        let mut lexed = Lexed::default();
        let mut number = 0;
        for _ in 0..copies {
            for (i, game) in text.split("\n\n[Event").enumerate() {
                let game = if i == 0 {
                    game.to_owned()
                } else {
                    format!("[Event{game}")
                };
                number += 1;
                let row = convert
                    .game_row(game.as_bytes(), "t.pgn", number, &mut lexed)
                    .unwrap();
                out.push(&row).unwrap();
            }
        }
        let (games, moves) = out.finish().unwrap();
        let groups = |name: &str, data: Vec<u8>| {
            let path = std::env::temp_dir().join(format!(
                "pgnkit-row-groups-{}-{copies}-{bytes}-{name}.parquet",
                std::process::id()
            ));
            std::fs::write(&path, &data).unwrap();
            let n = SerializedFileReader::new(std::fs::File::open(&path).unwrap())
                .unwrap()
                .metadata()
                .num_row_groups();
            std::fs::remove_file(&path).unwrap();
            n
        };
        (groups("games", games), groups("moves", moves))
    }

    #[test]
    fn a_row_group_is_closed_past_its_bytes() {
        // 1,100 games: two batches. Rows alone keep them in one row group; a byte bound met
        // by the first batch closes a row group after it.
        assert_eq!(row_groups(275, ROW_GROUP_BYTES), (1, 1));
        assert_eq!(row_groups(275, 1), (2, 2));
    }
}
