//! Counts that simply add up over games: per player by colour, per opening, per termination,
//! and the run summary. Bounded by players, openings and termination kinds, not by games.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use super::{pairs, GameDate, PlayerKey, Score};
use crate::rules::outcome::{Ending, GameResult};

/// Wins, draws and losses of one side.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wdl {
    /// Wins.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// Losses.
    pub losses: u64,
}

impl Wdl {
    fn record(&mut self, half_points: u32) {
        match half_points {
            2 => self.wins += 1,
            1 => self.draws += 1,
            _ => self.losses += 1,
        }
    }

    fn merge(&mut self, other: Wdl) {
        self.wins += other.wins;
        self.draws += other.draws;
        self.losses += other.losses;
    }

    /// Games counted.
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Points in half points.
    pub fn half_points(&self) -> u64 {
        2 * self.wins + self.draws
    }
}

/// One player's finished games over the whole input.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerTally {
    /// Results with White.
    pub as_white: Wdl,
    /// Results with Black.
    pub as_black: Wdl,
    /// The earliest dated game.
    pub first_date: Option<GameDate>,
    /// The latest dated game.
    pub last_date: Option<GameDate>,
}

impl PlayerTally {
    fn see_date(&mut self, date: Option<GameDate>) {
        widen(&mut self.first_date, &mut self.last_date, date);
    }

    fn merge(&mut self, other: PlayerTally) {
        self.as_white.merge(other.as_white);
        self.as_black.merge(other.as_black);
        self.see_date(other.first_date);
        self.see_date(other.last_date);
    }

    /// Games with either colour.
    pub fn games(&self) -> u64 {
        self.as_white.games() + self.as_black.games()
    }

    /// Points in half points.
    pub fn half_points(&self) -> u64 {
        self.as_white.half_points() + self.as_black.half_points()
    }
}

/// The games of one opening.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpeningTally {
    /// All games, unfinished ones included.
    pub games: u64,
    /// `1-0`.
    pub white_wins: u64,
    /// `1/2-1/2`.
    pub draws: u64,
    /// `0-1`.
    pub black_wins: u64,
    /// Main-line plies over all games.
    pub plies: u64,
}

impl OpeningTally {
    fn merge(&mut self, other: OpeningTally) {
        self.games += other.games;
        self.white_wins += other.white_wins;
        self.draws += other.draws;
        self.black_wins += other.black_wins;
        self.plies += other.plies;
    }

    /// Finished games.
    pub fn finished(&self) -> u64 {
        self.white_wins + self.draws + self.black_wins
    }
}

/// A termination by rule met with a result tag. The texts pgnkit names (and a standard
/// result) are borrowed: a key is made for every game, and most are already in the tally.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct TerminationKey {
    /// What the rules say ended the game ([`crate::rules::outcome::Ending`]'s spelling).
    #[serde(deserialize_with = "ending_spelled")]
    pub termination: Cow<'static, str>,
    /// The result the rules allow, when they decide it.
    pub result_by_rule: Option<Cow<'static, str>>,
    /// The `Result` tag as written (empty when missing; see [`result_text`]).
    pub result: Cow<'static, str>,
    /// The `Termination` tag as written (empty when missing): how the organiser says the game
    /// ended (`Normal`, `Time forfeit`, `adjudication`...), which the rules cannot see.
    pub tag: String,
}

/// An ending as a partial file spells it, in the one spelling: parts written before the
/// spellings became one say `fivefold` for a fivefold repetition.
fn ending_spelled<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Cow<'static, str>, D::Error> {
    let spelled = String::deserialize(d)?;
    Ok(
        match Ending::parse(&spelled).or_else(|| Ending::parse_old(&spelled)) {
            Some(ending) => Cow::Borrowed(ending.as_str()),
            None => Cow::Owned(spelled),
        },
    )
}

/// A result tag's value as text to keep: the standard results (and none) borrowed, anything
/// else copied.
pub fn result_text(value: &str) -> Cow<'static, str> {
    match GameResult::of_tag(value) {
        Some(result) => Cow::Borrowed(result.as_str()),
        None if value.is_empty() => Cow::Borrowed(""),
        None => Cow::Owned(value.to_owned()),
    }
}

impl TerminationKey {
    /// Whether the result tag contradicts the result the rules allow.
    pub fn mismatch(&self) -> bool {
        self.result_by_rule
            .as_deref()
            .is_some_and(|r| r != self.result)
    }
}

/// What one game contributes to a [`Tally`].
#[derive(Debug, Clone)]
pub struct GameSummary<'a> {
    /// White as written.
    pub white: &'a str,
    /// Black as written.
    pub black: &'a str,
    /// The result; `None` for `*` and anything unreadable.
    pub score: Option<Score>,
    /// The date, if at least the year is known.
    pub date: Option<GameDate>,
    /// Main-line plies replayed.
    pub plies: u32,
    /// The opening key (ECO code or first moves).
    pub opening: &'a str,
    /// The termination by rule and the result the rules allow, with the result tag.
    pub termination: TerminationKey,
    /// The game had at least one error.
    pub has_error: bool,
    /// The main line had a move that could not be replayed.
    pub illegal: bool,
}

/// Counts over every game of an input; mergeable by addition.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Tally {
    /// Input files read.
    pub files: u64,
    /// Games read, unfinished ones included.
    pub games: u64,
    /// `1-0` games.
    pub white_wins: u64,
    /// `1/2-1/2` games.
    pub draws: u64,
    /// `0-1` games.
    pub black_wins: u64,
    /// Main-line plies over all games.
    pub plies: u64,
    /// Games with at least one error.
    pub games_with_errors: u64,
    /// Games whose main line has a move that could not be replayed.
    pub games_with_illegal_moves: u64,
    /// The earliest date of any game.
    pub first_date: Option<GameDate>,
    /// The latest date of any game.
    pub last_date: Option<GameDate>,
    /// Finished games per named player, by name (hashed: looked up twice a game, and
    /// written once, in order).
    #[serde(serialize_with = "super::sorted::serialize")]
    pub players: HashMap<String, PlayerTally>,
    /// Finished games of the unknown bucket (names empty, blank or `?`), if it played.
    pub unknown_player: Option<PlayerTally>,
    /// Games per opening key.
    #[serde(serialize_with = "super::sorted::serialize")]
    pub openings: HashMap<String, OpeningTally>,
    /// Games per termination and result tag.
    #[serde(with = "pairs")]
    pub terminations: BTreeMap<TerminationKey, u64>,
}

impl Tally {
    /// An empty tally.
    pub fn new() -> Tally {
        Tally::default()
    }

    /// Counts one game.
    pub fn add(&mut self, game: GameSummary<'_>) {
        self.games += 1;
        self.plies += u64::from(game.plies);
        self.games_with_errors += u64::from(game.has_error);
        self.games_with_illegal_moves += u64::from(game.illegal);
        widen(&mut self.first_date, &mut self.last_date, game.date);
        // Most games open a line already seen: look it up before allocating a key.
        if !self.openings.contains_key(game.opening) {
            self.openings
                .insert(game.opening.to_owned(), OpeningTally::default());
        }
        let Some(opening) = self.openings.get_mut(game.opening) else {
            return;
        };
        opening.games += 1;
        opening.plies += u64::from(game.plies);
        *self.terminations.entry(game.termination).or_default() += 1;
        let Some(score) = game.score else {
            return;
        };
        match score {
            Score::WhiteWin => {
                self.white_wins += 1;
                opening.white_wins += 1;
            }
            Score::Draw => {
                self.draws += 1;
                opening.draws += 1;
            }
            Score::BlackWin => {
                self.black_wins += 1;
                opening.black_wins += 1;
            }
        }
        let white = self.player(game.white);
        white.as_white.record(score.white_half_points());
        white.see_date(game.date);
        let black = self.player(game.black);
        black.as_black.record(score.black_half_points());
        black.see_date(game.date);
    }

    fn player(&mut self, name: &str) -> &mut PlayerTally {
        if PlayerKey::means_unknown(name) {
            return self.unknown_player.get_or_insert_with(PlayerTally::default);
        }
        // Most games are by players already seen: look the name up before allocating a key.
        if !self.players.contains_key(name) {
            self.players.insert(name.to_owned(), PlayerTally::default());
        }
        self.players.get_mut(name).expect("inserted above")
    }

    /// Every player, named ones by name, then the unknown bucket if it played.
    pub fn all_players(&self) -> impl Iterator<Item = (Option<&str>, &PlayerTally)> {
        let mut named: Vec<_> = self
            .players
            .iter()
            .map(|(name, p)| (Some(name.as_str()), p))
            .collect();
        named.sort_unstable_by_key(|&(name, _)| name);
        named
            .into_iter()
            .chain(self.unknown_player.iter().map(|p| (None, p)))
    }

    /// Takes in everything `other` counted.
    pub fn merge(&mut self, other: Tally) {
        self.files += other.files;
        self.games += other.games;
        self.white_wins += other.white_wins;
        self.draws += other.draws;
        self.black_wins += other.black_wins;
        self.plies += other.plies;
        self.games_with_errors += other.games_with_errors;
        self.games_with_illegal_moves += other.games_with_illegal_moves;
        widen(&mut self.first_date, &mut self.last_date, other.first_date);
        widen(&mut self.first_date, &mut self.last_date, other.last_date);
        for (key, player) in other.players {
            self.players.entry(key).or_default().merge(player);
        }
        if let Some(player) = other.unknown_player {
            self.unknown_player
                .get_or_insert_with(PlayerTally::default)
                .merge(player);
        }
        for (key, opening) in other.openings {
            self.openings.entry(key).or_default().merge(opening);
        }
        for (key, n) in other.terminations {
            *self.terminations.entry(key).or_default() += n;
        }
    }

    /// Finished games.
    pub fn finished(&self) -> u64 {
        self.white_wins + self.draws + self.black_wins
    }
}

/// Stretches the range `first ..= last` to include `date`.
fn widen(first: &mut Option<GameDate>, last: &mut Option<GameDate>, date: Option<GameDate>) {
    let Some(date) = date else {
        return;
    };
    if first.is_none_or(|f| date < f) {
        *first = Some(date);
    }
    if last.is_none_or(|l| date > l) {
        *last = Some(date);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_written_before_the_one_spelling_merges_with_one_written_after() {
        let key = |termination: &str| -> TerminationKey {
            let json = format!(
                r#"{{"termination":"{termination}","result_by_rule":"1/2-1/2","result":"1/2-1/2","tag":""}}"#
            );
            serde_json::from_str(&json).unwrap()
        };
        assert_eq!(key("fivefold"), key("fivefold repetition"));
        assert_eq!(key("fivefold").termination, "fivefold repetition");
        // A spelling pgnkit never wrote is kept as it is.
        assert_eq!(key("adjourned").termination, "adjourned");
    }
}
