//! The PGN lexer: turns the bytes of one game into tokens with byte spans, lines and columns.
//!
//! The lexer works on a slice that starts at the beginning of a game and reports where the game
//! ends. When the slice ends before the game does, it says so ([`LexEnd::NeedMore`]) and the
//! [`reader`](super::reader) supplies more bytes and lexes again. It never recurses (variations
//! are flat tokens), never panics on any bytes, and keeps move tokens raw: what a move means is
//! the notation layer's business, so nothing is dropped here.

use std::collections::HashSet;

use memchr::{memchr, memchr2, memchr2_iter, memchr3, memchr_iter, memrchr};

/// Where a token stands: byte range within the game, 1-based line in the file and 1-based
/// column in characters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Span {
    pub start: u32,
    pub end: u32,
    pub line: u32,
    pub col: u32,
}

/// A game result as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    WhiteWins,
    BlackWins,
    Draw,
    /// `*`: unfinished or unknown.
    Unknown,
}

impl GameResult {
    /// The PGN spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
            GameResult::Unknown => "*",
        }
    }

    /// Reads a result token in any common spelling. The flag is true for the four standard
    /// PGN spellings.
    pub fn parse(token: &[u8]) -> Option<(GameResult, bool)> {
        Some(match token {
            b"1-0" => (GameResult::WhiteWins, true),
            b"0-1" => (GameResult::BlackWins, true),
            b"1/2-1/2" => (GameResult::Draw, true),
            b"*" => (GameResult::Unknown, true),
            _ => {
                // Most tokens are moves: rule them out before decoding.
                if !matches!(token.first(), Some(b'0' | b'1' | b'=' | 0x80..)) {
                    return None;
                }
                let s = std::str::from_utf8(token).ok()?;
                match s {
                    "1–0" | "1—0" | "1:0" | "白胜" | "白勝" => {
                        (GameResult::WhiteWins, false)
                    }
                    "0–1" | "0—1" | "0:1" | "黑胜" | "黑勝" => {
                        (GameResult::BlackWins, false)
                    }
                    "½-½" | "½–½" | "1/2–1/2" | "½:½" | "1/2" | "½" | "=" | "和棋" | "和局" => {
                        (GameResult::Draw, false)
                    }
                    _ => return None,
                }
            }
        })
    }
}

/// The kinds of token. Text of comments, moves and escapes is `bytes[span.start..span.end]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    /// A tag pair; the number indexes [`Lexed::tags`].
    Tag(u32),
    /// `12.` (dots = 1), `12...` (dots = 3), `12` (dots = 0).
    MoveNumber {
        number: u32,
        dots: u8,
    },
    /// Anything that may be a move, kept raw.
    Move,
    /// `$n` or a suffix glyph (`!`, `?!`, ...), as its NAG number.
    Nag(u16),
    /// `{...}`; the span includes the braces.
    Comment,
    /// `; ...` to the end of the line; the span includes the `;`.
    LineComment,
    /// A `%` escape line, or a forum's `[pgn]` or `[/pgn]` around a game: text that is
    /// not PGN.
    Escape,
    VariationStart,
    VariationEnd,
    /// A result token; `standard` is false for spellings like `½-½` or `1–0`.
    Result {
        result: GameResult,
        standard: bool,
    },
    /// Bytes that belong to no PGN token (`]` in movetext, stray `[`, control characters).
    Unknown,
}

/// A token with its place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    pub span: Span,
}

/// A tag pair, unescaped, as [`Lexed::tags`] gives it. Values that are not valid UTF-8 are
/// kept with the bad bytes shown as `\xNN` and [`Tag::invalid_utf8`] set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tag<'a> {
    pub name: &'a str,
    pub value: &'a str,
    pub span: Span,
    pub invalid_utf8: bool,
}

/// A tag pair as [`Lexed`] keeps it: where its name and value are in the tag text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct StoredTag {
    name: (u32, u32),
    value: (u32, u32),
    span: Span,
    invalid_utf8: bool,
}

/// The tags pgnkit's checks read, by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KnownTag {
    Event,
    Site,
    Date,
    Round,
    White,
    Black,
    Result,
    Fen,
    SetUp,
    PlyCount,
    Variant,
    Termination,
}

impl KnownTag {
    /// Every known tag, in the order of [`KnownTags`]' slots; the Seven Tag Roster first.
    pub const ALL: [KnownTag; 12] = [
        KnownTag::Event,
        KnownTag::Site,
        KnownTag::Date,
        KnownTag::Round,
        KnownTag::White,
        KnownTag::Black,
        KnownTag::Result,
        KnownTag::Fen,
        KnownTag::SetUp,
        KnownTag::PlyCount,
        KnownTag::Variant,
        KnownTag::Termination,
    ];

    /// The Seven Tag Roster, in its order.
    pub const ROSTER: [KnownTag; 7] = [
        KnownTag::Event,
        KnownTag::Site,
        KnownTag::Date,
        KnownTag::Round,
        KnownTag::White,
        KnownTag::Black,
        KnownTag::Result,
    ];

    /// The tag's name as PGN writes it.
    pub fn name(self) -> &'static str {
        match self {
            KnownTag::Event => "Event",
            KnownTag::Site => "Site",
            KnownTag::Date => "Date",
            KnownTag::Round => "Round",
            KnownTag::White => "White",
            KnownTag::Black => "Black",
            KnownTag::Result => "Result",
            KnownTag::Fen => "FEN",
            KnownTag::SetUp => "SetUp",
            KnownTag::PlyCount => "PlyCount",
            KnownTag::Variant => "Variant",
            KnownTag::Termination => "Termination",
        }
    }

    /// The known tag called `name` (exactly: tag names are case-sensitive). Told apart by
    /// length and first letter, then one comparison: a game's tags are all looked up once.
    pub fn of(name: &str) -> Option<KnownTag> {
        KnownTag::of_bytes(name.as_bytes())
    }

    fn of_bytes(name: &[u8]) -> Option<KnownTag> {
        // Told apart by length and first letter, then compared with a literal of known length
        // (which the compiler turns into a load or two, where a comparison with a name of
        // unknown length calls `bcmp`).
        let (tag, same) = match (name.len(), *name.first()?) {
            (5, b'E') => (KnownTag::Event, name == b"Event"),
            (4, b'S') => (KnownTag::Site, name == b"Site"),
            (4, b'D') => (KnownTag::Date, name == b"Date"),
            (5, b'R') => (KnownTag::Round, name == b"Round"),
            (5, b'W') => (KnownTag::White, name == b"White"),
            (5, b'B') => (KnownTag::Black, name == b"Black"),
            (6, b'R') => (KnownTag::Result, name == b"Result"),
            (3, b'F') => (KnownTag::Fen, name == b"FEN"),
            (5, b'S') => (KnownTag::SetUp, name == b"SetUp"),
            (8, b'P') => (KnownTag::PlyCount, name == b"PlyCount"),
            (7, b'V') => (KnownTag::Variant, name == b"Variant"),
            (11, b'T') => (KnownTag::Termination, name == b"Termination"),
            _ => return None,
        };
        same.then_some(tag)
    }
}

/// The first tag of each [`KnownTag`] name in a game, found in one pass over its tags (as
/// [`Lexed::tag`] would find each, without a search per name).
#[derive(Clone, Copy, Debug)]
pub struct KnownTags<'a> {
    lexed: &'a Lexed,
    /// Index of the first tag of each name; `u32::MAX` for none.
    slots: [u32; 12],
}

impl<'a> KnownTags<'a> {
    pub fn of(lexed: &'a Lexed) -> Self {
        let mut slots = [u32::MAX; 12];
        for (i, name) in lexed.tag_names().enumerate() {
            if let Some(k) = KnownTag::of_bytes(name) {
                let slot = &mut slots[k as usize];
                if *slot == u32::MAX {
                    *slot = i as u32;
                }
            }
        }
        KnownTags { lexed, slots }
    }

    /// The first tag called `which`.
    pub fn get(&self, which: KnownTag) -> Option<Tag<'a>> {
        let i = self.slots[which as usize];
        let lexed = self.lexed;
        lexed.tags.get(i as usize).map(|t| lexed.view(t))
    }

    /// The value of the first tag called `which`.
    pub fn value(&self, which: KnownTag) -> Option<&'a str> {
        self.get(which).map(|t| t.value)
    }
}

/// Problems the lexer finds; the caller turns them into diagnostics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LexProblemKind {
    /// A tag pair without its closing quote or bracket on its line.
    UnterminatedTag,
    /// A tag that is not `[Name "value"]`.
    MalformedTag,
    /// A `"` inside a tag value that was not escaped as `\"`.
    UnescapedQuote,
    /// A tag value that is not valid UTF-8.
    InvalidUtf8Tag,
    /// `{` without `}`.
    UnterminatedComment,
    /// `(` without `)` by the end of the game.
    UnterminatedVariation,
    /// `)` without `(`.
    UnmatchedVariationEnd,
    /// A result token inside a variation.
    ResultInVariation,
    /// The game ended without a result token.
    MissingResult,
    /// A result written in a non-standard way (`½-½`, `1–0`).
    NonStandardResult,
    /// A NAG number above 255 or without digits.
    BadNag,
    /// A tag pair after the movetext began.
    TagInMovetext,
    /// The game is larger than the reader's limit and was skipped.
    GameTooLarge,
    /// `+--` or `--+`, read as the evaluation NAG (`$18`, `$19`); it may also be a check
    /// sign and a null move.
    DashedEvaluation,
    /// A forum's `[pgn]` before the game (its `[/pgn]` after it is passed over).
    ForumWrapper,
}

/// One lexer problem with its place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LexProblem {
    pub kind: LexProblemKind,
    pub span: Span,
}

/// The tokens, tags and problems of one game. Reused between games to save allocations.
#[derive(Clone, Debug, Default)]
pub struct Lexed {
    pub tokens: Vec<Token>,
    pub problems: Vec<LexProblem>,
    /// Line number (1-based) just after the game's last byte.
    pub end_line: u32,
    /// The game has something besides commentary (a tag, a move, a result...).
    pub content: bool,
    /// The game has a result token.
    pub has_result: bool,
    /// Set by [`lex_game_tags`] when it stopped where the movetext begins: the movetext is
    /// then not in `tokens`.
    pub movetext: Option<MovetextStart>,
    /// The tags, in order, as places in `tag_text` (see [`Lexed::tags`]).
    tags: Vec<StoredTag>,
    /// The tags' names and values, unescaped: one buffer for all of a game's tags, reused
    /// from game to game. The common tag section is copied into it whole, in one piece.
    tag_text: String,
    /// Scratch buffer for unescaping tag values.
    scratch: Vec<u8>,
    /// Scratch list of where the parts of simple tags are (`simple_tag_section`).
    tag_parts: Vec<[u32; 6]>,
}

impl Lexed {
    pub fn clear(&mut self) {
        self.content = false;
        self.has_result = false;
        self.movetext = None;
        self.tokens.clear();
        self.tags.clear();
        self.tag_text.clear();
        self.problems.clear();
        self.end_line = 0;
    }

    /// Whether two lexings found the same (buffers kept for reuse aside).
    #[cfg(debug_assertions)]
    fn same_as(&self, other: &Lexed) -> bool {
        self.tokens == other.tokens
            && self.tags().eq(other.tags())
            && self.problems == other.problems
            && self.end_line == other.end_line
            && self.content == other.content
            && self.has_result == other.has_result
            && self.movetext == other.movetext
    }

    /// The value of the first tag with this name.
    pub fn tag(&self, name: &str) -> Option<&str> {
        let i = self.tag_names().position(|n| n == name.as_bytes())?;
        Some(self.view(&self.tags[i]).value)
    }

    /// The game's tag pairs, in order.
    pub fn tags(&self) -> impl DoubleEndedIterator<Item = Tag<'_>> + ExactSizeIterator {
        self.tags.iter().map(|t| self.view(t))
    }

    /// The names of the game's tag pairs, in order, as bytes (the names are checked as
    /// names are compared: without finding character boundaries).
    pub fn tag_names(&self) -> impl DoubleEndedIterator<Item = &[u8]> + ExactSizeIterator {
        let text = self.tag_text.as_bytes();
        self.tags
            .iter()
            .map(|t| &text[t.name.0 as usize..t.name.1 as usize])
    }

    /// How many tag pairs the game has.
    pub fn tag_count(&self) -> usize {
        self.tags.len()
    }

    /// Adds a tag pair after the others (for readers that find tags written another way);
    /// returns its index, as [`TokenKind::Tag`] has it.
    pub fn push_tag(&mut self, name: &str, value: &str, span: Span, invalid_utf8: bool) -> u32 {
        let name = self.push_tag_text(name);
        let value = self.push_tag_text(value);
        self.push_stored(name, value, span, invalid_utf8)
    }

    fn push_stored(
        &mut self,
        name: (u32, u32),
        value: (u32, u32),
        span: Span,
        invalid_utf8: bool,
    ) -> u32 {
        self.tags.push(StoredTag {
            name,
            value,
            span,
            invalid_utf8,
        });
        (self.tags.len() - 1) as u32
    }

    /// Appends to the tag text; returns where the text is in it.
    fn push_tag_text(&mut self, text: &str) -> (u32, u32) {
        let start = self.tag_text.len() as u32;
        self.tag_text.push_str(text);
        (start, self.tag_text.len() as u32)
    }

    fn view(&self, t: &StoredTag) -> Tag<'_> {
        let text = |(start, end): (u32, u32)| &self.tag_text[start as usize..end as usize];
        Tag {
            name: text(t.name),
            value: text(t.value),
            span: t.span,
            invalid_utf8: t.invalid_utf8,
        }
    }
}

/// Where a game's movetext begins, for reading it without tokens (see [`lex_game_tags`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MovetextStart {
    /// Byte offset of the movetext's first token in the game.
    pub offset: usize,
    /// Its line in the file.
    pub line: u32,
    /// Byte offset of the start of that line in the game (0 on the game's first line).
    pub line_start: usize,
    /// Line and column of the game's first byte.
    pub first_line: u32,
    pub first_col: u32,
}

/// How lexing one game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LexEnd {
    /// The game is complete and takes this many bytes of the slice.
    Complete(usize),
    /// The slice ended before the game did; call again with more bytes.
    NeedMore,
}

/// Longest token the lexer keeps as a move; longer runs are reported as unknown.
pub const MAX_SYMBOL: usize = 255;

/// Longest tag pair read as one token in the movetext (where it is out of place); a longer
/// one is read as the `[` and what follows.
const PASTED_TAG_MAX: usize = 1024;

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
    // Whether a token has started on the current line (a `[` or `%` only counts at line start).
    token_on_line: bool,
    // Where the last move number ends (`usize::MAX` before the first): periods standing
    // apart after it are its own.
    number_end: usize,
    // The last search for a tag's line end (`tag_line_end`): from, to, and the first line
    // break found in between.
    line_search: (usize, usize, Option<usize>),
    // The names of the first `.0` tags, once `is_repeated_tag` has been asked about many.
    tag_name_set: Option<(usize, HashSet<Box<[u8]>>)>,
    out: &'a mut Lexed,
}

/// Lexes one game from the start of `data`. `first_line` is the file line of `data[0]`.
/// With `eof` false, a game that runs to the end of `data` gives [`LexEnd::NeedMore`].
pub fn lex_game(data: &[u8], eof: bool, first_line: u32, out: &mut Lexed) -> LexEnd {
    lex_game_at(data, eof, first_line, 1, out)
}

/// Like [`lex_game`] for a game that starts at column `first_col` of its line (after an
/// earlier game's result on the same line).
pub fn lex_game_at(
    data: &[u8],
    eof: bool,
    first_line: u32,
    first_col: u32,
    out: &mut Lexed,
) -> LexEnd {
    lex_game_mode(data, eof, first_line, first_col, true, out)
}

/// Lexes the tags of a complete game (`data` is the whole game, as the reader found it) and
/// stops where its movetext begins, recording that place in [`Lexed::movetext`]. A game
/// without tags, or without movetext, is lexed whole. The movetext is for a reader that
/// needs no tokens (the replay's fast path); one that needs them lexes the game again with
/// [`lex_game_at`].
pub fn lex_game_tags(data: &[u8], first_line: u32, first_col: u32, out: &mut Lexed) {
    let mut lx = Lexer::new(data, true, (first_line, first_col), true, out);
    lx.tags_only = true;
    lx.run();
    if let Some(m) = out.movetext.as_mut() {
        m.first_line = first_line;
    }
}

/// [`lex_game_tags`] on bytes that hold a game from its first byte and may run on past it (a
/// reader's buffer, where the game's end is not known yet; `eof` when nothing follows).
/// Returns true when the game has tags and its movetext starts within the bytes: `out` then
/// holds what [`lex_game_tags`] gives on the game's exact bytes. False otherwise (no tags, no
/// movetext, or the bytes end first); `out` is then of no use.
pub fn lex_game_tags_open(
    data: &[u8],
    eof: bool,
    first_line: u32,
    first_col: u32,
    out: &mut Lexed,
) -> bool {
    if simple_tag_section(data, first_line, first_col, out) {
        #[cfg(debug_assertions)]
        {
            let mut general = Lexed::default();
            let mut lx = Lexer::new(data, eof, (first_line, first_col), true, &mut general);
            lx.tags_only = true;
            lx.run();
            if let Some(m) = general.movetext.as_mut() {
                m.first_line = first_line;
            }
            debug_assert!(
                general.same_as(out),
                "the simple tag section differs from the lexer's:\n{general:?}\n{out:?}"
            );
        }
        return true;
    }
    let mut lx = Lexer::new(data, eof, (first_line, first_col), true, out);
    lx.tags_only = true;
    lx.run();
    match out.movetext.as_mut() {
        Some(m) => {
            m.first_line = first_line;
            true
        }
        None => false,
    }
}

/// The common tag section, read without the general lexer: from the start of a line, lines
/// that each hold one [`SimpleTag`], all valid UTF-8, then the movetext after nothing but
/// spaces and line breaks. Fills `out` as [`lex_game_tags_open`] would and returns true;
/// false for anything else (`out` is then of no use, and the general lexer decides).
fn simple_tag_section(data: &[u8], first_line: u32, first_col: u32, out: &mut Lexed) -> bool {
    if first_col > 1 || data.first() != Some(&b'[') {
        return false;
    }
    out.clear();
    // Where each tag's parts are, found first, so that one UTF-8 check covers them all.
    let mut parts = std::mem::take(&mut out.tag_parts);
    parts.clear();
    let mut end = 0;
    while data.get(end) == Some(&b'[') {
        // The line must end with its line break: a tag cut by the end of the bytes is for
        // the general lexer.
        let rest = &data[end..];
        let mut take = |t: SimpleTag| {
            if rest.get(t.line_end) != Some(&b'\n') {
                return false;
            }
            let at = |x: usize| (end + x) as u32;
            parts.push([
                at(0),
                at(t.name.start),
                at(t.name.end),
                at(t.value),
                at(t.quote),
                at(t.end),
            ]);
            end += t.line_end + 1;
            true
        };
        // Each way of reading the line goes on to `take` by itself: merged into one value
        // first, the common line's tag was written to memory and read back in other widths
        // (a quarter of this function's samples in perf; it fell from 5.1% to 4.3% of a TWIC
        // validate's).
        let taken = match common_tag_line(rest) {
            Some(t) => {
                debug_assert_eq!(Some(&t), spaced_tag_line(rest).as_ref());
                take(t)
            }
            None => spaced_tag_line(rest).is_some_and(take),
        };
        if !taken {
            out.tag_parts = parts;
            return false;
        }
    }
    let Ok(text) = std::str::from_utf8(&data[..end]) else {
        out.tag_parts = parts;
        return false;
    };
    // The whole section goes into the tag text at once; each tag is where its parts are.
    let (base, _) = out.push_tag_text(text);
    let mut line = first_line;
    for &[start, name_start, name_end, value_start, value_end, tag_end] in &parts {
        let span = Span {
            start,
            end: tag_end,
            line,
            col: 1,
        };
        let index = out.push_stored(
            (base + name_start, base + name_end),
            (base + value_start, base + value_end),
            span,
            false,
        );
        out.tokens.push(Token {
            kind: TokenKind::Tag(index),
            span,
        });
        line += 1;
    }
    out.tag_parts = parts;
    // Blank lines, then the movetext.
    let mut line_start = end;
    let mut i = end;
    loop {
        match data.get(i) {
            Some(b'\n') => {
                line += 1;
                line_start = i + 1;
            }
            // A `\r` alone (or at the end of the bytes) is for the general lexer.
            Some(b'\r') if is_bare_cr(data, i) => return false,
            Some(b' ' | b'\t' | b'\r') => {}
            Some(b'[' | 0x0b | 0x0c | 0x80..) | None => return false,
            Some(_) => break,
        }
        i += 1;
    }
    out.content = true;
    out.movetext = Some(MovetextStart {
        offset: i,
        line,
        line_start,
        first_line,
        first_col: 1,
    });
    true
}

/// Like [`lex_game_at`]; with `record` false only the game's end, its tags and its problems
/// are found (no tokens): the cheap pass that splits a stream into games for parallel work.
pub fn lex_game_mode(
    data: &[u8],
    eof: bool,
    first_line: u32,
    first_col: u32,
    record: bool,
    out: &mut Lexed,
) -> LexEnd {
    Lexer::new(data, eof, (first_line, first_col), record, out).run()
}

/// ASCII white space, as PGN has it.
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

/// Longest line a tag pair is looked for in: a line without a break within this many bytes
/// of a `[` (a file of games on one line) is read as if it broke there, so that a tag never
/// needs the end of a line that may be the whole file.
const TAG_LINE_MAX: usize = 64 << 10;

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
static SKIPPED_WHEN_SPLITTING: [bool; 256] = {
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
pub(crate) fn ends_symbol(b: u8) -> bool {
    SYMBOL_END[usize::from(b)]
}

/// Length of a multi-byte space (U+3000 ideographic space, U+00A0 no-break space) at `s`,
/// or of a UTF-8 byte order mark (U+FEFF), which `cat a.pgn b.pgn` leaves before the games
/// of `b.pgn`: read as a space, it does not hide the tag line it starts.
pub(crate) fn wide_space(s: &[u8]) -> usize {
    if s.starts_with(&[0xE3, 0x80, 0x80]) || s.starts_with(&[0xEF, 0xBB, 0xBF]) {
        3
    } else if s.starts_with(&[0xC2, 0xA0]) {
        2
    } else {
        0
    }
}

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
fn evaluation_glyph(s: &[u8]) -> Option<u16> {
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

impl<'a> Lexer<'a> {
    /// A lexer at the start of `data`, whose first byte is at (line, column) `at`; `out` is
    /// cleared.
    fn new(data: &'a [u8], eof: bool, at: (u32, u32), record: bool, out: &'a mut Lexed) -> Self {
        out.clear();
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
            token_on_line: first_col > 1,
            number_end: usize::MAX,
            line_search: (usize::MAX, 0, None),
            record,
            tags_only: false,
            tag_name_set: None,
            out,
        }
    }
}

impl Lexer<'_> {
    fn run(&mut self) -> LexEnd {
        let mut depth: u32 = 0;
        let mut movetext = false;
        let mut newlines_since_tag: u32 = 0;
        let mut last_end = 0usize;
        // End of the last book-layout header line read as one token (see below).
        let mut header_end = 0usize;
        loop {
            // Whitespace.
            while self.i < self.data.len() {
                let b = self.data[self.i];
                if b == b'\n' || (b == b'\r' && is_bare_cr(self.data, self.i)) {
                    // (A `\r` at the end of bytes that go on is counted here, but the bytes
                    // end in spaces, so more are asked for and the game is lexed again.)
                    self.newline(self.i);
                    newlines_since_tag += 1;
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
                    return LexEnd::NeedMore;
                }
                return self.finish(last_end, depth, movetext);
            }
            let start = self.i;
            let b = self.data[start];
            if self.tags_only && b != b'[' && !self.out.tags.is_empty() {
                self.out.content = true;
                self.out.movetext = Some(MovetextStart {
                    offset: start,
                    line: self.line,
                    line_start: self.line_start,
                    // Filled in by `lex_game_tags`.
                    first_line: 0,
                    first_col: self.first_col,
                });
                return LexEnd::Complete(self.data.len());
            }
            let at_line_start = !self.token_on_line;
            self.token_on_line = true;
            // A tagless game in the Chinese book layout opens with `白方:` and `黑方:` lines
            // whose names may hold anything (`Team 1-0 A`, an open `{`): each such line is one
            // token, read by `book.rs`. Asked only at a non-ASCII byte that starts a line
            // before any token but such lines: once a game, never in the movetext.
            if b >= 0x80 && at_line_start && last_end == header_end && self.out.tags.is_empty() {
                match book_header_line(self.data, start, self.eof) {
                    Some(Some(end)) => {
                        self.push(TokenKind::Unknown, start, end);
                        self.out.content = true;
                        self.i = end;
                        last_end = end;
                        header_end = end;
                        continue;
                    }
                    Some(None) => {}
                    None => return LexEnd::NeedMore,
                }
            }
            match b {
                b'[' if !movetext || at_line_start => {
                    let repeated = if !movetext && newlines_since_tag >= 2 {
                        match self.is_repeated_tag(start) {
                            Some(r) => r,
                            None => return LexEnd::NeedMore,
                        }
                    } else {
                        false
                    };
                    if movetext || repeated {
                        // A new game begins on this line.
                        if depth > 0 {
                            self.problem_at(LexProblemKind::UnterminatedVariation, last_end);
                        }
                        self.missing_result(last_end);
                        self.out.end_line = self.line_of(last_end);
                        return LexEnd::Complete(last_end);
                    }
                    match self.forum_wrapper(start) {
                        Some(true) => {}
                        Some(false) => match self.tag() {
                            Some(()) => newlines_since_tag = 0,
                            None => return LexEnd::NeedMore,
                        },
                        None => return LexEnd::NeedMore,
                    }
                }
                b'{' => match self.comment() {
                    Some(()) => {}
                    None => return LexEnd::NeedMore,
                },
                b';' => {
                    let end = match memchr2(b'\n', b'\r', &self.data[start..]) {
                        Some(n) => start + n,
                        None if self.eof => self.data.len(),
                        None => return LexEnd::NeedMore,
                    };
                    self.i = end;
                    self.push(TokenKind::LineComment, start, end);
                }
                b'%' if at_line_start => {
                    let end = match memchr2(b'\n', b'\r', &self.data[start..]) {
                        Some(n) => start + n,
                        None if self.eof => self.data.len(),
                        None => return LexEnd::NeedMore,
                    };
                    self.i = end;
                    self.push(TokenKind::Escape, start, end);
                }
                b'(' => {
                    self.i += 1;
                    depth += 1;
                    self.push(TokenKind::VariationStart, start, start + 1);
                    movetext = true;
                }
                b')' => {
                    self.i += 1;
                    if depth == 0 {
                        self.push(TokenKind::Unknown, start, start + 1);
                        self.problem(LexProblemKind::UnmatchedVariationEnd, start, start + 1);
                    } else {
                        depth -= 1;
                        self.push(TokenKind::VariationEnd, start, start + 1);
                    }
                }
                b'$' => {
                    let mut j = start + 1;
                    while j < self.data.len() && self.data[j].is_ascii_digit() && j - start < 8 {
                        j += 1;
                    }
                    if j == self.data.len() && !self.eof {
                        return LexEnd::NeedMore;
                    }
                    let digits = &self.data[start + 1..j];
                    let value = digits
                        .iter()
                        .fold(0u32, |acc, &d| acc * 10 + u32::from(d - b'0'));
                    self.i = j;
                    if digits.is_empty() || value > 255 {
                        self.problem(LexProblemKind::BadNag, start, j);
                        self.push(TokenKind::Unknown, start, j);
                    } else {
                        self.push(TokenKind::Nag(value as u16), start, j);
                    }
                    movetext = true;
                }
                b'[' => {
                    match self.forum_wrapper(start) {
                        Some(true) => {
                            last_end = self.i;
                            continue;
                        }
                        Some(false) => {}
                        None => return LexEnd::NeedMore,
                    }
                    // A tag pair pasted into the movetext is one token, reported once.
                    let Some(end) = self.pasted_tag(start) else {
                        return LexEnd::NeedMore;
                    };
                    self.i = end;
                    self.problem(LexProblemKind::TagInMovetext, start, end);
                    self.push(TokenKind::Unknown, start, end);
                    movetext = true;
                }
                b']' | b'}' | b'"' => {
                    self.i += 1;
                    self.push(TokenKind::Unknown, start, start + 1);
                    movetext = true;
                }
                b'*' => {
                    // `*` is a token by itself, whatever follows: `*1. e4` is a result and
                    // the next game.
                    self.i = start + 1;
                    movetext = true;
                    if self.symbol(start, start + 1, depth) {
                        self.out.end_line = self.line;
                        return LexEnd::Complete(start + 1);
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
                        return LexEnd::NeedMore;
                    }
                    self.i = j;
                    // Splitting only looks for where the game ends: once the movetext has
                    // begun, a token that starts like a move is no result (results start with
                    // 0, 1, *, = or a non-ASCII character) and needs no classifying.
                    let passed_over =
                        !self.record && movetext && SKIPPED_WHEN_SPLITTING[usize::from(b)];
                    if !passed_over {
                        movetext = true;
                        if self.symbol(start, j, depth) {
                            self.out.end_line = self.line;
                            return LexEnd::Complete(j);
                        }
                    }
                }
            }
            last_end = self.i;
        }
    }

    fn finish(&mut self, last_end: usize, depth: u32, movetext: bool) -> LexEnd {
        if depth > 0 {
            self.problem_at(LexProblemKind::UnterminatedVariation, last_end);
        }
        if movetext || !self.out.tags.is_empty() {
            self.missing_result(last_end);
        }
        self.out.end_line = self.line_of(last_end);
        LexEnd::Complete(last_end)
    }

    fn missing_result(&mut self, at: usize) {
        if !self.out.has_result {
            self.problem_at(LexProblemKind::MissingResult, at);
        }
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
                self.number_end = end;
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

    /// Reads a forum's `[pgn]` or `[/pgn]` (any case) at `start`, if one stands there, as an
    /// escape: the game inside is read as if the wrapper were not there, with a warning at
    /// `[pgn]`. `Some(false)` when none stands there, `None` when the bytes end too soon to
    /// tell.
    fn forum_wrapper(&mut self, start: usize) -> Option<bool> {
        let rest = &self.data[start..];
        let closing = rest.get(1) == Some(&b'/');
        let word = &rest[1 + usize::from(closing)..];
        if word.len() < 4 && !self.eof && b"pgn]".starts_with(&word.to_ascii_lowercase()) {
            return None;
        }
        if !word
            .get(..4)
            .is_some_and(|w| w.eq_ignore_ascii_case(b"pgn]"))
        {
            return Some(false);
        }
        let end = start + 1 + usize::from(closing) + 4;
        if !closing {
            self.problem(LexProblemKind::ForumWrapper, start, end);
        }
        self.push(TokenKind::Escape, start, end);
        self.i = end;
        Some(true)
    }

    /// Where the `[` at `start` in the movetext ends as a token: after the whole tag pair
    /// when one stands there (`[Round "2"]`, nothing escaped, within [`PASTED_TAG_MAX`]
    /// bytes), else right after the `[`. `None` when the bytes end before that is known.
    /// Only the bytes within the limit decide, however the input arrives.
    fn pasted_tag(&self, start: usize) -> Option<usize> {
        let rest = &self.data[start..];
        let window = &rest[..rest.len().min(PASTED_TAG_MAX)];
        // On its line: a token holds no line break, which the line count would miss.
        let (window, whole) = match memchr2(b'\n', b'\r', window) {
            Some(p) => (&window[..p], true),
            None => (window, window.len() == PASTED_TAG_MAX || self.eof),
        };
        let tag = tag_head(window).and_then(|(_, value)| simple_tag_end(window, value));
        match tag {
            Some((_, end)) => Some(start + end),
            None if !whole => None,
            None => Some(start + 1),
        }
    }

    /// Records the simple tag at `self.i` (see [`simple_tag_end`]; offsets from its `[`).
    /// `None` when the general reading must decide (a value that is not UTF-8).
    fn simple_tag(
        &mut self,
        name_range: std::ops::Range<usize>,
        value: usize,
        quote: usize,
        end: usize,
    ) -> Option<()> {
        let start = self.i;
        let tag = &self.data[start..start + end];
        if self.record {
            // One validation for name and value: the name is ASCII, so both ends of the
            // value are character boundaries.
            let text = std::str::from_utf8(&tag[name_range.start..quote]).ok()?;
            let (base, text_end) = self.out.push_tag_text(text);
            let name = (base, base + name_range.len() as u32);
            let value = (base + (value - name_range.start) as u32, text_end);
            self.add_tag(name, value, start, start + end, false);
        } else {
            // Splitting only needs the tag's name (a repeated name starts a new game)
            // and where it ends: leave the value to the full lexing.
            let name = std::str::from_utf8(&tag[name_range]).unwrap_or_default();
            self.out.push_tag(name, "", Span::default(), false);
            self.out.content = true;
            self.i = start + end;
        }
        Some(())
    }

    /// Where the line of the tag at `start` ends (its first line break, or [`TAG_LINE_MAX`]
    /// bytes on); `None` when the bytes end first. Each byte is looked at once per game: a
    /// line of many tags (a file of games on one line) is searched on from where the last
    /// search stopped.
    fn tag_line_end(&mut self, start: usize) -> Option<usize> {
        let cap = start.saturating_add(TAG_LINE_MAX);
        let (from, to, found) = self.line_search;
        let search_from = if from <= start && found.is_some_and(|b| b >= start) {
            return found.map(|b| b.min(cap));
        } else if from <= start && found.is_none() && to > start {
            to
        } else {
            start
        };
        let end = cap.min(self.data.len());
        let found =
            memchr2(b'\n', b'\r', &self.data[search_from.min(end)..end]).map(|p| search_from + p);
        self.line_search = (start, end, found);
        match found {
            Some(b) => Some(b),
            None if end == cap || self.eof => Some(end),
            None => None,
        }
    }

    /// Whether the tag at `start` repeats a name already in this game's tags. Asked at every
    /// tag after a blank line: past a few tags the names go into a set, brought up to date at
    /// each question, so that a long tag section with blank lines costs a pass, not a square.
    /// `None` when the bytes end inside the name: `[Tag1` cut from `[Tag17 ...]` is not `Tag1`
    /// (a read's boundary once split a long tag section there).
    fn is_repeated_tag(&mut self, start: usize) -> Option<bool> {
        const SCAN_MAX: usize = 16;
        let rest = &self.data[start + 1..];
        let name_len = rest
            .iter()
            .take_while(|&&c| c.is_ascii_alphanumeric() || c == b'_')
            .count();
        if name_len == rest.len() && !self.eof {
            return None;
        }
        let name = &rest[..name_len];
        if name.is_empty() {
            return Some(false);
        }
        let count = self.out.tag_count();
        if count <= SCAN_MAX {
            return Some(self.out.tag_names().any(|t| t == name));
        }
        let (known, set) = self.tag_name_set.get_or_insert_with(|| (0, HashSet::new()));
        set.extend(
            self.out
                .tag_names()
                .rev()
                .take(count - *known)
                .map(Box::<[u8]>::from),
        );
        *known = count;
        Some(set.contains(name))
    }

    /// Lexes `[Name "value"]` on one line. `None` means more bytes are needed.
    fn tag(&mut self) -> Option<()> {
        let start = self.i;
        // The common tag, nothing escaped and closed by `"]` on its line, is read without
        // looking for the end of the line, which may be far (games on one line): both
        // readings stop at the line's end, so they agree.
        let line = &self.data[start..];
        if let Some((name_range, j)) = tag_head(line) {
            if let Some((quote, end)) = simple_tag_end(line, j) {
                if self.simple_tag(name_range, j, quote, end).is_some() {
                    return Some(());
                }
            }
        }
        let line_end = self.tag_line_end(start)?;
        let line = &self.data[start..line_end];
        let Some((name_range, mut j)) = tag_head(line) else {
            // Not a tag pair: skip to `]` or the end of the line.
            let end = memchr(b']', line).map_or(line.len(), |p| p + 1);
            self.problem(LexProblemKind::MalformedTag, start, start + end);
            self.push(TokenKind::Unknown, start, start + end);
            self.i = start + end;
            return Some(());
        };
        let mut raw = std::mem::take(&mut self.out.scratch);
        raw.clear();
        let mut closed = None;
        while j < line.len() {
            // Copy the run up to the next quote or backslash at once: most values have none
            // but the closing quote.
            let run = memchr2(b'"', b'\\', &line[j..]).map_or(line.len(), |p| j + p);
            raw.extend_from_slice(&line[j..run]);
            j = run;
            if j >= line.len() {
                break;
            }
            match line[j] {
                b'\\' if j + 1 < line.len() && matches!(line[j + 1], b'"' | b'\\') => {
                    raw.push(line[j + 1]);
                    j += 2;
                }
                b'"' => {
                    let mut k = j + 1;
                    while k < line.len() && is_space(line[k]) {
                        k += 1;
                    }
                    if k < line.len() && line[k] == b']' {
                        closed = Some(k + 1);
                        break;
                    }
                    // No `]` follows: an inner quote the writer forgot to escape, unless no
                    // later quote on the line could close the value.
                    if !line[j + 1..].contains(&b'"') {
                        // A closing quote without its bracket.
                        break;
                    }
                    let span_at = start + j;
                    self.problem(LexProblemKind::UnescapedQuote, span_at, span_at + 1);
                    raw.push(b'"');
                    j += 1;
                }
                c => {
                    raw.push(c);
                    j += 1;
                }
            }
        }
        let end = match closed {
            Some(end) => end,
            None => {
                // Unterminated: keep what there is, up to a final `"]` or `]` if any.
                while raw
                    .last()
                    .is_some_and(|&c| c == b']' || c == b'"' || is_space(c))
                {
                    raw.pop();
                }
                let mut e = line.len();
                while e > 0 && (line[e - 1] == b'\r' || line[e - 1] == b' ') {
                    e -= 1;
                }
                // The problem covers the tag as kept, never bytes past the game's end.
                self.problem(LexProblemKind::UnterminatedTag, start, start + e);
                e
            }
        };
        // The name is ASCII alphanumerics by construction.
        let name = self
            .out
            .push_tag_text(std::str::from_utf8(&line[name_range]).unwrap_or_default());
        let (value, invalid_utf8) = match std::str::from_utf8(&raw) {
            Ok(s) => (self.out.push_tag_text(s), false),
            Err(_) => (self.out.push_tag_text(&escape_invalid(&raw)), true),
        };
        self.out.scratch = raw;
        self.add_tag(name, value, start, start + end, invalid_utf8);
        Some(())
    }

    /// Records a tag read from `start..end` (its token too, when recording).
    fn add_tag(
        &mut self,
        name: (u32, u32),
        value: (u32, u32),
        start: usize,
        end: usize,
        invalid_utf8: bool,
    ) {
        let span = self.span(start, end);
        if invalid_utf8 {
            self.out.problems.push(LexProblem {
                kind: LexProblemKind::InvalidUtf8Tag,
                span,
            });
        }
        let index = self.out.push_stored(name, value, span, invalid_utf8);
        self.out.content = true;
        if self.record {
            self.out.tokens.push(Token {
                kind: TokenKind::Tag(index),
                span,
            });
        }
        self.i = end;
    }

    /// Records a comment's token (and its problem when unterminated).
    fn comment_token(&mut self, start: usize, end: usize, terminated: bool) {
        let span = self.span(start, end);
        if self.record {
            self.out.tokens.push(Token {
                kind: TokenKind::Comment,
                span,
            });
        }
        if !terminated {
            self.out.problems.push(LexProblem {
                kind: LexProblemKind::UnterminatedComment,
                span: Span {
                    end: span.start + 1,
                    ..span
                },
            });
        }
    }

    /// Lexes `{...}`. An unclosed comment ends where a line that looks like a tag pair begins,
    /// so that one missing `}` costs one game, not the rest of the file.
    fn comment(&mut self) -> Option<()> {
        let start = self.i;
        let body = &self.data[start + 1..];
        // Most comments are on one line (`{ [%clk 0:03:00] }`): one search finds their end.
        if let Some(p) = memchr3(b'}', b'\n', b'\r', body) {
            if body[p] == b'}' {
                let end = start + 1 + p + 1;
                if self.record {
                    self.comment_token(start, end, true);
                }
                self.i = end;
                return Some(());
            }
        }
        let close = memchr(b'}', body);
        let scan = &body[..close.unwrap_or(body.len())];
        let mut tag_line = None;
        // Most comments have no newline at all: look for one before anything else.
        for p in memchr2_iter(b'\n', b'\r', scan) {
            if scan.get(p + 1) == Some(&b'[') && looks_like_tag(&scan[p + 1..]) {
                // The comment ends before the whole line break (`\r\n` too).
                tag_line = Some(if p > 0 && scan[p - 1] == b'\r' {
                    p - 1
                } else {
                    p
                });
                break;
            }
        }
        let (end, terminated) = match (tag_line, close) {
            (Some(p), _) => (start + 1 + p, false),
            (None, Some(c)) => (start + 1 + c + 1, true),
            (None, None) if self.eof => (self.data.len(), false),
            (None, None) => return None,
        };
        if self.record || !terminated {
            self.comment_token(start, end, terminated);
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
        self.i = end;
        Some(())
    }

    /// Periods at `start..end` that stand apart from a move number (`1. ... Ba5`, `2 ... Nc6`,
    /// `3 . . . a6`, `8.     ...    Nxd4`): a period ends a token (PGN §7), and periods after
    /// a move number with only spaces between are that number's, as other readers take
    /// them (`1. ...` is `1...`). Periods anywhere else are an unexpected token.
    fn periods(&mut self, start: usize, end: usize) {
        // A move number is followed by spaces or another token at once: this stops at the
        // first byte of that token, so it costs no more than the spaces.
        let after_number = self.number_end <= start
            && self.data[self.number_end..start]
                .iter()
                .all(|&b| is_space(b));
        if !after_number {
            self.push(TokenKind::Unknown, start, end);
            return;
        }
        self.number_end = end;
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
        loop {
            let s = &self.data[start..end];
            if s.is_empty() {
                return false;
            }
            if s.len() > MAX_SYMBOL {
                self.push(TokenKind::Unknown, start, end);
                return false;
            }
            // Most symbols are SAN moves: a letter first and no glyph glued on. No result,
            // NAG or evaluation sign has that shape (`N` alone is the novelty sign).
            if s.len() >= 2 && s[0].is_ascii_alphabetic() && !matches!(s[s.len() - 1], b'!' | b'?')
            {
                self.push(TokenKind::Move, start, end);
                return false;
            }
            // Move numbers next: they are the most common symbol after moves.
            if let Some((number, dots, len)) = move_number(s) {
                let next = start + len;
                self.push(TokenKind::MoveNumber { number, dots }, start, next);
                start = next;
                continue;
            }
            if s[0] == b'.' {
                let next = start + s.iter().take_while(|&&c| c == b'.').count();
                self.periods(start, next);
                start = next;
                continue;
            }
            if let Some((result, standard)) = GameResult::parse(s) {
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
            if let Some(nag) = nag_glyph(s).or_else(|| evaluation_glyph(s)) {
                if matches!(s, b"+--" | b"--+") {
                    self.problem(LexProblemKind::DashedEvaluation, start, end);
                }
                self.push(TokenKind::Nag(nag), start, end);
                return false;
            }
            // Suffix glyphs glued to a move: `e4!?`.
            let glyphs = s
                .iter()
                .rev()
                .take_while(|&&c| c == b'!' || c == b'?')
                .count();
            if glyphs > 0 && glyphs < s.len() {
                let split = end - glyphs;
                self.push(TokenKind::Move, start, split);
                match nag_glyph(&self.data[split..end]) {
                    Some(nag) => self.push(TokenKind::Nag(nag), split, end),
                    None => {
                        self.problem(LexProblemKind::BadNag, split, end);
                        self.push(TokenKind::Unknown, split, end);
                    }
                }
                return false;
            }
            if s[0] < 0x20 || s[0] == 0x7f {
                self.push(TokenKind::Unknown, start, end);
            } else {
                self.push(TokenKind::Move, start, end);
            }
            return false;
        }
    }
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

/// Bytes of a tag name: letters, digits and `_`.
static TAG_NAME: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = (b as u8).is_ascii_alphanumeric() || b == b'_' as usize;
        b += 1;
    }
    table
};

/// White space within a line: [`is_space`] but the line break.
fn is_line_space(b: u8) -> bool {
    b != b'\n' && is_space(b)
}

/// The head of a tag pair line (from its `[`): the range of the tag's name and where its value
/// begins, after the opening quote. `None` when the line is no tag pair. Reads no further
/// than the line: `line` may run on past its line break.
pub(crate) fn tag_head(line: &[u8]) -> Option<(std::ops::Range<usize>, usize)> {
    let space = |j: usize| is_line_space(line[j]) && !is_bare_cr(line, j);
    let mut j = 1;
    while j < line.len() && space(j) {
        j += 1;
    }
    let name_start = j;
    while j < line.len() && TAG_NAME[usize::from(line[j])] {
        j += 1;
    }
    let name = name_start..j;
    while j < line.len() && space(j) {
        j += 1;
    }
    if name.is_empty() || j >= line.len() || line[j] != b'"' {
        return None;
    }
    Some((name, j + 1))
}

/// For a tag whose value (from `value` on) holds no quote or backslash and whose closing
/// quote is followed by `]` on the same line: where that quote is and where the tag ends.
/// That case needs no unescaping, and the general reading would end the tag at the same
/// byte. (An invalid UTF-8 value still goes the general way, which reports it.) Reads no
/// further than the line.
pub(crate) fn simple_tag_end(line: &[u8], value: usize) -> Option<(usize, usize)> {
    let quote = value + memchr3(b'"', b'\\', b'\n', &line[value..])?;
    // A `\r` in the value may be a line break: the general reading decides.
    if line[quote] != b'"' || memchr(b'\r', &line[value..quote]).is_some() {
        return None;
    }
    let mut k = quote + 1;
    while k < line.len() && is_line_space(line[k]) && !is_bare_cr(line, k) {
        k += 1;
    }
    if k >= line.len() || line[k] != b']' {
        return None;
    }
    Some((quote, k + 1))
}

/// A line that is exactly one tag pair with nothing escaped in its value (see
/// [`simple_tag_end`]) and nothing but spaces after it: the lexer reads it as one tag and
/// nothing else. Offsets from the line's start.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct SimpleTag {
    pub name: std::ops::Range<usize>,
    /// Where the value starts (after its opening quote).
    pub value: usize,
    /// The value's closing quote.
    pub quote: usize,
    /// Where the tag ends (after its `]`).
    pub end: usize,
    /// Where the line ends: its line break, or the end of `line` when it has none.
    pub line_end: usize,
}

/// The [`SimpleTag`] at the start of `line`, which may run on past its line break.
#[inline]
pub(crate) fn simple_tag_line(line: &[u8]) -> Option<SimpleTag> {
    match common_tag_line(line) {
        Some(tag) => {
            debug_assert_eq!(
                Some(&tag),
                spaced_tag_line(line).as_ref(),
                "the common tag line reads as the spaced one"
            );
            Some(tag)
        }
        None => spaced_tag_line(line),
    }
}

/// Bytes that end a simple tag value: its closing quote, or what sends the tag elsewhere.
static VALUE_END: [bool; 256] = {
    let mut table = [false; 256];
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table[b'\n' as usize] = true;
    table[b'\r' as usize] = true;
    table
};

/// The tag line as nearly every file writes it, `[Name "value"]` and its line break with no
/// other space, read in one pass without a search call: [`spaced_tag_line`] reads the same
/// line the same way, and every other line.
#[inline(always)]
fn common_tag_line(line: &[u8]) -> Option<SimpleTag> {
    let mut j = 1;
    while j < line.len() && TAG_NAME[usize::from(line[j])] {
        j += 1;
    }
    if j == 1 || line.get(j..j + 2) != Some(b" \"") {
        return None;
    }
    let name = 1..j;
    let value = j + 2;
    let mut quote = value;
    while quote < line.len() && !VALUE_END[usize::from(line[quote])] {
        quote += 1;
    }
    if line.get(quote..quote + 3) != Some(b"\"]\n") {
        return None;
    }
    Some(SimpleTag {
        name,
        value,
        quote,
        end: quote + 2,
        line_end: quote + 2,
    })
}

/// [`simple_tag_line`] for any spacing the lexer allows around the name, the value and
/// the closing bracket.
fn spaced_tag_line(line: &[u8]) -> Option<SimpleTag> {
    let (name, value) = tag_head(line)?;
    let (quote, end) = simple_tag_end(line, value)?;
    let mut line_end = end;
    while line_end < line.len() && is_line_space(line[line_end]) && !is_bare_cr(line, line_end) {
        line_end += 1;
    }
    if line_end < line.len() && line[line_end] != b'\n' {
        return None;
    }
    Some(SimpleTag {
        name,
        value,
        quote,
        end,
        line_end,
    })
}

/// Whether `s` starts like a tag pair line: `[Name "`.
pub fn looks_like_tag(s: &[u8]) -> bool {
    if s.first() != Some(&b'[') {
        return false;
    }
    let name = s[1..]
        .iter()
        .take_while(|&&c| TAG_NAME[usize::from(c)])
        .count();
    if name == 0 || !s[1].is_ascii_alphabetic() {
        return false;
    }
    let rest = &s[1 + name..];
    let spaces = rest
        .iter()
        .take_while(|&&c| c == b' ' || c == b'\t')
        .count();
    spaces > 0 && rest.get(spaces) == Some(&b'"')
}

/// Shows bytes that are not UTF-8 as `\xNN`.
pub fn escape_invalid(bytes: &[u8]) -> String {
    let mut out = String::new();
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{move_number, KnownTag, KnownTags, Lexed, Span};

    #[test]
    fn the_common_tag_line_reads_as_the_spaced_one() {
        use super::{common_tag_line, spaced_tag_line};
        let common: [&[u8]; 5] = [
            b"[Event \"x\"]\n",
            b"[Event \"\"]\n",
            b"[_x1 \"y z\"]\n[Site \"?\"]\n",
            b"[Event \"\xC3\xA9\"]\n",
            b"[Result \"1-0\"]\n\n1. e4",
        ];
        let others: [&[u8]; 12] = [
            b"[Event \"x\"]\r\n",
            b"[Event  \"x\"]\n",
            b"[Event\"x\"]\n",
            b"[Event \"x\" ]\n",
            b"[Event \"x\"] \n",
            b"[Event \"a\\\"b\"]\n",
            b"[ Event \"x\"]\n",
            b"[Event \"x\"]",
            b"[Event \"x\"]]\n",
            b"[Ev-ent \"x\"]\n",
            b"[Event \"x\n\"]\n",
            b"[Event \"x",
        ];
        for line in common {
            let tag = common_tag_line(line);
            assert!(tag.is_some(), "{:?}", String::from_utf8_lossy(line));
            assert_eq!(
                tag,
                spaced_tag_line(line),
                "{:?}",
                String::from_utf8_lossy(line)
            );
        }
        for line in others {
            assert_eq!(
                common_tag_line(line),
                None,
                "{:?}",
                String::from_utf8_lossy(line)
            );
        }
    }

    #[test]
    fn known_tags_by_exact_name() {
        for k in KnownTag::ALL {
            assert_eq!(KnownTag::of(k.name()), Some(k));
            assert_eq!(KnownTag::ALL[k as usize], k, "slot order");
        }
        // Tag names are case-sensitive; same length and first letter is not enough.
        for name in [
            "",
            "event",
            "EVENT",
            "Events",
            "Even",
            "Sitf",
            "Dote",
            "Roune",
            "Whitf",
            "Blank",
            "Resulf",
            "Fen",
            "FEM",
            "SetUP",
            "Setup",
            "PlyCounf",
            "Variang",
            "TerminatioN",
            "WhiteElo",
            "UTCDate",
        ] {
            assert_eq!(KnownTag::of(name), None, "{name:?}");
        }
    }

    #[test]
    fn known_tags_keep_the_first_of_a_name() {
        let mut lexed = Lexed::default();
        for (name, value) in [
            ("WhiteElo", "2700"),
            ("Result", "1-0"),
            ("White", "A"),
            ("Result", "0-1"),
        ] {
            lexed.push_tag(name, value, Span::default(), false);
        }
        let known = KnownTags::of(&lexed);
        assert_eq!(known.value(KnownTag::Result), Some("1-0"));
        assert_eq!(known.value(KnownTag::White), Some("A"));
        assert_eq!(known.get(KnownTag::Black), None);
    }

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
