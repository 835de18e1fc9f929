//! Checking one game: tags, syntax problems, every move (variations too) replayed through
//! shakmaty, repetition and move counters on the main line, and the result by rule reconciled
//! with the `Result` tag and the result token.

use std::borrow::Cow;

use shakmaty::{
    zobrist::Zobrist64, Bitboard, CastlingMode, Chess, Color, EnPassantMode, FromSetup, Move,
    Position,
};

use crate::diag::{quote_bytes, Capped, Code, Finding, FindingCounts, Severity};
use crate::notation::{self, CheckClaim, MovePattern, Notes, ReadMove};
use crate::pgn::book;
use crate::pgn::lexer::{
    count_chars, count_lines, last_line_start, move_number, nag_glyph, DELIMITER,
};
use crate::pgn::split::{self, Comment};
use crate::pgn::{
    lex_game_at, GameResult, KnownTag, KnownTags, LexProblemKind, Lexed, MovetextStart, Span,
    TokenKind,
};
use crate::rules::adjudicate::{self, DeadSearch, Insufficient};
use crate::rules::ending::{adjudicate, start_ended, unreplayed_result, Ended};
use crate::rules::explain::{explain_illegal, fen, san, shown_move, suffix};
use crate::rules::matcher::{self, MatchError};
use crate::rules::start::start_position;
use crate::rules::tags::{lex_findings, tag_findings};
use crate::rules::visit::{MoveAt, Needs, Positions, Visitor};

/// How to check.
#[derive(Clone, Copy, Debug)]
pub struct CheckOptions {
    /// Lenient notation is an error, not a warning.
    pub strict: bool,
    pub insufficient: Insufficient,
    pub dead_search: DeadSearch,
    /// Deepest variation nesting replayed.
    pub max_depth: usize,
    /// Piece letters of another language (`--lang`); never guessed.
    pub lang: Option<notation::Lang>,
    /// Replace an illegal move by the one legal move the suggestion rules find, when there is
    /// exactly one (reported as M005, a warning).
    pub repair: bool,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            strict: false,
            insufficient: Insufficient::Helpmate,
            dead_search: DeadSearch::Fast,
            max_depth: 256,
            lang: None,
            repair: false,
        }
    }
}

/// How a game ended by rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Termination {
    Checkmate,
    Stalemate,
    DeadPosition,
    Fivefold,
    SeventyFive,
    /// No rule ended the game (resignation, time, agreement, or unfinished).
    None,
}

impl Termination {
    pub fn as_str(self) -> &'static str {
        match self {
            Termination::Checkmate => "checkmate",
            Termination::Stalemate => "stalemate",
            Termination::DeadPosition => "dead position",
            Termination::Fivefold => "fivefold repetition",
            Termination::SeventyFive => "seventy-five moves",
            Termination::None => "none",
        }
    }
}

/// What the check of one game found out.
#[derive(Clone, Debug)]
pub struct GameReport {
    /// `standard`, `chess960`, or the unsupported variant's name (borrowed for the first two:
    /// no allocation per game).
    pub variant: Cow<'static, str>,
    /// Every main-line move matched exactly one legal move (warnings allowed).
    pub legal: bool,
    /// Main-line plies replayed.
    pub plies: u32,
    /// The position after the last replayed main-line move (`None` when the game could not
    /// start: unsupported variant, bad FEN).
    pub final_position: Option<Chess>,
    pub result_tag: Option<String>,
    pub result_token: Option<GameResult>,
    /// The one result the rules allow, when they decide it.
    pub result_by_rule: Option<GameResult>,
    pub termination: Termination,
    /// Main-line ply (1-based) at which the terminating event happened.
    pub termination_ply: Option<u32>,
    /// First ply at which a threefold repetition could be claimed.
    pub threefold_ply: Option<u32>,
    /// First ply at which a fifty-move draw could be claimed.
    pub fifty_ply: Option<u32>,
    /// The repetition that ended or could end the game came from perpetual check.
    pub perpetual_check: bool,
    pub findings: Vec<Finding>,
}

impl GameReport {
    /// FEN after the last replayed main-line move.
    pub fn final_fen(&self) -> Option<String> {
        self.final_position.as_ref().map(fen)
    }

    pub fn count(&self, severity: Severity) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity == severity)
            .count()
    }
}

/// A line that stopped being replayed: at a move that could not be, or where the game ended
/// by rule.
#[derive(Clone, Copy, Debug)]
struct Broken {
    /// The finding that stopped it, which gets a note of the moves skipped; `None` when there
    /// is none (the game ended by rule, or the finding was left out past the cap).
    finding: Option<usize>,
    /// Moves skipped since.
    skipped: u32,
}

/// One line of play being replayed: the main line or a variation.
struct Line {
    pos: Chess,
    /// The pieces giving check in `pos`, once known: found after each move for its check
    /// sign, and used again to match the next move.
    checkers: Option<Bitboard>,
    /// Position before the last move of this line: where a variation that replaces that move
    /// starts. `None` before the first move or after a move that could not be replayed.
    before_last: Option<Chess>,
    /// Set once the line is no longer replayed.
    broken: Option<Broken>,
    main: bool,
    /// Move number written before the next move, checked against the position.
    pending_number: Option<(u32, u8, Span)>,
}

/// State kept for the main line only: repetition and the events that end a game.
struct MainState {
    /// Zobrist hash of the current main-line position relative to the first position since
    /// the last irreversible move: that position's full hash XORed out (see
    /// [`reversible_hash_step`]). Positions before it can never come back, so comparing these
    /// within `history` decides exactly as comparing full hashes would.
    hash: Zobrist64,
    /// Debug builds only: the full hash of the position `hash` is relative to, to check the
    /// incremental update against shakmaty's hash on every move.
    run_start: Zobrist64,
    /// Hashes since the last irreversible move, with whether the move into each gave check.
    history: Vec<(Zobrist64, bool)>,
    plies: u32,
    ended: Option<Ended>,
    moves_after_end: u32,
    first_after_end: Option<(Span, PlyLabel)>,
    threefold_ply: Option<u32>,
    fifty_ply: Option<u32>,
    perpetual_check: bool,
}

/// The growable buffers of one game's replay, kept for the next game on the same thread: a
/// game then allocates nothing to be replayed.
#[derive(Default)]
struct ReplayBuffers {
    history: Vec<(Zobrist64, bool)>,
    lines: Vec<Line>,
    read_buf: Vec<ReadMove>,
}

thread_local! {
    static SPARE_BUFFERS: std::cell::RefCell<ReplayBuffers> = Default::default();
}

impl ReplayBuffers {
    /// The buffers the last replay on this thread gave back, empty.
    fn take() -> Self {
        SPARE_BUFFERS.with_borrow_mut(std::mem::take)
    }

    /// Gives the buffers back for the next replay. A game whose replay gave up (the fast path
    /// hands it on) simply does not give them back.
    fn give_back(mut self) {
        // What one huge game grew is not kept for all the games after it.
        const KEEP: usize = 1 << 12;
        if self.history.capacity() > KEEP {
            self.history = Vec::new();
        }
        if self.lines.capacity() > KEEP / 64 {
            self.lines = Vec::new();
        }
        self.history.clear();
        self.lines.clear();
        self.read_buf.clear();
        SPARE_BUFFERS.set(self);
    }
}

impl MainState {
    /// Starts the relative hash again at `pos`, after which no earlier position can come back.
    #[inline]
    fn restart_hash(&mut self, pos: &Chess) {
        self.hash = Zobrist64::default();
        if cfg!(debug_assertions) {
            self.run_start = pos.zobrist_hash(EnPassantMode::Legal);
        }
    }
}

/// Checks one game and tells `visitor` what it replays: the one entry point of the replay.
///
/// `lexed` is the game lexed whole ([`crate::pgn::lex_game`]) or lexed to its tags
/// ([`crate::pgn::lex_game_tags`]); a movetext of plain SAN is then replayed straight from
/// the bytes, without tokens, when the visitor [needs](crate::rules::visit::Needs) no token
/// indices. The report is the same either way. A Chinese book header (header lines instead
/// of tags) is read as the game's tags.
///
/// ```
/// use pgnkit::pgn::{lex_game, Lexed};
/// use pgnkit::rules::game::{check_game, CheckOptions, Termination};
/// use pgnkit::rules::visit::NoVisitor;
///
/// let pgn = b"[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n";
/// let mut lexed = Lexed::default();
/// lex_game(pgn, true, 1, &mut lexed);
/// let report = check_game(pgn, &lexed, &CheckOptions::default(), &mut NoVisitor);
/// assert!(report.legal);
/// assert_eq!(report.plies, 7);
/// assert_eq!(report.termination, Termination::Checkmate);
/// ```
pub fn check_game(
    bytes: &[u8],
    lexed: &Lexed,
    opts: &CheckOptions,
    visitor: &mut dyn Visitor,
) -> GameReport {
    if book::may_hold_header(lexed) {
        let mut with_header = lexed.clone();
        if book::extract_header(bytes, &mut with_header) {
            return check_game_lexed(bytes, &with_header, opts, visitor);
        }
    }
    check_game_lexed(bytes, lexed, opts, visitor)
}

/// [`check_game`] on a game whose book header, if any, is read already.
pub(crate) fn check_game_lexed(
    bytes: &[u8],
    lexed: &Lexed,
    opts: &CheckOptions,
    visitor: &mut dyn Visitor,
) -> GameReport {
    check_game_tags_with(bytes, lexed, opts, visitor, true)
}

/// Checks a game lexed whole, replaying its tokens.
pub(crate) fn check_tokens(
    bytes: &[u8],
    lexed: &Lexed,
    opts: &CheckOptions,
    visitor: &mut dyn Visitor,
) -> GameReport {
    // With tokens the check always finishes: only the fast path gives up.
    check(bytes, lexed, opts, visitor, Movetext::Tokens)
        .map_or_else(|| new_report(&KnownTags::of(lexed)), |(report, _)| report)
}

/// [`check_game_lexed`] without trying the fast path: for a game it has already given up
/// on, through [`check_game_open_with`]. The report is the same.
pub(crate) fn check_game_general_with(
    bytes: &[u8],
    lexed: &Lexed,
    opts: &CheckOptions,
    visitor: &mut dyn Visitor,
) -> GameReport {
    check_game_tags_with(bytes, lexed, opts, visitor, false)
}

/// A game lexed by [`crate::pgn::lex_game_tags`] (or whole), checked by the fast path first
/// when `try_fast`. The fast path is taken only for a visitor of the main line
/// ([`Needs::main_line_only`]) or of the movetext ([`Needs::movetext`]); when it gives up,
/// the visitor is told to [restart](Visitor::restart) before the general replay.
fn check_game_tags_with(
    bytes: &[u8],
    lexed: &Lexed,
    opts: &CheckOptions,
    visitor: &mut dyn Visitor,
    try_fast: bool,
) -> GameReport {
    let Some(movetext) = lexed.movetext else {
        return check_tokens(bytes, lexed, opts, visitor);
    };
    let plain = try_fast && fast_path_fits(lexed, opts, visitor);
    let fast = plain
        .then(|| check(bytes, lexed, opts, visitor, Movetext::Plain(movetext)))
        .flatten()
        .map(|(report, _)| report);
    #[cfg(debug_assertions)]
    if let Some(fast) = &fast {
        assert_general_agrees(fast, bytes, movetext, opts);
    }
    fast.unwrap_or_else(|| {
        if plain {
            visitor.restart();
        }
        check_tokens(bytes, &lex_whole(bytes, movetext), opts, visitor)
    })
}

/// The fast path of [`check_game_lexed`] on a game whose end is not known yet: `rest`
/// holds the game from its first byte and runs on past it (to the end of a reader's buffer;
/// `eof` when nothing follows), and `lexed` has its tags, from
/// [`crate::pgn::lex_game_tags_open`]. A plain movetext ends with its result token, so the
/// replay finds where the game ends: returns the report and the game's length, the same
/// report [`check_game_lexed`] gives on exactly those bytes. `None` when the fast path
/// gives up: the caller then finds the game's end the usual way and checks it so; an
/// visitor has then seen moves and is told to [restart](Visitor::restart).
pub(crate) fn check_game_open_with(
    rest: &[u8],
    eof: bool,
    lexed: &Lexed,
    opts: &CheckOptions,
    visitor: &mut dyn Visitor,
) -> Option<(GameReport, usize)> {
    let movetext = lexed.movetext?;
    if !fast_path_fits(lexed, opts, visitor) {
        return None;
    }
    let Some((report, len)) = check(rest, lexed, opts, visitor, Movetext::Open(movetext, eof))
    else {
        visitor.restart();
        return None;
    };
    #[cfg(debug_assertions)]
    assert_general_agrees(&report, &rest[..len], movetext, opts);
    Some((report, len))
}

/// Whether the fast path may replay this game: the visitor follows the main line only (or
/// takes the movetext from the fast path, [`Needs::movetext`]), the moves are in
/// English SAN, and whatever comes before the movetext is tags.
fn fast_path_fits(lexed: &Lexed, opts: &CheckOptions, visitor: &dyn Visitor) -> bool {
    let needs = visitor.needs();
    (needs.main_line_only || needs.movetext)
        && opts.lang.is_none_or(|l| l == notation::Lang::En)
        && lexed
            .tokens
            .iter()
            .all(|t| matches!(t.kind, TokenKind::Tag(_)))
}

/// Debug builds: the fast path's report on `bytes` is the general path's.
#[cfg(debug_assertions)]
fn assert_general_agrees(
    fast: &GameReport,
    bytes: &[u8],
    movetext: MovetextStart,
    opts: &CheckOptions,
) {
    let general = check_tokens(
        bytes,
        &lex_whole(bytes, movetext),
        opts,
        &mut crate::rules::visit::NoVisitor,
    );
    assert_eq!(
        format!("{fast:?}"),
        format!("{general:?}"),
        "the replay's fast path differs from the general one on {:?}",
        String::from_utf8_lossy(bytes)
    );
}

/// A report with nothing found yet.
fn new_report(known: &KnownTags) -> GameReport {
    GameReport {
        variant: Cow::Borrowed("standard"),
        legal: true,
        plies: 0,
        final_position: None,
        result_tag: known.value(KnownTag::Result).map(str::to_owned),
        result_token: None,
        result_by_rule: None,
        termination: Termination::None,
        termination_ply: None,
        threefold_ply: None,
        fifty_ply: None,
        perpetual_check: false,
        findings: Vec::new(),
    }
}

/// A game lexed by [`crate::pgn::lex_game_tags`] (tags, and where its movetext starts),
/// lexed whole, tokens and all: what the general path replays when the fast path does not,
/// token for token.
pub(crate) fn lex_whole(bytes: &[u8], movetext: MovetextStart) -> Lexed {
    let mut lexed = Lexed::default();
    lex_game_at(
        bytes,
        true,
        movetext.first_line,
        movetext.first_col,
        &mut lexed,
    );
    lexed
}

/// Where the movetext comes from.
#[derive(Clone, Copy)]
enum Movetext {
    /// The lexed tokens.
    Tokens,
    /// The bytes from this place on, read by the fast path.
    Plain(MovetextStart),
    /// Like `Plain`, but the bytes run on past the game (to the end of a reader's buffer):
    /// the game ends with its result token. `eof`: nothing follows the bytes.
    Open(MovetextStart, bool),
}

impl Movetext {
    /// Where the fast path starts, if it reads this movetext.
    fn plain(self) -> Option<MovetextStart> {
        match self {
            Movetext::Tokens => None,
            Movetext::Plain(at) | Movetext::Open(at, _) => Some(at),
        }
    }
}

/// Lines and columns of the fast path's spans, found after the replay. The fast path gives
/// its spans line 0 (no real line is 0) and no column: only a span that ends up in a report
/// needs them, and a clean game has none. [`place_spans`] then counts lines and characters
/// as the lexer does, in one pass over the movetext.
const UNPLACED: u32 = 0;

/// Gives every unplaced span its line and column as the lexer counts them: lines by their
/// breaks (`\n`, `\r\n`, `\r`), columns in characters from the start of the line.
fn place_spans(bytes: &[u8], at: MovetextStart, spans: &mut [&mut Span]) {
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

/// Bytes that end a symbol for the fast path: the lexer's delimiters, and any non-ASCII byte
/// (which the fast path leaves to the lexer).
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

/// The fast path met something it leaves to the general path (a variation, a comment it
/// does not read, a token it does not know): the game is checked again the general way.
#[derive(Debug)]
struct GaveUp;

/// What the end of a check needs to know of the movetext's tokens.
struct MovetextFacts {
    has_move: bool,
    /// The (last) result token.
    result_span: Option<Span>,
    /// Where the game ends in the bytes.
    end: usize,
}

/// The check of one game, and where the game ends in `bytes` (their length unless the
/// movetext is [`Movetext::Open`]). `None` when the fast path met something it leaves to the
/// general one (only with [`Movetext::Plain`] or [`Movetext::Open`]).
fn check(
    bytes: &[u8],
    lexed: &Lexed,
    opts: &CheckOptions,
    visitor: &mut dyn Visitor,
    movetext: Movetext,
) -> Option<(GameReport, usize)> {
    let needs = visitor.needs();
    if needs.tags {
        for tag in lexed.tags() {
            visitor.tag(tag);
        }
    }
    visitor.tags_done();
    let checked = check_movetext(bytes, lexed, opts, visitor, needs, movetext)?;
    visitor.result(checked.0.result_token);
    visitor.end_game();
    Some(checked)
}

/// [`check`] after the tag events.
fn check_movetext(
    bytes: &[u8],
    lexed: &Lexed,
    opts: &CheckOptions,
    visitor: &mut dyn Visitor,
    needs: Needs,
    movetext: Movetext,
) -> Option<(GameReport, usize)> {
    // Every tag the checks read, found in one pass.
    let known = KnownTags::of(lexed);
    let mut report = new_report(&known);
    let mut counts = FindingCounts::default();
    lex_findings(lexed, &mut Capped::new(&mut report.findings, &mut counts));
    if lexed
        .problems
        .iter()
        .any(|p| p.kind == LexProblemKind::GameTooLarge)
    {
        report.legal = false;
        counts.note_left_out(&mut report.findings);
        return match movetext {
            Movetext::Open(..) => None,
            _ => Some((report, bytes.len())),
        };
    }
    tag_findings(
        lexed,
        &known,
        &mut Capped::new(&mut report.findings, &mut counts),
    );

    let start = match start_position(&known, &mut report) {
        Some(pos) => pos,
        None if movetext.plain().is_some() => return None,
        None => {
            // Without a start position no move can be replayed; a game without moves has
            // nothing illegal in it.
            report.legal = !lexed.tokens.iter().any(|t| t.kind == TokenKind::Move);
            unreplayed_result(lexed, &mut report);
            counts.note_left_out(&mut report.findings);
            return Some((report, bytes.len()));
        }
    };
    let buffers = ReplayBuffers::take();
    let tell_moves = visitor.wants_main_moves();
    let mut replay = Replay {
        bytes,
        keep_positions: needs.positions != Positions::None || tell_moves,
        tell_moves,
        position_plies: needs.positions.plies(),
        main_moves_told: 0,
        record_movetext: needs.movetext,
        visitor,
        token_index: 0,
        variation_follows: false,
        opts,
        findings: Capped::new(&mut report.findings, &mut counts),
        main: MainState {
            hash: Zobrist64::default(),
            run_start: Zobrist64::default(),
            history: buffers.history,
            plies: 0,
            ended: start_ended(&known, &start, opts),
            moves_after_end: 0,
            first_after_end: None,
            threefold_ply: None,
            fifty_ply: None,
            perpetual_check: false,
        },
        lines: buffers.lines,
        skipped_depth: 0,
        read_buf: buffers.read_buf,
        result_token: None,
        main_broken: false,
        chinese_game: matches!(movetext, Movetext::Tokens)
            && lexed.tokens.iter().any(|t| {
                t.kind == TokenKind::Move
                    && bytes[t.span.start as usize..t.span.end as usize]
                        .iter()
                        .any(|&b| b >= 0x80)
            }),
        chinese_moves: 0,
    };
    replay.main.restart_hash(&start);
    replay.main.history.push((replay.main.hash, false));
    replay.lines.push(Line {
        pos: start,
        checkers: None,
        before_last: None,
        broken: None,
        main: true,
        pending_number: None,
    });
    let facts = match movetext {
        Movetext::Tokens => {
            replay.run(lexed);
            MovetextFacts {
                has_move: lexed.tokens.iter().any(|t| t.kind == TokenKind::Move),
                result_span: lexed
                    .tokens
                    .iter()
                    .rev()
                    .find(|t| matches!(t.kind, TokenKind::Result { .. }))
                    .map(|t| t.span),
                end: bytes.len(),
            }
        }
        Movetext::Plain(at) => replay.run_plain(at, None).ok()?,
        Movetext::Open(at, eof) => replay.run_plain(at, Some(eof)).ok()?,
    };
    let Replay {
        mut main,
        mut lines,
        read_buf,
        result_token,
        main_broken,
        chinese_moves,
        ..
    } = replay;
    if chinese_moves > 0 {
        report.findings.push(
            Finding::new(
                Code::OtherNotation,
                None,
                format!("{chinese_moves} move{} in Chinese (or other non-SAN) notation were read as SAN", plural(chinese_moves)),
            )
            .help("pgnkit convert --to san writes the game in standard PGN"),
        );
    }
    let main_line = lines.swap_remove(0);
    ReplayBuffers {
        history: std::mem::take(&mut main.history),
        lines,
        read_buf,
    }
    .give_back();
    report.legal = !main_broken;
    report.plies = main.plies;
    report.result_token = result_token;
    report.threefold_ply = main.threefold_ply;
    report.fifty_ply = main.fifty_ply;
    report.perpetual_check = main.perpetual_check;
    report.final_position = Some(main_line.pos.clone());
    let has_tag = lexed
        .tokens
        .iter()
        .any(|t| matches!(t.kind, TokenKind::Tag(_)));
    if main.plies == 0 && !facts.has_move && has_tag {
        report.findings.push(Finding::new(
            Code::NoMoves,
            None,
            "the game has tags but no moves",
        ));
    }
    if let Some(tag) = known.get(KnownTag::PlyCount) {
        match tag.value.trim().parse::<u32>() {
            Ok(n) if n == main.plies || !report.legal => {}
            Ok(n) => report.findings.push(
                Finding::new(
                    Code::PlyCountMismatch,
                    Some(tag.span),
                    format!(
                        "PlyCount says {n} but the main line has {} plies",
                        main.plies
                    ),
                )
                .help(format!("set [PlyCount \"{}\"]", main.plies)),
            ),
            Err(_) => report.findings.push(
                Finding::new(
                    Code::PlyCountMismatch,
                    Some(tag.span),
                    format!("PlyCount \"{}\" is not a number", tag.value),
                )
                .help(format!("set [PlyCount \"{}\"]", main.plies)),
            ),
        }
    }
    if let Some((span, ply)) = main.first_after_end {
        let (term, at) = main
            .ended
            .as_ref()
            .map_or((Termination::None, 0), |e| (e.termination, e.ply));
        let code = match term {
            Termination::Checkmate | Termination::Stalemate => Code::MovesAfterEnd,
            _ => Code::MovesAfterAutomaticDraw,
        };
        // A start position that is already over (a FEN) ends the game at ply 0.
        let when = if at == 0 {
            "before its first move".to_string()
        } else {
            format!("after ply {at}")
        };
        let mut f = Finding::new(
            code,
            Some(span),
            format!(
                "the game was over {when} ({}), but {} more move{} {} recorded",
                term.as_str(),
                main.moves_after_end,
                plural(main.moves_after_end),
                if main.moves_after_end == 1 {
                    "was"
                } else {
                    "were"
                },
            ),
        )
        .help("delete the moves after the end, or check the earlier moves for a misprint");
        f.ply = Some(ply.into());
        report.findings.push(f);
    }
    adjudicate(
        &main_line.pos,
        main.ended,
        &known,
        facts.result_span,
        opts,
        &mut report,
    );
    if let Some(at) = movetext.plain() {
        let mut spans: Vec<&mut Span> = report
            .findings
            .iter_mut()
            .filter_map(|f| f.span.as_mut())
            .filter(|s| s.line == UNPLACED)
            .collect();
        if !spans.is_empty() {
            place_spans(&bytes[..facts.end], at, &mut spans);
        }
    }
    counts.note_left_out(&mut report.findings);
    Some((report, facts.end))
}

fn plural(n: u32) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

struct Replay<'a> {
    bytes: &'a [u8],
    visitor: &'a mut dyn Visitor,
    /// The visitor wants the position before some moves ([`Needs::positions`]), or every
    /// main-line move (`tell_moves`): either takes the path that tells the visitor.
    keep_positions: bool,
    /// The visitor wants every main-line move, without a position past those it asked for
    /// ([`Visitor::wants_main_moves`]).
    tell_moves: bool,
    /// Main-line moves before which it wants the position ([`Positions::First`]).
    position_plies: u32,
    /// Main-line moves told to the visitor so far.
    main_moves_told: u32,
    /// The visitor is told the movetext's comments and NAGs ([`Needs::movetext`]).
    record_movetext: bool,
    /// Index of the token being replayed.
    token_index: usize,
    /// A variation starts right after the token being replayed.
    variation_follows: bool,
    opts: &'a CheckOptions,
    findings: Capped<'a>,
    main: MainState,
    lines: Vec<Line>,
    /// Variations opened beyond the depth limit and not yet closed.
    skipped_depth: usize,
    read_buf: Vec<ReadMove>,
    result_token: Option<GameResult>,
    main_broken: bool,
    /// The game has moves in Chinese (or other non-ASCII) notation.
    chinese_game: bool,
    /// Moves read in that notation.
    chinese_moves: u32,
}

impl Replay<'_> {
    /// Where the token being replayed is, at `depth`.
    fn at(&self, depth: usize) -> MoveAt {
        MoveAt {
            token: self.token_index,
            depth,
        }
    }

    fn run(&mut self, lexed: &Lexed) {
        self.visitor.begin_movetext(true);
        let mut tokens = lexed.tokens.iter().enumerate().peekable();
        while let Some((index, token)) = tokens.next() {
            self.token_index = index;
            match token.kind {
                TokenKind::Move => {
                    // A sign standing alone after a move (`11.后f5-f7 ×`) belongs to it.
                    let sign = match tokens.peek() {
                        Some((_, next)) if next.kind == TokenKind::Move => {
                            let b = &self.bytes[next.span.start as usize..next.span.end as usize];
                            may_be_sign(b)
                                .then(|| notation::trailing_sign(b))
                                .flatten()
                                .map(|s| (s, next.span))
                        }
                        _ => None,
                    };
                    if sign.is_some() {
                        tokens.next();
                    }
                    self.variation_follows = tokens.clone().map(|(_, t)| t.kind).find(|k| {
                        !matches!(
                            k,
                            TokenKind::Comment
                                | TokenKind::LineComment
                                | TokenKind::Escape
                                | TokenKind::Nag(_)
                                | TokenKind::MoveNumber { .. }
                        )
                    }) == Some(TokenKind::VariationStart);
                    if self.skipped_depth == 0 {
                        self.move_token(token.span, sign);
                    }
                }
                TokenKind::MoveNumber { number, dots } => {
                    if self.skipped_depth == 0 {
                        if let Some(line) = self.lines.last_mut() {
                            line.pending_number = Some((number, dots, token.span));
                        }
                    }
                }
                TokenKind::VariationStart => self.start_variation(token.span),
                TokenKind::VariationEnd => self.end_variation(),
                TokenKind::Result { result, .. } => {
                    if self.lines.len() == 1 && self.skipped_depth == 0 {
                        self.result_token = Some(result);
                    }
                }
                // A `[` the lexer reported already (P002, P017), with the tag it starts.
                TokenKind::Unknown if self.bytes.get(token.span.start as usize) == Some(&b'[') => {}
                TokenKind::Unknown => {
                    let text = quote_bytes(
                        &self.bytes[token.span.start as usize..token.span.end as usize],
                    );
                    self.findings.push(
                        Finding::new(
                            Code::UnexpectedToken,
                            Some(token.span),
                            format!("unexpected '{}' in the movetext", text.escape_debug()),
                        )
                        .help("remove it, or put commentary inside { braces }"),
                    );
                }
                TokenKind::Nag(nag) if self.record_movetext => self.visitor.nag(nag),
                TokenKind::Comment if self.record_movetext => {
                    self.visitor.comment(token.span.start, token.span.end);
                }
                TokenKind::Tag(_)
                | TokenKind::Nag(_)
                | TokenKind::Comment
                | TokenKind::LineComment
                | TokenKind::Escape => {}
            }
        }
        while self.lines.len() > 1 {
            self.end_variation();
        }
        self.close_line_note(0);
    }

    /// The fast path of the replay: the main line of a movetext of strict SAN moves, move
    /// numbers, brace comments and NAGs ending in a standard result, read straight from the
    /// bytes with the places the lexer would give (line, and column in characters). Anything
    /// else, and any move that cannot be played, gives up (`Err`): the game is then replayed
    /// the general way from the start. What it accepts, the lexer reads without a problem.
    ///
    /// With `open` (`Some(eof)`) the bytes run on past the game: it ends with its result
    /// token, which must not touch the end of the bytes unless `eof` (more bytes could make
    /// it another symbol).
    fn run_plain(
        &mut self,
        at: MovetextStart,
        open: Option<bool>,
    ) -> Result<MovetextFacts, GaveUp> {
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
        if self.record_movetext {
            self.visitor.begin_movetext(false);
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
            let &b = bytes.get(i).ok_or(GaveUp)?;
            match b {
                b'{' => {
                    // A comment left open, or one the lexer may end at a tag line inside it,
                    // is for the general path.
                    let Comment::Closed { close, .. } = split::comment(&bytes[i + 1..]) else {
                        return Err(GaveUp);
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
                        return Err(GaveUp);
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
                    self.variation_follows = false;
                    if !self.play_main(&m, span(i, i + len)) {
                        return Err(GaveUp);
                    }
                    facts.has_move = true;
                    i += len;
                }
                b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'*' => {
                    let mut end = i;
                    while end < n && !SYMBOL_END[usize::from(bytes[end])] {
                        end += 1;
                    }
                    if end < n && bytes[end] >= 0x80 {
                        return Err(GaveUp);
                    }
                    if end - i > crate::pgn::lexer::MAX_SYMBOL {
                        return Err(GaveUp);
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
                                return Err(GaveUp);
                            }
                            let m = notation::ascii::plain_san(mv).ok_or(GaveUp)?;
                            self.variation_follows = false;
                            if !self.play_main(&m, span(start, mv_end)) {
                                return Err(GaveUp);
                            }
                            if self.record_movetext {
                                if let Some(nag) = nag_glyph(&bytes[mv_end..end]) {
                                    self.visitor.nag(nag);
                                }
                            }
                            facts.has_move = true;
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
                            _ => return Err(GaveUp),
                        };
                        match open {
                            // The result ends the game: nothing may follow it.
                            None => {
                                if bytes[end..].iter().any(|b| !b.is_ascii_whitespace()) {
                                    return Err(GaveUp);
                                }
                            }
                            Some(eof) => {
                                if end == n && !eof {
                                    return Err(GaveUp);
                                }
                                facts.end = end;
                            }
                        }
                        self.result_token = Some(result);
                        facts.result_span = Some(span(start, end));
                        self.close_line_note(0);
                        return Ok(facts);
                    }
                }
                _ => return Err(GaveUp),
            }
        }
    }

    /// Plays a main-line move of the fast path: without anything only other moves need, unless
    /// the visitor wants positions. Inline in the fast path's loop, which then makes no call
    /// per ply but to the matcher and shakmaty (2% of the time on TWIC and lichess).
    #[inline(always)]
    fn play_main(&mut self, m: &ReadMove, span: Span) -> bool {
        if self.keep_positions && !self.main_moves_alone() {
            self.play_main_keeping(m, span)
        } else {
            self.play_inline::<false>(0, m, span)
        }
    }

    /// Past the positions it asked for, a visitor told of main moves alone
    /// (`Visitor::main_move`): it is told on the inline path too.
    #[inline(always)]
    fn main_moves_alone(&self) -> bool {
        self.tell_moves && self.main_moves_told >= self.position_plies
    }

    /// [`Self::play_main`] for a visitor that wants positions: out of the fast path's line.
    #[inline(never)]
    fn play_main_keeping(&mut self, m: &ReadMove, span: Span) -> bool {
        self.play::<true>(0, m, span)
    }

    fn start_variation(&mut self, span: Span) {
        if self.skipped_depth > 0 || self.lines.len() > self.opts.max_depth {
            if self.skipped_depth == 0 {
                self.findings.push(
                    Finding::new(
                        Code::VariationTooDeep,
                        Some(span),
                        format!(
                            "variations nested deeper than {} levels are not replayed",
                            self.opts.max_depth
                        ),
                    )
                    .help("check for unbalanced parentheses"),
                );
            }
            self.skipped_depth += 1;
            return;
        }
        let parent = self.lines.last().expect("the main line is always there");
        let start = parent.before_last.clone();
        let broken = if start.is_none() {
            let f = if parent.broken.is_some() {
                Finding::new(
                    Code::VariationWithoutMove,
                    Some(span),
                    "this variation replaces a move that could not be replayed, so it is not replayed either",
                )
            } else {
                Finding::new(
                    Code::VariationWithoutMove,
                    Some(span),
                    "a variation must follow the move it replaces",
                )
                .help("move the variation after the move it is an alternative to")
            };
            Some(Broken {
                finding: self.findings.push_index(f),
                skipped: 0,
            })
        } else {
            None
        };
        let pos = start.unwrap_or_else(|| parent.pos.clone());
        self.lines.push(Line {
            pos,
            checkers: None,
            before_last: None,
            broken,
            main: false,
            pending_number: None,
        });
        self.visitor.begin_variation();
    }

    fn end_variation(&mut self) {
        if self.skipped_depth > 0 {
            self.skipped_depth -= 1;
            return;
        }
        if self.lines.len() > 1 {
            let last = self.lines.len() - 1;
            self.close_line_note(last);
            self.lines.pop();
            self.visitor.end_variation();
        }
    }

    /// Adds "n moves not replayed" to the finding that broke the line.
    fn close_line_note(&mut self, line: usize) {
        if let Some(Broken {
            finding: Some(index),
            skipped,
        }) = self.lines[line].broken
        {
            if skipped > 0 && index < self.findings.len() {
                let what = if self.lines[line].main {
                    "the main line"
                } else {
                    "this variation"
                };
                self.findings[index].notes.push(format!(
                    "{skipped} later move{} of {what} could not be replayed",
                    plural(skipped)
                ));
            }
        }
    }

    fn move_token(&mut self, span: Span, sign: Option<(notation::TrailingSign, Span)>) {
        let depth = self.lines.len() - 1;
        let token = &self.bytes[span.start as usize..span.end as usize];
        if self.lines[depth].broken.is_some() {
            // The note counts moves, not tokens: a token of glued moves (`Nf3Nf6`) is read to
            // count them; one that cannot be read counts as one.
            let moves = if is_en_passant_mark(token) {
                0
            } else {
                match notation::read_token_with(token, self.opts.lang, &mut self.read_buf) {
                    Ok(()) => self.read_buf.len().max(1),
                    Err(_) => 1,
                }
            };
            if let Some(Broken { skipped, .. }) = self.lines[depth].broken.as_mut() {
                *skipped = skipped.saturating_add(u32::try_from(moves).unwrap_or(u32::MAX));
            }
            self.visitor.unplayed(self.at(depth));
            return;
        }
        if is_en_passant_mark(token) {
            return;
        }
        let mut moves = std::mem::take(&mut self.read_buf);
        match notation::read_token_with(token, self.opts.lang, &mut moves) {
            Ok(()) => {
                if let (Some((sign, sign_span)), Some(last)) = (sign, moves.last_mut()) {
                    sign.apply_to(last);
                    last.end = (sign_span.end - span.start).min(u32::from(u16::MAX)) as u16;
                }
                if moves.len() > 1 && token.is_ascii() {
                    self.glued_moves(token, span, &moves);
                }
                for (i, m) in moves.iter().enumerate() {
                    let sub = Span {
                        start: span.start + u32::from(m.start),
                        end: span.start + u32::from(m.end),
                        line: span.line,
                        col: span.col + count_chars(&token[..usize::from(m.start)]),
                    };
                    if !self.play::<true>(depth, m, sub) {
                        // The moves glued after it in the token are not replayed either.
                        let rest = u32::try_from(moves.len() - i - 1).unwrap_or(u32::MAX);
                        if let Some(Broken { skipped, .. }) = self.lines[depth].broken.as_mut() {
                            *skipped = skipped.saturating_add(rest);
                        }
                        self.visitor.unplayed(self.at(depth));
                        break;
                    }
                }
            }
            Err(e) => {
                let line = &self.lines[depth];
                let mut f = Finding::new(
                    Code::UnreadableMove,
                    Some(span),
                    format!("cannot read '{}' as a move: {e}", quote_bytes(token)),
                )
                .help("write the move in SAN (Nf3, exd5, O-O, e8=Q)");
                f.ply = Some(ply_label(&line.pos).into());
                f.fen = Some(fen(&line.pos));
                self.break_line(depth, f, None);
                self.visitor.unplayed(self.at(depth));
            }
        }
        self.read_buf = moves;
    }

    /// Reports a token of SAN moves glued together (`Nf3Nc6`), read as the moves. (Chinese
    /// records glue moves by custom: they are not reported.)
    #[cold]
    fn glued_moves(&mut self, token: &[u8], span: Span, moves: &[ReadMove]) {
        // A move's end can reach past the token: a check sign written apart (`Nf3Nf6 +`) is
        // part of the last move, so the moves are cut from the game's bytes, not the token's.
        let at = span.start as usize;
        let apart: Vec<String> = moves
            .iter()
            .map(|m| {
                let text = self
                    .bytes
                    .get(at + usize::from(m.start)..at + usize::from(m.end))
                    .unwrap_or_default();
                String::from_utf8_lossy(text).into_owned()
            })
            .collect();
        let mut f = Finding::new(
            Code::GluedMoves,
            Some(span),
            format!(
                "'{}' holds {} moves glued together, read as {}",
                quote_bytes(token),
                moves.len(),
                apart.join(" ")
            ),
        )
        .help(format!("write them apart: {}", apart.join(" ")));
        f.ply = Some(ply_label(&self.lines[self.lines.len() - 1].pos).into());
        if self.opts.strict {
            f.severity = Severity::Error;
        }
        self.findings.push(f);
    }

    fn break_line(&mut self, depth: usize, finding: Finding, before: Option<Chess>) {
        let index = self.findings.push_index(finding);
        let line = &mut self.lines[depth];
        line.broken = Some(Broken {
            finding: index,
            skipped: 0,
        });
        // A variation after the failed move replaces it, so it starts where that move would.
        line.before_last = before;
        if line.main {
            self.main_broken = true;
        }
    }

    /// Plays one read move on line `depth`. Returns false when the line breaks.
    ///
    /// `ANY` is false for the fast path ([`Replay::run_plain`]): the main line, a move of
    /// strict SAN, no visitor and no variation. The compiler then leaves out what only other
    /// moves need.
    fn play<const ANY: bool>(&mut self, depth: usize, m: &ReadMove, span: Span) -> bool {
        self.play_inline::<ANY>(depth, m, span)
    }

    /// [`Self::play`], inline: in the fast path's loop only.
    #[inline(always)]
    fn play_inline<const ANY: bool>(&mut self, depth: usize, m: &ReadMove, span: Span) -> bool {
        debug_assert!(
            ANY || (depth == 0
                && (!self.keep_positions || self.main_moves_alone())
                && !self.variation_follows),
            "the fast path plays main-line moves only"
        );
        let line = &mut self.lines[depth];
        let label = ply_label(&line.pos);
        if let Some((number, dots, nspan)) = line.pending_number.take() {
            if number != label.number || (dots == 3 && label.white) {
                self.move_number_mismatch(number, dots, nspan, label);
            }
        }
        let line = &mut self.lines[depth];
        if ANY && m.pattern == MovePattern::Null {
            return self.play_null(depth, span, label);
        }
        let checkers = line.checkers.unwrap_or_else(|| line.pos.checkers());
        // The two ways to the move each go on to `played` (inline for the fast path): merged
        // into one value first, the move was read back from memory in other widths than it
        // was written, a stall on every ply.
        match matcher::find_move_fast(&line.pos, m, checkers) {
            Some(mv) => self.played::<ANY>(depth, m, span, label, mv, Default::default()),
            None => self.play_slow::<ANY>(depth, m, span, label, checkers),
        }
    }

    /// [`Self::play`] for a move the inline fast path did not find.
    #[inline(never)]
    fn play_slow<const ANY: bool>(
        &mut self,
        depth: usize,
        m: &ReadMove,
        span: Span,
        label: PlyLabel,
        checkers: Bitboard,
    ) -> bool {
        match self.find_move_slow(depth, m, span, label, checkers) {
            Some((mv, mnotes)) => self.played::<ANY>(depth, m, span, label, mv, mnotes),
            None => false,
        }
    }

    /// [`Self::play`] once the move is known.
    #[inline(always)]
    fn played<const ANY: bool>(
        &mut self,
        depth: usize,
        m: &ReadMove,
        span: Span,
        label: PlyLabel,
        mv: Move,
        mnotes: matcher::MatchNotes,
    ) -> bool {
        let bytes = self.bytes;
        let token_text = || span_text(bytes, span);
        let is_main = !ANY || self.lines[depth].main;
        if is_main && self.main.ended.is_some() {
            self.after_end(span, label);
        }
        if m.notes.0 != 0 || mnotes != matcher::MatchNotes::default() {
            self.notation_findings(m, &mnotes, &mv, &token_text(), span, label, depth);
        }

        let line = &mut self.lines[depth];
        let mut irreversible = false;
        if is_main {
            irreversible = line.pos.legal_ep_square().is_some() || changes_for_good(&line.pos, mv);
            if !irreversible {
                self.main.hash = reversible_hash_step(line.pos.turn(), mv, self.main.hash);
            }
        }
        // The position before the move is kept only when something needs it: a variation
        // that follows (it starts there) or the visitor. Cloning it on every ply is the
        // single largest cost of a replay.
        let keep_before = ANY
            && ((self.keep_positions && self.main_moves_told < self.position_plies)
                || self.variation_follows);
        line.before_last = keep_before.then(|| line.pos.clone());
        line.pos.play_unchecked(mv);
        if is_main {
            if irreversible {
                // No earlier position can come back: hashes start again from this one.
                self.main.restart_hash(&line.pos);
            }
            debug_assert_eq!(
                self.main.hash ^ self.main.run_start,
                line.pos.zobrist_hash(EnPassantMode::Legal),
                "incremental hash after {mv:?}"
            );
        }
        let checkers = line.pos.checkers();
        line.checkers = Some(checkers);
        let gives_check = checkers.any();
        let actual = if gives_check {
            if !matcher::king_can_step(&line.pos) && line.pos.legal_moves().is_empty() {
                CheckClaim::Mate
            } else {
                CheckClaim::Check
            }
        } else {
            CheckClaim::None
        };
        if m.check != actual {
            self.check_sign(m, actual, &token_text(), span, label);
        }
        if let Some(before) = self.lines[depth].before_last.as_ref().filter(|_| ANY) {
            // Strict SAN as written (no lenient form, the right signs) is the canonical SAN.
            let text = &self.bytes[span.start as usize..span.end as usize];
            let full_origin = match m.pattern {
                MovePattern::Normal(n) => n.from_file.is_some() && n.from_rank.is_some(),
                _ => false,
            };
            let canonical = m.notes.0 == 0
                && mnotes == matcher::MatchNotes::default()
                && m.check == actual
                && !full_origin
                && text.first() != Some(&b'P')
                && text
                    .iter()
                    .all(|&b| matches!(b, b'a'..=b'h' | b'1'..=b'8' | b'K' | b'Q' | b'R' | b'B' | b'N' | b'O' | b'x' | b'=' | b'+' | b'#' | b'-'));
            let san = canonical.then(|| std::str::from_utf8(text).ok()).flatten();
            let at = MoveAt {
                token: self.token_index,
                depth,
            };
            self.visitor.play(at, before, mv, actual, san);
            self.main_moves_told += u32::from(depth == 0);
        } else if depth == 0 && self.tell_moves {
            self.visitor.main_move(mv);
        }
        if is_main {
            self.main_ply(
                depth,
                mv,
                irreversible,
                gives_check,
                actual == CheckClaim::Mate,
            );
        }
        true
    }

    /// The move `m` stands for, when the inline fast path has not found it: the full matcher,
    /// then a repair if asked for. `None` when the line breaks here (reported). Apart from
    /// [`Self::play_slow`], which is compiled for each `ANY`, so that this is compiled once.
    #[inline(never)]
    fn find_move_slow(
        &mut self,
        depth: usize,
        m: &ReadMove,
        span: Span,
        label: PlyLabel,
        checkers: Bitboard,
    ) -> Option<(Move, matcher::MatchNotes)> {
        let line = &self.lines[depth];
        let is_main = line.main;
        let mut found = matcher::find_move_noting(&line.pos, m, checkers);
        if self.opts.repair
            && found == Err(MatchError::Illegal)
            && !(is_main && self.main.ended.is_some())
        {
            if let Some(repaired) = self.repair(depth, m, span, label) {
                found = Ok(repaired);
            }
        }
        match found {
            Ok(x) => Some(x),
            Err(err) => {
                self.unplayable(depth, m, span, label, err);
                None
            }
        }
    }

    /// Reports a move number that does not fit the move after it.
    #[cold]
    fn move_number_mismatch(&mut self, number: u32, dots: u8, nspan: Span, label: PlyLabel) {
        let expected = if label.white {
            format!("{}.", label.number)
        } else {
            format!("{}...", label.number)
        };
        let mut f = Finding::new(
            Code::MoveNumberMismatch,
            Some(nspan),
            format!(
                "move number {number}{} does not fit: this is {expected}",
                if dots == 3 { "..." } else { "." }
            ),
        )
        .help(format!("write {expected}"));
        f.ply = Some(label.into());
        self.findings.push(f);
    }

    /// A null move (`--`, `Z0`): the turn passes.
    #[cold]
    fn play_null(&mut self, depth: usize, span: Span, label: PlyLabel) -> bool {
        let bytes = self.bytes;
        let token_text = || span_text(bytes, span);
        let is_main = self.lines[depth].main;
        let line = &mut self.lines[depth];
        if line.pos.is_check() {
            let mut f = Finding::new(
                Code::IllegalMove,
                Some(span),
                "a null move is impossible while in check",
            );
            f.ply = Some(label.into());
            f.fen = Some(fen(&line.pos));
            let before = line.pos.clone();
            self.break_line(depth, f, Some(before));
            return false;
        }
        let before = line.pos.clone();
        // Pass the turn and count the move as played, so move numbers stay right.
        let mut setup = before.to_setup(EnPassantMode::Legal);
        setup.ep_square = None;
        setup.halfmoves = setup.halfmoves.saturating_add(1);
        if before.turn() == Color::Black {
            setup.fullmoves = setup.fullmoves.saturating_add(1);
        }
        setup.turn = !before.turn();
        match Chess::from_setup(setup, CastlingMode::Chess960) {
            Ok(p) => {
                line.pos = p;
                line.checkers = None;
            }
            Err(_) => return false,
        }
        line.before_last = Some(before);
        if self.keep_positions {
            let line = &self.lines[depth];
            if let Some(before) = &line.before_last {
                let at = MoveAt {
                    token: self.token_index,
                    depth,
                };
                self.visitor.null_move(at, before, &line.pos);
            }
        }
        let mut f = Finding::new(
            Code::NullMove,
            Some(span),
            format!(
                "'{}' is a null move: the turn passes without a move",
                token_text()
            ),
        )
        .note("null moves are used in analysis; they are not legal chess moves");
        f.ply = Some(label.into());
        self.findings.push(f);
        if is_main {
            self.main.plies += 1;
            self.main.restart_hash(&self.lines[depth].pos);
            self.main.history.clear();
            self.main.history.push((self.main.hash, false));
        }
        true
    }

    /// With `--repair`, the one legal move an illegal move most likely meant, reported.
    #[cold]
    fn repair(
        &mut self,
        depth: usize,
        m: &ReadMove,
        span: Span,
        label: PlyLabel,
    ) -> Option<(Move, matcher::MatchNotes)> {
        let bytes = self.bytes;
        let token_text = || span_text(bytes, span);
        let pos = &self.lines[depth].pos;
        let token = token_text();
        let suggestions = matcher::suggest(pos, m, &token);
        if let [only] = suggestions[..] {
            let shown = shown_move(pos, m, &token, &only);
            let mut f = Finding::new(
                Code::RepairedMove,
                Some(span),
                format!("'{token}' is not a legal move; read as {shown}"),
            )
            .help(format!("correct the score to {shown}"));
            f.ply = Some(label.into());
            f.fen = Some(fen(pos));
            self.findings.push(f);
            self.visitor.repaired(self.at(depth), &token);
            return Some((only, matcher::MatchNotes::default()));
        }
        None
    }

    /// A move that fits no legal move (or several): the line breaks here.
    #[cold]
    fn unplayable(
        &mut self,
        depth: usize,
        m: &ReadMove,
        span: Span,
        label: PlyLabel,
        err: MatchError,
    ) -> bool {
        let bytes = self.bytes;
        let token_text = || span_text(bytes, span);
        let is_main = self.lines[depth].main;
        if is_main {
            if let Some(Ended {
                termination: term, ..
            }) = &self.main.ended
            {
                if matches!(term, Termination::Checkmate | Termination::Stalemate) {
                    // The game was already over; R007 reports it.
                    self.after_end(span, label);
                    // Break without a finding of its own: R007 sums these up.
                    let before = self.lines[depth].pos.clone();
                    self.lines[depth].broken = Some(Broken {
                        finding: None,
                        skipped: 0,
                    });
                    self.lines[depth].before_last = Some(before);
                    return false;
                }
            }
            if self.main.ended.is_none() && self.lines[depth].pos.legal_moves().is_empty() {
                let pos = self.lines[depth].pos.clone();
                {
                    let term = if pos.is_check() {
                        Termination::Checkmate
                    } else {
                        Termination::Stalemate
                    };
                    self.main.ended = Some(Ended {
                        termination: term,
                        ply: self.main.plies,
                        pos: pos.clone(),
                    });
                    self.after_end(span, label);
                    let before = pos;
                    self.lines[depth].broken = Some(Broken {
                        finding: None,
                        skipped: 0,
                    });
                    self.lines[depth].before_last = Some(before);
                    return false;
                }
            }
        }
        let pos = &self.lines[depth].pos;
        let f = self.match_failure(pos, m, &token_text(), span, label, err);
        let before = pos.clone();
        self.break_line(depth, f, Some(before));
        false
    }

    fn after_end(&mut self, span: Span, label: PlyLabel) {
        self.main.moves_after_end += 1;
        if self.main.first_after_end.is_none() {
            self.main.first_after_end = Some((span, label));
        }
    }

    /// Repetition, move counters and game-ending events after a main-line ply.
    #[inline(always)]
    fn main_ply(&mut self, depth: usize, mv: Move, irreversible: bool, check: bool, mate: bool) {
        self.main.plies += 1;
        let ply = self.main.plies;
        if irreversible {
            self.main.history.clear();
        }
        self.main.history.push((self.main.hash, check));
        if self.main.ended.is_some() {
            return;
        }
        let pos = &self.lines[depth].pos;
        if mate {
            self.main.ended = Some(Ended {
                termination: Termination::Checkmate,
                ply,
                pos: pos.clone(),
            });
            return;
        }
        // A position can only become dead after a capture or a pawn move (material or the pawn
        // structure changed); the solver is consulted only past a cheap screen.
        if irreversible_material(&mv)
            && adjudicate::is_dead(pos, self.opts.insufficient, self.opts.dead_search)
        {
            // Stalemate comes before the dead position in the order of events (5.2.1).
            let term = if pos.legal_moves().is_empty() {
                Termination::Stalemate
            } else {
                Termination::DeadPosition
            };
            self.main.ended = Some(Ended {
                termination: term,
                ply,
                pos: pos.clone(),
            });
            return;
        }
        let hash = self.main.hash;
        // The history alternates the side to move (a null move or an irreversible move starts
        // it again), and the side to move is part of the hash: only every other entry, back
        // from the current one, can be the same position. A position comes back four plies
        // later at the soonest (each side must undo its move), so a third occurrence needs
        // nine entries.
        let history = &self.main.history;
        let mut repeats = 0;
        if history.len() >= 9 {
            let mut k = history.len();
            while k > 0 {
                repeats += usize::from(history[k - 1].0 == hash);
                k = k.saturating_sub(2);
            }
        }
        if repeats >= 3 && self.main.threefold_ply.is_none() {
            self.main.threefold_ply = Some(ply);
            self.main.perpetual_check = self.perpetual();
        }
        if repeats >= 5 {
            self.main.perpetual_check = self.perpetual();
            self.main.ended = Some(Ended {
                termination: Termination::Fivefold,
                ply,
                pos: pos.clone(),
            });
            return;
        }
        if pos.halfmoves() >= 100 && self.main.fifty_ply.is_none() {
            self.main.fifty_ply = Some(ply);
        }
        if pos.halfmoves() >= 150 {
            self.main.ended = Some(Ended {
                termination: Termination::SeventyFive,
                ply,
                pos: pos.clone(),
            });
        }
    }

    /// Whether every move of one side gave check over the cycle back to the first occurrence
    /// of the current position.
    fn perpetual(&self) -> bool {
        let history = &self.main.history;
        let last = history.len() - 1;
        let hash = history[last].0;
        let first = match history.iter().position(|(h, _)| *h == hash) {
            Some(i) if i < last => i,
            _ => return false,
        };
        // Moves into positions first+1..=last; the mover alternates, starting with the side
        // that made the last move when counted backwards.
        let moves: Vec<bool> = history[first + 1..=last].iter().map(|(_, c)| *c).collect();
        let by_last_mover: Vec<bool> = moves.iter().rev().step_by(2).copied().collect();
        let by_other: Vec<bool> = moves.iter().rev().skip(1).step_by(2).copied().collect();
        (by_last_mover.len() >= 2 && by_last_mover.iter().all(|&c| c))
            || (by_other.len() >= 2 && by_other.iter().all(|&c| c))
    }

    fn match_failure(
        &self,
        pos: &Chess,
        m: &ReadMove,
        token: &str,
        span: Span,
        label: PlyLabel,
        err: MatchError,
    ) -> Finding {
        let side = if label.white { "White" } else { "Black" };
        let mut f = match err {
            MatchError::Ambiguous(moves) => {
                let list: Vec<String> = moves.iter().map(|mv| san(pos, mv)).collect();
                Finding::new(
                    Code::AmbiguousMove,
                    Some(span),
                    format!("'{token}' is ambiguous: it fits {}", list.join(" and ")),
                )
                .help(format!("write {}", list.join(" or ")))
            }
            MatchError::NullInCheck => Finding::new(
                Code::IllegalMove,
                Some(span),
                "a null move is impossible while in check",
            ),
            MatchError::Illegal => {
                let why = explain_illegal(pos, m);
                let mut f = Finding::new(
                    Code::IllegalMove,
                    Some(span),
                    format!("'{token}' is not a legal move for {side}: {why}"),
                );
                let suggestions = matcher::suggest(pos, m, token);
                if !suggestions.is_empty() {
                    let texts: Vec<String> = suggestions
                        .iter()
                        .map(|mv| shown_move(pos, m, token, mv))
                        .collect();
                    f = f.help(format!("did you mean {}?", texts.join(" or ")));
                }
                f
            }
        };
        f.ply = Some(label.into());
        f.fen = Some(fen(pos));
        f
    }

    #[allow(clippy::too_many_arguments)]
    fn notation_findings(
        &mut self,
        m: &ReadMove,
        mnotes: &matcher::MatchNotes,
        mv: &Move,
        token: &str,
        span: Span,
        label: PlyLabel,
        depth: usize,
    ) {
        let n = m.notes;
        if n.0 == 0
            && !mnotes.missing_capture
            && !mnotes.wrong_capture
            && !mnotes.over_disambiguated
        {
            return;
        }
        let pos = &self.lines[depth].pos;
        let canonical = san(pos, mv) + suffix(pos, mv);
        let mut push = |code: Code, what: String| {
            let mut f = Finding::new(code, Some(span), what).help(format!("write {canonical}"));
            f.ply = Some(label.into());
            if self.opts.strict && code.severity() == Severity::Warning {
                f.severity = Severity::Error;
            }
            self.findings.push(f);
        };
        if self.chinese_game {
            // Chinese records are written in full (long) form with 0-0 castling by convention;
            // one game-level warning says the notation was read, not one per move.
            self.chinese_moves += 1;
            if mnotes.wrong_capture {
                let what = if mv.is_capture() {
                    format!("'{token}' is marked as a quiet move but captures")
                } else {
                    format!("'{token}' is marked as a capture but takes nothing")
                };
                push(Code::WrongCaptureSign, what);
            }
            return;
        }
        if n.has(Notes::CASTLING_SPELLING) {
            push(
                Code::CastlingSpelling,
                format!("castling written '{token}'"),
            );
        }
        if n.has(Notes::LOWERCASE_PIECE) {
            push(
                Code::LowercasePiece,
                format!("'{token}' uses a lower-case piece letter"),
            );
        }
        if n.has(Notes::PROMOTION_WITHOUT_EQUALS) {
            push(
                Code::PromotionWithoutEquals,
                format!("'{token}' promotes without '='"),
            );
        }
        if n.has(Notes::UCI) {
            push(Code::UciNotation, format!("'{token}' is UCI notation"));
        } else if n.has(Notes::LONG_ALGEBRAIC) {
            push(
                Code::LongAlgebraic,
                format!("'{token}' is long algebraic notation"),
            );
        } else {
            if mnotes.missing_capture && !n.has(Notes::CHINESE) {
                push(
                    Code::MissingCaptureSign,
                    format!("'{token}' captures but has no 'x'"),
                );
            }
            if mnotes.over_disambiguated {
                push(
                    Code::OverDisambiguated,
                    format!("'{token}' names more of the origin than needed"),
                );
            }
        }
        if mnotes.wrong_capture {
            let what = if mv.is_capture() {
                format!("'{token}' is marked as a quiet move but captures")
            } else {
                format!("'{token}' is marked as a capture but takes nothing")
            };
            push(Code::WrongCaptureSign, what);
        }
        if n.has(Notes::CHINESE) || n.has(Notes::FIGURINE) || n.has(Notes::FOREIGN_LETTERS) {
            push(
                Code::OtherNotation,
                format!("'{token}' read as {canonical}"),
            );
        }
    }

    fn check_sign(
        &mut self,
        m: &ReadMove,
        actual: CheckClaim,
        token: &str,
        span: Span,
        label: PlyLabel,
    ) {
        if m.check == actual
            || m.notes.has(Notes::UCI)
            || (m.notes.has(Notes::DOUBLE_PLUS) && actual == CheckClaim::Mate)
        {
            return;
        }
        let (code, what) = match (m.check, actual) {
            (CheckClaim::None, CheckClaim::Check) => {
                (Code::MissingCheckSign, "gives check but has no '+'")
            }
            (CheckClaim::None, CheckClaim::Mate) => {
                (Code::MissingCheckSign, "mates but has no '#'")
            }
            (CheckClaim::Check, CheckClaim::Mate) => {
                (Code::WrongCheckSign, "mates but is marked '+'")
            }
            (CheckClaim::Mate, CheckClaim::Check) => (
                Code::WrongCheckSign,
                "is marked as mate but only gives check",
            ),
            (_, CheckClaim::None) => (Code::WrongCheckSign, "is marked as check but gives none"),
            _ => return,
        };
        let mut f = Finding::new(code, Some(span), format!("'{token}' {what}"));
        f.ply = Some(label.into());
        if self.opts.strict {
            f.severity = Severity::Error;
        }
        self.findings.push(f);
    }
}

/// Captures, promotions and pawn moves: the moves after which a position can become dead.
/// Whether a move makes every earlier position unreachable, as shakmaty's
/// `is_irreversible` decides apart from its en passant clause (the caller knows that one).
fn changes_for_good(pos: &Chess, mv: Move) -> bool {
    match mv {
        Move::Normal {
            role: shakmaty::Role::Pawn,
            ..
        }
        | Move::Normal {
            capture: Some(_), ..
        }
        | Move::Castle { .. }
        | Move::EnPassant { .. }
        | Move::Put { .. } => true,
        Move::Normal { role, from, to, .. } => {
            let rights = pos.castles().castling_rights();
            rights.contains(from)
                || rights.contains(to)
                || (role == shakmaty::Role::King && pos.castles().has_color(pos.turn()))
        }
    }
}

/// The change a reversible move (no capture, no pawn, castling rights and en passant
/// untouched: see [`changes_for_good`]) makes to a position's Zobrist hash as shakmaty
/// computes it: the piece leaves one square for another and the turn passes. An irreversible
/// move starts the hash again instead, so its captures, en passant files and castling
/// rights never need hashing.
#[inline]
fn reversible_hash_step(turn: Color, mv: Move, hash: Zobrist64) -> Zobrist64 {
    use shakmaty::zobrist::ZobristValue;
    match mv {
        Move::Normal { role, from, to, .. } => {
            let piece = role.of(turn);
            hash ^ Zobrist64::zobrist_for_piece(from, piece)
                ^ Zobrist64::zobrist_for_piece(to, piece)
                ^ Zobrist64::zobrist_for_white_turn()
        }
        // Irreversible moves: the caller starts the hash again after them.
        _ => hash,
    }
}

fn irreversible_material(mv: &Move) -> bool {
    mv.is_capture() || mv.is_promotion() || mv.role() == shakmaty::Role::Pawn
}

/// A cheap screen before [`notation::trailing_sign`]: moves start with a file or piece letter.
fn may_be_sign(token: &[u8]) -> bool {
    match token.first() {
        Some(b'x' | b'#' | b'+' | b'=' | b'(' | 0x80..) => true,
        Some(b'e') => token == b"ep" || token.starts_with(b"e.p"),
        _ => false,
    }
}

/// The text of a token, shown in a finding.
fn span_text(bytes: &[u8], span: Span) -> std::borrow::Cow<'_, str> {
    quote_bytes(&bytes[span.start as usize..span.end as usize])
}

fn is_en_passant_mark(token: &[u8]) -> bool {
    matches!(token, b"e.p." | b"ep" | b"e.p" | b"(ep)")
        || token == "吃过路兵".as_bytes()
        || token == "吃過路兵".as_bytes()
}

/// A ply as findings name it: its move number and its side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PlyLabel {
    /// The full move number.
    pub number: u32,
    /// Whether White plays it.
    pub white: bool,
}

impl From<PlyLabel> for (u32, bool) {
    fn from(label: PlyLabel) -> Self {
        (label.number, label.white)
    }
}

/// The ply to be played in `pos`.
fn ply_label(pos: &Chess) -> PlyLabel {
    PlyLabel {
        number: pos.fullmoves().get(),
        white: pos.turn() == Color::White,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn::lex_game_tags;
    use crate::rules::visit::NoVisitor;

    /// The fast path's report, or `None` when it gives up; and the general path's report.
    fn both(pgn: &str) -> (Option<GameReport>, GameReport) {
        let bytes = pgn.as_bytes();
        let mut tags = Lexed::default();
        lex_game_tags(bytes, 1, 1, &mut tags);
        let at = tags.movetext.expect("the game has tags and movetext");
        let opts = CheckOptions::default();
        let fast = check(bytes, &tags, &opts, &mut NoVisitor, Movetext::Plain(at)).map(|r| r.0);
        (
            fast,
            check_tokens(bytes, &lex_whole(bytes, at), &opts, &mut NoVisitor),
        )
    }

    #[test]
    fn plain_movetext_takes_the_fast_path_with_the_same_report() {
        let games = [
            "[Event \"a\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1/2-1/2",
            // Comments over lines, NAGs, glued move numbers, a wrong move number, a wrong
            // check sign and a result that disagrees with the tag: findings with places.
            "[Result \"1-0\"]\n\n1.e4 {a\ncomment} e5 $1 3. Qh5 Nc6 4. Bc4 Nf6 5. Qxf7 0-1",
            "[Event \"a\"]\n\n1. f3 e5 2. g4 Qh4#! 0-1",
            "[Event \"a\"]\n\n1. e4!? e5?! 2. Nf3!! Nc6?? 3. Bb5! a6? *",
        ];
        for pgn in games {
            let (fast, general) = both(pgn);
            let fast = fast.unwrap_or_else(|| panic!("fast path gave up on {pgn:?}"));
            assert_eq!(format!("{fast:?}"), format!("{general:?}"), "{pgn:?}");
        }
    }

    #[test]
    fn anything_else_goes_the_general_way() {
        let games = [
            "[Event \"a\"]\n\n1. e4 (1. d4) e5 *",
            "[Event \"a\"]\n\n1. e4 e5 2. Ke3 *",
            "[Event \"a\"]\n\n1. e4 e5 2. nf3 *",
            "[Event \"a\"]\n\n1. e4 e5!!! *",
            "[Event \"a\"]\n\n1. e4 e5",
            "[Event \"a\"]\n\n1. e4 ½-½",
            "[Event \"a\"]\n\n1. e4 ; line comment\n*",
        ];
        for pgn in games {
            assert!(both(pgn).0.is_none(), "{pgn:?}");
        }
    }
}
