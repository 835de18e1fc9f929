//! Event standings: points, Sonneborn-Berger (小分), Buchholz (对手分), performance, places.
//!
//! Game points are counted in half points and Sonneborn-Berger in quarter points, so every sum
//! and every tie comparison is exact integer arithmetic; the `f64` getters are for display.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use super::{NameId, Names, PlayerId, PlayerKey, Score};

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

/// One game as an event table needs it: a fixed-size record, names as ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GameFact {
    /// White.
    pub white: PlayerId,
    /// Black.
    pub black: PlayerId,
    /// White's team, if tagged.
    pub white_team: Option<NameId>,
    /// Black's team, if tagged.
    pub black_team: Option<NameId>,
    /// The result.
    pub score: Score,
    /// `WhiteElo`, used as White's rating in Black's performance.
    pub white_elo: Option<u32>,
    /// `BlackElo`, used as Black's rating in White's performance.
    pub black_elo: Option<u32>,
    /// File order, which keeps the list canonical so merged accumulators compare equal.
    pub order: u64,
}

/// The games of one event. Tie-breaks depend on every opponent's final score, so the
/// accumulator keeps the games themselves (bounded by the event's size) and computes tables on
/// demand.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EventAccumulator {
    games: Vec<GameFact>,
}

impl EventAccumulator {
    /// An event with no games yet.
    pub fn new() -> EventAccumulator {
        EventAccumulator::default()
    }

    /// Adds one game, keeping file order.
    pub fn add(&mut self, game: GameFact) {
        let at = self.games.partition_point(|g| g.order <= game.order);
        self.games.insert(at, game);
    }

    /// Takes in every game of `other`, whose names `map` maps onto this event's table.
    pub(crate) fn merge(&mut self, other: EventAccumulator, map: &[NameId]) {
        self.games.extend(other.games.into_iter().map(|mut g| {
            g.white = g.white.remap(map);
            g.black = g.black.remap(map);
            g.white_team = g.white_team.map(|t| map[t.index()]);
            g.black_team = g.black_team.map(|t| map[t.index()]);
            g
        }));
        self.games.sort_by_key(|g| g.order);
    }

    /// Whether every id refers to a table of `len` names.
    pub(crate) fn ids_fit(&self, len: usize) -> bool {
        let team_fits = |t: Option<NameId>| t.is_none_or(|t| t.index() < len);
        self.games.iter().all(|g| {
            g.white.fits(len)
                && g.black.fits(len)
                && team_fits(g.white_team)
                && team_fits(g.black_team)
        })
    }

    /// Moves every game `by` places later in file order (see
    /// [`StatsAccumulator::shift_order`](super::StatsAccumulator::shift_order)).
    pub fn shift_order(&mut self, by: u64) {
        for game in &mut self.games {
            game.order += by;
        }
    }

    /// The number of games.
    pub fn games(&self) -> u64 {
        self.games.len() as u64
    }

    /// The kind detection finds: round robin when at least two known players played and every
    /// pair of them met the same, non-zero number of times; otherwise Swiss. Games involving
    /// the unknown bucket are ignored here.
    pub fn detect_kind(&self) -> EventKind {
        let mut players = BTreeSet::new();
        let mut meetings: BTreeMap<(PlayerId, PlayerId), u64> = BTreeMap::new();
        for game in &self.games {
            if game.white.is_unknown() || game.black.is_unknown() || game.white == game.black {
                continue;
            }
            players.insert(game.white);
            players.insert(game.black);
            let pair = (game.white.min(game.black), game.white.max(game.black));
            *meetings.entry(pair).or_default() += 1;
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

    /// The player table, names from `names`.
    ///
    /// Known players are ranked by points, then by the tie-break of the event's kind
    /// (Sonneborn-Berger for round robins, Buchholz for Swiss), then by name for a stable
    /// listing; players equal on points and that tie-break share a place. The unknown bucket,
    /// if it played, is listed last with no place: it stands for several people. Its games
    /// still count for its known opponents. A game between two unknown sides counts for nobody
    /// and is reported in [`Standings::unknown_vs_unknown`].
    pub fn standings(&self, names: &Names, choice: KindChoice) -> Standings {
        let detected = self.detect_kind();
        let kind = match choice {
            KindChoice::Detect => detected,
            KindChoice::Force(kind) => kind,
        };

        let mut index: BTreeMap<PlayerId, usize> = BTreeMap::new();
        let mut rows: Vec<StandingRow> = Vec::new();
        let mut perf: Vec<PerfSum> = Vec::new();
        let mut unknown_vs_unknown = 0;
        // (row of the player, row of the opponent, player's half points) per counted side.
        let mut sides: Vec<(usize, usize, u32)> = Vec::new();
        for game in &self.games {
            if game.white.is_unknown() && game.black.is_unknown() {
                unknown_vs_unknown += 1;
                continue;
            }
            let w = row_of(&mut index, &mut rows, &mut perf, names, game.white);
            let b = row_of(&mut index, &mut rows, &mut perf, names, game.black);
            let wh = game.score.white_half_points();
            let bh = game.score.black_half_points();
            rows[w].record(wh);
            rows[b].record(bh);
            sides.push((w, b, wh));
            sides.push((b, w, bh));
            if let Some(elo) = game.black_elo {
                perf[w].add(elo, wh);
            }
            if let Some(elo) = game.white_elo {
                perf[b].add(elo, bh);
            }
        }
        for &(me, opponent, mine) in &sides {
            let theirs = rows[opponent].half_points;
            // A win takes the opponent's points whole, a draw half: in quarter points that is
            // 2·theirs or 1·theirs, i.e. `mine` (2, 1, 0) times the opponent's half points.
            rows[me].sonneborn_berger_quarters += u64::from(mine) * theirs;
            rows[me].buchholz_half_points += theirs;
        }
        for (row, sum) in rows.iter_mut().zip(&perf) {
            row.performance = sum.performance();
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
            unknown_vs_unknown,
        }
    }

    /// The team table: game points only (局分), from `WhiteTeam`/`BlackTeam`. Sides without a
    /// team tag (or with an empty or `?` one) are left out. Teams equal on points share a place.
    pub fn team_standings(&self, names: &Names) -> Vec<TeamRow> {
        let mut teams: BTreeMap<&str, TeamRow> = BTreeMap::new();
        for game in &self.games {
            let sides = [
                (game.white_team, game.score.white_half_points()),
                (game.black_team, game.score.black_half_points()),
            ];
            for (team, half_points) in sides {
                let Some(team) = team.map(|t| names.get(t)) else {
                    continue;
                };
                if team.trim().is_empty() || team.trim() == "?" {
                    continue;
                }
                let row = teams.entry(team).or_insert_with(|| TeamRow {
                    place: None,
                    team: team.to_owned(),
                    games: 0,
                    half_points: 0,
                });
                row.games += 1;
                row.half_points += u64::from(half_points);
            }
        }
        let mut rows: Vec<TeamRow> = teams.into_values().collect();
        rows.sort_by(|a, b| {
            b.half_points
                .cmp(&a.half_points)
                .then_with(|| a.team.cmp(&b.team))
        });
        assign_places(&mut rows, |a, b| a.half_points == b.half_points);
        rows
    }
}

/// The row of `player`, opened (with its performance sums) on first sight.
fn row_of(
    index: &mut BTreeMap<PlayerId, usize>,
    rows: &mut Vec<StandingRow>,
    perf: &mut Vec<PerfSum>,
    names: &Names,
    player: PlayerId,
) -> usize {
    *index.entry(player).or_insert_with(|| {
        rows.push(StandingRow::new(player.key(names)));
        perf.push(PerfSum::default());
        rows.len() - 1
    })
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
#[derive(Debug, Clone, Copy, Default)]
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

    fn record(&mut self, half_points: u32) {
        self.games += 1;
        match half_points {
            2 => self.wins += 1,
            1 => self.draws += 1,
            _ => self.losses += 1,
        }
        self.half_points += u64::from(half_points);
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

    #[test]
    fn places_print_with_a_hyphen_when_shared() {
        assert_eq!(Place { first: 2, last: 3 }.to_string(), "2-3");
        assert_eq!(Place { first: 1, last: 1 }.to_string(), "1");
    }
}
