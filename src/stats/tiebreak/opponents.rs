//! Buchholz and Sonneborn-Berger: the one definition of each, for C.07's tie-breaks and for
//! the standings' plain 小分 and 对手分, and the rules on which the two differ.
//!
//! Both systems add one term per meeting with an opponent: Buchholz the opponent's points
//! once per game, Sonneborn-Berger the opponent's points times the points scored against
//! them. A term is linear in the games, so the games of a pair of players add up to one
//! [`Meeting`]: the standings feed sums per pair ([`PairSums`]), in memory by the players,
//! while C.07 feeds one meeting per round ([`EventResults`](super::EventResults)), which its
//! Cut and Median modifiers need.
//!
//! Where the standings' sums and C.07 differ, and how each difference is decided:
//!
//! - unplayed rounds: C.07 counts a round without a game over the board (a bye, a forfeit,
//!   an absence) as a game against a dummy opponent with the participant's own points
//!   (16.4); the standings read no rounds, so no round is unplayed and nothing is added for
//!   one ([`Rules::dummy_opponents`]);
//! - forfeits: C.07 counts a game decided by forfeit as an unplayed round for both sides
//!   (16.2); the standings count every finished game as played, against its opponent
//!   ([`Rules::forfeits_unplayed`]);
//! - opponents' points: C.07 counts the rounds a player had no opponent after withdrawing as
//!   draws (16.3.2); the standings count points as scored ([`Rules::withdrawal_draws`]);
//! - a game whose two sides are one player: the standings count it for both sides, as the
//!   file has it; C.07 leaves it out ([`Rules::self_games`]);
//! - repeat meetings: both count every game, whatever its round; C.07 numbers rounds and
//!   fills a round without a record with an absence, the standings ignore rounds (so two
//!   games of one pair in one round count twice in both);
//! - byes: C.07's input turns a side named `bye` into the other side's bye; the standings'
//!   input has no byes, a side named `bye` is a player (the input decides, not these rules);
//! - cuts: C.07's Cut and Median modifiers drop terms (voluntary unplayed rounds first,
//!   16.5); the standings cut nothing ([`Cut::None`](super::Cut::None)), which is what lets
//!   their terms be added up per pair;
//! - size: C.07 gives no values to an event of more than
//!   [`MAX_PLAYER_ROUNDS`](super::MAX_PLAYER_ROUNDS) player-rounds (it keeps every player's
//!   rounds); the standings' sums cost memory by the players only and always have values;
//! - units: both are exact, Buchholz in half points and Sonneborn-Berger in quarter points
//!   (C.07 shows them as [`Ratio`](super::Ratio)s);
//! - ranking (not part of the sums): the standings break a tie on points by one system, SB
//!   for a round robin and BH for a Swiss, then list by name; C.07 by the list in order,
//!   then by player index. Both share a place between players equal on points and values.

use super::Term;

/// The rules Buchholz and Sonneborn-Berger are counted by: C.07's ([`Rules::C07`]) or the
/// standings' plain sums ([`Rules::PLAIN`]). See the [module docs](self) for each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rules {
    /// A round not played over the board adds a game against a dummy opponent with the
    /// participant's own points (C.07 16.4); without, it adds nothing.
    pub dummy_opponents: bool,
    /// A game decided by forfeit is an unplayed round for both sides (C.07 16.2); without,
    /// every game counts as played, against its opponent.
    pub forfeits_unplayed: bool,
    /// Opponents' points count their rounds without an opponent after they withdrew as
    /// draws (C.07 16.3.2); without, points as scored.
    pub withdrawal_draws: bool,
    /// A game whose two sides are one player counts, for both sides; without, it is left
    /// out.
    pub self_games: bool,
}

impl Rules {
    /// FIDE Handbook C.07, as the FIDE Tie-Break Server applies it.
    pub const C07: Rules = Rules {
        dummy_opponents: true,
        forfeits_unplayed: true,
        withdrawal_draws: true,
        self_games: false,
    };

    /// The standings' 小分 and 对手分: every finished game counts, as played, against its
    /// opponent's points as scored.
    pub const PLAIN: Rules = Rules {
        dummy_opponents: false,
        forfeits_unplayed: false,
        withdrawal_draws: false,
        self_games: true,
    };
}

impl Default for Rules {
    fn default() -> Rules {
        Rules::C07
    }
}

/// A participant's games against one opponent (or one unplayed round, against C.07's
/// dummy): what Buchholz and Sonneborn-Berger add for them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Meeting {
    /// Games: 1 for a round, a pair's games for sums per pair.
    pub games: i64,
    /// Half points the participant scored in them.
    pub half: i64,
    /// The opponent's points, in half points, as the rules count them.
    pub opponent: i64,
    /// From a voluntary unplayed round (C.07 16.5), which a cut takes first.
    pub voluntary: bool,
}

impl Meeting {
    /// Its Buchholz term, in half points: the opponent's points once a game.
    pub fn buchholz(self) -> Term {
        Term::of(self.voluntary, self.opponent, self.games * self.opponent)
    }

    /// Its Sonneborn-Berger term, in quarter points: a win takes the opponent's points
    /// whole, a draw half (the points scored, in half points, times theirs).
    pub fn sonneborn_berger(self) -> Term {
        Term::of(self.voluntary, self.opponent, self.half * self.opponent)
    }
}

/// Buchholz (in half points) and Sonneborn-Berger (in quarter points) without a cut.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Sums {
    pub buchholz: i64,
    pub sonneborn_berger: i64,
}

impl Sums {
    fn add(&mut self, meeting: Meeting) {
        self.buchholz += meeting.buchholz().value;
        self.sonneborn_berger += meeting.sonneborn_berger().value;
    }
}

/// Buchholz and Sonneborn-Berger under [`Rules::PLAIN`] from sums per ordered pair of
/// players (White, Black), which come in any order and need not all be at hand: every
/// player's points first, then each pair's games. Memory by the players; reused event after
/// event ([`PairSums::start`]), as most events are a game or two.
#[derive(Debug, Clone, Default)]
pub(crate) struct PairSums {
    points: Vec<i64>,
    sums: Vec<Sums>,
}

impl PairSums {
    /// Starts over for players `0 ..` with these final points, in half points.
    pub fn start(&mut self, points: impl Iterator<Item = i64>) {
        // A large event's vectors are let go, so that it does not weigh on the small ones.
        if self.points.capacity() > 1024 {
            *self = PairSums::default();
        }
        self.points.clear();
        self.points.extend(points);
        self.sums.clear();
        self.sums.resize(self.points.len(), Sums::default());
    }

    /// `games` games with `white` as White and `black` as Black, White scoring
    /// `white_half` half points of them. Players out of range are ignored.
    pub fn add(&mut self, white: usize, black: usize, games: i64, white_half: i64) {
        let (Some(&white_points), Some(&black_points)) =
            (self.points.get(white), self.points.get(black))
        else {
            return;
        };
        let meeting = |half: i64, opponent: i64| Meeting {
            games,
            half,
            opponent,
            voluntary: false,
        };
        self.sums[white].add(meeting(white_half, black_points));
        self.sums[black].add(meeting(2 * games - white_half, white_points));
    }

    /// Player `p`'s sums (zero for a player out of range).
    pub fn get(&self, p: usize) -> Sums {
        self.sums.get(p).copied().unwrap_or_default()
    }
}
