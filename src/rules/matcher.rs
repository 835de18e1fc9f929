//! The matcher: turns a [`ReadMove`] pattern into the one legal move it describes, notices
//! lenient spellings, and, when no move or several fit, finds what the writer most likely meant.

use shakmaty::{
    attacks, san::San, Bitboard, CastlingSide, Chess, Color, Move, MoveList, Position, Rank, Role,
    Square,
};

use crate::notation::{CaptureClaim, MovePattern, NormalPattern, ReadMove};

/// Why a pattern did not give exactly one legal move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MatchError {
    /// No legal move fits.
    Illegal,
    /// Several legal moves fit; they are listed.
    Ambiguous(Vec<Move>),
    /// A null move was given where none is possible (the side to move is in check).
    NullInCheck,
}

/// Lenient spellings found by comparing the pattern with the move it matched.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MatchNotes {
    /// `x` missing on a capture.
    pub missing_capture: bool,
    /// `x` (or a long-algebraic `-` claim) that does not fit the move.
    pub wrong_capture: bool,
    /// Origin given where SAN needs none.
    pub over_disambiguated: bool,
}

/// Finds the one legal move `m` describes in `pos`.
///
/// Null moves are not matched here (they are not moves of the position); the replay handles
/// them.
///
/// # Errors
///
/// [`MatchError::Illegal`] when no legal move fits, [`MatchError::Ambiguous`] when several do.
///
/// ```
/// use pgnkit::notation::read_token;
/// use pgnkit::rules::matcher::{find_move, MatchError};
/// use shakmaty::{Chess, Square};
///
/// let pos = Chess::default();
/// let mut read = Vec::new();
/// read_token(b"Nf3", &mut read).expect("SAN");
/// let (mv, _) = find_move(&pos, &read[0]).expect("a legal move");
/// assert_eq!((mv.from(), mv.to()), (Some(Square::G1), Square::F3));
///
/// read.clear();
/// read_token(b"Ke2", &mut read).expect("SAN");
/// assert!(matches!(find_move(&pos, &read[0]), Err(MatchError::Illegal)));
/// ```
pub fn find_move(pos: &Chess, m: &ReadMove) -> Result<(Move, MatchNotes), MatchError> {
    find_move_with(pos, m, pos.checkers())
}

/// [`find_move`] for a caller that already knows the pieces giving check (`pos.checkers()`).
///
/// # Errors
///
/// As [`find_move`].
#[inline(always)]
pub fn find_move_with(
    pos: &Chess,
    m: &ReadMove,
    checkers: Bitboard,
) -> Result<(Move, MatchNotes), MatchError> {
    match find_move_fast(pos, m, checkers) {
        Some(mv) => Ok((mv, MatchNotes::default())),
        None => find_move_noting(pos, m, checkers),
    }
}

/// The common cases of [`find_move_with`]: a piece letter (or pawn) and a full destination
/// that the fast path settles, and castling, with nothing to note (the `x` as the move has
/// it, an origin only where SAN needs one). `None` leaves the move to [`find_move_with`],
/// which gives the same move when this one finds it.
///
/// The answer is a bare [`Move`], which a caller keeps in registers: merging it with the full
/// matcher's `Result` made the replay read it back from memory in other widths than it was
/// written, a stall on every ply.
#[inline]
pub(crate) fn find_move_fast(pos: &Chess, m: &ReadMove, checkers: Bitboard) -> Option<Move> {
    let found = match m.pattern {
        MovePattern::Normal(n) => {
            let mv = fast_one(pos, &n, checkers)?;
            let capture_as_written = match m.capture {
                CaptureClaim::Capture => mv.is_capture(),
                CaptureClaim::Unwritten | CaptureClaim::Quiet => !mv.is_capture(),
            };
            let origin = n.from_file.is_some() || n.from_rank.is_some();
            if !capture_as_written
                || (origin && n.role != Some(Role::Pawn) && !origin_as_needed(pos, &n, mv))
            {
                return None;
            }
            mv
        }
        // Castling has nothing to note.
        MovePattern::Castle(side) => fast_castle(pos, side)?,
        _ => return None,
    };
    // The full matcher also checks the fast answer against move generation.
    debug_assert_eq!(
        find_move_noting(pos, m, checkers),
        Ok((found, MatchNotes::default()))
    );
    Some(found)
}

/// Whether a piece move found by [`fast_one`] gives its origin's file or rank (one of them:
/// long algebraic is for the full matcher) only where SAN needs it, so that there is nothing
/// to note.
#[inline(never)]
fn origin_as_needed(pos: &Chess, n: &NormalPattern, mv: Move) -> bool {
    let Move::Normal { role, from, to, .. } = mv else {
        return false;
    };
    if n.from_file.is_some() && n.from_rank.is_some() {
        return false;
    }
    let (file, rank) = needed_origin(from, legal_movers(pos, role, to));
    (n.from_file.is_none() || file) && (n.from_rank.is_none() || rank)
}

/// [`find_move_with`] for every pattern, with the notes on how it is written: for a caller
/// whose [`find_move_fast`] has just found nothing, which need not ask it again.
///
/// # Errors
///
/// As [`find_move`].
#[inline(never)]
pub(crate) fn find_move_noting(
    pos: &Chess,
    m: &ReadMove,
    checkers: Bitboard,
) -> Result<(Move, MatchNotes), MatchError> {
    debug_assert_eq!(checkers, pos.checkers());
    let mut notes = MatchNotes::default();
    // Whether the fast path found the move (what it checked holds for every origin).
    let mut fast = false;
    let found = match m.pattern {
        MovePattern::Null => {
            return Err(if pos.is_check() {
                MatchError::NullInCheck
            } else {
                MatchError::Illegal
            })
        }
        MovePattern::Castle(side) => match fast_castle(pos, side) {
            Some(mv) => {
                debug_assert_eq!(Ok(mv), one(&pos.castling_moves(side)), "fast castling");
                mv
            }
            None => one(&pos.castling_moves(side))?,
        },
        MovePattern::CastleAnySide => {
            let mut moves = pos.castling_moves(CastlingSide::KingSide);
            moves.extend(pos.castling_moves(CastlingSide::QueenSide));
            one(&moves)?
        }
        MovePattern::Normal(n) => {
            if let Some(mv) = fast_one(pos, &n, checkers) {
                debug_assert_eq!(Ok(mv), one(&general(pos, &n)), "fast path for {n:?}");
                fast = true;
                mv
            } else {
                one(&general(pos, &n))?
            }
        }
    };
    if let MovePattern::Normal(n) = m.pattern {
        let is_uci = n.role.is_none() && m.capture == CaptureClaim::Unwritten;
        match (m.capture, found.is_capture()) {
            (CaptureClaim::Capture, false) | (CaptureClaim::Quiet, true) => {
                notes.wrong_capture = true
            }
            (CaptureClaim::Unwritten, true) if !is_uci => notes.missing_capture = true,
            _ => {}
        }
        let long = n.from_file.is_some() && n.from_rank.is_some();
        let disambiguated = n.from_file.is_some() || n.from_rank.is_some();
        if disambiguated && !long && n.role != Some(Role::Pawn) {
            let san_origin = || match San::from_move(pos, found) {
                San::Normal { file, rank, .. } => (file.is_some(), rank.is_some()),
                _ => (true, true),
            };
            let needed = match found {
                Move::Normal { role, from, to, .. } if fast => {
                    let needed = needed_origin(from, legal_movers(pos, role, to));
                    debug_assert_eq!(needed, san_origin(), "disambiguation of {found:?}");
                    needed
                }
                _ => san_origin(),
            };
            notes.over_disambiguated =
                (n.from_file.is_some() && !needed.0) || (n.from_rank.is_some() && !needed.1);
        }
    }
    Ok((found, notes))
}

// By reference: a `MoveList` is a 2 KiB array, too big to move around per ply.
fn one(moves: &MoveList) -> Result<Move, MatchError> {
    match moves.len() {
        1 => Ok(moves[0]),
        0 => Err(MatchError::Illegal),
        _ => Err(MatchError::Ambiguous(moves.to_vec())),
    }
}

/// Every legal move that fits the pattern, through shakmaty's move generation.
fn general(pos: &Chess, n: &NormalPattern) -> MoveList {
    let mut moves = candidates(pos, n);
    let chess960 = pos.castles().mode() == shakmaty::CastlingMode::Chess960;
    moves.retain(|c| fits(c, n, chess960));
    moves
}

/// The one legal move a piece letter (or pawn) and a full destination describe, found
/// without generating a move list: the common case of every SAN game, and most of the cost
/// of a replay. `None` when the case is not a plain one (double check, en passant, castling,
/// a square-only pattern) or when not exactly one move fits: [`general`] then decides, and
/// explains.
#[inline(always)]
fn fast_one(pos: &Chess, n: &NormalPattern, checkers: Bitboard) -> Option<Move> {
    let role = n.role?;
    let to = Square::from_coords(n.to_file, n.to_rank?);
    let board = pos.board();
    let turn = pos.turn();
    let us = board.by_color(turn);
    if us.contains(to) {
        return None;
    }
    let king = board.king_of(turn)?;
    let occupied = board.occupied();
    let them = board.by_color(!turn);
    if role != Role::King && checkers.any() {
        // In check, a piece other than the king must take the one checker or step between.
        let checker = checkers.single_square()?;
        if !attacks::between(king, checker).with(checker).contains(to) {
            return None;
        }
    }
    let ours = board.by_role(role) & us;
    let mut from = match role {
        Role::Pawn => {
            let mut from = Bitboard::EMPTY;
            if them.contains(to) {
                // A pawn written without its file never captures (`c4` is not `dxc4`).
                if n.from_file.is_some() {
                    from |= attacks::pawn_attacks(!turn, to) & ours;
                }
            } else if Some(to) == pos.maybe_ep_square() {
                return None;
            } else {
                let back = |sq: Square| sq.offset(if turn == Color::White { -8 } else { 8 });
                let one = back(to)?;
                if ours.contains(one) {
                    from.add(one);
                } else if !occupied.contains(one) && to.rank() == turn.relative_rank(Rank::Fourth) {
                    let two = back(one)?;
                    if ours.contains(two) {
                        from.add(two);
                    }
                }
            }
            let last = to.rank() == turn.relative_rank(Rank::Eighth);
            match n.promotion {
                None if last => return None,
                Some(_) if !last => return None,
                Some(Role::Pawn | Role::King) => return None,
                _ => {}
            }
            from
        }
        _ if n.promotion.is_some() => return None,
        _ => piece_attacks(role, to, occupied) & ours,
    };
    if let Some(file) = n.from_file {
        from &= Bitboard::from_file(file);
    }
    if let Some(rank) = n.from_rank {
        from &= Bitboard::from_rank(rank);
    }
    let capture = if them.contains(to) {
        board.role_at(to)
    } else {
        None
    };
    let mut found = None;
    for sq in from {
        let legal = keeps_king_safe(board, turn, king, role, sq, to);
        if legal {
            if found.is_some() {
                return None;
            }
            found = Some(Move::Normal {
                role,
                from: sq,
                capture,
                to,
                promotion: n.promotion,
            });
        }
    }
    found
}

/// The squares a `role` (not a pawn) on `sq` attacks: shakmaty's `attacks::attacks` for a
/// piece of either colour, inline (shakmaty's is a call).
#[inline(always)]
fn piece_attacks(role: Role, sq: Square, occupied: Bitboard) -> Bitboard {
    match role {
        Role::Knight => attacks::knight_attacks(sq),
        Role::Bishop => attacks::bishop_attacks(sq, occupied),
        Role::Rook => attacks::rook_attacks(sq, occupied),
        Role::Queen => attacks::bishop_attacks(sq, occupied) | attacks::rook_attacks(sq, occupied),
        Role::King => attacks::king_attacks(sq),
        Role::Pawn => Bitboard::EMPTY,
    }
}

/// Whether moving the `role` on `sq` to `to` leaves the mover's king (on `king`) out of
/// check, in a position that is not double check, for a move that takes the one checker or
/// steps between when in check (as [`fast_one`] makes sure).
///
/// One test for every piece, without a branch on whether it stands on a line with its king
/// (which differs from one move to the next: that branch took 1.07 of the time on TWIC): the
/// square that must not be attacked (the king's destination when the king moves, else the
/// king's square) is looked at on the board as it is after the move, a piece taken on `to`
/// left out. A piece other than the king cannot uncover a knight, pawn or king, and a checking
/// knight or pawn it does not take is ruled out before.
#[inline(always)]
fn keeps_king_safe(
    board: &shakmaty::Board,
    turn: Color,
    king: Square,
    role: Role,
    sq: Square,
    to: Square,
) -> bool {
    let target = if role == Role::King { to } else { king };
    let after = board.occupied().without(sq).with(to);
    board
        .attacks_to(target, !turn, after)
        .without(to)
        .is_empty()
}

/// The squares from which a `role` (not a pawn) of the side to move can legally go to `to`,
/// for a move [`fast_one`] found there (so what it checked holds for all of them).
fn legal_movers(pos: &Chess, role: Role, to: Square) -> Bitboard {
    let board = pos.board();
    let turn = pos.turn();
    let Some(king) = board.king_of(turn) else {
        return Bitboard::EMPTY;
    };
    let ours = board.by_role(role) & board.by_color(turn);
    (piece_attacks(role, to, board.occupied()) & ours)
        .into_iter()
        .filter(|&sq| keeps_king_safe(board, turn, king, role, sq, to))
        .collect()
}

/// Which parts of its origin SAN writes for a move from `from` when `movers` are the squares
/// from which the same piece can legally reach the same destination (`from` among them):
/// the file when another mover shares neither, or shares the rank too; the rank when another
/// shares the file. As [`San::from_move`] decides it, without generating the moves.
fn needed_origin(from: Square, movers: Bitboard) -> (bool, bool) {
    let others = movers.without(from);
    let same_file = (others & Bitboard::from_file(from.file())).any();
    let same_rank = (others & Bitboard::from_rank(from.rank())).any();
    (others.any() && (!same_file || same_rank), same_file)
}

/// Whether the side to move has a legal king step (not castling): a cheap proof that a check
/// is not mate, which saves generating every legal move for most checks.
pub(crate) fn king_can_step(pos: &Chess) -> bool {
    let board = pos.board();
    let turn = pos.turn();
    let Some(king) = board.king_of(turn) else {
        return false;
    };
    (attacks::king_attacks(king) & !board.by_color(turn))
        .into_iter()
        .any(|to| keeps_king_safe(board, turn, king, Role::King, king, to))
}

/// Castling to `side` when it is legal, checked as shakmaty's move generator does but without
/// generating every legal move: the right is held, the squares between are empty, and the king
/// does not start, pass or land in check. `None` sends the case to the general path.
#[inline(never)]
fn fast_castle(pos: &Chess, side: CastlingSide) -> Option<Move> {
    let turn = pos.turn();
    let castles = pos.castles();
    let rook = castles.rook(turn, side)?;
    let board = pos.board();
    let king = board.king_of(turn)?;
    let occupied = board.occupied();
    if (castles.path(turn, side) & occupied).any() {
        return None;
    }
    let king_to = side.king_to(turn);
    let after = occupied ^ king ^ rook ^ side.rook_to(turn);
    if board.attacks_to(king_to, !turn, after).any() {
        return None;
    }
    let without_king = occupied ^ king;
    for sq in attacks::between(king, king_to).with(king) {
        if board.attacks_to(sq, !turn, without_king).any() {
            return None;
        }
    }
    Some(Move::Castle { king, rook })
}

/// Legal moves that could fit the pattern, cheaply: only moves to the destination when it is
/// known and the piece is named.
fn candidates(pos: &Chess, n: &NormalPattern) -> MoveList {
    match (n.role, n.to_rank) {
        (Some(role), Some(rank))
            if n.from_file.is_none() || n.from_rank.is_none() || role != Role::King =>
        {
            pos.san_candidates(role, Square::from_coords(n.to_file, rank))
        }
        _ => pos.legal_moves(),
    }
}

/// The square a king lands on when castling (not the rook square shakmaty stores).
pub(crate) fn king_target(m: &Move) -> Option<Square> {
    match *m {
        Move::Castle { king, rook } => {
            let side = CastlingSide::from_queen_side(rook < king);
            Some(Square::from_coords(side.king_to_file(), king.rank()))
        }
        _ => None,
    }
}

fn fits(m: &Move, n: &NormalPattern, chess960: bool) -> bool {
    if let Some(role) = n.role {
        if m.role() != role {
            return false;
        }
    }
    let from = match m.from() {
        Some(f) => f,
        None => return false,
    };
    if n.from_file.is_some_and(|f| f != from.file())
        || n.from_rank.is_some_and(|r| r != from.rank())
    {
        return false;
    }
    // A pawn written without its file never captures (`c4` is not `dxc4`).
    if m.role() == Role::Pawn && n.from_file.is_none() && m.is_capture() {
        return false;
    }
    if m.promotion() != n.promotion {
        return false;
    }
    let dest_ok = |sq: Square| sq.file() == n.to_file && n.to_rank.is_none_or(|r| r == sq.rank());
    match king_target(m) {
        // Castling written as a king move from its square (UCI, long algebraic): to the king's
        // square, or to the rook (Chess960 UCI). `Kc8` in SAN is never castling.
        // Only a pattern without a piece letter (UCI, `e1-g1`) can mean castling: `Kd8-c8` in
        // Chess960 is the king's step, not O-O-O.
        Some(target) => {
            n.role.is_none()
                && n.from_file.is_some()
                && n.from_rank.is_some()
                // Chess960 UCI writes castling as the king taking its rook; standard UCI (and
                // long algebraic) as the king's two-square step.
                && if chess960 { dest_ok(m.to()) } else { dest_ok(target) || dest_ok(m.to()) }
        }
        None => dest_ok(m.to()),
    }
}

/// Legal moves the writer most likely meant, best first: the same piece to the same square
/// from elsewhere, a one-character slip of the token, then another piece to the same square.
pub(crate) fn suggest(pos: &Chess, m: &ReadMove, token: &str) -> Vec<Move> {
    let legal = pos.legal_moves();
    let mut out: Vec<Move> = Vec::new();
    let push = |mv: &Move, out: &mut Vec<Move>| {
        if !out.contains(mv) {
            out.push(*mv);
        }
    };
    if let MovePattern::Normal(n) = m.pattern {
        let dest = |sq: Square| sq.file() == n.to_file && n.to_rank.is_none_or(|r| r == sq.rank());
        // Same piece, same destination, any origin; promotion piece forgiven.
        for mv in legal.iter() {
            if n.role.is_none_or(|r| r == mv.role())
                && dest(king_target(mv).unwrap_or(mv.to()))
                && (n.promotion.is_none() || mv.promotion() == n.promotion)
            {
                push(mv, &mut out);
            }
        }
    }
    let same_piece = out.len();
    // One-character slips of the written token against each legal move's SAN and long forms.
    let written = token.trim_end_matches(['+', '#', '!', '?']);
    for mv in legal.iter() {
        let san = San::from_move(pos, *mv).to_string();
        let lan = long_form(mv);
        if edit_distance_at_most_one(written, &san) || edit_distance_at_most_one(written, &lan) {
            push(mv, &mut out);
        }
    }
    if same_piece > 0 {
        // The writer named the piece and the square: only the origin was wrong.
        out.truncate(same_piece.max(1));
        return out;
    }
    if let MovePattern::Normal(n) = m.pattern {
        if let Some(rank) = n.to_rank {
            let to = Square::from_coords(n.to_file, rank);
            for mv in legal.iter() {
                if mv.to() == to {
                    push(mv, &mut out);
                }
            }
        }
    }
    out.truncate(4);
    out
}

/// Long algebraic without check sign: `Ng1-f3`, `e2-e4`, `Nf3xe5`, `O-O`.
pub(crate) fn long_form(m: &Move) -> String {
    match *m {
        Move::Castle { king, rook } => {
            if rook < king {
                "O-O-O".into()
            } else {
                "O-O".into()
            }
        }
        Move::Put { role, to } => format!("{}@{}", role.upper_char(), to),
        _ => {
            let mut s = String::new();
            if m.role() != Role::Pawn {
                s.push(m.role().upper_char());
            }
            if let Some(from) = m.from() {
                s.push_str(&from.to_string());
            }
            s.push(if m.is_capture() { 'x' } else { '-' });
            s.push_str(&m.to().to_string());
            if let Some(p) = m.promotion() {
                s.push('=');
                s.push(p.upper_char());
            }
            s
        }
    }
}

fn edit_distance_at_most_one(a: &str, b: &str) -> bool {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a == b {
        return true;
    }
    let (la, lb) = (a.len(), b.len());
    if la.abs_diff(lb) > 1 {
        return false;
    }
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    if la == lb {
        // One substitution, or one transposition of neighbours.
        let rest_equal = a[prefix + 1..] == b[prefix + 1..];
        let transposed = prefix + 1 < la
            && a[prefix] == b[prefix + 1]
            && a[prefix + 1] == b[prefix]
            && a[prefix + 2..] == b[prefix + 2..];
        rest_equal || transposed
    } else if la > lb {
        a[prefix + 1..] == b[prefix..]
    } else {
        b[prefix + 1..] == a[prefix..]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::ascii;
    use shakmaty::fen::Fen;
    use shakmaty::CastlingMode;
    use shakmaty::File;

    /// xorshift64*: the same walk on every machine.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n.max(1) as u64) as usize
        }
    }

    /// Random games from positions rich in pins, checks, en passant, promotions and castling
    /// (standard and Chess960): every legal move, written in SAN and read back, is found by
    /// `find_move`; and for random piece-and-square patterns the fast path answers only when
    /// move generation finds exactly that one move.
    #[test]
    fn fast_path_agrees_with_move_generation() {
        let starts = [
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                CastlingMode::Standard,
            ),
            (
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                CastlingMode::Standard,
            ),
            (
                "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
                CastlingMode::Standard,
            ),
            (
                "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
                CastlingMode::Standard,
            ),
            (
                "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
                CastlingMode::Chess960,
            ),
        ];
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let mut read = Vec::new();
        let mut checked = 0;
        let mut settled_fast = 0;
        for (fen, mode) in starts {
            let start: Chess = Fen::from_ascii(fen.as_bytes())
                .unwrap()
                .into_position(mode)
                .unwrap();
            for _ in 0..40 {
                let mut pos = start.clone();
                for _ in 0..80 {
                    let legal = pos.legal_moves();
                    if legal.is_empty() {
                        break;
                    }
                    for mv in &legal {
                        let san = San::from_move(&pos, *mv).to_string();
                        crate::notation::read_token(san.as_bytes(), &mut read).unwrap();
                        let found = find_move(&pos, &read[0]).map(|(m, _)| m);
                        assert_eq!(found, Ok(*mv), "{san} in {}", fen_of(&pos));
                        checked += 1;
                        if let Some(fast) = find_move_fast(&pos, &read[0], pos.checkers()) {
                            assert_eq!(fast, *mv, "fast {san} in {}", fen_of(&pos));
                            settled_fast += 1;
                        }
                    }
                    for _ in 0..8 {
                        let n = NormalPattern {
                            role: Some(Role::ALL[rng.below(6)]),
                            from_file: (rng.below(3) == 0).then(|| File::new(rng.below(8) as u32)),
                            from_rank: (rng.below(4) == 0).then(|| Rank::new(rng.below(8) as u32)),
                            to_file: File::new(rng.below(8) as u32),
                            to_rank: Some(Rank::new(rng.below(8) as u32)),
                            promotion: (rng.below(6) == 0).then(|| Role::ALL[rng.below(6)]),
                        };
                        if let Some(mv) = fast_one(&pos, &n, pos.checkers()) {
                            assert_eq!(&general(&pos, &n)[..], &[mv], "{n:?} in {}", fen_of(&pos));
                        }
                    }
                    pos.play_unchecked(legal[rng.below(legal.len())]);
                }
            }
        }
        assert!(checked > 100_000, "only {checked} moves checked");
        // SAN that needs no note is settled by the fast path but for en passant, promotions
        // with check and the like.
        assert!(
            settled_fast * 100 > checked * 95,
            "the fast path settled {settled_fast} of {checked} moves"
        );
    }

    #[test]
    fn fast_path_settles_castling_and_needed_origins_only() {
        let fast = |p: &Chess, t: &str| {
            find_move_fast(p, &ascii::read(t.as_bytes()).unwrap(), p.checkers())
        };
        let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
        assert!(matches!(fast(&p, "O-O"), Some(Move::Castle { .. })));
        assert!(matches!(fast(&p, "O-O-O"), Some(Move::Castle { .. })));
        // The king stands between the rooks: only one reaches f1, and no origin is needed.
        let p = pos("4k3/8/8/8/8/8/8/R3K2R w - - 0 1");
        assert_eq!(fast(&p, "Rf1").map(|m| m.from()), Some(Some(Square::H1)));
        assert_eq!(fast(&p, "Rhf1"), None);
        // Both rooks reach e1: the file is needed.
        let p = pos("4k3/8/8/8/8/8/4K3/R6R w - - 0 1");
        assert_eq!(fast(&p, "Rae1").map(|m| m.from()), Some(Some(Square::A1)));
        assert_eq!(fast(&p, "Rhe1").map(|m| m.from()), Some(Some(Square::H1)));
        assert_eq!(fast(&p, "Re1"), None, "ambiguous");
        assert_eq!(fast(&p, "R1e1"), None, "still ambiguous");
        // One too many: left to the full matcher, which notes it.
        assert_eq!(fast(&Chess::default(), "Ngf3"), None);
        assert_eq!(fast(&Chess::default(), "N1f3"), None);
        // In check, castling is illegal.
        let p = pos("4k3/8/8/8/8/8/4r3/R3K2R w KQ - 0 1");
        assert_eq!(fast(&p, "O-O"), None);
    }

    fn fen_of(pos: &Chess) -> String {
        Fen::from_position(pos, shakmaty::EnPassantMode::Legal).to_string()
    }

    fn pos(fen: &str) -> Chess {
        Fen::from_ascii(fen.as_bytes())
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    fn play(moves: &[&str]) -> Chess {
        let mut p = Chess::default();
        for t in moves {
            let (m, _) = find_move(&p, &ascii::read(t.as_bytes()).unwrap()).unwrap();
            p.play_unchecked(m);
        }
        p
    }

    #[test]
    fn pawn_without_file_never_captures() {
        let p = play(&["e4", "d5"]);
        let r = ascii::read(b"d5").unwrap();
        assert_eq!(find_move(&p, &r), Err(MatchError::Illegal));
        let (m, notes) = find_move(&p, &ascii::read(b"ed5").unwrap()).unwrap();
        assert!(m.is_capture());
        assert!(notes.missing_capture);
    }

    #[test]
    fn lowercase_knight_is_a_knight() {
        let p = Chess::default();
        let (m, _) = find_move(&p, &ascii::read(b"nf3").unwrap()).unwrap();
        assert_eq!(m.role(), Role::Knight);
    }

    #[test]
    fn ambiguity_lists_candidates() {
        let p = pos("4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1");
        match find_move(&p, &ascii::read(b"Nd2").unwrap()) {
            Err(MatchError::Ambiguous(ms)) => assert_eq!(ms.len(), 2),
            other => panic!("{other:?}"),
        }
        let (_, notes) = find_move(&p, &ascii::read(b"Nbd2").unwrap()).unwrap();
        assert!(!notes.over_disambiguated);
        let (_, notes) = find_move(&Chess::default(), &ascii::read(b"Ngf3").unwrap()).unwrap();
        assert!(notes.over_disambiguated);
    }

    #[test]
    fn uci_and_long_algebraic_castling() {
        let p = pos("4k3/8/8/8/8/8/8/4K2R w K - 0 1");
        for t in ["e1g1", "O-O", "0-0", "e1h1"] {
            let (m, _) = find_move(&p, &ascii::read(t.as_bytes()).unwrap()).unwrap();
            assert!(m.is_castle(), "{t}");
        }
    }

    #[test]
    fn suggests_the_bishop_that_can_take() {
        // Legall's mate position before 7.Bxf7+ (written Be4xf7+).
        let p = play(&[
            "e4", "e5", "Nf3", "Nc6", "Bc4", "d6", "Nc3", "Bg4", "O-O", "Nd4", "Nxe5", "Bxd1",
        ]);
        let r = ascii::read(b"Be4xf7+").unwrap();
        assert_eq!(find_move(&p, &r), Err(MatchError::Illegal));
        let s = suggest(&p, &r, "Be4xf7+");
        assert_eq!(San::from_move(&p, s[0]).to_string(), "Bxf7");
        assert_eq!(long_form(&s[0]), "Bc4xf7");
    }

    #[test]
    fn one_character_slips() {
        assert!(edit_distance_at_most_one("Nf3", "Nf3"));
        assert!(edit_distance_at_most_one("Nf4", "Nf3"));
        assert!(edit_distance_at_most_one("fN3", "Nf3"));
        assert!(edit_distance_at_most_one("Nff3", "Nf3"));
        assert!(!edit_distance_at_most_one("Qd1", "Nf3"));
    }
}
