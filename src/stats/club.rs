//! The club points system (积分制): running totals exchanged game by game, and levels (级别).
//!
//! # Reading of the rules
//!
//! After each game, with `d` the absolute difference of the two totals *before* the game, the
//! winner (or, in a draw, the lower total) gains and the other side loses the same amount:
//!
//! | outcome             | d < 10 | 10 ≤ d < 100   | 100 ≤ d < 200 | d ≥ 200 |
//! |---------------------|--------|----------------|---------------|---------|
//! | draw (lower gains)  | 0      | (10 + d/10)/2  | d/4           | d/4     |
//! | lower total wins    | 10     | 10 + d/10      | d/2           | d/2     |
//! | higher total wins   | 10     | 10 − d/12.5    | 2             | 0       |
//!
//! The rules text writes the middle brackets as 10–99 and 100–199; totals need not be whole
//! numbers, so a `d` between 99 and 100 (or 199 and 200) stays in the lower bracket. "Lower"
//! means the smaller total. Everyone starts at 0 unless [`ClubConfig`] says otherwise, and
//! totals may go below zero. Games apply in chronological order (`Date`, `Round`, file order).
//!
//! # Arithmetic
//!
//! Totals are `f64`. Truly exact arithmetic is not affordable here: each game can add two
//! decimal places to a total (d/20, d/12.5 = 8d/100), so exact totals grow without bound in
//! size, and the work with them. Every table entry is a whole number, a multiple of 0.25 or a
//! decimal fraction of `d`, so an `f64` total is off by at most a few units in the last place
//! per game: far below anything displayed. To keep that error from moving a game across a
//! bracket edge (10, 100, 200), `d` is compared with the edges allowing [`EDGE_TOLERANCE`]; with
//! whole-number totals, as in the tests, every step is exact.

use std::collections::BTreeMap;
use std::fmt;

use std::io;

use super::elo::slot;
use super::{NameId, Names, RatingLog, Score};

/// How far below a bracket edge a computed `d` still counts as reaching it, absorbing binary
/// rounding of totals that are decimal fractions.
pub const EDGE_TOLERANCE: f64 = 1e-9;

/// Starting totals.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClubConfig {
    /// The total of every player not listed in `starting`; 0 by default.
    pub start: f64,
    /// Starting totals of particular players, by exact name.
    pub starting: BTreeMap<String, f64>,
}

impl ClubConfig {
    fn start_of(&self, player: &str) -> f64 {
        self.starting.get(player).copied().unwrap_or(self.start)
    }
}

/// A level (级别): none below 100 points, then 30级 at 100 up to 1级 at 3000 and above.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub enum Level {
    /// 无级别: below 100 points.
    None,
    /// n级, 30 (lowest) to 1 (highest).
    Ji(u8),
}

impl Level {
    /// The level of a total: every 100 points is one level.
    pub fn of(total: f64) -> Level {
        if total.is_nan() || total < 100.0 {
            return Level::None;
        }
        let hundreds = (total / 100.0).floor().min(30.0) as u8;
        Level::Ji(31 - hundreds)
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Level::None => f.write_str("无级别"),
            Level::Ji(n) => write!(f, "{n}级"),
        }
    }
}

/// The points White gains in one game (negative: White loses them; Black always gets the
/// negation), given both totals before the game.
pub fn white_gain(white_total: f64, black_total: f64, score: Score) -> f64 {
    let d = (white_total - black_total).abs();
    let reaches = |edge: f64| d > edge - EDGE_TOLERANCE;
    if !reaches(10.0) {
        return match score {
            Score::WhiteWin => 10.0,
            Score::Draw => 0.0,
            Score::BlackWin => -10.0,
        };
    }
    let white_is_lower = white_total < black_total;
    // What the lower total gains from the game (negative when the higher total wins).
    let lower_gain = match (score, white_is_lower) {
        (Score::Draw, _) => {
            if reaches(100.0) {
                d / 4.0
            } else {
                (10.0 + d / 10.0) / 2.0
            }
        }
        (Score::WhiteWin, true) | (Score::BlackWin, false) => {
            if reaches(100.0) {
                d / 2.0
            } else {
                10.0 + d / 10.0
            }
        }
        (Score::WhiteWin, false) | (Score::BlackWin, true) => {
            if reaches(200.0) {
                0.0
            } else if reaches(100.0) {
                -2.0
            } else {
                -(10.0 - d / 12.5)
            }
        }
    };
    if white_is_lower {
        lower_gain
    } else {
        -lower_gain
    }
}

/// A player's line in the club table.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ClubRow {
    /// The player, as named.
    pub player: String,
    /// Games counted.
    pub games: u64,
    /// Wins.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// Losses.
    pub losses: u64,
    /// The starting total.
    pub start: f64,
    /// The total after the last game.
    pub total: f64,
    /// The level of `total`.
    pub level: Level,
}

/// Replays the games of `log` in chronological order and returns every player's total,
/// highest first (then by name). Player ids are names of `names`.
///
/// # Errors
///
/// When the log cannot be read back from its store, or names a player `names` does not hold.
pub fn club_table(
    log: &mut RatingLog,
    names: &Names,
    config: &ClubConfig,
) -> io::Result<Vec<ClubRow>> {
    let mut rows: Vec<Option<ClubRow>> = vec![None; names.len()];
    log.replay(|game| {
        let (white, black, score) = (game.white(), game.black(), game.score());
        for name in [white, black] {
            slot(&mut rows, name)?.get_or_insert_with(|| {
                let player = names.get(name);
                let start = config.start_of(player);
                ClubRow {
                    player: player.to_owned(),
                    games: 0,
                    wins: 0,
                    draws: 0,
                    losses: 0,
                    start,
                    total: start,
                    level: Level::None,
                }
            });
        }
        let total = |name: NameId| rows[name.index()].as_ref().map_or(0.0, |r| r.total);
        let gain = white_gain(total(white), total(black), score);
        let sides = [
            (white, gain, score.white_half_points()),
            (black, -gain, score.black_half_points()),
        ];
        for (name, change, half_points) in sides {
            if let Some(row) = slot(&mut rows, name)?.as_mut() {
                row.total += change;
                row.games += 1;
                match half_points {
                    2 => row.wins += 1,
                    1 => row.draws += 1,
                    _ => row.losses += 1,
                }
            }
        }
        Ok(())
    })?;
    let mut rows: Vec<ClubRow> = rows.into_iter().flatten().collect();
    for row in &mut rows {
        row.level = Level::of(row.total);
    }
    rows.sort_by(|a, b| {
        b.total
            .total_cmp(&a.total)
            .then_with(|| a.player.cmp(&b.player))
    });
    Ok(rows)
}
