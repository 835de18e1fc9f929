//! Reading ASCII move tokens: strict SAN and its lenient cousins (castling with zeros,
//! lower-case pieces, missing `=`, long algebraic, UCI, null moves).

use shakmaty::{CastlingSide, File, Rank, Role};

use crate::pgn::lexer::DELIMITER;

use super::{CaptureClaim, CheckClaim, MovePattern, NormalPattern, Notes, ReadError, ReadMove};

/// Reads one ASCII move token.
///
/// # Errors
///
/// [`ReadError::Unreadable`] when the token is not a move in SAN, long algebraic or UCI.
pub fn read(token: &[u8]) -> Result<ReadMove, ReadError> {
    if let Some(m) = plain_san(token) {
        debug_assert_eq!(Ok(m), read_any(token), "plain SAN {token:?}");
        return Ok(m);
    }
    read_any(token)
}

/// Strict SAN as most files write it (`e4`, `Nbd2`, `exd5`, `e8=Q+`, `O-O`), read without the
/// checks the lenient forms need. `None` for anything else, which [`read_any`] then reads.
pub(crate) fn plain_san(token: &[u8]) -> Option<ReadMove> {
    san_at(token).and_then(|(m, len)| (len == token.len()).then_some(m))
}

/// Strict SAN at the start of `bytes`, up to a delimiter or the end (`Nf3 `, `exd5)`,
/// `e8=Q+`): the move, and the token's length. Read in one pass, without finding the token's
/// end first. `None` for anything else (a glyph glued on, a longer symbol, a lenient form,
/// bytes that are not ASCII), which the caller then reads the general way.
#[inline(always)]
pub(crate) fn san_at(bytes: &[u8]) -> Option<(ReadMove, usize)> {
    match bytes.first_chunk::<8>() {
        // The longest strict SAN (`exd8=Q+`) and the byte after it fit in eight bytes: in
        // the movetext they are read as one array, without a bounds check per byte.
        Some(window) => san_from(|k| window[k & 7], bytes.len()),
        // A token on its own (or the movetext's last bytes): zero past its end, which is no
        // part of a move.
        None => san_from(|k| bytes.get(k).copied().unwrap_or(0), bytes.len()),
    }
}

/// [`san_at`] over the bytes `at` gives (at most the first eight are read), of which `len`
/// exist.
#[inline(always)]
fn san_from(at: impl Fn(usize) -> u8, len: usize) -> Option<(ReadMove, usize)> {
    let square = |k: usize| Some((file(at(k))?, rank(at(k + 1))?));
    let mut j;
    let mut capture = CaptureClaim::Unwritten;
    let pattern = match at(0) {
        b'a'..=b'h' => {
            let (from_file, (to_file, to_rank)) = if at(1) == b'x' {
                capture = CaptureClaim::Capture;
                j = 4;
                (file(at(0)), square(2)?)
            } else {
                j = 2;
                (None, square(0)?)
            };
            let mut promotion = None;
            if at(j) == b'=' {
                promotion = Some(match at(j + 1) {
                    b'Q' => Role::Queen,
                    b'R' => Role::Rook,
                    b'B' => Role::Bishop,
                    b'N' => Role::Knight,
                    _ => return None,
                });
                j += 2;
            }
            MovePattern::Normal(NormalPattern {
                role: Some(Role::Pawn),
                from_file,
                from_rank: None,
                to_file,
                to_rank: Some(to_rank),
                promotion,
            })
        }
        first @ (b'K' | b'Q' | b'R' | b'B' | b'N') => {
            let role = Role::from_char(first as char)?;
            // The origin, `x` and the destination: read back from the destination, as SAN
            // is written. A loop to the end of the run: on the Zen 5 machine it took 0.99 of
            // the time of classifying the next five bytes at once through a table and a mask.
            j = 1;
            while j < 6 && matches!(at(j), b'a'..=b'h' | b'1'..=b'8' | b'x') {
                j += 1;
            }
            if j < 3 {
                return None;
            }
            let (to_file, to_rank) = square(j - 2)?;
            // Between the letter and the destination: an origin square's file or rank, an
            // `x`, both, or nothing.
            let mut between = j - 3;
            if between > 0 && at(between) == b'x' {
                capture = CaptureClaim::Capture;
                between -= 1;
            }
            let (from_file, from_rank) = match between {
                0 => (None, None),
                1 => match (file(at(1)), rank(at(1))) {
                    (Some(f), _) => (Some(f), None),
                    (_, Some(r)) => (None, Some(r)),
                    _ => return None,
                },
                _ => return None,
            };
            MovePattern::Normal(NormalPattern {
                role: Some(role),
                from_file,
                from_rank,
                to_file,
                to_rank: Some(to_rank),
                promotion: None,
            })
        }
        b'O' if (at(1), at(2), at(3), at(4)) == (b'-', b'O', b'-', b'O') => {
            j = 5;
            MovePattern::Castle(CastlingSide::QueenSide)
        }
        b'O' if (at(1), at(2)) == (b'-', b'O') => {
            j = 3;
            MovePattern::Castle(CastlingSide::KingSide)
        }
        _ => return None,
    };
    let check = match at(j) {
        b'+' => CheckClaim::Check,
        b'#' => CheckClaim::Mate,
        _ => CheckClaim::None,
    };
    if check != CheckClaim::None {
        j += 1;
    }
    if j < len && !DELIMITER[usize::from(at(j))] {
        return None;
    }
    let m = ReadMove {
        pattern,
        capture,
        check,
        notes: Notes::default(),
        start: 0,
        end: j as u16,
    };
    Some((m, j))
}

/// Reads any ASCII move token (see [`read`]).
fn read_any(token: &[u8]) -> Result<ReadMove, ReadError> {
    let mut notes = Notes::default();
    let mut s = token;
    if s.is_empty() || !s.is_ascii() {
        return Err(ReadError::Unreadable);
    }
    if s.contains(&b'~') {
        return Err(ReadError::AnyMove);
    }

    // Check and mate signs.
    let mut check = CheckClaim::None;
    while let Some((&last, rest)) = s.split_last() {
        match last {
            b'#' => check = CheckClaim::Mate,
            b'+' => {
                if check == CheckClaim::Check {
                    notes.set(Notes::DOUBLE_PLUS);
                } else if check == CheckClaim::None {
                    check = CheckClaim::Check;
                }
            }
            _ => break,
        }
        s = rest;
    }

    // An en passant mark glued to the move.
    for mark in [&b"e.p."[..], b"ep", b"e.p"] {
        if s.len() > mark.len() + 2 && s.ends_with(mark) {
            s = &s[..s.len() - mark.len()];
            notes.set(Notes::EN_PASSANT_MARK);
            break;
        }
    }

    let end = token.len().min(usize::from(u16::MAX)) as u16;
    let pattern = |pattern, notes| ReadMove {
        pattern,
        capture: CaptureClaim::Unwritten,
        check,
        notes,
        start: 0,
        end,
    };

    // Null moves and castling.
    match s {
        b"--" | b"Z0" | b"0000" | b"@@@@" => {
            notes.set(Notes::NULL_MOVE);
            return Ok(pattern(MovePattern::Null, notes));
        }
        b"O-O" => return Ok(pattern(MovePattern::Castle(CastlingSide::KingSide), notes)),
        b"O-O-O" => return Ok(pattern(MovePattern::Castle(CastlingSide::QueenSide), notes)),
        b"0-0" | b"o-o" | b"OO" | b"00" => {
            notes.set(Notes::CASTLING_SPELLING);
            return Ok(pattern(MovePattern::Castle(CastlingSide::KingSide), notes));
        }
        b"0-0-0" | b"o-o-o" | b"OOO" | b"000" => {
            notes.set(Notes::CASTLING_SPELLING);
            return Ok(pattern(MovePattern::Castle(CastlingSide::QueenSide), notes));
        }
        _ => {}
    }

    // Promotion piece at the end: `=Q`, `Q` after a rank, `q` in UCI.
    let mut promotion = None;
    if let Some((&last, rest)) = s.split_last() {
        if let Some(role) = promotion_role(last) {
            if let Some((&before, rest2)) = rest.split_last() {
                if before == b'=' {
                    promotion = Some(role);
                    s = rest2;
                } else if before == b'1' || before == b'8' {
                    promotion = Some(role);
                    s = rest;
                    if last.is_ascii_uppercase() {
                        notes.set(Notes::PROMOTION_WITHOUT_EQUALS);
                    }
                }
            }
        }
    }

    // The destination square.
    if s.len() < 2 {
        return Err(ReadError::Unreadable);
    }
    let (to_file, to_rank) = match (file(s[s.len() - 2]), rank(s[s.len() - 1])) {
        (Some(f), Some(r)) => (f, r),
        _ => return Err(ReadError::Unreadable),
    };
    s = &s[..s.len() - 2];

    // Separator or capture sign.
    let mut capture = CaptureClaim::Unwritten;
    let mut separator = false;
    if let Some((&last, rest)) = s.split_last() {
        match last {
            b'x' | b'X' | b':' => {
                capture = CaptureClaim::Capture;
                s = rest;
            }
            b'-' => {
                capture = CaptureClaim::Quiet;
                separator = true;
                s = rest;
            }
            _ => {}
        }
    }

    // Piece letter.
    let mut role = None;
    if let Some((&first, rest)) = s.split_first() {
        match first {
            b'K' | b'Q' | b'R' | b'B' | b'N' | b'P' => {
                role = Role::from_char(first as char);
                s = rest;
            }
            b'k' | b'q' | b'r' | b'n' => {
                role = Role::from_char(first as char);
                notes.set(Notes::LOWERCASE_PIECE);
                s = rest;
            }
            _ => {}
        }
    }

    // Origin hints.
    let (mut from_file, mut from_rank) = (None, None);
    if let Some((&first, rest)) = s.split_first() {
        if let Some(f) = file(first) {
            from_file = Some(f);
            s = rest;
        }
    }
    if let Some((&first, rest)) = s.split_first() {
        if let Some(r) = rank(first) {
            from_rank = Some(r);
            s = rest;
        }
    }
    if !s.is_empty() {
        return Err(ReadError::Unreadable);
    }

    let full_origin = from_file.is_some() && from_rank.is_some();
    if separator && !full_origin {
        return Err(ReadError::Malformed(
            "a '-' between squares needs the full origin square (long algebraic: Ng1-f3)",
        ));
    }
    if role.is_none() {
        if full_origin && capture == CaptureClaim::Unwritten {
            // `g1f3`, `e7e8q`: UCI names squares only.
            notes.set(Notes::UCI);
        } else if full_origin {
            // `e2-e4`, `e4xd5`: long algebraic without a piece letter is a pawn in print, but
            // accept whatever stands on the origin square.
            notes.set(Notes::LONG_ALGEBRAIC);
        } else {
            role = Some(Role::Pawn);
        }
    } else if separator || (full_origin && role == Some(Role::Pawn)) {
        notes.set(Notes::LONG_ALGEBRAIC);
    }
    if notes.has(Notes::UCI) {
        // UCI promotion letters are lower case and never take `=`.
        notes.0 &= !Notes::PROMOTION_WITHOUT_EQUALS;
    }

    let mut m = pattern(
        MovePattern::Normal(NormalPattern {
            role,
            from_file,
            from_rank,
            to_file,
            to_rank: Some(to_rank),
            promotion,
        }),
        notes,
    );
    m.capture = capture;
    Ok(m)
}

fn promotion_role(b: u8) -> Option<Role> {
    match b {
        b'Q' | b'q' => Some(Role::Queen),
        b'R' | b'r' => Some(Role::Rook),
        b'B' | b'b' => Some(Role::Bishop),
        b'N' | b'n' => Some(Role::Knight),
        b'K' | b'k' => Some(Role::King), // antichess only; the matcher will find no move
        _ => None,
    }
}

fn file(b: u8) -> Option<File> {
    (b'a'..=b'h')
        .contains(&b)
        .then(|| File::new(u32::from(b - b'a')))
}

fn rank(b: u8) -> Option<Rank> {
    (b'1'..=b'8')
        .contains(&b)
        .then(|| Rank::new(u32::from(b - b'1')))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Strict SAN read back from the token's end, as `plain_san` read it before it became
    /// [`san_at`] on the whole token: the reference `san_at` is held to.
    fn strict_san_reference(token: &[u8]) -> Option<ReadMove> {
        let mut s = token;
        let mut check = CheckClaim::None;
        match s.last()? {
            b'+' => check = CheckClaim::Check,
            b'#' => check = CheckClaim::Mate,
            _ => {}
        }
        if check != CheckClaim::None {
            s = &s[..s.len() - 1];
        }
        let end = u16::try_from(token.len()).ok()?;
        let castle = |side| ReadMove {
            pattern: MovePattern::Castle(side),
            capture: CaptureClaim::Unwritten,
            check,
            notes: Notes::default(),
            start: 0,
            end,
        };
        match s {
            b"O-O" => return Some(castle(CastlingSide::KingSide)),
            b"O-O-O" => return Some(castle(CastlingSide::QueenSide)),
            _ => {}
        }
        let mut promotion = None;
        if s.len() >= 4 && s[s.len() - 2] == b'=' {
            promotion = Some(match s[s.len() - 1] {
                b'Q' => Role::Queen,
                b'R' => Role::Rook,
                b'B' => Role::Bishop,
                b'N' => Role::Knight,
                _ => return None,
            });
            s = &s[..s.len() - 2];
        }
        if s.len() < 2 {
            return None;
        }
        let to_file = file(s[s.len() - 2])?;
        let to_rank = rank(s[s.len() - 1])?;
        s = &s[..s.len() - 2];
        let mut capture = CaptureClaim::Unwritten;
        if let Some((b'x', rest)) = s.split_last() {
            capture = CaptureClaim::Capture;
            s = rest;
        }
        let mut role = Role::Pawn;
        if let Some((&first @ (b'K' | b'Q' | b'R' | b'B' | b'N'), rest)) = s.split_first() {
            role = Role::from_char(first as char)?;
            s = rest;
        }
        let mut from_file = None;
        if let Some((&first, rest)) = s.split_first() {
            if let Some(f) = file(first) {
                from_file = Some(f);
                s = rest;
            }
        }
        let mut from_rank = None;
        if let Some((&first, rest)) = s.split_first() {
            if let Some(r) = rank(first) {
                from_rank = Some(r);
                s = rest;
            }
        }
        let strict = s.is_empty()
            && !(from_file.is_some() && from_rank.is_some())
            && if role == Role::Pawn {
                // `exd5`; never `ed5`, `e2e4` or `4e5`.
                from_rank.is_none() && from_file.is_some() == (capture == CaptureClaim::Capture)
            } else {
                promotion.is_none()
            };
        strict.then_some(ReadMove {
            pattern: MovePattern::Normal(NormalPattern {
                role: Some(role),
                from_file,
                from_rank,
                to_file,
                to_rank: Some(to_rank),
                promotion,
            }),
            capture,
            check,
            notes: Notes::default(),
            start: 0,
            end,
        })
    }

    #[test]
    fn san_read_in_one_pass_is_strict_san_read_from_the_end() {
        // Every token of up to four bytes from a SAN-like alphabet, then a few longer ones,
        // each before every kind of end: what `san_at` reads is what the reference reads of the
        // token, and it reads every strict SAN token that ends at a delimiter.
        let alphabet = b"aehx18KQNO-=+#!";
        let mut tokens: Vec<Vec<u8>> = vec![Vec::new()];
        for _ in 0..4 {
            let longer: Vec<Vec<u8>> = tokens
                .iter()
                .filter(|t| t.len() == tokens.last().map_or(0, Vec::len))
                .flat_map(|t| {
                    alphabet.iter().map(move |&b| {
                        let mut t = t.clone();
                        t.push(b);
                        t
                    })
                })
                .collect();
            tokens.extend(longer);
        }
        for t in [
            "Nbd2", "N1d2", "Nbxd2", "N1xd2", "Nb1d2", "Nb1xd2", "exd8=Q+", "e8=N#", "O-O-O+",
            "O-O-O#", "Qh4xe1", "Rdxd1", "exd5", "e8=K", "e8=Q!", "Kxe2#", "bxa1=R",
        ] {
            tokens.push(t.as_bytes().to_vec());
        }
        let mut read = 0;
        for token in &tokens {
            for end in [
                &b""[..],
                b" ",
                b"\n",
                b")",
                b"{",
                b"!",
                b"?",
                b"a",
                b"\xc3\xa9",
            ] {
                let bytes = [&token[..], end].concat();
                let got = san_at(&bytes);
                if let Some((m, len)) = got {
                    assert_eq!(len, token.len(), "{bytes:?}");
                    assert_eq!(Some(m), strict_san_reference(token), "{bytes:?}");
                    read += 1;
                } else if matches!(end, b"" | b" " | b"\n" | b")" | b"{") {
                    assert_eq!(strict_san_reference(token), None, "{bytes:?}");
                }
            }
        }
        assert!(read > 1000, "only {read} tokens read");
    }

    fn normal(token: &str) -> (NormalPattern, ReadMove) {
        let m = read(token.as_bytes()).unwrap();
        match m.pattern {
            MovePattern::Normal(n) => (n, m),
            other => panic!("{token}: {other:?}"),
        }
    }

    #[test]
    fn strict_san_has_no_notes() {
        for t in [
            "e4", "Nf3", "exd5", "Nbd2", "R1e1", "Qh4xe1", "e8=Q", "Bxf7+", "Qxf7#",
        ] {
            assert_eq!(read(t.as_bytes()).unwrap().notes, Notes::default(), "{t}");
        }
    }

    #[test]
    fn pawn_push_has_no_origin() {
        let (n, m) = normal("c4");
        assert_eq!(n.role, Some(Role::Pawn));
        assert_eq!(n.from_file, None);
        assert_eq!(m.capture, CaptureClaim::Unwritten);
    }

    #[test]
    fn lenient_forms_are_noted() {
        let cases: &[(&str, u32)] = &[
            ("0-0", Notes::CASTLING_SPELLING),
            ("o-o-o", Notes::CASTLING_SPELLING),
            ("nf3", Notes::LOWERCASE_PIECE),
            ("e8Q", Notes::PROMOTION_WITHOUT_EQUALS),
            ("Ng1-f3", Notes::LONG_ALGEBRAIC),
            ("e2-e4", Notes::LONG_ALGEBRAIC),
            ("g1f3", Notes::UCI),
            ("e7e8q", Notes::UCI),
            ("--", Notes::NULL_MOVE),
            ("Z0", Notes::NULL_MOVE),
            ("exd6e.p.", Notes::EN_PASSANT_MARK),
        ];
        for &(t, flag) in cases {
            assert!(read(t.as_bytes()).unwrap().notes.has(flag), "{t}");
        }
    }

    #[test]
    fn check_signs() {
        assert_eq!(read(b"Qh5+").unwrap().check, CheckClaim::Check);
        assert_eq!(read(b"Qh5#").unwrap().check, CheckClaim::Mate);
        let m = read(b"Qh5++").unwrap();
        assert_eq!(m.check, CheckClaim::Check);
        assert!(m.notes.has(Notes::DOUBLE_PLUS));
    }

    #[test]
    fn rejects_non_moves() {
        for t in ["", "e9", "Nf", "hello", "Ng1-f", "1.", "Nxx3", "象c4"] {
            assert!(read(t.as_bytes()).is_err(), "{t}");
        }
        assert_eq!(read(b"~"), Err(ReadError::AnyMove));
    }
}
