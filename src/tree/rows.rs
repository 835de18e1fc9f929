//! The rows of the tree: one a (position, move), summed from the sorted [`PlyRecord`]s in one
//! streaming pass (or from the rows of partial trees, `tree merge`), and their columns as
//! written ([`RowOut`]).

use serde::{Deserialize, Serialize};
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Position};

use super::record::{date_text, move_of, Packed, PlyRecord, Score};

/// One (position, move) with what its games add up to. Ratings are kept as sums and counts,
/// so that rows of partial trees add up to the rows of one run.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub key: u64,
    pub position: Packed,
    pub mv: u16,
    /// [`super::split::Split`].
    pub split: u16,
    pub games: u64,
    pub white_wins: u64,
    pub draws: u64,
    pub black_wins: u64,
    pub mover_rated: u64,
    pub mover_elo_sum: u64,
    pub opponent_rated: u64,
    pub opponent_elo_sum: u64,
    /// [`PlyRecord::date`]s: the least and the greatest known (0: none).
    pub first_date: u32,
    pub last_date: u32,
    /// The earliest game, as its input's index among the run's names and its number there.
    pub example_file: u32,
    pub example_game: u64,
    /// The place of the earliest game in the run (not written: what orders a book's moves of
    /// one weight as make-book does).
    pub first_order: u64,
}

impl Row {
    /// The row of one record.
    pub fn of(r: &PlyRecord) -> Row {
        let score = r.score;
        Row {
            key: r.key,
            position: r.position,
            mv: r.mv,
            split: r.split,
            games: 1,
            white_wins: u64::from(score == Score::WhiteWins as u8),
            draws: u64::from(score == Score::Draw as u8),
            black_wins: u64::from(score == Score::BlackWins as u8),
            mover_rated: u64::from(r.mover_elo > 0),
            mover_elo_sum: u64::from(r.mover_elo),
            opponent_rated: u64::from(r.opponent_elo > 0),
            opponent_elo_sum: u64::from(r.opponent_elo),
            first_date: r.date,
            last_date: r.date,
            example_file: r.file,
            example_game: u64::from(r.game),
            first_order: r.order,
        }
    }

    /// Where the row stands in a tree's order: by key, move and split.
    pub fn place(&self) -> Place {
        (self.key, self.mv, self.split)
    }

    /// Adds the games of `later` (the same position and move, from games after this row's):
    /// the example stays this row's.
    pub fn add(&mut self, later: &Row) {
        self.games += later.games;
        self.white_wins += later.white_wins;
        self.draws += later.draws;
        self.black_wins += later.black_wins;
        self.mover_rated += later.mover_rated;
        self.mover_elo_sum += later.mover_elo_sum;
        self.opponent_rated += later.opponent_rated;
        self.opponent_elo_sum += later.opponent_elo_sum;
        self.first_order = self.first_order.min(later.first_order);
        let known = |a: u32, b: u32, pick: fn(u32, u32) -> u32| match (a, b) {
            (0, d) | (d, 0) => d,
            (a, b) => pick(a, b),
        };
        self.first_date = known(self.first_date, later.first_date, u32::min);
        self.last_date = known(self.last_date, later.last_date, u32::max);
    }

    /// Games without a result (`*`, or none): Polyglot counts them as draws.
    pub fn unknown(&self) -> u64 {
        self.games - self.white_wins - self.draws - self.black_wins
    }

    /// The games the side to move won.
    pub fn mover_wins(&self) -> u64 {
        if self.position.white_to_move() {
            self.white_wins
        } else {
            self.black_wins
        }
    }
}

/// Sums sorted records into rows, one a (position, move), in the order of the records.
pub struct Rows {
    current: Option<Row>,
}

impl Rows {
    pub fn new() -> Rows {
        Rows { current: None }
    }

    /// Takes the next record; returns the row it completes, if it starts another.
    pub fn push(&mut self, r: &PlyRecord) -> Option<Row> {
        match &mut self.current {
            Some(row) if row.place() == (r.key, r.mv, r.split) => {
                row.add(&Row::of(r));
                None
            }
            _ => self.current.replace(Row::of(r)),
        }
    }

    /// The last row.
    pub fn finish(self) -> Option<Row> {
        self.current
    }
}

impl Default for Rows {
    fn default() -> Rows {
        Rows::new()
    }
}

/// A row as written: every column of docs/tree.md, in order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RowOut {
    /// The Polyglot key, 16 hexadecimal digits.
    pub key: String,
    pub epd: String,
    pub uci: String,
    pub san: String,
    pub games: u64,
    pub white_wins: u64,
    pub draws: u64,
    pub black_wins: u64,
    /// The average rating of the side to move over the games that give it.
    pub mover_elo: Option<f64>,
    pub mover_rated: u64,
    pub opponent_elo: Option<f64>,
    pub opponent_rated: u64,
    pub first_date: Option<String>,
    pub last_date: Option<String>,
    pub example_file: String,
    pub example_game: u64,
    /// With `--split speed`: the games' speed, as lichess names it.
    pub speed: Option<String>,
    /// With `--split rating`: the least average rating of the games' band.
    pub rating_band: Option<u16>,
}

/// Where a row stands in a tree's order: its key, move and split. The position is the key's
/// (two positions of one key, which 64 bits make practically impossible, are one position,
/// as in a Polyglot book: the first game's).
pub type Place = (u64, u16, u16);

/// The CSV header: [`RowOut`]'s fields.
pub const COLUMNS: [&str; 18] = [
    "key",
    "epd",
    "uci",
    "san",
    "games",
    "white_wins",
    "draws",
    "black_wins",
    "mover_elo",
    "mover_rated",
    "opponent_elo",
    "opponent_rated",
    "first_date",
    "last_date",
    "example_file",
    "example_game",
    "speed",
    "rating_band",
];

/// The texts of a position and a move, worked out once a row.
pub struct Texts {
    pub epd: String,
    pub uci: String,
    pub san: String,
}

/// The EPD, UCI and SAN of a row's position and move; `None` when the bytes are no position
/// or the move is not legal in it (a damaged temporary file).
pub fn texts(position: &Packed, mv: u16) -> Option<Texts> {
    let pos: Chess = position.position()?;
    let m = move_of(&pos, mv)?;
    let mut epd = String::with_capacity(64);
    crate::notation::fen::push_epd(&pos, &mut epd);
    let uci = UciMove::from_move(m, pos.castles().mode()).to_string();
    let san = SanPlus::from_move(pos, m).to_string();
    Some(Texts { epd, uci, san })
}

/// A Polyglot key as written: 16 lowercase hexadecimal digits (as `{:016x}` writes it, without
/// the formatting machinery, once a row).
pub fn key_text(key: u64) -> String {
    (0..16)
        .rev()
        .map(|nibble| char::from(b"0123456789abcdef"[(key >> (4 * nibble) & 0xf) as usize]))
        .collect()
}

impl RowOut {
    /// `row` as written; `names` are the run's inputs, which `example_file` indexes.
    pub fn of(row: &Row, texts: Texts, names: &[String]) -> RowOut {
        let average = |sum: u64, n: u64| (n > 0).then(|| sum as f64 / n as f64);
        let date = |d: u32| (d != 0).then(|| date_text(d));
        let (speed, rating_band) = super::split::columns(row.split);
        RowOut {
            key: key_text(row.key),
            epd: texts.epd,
            uci: texts.uci,
            san: texts.san,
            games: row.games,
            white_wins: row.white_wins,
            draws: row.draws,
            black_wins: row.black_wins,
            mover_elo: average(row.mover_elo_sum, row.mover_rated),
            mover_rated: row.mover_rated,
            opponent_elo: average(row.opponent_elo_sum, row.opponent_rated),
            opponent_rated: row.opponent_rated,
            first_date: date(row.first_date),
            last_date: date(row.last_date),
            example_file: names
                .get(row.example_file as usize)
                .cloned()
                .unwrap_or_default(),
            example_game: row.example_game,
            speed: speed.map(str::to_owned),
            rating_band,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::key_text;

    #[test]
    fn keys_are_written_as_the_format_machinery_writes_them() {
        for key in [0, 1, 0x463b_9618_1691_fc9c, u64::MAX, 0xf0] {
            assert_eq!(key_text(key), format!("{key:016x}"));
        }
    }
}
