//! What one main-line ply adds to the tree, as the fixed-size record the external sorter
//! sorts: the position before the move (its Polyglot key and the position itself, packed),
//! the move as Polyglot encodes it, and what the game says of it (result, ratings, date, and
//! where it is). No string is made a ply: texts are written once per row of the tree.

use shakmaty::uci::UciMove;
use shakmaty::{
    Bitboard, Board, ByColor, ByRole, CastlingMode, Chess, Color, EnPassantMode, FromSetup, Move,
    Position, PositionError, Role, Setup, Square,
};

use crate::sort::{Field, Get, Put, Record};

/// A position as the tree tells positions apart: the board, the side to move, the castling
/// rights and the en passant square when a pawn could take there (as Polyglot keys it); the
/// move counters are no part of it, so a position reached by transposition is one position.
/// Packed in 27 bytes: the occupied squares; each piece's nibble (its role 1 to 6, plus 8 for
/// Black) as four planes of 32 bits, bit `i` of plane `b` the bit `b` of the nibble of the
/// `i`th occupied square (a board holds at most 32 pieces); the turn with the en passant
/// square; the castling rooks.
///
/// Bytes all (alignment 1), so that a record of the sort is 64 bytes, not 80: the sort in
/// memory moves records, and a fifth fewer bytes is a fifth less of its time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Packed {
    /// Little-endian.
    occupied: [u8; 8],
    /// The four planes of nibbles, little-endian.
    pieces: [u8; 16],
    /// Bit 7: Black to move; bits 0..7: the en passant square, or 64 for none.
    turn_ep: u8,
    /// The castling rooks: their files on the first rank (low byte), on the eighth (high),
    /// little-endian.
    castling: [u8; 2],
}

const NO_EP: u8 = 64;

impl Packed {
    /// `pos` packed.
    #[inline]
    pub fn of(pos: &Chess) -> Packed {
        let board = pos.board();
        let occupied = board.occupied().0;
        let role = |r: Role| board.by_role(r).0;
        let bits = [
            role(Role::Pawn) | role(Role::Bishop) | role(Role::Queen),
            role(Role::Knight) | role(Role::Bishop) | role(Role::King),
            role(Role::Rook) | role(Role::Queen) | role(Role::King),
            board.by_color(Color::Black).0,
        ];
        // Each plane's bits at the occupied squares, moved down together a rank at a time: a
        // look-up a rank and plane, whatever the number of pieces (a piece at a time, counting
        // the squares below it, was a quarter of a run of `tree`).
        let mut planes = [0u64; 4];
        let mut at = 0;
        for rank in 0..8 {
            let shift = 8 * rank;
            let o = (occupied >> shift) as u8;
            let row = &SQUEEZE[usize::from(o)];
            for (plane, b) in planes.iter_mut().zip(bits) {
                *plane |= u64::from(row[usize::from((b >> shift) as u8)]) << at;
            }
            // At most 56 before the last rank: the shift stays below 64.
            at += u32::from(COUNT[usize::from(o)]);
        }
        let mut pieces = [0u8; 16];
        for (out, plane) in pieces.chunks_exact_mut(4).zip(planes) {
            // Squares past the 32nd are not kept (a board of a game holds 32 pieces at most).
            out.copy_from_slice(&(plane as u32).to_le_bytes());
        }
        let ep = pos
            .ep_square(EnPassantMode::PseudoLegal)
            .map_or(NO_EP, |sq| sq as u8);
        let turn = if pos.turn() == Color::Black { 0x80 } else { 0 };
        let rooks = pos.castles().castling_rights();
        let castling = (rooks.0 & 0xff) as u16 | (((rooks.0 >> 56) & 0xff) as u16) << 8;
        Packed {
            occupied: occupied.to_le_bytes(),
            pieces,
            turn_ep: turn | ep,
            castling: castling.to_le_bytes(),
        }
    }

    /// The position back, its move counters at 0 and 1; `None` for bytes no position packs
    /// to (a damaged file).
    pub fn position(&self) -> Option<Chess> {
        // The boards of each role and color, filled square by square: one or two bits set a
        // square, where setting each piece on a board clears the square on every board first.
        let occupied = u64::from_le_bytes(self.occupied);
        if occupied.count_ones() > 32 {
            return None;
        }
        // The planes put back on the occupied squares, a rank at a time, as [`Packed::of`]
        // took them.
        let mut planes = [0u64; 4];
        let mut at = 0;
        for rank in 0..8 {
            let shift = 8 * rank;
            let o = (occupied >> shift) as u8;
            let row = &SPREAD[usize::from(o)];
            for (b, plane) in planes.iter_mut().enumerate() {
                let word = u32::from_le_bytes([
                    self.pieces[4 * b],
                    self.pieces[4 * b + 1],
                    self.pieces[4 * b + 2],
                    self.pieces[4 * b + 3],
                ]);
                let bits = u64::from(word).checked_shr(at).unwrap_or(0) as u8;
                *plane |= u64::from(row[usize::from(bits)]) << shift;
            }
            at += u32::from(COUNT[usize::from(o)]);
        }
        let [b0, b1, b2, black] = planes;
        // Roles 1 to 6 by their bits; a square of role 0 or 7 is in no role's board, which
        // the boards' check below refuses (their union is not the occupied squares).
        let by_role = ByRole {
            pawn: Bitboard(b0 & !b1 & !b2),
            knight: Bitboard(!b0 & b1 & !b2),
            bishop: Bitboard(b0 & b1 & !b2),
            rook: Bitboard(!b0 & !b1 & b2),
            queen: Bitboard(b0 & !b1 & b2),
            king: Bitboard(!b0 & b1 & b2),
        };
        let by_color = ByColor {
            black: Bitboard(black),
            white: Bitboard(occupied & !black),
        };
        let board = Board::try_from_bitboards(by_role, by_color).ok()?;
        let ep = self.turn_ep & 0x7f;
        let castling = u16::from_le_bytes(self.castling);
        let rooks = u64::from(castling & 0xff) | u64::from(castling >> 8) << 56;
        let setup = Setup {
            board,
            turn: if self.turn_ep & 0x80 != 0 {
                Color::Black
            } else {
                Color::White
            },
            castling_rights: Bitboard(rooks),
            ep_square: if ep == NO_EP {
                None
            } else {
                Some(Square::try_from(ep).ok()?)
            },
            ..Setup::empty()
        };
        // As lenient as the replay is with a `FEN` tag: the position was one of a game.
        let lenient = |mode| {
            Chess::from_setup(setup.clone(), mode)
                .or_else(PositionError::ignore_too_much_material)
                .or_else(PositionError::ignore_impossible_check)
                .ok()
        };
        lenient(CastlingMode::Standard).or_else(|| lenient(CastlingMode::Chess960))
    }

    /// Whether White is to move.
    pub fn white_to_move(&self) -> bool {
        self.turn_ep & 0x80 == 0
    }
}

/// `SQUEEZE[o][v]`: the bits of `v` where `o` has its bits, moved down together (the `pext` of
/// a byte), for [`Packed::of`]; `SPREAD[o][c]` the other way (the `pdep`: the low bits of `c`
/// put where `o` has its bits), for [`Packed::position`]. Made by the compiler: 64 KiB each.
static SQUEEZE: [[u8; 256]; 256] = bit_tables(false);
static SPREAD: [[u8; 256]; 256] = bit_tables(true);
/// The bits of each byte, counted: a look-up, where the CPU is not assumed to count them.
static COUNT: [u8; 256] = {
    let mut count = [0u8; 256];
    let mut o = 0;
    while o < 256 {
        count[o] = (o as u8).count_ones() as u8;
        o += 1;
    }
    count
};

/// [`SQUEEZE`] or [`SPREAD`] (`spread`), a row from the one with its lowest bit cleared: the
/// lowest bit of `o` takes bit 0 of `v`, the rest take the rest as that row does.
const fn bit_tables(spread: bool) -> [[u8; 256]; 256] {
    let mut table = [[0u8; 256]; 256];
    let mut o: usize = 1;
    while o < 256 {
        let low = o & o.wrapping_neg();
        let rest = o & (o - 1);
        let mut v = 0;
        while v < 256 {
            table[o][v] = if spread {
                (if v & 1 != 0 { low } else { 0 } | table[rest][v >> 1] as usize) as u8
            } else {
                (if v & low != 0 { 1 } else { 0 } | (table[rest][v] as usize) << 1) as u8
            };
            v += 1;
        }
        o += 1;
    }
    table
}

impl Field for Packed {
    const SIZE: usize = 8 + 16 + 1 + 2;
    fn put(&self, out: &mut Put<'_>) {
        self.occupied.put(out);
        self.pieces.put(out);
        self.turn_ep.put(out);
        self.castling.put(out);
    }
    fn get(bytes: &mut Get<'_>) -> Packed {
        Packed {
            occupied: <[u8; 8]>::get(bytes),
            pieces: <[u8; 16]>::get(bytes),
            turn_ep: u8::get(bytes),
            castling: <[u8; 2]>::get(bytes),
        }
    }
}

/// A move as a Polyglot book stores it: the to square in bits 0..6, the from square in bits
/// 6..12, the promotion (1 knight to 4 queen) in bits 12..15; castling as the king taking its
/// own rook.
pub fn polyglot_move(mv: &Move) -> u16 {
    let (from, to) = match *mv {
        Move::Castle { king, rook } => (king, rook),
        _ => (mv.from().unwrap_or(Square::A1), mv.to()),
    };
    let promotion = mv.promotion().map_or(0, |r| r as u16 - 1);
    (to as u16) | (from as u16) << 6 | promotion << 12
}

/// The legal move of `pos` that `code` ([`polyglot_move`]) encodes: its squares read as a
/// UCI move (a king onto its own rook with the right to castle with it is castling there too),
/// checked by generating the moves to its square only, not every legal move.
pub fn move_of(pos: &Chess, code: u16) -> Option<Move> {
    let square = |n: u16| Square::try_from(u32::from(n & 63)).ok();
    let promotion = match code >> 12 & 7 {
        0 => None,
        p => Some(*Role::ALL.get(usize::from(p))?),
    };
    let uci = UciMove::Normal {
        from: square(code >> 6)?,
        to: square(code)?,
        promotion,
    };
    uci.to_move(pos).ok().filter(|m| polyglot_move(m) == code)
}

/// The game's result, from White's side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Score {
    WhiteWins = 0,
    Draw = 1,
    BlackWins = 2,
    /// `*`, or no result tag.
    #[default]
    Unknown = 3,
}

impl Score {
    pub fn of_tag(result: Option<&str>) -> Score {
        match result.map(str::trim) {
            Some("1-0") => Score::WhiteWins,
            Some("0-1") => Score::BlackWins,
            Some("1/2-1/2") => Score::Draw,
            _ => Score::Unknown,
        }
    }
}

/// One main-line ply: a position, the move played from it, and its game. Sorted by key, then
/// move, then split, then the game's place in the input ([`PlyRecord::cmp`]): the first
/// record of a row is its earliest game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlyRecord {
    /// The Polyglot key of the position.
    pub key: u64,
    pub position: Packed,
    /// [`polyglot_move`].
    pub mv: u16,
    /// The game's speed and rating band, when the tree is split by them
    /// ([`super::split::Split`]).
    pub split: u16,
    /// The game's place among every game of the run (from 0) in the high 48 bits, the ply's
    /// in the game in the low 16: records in the order the games played them.
    pub order: u64,
    /// [`Score`] as a number.
    pub score: u8,
    /// Ratings of the side to move and of its opponent (0: not known).
    pub mover_elo: u16,
    pub opponent_elo: u16,
    /// The game's date as `YYYYMMDD` (unknown month or day 0; 0: no date).
    pub date: u32,
    /// The game's input (an index into the run's names) and number in it (a file of more
    /// than 4 billion games is not met).
    pub file: u32,
    pub game: u32,
}

/// By key, move, split and place: integers only. The place (a game and a ply) is one
/// record's alone, so the packed position, which the key stands for, is never compared (the
/// fields after it only keep the order total).
impl Ord for PlyRecord {
    fn cmp(&self, other: &PlyRecord) -> std::cmp::Ordering {
        (self.key, self.mv, self.split, self.order)
            .cmp(&(other.key, other.mv, other.split, other.order))
            .then_with(|| {
                (self.position, self.score, self.mover_elo, self.opponent_elo).cmp(&(
                    other.position,
                    other.score,
                    other.mover_elo,
                    other.opponent_elo,
                ))
            })
            .then_with(|| {
                (self.date, self.file, self.game).cmp(&(other.date, other.file, other.game))
            })
    }
}

impl PartialOrd for PlyRecord {
    fn partial_cmp(&self, other: &PlyRecord) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Record for PlyRecord {
    const SIZE: usize = 8 + Packed::SIZE + 2 + 2 + 8 + 1 + 2 + 2 + 4 + 4 + 4;
    fn put(&self, out: &mut Put<'_>) {
        self.key.put(out);
        self.position.put(out);
        self.mv.put(out);
        self.split.put(out);
        self.order.put(out);
        self.score.put(out);
        self.mover_elo.put(out);
        self.opponent_elo.put(out);
        self.date.put(out);
        self.file.put(out);
        self.game.put(out);
    }
    fn get(bytes: &mut Get<'_>) -> PlyRecord {
        PlyRecord {
            key: u64::get(bytes),
            position: Packed::get(bytes),
            mv: u16::get(bytes),
            split: u16::get(bytes),
            order: u64::get(bytes),
            score: u8::get(bytes),
            mover_elo: u16::get(bytes),
            opponent_elo: u16::get(bytes),
            date: u32::get(bytes),
            file: u32::get(bytes),
            game: u32::get(bytes),
        }
    }
}

/// A date as [`PlyRecord::date`] keeps it.
pub fn date_number(date: &crate::pgn::date::GameDate) -> u32 {
    u32::from(date.year) * 10_000
        + u32::from(date.month.unwrap_or(0)) * 100
        + u32::from(date.day.unwrap_or(0))
}

/// [`date_number`] as PGN writes a date (`2024.03.??`); empty for 0. Digits pushed one by
/// one: two dates a row of the tree, and the formatting machinery cost a sixth of a run whose
/// rows are nearly one a ply.
pub fn date_text(n: u32) -> String {
    if n == 0 {
        return String::new();
    }
    let mut text = String::with_capacity(10);
    let year = n / 10_000;
    if year < 10_000 {
        push_digits(&mut text, year, 4);
    } else {
        text.push_str(&year.to_string());
    }
    for part in [n / 100 % 100, n % 100] {
        text.push('.');
        if part == 0 {
            text.push_str("??");
        } else {
            push_digits(&mut text, part, 2);
        }
    }
    text
}

/// The last `width` decimal digits of `n`, zeros in front.
fn push_digits(text: &mut String, n: u32, width: u32) {
    for place in (0..width).rev() {
        text.push(char::from(b'0' + (n / 10u32.pow(place) % 10) as u8));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;

    fn chess(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    #[test]
    fn a_position_packs_and_comes_back() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "r3k2r/8/8/8/8/8/8/R3K2R b Kq - 3 40",
            "8/P7/8/8/8/8/8/k1K5 w - - 0 1",
        ] {
            let pos = chess(fen);
            let back = Packed::of(&pos).position().unwrap();
            let epd = |p: &Chess| {
                let mut s = String::new();
                crate::notation::fen::push_epd(p, &mut s);
                s
            };
            assert_eq!(epd(&back), epd(&pos), "{fen}");
        }
    }

    /// The planes of nibbles as the doc of [`Packed`] says them, a square at a time.
    fn packed_slowly(pos: &Chess) -> [u8; 16] {
        let board = pos.board();
        let mut planes = [0u32; 4];
        for (i, sq) in board.occupied().into_iter().enumerate() {
            let p = board.piece_at(sq).unwrap();
            let nibble = p.role as u32 | if p.color == Color::Black { 8 } else { 0 };
            for (b, plane) in planes.iter_mut().enumerate() {
                *plane |= (nibble >> b & 1) << i;
            }
        }
        let mut pieces = [0u8; 16];
        for (out, plane) in pieces.chunks_exact_mut(4).zip(planes) {
            out.copy_from_slice(&plane.to_le_bytes());
        }
        pieces
    }

    #[test]
    fn positions_pack_as_the_doc_says() {
        let mut pos = Chess::default();
        // Castling, en passant, promotions and captures on the way.
        for uci in [
            "e2e4", "d7d5", "e4d5", "c7c5", "d5c6", "g8f6", "c6b7", "e7e6", "b7a8q", "f8c5",
            "g1f3", "e8h8",
        ] {
            assert_eq!(Packed::of(&pos).pieces, packed_slowly(&pos), "before {uci}");
            let m = uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
            assert_eq!(move_of(&pos, polyglot_move(&m)), Some(m), "{uci}");
            pos.play_unchecked(m);
        }
        assert_eq!(Packed::of(&pos).pieces, packed_slowly(&pos));
        assert_eq!(Packed::of(&pos).position(), Some(pos));
        // A nibble of role 7 (or 0) is no piece: damaged bytes.
        let mut damaged = Packed::of(&Chess::default());
        for plane in 0..3 {
            damaged.pieces[4 * plane] |= 1;
        }
        assert_eq!(damaged.position(), None);
        damaged.pieces[0] &= !1;
        damaged.pieces[4] &= !1;
        damaged.pieces[8] &= !1;
        assert_eq!(damaged.position(), None);
    }

    #[test]
    fn a_record_is_as_large_as_docs_tree_md_says() {
        assert_eq!(
            (std::mem::size_of::<PlyRecord>(), PlyRecord::SIZE),
            (64, 64)
        );
    }

    #[test]
    fn moves_encode_as_polyglot_does() {
        let pos = chess("r3k2r/8/8/8/8/8/1p6/R3K2R b Kq - 0 1");
        let castle = Move::Castle {
            king: Square::E8,
            rook: Square::A8,
        };
        // e8a8: from 60, to 56.
        assert_eq!(polyglot_move(&castle), 56 | 60 << 6);
        let promote = Move::Normal {
            role: Role::Pawn,
            from: Square::B2,
            capture: Some(Role::Rook),
            to: Square::A1,
            promotion: Some(Role::Queen),
        };
        assert_eq!(polyglot_move(&promote), 9 << 6 | 4 << 12);
        assert_eq!(move_of(&pos, polyglot_move(&promote)), Some(promote));
        assert_eq!(date_text(20240300), "2024.03.??");
    }

    #[test]
    fn dates_are_written_as_the_format_machinery_writes_them() {
        let slow = |n: u32| {
            let part = |v: u32| {
                if v == 0 {
                    "??".to_owned()
                } else {
                    format!("{v:02}")
                }
            };
            format!(
                "{:04}.{}.{}",
                n / 10_000,
                part(n / 100 % 100),
                part(n % 100)
            )
        };
        for n in [
            10_000,
            1_000_101,
            20_241_231,
            99_991_299,
            655_351_231,
            19_990_007,
        ] {
            assert_eq!(date_text(n), slow(n), "{n}");
        }
        assert_eq!(date_text(0), "");
    }
}
