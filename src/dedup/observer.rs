//! The one adapter between the replay and `dedup`: a [`Visitor`] that hashes a game's
//! start position and main-line moves as they are replayed. Everything the replay's API asks
//! of dedup is here, so a change to that API is a change to this file.

use shakmaty::zobrist::Zobrist128;
use shakmaty::{Chess, EnPassantMode, Position};

use super::{move_code, MoveHash};
use crate::rules::visit::{MainLine, Needs, Ply, Positions, Visitor};

/// Collects what dedup needs of a game's moves: the start position's hash, the moves' codes
/// (up to the first that could not be replayed) and, when asked, the position at one ply.
#[derive(Debug, Default)]
pub struct DigestObserver {
    /// The ply whose position is hashed (`--fuzzy-ply`), if any.
    fuzzy_ply: Option<u32>,
    /// The start position's Zobrist hash ([`Visitor::start`]).
    pub start: u128,
    pub moves: Vec<u16>,
    /// The hash of the start and the moves, once [`Visitor::main_line`] told them.
    moves_hash: Option<MoveHash>,
    /// The position after `fuzzy_ply` plies, once reached.
    pub position: Option<u64>,
    /// Main-line moves told by [`Visitor::play`] so far.
    played: u32,
}

impl DigestObserver {
    pub fn new(fuzzy_ply: Option<u32>) -> DigestObserver {
        DigestObserver {
            fuzzy_ply,
            // Room for most games' moves at once: growing a game's list step by step cost
            // more than the rest of the observer.
            moves: Vec::with_capacity(256),
            ..DigestObserver::default()
        }
    }

    /// The hash of the start and the moves seen.
    pub fn hash(&self) -> [u64; 2] {
        self.moves_hash
            .unwrap_or_else(|| MoveHash::new(self.start))
            .value()
    }
}

fn position_hash(pos: &Chess) -> u64 {
    let z: Zobrist128 = pos.zobrist_hash(EnPassantMode::Legal);
    (z.0 >> 64) as u64 ^ z.0 as u64
}

impl Visitor for DigestObserver {
    fn needs(&self) -> Needs {
        Needs {
            // The start position comes on its own ([`Visitor::start`]), and the
            // `--fuzzy-ply` position from the position before the move that reaches it; the
            // moves come all together at the end ([`Visitor::main_line`]): copying a
            // position a ply would cost more than the rest of dedup.
            positions: self.fuzzy_ply.map_or(Positions::None, Positions::First),
            movetext: false,
            tags: false,
            main_moves: true,
            notes: false,
            main_san: false,
        }
    }

    /// Most games start from the standard position, whose hash is worked out once.
    fn start(&mut self, start: &Chess) {
        static STANDARD: std::sync::LazyLock<u128> = std::sync::LazyLock::new(|| {
            let z: Zobrist128 = Chess::default().zobrist_hash(EnPassantMode::Legal);
            z.0
        });
        // Positions are equal as the hash sees them: the same board, side to move,
        // castling rights and en passant square where a capture is legal.
        self.start = if *start == Chess::default() {
            *STANDARD
        } else {
            let z: Zobrist128 = start.zobrist_hash(EnPassantMode::Legal);
            z.0
        };
    }

    /// With `--fuzzy-ply`, the first main-line moves come here with their positions
    /// ([`Needs::positions`]), in order: the `--fuzzy-ply`th gives the position. Main-line
    /// moves that a variation follows come here too, later; they are in
    /// [`Visitor::main_line`].
    fn play(&mut self, ply: &Ply<'_>) {
        if ply.at.depth != 0 {
            return;
        }
        self.played += 1;
        if self.fuzzy_ply == Some(self.played) {
            self.position = Some(position_hash(ply.after));
        }
    }

    /// Codes and hashes the moves in one pass: the hash's steps each wait for the one before,
    /// and the codes are worked out in their shadow.
    fn main_line(&mut self, line: MainLine<'_>) {
        let moves = line.moves;
        let mut h = MoveHash::new(self.start);
        self.moves.extend(moves.iter().map(|m| {
            let code = move_code(m);
            h.push(code);
            code
        }));
        self.moves_hash = Some(h);
    }
}
