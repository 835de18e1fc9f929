//! Diagnostics as data: stable codes, severities and findings. Rendering (text, JSON, CSV)
//! lives in [`crate::report`]; this module knows nothing of files or terminals.

use std::borrow::Cow;
use std::ops::{Index, IndexMut};

use serde::Serialize;

use crate::pgn::Span;

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Facts worth knowing that are not problems (a claimable draw).
    Note,
    /// Accepted and normalised, but not as the standard writes it.
    Warning,
    /// The game is wrong: illegal move, wrong result, broken syntax.
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

macro_rules! codes {
    ($( $variant:ident = $code:literal, $sev:ident, $title:literal; )*) => {
        /// Every diagnostic pgnkit emits. Codes are stable; `docs/diagnostics.md` explains each.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Code { $( $variant, )* }

        impl Code {
            /// Every code, in documentation order.
            pub const ALL: &'static [Code] = &[ $( Code::$variant, )* ];

            /// The stable code, like `M001`.
            pub fn as_str(self) -> &'static str {
                match self { $( Code::$variant => $code, )* }
            }

            /// The default severity.
            pub fn severity(self) -> Severity {
                match self { $( Code::$variant => Severity::$sev, )* }
            }

            /// A short title.
            pub fn title(self) -> &'static str {
                match self { $( Code::$variant => $title, )* }
            }
        }
    };
}

codes! {
    // PGN syntax.
    UnterminatedTag = "P001", Error, "unterminated tag pair";
    MalformedTag = "P002", Error, "malformed tag pair";
    UnescapedQuote = "P003", Warning, "unescaped quote in tag value";
    UnterminatedComment = "P004", Error, "unterminated comment";
    UnterminatedVariation = "P005", Error, "unterminated variation";
    UnmatchedVariationEnd = "P006", Error, "')' without '('";
    MissingResult = "P007", Warning, "game without result token";
    UnexpectedToken = "P008", Error, "unexpected characters in movetext";
    ResultInVariation = "P009", Error, "result token inside a variation";
    NonStandardResult = "P010", Warning, "result written in a non-standard way";
    BadNag = "P011", Error, "malformed annotation glyph";
    GameTooLarge = "P012", Error, "game larger than the size limit";
    VariationTooDeep = "P013", Error, "variations nested too deep";
    VariationWithoutMove = "P014", Error, "variation before any move";
    MoveNumberMismatch = "P015", Warning, "move number does not match the position";
    InvalidUtf8Tag = "P016", Warning, "tag value is not UTF-8";
    TagInMovetext = "P017", Error, "tag pair inside the movetext";
    NoMoves = "P018", Note, "game without moves";
    GluedMoves = "P019", Warning, "moves glued together";
    DashedEvaluation = "P020", Warning, "'+--' or '--+' read as an evaluation";
    ForumWrapper = "P021", Warning, "game wrapped in [pgn] ... [/pgn]";
    TooLargeToConvert = "P022", Error, "game too large to convert";
    // Inputs as a whole (game 0 in reports).
    InputBreaksOff = "P025", Error, "compressed input breaks off";
    NotPgn = "P026", Error, "input is not PGN";
    BytesDoNotDecode = "P027", Error, "bytes that do not decode";
    MixedEncodings = "P028", Note, "UTF-8 mixed with another encoding";
    UnsureEncoding = "P029", Warning, "encoding guessed from little text";
    // Parquet inputs as a whole.
    ParquetUnreadable = "P030", Error, "Parquet file cannot be read";
    ParquetNoMovetext = "P031", Error, "Parquet file without a movetext column";
    ParquetRowGroupUnreadable = "P032", Error, "Parquet row group cannot be read";
    ParquetColumnType = "P033", Warning, "Parquet column with no tag text";
    ParquetTagColumnMissing = "P034", Warning, "--tag-column names no column of the file";
    RowGroupsNotParquet = "P035", Error, "--row-groups given with an input that is not Parquet";
    ParquetCellHoldsMore = "P036", Error, "Parquet movetext cell holds more than its game";
    ParquetRowWithoutGame = "P037", Error, "Parquet row without a game";
    // Tags.
    MissingRosterTag = "T001", Warning, "Seven Tag Roster tag missing";
    MalformedDate = "T002", Warning, "malformed Date tag";
    UnknownResultTag = "T003", Error, "unknown Result tag value";
    DuplicateTag = "T004", Warning, "duplicate tag";
    PlyCountMismatch = "T005", Warning, "PlyCount disagrees with the moves";
    FenWithoutSetUp = "T006", Warning, "FEN tag without SetUp \"1\"";
    InvalidFen = "T007", Error, "invalid FEN";
    UnsupportedVariant = "T008", Error, "not standard chess or Chess960";
    SetUpWithoutFen = "T009", Error, "SetUp \"1\" without FEN tag";
    // Moves.
    IllegalMove = "M001", Error, "illegal move";
    AmbiguousMove = "M002", Error, "ambiguous move";
    UnreadableMove = "M003", Error, "unreadable move";
    NullMove = "M004", Warning, "null move";
    RepairedMove = "M005", Warning, "illegal move repaired";
    // Notation normalised.
    CastlingSpelling = "N001", Warning, "castling not written O-O / O-O-O";
    LowercasePiece = "N002", Warning, "lower-case piece letter";
    MissingCaptureSign = "N003", Warning, "capture without 'x'";
    WrongCaptureSign = "N004", Warning, "capture sign on a quiet move";
    PromotionWithoutEquals = "N005", Warning, "promotion without '='";
    OverDisambiguated = "N006", Warning, "more origin than SAN needs";
    MissingCheckSign = "N007", Warning, "check or mate not marked";
    WrongCheckSign = "N008", Warning, "check or mate sign that does not fit";
    LongAlgebraic = "N009", Warning, "long algebraic notation";
    UciNotation = "N010", Warning, "UCI notation";
    OtherNotation = "N011", Warning, "non-SAN notation read";
    EcoMismatch = "N012", Note, "ECO tag disagrees with the moves";
    // Results.
    ResultAfterCheckmate = "R001", Error, "result contradicts checkmate";
    ResultAfterStalemate = "R002", Error, "result contradicts stalemate";
    ResultAfterDeadPosition = "R003", Error, "result contradicts a dead position";
    ResultAfterFivefold = "R004", Error, "result contradicts fivefold repetition";
    ResultAfterSeventyFive = "R005", Error, "result contradicts the 75-move rule";
    UnearnableWin = "R006", Error, "win the winner could not have earned";
    MovesAfterEnd = "R007", Error, "moves after checkmate or stalemate";
    ResultMismatch = "R008", Error, "Result tag and result token disagree";
    ThreefoldClaimable = "R009", Note, "threefold repetition claimable";
    FiftyMoveClaimable = "R010", Note, "fifty-move draw claimable";
    PerpetualCheck = "R011", Note, "perpetual check";
    UnfinishedButOver = "R012", Error, "'*' for a game that is over";
    MovesAfterAutomaticDraw = "R013", Warning, "moves after a dead position, fivefold repetition or 75 moves";
    UnearnableWinOffTheBoard = "R014", Warning, "forfeit or adjudicated win the winner could not have earned";
}

/// A ply as findings name it: its move number and the side that plays it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlyLabel {
    /// The full move number.
    pub number: u32,
    /// Whether White plays it.
    pub white: bool,
}

impl PlyLabel {
    /// The side that plays it, as the report formats write it: `white` or `black`.
    pub fn side(self) -> &'static str {
        if self.white {
            "white"
        } else {
            "black"
        }
    }
}

/// One problem found in a game, with its place inside the game. The outer layers add file,
/// game number and players.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub code: Code,
    pub severity: Severity,
    /// The token (or point) it is about; `None` for the game as a whole.
    pub span: Option<Span>,
    /// Move number and side of the move it is about.
    pub ply: Option<PlyLabel>,
    /// What is wrong.
    pub message: String,
    /// The likely fix.
    pub help: Option<String>,
    /// FEN of the position before the move it is about.
    pub fen: Option<String>,
    /// More facts (how many moves were skipped, the rule's article).
    pub notes: Vec<String>,
}

impl Finding {
    /// A finding of `code` at its default severity; add the fix with [`Finding::help`].
    ///
    /// ```
    /// use pgnkit::diag::{Code, Finding, Severity};
    ///
    /// let f = Finding::new(Code::MalformedDate, None, "Date \"2024.3.7\" is not in YYYY.MM.DD form")
    ///     .help("write YYYY.MM.DD, with ?? for unknown parts (2025.05.??)");
    /// assert_eq!((f.code.as_str(), f.severity), ("T002", Severity::Warning));
    /// assert!(Code::ALL.contains(&f.code));
    /// ```
    pub fn new(code: Code, span: Option<Span>, message: impl Into<String>) -> Finding {
        Finding {
            code,
            severity: code.severity(),
            span,
            ply: None,
            message: message.into(),
            help: None,
            fen: None,
            notes: Vec::new(),
        }
    }

    pub fn help(mut self, help: impl Into<String>) -> Finding {
        self.help = Some(help.into());
        self
    }

    pub fn note(mut self, note: impl Into<String>) -> Finding {
        self.notes.push(note.into());
        self
    }
}

/// Findings of one code kept for one game. A damaged game (a megabyte of stray braces, a
/// variation per move that cannot be replayed) would otherwise cost a finding, a few hundred
/// bytes of memory and of output, per byte of input; past this many only the count is kept.
pub const MAX_PER_CODE: u32 = 100;

/// How many findings of each code a game has, kept and left out ([`Capped`]).
#[derive(Clone, Debug)]
pub struct FindingCounts {
    kept: [u32; Code::ALL.len()],
    left_out: [u32; Code::ALL.len()],
}

impl Default for FindingCounts {
    fn default() -> Self {
        FindingCounts {
            kept: [0; Code::ALL.len()],
            left_out: [0; Code::ALL.len()],
        }
    }
}

impl FindingCounts {
    /// Says on the last kept finding of each capped code how many more there were. Call once,
    /// when the game's findings are complete.
    pub(crate) fn note_left_out(&self, findings: &mut [Finding]) {
        // Asked of every game, and nearly always none: one pass without a branch a code.
        if self.left_out.iter().fold(0, |any, &n| any | n) == 0 {
            return;
        }
        let mut noted = [false; Code::ALL.len()];
        for f in findings.iter_mut().rev() {
            let k = f.code as usize;
            let n = self.left_out[k];
            if n > 0 && !noted[k] {
                noted[k] = true;
                f.notes.push(format!(
                    "{n} more finding{} like this in this game not shown: at most \
                     {MAX_PER_CODE} of one code are reported per game",
                    if n == 1 { "" } else { "s" }
                ));
            }
        }
    }
}

/// A game's findings as they are collected, at most [`MAX_PER_CODE`] of each code; the rest
/// are only counted in a [`FindingCounts`] shared by every stage of the game's check.
pub struct Capped<'a> {
    list: &'a mut Vec<Finding>,
    counts: &'a mut FindingCounts,
}

impl<'a> Capped<'a> {
    pub fn new(list: &'a mut Vec<Finding>, counts: &'a mut FindingCounts) -> Self {
        Capped { list, counts }
    }

    /// Adds `f` unless its code has had [`MAX_PER_CODE`] findings already.
    pub fn push(&mut self, f: Finding) {
        self.push_index(f);
    }

    /// [`Self::push`], returning the finding's index, or `None` when it was left out.
    pub(crate) fn push_index(&mut self, f: Finding) -> Option<usize> {
        let k = f.code as usize;
        if self.counts.kept[k] >= MAX_PER_CODE {
            self.counts.left_out[k] = self.counts.left_out[k].saturating_add(1);
            return None;
        }
        self.counts.kept[k] += 1;
        self.list.push(f);
        Some(self.list.len() - 1)
    }

    /// Takes back every finding of `codes`, kept or left out, and moves each of `indices` (of
    /// findings of other codes) to where its finding is then.
    pub(crate) fn take_back(&mut self, codes: &[Code], indices: &mut [&mut usize]) {
        let taken = |f: &Finding| codes.contains(&f.code);
        for index in indices.iter_mut() {
            let i = (**index).min(self.list.len());
            **index = i - self.list[..i].iter().filter(|f| taken(f)).count();
        }
        self.list.retain(|f| !taken(f));
        for &code in codes {
            self.counts.kept[code as usize] = 0;
            self.counts.left_out[code as usize] = 0;
        }
    }

    /// Adds `note` to the last kept finding of `code` at `span`; nothing when there is none
    /// (it was left out, or taken back).
    pub(crate) fn note_on(&mut self, code: Code, span: Span, note: String) {
        if let Some(f) = self
            .list
            .iter_mut()
            .rev()
            .find(|f| f.code == code && f.span == Some(span))
        {
            f.notes.push(note);
        }
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

impl Index<usize> for Capped<'_> {
    type Output = Finding;

    fn index(&self, index: usize) -> &Finding {
        &self.list[index]
    }
}

impl IndexMut<usize> for Capped<'_> {
    fn index_mut(&mut self, index: usize) -> &mut Finding {
        &mut self.list[index]
    }
}

/// The plural ending of a count's noun in a message: "1 move", "2 moves".
pub(crate) fn plural(n: impl Into<u64>) -> &'static str {
    if n.into() == 1 {
        ""
    } else {
        "s"
    }
}

/// Bytes of a token or a value quoted at most, in a message or in a JSON or CSV `token`.
pub const QUOTE_MAX: usize = 60;

/// `token` decoded as a finding quotes it: cut after [`QUOTE_MAX`] bytes (at a character
/// boundary) and marked `…`. Only the bytes quoted are decoded: a token can be a megabyte of
/// comment.
pub fn quote_bytes(token: &[u8]) -> Cow<'_, str> {
    if token.len() <= QUOTE_MAX {
        return String::from_utf8_lossy(token);
    }
    let mut cut = QUOTE_MAX;
    while cut > QUOTE_MAX - 3 && token[cut] & 0xC0 == 0x80 {
        cut -= 1;
    }
    Cow::Owned(format!("{}…", String::from_utf8_lossy(&token[..cut])))
}

/// `text` as a finding quotes it: [`quote_bytes`] for text already decoded.
pub fn quote(text: &str) -> Cow<'_, str> {
    if text.len() <= QUOTE_MAX {
        return Cow::Borrowed(text);
    }
    let mut cut = QUOTE_MAX;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    Cow::Owned(format!("{}…", &text[..cut]))
}
