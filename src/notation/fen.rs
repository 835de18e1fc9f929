//! Writing positions as FEN and EPD: the one writer of every FEN pgnkit prints (findings, the
//! final position, the `fen` of a move's record or column, EPD lines).
//!
//! The text is shakmaty's to the byte (the en passant square only when a capture there is
//! legal), written in one pass over a board of cells: shakmaty's writer, which looks each
//! occupied square up, cost about as much as the replay when a FEN is written a ply. Chess960
//! castling, and castling rights off the corners, are left to shakmaty (they take its rules
//! for letters).

use shakmaty::fen::{Epd, Fen};
use shakmaty::{
    Bitboard, CastlingMode, Chess, Color, EnPassantMode, Piece, Position, Role, Square,
};

/// The FEN of `pos`.
///
/// ```
/// use pgnkit::notation::fen::fen;
/// use shakmaty::Chess;
///
/// assert_eq!(
///     fen(&Chess::default()),
///     "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
/// );
/// ```
pub fn fen(pos: &Chess) -> String {
    let mut text = String::with_capacity(96);
    push_fen(pos, &mut text);
    text
}

/// Appends the FEN of `pos` to `out`.
pub fn push_fen(pos: &Chess, out: &mut String) {
    let mut buf = [0u8; 128];
    let Some(mut n) = epd_fields(pos, &mut buf) else {
        Fen::from_position(pos, EnPassantMode::Legal).append_to_string(out);
        return;
    };
    // The counters into the same buffer (at most 81 bytes before them, 22 for them), so
    // that the text is checked and copied once.
    for counter in [pos.halfmoves(), pos.fullmoves().get()] {
        buf[n] = b' ';
        n += 1;
        let mut digits = [0u8; 10];
        for &d in decimal_digits(counter, &mut digits) {
            buf[n] = d;
            n += 1;
        }
    }
    push_ascii(&buf[..n], out);
}

/// Appends the EPD of `pos` to `out`: the four fields of its FEN before the move counters.
///
/// ```
/// use pgnkit::notation::fen::push_epd;
/// use shakmaty::Chess;
///
/// let mut epd = String::new();
/// push_epd(&Chess::default(), &mut epd);
/// assert_eq!(epd, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -");
/// ```
pub fn push_epd(pos: &Chess, out: &mut String) {
    let mut buf = [0u8; 128];
    match epd_fields(pos, &mut buf) {
        Some(n) => push_ascii(&buf[..n], out),
        None => Epd::from_position(pos, EnPassantMode::Legal).append_to_string(out),
    }
}

/// Writes the four EPD fields of `pos` at the start of `buf` and returns their length (at
/// most 81 bytes); `None` for castling this writer leaves to shakmaty.
fn epd_fields(pos: &Chess, buf: &mut [u8; 128]) -> Option<usize> {
    let castles = pos.castles();
    let rights = castles.castling_rights();
    if castles.mode() == CastlingMode::Chess960 || !(rights & !Bitboard::CORNERS).is_empty() {
        return None;
    }
    let board = pos.board();
    let mut cells = [0u8; 64];
    for color in Color::ALL {
        for role in Role::ALL {
            let piece = Piece { color, role };
            // Piece letters are ASCII.
            #[allow(clippy::cast_possible_truncation)]
            let letter = piece.char() as u8;
            for sq in board.by_piece(piece) {
                cells[usize::from(sq)] = letter;
            }
        }
    }
    let mut n = 0;
    let mut put = |b: u8| {
        buf[n] = b;
        n += 1;
    };
    let occupied = board.occupied().0;
    for rank in (0..8).rev() {
        // The occupied squares of the rank, file a in bit 0: a step a piece, not a square.
        // A byte of the bitboard.
        #[allow(clippy::cast_possible_truncation)]
        let mut bits = (occupied >> (rank * 8)) as u8;
        let mut file = 0u8;
        while bits != 0 {
            // Below 8.
            #[allow(clippy::cast_possible_truncation)]
            let at = bits.trailing_zeros() as u8;
            if at > file {
                put(b'0' + at - file);
            }
            put(cells[rank * 8 + usize::from(at)]);
            file = at + 1;
            bits &= bits - 1;
        }
        if file < 8 {
            put(b'0' + 8 - file);
        }
        if rank > 0 {
            put(b'/');
        }
    }
    put(b' ');
    put(if pos.turn().is_white() { b'w' } else { b'b' });
    put(b' ');
    let mut any = false;
    for (sq, letter) in [
        (Square::H1, b'K'),
        (Square::A1, b'Q'),
        (Square::H8, b'k'),
        (Square::A8, b'q'),
    ] {
        if rights.contains(sq) {
            put(letter);
            any = true;
        }
    }
    if !any {
        put(b'-');
    }
    put(b' ');
    match pos.legal_ep_square() {
        Some(sq) => {
            put(b'a' + u8::from(sq.file()));
            put(b'1' + u8::from(sq.rank()));
        }
        None => put(b'-'),
    }
    Some(n)
}

/// Appends bytes this module wrote, all ASCII.
fn push_ascii(bytes: &[u8], out: &mut String) {
    out.push_str(std::str::from_utf8(bytes).unwrap_or_default());
}

/// The decimal digits of `v`, written at the end of `digits`.
fn decimal_digits(mut v: u32, digits: &mut [u8; 10]) -> &[u8] {
    let mut i = digits.len();
    loop {
        i -= 1;
        // A digit.
        #[allow(clippy::cast_possible_truncation)]
        let d = (v % 10) as u8;
        digits[i] = b'0' + d;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    &digits[i..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fens_and_epds_are_written_as_shakmaty_writes_them() {
        let table = include_str!("../../testdata/parquet/fen-positions.txt");
        let mut checked = 0;
        for (n, line) in table.lines().enumerate() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let (mode, fen) = match line.strip_prefix("960 ") {
                Some(fen) => (CastlingMode::Chess960, fen),
                None => (CastlingMode::Standard, line),
            };
            let start: Chess = fen
                .parse::<Fen>()
                .unwrap()
                .into_position(mode)
                .unwrap_or_else(|e| panic!("line {}: {e}", n + 1));
            let mut positions = vec![start.clone()];
            for mv in start.legal_moves() {
                let mut after = start.clone();
                after.play_unchecked(mv);
                positions.push(after);
            }
            for pos in positions {
                let mut written = String::new();
                push_fen(&pos, &mut written);
                let want = Fen::from_position(&pos, EnPassantMode::Legal).to_string();
                assert_eq!(written, want, "line {}", n + 1);
                let mut written = String::new();
                push_epd(&pos, &mut written);
                let want = Epd::from_position(&pos, EnPassantMode::Legal).to_string();
                assert_eq!(written, want, "line {}", n + 1);
                checked += 1;
            }
        }
        assert!(checked > 100, "{checked} positions");
    }
}
