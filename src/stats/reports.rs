//! Where the reports of `stats` and `stats merge` go and how they are shaped: the report
//! names, the options both take, the tables written from the accumulated counts, and the
//! refusal of options that would change nothing.

use std::io::{BufWriter, Write};
use std::path::PathBuf;

use anyhow::{bail, Context};

use crate::outcome::Outcome;
use crate::outcome::{say, WriteError};
use crate::report::interrupt::interrupted;
use crate::report::staged::StagedFiles;
use crate::report::stats::{self as csvout, CsvOptions, TableOptions};
use crate::sort::TempFileStore;
use crate::stats::chrono::DEFAULT_RUN_LEN;
use crate::stats::elo::EloConfig;
use crate::stats::eventlog::DEFAULT_BUDGET;
use crate::stats::standings::{EventKind, KindChoice};
use crate::stats::tally::Tally;
use crate::stats::tiebreak::team::TeamTieBreakList;
use crate::stats::tiebreak::TieBreakList;
use crate::stats::StatsAccumulator;

/// A report of `pgnkit stats`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportName {
    Games,
    Standings,
    Players,
    Openings,
    Terminations,
    Summary,
}

impl ReportName {
    /// Every report, in the order `--out DIR` writes them.
    pub const ALL: [ReportName; 6] = [
        ReportName::Games,
        ReportName::Standings,
        ReportName::Players,
        ReportName::Openings,
        ReportName::Terminations,
        ReportName::Summary,
    ];

    /// The report's name as `--report` spells it.
    pub fn name(self) -> &'static str {
        match self {
            ReportName::Games => "games",
            ReportName::Standings => "standings",
            ReportName::Players => "players",
            ReportName::Openings => "openings",
            ReportName::Terminations => "terminations",
            ReportName::Summary => "summary",
        }
    }

    /// The report's file in the `--out` directory.
    pub fn file_name(self) -> &'static str {
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

/// The highest initial Elo: above any rating ever published.
pub const MAX_INITIAL_ELO: f64 = 4000.0;

/// Where and how reports are written; shared by a run ([`super::StatsOptions`]) and a merge
/// ([`super::MergeOptions`]). The default writes nothing: set `out` or `report`.
#[derive(Debug, Clone, Default)]
pub struct ReportOptions {
    /// Write every report into this directory (created if missing).
    pub out: Option<PathBuf>,
    /// Write only this report, to `output` (`None` or `-`: standard output).
    pub report: Option<ReportName>,
    /// With `report`: the file to write.
    pub output: Option<PathBuf>,
    /// The tie-break of every event (Sonneborn-Berger for a round robin, Buchholz for a
    /// Swiss) instead of detecting the kind of each.
    pub tiebreak: Option<EventKind>,
    /// Elo of players no game tags with one, 0 to [`MAX_INITIAL_ELO`] (`None`: 1500).
    pub initial_elo: Option<f64>,
    /// Start every file with a UTF-8 byte order mark, so Excel shows non-ASCII names.
    pub excel: bool,
    /// Keep text from the input as it is, even cells a spreadsheet would run as formulas.
    pub raw_csv: bool,
    /// Name openings from this table instead of the built-in one.
    pub eco_table: Option<PathBuf>,
}

impl ReportOptions {
    /// Whether any CSV report is asked for.
    pub(crate) fn writes_any(&self) -> bool {
        self.out.is_some() || self.report.is_some()
    }

    /// Whether `name` is written.
    pub(crate) fn writes(&self, name: ReportName) -> bool {
        self.out.is_some() || self.report == Some(name)
    }
}

/// Whether the run must end without writing a report: it was interrupted, or an input could
/// not be read (the reports would lack its games). Says so and gives the outcome.
pub(crate) fn unfinished(failed_inputs: usize) -> Result<Option<Outcome>, WriteError> {
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
pub(crate) fn finish(staged: StagedFiles) -> anyhow::Result<()> {
    staged.commit().context("no report was written")?;
    Ok(())
}

pub(crate) fn outcome(failed_inputs: usize, tally: &Tally) -> Outcome {
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
pub(crate) fn open_report(
    output: &ReportOptions,
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
pub(crate) fn open_games_csv(
    output: &ReportOptions,
    staged: &mut StagedFiles,
) -> anyhow::Result<Option<csv::Writer<Box<dyn Write>>>> {
    let wanted = output.writes(ReportName::Games);
    if !wanted {
        return Ok(None);
    }
    let mut w = csv::Writer::from_writer(open_report(output, ReportName::Games, staged)?);
    csvout::write_games_header(&mut w)?;
    Ok(Some(w))
}

/// Whether the run writes openings.csv, whose `name` column needs the opening table.
pub(crate) fn names_openings(output: &ReportOptions) -> bool {
    output.writes(ReportName::Openings)
}

/// Refuses `--tiebreaks` with `--tiebreak`, and the options that go with `--tiebreaks`
/// without it.
///
/// # Errors
///
/// The first such clash, saying which options go together.
pub(crate) fn refuse_tie_options(
    output: &ReportOptions,
    tiebreaks: Option<&TieBreakList>,
    team_tiebreaks: Option<&TeamTieBreakList>,
    played_without_moves: bool,
) -> anyhow::Result<()> {
    if tiebreaks.is_some() && output.tiebreak.is_some() {
        bail!("--tiebreaks cannot be used with --tiebreak");
    }
    if tiebreaks.is_none() && (team_tiebreaks.is_some() || played_without_moves) {
        bail!("--team-tiebreaks and --played-without-moves go with --tiebreaks");
    }
    Ok(())
}

/// How `standings.csv` is ranked with `--tiebreaks`: the list, the team tables' list, and
/// whether a decisive game without moves counts as played.
#[derive(Debug, Clone, Copy)]
pub struct TieTables<'a> {
    /// The players' tie-breaks, in order.
    pub list: &'a TieBreakList,
    /// The team tables' tie-breaks after match points (`None`: the team tables in game
    /// points, as without `--tiebreaks`).
    pub teams: Option<&'a TeamTieBreakList>,
    /// A decisive game without moves counts as played, not as a forfeit.
    pub moveless_played: bool,
}

impl<'a> TieTables<'a> {
    /// The tables the options of a run or a merge ask for: none without `list`.
    pub fn of(
        list: Option<&'a TieBreakList>,
        teams: Option<&'a TeamTieBreakList>,
        moveless_played: bool,
    ) -> Option<TieTables<'a>> {
        list.map(|list| TieTables {
            list,
            teams,
            moveless_played,
        })
    }
}

/// Writes the table reports (all but games.csv) that `output` asks for; `eco` names the
/// openings (given when [`names_openings`]).
pub(crate) fn write_tables(
    output: &ReportOptions,
    acc: &mut StatsAccumulator,
    tally: &Tally,
    staged: &mut StagedFiles,
    tiebreaks: Option<&TieTables<'_>>,
    eco: Option<&'static crate::eco::Table>,
) -> anyhow::Result<u64> {
    let opts = TableOptions {
        kind: output
            .tiebreak
            .map_or(KindChoice::Detect, KindChoice::Force),
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
        if !output.writes(name) {
            continue;
        }
        let mut w = csv::Writer::from_writer(open_report(output, name, staged)?);
        let report = (|| -> anyhow::Result<()> {
            match name {
                ReportName::Games => {}
                ReportName::Standings => {
                    casual_games = match tiebreaks {
                        Some(ties) => {
                            crate::report::tiebreaks::write_standings(&mut w, acc, ties, &opts)?
                        }
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
pub(crate) fn note_moveless(moveless: u64, played: bool) -> Result<(), WriteError> {
    if moveless > 0 && !played {
        say(format_args!(
            "pgnkit: --tiebreaks counted {moveless} decisive game(s) without moves as forfeits (won and lost without play); if they were played and only their moves are missing (a broadcast without move input, a tags-only export), give --played-without-moves"
        ))?;
    }
    Ok(())
}

/// Says on standard error that `standings.csv` left out `casual_games` games, and why.
pub(crate) fn note_casual(casual_games: u64) -> Result<(), WriteError> {
    if casual_games > 0 {
        say(format_args!(
            "pgnkit: {casual_games} casual online game(s) left out of standings.csv: not a tournament (their Site is a web address, each game's own as lichess writes `Rated Blitz game`, and they have no round number)"
        ))?;
    }
    Ok(())
}

/// Where a report goes, as messages name it.
pub(crate) fn destination(output: &ReportOptions, name: ReportName) -> String {
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
/// The first such option, with why it does not apply and what to do; or an initial Elo out
/// of range.
pub(crate) fn refuse_options_that_do_not_apply(
    output: &ReportOptions,
    partial: bool,
    opening_plies: usize,
) -> anyhow::Result<()> {
    // The command line's parser refuses these first; a library caller may not have one.
    if let Some(elo) = output.initial_elo {
        if !(0.0..=MAX_INITIAL_ELO).contains(&elo) {
            bail!("--initial-elo {elo} is not in 0..=4000: give an Elo from 0 to 4000, as 1500");
        }
    }
    if !output.writes_any() && !partial {
        return Ok(());
    }
    // 0, the default, groups by ECO.
    if opening_plies > 0 && !output.writes(ReportName::Openings) && !partial {
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
        if given && !output.writes(report) {
            bail!(
                "{option} shapes {} only, which this run does not write; add --out DIR or \
                 --report {}, or drop {option}",
                report.file_name(),
                report.name()
            );
        }
    }
    let csv_options = [("--excel", output.excel), ("--raw-csv", output.raw_csv)];
    for (option, given) in csv_options {
        if given && !output.writes_any() {
            bail!(
                "{option} applies to CSV reports, and this run writes none (a --partial file \
                 is JSON lines); add --out DIR or --report NAME, or give {option} to \
                 `pgnkit stats merge`"
            );
        }
    }
    Ok(())
}

/// The accumulator of a run: its rating log keeps `run` rated games (by default
/// [`DEFAULT_RUN_LEN`]) in memory, its event log `budget` bytes of games (by default
/// [`DEFAULT_BUDGET`]), and both spill sorted runs to temporary files.
pub(crate) fn accumulator(run: Option<usize>, budget: Option<usize>) -> StatsAccumulator {
    StatsAccumulator::with_stores(
        || Box::new(TempFileStore::new()),
        run.unwrap_or(DEFAULT_RUN_LEN),
        budget.unwrap_or(DEFAULT_BUDGET),
    )
}
