//! Event standings: points, Sonneborn-Berger (小分), Buchholz (对手分), performance, places.
//!
//! Game points are counted in half points and Sonneborn-Berger in quarter points, so every sum
//! and every tie comparison is exact integer arithmetic; the `f64` getters are for display.

use std::collections::{HashMap, HashSet};
use std::fmt;

use super::{EventIds, EventKey, NameId, Names, PlayerId, PlayerKey, Score};

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

/// The FIDE `dp` for a percentage score, 0 ..= 100 (values above 100 are read as 100).
pub fn fide_dp(percent: u32) -> i32 {
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

    fn merge(&mut self, other: PlayerInEvent) {
        self.wins += other.wins;
        self.draws += other.draws;
        self.losses += other.losses;
        self.perf.games += other.perf.games;
        self.perf.rating_sum += other.perf.rating_sum;
        self.perf.half_points += other.perf.half_points;
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

/// Per-event counts of one event: games, and games between two unknown sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct EventTotals {
    key: EventIds,
    games: u64,
    unknown_vs_unknown: u64,
}

/// What the event tables of every event need, as sums over games: per player, per ordered
/// pair of players (White, Black) and per team, each keyed by the event's number.
///
/// Standings need no game list: points and wins come from the per-player sums; 小分 and 对手分
/// are sums over opponents of (points scored against them, or games played with them) times
/// their final points, which the per-pair sums give; round robin detection counts meetings per
/// pair; performance adds opponents' ratings per player. Memory is bounded by the players,
/// pairs that met and teams of each event, whatever the number of games. Game order plays no
/// part: the game list used to be kept in file order only to be canonical, and the order in
/// which players first appeared was never visible (tables sort by points, tie-break, name).
#[derive(Debug, Clone, Default)]
pub(crate) struct EventTables {
    events: Vec<EventTotals>,
    index: HashMap<EventIds, u32>,
    players: HashMap<(u32, PlayerId), PlayerInEvent>,
    pairs: HashMap<(u32, PlayerId, PlayerId), Meetings>,
    teams: HashMap<(u32, NameId), TeamInEvent>,
}

/// One finished game as event tables count it.
pub(crate) struct EventGame {
    pub event: EventIds,
    pub white: PlayerId,
    pub black: PlayerId,
    pub white_team: Option<NameId>,
    pub black_team: Option<NameId>,
    pub score: Score,
    pub white_elo: Option<u32>,
    pub black_elo: Option<u32>,
}

impl EventTables {
    /// The number of an event, opened on first sight.
    ///
    /// # Panics
    ///
    /// At the 2³²nd event (billions of games, each its own event: memory runs out first).
    fn event(&mut self, key: EventIds) -> u32 {
        let next = u32::try_from(self.events.len()).expect("fewer than 2^32 events");
        let at = *self.index.entry(key).or_insert(next);
        if at == next {
            self.events.push(EventTotals {
                key,
                games: 0,
                unknown_vs_unknown: 0,
            });
        }
        at
    }

    /// Counts one game. Team sides count whoever played; a game between two unknown sides
    /// counts for nobody in the player table.
    pub fn add(&mut self, game: EventGame) {
        let at = self.event(game.event);
        let totals = &mut self.events[at as usize];
        totals.games += 1;
        let (wh, bh) = (
            game.score.white_half_points(),
            game.score.black_half_points(),
        );
        for (team, half_points) in [(game.white_team, wh), (game.black_team, bh)] {
            if let Some(team) = team {
                let row = self.teams.entry((at, team)).or_default();
                row.games += 1;
                row.half_points += u64::from(half_points);
            }
        }
        if game.white.is_unknown() && game.black.is_unknown() {
            totals.unknown_vs_unknown += 1;
            return;
        }
        self.players
            .entry((at, game.white))
            .or_default()
            .record(wh, game.black_elo);
        self.players
            .entry((at, game.black))
            .or_default()
            .record(bh, game.white_elo);
        let pair = self.pairs.entry((at, game.white, game.black)).or_default();
        pair.games += 1;
        pair.white_half_points += u64::from(wh);
    }

    /// Takes in every event of `other`, whose names `map` maps onto this table's.
    pub fn merge(&mut self, other: EventTables, map: &[NameId]) {
        let events: Vec<u32> = other
            .events
            .iter()
            .map(|e| {
                let at = self.event(e.key.remap(map));
                let totals = &mut self.events[at as usize];
                totals.games += e.games;
                totals.unknown_vs_unknown += e.unknown_vs_unknown;
                at
            })
            .collect();
        for ((at, player), sums) in other.players {
            self.players
                .entry((events[at as usize], player.remap(map)))
                .or_default()
                .merge(sums);
        }
        for ((at, white, black), m) in other.pairs {
            let key = (events[at as usize], white.remap(map), black.remap(map));
            let pair = self.pairs.entry(key).or_default();
            pair.games += m.games;
            pair.white_half_points += m.white_half_points;
        }
        for ((at, team), t) in other.teams {
            let row = self
                .teams
                .entry((events[at as usize], map[team.index()]))
                .or_default();
            row.games += t.games;
            row.half_points += t.half_points;
        }
    }

    /// The number of events.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// Every event with its sums, sorted by [`EventKey`]; names from `names`.
    pub fn events<'a>(&'a self, names: &'a Names) -> Vec<Event<'a>> {
        let mut events: Vec<Event<'a>> = self
            .events
            .iter()
            .map(|e| Event {
                key: e.key.resolve(names),
                games: e.games,
                unknown_vs_unknown: e.unknown_vs_unknown,
                players: Vec::new(),
                pairs: Vec::new(),
                teams: Vec::new(),
                names,
            })
            .collect();
        for (&(at, player), &sums) in &self.players {
            events[at as usize].players.push((player, sums));
        }
        for (&(at, white, black), &m) in &self.pairs {
            events[at as usize].pairs.push(((white, black), m));
        }
        for (&(at, team), &t) in &self.teams {
            events[at as usize].teams.push((team, t));
        }
        events.sort_by(|a, b| a.key.cmp(&b.key));
        events
    }
}

/// [`EventTables`] as written: events in their numbering, sums sorted by key, so that the same
/// games always give the same text.
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct EventTablesData {
    events: Vec<EventTotals>,
    players: Vec<((u32, PlayerId), PlayerInEvent)>,
    pairs: Vec<((u32, PlayerId, PlayerId), Meetings)>,
    teams: Vec<((u32, NameId), TeamInEvent)>,
}

impl From<&EventTables> for EventTablesData {
    fn from(tables: &EventTables) -> EventTablesData {
        fn sorted<K: Copy + Ord, V: Copy>(map: &HashMap<K, V>) -> Vec<(K, V)> {
            let mut list: Vec<(K, V)> = map.iter().map(|(k, v)| (*k, *v)).collect();
            list.sort_unstable_by_key(|(k, _)| *k);
            list
        }
        EventTablesData {
            events: tables.events.clone(),
            players: sorted(&tables.players),
            pairs: sorted(&tables.pairs),
            teams: sorted(&tables.teams),
        }
    }
}

impl EventTablesData {
    /// The tables, checking that every id refers to an event listed and to a table of
    /// `names` names, that nothing is listed twice, and that the sums fit together (every
    /// player of a pair has a line, White's points are at most two halves a game), so that
    /// computing tables cannot fail.
    pub fn into_tables(self, names: usize) -> Result<EventTables, String> {
        let events = self.events.len();
        let event_fits = |at: u32| (at as usize) < events;
        let name_fits = |id: NameId| id.index() < names;
        let mut tables = EventTables::default();
        for e in self.events {
            if !name_fits(e.key.event) || !name_fits(e.key.site) {
                return Err("an event refers to a name that is not in the table".into());
            }
            let at = tables.event(e.key);
            if at as usize != tables.events.len() - 1 {
                return Err("an event is listed twice".into());
            }
            tables.events[at as usize] = e;
        }
        let twice = || "a sum is listed twice".to_owned();
        let unknown = || "a sum refers to an event or a name that is not listed".to_owned();
        for ((at, player), sums) in self.players {
            if !event_fits(at) || !player.fits(names) {
                return Err(unknown());
            }
            if tables.players.insert((at, player), sums).is_some() {
                return Err(twice());
            }
        }
        for ((at, white, black), m) in self.pairs {
            if !event_fits(at) || !white.fits(names) || !black.fits(names) {
                return Err(unknown());
            }
            let listed = |p: PlayerId| tables.players.contains_key(&(at, p));
            let too_many_points = m
                .games
                .checked_mul(2)
                .is_none_or(|most| m.white_half_points > most);
            if !listed(white) || !listed(black) || too_many_points {
                return Err("a pair's sums do not fit its players' lines".into());
            }
            if tables.pairs.insert((at, white, black), m).is_some() {
                return Err(twice());
            }
        }
        for ((at, team), t) in self.teams {
            if !event_fits(at) || !name_fits(team) {
                return Err(unknown());
            }
            if tables.teams.insert((at, team), t).is_some() {
                return Err(twice());
            }
        }
        Ok(tables)
    }
}

/// One event of an accumulator with its sums: what its tables are computed from.
#[derive(Debug, Clone)]
pub struct Event<'a> {
    /// The event.
    pub key: EventKey<'a>,
    games: u64,
    unknown_vs_unknown: u64,
    players: Vec<(PlayerId, PlayerInEvent)>,
    pairs: Vec<((PlayerId, PlayerId), Meetings)>,
    teams: Vec<(NameId, TeamInEvent)>,
    names: &'a Names,
}

impl Event<'_> {
    /// Finished games counted in the event.
    pub fn games(&self) -> u64 {
        self.games
    }

    /// The kind detection finds: round robin when at least two known players played and every
    /// pair of them met the same, non-zero number of times; otherwise Swiss. Games involving
    /// the unknown bucket are ignored here.
    pub fn detect_kind(&self) -> EventKind {
        let mut players = HashSet::new();
        let mut meetings: HashMap<(PlayerId, PlayerId), u64> = HashMap::new();
        for &((white, black), m) in &self.pairs {
            if white.is_unknown() || black.is_unknown() || white == black {
                continue;
            }
            players.insert(white);
            players.insert(black);
            *meetings
                .entry((white.min(black), white.max(black)))
                .or_default() += m.games;
        }
        let n = players.len() as u64;
        let all_pairs = n * n.saturating_sub(1) / 2;
        let mut counts = meetings.values();
        let first = counts.next().copied();
        let equal = counts.all(|c| Some(*c) == first);
        if n >= 2 && meetings.len() as u64 == all_pairs && equal {
            EventKind::RoundRobin
        } else {
            EventKind::Swiss
        }
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
        let detected = self.detect_kind();
        let kind = match choice {
            KindChoice::Detect => detected,
            KindChoice::Force(kind) => kind,
        };

        let mut index: HashMap<PlayerId, usize> = HashMap::with_capacity(self.players.len());
        let mut rows: Vec<StandingRow> = Vec::with_capacity(self.players.len());
        for &(player, sums) in &self.players {
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
        for &((white, black), m) in &self.pairs {
            let (w, b) = (index[&white], index[&black]);
            let (white_total, black_total) = (rows[w].half_points, rows[b].half_points);
            // A win takes the opponent's points whole, a draw half: in quarter points, the
            // points scored against an opponent (in half points) times theirs.
            let black_half_points = 2 * m.games - m.white_half_points;
            rows[w].sonneborn_berger_quarters += m.white_half_points * black_total;
            rows[w].buchholz_half_points += m.games * black_total;
            rows[b].sonneborn_berger_quarters += black_half_points * white_total;
            rows[b].buchholz_half_points += m.games * white_total;
        }

        let tie_break = |row: &StandingRow| match kind {
            EventKind::RoundRobin => row.sonneborn_berger_quarters,
            EventKind::Swiss => 2 * row.buchholz_half_points,
        };
        let (mut ranked, unranked): (Vec<_>, Vec<_>) =
            rows.into_iter().partition(|r| !r.player.is_unknown());
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
    pub fn team_standings(&self) -> Vec<TeamRow> {
        let mut rows: Vec<TeamRow> = self
            .teams
            .iter()
            .map(|&(team, t)| (self.names.get(team), t))
            .filter(|(team, _)| !PlayerKey::means_unknown(team))
            .map(|(team, t)| TeamRow {
                place: None,
                team: team.to_owned(),
                games: t.games,
                half_points: t.half_points,
            })
            .collect();
        rows.sort_by(|a, b| {
            b.half_points
                .cmp(&a.half_points)
                .then_with(|| a.team.cmp(&b.team))
        });
        assign_places(&mut rows, |a, b| a.half_points == b.half_points);
        rows
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

    #[test]
    fn dp_table_is_monotonic_and_antisymmetric() {
        for p in 0..100 {
            assert!(fide_dp(p) < fide_dp(p + 1), "dp({p}) >= dp({})", p + 1);
        }
        for p in 0..=100 {
            assert_eq!(fide_dp(p), -fide_dp(100 - p), "p = {p}");
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

    /// Sums per player and per pair give what the per-game algorithm gives, games against
    /// oneself and against the unknown bucket included.
    #[test]
    fn sums_give_the_per_game_table() {
        let mut names = Names::new();
        let players: Vec<PlayerId> = ["A", "B", "C", "D", "E"]
            .iter()
            .map(|n| PlayerId::named(names.intern(n)))
            .chain([PlayerId::UNKNOWN])
            .collect();
        let key = EventIds {
            event: names.intern("E"),
            site: names.intern("S"),
            year: None,
        };
        let mut seed = 12345u64;
        let mut next = |n: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        let mut games = Vec::new();
        let mut tables = EventTables::default();
        for _ in 0..400 {
            let (w, b) = (players[next(6) as usize], players[next(6) as usize]);
            let score = [Score::WhiteWin, Score::Draw, Score::BlackWin][next(3) as usize];
            let elo = |r: u64| (r > 0).then_some(1000 + 100 * r as u32);
            let (white_elo, black_elo) = (elo(next(4)), elo(next(4)));
            games.push((w, b, score, white_elo, black_elo));
            tables.add(EventGame {
                event: key,
                white: w,
                black: b,
                white_team: None,
                black_team: None,
                score,
                white_elo,
                black_elo,
            });
        }
        let expected = per_game_table(&games);
        let event = &tables.events(&names)[0];
        let standings = event.standings(KindChoice::Detect);
        assert_eq!(standings.rows.len(), expected.len());
        for (player, want) in expected {
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
            assert_eq!(got, want, "{:?}", row.player);
        }
    }

    #[test]
    fn places_print_with_a_hyphen_when_shared() {
        assert_eq!(Place { first: 2, last: 3 }.to_string(), "2-3");
        assert_eq!(Place { first: 1, last: 1 }.to_string(), "1");
    }
}
