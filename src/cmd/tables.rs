//! The options of `convert`'s tables: the Parquet files' columns and the CSV's spreadsheet
//! safety, a group of their own so that the command's file stays its arguments and a call.

use crate::convert::columns::MoveColumns;
use crate::convert::parquet::PageCompression;

/// The columns of the Parquet and CSV outputs.
#[derive(Debug, clap::Args)]
pub struct TableArgs {
    /// With --format parquet: add the position after each move (`fen`) to moves.parquet, which
    /// makes it about three times as large and the conversion slower.
    #[arg(long)]
    pub fen: bool,

    /// With --format parquet: each move as numbers in moves.parquet (from_square, to_square,
    /// piece, captured, promotion, is_check, is_capture, is_castling, is_en_passant) and each
    /// game's outcome as numbers in games.parquet (outcome, termination_code, is_checkmate,
    /// is_stalemate, is_insufficient_material).
    #[arg(long)]
    pub numbers: bool,

    /// With --format parquet: the position after each move as numbers in moves.parquet
    /// (board: 64 piece codes from a1; turn, castling, ep_square, halfmove_clock) and the
    /// start position in games.parquet (start_board, start_turn, ...).
    #[arg(long)]
    pub boards: bool,

    /// With --format parquet: the columns of moves.parquet besides file, game and ply, as a
    /// comma-separated list of names and groups (text, numbers, boards, notes, default);
    /// --fen, --numbers and --boards add theirs. Default: san,uci,clock,eval,eval_mate,
    /// comment,nags.
    #[arg(long, value_name = "LIST")]
    pub moves_columns: Option<MoveColumns>,

    /// With --format parquet: leave the movetext column out of games.parquet; no move is
    /// written again, which makes the conversion faster.
    #[arg(long)]
    pub no_movetext: bool,

    /// With --format parquet: how the pages are compressed: zstd (the default, level 1),
    /// zstd:LEVEL (1 to 22: smaller files, slower), snappy (pyarrow's, DuckDB's and Spark's
    /// default), lz4 or none.
    #[arg(long, value_name = "CODEC")]
    pub parquet_compression: Option<PageCompression>,

    /// What --format parquet does without --fen, which the option asked for before --fen
    /// existed: still taken, so that scripts written then keep working.
    #[arg(long, hide = true, conflicts_with = "fen")]
    pub no_fen: bool,

    /// With --format csv: start the output with a UTF-8 byte order mark, so Excel shows
    /// non-ASCII names.
    #[arg(long)]
    pub excel: bool,

    /// With --format csv: keep text from the input as it is, even cells a spreadsheet would
    /// run as formulas.
    #[arg(long)]
    pub raw_csv: bool,
}
