//! `pgnkit convert`: rewrites games in another move notation (SAN, long algebraic, UCI,
//! figurines, Chinese) and another container (PGN, Chinese book layout, JSON lines, CSV, EPD).
//! Games that do not replay are not written: they go to `--rejects` with their diagnostics.

use std::path::PathBuf;

use super::written::{parse_capture_sign, parse_mate_sign};
use crate::convert::encode::OutputEncoding;
use crate::convert::{Convert, ConvertOptions, Format, ToNotation};
use crate::notation::write::{CaptureSign, MateSign};
use crate::notation::Lang;
use crate::outcome::Outcome;

/// Convert games to another notation or format: SAN, long algebraic, UCI, figurines or Chinese
/// moves, in PGN, the Chinese book layout, JSON lines, CSV or EPD.
///
/// Games with an illegal or unreadable move are not written: they go byte for byte to
/// --rejects, and their diagnostics to standard error. Exit status: 0 every game written,
/// 1 some games rejected, 2 pgnkit failed.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub input: super::InputArgs,

    /// Move notation to write.
    #[arg(long, value_enum, default_value_t = ToNotation::San)]
    pub to: ToNotation,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Pgn)]
    pub format: Format,

    /// Chinese moves in traditional characters (馬 車) instead of simplified (马 车).
    #[arg(long)]
    pub traditional: bool,

    /// Capture sign of Chinese moves: `×` (default), `x` or `:`.
    // No clap default: a sign given with a notation that has none is refused.
    #[arg(long, value_name = "SIGN", value_parser = parse_capture_sign)]
    pub capture_sign: Option<CaptureSign>,

    /// Mate sign of Chinese moves: `≠` (default) or `#`.
    #[arg(long, value_name = "SIGN", value_parser = parse_mate_sign)]
    pub mate_sign: Option<MateSign>,

    /// Piece letters of this language (de, fr, es, it, nl, pt, ru, pl), for reading the input
    /// and for writing --to san or lan. Letters are ambiguous, so they are never guessed.
    #[arg(long, value_name = "LANG")]
    pub lang: Option<Lang>,

    /// Piece letters of this language for reading the input only (en, de, fr, ...); instead of
    /// --lang's language.
    #[arg(long, value_name = "LANG")]
    pub input_lang: Option<Lang>,

    /// Piece letters of this language for writing --to san or lan only (en, de, fr, ...);
    /// instead of --lang's language: `--output-lang de` writes English SAN in German letters.
    #[arg(long, value_name = "LANG")]
    pub output_lang: Option<Lang>,

    /// Drop comments.
    #[arg(long)]
    pub no_comments: bool,

    /// Drop annotation glyphs (NAGs).
    #[arg(long)]
    pub no_nags: bool,

    /// Drop variations.
    #[arg(long)]
    pub no_variations: bool,

    /// Replace an illegal move by the one legal move the writer most likely meant, when exactly
    /// one fits; the replacement is marked in a comment and reported as a warning.
    #[arg(long)]
    pub repair: bool,

    /// Which rules to follow beyond legality: all (repetitions, the move counters and dead
    /// positions too) or legal (checkmate and stalemate only, for readers that want the moves
    /// and the positions sooner).
    #[arg(long, value_name = "LEVEL", default_value = "all")]
    pub checks: crate::rules::game::Checks,

    /// Rewrite the Result tag and the result where the rules decide it (checkmate, stalemate,
    /// dead position, fivefold repetition, 75 moves).
    #[arg(long)]
    pub fix_results: bool,

    /// Write to this file instead of standard output (`-`): a regular file atomically (a
    /// temporary file renamed at the end), a device or pipe directly. It may be one of the inputs (a
    /// rewrite in place): games that are not converted are then kept in it as they were
    /// (with --format pgn), or go to --rejects.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,

    #[command(flatten)]
    pub tables: super::tables::TableArgs,

    /// Write every game that is not converted, byte for byte as read, to this file (`-`:
    /// standard output, with -o FILE).
    #[arg(long, value_name = "FILE")]
    pub rejects: Option<PathBuf>,

    /// Name each game's opening in ECO and Opening tags where it has none: the deepest named
    /// position its main line reaches (with --format csv: columns eco and opening at the end).
    #[arg(long)]
    pub add_eco: bool,

    /// With --add-eco: replace the ECO and Opening tags a game has (a game the table does not
    /// classify keeps its own).
    #[arg(long)]
    pub eco_overwrite: bool,

    /// With --add-eco: name openings from this table instead of the built-in one (lichess's
    /// TSV with columns eco, name, pgn; or pgn-extract's eco.pgn).
    #[arg(long, value_name = "FILE")]
    pub eco_table: Option<PathBuf>,

    /// Write a game that does not replay instead of rejecting it: its moves up to its first
    /// error, the error and the rest as recorded in comments (pgn-extract's --keepbroken).
    /// It still counts as rejected (exit status 1).
    #[arg(long, alias = "keepbroken")]
    pub keep_broken: bool,

    /// Write the games in this encoding, for software that reads nothing else: latin1, gbk,
    /// big5, utf-16 (little-endian with a byte order mark), utf-16le, utf-16be (default
    /// utf-8). A game with a character the encoding cannot hold is rejected, an error for
    /// each such character naming where it is.
    #[arg(long, value_name = "ENC", default_value = "utf-8")]
    pub output_encoding: OutputEncoding,

    /// Convert only the games this expression selects, in `pgnkit select`'s language (tags,
    /// ratings, dates, positions, material...): `--where 'WhiteElo >= 2000'`. The others are
    /// neither written nor rejected; the summary says how many were selected.
    #[arg(long = "where", short = 'w', value_name = "EXPR")]
    pub expr: Option<String>,

    #[command(flatten)]
    pub rewrite: super::rewrite::RewriteArgs,
}

impl Args {
    /// The conversion the flags ask for.
    ///
    /// # Errors
    ///
    /// A roster file (`--tag-order`) that cannot be read, or pgn-extract's `--startply`.
    pub fn options(&self) -> anyhow::Result<ConvertOptions> {
        Ok(ConvertOptions {
            to: self.to,
            format: self.format,
            traditional: self.traditional,
            capture_sign: self.capture_sign,
            mate_sign: self.mate_sign,
            lang: self.lang,
            input_lang: self.input_lang,
            output_lang: self.output_lang,
            no_comments: self.no_comments,
            no_nags: self.no_nags,
            no_variations: self.no_variations,
            repair: self.repair,
            checks: self.checks,
            fix_results: self.fix_results,
            output: self.output.clone(),
            fen: self.tables.fen,
            no_fen: self.tables.no_fen,
            numbers: self.tables.numbers,
            boards: self.tables.boards,
            moves_columns: self.tables.moves_columns,
            no_movetext: self.tables.no_movetext,
            parquet_compression: self.tables.parquet_compression,
            excel: self.tables.excel,
            raw_csv: self.tables.raw_csv,
            rejects: self.rejects.clone(),
            add_eco: self.add_eco,
            eco_overwrite: self.eco_overwrite,
            eco_table: self.eco_table.clone(),
            max_game_size: self.input.max_game_size,
            quiet: self.input.quiet,
            every_row: false,
            games_only: false,
            moves_only: false,
            keep_broken: self.keep_broken,
            output_encoding: self.output_encoding,
            rewrite: self.rewrite.rewrite()?,
            where_expr: self.expr.clone(),
        })
    }
}

/// Runs `pgnkit convert`.
///
/// # Errors
///
/// An option that does not apply with the others, an input that cannot be listed; when the
/// output or the rejects file cannot be created or written, or a rewrite in place would lose
/// games.
pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let convert = Convert::new(args.options()?)?;
    convert.run(args.input.resolve()?)
}
