//! The games of every event as tie-breaks need them (rounds, colours, forfeits, byes, FIDE
//! ids), collected while games are read, and each event's [`EventResults`] built from them.
//!
//! C.07's systems depend on the order of rounds and on every opponent's rounds, which the
//! sums the event log keeps do not give; so this log keeps one small record a game, in
//! memory, and only when tie-breaks were asked for.

use std::collections::HashMap;

use super::team::TeamEvent;
use super::EventResults;
use crate::stats::{EventKey, JoinedSites, PlayerKey, RoundKey, Score};

/// One finished game as tie-breaks see it, borrowed from the caller.
#[derive(Debug, Clone, Copy)]
pub struct TiebreakGame<'a> {
    /// The event the game belongs to.
    pub event: EventKey<'a>,
    /// The `White` tag.
    pub white: &'a str,
    /// The `Black` tag.
    pub black: &'a str,
    /// The `WhiteFideId` tag, if any.
    pub white_fide_id: Option<&'a str>,
    /// The `BlackFideId` tag, if any.
    pub black_fide_id: Option<&'a str>,
    /// The `Round` tag as written.
    pub round: &'a str,
    /// The result.
    pub score: Score,
    /// Whether the game was played over the board (see [`Play`]): false for a forfeit.
    pub played: bool,
    /// The `WhiteElo` tag, if positive.
    pub white_elo: Option<u32>,
    /// The `BlackElo` tag, if positive.
    pub black_elo: Option<u32>,
    /// The `WhiteTeam` tag, if any.
    pub white_team: Option<&'a str>,
    /// The `BlackTeam` tag, if any.
    pub black_team: Option<&'a str>,
    /// The `Board` tag, if it is a number: the board of a team match.
    pub board: Option<u32>,
}

/// What a finished game's record says of its play, for C.07's unplayed games.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

/// A side of a recorded game: a player of the event, or a bye.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Player(u32),
    Bye,
}

#[derive(Debug, Clone, Copy)]
struct Record {
    /// The game's place among all games of the log: the order of games of sites joined
    /// into one event (see [`TiebreakLog::join_sites`]).
    order: u64,
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

/// One event's players and games.
#[derive(Debug, Default)]
struct EventGames {
    /// Identity (`fide:ID` or `name:NAME`) → player.
    ids: HashMap<String, u32>,
    /// The name each player is shown with: the first one seen.
    names: Vec<PlayerKey>,
    /// The first positive Elo tag of each player in the event.
    ratings: Vec<Option<u32>>,
    /// The round texts, interned.
    round_ids: HashMap<String, u32>,
    rounds: Vec<RoundKey>,
    records: Vec<Record>,
    /// The unknown bucket, if it played.
    unknown: Option<u32>,
    /// Team name → team, and the names, for the team table.
    team_ids: HashMap<String, u32>,
    teams: Vec<String>,
}

impl EventGames {
    fn side(&mut self, name: &str, fide_id: Option<&str>, elo: Option<u32>) -> Side {
        if names_a_bye(name) {
            return Side::Bye;
        }
        let fide_id = fide_id
            .map(str::trim)
            .filter(|id| !id.is_empty() && *id != "0");
        let key = PlayerKey::from_name(name);
        let identity = match (fide_id, &key) {
            (Some(id), _) => format!("fide:{id}"),
            (None, PlayerKey::Named(name)) => format!("name:{name}"),
            (None, PlayerKey::Unknown) => String::from("?"),
        };
        // The same name in a game without the id is the same player.
        let alias = match (fide_id, &key) {
            (Some(_), PlayerKey::Named(name)) => Some(format!("name:{name}")),
            _ => None,
        };
        let unknown = key.is_unknown() && fide_id.is_none();
        Side::Player(self.player(identity, alias, key, elo, unknown))
    }

    /// The player of `identity` (and of its `aliases`, unless another's), new under `key`
    /// if unseen; `elo` is its rating unless one was seen before.
    fn player(
        &mut self,
        identity: String,
        aliases: impl IntoIterator<Item = String>,
        key: PlayerKey,
        elo: Option<u32>,
        unknown: bool,
    ) -> u32 {
        let next = self.names.len() as u32;
        let id = *self.ids.entry(identity).or_insert(next);
        for alias in aliases {
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

    /// Takes in the games of `parts` (other sites of this event), each game in its place
    /// among this event's by [`Record::order`], and its players, rounds and teams as if it
    /// had been added here.
    fn absorb(&mut self, parts: Vec<EventGames>) {
        let mine = std::mem::take(self);
        let mut parts: Vec<Adopted> = std::iter::once(mine)
            .chain(parts)
            .map(Adopted::new)
            .collect();
        let mut records: Vec<(usize, Record)> = parts
            .iter_mut()
            .enumerate()
            .flat_map(|(i, p)| {
                std::mem::take(&mut p.games.records)
                    .into_iter()
                    .map(move |r| (i, r))
            })
            .collect();
        records.sort_by_key(|(_, r)| r.order);
        for (i, r) in records {
            let part = &mut parts[i];
            let round = part.round(self, r.round);
            let white = part.side(self, r.white);
            let black = part.side(self, r.black);
            let teams = r
                .teams
                .map(|[w, b]| [part.team(self, w), part.team(self, b)]);
            self.records.push(Record {
                round,
                white,
                black,
                teams,
                ..r
            });
        }
        // Rounds and teams no record names (a round of byes only; a team of no match).
        for part in &mut parts {
            for r in 0..part.games.rounds.len() as u32 {
                part.round(self, r);
            }
            for t in 0..part.games.teams.len() as u32 {
                part.team(self, t);
            }
        }
    }

    /// The team of a `WhiteTeam`/`BlackTeam` tag; none for a missing, empty or `?` one.
    fn team(&mut self, name: Option<&str>) -> Option<u32> {
        let name = name?.trim();
        if PlayerKey::means_unknown(name) {
            return None;
        }
        // Every board names its teams again: look up before allocating a key.
        if let Some(&id) = self.team_ids.get(name) {
            return Some(id);
        }
        let id = self.teams.len() as u32;
        self.team_ids.insert(name.to_owned(), id);
        self.teams.push(name.to_owned());
        Some(id)
    }

    /// The round of a `Round` tag: its first number when it is dotted (`3.12` is board or
    /// game 12 of round 3, as broadcasts write it), else the tag as written.
    fn round(&mut self, round: &str) -> u32 {
        let round = round.trim();
        let round = match round.split_once('.') {
            Some((head, tail))
                if !head.is_empty()
                    && head.bytes().all(|b| b.is_ascii_digit())
                    && tail.bytes().all(|b| b.is_ascii_digit() || b == b'.') =>
            {
                head
            }
            _ => round,
        };
        let next = self.rounds.len() as u32;
        let id = *self.round_ids.entry(round.to_owned()).or_insert(next);
        if id == next {
            self.rounds.push(RoundKey::parse(Some(round)));
        }
        id
    }
}

/// One site's games taken into another's event ([`EventGames::absorb`]): its players,
/// rounds and teams, each given the id it has there once first met.
struct Adopted {
    games: EventGames,
    /// Per player: its identity and aliases as [`EventGames::side`] made them.
    identities: Vec<(String, Vec<String>)>,
    round_texts: Vec<String>,
    players: Vec<Option<u32>>,
    rounds: Vec<Option<u32>>,
    teams: Vec<Option<u32>>,
}

impl Adopted {
    fn new(games: EventGames) -> Adopted {
        let mut identities: Vec<(String, Vec<String>)> =
            vec![Default::default(); games.names.len()];
        // A player's identity is its `fide:` one if it has one, its names then aliases.
        let mut ids: Vec<(&String, u32)> = games.ids.iter().map(|(k, &v)| (k, v)).collect();
        ids.sort_by_key(|&(k, _)| (!k.starts_with("fide:"), k));
        for (key, id) in ids {
            let slot = &mut identities[id as usize];
            if slot.0.is_empty() {
                slot.0 = key.clone();
            } else {
                slot.1.push(key.clone());
            }
        }
        let mut round_texts = vec![String::new(); games.rounds.len()];
        for (text, &id) in &games.round_ids {
            round_texts[id as usize] = text.clone();
        }
        Adopted {
            identities,
            round_texts,
            players: vec![None; games.names.len()],
            rounds: vec![None; games.rounds.len()],
            teams: vec![None; games.teams.len()],
            games,
        }
    }

    fn side(&mut self, into: &mut EventGames, side: Side) -> Side {
        let Side::Player(p) = side else {
            return side;
        };
        let p = p as usize;
        if let Some(id) = self.players[p] {
            return Side::Player(id);
        }
        let (identity, aliases) = self.identities[p].clone();
        let unknown = self.games.unknown == Some(p as u32);
        let key = self.games.names[p].clone();
        let id = into.player(identity, aliases, key, self.games.ratings[p], unknown);
        self.players[p] = Some(id);
        Side::Player(id)
    }

    fn round(&mut self, into: &mut EventGames, round: u32) -> u32 {
        let r = round as usize;
        *self.rounds[r].get_or_insert_with(|| into.round(&self.round_texts[r]))
    }

    fn team(&mut self, into: &mut EventGames, team: u32) -> u32 {
        let t = team as usize;
        let name = &self.games.teams[t];
        *self.teams[t].get_or_insert_with(|| into.team(Some(name)).unwrap_or_default())
    }
}

/// The games of every event, as tie-breaks need them.
#[derive(Debug, Default)]
pub struct TiebreakLog {
    events: HashMap<(String, String, Option<u16>), EventGames>,
    /// Games added so far.
    games: u64,
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

impl TiebreakLog {
    /// An empty log.
    pub fn new() -> TiebreakLog {
        TiebreakLog::default()
    }

    /// Records one finished game. A side named `bye` makes the game the other side's bye,
    /// worth the points the result gives it; a game between two byes counts for nobody.
    pub fn add(&mut self, game: &TiebreakGame<'_>) {
        let key = (
            game.event.event.to_owned(),
            game.event.site.to_owned(),
            game.event.year,
        );
        let event = self.events.entry(key).or_default();
        let round = event.round(game.round);
        let white = event.side(game.white, game.white_fide_id, game.white_elo);
        let black = event.side(game.black, game.black_fide_id, game.black_elo);
        if white == Side::Bye && black == Side::Bye {
            return;
        }
        let teams = match (event.team(game.white_team), event.team(game.black_team)) {
            (Some(w), Some(b)) if w != b && white != Side::Bye && black != Side::Bye => {
                Some([w, b])
            }
            _ => None,
        };
        event.records.push(Record {
            order: self.games,
            round,
            white,
            black,
            score: game.score,
            played: game.played && white != Side::Bye && black != Side::Bye,
            teams,
            board: game.board,
        });
        self.games += 1;
    }

    /// Files the games of every site that `joined` joins to another site of its event (an
    /// `(Event, Site, year)` → the site of its group, as standings.csv keys the event) under
    /// that site, so that the event's tie-breaks count the games of all its sites.
    pub fn join_sites(&mut self, joined: &JoinedSites) {
        let mut parts: HashMap<(String, String, Option<u16>), Vec<EventGames>> = HashMap::new();
        for (key, site) in joined {
            if *site == key.1 {
                continue;
            }
            if let Some(games) = self.events.remove(key) {
                let group = (key.0.clone(), site.clone(), key.2);
                parts.entry(group).or_default().push(games);
            }
        }
        for (group, games) in parts {
            self.events.entry(group).or_default().absorb(games);
        }
    }

    /// The event `key`'s results, if it has any game.
    pub fn event(&self, key: EventKey<'_>) -> Option<EventPlayers> {
        let event = self
            .events
            .get(&(key.event.to_owned(), key.site.to_owned(), key.year))?;
        // Rounds in the order of their `Round` tags (numerically, `2.10` after `2.2`).
        let mut by_order: Vec<u32> = (0..event.rounds.len() as u32).collect();
        by_order.sort_by(|&a, &b| event.rounds[a as usize].cmp(&event.rounds[b as usize]));
        let mut ordinal = vec![0u64; by_order.len()];
        for (i, &r) in by_order.iter().enumerate() {
            ordinal[r as usize] = i as u64;
        }
        let mut results = EventResults::new(event.ratings.clone());
        let mut games = vec![[0u64; 4]; event.names.len()];
        let mut teams = TeamEvent::new(event.teams.clone());
        for r in &event.records {
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
        if let Some(u) = event.unknown {
            results.set_unranked(u as usize);
        }
        Some(EventPlayers {
            results,
            names: event.names.clone(),
            games,
            teams,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::tiebreak::{Ratio, System, TieBreak, Value};

    fn game<'a>(round: &'a str, white: &'a str, black: &'a str, score: Score) -> TiebreakGame<'a> {
        TiebreakGame {
            event: EventKey {
                event: "E",
                site: "S",
                year: Some(2025),
            },
            white,
            black,
            white_fide_id: None,
            black_fide_id: None,
            round,
            score,
            played: true,
            white_elo: None,
            black_elo: None,
            white_team: None,
            black_team: None,
            board: None,
        }
    }

    /// Broadcasts write `Round "2.1"` for board 1 of round 2: boards of one round are one
    /// round, or every player would be absent from every other board's "round".
    #[test]
    fn boards_of_a_dotted_round_are_one_round() {
        let mut log = TiebreakLog::new();
        for g in [
            game("1.1", "A", "B", Score::WhiteWin),
            game("1.2", "C", "D", Score::Draw),
            game("2.1", "A", "C", Score::Draw),
            game("2.2", "B", "D", Score::WhiteWin),
        ] {
            log.add(&g);
        }
        let event = log.event(game("", "", "", Score::Draw).event).unwrap();
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
        let mut log = TiebreakLog::new();
        log.add(&game("1", "?", "", Score::WhiteWin));
        log.add(&game("1", "A", "?", Score::WhiteWin));
        let event = log.event(game("", "", "", Score::Draw).event).unwrap();
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
