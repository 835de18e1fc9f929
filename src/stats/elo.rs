//! FIDE-style Elo ratings replayed game by game over a database.
//!
//! # Choices
//!
//! - Expected score `E = 1 / (1 + 10^(−D/400))`, `D` capped at ±400 as FIDE does.
//! - A player starts from the `WhiteElo`/`BlackElo` tag of their chronologically first game
//!   that has one, else from [`EloConfig::default_rating`] (1500).
//! - K follows FIDE: 40 while a *new* player has fewer than 30 games counted here, 20 below
//!   2400, 10 once the rating has reached 2400, staying 10 even if it drops back (FIDE's
//!   "once reached" rule). A player who starts from a tag is an established, rated player and
//!   never gets the new-player K unless [`EloConfig::tagged_players_are_new`] is set; only
//!   players starting from the default are new. The under-18 K and the 700 cap on K·n per
//!   period are not applied: PGN carries no ages and a database has no rating periods.
//! - Each game updates both players at once from their ratings before it, and ratings are not
//!   rounded (FIDE rounds a period's change; a game-by-game replay has no periods).
//! - Games apply in chronological order: `Date`, `Round`, file order.

use std::io;

use super::{NameId, Names, RatingLog};

/// Settings for the replay.
#[derive(Debug, Clone, PartialEq)]
pub struct EloConfig {
    /// The rating of a player no game tags; 1500 by default.
    pub default_rating: f64,
    /// Games a new player plays with K = 40; 30 by default.
    pub new_player_games: u64,
    /// Treat players whose start came from a tag as new as well; off by default.
    pub tagged_players_are_new: bool,
}

impl Default for EloConfig {
    fn default() -> EloConfig {
        EloConfig {
            default_rating: 1500.0,
            new_player_games: 30,
            tagged_players_are_new: false,
        }
    }
}

/// The rating difference beyond which FIDE counts no further.
pub(crate) const MAX_DIFFERENCE: f64 = 400.0;

/// The rating from which K drops to 10 for good.
pub(crate) const K10_FROM: f64 = 2400.0;

/// The expected score of a player rated `rating` against one rated `opponent`.
pub fn expected_score(rating: f64, opponent: f64) -> f64 {
    let d = (rating - opponent).clamp(-MAX_DIFFERENCE, MAX_DIFFERENCE);
    1.0 / (1.0 + 10f64.powf(-d / 400.0))
}

/// A player's line in the Elo table, and the state the replay carries.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct EloRow {
    /// The player, as named.
    pub player: String,
    /// The starting rating.
    pub start: f64,
    /// Whether `start` came from a tag (else from the default).
    pub start_from_tag: bool,
    /// The rating after the last game.
    pub rating: f64,
    /// Games counted.
    pub games: u64,
    /// Whether the rating has ever been 2400 or more (K stays 10 from then on).
    pub reached_k10: bool,
    /// Whether the player counts as new (K = 40 for the first games).
    pub new_player: bool,
}

impl EloRow {
    /// The K the player's next game would use.
    pub fn k(&self, config: &EloConfig) -> f64 {
        if self.new_player && self.games < config.new_player_games {
            40.0
        } else if self.reached_k10 {
            10.0
        } else {
            20.0
        }
    }
}

/// Replays the games of `log` in chronological order and returns every player's rating,
/// highest first (then by name). Player ids are names of `names`.
///
/// # Errors
///
/// When the log cannot be read back from its store, or names a player `names` does not hold.
pub fn elo_table(
    log: &mut RatingLog,
    names: &Names,
    config: &EloConfig,
) -> io::Result<Vec<EloRow>> {
    // First pass: starting ratings, from the first game that tags each player.
    let mut rows: Vec<Option<EloRow>> = vec![None; names.len()];
    log.replay(|game| {
        for (name, tag) in [
            (game.white(), game.white_elo()),
            (game.black(), game.black_elo()),
        ] {
            let row = slot(&mut rows, name)?.get_or_insert_with(|| EloRow {
                player: names.get(name).to_owned(),
                start: config.default_rating,
                start_from_tag: false,
                rating: config.default_rating,
                games: 0,
                reached_k10: false,
                new_player: true,
            });
            if let (false, Some(elo)) = (row.start_from_tag, tag) {
                row.start = f64::from(elo);
                row.rating = row.start;
                row.start_from_tag = true;
                row.new_player = config.tagged_players_are_new;
            }
        }
        Ok(())
    })?;
    for row in rows.iter_mut().flatten() {
        row.reached_k10 = row.start >= K10_FROM;
    }

    log.replay(|game| {
        let (white_rating, white_k) = rating_and_k(&rows, game.white(), config);
        let (black_rating, black_k) = rating_and_k(&rows, game.black(), config);
        let white_score = game.score().white_score();
        let white_change = white_k * (white_score - expected_score(white_rating, black_rating));
        let black_change =
            black_k * ((1.0 - white_score) - expected_score(black_rating, white_rating));
        for (name, change) in [(game.white(), white_change), (game.black(), black_change)] {
            if let Some(row) = slot(&mut rows, name)?.as_mut() {
                row.rating += change;
                row.games += 1;
                row.reached_k10 |= row.rating >= K10_FROM;
            }
        }
        Ok(())
    })?;

    let mut rows: Vec<EloRow> = rows.into_iter().flatten().collect();
    rows.sort_by(|a, b| {
        b.rating
            .total_cmp(&a.rating)
            .then_with(|| a.player.cmp(&b.player))
    });
    Ok(rows)
}

/// The row of a player, an error for an id outside the table.
pub(crate) fn slot<T>(rows: &mut [Option<T>], player: NameId) -> io::Result<&mut Option<T>> {
    rows.get_mut(player.index()).ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            "a rated game names a player the accumulator does not hold",
        )
    })
}

/// A player's rating and K before a game (every player of the log has a row after the first
/// pass).
fn rating_and_k(rows: &[Option<EloRow>], player: NameId, config: &EloConfig) -> (f64, f64) {
    rows.get(player.index())
        .and_then(Option::as_ref)
        .map_or((config.default_rating, 0.0), |row| {
            (row.rating, row.k(config))
        })
}
