//! Opening classification: a table of named positions (lichess's chess-openings by default)
//! and the rule that names a game's opening, its deepest named position on the main line.
//!
//! Positions are compared as EPD: the board, the side to move, the castling rights and the en
//! passant square only when an en passant capture is legal. So a line reached by another move
//! order (a transposition) gets the same name, and the same board with the other side to move
//! does not. A position is found by its Zobrist hash, then compared in full, so two positions
//! that share a hash are told apart.
//!
//! The classification is plain data: [`Classifier`] is told the start position and every
//! position after a main-line move; [`EcoObserver`] is the same classifier as a
//! [`Visitor`](crate::rules::visit::Visitor) of the replay; [`classify`] names the
//! opening of a start position and a list of moves.

mod observer;
mod table;

use std::sync::OnceLock;

use shakmaty::zobrist::Zobrist64;
use shakmaty::{Bitboard, Board, Chess, Color, EnPassantMode, Move, Position, Rank, Square};

pub use observer::EcoObserver;
pub use table::TableError;

/// A named opening of the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// The ECO code, `A00` … `E99`.
    pub eco: String,
    /// The name, `Family: Variation, Subvariation` in lichess's table.
    pub name: String,
    /// The table's line to the position, as SAN movetext from the start.
    pub line: String,
}

/// A position as EPD compares it: board, side to move, castling rights, and the en passant
/// square only when a capture there is legal.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Key {
    board: Board,
    turn: Color,
    castling: Bitboard,
    ep: Option<Square>,
}

impl Key {
    fn of(pos: &Chess) -> Key {
        Key {
            board: pos.board().clone(),
            turn: pos.turn(),
            castling: pos.castles().castling_rights(),
            ep: pos.ep_square(EnPassantMode::Legal),
        }
    }

    fn matches(&self, pos: &Chess) -> bool {
        self.turn == pos.turn()
            && self.board == *pos.board()
            && self.castling == pos.castles().castling_rights()
            && self.ep == pos.ep_square(EnPassantMode::Legal)
    }
}

/// One named position of the index.
#[derive(Clone, Debug)]
struct Entry {
    hash: u64,
    key: Key,
    /// Index into [`Table::openings`].
    opening: u32,
}

/// What only decreases along a game, so that once a game has less of it than every named
/// position has, no named position can follow: the pieces on the board, and the pawns still
/// on their first square (a pawn never goes back, nor comes back after a capture).
fn reach(pos: &Chess) -> (u32, u32) {
    let board = pos.board();
    let home = (board.pawns() & board.white() & Bitboard::from_rank(Rank::Second))
        | (board.pawns() & board.black() & Bitboard::from_rank(Rank::Seventh));
    (board.occupied().count() as u32, home.count() as u32)
}

/// A table of named positions, indexed by hash.
#[derive(Clone, Debug)]
pub struct Table {
    openings: Vec<Opening>,
    /// Sorted by hash; one entry a position (the first name given to it is kept).
    index: Vec<Entry>,
    /// The fewest pieces, and pawns on their first square, of any named position.
    min_reach: (u32, u32),
}

/// The vendored table: lichess's chess-openings (CC0), one file an ECO volume.
const BUILTIN: [(&str, &str); 5] = [
    ("a.tsv", include_str!("../../data/openings/a.tsv")),
    ("b.tsv", include_str!("../../data/openings/b.tsv")),
    ("c.tsv", include_str!("../../data/openings/c.tsv")),
    ("d.tsv", include_str!("../../data/openings/d.tsv")),
    ("e.tsv", include_str!("../../data/openings/e.tsv")),
];

impl Table {
    /// The built-in table, lichess's chess-openings, indexed at first use.
    pub fn builtin() -> &'static Table {
        static TABLE: OnceLock<Table> = OnceLock::new();
        TABLE.get_or_init(|| {
            let mut openings = Vec::new();
            for (name, text) in BUILTIN {
                // The vendored files are checked by the tests: a failure is a build mistake.
                table::read_tsv(text, &mut openings)
                    .unwrap_or_else(|e| panic!("the built-in {name} is broken: {e}"));
            }
            Table::new(openings)
        })
    }

    /// Reads a table from text: lichess's TSV (columns `eco`, `name`, `pgn`, a header line
    /// first) or pgn-extract's `eco.pgn` (games whose `ECO`, `Opening` and `Variation` tags
    /// name the final position), told apart by the first character that is not blank.
    ///
    /// # Errors
    ///
    /// A line that does not read or replay, with its line number; or a table without a line.
    pub fn parse(text: &str) -> Result<Table, TableError> {
        let mut openings = Vec::new();
        let first = text
            .trim_start_matches('\u{feff}')
            .trim_start()
            .chars()
            .next();
        if matches!(first, Some('[' | '{' | ';' | '%')) {
            table::read_pgn(text, &mut openings)?;
        } else {
            table::read_tsv(text, &mut openings)?;
        }
        if openings.is_empty() {
            return Err(TableError::new(0, "no opening in the table"));
        }
        Ok(Table::new(openings))
    }

    fn new(openings: Vec<(Opening, Chess)>) -> Table {
        let mut index: Vec<Entry> = Vec::with_capacity(openings.len());
        let mut min_reach = (u32::MAX, u32::MAX);
        let mut named = Vec::with_capacity(openings.len());
        for (i, (opening, pos)) in openings.into_iter().enumerate() {
            let (pieces, home) = reach(&pos);
            min_reach = (min_reach.0.min(pieces), min_reach.1.min(home));
            index.push(Entry {
                hash: pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0,
                key: Key::of(&pos),
                opening: i as u32,
            });
            named.push(opening);
        }
        // Stable: of two names for one position, the first in the table stays first.
        index.sort_by_key(|e| e.hash);
        index.dedup_by(|later, first| later.hash == first.hash && later.key == first.key);
        Table {
            openings: named,
            index,
            min_reach,
        }
    }

    /// The openings, in the table's order.
    pub fn openings(&self) -> &[Opening] {
        &self.openings
    }

    /// The number of distinct named positions.
    pub fn positions(&self) -> usize {
        self.index.len()
    }

    /// The opening named at `pos`, if any.
    pub fn lookup(&self, pos: &Chess) -> Option<&Opening> {
        self.find(pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0, pos)
    }

    fn find(&self, hash: u64, pos: &Chess) -> Option<&Opening> {
        let from = self.index.partition_point(|e| e.hash < hash);
        self.index[from..]
            .iter()
            .take_while(|e| e.hash == hash)
            .find(|e| e.key.matches(pos))
            .map(|e| &self.openings[e.opening as usize])
    }

    /// The name of code `eco` as a whole: the name of its shortest line in the table, or,
    /// when several lines of that code are shortest, the family (the name before `:`) they
    /// share; none when they share none (`A00` gathers unrelated openings). A code with a
    /// suffix (`B90a`) is read as its first three characters when the whole is not in the
    /// table.
    pub fn code_name(&self, eco: &str) -> Option<&str> {
        let eco = eco.trim();
        let name = |code: &str| {
            let plies = |o: &Opening| {
                o.line
                    .split_whitespace()
                    .filter(|t| !t.ends_with('.'))
                    .count()
            };
            let of_code = || self.openings.iter().filter(move |o| o.eco == code);
            let fewest = of_code().map(plies).min()?;
            let mut shortest = of_code().filter(|o| plies(o) == fewest);
            let first = shortest.next()?;
            fn family(o: &Opening) -> &str {
                o.name.split(':').next().unwrap_or("")
            }
            match shortest.next() {
                None => Some(first.name.as_str()),
                Some(_) => {
                    let f = family(first);
                    of_code()
                        .filter(|o| plies(o) == fewest)
                        .all(|o| family(o) == f)
                        .then_some(f)
                }
            }
        };
        name(eco).or_else(|| name(eco.get(..3)?))
    }

    /// The opening of a line of SAN moves from the standard start (`e4 e5 Nf3`, move numbers
    /// allowed), up to its first move that is not legal.
    pub fn classify_line(&self, line: &str) -> Option<Classification<'_>> {
        let mut pos = Chess::default();
        let mut moves = Vec::new();
        for token in line.split_whitespace() {
            let san = token.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
            if san.is_empty() {
                continue;
            }
            let Ok(san) = san.parse::<shakmaty::san::SanPlus>() else {
                break;
            };
            let Ok(mv) = san.san.to_move(&pos) else {
                break;
            };
            pos.play_unchecked(mv);
            moves.push(mv);
        }
        classify(self, &Chess::default(), moves)
    }

    /// Whether a named position can still follow `pos` in a game.
    fn reachable(&self, pos: &Chess) -> bool {
        let (pieces, home) = reach(pos);
        pieces >= self.min_reach.0 && home >= self.min_reach.1
    }
}

/// A game's opening: the named position and where the game reached it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Classification<'t> {
    pub opening: &'t Opening,
    /// Main-line plies played to reach it (0: the start position).
    pub ply: u32,
    /// The move that reached it, in SAN with its number (`5...a6`), when it was told with
    /// [`Classifier::play`].
    pub after: Option<String>,
}

/// Names a game's opening as its main line is played: told the start position and the
/// position after every move, it keeps the deepest named position reached.
#[derive(Clone, Debug)]
pub struct Classifier<'t> {
    table: &'t Table,
    ply: u32,
    best: Option<Classification<'t>>,
    /// No named position can follow: positions are no longer looked at.
    done: bool,
}

impl<'t> Classifier<'t> {
    pub fn new(table: &'t Table) -> Classifier<'t> {
        Classifier {
            table,
            ply: 0,
            best: None,
            done: false,
        }
    }

    /// Starts a game at `pos` (forgetting any earlier one).
    pub fn start(&mut self, pos: &Chess) {
        self.ply = 0;
        self.best = None;
        self.done = false;
        self.look(pos, None);
    }

    /// The position after the next main-line move (or null move).
    pub fn after_move(&mut self, pos: &Chess) {
        self.ply += 1;
        self.look(pos, None);
    }

    /// Plays the next main-line move `mv` from `before`, remembering it for the message when
    /// it reaches a named position. Costs nothing once [`Classifier::done`].
    pub fn play(&mut self, before: &Chess, mv: Move) {
        self.ply += 1;
        if self.done {
            return;
        }
        let mut after = before.clone();
        after.play_unchecked(mv);
        self.look(&after, Some((before, mv)));
    }

    fn look(&mut self, pos: &Chess, played: Option<(&Chess, Move)>) {
        if self.done {
            return;
        }
        if !self.table.reachable(pos) {
            self.done = true;
            return;
        }
        if let Some(opening) = self.table.lookup(pos) {
            let after = played.map(|(before, mv)| {
                let san = shakmaty::san::SanPlus::from_move(before.clone(), mv);
                let n = before.fullmoves();
                match before.turn() {
                    Color::White => format!("{n}.{san}"),
                    Color::Black => format!("{n}...{san}"),
                }
            });
            self.best = Some(Classification {
                opening,
                ply: self.ply,
                after,
            });
        }
    }

    /// Whether no named position can follow the positions told so far: a caller may stop
    /// telling them.
    pub fn done(&self) -> bool {
        self.done
    }

    /// The deepest named position reached so far.
    pub fn result(&self) -> Option<&'t Opening> {
        self.best.as_ref().map(|c| c.opening)
    }

    /// The deepest named position reached so far, with where.
    pub fn classification(&self) -> Option<&Classification<'t>> {
        self.best.as_ref()
    }
}

/// The opening of the game that starts at `start` and plays `moves` on its main line.
pub fn classify<'t>(
    table: &'t Table,
    start: &Chess,
    moves: impl IntoIterator<Item = Move>,
) -> Option<Classification<'t>> {
    let mut classifier = Classifier::new(table);
    classifier.start(start);
    let mut pos = start.clone();
    for mv in moves {
        if classifier.done() {
            break;
        }
        classifier.play(&pos, mv);
        pos.play_unchecked(mv);
    }
    classifier.best
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::san::San;

    fn moves(line: &str) -> Vec<Move> {
        let mut pos = Chess::default();
        line.split_whitespace()
            .map(|san| {
                let mv = san.parse::<San>().unwrap().to_move(&pos).unwrap();
                pos.play_unchecked(mv);
                mv
            })
            .collect()
    }

    fn name(line: &str) -> Option<String> {
        classify(Table::builtin(), &Chess::default(), moves(line)).map(|c| c.opening.name.clone())
    }

    #[test]
    fn the_builtin_table_loads_whole() {
        let table = Table::builtin();
        let lines: usize = BUILTIN.iter().map(|(_, t)| t.lines().count() - 1).sum();
        assert_eq!(table.openings().len(), lines);
        // Each name has its own position, nearly: a few names share one.
        assert!(table.positions() > lines * 9 / 10);
    }

    #[test]
    fn every_builtin_line_classifies_as_itself() {
        let table = Table::builtin();
        for o in table.openings() {
            let line: Vec<&str> = o
                .line
                .split_whitespace()
                .filter(|t| !t.ends_with('.'))
                .collect();
            let got = classify(table, &Chess::default(), moves(&line.join(" "))).unwrap();
            // A position named twice keeps its first name.
            assert_eq!(got.opening.line, o.line, "{}", o.name);
            assert_eq!(got.ply as usize, line.len());
        }
    }

    #[test]
    fn the_start_position_is_not_named() {
        assert_eq!(name(""), None);
    }

    #[test]
    fn a_game_past_the_table_keeps_the_deepest_name() {
        let line = "e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6 Rg1";
        let deepest = name(line).unwrap();
        let game = format!("{line} Rg8 Rh1 Rh8 Rg1 Rg8 Rh1 Rh8");
        let got = classify(Table::builtin(), &Chess::default(), moves(&game)).unwrap();
        assert_eq!((got.opening.name.clone(), got.ply), (deepest, 11));
        assert_eq!(got.after.as_deref(), Some("6.Rg1"));
    }
}
