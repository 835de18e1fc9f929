//! Converting replayed games: collecting every move as the replay plays it (a
//! [`Visitor`]), turning what the replay told into movetext elements with the moves rewritten,
//! and writing them as PGN, the Chinese book layout ([`pgn`]), JSON lines, CSV or EPD
//! ([`records`]), each game through its one [`record::GameRecord`].
//!
//! The engine, [`Convert`], is made from [`ConvertOptions`] and runs over inputs; it alone
//! opens output files. The writers append to a `String` or an `io::Write` the caller owns,
//! and nothing here touches the command line.

pub mod arrow;
mod broken;
pub mod columns;
pub mod encode;
mod engine;
mod game;
pub mod layout;
pub mod numbers;
mod options;
pub mod parquet;
pub mod pgn;
pub mod players;
pub mod record;
pub mod records;
mod rewrite;

pub use engine::{Convert, RowScratch, RowSink};
pub use layout::{Layout as PgnLayout, MoveNumbers};
pub use options::{ConvertOptions, Format, ToNotation};
pub use rewrite::{roster, AddTag, FenAt, Rewrite};

use std::borrow::Cow;
use std::ops::Range;

use shakmaty::{Chess, Color, Move, Position};

use crate::diag::{Code, Severity};
use crate::notation::write::{self, Notation};
use crate::notation::{self, CheckClaim, MovePattern};
use crate::pgn::{GameResult, Lexed};
use crate::rules::game::GameReport;
use crate::rules::visit::{self, MainLine, MoveAt, Needs, NoteAt, Positions, Visitor};
use arrow::MainSan;
use numbers::PositionFromMoves;
#[cfg(debug_assertions)]
use numbers::PositionNumbers;

/// One replayed move, written in the target notation.
#[derive(Clone, Debug)]
pub struct Ply {
    /// Where its token starts in the game's bytes ([`MoveAt::start`]).
    pub start: u32,
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
    /// The positions before and after the move, kept only when the output needs every
    /// notation and the FEN after it (boxed: most outputs keep none, and a ply stays small).
    pub positions: Option<Box<Around>>,
}

/// The positions around a move: the one it is played from, and the one it makes.
#[derive(Clone, Debug)]
pub struct Around {
    pub before: Chess,
    pub after: Chess,
}

/// A null move (`--`) the replay played, kept for the outputs that give every position
/// (JSON lines, CSV, EPD).
#[derive(Clone, Debug)]
pub struct NullPly {
    /// Where its token starts in the game's bytes ([`MoveAt::start`]).
    pub start: u32,
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

/// A piece of the movetext as the replay told it, in order.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Recorded {
    /// Index into [`Collector::plies`].
    Move(usize),
    /// A comment, braces (or its `;`) included: bytes `start..end` of the game. (Not a
    /// [`crate::pgn::Span`]: its four fields written one by one and read back at once stalled
    /// every call.)
    Comment {
        start: u32,
        end: u32,
    },
    Nag(u16),
    VariationStart,
    VariationEnd,
    /// A null move played from the token at `start`: its index into [`Collector::nulls`]
    /// when they are kept.
    Null {
        start: u32,
        index: Option<usize>,
    },
    /// A move token not played: bytes `start..end`.
    Unplayed {
        start: u32,
        end: u32,
    },
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
    recorded: Vec<Recorded>,
    /// SAN, UCI and FEN of the main-line plies, for the Arrow tables: only when asked for.
    pub columns: Option<Box<arrow::PlyColumns>>,
    /// Write each move in the target notation ([`Collector::written`]): not for the Arrow
    /// tables without their movetext column, which is all that would read them.
    pub write_moves: bool,
    /// The rows keep nothing of the moves (a games table alone, without its movetext): the
    /// replay tells nothing and keeps to its bytes loop, as for `validate`, and the plies are
    /// counted from its report ([`arrow::PlyColumns::set_count`]).
    pub needs_nothing: bool,
    /// The rows keep of the moves only what the main line's moves themselves give (their
    /// numbers, the boards after them) and the main line's notes, and the movetext is written
    /// in SAN, if at all: the replay then keeps to its movetext loop and copies no position a
    /// ply, tells the moves at once after the movetext ([`Visitor::main_line`]), from which
    /// the columns keep the positions' numbers up and the movetext is written
    /// ([`pgn::write_main_line`]), and the comments and NAGs with the ply they follow
    /// ([`Needs::notes`]). A game with more than the main line to write is replayed again
    /// with every move told ([`Collector::replay_every_move`]).
    pub main_line_only: bool,
    /// With `main_line_only` and the movetext written: the game has what the main line told
    /// at once cannot write (a variation, a null move, a token not played), so it is replayed
    /// again with every move told ([`Collector::replay_every_move`]).
    cannot_write_at_once: bool,
    /// This replay tells every move, as without `main_line_only`: the game's second
    /// ([`Collector::replay_every_move`]).
    every_move: bool,
    /// For `main_line_only`: the position the game starts from, and the main line's null
    /// moves (which [`Visitor::main_line`] leaves out) by the ply they are, with the position
    /// after each.
    start_pos: Option<Chess>,
    main_nulls: Vec<(usize, Chess)>,
    /// For `main_line_only`: the main line's comments and NAGs (`Recorded::Comment`,
    /// `Recorded::Nag`), each with the count of main-line plies before it, for the rows'
    /// notes ([`Needs::notes`]).
    main_notes: Vec<(u32, Recorded)>,
    /// For `main_line_only` with the movetext written ([`Collector::keep_main_san`]): the
    /// main line's moves in SAN, each the span of its token in the game's bytes when that is
    /// its SAN, or else `None` and its SAN made in `text`, where `made_ends` says where each
    /// such ends.
    main_san: Vec<Option<(u32, u32)>>,
    made_ends: Vec<usize>,
    /// Bytes the game's moves and elements may take, as [`Collector::spent`] counts them
    /// (see [`Collector::set_budget`]).
    budget: usize,
    /// Bytes the game's moves and elements take so far, estimated.
    spent: usize,
    /// The game took more than the budget: what the replay told after that was not kept.
    over_budget: bool,
}

/// What a game is replayed with in a conversion: its collector, and beside it the classifier
/// of openings when `--add-eco` asks for one (a pair of visitors is one visitor).
pub(crate) type GameVisitor = (Collector, Option<crate::eco::EcoObserver<'static>>);

/// Bytes counted for each element kept (comment, NAG, variation start or end): its place in
/// the collector, its element, and its share of the output written.
const ELEMENT_COST: usize = 64;

/// Bytes counted for each move kept: its ply, its text, and its share of the output.
const PLY_COST: usize = 256;

/// Bytes counted on top for each move of the JSON, CSV and EPD records: the position before
/// it, its record with every notation and the FEN after it, and its JSON text (measured: a
/// game of sibling variations peaked at about 2.6 KB a move before the budget).
const RECORD_COST: usize = 2048;

impl Collector {
    pub fn new(notation: Notation, keep_positions: bool) -> Collector {
        Collector {
            notation,
            keep_positions,
            plies: Vec::new(),
            nulls: Vec::new(),
            text: String::new(),
            pending_repair: None,
            recorded: Vec::new(),
            columns: None,
            write_moves: true,
            needs_nothing: false,
            main_line_only: false,
            cannot_write_at_once: false,
            every_move: false,
            start_pos: None,
            main_nulls: Vec::new(),
            main_notes: Vec::new(),
            main_san: Vec::new(),
            made_ends: Vec::new(),
            budget: usize::MAX,
            spent: 0,
            over_budget: false,
        }
    }

    /// Keeps a game's moves and elements within about `bytes` (a game of a million
    /// variations once took gigabytes, and aborted the process when they could not be had):
    /// past it, nothing more of the game is kept and [`Collector::over_budget`] says so, for
    /// the caller to report the game instead of converting it.
    pub fn set_budget(&mut self, bytes: usize) {
        self.budget = bytes;
    }

    /// The game took more than the budget ([`Collector::set_budget`]): what was kept of it
    /// is not the whole game.
    pub fn over_budget(&self) -> bool {
        self.over_budget
    }

    /// Counts `cost` bytes more for the game: false (and nothing more is kept of it) once
    /// they pass the budget.
    fn afford(&mut self, cost: usize) -> bool {
        self.spent = self.spent.saturating_add(cost);
        self.over_budget |= self.spent > self.budget;
        !self.over_budget
    }

    /// Bytes counted for a move, or a null move, in this collector.
    fn ply_cost(&self) -> usize {
        PLY_COST + if self.keep_positions { RECORD_COST } else { 0 }
    }

    /// Makes room for a game of `plies` moves: growing a ply at a time costs more.
    pub fn reserve(&mut self, plies: usize) {
        self.plies.reserve(plies);
        self.text.reserve(plies * 6);
        // A move, and often a comment or a NAG after it.
        self.recorded.reserve(plies * 2);
        if let Some(c) = self.columns.as_deref_mut() {
            c.reserve(plies);
        }
    }

    /// Empties the collector for the next game, keeping its allocations.
    pub fn clear(&mut self) {
        self.plies.clear();
        self.nulls.clear();
        self.text.clear();
        self.pending_repair = None;
        self.recorded.clear();
        self.spent = 0;
        self.over_budget = false;
        self.main_nulls.clear();
        self.main_notes.clear();
        self.main_san.clear();
        self.made_ends.clear();
        self.start_pos = None;
        self.cannot_write_at_once = false;
        self.every_move = false;
        if let Some(c) = &mut self.columns {
            c.clear();
        }
    }

    /// Whether the main line is told at once in this replay ([`Collector::main_line_only`]).
    #[inline(always)]
    pub(crate) fn at_once(&self) -> bool {
        self.main_line_only && !self.every_move
    }

    /// Whether the game must be replayed again with every move told, because the main line
    /// told at once cannot write its movetext, or the game is `rejected` (what is written of
    /// a broken game is made from its elements); if so, the collector is emptied and set for
    /// that replay.
    pub(crate) fn replay_every_move(&mut self, rejected: bool) -> bool {
        // A game too large to keep is rejected too, once the caller knows.
        let rejected = rejected || self.over_budget;
        let broken_at_once = rejected && self.at_once() && self.write_moves;
        if !(self.cannot_write_at_once || broken_at_once) {
            return false;
        }
        self.clear();
        self.every_move = true;
        true
    }

    /// Keeps the main line's moves in SAN for the movetext written from it
    /// ([`pgn::write_main_line`]): the spans of the tokens that are their moves' SAN, and the
    /// SAN of the others made from the position before them. The game has no variation, null
    /// move or token not played (`cannot_write_at_once`).
    fn keep_main_san(&mut self, line: &MainLine<'_>) {
        self.afford(line.moves.len().saturating_mul(PLY_COST));
        if line.all_written() {
            // Every token is its SAN (lichess and TWIC write SAN so): nothing is played again.
            self.main_san.extend_from_slice(line.san);
            return;
        }
        let Some(start) = self.start_pos.as_ref() else {
            return;
        };
        let mut pos = start.clone();
        self.text.clear();
        for (i, (&mv, &gives_check)) in line.moves.iter().zip(line.checks).enumerate() {
            let written = line.san.get(i).copied().flatten();
            self.main_san.push(written);
            if written.is_some() {
                pos.play_unchecked(mv);
                continue;
            }
            let before = pos.clone();
            pos.play_unchecked(mv);
            let check = made_check(&pos, gives_check);
            // The collector's text is free: the plies are not kept.
            write::write(&before, mv, check, Notation::San, &mut self.text);
            self.made_ends.push(self.text.len());
        }
    }

    /// Notes, when the main line is told at once and the movetext written from it, that this
    /// game holds what it cannot write.
    fn not_at_once(&mut self) {
        self.cannot_write_at_once |= self.at_once() && self.write_moves;
    }

    /// The most plies or elements one of its vectors has room for: how large a game it grew
    /// for.
    pub(crate) fn room(&self) -> usize {
        let vectors = [
            self.plies.capacity(),
            self.nulls.capacity(),
            self.recorded.capacity(),
            self.main_nulls.capacity(),
            self.main_notes.capacity(),
            self.main_san.capacity(),
            self.text.capacity() / 8,
        ];
        let columns = self.columns.as_ref().map_or(0, |c| c.capacity());
        vectors.into_iter().fold(columns, usize::max)
    }

    /// Keeps an element other than a move, within the budget.
    fn element(&mut self, element: Recorded) {
        if self.afford(ELEMENT_COST) {
            self.recorded.push(element);
        }
    }

    /// Keeps a comment or a NAG: an element, or (the main line told at once) a note of the
    /// main line with the ply it follows.
    #[inline(always)]
    fn note(&mut self, at: NoteAt, note: Recorded) {
        if !self.at_once() {
            self.element(note);
        } else if at.depth == 0 && self.afford(ELEMENT_COST) {
            self.main_notes.push((at.main_plies, note));
        }
    }

    /// The written text of a ply.
    pub fn written(&self, ply: &Ply) -> &str {
        &self.text[ply.text.clone()]
    }
}

impl Visitor for Collector {
    fn needs(&self) -> Needs {
        if self.needs_nothing {
            return Needs::NOTHING;
        }
        if self.at_once() {
            let text = self.write_moves;
            return Needs {
                main_moves: true,
                // The plies' clocks, evaluations, comments and NAGs, if the rows have them,
                // and the comments and NAGs of the movetext written.
                notes: text || self.columns.as_ref().is_some_and(|c| c.has_notes()),
                // The tokens written as canonical SAN, copied into the SAN column and the
                // movetext.
                main_san: text || self.columns.as_ref().is_some_and(|c| c.keeps_text()),
                ..Needs::NOTHING
            };
        }
        Needs {
            positions: Positions::All,
            movetext: true,
            tags: false,
            main_moves: false,
            notes: false,
            main_san: false,
        }
    }

    // Inline into the pair it is replayed in beside the classifier of openings
    // ([`GameVisitor`]): a call of its own costs a move as much as the pair's.
    #[inline(always)]
    fn play(&mut self, ply: &visit::Ply<'_>) {
        // The main line comes at once (`main_line`); a move told here is one a variation
        // follows, which the rows do not keep.
        if self.at_once() || !self.afford(self.ply_cost()) {
            return;
        }
        let visit::Ply {
            at,
            before,
            after,
            mv,
            check,
            san,
        } = *ply;
        let start = self.text.len();
        let notation = match self.notation {
            // The position knows whether it is Chess960 (a FEN start may make it so).
            Notation::Uci(_) => Notation::Uci(before.castles().mode()),
            n => n,
        };
        self.recorded.push(Recorded::Move(self.plies.len()));
        match (notation, san) {
            _ if !self.write_moves => {}
            // The token was canonical SAN already: copy it.
            (Notation::San, Some(san)) => san.push_to(&mut self.text),
            _ => write::write(before, mv, check, notation, &mut self.text),
        }
        if let (0, Some(c)) = (at.depth, &mut self.columns) {
            c.push_move(before, after, mv, check, san);
        }
        self.plies.push(Ply {
            start: at.start,
            depth: at.depth,
            mv,
            check,
            number: before.fullmoves().get(),
            white: before.turn() == Color::White,
            text: start..self.text.len(),
            repaired_from: self.pending_repair.take(),
            positions: self.keep_positions.then(|| {
                Box::new(Around {
                    before: before.clone(),
                    after: after.clone(),
                })
            }),
        });
    }

    fn start(&mut self, start: &Chess) {
        if let Some(c) = &mut self.columns {
            c.set_start(start);
        }
        if self.at_once() {
            self.start_pos = Some(start.clone());
        }
    }

    fn main_line(&mut self, line: MainLine<'_>) {
        if !self.at_once() || self.cannot_write_at_once {
            return;
        }
        if self.write_moves {
            self.keep_main_san(&line);
        }
        let (Some(c), Some(start)) = (self.columns.as_deref_mut(), self.start_pos.as_ref()) else {
            return;
        };
        if !c.has_moves() {
            // A games table alone: its rows keep the count of plies.
            c.set_count(line.moves.len() + self.main_nulls.len());
            return;
        }
        c.reserve(line.moves.len() + self.main_nulls.len());
        let text = c.keeps_text();
        let mut nulls = self.main_nulls.iter().peekable();
        let mut moves = line.moves.iter().zip(line.checks).enumerate();
        // The numbers are kept up from the moves and the checks the replay found: the line is
        // not played again, unless a move's token is not its canonical SAN (rare: lichess and
        // TWIC write SAN so), whose SAN is then made from the position before it.
        let mut pos = c.keeps_positions().then(|| PositionFromMoves::new(start));
        // The side to move: what a ply's row needs when no position is kept.
        let mut white = start.turn().is_white();
        let mut line_pos = (text && !line.all_written()).then(|| start.clone());
        #[cfg(debug_assertions)]
        let mut played = start.clone();
        for ply in 0.. {
            if let Some((_, after)) = nulls.next_if(|(at, _)| *at == ply) {
                c.push_null(after);
                white = after.turn().is_white();
                if let Some(pos) = pos.as_mut() {
                    *pos = PositionFromMoves::new(after);
                }
                if let Some(p) = line_pos.as_mut() {
                    p.clone_from(after);
                }
                #[cfg(debug_assertions)]
                {
                    played = after.clone();
                }
                continue;
            }
            let Some((i, (&mv, &gives_check))) = moves.next() else {
                break;
            };
            if let Some(pos) = pos.as_mut() {
                pos.play(mv);
            }
            #[cfg(debug_assertions)]
            {
                played.play_unchecked(mv);
                if let Some(pos) = &pos {
                    debug_assert_eq!(*pos.numbers(), PositionNumbers::of(&played), "{mv:?}");
                }
                debug_assert_eq!(gives_check, played.is_check(), "{mv:?}");
            }
            let mut check = if gives_check {
                CheckClaim::Check
            } else {
                CheckClaim::None
            };
            let written = if text { line.written_san(i) } else { None };
            // The position before a move whose SAN is made, not copied.
            let mut before = None;
            if let Some(p) = line_pos.as_mut() {
                if written.is_none() {
                    before = Some(p.clone());
                }
                p.play_unchecked(mv);
                if before.is_some() {
                    check = made_check(p, gives_check);
                }
            }
            let san = written
                .map(MainSan::Written)
                .or(before.as_ref().map(MainSan::Before));
            let after = pos.as_ref().map(PositionFromMoves::numbers);
            c.push_played(start, mv, check, white, after, san);
            white = !white;
        }
    }

    fn null_move(&mut self, at: MoveAt, before: &Chess, after: &Chess) {
        self.not_at_once();
        if self.at_once() {
            if let (0, Some(start)) = (at.depth, &self.start_pos) {
                // The plies before it, from the move numbers (null moves count them too).
                let half = |p: &Chess| 2 * p.fullmoves().get() + u32::from(p.turn().is_black());
                let ply = half(before).saturating_sub(half(start)) as usize;
                self.main_nulls.push((ply, after.clone()));
            }
            return;
        }
        if !self.afford(self.ply_cost()) {
            return;
        }
        if let (0, Some(c)) = (at.depth, &mut self.columns) {
            c.push_null(after);
        }
        let index = self.keep_positions.then_some(self.nulls.len());
        self.recorded.push(Recorded::Null {
            start: at.start,
            index,
        });
        if self.keep_positions {
            self.nulls.push(NullPly {
                start: at.start,
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

    fn unplayed(&mut self, at: MoveAt) {
        self.not_at_once();
        self.element(Recorded::Unplayed {
            start: at.start,
            end: at.end,
        });
    }

    // Inline, as `play`: a lichess game has a comment (a clock) a ply.
    #[inline(always)]
    fn comment(&mut self, at: NoteAt, start: u32, end: u32) {
        self.note(at, Recorded::Comment { start, end });
    }

    fn nag(&mut self, at: NoteAt, nag: u16) {
        self.note(at, Recorded::Nag(nag));
    }

    fn begin_variation(&mut self) {
        self.not_at_once();
        self.element(Recorded::VariationStart);
    }

    fn end_variation(&mut self) {
        self.element(Recorded::VariationEnd);
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
    span_text_of(bytes, std::str::from_utf8(bytes).ok())
}

/// [`span_text`] of `bytes`, which are `whole` when they are UTF-8.
fn span_text_of<'a>(bytes: &'a [u8], whole: Option<&'a str>) -> impl Fn(u32, u32) -> Cow<'a, str> {
    move |start, end| {
        let range = start as usize..end as usize;
        match whole.and_then(|w| w.get(range.clone())) {
            Some(s) => Cow::Borrowed(s),
            None => String::from_utf8_lossy(&bytes[range]),
        }
    }
}

/// A comment's text without its braces (or its `;`: `open`).
#[inline(always)]
fn comment_text(s: Cow<'_, str>, open: u8, close: Option<u8>) -> Cow<'_, str> {
    // ASCII delimiters: bytes compared, and the text cut at character boundaries.
    let strip = |t: &str| -> (usize, usize) {
        let bytes = t.as_bytes();
        let start = usize::from(bytes.first() == Some(&open));
        let closed = close.is_some() && bytes.len() > start && bytes.last() == close.as_ref();
        (start, bytes.len() - usize::from(closed))
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

/// The comment at bytes `start..end` as an element: its text without its braces (or `;`).
/// Inlined: a ply's comment (a clock) passes here on every ply of a lichess game.
#[inline(always)]
fn comment_element<'a>(
    text: &impl Fn(u32, u32) -> Cow<'a, str>,
    start: u32,
    end: u32,
) -> Element<'a> {
    let s = text(start, end);
    Element::Comment(if s.starts_with(';') {
        comment_text(s, b';', None)
    } else {
        comment_text(s, b'{', Some(b'}'))
    })
}

/// A note of the main line told at once ([`read_main_notes`]).
pub(crate) enum MainNote<'a> {
    /// A brace comment that holds a clock alone, or an evaluation and a clock, as lichess
    /// writes them (`{ [%clk 0:04:58] }`, `{ [%eval 0.17] [%clk 0:04:58] }`): its text trimmed,
    /// read at once ([`records::lichess_notes`]).
    Read(&'a str, f64, Option<records::Eval>),
    /// Any other comment, or a NAG.
    Element(Element<'a>),
}

/// The main line's comments and NAGs as notes, each with the count of main-line plies
/// before it, when the main line was told at once ([`Collector::main_line_only`]); those
/// `keep` drops left out.
pub(crate) fn read_main_notes<'a>(
    bytes: &'a [u8],
    collector: &'a Collector,
    keep: Keep,
) -> impl Iterator<Item = (u32, MainNote<'a>)> + 'a {
    let whole = std::str::from_utf8(bytes).ok();
    let text = span_text_of(bytes, whole);
    collector
        .main_notes
        .iter()
        .filter_map(move |&(plies, ref note)| match *note {
            Recorded::Comment { start, end } if !keep.no_comments => {
                let raw = whole.and_then(|w| w.get(start as usize..end as usize));
                if let Some((text, secs, eval)) = raw.and_then(lichess_comment) {
                    return Some((plies, MainNote::Read(text, secs, eval)));
                }
                Some((plies, MainNote::Element(comment_element(&text, start, end))))
            }
            Recorded::Nag(n) if !keep.no_nags => Some((plies, MainNote::Element(Element::Nag(n)))),
            _ => None,
        })
}

/// A brace comment's text, trimmed, its clock and its evaluation, when it holds them alone as
/// lichess writes them: what [`comment_element`], [`trim`] and [`records::read_notes`] would
/// make of it, read at once.
fn lichess_comment(raw: &str) -> Option<(&str, f64, Option<records::Eval>)> {
    // Bytes compared: the generic patterns cost more than the rest of the note.
    let b = raw.as_bytes();
    if b.len() < 2 || b[0] != b'{' || b[b.len() - 1] != b'}' {
        return None;
    }
    // Such notes start and end with brackets, which no other trim passes.
    let inner = raw[1..raw.len() - 1].trim_ascii();
    let (secs, eval) = records::lichess_notes(inner)?;
    Some((inner, secs, eval))
}

/// Bytes the main line's comments take at most in a row's notes text
/// ([`Collector::main_line_only`]).
pub(crate) fn main_comments_len(collector: &Collector) -> usize {
    let len = |note: &Recorded| match *note {
        Recorded::Comment { start, end } => (end - start) as usize + 1,
        _ => 0,
    };
    collector.main_notes.iter().map(|(_, n)| len(n)).sum()
}

/// The movetext of a replayed game as elements, from what the replay told the collector:
/// the moves as the collected plies (written anew), move numbers and the result left out
/// (writers put their own), tokens that were not played kept as written (en passant marks
/// folded into their moves), and whatever `keep` drops left out.
pub fn elements<'a>(bytes: &'a [u8], collector: &Collector, keep: Keep) -> Vec<Element<'a>> {
    elements_until(bytes, collector, keep, u32::MAX)
}

/// [`elements`] of the movetext before byte `until` of the game: what was told of the tokens
/// that start there or after is left out (`--keep-broken` writes the moves before an error).
pub(crate) fn elements_until<'a>(
    bytes: &'a [u8],
    collector: &Collector,
    keep: Keep,
    until: u32,
) -> Vec<Element<'a>> {
    let text = span_text(bytes);
    // A token some of whose moves were played gives those moves alone (the plies come in the
    // order of their tokens).
    let played = |start: u32| {
        collector
            .plies
            .binary_search_by_key(&start, |p| p.start)
            .is_ok()
    };
    let mut out = Vec::with_capacity(collector.recorded.len());
    let mut skipping = 0usize;
    let mut last_null = None;
    for piece in &collector.recorded {
        if skipping > 0 {
            match piece {
                Recorded::VariationStart => skipping += 1,
                Recorded::VariationEnd => skipping -= 1,
                _ => {}
            }
            continue;
        }
        let start = match *piece {
            Recorded::Move(i) => collector.plies[i].start,
            Recorded::Comment { start, .. }
            | Recorded::Null { start, .. }
            | Recorded::Unplayed { start, .. } => start,
            Recorded::Nag(_) | Recorded::VariationStart | Recorded::VariationEnd => 0,
        };
        if start >= until {
            break;
        }
        match *piece {
            Recorded::Move(i) => out.push(Element::Move(i)),
            Recorded::Comment { start, end } if !keep.no_comments => {
                out.push(comment_element(&text, start, end));
            }
            Recorded::Nag(n) if !keep.no_nags => out.push(Element::Nag(n)),
            Recorded::VariationStart if keep.no_variations => skipping = 1,
            Recorded::VariationStart => out.push(Element::VariationStart),
            Recorded::VariationEnd => out.push(Element::VariationEnd),
            // Null moves glued in one token are one element.
            Recorded::Null { start, index } => {
                if !played(start) && last_null != Some(start) {
                    out.push(Element::Null(index));
                }
                last_null = Some(start);
            }
            Recorded::Unplayed { start, end } => {
                let raw = &bytes[start as usize..end as usize];
                if played(start) || is_en_passant_mark(raw) {
                    continue;
                }
                let mut read = Vec::new();
                match notation::read_token(raw, &mut read) {
                    Ok(()) if read.iter().all(|m| m.pattern == MovePattern::Null) => {
                        out.push(Element::Null(None));
                    }
                    _ => out.push(Element::Raw(text(start, end))),
                }
            }
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

/// `text` without whitespace at its ends, as `str::trim` gives it: ASCII whitespace first,
/// byte by byte, and the rest only when what is left at an end may be whitespace still: a
/// character past ASCII, or a vertical tab, which `trim_ascii` keeps. (`str::trim` decodes a
/// character at each end, which cost more than the rest of a clock's note or comment.)
pub(crate) fn trim(text: &str) -> &str {
    let t = text.trim_ascii();
    let may_be_space = |b: &u8| *b >= 0x80 || *b == 0x0b;
    let bytes = t.as_bytes();
    if bytes.first().is_some_and(may_be_space) || bytes.last().is_some_and(may_be_space) {
        t.trim()
    } else {
        t
    }
}

/// The check sign of a move whose SAN is made from the position before it, in the position
/// `after` it: the replay found whether it gives check; mate is told apart here, for the moves
/// that give check only.
fn made_check(after: &Chess, gives_check: bool) -> CheckClaim {
    match (gives_check, gives_check && after.is_checkmate()) {
        (false, _) => CheckClaim::None,
        (true, false) => CheckClaim::Check,
        (true, true) => CheckClaim::Mate,
    }
}

/// The move number prefix of a ply: `7.` for White, `7...` for Black. Once per move written,
/// so without `fmt`.
pub fn number_prefix(number: u32, white: bool, out: &mut String) {
    // Digits a character at a time below 1000 (every game but a few): a copy of one to three
    // bytes is a call, and formatting costs more than the rest of the move.
    let digit = |d: u32| char::from(b'0' + d as u8);
    match number {
        0..=9 => out.push(digit(number)),
        10..=99 => {
            out.push(digit(number / 10));
            out.push(digit(number % 10));
        }
        100..=999 => {
            out.push(digit(number / 100));
            out.push(digit(number / 10 % 10));
            out.push(digit(number % 10));
        }
        _ => out.push_str(itoa::Buffer::new().format(number)),
    }
    out.push('.');
    if !white {
        out.push('.');
        out.push('.');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lichess_notes_are_read_at_once_as_any_comment_is() {
        // (comment, read at once)
        let comments = [
            ("{ [%clk 0:04:58] }", true),
            ("{ [%eval 0.17] [%clk 0:04:58] }", true),
            ("{ [%eval 0.17] [%clk 0:04:58] } ", false),
            ("{[%clk 1:02:03]}", true),
            ("{ [%clk 0:04:58]\n}", true),
            ("{ [%clk 0:04:58.5] }", false),
            ("{ [%clk 0:04:58] [%eval 0.31] }", false),
            ("{\t[%eval #4]\n[%clk 0:04:58] }", false),
            ("{\u{b}[%clk 0:00:01]}", false),
            ("{ [%clk  0:00:01] }", false),
            ("{ [%clk 0:00:01] é }", false),
            ("{}", false),
            ("; [%clk 0:00:01]", false),
        ];
        for (raw, at_once) in comments {
            let bytes = raw.as_bytes();
            let Element::Comment(text) = comment_element(&span_text(bytes), 0, raw.len() as u32)
            else {
                panic!("{raw:?} is a comment");
            };
            let text = trim(&text);
            let (mut clock, mut eval) = (None, None);
            records::read_notes(text, true, &mut clock, &mut eval);
            let fast = lichess_comment(raw);
            assert_eq!(fast.is_some(), at_once, "{raw:?}");
            if let Some((fast_text, secs, fast_eval)) = fast {
                assert_eq!(
                    (fast_text, Some(secs), fast_eval),
                    (text, clock, eval),
                    "{raw:?}"
                );
            }
        }
    }

    #[test]
    fn trim_is_str_trim() {
        let ends = [
            "",
            " ",
            "\t",
            "\n\r",
            "\x0b",
            "\x0c",
            "\u{3000}",
            "\u{a0}",
            " \u{2003} ",
            "\x0b ",
            "é",
            "a",
            "}",
        ];
        for a in ends {
            for z in ends {
                for middle in ["", "x", " ", "[%clk 0:01:00]", "\u{3000}y"] {
                    let text = format!("{a}{middle}{z}");
                    assert_eq!(trim(&text), text.trim(), "{text:?}");
                }
            }
        }
    }
}
