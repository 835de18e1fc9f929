//! The fast path of splitting a stream into games, for the parallel pipeline's reader thread.
//!
//! The reader thread only has to find where each game ends; the workers lex every game again.
//! Finding the end with the full lexer costs a fifth of a worker's time on a TWIC file, and
//! the reader then holds back two workers. This pass reads the common shape of a game —
//! one simple tag pair per line, then movetext of ASCII moves, move numbers, comments,
//! variations and NAGs ending in a standard result — with a few instructions per byte, and
//! answers [`Split::Unsure`] for anything else, so that the full lexer decides. Whatever it
//! answers is exactly what the full lexer would: the fuzz tests compare the games found both
//! ways on every generated input.

use memchr::{memchr, memchr2, memchr2_iter, memchr3, memchr_iter};

use super::lexer::{count_lines, ends_symbol, is_bare_cr, is_space, move_number, simple_tag_line};

/// Longest tag line the fast path reads; a longer one (or a file of games on one line) is
/// for the lexer.
const TAG_LINE: usize = 4096;

/// What the fast path found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    /// The game takes `len` bytes; `end_line` is the line of its last byte.
    Complete { len: usize, end_line: u32 },
    /// The slice ends before the game does.
    NeedMore,
    /// Something outside the common shape: ask the full lexer.
    Unsure,
}

/// Where the game at the start of `data` ends, if it has the common shape. `first_line` is
/// the line of `data[0]`; with `eof` false, a game running to the end of
/// `data` gives [`Split::NeedMore`].
pub fn split_game(data: &[u8], eof: bool, first_line: u32) -> Split {
    let n = data.len();
    let more = if eof { Split::Unsure } else { Split::NeedMore };
    let mut i = 0;
    let mut line = first_line;

    // Tag pairs, one per line.
    let mut newlines_since_tag = 0u32;
    loop {
        while i < n {
            match data[i] {
                b'\n' => {
                    line += 1;
                    newlines_since_tag += 1;
                }
                // Lines that end in a `\r` alone are for the lexer.
                b'\r' if is_bare_cr(data, i) => return more_or_unsure(data, i, eof),
                b' ' | b'\t' | b'\r' | 0x0b | 0x0c => {}
                _ => break,
            }
            i += 1;
        }
        if i >= n {
            return more;
        }
        if data[i] != b'[' {
            break;
        }
        // After a blank line a tag may start the next game: the full lexer knows the names.
        if newlines_since_tag >= 2 {
            return Split::Unsure;
        }
        let window = &data[i..n.min(i + TAG_LINE)];
        let Some(nl) = memchr(b'\n', window) else {
            return if window.len() == TAG_LINE {
                Split::Unsure
            } else {
                more
            };
        };
        // With its line break, the line is read by the common tag line's one pass.
        if simple_tag_line(&data[i..=i + nl]).is_none() {
            return Split::Unsure;
        }
        i += nl;
        newlines_since_tag = 0;
    }
    // Comments may come before the first move (engine settings, annotators' notes); a tag
    // after them would still belong to this game, which only the lexer can tell.
    loop {
        if data[i] == b'\r' {
            return more_or_unsure(data, i, eof);
        }
        match data[i] {
            b'{' => match skip_comment(data, i, &mut line, more) {
                Ok(end) => i = end,
                Err(split) => return split,
            },
            b';' => match memchr2(b'\n', b'\r', &data[i..]) {
                Some(p) => i += p,
                None => return more,
            },
            // The movetext starts with a move, a move number or a result.
            b if b.is_ascii_alphanumeric() || b == b'*' => break,
            _ => return Split::Unsure,
        }
        while i < n && is_space(data[i]) {
            if data[i] == b'\n' {
                line += 1;
            } else if is_bare_cr(data, i) {
                return more_or_unsure(data, i, eof);
            }
            i += 1;
        }
        if i >= n {
            return more;
        }
    }
    movetext(data, eof, i, line)
}

/// For a `\r` at `data[i]` that is no `\r\n` as far as the bytes go: a `\r` alone (a line
/// break the lexer counts) is [`Split::Unsure`]; one that ends bytes that go on may be the
/// start of `\r\n`, so more are needed.
fn more_or_unsure(data: &[u8], i: usize, eof: bool) -> Split {
    if i + 1 == data.len() && !eof {
        Split::NeedMore
    } else {
        Split::Unsure
    }
}

/// A brace comment as the fast paths read it (the reader's split and the replay's): from the
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

/// Passes over the `{` comment at `data[i]`; returns where it ends, counting its newlines in
/// `line`.
fn skip_comment(data: &[u8], i: usize, line: &mut u32, more: Split) -> Result<usize, Split> {
    match comment(&data[i + 1..]) {
        Comment::Closed { close, breaks } => {
            // Line breaks as the lexer counts them (`\n`, `\r\n`, a `\r` alone).
            if breaks {
                *line += count_lines(&data[i + 1..i + 1 + close]);
            }
            Ok(i + close + 2)
        }
        Comment::Open => Err(more),
        Comment::TagLine => Err(Split::Unsure),
    }
}

/// What the movetext scan stops at: 0 passes over (letters, digits and the signs of moves,
/// spaces), 1 may be part of a result (`-`, `/`, `*`, `:`, `=`), 2 is a delimiter the scan
/// handles (newline, comments, variations, brackets, quotes, `%`), 3 needs the full lexer
/// (anything non-ASCII, control characters, other punctuation).
static CLASS: [u8; 256] = {
    let mut table = [3u8; 256];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        table[b] = if c.is_ascii_alphanumeric()
            || matches!(
                c,
                b' ' | b'\t' | 0x0b | 0x0c | b'.' | b'!' | b'?' | b'+' | b'#' | b'$'
            ) {
            0
        } else if matches!(c, b'-' | b'/' | b'*' | b':' | b'=') {
            1
        } else if matches!(
            c,
            b'\n' | b'\r' | b'{' | b'}' | b'(' | b')' | b'[' | b']' | b';' | b'"' | b'%'
        ) {
            2
        } else {
            3
        };
        b += 1;
    }
    table
};

/// The movetext part of [`split_game`], from its first token at `data[i]` on line `line`.
///
/// Only the bytes that can end a game or change how the rest is read are looked at: a
/// result can only be a token with one of `- / * : =` (or a non-ASCII character, which goes
/// to the full lexer), a tag line only follows a newline, and comments are passed over whole.
fn movetext(data: &[u8], eof: bool, mut i: usize, mut line: u32) -> Split {
    let n = data.len();
    let more = if eof { Split::Unsure } else { Split::NeedMore };
    // The movetext's first byte starts a token: token boundaries are known from here on.
    let first = i;
    let mut depth = 0u32;
    // Where the game ends when a tag line or the end of the input comes next: after the last
    // non-space byte before `at`, on its line.
    // Where the last `;` or `%` comment ended: such a token runs to its newline, spaces
    // included.
    let mut line_comment_end = 0;
    // Where the game ends when a tag line or the end of the input comes next: after the last
    // token before `at`, on its line.
    let ended = |at: usize, line: u32, line_comment_end: usize| {
        let mut end = at;
        while end > first && is_space(data[end - 1]) {
            end -= 1;
        }
        let end = end.max(line_comment_end);
        let end_line = line - memchr_iter(b'\n', &data[end..at]).count() as u32;
        Split::Complete { len: end, end_line }
    };
    loop {
        i = next_to_look_at(data, i);
        if i >= n {
            return if eof {
                ended(n, line, line_comment_end)
            } else {
                Split::NeedMore
            };
        }
        let b = data[i];
        match CLASS[usize::from(b)] {
            // `*` is a token by itself (it ends any symbol before it): a result.
            1 if b == b'*' => {
                if depth == 0 {
                    return Split::Complete {
                        len: i + 1,
                        end_line: line,
                    };
                }
                i += 1;
            }
            1 => {
                // The whole token around this byte decides: back to the last delimiter, and
                // on to where the lexer ends the symbol.
                let mut start = i;
                while start > first && !ends_symbol(data[start - 1]) {
                    start -= 1;
                }
                if start > first && data[start - 1] == b'$' {
                    // A NAG's digits may run into the token (`$1-0`): the lexer decides.
                    return Split::Unsure;
                }
                let mut end = i + 1;
                while end < n && !ends_symbol(data[end]) {
                    if data[end] >= 0x80 {
                        return Split::Unsure;
                    }
                    end += 1;
                }
                if end == n && !eof {
                    return Split::NeedMore;
                }
                let token = &data[start..end];
                match token[0] {
                    b'a'..=b'z' | b'A'..=b'Z' | b'+' | b'-' | b'!' | b'?' | b'#' => {}
                    _ if matches!(token, b"1-0" | b"0-1" | b"1/2-1/2" | b"*") => {
                        if depth == 0 {
                            return Split::Complete {
                                len: end,
                                end_line: line,
                            };
                        }
                    }
                    _ if is_move_number(token) => {}
                    _ => return Split::Unsure,
                }
                i = end;
            }
            2 => match b {
                // The `\r` of `\r\n`; one alone is a line break for the lexer.
                b'\r' if !is_bare_cr(data, i) => i += 1,
                b'\r' => return more_or_unsure(data, i, eof),
                b'\n' => {
                    line += 1;
                    i += 1;
                    while i < n && matches!(data[i], b' ' | b'\t' | b'\r' | 0x0b | 0x0c) {
                        if is_bare_cr(data, i) {
                            return more_or_unsure(data, i, eof);
                        }
                        i += 1;
                    }
                    match data.get(i) {
                        // A tag line: the next game.
                        Some(b'[') => return ended(i, line, line_comment_end),
                        // An escape line.
                        Some(b'%') => match memchr2(b'\n', b'\r', &data[i..]) {
                            Some(p) => {
                                i += p;
                                line_comment_end = i;
                            }
                            None => return more,
                        },
                        Some(_) => {}
                        None if eof => return ended(n, line, line_comment_end),
                        None => return Split::NeedMore,
                    }
                }
                b'{' => match skip_comment(data, i, &mut line, more) {
                    Ok(end) => i = end,
                    Err(split) => return split,
                },
                b';' => match memchr2(b'\n', b'\r', &data[i..]) {
                    Some(p) => {
                        i += p;
                        line_comment_end = i;
                    }
                    None => return more,
                },
                b'(' => {
                    depth += 1;
                    i += 1;
                }
                b')' => {
                    // A `)` without `(` is only a problem; it ends nothing.
                    depth = depth.saturating_sub(1);
                    i += 1;
                }
                // `]`, `}`, `"`: unexpected, but they end nothing.
                b']' | b'}' | b'"' => i += 1,
                // `[` within a line may start a tag pair the lexer reads as one token.
                b'[' => return Split::Unsure,
                // `%` within a line is part of a symbol.
                _ => return Split::Unsure,
            },
            _ => return Split::Unsure,
        }
    }
}

/// The first byte at or after `i` that the movetext scan must look at (class not 0), or the
/// end. Eight bytes at a time: most of a movetext is passed over.
fn next_to_look_at(data: &[u8], i: usize) -> usize {
    let class = |b: u8| CLASS[usize::from(b)];
    let mut at = i;
    for c in data[i.min(data.len())..].chunks_exact(8) {
        let any = class(c[0])
            | class(c[1])
            | class(c[2])
            | class(c[3])
            | class(c[4])
            | class(c[5])
            | class(c[6])
            | class(c[7]);
        if any != 0 {
            break;
        }
        at += 8;
    }
    while at < data.len() && class(data[at]) == 0 {
        at += 1;
    }
    at
}

/// A move number (`12`, `12.`, `12...`), possibly glued to a move that starts with a letter
/// (`12.e4`): a symbol that the lexer reads without a result in it.
fn is_move_number(s: &[u8]) -> bool {
    move_number(s).is_some_and(|(_, _, len)| s.get(len).is_none_or(u8::is_ascii_alphabetic))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn::lexer::lex_game_mode;
    use crate::pgn::{LexEnd, Lexed};

    /// The full lexer's answer, in the fast path's terms.
    fn full(data: &[u8], eof: bool) -> Split {
        let mut lexed = Lexed::default();
        match lex_game_mode(data, eof, 1, 1, false, &mut lexed) {
            LexEnd::Complete(len) => Split::Complete {
                len,
                end_line: lexed.end_line,
            },
            LexEnd::NeedMore => Split::NeedMore,
        }
    }

    fn agrees(data: &str) -> Split {
        for eof in [true, false] {
            let fast = split_game(data.as_bytes(), eof, 1);
            if fast != Split::Unsure {
                assert_eq!(fast, full(data.as_bytes(), eof), "{data:?} (eof {eof})");
            }
        }
        split_game(data.as_bytes(), true, 1)
    }

    #[test]
    fn common_games_are_split_without_the_lexer() {
        let games = [
            "[Event \"a\"]\n[Site \"b\"]\n\n1. e4 e5 2. Nf3 1-0\n\n[Event \"c\"]\n",
            "[Event \"a\"]\r\n\r\n1. e4 { [%clk 0:05:00] } 1... e5 { two\nlines } 0-1 [Event",
            "[Event \"a\"]\n\n1. e4 (1. d4 d5 1-0) e5 $1 2. Nf3!? ; note\n% escape\n*\n",
            "1. e4 e5\n[Event \"next\"]\n",
            "[Event \"a\"]\n\n1. e4 e5\n",
            "[Event \"a\"]\n\n12.e4 1/2-1/2",
            "[Event \"a\"]\n\n{engine}\n; x\n1. e4 ; note  \n[Event \"b\"]\n",
            "[Event \"a\"]\n\n1. e4 e5\n% escape  \r\n\n[Event \"b\"]\n",
            "[Event \"a\"]\n\n1. e4 e5 { a\nb } c5  \n \n  [Event \"b\"]\n",
            // `*` and `$` end a symbol: a move glued to them is still a move.
            "[Event \"a\"]\n\n1. e4 e5 2. Nf3$1 Nc6 3. Bb5*1. d4 *",
            "[Event \"a\"]\n\n1. f3 e5 2. g4 Qh4#*",
            "[Event \"a\"]\n\n*1. e4 *",
            // Comments over lines: `\r\n`, a `\r` alone (a line break to the lexer too), and
            // a `[` inside a line.
            "[Event \"a\"]\r\n\r\n1. e4 { a\r\n b [x] } 1-0\r\n\r\n[Event",
            "[Event \"a\"]\n\n1. e4 { one\rtwo\r\nthree\r} e5 1-0\n\n[Event",
        ];
        for g in games {
            assert!(matches!(agrees(g), Split::Complete { .. }), "{g:?}");
        }
    }

    #[test]
    fn anything_unusual_goes_to_the_lexer() {
        let unusual = [
            "[Event \"a \\\"b\\\"\"]\n\n1. e4 1-0",
            "[Event \"a\"]\n\n[Site \"b\"]\n1. e4 1-0",
            "[Event \"a\"] [Site \"b\"]\n1. e4 1-0",
            "[Event \"a\"]\n\n{ open\n[Event \"b\"]\n} 1-0",
            "[Event \"a\"]\n\n{ open\r[Event \"b\"]\n} 1-0",
            "[Event \"a\"]\n\n1. e4 { two\n lines\r\n[Event \"b\"]\n} 1-0",
            "[Event \"a\"]\n\n1. e4 ½-½",
            "[Event \"a\"]\n\n1. 马g1-f3 *",
            "[Event \"a\"]\n\n1. O-O 0-0 1-0",
            "[Event \"a\"]\n\n1. e4 1:0",
            "[Event \"a\"]\n\n37.1-0",
            "{ only a comment }",
            "[Event \"a\"]\n\n{ engine }\n[Site \"b\"]\n1. e4 *",
            "[Event \"a\"]\n\n1. e4 $1-0 *",
            "[Event \"a\"]\n\n1. e4 [Result \"1-0\"] *",
        ];
        for g in unusual {
            assert_eq!(agrees(g), Split::Unsure, "{g:?}");
        }
    }

    #[test]
    fn comments_end_at_their_brace_unless_a_line_starts_with_a_bracket() {
        let closed = |body: &str, close: usize, breaks: bool| {
            assert_eq!(
                comment(body.as_bytes()),
                Comment::Closed { close, breaks },
                "{body:?}"
            );
        };
        closed(" [%clk 0:03:00] } e5", 16, false);
        closed("}", 0, false);
        closed(" two\nlines } x", 11, true);
        closed(" a\r\n b [x] }", 11, true);
        closed(" bare\rcr } x", 9, true);
        for tag_line in [" a\n[Event \"b\"] }", " a\r[Event \"b\"] }", " a\r\n[b }"] {
            assert_eq!(
                comment(tag_line.as_bytes()),
                Comment::TagLine,
                "{tag_line:?}"
            );
        }
        for open in [" no end", " no\nend [x", ""] {
            assert_eq!(comment(open.as_bytes()), Comment::Open, "{open:?}");
        }
    }

    #[test]
    fn a_game_cut_short_asks_for_more() {
        for data in [
            "[Event \"a\"]\n\n1. e4 e",
            "[Event \"a\"]\n\n1. e4 { open",
            "[Eve",
        ] {
            assert_eq!(split_game(data.as_bytes(), false, 1), Split::NeedMore);
            assert_eq!(full(data.as_bytes(), false), Split::NeedMore);
        }
    }
}
