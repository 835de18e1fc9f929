//! The reader shared by every notation beyond plain ASCII SAN: Chinese piece names, figurines
//! and other languages' letters. It folds typographic variants (full-width forms, dashes, `〇`),
//! knows the words Chinese texts use for signs (`将军`, `吃过路兵`, `短易位`, …) and splits glued
//! moves where a piece name starts a new one (`象e4×f7+王e8-e7`).
//!
//! One grammar serves all three notations so that a full-width sign or a glued move is read the
//! same way whichever piece names surround it. Reading is linear in the token and never
//! allocates beyond the moves it pushes.

use shakmaty::{CastlingSide, File, Rank, Role};

use super::letters::Lang;
use super::{CaptureClaim, CheckClaim, MovePattern, NormalPattern, Notes, ReadError, ReadMove};

/// Tokens longer than this are not moves; refusing them keeps byte offsets within `u16`.
const MAX_TOKEN: usize = 512;

/// What one lexeme of a move token means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sym {
    Piece(Role),
    File(File),
    /// `0`–`9`, also `〇` and full-width digits.
    Digit(u8),
    /// `O` or `o` (castling).
    Oh(bool),
    /// `×` `x` `X` `:` `吃`; `true` for the signs that alone after a move mean mate (`×` `x`).
    Capture(bool),
    /// `-` `–` `—` `−` `到` `至`.
    Sep,
    /// `+` `†` `将军`.
    Check,
    /// `#` `≠` `‡` `将死` `绝杀`.
    Mate,
    Equals,
    /// `变` `升变`: promotion follows.
    Promote,
    Open,
    Close,
    /// `e.p.` `ep` `吃过路兵`.
    EnPassant,
    /// `短易位` (king side), `长易位` (queen side), `易位` (either).
    Castle(Option<CastlingSide>),
    /// `!` `?`: annotation glyphs the lexer did not split off (full-width ones).
    Glyph,
    /// `.` `,` `、` `。` `，` `…` trailing a move.
    Punct,
    /// `~`: "any move".
    Any,
    Unknown,
}

#[derive(Clone, Copy, Debug)]
struct Lexeme {
    sym: Sym,
    len: usize,
    notes: u32,
}

/// Words, longest first where one is a prefix of another (`王车易位` before `王`).
const WORDS: &[(&str, Sym)] = &[
    ("吃过路兵", Sym::EnPassant),
    ("吃過路兵", Sym::EnPassant),
    ("王车易位", Sym::Castle(None)),
    ("王車易位", Sym::Castle(None)),
    ("王翼易位", Sym::Castle(Some(CastlingSide::KingSide))),
    ("后翼易位", Sym::Castle(Some(CastlingSide::QueenSide))),
    ("後翼易位", Sym::Castle(Some(CastlingSide::QueenSide))),
    ("短易位", Sym::Castle(Some(CastlingSide::KingSide))),
    ("短入堡", Sym::Castle(Some(CastlingSide::KingSide))),
    ("长易位", Sym::Castle(Some(CastlingSide::QueenSide))),
    ("長易位", Sym::Castle(Some(CastlingSide::QueenSide))),
    ("长入堡", Sym::Castle(Some(CastlingSide::QueenSide))),
    ("長入堡", Sym::Castle(Some(CastlingSide::QueenSide))),
    ("易位", Sym::Castle(None)),
    ("将军", Sym::Check),
    ("將軍", Sym::Check),
    ("将死", Sym::Mate),
    ("將死", Sym::Mate),
    ("绝杀", Sym::Mate),
    ("絕殺", Sym::Mate),
    ("升变", Sym::Promote),
    ("升變", Sym::Promote),
    ("变", Sym::Promote),
    ("變", Sym::Promote),
    ("国王", Sym::Piece(Role::King)),
    ("國王", Sym::Piece(Role::King)),
    ("皇后", Sym::Piece(Role::Queen)),
    ("王后", Sym::Piece(Role::Queen)),
    ("城堡", Sym::Piece(Role::Rook)),
    ("战车", Sym::Piece(Role::Rook)),
    ("戰車", Sym::Piece(Role::Rook)),
    ("主教", Sym::Piece(Role::Bishop)),
    ("骑士", Sym::Piece(Role::Knight)),
    ("騎士", Sym::Piece(Role::Knight)),
    ("士兵", Sym::Piece(Role::Pawn)),
    ("小兵", Sym::Piece(Role::Pawn)),
    ("王", Sym::Piece(Role::King)),
    ("后", Sym::Piece(Role::Queen)),
    ("後", Sym::Piece(Role::Queen)),
    ("车", Sym::Piece(Role::Rook)),
    ("車", Sym::Piece(Role::Rook)),
    ("象", Sym::Piece(Role::Bishop)),
    ("马", Sym::Piece(Role::Knight)),
    ("馬", Sym::Piece(Role::Knight)),
    ("兵", Sym::Piece(Role::Pawn)),
    ("卒", Sym::Piece(Role::Pawn)),
    ("吃", Sym::Capture(false)),
    ("到", Sym::Sep),
    ("至", Sym::Sep),
];

/// Folds a typographic variant to its ASCII meaning: full-width forms (`＋` `ａ` `４`), dashes,
/// `〇`, ideographic punctuation, and the Cyrillic letters that look like files.
fn fold(c: char) -> Option<char> {
    Some(match c {
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(u32::from(c) - 0xFEE0)?,
        '‐' | '‑' | '‒' | '–' | '—' | '―' | '−' => '-',
        '〇' => '0',
        '…' | '。' | '、' => '.',
        'а' => 'a',
        'с' => 'c',
        'е' => 'e',
        _ => return None,
    })
}

fn figurine(c: char) -> Option<Role> {
    Some(match c {
        '♔' | '♚' => Role::King,
        '♕' | '♛' => Role::Queen,
        '♖' | '♜' => Role::Rook,
        '♗' | '♝' => Role::Bishop,
        '♘' | '♞' => Role::Knight,
        '♙' | '♟' => Role::Pawn,
        _ => return None,
    })
}

/// Whether `s` holds a chess figurine (U+2654–U+265F).
pub(crate) fn has_figurine(s: &[u8]) -> bool {
    s.windows(3)
        .any(|w| w[0] == 0xE2 && w[1] == 0x99 && (0x94..=0x9F).contains(&w[2]))
}

/// Whether `s` holds a CJK ideograph (U+4E00–U+9FFF: every piece name and sign word).
pub(crate) fn has_cjk(s: &[u8]) -> bool {
    std::str::from_utf8(s).is_ok_and(|s| s.chars().any(|c| ('\u{4E00}'..='\u{9FFF}').contains(&c)))
}

/// The lexeme at the start of `s` (which is not empty).
fn lexeme(s: &str, lang: Lang) -> Lexeme {
    let lx = |sym, len, notes| Lexeme { sym, len, notes };
    for &(word, sym) in WORDS {
        if s.starts_with(word) {
            let notes = match sym {
                Sym::EnPassant => Notes::CHINESE | Notes::EN_PASSANT_MARK,
                _ => Notes::CHINESE,
            };
            return lx(sym, word.len(), notes);
        }
    }
    if let Some((role, len)) = lang.piece_at(s) {
        let notes = if lang == Lang::En {
            0
        } else {
            Notes::FOREIGN_LETTERS
        };
        return lx(Sym::Piece(role), len, notes);
    }
    for mark in ["e.p.", "e.p", "ep"] {
        if s.starts_with(mark) {
            return lx(Sym::EnPassant, mark.len(), Notes::EN_PASSANT_MARK);
        }
    }
    let Some(raw) = s.chars().next() else {
        return lx(Sym::Unknown, 1, 0);
    };
    let len = raw.len_utf8();
    if let Some(role) = figurine(raw) {
        return lx(Sym::Piece(role), len, Notes::FIGURINE);
    }
    let (c, notes) = match fold(raw) {
        Some(c) => (c, Notes::TYPOGRAPHY),
        None => (raw, 0),
    };
    if notes != 0 {
        // A full-width piece letter (`Ｎ`).
        if let Some((role, _)) = lang.piece_at(c.encode_utf8(&mut [0; 4])) {
            return lx(Sym::Piece(role), len, notes);
        }
    }
    let sym = match c {
        'a'..='h' => Sym::File(File::new(u32::from(c) - u32::from('a'))),
        '0'..='9' => Sym::Digit(c as u8 - b'0'),
        'O' | 'o' => Sym::Oh(c == 'O'),
        '×' | 'x' => Sym::Capture(true),
        'X' | ':' => Sym::Capture(false),
        '-' => Sym::Sep,
        '+' | '†' => Sym::Check,
        '#' | '≠' | '‡' => Sym::Mate,
        '=' => Sym::Equals,
        '(' => Sym::Open,
        ')' => Sym::Close,
        '!' | '?' => Sym::Glyph,
        '.' | ',' => Sym::Punct,
        '~' => Sym::Any,
        _ => Sym::Unknown,
    };
    lx(sym, len, notes)
}

/// A position in the token being read.
#[derive(Clone, Copy)]
struct Cursor<'a> {
    text: &'a str,
    pos: usize,
    lang: Lang,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<Lexeme> {
        let rest = &self.text[self.pos..];
        (!rest.is_empty()).then(|| lexeme(rest, self.lang))
    }

    fn peek_sym(&self) -> Option<Sym> {
        self.peek().map(|lx| lx.sym)
    }

    /// The symbol after the next one.
    fn peek2_sym(&self) -> Option<Sym> {
        let mut c = *self;
        let lx = c.peek()?;
        c.pos += lx.len;
        c.peek_sym()
    }

    fn bump(&mut self, notes: &mut Notes) -> Option<Sym> {
        let lx = self.peek()?;
        self.pos += lx.len;
        notes.set(lx.notes);
        Some(lx.sym)
    }
}

/// Reads a token that may hold several glued moves, with `lang`'s piece letters (Chinese names
/// and figurines are always recognised).
pub(crate) fn read(token: &[u8], lang: Lang, out: &mut Vec<ReadMove>) -> Result<(), ReadError> {
    out.clear();
    if token.len() > MAX_TOKEN {
        return Err(ReadError::Unreadable);
    }
    let text = std::str::from_utf8(token).map_err(|_| ReadError::Unreadable)?;
    if text.contains(['~', '～']) {
        return Err(ReadError::AnyMove);
    }
    let mut c = Cursor { text, pos: 0, lang };
    loop {
        let m = read_move(&mut c)?;
        out.push(m);
        match c.peek_sym() {
            None => return Ok(()),
            // A piece name or a castling word starts the next glued move.
            Some(Sym::Piece(_) | Sym::Castle(_)) => {}
            Some(_) => {
                out.clear();
                return Err(ReadError::Unreadable);
            }
        }
    }
}

fn read_move(c: &mut Cursor<'_>) -> Result<ReadMove, ReadError> {
    let start = c.pos;
    let mut notes = Notes::default();
    let mut capture = CaptureClaim::Unwritten;
    let pattern = match c.peek_sym() {
        Some(Sym::Castle(side)) => {
            c.bump(&mut notes);
            side.map_or(MovePattern::CastleAnySide, MovePattern::Castle)
        }
        Some(Sym::Digit(0) | Sym::Oh(_)) => castling_signs(c, &mut notes)?,
        Some(Sym::Piece(_) | Sym::File(_)) => {
            let (pattern, claim) = normal(c, &mut notes)?;
            capture = claim;
            pattern
        }
        _ => return Err(ReadError::Unreadable),
    };
    let check = suffixes(c, &mut notes);
    Ok(ReadMove {
        pattern,
        capture,
        check,
        notes,
        start: start as u16,
        end: c.pos as u16,
    })
}

/// `0-0`, `O-O-O`, `o-o`, `00`, `〇-〇`: all zeros or all letters, two or three of them.
fn castling_signs(c: &mut Cursor<'_>, notes: &mut Notes) -> Result<MovePattern, ReadError> {
    let first = c.bump(notes);
    let mut count = 1;
    let mut dashes = 0;
    loop {
        match (c.peek_sym(), c.peek2_sym()) {
            (Some(Sym::Sep), next) if next == first => {
                c.bump(notes);
                c.bump(notes);
                dashes += 1;
            }
            (next, _) if next == first => {
                c.bump(notes);
            }
            _ => break,
        }
        count += 1;
        if count > 3 {
            return Err(ReadError::Unreadable);
        }
    }
    let side = match count {
        2 => CastlingSide::KingSide,
        3 => CastlingSide::QueenSide,
        _ => return Err(ReadError::Unreadable),
    };
    // FIDE writes zeros and Chinese texts follow it; only `o-o` and dashless forms are lenient.
    if first == Some(Sym::Oh(false)) || dashes + 1 != count {
        notes.set(Notes::CASTLING_SPELLING);
    }
    Ok(MovePattern::Castle(side))
}

/// One coordinate of a move: a file or a rank.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Coord {
    File(File),
    Rank(Rank),
}

fn normal(c: &mut Cursor<'_>, notes: &mut Notes) -> Result<(MovePattern, CaptureClaim), ReadError> {
    let mut role = None;
    let mut capture = CaptureClaim::Unwritten;
    if let Some(Sym::Piece(r)) = c.peek_sym() {
        c.bump(notes);
        role = Some(r);
        // `马×e5`, `马吃e5`: the sign right after the piece name.
        if let Some(Sym::Capture(_)) = c.peek_sym() {
            c.bump(notes);
            capture = CaptureClaim::Capture;
        }
    }

    // Up to four coordinates, with at most one capture sign or separator among them.
    let mut coords = [Coord::Rank(Rank::First); 4];
    let mut n = 0;
    let mut infix: Option<(usize, Sym)> = None;
    loop {
        let coord = match c.peek_sym() {
            Some(Sym::File(f)) => Coord::File(f),
            Some(Sym::Digit(d @ 1..=8)) => Coord::Rank(Rank::new(u32::from(d - 1))),
            Some(sign @ (Sym::Capture(_) | Sym::Sep)) if n > 0 && infix.is_none() => {
                // A sign is infix only when a square follows; a trailing `×` means mate.
                let mut ahead = *c;
                let mut scratch = Notes::default();
                ahead.bump(&mut scratch);
                while sign == Sym::Sep && ahead.peek_sym() == Some(Sym::Sep) {
                    ahead.bump(&mut scratch); // `——`
                }
                if !matches!(ahead.peek_sym(), Some(Sym::File(_))) {
                    break;
                }
                *c = ahead;
                notes.set(scratch.0);
                infix = Some((n, sign));
                continue;
            }
            _ => break,
        };
        if n == coords.len() {
            return Err(ReadError::Unreadable);
        }
        c.bump(notes);
        coords[n] = coord;
        n += 1;
    }
    let coords = &coords[..n];

    // The destination: a square, or a bare file for a pawn capture (`cd`).
    let (to_file, to_rank, origin) = match coords {
        [origin @ .., Coord::File(f), Coord::Rank(r)] => (*f, Some(*r), origin),
        [Coord::File(_), Coord::File(to)] if matches!(role, None | Some(Role::Pawn)) => {
            if matches!(infix, Some((_, Sym::Sep))) {
                return Err(ReadError::Malformed(
                    "a pawn capture written with two files takes '×' or nothing between them",
                ));
            }
            role = Some(Role::Pawn);
            (*to, None, &coords[..1])
        }
        _ => return Err(ReadError::Unreadable),
    };
    if let Some((at, _)) = infix {
        if at != origin.len() {
            return Err(ReadError::Unreadable);
        }
    }
    let (from_file, from_rank) = match *origin {
        [] => (None, None),
        [Coord::File(f)] => (Some(f), None),
        [Coord::Rank(r)] => (None, Some(r)),
        [Coord::File(f), Coord::Rank(r)] => (Some(f), Some(r)),
        _ => return Err(ReadError::Unreadable),
    };
    let full_origin = from_file.is_some() && from_rank.is_some();
    match infix {
        Some((_, Sym::Sep)) => {
            if !full_origin {
                return Err(ReadError::Malformed(
                    "a '-' between squares needs the full origin square (full record: 马g1-f3)",
                ));
            }
            capture = CaptureClaim::Quiet;
        }
        Some(_) => capture = CaptureClaim::Capture,
        None => {}
    }
    if role.is_none() {
        if !full_origin {
            role = Some(Role::Pawn);
        } else if infix.is_none() && capture == CaptureClaim::Unwritten {
            notes.set(Notes::UCI);
        }
    }
    if full_origin && (infix.is_some() || role == Some(Role::Pawn)) {
        notes.set(Notes::LONG_ALGEBRAIC);
    }

    let promotion = if matches!(role, None | Some(Role::Pawn)) {
        promotion(c, notes, to_rank)?
    } else {
        None
    };
    let pattern = MovePattern::Normal(NormalPattern {
        role,
        from_file,
        from_rank,
        to_file,
        to_rank,
        promotion,
    });
    Ok((pattern, capture))
}

/// `=后`, `变后`, `升变后`, `(后)`, and a bare `后`/`Q` right after a last-rank square. A bare
/// king is read as the next glued move instead: nobody promotes to a king.
fn promotion(
    c: &mut Cursor<'_>,
    notes: &mut Notes,
    to_rank: Option<Rank>,
) -> Result<Option<Role>, ReadError> {
    let last_rank = matches!(to_rank, Some(Rank::First | Rank::Eighth));
    let role = match c.peek_sym() {
        Some(Sym::Equals | Sym::Promote) => {
            c.bump(notes);
            match c.bump(notes) {
                Some(Sym::Piece(role)) => role,
                _ => {
                    return Err(ReadError::Malformed(
                        "a promotion sign needs a piece after it",
                    ))
                }
            }
        }
        Some(Sym::Open) => {
            c.bump(notes);
            let role = match c.bump(notes) {
                Some(Sym::Piece(role)) => role,
                _ => {
                    return Err(ReadError::Malformed(
                        "a promotion sign needs a piece after it",
                    ))
                }
            };
            if c.bump(notes) != Some(Sym::Close) {
                return Err(ReadError::Malformed(
                    "'(' after a move needs a piece and ')'",
                ));
            }
            notes.set(Notes::PROMOTION_WITHOUT_EQUALS);
            role
        }
        Some(Sym::Piece(role)) if last_rank && role != Role::King => {
            c.bump(notes);
            notes.set(Notes::PROMOTION_WITHOUT_EQUALS);
            role
        }
        _ => return Ok(None),
    };
    if role == Role::Pawn {
        return Err(ReadError::Malformed("a pawn cannot promote to a pawn"));
    }
    Ok(Some(role))
}

/// Check and mate signs, en passant marks and annotation glyphs after a move.
fn suffixes(c: &mut Cursor<'_>, notes: &mut Notes) -> CheckClaim {
    let mut check = CheckClaim::None;
    loop {
        match c.peek_sym() {
            Some(Sym::Check) => {
                if check == CheckClaim::Check {
                    notes.set(Notes::DOUBLE_PLUS);
                } else if check == CheckClaim::None {
                    check = CheckClaim::Check;
                }
            }
            Some(Sym::Mate) => check = CheckClaim::Mate,
            // `×` after the destination is the old mate sign (`后f5-f7×`), unless a square
            // follows, which makes it a malformed capture the caller reports.
            Some(Sym::Capture(true)) if !matches!(c.peek2_sym(), Some(Sym::File(_))) => {
                check = CheckClaim::Mate;
            }
            Some(Sym::EnPassant | Sym::Glyph | Sym::Punct) => {}
            _ => return check,
        }
        c.bump(notes);
    }
}

/// A token that is only a sign belonging to the move before it: see [`trailing_sign`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TrailingSign {
    /// The check claim the sign makes, if any.
    pub check: Option<CheckClaim>,
    /// A promotion written apart from its move (`e7-e8 变后`).
    pub promotion: Option<Role>,
    /// Notes the sign carries (`EN_PASSANT_MARK`, `CHINESE`, `DOUBLE_PLUS`, …).
    pub notes: Notes,
}

impl TrailingSign {
    /// Attaches the sign to the move it follows. A mate sign wins over a check sign; a second
    /// check sign is noted as `++`; a promotion fills in a pattern that has none.
    pub fn apply_to(self, m: &mut ReadMove) {
        m.notes.set(self.notes.0);
        match (m.check, self.check) {
            (_, Some(CheckClaim::Mate)) => m.check = CheckClaim::Mate,
            (CheckClaim::Check, Some(CheckClaim::Check)) => m.notes.set(Notes::DOUBLE_PLUS),
            (CheckClaim::None, Some(claim)) => m.check = claim,
            _ => {}
        }
        if let (MovePattern::Normal(n), Some(role)) = (&mut m.pattern, self.promotion) {
            if n.promotion.is_none() {
                n.promotion = Some(role);
            }
        }
    }
}

/// Recognises a token that is only a sign for the previous move.
pub(crate) fn trailing_sign(token: &[u8]) -> Option<TrailingSign> {
    let text = std::str::from_utf8(token).ok()?;
    if text.is_empty() || text.len() > MAX_TOKEN {
        return None;
    }
    let mut c = Cursor {
        text,
        pos: 0,
        lang: Lang::En,
    };
    let mut sign = TrailingSign::default();
    let mut notes = Notes::default();
    let mut meaningful = false;
    while let Some(sym) = c.bump(&mut notes) {
        match sym {
            Sym::Check => {
                if sign.check == Some(CheckClaim::Check) {
                    notes.set(Notes::DOUBLE_PLUS);
                } else if sign.check.is_none() {
                    sign.check = Some(CheckClaim::Check);
                }
            }
            Sym::Mate => sign.check = Some(CheckClaim::Mate),
            // A lone `×` or `x` after a move is the old mate sign (`吃` alone means nothing).
            Sym::Capture(true) => {
                sign.check = Some(CheckClaim::Mate);
            }
            Sym::EnPassant => notes.set(Notes::EN_PASSANT_MARK),
            Sym::Equals | Sym::Promote => match c.bump(&mut notes) {
                Some(Sym::Piece(role)) if role != Role::Pawn => sign.promotion = Some(role),
                _ => return None,
            },
            Sym::Glyph | Sym::Punct => continue,
            _ => return None,
        }
        meaningful = true;
    }
    sign.notes = notes;
    meaningful.then_some(sign)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn has_figurine_finds_only_chess_symbols() {
        assert!(has_figurine("♘f3".as_bytes()));
        assert!(has_figurine("e8=♛".as_bytes()));
        assert!(!has_figurine("马f3".as_bytes()));
        assert!(!has_figurine("☃".as_bytes()));
    }

    #[test]
    fn long_tokens_are_refused_without_panicking() {
        let mut out = Vec::new();
        let long = "马f3".repeat(200);
        assert_eq!(
            read(long.as_bytes(), Lang::En, &mut out),
            Err(ReadError::Unreadable)
        );
        assert_eq!(
            read(&[0xE9, 0xA9, 0x0A], Lang::En, &mut out),
            Err(ReadError::Unreadable)
        );
    }

    /// Every token of up to three pieces from an alphabet of signs, names and coordinates reads
    /// without panicking, and every move's span lies on character boundaries.
    #[test]
    fn combinations_never_panic() {
        const ALPHABET: &[&str] = &[
            "马",
            "后",
            "王车易位",
            "e",
            "8",
            "0",
            "-",
            "×",
            "x",
            "+",
            "≠",
            "=",
            "(",
            ")",
            "变",
            "吃过路兵",
            "e.p.",
            "ｅ",
            "４",
            "〇",
            "！",
            "♘",
            "Кр",
            "O",
            "~",
            "、",
            "——",
            "将",
        ];
        let mut out = Vec::new();
        let mut token = String::new();
        for a in ALPHABET {
            for b in ALPHABET {
                for c in ALPHABET {
                    for lang in [Lang::En, Lang::Ru] {
                        token.clear();
                        token.push_str(a);
                        token.push_str(b);
                        token.push_str(c);
                        if read(token.as_bytes(), lang, &mut out).is_ok() {
                            assert!(!out.is_empty(), "{token}");
                            for m in &out {
                                let span = usize::from(m.start)..usize::from(m.end);
                                assert!(token.get(span).is_some(), "{token}: {m:?}");
                            }
                        }
                        let _ = trailing_sign(token.as_bytes());
                        let _ = crate::notation::read_token(token.as_bytes(), &mut out);
                    }
                }
            }
        }
    }
}
