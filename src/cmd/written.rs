//! How the games are written, as `convert` and `select --to/--format` take it on the command
//! line: the library's notations and formats ([`ToNotation`], [`Format`]) as clap's values,
//! and the Chinese capture and mate signs.

use clap::builder::PossibleValue;
use clap::ValueEnum;

use crate::convert::{Format, ToNotation};
use crate::notation::write::{CaptureSign, MateSign};

// The values of `--to` and `--format` are the library's, with its help: one list of each.

impl ValueEnum for ToNotation {
    fn value_variants<'a>() -> &'a [Self] {
        &ToNotation::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.name()).help(self.help()))
    }
}

impl ValueEnum for Format {
    fn value_variants<'a>() -> &'a [Self] {
        &Format::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.name()).help(self.help()))
    }
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
