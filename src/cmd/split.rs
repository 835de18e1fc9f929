//! `pgnkit split`: writes each game, byte for byte as read, to a file of a folder named for
//! its group: a number of games, its event, its ECO letter or a tag's value.

use std::path::PathBuf;

use crate::outcome::Outcome;
use crate::split::{By, Split, SplitOptions};

/// Split games into files: by a number of games, by event, by ECO code or letter or by a
/// tag's value.
///
/// Each game is written byte for byte as read, in input order, to DIR/games-0001.pgn,
/// DIR/event-<name>.pgn, DIR/eco-B90.pgn, DIR/eco-B.pgn or DIR/tag-<Tag>-<value>.pgn; a game
/// without the tag goes to the `unknown` file. By ECO, a game without a usable ECO tag is
/// classified by its moves. The files appear in DIR only once all are written. Exit status:
/// 0 clean, 1 problems found in the inputs, 2 pgnkit failed.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub input: super::InputArgs,

    /// How to split: `games:N` (N games a file), `event`, `eco` (the ECO code, from the tag
    /// or else the moves), `eco-letter` (A to E, likewise) or `tag:NAME` (any tag's value).
    #[arg(long, value_name = "MODE", value_parser = By::parse)]
    pub by: By,

    /// With `--by eco` or `eco-letter`: classify by this opening table instead of the
    /// built-in one (lichess's TSV columns eco, name, pgn, or pgn-extract's eco.pgn).
    #[arg(long, value_name = "FILE")]
    pub eco_table: Option<PathBuf>,

    /// The folder to write the files into (created if missing). Files of the same names are
    /// replaced; other files are left alone.
    #[arg(long, short, value_name = "DIR")]
    pub output: PathBuf,
}

/// Runs `pgnkit split`.
///
/// # Errors
///
/// When the folder or a file in it cannot be written.
pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let input = args.input.resolve()?;
    let options = SplitOptions {
        by: args.by,
        eco_table: args.eco_table,
        output: args.output,
        summary: !args.input.quiet,
    };
    Split::new(options)?.run(input)
}
