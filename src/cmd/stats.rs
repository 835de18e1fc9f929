//! `pgnkit stats`: CSV reports (games, standings, players, openings, terminations, summary)
//! from replayed games, and `pgnkit stats merge` to combine partial results. The arguments
//! become [`StatsOptions`] or [`MergeOptions`]; the engine is [`crate::stats::Stats`].

use std::path::PathBuf;

use clap::ValueEnum;

use crate::outcome::{say, Outcome};
use crate::report::interrupt::interrupted;
use crate::stats::engine::MAX_OPENING_PLIES;
use crate::stats::reports::{self, MAX_INITIAL_ELO};
use crate::stats::standings::EventKind;
use crate::stats::tiebreak::team::TeamTieBreakList;
use crate::stats::tiebreak::TieBreakList;
use crate::stats::{MergeOptions, Merger, ReportName, ReportOptions, Stats, StatsOptions};

/// Write CSV reports from PGN files: games, standings (小分 / 对手分), players (Elo, club
/// points), openings, terminations and a summary.
///
/// `--out DIR` writes every report; `--report NAME` writes one to standard output (or `-o`).
/// `--partial FILE` saves mergeable results for `pgnkit stats merge`. Exit status: 0 when the
/// reports were written and no game had an error, 1 when some game had an error (the reports
/// are still complete), 2 when pgnkit failed (unreadable input, unwritable output).
#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct Args {
    #[command(subcommand)]
    pub merge: Option<Sub>,

    #[command(flatten)]
    pub input: super::InputArgs,

    #[command(flatten)]
    pub output: OutputArgs,

    /// Group openings by their first N plies in SAN instead of the ECO tag (0 to 1000; 0: by
    /// the ECO tag).
    #[arg(
        long,
        value_name = "N",
        default_value_t = 0,
        value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(0..=MAX_OPENING_PLIES as u64)
    )]
    pub opening_plies: usize,

    /// Group a game without an ECO tag in openings.csv by the code of the deepest named
    /// position its moves reach (instead of `?`).
    #[arg(long)]
    pub add_eco: bool,

    /// Also write mergeable partial results (JSON lines) to this file.
    #[arg(long, value_name = "FILE")]
    pub partial: Option<PathBuf>,

    /// Rated games kept in memory before a sorted run goes to a temporary file (for tests).
    #[arg(long, value_name = "GAMES", hide = true)]
    pub rating_run: Option<usize>,

    /// Bytes of standings games kept in memory before a sorted run goes to a temporary file,
    /// and of an event's pairs before they do (for tests).
    #[arg(long, value_name = "BYTES", hide = true)]
    pub standings_budget: Option<usize>,

    #[command(flatten)]
    pub ties: TieArgs,
}

/// The options of the C.07 tie-breaks; shared by `stats` and `stats merge`.
#[derive(Debug, clap::Args)]
pub struct TieArgs {
    /// Rank standings.csv by points, then by these FIDE C.07 tie-breaks in order, one column
    /// each (e.g. `ARO-C1,BH-C1,BH,DE` or `DE,SB,WIN,BWG,KS`; see docs/stats.md).
    #[arg(long, value_name = "LIST", conflicts_with = "tiebreak")]
    pub tiebreaks: Option<TieBreakList>,

    /// With --tiebreaks: rank the team tables by match points (2 a match won, 1 drawn), then
    /// by these team tie-breaks in order, one `team:` column each (e.g. `DE,GP,SB` or
    /// `GP,EMGSB,BH-C1` or `DE,GP,BC,TBR,BBE`; see docs/stats.md).
    #[arg(long, value_name = "LIST", requires = "tiebreaks")]
    pub team_tiebreaks: Option<TeamTieBreakList>,

    /// With --tiebreaks: count a decisive game without moves as played over the board (a
    /// broadcast without move input, a tags-only export), not as a forfeit; only a
    /// `Termination` of `forfeit` or `unplayed` then makes a forfeit.
    #[arg(long, requires = "tiebreaks")]
    pub played_without_moves: bool,
}

#[derive(Debug, clap::Subcommand)]
pub enum Sub {
    /// Combine partial results written with `--partial` into the reports of all their games.
    Merge(MergeArgs),
}

#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// Partial results, in input order (game order decides ties in ratings).
    #[arg(required = true)]
    pub parts: Vec<PathBuf>,

    #[command(flatten)]
    pub output: OutputArgs,

    /// Do not print the closing summary.
    #[arg(long, short)]
    pub quiet: bool,

    /// Rated games kept in memory before a sorted run goes to a temporary file (for tests).
    #[arg(long, value_name = "GAMES", hide = true)]
    pub rating_run: Option<usize>,

    /// Bytes of standings games kept in memory before a sorted run goes to a temporary file,
    /// and of an event's pairs before they do (for tests).
    #[arg(long, value_name = "BYTES", hide = true)]
    pub standings_budget: Option<usize>,

    #[command(flatten)]
    pub ties: TieArgs,
}

/// Where and how reports are written; shared by `stats` and `stats merge`.
#[derive(Debug, clap::Args)]
pub struct OutputArgs {
    /// Write every report into this directory (created if missing).
    #[arg(long, value_name = "DIR", conflicts_with = "report")]
    pub out: Option<PathBuf>,

    /// Write only this report, to standard output or `-o FILE`.
    #[arg(long, value_enum, value_name = "NAME")]
    pub report: Option<ReportArg>,

    /// With --report: the file to write instead of standard output (`-`).
    #[arg(short = 'o', long = "output", value_name = "FILE", requires = "report")]
    pub output: Option<PathBuf>,

    /// Tie-break for every event instead of detecting round robin (小分) or Swiss (对手分).
    #[arg(long, value_enum)]
    pub tiebreak: Option<TiebreakArg>,

    /// Elo of players no game tags with `WhiteElo`/`BlackElo`, 0 to 4000 (default 1500).
    // No clap default: given when players.csv is not written, it is refused.
    #[arg(long, value_name = "ELO", value_parser = parse_initial_elo)]
    pub initial_elo: Option<f64>,

    /// Start every file with a UTF-8 byte order mark, so Excel shows non-ASCII names.
    #[arg(long)]
    pub excel: bool,

    /// Keep text from the input as it is, even cells a spreadsheet would run as formulas.
    #[arg(long)]
    pub raw_csv: bool,

    /// Name openings (openings.csv's name column, and --add-eco) from this table instead of
    /// the built-in one (lichess's TSV with columns eco, name, pgn; or pgn-extract's eco.pgn).
    #[arg(long, value_name = "FILE")]
    pub eco_table: Option<PathBuf>,
}

/// A report of `pgnkit stats`, as `--report` takes it ([`ReportName`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ReportArg {
    Games,
    Standings,
    Players,
    Openings,
    Terminations,
    Summary,
}

/// The tie-break `--tiebreak` forces on every event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TiebreakArg {
    /// 小分 (Sonneborn-Berger), the round-robin tie-break.
    SonnebornBerger,
    /// 对手分 (Buchholz), the Swiss tie-break.
    Buchholz,
}

impl From<ReportArg> for ReportName {
    fn from(arg: ReportArg) -> ReportName {
        match arg {
            ReportArg::Games => ReportName::Games,
            ReportArg::Standings => ReportName::Standings,
            ReportArg::Players => ReportName::Players,
            ReportArg::Openings => ReportName::Openings,
            ReportArg::Terminations => ReportName::Terminations,
            ReportArg::Summary => ReportName::Summary,
        }
    }
}

impl From<TiebreakArg> for EventKind {
    fn from(arg: TiebreakArg) -> EventKind {
        match arg {
            TiebreakArg::SonnebornBerger => EventKind::RoundRobin,
            TiebreakArg::Buchholz => EventKind::Swiss,
        }
    }
}

impl From<OutputArgs> for ReportOptions {
    fn from(args: OutputArgs) -> ReportOptions {
        ReportOptions {
            out: args.out,
            report: args.report.map(ReportName::from),
            output: args.output,
            tiebreak: args.tiebreak.map(EventKind::from),
            initial_elo: args.initial_elo,
            excel: args.excel,
            raw_csv: args.raw_csv,
            eco_table: args.eco_table,
        }
    }
}

/// Runs `pgnkit stats` (or `pgnkit stats merge`).
///
/// # Errors
///
/// When an option does not apply, an output cannot be created or written, or a partial file
/// cannot be read.
pub fn run(args: Args) -> anyhow::Result<Outcome> {
    if let Some(Sub::Merge(merge)) = args.merge {
        return run_merge(merge);
    }
    let options = StatsOptions {
        reports: args.output.into(),
        opening_plies: args.opening_plies,
        add_eco: args.add_eco,
        partial: args.partial,
        rating_run: args.rating_run,
        standings_budget: args.standings_budget,
        tiebreaks: args.ties.tiebreaks,
        team_tiebreaks: args.ties.team_tiebreaks,
        played_without_moves: args.ties.played_without_moves,
        quiet: args.input.quiet,
    };
    Stats::new(options)?.run(args.input.resolve()?)
}

/// Runs `pgnkit stats merge`.
fn run_merge(args: MergeArgs) -> anyhow::Result<Outcome> {
    let played_without_moves = args.ties.played_without_moves;
    let mut merger = Merger::new(MergeOptions {
        reports: args.output.into(),
        rating_run: args.rating_run,
        standings_budget: args.standings_budget,
        tiebreaks: args.ties.tiebreaks,
        team_tiebreaks: args.ties.team_tiebreaks,
        played_without_moves,
    })?;
    for path in &args.parts {
        if interrupted() {
            break;
        }
        merger.add_file(path)?;
    }
    if let Some(stopped) = reports::unfinished(0)? {
        return Ok(stopped);
    }
    let parts = args.parts.len();
    let merged = merger.finish()?;
    if !args.quiet {
        say(format_args!(
            "pgnkit: merged {parts} part(s): {} game(s), {} with errors, {} event(s)",
            merged.games, merged.games_with_errors, merged.events
        ))?;
        reports::note_casual(merged.casual_games)?;
        reports::note_moveless(merged.moveless, played_without_moves)?;
    }
    Ok(merged.outcome)
}

/// Reads `--initial-elo`: a number from 0 to 4000 (`nan` or `inf` once made every rating
/// `NaN`).
fn parse_initial_elo(s: &str) -> Result<f64, String> {
    let elo: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a number: give an Elo from 0 to 4000, as 1500"))?;
    if !(0.0..=MAX_INITIAL_ELO).contains(&elo) {
        return Err(format!(
            "{s} is not in 0..=4000: give an Elo from 0 to 4000, as 1500"
        ));
    }
    Ok(elo)
}
