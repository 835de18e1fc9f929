//! Statistics over finished games as plain data: standings, club points and Elo.
//!
//! The engine of `pgnkit stats` is [`Stats`] (a run over inputs, from [`StatsOptions`]) and
//! [`Merger`] (partial results merged, from [`MergeOptions`]); they alone read and write files
//! ([`engine`], [`partial`], [`reports`]; each game's facts in `facts`). Below them nothing
//! reads files or prints: the engine turns each replayed game into a [`ScoredGame`], feeds it
//! to a [`StatsAccumulator`], and asks the accumulator for tables.
//!
//! Every accumulator is *mergeable*: `a.merge(b)` leaves `a` holding exactly what one
//! accumulator fed all games of `a` and `b` would hold, so inputs can be split across threads
//! or files and recombined. Player and team names are interned once per accumulator
//! ([`Names`]). Standings are built one event at a time from the games of that event, which
//! the event log ([`eventlog`]) keeps in sorted runs and gives back event by event; tie-breaks
//! depend on every opponent's final score, which sums per player and per pair of players that
//! met give exactly (see [`standings`]). Sequential ratings depend on the chronological order
//! of all games, so rated games are kept as compact records in sorted runs too ([`chrono`])
//! and replayed in that order. Memory is bounded by the players and the two logs' budgets,
//! not by the games or the events.

pub mod chrono;
pub mod club;
pub mod elo;
pub mod engine;
pub mod eventlog;
mod facts;
pub mod names;
pub mod partial;
pub mod reports;
pub mod standings;
pub mod tally;
pub mod tiebreak;

pub use crate::pgn::date::GameDate;

use crate::rules::outcome::GameResult;
use std::cmp::Ordering;
use std::fmt;
use std::io;

pub use crate::sort::{MemoryStore, RunStore};
pub use chrono::{RatedEntry, RatedGame, RatingLog};
pub use engine::{Stats, StatsOptions};
use eventlog::TieOptions;
pub use eventlog::{EventEntry, EventLog, TieEntry};
pub use names::{NameId, Names};
pub use partial::{MergeOptions, Merged, Merger, Renumber};
pub use reports::{ReportName, ReportOptions};
use standings::{EventGame, EventTable};
use tiebreak::event::{fide_id, tie_round, EventPlayers, TieFacts, TieGame};

/// The sites of an event that standings join into one table: each `(Event, Site, year)` that
/// joins another, with the site of its group (the one its table is named after).
pub type JoinedSites = std::collections::HashMap<(String, String, Option<u16>), String>;

/// The result of a finished game. Unfinished games (`*`) are not [`ScoredGame`]s.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum Score {
    /// `1-0`.
    WhiteWin,
    /// `1/2-1/2`.
    Draw,
    /// `0-1`.
    BlackWin,
}

impl Score {
    /// White's points in half points: 2, 1 or 0. Half points keep all game-point sums exact.
    pub fn white_half_points(self) -> u32 {
        match self {
            Score::WhiteWin => 2,
            Score::Draw => 1,
            Score::BlackWin => 0,
        }
    }

    /// Black's points in half points: 0, 1 or 2.
    pub fn black_half_points(self) -> u32 {
        2 - self.white_half_points()
    }

    /// White's score as 1, 0.5 or 0.
    pub fn white_score(self) -> f64 {
        f64::from(self.white_half_points()) / 2.0
    }

    /// The score of a result; `*` has none.
    pub fn of(result: GameResult) -> Option<Score> {
        match result {
            GameResult::WhiteWins => Some(Score::WhiteWin),
            GameResult::Draw => Some(Score::Draw),
            GameResult::BlackWins => Some(Score::BlackWin),
            GameResult::Unknown => None,
        }
    }

    /// Parses a `Result` tag's value ([`GameResult::of_tag`]); `*` and anything else give
    /// `None`.
    pub fn from_pgn(result: &str) -> Option<Score> {
        GameResult::of_tag(result).and_then(Score::of)
    }
}

/// What tells one event from another in a mixed database: `Event`, `Site` and the year of
/// `Date` (tag values kept exactly as written). Events sort by these, in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventKey<'a> {
    /// The `Event` tag.
    pub event: &'a str,
    /// The `Site` tag.
    pub site: &'a str,
    /// The year of the `Date` tag, when known.
    pub year: Option<u16>,
}

impl<'a> EventKey<'a> {
    /// The event of a game with these `Event`, `Site` and `Date` tags, as its organiser names
    /// it. An online tournament whose `Event` gives its address (lichess:
    /// `Rated Blitz tournament https://lichess.org/tournament/ID`, `… https://lichess.org/swiss/ID`)
    /// is that address, whatever the games' `Site` (each game's own address) and dates (an
    /// arena may cross midnight on 31 December): its site is the server (`https://lichess.org`)
    /// and its year unknown. Any other event is its `Event`, `Site` and year.
    pub fn of(event: &'a str, site: &'a str, date: Option<GameDate>) -> EventKey<'a> {
        match tournament_server(event) {
            Some(server) => EventKey {
                event,
                site: server,
                year: None,
            },
            None => EventKey {
                event,
                site,
                year: date.map(|d| d.year),
            },
        }
    }
}

/// The `scheme://host` of a tournament's address in an `Event` tag: an address whose path is
/// `tournament/ID` or `swiss/ID`.
fn tournament_server(event: &str) -> Option<&str> {
    // Once a finished game: memchr finds the few `:` far faster than a substring search.
    let bytes = event.as_bytes();
    let at = memchr::memchr_iter(b':', bytes).find(|&i| bytes[i + 1..].starts_with(b"//"))?;
    // The scheme starts after the last character that is not a letter (which may be wider
    // than a byte).
    let start = event[..at]
        .char_indices()
        .rev()
        .find(|&(_, c)| !c.is_ascii_alphabetic())
        .map_or(0, |(i, c)| i + c.len_utf8());
    let rest = &event[at + 3..];
    let host = rest.find('/')?;
    let mut path = rest[host + 1..].split(['/', ' ', '?', '#']);
    let kind = path.next()?;
    let id = path.next()?;
    let named = matches!(kind, "tournament" | "swiss")
        && !id.is_empty()
        && id.bytes().all(|b| b.is_ascii_alphanumeric());
    (named && start < at && host > 0).then(|| &event[start..at + 3 + host])
}

/// An [`EventKey`] that owns its strings: the event a reader or writer is on, kept to compare
/// the next game's with (the strings are reused from one event to the next).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct OwnedEventKey {
    pub event: String,
    pub site: String,
    pub year: Option<u16>,
}

impl OwnedEventKey {
    /// The key, borrowed.
    pub fn key(&self) -> EventKey<'_> {
        EventKey {
            event: &self.event,
            site: &self.site,
            year: self.year,
        }
    }

    /// Becomes `key`.
    pub fn set(&mut self, key: EventKey<'_>) {
        self.event.clear();
        self.event.push_str(key.event);
        self.site.clear();
        self.site.push_str(key.site);
        self.year = key.year;
    }
}

/// One finished game reduced to the facts statistics need, borrowed from the caller: adding
/// it copies a name only the first time the accumulator sees it.
///
/// Player and team names are kept exactly as written (any Unicode); a name that is empty,
/// blank or `?` means "unknown" (see [`PlayerKey`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScoredGame<'a> {
    /// The `Event` tag.
    pub event: &'a str,
    /// The `Site` tag.
    pub site: &'a str,
    /// The `White` tag.
    pub white: &'a str,
    /// The `Black` tag.
    pub black: &'a str,
    /// The `WhiteTeam` tag, if any.
    pub white_team: Option<&'a str>,
    /// The `BlackTeam` tag, if any.
    pub black_team: Option<&'a str>,
    /// The result.
    pub score: Score,
    /// The `Date` tag, if at least the year is known; its year also tells events apart.
    pub date: Option<GameDate>,
    /// The `Round` tag as written, if any.
    pub round: Option<&'a str>,
    /// The `WhiteElo` tag, if it is a positive number.
    pub white_elo: Option<u32>,
    /// The `BlackElo` tag, if it is a positive number.
    pub black_elo: Option<u32>,
    /// Position of the game in the input (file order), used as the last ordering key.
    /// Callers that split an input must number games globally for merges to be exact.
    pub order: u64,
}

/// A player as statistics see one: a name kept exactly, or the one shared "unknown" bucket
/// for empty, blank and `?` names.
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum PlayerKey {
    /// A known name, exactly as written.
    Named(String),
    /// Every game side whose name is empty, blank or `?`.
    Unknown,
}

impl PlayerKey {
    /// Maps a tag value to a key: empty, blank and `?` become [`PlayerKey::Unknown`].
    pub fn from_name(name: &str) -> PlayerKey {
        if PlayerKey::means_unknown(name) {
            PlayerKey::Unknown
        } else {
            PlayerKey::Named(name.to_owned())
        }
    }

    /// Whether a tag value names nobody: empty, blank or `?`.
    pub fn means_unknown(name: &str) -> bool {
        let trimmed = name.trim();
        trimmed.is_empty() || trimmed == "?"
    }

    /// Whether this is the unknown bucket.
    pub fn is_unknown(&self) -> bool {
        matches!(self, PlayerKey::Unknown)
    }
}

impl fmt::Display for PlayerKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayerKey::Named(name) => f.write_str(name),
            PlayerKey::Unknown => f.write_str("?"),
        }
    }
}

/// A player as an accumulator holds one: a name of its [`Names`] table, or the unknown
/// bucket. Four bytes, so that per-game and per-pair records stay small.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(transparent)]
pub struct PlayerId(u32);

impl PlayerId {
    /// The unknown bucket.
    pub const UNKNOWN: PlayerId = PlayerId(u32::MAX);

    /// A named player.
    pub fn named(name: NameId) -> PlayerId {
        PlayerId(name.raw())
    }

    /// The player's name, `None` for the unknown bucket.
    pub fn name(self) -> Option<NameId> {
        NameId::from_index(self.0 as usize)
    }

    /// Whether this is the unknown bucket.
    pub fn is_unknown(self) -> bool {
        self == PlayerId::UNKNOWN
    }

    /// The key for output: the name, or the unknown bucket.
    pub fn key(self, names: &Names) -> PlayerKey {
        match self.name() {
            Some(name) => PlayerKey::Named(names.get(name).to_owned()),
            None => PlayerKey::Unknown,
        }
    }
}

/// A `Round` tag turned into something that sorts: dotted numbers (`3`, `2.1`) numerically,
/// anything else as text after them; `?`, `-` and a missing tag first.
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum RoundKey {
    /// No usable round.
    Unknown,
    /// Dotted numeric rounds, compared part by part.
    Numeric(Vec<u64>),
    /// Any other round text, compared as written.
    Text(String),
}

impl RoundKey {
    /// Reads a `Round` tag value.
    pub fn parse(round: Option<&str>) -> RoundKey {
        let Some(round) = round.map(str::trim) else {
            return RoundKey::Unknown;
        };
        if round.is_empty() || round == "?" || round == "-" {
            return RoundKey::Unknown;
        }
        let parts: Option<Vec<u64>> = round.split('.').map(|p| p.parse().ok()).collect();
        match parts {
            Some(parts) => RoundKey::Numeric(parts),
            None => RoundKey::Text(round.to_owned()),
        }
    }
}

/// The order in which sequential ratings apply games: `Date`, then `Round`, then file order.
/// Games without a date sort before dated ones, partial dates before full ones of the same
/// year or month. The rating log packs these keys into its records ([`chrono`]) and sorts
/// exactly as this type does.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct ChronoKey {
    /// The date, if known.
    pub date: Option<GameDate>,
    /// The round.
    pub round: RoundKey,
    /// The file order.
    pub order: u64,
}

impl Ord for ChronoKey {
    fn cmp(&self, other: &Self) -> Ordering {
        self.date
            .cmp(&other.date)
            .then_with(|| self.round.cmp(&other.round))
            .then_with(|| self.order.cmp(&other.order))
    }
}

impl PartialOrd for ChronoKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Serialises a `HashMap` as a map with its keys in order: the same counts are always written
/// alike.
pub(crate) mod sorted {
    use std::collections::HashMap;

    use serde::{Serialize, Serializer};

    pub fn serialize<S, K, V>(map: &HashMap<K, V>, s: S) -> Result<S::Ok, S::Error>
    where
        S: Serializer,
        K: Serialize + Ord,
        V: Serialize,
    {
        let mut entries: Vec<_> = map.iter().collect();
        entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
        s.collect_map(entries)
    }
}

/// (De)serialises a map as a list of pairs, for keys JSON cannot hold as object keys.
pub(crate) mod pairs {
    use std::collections::BTreeMap;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S, K, V>(map: &BTreeMap<K, V>, s: S) -> Result<S::Ok, S::Error>
    where
        S: Serializer,
        K: Serialize,
        V: Serialize,
    {
        s.collect_seq(map.iter())
    }

    pub fn deserialize<'de, D, K, V>(d: D) -> Result<BTreeMap<K, V>, D::Error>
    where
        D: Deserializer<'de>,
        K: Deserialize<'de> + Ord,
        V: Deserialize<'de>,
    {
        Ok(Vec::<(K, V)>::deserialize(d)?.into_iter().collect())
    }
}

/// Everything `pgnkit stats` aggregates, fed one game at a time and mergeable.
///
/// Player and team names are interned in one table ([`Names`]); the logs hold their ids.
/// Memory is bounded by the players and teams, plus what the event log and the rating log
/// keep in memory (see [`eventlog`] and [`chrono`]).
///
/// Serialising writes the counters only: the logs are as long as the input. Write them with
/// [`for_each_event_entry`](Self::for_each_event_entry) and
/// [`for_each_rated`](Self::for_each_rated), and read them back with
/// [`add_event_entry`](Self::add_event_entry) and [`add_rated`](Self::add_rated).
#[derive(Debug, Default, serde::Deserialize)]
#[serde(from = "AccumulatorData")]
pub struct StatsAccumulator {
    names: Names,
    events: EventLog,
    ratings: RatingLog,
    /// Games seen.
    pub games: u64,
    /// Game sides (White or Black) whose player name was empty, blank or `?`.
    pub unknown_sides: u64,
    /// Games left out of ratings because at least one player was unknown.
    pub unrated_unknown_games: u64,
}

impl StatsAccumulator {
    /// An empty accumulator that keeps its logs in memory.
    pub fn new() -> StatsAccumulator {
        StatsAccumulator::default()
    }

    /// An empty accumulator whose logs give what does not fit in memory to stores made by
    /// `store` (three of them: the rating log's, the event log's, and its scratch store): the
    /// rating log every `rating_run` records, the event log whenever its games take
    /// `event_budget` bytes (see [`chrono`] and [`eventlog`]).
    pub fn with_stores(
        mut store: impl FnMut() -> Box<dyn RunStore>,
        rating_run: usize,
        event_budget: usize,
    ) -> StatsAccumulator {
        StatsAccumulator {
            ratings: RatingLog::with_store(store(), rating_run),
            events: EventLog::with_stores(store(), store(), event_budget).with_spare(store()),
            ..StatsAccumulator::default()
        }
    }

    /// Counts one finished game.
    ///
    /// # Errors
    ///
    /// When a log's memory is full and its store cannot take the run; the game may then be
    /// counted in part.
    ///
    /// ```
    /// use pgnkit::stats::{GameDate, Score, ScoredGame, StatsAccumulator};
    ///
    /// let mut stats = StatsAccumulator::new();
    /// for (order, (white, black, result)) in [("A", "B", "1-0"), ("B", "?", "1/2-1/2")].into_iter().enumerate() {
    ///     stats.add(ScoredGame {
    ///         event: "Club",
    ///         site: "Here",
    ///         white,
    ///         black,
    ///         white_team: None,
    ///         black_team: None,
    ///         score: Score::from_pgn(result).unwrap(),
    ///         date: GameDate::parse("2025.05.01"),
    ///         round: None,
    ///         white_elo: None,
    ///         black_elo: None,
    ///         order: order as u64,
    ///     })?;
    /// }
    /// assert_eq!((stats.games, stats.unknown_sides), (2, 1));
    /// assert_eq!(stats.event_count()?, 1);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn add(&mut self, game: ScoredGame<'_>) -> io::Result<()> {
        self.add_tied(game, None)
    }

    /// Makes the accumulator keep what tie-breaks need of each game from now on (it must
    /// be empty): [`add_tied`](Self::add_tied)'s facts, which
    /// [`for_each_event_tied`](Self::for_each_event_tied) and the partial file need. The
    /// event log's records grow to twice their size.
    pub fn keep_tie_facts(&mut self) {
        self.events.keep_tie_facts();
    }

    /// Counts one finished game, with what tie-breaks need of it besides (`None`: played,
    /// no FIDE ids, no board), kept when [`keep_tie_facts`](Self::keep_tie_facts) was
    /// called.
    ///
    /// # Errors
    ///
    /// As [`add`](Self::add).
    pub fn add_tied(&mut self, game: ScoredGame<'_>, tie: Option<&TieGame<'_>>) -> io::Result<()> {
        self.games += 1;
        let white = self.player(game.white);
        let black = self.player(game.black);
        self.unknown_sides += u64::from(white.is_unknown()) + u64::from(black.is_unknown());
        let key = EventKey::of(game.event, game.site, game.date);
        let white_elo = game.white_elo.filter(|&e| e > 0);
        let black_elo = game.black_elo.filter(|&e| e > 0);
        let event_game = EventGame {
            white,
            black,
            white_team: self.team(game.white_team),
            black_team: self.team(game.black_team),
            score: game.score,
            white_elo,
            black_elo,
            round: standings::round_number(game.round),
        };
        let facts = self.events.keeps_tie_facts().then(|| {
            let mut name =
                |text: Option<&str>| text.map_or(TieFacts::NONE, |t| self.names.intern(t).raw());
            TieFacts {
                order: game.order,
                round: name(Some(tie_round(game.round.unwrap_or("")))),
                white_fide_id: name(tie.and_then(|t| fide_id(t.white_fide_id))),
                black_fide_id: name(tie.and_then(|t| fide_id(t.black_fide_id))),
                board: tie.and_then(|t| t.board),
                play: tie.map_or(tiebreak::event::Play::Moves, |t| t.play),
            }
        });
        self.events.push(key, &event_game, facts.as_ref())?;
        match (white.name(), black.name()) {
            (Some(white), Some(black)) => self.ratings.push(chrono::NewRatedGame {
                white,
                black,
                score: game.score,
                date: game.date,
                round: game.round,
                order: game.order,
                white_elo,
                black_elo,
            }),
            _ => {
                self.unrated_unknown_games += 1;
                Ok(())
            }
        }
    }

    fn player(&mut self, name: &str) -> PlayerId {
        if PlayerKey::means_unknown(name) {
            PlayerId::UNKNOWN
        } else {
            PlayerId::named(self.names.intern(name))
        }
    }

    /// A team side: a tag that is empty, blank or `?` names no team.
    fn team(&mut self, name: Option<&str>) -> Option<NameId> {
        name.filter(|t| !PlayerKey::means_unknown(t))
            .map(|t| self.names.intern(t))
    }

    /// The player and team names seen.
    pub fn names(&self) -> &Names {
        &self.names
    }

    /// Builds every tournament's tables, one event at a time, and calls `f` with each, sorted
    /// by [`EventKey`]; returns the finished games of the events left out as casual online
    /// play, which is not a tournament ([`EventTable::is_casual`]).
    ///
    /// # Errors
    ///
    /// When the event log cannot be read back from its store, and the first error of `f`.
    pub fn for_each_event(
        &mut self,
        mut f: impl FnMut(&EventTable<'_>) -> io::Result<()>,
    ) -> io::Result<u64> {
        self.tables(None, |event, _| f(event))
    }

    /// [`for_each_event`](Self::for_each_event), with each event's players and results as
    /// tie-breaks read them (built from the same replay: memory holds one event's games),
    /// when the accumulator keeps what they need ([`keep_tie_facts`](Self::keep_tie_facts));
    /// a decisive game without moves counts as played when `moveless_played`.
    ///
    /// # Errors
    ///
    /// As [`for_each_event`](Self::for_each_event).
    ///
    /// ```
    /// use pgnkit::stats::tiebreak::event::{Play, TieGame};
    /// use pgnkit::stats::tiebreak::{System, TieBreak};
    /// use pgnkit::stats::{Score, ScoredGame, StatsAccumulator};
    ///
    /// let mut stats = StatsAccumulator::new();
    /// stats.keep_tie_facts();
    /// let games = [("1", "A", "B", Score::WhiteWin), ("1", "C", "bye", Score::WhiteWin),
    ///              ("2", "A", "C", Score::Draw), ("2", "B", "bye", Score::WhiteWin)];
    /// for (order, (round, white, black, score)) in games.into_iter().enumerate() {
    ///     let game = ScoredGame {
    ///         event: "Open", site: "Here", white, black, white_team: None, black_team: None,
    ///         score, date: None, round: Some(round), white_elo: None, black_elo: None,
    ///         order: order as u64,
    ///     };
    ///     let tie = TieGame { white_fide_id: None, black_fide_id: None, board: None, play: Play::Moves };
    ///     stats.add_tied(game, Some(&tie))?;
    /// }
    /// let mut buchholz = Vec::new();
    /// stats.for_each_event_tied(false, |_, players| {
    ///     let players = players.expect("facts kept");
    ///     for row in players.results.rank(&[TieBreak::plain(System::Bh)]) {
    ///         buchholz.push((players.names[row.player].to_string(), row.values[0].to_string()));
    ///     }
    ///     Ok(())
    /// })?;
    /// // A: 1.5 points, against B (1) and C (1.5): Buchholz 2.5. C's bye counts as a game
    /// // against a dummy of C's own 1.5 (C.07 16.4): 3, which ranks C first; B: A's 1.5
    /// // and its own 1 for its bye.
    /// let shown: Vec<(&str, &str)> = buchholz.iter().map(|(p, v)| (&p[..], &v[..])).collect();
    /// assert_eq!(shown, [("C", "3"), ("A", "2.5"), ("B", "2.5")]);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn for_each_event_tied(
        &mut self,
        moveless_played: bool,
        f: impl FnMut(&EventTable<'_>, Option<&EventPlayers>) -> io::Result<()>,
    ) -> io::Result<u64> {
        self.tables(Some(TieOptions { moveless_played }), f)
    }

    fn tables(
        &mut self,
        ties: Option<TieOptions>,
        mut f: impl FnMut(&EventTable<'_>, Option<&EventPlayers>) -> io::Result<()>,
    ) -> io::Result<u64> {
        let mut casual = 0;
        self.events.tables(&self.names, ties, |event, players| {
            if event.is_casual() {
                casual += event.games();
                Ok(())
            } else {
                f(event, players)
            }
        })?;
        Ok(casual)
    }

    /// The number of events (a pass over the event log unless one was made since the last
    /// game).
    ///
    /// # Errors
    ///
    /// When the event log cannot be read back from its store.
    pub fn event_count(&mut self) -> io::Result<u64> {
        self.events.event_count(self.names.len())
    }

    /// The sites of an event that standings.csv joins into one table, each `(Event, Site,
    /// year)` with the site its table is named after (see [`EventLog::tables`]); a pass over
    /// the event log.
    ///
    /// # Errors
    ///
    /// When the event log cannot be read back from its store.
    pub fn joined_sites(&mut self) -> io::Result<JoinedSites> {
        self.events.joined_sites(self.names.len())
    }

    /// Games between two known players, which ratings count.
    pub fn rated_games(&self) -> u64 {
        self.ratings.len()
    }

    /// Every player's Elo, replayed in chronological order (see [`elo::elo_table`]).
    ///
    /// # Errors
    ///
    /// When the rating log cannot be read back from its store.
    pub fn elo_table(&mut self, config: &elo::EloConfig) -> io::Result<Vec<elo::EloRow>> {
        elo::elo_table(&mut self.ratings, &self.names, config)
    }

    /// Every player's club points, replayed in chronological order (see
    /// [`club::club_table`]).
    ///
    /// # Errors
    ///
    /// When the rating log cannot be read back from its store.
    pub fn club_table(&mut self, config: &club::ClubConfig) -> io::Result<Vec<club::ClubRow>> {
        club::club_table(&mut self.ratings, &self.names, config)
    }

    /// Calls `f` with every finished game as the standings count it, spelled out, event by
    /// event: how the event log is written out (see [`add_event_entry`](Self::add_event_entry)).
    ///
    /// # Errors
    ///
    /// When the event log cannot be read back from its store, and the first error of `f`.
    pub fn for_each_event_entry(
        &mut self,
        mut f: impl FnMut(&EventEntry<'_>) -> io::Result<()>,
    ) -> io::Result<()> {
        let StatsAccumulator { names, events, .. } = self;
        let player = |p: PlayerId| p.name().map_or("?", |n| names.get(n));
        let name = |id: u32| {
            (id != TieFacts::NONE)
                .then(|| NameId::from_index(id as usize))
                .flatten()
                .map(|n| names.get(n))
        };
        events.replay(names.len(), |key, game, facts| {
            f(&EventEntry {
                event: key.event.into(),
                site: key.site.into(),
                year: key.year,
                white: player(game.white).into(),
                black: player(game.black).into(),
                white_team: game.white_team.map(|t| names.get(t).to_owned()),
                black_team: game.black_team.map(|t| names.get(t).to_owned()),
                score: game.score,
                white_elo: game.white_elo,
                black_elo: game.black_elo,
                round: (game.round > 0).then_some(game.round),
                tie: facts.map(|facts| TieEntry {
                    order: facts.order,
                    round: name(facts.round).unwrap_or("").into(),
                    white_fide_id: name(facts.white_fide_id).map(str::to_owned),
                    black_fide_id: name(facts.black_fide_id).map(str::to_owned),
                    board: facts.board,
                    play: facts.play,
                }),
            })
        })
    }

    /// Adds a game written out by [`for_each_event_entry`](Self::for_each_event_entry), to
    /// the event log only: the counts come with the rest of the accumulator, by
    /// [`merge`](Self::merge).
    ///
    /// # Errors
    ///
    /// When the event log's memory is full and its store cannot take the run.
    pub fn add_event_entry(&mut self, entry: &EventEntry<'_>) -> io::Result<()> {
        let key = EventKey {
            event: &entry.event,
            site: &entry.site,
            year: entry.year,
        };
        let game = EventGame {
            white: self.player(&entry.white),
            black: self.player(&entry.black),
            white_team: self.team(entry.white_team.as_deref()),
            black_team: self.team(entry.black_team.as_deref()),
            score: entry.score,
            white_elo: entry.white_elo.filter(|&e| e > 0),
            black_elo: entry.black_elo.filter(|&e| e > 0),
            round: entry.round.unwrap_or(0),
        };
        let facts = match &entry.tie {
            Some(tie) if self.events.keeps_tie_facts() => {
                let mut name = |text: Option<&str>| {
                    text.map_or(TieFacts::NONE, |t| self.names.intern(t).raw())
                };
                Some(TieFacts {
                    order: tie.order,
                    round: name(Some(&tie.round)),
                    white_fide_id: name(tie.white_fide_id.as_deref()),
                    black_fide_id: name(tie.black_fide_id.as_deref()),
                    board: tie.board,
                    play: tie.play,
                })
            }
            _ => None,
        };
        self.events.push(key, &game, facts.as_ref())
    }

    /// Calls `f` with every rated game spelled out, earliest first: how the rating log is
    /// written out (see [`add_rated`](Self::add_rated)).
    ///
    /// # Errors
    ///
    /// When the rating log cannot be read back from its store, and the first error of `f`.
    pub fn for_each_rated(
        &mut self,
        mut f: impl FnMut(&RatedEntry<'_>) -> io::Result<()>,
    ) -> io::Result<()> {
        let StatsAccumulator { names, ratings, .. } = self;
        ratings.replay_spelled(|game, round| {
            f(&RatedEntry {
                white: names.get(game.white()).into(),
                black: names.get(game.black()).into(),
                score: game.score(),
                date: game.date(),
                round: round.into(),
                order: game.order(),
                white_elo: game.white_elo(),
                black_elo: game.black_elo(),
            })
        })
    }

    /// Adds a rated game written out by [`for_each_rated`](Self::for_each_rated), to the
    /// rating log only: the counts come with the rest of the accumulator, by
    /// [`merge`](Self::merge).
    ///
    /// # Errors
    ///
    /// When the rating log's run is full and its store cannot take it.
    pub fn add_rated(&mut self, entry: &RatedEntry<'_>) -> io::Result<()> {
        let white = self.names.intern(&entry.white);
        let black = self.names.intern(&entry.black);
        self.ratings.push(chrono::NewRatedGame {
            white,
            black,
            score: entry.score,
            date: entry.date,
            round: Some(&entry.round),
            order: entry.order,
            white_elo: entry.white_elo.filter(|&e| e > 0),
            black_elo: entry.black_elo.filter(|&e| e > 0),
        })
    }

    /// Moves every game `by` places later in file order: what a part read after `by` other
    /// games needs before it is merged, so that merged parts number games as one run would.
    /// Only ratings depend on file order (it breaks ties of date and round).
    pub fn shift_order(&mut self, by: u64) {
        self.ratings.shift_order(by);
    }

    /// Takes in everything `other` counted, as if its games had been added here after this
    /// accumulator's.
    ///
    /// # Errors
    ///
    /// When a log's store fails.
    pub fn merge(&mut self, other: StatsAccumulator) -> io::Result<()> {
        let map = self.names.absorb(&other.names);
        self.events.absorb(other.events, &map)?;
        self.games += other.games;
        self.unknown_sides += other.unknown_sides;
        self.unrated_unknown_games += other.unrated_unknown_games;
        self.ratings.merge(other.ratings, &map)
    }
}

/// How an accumulator is written and read: its counters (the logs go game by game).
#[derive(serde::Serialize, serde::Deserialize)]
struct AccumulatorData {
    games: u64,
    unknown_sides: u64,
    unrated_unknown_games: u64,
}

impl serde::Serialize for StatsAccumulator {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        AccumulatorData {
            games: self.games,
            unknown_sides: self.unknown_sides,
            unrated_unknown_games: self.unrated_unknown_games,
        }
        .serialize(s)
    }
}

impl From<AccumulatorData> for StatsAccumulator {
    fn from(data: AccumulatorData) -> StatsAccumulator {
        StatsAccumulator {
            games: data.games,
            unknown_sides: data.unknown_sides,
            unrated_unknown_games: data.unrated_unknown_games,
            ..StatsAccumulator::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_mean_unknown_share_one_bucket() {
        for name in ["", " ", "?", " ? "] {
            assert_eq!(PlayerKey::from_name(name), PlayerKey::Unknown, "{name:?}");
        }
        assert_eq!(
            PlayerKey::from_name("王天一"),
            PlayerKey::Named("王天一".to_owned())
        );
        // Kept exactly: no trimming of real names, no case folding.
        assert_eq!(
            PlayerKey::from_name("Carlsen, M "),
            PlayerKey::Named("Carlsen, M ".to_owned())
        );
    }

    /// Found by fuzzing: a wide character right before the scheme was cut in two.
    #[test]
    fn a_wide_character_before_the_address_is_not_cut() {
        assert_eq!(
            tournament_server("Rated Blitz tournamæhttps://lichess.org/tournament/Ab14dC32"),
            Some("https://lichess.org")
        );
        assert_eq!(tournament_server("æ://x/tournament/a"), None);
    }

    #[test]
    fn online_tournaments_are_their_address() {
        let date = GameDate::parse("2025.05.01");
        for (event, site, want) in [
            (
                "Rated Blitz tournament https://lichess.org/tournament/it6somLI",
                "https://lichess.org/Q4fRv8HN",
                Some("https://lichess.org"),
            ),
            (
                "Blitz swiss https://lichess.org/swiss/VPknZs88",
                "https://lichess.org/abc",
                Some("https://lichess.org"),
            ),
            ("Rated Blitz game", "https://lichess.org/Q4fRv8HN", None),
            ("https://lichess.org/tournament/", "x", None),
            ("See https://example.org/news/2025", "Zug", None),
            ("://x/tournament/1", "Zug", None),
            ("ch-CHN 2025", "Xinghua CHN", None),
        ] {
            let key = EventKey::of(event, site, date);
            match want {
                Some(server) => {
                    assert_eq!((key.site, key.year), (server, None), "{event}");
                }
                None => assert_eq!((key.site, key.year), (site, Some(2025)), "{event}"),
            }
            assert_eq!(key.event, event);
        }
    }

    #[test]
    fn rounds_sort_numerically_then_as_text() {
        let mut rounds: Vec<RoundKey> = ["10", "2", "2.10", "2.2", "?", "final", "1"]
            .iter()
            .map(|r| RoundKey::parse(Some(r)))
            .collect();
        rounds.sort();
        let shown: Vec<String> = rounds.iter().map(|r| format!("{r:?}")).collect();
        assert_eq!(
            shown,
            [
                "Unknown",
                "Numeric([1])",
                "Numeric([2])",
                "Numeric([2, 2])",
                "Numeric([2, 10])",
                "Numeric([10])",
                "Text(\"final\")"
            ]
        );
    }
}
