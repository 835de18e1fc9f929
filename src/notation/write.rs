//! Writing legal moves in every notation pgnkit speaks: SAN, long algebraic (exactly as
//! python-chess's `board.lan()`), UCI, figurines (FAN), Chinese short and full records, and
//! SAN or long algebraic with other languages' letters.
//!
//! Writers take the position *before* the move, a legal move and the check claim that holds
//! *after* it (the caller has played the move and knows; computing it here would mean playing
//! every move twice). They append to a `String` so a converter can reuse one buffer. Each
//! writer's output reads back through [`super::read_token_with`] as a pattern that describes
//! the same move.

use std::fmt::Write as _;

use shakmaty::san::San;
use shakmaty::{CastlingMode, CastlingSide, Chess, Move, Role, Square};

use super::letters::Lang;
use super::CheckClaim;

/// The capture sign in Chinese records.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CaptureSign {
    /// `×`, the primer's sign.
    #[default]
    Times,
    /// `x`.
    X,
    /// `:`.
    Colon,
}

impl CaptureSign {
    fn as_str(self) -> &'static str {
        match self {
            CaptureSign::Times => "×",
            CaptureSign::X => "x",
            CaptureSign::Colon => ":",
        }
    }
}

/// The mate sign in Chinese records.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MateSign {
    /// `≠`, the primer's sign.
    #[default]
    NotEqual,
    /// `#`.
    Hash,
}

/// How Chinese records are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ZhStyle {
    /// Traditional characters (`馬` `車`) instead of simplified (`马` `车`).
    pub traditional: bool,
    pub capture: CaptureSign,
    pub mate: MateSign,
}

/// A notation to write moves in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Notation {
    /// Standard algebraic notation: `Nf3`, `exd5`, `O-O`, `e8=Q+`.
    San,
    /// Long algebraic: `Ng1-f3`, `e4xd5`, `O-O`, `e7-e8=Q`.
    Lan,
    /// UCI: `g1f3`, `e7e8q`; castling as `e1g1`, or king-takes-rook `e1h1` in Chess960 mode.
    Uci(CastlingMode),
    /// Figurine algebraic notation with white figurines: `♘f3`, `e8=♕`.
    Fan,
    /// Chinese short record: `马f3`, `马×e5`, `e×d5`, `e8=后`, `0-0`.
    Zh(ZhStyle),
    /// Chinese full record: `马g1-f3`, `马f3×e5`, `e2-e4`, `e7-e8=后`.
    ZhLong(ZhStyle),
    /// SAN (or long algebraic) with a language's piece letters: `Sf3`, `Sg1-f3` in German.
    Letters { lang: Lang, long: bool },
}

/// Appends `m` (legal in `pos`) in `notation`, followed by the sign for `check`.
pub fn write(pos: &Chess, m: Move, check: CheckClaim, notation: Notation, out: &mut String) {
    match notation {
        Notation::San => san(pos, m, check, out),
        Notation::Lan => lan(pos, m, check, out),
        Notation::Uci(mode) => uci(m, mode, out),
        Notation::Fan => fan(pos, m, check, out),
        Notation::Zh(style) => zh(pos, m, check, style, out),
        Notation::ZhLong(style) => zh_long(pos, m, check, style, out),
        Notation::Letters { lang, long: false } => letters_san(pos, m, check, lang, out),
        Notation::Letters { lang, long: true } => letters_lan(pos, m, check, lang, out),
    }
}

/// SAN as shakmaty writes it (`Nbd2`, `exd5`, `O-O`, `e8=Q`), plus `+` or `#`.
pub fn san(pos: &Chess, m: Move, check: CheckClaim, out: &mut String) {
    San::from_move(pos, m).append_to_string(out);
    suffix(check, "#", out);
}

/// Long algebraic exactly as python-chess's `board.lan()`: `Ng1-f3`, `e2-e4`, `Nf3xe5`,
/// `e5xd6` (en passant), `O-O`, `e7-e8=Q`, plus `+` or `#`.
pub fn lan(pos: &Chess, m: Move, check: CheckClaim, out: &mut String) {
    long(pos, m, check, &Spelling::english(Lang::En), out);
}

/// UCI (`g1f3`, `e7e8q`). Castling is written king-to-destination (`e1g1`) in
/// [`CastlingMode::Standard`] and king-takes-rook (`e1h1`) in [`CastlingMode::Chess960`].
pub fn uci(m: Move, mode: CastlingMode, out: &mut String) {
    let _ = write!(out, "{}", m.to_uci(mode));
}

/// Figurine algebraic notation with white figurines for both sides (`♘f3`, `♗xf7+`, `e8=♕`);
/// pawns are unlettered.
pub fn fan(pos: &Chess, m: Move, check: CheckClaim, out: &mut String) {
    let spelling = Spelling {
        pieces: Pieces::Figurine,
        capture: "x",
        mate: "#",
        castle: ["O-O", "O-O-O"],
    };
    short(pos, m, check, &spelling, out);
}

/// Chinese short record (简易记录) with SAN's disambiguation: `马f3`, `马bd2`, `车1e1`, `马×e5`,
/// `e×d5`, `e8=后`, `后×f7≠`, `0-0`, `0-0-0`.
pub fn zh(pos: &Chess, m: Move, check: CheckClaim, style: ZhStyle, out: &mut String) {
    short(pos, m, check, &Spelling::chinese(style), out);
}

/// Chinese full record (完整记录): `马g1-f3`, `马f3×e5`, `e2-e4`, `e4×d5`, `e7-e8=后`, `王e1-e2`,
/// `0-0`.
pub fn zh_long(pos: &Chess, m: Move, check: CheckClaim, style: ZhStyle, out: &mut String) {
    long(pos, m, check, &Spelling::chinese(style), out);
}

/// SAN with `lang`'s piece letters (`Sf3`, `Cxe5`, `e8=D`, `Крe2`).
pub fn letters_san(pos: &Chess, m: Move, check: CheckClaim, lang: Lang, out: &mut String) {
    short(pos, m, check, &Spelling::english(lang), out);
}

/// Long algebraic with `lang`'s piece letters (`Sg1-f3`, `e7-e8=D`).
pub fn letters_lan(pos: &Chess, m: Move, check: CheckClaim, lang: Lang, out: &mut String) {
    long(pos, m, check, &Spelling::english(lang), out);
}

#[derive(Clone, Copy)]
enum Pieces {
    Letters(Lang),
    Figurine,
    Chinese { traditional: bool },
}

impl Pieces {
    fn name(self, role: Role) -> &'static str {
        match self {
            Pieces::Letters(lang) => lang.piece(role),
            Pieces::Figurine => match role {
                Role::King => "♔",
                Role::Queen => "♕",
                Role::Rook => "♖",
                Role::Bishop => "♗",
                Role::Knight => "♘",
                Role::Pawn => "",
            },
            Pieces::Chinese { traditional } => match role {
                Role::King => "王",
                // Never `後`: that is a mis-conversion of 后.
                Role::Queen => "后",
                Role::Rook if traditional => "車",
                Role::Rook => "车",
                Role::Bishop => "象",
                Role::Knight if traditional => "馬",
                Role::Knight => "马",
                Role::Pawn => "",
            },
        }
    }
}

/// Everything that differs between the SAN-shaped and long-shaped notations.
struct Spelling {
    pieces: Pieces,
    capture: &'static str,
    mate: &'static str,
    /// King side, queen side.
    castle: [&'static str; 2],
}

impl Spelling {
    fn english(lang: Lang) -> Spelling {
        Spelling {
            pieces: Pieces::Letters(lang),
            capture: "x",
            mate: "#",
            castle: ["O-O", "O-O-O"],
        }
    }

    fn chinese(style: ZhStyle) -> Spelling {
        Spelling {
            pieces: Pieces::Chinese {
                traditional: style.traditional,
            },
            capture: style.capture.as_str(),
            mate: match style.mate {
                MateSign::NotEqual => "≠",
                MateSign::Hash => "#",
            },
            castle: ["0-0", "0-0-0"],
        }
    }

    fn castle(&self, side: CastlingSide) -> &'static str {
        match side {
            CastlingSide::KingSide => self.castle[0],
            CastlingSide::QueenSide => self.castle[1],
        }
    }
}

fn square(sq: Square, out: &mut String) {
    out.push(sq.file().char());
    out.push(sq.rank().char());
}

fn promotion(role: Option<Role>, sp: &Spelling, out: &mut String) {
    if let Some(role) = role {
        out.push('=');
        out.push_str(sp.pieces.name(role));
    }
}

fn suffix(check: CheckClaim, mate: &str, out: &mut String) {
    match check {
        CheckClaim::None => {}
        CheckClaim::Check => out.push('+'),
        CheckClaim::Mate => out.push_str(mate),
    }
}

/// SAN's shape (and disambiguation) with other spellings.
fn short(pos: &Chess, m: Move, check: CheckClaim, sp: &Spelling, out: &mut String) {
    match San::from_move(pos, m) {
        San::Normal {
            role,
            file,
            rank,
            capture,
            to,
            promotion: promoted,
        } => {
            out.push_str(sp.pieces.name(role));
            if let Some(file) = file {
                out.push(file.char());
            }
            if let Some(rank) = rank {
                out.push(rank.char());
            }
            if capture {
                out.push_str(sp.capture);
            }
            square(to, out);
            promotion(promoted, sp, out);
        }
        San::Castle(side) => out.push_str(sp.castle(side)),
        San::Put { role, to } => {
            out.push_str(sp.pieces.name(role));
            out.push('@');
            square(to, out);
        }
        San::Null => out.push_str("--"),
    }
    suffix(check, sp.mate, out);
}

/// The long shape: piece, origin, `-` or the capture sign, destination, promotion.
fn long(_pos: &Chess, m: Move, check: CheckClaim, sp: &Spelling, out: &mut String) {
    match m {
        Move::Castle { .. } => {
            let side = m.castling_side().unwrap_or(CastlingSide::KingSide);
            out.push_str(sp.castle(side));
        }
        Move::Put { role, to } => {
            out.push_str(sp.pieces.name(role));
            out.push('@');
            square(to, out);
        }
        Move::Normal { .. } | Move::EnPassant { .. } => {
            out.push_str(sp.pieces.name(m.role()));
            if let Some(from) = m.from() {
                square(from, out);
            }
            out.push_str(if m.is_capture() { sp.capture } else { "-" });
            square(m.to(), out);
            promotion(m.promotion(), sp, out);
        }
    }
    suffix(check, sp.mate, out);
}
