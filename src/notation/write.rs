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
///
/// ```
/// use pgnkit::notation::write::{write, Notation};
/// use pgnkit::notation::{CheckClaim, Lang};
/// use shakmaty::{uci::UciMove, Chess};
///
/// let pos = Chess::default();
/// let m = "g1f3".parse::<UciMove>()?.to_move(&pos)?;
/// let mut out = String::new();
/// for notation in [Notation::San, Notation::Lan, Notation::Letters { lang: Lang::De, long: false }] {
///     write(&pos, m, CheckClaim::None, notation, &mut out);
///     out.push(' ');
/// }
/// assert_eq!(out, "Nf3 Ng1-f3 Sf3 ");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::test_match::fits;
    use crate::notation::{read_token_with, CaptureClaim};
    use shakmaty::fen::Fen;
    use shakmaty::san::SanPlus;
    use shakmaty::Position;

    const OPERA_GAME: &str = "e4 e5 Nf3 d6 d4 Bg4 dxe5 Bxf3 Qxf3 dxe5 Bc4 Nf6 Qb3 Qe7 Nc3 c6 Bg5 \
        b5 Nxb5 cxb5 Bxb5+ Nbd7 O-O-O Rd8 Rxd7 Rxd7 Rd1 Qe6 Bxd7+ Nxd7 Qb8+ Nxb8 Rd8#";

    fn claim_after(pos: &Chess, m: Move) -> CheckClaim {
        let mut after = pos.clone();
        after.play_unchecked(m);
        if after.is_checkmate() {
            CheckClaim::Mate
        } else if after.is_check() {
            CheckClaim::Check
        } else {
            CheckClaim::None
        }
    }

    fn written(pos: &Chess, m: Move, notation: Notation) -> String {
        let mut s = String::new();
        write(pos, m, claim_after(pos, m), notation, &mut s);
        s
    }

    fn all_notations() -> Vec<(Notation, Option<Lang>)> {
        let mut all = vec![
            (Notation::San, None),
            (Notation::Lan, None),
            (Notation::Uci(CastlingMode::Standard), None),
            (Notation::Uci(CastlingMode::Chess960), None),
            (Notation::Fan, None),
        ];
        for traditional in [false, true] {
            for capture in [CaptureSign::Times, CaptureSign::X, CaptureSign::Colon] {
                for mate in [MateSign::NotEqual, MateSign::Hash] {
                    let style = ZhStyle {
                        traditional,
                        capture,
                        mate,
                    };
                    all.push((Notation::Zh(style), None));
                    all.push((Notation::ZhLong(style), None));
                }
            }
        }
        for lang in Lang::ALL {
            for long in [false, true] {
                all.push((Notation::Letters { lang, long }, Some(lang)));
            }
        }
        all
    }

    /// Every legal move in `pos`, in every notation, reads back as a pattern that matches that
    /// move and no other, with the right capture and check claims.
    fn round_trip_all_moves(pos: &Chess, notations: &[(Notation, Option<Lang>)]) {
        let legal = pos.legal_moves();
        let mut out = Vec::new();
        for &m in &legal {
            let claim = claim_after(pos, m);
            for &(notation, lang) in notations {
                let text = written(pos, m, notation);
                let context = format!(
                    "{notation:?}: {text} ({m:?}) in {}",
                    Fen::from_position(pos, shakmaty::EnPassantMode::Legal)
                );
                // The international notations are written in ASCII.
                let international =
                    matches!(notation, Notation::San | Notation::Lan | Notation::Uci(_));
                assert!(!international || text.is_ascii(), "{context}");
                read_token_with(text.as_bytes(), lang, &mut out)
                    .unwrap_or_else(|e| panic!("{context}: {e}"));
                assert_eq!(out.len(), 1, "{context}: {out:?}");
                let read = out[0];
                let matching: Vec<_> = legal.iter().filter(|&&c| fits(&read, c)).collect();
                assert_eq!(matching, [&m], "{context}: {read:?}");
                if !matches!(notation, Notation::Uci(_)) {
                    assert_eq!(read.check, claim, "{context}");
                    let expected = match (m.is_capture(), read.capture) {
                        (true, _) => CaptureClaim::Capture,
                        (false, CaptureClaim::Quiet) => CaptureClaim::Quiet,
                        (false, _) => CaptureClaim::Unwritten,
                    };
                    assert_eq!(read.capture, expected, "{context}");
                }
                assert_eq!(usize::from(read.end), text.len(), "{context}");
            }
        }
    }

    struct Row<'a> {
        line: usize,
        fen: Option<&'a str>,
        fields: Vec<&'a str>,
    }

    fn rows() -> Vec<Row<'static>> {
        include_str!("../../testdata/notation/writers.txt")
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
            .map(|(i, l)| Row {
                line: i + 1,
                fen: l.strip_prefix("fen "),
                fields: l.split_whitespace().collect(),
            })
            .collect()
    }

    fn position(fen: &str) -> Chess {
        if fen == "start" {
            return Chess::default();
        }
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    #[test]
    fn writers_spell_the_table() {
        let mut pos = Chess::default();
        let mut checked = 0;
        for row in rows() {
            if let Some(fen) = row.fen {
                pos = position(fen);
                continue;
            }
            let line = row.line;
            let [san_text, lan_text, uci_text, fan_text, zh_text, trad_text, long_text] =
                row.fields[..]
            else {
                panic!("line {line}: expected 7 columns");
            };
            let m = san_text
                .parse::<San>()
                .unwrap()
                .to_move(&pos)
                .unwrap_or_else(|e| panic!("line {line}: {san_text}: {e}"));
            let traditional = ZhStyle {
                traditional: true,
                ..ZhStyle::default()
            };
            let cases = [
                (Notation::San, san_text),
                (Notation::Lan, lan_text),
                (Notation::Uci(CastlingMode::Standard), uci_text),
                (Notation::Fan, fan_text),
                (Notation::Zh(ZhStyle::default()), zh_text),
                (Notation::Zh(traditional), trad_text),
                (Notation::ZhLong(ZhStyle::default()), long_text),
            ];
            for (notation, want) in cases {
                assert_eq!(
                    written(&pos, m, notation),
                    want,
                    "line {line}: {notation:?}"
                );
            }
            // SAN agrees with shakmaty's, suffix included.
            assert_eq!(SanPlus::from_move(pos.clone(), m).to_string(), san_text);
            pos.play_unchecked(m);
            checked += 1;
        }
        assert!(checked >= 30, "only {checked} moves checked");
    }

    #[test]
    fn options_change_the_signs() {
        let pos = position("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1");
        let m = "Rd8#".parse::<San>().unwrap().to_move(&pos).unwrap();
        let style = ZhStyle {
            traditional: true,
            capture: CaptureSign::Colon,
            mate: MateSign::Hash,
        };
        assert_eq!(written(&pos, m, Notation::Zh(style)), "車d8#");
        assert_eq!(written(&pos, m, Notation::ZhLong(style)), "車d1-d8#");
        let pos = position("4k3/8/8/3p4/5N2/8/8/4K3 w - - 0 1");
        let m = "Nxd5".parse::<San>().unwrap().to_move(&pos).unwrap();
        let x = ZhStyle {
            capture: CaptureSign::X,
            ..ZhStyle::default()
        };
        assert_eq!(written(&pos, m, Notation::Zh(x)), "马xd5");
        assert_eq!(written(&pos, m, Notation::Zh(style)), "馬:d5");
        assert_eq!(written(&pos, m, Notation::ZhLong(style)), "馬f4:d5");
        let german = Notation::Letters {
            lang: Lang::De,
            long: false,
        };
        assert_eq!(written(&pos, m, german), "Sxd5");
        let russian = Notation::Letters {
            lang: Lang::Ru,
            long: true,
        };
        assert_eq!(written(&pos, m, russian), "Кf4xd5");
    }

    #[test]
    fn chess960_uci_takes_the_rook() {
        let pos = position("4k3/8/8/8/8/8/8/4K2R w K - 0 1");
        let m = "O-O".parse::<San>().unwrap().to_move(&pos).unwrap();
        assert_eq!(
            written(&pos, m, Notation::Uci(CastlingMode::Standard)),
            "e1g1"
        );
        assert_eq!(
            written(&pos, m, Notation::Uci(CastlingMode::Chess960)),
            "e1h1"
        );
    }

    #[test]
    fn every_legal_move_round_trips_through_every_notation() {
        let notations = all_notations();
        let mut positions = Vec::new();
        let mut pos = Chess::default();
        for row in rows() {
            if let Some(fen) = row.fen {
                pos = position(fen);
                positions.push(pos.clone());
                continue;
            }
            let m = row.fields[0].parse::<San>().unwrap().to_move(&pos).unwrap();
            pos.play_unchecked(m);
            positions.push(pos.clone());
        }
        let mut pos = Chess::default();
        for san in OPERA_GAME.split_whitespace() {
            positions.push(pos.clone());
            let m = san.parse::<San>().unwrap().to_move(&pos).unwrap();
            pos.play_unchecked(m);
        }
        // Under-promotions, with and without capture, and a disambiguated capture.
        positions.push(position("r3k3/1P6/8/8/8/8/8/4K3 w - - 0 1"));
        positions.push(position("4k3/8/8/3p1N2/8/8/8/4KN2 w - - 0 1"));
        for pos in &positions {
            round_trip_all_moves(pos, &notations);
        }
    }
}
