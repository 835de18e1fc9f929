//! Move notations: reading move tokens of any shape into [`ReadMove`] patterns, and writing
//! legal moves back out in every notation pgnkit speaks.
//!
//! Readers never look at a position: they turn bytes into a pattern (piece, origin hints,
//! destination, capture claim, promotion, check claim). The matcher in
//! [`crate::rules::matcher`] then finds the one legal move the pattern describes. This split is
//! what lets every notation (SAN, long algebraic, UCI, and later Chinese, figurines and other
//! languages' letters) share one matcher and one set of diagnostics.

pub mod ascii;
pub mod chinese;
pub mod fen;
pub mod figurine;
pub mod letters;
mod scan;
pub mod write;

pub use chinese::{trailing_sign, TrailingSign};
pub use letters::Lang;

use shakmaty::{CastlingSide, File, Rank, Role};

/// What a move token says about the move, before any position is consulted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MovePattern {
    /// A piece (or pawn) move described by destination and optional origin hints.
    Normal(NormalPattern),
    /// Castling to the given side.
    Castle(CastlingSide),
    /// Castling without a side (`易位`): accepted only when exactly one castling move is legal.
    CastleAnySide,
    /// A null move (`--`, `Z0`): passes the turn. Not a legal chess move.
    Null,
}

/// A piece move. Every `None` means "not written", to be filled in by the position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NormalPattern {
    /// The moving piece; `None` when the notation names squares only (UCI).
    pub role: Option<Role>,
    pub from_file: Option<File>,
    pub from_rank: Option<Rank>,
    pub to_file: File,
    /// `None` only for pawn captures written with two files (`ed`).
    pub to_rank: Option<Rank>,
    pub promotion: Option<Role>,
}

/// What the token claims about a capture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaptureClaim {
    /// `x`, `×`, `:` was written.
    Capture,
    /// A long-algebraic `-` was written: the writer claims a quiet move.
    Quiet,
    /// Nothing was written. In SAN that claims a quiet move; in UCI it claims nothing.
    Unwritten,
}

/// The check sign written after a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckClaim {
    None,
    Check,
    Mate,
}

/// Lenient spellings noticed while reading a token (bit flags). Each becomes a normalisation
/// warning; `--strict` turns them into errors.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Notes(pub u32);

impl Notes {
    /// Castling written with zeros or lower-case letters (`0-0`, `o-o`).
    pub const CASTLING_SPELLING: u32 = 1 << 0;
    /// A lower-case piece letter (`nf3`).
    pub const LOWERCASE_PIECE: u32 = 1 << 1;
    /// Promotion without `=` (`e8Q`).
    pub const PROMOTION_WITHOUT_EQUALS: u32 = 1 << 2;
    /// Long algebraic notation (`Ng1-f3`, `e2-e4`).
    pub const LONG_ALGEBRAIC: u32 = 1 << 3;
    /// UCI notation (`g1f3`, `e7e8q`).
    pub const UCI: u32 = 1 << 4;
    /// A null move (`--`, `Z0`).
    pub const NULL_MOVE: u32 = 1 << 5;
    /// An en passant mark (`e.p.`, `ep`).
    pub const EN_PASSANT_MARK: u32 = 1 << 6;
    /// Chinese notation (piece names in Chinese characters).
    pub const CHINESE: u32 = 1 << 7;
    /// Figurine notation.
    pub const FIGURINE: u32 = 1 << 8;
    /// Full-width or other typographic variants of ASCII signs.
    pub const TYPOGRAPHY: u32 = 1 << 9;
    /// Another language's piece letters (explicit `--lang`).
    pub const FOREIGN_LETTERS: u32 = 1 << 10;
    /// `++` written for check.
    pub const DOUBLE_PLUS: u32 = 1 << 11;

    pub fn has(self, flag: u32) -> bool {
        self.0 & flag != 0
    }

    pub fn set(&mut self, flag: u32) {
        self.0 |= flag;
    }
}

/// One move read from a token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadMove {
    pub pattern: MovePattern,
    pub capture: CaptureClaim,
    pub check: CheckClaim,
    pub notes: Notes,
    /// Byte range of this move within its token (a token may hold several glued moves).
    pub start: u16,
    pub end: u16,
}

/// Why a token could not be read as a move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadError {
    /// Nothing in the token looks like a move in any notation pgnkit knows.
    Unreadable,
    /// `~` ("any move") is a problem-composition sign: it names no move and cannot be replayed.
    AnyMove,
    /// The token looks like a move but is malformed; the text says how.
    Malformed(&'static str),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Unreadable => f.write_str("not a move in any notation pgnkit reads"),
            ReadError::AnyMove => {
                f.write_str("'~' means \"any move\" in problem notation and cannot be replayed")
            }
            ReadError::Malformed(why) => f.write_str(why),
        }
    }
}

/// Reads a move token in any notation pgnkit detects on its own: SAN and its lenient cousins,
/// long algebraic, UCI and null moves in ASCII; Chinese notation ([`chinese::read`]) when the
/// token holds Chinese characters or other non-ASCII signs (`×`, full-width forms); figurines
/// ([`figurine::read`]). Glued moves produce several entries in `out`. Other languages' letters
/// are never guessed: see [`read_token_with`].
///
/// # Errors
///
/// [`ReadError`] when the token is not a move in any supported notation.
///
/// ```
/// use pgnkit::notation::{read_token, CaptureClaim, MovePattern, ReadError};
/// use shakmaty::{File, Rank, Role};
///
/// let mut moves = Vec::new();
/// read_token("马×e5".as_bytes(), &mut moves)?;
/// let MovePattern::Normal(knight) = moves[0].pattern else { panic!("{moves:?}") };
/// assert_eq!(knight.role, Some(Role::Knight));
/// assert_eq!((knight.to_file, knight.to_rank), (File::E, Some(Rank::Fifth)));
/// assert_eq!(moves[0].capture, CaptureClaim::Capture);
///
/// read_token(b"e2e4", &mut moves)?; // UCI: no piece named
/// assert_eq!(moves.len(), 1);
/// assert_eq!(read_token(b"Zz9", &mut moves), Err(ReadError::Unreadable));
/// # Ok::<(), ReadError>(())
/// ```
pub fn read_token(token: &[u8], out: &mut Vec<ReadMove>) -> Result<(), ReadError> {
    read_token_with(token, None, out)
}

/// [`read_token`] with the piece letters of an explicitly chosen language (`--lang`). With
/// `Some(lang)` other than English, ASCII letters are read as that language's
/// ([`letters::read`]); Chinese characters and figurines are recognised either way.
///
/// # Errors
///
/// [`ReadError`] when the token is not a move in any supported notation.
pub fn read_token_with(
    token: &[u8],
    lang: Option<Lang>,
    out: &mut Vec<ReadMove>,
) -> Result<(), ReadError> {
    out.clear();
    match lang {
        Some(lang) if lang != Lang::En => letters::read(token, lang, out),
        _ if token.is_ascii() => match ascii::read(token) {
            Ok(m) => {
                out.push(m);
                Ok(())
            }
            // Shapes only the shared scanner knows: `cd` (pawn capture by files), glued moves.
            Err(ReadError::Unreadable) => scan::read(token, Lang::En, out),
            Err(err) => Err(err),
        },
        _ if figurine::has_figurine(token) && !scan::has_cjk(token) => figurine::read(token, out),
        _ => chinese::read(token, out),
    }
}

/// A stand-in for the matcher in tests of this module's readers and writers.
#[cfg(test)]
pub(crate) mod test_match {
    use super::{MovePattern, ReadMove};
    use shakmaty::{File, Move, Role, Square};

    /// A stand-in for the real matcher: does the pattern describe this legal move?
    pub(crate) fn fits(read: &ReadMove, m: Move) -> bool {
        let n = match read.pattern {
            MovePattern::Castle(side) => return m.castling_side() == Some(side),
            MovePattern::CastleAnySide => return m.is_castle(),
            MovePattern::Null => return false,
            MovePattern::Normal(n) => n,
        };
        let Some(from) = m.from() else { return false };
        // Castling in UCI: the king's destination, or the rook's square (Chess960).
        let tos = match m {
            Move::Castle { king, rook } => {
                let file = if rook > king { File::G } else { File::C };
                [rook, Square::from_coords(file, king.rank())]
            }
            _ => [m.to(), m.to()],
        };
        n.role.is_none_or(|r| r == m.role())
            && n.from_file.is_none_or(|f| f == from.file())
            && n.from_rank.is_none_or(|r| r == from.rank())
            && tos
                .iter()
                .any(|to| to.file() == n.to_file && n.to_rank.is_none_or(|r| r == to.rank()))
            && n.promotion == m.promotion()
            // A pawn pattern without its file never matches a capture; two files always do.
            && !(n.role == Some(Role::Pawn) && n.from_file.is_none() && m.is_capture())
            && (n.to_rank.is_some() || m.is_capture())
    }
}
