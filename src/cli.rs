//! The command line: top-level clap types. Each subcommand's arguments live next to its `run`
//! in [`crate::cmd`].

use clap::{Parser, Subcommand};

use crate::cmd;
pub use crate::outcome::Outcome;

/// Validate, convert and analyse chess game records (PGN).
///
/// Exit status: 0 = the input is clean; 1 = problems were found in the input;
/// 2 = pgnkit itself failed (unreadable file, bad arguments, an output that cannot be
/// written); 130 = interrupted (Ctrl-C, SIGTERM): no output file was replaced.
#[derive(Debug, Parser)]
#[command(name = "pgnkit", version, about, long_about = None, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

// One value is built per run: the size of the largest variant costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check that every move is legal and every result is the one the rules allow.
    Validate(cmd::validate::Args),
    /// Write CSV reports: games, standings, players, openings, terminations, summary.
    Stats(cmd::stats::Args),
    /// Rewrite games in another notation (SAN, LAN, UCI, figurines, Chinese) or format (PGN,
    /// Chinese book layout, JSON lines, CSV, EPD).
    Convert(cmd::convert::Args),
    /// Write the games that match an expression: players, ratings, dates, results, endings,
    /// positions.
    Select(cmd::select::Args),

    /// Remove duplicate games: copies, the same moves, games that stopped early.
    Dedup(cmd::dedup::Args),
    /// Split games into files by a number of games, event, ECO letter or a tag.
    Split(cmd::split::Args),
    /// Build an opening tree (a table of positions and moves, or a Polyglot book) from the
    /// games' first plies.
    Tree(cmd::tree::Args),
    // No doc comment: the help of these two is their `Args`' (a variant's would replace it).
    Completions(cmd::completions::Args),
    Man(cmd::man::Args),
}

/// Runs the chosen subcommand.
///
/// # Errors
///
/// A fatal error that stopped the run (an output that cannot be written).
pub fn run(cli: Cli) -> anyhow::Result<Outcome> {
    // A signal stops the reading; the games read so far are summed up, no output file is
    // put in place, and one message says what was written.
    crate::report::interrupt::catch_signals();
    let result = dispatch(cli);
    let error = result.as_ref().err().map(|e| format!("{e:#}"));
    if crate::report::interrupt::end_of_run(error) {
        return Ok(Outcome::Interrupted);
    }
    result
}

fn dispatch(cli: Cli) -> anyhow::Result<Outcome> {
    match cli.command {
        Command::Validate(args) => cmd::validate::run(args),
        Command::Stats(args) => cmd::stats::run(args),
        Command::Convert(args) => cmd::convert::run(args),
        Command::Select(args) => cmd::select::run(args),

        Command::Dedup(args) => cmd::dedup::run(args),
        Command::Split(args) => cmd::split::run(args),
        Command::Tree(args) => cmd::tree::run(args),
        Command::Completions(args) => cmd::completions::run(args),
        Command::Man(args) => cmd::man::run(args),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn cli_is_consistent() {
        use clap::CommandFactory;
        super::Cli::command().debug_assert();
    }
}
