//! Passing over a game too large to lex: where it ends, found in one streaming pass.
//!
//! The lexer needs a whole game in one slice; a game larger than the size limit never is.
//! [`Skip`] reads such a game a slice at a time, carrying what it needs from one slice to the
//! next (inside a comment, variations open, the movetext begun), so that skipping costs one
//! pass over the bytes whatever their size. It ends the game where the lexer would: at its
//! result outside comments and variations, or at the first line starting with `[` once the
//! movetext has begun (a comment left open ends at such a line if it looks like a tag pair).
//! It keeps the game's `White` and `Black` tags, for the report that the game was skipped.

use memchr::{memchr2, memchr3};

use super::bytes::{ends_symbol, is_space, move_number, wide_space};
use super::tags::{simple_tag_end, tag_head, PASTED_TAG_MAX};
use super::{looks_like_tag, GameResult, Lexed, Span, MAX_SYMBOL};

/// Bytes after a line break that decide whether the line looks like a tag pair.
const TAG_LOOK: usize = 64;

/// Where a slice given to [`Skip::scan`] leaves the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Skipped {
    /// The game ends here: the next game (or spaces before it) starts at this offset.
    End(usize),
    /// The game goes on: the bytes before this offset are passed over, and scanning goes on
    /// from it once more bytes follow.
    Upto(usize),
}

/// What is carried from one slice of an oversized game to the next.
#[derive(Debug, Default)]
pub(crate) struct Skip {
    /// A token of the movetext has been read: a `[` starting a line starts the next game.
    movetext: bool,
    /// Inside a `{` comment.
    comment: bool,
    /// Inside a line comment, an escape line or a tag pair, to the end of the line.
    rest_of_line: bool,
    /// Inside a symbol too long to be a result.
    long_symbol: bool,
    /// A token has started on the current line.
    token_on_line: bool,
    /// Variations open.
    depth: u32,
    /// The game's first line, where the players kept are placed.
    line: u32,
}

impl Skip {
    /// A skip from a game's first byte, which is on `line` with no token before it there
    /// (as the lexer starts a game).
    pub(crate) fn new(line: u32) -> Self {
        Skip {
            line,
            ..Skip::default()
        }
    }

    /// Passes over `data`, the next bytes of the game (`eof`: nothing follows them). Tag
    /// pairs `White` and `Black` met on the way go into `out` (the first of each).
    pub(crate) fn scan(&mut self, data: &[u8], eof: bool, out: &mut Lexed) -> Skipped {
        let mut i = 0;
        // More bytes decide what starts at `i`: keep it for the next slice.
        let more = |i: usize| {
            if eof {
                Skipped::End(data.len())
            } else {
                Skipped::Upto(i)
            }
        };
        loop {
            if self.comment {
                let Some(p) = memchr3(b'}', b'\n', b'\r', &data[i..]).map(|p| i + p) else {
                    return more(data.len());
                };
                if data[p] == b'}' {
                    self.comment = false;
                    i = p + 1;
                    continue;
                }
                let next = if data[p] == b'\r' && data.get(p + 1) == Some(&b'\n') {
                    p + 2
                } else {
                    p + 1
                };
                if next + TAG_LOOK > data.len()
                    && !eof
                    && memchr2(b'\n', b'\r', &data[next..]).is_none()
                {
                    return Skipped::Upto(p);
                }
                i = next;
                if looks_like_tag(&data[next..]) {
                    // The lexer ends an open comment at a tag line.
                    self.comment = false;
                    self.token_on_line = false;
                }
                continue;
            }
            if self.rest_of_line || self.long_symbol {
                let end = if self.rest_of_line {
                    memchr2(b'\n', b'\r', &data[i..]).map(|p| i + p)
                } else {
                    symbol_end(data, i)
                };
                let Some(end) = end else {
                    return more(data.len());
                };
                self.rest_of_line = false;
                self.long_symbol = false;
                i = end;
                continue;
            }
            // Spaces.
            while i < data.len() {
                let b = data[i];
                if is_space(b) {
                    if b == b'\n' || b == b'\r' {
                        self.token_on_line = false;
                    }
                    i += 1;
                } else if b >= 0x80 && wide_space(&data[i..]) > 0 {
                    i += wide_space(&data[i..]);
                } else {
                    break;
                }
            }
            // A wide space may be cut by the end of the slice.
            if i + 3 > data.len() && !eof {
                return Skipped::Upto(i);
            }
            if i >= data.len() {
                return Skipped::End(data.len());
            }
            let start = i;
            let at_line_start = !self.token_on_line;
            self.token_on_line = true;
            match data[start] {
                b'[' if !self.movetext || at_line_start => {
                    if self.movetext {
                        return Skipped::End(start);
                    }
                    // To the tag pair's end: a game on one line goes on after it.
                    let Some((window, end)) = tag_end(&data[start..], eof) else {
                        return Skipped::Upto(start);
                    };
                    keep_player(window, self.line, out);
                    match end {
                        Some(end) => i = start + end,
                        None => {
                            self.rest_of_line = true;
                            i = start + 1;
                        }
                    }
                }
                b'{' => {
                    self.comment = true;
                    i = start + 1;
                }
                b';' => {
                    self.rest_of_line = true;
                    i = start + 1;
                }
                b'%' if at_line_start => {
                    self.rest_of_line = true;
                    i = start + 1;
                }
                b'(' => {
                    self.depth += 1;
                    self.movetext = true;
                    i = start + 1;
                }
                b')' => {
                    self.depth = self.depth.saturating_sub(1);
                    i = start + 1;
                }
                b'[' => {
                    // A tag pair pasted into the movetext is one token, as the lexer reads it.
                    let Some((_, end)) = tag_end(&data[start..], eof) else {
                        return Skipped::Upto(start);
                    };
                    i = start + end.unwrap_or(1);
                    self.movetext = true;
                }
                b'*' => {
                    self.movetext = true;
                    if self.depth == 0 {
                        return Skipped::End(start + 1);
                    }
                    i = start + 1;
                }
                b'$' | b']' | b'}' | b'"' => {
                    // A NAG's digits are a symbol of their own, which is no result.
                    self.movetext = true;
                    i = start + 1;
                }
                _ => {
                    let end = symbol_end(data, start);
                    self.movetext = true;
                    let Some(end) = end.or(eof.then_some(data.len())) else {
                        if data.len() - start > MAX_SYMBOL {
                            self.long_symbol = true;
                            return Skipped::Upto(data.len());
                        }
                        return Skipped::Upto(start);
                    };
                    if self.depth == 0 && ends_game(&data[start..end]) {
                        return Skipped::End(end);
                    }
                    i = end;
                }
            }
        }
    }
}

/// The line of the tag pair that `rest` starts with (within [`PASTED_TAG_MAX`] bytes) and
/// where the pair ends in it when it is a simple one (`[Round "2"]`, nothing escaped), as
/// the lexer reads a pasted tag. `None` when more bytes decide.
fn tag_end(rest: &[u8], eof: bool) -> Option<(&[u8], Option<usize>)> {
    let window = &rest[..rest.len().min(PASTED_TAG_MAX)];
    let (window, whole) = match memchr2(b'\n', b'\r', window) {
        Some(p) => (&window[..p], true),
        None => (window, window.len() == PASTED_TAG_MAX || eof),
    };
    let end = tag_head(window).and_then(|(_, value)| simple_tag_end(window, value));
    match end {
        Some((_, end)) => Some((window, Some(end))),
        None if !whole => None,
        None => Some((window, None)),
    }
}

/// Where the symbol from `data[from]` ends (at a delimiter, `*`, `$` or a wide space), if
/// within `data`.
fn symbol_end(data: &[u8], from: usize) -> Option<usize> {
    let mut j = from;
    while j < data.len() {
        let c = data[j];
        if (c < 0x80 && ends_symbol(c)) || (c >= 0x80 && wide_space(&data[j..]) > 0) {
            return Some(j);
        }
        j += 1;
    }
    None
}

/// Whether the symbol `s` ends a game: a result, after any move numbers and periods glued
/// before it (`40.1-0`), as the lexer reads symbols.
fn ends_game(mut s: &[u8]) -> bool {
    loop {
        if s.is_empty() || s.len() > MAX_SYMBOL {
            return false;
        }
        if s.len() >= 2 && s[0].is_ascii_alphabetic() {
            return false;
        }
        if let Some((_, _, len)) = move_number(s) {
            s = &s[len..];
            continue;
        }
        if s[0] == b'.' {
            s = &s[s.iter().take_while(|&&c| c == b'.').count()..];
            continue;
        }
        return GameResult::parse(s).is_some();
    }
}

/// Keeps the value of a `White` or `Black` tag pair on `line` in `out`, unless it has one.
fn keep_player(line: &[u8], at: u32, out: &mut Lexed) {
    let Some((name, value)) = tag_head(line) else {
        return;
    };
    let Some((quote, _)) = simple_tag_end(line, value) else {
        return;
    };
    let name = &line[name];
    if !matches!(name, b"White" | b"Black") || out.tag_names().any(|n| n == name) {
        return;
    }
    let value = String::from_utf8_lossy(&line[value..quote]);
    let name = if name == b"White" { "White" } else { "Black" };
    let span = Span {
        start: 0,
        end: 0,
        line: at,
        col: 1,
    };
    out.push_tag(name, &value, span, false);
}
