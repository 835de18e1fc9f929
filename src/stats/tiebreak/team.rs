//! Team tables under C.07: match points (2 for a match won, 1 drawn, 0 lost, the match
//! decided by the sum of its boards' game points), game points, and the team tie-breaks
//! that the boards' results determine, the board-by-board ones (C.07 12) among them: a
//! board's number is its `Board` tag, or its place among the match's games as read.
//!
//! A match is every board played between two teams in one round. The individual systems
//! that carry over to teams (direct encounter, wins, progressive scores, the Buchholz family,
//! Sonneborn-Berger, Koya) are computed by [`EventResults`] with each match as one game whose
//! result is the match's, so the unplayed-round rules are the players' rules (C.07 16): a
//! round in which a team has no match is an absence, and a match of which no board was
//! played over the board is a forfeited match. Their values are in match points.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::str::FromStr;

use super::{Column, EventResults, Ratio, System, TieBreak, Value};
use crate::stats::standings::Place;
use crate::stats::Score;

/// Which score a team system reads: match points or game points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Points {
    /// 2 for a match won, 1 drawn, 0 lost.
    Match,
    /// The sum of the boards' points.
    Game,
}

impl Points {
    fn letter(self) -> char {
        match self {
            Points::Match => 'M',
            Points::Game => 'G',
        }
    }
}

/// One tie-break of a team table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TeamTieBreak {
    /// `GP`: game points, the sum of the points of every board of every match.
    GamePoints,
    /// `EMGSB`, `EGMSB`, `EGGSB`, `EMMSB`: a Sonneborn-Berger of the team table, the sum
    /// over the rounds of the opponent's total (`opponents`: the first letter) times the
    /// team's own score in that match (`own`: the second letter). `EMGSB` is the Olympiad
    /// Sonneborn-Berger: opponents' match points times the game points scored against them.
    Esb {
        /// The opponent's total: match or game points.
        opponents: Points,
        /// The team's score in the match: match or game points.
        own: Points,
    },
    /// `BC`, board count (C.07 12.1): the sum over the boards of the board number times the
    /// game points the team scored on that board; the lower ranks first (points on the top
    /// boards weigh least), as the FIDE Tie-Break Server ranks it.
    BoardCount,
    /// `TBR`, top-board result (C.07 12.2): the game points scored on board 1 over the event,
    /// then, among those still tied, on board 2, and so on.
    TopBoard,
    /// `BBE`, bottom-board elimination (C.07 12.3): the game points without the bottom
    /// board, then, among those still tied, without the two bottom boards, and so on.
    BottomBoard,
    /// An individual system computed on match points.
    Individual(TieBreak),
}

/// The individual systems a team table takes, and the factor that turns their value on
/// half-match-point units (what [`EventResults`] counts: a match won is its "1-0") into
/// match points: sums of points count once, products of points twice.
fn match_point_factor(system: System) -> Option<i64> {
    match system {
        System::Win => Some(1),
        System::De | System::Ps | System::Bh | System::Aob | System::Fb | System::Ks => Some(2),
        System::Sb => Some(4),
        _ => None,
    }
}

impl fmt::Display for TeamTieBreak {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TeamTieBreak::GamePoints => f.write_str("GP"),
            TeamTieBreak::BoardCount => f.write_str("BC"),
            TeamTieBreak::TopBoard => f.write_str("TBR"),
            TeamTieBreak::BottomBoard => f.write_str("BBE"),
            TeamTieBreak::Esb { opponents, own } => {
                write!(f, "E{}{}SB", opponents.letter(), own.letter())
            }
            TeamTieBreak::Individual(tb) => tb.fmt(f),
        }
    }
}

/// A team tie-break name that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TeamTieBreakError {
    name: String,
    problem: String,
}

impl fmt::Display for TeamTieBreakError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "team tie-break `{}`: {}; team tie-breaks are GP, EMGSB, EGMSB, EGGSB, EMMSB, BC, \
             TBR, BBE and, on match points, DE, WIN, PS, BH, AOB, FB, SB, KS with their \
             modifiers (e.g. BH-C1)",
            self.name, self.problem
        )
    }
}

impl std::error::Error for TeamTieBreakError {}

impl FromStr for TeamTieBreak {
    type Err = TeamTieBreakError;

    fn from_str(name: &str) -> Result<TeamTieBreak, TeamTieBreakError> {
        let error = |problem: String| TeamTieBreakError {
            name: name.to_owned(),
            problem,
        };
        let upper = name.trim().to_ascii_uppercase();
        match upper.as_str() {
            "GP" => return Ok(TeamTieBreak::GamePoints),
            "BC" => return Ok(TeamTieBreak::BoardCount),
            "TBR" => return Ok(TeamTieBreak::TopBoard),
            "BBE" => return Ok(TeamTieBreak::BottomBoard),
            _ => {}
        }
        let letter = |b: u8| match b {
            b'M' => Some(Points::Match),
            b'G' => Some(Points::Game),
            _ => None,
        };
        if let [b'E', o, s, b'S', b'B'] = *upper.as_bytes() {
            if let (Some(opponents), Some(own)) = (letter(o), letter(s)) {
                return Ok(TeamTieBreak::Esb { opponents, own });
            }
        }
        let tb: TieBreak = upper.parse().map_err(|e: super::TieBreakError| {
            // The individual message lists systems teams do not take: say only the problem.
            let text = e.to_string();
            let problem = text
                .split_once(": ")
                .map_or(text.as_str(), |(_, rest)| rest)
                .split("; known")
                .next()
                .unwrap_or_default()
                .to_owned();
            error(problem)
        })?;
        if match_point_factor(tb.system).is_none() {
            return Err(error(format!(
                "{} is not a team tie-break",
                tb.system.acronym()
            )));
        }
        Ok(TeamTieBreak::Individual(tb))
    }
}

/// An ordered list of team tie-breaks, read from `DE,GP,SB` (what `--team-tiebreaks` takes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TeamTieBreakList(pub Vec<TeamTieBreak>);

impl FromStr for TeamTieBreakList {
    type Err = TeamTieBreakError;

    fn from_str(list: &str) -> Result<TeamTieBreakList, TeamTieBreakError> {
        list.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::parse)
            .collect::<Result<_, _>>()
            .map(TeamTieBreakList)
    }
}

/// One match's boards, summed, for the lower- and the higher-numbered team.
#[derive(Debug, Clone, Default)]
struct Match {
    /// Game points of each side, in half points.
    half: [i64; 2],
    /// Whether some board was played over the board.
    played: bool,
    /// Each board's number and the game points of each side on it, in half points.
    boards: Vec<(u32, [i64; 2])>,
}

/// One event's team matches.
#[derive(Debug, Clone, Default)]
pub struct TeamEvent {
    names: Vec<String>,
    /// (round, lower team, higher team) → the match.
    matches: BTreeMap<(u64, usize, usize), Match>,
}

/// A team's line in the team table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TeamRanked {
    /// The team, as tagged.
    pub team: String,
    /// The place; teams equal on match points and every tie-break share it.
    pub place: Option<Place>,
    /// Matches, matches won, drawn, lost.
    pub matches: [u64; 4],
    /// Match points.
    pub match_points: i64,
    /// Each requested tie-break's value, in the list's order.
    pub values: Vec<Value>,
}

impl TeamEvent {
    /// An event whose teams are `names`, by index, without matches yet.
    pub fn new(names: Vec<String>) -> TeamEvent {
        TeamEvent {
            names,
            matches: BTreeMap::new(),
        }
    }

    /// One board of the match of round `round` between `white_team` (the team of the
    /// board's White) and `black_team`; `played` is false for a board decided by forfeit.
    /// `board` is the board's number as tagged (`Board`); without one (or with 0) the board
    /// is numbered by its place among the match's boards so far.
    pub fn add_board(
        &mut self,
        round: u64,
        white_team: usize,
        black_team: usize,
        score: Score,
        played: bool,
        board: Option<u32>,
    ) {
        let n = self.names.len();
        if white_team >= n || black_team >= n || white_team == black_team {
            return;
        }
        let (lo, hi) = (white_team.min(black_team), white_team.max(black_team));
        let m = self.matches.entry((round, lo, hi)).or_default();
        let white_side = usize::from(white_team != lo);
        let mut half = [0; 2];
        half[white_side] = i64::from(score.white_half_points());
        half[1 - white_side] = i64::from(score.black_half_points());
        m.half[0] += half[0];
        m.half[1] += half[1];
        m.played |= played;
        let number = board
            .filter(|&b| b > 0)
            .unwrap_or_else(|| u32::try_from(m.boards.len() + 1).unwrap_or(u32::MAX));
        m.boards.push((number, half));
    }

    /// Whether the event has a team match.
    pub fn is_empty(&self) -> bool {
        self.matches.is_empty()
    }

    /// The team table: by match points, then by `list` in order, then by name. Teams
    /// without a match are not listed.
    pub fn rank(&self, list: &[TeamTieBreak]) -> Vec<TeamRanked> {
        // Only teams with a match take part: index them in name order, so that teams equal
        // on everything are listed by name.
        let mut active: Vec<usize> = self
            .matches
            .keys()
            .flat_map(|&(_, a, b)| [a, b])
            .collect::<BTreeSet<usize>>()
            .into_iter()
            .collect();
        active.sort_by(|&a, &b| self.names[a].cmp(&self.names[b]));
        let index: HashMap<usize, usize> =
            active.iter().enumerate().map(|(i, &t)| (t, i)).collect();
        let n = active.len();
        let mut results = EventResults::new(vec![None; n]);
        let mut record = vec![[0u64; 4]; n];
        let mut mp = vec![0i64; n];
        let mut gp = vec![0i64; n];
        let mut rounds: Vec<Vec<Round>> = vec![Vec::new(); n];
        let all_rounds: BTreeSet<u64> = self.matches.keys().map(|k| k.0).collect();
        // Each team's game points by board number, in half points.
        let mut by_board: Vec<BTreeMap<u32, i64>> = vec![BTreeMap::new(); n];
        for (&(_, a, b), m) in &self.matches {
            for &(board, half) in &m.boards {
                *by_board[index[&a]].entry(board).or_default() += half[0];
                *by_board[index[&b]].entry(board).or_default() += half[1];
            }
        }
        let boards: BTreeSet<u32> = by_board.iter().flat_map(|b| b.keys().copied()).collect();
        // A value a team as long as the event has boards: board numbers come from the input,
        // so an event of more team-boards than player-rounds are ranked for gets none.
        let boards_fit = boards.len().saturating_mul(n) <= super::MAX_PLAYER_ROUNDS;
        for (&(round, a, b), m) in &self.matches {
            let (a, b) = (index[&a], index[&b]);
            let score = match m.half[0].cmp(&m.half[1]) {
                Ordering::Greater => Score::WhiteWin,
                Ordering::Less => Score::BlackWin,
                Ordering::Equal => Score::Draw,
            };
            results.add_game(round, a, b, score, m.played);
            for (me, them, half, my_mp) in [
                (a, b, m.half[0], i64::from(score.white_half_points())),
                (b, a, m.half[1], i64::from(score.black_half_points())),
            ] {
                let r = &mut record[me];
                r[0] += 1;
                r[1 + (2 - my_mp as usize)] += 1;
                mp[me] += my_mp;
                gp[me] += half;
                rounds[me].push((round, m.played.then_some(them), my_mp, half));
            }
        }
        let columns: Vec<Column> = list
            .iter()
            .map(|tb| match *tb {
                TeamTieBreak::GamePoints => Column::Given {
                    values: gp.iter().map(|&h| Value::of(Ratio::new(h, 2))).collect(),
                    lower_first: false,
                },
                TeamTieBreak::Esb { opponents, own } => Column::Given {
                    values: (0..n)
                        .map(|t| esb(t, &rounds[t], &all_rounds, &mp, &gp, opponents, own).into())
                        .collect(),
                    lower_first: false,
                },
                TeamTieBreak::BoardCount => Column::Given {
                    values: by_board.iter().map(board_count).collect(),
                    lower_first: true,
                },
                TeamTieBreak::TopBoard | TeamTieBreak::BottomBoard => Column::Given {
                    values: by_board
                        .iter()
                        .zip(&gp)
                        .map(|(points, &gp)| {
                            let top = *tb == TeamTieBreak::TopBoard;
                            if boards_fit {
                                board_by_board(points, &boards, gp, top)
                            } else {
                                Value::none()
                            }
                        })
                        .collect(),
                    lower_first: false,
                },
                TeamTieBreak::Individual(tb) => Column::System(tb),
            })
            .collect();
        results
            .rank_columns(&columns)
            .into_iter()
            .map(|row| TeamRanked {
                team: self.names[active[row.player]].clone(),
                place: row.place,
                matches: record[row.player],
                match_points: row.half_points,
                values: row
                    .values
                    .iter()
                    .zip(list)
                    .map(|(v, tb)| match tb {
                        TeamTieBreak::Individual(tb) => {
                            v.scaled(match_point_factor(tb.system).unwrap_or(1))
                        }
                        _ => v.clone(),
                    })
                    .collect(),
            })
            .collect()
    }
}

/// Board count: the sum of each board's number times the team's game points on it; none
/// when it does not fit (board numbers are the input's).
fn board_count(points: &BTreeMap<u32, i64>) -> Value {
    let mut sum = Some(0i64);
    for (&board, &half) in points {
        sum = sum.and_then(|s| s.checked_add(i64::from(board).checked_mul(half)?));
    }
    sum.map(|s| Ratio::new(s, 2)).into()
}

/// Top-board result (`top`): the game points on each board of the event, board 1 first; or
/// bottom-board elimination: the game points `gp` without the bottom board, without the
/// two bottom boards, and so on to board 1 alone. A board the team has no game on counts 0.
fn board_by_board(
    points: &BTreeMap<u32, i64>,
    boards: &BTreeSet<u32>,
    gp: i64,
    top: bool,
) -> Value {
    let on = |b: &u32| points.get(b).copied().unwrap_or(0);
    if top {
        return Value::seq(boards.iter().map(|b| Ratio::new(on(b), 2)));
    }
    let mut left = gp;
    Value::seq(
        boards
            .iter()
            .rev()
            .take(boards.len().saturating_sub(1))
            .map(|b| {
                left -= on(b);
                Ratio::new(left, 2)
            }),
    )
}

/// A team's match in a round: (round, the opponent if the match was played, own match
/// points, own game points in half points).
type Round = (u64, Option<usize>, i64, i64);

/// A team Sonneborn-Berger of team `t`: per round, the opponent's total times the team's
/// score in the match; a round without a match played (a forfeited match, an absence)
/// counts against a dummy opponent with the team's own total, as for players (C.07 16).
fn esb(
    t: usize,
    played: &[Round],
    all_rounds: &BTreeSet<u64>,
    mp: &[i64],
    gp: &[i64],
    opponents: Points,
    own: Points,
) -> Option<Ratio> {
    // Totals and scores as (numerator, denominator): match points whole, game points halves.
    let total = |team: usize| match opponents {
        Points::Match => (mp[team], 1),
        Points::Game => (gp[team], 2),
    };
    let score = |my_mp: i64, my_half: i64| match own {
        Points::Match => (my_mp, 1),
        Points::Game => (my_half, 2),
    };
    let by_round: HashMap<u64, &Round> = played.iter().map(|e| (e.0, e)).collect();
    let mut sum = Ratio::int(0);
    for round in all_rounds {
        let (opponent_total, my_score) = match by_round.get(round) {
            Some(&&(_, Some(o), my_mp, my_half)) => (total(o), score(my_mp, my_half)),
            Some(&&(_, None, my_mp, my_half)) => (total(t), score(my_mp, my_half)),
            None => (total(t), (0, 1)),
        };
        let term = Ratio::new(
            opponent_total.0.checked_mul(my_score.0)?,
            opponent_total.1 * my_score.1,
        );
        sum = sum.checked_add(term)?;
    }
    Some(sum)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn team_names_parse_and_refuse_what_teams_do_not_take() {
        let list: TeamTieBreakList = "DE, gp,EMGSB,BH-C1,SB,eggsb,bc,TBR,bbe".parse().unwrap();
        let shown: Vec<String> = list.0.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            ["DE", "GP", "EMGSB", "BH-C1", "SB", "EGGSB", "BC", "TBR", "BBE"]
        );
        for (name, problem) in [
            ("ARO", "ARO is not a team tie-break"),
            ("XYZ", "unknown system `XYZ`"),
            ("EXGSB", "unknown system `EXGSB`"),
            ("BH-C3", "unknown modifier `C3`"),
        ] {
            let err = name.parse::<TeamTieBreak>().unwrap_err().to_string();
            assert!(err.contains(problem), "{name}: {err}");
            assert!(err.contains("team tie-breaks are GP, EMGSB"), "{err}");
            assert!(!err.contains("APPO"), "{err}");
        }
    }

    /// Two teams, two rounds: A wins round 1 2½–1½ and is absent in round 2, where B
    /// plays C to a 2–2 draw. A's round 2 counts against a dummy with A's own total.
    #[test]
    fn a_match_is_decided_by_its_boards_and_an_absent_round_meets_a_dummy() {
        let mut event = TeamEvent::new(vec!["A".into(), "B".into(), "C".into()]);
        for (w, b, score) in [
            (0, 1, Score::WhiteWin),
            (1, 0, Score::Draw),
            (0, 1, Score::Draw),
            (1, 0, Score::Draw),
        ] {
            event.add_board(1, w, b, score, true, None);
        }
        for score in [Score::WhiteWin, Score::BlackWin, Score::Draw, Score::Draw] {
            event.add_board(2, 1, 2, score, true, None);
        }
        let ranked = event.rank(&[
            TeamTieBreak::GamePoints,
            TeamTieBreak::Individual(TieBreak::plain(System::Bh)),
            TeamTieBreak::Esb {
                opponents: Points::Match,
                own: Points::Game,
            },
        ]);
        let rows: Vec<(String, i64, [u64; 4], Vec<String>)> = ranked
            .iter()
            .map(|r| {
                (
                    r.team.clone(),
                    r.match_points,
                    r.matches,
                    r.values.iter().map(|v| v.to_string()).collect(),
                )
            })
            .collect();
        // A: 2 MP, 2.5 GP; BH = B's 1 + a dummy with A's 2; EMGSB = 1 · 2.5 + 2 · 0.
        // B: 1 MP, 3.5 GP; BH = A 3 (2, and its absence after its last match counts as a
        // drawn match for its opponents, C.07 16.3.2) + C 1; EMGSB = 2 · 1.5 + 1 · 2.
        // C: 1 MP, 2 GP; BH = a dummy with C's 1 + B 1; EMGSB = 1 · 0 + 1 · 2.
        assert_eq!(
            rows,
            [
                (
                    "A".into(),
                    2,
                    [1, 1, 0, 0],
                    vec!["2.5".into(), "3".into(), "2.5".into()]
                ),
                (
                    "B".into(),
                    1,
                    [2, 0, 1, 1],
                    vec!["3.5".into(), "4".into(), "5".into()]
                ),
                (
                    "C".into(),
                    1,
                    [1, 0, 1, 0],
                    vec!["2".into(), "2".into(), "2".into()]
                ),
            ]
        );
    }

    /// A match of which every board was forfeited is a round not played for both teams:
    /// Buchholz and the team Sonneborn-Berger count a dummy with the team's own total for
    /// it, as for an absence; the winner still counts the match won.
    #[test]
    fn a_match_forfeited_on_every_board_is_an_unplayed_round() {
        let mut event = TeamEvent::new(vec!["A".into(), "B".into(), "C".into()]);
        for _ in 0..4 {
            event.add_board(1, 0, 1, Score::WhiteWin, false, None);
        }
        for score in [Score::WhiteWin, Score::BlackWin, Score::Draw, Score::Draw] {
            event.add_board(2, 2, 0, score, true, None);
        }
        let ranked = event.rank(&[
            TeamTieBreak::Individual(TieBreak::plain(System::Bh)),
            TeamTieBreak::Esb {
                opponents: Points::Match,
                own: Points::Game,
            },
            TeamTieBreak::Individual(TieBreak::plain(System::Win)),
        ]);
        let rows: Vec<(String, i64, Vec<String>)> = ranked
            .iter()
            .map(|r| {
                (
                    r.team.clone(),
                    r.match_points,
                    r.values.iter().map(|v| v.to_string()).collect(),
                )
            })
            .collect();
        // A: 3 MP; BH = a dummy with A's 3 + C's 1; EMGSB = 3 · 4 + 1 · 2; one match won.
        // C: 1 MP; BH = a dummy with C's 1 (absent) + A's 3; EMGSB = 1 · 0 + 3 · 2.
        // B: 0 MP, absent in round 2: dummies with B's 0.
        let row = |t: &str, mp, v: [&str; 3]| (t.to_owned(), mp, v.map(str::to_owned).to_vec());
        assert_eq!(
            rows,
            [
                row("A", 3, ["4", "14", "1"]),
                row("C", 1, ["4", "6", "0"]),
                row("B", 0, ["0", "0", "0"]),
            ]
        );
    }
}
