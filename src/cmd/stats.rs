//! `pgnkit stats`: CSV reports (games, standings, players, openings, terminations, summary)
//! from replayed games, and `pgnkit stats merge` to combine partial results.

use std::borrow::Cow;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context};
use clap::ValueEnum;
use serde::{Deserialize, Serialize};
use shakmaty::{san::San, Chess, Move};

use crate::diag::Severity;
use crate::input::pipeline::{Game, Lexing};
use crate::input::Inputs;
use crate::notation::CheckClaim;
use crate::outcome::Outcome;
use crate::outcome::{say, WriteError};
use crate::pgn::lexer::Lexed;
use crate::report::interrupt::interrupted;
use crate::report::spill::TempFileStore;
use crate::report::staged::{self, StagedFiles};
use crate::report::stats::{self as csvout, CsvOptions, GameRow, TableOptions};
use crate::rules::game::CheckOptions;
use crate::rules::visit::{MoveAt, Needs, Positions, Visitor};
use crate::stats::chrono::DEFAULT_RUN_LEN;
use crate::stats::elo::EloConfig;
use crate::stats::eventlog::DEFAULT_BUDGET;
use crate::stats::standings::{EventKind, KindChoice};
use crate::stats::tally::{result_text, termination_by_rule, GameSummary, Tally, TerminationKey};
use crate::stats::tiebreak::log::{names_a_bye, Play, TiebreakGame, TiebreakLog};
use crate::stats::tiebreak::team::{TeamTieBreak, TeamTieBreakList};
use crate::stats::tiebreak::TieBreakList;
use crate::stats::{
    EventEntry, EventKey, GameDate, RatedEntry, Score, ScoredGame, StatsAccumulator,
};

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
        value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(0..=MAX_OPENING_PLIES)
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
}

/// Where and how reports are written; shared by `stats` and `stats merge`.
#[derive(Debug, clap::Args)]
pub struct OutputArgs {
    /// Write every report into this directory (created if missing).
    #[arg(long, value_name = "DIR", conflicts_with = "report")]
    pub out: Option<PathBuf>,

    /// Write only this report, to standard output or `-o FILE`.
    #[arg(long, value_enum, value_name = "NAME")]
    pub report: Option<ReportName>,

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

/// A report of `pgnkit stats`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ReportName {
    Games,
    Standings,
    Players,
    Openings,
    Terminations,
    Summary,
}

impl ReportName {
    const ALL: [ReportName; 6] = [
        ReportName::Games,
        ReportName::Standings,
        ReportName::Players,
        ReportName::Openings,
        ReportName::Terminations,
        ReportName::Summary,
    ];

    fn file_name(self) -> &'static str {
        match self {
            ReportName::Games => "games.csv",
            ReportName::Standings => "standings.csv",
            ReportName::Players => "players.csv",
            ReportName::Openings => "openings.csv",
            ReportName::Terminations => "terminations.csv",
            ReportName::Summary => "summary.csv",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TiebreakArg {
    /// 小分 (Sonneborn-Berger), the round-robin tie-break.
    SonnebornBerger,
    /// 对手分 (Buchholz), the Swiss tie-break.
    Buchholz,
}

/// The first line of a partial file, naming its format.
#[derive(Debug, Serialize, Deserialize)]
struct PartHeader {
    format: String,
    version: u32,
    opening_plies: usize,
}

const PART_FORMAT: &str = "pgnkit-stats-partial";
// 4: terminations are counted by `Termination` tag too; events' games carry their round.
const PART_VERSION: u32 = 4;

/// Everything a part counted but the rating log; its last line.
#[derive(Debug, Serialize, Deserialize)]
struct PartTotals {
    acc: StatsAccumulator,
    tally: Tally,
}

/// One line of a partial file: the header, a row of `games.csv`, a rated game (names spelled
/// out, in chronological order), a finished game as standings count it (event and names
/// spelled out, event by event), or the totals.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum PartLine<'a> {
    Header(PartHeader),
    Game(Box<GameRow>),
    #[serde(borrow)]
    Rated(RatedEntry<'a>),
    #[serde(borrow)]
    Event(EventEntry<'a>),
    Totals(Box<PartTotals>),
}

/// [`PartLine::Game`], [`PartLine::Rated`] and [`PartLine::Event`] as written, without
/// copying.
#[derive(Serialize)]
#[serde(rename_all = "lowercase")]
enum PartLineOut<'a> {
    Game(&'a GameRow),
    Rated(&'a RatedEntry<'a>),
    Event(&'a EventEntry<'a>),
}

/// Where games.csv rows go while games are read.
struct GameSinks {
    csv: Option<csv::Writer<Box<dyn Write>>>,
    partial: Option<BufWriter<File>>,
    csv_opts: CsvOptions,
}

impl GameSinks {
    fn write(&mut self, row: &GameRow) -> anyhow::Result<()> {
        if let Some(w) = self.csv.as_mut() {
            csvout::write_game(w, row, self.csv_opts)?;
        }
        if let Some(p) = self.partial.as_mut() {
            serde_json::to_writer(&mut *p, &PartLineOut::Game(row))?;
            p.write_all(b"\n")?;
        }
        Ok(())
    }
}

/// Collects the SAN of the first main-line moves.
struct OpeningMoves {
    wanted: usize,
    moves: String,
    count: usize,
    stopped: bool,
}

impl Visitor for OpeningMoves {
    fn needs(&self) -> Needs {
        Needs {
            // Positions cost a copy per ply: ask for them only until the opening is complete.
            positions: Positions::First(u32::try_from(self.wanted).unwrap_or(u32::MAX)),
            movetext: false,
            tags: false,
            main_moves: false,
        }
    }

    fn play(&mut self, at: MoveAt, before: &Chess, mv: Move, _: CheckClaim, _: Option<&str>) {
        if at.depth != 0 || self.stopped || self.count >= self.wanted {
            return;
        }
        if self.count > 0 {
            self.moves.push(' ');
        }
        San::from_move(before, mv).append_to_string(&mut self.moves);
        self.count += 1;
    }

    fn unplayed(&mut self, at: MoveAt) {
        if at.depth == 0 {
            self.stopped = true;
        }
    }
}

/// What one game contributes to the reports, worked out on a worker thread.
struct GameFacts {
    row: GameRow,
    opening: String,
    score: Option<Score>,
    date: Option<GameDate>,
    termination: TerminationKey,
    white_team: Option<String>,
    black_team: Option<String>,
    white_elo: Option<u32>,
    black_elo: Option<u32>,
    /// For tie-breaks: how the game was played (a forfeit?), and the FIDE ids.
    play: Play,
    white_fide_id: Option<String>,
    black_fide_id: Option<String>,
    /// The `Board` tag, if a number (team tie-breaks).
    board: Option<u32>,
}

impl crate::input::Found for GameFacts {
    fn errors(&self) -> u64 {
        u64::from(self.row.errors)
    }
}

/// The tags `stats` reads, found in one pass over a game's tags: the first of each name, as
/// [`Lexed::tag`] gives it (which looks for one name at a time).
#[derive(Default)]
struct StatsTags<'a> {
    event: Option<&'a str>,
    site: Option<&'a str>,
    date: Option<&'a str>,
    round: Option<&'a str>,
    white: Option<&'a str>,
    black: Option<&'a str>,
    white_elo: Option<&'a str>,
    black_elo: Option<&'a str>,
    eco: Option<&'a str>,
    time_control: Option<&'a str>,
    termination: Option<&'a str>,
    white_team: Option<&'a str>,
    black_team: Option<&'a str>,
    white_fide_id: Option<&'a str>,
    black_fide_id: Option<&'a str>,
    board: Option<&'a str>,
}

impl<'a> StatsTags<'a> {
    fn of(lexed: &'a Lexed) -> Self {
        let mut tags = StatsTags::default();
        for tag in lexed.tags() {
            let slot = match tag.name {
                "Event" => &mut tags.event,
                "Site" => &mut tags.site,
                "Date" => &mut tags.date,
                "Round" => &mut tags.round,
                "White" => &mut tags.white,
                "Black" => &mut tags.black,
                "WhiteElo" => &mut tags.white_elo,
                "BlackElo" => &mut tags.black_elo,
                "ECO" => &mut tags.eco,
                "TimeControl" => &mut tags.time_control,
                "Termination" => &mut tags.termination,
                "WhiteTeam" => &mut tags.white_team,
                "BlackTeam" => &mut tags.black_team,
                "WhiteFideId" => &mut tags.white_fide_id,
                "BlackFideId" => &mut tags.black_fide_id,
                "Board" => &mut tags.board,
                _ => continue,
            };
            slot.get_or_insert(tag.value);
        }
        tags
    }
}

/// Replays one game and collects its facts (runs on a worker thread).
fn game_facts(
    game: &mut Game<'_>,
    name: &str,
    opts: &CheckOptions,
    plies: usize,
    rows: bool,
    eco_table: Option<&'static crate::eco::Table>,
) -> GameFacts {
    let mut opening = OpeningMoves {
        wanted: plies,
        moves: String::new(),
        count: 0,
        stopped: false,
    };
    // `--add-eco` classifies only the games that openings.csv would group under `?`.
    let untagged = plies == 0 && crate::eco::known_tag(game.lexed.tag("ECO")).is_none();
    let mut eco = eco_table
        .filter(|_| untagged)
        .map(crate::eco::EcoObserver::new);
    let report = match eco.as_mut() {
        Some(eco) => game.check(opts, eco),
        None => game.check(opts, &mut opening),
    };
    let tags = StatsTags::of(game.lexed);
    fn tag(t: Option<&str>) -> &str {
        t.unwrap_or("")
    }
    let elo = |t: Option<&str>| {
        t.and_then(|e| e.trim().parse::<u32>().ok())
            .filter(|&e| e > 0)
    };
    // What only games.csv and partial files show (the tallies and standings read the rest)
    // is kept only when rows are written: a string, or a FEN, a game is a cost otherwise.
    // (Texts pgnkit names, and the standard results, are borrowed: kept either way.)
    let only_in_rows = |s: &str| if rows { s.to_owned() } else { String::new() };
    let (termination, termination_ply) = termination_by_rule(&report);
    let errors = report.count(Severity::Error);
    let first_error = report
        .findings
        .iter()
        .find(|f| f.severity == Severity::Error)
        .map(|f| f.code.as_str());
    let result = report.result_tag.as_deref().unwrap_or("");
    let date = GameDate::parse(tag(tags.date));
    let result_by_rule = report.result_by_rule.map(|r| r.as_str());
    let opening_key = if plies > 0 {
        opening.moves
    } else {
        crate::eco::known_tag(tags.eco)
            .or_else(|| Some(&eco.as_ref()?.result()?.eco))
            .unwrap_or("?")
            .to_owned()
    };
    GameFacts {
        opening: opening_key,
        score: Score::from_pgn(result),
        date,
        termination: TerminationKey {
            termination: Cow::Borrowed(termination),
            result_by_rule: result_by_rule.map(Cow::Borrowed),
            result: result_text(result),
            tag: tag(tags.termination).into(),
        },
        white_team: tags.white_team.map(str::to_owned),
        black_team: tags.black_team.map(str::to_owned),
        white_elo: elo(tags.white_elo),
        black_elo: elo(tags.black_elo),
        play: Score::from_pgn(result)
            .map_or(Play::Moves, |s| Play::of(tags.termination, report.plies, s)),
        white_fide_id: tags.white_fide_id.map(str::to_owned),
        black_fide_id: tags.black_fide_id.map(str::to_owned),
        board: tags.board.and_then(|b| b.trim().parse().ok()),
        row: GameRow {
            file: only_in_rows(name),
            game: game.number,
            line: game.line,
            event: tag(tags.event).into(),
            site: tag(tags.site).into(),
            date: only_in_rows(tag(tags.date)),
            round: tag(tags.round).into(),
            white: tag(tags.white).into(),
            black: tag(tags.black).into(),
            result: result_text(result),
            white_elo: only_in_rows(tag(tags.white_elo)),
            black_elo: only_in_rows(tag(tags.black_elo)),
            eco: only_in_rows(tag(tags.eco)),
            time_control: only_in_rows(tag(tags.time_control)),
            termination: only_in_rows(tag(tags.termination)),
            plies: report.plies,
            result_by_rule: Cow::Borrowed(result_by_rule.unwrap_or("")),
            termination_by_rule: Cow::Borrowed(termination),
            termination_ply,
            final_fen: if rows {
                report.final_fen().unwrap_or_default()
            } else {
                String::new()
            },
            legal: report.legal,
            errors: errors as u32,
            warnings: report.count(Severity::Warning) as u32,
            first_error: Cow::Borrowed(first_error.unwrap_or("")),
        },
    }
}

/// Runs `pgnkit stats` (or `pgnkit stats merge`).
///
/// # Errors
///
/// When an output cannot be created or written, or a partial file cannot be read.
pub fn run(args: Args) -> anyhow::Result<Outcome> {
    if let Some(Sub::Merge(merge)) = args.merge {
        return run_merge(merge);
    }
    refuse_options_that_do_not_apply(&args.output, args.partial.is_some(), args.opening_plies)?;
    let output = &args.output;
    if output.out.is_none() && output.report.is_none() && args.partial.is_none() {
        bail!("nothing to write: give --out DIR, --report NAME or --partial FILE");
    }
    // The inputs are listed before any output is created: a new one is never read.
    let mut inputs = Inputs::new(args.input.resolve()?)?;
    crate::report::staged::refuse_inputs_as_outputs(
        &[
            ("--partial", args.partial.as_deref()),
            ("-o", output.output.as_deref()),
        ],
        inputs.sources(),
    )?;
    crate::report::staged::refuse_two_on_stdout(&[
        (
            "--report",
            output.report.is_some() && output.output.as_deref().is_none_or(staged::is_stdout),
        ),
        (
            "--partial",
            args.partial.as_deref().is_some_and(staged::is_stdout),
        ),
    ])?;
    let started = Instant::now();
    let csv_opts = CsvOptions {
        raw: output.raw_csv,
    };
    // Every file replaces the old one only when all are complete (see `finish`).
    let mut staged = StagedFiles::new();
    let mut sinks = GameSinks {
        csv: open_games_csv(output, &mut staged)?,
        partial: match &args.partial {
            Some(path) => Some(BufWriter::new(staged.open(Some(path))?)),
            None => None,
        },
        csv_opts,
    };
    if let Some(p) = sinks.partial.as_mut() {
        let header = PartLine::Header(PartHeader {
            format: PART_FORMAT.into(),
            version: PART_VERSION,
            opening_plies: args.opening_plies,
        });
        serde_json::to_writer(&mut *p, &header)?;
        p.write_all(b"\n")?;
    }

    // Whether games' rows are written (games.csv or a partial file), or only tallied.
    let rows = sinks.csv.is_some() || sinks.partial.is_some();
    let opts = CheckOptions::default();
    let mut acc = accumulator(args.rating_run, args.standings_budget);
    let mut tiebreak_log = args.tiebreaks.as_ref().map(|_| TiebreakLog::new());
    // Decisive games without moves (not byes) that --tiebreaks saw.
    let mut moveless = 0u64;
    let mut tally = Tally::new();
    // Read once for the run, before any game: the names of openings.csv need only its codes
    // and names; its positions are indexed only when a game is classified (`--add-eco`).
    let eco_table = (names_openings(output) || args.add_eco)
        .then(|| crate::eco::table_at(output.eco_table.as_deref()))
        .transpose()?;
    let classify_with = eco_table.filter(|_| args.add_eco);
    let work = |name: &str, game: &mut Game<'_>| {
        game_facts(game, name, &opts, args.opening_plies, rows, classify_with)
    };
    let sink = |_: &str, f: GameFacts| -> Result<(), WriteError> {
        // The global game index: merged parts renumber theirs to match.
        let order = tally.games;
        let row = &f.row;
        if row.errors > 0 {
            crate::outcome::found(Outcome::Problems);
        }
        tally.add(GameSummary {
            white: &row.white,
            black: &row.black,
            score: f.score,
            date: f.date,
            plies: row.plies,
            opening: &f.opening,
            termination: f.termination,
            has_error: row.errors > 0,
            illegal: !row.legal,
        });
        if let (Some(log), Some(score)) = (tiebreak_log.as_mut(), f.score) {
            // A bye's game is a bye whatever its moves; any other without moves is told.
            if f.play == Play::NoMoves && !names_a_bye(&row.white) && !names_a_bye(&row.black) {
                moveless += 1;
            }
            log.add(&TiebreakGame {
                // The event as standings.csv keys it: an online tournament is its address.
                event: EventKey::of(&row.event, &row.site, f.date),
                white: &row.white,
                black: &row.black,
                white_fide_id: f.white_fide_id.as_deref(),
                black_fide_id: f.black_fide_id.as_deref(),
                round: &row.round,
                score,
                played: f.play.played(args.played_without_moves),
                white_elo: f.white_elo,
                black_elo: f.black_elo,
                white_team: f.white_team.as_deref(),
                black_team: f.black_team.as_deref(),
                board: f.board,
            });
        }
        if let Some(score) = f.score {
            acc.add(ScoredGame {
                event: &row.event,
                site: &row.site,
                white: &row.white,
                black: &row.black,
                white_team: f.white_team.as_deref(),
                black_team: f.black_team.as_deref(),
                score,
                date: f.date,
                // A missing tag reads as "", which sorts as an unknown round too.
                round: Some(&row.round),
                white_elo: f.white_elo,
                black_elo: f.black_elo,
                order,
            })
            .map_err(|e| WriteError::new("the statistics' temporary files", e))?;
        }
        if sinks.csv.is_some() || sinks.partial.is_some() {
            sinks.write(row).map_err(|e| {
                // A closed pipe (`--report games | head`) stays one: it ends the run quietly.
                let kind = crate::outcome::io_kind(&e).unwrap_or(io::ErrorKind::Other);
                WriteError::new(
                    "games.csv or the partial file",
                    io::Error::new(kind, format!("{e:#}")),
                )
            })?;
        }
        Ok(())
    };
    // Tags only: the replay reads plain movetext from the bytes.
    inputs.run(Lexing::Tags, work, sink, |p| p.to_stderr())?;
    if inputs.totals.broken_pipe {
        return Ok(crate::outcome::found_so_far());
    }
    tally.files = inputs.totals.files as u64;

    if let Some(mut w) = sinks.csv.take() {
        w.flush()
            .with_context(|| format!("cannot write {}", destination(output, ReportName::Games)))?;
    }
    if let Some(stopped) = unfinished(inputs.totals.failed)? {
        return Ok(stopped);
    }
    let team_list = args.team_tiebreaks.as_ref().map_or(&[][..], |l| &l.0[..]);
    let tiebreaks = tiebreak_log
        .as_ref()
        .zip(args.tiebreaks.as_ref())
        .map(|(log, list)| (log, list, team_list));
    let casual_games = write_tables(output, &mut acc, &tally, &mut staged, tiebreaks, eco_table)?;
    let bytes = inputs.totals.bytes;
    if !args.input.quiet {
        let events = acc.event_count().context("cannot count the events")?;
        let secs = started.elapsed().as_secs_f64();
        say(format_args!(
            "pgnkit: {} file(s), {} game(s), {} with errors, {} player(s), {} event(s) in {:.2} s ({:.1} MB/s)",
            tally.files,
            tally.games,
            tally.games_with_errors,
            tally.players.len(),
            events,
            secs,
            if secs > 0.0 { bytes as f64 / 1e6 / secs } else { 0.0 }
        ))?;
        note_casual(casual_games)?;
        note_moveless(moveless, args.played_without_moves)?;
        inputs.summary_tail()?;
    }
    inputs.report_no_game()?;
    let outcome = inputs.outcome().max(outcome(0, &tally));
    if let Some(mut p) = sinks.partial.take() {
        acc.for_each_rated(|entry| {
            serde_json::to_writer(&mut p, &PartLineOut::Rated(entry))?;
            p.write_all(b"\n")
        })
        .context("cannot write the rated games")?;
        acc.for_each_event_entry(|entry| {
            serde_json::to_writer(&mut p, &PartLineOut::Event(entry))?;
            p.write_all(b"\n")
        })
        .context("cannot write the games of the events")?;
        let totals = PartLine::Totals(Box::new(PartTotals { acc, tally }));
        serde_json::to_writer(&mut p, &totals)?;
        p.write_all(b"\n")?;
        p.flush()?;
    }
    finish(staged)?;
    Ok(outcome)
}

/// Whether the run must end without writing a report: it was interrupted, or an input could
/// not be read (the reports would lack its games). Says so and gives the outcome.
fn unfinished(failed_inputs: usize) -> Result<Option<Outcome>, WriteError> {
    if interrupted() {
        // The interrupt's message says what was not written.
    } else if failed_inputs > 0 {
        say(format_args!("pgnkit: no report was written: an input could not be read (the reports already there, if any, are kept)"))?;
    } else {
        return Ok(None);
    }
    Ok(Some(Outcome::Failed))
}

/// Puts every report in place at once, unless a signal came while they were written (see
/// [`StagedFiles::commit`]).
fn finish(staged: StagedFiles) -> anyhow::Result<()> {
    staged.commit().context("no report was written")?;
    Ok(())
}

fn outcome(failed_inputs: usize, tally: &Tally) -> Outcome {
    if failed_inputs > 0 {
        Outcome::Failed
    } else if tally.games_with_errors > 0 {
        Outcome::Problems
    } else {
        Outcome::Clean
    }
}

/// Opens the destination of a report, staged in `staged`: `DIR/NAME.csv` with `--out`, else
/// `-o FILE` or standard output. Writes the BOM for `--excel`.
fn open_report(
    output: &OutputArgs,
    name: ReportName,
    staged: &mut StagedFiles,
) -> anyhow::Result<Box<dyn Write>> {
    let file = if let Some(dir) = &output.out {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create directory {}", dir.display()))?;
        staged.create(&dir.join(name.file_name()))?
    } else {
        // `-o FILE`, or standard output (also as `-o -`).
        staged.open(output.output.as_deref())?
    };
    let mut w: Box<dyn Write> = Box::new(BufWriter::with_capacity(1 << 16, file));
    csvout::start(&mut w, output.excel)?;
    Ok(w)
}

/// The games.csv writer, when games.csv is wanted, with its header written.
fn open_games_csv(
    output: &OutputArgs,
    staged: &mut StagedFiles,
) -> anyhow::Result<Option<csv::Writer<Box<dyn Write>>>> {
    let wanted = output.out.is_some() || output.report == Some(ReportName::Games);
    if !wanted {
        return Ok(None);
    }
    let mut w = csv::Writer::from_writer(open_report(output, ReportName::Games, staged)?);
    csvout::write_games_header(&mut w)?;
    Ok(Some(w))
}

/// Whether the run writes openings.csv, whose `name` column needs the opening table.
fn names_openings(output: &OutputArgs) -> bool {
    output.out.is_some() || output.report == Some(ReportName::Openings)
}

/// Writes the table reports (all but games.csv) that `output` asks for; `eco` names the
/// openings (given when [`names_openings`]).
fn write_tables(
    output: &OutputArgs,
    acc: &mut StatsAccumulator,
    tally: &Tally,
    staged: &mut StagedFiles,
    tiebreaks: Option<(&TiebreakLog, &TieBreakList, &[TeamTieBreak])>,
    eco: Option<&'static crate::eco::Table>,
) -> anyhow::Result<u64> {
    let opts = TableOptions {
        kind: match output.tiebreak {
            None => KindChoice::Detect,
            Some(TiebreakArg::SonnebornBerger) => KindChoice::Force(EventKind::RoundRobin),
            Some(TiebreakArg::Buchholz) => KindChoice::Force(EventKind::Swiss),
        },
        elo: EloConfig {
            default_rating: output
                .initial_elo
                .unwrap_or(EloConfig::default().default_rating),
            ..EloConfig::default()
        },
        club: Default::default(),
        csv: CsvOptions {
            raw: output.raw_csv,
        },
        eco,
    };
    // Games of casual online play left out of standings.csv (not a tournament).
    let mut casual_games = 0;
    for name in ReportName::ALL {
        if name == ReportName::Games {
            continue;
        }
        if output.out.is_none() && output.report != Some(name) {
            continue;
        }
        let mut w = csv::Writer::from_writer(open_report(output, name, staged)?);
        let report = (|| -> anyhow::Result<()> {
            match name {
                ReportName::Games => {}
                ReportName::Standings => {
                    casual_games = match tiebreaks {
                        Some((log, list, teams)) => crate::report::tiebreaks::write_standings(
                            &mut w, acc, log, &list.0, teams, &opts,
                        )?,
                        None => csvout::write_standings(&mut w, acc, &opts)?,
                    };
                }
                ReportName::Players => csvout::write_players(&mut w, acc, tally, &opts)?,
                ReportName::Openings => csvout::write_openings(&mut w, tally, &opts)?,
                ReportName::Terminations => csvout::write_terminations(&mut w, tally, &opts)?,
                ReportName::Summary => csvout::write_summary(&mut w, acc, tally, &opts)?,
            }
            w.flush()?;
            Ok(())
        })();
        report.with_context(|| format!("cannot write {}", destination(output, name)))?;
    }
    Ok(casual_games)
}

/// Says on standard error how many decisive games without moves `--tiebreaks` took as
/// forfeits, and how to count them as played: a file may lack moves of games that were.
fn note_moveless(moveless: u64, played: bool) -> Result<(), WriteError> {
    if moveless > 0 && !played {
        say(format_args!(
            "pgnkit: --tiebreaks counted {moveless} decisive game(s) without moves as forfeits (won and lost without play); if they were played and only their moves are missing (a broadcast without move input, a tags-only export), give --played-without-moves"
        ))?;
    }
    Ok(())
}

/// Says on standard error that `standings.csv` left out `casual_games` games, and why.
fn note_casual(casual_games: u64) -> Result<(), WriteError> {
    if casual_games > 0 {
        say(format_args!(
            "pgnkit: {casual_games} casual online game(s) left out of standings.csv: not a tournament (their Site is a web address, each game's own as lichess writes `Rated Blitz game`, and they have no round number)"
        ))?;
    }
    Ok(())
}

/// Where a report goes, as messages name it.
fn destination(output: &OutputArgs, name: ReportName) -> String {
    if let Some(dir) = &output.out {
        dir.join(name.file_name()).display().to_string()
    } else if let Some(path) = &output.output {
        path.display().to_string()
    } else {
        "standard output".into()
    }
}

/// Refuses an option of the reports that would change nothing: one that shapes a report that is
/// not written (`--tiebreak` without standings.csv, `--initial-elo` without players.csv,
/// `--opening-plies` without openings.csv or a partial file), or a CSV option when only
/// `--partial` is written. Ignored, it would let the user believe it did
/// something. A run that writes nothing at all is refused for that by its caller.
///
/// # Errors
///
/// The first such option, with why it does not apply and what to do.
fn refuse_options_that_do_not_apply(
    output: &OutputArgs,
    partial: bool,
    opening_plies: usize,
) -> anyhow::Result<()> {
    if output.out.is_none() && output.report.is_none() && !partial {
        return Ok(());
    }
    let writes = |name: ReportName| output.out.is_some() || output.report == Some(name);
    // 0, the default, groups by ECO.
    if opening_plies > 0 && !writes(ReportName::Openings) && !partial {
        bail!(
            "--opening-plies shapes openings.csv only (and --partial files), which this run \
             does not write; add --out DIR or --report openings, or drop --opening-plies"
        );
    }
    let shaping = [
        (
            "--tiebreak",
            output.tiebreak.is_some(),
            ReportName::Standings,
        ),
        (
            "--initial-elo",
            output.initial_elo.is_some(),
            ReportName::Players,
        ),
    ];
    for (option, given, report) in shaping {
        if given && !writes(report) {
            bail!(
                "{option} shapes {} only, which this run does not write; add --out DIR or \
                 --report {}, or drop {option}",
                report.file_name(),
                report
                    .to_possible_value()
                    .expect("no report is skipped")
                    .get_name()
            );
        }
    }
    let csv_options = [("--excel", output.excel), ("--raw-csv", output.raw_csv)];
    for (option, given) in csv_options {
        if given && output.out.is_none() && output.report.is_none() {
            bail!(
                "{option} applies to CSV reports, and this run writes none (a --partial file \
                 is JSON lines); add --out DIR or --report NAME, or give {option} to \
                 `pgnkit stats merge`"
            );
        }
    }
    Ok(())
}

/// Runs `pgnkit stats merge`.
fn run_merge(args: MergeArgs) -> anyhow::Result<Outcome> {
    let mut merger = Merger::new(args.output, args.rating_run, args.standings_budget)?;
    for path in &args.parts {
        if interrupted() {
            break;
        }
        let file = File::open(path)
            .context("cannot open")
            .with_context(|| format!("cannot merge {}", path.display()))?;
        merger
            .add(BufReader::new(file), None)
            .with_context(|| format!("cannot merge {}", path.display()))?;
    }
    if let Some(stopped) = unfinished(0)? {
        return Ok(stopped);
    }
    let quiet = args.quiet;
    let parts = args.parts.len();
    let merged = merger.finish()?;
    if !quiet {
        say(format_args!(
            "pgnkit: merged {parts} part(s): {} game(s), {} with errors, {} event(s)",
            merged.games, merged.games_with_errors, merged.events
        ))?;
        note_casual(merged.casual_games)?;
    }
    Ok(merged.outcome)
}

/// How a part's games are named and numbered when it is one split of a larger input (the
/// Spark job's byte ranges): as one machine's run over the whole input names and numbers
/// them. The merge does it as it reads the part, so the part is parsed once.
#[derive(Debug, Clone)]
pub struct Renumber {
    /// The input's name in the part: its games' `file` starts with it, followed by
    /// `@START` for a byte range.
    pub local: String,
    /// The name to give the input instead (a range's `@START` dropped).
    pub display: String,
    /// Games of the input in the parts before this one: added to each game number.
    pub games_before: u64,
    /// Line breaks of the input before this part's first game: added to the line of each
    /// game of a byte range.
    pub lines_before: u64,
    /// Whether this is the input's first part: the others count no file.
    pub first_split: bool,
}

impl Renumber {
    fn apply(&self, row: &mut GameRow) -> anyhow::Result<()> {
        let rest = row
            .file
            .strip_prefix(self.local.as_str())
            .unwrap_or(&row.file);
        // A range's name: `FILE@START`, whose lines count from START.
        let ranged = rest.starts_with('@');
        row.file = if ranged {
            self.display.clone()
        } else {
            format!("{}{rest}", self.display)
        };
        row.game = row
            .game
            .checked_add(self.games_before)
            .context("a game number too large")?;
        if ranged {
            let line = u64::from(row.line) + self.lines_before;
            row.line = u32::try_from(line).context("a line number too large")?;
        }
        Ok(())
    }
}

/// What a finished merge counted, for its summary line and exit status.
#[derive(Debug)]
pub struct Merged {
    /// Games of casual online play left out of `standings.csv`.
    pub casual_games: u64,
    pub games: u64,
    pub games_with_errors: u64,
    pub events: u64,
    pub outcome: Outcome,
}

/// `pgnkit stats merge` as a value: fed partial results one at a time, in input order, it
/// writes the reports of all their games when finished. The Spark job's driver feeds it each
/// partial as it arrives, so the merge runs while later partials are still on their way.
pub struct Merger {
    output: OutputArgs,
    csv_opts: CsvOptions,
    staged: StagedFiles,
    games_csv: Option<csv::Writer<Box<dyn Write>>>,
    acc: StatsAccumulator,
    tally: Tally,
    opening_plies: Option<usize>,
}

impl Merger {
    /// A merge into the reports `output` asks for; `rating_run` and `budget` as the hidden
    /// options of `pgnkit stats merge` (`None`: the defaults).
    ///
    /// # Errors
    ///
    /// An option that does not apply, no report asked for, or games.csv cannot be created.
    pub fn new(
        output: OutputArgs,
        rating_run: Option<usize>,
        budget: Option<usize>,
    ) -> anyhow::Result<Merger> {
        refuse_options_that_do_not_apply(&output, false, 0)?;
        if output.out.is_none() && output.report.is_none() {
            bail!("nothing to write: give --out DIR or --report NAME");
        }
        let csv_opts = CsvOptions {
            raw: output.raw_csv,
        };
        let mut staged = StagedFiles::new();
        let games_csv = open_games_csv(&output, &mut staged)?;
        Ok(Merger {
            output,
            csv_opts,
            staged,
            games_csv,
            acc: accumulator(rating_run, budget),
            tally: Tally::new(),
            opening_plies: None,
        })
    }

    /// Adds one partial result (the bytes of a `--partial` file), its games after those of
    /// the parts added before, renamed and renumbered by `renumber` when it is one split of a
    /// larger input. Returns its games.
    ///
    /// # Errors
    ///
    /// A part that is damaged, of another version or another `--opening-plies`, or a
    /// temporary file that cannot be written.
    pub fn add(&mut self, part: impl BufRead, renumber: Option<&Renumber>) -> anyhow::Result<u64> {
        // This part's games come after every game of the parts before it.
        let offset = self.tally.games;
        let (games_csv, csv_opts, acc) = (&mut self.games_csv, self.csv_opts, &mut self.acc);
        let on_line = |line: PartLine<'_>| -> anyhow::Result<()> {
            match line {
                PartLine::Game(mut row) => {
                    if let Some(r) = renumber {
                        r.apply(&mut row)?;
                    }
                    if let Some(w) = games_csv.as_mut() {
                        csvout::write_game(w, &row, csv_opts)?;
                    }
                }
                PartLine::Rated(mut entry) => {
                    entry.order = entry
                        .order
                        .checked_add(offset)
                        .context("a game number too large")?;
                    acc.add_rated(&entry)
                        .context("cannot spill the rating log")?;
                }
                PartLine::Event(entry) => acc
                    .add_event_entry(&entry)
                    .context("cannot spill the event log")?,
                PartLine::Header(_) | PartLine::Totals(_) => {}
            }
            Ok(())
        };
        let mut part = read_part(part, &mut self.opening_plies, on_line)?;
        if let Some(r) = renumber {
            part.tally.files = u64::from(r.first_split);
        }
        let games = part.tally.games;
        self.acc
            .merge(part.acc)
            .context("cannot spill the statistics")?;
        self.tally.merge(part.tally);
        Ok(games)
    }

    /// Writes the reports of every game added.
    ///
    /// # Errors
    ///
    /// When a report cannot be written.
    pub fn finish(mut self) -> anyhow::Result<Merged> {
        if let Some(mut w) = self.games_csv.take() {
            w.flush()?;
        }
        let output = &self.output;
        let eco_table = names_openings(output)
            .then(|| crate::eco::table_at(output.eco_table.as_deref()))
            .transpose()?;
        let casual_games = write_tables(
            output,
            &mut self.acc,
            &self.tally,
            &mut self.staged,
            None,
            eco_table,
        )?;
        finish(self.staged)?;
        let events = self.acc.event_count().context("cannot count the events")?;
        Ok(Merged {
            casual_games,
            games: self.tally.games,
            games_with_errors: self.tally.games_with_errors,
            events,
            outcome: outcome(0, &self.tally),
        })
    }
}

/// The accumulator of a run: its rating log keeps `run` rated games (by default
/// [`DEFAULT_RUN_LEN`]) in memory, its event log `budget` bytes of games (by default
/// [`DEFAULT_BUDGET`]), and both spill sorted runs to temporary files.
fn accumulator(run: Option<usize>, budget: Option<usize>) -> StatsAccumulator {
    StatsAccumulator::with_stores(
        || Box::new(TempFileStore::new()),
        run.unwrap_or(DEFAULT_RUN_LEN),
        budget.unwrap_or(DEFAULT_BUDGET),
    )
}

/// Reads one partial file, handing each line between the header and the totals (a games.csv
/// row, a rated game, a game of an event) to `on_line`, and returns its totals.
fn read_part(
    part: impl BufRead,
    opening_plies: &mut Option<usize>,
    mut on_line: impl FnMut(PartLine<'_>) -> anyhow::Result<()>,
) -> anyhow::Result<PartTotals> {
    let mut lines = part.lines();
    let first = lines.next().transpose()?.unwrap_or_default();
    match serde_json::from_str::<PartLine>(&first) {
        Ok(PartLine::Header(h)) if h.format == PART_FORMAT && h.version == PART_VERSION => {
            match *opening_plies {
                Some(n) if n != h.opening_plies => bail!(
                    "written with --opening-plies {}, other parts with {n}: openings would not add up",
                    h.opening_plies
                ),
                _ => *opening_plies = Some(h.opening_plies),
            }
        }
        _ => bail!("not a partial result of this pgnkit version (write one with `pgnkit stats --partial FILE`)"),
    }
    for (i, line) in lines.enumerate() {
        let line = line?;
        let parsed: PartLine = serde_json::from_str(&line)
            .with_context(|| format!("line {}: damaged partial result", i + 2))?;
        match parsed {
            line @ (PartLine::Game(_) | PartLine::Rated(_) | PartLine::Event(_)) => on_line(line)?,
            PartLine::Totals(totals) => return Ok(*totals),
            PartLine::Header(_) => bail!("line {}: a second header", i + 2),
        }
    }
    bail!("incomplete partial result: no totals line (was the run interrupted?)")
}

/// The longest opening `--opening-plies` groups by: far past any opening, and a bound that
/// keeps the option a number of plies.
const MAX_OPENING_PLIES: u64 = 1000;

/// The highest `--initial-elo`: above any rating ever published.
const MAX_INITIAL_ELO: f64 = 4000.0;

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
