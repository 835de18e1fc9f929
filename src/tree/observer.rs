//! The one adapter between the replay and the tree: a [`Visitor`] that makes a
//! [`PlyRecord`] of each main-line ply up to the maximum ply, from the position the replay
//! tells it before the move. Kept alone in this file so a change of the visitor API touches
//! nothing else.

use shakmaty::{zobrist::Zobrist64, Chess, Color, EnPassantMode, Position};

use super::record::{polyglot_move, Packed, PlyRecord};
use crate::rules::visit::{MoveAt, Needs, Ply, Positions, Visitor};

/// Whose moves the tree keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Side {
    /// Both sides' moves.
    #[default]
    Both,
    /// White's moves only (the positions with White to move).
    White,
    /// Black's moves only.
    Black,
}

impl Side {
    /// Whether a move of `mover` is kept.
    pub fn keeps(self, mover: Color) -> bool {
        match self {
            Side::Both => true,
            Side::White => mover == Color::White,
            Side::Black => mover == Color::Black,
        }
    }
}

/// The records of one game's first plies. What the game itself says (result, ratings, date,
/// where it is) is filled in by the caller once the plies are known.
pub struct PlyObserver {
    max_ply: u32,
    side: Side,
    /// Plies of the main line seen so far.
    ply: u32,
    /// A null move or a move that could not be played ended the line the tree follows.
    stopped: bool,
    /// The key of the position after the last main-line ply, when shakmaty could work it out
    /// from the key before (a move that changes no castling right and makes no en passant
    /// square): the next ply's key, without hashing every piece again.
    next_key: Option<u64>,
    pub records: Vec<PlyRecord>,
}

impl PlyObserver {
    pub fn new(max_ply: u32, side: Side) -> PlyObserver {
        PlyObserver {
            max_ply,
            side,
            ply: 0,
            stopped: false,
            next_key: None,
            // Room for the plies of most games at once: growing a vector from empty moves its
            // records five times on the way to 30.
            records: Vec::with_capacity(max_ply.min(64) as usize),
        }
    }
}

impl Visitor for PlyObserver {
    fn needs(&self) -> Needs {
        Needs {
            // The position before each move, only as far as the tree goes: past it the replay
            // keeps to its bytes loop.
            positions: Positions::First(self.max_ply),
            movetext: false,
            tags: false,
            main_moves: false,
            notes: false,
            main_san: false,
        }
    }

    #[inline]
    fn play(&mut self, ply: &Ply<'_>) {
        let Ply { at, before, mv, .. } = *ply;
        if at.depth != 0 || self.stopped || self.ply >= self.max_ply {
            return;
        }
        let ply = self.ply;
        self.ply += 1;
        // The main line's plies come in order: this ply's position is the last one's after.
        let key = match self.next_key.take() {
            Some(key) => Zobrist64(key),
            None => before.zobrist_hash(EnPassantMode::PseudoLegal),
        };
        self.next_key = before
            .update_zobrist_hash(key, mv, EnPassantMode::PseudoLegal)
            .map(|k| k.0);
        debug_assert_eq!(key, before.zobrist_hash(EnPassantMode::PseudoLegal));
        if !self.side.keeps(before.turn()) {
            return;
        }
        self.records.push(PlyRecord {
            key: key.0,
            position: Packed::of(before),
            mv: polyglot_move(&mv),
            split: 0,
            // The game's place is the caller's to add.
            order: u64::from(ply),
            score: 0,
            mover_elo: 0,
            opponent_elo: 0,
            date: 0,
            file: 0,
            game: 0,
        });
    }

    fn null_move(&mut self, at: MoveAt, _: &Chess, _: &Chess) {
        // A null move is no move of the tree, and the positions after it were not reached by
        // moves: the game's line ends here.
        if at.depth == 0 {
            self.stopped = true;
        }
    }

    fn unplayed(&mut self, at: MoveAt) {
        if at.depth == 0 {
            self.stopped = true;
        }
    }
}
