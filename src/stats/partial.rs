//! The partial file of `stats --partial` (JSON lines: a header, games.csv rows, rated games,
//! games of events, the totals) and the merge of partial files into the reports of all their
//! games (`stats merge`, and the Spark job's driver).

use std::borrow::Cow;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;

use anyhow::{bail, Context};
use serde::{Deserialize, Serialize};

use super::reports::{self, ReportOptions};
use crate::convert::record::GameRecord;
use crate::outcome::Outcome;
use crate::report::staged::StagedFiles;
use crate::report::stats::{self as csvout, CsvOptions, GameRow};
use crate::stats::reports::TieTables;
use crate::stats::tally::Tally;
use crate::stats::tiebreak::event::{names_a_bye, Play};
use crate::stats::tiebreak::team::TeamTieBreakList;
use crate::stats::tiebreak::TieBreakList;
use crate::stats::{EventEntry, RatedEntry, StatsAccumulator};

/// The first line of a partial file, naming its format.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct PartHeader {
    pub format: String,
    pub version: u32,
    pub opening_plies: usize,
}

pub(crate) const PART_FORMAT: &str = "pgnkit-stats-partial";
// 4: terminations are counted by `Termination` tag too; events' games carry their round.
// 5: events' games carry what tie-breaks need (`tie`); a part of 4 merges without them.
pub(crate) const PART_VERSION: u32 = 5;

/// The oldest version a merge reads: one without tie-break facts, merged without
/// `--tiebreaks`.
const PART_VERSION_UNTIED: u32 = 4;

/// Everything a part counted but the rating log; its last line.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct PartTotals {
    pub acc: StatsAccumulator,
    pub tally: Tally,
}

/// One line of a partial file: the header, a row of `games.csv`, a rated game (names spelled
/// out, in chronological order), a finished game as standings count it (event and names
/// spelled out, event by event), or the totals.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum PartLine<'a> {
    Header(PartHeader),
    Game(Box<GameRow<'static>>),
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
pub(crate) enum PartLineOut<'a> {
    Game(&'a GameRow<'a>),
    Rated(&'a RatedEntry<'a>),
    Event(&'a EventEntry<'a>),
}

/// How a part's games are named and numbered when it is one split of a larger input (the
/// Spark job's byte ranges): as one machine's run over the whole input names and numbers
/// them. The merge does it as it reads the part, so the part is parsed once.
#[derive(Debug, Clone, PartialEq, Eq)]
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
    /// The name one machine's run gives the input a game of the part names `file`, and
    /// whether `file` is a byte range's (`FILE@START`, whose lines count from START).
    pub fn file_name(&self, file: &str) -> (String, bool) {
        let rest = file.strip_prefix(self.local.as_str()).unwrap_or(file);
        let ranged = rest.starts_with('@');
        let name = if ranged {
            self.display.clone()
        } else {
            format!("{}{rest}", self.display)
        };
        (name, ranged)
    }

    fn apply(&self, row: &mut GameRecord<'_>) -> anyhow::Result<()> {
        let (name, ranged) = self.file_name(&row.file);
        row.file = Cow::Owned(name);
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
    /// Decisive games without moves (not a bye's) that `tiebreaks` saw: forfeits unless
    /// `played_without_moves`.
    pub moveless: u64,
    pub games: u64,
    pub games_with_errors: u64,
    pub events: u64,
    pub outcome: Outcome,
}

/// What a merge writes: the reports, and the hidden budgets of `pgnkit stats merge`.
#[derive(Debug, Clone, Default)]
pub struct MergeOptions {
    pub reports: ReportOptions,
    /// Rated games kept in memory before a sorted run goes to a temporary file (`None`: the
    /// default; small values are for tests).
    pub rating_run: Option<usize>,
    /// Bytes of standings games kept in memory before a sorted run goes to a temporary file,
    /// and of an event's pairs before they do (`None`: the default).
    pub standings_budget: Option<usize>,
    /// Rank standings.csv by points, then by these FIDE tie-breaks, one column each (the
    /// parts must be of this version: they carry what tie-breaks need).
    pub tiebreaks: Option<TieBreakList>,
    /// With `tiebreaks`: rank the team tables by match points, then by these.
    pub team_tiebreaks: Option<TeamTieBreakList>,
    /// With `tiebreaks`: a decisive game without moves counts as played, not as a forfeit.
    pub played_without_moves: bool,
}

/// `pgnkit stats merge` as a value: fed partial results one at a time, in input order, it
/// writes the reports of all their games when finished. The Spark job's driver feeds it each
/// partial as it arrives, so the merge runs while later partials are still on their way.
///
/// ```
/// use pgnkit::input::InputOptions;
/// use pgnkit::stats::{MergeOptions, Merger, ReportName, Stats, StatsOptions};
///
/// let dir = std::env::temp_dir().join(format!("pgnkit-doc-merge-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let games = dir.join("games.pgn");
/// std::fs::write(&games, "[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n")?;
/// // One part, as `pgnkit stats --partial` writes it.
/// let mut options = StatsOptions::default();
/// options.partial = Some(dir.join("part.jsonl"));
/// options.quiet = true;
/// Stats::new(options)?.run(InputOptions::new(vec![games]))?;
///
/// let mut options = MergeOptions::default();
/// options.reports.report = Some(ReportName::Summary);
/// options.reports.output = Some(dir.join("summary.csv"));
/// let mut merger = Merger::new(options)?;
/// let part = std::fs::read(dir.join("part.jsonl"))?;
/// assert_eq!(merger.add(&part[..], None)?, 1);
/// let merged = merger.finish()?;
/// assert_eq!((merged.games, merged.games_with_errors), (1, 0));
/// assert!(dir.join("summary.csv").exists());
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), anyhow::Error>(())
/// ```
pub struct Merger {
    output: ReportOptions,
    tiebreaks: Option<TieBreakList>,
    team_tiebreaks: Option<TeamTieBreakList>,
    played_without_moves: bool,
    /// Decisive games without moves, not a bye's, of the parts so far (with `tiebreaks`).
    moveless: u64,
    csv_opts: CsvOptions,
    staged: StagedFiles,
    games_csv: Option<csv::Writer<Box<dyn Write>>>,
    acc: StatsAccumulator,
    tally: Tally,
    opening_plies: Option<usize>,
}

impl Merger {
    /// A merge into the reports `options` asks for.
    ///
    /// # Errors
    ///
    /// An option that does not apply, no report asked for, or games.csv cannot be created.
    pub fn new(options: MergeOptions) -> anyhow::Result<Merger> {
        let MergeOptions {
            reports: output,
            rating_run,
            standings_budget,
            tiebreaks,
            team_tiebreaks,
            played_without_moves,
        } = options;
        reports::refuse_options_that_do_not_apply(&output, false, 0)?;
        reports::refuse_tie_options(
            &output,
            tiebreaks.as_ref(),
            team_tiebreaks.as_ref(),
            played_without_moves,
        )?;
        if !output.writes_any() {
            bail!("nothing to write: give --out DIR or --report NAME");
        }
        let csv_opts = CsvOptions {
            raw: output.raw_csv,
        };
        let mut staged = StagedFiles::new();
        let games_csv = reports::open_games_csv(&output, &mut staged)?;
        let mut acc = reports::accumulator(rating_run, standings_budget);
        if tiebreaks.is_some() {
            acc.keep_tie_facts();
        }
        Ok(Merger {
            output,
            tiebreaks,
            team_tiebreaks,
            played_without_moves,
            moveless: 0,
            csv_opts,
            staged,
            games_csv,
            acc,
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
    /// A part that is damaged, of another version or another `--opening-plies`, or of a
    /// version without what `tiebreaks` need; or a temporary file that cannot be written.
    pub fn add(&mut self, part: impl BufRead, renumber: Option<&Renumber>) -> anyhow::Result<u64> {
        // This part's games come after every game of the parts before it.
        let offset = self.tally.games;
        let (games_csv, csv_opts, acc) = (&mut self.games_csv, self.csv_opts, &mut self.acc);
        let tied = self.tiebreaks.is_some();
        let moveless = &mut self.moveless;
        let on_line = |line: PartLine<'_>| -> anyhow::Result<()> {
            match line {
                PartLine::Game(row) => {
                    let mut record = row.into_record();
                    if let Some(r) = renumber {
                        r.apply(&mut record)?;
                    }
                    if let Some(w) = games_csv.as_mut() {
                        csvout::write_game(w, &record, csv_opts)?;
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
                PartLine::Event(mut entry) => {
                    if let Some(tie) = entry.tie.as_mut().filter(|_| tied) {
                        tie.order = tie
                            .order
                            .checked_add(offset)
                            .context("a game number too large")?;
                        let bye = names_a_bye(&entry.white) || names_a_bye(&entry.black);
                        if tie.play == Play::NoMoves && !bye {
                            *moveless += 1;
                        }
                    }
                    acc.add_event_entry(&entry)
                        .context("cannot spill the event log")?
                }
                PartLine::Header(_) | PartLine::Totals(_) => {}
            }
            Ok(())
        };
        let mut part = read_part(part, &mut self.opening_plies, tied, on_line)?;
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

    /// Adds the partial file at `path` ([`add`](Self::add), not renumbered).
    ///
    /// # Errors
    ///
    /// As [`add`](Self::add), and a file that cannot be opened; the error names the file.
    ///
    /// ```
    /// use pgnkit::input::InputOptions;
    /// use pgnkit::stats::{MergeOptions, Merger, ReportName, Stats, StatsOptions};
    ///
    /// let dir = std::env::temp_dir().join(format!("pgnkit-doc-add-file-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// let swiss = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/stats/tiebreaks/swiss.pgn");
    /// let mut options = StatsOptions::default();
    /// options.partial = Some(dir.join("swiss.part"));
    /// options.quiet = true;
    /// Stats::new(options)?.run(InputOptions::new(vec![swiss.into()]))?;
    ///
    /// // The merge ranks by tie-breaks: partial files carry what they need.
    /// let mut options = MergeOptions::default();
    /// options.reports.report = Some(ReportName::Standings);
    /// options.reports.output = Some(dir.join("standings.csv"));
    /// options.tiebreaks = Some("BH,DE".parse()?);
    /// let mut merger = Merger::new(options)?;
    /// assert_eq!(merger.add_file(&dir.join("swiss.part"))?, 8);
    /// merger.finish()?;
    /// let table = std::fs::read_to_string(dir.join("standings.csv"))?;
    /// assert!(table.starts_with("event,site,year,table,kind,tiebreak,place,player,games,wins,draws,losses,points,BH,DE"), "{table}");
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), anyhow::Error>(())
    /// ```
    pub fn add_file(&mut self, path: &Path) -> anyhow::Result<u64> {
        let file = File::open(path)
            .context("cannot open")
            .with_context(|| format!("cannot merge {}", path.display()))?;
        self.add(BufReader::new(file), None)
            .with_context(|| format!("cannot merge {}", path.display()))
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
        let eco_table = reports::names_openings(output)
            .then(|| crate::eco::table_at(output.eco_table.as_deref()))
            .transpose()?;
        let tiebreaks = TieTables::of(
            self.tiebreaks.as_ref(),
            self.team_tiebreaks.as_ref(),
            self.played_without_moves,
        );
        let casual_games = reports::write_tables(
            output,
            &mut self.acc,
            &self.tally,
            &mut self.staged,
            tiebreaks.as_ref(),
            eco_table,
        )?;
        reports::finish(self.staged)?;
        let events = self.acc.event_count().context("cannot count the events")?;
        Ok(Merged {
            casual_games,
            moveless: self.moveless,
            games: self.tally.games,
            games_with_errors: self.tally.games_with_errors,
            events,
            outcome: reports::outcome(0, &self.tally),
        })
    }
}

/// Reads one partial file, handing each line between the header and the totals (a games.csv
/// row, a rated game, a game of an event) to `on_line`, and returns its totals. A part
/// without tie-break facts (version 4) is refused when `tied`.
pub(crate) fn read_part(
    part: impl BufRead,
    opening_plies: &mut Option<usize>,
    tied: bool,
    mut on_line: impl FnMut(PartLine<'_>) -> anyhow::Result<()>,
) -> anyhow::Result<PartTotals> {
    let mut lines = part.lines();
    let first = lines.next().transpose()?.unwrap_or_default();
    let known = PART_VERSION_UNTIED..=PART_VERSION;
    match serde_json::from_str::<PartLine>(&first) {
        Ok(PartLine::Header(h)) if h.format == PART_FORMAT && known.contains(&h.version) => {
            if tied && h.version < PART_VERSION {
                bail!("written by an older pgnkit, without what --tiebreaks needs: rebuild the partial results with this version's `pgnkit stats --partial FILE`, or merge without --tiebreaks");
            }
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
