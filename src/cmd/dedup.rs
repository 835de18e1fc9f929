//! `pgnkit dedup`: writes each game once, dropping exact copies, the same moves under other
//! tags or layout, games that are the first moves of a longer one and, if asked, games that
//! reach the same position; a CSV report says which game each dropped one duplicates.

use std::path::PathBuf;

use clap::ValueEnum;

use crate::dedup::{parse_size, Dedup, DedupOptions, Keep};
use crate::outcome::Outcome;

/// Remove duplicate games: exact copies, the same moves with other tags, comments or layout,
/// games that stop early (a prefix of a longer game), and the same moves with conflicting
/// results.
///
/// The unique games are written byte for byte as read, in input order. Every input is read
/// once (standard input too): the games wait in temporary files (`--temp-dir`) until the
/// duplicates are known, but those of a plain UTF-8 file, which are copied from the file
/// itself (it must not change meanwhile). Exit status: 0 clean, 1 problems found in the
/// input (games with errors), 2 pgnkit failed.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub input: super::InputArgs,

    /// Write the unique games to this file (`-`: standard output).
    #[arg(long, short, value_name = "FILE")]
    pub output: PathBuf,

    /// Write one CSV row per duplicate: file,game,duplicate_of_file,duplicate_of_game,kind.
    #[arg(long, value_name = "FILE.csv")]
    pub report: Option<PathBuf>,

    /// Which copy of a game is kept: the `first` in input order, or the `best` (a recorded
    /// result, then more tags, then more comments).
    #[arg(long, value_enum, default_value_t = KeepArg::First)]
    pub keep: KeepArg,

    /// Also count as duplicates games that reach the same position after this many plies
    /// (`same-position`), whatever the moves before.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub fuzzy_ply: Option<u32>,

    /// Where the temporary files go (the games' moves, and the bytes of the games of
    /// compressed, decoded or standard input, as large as that input once decompressed): by
    /// default the output's folder.
    #[arg(long, value_name = "DIR")]
    pub temp_dir: Option<PathBuf>,

    /// Memory for what is kept of the games (232 bytes a game): past it, it goes to
    /// sorted runs in the temporary folder. A size in bytes with K, M, G or T (powers of
    /// 1024), as in 512M or 4G; at least 1M.
    #[arg(long, value_name = "SIZE", default_value = "1G", value_parser = parse_size)]
    pub memory_budget: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum KeepArg {
    First,
    Best,
}

/// Runs `pgnkit dedup`.
///
/// # Errors
///
/// An output or a temporary file that cannot be written or read back.
pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let input = args.input.resolve()?;
    let options = DedupOptions {
        output: args.output,
        report: args.report,
        keep: match args.keep {
            KeepArg::First => Keep::First,
            KeepArg::Best => Keep::Best,
        },
        fuzzy_ply: args.fuzzy_ply,
        temp_dir: args.temp_dir,
        memory_budget: args.memory_budget,
        summary: !args.input.quiet,
    };
    Dedup::new(options)?.run(input)
}
