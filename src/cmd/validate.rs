//! `pgnkit validate`: checks every game of every input and reports each problem with its
//! place, what is wrong and the likely fix.

use std::path::PathBuf;

use clap::ValueEnum;

use crate::outcome::Outcome;
use crate::report::Format;
use crate::rules::adjudicate::{DeadSearch, Insufficient};
use crate::validate::{Validate, ValidateOptions};

/// Check PGN files: legal moves (variations, FEN starts and Chess960 included), results by
/// rule, tags and syntax.
///
/// Each problem is reported with file:line:column, game, move, what is wrong and the likely
/// fix. Exit status: 0 clean, 1 problems found, 2 pgnkit failed.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub input: super::InputArgs,

    /// Output format of the diagnostics.
    #[arg(long, value_enum, default_value_t = FormatArg::Text)]
    pub format: FormatArg,

    /// Treat lenient notation (0-0, nf3, e8Q, Ng1-f3, g1f3...) as errors, not warnings.
    #[arg(long)]
    pub strict: bool,

    /// Exit with status 1 when there are warnings, even without errors.
    #[arg(long)]
    pub warnings_as_errors: bool,

    /// Meaning of "insufficient material": `helpmate` (FIDE: K+N v K+N can still mate) or
    /// `force` (a side that cannot force mate has insufficient material).
    #[arg(long, value_enum, default_value_t = InsufficientArg::Helpmate)]
    pub insufficient: InsufficientArg,

    /// How to look for dead positions beyond material: chasolver's `fast` check or its `full`
    /// search.
    #[arg(long, value_enum, default_value_t = DeadArg::Fast)]
    pub dead_position: DeadArg,

    /// Read piece letters of this language (de, fr, es, it, nl, pt, ru, pl). Letters are
    /// ambiguous between languages, so they are never guessed.
    #[arg(long, value_name = "LANG")]
    pub lang: Option<crate::notation::Lang>,

    /// Replace an illegal move by the one legal move the writer most likely meant, when exactly
    /// one fits (reported as M005 warnings instead of M001 errors).
    #[arg(long)]
    pub repair: bool,

    /// Print the board before each bad move (text format).
    #[arg(long)]
    pub board: bool,

    /// Also report notes: claimable threefold and fifty-move draws, perpetual check.
    #[arg(long)]
    pub notes: bool,

    /// With --format json, also write one record per game (result by rule, final FEN...).
    #[arg(long)]
    pub game_records: bool,

    /// Write every game that has an error, byte for byte as read, to this file (replaced only
    /// when the run succeeds).
    #[arg(long, value_name = "FILE")]
    pub rejects: Option<PathBuf>,

    /// With --notes: check ECO tags against this opening table instead of the built-in one
    /// (lichess's TSV with columns eco, name, pgn; or pgn-extract's eco.pgn).
    #[arg(long, value_name = "FILE")]
    pub eco_table: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    Text,
    Json,
    Csv,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum InsufficientArg {
    Helpmate,
    Force,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DeadArg {
    Fast,
    Full,
}

/// Runs `pgnkit validate`.
///
/// # Errors
///
/// When the output or the rejects file cannot be written.
pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let options = ValidateOptions {
        format: match args.format {
            FormatArg::Text => Format::Text,
            FormatArg::Json => Format::Json,
            FormatArg::Csv => Format::Csv,
        },
        strict: args.strict,
        warnings_as_errors: args.warnings_as_errors,
        insufficient: match args.insufficient {
            InsufficientArg::Helpmate => Insufficient::Helpmate,
            InsufficientArg::Force => Insufficient::Force,
        },
        dead_position: match args.dead_position {
            DeadArg::Fast => DeadSearch::Fast,
            DeadArg::Full => DeadSearch::Full,
        },
        lang: args.lang,
        repair: args.repair,
        board: args.board,
        notes: args.notes,
        game_records: args.game_records,
        rejects: args.rejects,
        eco_table: args.eco_table,
        summary: !args.input.quiet,
    };
    let validate = Validate::new(options)?;
    validate.run(args.input.resolve()?)
}
