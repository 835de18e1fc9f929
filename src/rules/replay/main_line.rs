//! The main line's own bookkeeping: repetition by Zobrist hashes, the move counters, and the
//! events that end a game by rule as they happen (checkmate, stalemate, dead position,
//! fivefold repetition, seventy-five moves).

use shakmaty::{zobrist::Zobrist64, Chess, Color, EnPassantMode, Move, Position};

use crate::pgn::Span;
use crate::rules::adjudicate;
use crate::rules::ending::Ended;
use crate::rules::outcome::Ending;

use super::{PlyLabel, Replay};

/// State kept for the main line only: repetition and the events that end a game. It starts
/// from the defaults, with `history` an empty buffer to reuse and `ended` saying whether the
/// start position is over already.
#[derive(Default)]
pub(in crate::rules) struct MainState {
    /// Zobrist hash of the current main-line position relative to the first position since
    /// the last irreversible move: that position's full hash XORed out (see
    /// [`reversible_hash_step`]). Positions before it can never come back, so comparing these
    /// within `history` decides exactly as comparing full hashes would.
    pub(in crate::rules) hash: Zobrist64,
    /// Debug builds only: the full hash of the position `hash` is relative to, to check the
    /// incremental update against shakmaty's hash on every move.
    pub(in crate::rules) run_start: Zobrist64,
    /// Hashes since the last irreversible move, with whether the move into each gave check.
    pub(in crate::rules) history: Vec<(Zobrist64, bool)>,
    pub(in crate::rules) plies: u32,
    pub(in crate::rules) ended: Option<Ended>,
    pub(in crate::rules) moves_after_end: u32,
    pub(in crate::rules) first_after_end: Option<(Span, PlyLabel)>,
    pub(in crate::rules) threefold_ply: Option<u32>,
    pub(in crate::rules) fifty_ply: Option<u32>,
    pub(in crate::rules) perpetual_check: bool,
}

impl MainState {
    /// Starts the relative hash again at `pos`, after which no earlier position can come back.
    #[inline]
    pub(super) fn restart_hash(&mut self, pos: &Chess) {
        self.hash = Zobrist64::default();
        if cfg!(debug_assertions) {
            self.run_start = pos.zobrist_hash(EnPassantMode::Legal);
        }
    }
}

impl Replay<'_> {
    /// Repetition, move counters and game-ending events after a main-line ply.
    #[inline(always)]
    pub(super) fn main_ply(
        &mut self,
        depth: usize,
        mv: Move,
        irreversible: bool,
        check: bool,
        mate: bool,
    ) {
        self.main.plies += 1;
        let termination = if self.all_rules {
            if irreversible {
                self.main.history.clear();
            }
            self.main.history.push((self.main.hash, check));
            if self.main.ended.is_some() {
                return;
            }
            self.ending_by_rule(depth, mv, mate)
        } else {
            // Legality alone: checkmate still ends the game (stalemate is found at the end).
            mate.then_some(Ending::Checkmate)
        };
        if let Some(termination) = termination.filter(|_| self.main.ended.is_none()) {
            self.main.ended = Some(Ended {
                termination,
                ply: self.main.plies,
                pos: self.lines[depth].pos.clone(),
            });
        }
    }

    /// The rule that ends the game at this main-line ply, if one does, in the order of events;
    /// on the way, notes the first draw that could be claimed.
    #[inline(always)]
    fn ending_by_rule(&mut self, depth: usize, mv: Move, mate: bool) -> Option<Ending> {
        if mate {
            return Some(Ending::Checkmate);
        }
        let pos = &self.lines[depth].pos;
        // A position can only become dead after a capture or a pawn move (material or the pawn
        // structure changed); the solver is consulted only past a cheap screen.
        if (mv.is_capture() || mv.is_promotion() || mv.role() == shakmaty::Role::Pawn)
            && adjudicate::is_dead(pos, self.opts.insufficient, self.opts.dead_search)
        {
            // Stalemate comes before the dead position in the order of events (5.2.1).
            return Some(if pos.legal_moves().is_empty() {
                Ending::Stalemate
            } else {
                Ending::DeadPosition
            });
        }
        let hash = self.main.hash;
        // The history alternates the side to move (a null move or an irreversible move starts
        // it again), and the side to move is part of the hash: only every other entry, back
        // from the current one, can be the same position. A position comes back four plies
        // later at the soonest (each side must undo its move), so a third occurrence needs
        // nine entries.
        let history = &self.main.history;
        let mut repeats = 0;
        if history.len() >= 9 {
            let mut k = history.len();
            while k > 0 {
                repeats += usize::from(history[k - 1].0 == hash);
                k = k.saturating_sub(2);
            }
        }
        let ply = self.main.plies;
        if repeats >= 3 && self.main.threefold_ply.is_none() {
            self.main.threefold_ply = Some(ply);
            self.main.perpetual_check = self.perpetual();
        }
        if repeats >= 5 {
            self.main.perpetual_check = self.perpetual();
            return Some(Ending::Fivefold);
        }
        if pos.halfmoves() >= 100 && self.main.fifty_ply.is_none() {
            self.main.fifty_ply = Some(ply);
        }
        (pos.halfmoves() >= 150).then_some(Ending::SeventyFive)
    }

    /// Whether every move of one side gave check over the cycle back to the first occurrence
    /// of the current position.
    fn perpetual(&self) -> bool {
        let history = &self.main.history;
        let last = history.len() - 1;
        let hash = history[last].0;
        let first = match history.iter().position(|(h, _)| *h == hash) {
            Some(i) if i < last => i,
            _ => return false,
        };
        // Moves into positions first+1..=last; the mover alternates, starting with the side
        // that made the last move when counted backwards. A side gave perpetual check when it
        // made at least two of them, each a check.
        let moves = &history[first + 1..=last];
        let all_checks = |skip| {
            let mut by_side = moves.iter().rev().skip(skip).step_by(2);
            by_side.clone().count() >= 2 && by_side.all(|&(_, check)| check)
        };
        all_checks(0) || all_checks(1)
    }
}

/// Whether a move makes every earlier position unreachable, as shakmaty's
/// `is_irreversible` decides apart from its en passant clause (the caller knows that one).
pub(super) fn changes_for_good(pos: &Chess, mv: Move) -> bool {
    match mv {
        Move::Normal {
            role: shakmaty::Role::Pawn,
            ..
        }
        | Move::Normal {
            capture: Some(_), ..
        }
        | Move::Castle { .. }
        | Move::EnPassant { .. }
        | Move::Put { .. } => true,
        Move::Normal { role, from, to, .. } => {
            let rights = pos.castles().castling_rights();
            rights.contains(from)
                || rights.contains(to)
                || (role == shakmaty::Role::King && pos.castles().has_color(pos.turn()))
        }
    }
}

/// The change a reversible move (no capture, no pawn, castling rights and en passant
/// untouched: see [`changes_for_good`]) makes to a position's Zobrist hash as shakmaty
/// computes it: the piece leaves one square for another and the turn passes. An irreversible
/// move starts the hash again instead, so its captures, en passant files and castling
/// rights never need hashing.
#[inline]
pub(super) fn reversible_hash_step(turn: Color, mv: Move, hash: Zobrist64) -> Zobrist64 {
    use shakmaty::zobrist::ZobristValue;
    match mv {
        Move::Normal { role, from, to, .. } => {
            let piece = role.of(turn);
            hash ^ Zobrist64::zobrist_for_piece(from, piece)
                ^ Zobrist64::zobrist_for_piece(to, piece)
                ^ Zobrist64::zobrist_for_white_turn()
        }
        // Irreversible moves: the caller starts the hash again after them.
        _ => hash,
    }
}
