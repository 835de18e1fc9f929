//! The CSV reports of `pgnkit stats`: one record per game, and the tables built from the
//! accumulated statistics. Writers take any `io::Write`; nothing here opens files.

use std::borrow::Cow;
use std::io::{self, Write};

use serde::{Deserialize, Serialize};

use crate::convert::record::{GameRecord, TagSet};
use crate::rules::outcome::Ending;
use crate::stats::club::{self, ClubConfig, Level};
use crate::stats::elo::{self, EloConfig};
use crate::stats::standings::{EventKind, KindChoice};
use crate::stats::tally::Tally;
use crate::stats::StatsAccumulator;

/// The UTF-8 byte order mark `--excel` puts first, so that Excel reads the file as UTF-8.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// How cells are written.
#[derive(Debug, Clone, Copy, Default)]
pub struct CsvOptions {
    /// Leave text from the input as it is, even when a spreadsheet would run it as a formula.
    pub raw: bool,
}

/// A cell: text taken from the input (which may need neutralising) or a value pgnkit made,
/// written as it is. A game's row borrows its values and writes its numbers from the stack:
/// `games.csv` has a row a game, and a string made for each cell was a cost a game.
enum Cell<'a> {
    Input(&'a str),
    Own(Cow<'a, str>),
    Int(u64),
}

/// A cell of text pgnkit made, borrowed or owned.
fn own<'a>(text: impl Into<Cow<'a, str>>) -> Cell<'a> {
    Cell::Own(text.into())
}

pub use super::cell::neutralise;

fn write_cells<W: Write>(
    out: &mut csv::Writer<W>,
    cells: &[Cell<'_>],
    opts: CsvOptions,
) -> csv::Result<()> {
    for cell in cells {
        match cell {
            Cell::Input(text) if !opts.raw => out.write_field(neutralise(text).as_bytes())?,
            Cell::Input(text) => out.write_field(text.as_bytes())?,
            Cell::Own(text) => out.write_field(text.as_bytes())?,
            Cell::Int(n) => out.write_field(itoa::Buffer::new().format(*n).as_bytes())?,
        }
    }
    out.write_record(None::<&[u8]>)
}

/// A number with at most `decimals` decimals, trailing zeros dropped (`2.75`, `3.5`, `4`).
pub fn number(x: f64, decimals: usize) -> String {
    let mut s = format!("{x:.decimals$}");
    if s.contains('.') {
        let trimmed = s.trim_end_matches('0').trim_end_matches('.').len();
        s.truncate(trimmed);
    }
    if s == "-0" {
        s = "0".into();
    }
    s
}

fn int(n: impl ToString) -> Cell<'static> {
    own(n.to_string())
}

fn opt<T: ToString>(v: Option<T>) -> Cell<'static> {
    own(v.map(|v| v.to_string()).unwrap_or_default())
}

/// `part / whole` as a percentage with one decimal, empty when `whole` is 0.
fn percent(part: u64, whole: u64) -> Cell<'static> {
    own(if whole == 0 {
        String::new()
    } else {
        number(100.0 * part as f64 / whole as f64, 1)
    })
}

/// `part / whole` as a fraction with four decimals, empty when `whole` is 0.
fn share(part: u64, whole: u64) -> Cell<'static> {
    own(if whole == 0 {
        String::new()
    } else {
        number(part as f64 / whole as f64, 4)
    })
}

/// A game's row of `games.csv`, and how a partial file keeps it (the values as read, so
/// that a merge writes it again with its own options): the [`GameRecord`]'s fields under
/// the names and spellings of games.csv (a missing tag, result by rule, final FEN or first
/// error empty).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRow<'a> {
    pub file: Cow<'a, str>,
    pub game: u64,
    pub line: u32,
    pub event: Cow<'a, str>,
    pub site: Cow<'a, str>,
    pub date: Cow<'a, str>,
    pub round: Cow<'a, str>,
    pub white: Cow<'a, str>,
    pub black: Cow<'a, str>,
    /// The `Result` tag as written.
    pub result: Cow<'a, str>,
    pub white_elo: Cow<'a, str>,
    pub black_elo: Cow<'a, str>,
    pub eco: Cow<'a, str>,
    pub time_control: Cow<'a, str>,
    pub termination: Cow<'a, str>,
    pub plies: u32,
    pub result_by_rule: Cow<'a, str>,
    pub termination_by_rule: Cow<'a, str>,
    pub termination_ply: Option<u32>,
    pub final_fen: Cow<'a, str>,
    pub legal: bool,
    pub errors: u32,
    pub warnings: u32,
    pub first_error: Cow<'a, str>,
}

/// The tags of games.csv, sorted by name (as [`GameRecord::tags_in`] reads them).
pub(crate) const ROW_TAGS: TagSet<12> = TagSet::new([
    "Black",
    "BlackElo",
    "Date",
    "ECO",
    "Event",
    "Result",
    "Round",
    "Site",
    "Termination",
    "TimeControl",
    "White",
    "WhiteElo",
]);

impl<'a> GameRow<'a> {
    /// The row of `record`, borrowed.
    pub fn of(record: &'a GameRecord<'_>) -> GameRow<'a> {
        let [black, black_elo, date, eco, event, result, round, site, termination, time_control, white, white_elo] =
            record
                .tags_in(&ROW_TAGS)
                .map(|t| Cow::Borrowed(t.unwrap_or("")));
        GameRow {
            file: Cow::Borrowed(&record.file),
            game: record.game,
            line: record.line,
            event,
            site,
            date,
            round,
            white,
            black,
            result,
            white_elo,
            black_elo,
            eco,
            time_control,
            termination,
            plies: record.ply_count,
            result_by_rule: Cow::Borrowed(record.result_by_rule.unwrap_or("")),
            termination_by_rule: Cow::Borrowed(record.ending.as_str()),
            termination_ply: record.ending_ply,
            final_fen: Cow::Borrowed(record.final_fen.as_deref().unwrap_or("")),
            legal: record.legal,
            errors: record.errors,
            warnings: record.warnings,
            first_error: Cow::Borrowed(&record.first_error),
        }
    }

    /// The record this row was written from, as far as games.csv shows it: an empty tag
    /// is left out (games.csv writes a missing one empty too).
    pub fn into_record(self) -> GameRecord<'static> {
        let values = [
            &self.black,
            &self.black_elo,
            &self.date,
            &self.eco,
            &self.event,
            &self.result,
            &self.round,
            &self.site,
            &self.termination,
            &self.time_control,
            &self.white,
            &self.white_elo,
        ];
        let tags: Vec<(&str, &str)> = ROW_TAGS
            .names()
            .iter()
            .zip(values)
            .filter(|(_, v)| !v.is_empty())
            .map(|(&n, v)| (n, &**v))
            .collect();
        let mut record = GameRecord::of_tags(self.file.into_owned(), self.game, self.line, &tags);
        record.result_by_rule = ["1-0", "0-1", "1/2-1/2", "*"]
            .into_iter()
            .find(|r| *r == self.result_by_rule);
        let spelled = &*self.termination_by_rule;
        let ending = Ending::parse(spelled)
            .or_else(|| Ending::parse_old(spelled))
            .unwrap_or(Ending::None);
        record.termination = ending.by_rule();
        record.ply_count = self.plies;
        record.ending = ending;
        record.ending_ply = self.termination_ply;
        record.final_fen = Some(self.final_fen.into_owned()).filter(|f| !f.is_empty());
        record.legal = self.legal;
        record.errors = self.errors;
        record.warnings = self.warnings;
        record.first_error = Cow::Owned(self.first_error.into_owned());
        record
    }
}

/// The columns of `games.csv`.
pub const GAMES_HEADER: [&str; 24] = [
    "file",
    "game",
    "line",
    "event",
    "site",
    "date",
    "round",
    "white",
    "black",
    "result",
    "white_elo",
    "black_elo",
    "eco",
    "time_control",
    "termination",
    "plies",
    "result_by_rule",
    "termination_by_rule",
    "termination_ply",
    "final_fen",
    "legal",
    "errors",
    "warnings",
    "first_error",
];

/// Writes the header of `games.csv`.
///
/// # Errors
///
/// Errors of the underlying writer.
pub fn write_games_header<W: Write>(out: &mut csv::Writer<W>) -> csv::Result<()> {
    out.write_record(GAMES_HEADER)
}

/// Writes one row of `games.csv`: the record as [`GameRow`] spells it, `legal` as
/// `yes`/`no`.
///
/// # Errors
///
/// Errors of the underlying writer.
pub fn write_game<W: Write>(
    out: &mut csv::Writer<W>,
    record: &GameRecord<'_>,
    opts: CsvOptions,
) -> csv::Result<()> {
    let row = GameRow::of(record);
    let cells = [
        // A file name is text from outside pgnkit, as a tag's value is.
        Cell::Input(&row.file),
        Cell::Int(row.game),
        Cell::Int(row.line.into()),
        Cell::Input(&row.event),
        Cell::Input(&row.site),
        Cell::Input(&row.date),
        Cell::Input(&row.round),
        Cell::Input(&row.white),
        Cell::Input(&row.black),
        Cell::Input(&row.result),
        Cell::Input(&row.white_elo),
        Cell::Input(&row.black_elo),
        Cell::Input(&row.eco),
        Cell::Input(&row.time_control),
        Cell::Input(&row.termination),
        Cell::Int(row.plies.into()),
        own(&*row.result_by_rule),
        own(&*row.termination_by_rule),
        row.termination_ply.map_or(own(""), |p| Cell::Int(p.into())),
        own(&*row.final_fen),
        own(if row.legal { "yes" } else { "no" }),
        Cell::Int(row.errors.into()),
        Cell::Int(row.warnings.into()),
        own(&*row.first_error),
    ];
    write_cells(out, &cells, opts)
}

/// How the tables are computed.
#[derive(Debug, Clone, Default)]
pub struct TableOptions {
    /// Round robin / Swiss detection, or a forced tie-break.
    pub kind: KindChoice,
    /// Elo settings (`--initial-elo`).
    pub elo: EloConfig,
    /// Club points settings.
    pub club: ClubConfig,
    /// Cell writing.
    pub csv: CsvOptions,
    /// The opening table that names openings (`openings.csv`'s `name` column).
    pub eco: Option<&'static crate::eco::Table>,
}

fn kind_name(kind: EventKind) -> &'static str {
    match kind {
        EventKind::RoundRobin => "round robin",
        EventKind::Swiss => "swiss",
    }
}

fn tiebreak_name(kind: EventKind) -> &'static str {
    match kind {
        EventKind::RoundRobin => "sonneborn-berger",
        EventKind::Swiss => "buchholz",
    }
}

/// Writes `standings.csv`: every event's player table, then its team table if it has teams,
/// one event at a time; returns the games left out as casual online play (see
/// [`StatsAccumulator::for_each_event`]).
///
/// # Errors
///
/// Errors of the underlying writer, and of the event log's store.
pub fn write_standings<W: Write>(
    out: &mut csv::Writer<W>,
    acc: &mut StatsAccumulator,
    opts: &TableOptions,
) -> csv::Result<u64> {
    out.write_record([
        "event",
        "site",
        "year",
        "table",
        "kind",
        "tiebreak",
        "place",
        "player",
        "games",
        "wins",
        "draws",
        "losses",
        "points",
        "sonneborn_berger",
        "buchholz",
        "performance",
    ])?;
    acc.for_each_event(|event| {
        let key = event.key;
        let standings = event.standings(opts.kind);
        let year = key.year.map(|y| y.to_string()).unwrap_or_default();
        for row in &standings.rows {
            let player = row.player.to_string();
            write_cells(
                out,
                &[
                    Cell::Input(key.event),
                    Cell::Input(key.site),
                    own(year.clone()),
                    own("players"),
                    own(kind_name(standings.kind)),
                    own(tiebreak_name(standings.kind)),
                    opt(row.place),
                    Cell::Input(&player),
                    int(row.games),
                    int(row.wins),
                    int(row.draws),
                    int(row.losses),
                    own(number(row.points(), 1)),
                    own(number(row.sonneborn_berger(), 2)),
                    own(number(row.buchholz(), 1)),
                    own(row.performance.map(|p| number(p, 1)).unwrap_or_default()),
                ],
                opts.csv,
            )
            .map_err(io::Error::from)?;
        }
        for team in event.team_standings() {
            write_cells(
                out,
                &[
                    Cell::Input(key.event),
                    Cell::Input(key.site),
                    own(year.clone()),
                    own("teams"),
                    own(kind_name(standings.kind)),
                    own("game points"),
                    opt(team.place),
                    Cell::Input(&team.team),
                    int(team.games),
                    own(""),
                    own(""),
                    own(""),
                    own(number(team.points(), 1)),
                    own(""),
                    own(""),
                    own(""),
                ],
                opts.csv,
            )
            .map_err(io::Error::from)?;
        }
        Ok(())
    })
    .map_err(csv::Error::from)
}

/// Writes `players.csv`: one row a player (by name; the unknown bucket `?` last), with Elo and
/// club points replayed in chronological order.
///
/// # Errors
///
/// Errors of the underlying writer, and of the rating log's store.
pub fn write_players<W: Write>(
    out: &mut csv::Writer<W>,
    acc: &mut StatsAccumulator,
    tally: &Tally,
    opts: &TableOptions,
) -> csv::Result<()> {
    out.write_record([
        "player",
        "games",
        "white_wins",
        "white_draws",
        "white_losses",
        "black_wins",
        "black_draws",
        "black_losses",
        "points",
        "score_pct",
        "elo_start",
        "elo",
        "rated_games",
        "club_points",
        "club_level",
        "first_date",
        "last_date",
    ])?;
    let elo: std::collections::BTreeMap<String, elo::EloRow> = acc
        .elo_table(&opts.elo)?
        .into_iter()
        .map(|r| (r.player.clone(), r))
        .collect();
    let club: std::collections::BTreeMap<String, club::ClubRow> = acc
        .club_table(&opts.club)?
        .into_iter()
        .map(|r| (r.player.clone(), r))
        .collect();
    for (name, player) in tally.all_players() {
        let (elo_row, club_row) = match name {
            Some(name) => (elo.get(name), club.get(name)),
            None => (None, None),
        };
        write_cells(
            out,
            &[
                Cell::Input(name.unwrap_or("?")),
                int(player.games()),
                int(player.as_white.wins),
                int(player.as_white.draws),
                int(player.as_white.losses),
                int(player.as_black.wins),
                int(player.as_black.draws),
                int(player.as_black.losses),
                own(number(player.half_points() as f64 / 2.0, 1)),
                percent(player.half_points(), 2 * player.games()),
                own(elo_row.map(|r| number(r.start, 1)).unwrap_or_default()),
                own(elo_row.map(|r| number(r.rating, 1)).unwrap_or_default()),
                own(elo_row.map(|r| r.games.to_string()).unwrap_or_default()),
                own(club_row.map(|r| number(r.total, 2)).unwrap_or_default()),
                own(club_row
                    .map(|r| Level::of(r.total).to_string())
                    .unwrap_or_default()),
                opt(player.first_date),
                opt(player.last_date),
            ],
            opts.csv,
        )?;
    }
    Ok(())
}

/// Writes `openings.csv`: most played first, then by key.
///
/// # Errors
///
/// Errors of the underlying writer.
pub fn write_openings<W: Write>(
    out: &mut csv::Writer<W>,
    tally: &Tally,
    opts: &TableOptions,
) -> csv::Result<()> {
    out.write_record([
        "opening",
        "games",
        "white_wins",
        "draws",
        "black_wins",
        "unfinished",
        "white_score_pct",
        "average_plies",
        "name",
    ])?;
    let mut openings: Vec<_> = tally.openings.iter().collect();
    openings.sort_by(|a, b| b.1.games.cmp(&a.1.games).then_with(|| a.0.cmp(b.0)));
    for (key, o) in openings {
        let name = opts.eco.and_then(|t| opening_name(t, key)).unwrap_or("");
        write_cells(
            out,
            &[
                Cell::Input(key),
                int(o.games),
                int(o.white_wins),
                int(o.draws),
                int(o.black_wins),
                int(o.games - o.finished()),
                percent(2 * o.white_wins + o.draws, 2 * o.finished()),
                own(if o.games == 0 {
                    String::new()
                } else {
                    number(o.plies as f64 / o.games as f64, 1)
                }),
                Cell::Input(name),
            ],
            opts.csv,
        )?;
    }
    Ok(())
}

/// The name of an `openings.csv` key: an ECO code's (`B90`, `B90a`, see
/// [`crate::eco::Table::code_name`]), or the
/// opening a line of moves (`--opening-plies`) reaches; none for `?`.
fn opening_name<'t>(table: &'t crate::eco::Table, key: &str) -> Option<&'t str> {
    let b = key.as_bytes();
    let code = b.len() >= 3
        && matches!(b[0], b'A'..=b'E')
        && b[1].is_ascii_digit()
        && b[2].is_ascii_digit();
    if code {
        table.code_name(key)
    } else if key == "?" {
        None
    } else {
        table.classify_line(key).map(|c| c.opening.name.as_str())
    }
}

/// Writes `terminations.csv`: every termination by rule met with a result tag and a
/// `Termination` tag.
///
/// # Errors
///
/// Errors of the underlying writer.
pub fn write_terminations<W: Write>(
    out: &mut csv::Writer<W>,
    tally: &Tally,
    opts: &TableOptions,
) -> csv::Result<()> {
    out.write_record([
        "termination_by_rule",
        "result_by_rule",
        "result",
        "termination",
        "mismatch",
        "games",
        "share",
    ])?;
    for (key, &n) in &tally.terminations {
        write_cells(
            out,
            &[
                own(&*key.termination),
                own(key.result_by_rule.as_deref().unwrap_or("")),
                Cell::Input(&key.result),
                Cell::Input(&key.tag),
                own(if key.mismatch() { "yes" } else { "no" }),
                int(n),
                share(n, tally.games),
            ],
            opts.csv,
        )?;
    }
    Ok(())
}

/// Writes `summary.csv`: one `metric,value` row per figure.
///
/// # Errors
///
/// Errors of the underlying writer, and of the event log's store (events are counted by a
/// pass over it unless `standings.csv` was just written).
pub fn write_summary<W: Write>(
    out: &mut csv::Writer<W>,
    acc: &mut StatsAccumulator,
    tally: &Tally,
    opts: &TableOptions,
) -> csv::Result<()> {
    out.write_record(["metric", "value"])?;
    let events = acc.event_count()?;
    let named = tally.players.len();
    let finished = tally.finished();
    let rows: [(&str, Cell<'_>); 19] = [
        ("files", int(tally.files)),
        ("games", int(tally.games)),
        ("finished_games", int(finished)),
        ("unfinished_games", int(tally.games - finished)),
        ("white_wins", int(tally.white_wins)),
        ("draws", int(tally.draws)),
        ("black_wins", int(tally.black_wins)),
        ("white_win_share", share(tally.white_wins, finished)),
        ("draw_share", share(tally.draws, finished)),
        ("black_win_share", share(tally.black_wins, finished)),
        (
            "average_plies",
            own(if tally.games == 0 {
                String::new()
            } else {
                number(tally.plies as f64 / tally.games as f64, 1)
            }),
        ),
        ("games_with_errors", int(tally.games_with_errors)),
        (
            "games_with_illegal_moves",
            int(tally.games_with_illegal_moves),
        ),
        ("players", int(named)),
        ("unknown_player_sides", int(acc.unknown_sides)),
        (
            "unrated_games_with_unknown_players",
            int(acc.unrated_unknown_games),
        ),
        ("events", int(events)),
        ("first_date", opt(tally.first_date)),
        ("last_date", opt(tally.last_date)),
    ];
    for (metric, value) in rows {
        write_cells(out, &[own(metric), value], opts.csv)?;
    }
    Ok(())
}

/// Writes the BOM when asked, for `--excel`.
///
/// # Errors
///
/// Errors of the underlying writer.
pub fn start(out: &mut impl Write, excel: bool) -> io::Result<()> {
    if excel {
        out.write_all(BOM)?;
    }
    Ok(())
}
