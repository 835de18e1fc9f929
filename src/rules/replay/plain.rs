//! The replay's bytes loop: the common tokens of a movetext read straight from its bytes,
//! without tokens stored, the rest of the game handed on to the lexer and the token loop,
//! and the places (line, column) of the spans it reports, found afterwards.

use shakmaty::{Chess, Move, Position};

use crate::notation::{self, ReadMove};
use crate::pgn::lexer::{
    all_spaces, comment, count_chars, count_lines, ends_symbol, is_space, last_line_start,
    move_number, nag_glyph, skip_spaces, wide_space, Comment, DELIMITER, MAX_SYMBOL,
};
use crate::pgn::{lex_rest, GameResult, Lexed, MovetextStart, Resume, Span, Token, TokenKind};
use crate::rules::matcher;
use crate::rules::visit::Ply;

use super::{MovetextFacts, Replay};

/// Lines and columns of the bytes loop's spans, found after the replay. The bytes loop gives
/// its spans line 0 (no real line is 0) and no column: only a span that ends up in a report
/// needs them, and a clean game has none. [`place_spans`] then counts lines and characters
/// as the lexer does, in one pass over the movetext.
pub(in crate::rules) const UNPLACED: u32 = 0;

/// Gives every unplaced span its line and column as the lexer counts them: lines by their
/// breaks (`\n`, `\r\n`, `\r`), columns in characters from the start of the line.
pub(in crate::rules) fn place_spans(bytes: &[u8], at: MovetextStart, spans: &mut [&mut Span]) {
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

/// Bytes that end a symbol for the bytes loop: the lexer's delimiters, and any non-ASCII byte
/// (which the bytes loop leaves to the lexer).
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
#[inline]
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
/// belongs to that move (`Qh5 +`, `exd6 e.p.`): the move is then left to the token loop,
/// which reads them together. Most moves are followed by a space and a move number, a move or
/// a comment, which this tells at once.
#[inline(always)]
fn sign_may_follow(bytes: &[u8], end: usize) -> bool {
    match bytes.get(end..end + 2) {
        Some(&[b' ', next]) if NO_SIGN_STARTS[usize::from(next)] => false,
        _ => sign_may_follow_slow(bytes, end),
    }
}

/// Bytes that start no sign standing alone (see [`may_be_sign`](super::may_be_sign)): of
/// ASCII, all but `#`, `+`, `=`, `x`, `e` (`ep`, `e.p.`) and spaces. (A `(` is always a
/// variation's start for the lexer, never a move token.)
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
/// token loop reads a sign after a move. Non-ASCII bytes may start a sign too.
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
    len > 0
        && len <= MAX_SYMBOL
        && super::may_be_sign(token)
        && notation::trailing_sign(token).is_some()
}

impl Replay<'_> {
    /// The replay's bytes loop: the common tokens of a movetext (strict SAN moves on the main
    /// line, move numbers, brace comments, NAGs, a standard result) read straight from the
    /// bytes, with the places the lexer would give (line, and column in characters). From
    /// the first token it does not read, the lexer lexes the rest and the token loop replays
    /// it ([`Self::hand_on`]): rare tokens are the slower branch of the same replay.
    ///
    /// With `open` the bytes run on past the game, up to where it surely ends: it ends
    /// with its result token.
    pub(in crate::rules) fn run_plain(&mut self, at: MovetextStart, open: bool) -> MovetextFacts {
        let bytes = self.bytes;
        let n = bytes.len();
        let mut facts = MovetextFacts {
            has_move: false,
            result_span: None,
            end: n,
        };
        // Spans get their line and column only if they end up in the report (`place_spans`).
        let span = |start: usize, end: usize| Span {
            start: start as u32,
            end: end as u32,
            line: UNPLACED,
            col: 0,
        };
        let mut i = at.offset;
        // Hands the game on to the lexer from the token at `from`, or gives it up.
        macro_rules! hand_on {
            ($from:expr) => {
                return self.hand_on(at, open, $from, facts)
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
            let Some(&b) = bytes.get(i) else { hand_on!(i) };
            match b {
                b'{' => {
                    // A comment left open, or one the lexer may end at a tag line inside it,
                    // is for the lexer.
                    let Comment::Closed { close, .. } = comment(&bytes[i + 1..]) else {
                        hand_on!(i)
                    };
                    if self.record_movetext {
                        self.visitor.comment(i as u32, (i + close + 2) as u32);
                    }
                    i += close + 2;
                }
                b'$' => {
                    let mut j = i + 1;
                    while j < n && bytes[j].is_ascii_digit() && j - i < 8 {
                        j += 1;
                    }
                    let value = bytes[i + 1..j]
                        .iter()
                        .fold(0u32, |acc, &d| acc * 10 + u32::from(d - b'0'));
                    if j == i + 1 || value > 255 {
                        hand_on!(i)
                    }
                    if self.record_movetext {
                        self.visitor.nag(value as u16);
                    }
                    i = j;
                }
                // The common move number, `12.` or `12...` before a space: read here (the
                // general reading below gives the same, and handles every other case).
                b'1'..=b'9' if let Some((number, dots, next)) = spaced_move_number(bytes, i) => {
                    self.lines[0].pending_number = Some((number, dots, span(i, next)));
                    i = next;
                }
                // The common move, strict SAN before a space or other delimiter: read in
                // one pass (the general reading below gives the same).
                b'a'..=b'h' | b'K' | b'Q' | b'R' | b'B' | b'N' | b'O'
                    if let Some((m, len)) = notation::ascii::san_at(&bytes[i..]) =>
                {
                    let end = i + len;
                    if sign_may_follow(bytes, end) {
                        hand_on!(i)
                    }
                    self.variation_follows = false;
                    facts.has_move = true;
                    if !self.play_main(&m, span(i, end)) {
                        // The line is broken: the token loop reads the rest.
                        self.visitor.unplayed(self.at(0));
                        hand_on!(end)
                    }
                    i = end;
                }
                b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'*' => {
                    let mut end = i;
                    while end < n && !SYMBOL_END[usize::from(bytes[end])] {
                        end += 1;
                    }
                    if end < n && bytes[end] >= 0x80 || end - i > MAX_SYMBOL {
                        hand_on!(i)
                    }
                    // What to go back to if the lexer is to read the symbol after all.
                    let (token, number_before) = (i, self.lines[0].pending_number);
                    macro_rules! hand_on_symbol {
                        () => {{
                            self.lines[0].pending_number = number_before;
                            hand_on!(token)
                        }};
                    }
                    let mut start = i;
                    i = end;
                    // A symbol may be a move number glued to a move (`12.e4`).
                    while start < end {
                        let s = &bytes[start..end];
                        if s[0].is_ascii_alphabetic() {
                            // A move, perhaps with a glyph glued to it (`e4!?`).
                            let mut mv_end = end;
                            while matches!(bytes[mv_end - 1], b'!' | b'?') {
                                mv_end -= 1;
                            }
                            let mv = &bytes[start..mv_end];
                            if mv.len() < 2
                                || (mv_end != end
                                    && !matches!(
                                        &bytes[mv_end..end],
                                        b"!" | b"?" | b"!!" | b"??" | b"!?" | b"?!"
                                    ))
                            {
                                hand_on_symbol!()
                            }
                            let Some(m) = notation::ascii::plain_san(mv) else {
                                hand_on_symbol!()
                            };
                            if sign_may_follow(bytes, end) {
                                hand_on_symbol!()
                            }
                            self.variation_follows = false;
                            facts.has_move = true;
                            let played = self.play_main(&m, span(start, mv_end));
                            if !played {
                                self.visitor.unplayed(self.at(0));
                            }
                            if self.record_movetext {
                                if let Some(nag) = nag_glyph(&bytes[mv_end..end]) {
                                    self.visitor.nag(nag);
                                }
                            }
                            if !played {
                                // The line is broken: the token loop reads the rest.
                                hand_on!(end)
                            }
                            break;
                        }
                        if let Some((number, dots, len)) = move_number(s) {
                            let next = start + len;
                            self.lines[0].pending_number = Some((number, dots, span(start, next)));
                            start = next;
                            continue;
                        }
                        let result = match s {
                            b"1-0" => GameResult::WhiteWins,
                            b"0-1" => GameResult::BlackWins,
                            b"1/2-1/2" => GameResult::Draw,
                            b"*" => GameResult::Unknown,
                            _ => hand_on_symbol!(),
                        };
                        if open {
                            facts.end = end;
                        } else if bytes[end..].iter().any(|b| !b.is_ascii_whitespace()) {
                            // The result ends the game: nothing may follow it.
                            hand_on_symbol!()
                        }
                        self.result_token = Some(result);
                        facts.result_span = Some(span(start, end));
                        self.close_line_note(0);
                        return facts;
                    }
                }
                _ => hand_on!(i),
            }
        }
    }

    /// The rest of the game from the token at `from` on, lexed by the lexer as it would have
    /// gone on there and replayed by the token loop: the same report and the same events as
    /// the token loop gives on the whole game. What the token loop needs and the bytes loop
    /// did not keep is made here: the position before a move a variation follows, a move
    /// number the periods at `from` belong to, the findings of a game that turns out to be
    /// in Chinese notation. (A move a sign may follow was left to the token loop.)
    #[cold]
    #[inline(never)]
    fn hand_on(
        &mut self,
        at: MovetextStart,
        open: bool,
        from: usize,
        mut facts: MovetextFacts,
    ) -> MovetextFacts {
        let bytes = self.bytes;
        let mut from = from;
        // Periods after a move number with only spaces between are the number's (`1. ...
        // e5`): the lexer reads them from the number on.
        let token = from + bytes[from..].iter().take_while(|&&b| is_space(b)).count();
        if bytes.get(token) == Some(&b'.') {
            if let Some((_, _, number)) = self.lines[0].pending_number {
                if bytes[number.end as usize..token]
                    .iter()
                    .all(|&b| is_space(b))
                {
                    self.lines[0].pending_number = None;
                    from = number.start as usize;
                }
            }
        }
        // Where the lexer would be: the line of `from` and whether a token started on it,
        // and the end of the token before (tokens are apart by spaces, or touch).
        let gap = &bytes[at.line_start..from];
        let (line, line_start) = match last_line_start(gap) {
            0 => (at.line, at.line_start),
            start => (at.line + count_lines(gap), at.line_start + start),
        };
        let before = &bytes[line_start..from];
        let token_on_line = (line_start == 0 && at.first_col > 1) || !all_spaces(before);
        let last_end = from
            - bytes[at.offset.min(from)..from]
                .iter()
                .rev()
                .take_while(|&&b| is_space(b) || b == b'\n' || b == b'\r')
                .count();
        let resume = Resume {
            at: from,
            line,
            line_start,
            first_col: at.first_col,
            token_on_line,
            last_end,
        };
        let mut rest = Lexed::default();
        let end = lex_rest(bytes, &resume, &mut rest);
        let moves = || rest.tokens.iter().filter(|t| t.kind == TokenKind::Move);
        let text = |t: &Token| &bytes[t.span.start as usize..t.span.end as usize];
        if moves().any(|t| !text(t).is_ascii()) {
            self.turns_chinese();
        }
        let mut kinds = rest.tokens.iter().map(|t| t.kind);
        // After an illegal move the line keeps the position a variation starts from.
        if facts.has_move
            && self.lines[0].before_last.is_none()
            && kinds.find(|&k| !super::looked_past(k)) == Some(TokenKind::VariationStart)
        {
            self.keep_before_last(at);
        }
        self.run(&rest);
        let of_rest = MovetextFacts::of_tokens(bytes, &rest);
        facts.has_move |= of_rest.has_move;
        facts.result_span = of_rest.result_span;
        if open {
            facts.end = end;
        }
        self.rest_problems = rest.problems;
        facts
    }

    /// The position before the bytes loop's last move, which a variation after that move
    /// starts from, made again: the bytes loop keeps no position nobody asked for, nor a list
    /// of its moves (a cost on every ply). The visitor is told of the move then, as the token
    /// loop tells it of a move a variation follows.
    #[cold]
    #[inline(never)]
    fn keep_before_last(&mut self, at: MovetextStart) {
        let Some((before, last, mnotes)) = self.replay_to_last(at) else {
            return;
        };
        let (start, end) = (self.token.0 as usize, self.token.1 as usize);
        let text = &self.bytes[start..end];
        let pos = &self.lines[0].pos;
        let actual = super::check_claim(pos, pos.checkers());
        let san = notation::ascii::plain_san(text)
            .and_then(|m| super::written_san(text, &m, &mnotes, actual));
        self.visitor.play(&Ply {
            at: self.at(0),
            before: &before,
            after: pos,
            mv: last,
            check: actual,
            san,
        });
        self.main_moves_told += 1;
        self.lines[0].before_last = Some(before);
    }

    /// The bytes loop's moves played again from the start position, up to its last one: the
    /// position before that move, the move, and what matching it noted (nothing for a
    /// repaired move). The moves are strict SAN the bytes loop played, each its own token.
    fn replay_to_last(&self, at: MovetextStart) -> Option<(Chess, Move, matcher::MatchNotes)> {
        let bytes = self.bytes.get(..self.token.1 as usize)?;
        if bytes.len() <= at.offset {
            return None;
        }
        let resume = Resume {
            at: at.offset,
            line: at.line,
            line_start: at.line_start,
            first_col: at.first_col,
            token_on_line: false,
            last_end: at.offset,
        };
        let mut lexed = Lexed::default();
        lex_rest(bytes, &resume, &mut lexed);
        let mut pos = self.start.clone();
        let mut moves = lexed.tokens.iter().filter(|t| t.kind == TokenKind::Move);
        let last = moves.next_back()?;
        let play = |pos: &Chess, token: &Token| {
            let text = &bytes[token.span.start as usize..token.span.end as usize];
            let m = notation::ascii::plain_san(text)?;
            match matcher::find_move_noting(pos, &m, pos.checkers()) {
                Ok(found) => Some(found),
                Err(_) => match matcher::suggest(pos, &m, &String::from_utf8_lossy(text))[..] {
                    [only] if self.opts.repair => Some((only, matcher::MatchNotes::default())),
                    _ => None,
                },
            }
        };
        for token in moves {
            let (mv, _) = play(&pos, token)?;
            pos.play_unchecked(mv);
        }
        let (mv, notes) = play(&pos, last)?;
        Some((pos, mv, notes))
    }

    /// Plays a main-line move of the bytes loop: without anything only other moves need, unless
    /// the visitor wants the position before it. Inline in the bytes loop, which then
    /// makes no call per ply but to the matcher and shakmaty.
    #[inline(always)]
    fn play_main(&mut self, m: &ReadMove, span: Span) -> bool {
        // The move is its token: the bytes loop reads one move a token.
        self.token = (span.start, span.end);
        if self.wants_positions() {
            self.play_main_keeping(m, span)
        } else {
            self.play_inline::<false>(0, m, span)
        }
    }

    /// [`Self::play_main`] for a visitor that wants positions: out of the bytes loop's line.
    #[inline(never)]
    fn play_main_keeping(&mut self, m: &ReadMove, span: Span) -> bool {
        self.play::<true>(0, m, span)
    }
}
