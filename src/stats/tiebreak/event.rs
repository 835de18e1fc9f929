//! One event's games as tie-breaks read them (rounds, colours, forfeits, byes, FIDE ids,
//! teams and boards), and the [`EventResults`] built from them.
//!
//! C.07's systems depend on the order of rounds and on every opponent's rounds, which the
//! sums of the standings do not give; so the event log ([`crate::stats::eventlog`]) carries
//! the few facts they need with each game ([`TieFacts`]) when tie-breaks may be asked for,
//! and hands an event's games to a [`TieEventBuilder`] together, sites joined: memory holds
//! one event's games at a time.

use std::collections::HashMap;

use super::team::TeamEvent;
use super::EventResults;
use crate::stats::standings::EventGame;
use crate::stats::{NameId, Names, PlayerId, PlayerKey, RoundKey, Score};

/// What tie-breaks need of a finished game besides what the standings count
/// ([`ScoredGame`](crate::stats::ScoredGame)), borrowed from the caller: see
/// [`StatsAccumulator::add_tied`](crate::stats::StatsAccumulator::add_tied).
#[derive(Debug, Clone, Copy)]
pub struct TieGame<'a> {
    /// The `WhiteFideId` tag, if any.
    pub white_fide_id: Option<&'a str>,
    /// The `BlackFideId` tag, if any.
    pub black_fide_id: Option<&'a str>,
    /// The `Board` tag, if it is a number: the board of a team match.
    pub board: Option<u32>,
    /// How the game was played ([`Play::of`]).
    pub play: Play,
}

/// What a finished game's record says of its play, for C.07's unplayed games.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Play {
    /// Moves, or a draw: played over the board.
    Moves,
    /// `Termination "forfeit"` or `"unplayed"`: a forfeit.
    SaidUnplayed,
    /// A decisive result without a move and without such a `Termination`: a forfeit as an
    /// arbiter's file writes it, or a game played whose moves the file lacks (a broadcast
    /// without move input, a tags-only export); the caller decides which.
    NoMoves,
}

impl Play {
    /// How the game with this `Termination` tag, main-line plies and result was played.
    pub fn of(termination: Option<&str>, plies: u32, score: Score) -> Play {
        let said = termination.is_some_and(|t| {
            let t = t.trim();
            t.eq_ignore_ascii_case("forfeit") || t.eq_ignore_ascii_case("unplayed")
        });
        if said {
            Play::SaidUnplayed
        } else if plies == 0 && score != Score::Draw {
            Play::NoMoves
        } else {
            Play::Moves
        }
    }

    /// Whether the game counts as played over the board; a game without moves does when
    /// `moveless_played`.
    pub fn played(self, moveless_played: bool) -> bool {
        match self {
            Play::Moves => true,
            Play::SaidUnplayed => false,
            Play::NoMoves => moveless_played,
        }
    }
}

/// Whether a `White`/`Black` value stands for a bye rather than a player.
pub fn names_a_bye(name: &str) -> bool {
    let name = name.trim();
    name.eq_ignore_ascii_case("bye") || name.eq_ignore_ascii_case("(bye)")
}

/// What C.07 needs of a game besides what the standings keep ([`EventGame`]): the event
/// log carries it with each game when tie-breaks may be asked for. Strings are names of the
/// accumulator's table ([`Names`]), so that a record stays a few integers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TieFacts {
    /// The game's place in the input: an event's games are read in this order, as they
    /// were when the tie-break tables were built from the games as read.
    pub order: u64,
    /// The round as tie-breaks read it ([`tie_round`]): a name, or [`TieFacts::NONE`].
    pub round: u32,
    /// The `WhiteFideId` tag, trimmed, if it names one ([`fide_id`]): a name, or
    /// [`TieFacts::NONE`].
    pub white_fide_id: u32,
    /// The `BlackFideId` tag.
    pub black_fide_id: u32,
    /// The `Board` tag, if it is a number: the board of a team match.
    pub board: Option<u32>,
    /// How the game was played; whether a game without moves counts as played is decided
    /// when the tables are built (`--played-without-moves`).
    pub play: Play,
}

impl Default for TieFacts {
    fn default() -> TieFacts {
        TieFacts {
            order: 0,
            round: TieFacts::NONE,
            white_fide_id: TieFacts::NONE,
            black_fide_id: TieFacts::NONE,
            board: None,
            play: Play::Moves,
        }
    }
}

impl TieFacts {
    /// A name id that names nothing.
    pub const NONE: u32 = u32::MAX;

    /// The name `id` refers to, if any.
    fn name(names: &Names, id: u32) -> Option<&str> {
        (id != TieFacts::NONE)
            .then(|| NameId::from_index(id as usize))
            .flatten()
            .filter(|n| n.index() < names.len())
            .map(|n| names.get(n))
    }
}

/// The round a `Round` tag is for tie-breaks: its first number when it is dotted (`3.12` is
/// board or game 12 of round 3, as broadcasts write it), else the tag as written (trimmed).
pub(crate) fn tie_round(round: &str) -> &str {
    let round = round.trim();
    match round.split_once('.') {
        Some((head, tail))
            if !head.is_empty()
                && head.bytes().all(|b| b.is_ascii_digit())
                && tail.bytes().all(|b| b.is_ascii_digit() || b == b'.') =>
        {
            head
        }
        _ => round,
    }
}

/// The FIDE id a `WhiteFideId`/`BlackFideId` tag gives: none when it is empty or `0`.
pub(crate) fn fide_id(tag: Option<&str>) -> Option<&str> {
    tag.map(str::trim).filter(|id| !id.is_empty() && *id != "0")
}

/// A side of a recorded game: a player of the event, or a bye.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Player(u32),
    Bye,
}

/// Who a side is within an event: its FIDE id if it has one, else its name; the unknown
/// bucket (no name, no id) is one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Identity {
    Fide(u32),
    Name(u32),
    Unknown,
}

#[derive(Debug, Clone, Copy)]
struct Record {
    round: u32,
    white: Side,
    black: Side,
    score: Score,
    played: bool,
    /// The teams of a board of a team match: both sides tagged, with different teams.
    teams: Option<[u32; 2]>,
    /// The `Board` tag.
    board: Option<u32>,
}

/// Builds one event's [`EventPlayers`] from its games, which the event log gives in any
/// order (pair by pair): they are kept, then read in the order of the input.
#[derive(Debug, Default)]
pub(crate) struct TieEventBuilder {
    games: Vec<(EventGame, TieFacts)>,
}

impl TieEventBuilder {
    /// Forgets the event before.
    pub(crate) fn start(&mut self) {
        if self.games.capacity() > 1024 {
            self.games = Vec::new();
        } else {
            self.games.clear();
        }
    }

    /// One game of the event.
    pub(crate) fn add(&mut self, game: &EventGame, facts: &TieFacts) {
        self.games.push((*game, *facts));
    }

    /// The event's players and results; a decisive game without moves counts as played
    /// when `moveless_played`.
    pub(crate) fn finish(&mut self, names: &Names, moveless_played: bool) -> EventPlayers {
        let mut games = std::mem::take(&mut self.games);
        games.sort_by_key(|(_, facts)| facts.order);
        let mut event = EventGames::default();
        for (game, facts) in &games {
            event.add(names, game, facts, moveless_played);
        }
        // A large event's games are let go before it is ranked; a small one's kept for reuse.
        if games.capacity() <= 1024 {
            self.games = games;
        } else {
            drop(games);
        }
        event.players()
    }
}

/// One event's players and games.
#[derive(Debug, Default)]
struct EventGames {
    ids: HashMap<Identity, u32>,
    /// The name each player is shown with: the first one seen.
    names: Vec<PlayerKey>,
    /// The first positive Elo tag of each player in the event.
    ratings: Vec<Option<u32>>,
    /// The rounds (names of [`tie_round`]s), interned.
    round_ids: HashMap<u32, u32>,
    rounds: Vec<RoundKey>,
    records: Vec<Record>,
    /// The unknown bucket, if it played.
    unknown: Option<u32>,
    /// Team name (trimmed) → team, and the names, for the team table.
    team_ids: HashMap<String, u32>,
    teams: Vec<String>,
}

impl EventGames {
    /// Records one finished game. A side named `bye` makes the game the other side's bye,
    /// worth the points the result gives it; a game between two byes counts for nobody.
    fn add(&mut self, names: &Names, game: &EventGame, facts: &TieFacts, moveless_played: bool) {
        let round = self.round(names, facts.round);
        let white = self.side(names, game.white, facts.white_fide_id, game.white_elo);
        let black = self.side(names, game.black, facts.black_fide_id, game.black_elo);
        if white == Side::Bye && black == Side::Bye {
            return;
        }
        let team = |t: Option<NameId>| t.map(|t| names.get(t));
        let teams = match (
            self.team(team(game.white_team)),
            self.team(team(game.black_team)),
        ) {
            (Some(w), Some(b)) if w != b && white != Side::Bye && black != Side::Bye => {
                Some([w, b])
            }
            _ => None,
        };
        self.records.push(Record {
            round,
            white,
            black,
            score: game.score,
            played: facts.play.played(moveless_played) && white != Side::Bye && black != Side::Bye,
            teams,
            board: facts.board,
        });
    }

    fn side(&mut self, names: &Names, player: PlayerId, fide_id: u32, elo: Option<u32>) -> Side {
        let name = player.name().map(|n| (n, names.get(n)));
        if name.is_some_and(|(_, name)| names_a_bye(name)) {
            return Side::Bye;
        }
        let fide_id = (fide_id != TieFacts::NONE).then_some(fide_id);
        let identity = match (fide_id, name) {
            (Some(id), _) => Identity::Fide(id),
            (None, Some((n, _))) => Identity::Name(n.raw()),
            (None, None) => Identity::Unknown,
        };
        // The same name in a game without the id is the same player.
        let alias = match (fide_id, name) {
            (Some(_), Some((n, _))) => Some(Identity::Name(n.raw())),
            _ => None,
        };
        let key = match name {
            Some((_, name)) => PlayerKey::Named(name.to_owned()),
            None => PlayerKey::Unknown,
        };
        let unknown = name.is_none() && fide_id.is_none();
        Side::Player(self.player(identity, alias, key, elo, unknown))
    }

    /// The player of `identity` (and of its `alias`, unless another's), new under `key`
    /// if unseen; `elo` is its rating unless one was seen before.
    fn player(
        &mut self,
        identity: Identity,
        alias: Option<Identity>,
        key: PlayerKey,
        elo: Option<u32>,
        unknown: bool,
    ) -> u32 {
        let next = self.names.len() as u32;
        let id = *self.ids.entry(identity).or_insert(next);
        if let Some(alias) = alias {
            self.ids.entry(alias).or_insert(id);
        }
        if id == next {
            if unknown {
                self.unknown = Some(id);
            }
            self.names.push(key);
            self.ratings.push(None);
        }
        let rating = &mut self.ratings[id as usize];
        if rating.is_none() {
            *rating = elo;
        }
        id
    }

    /// The team of a `WhiteTeam`/`BlackTeam` tag; none for a missing, empty or `?` one.
    fn team(&mut self, name: Option<&str>) -> Option<u32> {
        let name = name?.trim();
        if PlayerKey::means_unknown(name) {
            return None;
        }
        if let Some(&id) = self.team_ids.get(name) {
            return Some(id);
        }
        let id = self.teams.len() as u32;
        self.team_ids.insert(name.to_owned(), id);
        self.teams.push(name.to_owned());
        Some(id)
    }

    /// The round of a game (a [`tie_round`], by its name).
    fn round(&mut self, names: &Names, round: u32) -> u32 {
        let next = self.rounds.len() as u32;
        let id = *self.round_ids.entry(round).or_insert(next);
        if id == next {
            let text = TieFacts::name(names, round).unwrap_or("");
            self.rounds.push(RoundKey::parse(Some(text)));
        }
        id
    }

    /// The event's results, with who its players are.
    fn players(self) -> EventPlayers {
        // Rounds in the order of their `Round` tags (numerically, `2.10` after `2.2`).
        let mut by_order: Vec<u32> = (0..self.rounds.len() as u32).collect();
        by_order.sort_by(|&a, &b| self.rounds[a as usize].cmp(&self.rounds[b as usize]));
        let mut ordinal = vec![0u64; by_order.len()];
        for (i, &r) in by_order.iter().enumerate() {
            ordinal[r as usize] = i as u64;
        }
        let mut results = EventResults::new(self.ratings);
        let mut games = vec![[0u64; 4]; self.names.len()];
        let mut teams = TeamEvent::new(self.teams);
        for r in &self.records {
            let round = ordinal[r.round as usize];
            if let Some([w, b]) = r.teams {
                teams.add_board(round, w as usize, b as usize, r.score, r.played, r.board);
            }
            match (r.white, r.black) {
                // A game against oneself (or between two unknown sides) counts for nobody.
                (Side::Player(w), Side::Player(b)) if w == b => {}
                (Side::Player(w), Side::Player(b)) => {
                    results.add_game(round, w as usize, b as usize, r.score, r.played);
                    for (p, half) in [
                        (w, r.score.white_half_points()),
                        (b, r.score.black_half_points()),
                    ] {
                        let g = &mut games[p as usize];
                        g[0] += 1;
                        g[1 + (2 - half as usize)] += 1;
                    }
                }
                (Side::Player(w), Side::Bye) => {
                    results.add_bye(round, w as usize, r.score.white_half_points() as u8)
                }
                (Side::Bye, Side::Player(b)) => {
                    results.add_bye(round, b as usize, r.score.black_half_points() as u8)
                }
                (Side::Bye, Side::Bye) => {}
            }
        }
        if let Some(u) = self.unknown {
            results.set_unranked(u as usize);
        }
        EventPlayers {
            results,
            names: self.names,
            games,
            teams,
        }
    }
}

/// One event ready for [`EventResults::rank`], with who its players are.
#[derive(Debug)]
pub struct EventPlayers {
    /// The results.
    pub results: EventResults,
    /// Each player's name (the first spelling seen for a FIDE id).
    pub names: Vec<PlayerKey>,
    /// Per player: games (played or forfeited), wins, draws, losses; byes are not games.
    pub games: Vec<[u64; 4]>,
    /// The team matches: every game between two players of different teams, by round.
    pub teams: TeamEvent,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::tiebreak::{Ratio, System, TieBreak, Value};

    /// One event's games, fed as the event log feeds them.
    #[derive(Default)]
    struct Event {
        names: Names,
        builder: TieEventBuilder,
        order: u64,
    }

    impl Event {
        fn add(&mut self, round: &str, white: &str, black: &str, score: Score) -> &mut Event {
            let mut player = |name: &str| {
                if PlayerKey::means_unknown(name) {
                    PlayerId::UNKNOWN
                } else {
                    PlayerId::named(self.names.intern(name))
                }
            };
            let game = EventGame {
                white: player(white),
                black: player(black),
                white_team: None,
                black_team: None,
                score,
                white_elo: None,
                black_elo: None,
                round: 0,
            };
            let facts = TieFacts {
                order: self.order,
                round: self.names.intern(tie_round(round)).raw(),
                ..TieFacts::default()
            };
            self.builder.add(&game, &facts);
            self.order += 1;
            self
        }

        fn players(&mut self) -> EventPlayers {
            self.builder.finish(&self.names, false)
        }
    }

    /// Broadcasts write `Round "2.1"` for board 1 of round 2: boards of one round are one
    /// round, or every player would be absent from every other board's "round".
    #[test]
    fn boards_of_a_dotted_round_are_one_round() {
        let event = Event::default()
            .add("1.1", "A", "B", Score::WhiteWin)
            .add("1.2", "C", "D", Score::Draw)
            .add("2.1", "A", "C", Score::Draw)
            .add("2.2", "B", "D", Score::WhiteWin)
            .players();
        let ranked = event
            .results
            .rank(&[TieBreak::plain(System::Bh), TieBreak::plain(System::Ps)]);
        let a = ranked
            .iter()
            .find(|r| event.names[r.player].to_string() == "A")
            .unwrap();
        // B 1 + C 1; progressive 1 + 1.5.
        assert_eq!(
            a.values,
            [Value::of(Ratio::int(2)), Value::of(Ratio::new(5, 2))]
        );
    }

    /// As in the standings without tie-breaks: a game between two unknown sides counts for
    /// nobody, a known player's game against the bucket counts for both.
    #[test]
    fn a_game_between_unknown_sides_counts_for_nobody() {
        let event = Event::default()
            .add("1", "?", "", Score::WhiteWin)
            .add("1", "A", "?", Score::WhiteWin)
            .players();
        let games: Vec<(String, [u64; 4])> = event
            .names
            .iter()
            .map(ToString::to_string)
            .zip(event.games.iter().copied())
            .collect();
        assert_eq!(
            games,
            [("?".into(), [1, 0, 0, 1]), ("A".into(), [1, 1, 0, 0])]
        );
    }

    #[test]
    fn forfeits_are_said_by_termination_or_by_no_moves() {
        let unplayed = |t, plies, score| !Play::of(t, plies, score).played(false);
        assert!(unplayed(Some("forfeit"), 30, Score::WhiteWin));
        assert!(unplayed(Some(" Unplayed "), 0, Score::Draw));
        assert!(unplayed(None, 0, Score::BlackWin));
        assert!(!unplayed(None, 0, Score::Draw));
        assert!(!unplayed(Some("normal"), 1, Score::WhiteWin));
        // Taken as played when asked: only a `Termination` then says a forfeit.
        assert!(Play::of(None, 0, Score::BlackWin).played(true));
        assert!(!Play::of(Some("forfeit"), 0, Score::BlackWin).played(true));
        assert!(names_a_bye(" BYE ") && names_a_bye("(bye)") && !names_a_bye("Byers"));
    }
}
