//! What the lexer gives: tokens with their places ([`Span`]), the tags of a game, the
//! problems found, all held in one reusable [`Lexed`] per game.

/// Where a token stands: byte range within the game, 1-based line in the file and 1-based
/// column in characters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Span {
    /// The first byte, from the game's start.
    pub start: u32,
    /// The byte after the last.
    pub end: u32,
    /// The line of `start` in the file.
    pub line: u32,
    /// The column of `start` on its line, in characters.
    pub col: u32,
}

/// A game result as written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// `1-0`.
    WhiteWins,
    /// `0-1`.
    BlackWins,
    /// `1/2-1/2`.
    Draw,
    /// `*`: unfinished or unknown (the default: nothing is known).
    #[default]
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
        /// The number as written (its first nine digits).
        number: u32,
        /// The dots after it: 0, 1, or 3 for two or more.
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
    /// `(`: a variation starts.
    VariationStart,
    /// `)`: the innermost variation ends.
    VariationEnd,
    /// A result token; `standard` is false for spellings like `½-½` or `1–0`.
    Result {
        /// The result it stands for.
        result: GameResult,
        /// Written as PGN writes it.
        standard: bool,
    },
    /// Bytes that belong to no PGN token (`]` in movetext, stray `[`, control characters).
    Unknown,
}

/// A token with its place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    /// What it is.
    pub kind: TokenKind,
    /// Where it is.
    pub span: Span,
}

/// A tag pair, unescaped, as [`Lexed::tags`] gives it. Values that are not valid UTF-8 are
/// kept with the bad bytes shown as `\xNN` and [`Tag::invalid_utf8`] set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tag<'a> {
    /// The tag's name (`Event`).
    pub name: &'a str,
    /// Its value, unescaped.
    pub value: &'a str,
    /// The whole tag pair, `[` to `]`.
    pub span: Span,
    /// The value was not valid UTF-8 (its bad bytes are shown as `\xNN`).
    pub invalid_utf8: bool,
}

/// A tag pair as [`Lexed`] keeps it: where its name and value are in the tag text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct StoredTag {
    name: (u32, u32),
    value: (u32, u32),
    span: Span,
    invalid_utf8: bool,
}

/// The tags pgnkit's checks read, by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KnownTag {
    /// `[Event "..."]`.
    Event,
    /// `[Site "..."]`.
    Site,
    /// `[Date "..."]`.
    Date,
    /// `[Round "..."]`.
    Round,
    /// `[White "..."]`.
    White,
    /// `[Black "..."]`.
    Black,
    /// `[Result "..."]`.
    Result,
    /// `[FEN "..."]`.
    Fen,
    /// `[SetUp "..."]`.
    SetUp,
    /// `[PlyCount "..."]`.
    PlyCount,
    /// `[Variant "..."]`.
    Variant,
    /// `[Termination "..."]`.
    Termination,
}

impl KnownTag {
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

    /// The known tag called `name` (exactly: tag names are case-sensitive). A game's tags
    /// are all looked up once.
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
    /// The known tags of a lexed game, found in one pass over its tags.
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
    /// A Parquet row's movetext cell goes on after the result that ends its game (another
    /// game's tags or moves): a row is one game, and the rest was not read.
    CellGoesOn,
    /// A Parquet row's movetext cell starts with tag pairs, which would pass for the row's.
    TagsInCell,
    /// A record of a stream of records (a Parquet row) holds no game: no tags and no moves
    /// (an empty, blank or null movetext, or only a comment). It is a game all the same, so
    /// that the games are the rows, one for one, and none is passed over unsaid.
    EmptyRecord,
}

/// One lexer problem with its place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LexProblem {
    /// What is wrong.
    pub kind: LexProblemKind,
    /// Where.
    pub span: Span,
}

/// The tokens, tags and problems of one game. Reused between games to save allocations.
#[derive(Clone, Debug, Default)]
pub struct Lexed {
    /// The tokens, in order: the whole game's, or only those before its movetext when it was
    /// lexed to its tags ([`Movetext::Bytes`]).
    pub tokens: Vec<Token>,
    /// The problems found, in order.
    pub problems: Vec<LexProblem>,
    /// Line number (1-based) just after the game's last byte.
    pub end_line: u32,
    /// The game has something besides commentary (a tag, a move, a result...).
    pub content: bool,
    /// The game has a result token.
    pub has_result: bool,
    /// Its tags come from a header in the Chinese book layout (`白方:… 黑方:…`), whose moves
    /// are Chinese long notation and whose result is the result token alone.
    pub book: bool,
    /// The tags, in order, as places in `tag_text` (see [`Lexed::tags`]).
    pub(super) tags: Vec<StoredTag>,
    /// The tags' names and values, unescaped: one buffer for all of a game's tags, reused
    /// from game to game. The common tag section is copied into it whole, in one piece.
    tag_text: String,
    /// Scratch buffer for unescaping tag values.
    pub(super) scratch: Vec<u8>,
    /// Scratch list of where the parts of the common tag lines are (`Lexer::tag_lines`).
    pub(super) tag_parts: Vec<[u32; 6]>,
}

impl Lexed {
    /// Empties it for the next game, keeping its buffers.
    pub fn clear(&mut self) {
        self.content = false;
        self.has_result = false;
        self.book = false;
        self.tokens.clear();
        self.tags.clear();
        self.tag_text.clear();
        self.problems.clear();
        self.end_line = 0;
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

    /// The game's `i`th tag pair (from 0, in order), as [`Lexed::tags`] gives it: for a
    /// caller that found it among [`Lexed::tag_names`].
    ///
    /// # Panics
    ///
    /// When the game has no `i`th tag pair.
    pub fn tag_at(&self, i: usize) -> Tag<'_> {
        self.view(&self.tags[i])
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

    pub(super) fn push_stored(
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
    pub(super) fn push_tag_text(&mut self, text: &str) -> (u32, u32) {
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

/// Where a game's movetext is once the game is lexed: in its tokens, or in its bytes from a
/// place on, for a reader that needs no tokens (the replay's movetext loop).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Movetext {
    /// The game was lexed whole: the movetext, if any, is in [`Lexed::tokens`].
    Tokens,
    /// The game was lexed to its tags ([`lex_game_tags`](crate::pgn::lex_game_tags)): the
    /// movetext is the game's bytes from this place to their end.
    Bytes(MovetextStart),
    /// Like `Bytes`, on bytes that run on past the game, up to where it surely ends (a
    /// reader's buffer): the game ends where its movetext is found to end.
    Open(MovetextStart),
}

impl Movetext {
    /// Where the movetext starts in the bytes, when it is read from them.
    pub fn start(self) -> Option<MovetextStart> {
        match self {
            Movetext::Tokens => None,
            Movetext::Bytes(at) | Movetext::Open(at) => Some(at),
        }
    }
}

/// Where a game's movetext begins, for reading it without tokens (see
/// [`lex_game_tags`](crate::pgn::lex_game_tags)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MovetextStart {
    /// Byte offset of the movetext's first token in the game.
    pub offset: usize,
    /// Its line in the file.
    pub line: u32,
    /// Byte offset of the start of that line in the game (0 on the game's first line).
    pub line_start: usize,
    /// Column of the game's first byte.
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

#[cfg(test)]
mod tests {
    use super::{KnownTag, KnownTags, Lexed, Span};

    #[test]
    fn known_tags_by_exact_name() {
        // Every known tag, in the order of `KnownTags`' slots: the Seven Tag Roster first.
        let rest = [
            KnownTag::Fen,
            KnownTag::SetUp,
            KnownTag::PlyCount,
            KnownTag::Variant,
            KnownTag::Termination,
        ];
        for (slot, k) in KnownTag::ROSTER.into_iter().chain(rest).enumerate() {
            assert_eq!(KnownTag::of_bytes(k.name().as_bytes()), Some(k));
            assert_eq!(k as usize, slot, "slot order");
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
            assert_eq!(KnownTag::of_bytes(name.as_bytes()), None, "{name:?}");
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
}
