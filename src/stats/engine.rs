//! The run of `pgnkit stats`: games read and replayed on worker threads, their facts
//! counted in input order, the reports (and a partial file) written once every input is read.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context};

use super::facts::{game_facts, GameFacts};
use super::partial::{PartHeader, PartLine, PartLineOut, PartTotals, PART_FORMAT, PART_VERSION};
use super::reports::{self, ReportName, ReportOptions, TieTables};
use crate::convert::record::{GameRecord, TagSet};
use crate::input::pipeline::Game;
use crate::input::{InputOptions, Inputs};
use crate::outcome::Outcome;
use crate::outcome::{say, WriteError};
use crate::report::staged::{self, StagedFiles};
use crate::report::stats::{self as csvout, CsvOptions, GameRow};
use crate::rules::game::CheckOptions;
use crate::stats::tally::{GameSummary, Tally};
use crate::stats::tiebreak::event::{names_a_bye, Play, TieGame};
use crate::stats::tiebreak::team::TeamTieBreakList;
use crate::stats::tiebreak::TieBreakList;
use crate::stats::ScoredGame;

/// The longest opening [`StatsOptions::opening_plies`] groups by: far past any opening, and
/// a bound that keeps the option a number of plies.
pub const MAX_OPENING_PLIES: usize = 1000;

/// What a run of `pgnkit stats` reads, what it writes and how it counts.
/// [`Default`] writes nothing yet (set `reports` or `partial`), every other option at the
/// command line's default.
#[derive(Debug, Clone, Default)]
pub struct StatsOptions {
    /// The CSV reports written, and how.
    pub reports: ReportOptions,
    /// Group openings by their first N plies in SAN (0: by the ECO tag), up to
    /// [`MAX_OPENING_PLIES`].
    pub opening_plies: usize,
    /// Group a game without an ECO tag by the deepest named position its moves reach.
    pub add_eco: bool,
    /// Also write mergeable partial results (JSON lines) to this file (`-`: standard output).
    pub partial: Option<PathBuf>,
    /// Rated games kept in memory before a sorted run goes to a temporary file (`None`: the
    /// default; small values are for tests).
    pub rating_run: Option<usize>,
    /// Bytes of standings games kept in memory before a sorted run goes to a temporary file,
    /// and of an event's pairs before they do (`None`: the default).
    pub standings_budget: Option<usize>,
    /// Rank standings.csv by points, then by these FIDE tie-breaks, one column each.
    pub tiebreaks: Option<TieBreakList>,
    /// With `tiebreaks`: rank the team tables by match points, then by these.
    pub team_tiebreaks: Option<TeamTieBreakList>,
    /// With `tiebreaks`: a decisive game without moves counts as played, not as a forfeit.
    pub played_without_moves: bool,
    /// Print no closing summary on standard error.
    pub quiet: bool,
}

/// A run of `pgnkit stats`, its options checked.
///
/// ```
/// use pgnkit::input::InputOptions;
/// use pgnkit::stats::{ReportName, Stats, StatsOptions};
///
/// let dir = std::env::temp_dir().join(format!("pgnkit-doc-stats-{}", std::process::id()));
/// let games = dir.join("games.pgn");
/// std::fs::create_dir_all(&dir)?;
/// std::fs::write(&games, "[Event \"E\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n")?;
/// let mut options = StatsOptions::default();
/// options.reports.report = Some(ReportName::Standings);
/// options.reports.output = Some(dir.join("standings.csv"));
/// options.quiet = true;
/// let outcome = Stats::new(options)?.run(InputOptions::new(vec![games]))?;
/// assert_eq!(outcome, pgnkit::outcome::Outcome::Clean);
/// let table = std::fs::read_to_string(dir.join("standings.csv"))?;
/// assert!(table.lines().nth(1).is_some_and(|row| row.contains("A")), "{table}");
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), anyhow::Error>(())
/// ```
pub struct Stats {
    options: StatsOptions,
}

impl Stats {
    /// Checks `options`.
    ///
    /// # Errors
    ///
    /// An option that would change nothing or clashes with another, nothing to write, or two
    /// outputs on standard output.
    pub fn new(options: StatsOptions) -> anyhow::Result<Stats> {
        let output = &options.reports;
        let partial = options.partial.as_deref();
        if options.opening_plies > MAX_OPENING_PLIES {
            bail!(
                "--opening-plies {} is more than {MAX_OPENING_PLIES}",
                options.opening_plies
            );
        }
        reports::refuse_tie_options(
            output,
            options.tiebreaks.as_ref(),
            options.team_tiebreaks.as_ref(),
            options.played_without_moves,
        )?;
        reports::refuse_options_that_do_not_apply(
            output,
            partial.is_some(),
            options.opening_plies,
        )?;
        if !output.writes_any() && partial.is_none() {
            bail!("nothing to write: give --out DIR, --report NAME or --partial FILE");
        }
        staged::refuse_two_on_stdout(&[
            (
                "--report",
                output.report.is_some() && output.output.as_deref().is_none_or(staged::is_stdout),
            ),
            ("--partial", partial.is_some_and(staged::is_stdout)),
        ])?;
        Ok(Stats { options })
    }

    /// Reads every input `input` names and writes the reports (and the partial file) asked
    /// for, each replacing the old one only once all are complete. A broken game is counted,
    /// never fatal; an input that cannot be read leaves every report unwritten.
    ///
    /// # Errors
    ///
    /// When an input cannot be listed, an output is an input (refused before any output is
    /// created: a new one is never read), an output cannot be created or written, or a
    /// temporary file cannot be.
    pub fn run(&self, input: InputOptions) -> anyhow::Result<Outcome> {
        let options = &self.options;
        let output = &options.reports;
        let partial = options.partial.as_deref();
        let mut inputs = Inputs::new(input)?;
        staged::refuse_inputs_as_outputs(
            &[("--partial", partial), ("-o", output.output.as_deref())],
            inputs.sources(),
        )?;
        let started = Instant::now();
        let csv_opts = CsvOptions {
            raw: output.raw_csv,
        };
        // Every file replaces the old one only when all are complete (see `finish`).
        let mut staged = StagedFiles::new();
        let mut sinks = GameSinks {
            csv: reports::open_games_csv(output, &mut staged)?,
            partial: match &options.partial {
                Some(path) => Some(BufWriter::new(staged.open(Some(path))?)),
                None => None,
            },
            csv_opts,
        };
        if let Some(p) = sinks.partial.as_mut() {
            let header = PartLine::Header(PartHeader {
                format: PART_FORMAT.into(),
                version: PART_VERSION,
                opening_plies: options.opening_plies,
            });
            serde_json::to_writer(&mut *p, &header)?;
            p.write_all(b"\n")?;
        }

        // Whether games' rows are written (games.csv or a partial file), or only tallied.
        let rows = sinks.csv.is_some() || sinks.partial.is_some();
        let opts = CheckOptions::default();
        let mut acc = reports::accumulator(options.rating_run, options.standings_budget);
        // A partial file carries the facts too: `stats merge --tiebreaks` needs them.
        let tied = options.tiebreaks.is_some() || partial.is_some();
        if tied {
            acc.keep_tie_facts();
        }
        // Decisive games without moves (not byes) that --tiebreaks saw.
        let mut moveless = 0u64;
        let mut tally = Tally::new();
        // Read once for the run, before any game: the names of openings.csv need only its codes
        // and names; its positions are indexed only when a game is classified (`--add-eco`).
        let eco_table = (reports::names_openings(output) || options.add_eco)
            .then(|| crate::eco::table_at(output.eco_table.as_deref()))
            .transpose()?;
        let classify_with = eco_table.filter(|_| options.add_eco);
        let work = |name: &str, game: &mut Game<'_>| {
            game_facts(
                game,
                name,
                &opts,
                options.opening_plies,
                rows,
                classify_with,
            )
        };
        let sink = |_: &str, f: GameFacts| -> Result<(), WriteError> {
            // The global game index: merged parts renumber theirs to match.
            let order = tally.games;
            let row = &f.record;
            let [black, event, round, site, white] =
                row.tags_in(&COUNTED_TAGS).map(|t| t.unwrap_or(""));
            if row.errors > 0 {
                crate::outcome::found(Outcome::Problems);
            }
            tally.add(GameSummary {
                white,
                black,
                score: f.score,
                date: f.date,
                plies: row.ply_count,
                opening: &f.opening,
                termination: f.termination,
                has_error: row.errors > 0,
                illegal: !row.legal,
            });
            if let Some(score) = f.score {
                // A bye's game is a bye whatever its moves; any other without moves is told.
                let bye = names_a_bye(white) || names_a_bye(black);
                if options.tiebreaks.is_some() && f.play == Play::NoMoves && !bye {
                    moveless += 1;
                }
                let tie = tied.then_some(TieGame {
                    white_fide_id: f.white_fide_id.as_deref(),
                    black_fide_id: f.black_fide_id.as_deref(),
                    board: f.board,
                    play: f.play,
                });
                let game = ScoredGame {
                    event,
                    site,
                    white,
                    black,
                    white_team: f.white_team.as_deref(),
                    black_team: f.black_team.as_deref(),
                    score,
                    date: f.date,
                    // A missing tag reads as "", which sorts as an unknown round too.
                    round: Some(round),
                    white_elo: f.white_elo,
                    black_elo: f.black_elo,
                    order,
                };
                acc.add_tied(game, tie.as_ref())
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
        inputs.run(work, sink, |p| p.to_stderr())?;
        if inputs.totals.broken_pipe {
            return Ok(crate::outcome::found_so_far());
        }
        tally.files = inputs.totals.files as u64;

        if let Some(mut w) = sinks.csv.take() {
            w.flush().with_context(|| {
                format!(
                    "cannot write {}",
                    reports::destination(output, ReportName::Games)
                )
            })?;
        }
        if let Some(stopped) = reports::unfinished(inputs.totals.failed)? {
            return Ok(stopped);
        }
        let tiebreaks = TieTables::of(
            options.tiebreaks.as_ref(),
            options.team_tiebreaks.as_ref(),
            options.played_without_moves,
        );
        let casual_games = reports::write_tables(
            output,
            &mut acc,
            &tally,
            &mut staged,
            tiebreaks.as_ref(),
            eco_table,
        )?;
        let bytes = inputs.totals.bytes;
        if !options.quiet {
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
            reports::note_casual(casual_games)?;
            reports::note_moveless(moveless, options.played_without_moves)?;
            inputs.summary_tail()?;
        }
        inputs.report_no_game()?;
        let outcome = inputs.outcome().max(reports::outcome(0, &tally));
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
        reports::finish(staged)?;
        Ok(outcome)
    }
}

/// The tags every game is counted by (tallies, standings).
const COUNTED_TAGS: TagSet<5> = TagSet::new(["Black", "Event", "Round", "Site", "White"]);

/// Where games.csv rows go while games are read.
struct GameSinks {
    csv: Option<csv::Writer<Box<dyn Write>>>,
    partial: Option<BufWriter<File>>,
    csv_opts: CsvOptions,
}

impl GameSinks {
    fn write(&mut self, record: &GameRecord<'_>) -> anyhow::Result<()> {
        if let Some(w) = self.csv.as_mut() {
            csvout::write_game(w, record, self.csv_opts)?;
        }
        if let Some(p) = self.partial.as_mut() {
            serde_json::to_writer(&mut *p, &PartLineOut::Game(&GameRow::of(record)))?;
            p.write_all(b"\n")?;
        }
        Ok(())
    }
}
