//! Event standings: points, Sonneborn-Berger (小分), Buchholz (对手分), performance, places.
//!
//! Game points are counted in half points and Sonneborn-Berger in quarter points, so every sum
//! and every tie comparison is exact integer arithmetic; the `f64` getters are for display.

use std::collections::HashMap;
use std::fmt;
use std::io;

use super::tiebreak::{PairSums, Sums};
use super::{EventKey, NameId, Names, OwnedEventKey, PlayerId, PlayerKey, Score};
use crate::sort::RunStore;

/// FIDE table 8.1(a): rating difference `dp` for a percentage score of 50 % .. 100 %, one entry
/// per percent (index 0 is 50 %). Scores below 50 % mirror it with the sign changed. 100 % is
/// 800 (and 0 % is −800), as the FIDE title regulations use it.
const DP_FROM_50: [i32; 51] = [
    0, 7, 14, 21, 29, 36, 43, 50, 57, 65, // 50 .. 59 %
    72, 80, 87, 95, 102, 110, 117, 125, 133, 141, // 60 .. 69 %
    149, 158, 166, 175, 184, 193, 202, 211, 220, 230, // 70 .. 79 %
    240, 251, 262, 273, 284, 296, 309, 322, 336, 351, // 80 .. 89 %
    366, 383, 401, 422, 444, 470, 501, 538, 589, 677, // 90 .. 99 %
    800, // 100 %
];

/// FIDE table 8.1(b) (Rating Regulations, B.02): the largest rating difference at which the
/// higher-rated player's expected score `pd` is 0.50, 0.51, … 0.99, one entry a hundredth
/// (index 0 is 0.50). From a difference of 736 on, `pd` is 1.00.
const PD_UP_TO: [u32; 50] = [
    3, 10, 17, 25, 32, 39, 46, 53, 61, 68, // 0.50 .. 0.59
    76, 83, 91, 98, 106, 113, 121, 129, 137, 145, // 0.60 .. 0.69
    153, 162, 170, 179, 188, 197, 206, 215, 225, 235, // 0.70 .. 0.79
    245, 256, 267, 278, 290, 302, 315, 328, 344, 357, // 0.80 .. 0.89
    374, 391, 411, 432, 456, 484, 517, 559, 619, 735, // 0.90 .. 0.99
];

/// The expected score, in hundredths, of a player rated `difference` points above the
/// opponent (below when negative), from FIDE table 8.1(b): `pd` for the higher-rated player,
/// `1 − pd` for the lower. The whole table, without the 400-point cap of rating changes.
pub(crate) fn fide_pd(difference: i64) -> i64 {
    let above = difference.unsigned_abs();
    let pd = PD_UP_TO
        .iter()
        .position(|&up_to| above <= u64::from(up_to))
        .map_or(100, |i| 50 + i as i64);
    if difference >= 0 {
        pd
    } else {
        100 - pd
    }
}

/// The FIDE `dp` for a percentage score, 0 ..= 100 (values above 100 are read as 100).
pub(crate) fn fide_dp(percent: u32) -> i32 {
    let percent = percent.min(100);
    if percent >= 50 {
        DP_FROM_50[(percent - 50) as usize]
    } else {
        -DP_FROM_50[(50 - percent) as usize]
    }
}

/// What kind of event a table belongs to, which decides the tie-break.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum EventKind {
    /// 循环赛: every player meets every other equally often; ties go to Sonneborn-Berger.
    RoundRobin,
    /// 积分循环制 / Swiss: anything else; ties go to Buchholz.
    Swiss,
}

/// How to choose the [`EventKind`] of an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum KindChoice {
    /// Round robin when every pair of known players met, all pairs equally often; else Swiss.
    #[default]
    Detect,
    /// Use this kind whatever the games look like.
    Force(EventKind),
}

/// A place in a table; shared places span `first ..= last` and print as `2-3`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Place {
    /// The best place of the group.
    pub first: u32,
    /// The worst place of the group (equal to `first` when not shared).
    pub last: u32,
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.first == self.last {
            write!(f, "{}", self.first)
        } else {
            write!(f, "{}-{}", self.first, self.last)
        }
    }
}

/// One player's games in one event: results, and the sums their performance needs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PlayerInEvent {
    /// Wins.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// Losses.
    pub losses: u64,
    perf: PerfSum,
}

impl PlayerInEvent {
    fn record(&mut self, half_points: u32, opponent_elo: Option<u32>) {
        match half_points {
            2 => self.wins += 1,
            1 => self.draws += 1,
            _ => self.losses += 1,
        }
        if let Some(elo) = opponent_elo {
            self.perf.add(elo, half_points);
        }
    }
}

/// The games one player had with White against one opponent in one event.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Meetings {
    /// Games.
    pub games: u64,
    /// White's points over them, in half points (Black has the rest of `2 · games`).
    pub white_half_points: u64,
}

/// A team's games in one event.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TeamInEvent {
    /// Games its players played for it.
    pub games: u64,
    /// Game points in half points.
    pub half_points: u64,
}

/// The bytes of a pair's sums in the scratch store: White, Black, games, White's half points.
const PAIR_BYTES: usize = 24;

/// Bytes read back from the scratch store at once (whole pairs).
const PAIR_CHUNK_BYTES: usize = (64 * 1024 / PAIR_BYTES) * PAIR_BYTES;

/// One finished game as an event's tables count it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EventGame {
    pub white: PlayerId,
    pub black: PlayerId,
    pub white_team: Option<NameId>,
    pub black_team: Option<NameId>,
    pub score: Score,
    /// The `WhiteElo` tag, if positive.
    pub white_elo: Option<u32>,
    /// The `BlackElo` tag, if positive.
    pub black_elo: Option<u32>,
    /// The round number ([`round_number`]), 0 when unknown.
    pub round: u16,
}

/// The round a `Round` tag names, for round-robin detection: its first number (`3` of `3`,
/// and of `3.1`, round 3 board 1, as TWIC writes them); 0 when there is none (`?`, `-`,
/// `final`, a missing tag, a number beyond 65535).
pub fn round_number(round: Option<&str>) -> u16 {
    let Some(round) = round else {
        return 0;
    };
    let first = round.trim().split('.').next().unwrap_or("");
    if first.is_empty() || !first.bytes().all(|b| b.is_ascii_digit()) {
        return 0;
    }
    first.parse().unwrap_or(0)
}

/// Events of more players than this are not checked against a Berger table: no round robin
/// is that large, and the check costs a pass over the games for each player.
const BERGER_MAX_PLAYERS: usize = 100;

/// Games of an event kept for the Berger table check: a double round robin of
/// [`BERGER_MAX_PLAYERS`] players, and a little more.
const BERGER_MAX_GAMES: usize = 10_000;

/// A player's sums in the event being built.
#[derive(Debug, Clone, Copy, Default)]
struct PlayerEntry {
    sums: PlayerInEvent,
    /// Whether the player met another known player: round robin detection counts them.
    meets_known: bool,
}

/// Builds the tables of one event at a time from its games, which come grouped by event and,
/// within an event, by pair of players (as [`EventLog`](super::eventlog::EventLog) replays
/// them).
///
/// Standings need no game list: points and wins come from sums per player; 小分 and 对手分
/// are sums over opponents of (points scored against them, or games played with them) times
/// their final points, which sums per ordered pair (White, Black) give once every player's
/// points are known; round robin detection counts meetings per pair, each complete when the
/// next pair's games come; performance adds opponents' ratings per player. So an event costs
/// memory by its players and teams; its pairs are kept in memory up to the budget and wait in
/// the scratch store beyond it. Game order plays no part: tables sort by points, tie-break,
/// name.
pub(crate) struct EventBuilder<'a> {
    names: &'a Names,
    scratch: &'a mut dyn RunStore,
    /// Pairs kept in memory before they go to the scratch store.
    pair_cap: usize,
    open: bool,
    event: OwnedEventKey,
    games: u64,
    /// Whether some game has a round number.
    numbered: bool,
    unknown_vs_unknown: u64,
    players: HashMap<PlayerId, PlayerEntry>,
    teams: HashMap<NameId, TeamInEvent>,
    /// The pair whose games are coming, lower id first, and its games with the lower id as
    /// White and as Black.
    pair: Option<(PlayerId, PlayerId)>,
    pair_games: [Meetings; 2],
    pairs: Vec<(PlayerId, PlayerId, Meetings)>,
    /// Pairs in the scratch store.
    spilled: u64,
    /// Pairs of two different known players that met, and whether they all met as often as
    /// the first.
    met_pairs: u64,
    first_meetings: Option<u64>,
    equal_meetings: bool,
    /// The round and players of every game between two known players, while the event may
    /// still be a round robin that the file holds only part of (see [`fits_berger_table`]).
    berger_games: Vec<(u16, PlayerId, PlayerId)>,
    berger_possible: bool,
    /// 小分 and 对手分 as the pairs come, by the players' places in the table.
    sums: PairSums,
}

/// Maps that grew past this many entries for one event are dropped rather than cleared, so
/// that a large event does not slow down every small one after it.
const KEEP_CAPACITY: usize = 1024;

impl<'a> EventBuilder<'a> {
    /// A builder that keeps pairs worth `budget` bytes in memory and gives the rest of an
    /// event's pairs to `scratch`.
    pub fn new(names: &'a Names, scratch: &'a mut dyn RunStore, budget: usize) -> EventBuilder<'a> {
        let pair_cap = (budget / std::mem::size_of::<(PlayerId, PlayerId, Meetings)>()).max(1);
        EventBuilder {
            names,
            scratch,
            pair_cap,
            open: false,
            event: OwnedEventKey::default(),
            games: 0,
            numbered: false,
            unknown_vs_unknown: 0,
            players: HashMap::new(),
            teams: HashMap::new(),
            pair: None,
            pair_games: [Meetings::default(); 2],
            pairs: Vec::new(),
            spilled: 0,
            met_pairs: 0,
            first_meetings: None,
            equal_meetings: true,
            berger_games: Vec::new(),
            berger_possible: true,
            sums: PairSums::default(),
        }
    }

    /// Whether the event being built is `key`.
    pub(crate) fn is_for(&self, key: EventKey<'_>) -> bool {
        self.open && key == self.event.key()
    }

    /// Starts the event `key`, forgetting the one before.
    pub fn start(&mut self, key: EventKey<'_>) {
        self.open = true;
        self.event.set(key);
        self.games = 0;
        self.numbered = false;
        self.unknown_vs_unknown = 0;
        if self.players.capacity() > KEEP_CAPACITY {
            self.players = HashMap::new();
        } else {
            self.players.clear();
        }
        if self.teams.capacity() > KEEP_CAPACITY {
            self.teams = HashMap::new();
        } else {
            self.teams.clear();
        }
        self.pair = None;
        self.pair_games = [Meetings::default(); 2];
        self.pairs.clear();
        self.spilled = 0;
        self.met_pairs = 0;
        self.first_meetings = None;
        self.equal_meetings = true;
        if self.berger_games.capacity() > KEEP_CAPACITY {
            self.berger_games = Vec::new();
        } else {
            self.berger_games.clear();
        }
        self.berger_possible = true;
    }

    /// Counts one game of the event. Team sides count whoever played; a game between two
    /// unknown sides counts for nobody in the player table.
    ///
    /// # Errors
    ///
    /// When pairs beyond the budget cannot be given to the scratch store.
    pub fn add(&mut self, game: &EventGame) -> io::Result<()> {
        self.games += 1;
        self.numbered |= game.round > 0;
        let (wh, bh) = (
            game.score.white_half_points(),
            game.score.black_half_points(),
        );
        for (team, half_points) in [(game.white_team, wh), (game.black_team, bh)] {
            if let Some(team) = team {
                let row = self.teams.entry(team).or_default();
                row.games += 1;
                row.half_points += u64::from(half_points);
            }
        }
        if game.white.is_unknown() && game.black.is_unknown() {
            self.unknown_vs_unknown += 1;
            return Ok(());
        }
        self.players
            .entry(game.white)
            .or_default()
            .sums
            .record(wh, game.black_elo);
        self.players
            .entry(game.black)
            .or_default()
            .sums
            .record(bh, game.white_elo);
        if self.berger_possible && !game.white.is_unknown() && !game.black.is_unknown() {
            let fits = game.round > 0
                && game.white != game.black
                && self.berger_games.len() < BERGER_MAX_GAMES
                && self.players.len() <= BERGER_MAX_PLAYERS;
            if fits {
                self.berger_games.push((game.round, game.white, game.black));
            } else {
                self.berger_possible = false;
                self.berger_games = Vec::new();
            }
        }
        let pair = (game.white.min(game.black), game.white.max(game.black));
        if self.pair != Some(pair) {
            self.close_pair()?;
            self.pair = Some(pair);
        }
        let meetings = &mut self.pair_games[usize::from(game.white != pair.0)];
        meetings.games += 1;
        meetings.white_half_points += u64::from(wh);
        Ok(())
    }

    /// The pair's games are all in: they count for round robin detection, and its sums join
    /// the pairs.
    fn close_pair(&mut self) -> io::Result<()> {
        let Some((low, high)) = self.pair.take() else {
            return Ok(());
        };
        let [low_white, high_white] = std::mem::take(&mut self.pair_games);
        if low != high && !low.is_unknown() && !high.is_unknown() {
            let games = low_white.games + high_white.games;
            self.met_pairs += 1;
            match self.first_meetings {
                None => self.first_meetings = Some(games),
                Some(first) => self.equal_meetings &= first == games,
            }
            for player in [low, high] {
                if let Some(entry) = self.players.get_mut(&player) {
                    entry.meets_known = true;
                }
            }
        }
        for (white, black, m) in [(low, high, low_white), (high, low, high_white)] {
            if m.games > 0 {
                self.pairs.push((white, black, m));
            }
        }
        if self.pairs.len() >= self.pair_cap {
            let mut bytes = Vec::with_capacity(self.pairs.len() * PAIR_BYTES);
            for (white, black, m) in &self.pairs {
                bytes.extend_from_slice(&white.0.to_le_bytes());
                bytes.extend_from_slice(&black.0.to_le_bytes());
                bytes.extend_from_slice(&m.games.to_le_bytes());
                bytes.extend_from_slice(&m.white_half_points.to_le_bytes());
            }
            self.scratch.append(&bytes)?;
            self.spilled += self.pairs.len() as u64;
            self.pairs.clear();
        }
        Ok(())
    }

    /// The kind detection finds: round robin when at least two known players played and every
    /// pair of them met the same, non-zero number of times, or when the games, rounds
    /// numbered, follow a Berger table (a round robin the file holds only part of:
    /// [`fits_berger_table`]); otherwise Swiss. Games involving the unknown bucket are
    /// ignored here.
    fn detect_kind(&self) -> EventKind {
        let n = self.players.values().filter(|p| p.meets_known).count() as u64;
        let all_pairs = n * n.saturating_sub(1) / 2;
        let complete = n >= 2 && self.met_pairs == all_pairs && self.equal_meetings;
        if complete || (self.berger_possible && fits_berger_table(&self.berger_games)) {
            EventKind::RoundRobin
        } else {
            EventKind::Swiss
        }
    }

    /// The event's tables, once all its games are in.
    ///
    /// # Errors
    ///
    /// When pairs given to the scratch store cannot be read back.
    pub fn finish(&mut self) -> io::Result<EventTable<'_>> {
        self.close_pair()?;
        self.open = false;
        let detected = self.detect_kind();
        let mut index: HashMap<PlayerId, usize> = HashMap::with_capacity(self.players.len());
        let mut rows: Vec<StandingRow> = Vec::with_capacity(self.players.len());
        for (&player, entry) in &self.players {
            let sums = entry.sums;
            index.insert(player, rows.len());
            let mut row = StandingRow::new(player.key(self.names));
            row.games = sums.wins + sums.draws + sums.losses;
            row.wins = sums.wins;
            row.draws = sums.draws;
            row.losses = sums.losses;
            row.half_points = 2 * sums.wins + sums.draws;
            row.performance = sums.perf.performance();
            rows.push(row);
        }
        // 小分 and 对手分 are C.07's SB and BH under the plain rules, summed per pair.
        let sums = &mut self.sums;
        sums.start(rows.iter().map(|r| r.half_points as i64));
        let mut add_pair = |white: PlayerId, black: PlayerId, m: Meetings| -> io::Result<()> {
            let (Some(&w), Some(&b)) = (index.get(&white), index.get(&black)) else {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "damaged pairs of an event",
                ));
            };
            sums.add(w, b, m.games as i64, m.white_half_points as i64);
            Ok(())
        };
        let mut offset = 0u64;
        let end = self.spilled * PAIR_BYTES as u64;
        let mut chunk = Vec::new();
        while offset < end {
            let len = (end - offset).min(PAIR_CHUNK_BYTES as u64) as usize;
            chunk.resize(len, 0);
            self.scratch.read_at(offset, &mut chunk)?;
            offset += len as u64;
            for pair in chunk.chunks_exact(PAIR_BYTES) {
                let u32_at =
                    |at: usize| u32::from_le_bytes(pair[at..at + 4].try_into().unwrap_or_default());
                let u64_at =
                    |at: usize| u64::from_le_bytes(pair[at..at + 8].try_into().unwrap_or_default());
                let m = Meetings {
                    games: u64_at(8),
                    white_half_points: u64_at(16),
                };
                add_pair(PlayerId(u32_at(0)), PlayerId(u32_at(4)), m)?;
            }
        }
        for &(white, black, m) in &self.pairs {
            add_pair(white, black, m)?;
        }
        for (p, row) in rows.iter_mut().enumerate() {
            let Sums {
                buchholz,
                sonneborn_berger,
            } = sums.get(p);
            row.buchholz_half_points = buchholz as u64;
            row.sonneborn_berger_quarters = sonneborn_berger as u64;
        }
        if self.spilled > 0 {
            self.scratch.clear()?;
            self.spilled = 0;
        }
        let mut teams: Vec<TeamRow> = self
            .teams
            .iter()
            .map(|(&team, t)| (self.names.get(team), t))
            .filter(|(team, _)| !PlayerKey::means_unknown(team))
            .map(|(team, t)| TeamRow {
                place: None,
                team: team.to_owned(),
                games: t.games,
                half_points: t.half_points,
            })
            .collect();
        teams.sort_by(|a, b| {
            b.half_points
                .cmp(&a.half_points)
                .then_with(|| a.team.cmp(&b.team))
        });
        assign_places(&mut teams, |a, b| a.half_points == b.half_points);
        Ok(EventTable {
            key: self.event.key(),
            games: self.games,
            numbered: self.numbered,
            detected,
            rows,
            teams,
            unknown_vs_unknown: self.unknown_vs_unknown,
        })
    }
}

/// Whether games `(round, white, black)` between known players are pairings of a Berger table
/// (the round-robin schedule FIDE's tables and the circle method give) for the players they
/// name: some numbering of the players makes every game of round `r` one of that round's
/// pairings. Colours are not checked (events use different colour tables), nor the rounds'
/// first number (renumbering the players shifts them).
///
/// In the circle method for `n` players, `m` is `n − 1` when `n` is even (one player, `∞`,
/// stays in place) and `n` when it is odd (`∞` is the bye); the others are numbered in
/// `0 .. m`, and in round `r` player `i` meets `j` when `i + j ≡ r (mod m)`, and `∞` the `i`
/// with `2i ≡ r`. A second cycle repeats the first, `m` rounds later. So a numbering is a
/// solution of linear equations mod `m`: each player's number is `±x + c` for the one unknown
/// `x` of its connected group of players, fixed by an odd cycle or a game against `∞`.
///
/// At least two rounds are needed (any one round is a round of some Berger table), and all
/// players must be joined by games, the way two rounds of a round robin join them; so a
/// Swiss whose games join up that way over only two or three rounds can be taken for a round
/// robin. Costs a pass over the games per player (which one is `∞` is tried in turn).
fn fits_berger_table(games: &[(u16, PlayerId, PlayerId)]) -> bool {
    let mut players: Vec<PlayerId> = games.iter().flat_map(|&(_, w, b)| [w, b]).collect();
    players.sort_unstable();
    players.dedup();
    let n = players.len();
    let mut rounds: Vec<u16> = games.iter().map(|g| g.0).collect();
    rounds.sort_unstable();
    rounds.dedup();
    if !(3..=BERGER_MAX_PLAYERS).contains(&n) || rounds.len() < 2 {
        return false;
    }
    let index = |p: PlayerId| players.binary_search(&p).unwrap_or(0);
    let edges: Vec<(usize, usize, u16)> = games
        .iter()
        .map(|&(r, w, b)| (index(w), index(b), r))
        .collect();
    // Nobody plays twice in a round.
    let mut seats: Vec<(u16, usize)> = edges
        .iter()
        .flat_map(|&(a, b, r)| [(r, a), (r, b)])
        .collect();
    seats.sort_unstable();
    if seats.windows(2).any(|w| w[0] == w[1]) {
        return false;
    }
    let even = n.is_multiple_of(2);
    let m = if even { n - 1 } else { n } as u64;
    let mut numbering = BergerNumbering::new(&edges, n, m);
    if !even {
        return numbering.fits(None);
    }
    (0..n).any(|inf| numbering.fits(Some(inf)))
}

/// Numbers players for [`fits_berger_table`]: the games as lists of opponents (built once),
/// and the state of one attempt (reused for each choice of `∞`).
struct BergerNumbering {
    n: usize,
    m: u64,
    /// The opponents of player `p`, with the round mod `m`, are `adjacent[start[p]..start[p + 1]]`.
    start: Vec<usize>,
    adjacent: Vec<(usize, u64)>,
    /// Each player's number as `sign · x + offset`, for the unknown `x`.
    form: Vec<Option<(bool, u64)>>,
    queue: Vec<usize>,
    seen: Vec<bool>,
}

impl BergerNumbering {
    fn new(edges: &[(usize, usize, u16)], n: usize, m: u64) -> BergerNumbering {
        let mut start = vec![0usize; n + 1];
        for &(a, b, _) in edges {
            start[a + 1] += 1;
            start[b + 1] += 1;
        }
        for p in 0..n {
            start[p + 1] += start[p];
        }
        let mut fill = start.clone();
        let mut adjacent = vec![(0, 0); 2 * edges.len()];
        for &(a, b, r) in edges {
            let r = u64::from(r) % m;
            adjacent[fill[a]] = (b, r);
            fill[a] += 1;
            adjacent[fill[b]] = (a, r);
            fill[b] += 1;
        }
        BergerNumbering {
            n,
            m,
            start,
            adjacent,
            form: vec![None; n],
            queue: Vec::new(),
            seen: vec![false; m as usize],
        }
    }

    /// Whether the players but `inf` (which is `∞`) can be numbered in `0 .. m`, no two
    /// alike, so that every game `(a, b, r)` has `a + b ≡ r (mod m)`, or `2a ≡ r` when `b` is
    /// `inf`. Gives up at the first contradiction, which in a Swiss comes within a few games.
    fn fits(&mut self, inf: Option<usize>) -> bool {
        let (n, m) = (self.n, self.m);
        // `m` is odd: 2 has an inverse.
        let half = |v: u64| (v % m) * m.div_ceil(2) % m;
        let neg = |v: u64| (m - v % m) % m;
        let settle = |value: u64, x: &mut Option<u64>| match *x {
            Some(v) => v == value,
            None => {
                *x = Some(value);
                true
            }
        };
        self.form.iter_mut().for_each(|f| *f = None);
        let Some(first) = (0..n).find(|&p| Some(p) != inf) else {
            return false;
        };
        self.form[first] = Some((true, 0));
        self.queue.clear();
        self.queue.push(first);
        let mut x: Option<u64> = None;
        let mut reached = 1;
        while let Some(p) = self.queue.pop() {
            let Some((sign, offset)) = self.form[p] else {
                continue;
            };
            for &(q, r) in &self.adjacent[self.start[p]..self.start[p + 1]] {
                if Some(q) == inf {
                    // sign · x + offset ≡ r / 2
                    let value = (half(r) + neg(offset)) % m;
                    if !settle(if sign { value } else { neg(value) }, &mut x) {
                        return false;
                    }
                    continue;
                }
                // number(q) = r − number(p)
                let want = (!sign, (r + neg(offset)) % m);
                match self.form[q] {
                    None => {
                        self.form[q] = Some(want);
                        self.queue.push(q);
                        reached += 1;
                    }
                    Some(have) if have.0 == want.0 => {
                        if have.1 != want.1 {
                            return false;
                        }
                    }
                    // Same sign: 2 · sign · x ≡ r − offset(p) − offset(q).
                    Some((_, other)) => {
                        let two_x = (r + neg(offset) + neg(other)) % m;
                        let value = if sign { half(two_x) } else { neg(half(two_x)) };
                        if !settle(value, &mut x) {
                            return false;
                        }
                    }
                }
            }
        }
        // Every player joined to the first one.
        if reached != n - usize::from(inf.is_some()) {
            return false;
        }
        let (form, seen) = (&self.form, &mut self.seen);
        let mut distinct = |x: u64| {
            seen.iter_mut().for_each(|s| *s = false);
            form.iter().flatten().all(|&(sign, offset)| {
                let number = (if sign { x } else { neg(x) } + offset) % m;
                !std::mem::replace(&mut seen[number as usize], true)
            })
        };
        match x {
            Some(x) => distinct(x),
            None => (0..m).any(distinct),
        }
    }
}

/// One event's tables, as an accumulator's replay builds them event by event.
#[derive(Debug, Clone)]
pub struct EventTable<'a> {
    /// The event.
    pub key: EventKey<'a>,
    games: u64,
    numbered: bool,
    detected: EventKind,
    /// Every player's line, not yet ranked.
    rows: Vec<StandingRow>,
    teams: Vec<TeamRow>,
    unknown_vs_unknown: u64,
}

impl EventTable<'_> {
    /// Finished games counted in the event.
    pub fn games(&self) -> u64 {
        self.games
    }

    /// Whether the event is casual online play, not a tournament: its `Site` is a web address
    /// that is not an online tournament's server (lichess's `Rated Blitz game`, whose `Site`
    /// is each game's own address, so that every game is an event of its own) and none of its
    /// games has a round number. Online tournaments, which name their address in `Event`,
    /// and events with rounds (a broadcast) are tournaments.
    pub fn is_casual(&self) -> bool {
        self.key.site.contains("://")
            && super::tournament_server(self.key.event).is_none()
            && !self.numbered
    }

    /// The kind detection finds: round robin when at least two known players played and every
    /// pair of them met the same, non-zero number of times; otherwise Swiss. Games involving
    /// the unknown bucket are ignored here.
    pub(crate) fn detect_kind(&self) -> EventKind {
        self.detected
    }

    /// The player table.
    ///
    /// Known players are ranked by points, then by the tie-break of the event's kind
    /// (Sonneborn-Berger for round robins, Buchholz for Swiss), then by name for a stable
    /// listing; players equal on points and that tie-break share a place. The unknown bucket,
    /// if it played, is listed last with no place: it stands for several people. Its games
    /// still count for its known opponents. A game between two unknown sides counts for nobody
    /// and is reported in [`Standings::unknown_vs_unknown`].
    pub fn standings(&self, choice: KindChoice) -> Standings {
        let detected = self.detected;
        let kind = match choice {
            KindChoice::Detect => detected,
            KindChoice::Force(kind) => kind,
        };
        let tie_break = |row: &StandingRow| match kind {
            EventKind::RoundRobin => row.sonneborn_berger_quarters,
            EventKind::Swiss => 2 * row.buchholz_half_points,
        };
        let (mut ranked, unranked): (Vec<_>, Vec<_>) = self
            .rows
            .iter()
            .cloned()
            .partition(|r| !r.player.is_unknown());
        ranked.sort_by(|a, b| {
            b.half_points
                .cmp(&a.half_points)
                .then_with(|| tie_break(b).cmp(&tie_break(a)))
                .then_with(|| a.player.cmp(&b.player))
        });
        assign_places(&mut ranked, |a, b| {
            a.half_points == b.half_points && tie_break(a) == tie_break(b)
        });
        ranked.extend(unranked);
        Standings {
            kind,
            detected,
            rows: ranked,
            unknown_vs_unknown: self.unknown_vs_unknown,
        }
    }

    /// The team table: game points only (局分), from `WhiteTeam`/`BlackTeam`. Sides without a
    /// team tag (or with an empty or `?` one) are left out. Teams equal on points share a place.
    pub fn team_standings(&self) -> &[TeamRow] {
        &self.teams
    }
}

/// Something a place can be written on.
trait Placed {
    fn set_place(&mut self, place: Place);
}

impl Placed for StandingRow {
    fn set_place(&mut self, place: Place) {
        self.place = Some(place);
    }
}

impl Placed for TeamRow {
    fn set_place(&mut self, place: Place) {
        self.place = Some(place);
    }
}

/// Gives sorted rows their places, sharing a place across each run of `tied` neighbours.
fn assign_places<T: Placed>(rows: &mut [T], tied: impl Fn(&T, &T) -> bool) {
    let mut start = 0;
    while start < rows.len() {
        let mut end = start + 1;
        while end < rows.len() && tied(&rows[start], &rows[end]) {
            end += 1;
        }
        let place = Place {
            first: start as u32 + 1,
            last: end as u32,
        };
        for row in &mut rows[start..end] {
            row.set_place(place);
        }
        start = end;
    }
}

/// Running sums for a performance rating: opponents' ratings and the score against them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct PerfSum {
    games: u64,
    rating_sum: u64,
    half_points: u64,
}

impl PerfSum {
    fn add(&mut self, opponent_rating: u32, half_points: u32) {
        self.games += 1;
        self.rating_sum += u64::from(opponent_rating);
        self.half_points += u64::from(half_points);
    }

    /// Average opponent rating plus FIDE `dp` for the score, the percentage rounded half up to
    /// a whole percent (exactly, in integers).
    fn performance(&self) -> Option<f64> {
        if self.games == 0 {
            return None;
        }
        // percent = round(100 · half_points / (2 · games)) = ⌊(100·hp + games) / (2·games)⌋
        let percent = (100 * self.half_points + self.games) / (2 * self.games);
        let average = self.rating_sum as f64 / self.games as f64;
        Some(average + f64::from(fide_dp(percent as u32)))
    }
}

/// A player's line in an event table.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct StandingRow {
    /// The place, shared places spanning several; `None` for the unknown bucket.
    pub place: Option<Place>,
    /// The player.
    pub player: PlayerKey,
    /// Games counted.
    pub games: u64,
    /// Wins.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// Losses.
    pub losses: u64,
    /// Points in half points (so 5 means 2½).
    pub half_points: u64,
    /// 小分 (Sonneborn-Berger) in quarter points.
    pub sonneborn_berger_quarters: u64,
    /// 对手分 (Buchholz, every opponent's points, once per game played) in half points.
    pub buchholz_half_points: u64,
    /// Average rating of the opponents that had an Elo tag plus FIDE `dp` for the score
    /// against them; `None` when no opponent had one.
    pub performance: Option<f64>,
}

impl StandingRow {
    fn new(player: PlayerKey) -> StandingRow {
        StandingRow {
            place: None,
            player,
            games: 0,
            wins: 0,
            draws: 0,
            losses: 0,
            half_points: 0,
            sonneborn_berger_quarters: 0,
            buchholz_half_points: 0,
            performance: None,
        }
    }

    /// Points.
    pub fn points(&self) -> f64 {
        self.half_points as f64 / 2.0
    }

    /// 小分 (Sonneborn-Berger).
    pub fn sonneborn_berger(&self) -> f64 {
        self.sonneborn_berger_quarters as f64 / 4.0
    }

    /// 对手分 (Buchholz).
    pub fn buchholz(&self) -> f64 {
        self.buchholz_half_points as f64 / 2.0
    }
}

/// The player table of one event.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Standings {
    /// The kind used for the tie-break.
    pub kind: EventKind,
    /// The kind detection found (equal to `kind` unless it was forced).
    pub detected: EventKind,
    /// Ranked players, then the unknown bucket if it played.
    pub rows: Vec<StandingRow>,
    /// Games between two unknown sides, counted for nobody.
    pub unknown_vs_unknown: u64,
}

/// A team's line in an event's team table.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TeamRow {
    /// The place; shared when points are equal.
    pub place: Option<Place>,
    /// The team, as tagged.
    pub team: String,
    /// Games its players played for it.
    pub games: u64,
    /// Game points in half points.
    pub half_points: u64,
}

impl TeamRow {
    /// Game points.
    pub fn points(&self) -> f64 {
        self.half_points as f64 / 2.0
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::sort::MemoryStore;
    use crate::stats::eventlog::EventLog;

    #[test]
    fn dp_table_is_monotonic_and_antisymmetric() {
        for p in 0..100 {
            assert!(fide_dp(p) < fide_dp(p + 1), "dp({p}) >= dp({})", p + 1);
        }
        for p in 0..=100 {
            assert_eq!(fide_dp(p), -fide_dp(100 - p), "p = {p}");
        }
    }

    /// Table 8.1(b): 0.50 up to 3 points, each band one hundredth more, 1.00 from 736; the
    /// lower-rated player expects the rest of the point.
    #[test]
    fn pd_table_rises_by_bands_and_is_complementary() {
        assert_eq!((fide_pd(0), fide_pd(3), fide_pd(4)), (50, 50, 51));
        assert_eq!((fide_pd(411), fide_pd(412)), (92, 93));
        assert_eq!((fide_pd(619), fide_pd(620)), (98, 99));
        assert_eq!((fide_pd(735), fide_pd(736), fide_pd(5000)), (99, 100, 100));
        for d in 0..900 {
            assert!(fide_pd(d) <= fide_pd(d + 1), "pd({d}) > pd({})", d + 1);
            assert_eq!(fide_pd(d) + fide_pd(-d), 100, "d = {d}");
        }
    }

    /// White, Black, result, `WhiteElo`, `BlackElo`.
    type TestGame = (PlayerId, PlayerId, Score, Option<u32>, Option<u32>);

    /// The table as the per-game algorithm computes it: every counted side adds its own
    /// points times the opponent's final points to 小分 and the opponent's points to 对手分.
    fn per_game_table(games: &[TestGame]) -> Vec<(PlayerId, [u64; 7])> {
        let mut rows: BTreeMap<PlayerId, [u64; 7]> = BTreeMap::new();
        let mut perf: BTreeMap<PlayerId, PerfSum> = BTreeMap::new();
        let mut sides = Vec::new();
        for &(w, b, score, white_elo, black_elo) in games {
            if w.is_unknown() && b.is_unknown() {
                continue;
            }
            for (me, them, mine, their_elo) in [
                (w, b, score.white_half_points(), black_elo),
                (b, w, score.black_half_points(), white_elo),
            ] {
                let row = rows.entry(me).or_default();
                row[0] += 1;
                row[1 + (2 - mine as usize)] += 1;
                row[4] += u64::from(mine);
                sides.push((me, them, mine));
                let sum = perf.entry(me).or_default();
                if let Some(elo) = their_elo {
                    sum.add(elo, mine);
                }
            }
        }
        for (me, them, mine) in sides {
            let theirs = rows[&them][4];
            let row = rows.get_mut(&me).unwrap();
            row[5] += u64::from(mine) * theirs;
            row[6] += theirs;
        }
        rows.into_iter().collect()
    }

    /// Pseudo-random numbers below `n` from `seed` (a linear congruential generator): the
    /// same games at every run.
    fn numbers(mut seed: u64) -> impl FnMut(u64) -> u64 {
        move |n| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % n
        }
    }

    /// Sums per player and per pair give what the per-game algorithm gives, games against
    /// oneself and against the unknown bucket included, whether the pairs of the event stay
    /// in memory or go to the scratch store, and whether the games are in runs or not.
    #[test]
    fn sums_give_the_per_game_table() {
        let mut names = Names::new();
        let players: Vec<PlayerId> = ["A", "B", "C", "D", "E"]
            .iter()
            .map(|n| PlayerId::named(names.intern(n)))
            .chain([PlayerId::UNKNOWN])
            .collect();
        let key = EventKey {
            event: "E",
            site: "S",
            year: None,
        };
        let mut next = numbers(12345);
        let mut games = Vec::new();
        for _ in 0..400 {
            let (w, b) = (players[next(6) as usize], players[next(6) as usize]);
            let score = [Score::WhiteWin, Score::Draw, Score::BlackWin][next(3) as usize];
            let elo = |r: u64| (r > 0).then_some(1000 + 100 * r as u32);
            let (white_elo, black_elo) = (elo(next(4)), elo(next(4)));
            games.push((w, b, score, white_elo, black_elo));
        }
        let expected = per_game_table(&games);
        for budget in [usize::MAX, 1, 100] {
            let mut log = EventLog::with_stores(
                Box::new(MemoryStore::default()),
                Box::new(MemoryStore::default()),
                budget,
            );
            for &(white, black, score, white_elo, black_elo) in &games {
                let game = EventGame {
                    white,
                    black,
                    white_team: None,
                    black_team: None,
                    score,
                    white_elo,
                    black_elo,
                    round: 0,
                };
                log.push(key, &game, None).unwrap();
            }
            let mut tables = Vec::new();
            let count = log
                .tables(&names, None, |t, _| {
                    tables.push(t.standings(KindChoice::Detect));
                    Ok(())
                })
                .unwrap();
            assert_eq!(count, 1);
            let standings = &tables[0];
            assert_eq!(standings.rows.len(), expected.len());
            for (player, want) in &expected {
                let row = standings
                    .rows
                    .iter()
                    .find(|r| r.player == player.key(&names))
                    .unwrap();
                let got = [
                    row.games,
                    row.wins,
                    row.draws,
                    row.losses,
                    row.half_points,
                    row.sonneborn_berger_quarters,
                    row.buchholz_half_points,
                ];
                assert_eq!(&got, want, "{:?}, budget {budget}", row.player);
            }
        }
    }

    /// The standings' 小分 and 对手分 are C.07's SB and BH under the plain rules: the same
    /// games given one a round to the C.07 engine give the per-game table's values.
    #[test]
    fn plain_rules_of_the_c07_engine_give_the_standings_sums() {
        use crate::stats::tiebreak::{EventResults, Ratio, Rules, System, TieBreak, Value};
        let players: Vec<PlayerId> = (0..5)
            .map(|i| PlayerId::named(NameId::from_index(i).unwrap()))
            .chain([PlayerId::UNKNOWN])
            .collect();
        let index = |p: PlayerId| players.iter().position(|&q| q == p).unwrap();
        let mut next = numbers(777);
        let mut games = Vec::new();
        for _ in 0..300 {
            let (w, b) = (players[next(6) as usize], players[next(6) as usize]);
            let score = [Score::WhiteWin, Score::Draw, Score::BlackWin][next(3) as usize];
            games.push((w, b, score, None, None));
        }
        let mut event = EventResults::with_rules(vec![None; players.len()], Rules::PLAIN);
        for (round, &(w, b, score, _, _)) in games.iter().enumerate() {
            // A game between two unknown sides counts for nobody (the standings' input).
            if !(w.is_unknown() && b.is_unknown()) {
                // Forfeits are games under the plain rules.
                event.add_game(round as u64, index(w), index(b), score, round % 7 != 0);
            }
        }
        let list = [TieBreak::plain(System::Sb), TieBreak::plain(System::Bh)];
        let ranked = event.rank(&list);
        for (player, want) in per_game_table(&games) {
            let row = ranked.iter().find(|r| r.player == index(player)).unwrap();
            assert_eq!(row.half_points as u64, want[4], "{player:?} points");
            assert_eq!(
                row.values[0],
                Value::of(Ratio::new(want[5] as i64, 4)),
                "{player:?} SB"
            );
            assert_eq!(
                row.values[1],
                Value::of(Ratio::new(want[6] as i64, 2)),
                "{player:?} BH"
            );
        }
    }

    /// The rounds of a round robin of `n` players by FIDE's Berger tables (the circle
    /// method: player `n` stays, the others turn), numbered 1.. and named by `names`.
    fn berger_rounds(n: usize, names: &[PlayerId]) -> Vec<Vec<(PlayerId, PlayerId)>> {
        let slots = n + n % 2;
        let m = slots - 1;
        (0..m)
            .map(|r| {
                let mut round = Vec::new();
                for i in 0..m {
                    let j = (r + m - i) % m;
                    if i < j {
                        round.push((i, j));
                    } else if i == j {
                        round.push((i, m));
                    }
                }
                round
                    .into_iter()
                    .filter(|&(i, j)| i < n && j < n)
                    .map(|(i, j)| (names[i], names[j]))
                    .collect()
            })
            .collect()
    }

    fn ids(n: usize) -> Vec<PlayerId> {
        // Out of order, so that ids do not give the numbering away.
        (0..n)
            .map(|i| PlayerId::named(NameId::from_index((2 * n - 1 - i + 3) % n).unwrap()))
            .collect()
    }

    fn games_of(
        rounds: &[Vec<(PlayerId, PlayerId)>],
        first: u16,
    ) -> Vec<(u16, PlayerId, PlayerId)> {
        rounds
            .iter()
            .enumerate()
            .flat_map(|(r, games)| games.iter().map(move |&(w, b)| (first + r as u16, w, b)))
            .collect()
    }

    #[test]
    fn any_two_or_more_rounds_of_a_berger_table_fit_it() {
        for n in 3..=14 {
            let rounds = berger_rounds(n, &ids(n));
            let m = rounds.len();
            for len in 2..=m {
                for start in [0, m - len] {
                    // Colours swapped on some boards, rounds numbered from 1 or later.
                    let games: Vec<_> = games_of(&rounds[start..start + len], 1 + start as u16)
                        .into_iter()
                        .enumerate()
                        .map(|(i, (r, w, b))| if i % 3 == 0 { (r, b, w) } else { (r, w, b) })
                        .collect();
                    assert!(
                        fits_berger_table(&games),
                        "{n} players, rounds {start}+{len}"
                    );
                }
            }
            // The second cycle, m rounds later.
            let mut double = games_of(&rounds[..2], 1);
            double.extend(games_of(&rounds[..1], 1 + m as u16));
            assert!(fits_berger_table(&double), "{n} players, second cycle");
        }
    }

    #[test]
    fn games_off_the_table_do_not_fit() {
        let p = ids(8);
        let rounds = berger_rounds(8, &p);
        // One round alone is any pairing.
        assert!(!fits_berger_table(&games_of(&rounds[..1], 1)));
        // Two rounds of a Swiss whose pairings make two groups of four.
        let swiss = [
            (1, p[0], p[1]),
            (1, p[2], p[3]),
            (1, p[4], p[5]),
            (1, p[6], p[7]),
            (2, p[0], p[2]),
            (2, p[1], p[3]),
            (2, p[4], p[6]),
            (2, p[5], p[7]),
        ];
        assert!(!fits_berger_table(&swiss));
        // A round robin's rounds with two games of one round exchanged between two rounds.
        let mut games = games_of(&rounds[..3], 1);
        let (a, b) = (games[0].0, games[4].0);
        games[0].0 = b;
        games[4].0 = a;
        assert!(!fits_berger_table(&games));
        // A player twice in a round.
        let mut games = games_of(&rounds[..3], 1);
        games.push((1, p[0], p[5]));
        assert!(!fits_berger_table(&games));
        // Rounds 1, 2 and 4 of the table given as 1, 2 and 3.
        let mut games = games_of(&rounds[..2], 1);
        games.extend(games_of(&rounds[3..4], 3));
        assert!(!fits_berger_table(&games));
    }

    #[test]
    fn round_numbers_are_the_first_number_of_the_tag() {
        for (tag, want) in [
            (Some("3"), 3),
            (Some("3.1"), 3),
            (Some(" 12 "), 12),
            (Some("?"), 0),
            (Some("-"), 0),
            (Some("final"), 0),
            (Some(""), 0),
            (Some("65535"), 65535),
            (Some("65536"), 0),
            (None, 0),
        ] {
            assert_eq!(round_number(tag), want, "{tag:?}");
        }
    }

    #[test]
    fn places_print_with_a_hyphen_when_shared() {
        assert_eq!(Place { first: 2, last: 3 }.to_string(), "2-3");
        assert_eq!(Place { first: 1, last: 1 }.to_string(), "1");
    }
}
