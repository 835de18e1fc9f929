//! The PGN lexer: turns the bytes of one game into tokens with byte spans, lines and columns.
//!
//! The lexer works on a slice that starts at the beginning of a game and reports where the game
//! ends. When the slice ends before the game does, it says so ([`LexEnd::NeedMore`]) and the
//! [`reader`](super::reader) supplies more bytes and lexes again. It never recurses (variations
//! are flat tokens), never panics on any bytes, and keeps move tokens raw: what a move means is
//! the notation layer's business, so nothing is dropped here.

mod bytes;
mod tags;
mod token;
mod window;

use std::collections::HashSet;

use memchr::{memchr, memchr2, memchr2_iter, memrchr2_iter};

pub(crate) use bytes::{
    break_start, comment, count_chars, count_lines, ends_symbol, is_bare_cr, is_space,
    last_line_start, move_number, nag_at, nag_glyph, skip_spaces, wide_space, Comment, DELIMITER,
};
use bytes::{evaluation_glyph, SKIPPED_WHEN_SPLITTING};
pub(crate) use tags::looks_like_tag;
pub use token::{
    GameResult, KnownTag, KnownTags, LexEnd, LexProblem, LexProblemKind, Lexed, Movetext,
    MovetextStart, Span, Tag, Token, TokenKind,
};
#[cfg(test)]
pub(crate) use window::GIANT;
pub(crate) use window::{lex_window, Carry, Window};

/// Longest token the lexer keeps as a move; longer runs are reported as unknown.
pub(crate) const MAX_SYMBOL: usize = 255;

/// The lexer's state over the bytes of one game.
struct Lexer<'a> {
    data: &'a [u8],
    eof: bool,
    i: usize,
    line: u32,
    line_start: usize,
    // Column cache: `col_at` is the column of byte `col_pos` on the current line.
    col_pos: usize,
    col_at: u32,
    // Column of `data[0]`: games can start in the middle of a line.
    first_col: u32,
    // Record tokens (false: only find where the game ends).
    record: bool,
    // Stop where the movetext of a game with tags begins.
    tags_only: bool,
    // With `tags_only`: comments after the tags, which begin the movetext unless the tag
    // section goes on after them.
    lead: Option<Lead>,
    // With `tags_only`: where the movetext begins, once lexing stopped there.
    movetext: Option<MovetextStart>,
    // Whether a token has started on the current line (a `[` or `%` only counts at line start).
    token_on_line: bool,
    // Where the last move number ends (`None` before the first): periods standing apart
    // after it are its own.
    number_end: Option<usize>,
    // The last search for a tag's line end (`tag_line_end`), once there was one.
    line_search: Option<tags::LineSearch>,
    // The names of the first `.0` tags, once `is_repeated_tag` has been asked about many.
    tag_name_set: Option<(usize, HashSet<Box<[u8]>>)>,
    out: &'a mut Lexed,
}

/// Comments between the tags and the movetext's first token, which the movetext starts with
/// (see [`Lexer::tags_end`]): where they begin, and the tokens and problems before them.
#[derive(Clone, Copy, Debug)]
struct Lead {
    movetext: MovetextStart,
    tokens: usize,
    problems: usize,
}

/// What the lexer's loop carries from one token to the next.
#[derive(Clone, Copy, Debug, Default)]
struct Between {
    /// Variations open.
    depth: u32,
    /// A token of the movetext has been read: a `[` at the start of a line then starts the
    /// next game, and one elsewhere is a tag pair pasted into the movetext.
    movetext: bool,
    /// Line breaks since the last tag pair.
    newlines_since_tag: u32,
    /// Where the last token ended.
    last_end: usize,
    /// End of the last book-layout header line read as one token (see [`Lexer::step`]).
    header_end: usize,
}

/// Lexes one game from the start of `data`. `first_line` is the file line of `data[0]`.
/// With `eof` false, a game that runs to the end of `data` gives [`LexEnd::NeedMore`].
///
/// ```
/// use pgnkit::pgn::{lex_game, GameResult, LexEnd, Lexed, TokenKind};
///
/// let pgn = b"[White \"Tal\"]\n\n1. e4 {best by test} e5 1-0\n";
/// let mut lexed = Lexed::default();
/// // The game ends with its result: the line break after it is not part of it.
/// assert_eq!(lex_game(pgn, true, 1, &mut lexed), LexEnd::Complete(pgn.len() - 1));
/// assert_eq!(lexed.tag("White"), Some("Tal"));
/// let kinds: Vec<TokenKind> = lexed.tokens.iter().map(|t| t.kind).collect();
/// assert_eq!(
///     kinds[1..],
///     [
///         TokenKind::MoveNumber { number: 1, dots: 1 },
///         TokenKind::Move,
///         TokenKind::Comment,
///         TokenKind::Move,
///         TokenKind::Result { result: GameResult::WhiteWins, standard: true },
///     ]
/// );
/// // The second move, `e5`, on line 3 at column 22.
/// let e5 = lexed.tokens[4].span;
/// assert_eq!((&pgn[e5.start as usize..e5.end as usize], e5.line, e5.col), (&b"e5"[..], 3, 22));
/// assert!(lexed.problems.is_empty());
/// ```
pub fn lex_game(data: &[u8], eof: bool, first_line: u32, out: &mut Lexed) -> LexEnd {
    lex_game_mode(data, eof, first_line, 1, true, out)
}

/// Lexes the tags of a complete game (`data` is the whole game, as the reader found it) and
/// stops where its movetext begins: [`Movetext::Bytes`], with `out` holding the tags (none, for
/// a game that is movetext alone: the lichess Parquet `movetext` column) and a tagless game's
/// book header lines. A game without movetext, a tagless game whose first move is not ASCII
/// or may be a book header's date (`1981年...`), and a game whose tag section may go on after
/// comments are lexed whole:
/// [`Movetext::Tokens`]. The movetext's bytes are for a reader that needs no tokens
/// (the replay's movetext loop); one that needs them lexes the game again with [`lex_game`].
///
/// ```
/// use pgnkit::pgn::{lex_game_tags, Lexed, Movetext};
///
/// let pgn = b"[White \"Tal\"]\n\n1. e4 e5 1-0\n";
/// let mut lexed = Lexed::default();
/// let Movetext::Bytes(at) = lex_game_tags(pgn, 1, 1, &mut lexed) else {
///     panic!("the game has tags and movetext");
/// };
/// assert_eq!((at.offset, at.line), (15, 3));
/// assert_eq!(lexed.tag("White"), Some("Tal"));
/// // Movetext alone starts at its first token, after leading comments.
/// let Movetext::Bytes(at) = lex_game_tags(b"{Blitz} 1. e4 *", 1, 1, &mut lexed) else {
///     panic!("the game is movetext");
/// };
/// assert_eq!((at.offset, lexed.tag_count(), lexed.tokens.len()), (0, 0, 0));
/// // One whose first move is not ASCII is lexed whole.
/// let zh = "马f3 马c6 2.e4 *".as_bytes();
/// assert_eq!(lex_game_tags(zh, 1, 1, &mut lexed), Movetext::Tokens);
/// assert_eq!(lexed.tokens.len(), 5);
/// // So is one that may open with a header's date, which only its tokens tell.
/// let dated = "1981年5月1日于北京\n1. e4 *".as_bytes();
/// assert_eq!(lex_game_tags(dated, 1, 1, &mut lexed), Movetext::Tokens);
/// ```
pub fn lex_game_tags(data: &[u8], first_line: u32, first_col: u32, out: &mut Lexed) -> Movetext {
    match lex_game_tags_open(data, true, first_line, first_col, out) {
        Some(at) => Movetext::Bytes(at),
        None => Movetext::Tokens,
    }
}

/// [`lex_game_tags`] on bytes that hold a game from its first byte and may run on past it (a
/// reader's buffer, where the game's end is not known yet; `eof` when nothing follows).
/// Returns where the movetext starts when the game has tags and its movetext starts within
/// the bytes: `out` then holds what [`lex_game_tags`] gives on the game's exact bytes. `None`
/// otherwise (no tags, no movetext, or the bytes end first): `out` then holds the game lexed
/// whole if `data` is exactly the game and `eof`, and is of no use else.
pub(crate) fn lex_game_tags_open(
    data: &[u8],
    eof: bool,
    first_line: u32,
    first_col: u32,
    out: &mut Lexed,
) -> Option<MovetextStart> {
    let mut lx = Lexer::new(data, eof, (first_line, first_col), true, out);
    lx.tags_only = true;
    lx.run();
    lx.movetext
}

/// Where the last line of `data` that starts like a tag pair begins: at its line break (before
/// the whole `\r\n`, as a comment left open ends). A game whose movetext has begun before it
/// surely ends by it: the lexer ends a game, and a comment left open in it, at the first such
/// line after its movetext has begun. So the game lexes the same on `data[..end]` taken as the
/// whole input as on `data`: for a reader that finds where a game ends by reading it. Searched
/// from the end, where a reader's buffer has it within a game or two.
pub(crate) fn last_tag_line(data: &[u8]) -> Option<usize> {
    memrchr2_iter(b'\n', b'\r', data)
        .find(|&p| looks_like_tag(&data[p + 1..]))
        .map(|p| break_start(data, p))
}

/// The lexer inside a game's movetext, as [`lex_game_mode`] goes on there from where the
/// movetext starts: the same tokens and problems, and the same end, which the end of `data`
/// is at the latest. Stepped a token at a time by the movetext loop's rare branch
/// ([`crate::pgn::movetext`]), which takes the tokens as they come.
pub(crate) struct MovetextLexer<'a> {
    lx: Lexer<'a>,
    at: Between,
}

impl<'a> MovetextLexer<'a> {
    /// The lexer at the movetext's start `at`, its tokens (when `record`) and problems going
    /// to `out` (cleared). The movetext's first token is no `[` (that would go on with the
    /// tags): reading it as begun changes nothing but lets a move be passed over unclassified
    /// when only the end is looked for, as later ones are.
    pub(crate) fn new(data: &'a [u8], at: MovetextStart, record: bool, out: &'a mut Lexed) -> Self {
        let mut lx = Lexer::new(data, true, (at.line, at.first_col), record, out);
        lx.i = at.offset;
        lx.line_start = at.line_start;
        lx.col_pos = at.line_start;
        if at.line_start > 0 {
            lx.col_at = 1;
        }
        // (The tags end on this line, or the movetext starts a line of its own.)
        lx.token_on_line = skip_spaces(&data[..at.offset], at.line_start) < at.offset;
        let at = Between {
            movetext: true,
            last_end: at.offset,
            // No book header inside a movetext.
            header_end: usize::MAX,
            ..Between::default()
        };
        MovetextLexer { lx, at }
    }

    /// Reads the next token (or none: spaces, periods that join the move number before):
    /// `Some` where the game ends, once it has.
    pub(crate) fn step(&mut self) -> Option<usize> {
        match self.lx.step(&mut self.at)? {
            LexEnd::Complete(end) => Some(end),
            // The end of `data` ends the game: the lexer never asks for more.
            LexEnd::NeedMore => Some(self.lx.data.len()),
        }
    }

    /// Reads on to where the game ends, and says where (a loop of its own, so that the
    /// lexer's step is inlined in it: closing a game is most of what `split` does).
    pub(crate) fn end(self) -> usize {
        let MovetextLexer { mut lx, mut at } = self;
        loop {
            match lx.step(&mut at) {
                None => {}
                Some(LexEnd::Complete(end)) => return end,
                Some(LexEnd::NeedMore) => return lx.data.len(),
            }
        }
    }

    /// The tokens read and not taken yet. A taker leaves a move number until a token after
    /// it has come (or the game has ended): periods read later may still be its own.
    pub(crate) fn tokens(&mut self) -> &mut Vec<Token> {
        &mut self.lx.out.tokens
    }

    /// The problems found so far.
    pub(crate) fn problems(&mut self) -> &mut Vec<LexProblem> {
        &mut self.lx.out.problems
    }
}

/// Where a game ends whose tags [`lex_game_tags_open`] read, found from its movetext's start
/// `at` on (`data` holds the game from its first byte and may run on past it, to where it
/// surely ends): as [`lex_game_mode`] finds it from the game's first byte, without reading
/// the tag section again. For a reader that cuts an open game to its bytes without replaying
/// it.
pub(crate) fn movetext_end(data: &[u8], at: MovetextStart, out: &mut Lexed) -> usize {
    MovetextLexer::new(data, at, false, out).end()
}

/// Like [`lex_game`] for a game that starts at column `first_col` of its line (after an
/// earlier game's result on the same line). With `record` false only the game's end, its
/// tags and its problems are found (no tokens): the cheap pass that splits a stream into
/// games for parallel work.
pub(crate) fn lex_game_mode(
    data: &[u8],
    eof: bool,
    first_line: u32,
    first_col: u32,
    record: bool,
    out: &mut Lexed,
) -> LexEnd {
    Lexer::new(data, eof, (first_line, first_col), record, out).run()
}

/// Whether a tagless game's first token may open a book header line that gives the date
/// (`1981年5月1日于北京`, which [`super::book::extract_header`] reads): digits, then (after
/// any ASCII spaces) a character that is not ASCII, `年` or a space before it. Such a game is
/// lexed whole, so that the header is read as it is with its tokens. Looks at the first token
/// only: a lichess movetext (`1. e4`) costs a byte or two.
fn may_open_book_date(rest: &[u8]) -> bool {
    let digits = rest.iter().take_while(|c| c.is_ascii_digit()).count();
    let spaces = rest[digits..]
        .iter()
        .take_while(|&&c| c == b' ' || c == b'\t')
        .count();
    digits > 0 && rest.get(digits + spaces).is_none_or(|&c| c >= 0x80)
}

/// Where a book-layout header line (`白方:` or `黑方:`, any colon) at `start` ends, before
/// its line break: `Some(None)` when the line is no such header, `None` when the bytes end
/// before that is known.
fn book_header_line(data: &[u8], start: usize, eof: bool) -> Option<Option<usize>> {
    const MARKERS: [&[u8]; 2] = ["白方".as_bytes(), "黑方".as_bytes()];
    const COLONS: [&[u8]; 3] = [b":", "：".as_bytes(), "︰".as_bytes()];
    let rest = &data[start..];
    let Some(marker) = MARKERS.iter().find(|m| rest.starts_with(m)) else {
        // Cut inside a marker: more bytes decide.
        let cut = MARKERS.iter().any(|m| m.starts_with(rest));
        return if cut && !eof { None } else { Some(None) };
    };
    let after = &rest[marker.len()..];
    let after = &after[after.iter().take_while(|&&c| c == b' ').count()..];
    if !COLONS.iter().any(|c| after.starts_with(c)) {
        let cut = after.is_empty() || COLONS.iter().any(|c| c.starts_with(after));
        return if cut && !eof { None } else { Some(None) };
    }
    let line_end = match memchr2(b'\n', b'\r', rest) {
        Some(n) => n,
        None if eof => rest.len(),
        None => return None,
    };
    // Up to the moves, when they follow on the same line: `book.rs` says where the header
    // ends.
    let header = std::str::from_utf8(&rest[..line_end])
        .ok()
        .and_then(super::book::read_header_line)
        .map(|(_, len)| start + len);
    Some(header.filter(|&end| end > start))
}

/// The first part of a symbol (the bytes of a movetext up to a delimiter, at most
/// [`MAX_SYMBOL`]), as [`symbol_part`] reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SymbolPart {
    /// A move of so many bytes; after it, to the symbol's end, the glyph glued to it
    /// (`e4!?`): its NAG, or `Some(None)` for `!` and `?` that make no glyph (`e4!!!`).
    Move(usize, Option<Option<u16>>),
    /// A move number, `len` bytes (`12.`, and `12.` of `12.e4`).
    MoveNumber { number: u32, dots: u8, len: usize },
    /// Periods, `len` of them.
    Periods(usize),
    /// A result, the whole symbol; standard (not `1:0`) or not.
    Result(GameResult, bool),
    /// A glyph or an evaluation sign standing alone, the whole symbol.
    Nag(u16),
    /// Bytes that are no token (a control character first), the whole symbol.
    Unknown,
}

/// What the symbol `s` (not empty) starts with: the one reading of a symbol, for the lexer's
/// tokens and the movetext loop's fast cases alike, so that the two never read a symbol
/// apart.
#[inline(always)]
pub(crate) fn symbol_part(s: &[u8]) -> SymbolPart {
    // Most symbols are SAN moves: a letter first and no glyph glued on. No result, NAG or
    // evaluation sign has that shape (`N` alone is the novelty sign).
    let glyph = |b: u8| matches!(b, b'!' | b'?');
    if s.len() >= 2 && s[0].is_ascii_alphabetic() && !glyph(s[s.len() - 1]) {
        return SymbolPart::Move(s.len(), None);
    }
    // Move numbers next: they are the most common symbol after moves.
    if let Some((number, dots, len)) = move_number(s) {
        return SymbolPart::MoveNumber { number, dots, len };
    }
    if s[0] == b'.' {
        return SymbolPart::Periods(s.iter().take_while(|&&c| c == b'.').count());
    }
    if let Some((result, standard)) = GameResult::parse(s) {
        return SymbolPart::Result(result, standard);
    }
    if let Some(nag) = nag_glyph(s).or_else(|| evaluation_glyph(s)) {
        return SymbolPart::Nag(nag);
    }
    // Suffix glyphs glued to a move: `e4!?`.
    let glyphs = s.iter().rev().take_while(|&&c| glyph(c)).count();
    if glyphs > 0 && glyphs < s.len() {
        let len = s.len() - glyphs;
        return SymbolPart::Move(len, Some(nag_glyph(&s[len..])));
    }
    if s[0] < 0x20 || s[0] == 0x7f {
        SymbolPart::Unknown
    } else {
        SymbolPart::Move(s.len(), None)
    }
}

impl<'a> Lexer<'a> {
    /// A lexer at the start of `data`, whose first byte is at (line, column) `at`; `out` is
    /// cleared.
    fn new(data: &'a [u8], eof: bool, at: (u32, u32), record: bool, out: &'a mut Lexed) -> Self {
        out.clear();
        Self::resume(data, eof, at, record, out)
    }

    /// A lexer at the start of `data` that adds to what `out` holds (a window of a game
    /// whose earlier windows `out` keeps).
    fn resume(data: &'a [u8], eof: bool, at: (u32, u32), record: bool, out: &'a mut Lexed) -> Self {
        let (first_line, first_col) = at;
        Lexer {
            data,
            eof,
            i: 0,
            line: first_line,
            line_start: 0,
            col_pos: 0,
            col_at: first_col.max(1),
            first_col: first_col.max(1),
            // A game's first token has only spaces before it on its line (the reader skips
            // them), or starts a new game after the last one's tokens with a `[`: either way
            // no token precedes it that would keep a `%` from being an escape. Reading
            // `first_col > 1` as a token before made a game read from where spaces end
            // differ from the same text read with them.
            token_on_line: false,
            number_end: None,
            line_search: None,
            record,
            tags_only: false,
            lead: None,
            movetext: None,
            tag_name_set: None,
            out,
        }
    }
}

impl Lexer<'_> {
    fn run(&mut self) -> LexEnd {
        let mut at = Between::default();
        loop {
            if let Some(end) = self.step(&mut at) {
                return end;
            }
        }
    }

    /// Reads the whitespace and the token at `self.i` (a token of the game, or a tag pair):
    /// `Some` where the game ends, or where the bytes end before that is known.
    #[inline(always)]
    fn step(&mut self, at: &mut Between) -> Option<LexEnd> {
        // Whitespace.
        while self.i < self.data.len() {
            let b = self.data[self.i];
            if b == b'\n' || (b == b'\r' && is_bare_cr(self.data, self.i)) {
                // (A `\r` at the end of bytes that go on is counted here, but the bytes
                // end in spaces, so more are asked for and the game is lexed again.)
                self.newline(self.i);
                at.newlines_since_tag += 1;
                self.i += 1;
            } else if is_space(b) {
                self.i += 1;
            } else if b >= 0x80 {
                let n = wide_space(&self.data[self.i..]);
                if n == 0 {
                    break;
                }
                self.i += n;
            } else {
                break;
            }
        }
        if self.i >= self.data.len() {
            if !self.eof {
                return Some(LexEnd::NeedMore);
            }
            return Some(self.finish(at.last_end, at.depth, at.movetext));
        }
        let start = self.i;
        let b = self.data[start];
        // A game without tags (movetext alone, as in the lichess Parquet files) starts its
        // movetext at its first token but its book header lines (below, at a byte that is not
        // ASCII; or a header's date, `1981年5月1日于北京`, whose year is ASCII) and its
        // leading comments: after any other token it is lexed whole.
        if self.tags_only
            && (!self.out.tags.is_empty()
                || (b < 0x80
                    && ((at.last_end == at.header_end
                        && !may_open_book_date(&self.data[start..]))
                        || self.lead.is_some())))
        {
            if let Some(end) = self.tags_end(b, at) {
                return Some(end);
            }
        }
        let at_line_start = !self.token_on_line;
        self.token_on_line = true;
        // A tagless game in the Chinese book layout opens with `白方:` and `黑方:` lines
        // whose names may hold anything (`Team 1-0 A`, an open `{`): each such line is one
        // token, read by `book.rs`. Asked only at a non-ASCII byte that starts a line
        // before any token but such lines: once a game, never in the movetext.
        if b >= 0x80 && at_line_start && at.last_end == at.header_end && self.out.tags.is_empty() {
            match book_header_line(self.data, start, self.eof) {
                Some(Some(end)) => {
                    self.push(TokenKind::Unknown, start, end);
                    self.out.content = true;
                    self.i = end;
                    at.last_end = end;
                    at.header_end = end;
                    return None;
                }
                Some(None) => {}
                None => return Some(LexEnd::NeedMore),
            }
        }
        match b {
            b'[' if !at.movetext || at_line_start => {
                let repeated = if !at.movetext && at.newlines_since_tag >= 2 {
                    match self.is_repeated_tag(start) {
                        Some(r) => r,
                        None => return Some(LexEnd::NeedMore),
                    }
                } else {
                    false
                };
                if at.movetext || repeated {
                    // A new game begins on this line. (A repeated tag is one of some.)
                    return Some(self.finish(at.last_end, at.depth, true));
                }
                match self.forum_wrapper(start) {
                    Some(true) => {}
                    // The common tag lines are read a section at a time.
                    Some(false) if self.record && self.tag_lines() => at.newlines_since_tag = 0,
                    Some(false) => match self.tag() {
                        Some(()) => at.newlines_since_tag = 0,
                        None => return Some(LexEnd::NeedMore),
                    },
                    None => return Some(LexEnd::NeedMore),
                }
            }
            b'{' => match self.comment() {
                Some(()) => {}
                None => return Some(LexEnd::NeedMore),
            },
            // A `;` comment, or a `%` escape at the start of a line: both run to its end.
            b';' | b'%' if b == b';' || at_line_start => {
                let end = match memchr2(b'\n', b'\r', &self.data[start..]) {
                    Some(n) => start + n,
                    None if self.eof => self.data.len(),
                    None => return Some(LexEnd::NeedMore),
                };
                self.i = end;
                let kind = if b == b';' {
                    TokenKind::LineComment
                } else {
                    TokenKind::Escape
                };
                self.push(kind, start, end);
            }
            b'(' => {
                self.i += 1;
                at.depth += 1;
                self.push(TokenKind::VariationStart, start, start + 1);
                at.movetext = true;
            }
            b')' => {
                self.i += 1;
                if at.depth == 0 {
                    self.push(TokenKind::Unknown, start, start + 1);
                    self.problem(LexProblemKind::UnmatchedVariationEnd, start, start + 1);
                } else {
                    at.depth -= 1;
                    self.push(TokenKind::VariationEnd, start, start + 1);
                }
            }
            b'$' => {
                let (nag, end) = nag_at(self.data, start);
                if end == self.data.len() && !self.eof {
                    return Some(LexEnd::NeedMore);
                }
                self.i = end;
                self.nag(nag, start, end);
                at.movetext = true;
            }
            b'[' => {
                match self.forum_wrapper(start) {
                    Some(true) => {
                        at.last_end = self.i;
                        return None;
                    }
                    Some(false) => {}
                    None => return Some(LexEnd::NeedMore),
                }
                // A tag pair pasted into the movetext is one token, reported once.
                let Some(end) = self.pasted_tag(start) else {
                    return Some(LexEnd::NeedMore);
                };
                self.i = end;
                self.problem(LexProblemKind::TagInMovetext, start, end);
                self.push(TokenKind::Unknown, start, end);
                at.movetext = true;
            }
            b']' | b'}' | b'"' => {
                self.i += 1;
                self.push(TokenKind::Unknown, start, start + 1);
                at.movetext = true;
            }
            b'*' => {
                // `*` is a token by itself, whatever follows: `*1. e4` is a result and
                // the next game.
                self.i = start + 1;
                at.movetext = true;
                if self.symbol(start, start + 1, at.depth) {
                    self.out.end_line = self.line;
                    return Some(LexEnd::Complete(start + 1));
                }
            }
            _ => {
                // A symbol: runs to the next delimiter, `*` or `$`.
                let mut j = start;
                while j < self.data.len() {
                    let c = self.data[j];
                    if c < 0x80 {
                        if ends_symbol(c) {
                            break;
                        }
                    } else if wide_space(&self.data[j..]) > 0 {
                        break;
                    }
                    j += 1;
                }
                if j == self.data.len() && !self.eof {
                    return Some(LexEnd::NeedMore);
                }
                self.i = j;
                // Splitting only looks for where the game ends: once the movetext has
                // begun, a token that starts like a move is no result (results start with
                // 0, 1, *, = or a non-ASCII character) and needs no classifying.
                let passed_over =
                    !self.record && at.movetext && SKIPPED_WHEN_SPLITTING[usize::from(b)];
                if !passed_over {
                    at.movetext = true;
                    if self.symbol(start, j, at.depth) {
                        self.out.end_line = self.line;
                        return Some(LexEnd::Complete(j));
                    }
                }
            }
        }
        at.last_end = self.i;
        None
    }

    /// With [`Lexer::tags_only`], whether the tag section ends at the byte `b` that starts a
    /// token: `Some` (the movetext starts, and lexing stops) at a token of the movetext. Its
    /// comments may come first, and are then where it starts; but a `[` after them goes on
    /// with the tag section, and a `)` before any token of the movetext leaves the tag
    /// section open too: such a game is lexed whole (`tags_only` off), as the replay's
    /// movetext loop, which reads on from the movetext's start, would read it otherwise.
    fn tags_end(&mut self, b: u8, at: &Between) -> Option<LexEnd> {
        let here = MovetextStart {
            offset: self.i,
            line: self.line,
            line_start: self.line_start,
            first_col: self.first_col,
        };
        match b {
            b'{' | b';' => {}
            b'%' if !self.token_on_line => {}
            b'[' | b')' => {
                if self.lead.is_some() || b == b')' {
                    self.tags_only = false;
                    self.lead = None;
                }
                return None;
            }
            _ => {
                let start = match self.lead.take() {
                    Some(lead) => {
                        self.out.tokens.truncate(lead.tokens);
                        self.out.problems.truncate(lead.problems);
                        lead.movetext
                    }
                    None => here,
                };
                self.out.content = true;
                self.movetext = Some(start);
                return Some(LexEnd::Complete(self.data.len()));
            }
        }
        debug_assert_eq!(at.depth, 0, "no variation opens in the tag section");
        if self.lead.is_none() {
            self.lead = Some(Lead {
                movetext: here,
                tokens: self.out.tokens.len(),
                problems: self.out.problems.len(),
            });
        }
        None
    }

    fn finish(&mut self, last_end: usize, depth: u32, movetext: bool) -> LexEnd {
        if depth > 0 {
            self.problem_at(LexProblemKind::UnterminatedVariation, last_end);
        }
        if (movetext || !self.out.tags.is_empty()) && !self.out.has_result {
            self.problem_at(LexProblemKind::MissingResult, last_end);
        }
        self.out.end_line = self.line_of(last_end);
        LexEnd::Complete(last_end)
    }

    /// The line of a byte offset at or before the current position.
    fn line_of(&self, at: usize) -> u32 {
        if at >= self.line_start {
            self.line
        } else {
            self.line - count_lines(&self.data[at..self.line_start])
        }
    }

    fn newline(&mut self, at: usize) {
        self.line += 1;
        self.line_start = at + 1;
        self.col_pos = at + 1;
        self.col_at = 1;
        self.token_on_line = false;
    }

    fn column(&mut self, at: usize) -> u32 {
        if at < self.col_pos {
            // Only for spans behind the cache (rare): count from the line start.
            let from = self.line_start.min(at);
            let base = if from == 0 { self.first_col } else { 1 };
            return base + count_chars(&self.data[from..at]);
        }
        self.col_at += count_chars(&self.data[self.col_pos..at]);
        self.col_pos = at;
        self.col_at
    }

    fn span(&mut self, start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end as u32,
            line: self.line,
            col: self.column(start),
        }
    }

    fn push(&mut self, kind: TokenKind, start: usize, end: usize) {
        match kind {
            TokenKind::Comment | TokenKind::LineComment | TokenKind::Escape => {}
            TokenKind::MoveNumber { .. } => {
                self.number_end = Some(end);
                self.out.content = true;
            }
            TokenKind::Result { .. } => {
                self.out.content = true;
                self.out.has_result = true;
            }
            _ => self.out.content = true,
        }
        if !self.record {
            return;
        }
        let span = self.span(start, end);
        self.out.tokens.push(Token { kind, span });
    }

    fn problem(&mut self, kind: LexProblemKind, start: usize, end: usize) {
        let span = self.span(start, end);
        self.out.problems.push(LexProblem { kind, span });
    }

    /// A problem at a point that may lie on an earlier line than the current one.
    fn problem_at(&mut self, kind: LexProblemKind, at: usize) {
        let line = self.line_of(at);
        let line_start = last_line_start(&self.data[..at]);
        let base = if line_start == 0 { self.first_col } else { 1 };
        let col = base + count_chars(&self.data[line_start..at]);
        self.out.problems.push(LexProblem {
            kind,
            span: Span {
                start: at as u32,
                end: at as u32,
                line,
                col,
            },
        });
    }

    /// A NAG or glyph at `start..end`, or bytes reported as no NAG (`None`).
    fn nag(&mut self, nag: Option<u16>, start: usize, end: usize) {
        match nag {
            Some(nag) => self.push(TokenKind::Nag(nag), start, end),
            None => {
                self.problem(LexProblemKind::BadNag, start, end);
                self.push(TokenKind::Unknown, start, end);
            }
        }
    }

    /// Lexes `{...}`. An unclosed comment ends where a line that looks like a tag pair begins,
    /// so that one missing `}` costs one game, not the rest of the file.
    fn comment(&mut self) -> Option<()> {
        let start = self.i;
        let body = &self.data[start + 1..];
        // The movetext loop's reading of a comment, which most comments end with.
        let (end, terminated, breaks) = match comment(body) {
            Comment::Closed { close, breaks } => (start + 1 + close + 1, true, breaks),
            Comment::Open if self.eof => (self.data.len(), false, true),
            Comment::Open => return None,
            // A line inside starts with `[`: the comment ends there if it looks like a tag.
            Comment::TagLine => {
                let close = memchr(b'}', body);
                let scan = &body[..close.unwrap_or(body.len())];
                let tag_line = memchr2_iter(b'\n', b'\r', scan)
                    .find(|&p| scan.get(p + 1) == Some(&b'[') && looks_like_tag(&scan[p + 1..]));
                match (tag_line, close) {
                    // The comment ends before the whole line break (`\r\n` too).
                    (Some(p), _) => (start + 1 + break_start(scan, p), false, true),
                    (None, Some(c)) => (start + 1 + c + 1, true, true),
                    (None, None) if self.eof => (self.data.len(), false, true),
                    (None, None) => return None,
                }
            }
        };
        self.push(TokenKind::Comment, start, end);
        if !terminated {
            self.problem(LexProblemKind::UnterminatedComment, start, start + 1);
        }
        self.i = end;
        if !breaks {
            return Some(());
        }
        let mut last_nl = None;
        let text = &self.data[start..end];
        for p in memchr2_iter(b'\n', b'\r', text) {
            // The `\r` of `\r\n` is no break of its own (its `\n` may end the comment).
            if text[p] == b'\r' && !is_bare_cr(self.data, start + p) {
                continue;
            }
            self.line += 1;
            last_nl = Some(start + p);
        }
        if let Some(p) = last_nl {
            self.line_start = p + 1;
            self.col_pos = p + 1;
            self.col_at = 1;
        }
        Some(())
    }

    /// Periods at `start..end` that stand apart from a move number (`1. ... Ba5`, `2 ... Nc6`,
    /// `3 . . . a6`, `8.     ...    Nxd4`): a period ends a token (PGN §7), and periods after
    /// a move number with only spaces between are that number's, as other readers take
    /// them (`1. ...` is `1...`). Periods anywhere else are an unexpected token.
    fn periods(&mut self, start: usize, end: usize) {
        // A move number is followed by spaces or another token at once: this stops at the
        // first byte of that token, so it costs no more than the spaces.
        let after_number = self
            .number_end
            .is_some_and(|n| n <= start && self.data[n..start].iter().all(|&b| is_space(b)));
        if !after_number {
            self.push(TokenKind::Unknown, start, end);
            return;
        }
        self.number_end = Some(end);
        if let Some(Token {
            kind: TokenKind::MoveNumber { dots, .. },
            span,
        }) = self.out.tokens.last_mut()
        {
            // `dots` is 0, 1 or 3 (for two or more).
            let periods = usize::from(*dots).min(2) + (end - start);
            *dots = if periods >= 2 { 3 } else { 1 };
            span.end = end as u32;
        }
    }

    /// Classifies the symbol `data[start..end]`, splitting move numbers and suffix glyphs off.
    /// Returns true when it is a result that ends the game.
    fn symbol(&mut self, mut start: usize, end: usize, depth: u32) -> bool {
        while start < end {
            let s = &self.data[start..end];
            if s.len() > MAX_SYMBOL {
                self.push(TokenKind::Unknown, start, end);
                return false;
            }
            match symbol_part(s) {
                SymbolPart::Move(len, glyph) => {
                    let split = start + len;
                    self.push(TokenKind::Move, start, split);
                    if let Some(nag) = glyph {
                        self.nag(nag, split, end);
                    }
                    return false;
                }
                SymbolPart::MoveNumber { number, dots, len } => {
                    self.push(TokenKind::MoveNumber { number, dots }, start, start + len);
                    start += len;
                }
                SymbolPart::Periods(len) => {
                    self.periods(start, start + len);
                    start += len;
                }
                SymbolPart::Result(result, standard) => {
                    self.push(TokenKind::Result { result, standard }, start, end);
                    if !standard {
                        self.problem(LexProblemKind::NonStandardResult, start, end);
                    }
                    if depth > 0 {
                        self.problem(LexProblemKind::ResultInVariation, start, end);
                        return false;
                    }
                    return true;
                }
                SymbolPart::Nag(nag) => {
                    if matches!(s, b"+--" | b"--+") {
                        self.problem(LexProblemKind::DashedEvaluation, start, end);
                    }
                    self.push(TokenKind::Nag(nag), start, end);
                    return false;
                }
                SymbolPart::Unknown => {
                    self.push(TokenKind::Unknown, start, end);
                    return false;
                }
            }
        }
        false
    }
}
