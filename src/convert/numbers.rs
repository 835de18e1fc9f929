//! Moves, positions and outcomes as numbers, for the numeric columns of the tables: what a
//! model is trained on reads them as arrays, without parsing SAN or FEN.
//!
//! The numbers are python-chess's wherever it has one, so that `chess.Move`, `chess.Board` and
//! these columns agree (`.ci/number-columns.py` checks it ply by ply):
//!
//! - a square is 0–63, a1 = 0, b1 = 1, …, h1 = 7, a2 = 8, …, h8 = 63 (`chess.SQUARES`);
//! - a piece type is 1–6: pawn, knight, bishop, rook, queen, king (`chess.PAWN` … `chess.KING`);
//! - a square of a board holds 0 when empty, the piece type for White's piece, the piece type
//!   plus 6 for Black's (1–6 = `PNBRQK`, 7–12 = `pnbrqk`);
//! - castling is the king's move as UCI writes it, as python-chess's `Move.to_square` gives
//!   it: e1g1 in standard chess, and the king onto its rook (e1h1) in Chess960. (shakmaty's
//!   `Move::Castle` is always king → rook.)

use shakmaty::{
    Castles, CastlingMode, CastlingSide, Chess, Color, EnPassantMode, Move, Position, Rank, Role,
    Square,
};

use crate::notation::CheckClaim;
use crate::rules::outcome::Ending;

/// A main-line ply as numbers: the numeric columns of the moves table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MoveNumbers {
    /// The square moved from (0–63); [`MoveNumbers::NONE`] for a null move.
    pub from: u8,
    /// The square moved to; for castling see the module's note.
    pub to: u8,
    /// The piece type moved (1–6); 0 for a null move.
    pub piece: u8,
    /// The piece type captured (a pawn for en passant); 0 for none.
    pub captured: u8,
    /// The piece type promoted to (2–5); 0 for none.
    pub promotion: u8,
    /// [`MoveNumbers::CHECK`], [`MoveNumbers::CAPTURE`], [`MoveNumbers::CASTLING`],
    /// [`MoveNumbers::EN_PASSANT`].
    pub flags: u8,
}

impl MoveNumbers {
    /// A square that is none (a null move's).
    pub const NONE: u8 = u8::MAX;
    /// The move gives check (or mate).
    pub const CHECK: u8 = 1;
    /// The move captures (en passant too).
    pub const CAPTURE: u8 = 2;
    pub const CASTLING: u8 = 4;
    pub const EN_PASSANT: u8 = 8;

    /// A null move: no squares, no piece; it may give check (the side that passed was in it).
    pub fn null(check: bool) -> MoveNumbers {
        MoveNumbers {
            from: Self::NONE,
            to: Self::NONE,
            flags: if check { Self::CHECK } else { 0 },
            ..MoveNumbers::default()
        }
    }

    /// Appends the move in UCI (`e2e4`, `e7e8q`, `e1g1`; `0000` for a null move): the squares
    /// are the ones these numbers hold, castling by the same rule (see the module's note).
    ///
    /// ```
    /// use pgnkit::convert::numbers::MoveNumbers;
    /// use pgnkit::notation::CheckClaim;
    /// use shakmaty::{CastlingMode, Move, Role, Square};
    ///
    /// let promote = Move::Normal {
    ///     role: Role::Pawn,
    ///     from: Square::E7,
    ///     capture: Some(Role::Rook),
    ///     to: Square::D8,
    ///     promotion: Some(Role::Queen),
    /// };
    /// let mut uci = String::new();
    /// MoveNumbers::of(promote, CastlingMode::Standard, CheckClaim::Check).push_uci(&mut uci);
    /// assert_eq!(uci, "e7d8q");
    /// ```
    pub fn push_uci(&self, out: &mut String) {
        const ROLE: [char; 7] = ['?', 'p', 'n', 'b', 'r', 'q', 'k'];
        let square = |s: u8, out: &mut String| {
            out.push(char::from(b'a' + s % 8));
            out.push(char::from(b'1' + s / 8));
        };
        match (self.from, self.to) {
            (Self::NONE, Self::NONE) => out.push_str("0000"),
            // A drop (none in a replayed game), as shakmaty writes one: `Q@e4`.
            (Self::NONE, to) => {
                out.push(ROLE[usize::from(self.piece)].to_ascii_uppercase());
                out.push('@');
                square(to, out);
            }
            (from, to) => {
                square(from, out);
                square(to, out);
                if self.promotion != 0 {
                    out.push(ROLE[usize::from(self.promotion)]);
                }
            }
        }
    }

    /// `mv`, played in a game of castling `mode`, which leaves the other side as `check` says.
    ///
    /// ```
    /// use pgnkit::convert::numbers::MoveNumbers;
    /// use pgnkit::notation::CheckClaim;
    /// use shakmaty::{CastlingMode, Move, Role, Square};
    ///
    /// let castle = Move::Castle { king: Square::E1, rook: Square::H1 };
    /// let n = MoveNumbers::of(castle, CastlingMode::Standard, CheckClaim::None);
    /// // e1 = 4 to g1 = 6, as python-chess's Move.from_uci("e1g1").
    /// assert_eq!((n.from, n.to, n.piece), (4, 6, 6));
    /// assert_eq!(n.flags, MoveNumbers::CASTLING);
    /// let n = MoveNumbers::of(castle, CastlingMode::Chess960, CheckClaim::None);
    /// assert_eq!(n.to, 7, "the king onto its rook");
    /// ```
    pub fn of(mv: Move, mode: CastlingMode, check: CheckClaim) -> MoveNumbers {
        let check = if check == CheckClaim::None {
            0
        } else {
            Self::CHECK
        };
        // One match on the move (a ply's cost counts): the squares as UCI writes them.
        let (from, to, piece, captured, promotion, flags) = match mv {
            Move::Normal {
                role,
                from,
                capture,
                to,
                promotion,
            } => (
                from as u8,
                to as u8,
                role_code(role),
                capture.map_or(0, role_code),
                promotion.map_or(0, role_code),
                if capture.is_some() { Self::CAPTURE } else { 0 },
            ),
            Move::EnPassant { from, to } => (
                from as u8,
                to as u8,
                role_code(Role::Pawn),
                role_code(Role::Pawn),
                0,
                Self::CAPTURE | Self::EN_PASSANT,
            ),
            Move::Castle { king, rook } => {
                // Standard chess writes the king's two steps (e1g1), Chess960 the king onto
                // its rook (e1h1): UCI's rule, as `Move::to_uci` has it.
                let to = match mode {
                    CastlingMode::Standard => {
                        let side = CastlingSide::from_king_side(king < rook);
                        Square::from_coords(side.king_to_file(), king.rank())
                    }
                    CastlingMode::Chess960 => rook,
                };
                (
                    king as u8,
                    to as u8,
                    role_code(Role::King),
                    0,
                    0,
                    Self::CASTLING,
                )
            }
            // No drops in the games replayed; a drop would have no square it came from.
            Move::Put { role, to } => (Self::NONE, to as u8, role_code(role), 0, 0, 0),
        };
        MoveNumbers {
            from,
            to,
            piece,
            captured,
            promotion,
            flags: flags | check,
        }
    }

    /// Whether flag `flag` is set.
    pub fn has(self, flag: u8) -> bool {
        self.flags & flag != 0
    }
}

/// python-chess's piece type of a role: 1 (pawn) to 6 (king).
pub fn role_code(role: Role) -> u8 {
    role as u8
}

/// A position as numbers: the board, whose turn, castling rights, the en passant square and
/// the half-move clock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionNumbers {
    /// A square's piece code, by square (a1 = 0): see the module's note.
    pub board: [u8; 64],
    /// White is to move (python-chess's `board.turn`, `chess.WHITE` = True).
    pub white_to_move: bool,
    /// Castling rights, a bit a right: see [`castling_mask`].
    pub castling: u8,
    /// The square a pawn passed over on a double step just made, whether or not a capture en
    /// passant is possible (as python-chess's `board.ep_square`); `None` otherwise.
    pub ep_square: Option<u8>,
    /// Plies since the last capture or pawn move.
    pub halfmove_clock: u32,
}

impl PositionNumbers {
    /// The numbers of `after`, which `mv` made from a position whose board was `before`
    /// ([`board_after`]).
    pub fn after_move(before: &[u8; 64], mv: Move, after: &Chess) -> PositionNumbers {
        let board = board_after(before, mv, after.turn().other());
        debug_assert_eq!(board, board_codes(after), "{mv:?}");
        PositionNumbers {
            board,
            white_to_move: after.turn() == Color::White,
            castling: castling_mask(after),
            ep_square: after.ep_square(EnPassantMode::Always).map(|sq| sq as u8),
            halfmove_clock: after.halfmoves(),
        }
    }

    /// The numbers of `pos`.
    ///
    /// ```
    /// use pgnkit::convert::numbers::PositionNumbers;
    ///
    /// let start = PositionNumbers::of(&shakmaty::Chess::default());
    /// assert_eq!(start.board[..8], [4, 2, 3, 5, 6, 3, 2, 4]); // a1..h1: R N B Q K B N R
    /// assert_eq!(start.board[60], 12); // e8: Black's king
    /// assert_eq!((start.white_to_move, start.castling, start.ep_square), (true, 0b1111, None));
    /// ```
    pub fn of(pos: &Chess) -> PositionNumbers {
        PositionNumbers {
            board: board_codes(pos),
            white_to_move: pos.turn() == Color::White,
            castling: castling_mask(pos),
            ep_square: pos.ep_square(EnPassantMode::Always).map(|sq| sq as u8),
            halfmove_clock: pos.halfmoves(),
        }
    }
}

/// Positions as numbers, one a ply, a vector a column: the moves table's position columns are
/// these vectors handed over, not values gathered from rows of [`PositionNumbers`] at the
/// batch's end (the boards' bytes were copied a third time so).
#[derive(Clone, Debug, Default)]
pub struct PositionColumns {
    pub boards: Vec<[u8; 64]>,
    pub white_to_move: Vec<bool>,
    pub castling: Vec<u8>,
    /// [`MoveNumbers::NONE`] where there is none.
    pub ep_square: Vec<u8>,
    pub halfmove_clock: Vec<u32>,
}

impl PositionColumns {
    /// Appends `positions`, a pass over them a column.
    pub fn extend(&mut self, positions: &[PositionNumbers]) {
        self.boards.extend(positions.iter().map(|p| p.board));
        self.white_to_move
            .extend(positions.iter().map(|p| p.white_to_move));
        self.castling.extend(positions.iter().map(|p| p.castling));
        let none = MoveNumbers::NONE;
        self.ep_square
            .extend(positions.iter().map(|p| p.ep_square.unwrap_or(none)));
        self.halfmove_clock
            .extend(positions.iter().map(|p| p.halfmove_clock));
    }

    pub fn clear(&mut self) {
        self.boards.clear();
        self.white_to_move.clear();
        self.castling.clear();
        self.ep_square.clear();
        self.halfmove_clock.clear();
    }
}

/// The numbers of a position kept up from the moves alone, without the position: what a main
/// line told at once ([`crate::rules::visit::MainLine`]) needs, with the checks the replay
/// found, so that no one plays the line a second time. Each move changes them as shakmaty's
/// `play` changes its position (the board by [`board_after`]'s rule, the clock, the en
/// passant square, the castling rights); debug builds hold them to a position played beside.
#[derive(Clone, Debug)]
pub struct PositionFromMoves {
    numbers: PositionNumbers,
    castles: Castles,
}

impl PositionFromMoves {
    /// The numbers of `start`, to be played on.
    pub fn new(start: &Chess) -> PositionFromMoves {
        PositionFromMoves {
            numbers: PositionNumbers::of(start),
            castles: start.castles().clone(),
        }
    }

    /// The numbers of the position now.
    pub fn numbers(&self) -> &PositionNumbers {
        &self.numbers
    }

    /// Plays `mv`, a legal move of the side to move.
    pub fn play(&mut self, mv: Move) {
        let n = &mut self.numbers;
        let mover = if n.white_to_move {
            Color::White
        } else {
            Color::Black
        };
        let code = |role: Role| role_code(role) + if n.white_to_move { 0 } else { 6 };
        let board = &mut n.board;
        squares_changed(mv, mover, |square, role| {
            board[square as usize] = role.map_or(0, code);
        });
        n.halfmove_clock = if mv.is_zeroing() {
            0
        } else {
            n.halfmove_clock.saturating_add(1)
        };
        n.ep_square = None;
        match mv {
            Move::Normal {
                role,
                from,
                capture,
                to,
                ..
            } => {
                // A pawn's double step from its own second rank (shakmaty's rule): the square
                // it passed over, whether or not a capture en passant can follow.
                let double = role == Role::Pawn
                    && from.rank() == mover.relative_rank(Rank::Second)
                    && (to as u8).abs_diff(from as u8) == 16;
                if double {
                    n.ep_square = Some((from as u8 + to as u8) / 2);
                }
                // Only a king, a rook or a rook taken changes the rights: most moves leave
                // the bits as they are.
                let rook_taken = capture == Some(Role::Rook);
                if n.castling != 0 && (matches!(role, Role::King | Role::Rook) || rook_taken) {
                    match role {
                        Role::King => self.castles.discard_color(mover),
                        Role::Rook => self.castles.discard_rook(from),
                        _ => {}
                    }
                    if rook_taken {
                        self.castles.discard_rook(to);
                    }
                    n.castling = castling_bits(&self.castles);
                }
            }
            Move::Castle { .. } => {
                self.castles.discard_color(mover);
                n.castling = castling_bits(&self.castles);
            }
            Move::EnPassant { .. } | Move::Put { .. } => {}
        }
        n.white_to_move = !n.white_to_move;
    }
}

/// The board after `mv`, made by `mover`, from the board before it: the squares the move
/// touches, not a board written anew (a position's twelve bitboards cost about 180
/// instructions a ply, this about twenty).
///
/// ```
/// use pgnkit::convert::numbers::{board_after, board_codes};
/// use shakmaty::{Chess, Color, Move, Position, Square};
///
/// let start = Chess::default();
/// let e4 = Move::Normal {
///     role: shakmaty::Role::Pawn, from: Square::E2, capture: None, to: Square::E4, promotion: None,
/// };
/// let after = board_after(&board_codes(&start), e4, Color::White);
/// let mut pos = start.clone();
/// pos.play_unchecked(e4);
/// assert_eq!(after, board_codes(&pos));
/// ```
pub fn board_after(before: &[u8; 64], mv: Move, mover: Color) -> [u8; 64] {
    let mut board = *before;
    let code = |role: Role| role_code(role) + if mover == Color::White { 0 } else { 6 };
    squares_changed(mv, mover, |square, role| {
        board[square as usize] = role.map_or(0, code);
    });
    board
}

/// What `mv`, a legal move of `mover`'s, changes on the board: `set(square, role)` for each
/// square it touches, in order, with the role of `mover`'s piece that then stands there
/// (`None`: the square is emptied). The one rule for boards kept from the moves (these
/// columns, `select`'s watch), which need not play the whole position.
#[inline(always)]
pub fn squares_changed(mv: Move, mover: Color, mut set: impl FnMut(Square, Option<Role>)) {
    match mv {
        Move::Normal {
            role,
            from,
            to,
            promotion,
            ..
        } => {
            set(from, None);
            set(to, Some(promotion.unwrap_or(role)));
        }
        Move::EnPassant { from, to } => {
            set(from, None);
            set(to, Some(Role::Pawn));
            // The pawn taken stands beside the one that took it.
            set(Square::from_coords(to.file(), from.rank()), None);
        }
        Move::Castle { king, rook } => {
            let side = if rook.file() > king.file() {
                CastlingSide::KingSide
            } else {
                CastlingSide::QueenSide
            };
            // Both first: in Chess960 the king may land where its rook stood.
            set(king, None);
            set(rook, None);
            set(side.king_to(mover), Some(Role::King));
            set(side.rook_to(mover), Some(Role::Rook));
        }
        Move::Put { role, to } => set(to, Some(role)),
    }
}

/// The board of `pos` as 64 piece codes, by square: a role's squares at once from its
/// bitboard, not a look-up for each of 64 squares.
pub fn board_codes(pos: &Chess) -> [u8; 64] {
    let mut out = [0u8; 64];
    let board = pos.board();
    for role in Role::ALL {
        let code = role_code(role);
        for sq in board.by_role(role) & board.white() {
            out[sq as usize] = code;
        }
        for sq in board.by_role(role) & board.black() {
            out[sq as usize] = code + 6;
        }
    }
    out
}

/// Castling rights as bits: 1 White's king side (`K`), 2 White's queen side (`Q`), 4 Black's
/// king side (`k`), 8 Black's queen side (`q`). A side is the side of the king its rook is on,
/// in Chess960 too (python-chess's `has_kingside_castling_rights`).
pub fn castling_mask(pos: &Chess) -> u8 {
    castling_bits(pos.castles())
}

/// [`castling_mask`] of the rights `castles`.
fn castling_bits(castles: &Castles) -> u8 {
    let mut mask = 0;
    for (bit, color, side) in [
        (1, Color::White, CastlingSide::KingSide),
        (2, Color::White, CastlingSide::QueenSide),
        (4, Color::Black, CastlingSide::KingSide),
        (8, Color::Black, CastlingSide::QueenSide),
    ] {
        if castles.has(color, side) {
            mask |= bit;
        }
    }
    mask
}

/// What holds in a game's final position, as python-chess's `board.is_checkmate()`,
/// `is_stalemate()` and `is_insufficient_material()` say it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FinalFlags {
    pub checkmate: bool,
    pub stalemate: bool,
    /// Neither side has the material to mate (a bare king, a king and a minor piece, kings
    /// and bishops all on one colour): not every dead position.
    pub insufficient_material: bool,
}

impl FinalFlags {
    /// The flags of a game the rules ended as `termination` in `pos`: a checkmate or a
    /// stalemate is the end of the main line, and the replay found it there already.
    pub fn of(termination: Ending, pos: &Chess) -> FinalFlags {
        FinalFlags {
            checkmate: termination == Ending::Checkmate,
            stalemate: termination == Ending::Stalemate,
            insufficient_material: pos.is_insufficient_material(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::outcome::GameResult;
    use shakmaty::fen::Fen;
    use shakmaty::san::San;

    fn play(fen: &str, san: &str) -> (Chess, Move) {
        let pos: Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        let mv = San::from_ascii(san.as_bytes())
            .unwrap()
            .to_move(&pos)
            .unwrap();
        (pos, mv)
    }

    #[test]
    fn promotions_captures_and_en_passant_are_numbered() {
        let (_, mv) = play("1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1", "axb8=Q");
        let n = MoveNumbers::of(mv, CastlingMode::Standard, CheckClaim::Check);
        // a7 = 48, b8 = 57; a pawn takes a knight and becomes a queen.
        assert_eq!(
            (n.from, n.to, n.piece, n.captured, n.promotion),
            (48, 57, 1, 2, 5)
        );
        assert!(n.has(MoveNumbers::CHECK) && n.has(MoveNumbers::CAPTURE));
        let (_, mv) = play("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "exd6");
        let n = MoveNumbers::of(mv, CastlingMode::Standard, CheckClaim::None);
        assert_eq!((n.from, n.to, n.captured), (36, 43, 1));
        assert_eq!(n.flags, MoveNumbers::CAPTURE | MoveNumbers::EN_PASSANT);
        let n = MoveNumbers::null(false);
        assert_eq!((n.from, n.piece, n.flags), (MoveNumbers::NONE, 0, 0));
    }

    #[test]
    fn uci_from_the_numbers_is_shakmatys() {
        // Every legal move of positions with promotions (and under-promotions), en passant,
        // castling both ways in standard chess and in Chess960 (king and rooks off e1, a1, h1).
        let positions = [
            ("1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1", CastlingMode::Standard),
            ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", CastlingMode::Standard),
            (
                "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 5 20",
                CastlingMode::Standard,
            ),
            (
                "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 5 20",
                CastlingMode::Standard,
            ),
            (
                "1rk2r2/8/8/8/8/8/8/1RK2R2 w BFbf - 0 1",
                CastlingMode::Chess960,
            ),
            (
                "1r4kr/8/8/8/8/8/8/1R4KR b BHbh - 0 1",
                CastlingMode::Chess960,
            ),
        ];
        let mut moves = 0;
        for (fen, mode) in positions {
            let pos: Chess = fen.parse::<Fen>().unwrap().into_position(mode).unwrap();
            for mv in pos.legal_moves() {
                let mut ours = String::new();
                MoveNumbers::of(mv, mode, CheckClaim::None).push_uci(&mut ours);
                assert_eq!(ours, mv.to_uci(mode).to_string(), "{fen}: {mv:?}");
                moves += 1;
            }
        }
        assert!(moves > 100, "{moves} moves");
        let mut null = String::new();
        MoveNumbers::null(false).push_uci(&mut null);
        assert_eq!(null, "0000");
    }

    #[test]
    fn numbers_kept_from_the_moves_are_the_positions_numbers() {
        // Each line from its FEN (Chess960 where the rooks are not in the corners): castling
        // rights lost by a king's move, a rook's move and a rook taken on its square,
        // castling both ways, double steps, en passant, promotions, the clock.
        let lines = [
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                CastlingMode::Standard,
                "e4 d5 exd5 c5 dxc6 Nf6 cxb7 Bg4 bxa8=Q Qc7 Qxb8+ Kd7 Nf3 e5 Be2 Bd6 O-O Rxb8 \
                 Re1 Kc8 h4 g5 hxg5 h5 gxh6",
            ),
            (
                "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 5 20",
                CastlingMode::Standard,
                "Rxa8+ Ke7 Raxh8 Kd6 O-O Kc5",
            ),
            (
                "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
                CastlingMode::Standard,
                "O-O-O Ke2 Rh2+ Kf3 Rxh1",
            ),
            (
                "nrkbqrbn/pppppppp/8/8/8/8/PPPPPPPP/NRKBQRBN w FBfb - 0 1",
                CastlingMode::Chess960,
                "e4 e5 Be2 Be7 O-O-O O-O-O Kb1 Kb8",
            ),
        ];
        for (fen, mode, sans) in lines {
            let mut pos: Chess = fen.parse::<Fen>().unwrap().into_position(mode).unwrap();
            let mut kept = PositionFromMoves::new(&pos);
            for san in sans.split_whitespace() {
                let mv = San::from_ascii(san.as_bytes())
                    .unwrap()
                    .to_move(&pos)
                    .unwrap_or_else(|e| panic!("{san} in {fen}: {e}"));
                pos.play_unchecked(mv);
                kept.play(mv);
                assert_eq!(*kept.numbers(), PositionNumbers::of(&pos), "{san} in {fen}");
            }
        }
    }

    #[test]
    fn the_en_passant_square_is_set_by_every_double_step() {
        // No pawn of Black's can take on e3, and the square is there still.
        let (mut pos, mv) = play(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "e4",
        );
        pos.play_unchecked(mv);
        let n = PositionNumbers::of(&pos);
        assert_eq!(n.ep_square, Some(20));
        assert!(!n.white_to_move);
        assert_eq!(n.board[28], 1);
    }

    #[test]
    fn castling_rights_are_four_bits() {
        let (pos, _) = play("r3k2r/8/8/8/8/8/8/R3K2R w Kq - 3 9", "Kf1");
        assert_eq!(castling_mask(&pos), 1 | 8);
        assert_eq!(PositionNumbers::of(&pos).halfmove_clock, 3);
    }

    #[test]
    fn results_and_terminations_are_numbered() {
        assert_eq!(
            ["1-0", "1/2-1/2", "0-1", "*"]
                .map(|r| GameResult::of_tag(r).and_then(GameResult::code)),
            [Some(1), Some(0), Some(-1), None]
        );
        assert_eq!(Ending::Checkmate.code(), 1);
        assert_eq!(Ending::SeventyFive.code(), 5);
    }
}
