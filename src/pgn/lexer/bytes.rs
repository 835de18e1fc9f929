//! The bytes of PGN as the lexer and the readers around it class them: spaces and line
//! breaks, the bytes that end a symbol, glyphs, move numbers, and counts of lines and
//! characters.

use memchr::{memchr2_iter, memchr3, memchr_iter, memrchr};

/// ASCII white space, as PGN has it.
#[inline]
pub(crate) fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

// Line breaks are every ending PGN files have: `\n`, `\r\n`, and a `\r` alone (old Mac
// files). The break of `\r\n` is its `\n` (the `\r` is a space before it); a `\r` at the
// end of the bytes looked at counts as a break, so callers never cut between `\r` and `\n`.

/// Whether the `\r` at `s[i]` is a line break by itself (no `\n` follows).
#[inline]
pub(crate) fn is_bare_cr(s: &[u8], i: usize) -> bool {
    s[i] == b'\r' && s.get(i + 1) != Some(&b'\n')
}

/// Where the line break that ends at `s[i]` (a `\n` or a bare `\r`) begins: at the `\r` of
/// `\r\n`, else at `i`. Two bare `\r`s are two breaks, not one.
#[inline]
pub(crate) fn break_start(s: &[u8], i: usize) -> usize {
    if i > 0 && s[i] == b'\n' && s[i - 1] == b'\r' {
        i - 1
    } else {
        i
    }
}

/// Line breaks in `s`.
pub(crate) fn count_lines(s: &[u8]) -> u32 {
    let lf = memchr_iter(b'\n', s).count();
    let cr = memchr_iter(b'\r', s)
        .filter(|&p| s.get(p + 1) != Some(&b'\n'))
        .count();
    (lf + cr) as u32
}

/// Where the last line of `s` starts: after its last line break (0 without one).
pub(crate) fn last_line_start(s: &[u8]) -> usize {
    // The last `\n` is found from the end at once; a `\r` after it is a break by itself.
    let from = memrchr(b'\n', s).map_or(0, |p| p + 1);
    memrchr(b'\r', &s[from..]).map_or(from, |p| from + p + 1)
}

/// Bytes that end a symbol, as a table: the symbol scan is the lexer's innermost loop.
pub(crate) static DELIMITER: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = matches!(
            b as u8,
            b' ' | b'\t'
                | b'\n'
                | b'\r'
                | 0x0b
                | 0x0c
                | b'{'
                | b'}'
                | b'('
                | b')'
                | b'['
                | b']'
                | b';'
                | b'"'
        );
        b += 1;
    }
    table
};

/// First bytes of tokens that splitting passes over once the movetext has begun: letters and
/// the signs moves and glyphs are written with. Never the first byte of a result (`0`, `1`,
/// `*`, `=`, non-ASCII), a move number (digits), a NAG (`$`), a comment, a bracket, a quote, a
/// `%` escape or a control character.
pub(super) static SKIPPED_WHEN_SPLITTING: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 128 {
        table[b] = matches!(b as u8, b'a'..=b'z' | b'A'..=b'Z' | b'+' | b'-' | b'!' | b'?' | b'#' | b'@' | b'~' | b'_');
        b += 1;
    }
    table
};

/// Bytes that end a symbol in the lexer: the delimiters, and `*` and `$`, which PGN (§7)
/// makes tokens of their own, so that a move glued to the result (`Bb5*`) or to a NAG
/// (`Nf3$1`) is still the move. (The notation layer keeps [`DELIMITER`]: it reads the
/// lexer's tokens, which hold neither.)
static SYMBOL_END: [bool; 256] = {
    let mut table = DELIMITER;
    table[b'*' as usize] = true;
    table[b'$' as usize] = true;
    table
};

/// Whether `b` ends a symbol as the lexer reads it (see [`SYMBOL_END`]).
#[inline]
pub(crate) fn ends_symbol(b: u8) -> bool {
    SYMBOL_END[usize::from(b)]
}

/// Length of a multi-byte space (U+3000 ideographic space, U+00A0 no-break space) at `s`,
/// or of a UTF-8 byte order mark (U+FEFF), which `cat a.pgn b.pgn` leaves before the games
/// of `b.pgn`: read as a space, it does not hide the tag line it starts.
#[inline]
pub(crate) fn wide_space(s: &[u8]) -> usize {
    if s.starts_with(&[0xE3, 0x80, 0x80]) || s.starts_with(&[0xEF, 0xBB, 0xBF]) {
        3
    } else if s.starts_with(&[0xC2, 0xA0]) {
        2
    } else {
        0
    }
}

/// Where what the lexer reads as spaces (wide ones too: [`wide_space`]) ends in `s`, from `i`.
pub(crate) fn skip_spaces(s: &[u8], mut i: usize) -> usize {
    while i < s.len() {
        match wide_space(&s[i..]) {
            0 if is_space(s[i]) => i += 1,
            0 => break,
            n => i += n,
        }
    }
    i
}

/// The NAG at `bytes[i]`, a `$`: its value (`None` for a `$` without digits or above 255)
/// and where it ends (after seven digits at most).
#[inline]
pub(crate) fn nag_at(bytes: &[u8], i: usize) -> (Option<u16>, usize) {
    let mut j = i + 1;
    while j < bytes.len() && bytes[j].is_ascii_digit() && j - i < 8 {
        j += 1;
    }
    let value = bytes[i + 1..j]
        .iter()
        .fold(0u32, |acc, &d| acc * 10 + u32::from(d - b'0'));
    ((j > i + 1 && value <= 255).then_some(value as u16), j)
}

/// The NAG a suffix glyph stands for (`!` is `$1`, `?!` is `$6`).
#[inline]
pub(crate) fn nag_glyph(s: &[u8]) -> Option<u16> {
    Some(match s {
        b"!" => 1,
        b"?" => 2,
        b"!!" => 3,
        b"??" => 4,
        b"!?" => 5,
        b"?!" => 6,
        _ => return None,
    })
}

/// Evaluation symbols written as standalone tokens.
#[inline]
pub(super) fn evaluation_glyph(s: &[u8]) -> Option<u16> {
    Some(match s {
        b"=" => 10,
        b"+=" | b"+/=" => 14,
        b"=+" | b"=/+" => 15,
        b"+/-" => 16,
        b"-/+" => 17,
        b"+-" | b"+--" => 18,
        b"-+" | b"--+" => 19,
        b"N" => 146,
        _ => return None,
    })
}

/// The move number a symbol starts with (`12`, `12.`, `12...`, `12…`, and `12.` of `12.e4`):
/// its number, its dots as [`TokenKind::MoveNumber`] counts them, and its length in bytes.
#[inline]
pub(crate) fn move_number(s: &[u8]) -> Option<(u32, u8, usize)> {
    // One pass over the digits, keeping the value of the first nine.
    let mut digits = 0;
    let mut number = 0u32;
    while let Some(&d) = s.get(digits) {
        if !d.is_ascii_digit() {
            break;
        }
        if digits < 9 {
            number = number * 10 + u32::from(d - b'0');
        }
        digits += 1;
    }
    if digits == 0 {
        return None;
    }
    let rest = &s[digits..];
    let (dots, dot_bytes) = match rest.first() {
        Some(b'.') => {
            let n = rest.iter().take_while(|&&c| c == b'.').count();
            (if n >= 2 { 3 } else { 1 }, n)
        }
        // The other dots are not ASCII.
        Some(&c) if c >= 0x80 => non_ascii_dots(rest),
        _ => (0, 0),
    };
    // Without dots: `0000` (UCI null move) and `00` (castling in Chinese texts) are moves, and
    // no move number is 0.
    if dot_bytes == 0 && (digits < s.len() || s[..digits].iter().all(|&d| d == b'0')) {
        return None;
    }
    Some((number, dots, digits + dot_bytes))
}

/// Dots after a move number that are not ASCII: `…` (3), `、` and full-width `．` or `。` (1).
/// Returns (dots meaning, bytes used).
fn non_ascii_dots(rest: &[u8]) -> (u8, usize) {
    for (pat, meaning) in [("…", 3u8), ("、", 1), ("．", 1), ("。", 1)] {
        if rest.starts_with(pat.as_bytes()) {
            return (meaning, pat.len());
        }
    }
    (0, 0)
}

/// Characters in UTF-8 text (bytes that do not continue a character): columns count them.
#[inline]
pub(crate) fn count_chars(s: &[u8]) -> u32 {
    // Mostly ASCII, which `is_ascii` checks a word at a time.
    if s.is_ascii() {
        return s.len() as u32;
    }
    s.iter().filter(|&&b| (b & 0xC0) != 0x80).count() as u32
}

/// A brace comment as the replay's movetext loop reads it: from the
/// body after its `{`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Comment {
    /// Closed by the `}` at `close`; `breaks` when a line break is inside.
    Closed { close: usize, breaks: bool },
    /// No `}` in the bytes given.
    Open,
    /// A line inside it starts with `[` (after a `\n` or a `\r`): the lexer may end the
    /// comment there, at a tag line.
    TagLine,
}

/// Reads the brace comment whose body (after the `{`) starts `body`.
#[inline]
pub(crate) fn comment(body: &[u8]) -> Comment {
    // Most comments close before any line break: one search.
    let from = match memchr3(b'}', b'\n', b'\r', body) {
        Some(p) if body[p] == b'}' => {
            return Comment::Closed {
                close: p,
                breaks: false,
            }
        }
        Some(p) => p,
        None => return Comment::Open,
    };
    // A comment over several lines (as engines write them): its end, and any line in it that
    // starts with `[`, in one more pass. `body[from]` is a line break, so a `[` found is
    // after it.
    for q in memchr2_iter(b'}', b'[', &body[from..]) {
        let q = from + q;
        if body[q] == b'}' {
            return Comment::Closed {
                close: q,
                breaks: true,
            };
        }
        if matches!(body[q - 1], b'\n' | b'\r') {
            return Comment::TagLine;
        }
    }
    Comment::Open
}

#[cfg(test)]
mod tests {
    use super::move_number;

    #[test]
    fn move_numbers_and_their_dots() {
        // (symbol, (number, dots, bytes used)).
        type Case = (&'static str, Option<(u32, u8, usize)>);
        let cases: [Case; 16] = [
            ("12.", Some((12, 1, 3))),
            ("12...", Some((12, 3, 5))),
            ("12..", Some((12, 3, 4))),
            ("12.e4", Some((12, 1, 3))),
            ("12…", Some((12, 3, 5))),
            ("3、", Some((3, 1, 4))),
            ("3．", Some((3, 1, 4))),
            ("3。", Some((3, 1, 4))),
            ("12", Some((12, 0, 2))),
            ("0.", Some((0, 1, 2))),
            ("1234567890.", Some((123_456_789, 1, 11))),
            // Without dots: a move (`0000`, `00`), or a symbol that is not a number.
            ("0", None),
            ("0000", None),
            ("12e4", None),
            ("e4", None),
            ("", None),
        ];
        for (s, expected) in cases {
            assert_eq!(move_number(s.as_bytes()), expected, "{s:?}");
        }
    }
}
