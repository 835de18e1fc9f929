//! The individual tie-breaks of FIDE Handbook C.07 ("Play-off and Tie-Break Regulations", in
//! force from 1 August 2024), computed from one event's results, and the standings they give.
//!
//! Input is an [`EventResults`]: players by index (the caller decides who is one player, by
//! FIDE id or by name), their ratings, and every round's results as the PGN records them:
//! games played over the board, games decided by forfeit, and byes. A round in which a player
//! has no record at all counts as an absence (a zero-point unplayed round), which is how a
//! player who withdrew shows. Output is each requested tie-break's value per player, exact
//! (a [`Ratio`]), and the ranking by points, then by the list in order.
//!
//! Unplayed rounds follow C.07 article 16 as the FIDE Tie-Break Server (FIDE's Technical
//! Commission's reference implementation) applies it: for the participant's own tie-breaks
//! every unplayed round (forfeit won or lost, bye, absence) counts as a game against a dummy
//! opponent with as many points as the participant, ended with the points awarded (16.4);
//! rounds the participant chose not to play (half- and zero-point byes, forfeits lost,
//! absences: "voluntary unplayed rounds") go first when a Cut or Median modifier cuts a least
//! significant value, unless that value is worth more (16.5; the least significant value is
//! the weakest opponent's term, 14.1). Opponents' scores are their scores as awarded, except
//! that a participant's rounds without an opponent after they withdrew count as draws for
//! their opponents (16.3.2), a forfeit lost there as awarded. Systems based on ratings count
//! games played over the board only. Direct encounter is applied again to each smaller group
//! it leaves tied (6).
//!
//! Rounds are whatever numbers the caller gives, in their order: only their order matters,
//! so a round nobody has a record of does not exist here (and costs nothing).

pub mod event;
mod opponents;
mod system;
pub mod team;
mod value;

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::standings::{fide_dp, fide_pd, Place};
use super::Score;
use opponents::Meeting;

pub use opponents::Rules;
pub(crate) use opponents::{PairSums, Sums};
pub use system::{Cut, System, TieBreak, TieBreakError, TieBreakList};
pub use value::{Ratio, Value};

/// Player-rounds (players × rounds) beyond which an event gets no tie-break values.
pub const MAX_PLAYER_ROUNDS: usize = 10_000_000;

/// How a round went for one player.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
    /// The round's position among the event's rounds, from 0.
    round: usize,
    /// The opponent, for a game played or forfeited; `None` for a bye or an absence.
    opponent: Option<usize>,
    black: bool,
    /// Points awarded, in half points.
    half: i64,
    played: bool,
    /// A round the player chose not to play: a half- or zero-point bye, a forfeit lost, an
    /// absence (C.07 16: "voluntary unplayed rounds").
    voluntary: bool,
}

/// One record of an event as given, before rounds are numbered.
#[derive(Debug, Clone, Copy)]
enum Record {
    Game {
        round: u64,
        white: usize,
        black: usize,
        score: Score,
        played: bool,
    },
    Bye {
        round: u64,
        player: usize,
        half_points: u8,
    },
}

/// One event's players and results, as tie-breaks read them.
#[derive(Debug, Clone, Default)]
pub struct EventResults {
    ratings: Vec<Option<u32>>,
    records: Vec<Record>,
    /// A side that stands for several people (the unknown bucket): its games count for its
    /// opponents, but it gets no place.
    unranked: Option<usize>,
    rules: Rules,
}

/// A player's line in the tie-break standings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ranked {
    /// The player's index.
    pub player: usize,
    /// The place; players equal on points and every tie-break share it. `None` for the
    /// side [`EventResults::set_unranked`] names.
    pub place: Option<Place>,
    /// Points in half points, unplayed rounds as awarded.
    pub half_points: i64,
    /// The value of each requested tie-break, in the list's order; [`Value::none`] where the
    /// system has no value (no rated opponent, a direct encounter that cannot place the
    /// player).
    pub values: Vec<Value>,
}

impl EventResults {
    /// An event with players `0 .. ratings.len()`, each with their rating if known, counted
    /// by C.07's rules.
    pub fn new(ratings: Vec<Option<u32>>) -> EventResults {
        EventResults::with_rules(ratings, Rules::C07)
    }

    /// An event counted by `rules`: [`Rules::PLAIN`] gives the standings' 小分 and 对手分
    /// as [`System::Sb`] and [`System::Bh`] without a cut.
    ///
    /// ```
    /// use pgnkit::stats::tiebreak::{EventResults, Rules, System, TieBreak};
    /// use pgnkit::stats::Score;
    ///
    /// // A beats B, B beats C, C forfeits to A.
    /// let mut event = EventResults::with_rules(vec![None; 3], Rules::PLAIN);
    /// event.add_game(1, 0, 1, Score::WhiteWin, true);
    /// event.add_game(2, 1, 2, Score::WhiteWin, true);
    /// event.add_game(3, 2, 0, Score::BlackWin, false);
    /// let ranked = event.rank(&[TieBreak::plain(System::Bh)]);
    /// // A: B's 1 point and C's 0, the forfeit counted as a game (C.07 would count a dummy).
    /// assert_eq!(ranked[0].player, 0);
    /// assert_eq!(ranked[0].values[0].to_string(), "1");
    /// ```
    pub fn with_rules(ratings: Vec<Option<u32>>, rules: Rules) -> EventResults {
        EventResults {
            ratings,
            records: Vec::new(),
            unranked: None,
            rules,
        }
    }

    /// Lists `player` last and without a place: a side that stands for several people.
    pub fn set_unranked(&mut self, player: usize) {
        self.unranked = Some(player);
    }

    /// The number of players.
    pub fn players(&self) -> usize {
        self.ratings.len()
    }

    /// A game of round `round` between `white` and `black`; `played` is false for a game
    /// decided by forfeit (no moves, or `Termination "forfeit"`), whose winner counts a win
    /// not played and whose loser a round not played (unless the rules count forfeits as
    /// played). Players out of range are ignored, and so is a game against oneself unless
    /// the rules count it.
    pub fn add_game(&mut self, round: u64, white: usize, black: usize, score: Score, played: bool) {
        let n = self.players();
        if white < n && black < n && (white != black || self.rules.self_games) {
            self.records.push(Record::Game {
                round,
                white,
                black,
                score,
                played: played || !self.rules.forfeits_unplayed,
            });
        }
    }

    /// A bye in round `round` worth `half_points` (2: a full-point or pairing-allocated bye,
    /// 1: a half-point bye, 0: a zero-point bye).
    pub fn add_bye(&mut self, round: u64, player: usize, half_points: u8) {
        if player < self.players() {
            self.records.push(Record::Bye {
                round,
                player,
                half_points: half_points.min(2),
            });
        }
    }

    /// Whether the event has more player-rounds than tie-breaks are computed for.
    pub fn too_large(&self) -> bool {
        self.rounds().len().saturating_mul(self.players()) > MAX_PLAYER_ROUNDS
    }

    /// The round numbers some record has, in order.
    fn rounds(&self) -> BTreeSet<u64> {
        self.records
            .iter()
            .map(|r| match *r {
                Record::Game { round, .. } | Record::Bye { round, .. } => round,
            })
            .collect()
    }

    /// Every player's rounds, in round order, absences filled in; and the number of rounds.
    fn entries(&self) -> (Vec<Vec<Entry>>, usize) {
        let rounds = self.rounds();
        let index: HashMap<u64, usize> = rounds.iter().enumerate().map(|(i, &r)| (r, i)).collect();
        let mut entries = vec![Vec::new(); self.players()];
        for record in &self.records {
            match *record {
                Record::Game {
                    round,
                    white,
                    black,
                    score,
                    played,
                } => {
                    let round = index[&round];
                    let (wh, bh) = (
                        i64::from(score.white_half_points()),
                        i64::from(score.black_half_points()),
                    );
                    for (me, them, half, black) in
                        [(white, black, wh, false), (black, white, bh, true)]
                    {
                        entries[me].push(Entry {
                            round,
                            opponent: Some(them),
                            black,
                            half,
                            played,
                            voluntary: !played && half < 2,
                        });
                    }
                }
                Record::Bye {
                    round,
                    player,
                    half_points,
                } => entries[player].push(Entry {
                    round: index[&round],
                    opponent: None,
                    black: false,
                    half: i64::from(half_points),
                    played: false,
                    voluntary: half_points < 2,
                }),
            }
        }
        for list in &mut entries {
            let mut seen = vec![false; rounds.len()];
            for e in list.iter() {
                seen[e.round] = true;
            }
            for (round, _) in seen.iter().enumerate().filter(|(_, s)| !**s) {
                list.push(Entry {
                    round,
                    opponent: None,
                    black: false,
                    half: 0,
                    played: false,
                    voluntary: true,
                });
            }
            list.sort_by_key(|e| e.round);
        }
        (entries, rounds.len())
    }

    /// The standings by points, then by `list` in order; then by player index for a stable
    /// listing. Players equal on points and on every value share a place.
    ///
    /// An event [`too_large`](Self::too_large) is ranked by points only, with no values:
    /// every player has a line for every round, which an online arena where each game is its
    /// own round would make a square of its size.
    pub fn rank(&self, list: &[TieBreak]) -> Vec<Ranked> {
        let columns: Vec<Column> = list.iter().map(|&tb| Column::System(tb)).collect();
        self.rank_columns(&columns)
    }

    /// As [`rank`](Self::rank), with columns of values the caller computed (the team
    /// systems) among the systems.
    pub fn rank_columns(&self, list: &[Column]) -> Vec<Ranked> {
        if self.too_large() {
            let mut half = vec![0i64; self.players()];
            for r in &self.records {
                match *r {
                    Record::Game {
                        white,
                        black,
                        score,
                        ..
                    } => {
                        half[white] += i64::from(score.white_half_points());
                        half[black] += i64::from(score.black_half_points());
                    }
                    Record::Bye {
                        player,
                        half_points,
                        ..
                    } => half[player] += i64::from(half_points),
                }
            }
            let values = vec![vec![Value::none(); list.len()]; self.players()];
            return place(&half, values, &[], self.unranked);
        }
        let (entries, rounds) = self.entries();
        let calc = Calc::new(&entries, &self.ratings, rounds, self.rules);
        let n = entries.len();
        let mut values: Vec<Vec<Value>> = (0..n)
            .map(|p| {
                list.iter()
                    .map(|column| match column {
                        Column::System(tb) if tb.system == System::De => Value::none(),
                        Column::System(tb) => calc.value(p, tb).into(),
                        Column::Given { values, .. } => values.get(p).cloned().unwrap_or_default(),
                    })
                    .collect()
            })
            .collect();
        // Direct encounter depends on who is still tied when it comes: points and every
        // tie-break before it in the list.
        for (k, column) in list.iter().enumerate() {
            if !matches!(column, Column::System(tb) if tb.system == System::De) {
                continue;
            }
            let mut groups: HashMap<(i64, Vec<Value>), Vec<usize>> = HashMap::new();
            for (p, row) in values.iter().enumerate() {
                groups
                    .entry((calc.half[p], row[..k].to_vec()))
                    .or_default()
                    .push(p);
            }
            let mut groups: Vec<Vec<usize>> =
                groups.into_values().filter(|g| g.len() > 1).collect();
            groups.sort_unstable();
            calc.direct_encounters(groups, k, &mut values);
        }
        let lower_first: Vec<usize> = list
            .iter()
            .enumerate()
            .filter(|(_, c)| {
                matches!(
                    c,
                    Column::Given {
                        lower_first: true,
                        ..
                    }
                )
            })
            .map(|(k, _)| k)
            .collect();
        place(&calc.half, values, &lower_first, self.unranked)
    }
}

/// A column of [`EventResults::rank_columns`]: a system to compute, or values given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Column {
    /// A tie-break computed from the results.
    System(TieBreak),
    /// One value a player, by index (missing entries have none).
    Given {
        /// The values.
        values: Vec<Value>,
        /// Whether the lower value ranks first (board count).
        lower_first: bool,
    },
}

/// Sorts players by points, then by their values (the columns `lower_first` names from the
/// lowest), then by index, and gives places; the `unranked` side goes last without one.
fn place(
    half: &[i64],
    mut values: Vec<Vec<Value>>,
    lower_first: &[usize],
    unranked: Option<usize>,
) -> Vec<Ranked> {
    let n = half.len();
    let unranked = unranked.filter(|&u| u < n);
    // What is compared: the values, those ranked from the lowest negated (a missing value
    // still ranks last: it stays empty, below any number).
    let keys: Vec<Vec<Value>> = values
        .iter()
        .map(|row| {
            let mut row = row.clone();
            for &k in lower_first {
                row[k] = Value(row[k].0.iter().map(|v| v.map(|v| v.scaled(-1))).collect());
            }
            row
        })
        .collect();
    let mut order: Vec<usize> = (0..n).filter(|&p| Some(p) != unranked).collect();
    order.sort_by(|&a, &b| {
        half[b]
            .cmp(&half[a])
            .then_with(|| keys[b].cmp(&keys[a]))
            .then(a.cmp(&b))
    });
    let ranked_count = order.len();
    let tied = |a: usize, b: usize| half[a] == half[b] && keys[a] == keys[b];
    let mut places = Vec::with_capacity(n);
    let mut start = 0;
    while start < ranked_count {
        let mut end = start + 1;
        while end < ranked_count && tied(order[start], order[end]) {
            end += 1;
        }
        let place = Place {
            first: start as u32 + 1,
            last: end as u32,
        };
        places.extend(std::iter::repeat_n(Some(place), end - start));
        start = end;
    }
    if let Some(u) = unranked {
        order.push(u);
        places.push(None);
    }
    let ranked: Vec<Ranked> = order
        .iter()
        .zip(places)
        .map(|(&p, place)| Ranked {
            player: p,
            place,
            half_points: half[p],
            values: std::mem::take(&mut values[p]),
        })
        .collect();
    ranked
}

/// Every player's TPR or PTP (`None` without a rated opponent).
type Performances = Vec<Option<i64>>;

/// The values every system needs, computed once.
struct Calc<'a> {
    entries: &'a [Vec<Entry>],
    ratings: &'a [Option<u32>],
    rounds: usize,
    rules: Rules,
    /// Points, in half points.
    half: Vec<i64>,
    /// Points as the player's opponents count them (C.07 16.3.2, when the rules say so): the
    /// rounds a player did not play after their last round played or won (a withdrawal)
    /// count as draws.
    adjusted: Vec<i64>,
    /// Plain Buchholz, in half points (AOB averages it).
    bh: Vec<i64>,
    /// Scores with the last round's games as draws (Fore Buchholz).
    fore: Vec<i64>,
    /// The same as opponents count them: [`Calc::adjusted`] for a player not paired in the
    /// last round, else `fore` (who was paired last did not withdraw).
    fore_adjusted: Vec<i64>,
    /// Every player's TPR and PTP for a rating floor, computed once for all opponents that
    /// APRO and APPO average over.
    performances: RefCell<HashMap<(bool, Option<u32>), Performances>>,
}

impl<'a> Calc<'a> {
    fn new(
        entries: &'a [Vec<Entry>],
        ratings: &'a [Option<u32>],
        rounds: usize,
        rules: Rules,
    ) -> Calc<'a> {
        let half: Vec<i64> = entries
            .iter()
            .map(|e| e.iter().map(|e| e.half).sum())
            .collect();
        let adjusted = if rules.withdrawal_draws {
            entries.iter().map(|list| adjusted_score(list)).collect()
        } else {
            half.clone()
        };
        let mut calc = Calc {
            entries,
            ratings,
            rounds,
            rules,
            half,
            adjusted,
            bh: Vec::new(),
            fore: Vec::new(),
            fore_adjusted: Vec::new(),
            performances: RefCell::new(HashMap::new()),
        };
        calc.bh = (0..entries.len())
            .map(|p| {
                cut_sum(
                    calc.meetings(p, &calc.adjusted, &calc.half)
                        .map(Meeting::buchholz),
                    Cut::None,
                )
            })
            .collect();
        calc.fore = calc.fore_scores();
        let last = rounds.saturating_sub(1);
        calc.fore_adjusted = entries
            .iter()
            .enumerate()
            .map(|(p, list)| {
                let paired_last = list.iter().any(|e| e.round == last && e.opponent.is_some());
                if paired_last {
                    calc.fore[p]
                } else {
                    calc.adjusted[p]
                }
            })
            .collect();
        calc
    }

    /// The TPR (`perfect` false) or PTP of opponent `o`, from the cache.
    fn performance_of(&self, o: usize, perfect: bool, floor: Option<u32>) -> Option<i64> {
        let mut cache = self.performances.borrow_mut();
        let all = cache.entry((perfect, floor)).or_insert_with(|| {
            (0..self.entries.len())
                .map(|p| {
                    if perfect {
                        self.ptp(p, floor)
                    } else {
                        self.tpr(p, floor)
                    }
                })
                .collect()
        });
        all[o]
    }

    /// `p`'s meetings for a Buchholz or Sonneborn-Berger: each game played against the
    /// opponent's score (`opponents`), each round not played against a dummy with `p`'s
    /// `own` score (C.07 16.4), when the rules count dummies.
    fn meetings<'s>(
        &'s self,
        p: usize,
        opponents: &'s [i64],
        own: &'s [i64],
    ) -> impl Iterator<Item = Meeting> + 's {
        let dummies = self.rules.dummy_opponents;
        self.entries[p].iter().filter_map(move |e| {
            let (opponent, voluntary) = match e.opponent {
                Some(o) if e.played => (opponents[o], false),
                _ if dummies => (own[p], e.voluntary),
                _ => return None,
            };
            Some(Meeting {
                games: 1,
                half: e.half,
                opponent,
                voluntary,
            })
        })
    }

    /// Scores with every paired game of the last round counted as a draw (Fore Buchholz).
    fn fore_scores(&self) -> Vec<i64> {
        let last = self.rounds.saturating_sub(1);
        self.entries
            .iter()
            .map(|list| {
                list.iter()
                    .map(|e| {
                        if e.round == last && e.opponent.is_some() {
                            1
                        } else {
                            e.half
                        }
                    })
                    .sum()
            })
            .collect()
    }

    /// The rating `p` counts an opponent at: theirs, raised to the floor; `None` for an
    /// unrated opponent without a floor.
    fn rating(&self, o: usize, floor: Option<u32>) -> Option<i64> {
        match (self.ratings[o], floor) {
            (Some(r), Some(f)) => Some(i64::from(r.max(f))),
            (None, Some(f)) => Some(i64::from(f)),
            (r, None) => r.map(i64::from),
        }
    }

    /// The games `p` played over the board against an opponent with a rating (or the floor):
    /// the opponent, their rating, and `p`'s half points.
    fn rated_games(&self, p: usize, floor: Option<u32>) -> Vec<(usize, i64, i64)> {
        self.entries[p]
            .iter()
            .filter(|e| e.played)
            .filter_map(|e| {
                let o = e.opponent?;
                Some((o, self.rating(o, floor)?, e.half))
            })
            .collect()
    }

    /// Average rating of the opponents met over the board, cut as asked, rounded.
    fn aro(&self, p: usize, cut: Cut, floor: Option<u32>) -> Option<Ratio> {
        let mut ratings: Vec<i64> = self.rated_games(p, floor).iter().map(|g| g.1).collect();
        ratings.sort_unstable();
        let kept = cut_slice(&ratings, cut);
        (!kept.is_empty())
            .then(|| Ratio::int(Ratio::new(kept.iter().sum(), kept.len() as i64).round()))
    }

    /// ARO plus the FIDE `dp` for the percentage scored in the same games.
    fn tpr(&self, p: usize, floor: Option<u32>) -> Option<i64> {
        let games = self.rated_games(p, floor);
        if games.is_empty() {
            return None;
        }
        let n = games.len() as i64;
        let aro = Ratio::new(games.iter().map(|g| g.1).sum(), n).round();
        let half: i64 = games.iter().map(|g| g.2).sum();
        // percent = round(100 · half / (2n)), halves up, as the performance column does.
        let percent = (100 * half + n) / (2 * n);
        Some(aro + i64::from(fide_dp(percent as u32)))
    }

    /// Perfect Tournament Performance (C.07 10.3): the lowest whole rating `R` whose expected
    /// score against the opponents met over the board, each game's from FIDE table 8.1(b)
    /// ([`fide_pd`], in hundredths), reaches the points scored against them. A zero score,
    /// which every rating reaches, gives the lowest opponent's rating − 800. A full score
    /// needs no rule of its own: the table gives 1.00 from 736 points above, so it is the
    /// highest opponent's rating + 736. Exact integer arithmetic, as the FIDE Tie-Break
    /// Server computes it.
    fn ptp(&self, p: usize, floor: Option<u32>) -> Option<i64> {
        let games = self.rated_games(p, floor);
        let lowest = games.iter().map(|g| g.1).min()?;
        let highest = games.iter().map(|g| g.1).max()?;
        // Half points to hundredths.
        let score: i64 = games.iter().map(|g| 50 * g.2).sum();
        if score == 0 {
            return Some(lowest - 800);
        }
        let expected = |r: i64| -> i64 { games.iter().map(|g| fide_pd(r - g.1)).sum() };
        // The expected score never falls as `R` rises, and at `highest + 736` it is every
        // game's full point: the lowest `R` that reaches the score lies in between.
        let (mut lo, mut hi) = (lowest - 800, highest + 736);
        while lo < hi {
            let mid = lo + (hi - lo).div_euclid(2);
            if expected(mid) >= score {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        Some(lo)
    }

    /// The average of `f` over the opponents `p` met over the board that have a value,
    /// rounded.
    fn average_over_opponents(&self, p: usize, f: impl Fn(usize) -> Option<i64>) -> Option<Ratio> {
        let values: Vec<i64> = self.entries[p]
            .iter()
            .filter(|e| e.played)
            .filter_map(|e| f(e.opponent?))
            .collect();
        (!values.is_empty())
            .then(|| Ratio::int(Ratio::new(values.iter().sum(), values.len() as i64).round()))
    }

    fn value(&self, p: usize, tb: &TieBreak) -> Option<Ratio> {
        let count = |keep: &dyn Fn(&Entry) -> bool| {
            Some(Ratio::int(
                self.entries[p].iter().filter(|e| keep(e)).count() as i64,
            ))
        };
        match tb.system {
            System::De => None,
            System::Win => count(&|e| e.half == 2),
            System::Won => count(&|e| e.played && e.half == 2),
            System::Bpg => count(&|e| e.played && e.black),
            System::Bwg => count(&|e| e.played && e.black && e.half == 2),
            System::Ps => {
                let mut running = 0;
                let terms: Vec<Term> = self.entries[p]
                    .iter()
                    .map(|e| {
                        running += e.half;
                        Term::of(false, running, running)
                    })
                    .collect();
                // Running totals never fall: cutting the least significant is cutting the
                // first rounds, as C.07 says.
                Some(Ratio::new(cut_sum(terms, tb.cut), 2))
            }
            System::Bh => Some(Ratio::new(
                cut_sum(
                    self.meetings(p, &self.adjusted, &self.half)
                        .map(Meeting::buchholz),
                    tb.cut,
                ),
                2,
            )),
            System::Fb => Some(Ratio::new(
                cut_sum(
                    self.meetings(p, &self.fore_adjusted, &self.fore)
                        .map(Meeting::buchholz),
                    tb.cut,
                ),
                2,
            )),
            System::Aob => {
                let bhs: Vec<i64> = self.entries[p]
                    .iter()
                    .filter(|e| e.played)
                    .filter_map(|e| e.opponent.map(|o| self.bh[o]))
                    .collect();
                (!bhs.is_empty()).then(|| Ratio::new(bhs.iter().sum(), 2 * bhs.len() as i64))
            }
            System::Sb => Some(Ratio::new(
                cut_sum(
                    self.meetings(p, &self.adjusted, &self.half)
                        .map(Meeting::sonneborn_berger),
                    tb.cut,
                ),
                4,
            )),
            System::Ks => {
                let max_half = 2 * self.rounds as i64;
                let half: i64 = self.entries[p]
                    .iter()
                    .filter_map(|e| {
                        let o = e.opponent?;
                        (100 * self.half[o] >= i64::from(tb.koya_limit) * max_half)
                            .then_some(e.half)
                    })
                    .sum();
                Some(Ratio::new(half, 2))
            }
            System::Aro => self.aro(p, tb.cut, tb.floor),
            System::Tpr => self.tpr(p, tb.floor).map(Ratio::int),
            System::Ptp => self.ptp(p, tb.floor).map(Ratio::int),
            System::Apro => {
                self.average_over_opponents(p, |o| self.performance_of(o, false, tb.floor))
            }
            System::Appo => {
                self.average_over_opponents(p, |o| self.performance_of(o, true, tb.floor))
            }
        }
    }

    /// Direct encounter in column `k` for every tied group, applied again to each smaller
    /// group it leaves tied (C.07 6, as the FIDE Tie-Break Server applies it), until a
    /// step separates nobody: each step adds the points among that group to the value of its
    /// members.
    ///
    /// A step costs its members' rounds; a budget of a few times the event's rounds keeps an
    /// event whose ties come apart one player a step from costing the square of its size
    /// (what is left when it runs out stays tied).
    fn direct_encounters(&self, groups: Vec<Vec<usize>>, k: usize, values: &mut [Vec<Value>]) {
        let rounds: usize = self.entries.iter().map(Vec::len).sum();
        let mut budget = rounds.saturating_mul(8).max(1 << 16);
        let mut todo = groups;
        todo.reverse();
        while let Some(group) = todo.pop() {
            let cost: usize = group.iter().map(|&p| self.entries[p].len()).sum();
            if cost > budget {
                continue;
            }
            budget -= cost;
            let placed: HashMap<usize, Ratio> = self.direct_encounter(&group).into_iter().collect();
            let mut parts: BTreeMap<Option<Ratio>, Vec<usize>> = BTreeMap::new();
            for &p in &group {
                let part = placed.get(&p).copied();
                values[p][k].push(part);
                parts.entry(part).or_default().push(p);
            }
            // Higher values first, so the budget goes to the top of the table first.
            for sub in parts.into_values() {
                if sub.len() > 1 && sub.len() < group.len() {
                    todo.push(sub);
                }
            }
        }
        for row in values.iter_mut() {
            if row[k].is_none() {
                row[k] = Value::none();
            }
        }
    }

    /// Direct encounter within a tied group (C.07 6): when every two of them met, each one's
    /// points in the games among them (forfeits as awarded); when pairs met unequally often,
    /// the average per meeting with each.
    ///
    /// When some two never met, C.07 still ranks first the one who is alone at the top of
    /// the separate standings whatever the outcome of the missing games, then the second
    /// when the first is so placed, and so on: those get their points among the group (the
    /// average per meeting with each opponent met), the rest no value, so they stay tied.
    fn direct_encounter(&self, group: &[usize]) -> Vec<(usize, Ratio)> {
        let k = group.len();
        let members: HashMap<usize, usize> =
            group.iter().enumerate().map(|(i, &p)| (p, i)).collect();
        // (me, them) → (games, my half points); only pairs that met, so a large tie costs
        // its games, not the square of its size.
        let mut met: HashMap<(usize, usize), (i64, i64)> = HashMap::new();
        for (i, &p) in group.iter().enumerate() {
            for e in &self.entries[p] {
                if let Some(&j) = e.opponent.and_then(|o| members.get(&o)) {
                    let m = met.entry((i, j)).or_default();
                    m.0 += 1;
                    m.1 += e.half;
                }
            }
        }
        let complete = met.len() == k * (k - 1);
        let counts: BTreeSet<i64> = met.values().map(|m| m.0).collect();
        let equal = complete && counts.len() == 1;
        let mut sums = vec![Some(Ratio::int(0)); k];
        let mut opponents = vec![0i64; k];
        for (&(i, _), &(games, half)) in &met {
            let term = if equal {
                Ratio::new(half, 2)
            } else {
                Ratio::new(half, 2 * games)
            };
            sums[i] = sums[i].and_then(|s| s.checked_add(term));
            opponents[i] += 1;
        }
        // A sum too large to hold exactly leaves the whole group without a value rather
        // than with a wrong one.
        let Some(sums) = sums.into_iter().collect::<Option<Vec<Ratio>>>() else {
            return Vec::new();
        };
        if complete {
            return group.iter().copied().zip(sums).collect();
        }
        // The most each could reach: a win (one point per meeting on average) against every
        // member not met. Whoever scores more than everyone else's most is alone at the top
        // whatever the missing games give; the best possible for the others is reached in
        // one outcome (each wins all their own missing games), so the test is exact.
        let most: Vec<Option<Ratio>> = (0..k)
            .map(|i| sums[i].checked_add(Ratio::int(k as i64 - 1 - opponents[i])))
            .collect();
        let mut order: Vec<usize> = (0..k).collect();
        order.sort_by(|&a, &b| sums[b].cmp(&sums[a]).then(a.cmp(&b)));
        let mut ranked = Vec::new();
        for (n, &i) in order.iter().enumerate() {
            let rest = &order[n + 1..];
            let alone = rest.iter().all(|&j| most[j].is_some_and(|m| sums[i] > m));
            // The last one left is placed too: below all the others.
            if !alone {
                break;
            }
            ranked.push((group[i], sums[i]));
        }
        ranked
    }
}

/// A player's points as their opponents' Buchholz and Sonneborn-Berger count them (C.07
/// 16.3.2, as the FIDE Tie-Break Server reads it): the rounds without an opponent (byes that
/// are not a full point, absences) after the last round the player played or won count as
/// draws, since the player had withdrawn; a forfeit lost there counts as awarded, 0.
fn adjusted_score(list: &[Entry]) -> i64 {
    let last_there = list.iter().filter(|e| !e.voluntary).map(|e| e.round).max();
    list.iter()
        .map(|e| {
            let withdrawn = last_there.is_none_or(|l| e.round > l);
            if withdrawn && e.opponent.is_none() {
                1
            } else {
                e.half
            }
        })
        .sum()
}

/// One contribution to a sum that Cut and Median shorten (BH, FB, SB, PS).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Term {
    /// From a voluntary unplayed round (C.07 16.5).
    voluntary: bool,
    /// What the term is ranked by: the opponent's score, or the dummy's (C.07 14.1).
    score: i64,
    /// What it adds: the score itself for Buchholz, times the points scored for
    /// Sonneborn-Berger.
    value: i64,
}

impl Term {
    fn of(voluntary: bool, score: i64, value: i64) -> Term {
        Term {
            voluntary,
            score,
            value,
        }
    }
}

/// The sum of the terms a Cut or Median modifier keeps.
///
/// The least significant term is the one of the lowest score, of the lowest value among
/// equal scores (C.07 14.1: for Sonneborn-Berger the contribution of the weakest opponent,
/// not the smallest product). Each low cut takes it, except that a participant with
/// voluntary unplayed rounds loses the lowest of those first whenever it is worth at least
/// as much (C.07 16.5, as the FIDE Tie-Break Server applies it): a bye asked for cannot be
/// the round a cut forgives. High cuts (Median) take the most significant term, unplayed or
/// not. A cut of all the terms or more leaves 0.
fn cut_sum(terms: impl IntoIterator<Item = Term>, cut: Cut) -> i64 {
    let (low, high) = match cut {
        // Nothing to cut: the plain sum.
        Cut::None => return terms.into_iter().map(|t| t.value).sum(),
        Cut::Cut(n) => (usize::from(n), 0),
        Cut::Median(n) => (usize::from(n), usize::from(n)),
    };
    let mut terms: Vec<Term> = terms.into_iter().collect();
    if low + high >= terms.len() {
        return 0;
    }
    terms.sort_unstable_by_key(|t| (t.score, t.value));
    // Cuts are few (at most 2 in C.07), so removing from the vector is cheap.
    for _ in 0..low {
        let at = match terms.iter().position(|t| t.voluntary) {
            Some(v) if terms[v].value >= terms[0].value => v,
            _ => 0,
        };
        terms.remove(at);
    }
    terms.truncate(terms.len() - high);
    terms.iter().map(|t| t.value).sum()
}

fn cut_slice<T>(sorted: &[T], cut: Cut) -> &[T] {
    let (low, high) = match cut {
        Cut::None => (0, 0),
        Cut::Cut(n) => (usize::from(n), 0),
        Cut::Median(n) => (usize::from(n), usize::from(n)),
    };
    if low + high >= sorted.len() {
        return &[];
    }
    &sorted[low..sorted.len() - high]
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;

    fn dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/stats/tiebreaks")
    }

    /// The lines of a data file that are not comments or blank, with their line numbers.
    fn lines(path: &Path) -> Vec<(usize, Vec<String>)> {
        std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
            .map(|(i, l)| (i + 1, l.split('\t').map(str::to_owned).collect()))
            .collect()
    }

    /// Reads an `*.event.tsv`: `rating NAME ELO`, `game ROUND WHITE BLACK RESULT`,
    /// `forfeit ROUND WHITE BLACK RESULT`, `bye ROUND NAME POINTS`. Players are numbered in
    /// order of first appearance.
    fn read_event(path: &Path) -> (EventResults, Vec<String>) {
        let rows = lines(path);
        let mut names: Vec<String> = Vec::new();
        let mut ratings: HashMap<String, u32> = HashMap::new();
        let id = |names: &mut Vec<String>, name: &str| match names.iter().position(|n| n == name) {
            Some(i) => i,
            None => {
                names.push(name.to_owned());
                names.len() - 1
            }
        };
        let mut records = Vec::new();
        for (line, f) in &rows {
            let at = format!("{}:{line}", path.display());
            match f[0].as_str() {
                "rating" => {
                    id(&mut names, &f[1]);
                    ratings.insert(f[1].clone(), f[2].parse().expect(&at));
                }
                "game" | "forfeit" => {
                    let (w, b) = (id(&mut names, &f[2]), id(&mut names, &f[3]));
                    let score = Score::from_pgn(&f[4]).expect(&at);
                    records.push((
                        f[1].parse::<u64>().expect(&at),
                        Some((w, b, score, f[0] == "game")),
                        None,
                    ));
                }
                "bye" => {
                    let p = id(&mut names, &f[2]);
                    let half = match f[3].as_str() {
                        "1" => 2,
                        "1/2" => 1,
                        "0" => 0,
                        other => panic!("{at}: bye worth {other}"),
                    };
                    records.push((f[1].parse::<u64>().expect(&at), None, Some((p, half))));
                }
                other => panic!("{at}: unknown record {other}"),
            }
        }
        let mut event = EventResults::new(names.iter().map(|n| ratings.get(n).copied()).collect());
        for (round, game, bye) in records {
            if let Some((w, b, score, played)) = game {
                event.add_game(round, w, b, score, played);
            }
            if let Some((p, half)) = bye {
                event.add_bye(round, p, half);
            }
        }
        (event, names)
    }

    /// Every `NAME.LIST.tsv` next to `NAME.event.tsv` is the expected standings of that event
    /// ranked by the tie-breaks its header names after `points`, in that order.
    #[test]
    fn worked_examples_give_the_hand_computed_standings() {
        let mut checked = 0;
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir())
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for expected in &files {
            let name = expected.file_name().unwrap().to_string_lossy().into_owned();
            let Some((stem, _)) = name.split_once('.') else {
                continue;
            };
            if name.ends_with(".event.tsv") || !name.ends_with(".tsv") {
                continue;
            }
            let (event, names) = read_event(&dir().join(format!("{stem}.event.tsv")));
            let rows = lines(expected);
            let header = &rows[0].1;
            assert_eq!(header[..3], ["place", "player", "points"], "{name}: header");
            let list: Vec<TieBreak> = header[3..]
                .iter()
                .map(|h| h.parse().unwrap_or_else(|e| panic!("{name}: {e}")))
                .collect();
            for (tb, h) in list.iter().zip(&header[3..]) {
                assert_eq!(&tb.to_string(), h, "{name}: column names its tie-break");
            }
            let ranked = event.rank(&list);
            assert_eq!(ranked.len(), rows.len() - 1, "{name}: players");
            for (row, (line, want)) in ranked.iter().zip(&rows[1..]) {
                let mut got = vec![
                    row.place.map_or_else(|| "-".to_owned(), |p| p.to_string()),
                    names[row.player].clone(),
                    Ratio::new(row.half_points, 2).to_string(),
                ];
                got.extend(row.values.iter().map(|v| match v.to_string() {
                    empty if empty.is_empty() => "-".to_owned(),
                    v => v,
                }));
                for ((g, w), column) in got.iter().zip(want).zip(header) {
                    assert_eq!(g, w, "{name}:{line}: {column}");
                }
            }
            checked += 1;
        }
        assert!(checked >= 8, "only {checked} tables checked");
    }

    /// PTP (C.07 10.3) of one player against opponents of given ratings, as FIDE's Tie-Break
    /// Server computes it (`testdata/stats/ptp.tsv`).
    #[test]
    fn ptp_is_the_lowest_rating_the_fide_table_expects_to_reach_the_score() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/stats/ptp.tsv");
        let rows = lines(&path);
        assert_eq!(rows[0].1[..3], ["results", "opponents", "ptp"]);
        for (line, f) in &rows[1..] {
            let at = format!("testdata/stats/ptp.tsv:{line}");
            let opponents: Vec<u32> = f[1].split(' ').map(|r| r.parse().expect(&at)).collect();
            let mut ratings = vec![None];
            ratings.extend(opponents.iter().map(|&r| Some(r)));
            let mut event = EventResults::new(ratings);
            for (i, result) in f[0].split(' ').enumerate() {
                let score = match result {
                    "1" => Score::WhiteWin,
                    "1/2" => Score::Draw,
                    "0" => Score::BlackWin,
                    other => panic!("{at}: result {other}"),
                };
                event.add_game(i as u64 + 1, 0, i + 1, score, true);
            }
            let ranked = event.rank(&["PTP".parse().unwrap()]);
            let player = ranked.iter().find(|r| r.player == 0).expect(&at);
            assert_eq!(player.values[0].to_string(), f[2], "{at}: {}", f[3]);
        }
        assert!(rows.len() > 10, "{}: too few cases", path.display());
    }

    /// Each table of docs/stats.md marked `<!-- checked: FILE -->` is that file's table, which
    /// the test above checks against the code.
    #[test]
    fn docs_worked_examples_are_the_checked_tables() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let docs = std::fs::read_to_string(root.join("docs/stats.md")).unwrap();
        let mut checked = 0;
        let mut rest = docs.as_str();
        while let Some(at) = rest.find("<!-- checked: ") {
            rest = &rest[at + "<!-- checked: ".len()..];
            let (file, after) = rest.split_once(" -->").expect("a closed marker");
            let table: Vec<Vec<String>> = after
                .lines()
                .skip(1)
                .take_while(|l| l.starts_with('|'))
                .filter(|l| !l.starts_with("|---"))
                .map(|l| {
                    l.trim_matches('|')
                        .split('|')
                        .map(|c| c.trim().to_owned())
                        .collect()
                })
                .collect();
            let want: Vec<Vec<String>> = lines(&root.join(file))
                .into_iter()
                .map(|(_, f)| f)
                .collect();
            assert_eq!(table, want, "docs/stats.md table of {file}");
            checked += 1;
        }
        assert!(checked >= 4, "only {checked} tables in docs/stats.md");
    }

    #[test]
    fn names_parse_with_their_modifiers() {
        for (name, want) in [
            ("BH-C1", "BH-C1"),
            ("bh-m2", "BH-M2"),
            ("ARO-C1", "ARO-C1"),
            ("KS", "KS"),
            ("KS-60", "KS-60"),
            ("ARO-C1-F1400", "ARO-C1-F1400"),
            ("APPO-F1000", "APPO-F1000"),
            ("PS-C1", "PS-C1"),
        ] {
            let tb: TieBreak = name.parse().unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(tb.to_string(), want);
        }
        let list = TieBreak::parse_list("ARO-C1, BH-C1,BH,DE").unwrap();
        let shown: Vec<String> = list.iter().map(ToString::to_string).collect();
        assert_eq!(shown, ["ARO-C1", "BH-C1", "BH", "DE"]);
    }

    #[test]
    fn unknown_names_and_misplaced_modifiers_are_refused_with_the_known_list() {
        for (name, problem) in [
            ("XYZ", "unknown system `XYZ`"),
            ("BH-C3", "unknown modifier `C3`"),
            ("WIN-C1", "WIN takes no Cut modifier"),
            ("PS-M1", "PS takes no Median modifier"),
            ("SB-F1000", "SB takes no rating floor"),
            ("KS-0", "the Koya limit is a percentage"),
            ("BH-C1-C2", "unknown modifier `C2`"),
            ("ARO-Fx", "`Fx` is not F<rating>"),
        ] {
            let err = name.parse::<TieBreak>().unwrap_err().to_string();
            assert!(err.contains(problem), "{name}: {err}");
            assert!(
                err.contains(
                    "DE, WIN, WON, BPG, BWG, PS, BH, AOB, FB, SB, KS, ARO, TPR, PTP, APRO, APPO"
                ),
                "{err}"
            );
        }
    }

    /// A tie of three where B and C never met: A beat both, so A is alone at the top of
    /// the games among them whatever B–C would have given (C.07 6); B and C stay tied. Had
    /// A drawn with C, C could still reach A's 1.5, and nobody is placed.
    #[test]
    fn direct_encounter_places_who_is_on_top_whatever_the_missing_games() {
        // A B C D E F = 0 1 2 3 4 5; A, B, C end on 2 points.
        let games = |a_c: Score| {
            let mut event = EventResults::new(vec![None; 6]);
            for (round, w, b, score) in [
                (1, 0, 1, Score::WhiteWin),
                (1, 2, 3, Score::WhiteWin),
                (1, 4, 5, Score::Draw),
                (2, 0, 2, a_c),
                (2, 1, 4, Score::WhiteWin),
                (2, 3, 5, Score::Draw),
                (3, 3, 0, Score::WhiteWin),
                (3, 1, 5, Score::WhiteWin),
                (3, 2, 4, Score::WhiteWin),
            ] {
                event.add_game(round, w, b, score, true);
            }
            event
        };
        let ranked = games(Score::WhiteWin).rank(&[TieBreak::plain(System::De)]);
        let top: Vec<(usize, String, Option<Ratio>)> = ranked[..3]
            .iter()
            .map(|r| (r.player, r.place.unwrap().to_string(), r.values[0].first()))
            .collect();
        assert_eq!(
            top,
            [
                (0, "1".into(), Some(Ratio::int(2))),
                (1, "2-3".into(), None),
                (2, "2-3".into(), None)
            ]
        );
        // With A–C drawn, a fourth round brings A, B, C to 2.5. Among them A has 1.5 of
        // 1.5, C 0.5 and 1.5 at most (a win against B), B 0 and 1 at most: C could still
        // reach A, so nobody is placed.
        let mut drawn = games(Score::Draw);
        drawn.add_game(4, 0, 4, Score::WhiteWin, true);
        drawn.add_game(4, 1, 3, Score::Draw, true);
        drawn.add_game(4, 2, 5, Score::BlackWin, true);
        let ranked = drawn.rank(&[TieBreak::plain(System::De)]);
        let tied: Vec<&Ranked> = ranked.iter().filter(|r| r.player <= 2).collect();
        assert!(tied.iter().all(|r| r.half_points == tied[0].half_points));
        assert!(tied.iter().all(|r| r.values[0].is_none()), "{tied:?}");
    }

    /// Three players tied where two never met: direct encounter says nothing.
    #[test]
    fn direct_encounter_needs_every_tied_pair_to_have_met() {
        let mut event = EventResults::new(vec![None; 4]);
        // 0 beats 1, 1 beats 2, 2 beats 3, 3 beats 0: everyone on 1 point, 0–2 and 1–3
        // never met.
        event.add_game(1, 0, 1, Score::WhiteWin, true);
        event.add_game(1, 2, 3, Score::WhiteWin, true);
        event.add_game(2, 1, 2, Score::WhiteWin, true);
        event.add_game(2, 3, 0, Score::WhiteWin, true);
        let ranked = event.rank(&[TieBreak::plain(System::De)]);
        assert!(ranked.iter().all(|r| r.values[0].is_none()));
        assert!(ranked
            .iter()
            .all(|r| r.place == Some(Place { first: 1, last: 4 })));
    }

    /// The unknown bucket's games count for its opponents; it is listed last, unplaced.
    #[test]
    fn an_unranked_side_is_last_without_a_place() {
        let mut event = EventResults::new(vec![None; 3]);
        event.add_game(1, 0, 1, Score::WhiteWin, true);
        event.add_game(2, 2, 0, Score::WhiteWin, true);
        event.set_unranked(0);
        let ranked = event.rank(&[TieBreak::plain(System::Bh)]);
        let order: Vec<(usize, Option<String>)> = ranked
            .iter()
            .map(|r| (r.player, r.place.map(|p| p.to_string())))
            .collect();
        assert_eq!(
            order,
            [(2, Some("1".into())), (1, Some("2".into())), (0, None)]
        );
        // 2 beat the bucket, which has 1 point, and missed round 1 (a dummy on 1 point).
        assert_eq!(ranked[0].values[0], Value::of(Ratio::int(2)));
    }

    /// An arena where every game is its own round would need players × rounds lines: it is
    /// ranked by points, without values, in time and memory by its games.
    #[test]
    fn an_event_of_too_many_player_rounds_is_ranked_by_points_only() {
        let players = 1000;
        let mut event = EventResults::new(vec![None; players]);
        let rounds = (MAX_PLAYER_ROUNDS / players) as u64 + 1;
        for round in 0..rounds {
            event.add_game(round, 0, 1 + (round as usize % 3), Score::WhiteWin, true);
        }
        assert!(event.too_large());
        let ranked = event.rank(&[TieBreak::plain(System::Bh)]);
        assert_eq!(ranked[0].player, 0);
        assert_eq!(ranked[0].half_points, 2 * rounds as i64);
        assert!(ranked.iter().all(|r| r.values == [Value::none()]));
        assert_eq!(ranked.len(), players);
    }

    #[test]
    fn ratios_print_exactly_or_to_two_decimals() {
        assert_eq!(Ratio::new(11, 4).to_string(), "2.75");
        assert_eq!(Ratio::new(31, 6).to_string(), "5.17");
        assert_eq!(Ratio::new(-3, 2).to_string(), "-1.5");
        assert_eq!(Ratio::new(8, 2).to_string(), "4");
        assert_eq!(Ratio::new(3973, 2).round(), 1987);
        assert!(Ratio::new(1, 3) < Ratio::new(34, 100));
    }
}
