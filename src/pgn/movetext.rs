//! The movetext's lexer loop: a game's movetext read in one pass, each token pushed as an
//! event to a [`MovetextEvents`] (the replay implements it).
//!
//! The design, after pgn-reader's `Reader::read_game`: one loop over the bytes, events pushed
//! to a visitor that is a type parameter (static dispatch, its hot events inline in the loop).
//! The common tokens are the loop's fast cases, read straight from the bytes: strict SAN
//! moves on the main line (parsed to a [`ReadMove`] in the same pass), move numbers, brace
//! comments, NAGs and glyphs, a standard result. They are read as the lexer reads them, by
//! the same functions (a symbol's parts by `symbol_part`, a comment by `comment`, a NAG by
//! `nag_at`), so that the two cannot read a token apart. Whatever else comes (a variation,
//! a line comment, a sign standing apart, a move the visitor could not play, a problem the
//! lexer reports) is the loop's rare branch: from there on the lexer steps a token at a time, and
//! each token is pushed as it comes, as an event of the same kind
//! ([`MovetextEvents::move_token`], [`MovetextEvents::begin_variation`], ...). The lexer reads
//! the movetext from its start, as it reads any, and passes over the tokens the fast cases
//! pushed: no state of the lexer is made up in the middle of a game. Moves in other
//! letters (`--lang`), a movetext after tokens that are no tags (a book header no header was
//! read from) and a game with no replay take the rare branch from the movetext's start; a game
//! lexed whole ([`Movetext::Tokens`]) is pushed the same way. The visitor never sees a token,
//! and where a game ends is found here, never by the visitor.
//!
//! Spans come without their line and column ([`UNPLACED`]): only a span that ends up in a
//! report needs them, and [`place_spans`] gives them afterwards, as the lexer counts them.

use crate::notation::{self, ReadMove, TrailingSign};
use crate::pgn::lexer::{
    comment, count_chars, count_lines, ends_symbol, last_line_start, move_number, nag_at,
    skip_spaces, symbol_part, wide_space, Comment, MovetextLexer, SymbolPart, DELIMITER,
    MAX_SYMBOL,
};
use crate::pgn::{GameResult, LexProblem, Lexed, Movetext, MovetextStart, Span, Token, TokenKind};

/// What the loop pushes a movetext's tokens to: the replay. The loop reads the tokens; what
/// they mean for the game (a legal move, a finding) is the visitor's. Every movetext ends
/// with [`Self::end`].
pub(crate) trait MovetextEvents {
    /// The visitor wants the comments and NAGs ([`Self::comment`], [`Self::nag`]).
    fn wants_movetext(&self) -> bool;
    /// A main-line move in strict SAN, read, in the loop's fast cases (no variation has
    /// started). False when it could not be played: the line is broken, and the rest of the
    /// game comes as tokens ([`Self::rest_starts`]).
    fn san(&mut self, m: &ReadMove, span: Span) -> bool;
    // The other events are passed over by a visitor that does not override them (as
    // pgn-reader's are): the replay takes them all.
    /// A comment, bytes `start..end` with its braces (or its `;` and the rest of the line).
    fn comment(&mut self, _start: u32, _end: u32) {}
    /// A NAG, or the glyph glued to a move (`e4!?`) as its NAG.
    fn nag(&mut self, _nag: u16) {}
    /// A move number, with 1 for `12.` and 3 for `12...`, before the next move.
    fn move_number(&mut self, _number: u32, _dots: u8, _span: Span) {}
    /// A move number in the loop's fast cases: on the main line, no variation started (what
    /// [`Self::move_number`] is there, without asking where).
    fn main_move_number(&mut self, _number: u32, _dots: u8, _span: Span) {}
    /// A move token as written, in any notation, perhaps several moves glued (`Nf3Nf6`),
    /// with a sign standing apart after it that belongs to it (`Qh5 +`). `variation_follows`:
    /// the next token but comments, NAGs and move numbers starts a variation, which replaces
    /// this move.
    fn move_token(
        &mut self,
        _span: Span,
        _sign: Option<(TrailingSign, Span)>,
        _variation_follows: bool,
    ) {
    }
    /// A variation starts (`(` at `span`).
    fn begin_variation(&mut self, _span: Span) {}
    /// A variation ends.
    fn end_variation(&mut self) {}
    /// A result token (on the main line or in a variation).
    fn result(&mut self, _result: GameResult, _span: Span) {}
    /// Bytes that are no token of a movetext (the lexer's `Unknown`), not reported by the
    /// lexer already.
    fn unexpected(&mut self, _span: Span) {}
    /// From here on the movetext comes as tokens: what the visitor needs to know before the
    /// first of them but comments, NAGs and move numbers.
    fn rest_starts(&mut self, _rest: RestStart) {}
    /// A move token not in ASCII comes next (perhaps as the sign after a move): the game's
    /// moves are in Chinese (or other non-SAN) notation. Told once.
    fn other_notation(&mut self) {}
    /// The movetext ended.
    fn end(&mut self) {}
}

/// The rest of a movetext that comes as tokens, before the first of them but comments, NAGs
/// and move numbers: what the loop's fast cases did not keep and a visitor may need made
/// again.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RestStart {
    /// Where the movetext starts.
    pub at: MovetextStart,
    /// A move came before, in the fast cases.
    pub after_move: bool,
    /// That token starts a variation (which replaces the last move before).
    pub variation_first: bool,
}

/// What the end of a check needs to know of a movetext, once it is read.
#[derive(Default)]
pub(crate) struct MovetextFacts {
    pub has_move: bool,
    /// The (last) result token.
    pub result_span: Option<Span>,
    /// Where the game ends in the bytes.
    pub end: usize,
    /// The lexer's problems in the rest of the movetext ([`MovetextEvents::rest_starts`]).
    pub rest_problems: Vec<LexProblem>,
}

/// The line of a span not placed yet (no real line is 0): see [`place_spans`].
pub(crate) const UNPLACED: u32 = 0;

/// Gives every unplaced span its line and column as the lexer counts them: lines by their
/// breaks (`\n`, `\r\n`, `\r`), columns in characters from the start of the line.
pub(crate) fn place_spans(bytes: &[u8], at: MovetextStart, spans: &mut [&mut Span]) {
    spans.sort_unstable_by_key(|s| s.start);
    let mut pos = at.line_start;
    let mut line = at.line;
    let mut col = if at.line_start == 0 { at.first_col } else { 1 };
    for span in spans.iter_mut() {
        let target = span.start as usize;
        let gap = &bytes[pos..target];
        match last_line_start(gap) {
            0 => col += count_chars(gap),
            start => {
                line += count_lines(gap);
                col = 1 + count_chars(&gap[start..]);
            }
        }
        pos = target;
        span.line = line;
        span.col = col;
    }
}

/// The span of bytes `start..end` inside a token with span `token` and bytes `text` (a move
/// glued to others in one token): on the token's line, the column counted in characters.
pub(crate) fn span_within(token: Span, text: &[u8], start: u32, end: u32) -> Span {
    Span {
        start: token.start + start,
        end: token.start + end,
        line: token.line,
        col: token.col + count_chars(&text[..start as usize]),
    }
}

/// Bytes that end a symbol for the loop: the lexer's delimiters, and any non-ASCII byte
/// (which only the rare branch reads).
static SYMBOL_END: [bool; 256] = {
    let mut table = [true; 256];
    let mut b = 0;
    while b < 128 {
        table[b] = DELIMITER[b];
        b += 1;
    }
    table
};

/// A move number of one to eight digits with its dots and a space, tab or line break after
/// them, at `bytes[i]`: its number, its dots as [`move_number`] counts them, and where it
/// ends. `None` for anything else.
#[inline(always)]
fn spaced_move_number(bytes: &[u8], i: usize) -> Option<(u32, u8, usize)> {
    let mut j = i;
    let mut number = 0u32;
    while let Some(&d @ b'0'..=b'9') = bytes.get(j) {
        if j - i == 8 {
            return None;
        }
        number = number * 10 + u32::from(d - b'0');
        j += 1;
    }
    let digits_end = j;
    while bytes.get(j) == Some(&b'.') {
        j += 1;
    }
    let dots = j - digits_end;
    if dots == 0 || !matches!(bytes.get(j), Some(b' ' | b'\n' | b'\r' | b'\t')) {
        return None;
    }
    debug_assert_eq!(
        move_number(&bytes[i..j]),
        Some((number, if dots >= 2 { 3 } else { 1 }, j - i))
    );
    Some((number, if dots >= 2 { 3 } else { 1 }, j))
}

/// Whether the token after a move that ends at `end` may be a sign standing alone, which
/// belongs to that move (`Qh5 +`, `exd6 e.p.`): the move is then left to the rare branch,
/// which reads them together. Most moves are followed by a space and a move number, a move or
/// a comment, which this tells at once.
#[inline(always)]
fn sign_may_follow(bytes: &[u8], end: usize) -> bool {
    match bytes.get(end..end + 2) {
        Some(&[b' ', next]) if NO_SIGN_STARTS[usize::from(next)] => false,
        _ => sign_may_follow_slow(bytes, end),
    }
}

/// Bytes that start no sign standing alone (see [`may_be_sign`]): of ASCII, all but `#`,
/// `+`, `=`, `x`, `e` (`ep`, `e.p.`) and spaces. (A `(` is always a variation's start for
/// the lexer, never a move token.)
static NO_SIGN_STARTS: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0x21;
    while b < 0x7f {
        table[b] = !matches!(b as u8, b'#' | b'+' | b'=' | b'x' | b'e');
        b += 1;
    }
    table
};

/// [`sign_may_follow`] past the common case (a space, then a byte that starts no sign).
#[inline(never)]
fn sign_may_follow_slow(bytes: &[u8], end: usize) -> bool {
    // A delimiter other than a space ends the move with a token that is no move.
    let at = match bytes.get(end) {
        Some(b' ' | b'\n') => end + 1,
        Some(b'\r') if bytes.get(end + 1) == Some(&b'\n') => end + 2,
        Some(b'\t' | b'\r' | 0x0b | 0x0c) => return next_is_sign(bytes, end),
        _ => return false,
    };
    match bytes.get(at) {
        Some(&c) if NO_SIGN_STARTS[usize::from(c)] => false,
        Some(b'e') => matches!(bytes.get(at + 1), Some(b'p' | b'.')) && next_is_sign(bytes, end),
        Some(_) => next_is_sign(bytes, end),
        None => false,
    }
}

/// [`sign_may_follow`], the slow way: the next token (after spaces, wide ones too) read as the
/// rare branch reads a sign after a move. Non-ASCII bytes may start a sign too.
#[cold]
#[inline(never)]
fn next_is_sign(bytes: &[u8], end: usize) -> bool {
    let i = skip_spaces(bytes, end);
    // A longer symbol is no move for the lexer.
    let window = &bytes[i..bytes.len().min(i + MAX_SYMBOL + 1)];
    let len = (0..window.len())
        .find(|&j| window[j] < 0x80 && ends_symbol(window[j]) || wide_space(&window[j..]) > 0)
        .unwrap_or(window.len());
    let token = &window[..len];
    len > 0 && len <= MAX_SYMBOL && may_be_sign(token) && notation::trailing_sign(token).is_some()
}

/// A cheap screen before [`notation::trailing_sign`] for a move token that may be a sign
/// standing after a move: moves start with a file or piece letter.
pub(crate) fn may_be_sign(token: &[u8]) -> bool {
    match token.first() {
        Some(b'x' | b'#' | b'+' | b'=' | b'(' | 0x80..) => true,
        Some(b'e') => token == b"ep" || token.starts_with(b"e.p"),
        _ => false,
    }
}

/// Reads the movetext of `bytes` from `at`, pushing its tokens to `events`, with the places
/// the lexer would give (line, and column in characters) left for [`place_spans`].
///
/// With `OPEN` the bytes run on past the game, up to where it surely ends: it ends with its
/// result token, or where the lexer ends it.
pub(crate) fn read_bytes<E: MovetextEvents, const OPEN: bool>(
    bytes: &[u8],
    at: MovetextStart,
    events: &mut E,
) -> MovetextFacts {
    let n = bytes.len();
    let mut facts = MovetextFacts {
        end: n,
        ..MovetextFacts::default()
    };
    let span = |start: usize, end: usize| Span {
        start: start as u32,
        end: end as u32,
        line: UNPLACED,
        col: 0,
    };
    let mut i = at.offset;
    // The rare branch: the rest of the game from the token at `from`.
    macro_rules! rest {
        ($from:expr) => {
            return rest(bytes, at, OPEN, $from, facts, &[], events)
        };
    }
    loop {
        // Most tokens are one space apart.
        if i + 1 < n && bytes[i] == b' ' && bytes[i + 1] > b' ' {
            i += 1;
        } else {
            while i < n && matches!(bytes[i], b' ' | b'\n' | b'\r' | b'\t') {
                i += 1;
            }
        }
        // No result token: the lexer reports that.
        let Some(&b) = bytes.get(i) else { rest!(i) };
        match b {
            b'{' => {
                // A comment left open, or one the lexer may end at a tag line inside it, is
                // for the lexer.
                let Comment::Closed { close, .. } = comment(&bytes[i + 1..]) else {
                    rest!(i)
                };
                if events.wants_movetext() {
                    events.comment(i as u32, (i + close + 2) as u32);
                }
                i += close + 2;
            }
            b'$' => {
                let (Some(nag), end) = nag_at(bytes, i) else {
                    rest!(i)
                };
                if events.wants_movetext() {
                    events.nag(nag);
                }
                i = end;
            }
            // The common move number, `12.` or `12...` before a space: read here (the
            // general reading below gives the same, and handles every other case).
            b'1'..=b'9' if let Some((value, dots, next)) = spaced_move_number(bytes, i) => {
                events.main_move_number(value, dots, span(i, next));
                i = next;
            }
            // The common move, strict SAN before a space or other delimiter: read in one
            // pass (the general reading below gives the same).
            b'a'..=b'h' | b'K' | b'Q' | b'R' | b'B' | b'N' | b'O'
                if let Some((m, len)) = notation::ascii::san_at(&bytes[i..]) =>
            {
                let end = i + len;
                if sign_may_follow(bytes, end) {
                    rest!(i)
                }
                facts.has_move = true;
                if !events.san(&m, span(i, end)) {
                    rest!(end)
                }
                i = end;
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'*' => {
                let mut end = i;
                while end < n && !SYMBOL_END[usize::from(bytes[end])] {
                    end += 1;
                }
                if end < n && bytes[end] >= 0x80 || end - i > MAX_SYMBOL {
                    rest!(i)
                }
                // The symbol goes to the rare branch whole if it is not read here: a move
                // number glued before it (`12.e4`) is pushed with the move, not before.
                let token = i;
                let mut glued: Option<(u32, u8, Span)> = None;
                let mut start = i;
                i = end;
                while start < end {
                    let s = &bytes[start..end];
                    match symbol_part(s) {
                        // A move in strict SAN, perhaps with a glyph glued to it (`e4!?`).
                        SymbolPart::Move(len, glyph)
                            if len >= 2 && s[0].is_ascii_alphabetic() && glyph != Some(None) =>
                        {
                            let mv_end = start + len;
                            let Some(m) = notation::ascii::plain_san(&s[..len]) else {
                                rest!(token)
                            };
                            if sign_may_follow(bytes, end) {
                                rest!(token)
                            }
                            if let Some((value, dots, nspan)) = glued {
                                events.main_move_number(value, dots, nspan);
                            }
                            facts.has_move = true;
                            let played = events.san(&m, span(start, mv_end));
                            if let Some(nag) = glyph.flatten().filter(|_| events.wants_movetext()) {
                                events.nag(nag);
                            }
                            if !played {
                                rest!(end)
                            }
                            glued = None;
                            break;
                        }
                        SymbolPart::MoveNumber { number, dots, len } => {
                            glued = Some((number, dots, span(start, start + len)));
                            start += len;
                        }
                        SymbolPart::Result(result, true) => {
                            if OPEN {
                                facts.end = end;
                            } else if bytes[end..].iter().any(|b| !b.is_ascii_whitespace()) {
                                // The result ends the game: nothing may follow it.
                                rest!(token)
                            }
                            if let Some((value, dots, nspan)) = glued {
                                events.main_move_number(value, dots, nspan);
                            }
                            let result_span = span(start, end);
                            events.result(result, result_span);
                            events.end();
                            facts.result_span = Some(result_span);
                            return facts;
                        }
                        _ => rest!(token),
                    }
                }
                // A symbol of move numbers only.
                if let Some((value, dots, nspan)) = glued {
                    events.main_move_number(value, dots, nspan);
                }
            }
            _ => rest!(i),
        }
    }
}

/// The rare branch of [`read_bytes`]: the rest of the game from the token at `from` on, each
/// token pushed as it comes, after the tokens `lead` (those before the movetext that are no
/// tags: a book header's lines). The lexer reads the movetext from its start, as it reads
/// any: the tokens before `from`, which the fast cases pushed, are passed over, and so are
/// problems there, which the fast cases read none of.
#[cold]
#[inline(never)]
fn rest<E: MovetextEvents>(
    bytes: &[u8],
    at: MovetextStart,
    open: bool,
    from: usize,
    mut facts: MovetextFacts,
    lead: &[Token],
    events: &mut E,
) -> MovetextFacts {
    let mut lexed = Lexed::default();
    let mut lexer = MovetextLexer::new(bytes, at, true, &mut lexed);
    lexer.tokens().extend(lead);
    let mut taker = Taker {
        start: Some(RestStart {
            at,
            after_move: facts.has_move,
            variation_first: false,
        }),
        ..Taker::default()
    };
    // Whether tokens that end by `from` may come still: the first that ends after it ends the
    // passing over. (The last token read may grow yet: periods after a move number join it,
    // `1. ...`, and it is then the fast cases' number no longer.) The problems found before
    // the step that ends it are the passed tokens'.
    let mut passing = from > at.offset;
    let end = loop {
        let problems = lexer.problems().len();
        let end = lexer.step();
        let tokens = lexer.tokens();
        if passing {
            let settled = tokens.len() - usize::from(end.is_none() && !tokens.is_empty());
            let before = tokens[..settled]
                .iter()
                .take_while(|t| t.span.end as usize <= from)
                .count();
            tokens.drain(..before);
            passing = end.is_none() && tokens.iter().all(|t| t.span.end as usize <= from);
            if passing {
                continue;
            }
            lexer.problems().drain(..problems);
        }
        let tokens = lexer.tokens();
        let taken = taker.take(bytes, tokens, end.is_some(), events);
        tokens.drain(..taken);
        if let Some(end) = end {
            break end;
        }
    };
    events.end();
    facts.has_move |= taker.has_move;
    facts.result_span = taker.result_span;
    if open {
        facts.end = end;
    }
    facts.rest_problems = lexed.problems;
    facts
}

/// Reads a game's movetext, pushing its tokens to `events`: from its tokens (a game lexed
/// whole, [`Movetext::Tokens`]) or from its bytes, as `movetext` says. From the bytes the
/// loop's fast cases read what they can ([`read_bytes`]) when `fast`; without (moves that
/// are not English SAN, tokens before the movetext that are no tags, no replay) every token
/// is read by the lexer as it comes, the rare branch from the movetext's start on. Either way
/// a game is read once, and where it ends is found here.
pub(crate) fn read_movetext<E: MovetextEvents>(
    bytes: &[u8],
    lexed: &Lexed,
    movetext: Movetext,
    fast: bool,
    events: &mut E,
) -> MovetextFacts {
    let facts = MovetextFacts {
        end: bytes.len(),
        ..MovetextFacts::default()
    };
    match movetext {
        Movetext::Tokens => {
            let mut taker = Taker::default();
            taker.take(bytes, &lexed.tokens, true, events);
            events.end();
            MovetextFacts {
                has_move: taker.has_move,
                result_span: taker.result_span,
                ..facts
            }
        }
        Movetext::Bytes(at) if fast => read_bytes::<E, false>(bytes, at, events),
        Movetext::Open(at) if fast => read_bytes::<E, true>(bytes, at, events),
        Movetext::Bytes(at) | Movetext::Open(at) => {
            let open = matches!(movetext, Movetext::Open(_));
            let tag = |t: &&Token| matches!(t.kind, TokenKind::Tag(_));
            let lead = &lexed.tokens[lexed.tokens.iter().take_while(tag).count()..];
            rest(bytes, at, open, at.offset, facts, lead, events)
        }
    }
}

/// Pushes a movetext's tokens to events as they come, the loop's branch for every token its
/// fast cases do not read: what it carries from one token to the next.
#[derive(Default)]
struct Taker {
    /// The rest of a movetext that comes as tokens, told at its first token but those passed
    /// over ([`passed_over`]), before that token.
    start: Option<RestStart>,
    /// A move token not in ASCII was told ([`MovetextEvents::other_notation`]).
    foreign: bool,
    has_move: bool,
    /// The last result token.
    result_span: Option<Span>,
    /// Tokens from a move that waits on (it is the first token then) known to be passed over,
    /// so that a move followed by many comments is not looked past again at every token.
    passed: usize,
}

impl Taker {
    /// Pushes the tokens at the front of `tokens` (spans into `bytes`) whose events are
    /// known: all of them once the game has ended (`done`); before that, a move waits for the
    /// tokens that say whether a sign standing apart belongs to it (`11.后f5-f7 ×`, pushed
    /// with it) and whether a variation follows it, and a move number for the token after it.
    /// Returns how many were taken.
    fn take<E: MovetextEvents>(
        &mut self,
        bytes: &[u8],
        tokens: &[Token],
        done: bool,
        events: &mut E,
    ) -> usize {
        let text = |t: &Token| &bytes[t.span.start as usize..t.span.end as usize];
        let mut i = 0;
        while let Some(&token) = tokens.get(i) {
            if let Some(start) = self.start.filter(|_| !passed_over(token.kind)) {
                self.start = None;
                events.rest_starts(RestStart {
                    variation_first: token.kind == TokenKind::VariationStart,
                    ..start
                });
            }
            i += 1;
            match token.kind {
                TokenKind::Move => {
                    let sign = match tokens.get(i) {
                        None if !done => return i - 1,
                        Some(next) if next.kind == TokenKind::Move => {
                            let b = text(next);
                            may_be_sign(b)
                                .then(|| notation::trailing_sign(b))
                                .flatten()
                                .map(|s| (s, *next))
                        }
                        _ => None,
                    };
                    let after = i + usize::from(sign.is_some());
                    let follows = tokens[after.max(self.passed)..]
                        .iter()
                        .map(|t| t.kind)
                        .find(|&k| !passed_over(k));
                    if follows.is_none() && !done {
                        // The caller drops the tokens before the move: it comes first again.
                        self.passed = tokens.len() - (i - 1);
                        return i - 1;
                    }
                    self.passed = 0;
                    i = after;
                    let ascii =
                        text(&token).is_ascii() && sign.is_none_or(|(_, s)| text(&s).is_ascii());
                    if !ascii && !self.foreign {
                        self.foreign = true;
                        events.other_notation();
                    }
                    self.has_move = true;
                    let sign = sign.map(|(s, t)| (s, t.span));
                    events.move_token(token.span, sign, follows == Some(TokenKind::VariationStart));
                }
                TokenKind::MoveNumber { number, dots } => {
                    if i == tokens.len() && !done {
                        return i - 1;
                    }
                    events.move_number(number, dots, token.span);
                }
                TokenKind::VariationStart => events.begin_variation(token.span),
                TokenKind::VariationEnd => events.end_variation(),
                TokenKind::Result { result, .. } => {
                    self.result_span = Some(token.span);
                    events.result(result, token.span);
                }
                // A `[` the lexer reported already (P002, P017), with the tag it starts, and a
                // `)` that closes no variation, reported already as P006 at the same place.
                TokenKind::Unknown if matches!(text(&token).first(), Some(b'[' | b')')) => {}
                TokenKind::Unknown => events.unexpected(token.span),
                TokenKind::Nag(nag) if events.wants_movetext() => events.nag(nag),
                TokenKind::Comment | TokenKind::LineComment if events.wants_movetext() => {
                    events.comment(token.span.start, token.span.end);
                }
                TokenKind::Tag(_)
                | TokenKind::Nag(_)
                | TokenKind::Comment
                | TokenKind::LineComment
                | TokenKind::Escape => {}
            }
        }
        i
    }
}

/// Whether a token of this kind is passed over by a reader looking for what comes after a
/// move (move numbers, NAGs, comments): a variation after them still replaces the move.
pub fn passed_over(kind: TokenKind) -> bool {
    matches!(
        kind,
        TokenKind::MoveNumber { .. }
            | TokenKind::Nag(_)
            | TokenKind::Comment
            | TokenKind::LineComment
            | TokenKind::Escape
    )
}
