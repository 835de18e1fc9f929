//! Converting replayed games: collecting every move as the replay plays it (a
//! [`Visitor`]), turning a game's tokens into movetext elements with the moves rewritten,
//! and writing them as PGN, the Chinese book layout ([`pgn`]), JSON lines, CSV or EPD
//! ([`records`]).
//!
//! Nothing here touches the file system or the command line: writers append to a `String` or
//! an `io::Write` the caller owns.

pub mod arrow;
pub mod parquet;
pub mod pgn;
pub mod records;

use std::borrow::Cow;
use std::ops::Range;

use shakmaty::{Chess, Color, Move, Position};

use crate::diag::{Code, Severity};
use crate::notation::write::{self, Notation};
use crate::notation::{self, CheckClaim, MovePattern};
use crate::pgn::{GameResult, Lexed, TokenKind};
use crate::rules::game::GameReport;
use crate::rules::visit::{MoveAt, Needs, Positions, Visitor};

/// One replayed move, written in the target notation.
#[derive(Clone, Debug)]
pub struct Ply {
    /// Index of its token in `Lexed::tokens`.
    pub token: usize,
    /// 0 on the main line.
    pub depth: usize,
    pub mv: Move,
    /// What holds after the move.
    pub check: CheckClaim,
    /// Full-move number of the move.
    pub number: u32,
    /// White made the move.
    pub white: bool,
    /// The move in the target notation: a range of [`Collector::text`].
    pub text: Range<usize>,
    /// The illegal move as written, when `--repair` replaced it by this one.
    pub repaired_from: Option<String>,
    /// The position before the move, kept only when the output needs every notation (boxed:
    /// most outputs keep none, and a ply stays small).
    pub before: Option<Box<Chess>>,
}

/// A null move (`--`) the replay played, kept for the outputs that give every position
/// (JSON lines, CSV, EPD).
#[derive(Clone, Debug)]
pub struct NullPly {
    /// Index of its token in `Lexed::tokens`.
    pub token: usize,
    /// 0 on the main line.
    pub depth: usize,
    /// Full-move number of the null move.
    pub number: u32,
    /// White passed.
    pub white: bool,
    /// The positions before and after it (the turn passed, no en passant, the move counters
    /// advanced).
    pub before: Box<Chess>,
    pub after: Box<Chess>,
}

/// A piece of the movetext as the replay's fast path met it: it reads the bytes, without
/// tokens, so it says what it passes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Recorded {
    /// Index into [`Collector::plies`].
    Move(usize),
    /// A brace comment, braces included: bytes `start..end` of the game. (Not a
    /// [`crate::pgn::Span`]: its four fields written one by one and read back at once stalled
    /// every call.)
    Comment {
        start: u32,
        end: u32,
    },
    Nag(u16),
}

/// Collects the moves of one game as the replay plays them.
#[derive(Debug)]
pub struct Collector {
    pub notation: Notation,
    /// Keep the position before each move (JSON lines, CSV, EPD).
    pub keep_positions: bool,
    pub plies: Vec<Ply>,
    /// Null moves, in the order played; only when `keep_positions`.
    pub nulls: Vec<NullPly>,
    pub text: String,
    pending_repair: Option<String>,
    /// The replay's fast path played the game: its movetext is in `recorded`, and the plies'
    /// token indices are 0.
    fast: bool,
    recorded: Vec<Recorded>,
    /// Names the game's opening as it is replayed (`--add-eco`).
    pub eco: Option<crate::eco::EcoObserver<'static>>,
    /// SAN, UCI and FEN of the main-line plies, for the Arrow tables: only when asked for.
    pub columns: Option<Box<arrow::PlyColumns>>,
}

impl Collector {
    pub fn new(notation: Notation, keep_positions: bool) -> Collector {
        Collector {
            notation,
            keep_positions,
            plies: Vec::new(),
            nulls: Vec::new(),
            text: String::new(),
            pending_repair: None,
            fast: false,
            recorded: Vec::new(),
            eco: None,
            columns: None,
        }
    }

    /// Makes room for a game of `plies` moves: growing a ply at a time costs more.
    pub fn reserve(&mut self, plies: usize) {
        self.plies.reserve(plies);
        self.text.reserve(plies * 6);
        // A move, and often a comment or a NAG after it.
        self.recorded.reserve(plies * 2);
    }

    /// Empties the collector for the next game, keeping its allocations.
    pub fn clear(&mut self) {
        self.plies.clear();
        self.nulls.clear();
        self.text.clear();
        self.pending_repair = None;
        self.fast = false;
        self.recorded.clear();
        if let Some(eco) = &mut self.eco {
            eco.clear();
        }
        if let Some(c) = &mut self.columns {
            c.clear();
        }
    }

    /// Whether the replay's fast path played the game: [`recorded_elements`] then gives its
    /// movetext, and [`elements`] (which needs the tokens) does not.
    pub fn played_fast(&self) -> bool {
        self.fast
    }

    /// The written text of a ply.
    pub fn written(&self, ply: &Ply) -> &str {
        &self.text[ply.text.clone()]
    }
}

impl Visitor for Collector {
    fn needs(&self) -> Needs {
        Needs {
            positions: Positions::All,
            movetext: true,
            tags: false,
            main_line_only: false,
            main_moves: false,
        }
    }

    fn play(&mut self, at: MoveAt, before: &Chess, mv: Move, check: CheckClaim, san: Option<&str>) {
        if let Some(eco) = &mut self.eco {
            eco.play(at, before, mv, check, None);
        }
        let start = self.text.len();
        let notation = match self.notation {
            // The position knows whether it is Chess960 (a FEN start may make it so).
            Notation::Uci(_) => Notation::Uci(before.castles().mode()),
            n => n,
        };
        if self.fast {
            self.recorded.push(Recorded::Move(self.plies.len()));
        }
        match (notation, san) {
            // The token was canonical SAN already: copy it.
            (Notation::San, Some(san)) => self.text.push_str(san),
            _ => write::write(before, mv, check, notation, &mut self.text),
        }
        if let (0, Some(c)) = (at.depth, &mut self.columns) {
            c.push_move(before, mv, check, san);
        }
        self.plies.push(Ply {
            token: at.token,
            depth: at.depth,
            mv,
            check,
            number: before.fullmoves().get(),
            white: before.turn() == Color::White,
            text: start..self.text.len(),
            repaired_from: self.pending_repair.take(),
            before: self.keep_positions.then(|| Box::new(before.clone())),
        });
    }

    fn null_move(&mut self, at: MoveAt, before: &Chess, after: &Chess) {
        if let Some(eco) = &mut self.eco {
            eco.null_move(at, before, after);
        }
        if let (0, Some(c)) = (at.depth, &mut self.columns) {
            c.push_null(after);
        }
        if self.keep_positions {
            self.nulls.push(NullPly {
                token: at.token,
                depth: at.depth,
                number: before.fullmoves().get(),
                white: before.turn() == Color::White,
                before: Box::new(before.clone()),
                after: Box::new(after.clone()),
            });
        }
    }

    fn repaired(&mut self, _at: MoveAt, written: &str) {
        self.pending_repair = Some(written.to_string());
    }

    fn begin_movetext(&mut self, tokens: bool) {
        // From the bytes, the movetext is recorded here; from tokens, they are the record.
        self.fast = !tokens;
    }

    fn comment(&mut self, start: u32, end: u32) {
        if self.fast {
            self.recorded.push(Recorded::Comment { start, end });
        }
    }

    fn nag(&mut self, nag: u16) {
        if self.fast {
            self.recorded.push(Recorded::Nag(nag));
        }
    }

    fn restart(&mut self) {
        self.clear();
    }
}

/// True when a finding keeps a game from being written: the moves could not all be replayed,
/// the start position is unknown, or the movetext is broken. Errors about the recorded result
/// (R001–R008, R012, T003) do not: the moves are right and `--fix-results` can mend the result.
///
/// ```
/// use pgnkit::convert::blocks_output;
/// use pgnkit::diag::Code;
///
/// assert!(blocks_output(Code::IllegalMove));
/// assert!(!blocks_output(Code::ResultMismatch));
/// assert!(!blocks_output(Code::MalformedDate)); // a warning
/// ```
pub fn blocks_output(code: Code) -> bool {
    code.severity() == Severity::Error
        && !matches!(
            code,
            Code::ResultAfterCheckmate
                | Code::ResultAfterStalemate
                | Code::ResultAfterDeadPosition
                | Code::ResultAfterFivefold
                | Code::ResultAfterSeventyFive
                | Code::UnearnableWin
                | Code::ResultMismatch
                | Code::UnfinishedButOver
                | Code::UnknownResultTag
        )
}

/// True when the game cannot be written faithfully (see [`blocks_output`]).
pub fn is_rejected(report: &GameReport) -> bool {
    !report.legal || report.findings.iter().any(|f| blocks_output(f.code))
}

/// What to keep of the movetext, and whether to mend results.
#[derive(Clone, Copy, Debug, Default)]
pub struct Keep {
    pub no_comments: bool,
    pub no_nags: bool,
    pub no_variations: bool,
}

/// One piece of converted movetext.
#[derive(Clone, Debug, PartialEq)]
pub enum Element<'a> {
    /// Index into [`Collector::plies`].
    Move(usize),
    /// A null move (`--`), passed through: an index into [`Collector::nulls`] when it was
    /// played and its positions kept.
    Null(Option<usize>),
    /// A comment's text, without braces (line comments included). Owned only when the bytes
    /// were not UTF-8: then each bad sequence reads as U+FFFD ([`has_replacement`]).
    Comment(Cow<'a, str>),
    Nag(u16),
    VariationStart,
    VariationEnd,
    /// A token that could not be converted, kept as written (owned as [`Element::Comment`]).
    Raw(Cow<'a, str>),
}

/// Some element's bytes were not UTF-8 and were written with U+FFFD in their place: the
/// caller says so, so that no game is changed silently.
pub fn has_replacement(elements: &[Element<'_>]) -> bool {
    elements.iter().any(|e| {
        matches!(
            e,
            Element::Comment(Cow::Owned(_)) | Element::Raw(Cow::Owned(_))
        )
    })
}

/// The result to write, and the value of the `Result` tag.
pub fn final_result(lexed: &Lexed, report: &GameReport, fix_results: bool) -> GameResult {
    if fix_results {
        if let Some(r) = report.result_by_rule {
            return r;
        }
    }
    report
        .result_token
        .or_else(|| {
            lexed
                .tag("Result")
                .and_then(|v| GameResult::parse(v.trim().as_bytes()))
                .map(|(r, _)| r)
        })
        .unwrap_or(GameResult::Unknown)
}

/// The text of a span of `bytes`. The game is checked as UTF-8 once (a word at a time), not
/// token by token; a token's ends are ASCII, so they are character boundaries. A game with
/// bytes that are not UTF-8 (passed through undecoded: `--encoding utf-8`) is read token by
/// token, and a token that is not UTF-8 reads with U+FFFD for each bad sequence: an empty
/// comment in its place would change the game without a word.
fn span_text<'a>(bytes: &'a [u8]) -> impl Fn(u32, u32) -> Cow<'a, str> {
    let whole = std::str::from_utf8(bytes).ok();
    move |start, end| {
        let range = start as usize..end as usize;
        match whole.and_then(|w| w.get(range.clone())) {
            Some(s) => Cow::Borrowed(s),
            None => String::from_utf8_lossy(&bytes[range]),
        }
    }
}

/// A comment's text without its braces (or its `;`: `open`).
fn comment_text(s: Cow<'_, str>, open: char, close: Option<char>) -> Cow<'_, str> {
    let strip = |t: &str| -> (usize, usize) {
        let inner = t.strip_prefix(open).unwrap_or(t);
        let inner = close.and_then(|c| inner.strip_suffix(c)).unwrap_or(inner);
        let start = if t.starts_with(open) {
            open.len_utf8()
        } else {
            0
        };
        (start, start + inner.len())
    };
    match s {
        Cow::Borrowed(t) => {
            let (a, b) = strip(t);
            Cow::Borrowed(&t[a..b])
        }
        Cow::Owned(t) => {
            let (a, b) = strip(&t);
            Cow::Owned(t[a..b].to_owned())
        }
    }
}

/// [`elements`] for a game the replay's fast path played ([`Collector::played_fast`]): from
/// what it recorded, since there are no tokens. The same elements as [`elements`] gives on the
/// game's tokens (debug builds of `convert` check that on every game).
pub fn recorded_elements<'a>(
    bytes: &'a [u8],
    collector: &Collector,
    keep: Keep,
) -> Vec<Element<'a>> {
    let text = span_text(bytes);
    collector
        .recorded
        .iter()
        .filter_map(|piece| match *piece {
            Recorded::Move(i) => Some(Element::Move(i)),
            Recorded::Comment { start, end } if !keep.no_comments => Some(Element::Comment(
                comment_text(text(start, end), '{', Some('}')),
            )),
            Recorded::Nag(n) if !keep.no_nags => Some(Element::Nag(n)),
            _ => None,
        })
        .collect()
}

/// The movetext of a replayed game as elements: move tokens replaced by the collected moves,
/// move numbers and the result left out (writers put their own), trailing signs and en passant
/// marks folded into their moves, and whatever `keep` drops left out.
pub fn elements<'a>(
    bytes: &'a [u8],
    lexed: &Lexed,
    collector: &Collector,
    keep: Keep,
) -> Vec<Element<'a>> {
    let mut out = Vec::with_capacity(lexed.tokens.len());
    let mut next_ply = 0;
    let mut next_null = 0;
    let mut skipping = 0usize;
    let text = span_text(bytes);
    for (index, token) in lexed.tokens.iter().enumerate() {
        let first = next_ply;
        while next_ply < collector.plies.len() && collector.plies[next_ply].token == index {
            next_ply += 1;
        }
        if skipping > 0 {
            match token.kind {
                TokenKind::VariationStart => skipping += 1,
                TokenKind::VariationEnd => skipping -= 1,
                _ => {}
            }
            continue;
        }
        match token.kind {
            TokenKind::Move if first < next_ply => out.extend((first..next_ply).map(Element::Move)),
            TokenKind::Move => {
                let raw = &bytes[token.span.start as usize..token.span.end as usize];
                let after_move = index > 0 && lexed.tokens[index - 1].kind == TokenKind::Move;
                if after_move && notation::trailing_sign(raw).is_some() || is_en_passant_mark(raw) {
                    continue;
                }
                let mut read = Vec::new();
                match notation::read_token(raw, &mut read) {
                    Ok(()) if read.iter().all(|m| m.pattern == MovePattern::Null) => {
                        // Null moves are played in token order.
                        let nulls = &collector.nulls;
                        while next_null < nulls.len() && nulls[next_null].token < index {
                            next_null += 1;
                        }
                        let played = nulls.get(next_null).is_some_and(|n| n.token == index);
                        out.push(Element::Null(played.then_some(next_null)));
                    }
                    _ => out.push(Element::Raw(text(token.span.start, token.span.end))),
                }
            }
            TokenKind::Comment if !keep.no_comments => {
                out.push(Element::Comment(comment_text(
                    text(token.span.start, token.span.end),
                    '{',
                    Some('}'),
                )));
            }
            TokenKind::LineComment if !keep.no_comments => {
                let s = text(token.span.start, token.span.end);
                out.push(Element::Comment(comment_text(s, ';', None)));
            }
            TokenKind::Nag(n) if !keep.no_nags => out.push(Element::Nag(n)),
            TokenKind::VariationStart if keep.no_variations => skipping = 1,
            TokenKind::VariationStart => out.push(Element::VariationStart),
            TokenKind::VariationEnd => out.push(Element::VariationEnd),
            _ => {}
        }
    }
    out
}

fn is_en_passant_mark(token: &[u8]) -> bool {
    matches!(token, b"e.p." | b"ep" | b"e.p" | b"(ep)")
        || token == "吃过路兵".as_bytes()
        || token == "吃過路兵".as_bytes()
}

/// The move number prefix of a ply: `7.` for White, `7...` for Black.
pub fn number_prefix(ply: &Ply, out: &mut String) {
    push_number(ply.number, out);
    out.push_str(if ply.white { "." } else { "..." });
}

/// Appends a number's decimal digits: once per move written, so without `fmt`.
pub fn push_number(n: u32, out: &mut String) {
    let mut digits = [0u8; 10];
    let mut i = digits.len();
    let mut n = n;
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in &digits[i..] {
        out.push(char::from(d));
    }
}
