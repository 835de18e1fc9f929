//! How the games are written, as `convert` and `select --to/--format` take it on the command
//! line: the notations and formats with their help, mapped to the library's
//! [`ToNotation`] and [`Format`], and the Chinese capture and mate signs.

use clap::ValueEnum;

use crate::convert::{Format, ToNotation};
use crate::notation::write::{CaptureSign, MateSign};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ToArg {
    /// Standard algebraic notation: Nf3 exd5 O-O e8=Q.
    San,
    /// Long algebraic, as python-chess's lan(): Ng1-f3 e4xd5 O-O e7-e8=Q.
    Lan,
    /// UCI: g1f3 e7e8q (e1h1 castling in Chess960).
    Uci,
    /// Figurines: ♘f3 ♗xf7+.
    Fan,
    /// Chinese short record: 马f3 马×e5 e8=后.
    Zh,
    /// Chinese full record: 马g1-f3 马f3×e5 e7-e8=后.
    ZhLong,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// PGN export layout.
    Pgn,
    /// Chinese book layout: a header line and numbered moves.
    Book,
    /// One JSON object a game, every move in every notation.
    Jsonl,
    /// One row a main-line ply.
    Csv,
    /// One position a line.
    Epd,
    /// Two Parquet files in the folder given with -o: games.parquet and moves.parquet.
    Parquet,
}

pub(super) fn parse_capture_sign(s: &str) -> Result<CaptureSign, String> {
    match s {
        "×" | "times" => Ok(CaptureSign::Times),
        "x" => Ok(CaptureSign::X),
        ":" | "colon" => Ok(CaptureSign::Colon),
        _ => Err("expected ×, x or :".into()),
    }
}

pub(super) fn parse_mate_sign(s: &str) -> Result<MateSign, String> {
    match s {
        "≠" | "ne" => Ok(MateSign::NotEqual),
        "#" | "hash" => Ok(MateSign::Hash),
        _ => Err("expected ≠ or #".into()),
    }
}

impl From<ToArg> for ToNotation {
    fn from(to: ToArg) -> ToNotation {
        match to {
            ToArg::San => ToNotation::San,
            ToArg::Lan => ToNotation::Lan,
            ToArg::Uci => ToNotation::Uci,
            ToArg::Fan => ToNotation::Fan,
            ToArg::Zh => ToNotation::Zh,
            ToArg::ZhLong => ToNotation::ZhLong,
        }
    }
}

impl From<FormatArg> for Format {
    fn from(format: FormatArg) -> Format {
        match format {
            FormatArg::Pgn => Format::Pgn,
            FormatArg::Book => Format::Book,
            FormatArg::Jsonl => Format::Jsonl,
            FormatArg::Csv => Format::Csv,
            FormatArg::Epd => Format::Epd,
            FormatArg::Parquet => Format::Parquet,
        }
    }
}
