//! A game too large to hold, read a window at a time by the lexer itself.
//!
//! The lexer reads a game from one slice; a game over the size limit never is one. The reader
//! then gives the lexer the game a window at a time ([`lex_window`]): each window is lexed as
//! the whole game would be, from the token the last window stopped at, with what the lexer
//! carries from one token to the next ([`Carry`]); the bytes before that token are let go. So
//! a game of any size costs one pass and bounded memory, and it ends where the lexer ends it.
//!
//! Two things differ from lexing the game whole, so that memory stays bounded:
//! - the tags kept from one window to the next are one of each name, up to 4,096 names, with
//!   the values of the first tag and the players only (the report that the game was skipped
//!   names the players): past that many names, a repeated one after a blank line, which
//!   starts a new game, is seen within a window only;
//! - a token still undecided after [`GIANT`] bytes is one that only its end decides: a comment
//!   (which ends at `}` or before a line that looks like a tag pair), a `;` comment, a `%`
//!   escape or a book header line (each to its line's end), or a symbol too long to be a move
//!   or a result. It is passed over to that end by the lexer's own rule, a window at a time.

use memchr::{memchr2, memchr3};

use super::bytes::{ends_symbol, wide_space};
use super::tags::TAG_NAME;
use super::{looks_like_tag, Between, LexEnd, Lexed, Lexer};

/// Bytes after which a token the lexer has not decided is passed over to its end: more than
/// any token the lexer decides within a bounded look (a tag pair's line, a pasted tag, a NAG,
/// a forum wrapper), so that only the unbounded ones reach it.
pub(crate) const GIANT: usize = 64 << 10;

/// What a window of a large game gives: where the game ends, or how far it surely goes on
/// (the bytes before that offset can be let go; lexing goes on from it with more bytes).
/// Likewise of a token passed over ([`pass_over`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Window {
    End(usize),
    Upto(usize),
}

/// What the lexer carries from one window of a game to the next.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Carry {
    at: Between,
    /// A token started on the line before the next window's first byte.
    token_on_line: bool,
    /// Some token other than a book header line has been read.
    begun: bool,
    /// A token too long to decide, passed over to its end.
    partial: Option<Partial>,
}

#[derive(Clone, Copy, Debug)]
enum Partial {
    Comment,
    RestOfLine,
    Symbol,
}

/// Lexes the next window `data` of a game (its first window starts at the game's first byte
/// and `carry` is new); `eof`: nothing follows it. `out` keeps the game's tag names from
/// window to window (the first tag's and the players' values), and no tokens or problems.
pub(crate) fn lex_window(data: &[u8], eof: bool, carry: &mut Carry, out: &mut Lexed) -> Window {
    let window = lex_window_tokens(data, eof, carry, out);
    keep_tags(out);
    window
}

fn lex_window_tokens(data: &[u8], eof: bool, carry: &mut Carry, out: &mut Lexed) -> Window {
    let mut pos = 0;
    loop {
        if let Some(partial) = carry.partial {
            match pass_over(partial, &data[pos..], eof) {
                Window::End(n) => {
                    pos += n;
                    carry.partial = None;
                    carry.token_on_line = true;
                    carry.begun = true;
                }
                Window::Upto(n) => return Window::Upto(pos + n),
            }
        }
        // Tokens are recorded in the tag section only, for the players' values; the
        // movetext is read as splitting reads it, for where the game ends.
        let mut lx = Lexer::resume(data, eof, (1, 1), !carry.at.movetext, out);
        lx.i = pos;
        lx.token_on_line = carry.token_on_line;
        let mut at = Between {
            last_end: pos,
            // A book header line is read only before any other token.
            header_end: if carry.begun { usize::MAX } else { pos },
            ..carry.at
        };
        let mut stop = loop {
            match lx.step(&mut at) {
                None => {}
                Some(LexEnd::Complete(end)) => return Window::End(end),
                Some(LexEnd::NeedMore) => break lx.i,
            }
        };
        if stop == data.len() && data.last() == Some(&b'\r') {
            // Never between the `\r` and the `\n` of a line break: the lexer counted the `\r`
            // as a break, and reads it again in the next window.
            stop -= 1;
            at.newlines_since_tag = at.newlines_since_tag.saturating_sub(1);
        }
        // Whether a token started on the line before `stop`: the last one did, unless a
        // line break came after it.
        let since = at.last_end.min(stop);
        if memchr2(b'\n', b'\r', &data[since..stop]).is_some() {
            carry.token_on_line = false;
        } else if at.last_end > pos {
            carry.token_on_line = true;
        }
        carry.begun |= at.last_end != at.header_end;
        carry.at = at;
        if stop > pos || (data.len() - pos < GIANT && !eof) {
            return Window::Upto(stop);
        }
        // A token the lexer cannot decide in GIANT bytes: only its end can.
        carry.partial = Some(match data[pos] {
            b'{' => Partial::Comment,
            b';' => Partial::RestOfLine,
            b'%' if !carry.token_on_line => Partial::RestOfLine,
            // A book header line (`白方:` ...), before any other token: one unknown token.
            0x80.. if !carry.begun && !carry.token_on_line && out.tag_count() == 0 => {
                out.content = true;
                Partial::RestOfLine
            }
            _ => {
                // A symbol longer than any move: an unknown token of the movetext.
                carry.at.movetext = true;
                out.content = true;
                Partial::Symbol
            }
        });
        pos += 1;
    }
}

/// Passes over the rest of a token too long to decide, by the lexer's rule for it: where
/// the token ends ([`Window::End`]), or how far it surely goes on.
fn pass_over(partial: Partial, data: &[u8], eof: bool) -> Window {
    let more = |n: usize| {
        if eof {
            Window::End(data.len())
        } else {
            Window::Upto(n)
        }
    };
    match partial {
        Partial::RestOfLine => match memchr2(b'\n', b'\r', data) {
            Some(p) => Window::End(p),
            None => more(data.len()),
        },
        Partial::Symbol => {
            let mut j = 0;
            while j < data.len() {
                let c = data[j];
                if (c < 0x80 && ends_symbol(c)) || (c >= 0x80 && wide_space(&data[j..]) > 0) {
                    return Window::End(j);
                }
                j += 1;
            }
            // A wide space (three bytes) may be cut at the end.
            let tail = data
                .iter()
                .rev()
                .take(2)
                .take_while(|&&c| c >= 0x80)
                .count();
            more(data.len() - tail)
        }
        Partial::Comment => {
            let mut i = 0;
            loop {
                let Some(p) = memchr3(b'}', b'\n', b'\r', &data[i..]).map(|p| i + p) else {
                    return more(data.len());
                };
                if data[p] == b'}' {
                    return Window::End(p + 1);
                }
                if data[p] == b'\r' && p + 1 == data.len() && !eof {
                    return Window::Upto(p);
                }
                let next = if data[p] == b'\r' && data.get(p + 1) == Some(&b'\n') {
                    p + 2
                } else {
                    p + 1
                };
                // The lexer ends a comment left open before a line that looks like a tag
                // pair, the whole line break left out.
                match tag_like(&data[next..], eof) {
                    Some(true) => return Window::End(p),
                    Some(false) => i = next,
                    None => return Window::Upto(p),
                }
            }
        }
    }
}

/// Whether `s` starts like a tag pair ([`looks_like_tag`]); `None` when the bytes end before
/// that is known, as they may in a window (after [`GIANT`] bytes it is known: not one).
fn tag_like(s: &[u8], eof: bool) -> Option<bool> {
    if looks_like_tag(s) {
        return Some(true);
    }
    if eof || s.len() >= GIANT {
        return Some(false);
    }
    let cut = match s.split_first() {
        None => true,
        Some((&b'[', rest)) => {
            let name = rest
                .iter()
                .take_while(|&&c| TAG_NAME[usize::from(c)])
                .count();
            let spaces = rest[name..]
                .iter()
                .take_while(|&&c| c == b' ' || c == b'\t')
                .count();
            name + spaces == rest.len()
        }
        Some(_) => false,
    };
    (!cut).then_some(false)
}

/// Distinct tag names kept from window to window (see [`keep_tags`]).
const KEPT_NAMES: usize = 4096;

/// Leaves in `out` one tag of each name (the first), up to [`KEPT_NAMES`] names: the first
/// tag and the players with their values (the report of a skipped game names them), the
/// others by name alone (a name repeated after a blank line starts a new game); no tokens or
/// problems.
fn keep_tags(out: &mut Lexed) {
    out.tokens.clear();
    out.problems.clear();
    if out.tag_count() <= 1 {
        return;
    }
    let mut seen = std::collections::HashSet::new();
    let mut kept: Vec<(String, String, super::Span, bool)> = Vec::new();
    for (i, tag) in out.tags().enumerate() {
        let player = matches!(tag.name, "White" | "Black");
        if (seen.len() >= KEPT_NAMES && !player) || !seen.insert(tag.name) {
            continue;
        }
        let value = if i == 0 || player { tag.value } else { "" };
        kept.push((
            tag.name.to_owned(),
            value.to_owned(),
            tag.span,
            tag.invalid_utf8,
        ));
    }
    let (content, has_result, book) = (out.content, out.has_result, out.book);
    out.clear();
    (out.content, out.has_result, out.book) = (content, has_result, book);
    for (name, value, span, invalid) in kept {
        out.push_tag(&name, &value, span, invalid);
    }
}
