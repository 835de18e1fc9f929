//! Replaying a game's movetext through shakmaty: every line of play (variations too) move by
//! move, what the visitor is told, and where a line breaks. The main line's own bookkeeping
//! is in [`main_line`], the events of the movetext's lexer loop ([`crate::pgn::movetext`])
//! in [`events`], and the findings about how moves are written in [`findings`].

mod events;
mod findings;
mod main_line;

use shakmaty::{
    zobrist::Zobrist64, Bitboard, Chess, Color, EnPassantMode, FromSetup, Move, Position,
};

use crate::diag::plural;
use crate::diag::{quote_bytes, Capped, Code, Finding, PlyLabel};
use crate::notation::{self, CheckClaim, MovePattern, ReadMove};
use crate::pgn::movetext::span_within;
use crate::pgn::{GameResult, Lexed, Span};
use crate::rules::ending::Ended;
use crate::rules::explain::{fen, shown_move};
use crate::rules::game::{CheckOptions, Checks};
use crate::rules::matcher::{self, MatchError};
use crate::rules::outcome::Ending;
use crate::rules::visit::{MainLine, MoveAt, Needs, NoteAt, Ply, Positions, Visitor, WrittenSan};

pub(super) use main_line::MainState;
use main_line::{changes_for_good, reversible_hash_step};

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
    /// Move number written before the next move, checked against the position.
    pending_number: Option<(u32, u8, Span)>,
}

impl Line {
    /// A line starting at `pos`, broken already or not.
    fn new(pos: Chess, broken: Option<Broken>) -> Self {
        Line {
            pos,
            checkers: None,
            before_last: None,
            broken,
            pending_number: None,
        }
    }
}

/// The growable buffers of one game's replay, kept for the next game on the same thread: a
/// game then allocates nothing to be replayed.
#[derive(Default)]
struct ReplayBuffers {
    history: Vec<(Zobrist64, bool)>,
    lines: Vec<Line>,
    read_buf: Vec<ReadMove>,
    main_line: Vec<Move>,
    main_checks: Vec<bool>,
    main_san: Vec<Option<(u32, u32)>>,
}

thread_local! {
    static SPARE_BUFFERS: std::cell::RefCell<ReplayBuffers> = Default::default();
}

impl ReplayBuffers {
    /// The buffers the last replay on this thread gave back, empty.
    fn take() -> Self {
        SPARE_BUFFERS.with_borrow_mut(std::mem::take)
    }

    /// Gives the buffers back for the next replay.
    fn give_back(mut self) {
        // What one huge game grew is not kept for all the games after it.
        fn reuse<T>(buffer: &mut Vec<T>, keep: usize) {
            if buffer.capacity() > keep {
                *buffer = Vec::new();
            } else {
                buffer.clear();
            }
        }
        const KEEP: usize = 1 << 12;
        reuse(&mut self.history, KEEP);
        reuse(&mut self.lines, KEEP / 64);
        reuse(&mut self.main_line, KEEP);
        reuse(&mut self.main_checks, KEEP);
        reuse(&mut self.main_san, KEEP);
        self.read_buf.clear();
        SPARE_BUFFERS.set(self);
    }
}

/// What a finished replay leaves for the report.
pub(super) struct Replayed {
    /// The main line's state at its end (its history buffer given back).
    pub main: MainState,
    /// The position after the last main-line move replayed.
    pub pos: Chess,
    pub result_token: Option<GameResult>,
    /// A main-line move could not be replayed.
    pub main_broken: bool,
    /// Moves read in Chinese (or other non-SAN) notation.
    pub chinese_moves: u32,
}

/// The replay of one game's movetext: its lines of play, the main line's state, and where
/// its findings go.
pub(super) struct Replay<'a> {
    bytes: &'a [u8],
    visitor: &'a mut dyn Visitor,
    /// The visitor wants the position before some moves ([`Needs::positions`]), or every
    /// main-line move (`tell_moves`): it is then told of null moves, with the positions
    /// around them. Which moves come with their position is [`Self::wants_positions`].
    keep_positions: bool,
    /// The visitor wants every main-line move, without a position past those it asked for
    /// ([`Needs::main_moves`]): they are gathered in `main_line` and told at the end.
    tell_moves: bool,
    main_line: Vec<Move>,
    /// Whether each move of `main_line` gives check.
    main_checks: Vec<bool>,
    /// The token of each move of `main_line` when it is the move's canonical SAN
    /// ([`Needs::main_san`]; empty otherwise).
    main_san: Vec<Option<(u32, u32)>>,
    /// The visitor wants `main_san`.
    tell_san: bool,
    /// Main-line moves before which it wants the position ([`Positions::First`]).
    position_plies: u32,
    /// Main-line moves told to the visitor so far.
    main_moves_told: u32,
    /// The visitor is told the movetext's comments and NAGs ([`Needs::movetext`]).
    record_movetext: bool,
    /// The move token being replayed: bytes `start..end` ([`MoveAt`]).
    token: (u32, u32),
    /// A variation starts right after the token being replayed.
    variation_follows: bool,
    opts: &'a CheckOptions,
    /// Every rule is followed ([`Checks::All`]): repetitions are looked for, the move
    /// counters watched and the positions judged dead. (The hash is kept either way: a branch
    /// a move to skip it cost the default more than it saved.)
    all_rules: bool,
    findings: Capped<'a>,
    main: MainState,
    /// The lines being replayed, innermost last: line 0 is the main line.
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
    /// Moves that had findings about how SAN is written (before the game turned out to be
    /// Chinese: [`Self::turns_chinese`]).
    san_noted: u32,
    /// The start position, from which the movetext loop's moves make a position again that it
    /// did not keep ([`Self::keep_before_last`]).
    start: Chess,
    /// Findings that repeat the same way all through the game, reported once with a count.
    repeated: findings::Repeated,
}

impl<'a> Replay<'a> {
    /// A replay of `bytes` from `start`, taking the buffers the last replay on this thread
    /// gave back. `ended` says whether the start position is over already.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        bytes: &'a [u8],
        lexed: &Lexed,
        opts: &'a CheckOptions,
        visitor: &'a mut dyn Visitor,
        needs: Needs,
        findings: Capped<'a>,
        start: Chess,
        ended: Option<Ended>,
    ) -> Self {
        let buffers = ReplayBuffers::take();
        let tell_moves = needs.main_moves;
        // The movetext's events come with every move's (see `Needs::movetext`).
        let positions = if needs.movetext {
            Positions::All
        } else {
            needs.positions
        };
        let mut replay = Replay {
            bytes,
            keep_positions: positions != Positions::None || tell_moves,
            tell_moves,
            main_line: buffers.main_line,
            main_checks: buffers.main_checks,
            main_san: buffers.main_san,
            tell_san: tell_moves && needs.main_san,
            position_plies: positions.plies(),
            main_moves_told: 0,
            record_movetext: needs.movetext || needs.notes,
            visitor,
            token: (0, 0),
            variation_follows: false,
            opts,
            all_rules: opts.checks == Checks::All,
            findings,
            main: MainState {
                history: buffers.history,
                ended,
                ..Default::default()
            },
            lines: buffers.lines,
            skipped_depth: 0,
            read_buf: buffers.read_buf,
            result_token: None,
            main_broken: false,
            // A book game's moves are Chinese long notation by the layout's convention.
            chinese_game: lexed.book,
            chinese_moves: 0,
            san_noted: 0,
            start: start.clone(),
            repeated: findings::Repeated::default(),
        };
        replay.main.restart_hash(&start);
        replay.main.history.push((replay.main.hash, false));
        replay.lines.push(Line::new(start, None));
        replay
    }

    /// Ends the replay: its buffers go back for the next game on this thread.
    pub(super) fn finish(mut self) -> Replayed {
        self.count_repeated();
        if self.tell_moves {
            self.visitor.main_line(MainLine {
                moves: &self.main_line,
                checks: &self.main_checks,
                san: &self.main_san,
                bytes: self.bytes,
            });
        }
        let pos = self.lines.swap_remove(0).pos;
        ReplayBuffers {
            history: std::mem::take(&mut self.main.history),
            lines: self.lines,
            read_buf: self.read_buf,
            main_line: self.main_line,
            main_checks: self.main_checks,
            main_san: self.main_san,
        }
        .give_back();
        Replayed {
            main: self.main,
            pos,
            result_token: self.result_token,
            main_broken: self.main_broken,
            chinese_moves: self.chinese_moves,
        }
    }
}

impl Replay<'_> {
    /// Where a comment or a NAG read now is.
    fn note_at(&self) -> NoteAt {
        NoteAt {
            depth: self.lines.len() - 1 + self.skipped_depth,
            main_plies: self.main.plies,
        }
    }

    /// Where the token being replayed is, at `depth`.
    fn at(&self, depth: usize) -> MoveAt {
        MoveAt {
            start: self.token.0,
            end: self.token.1,
            depth,
        }
    }

    /// The visitor still wants the position before the next main-line move
    /// ([`Positions::First`], [`Positions::All`]). Past those, the movetext loop's inline play
    /// serves it: it gathers the moves of a visitor that wants every move
    /// ([`Visitor::main_line`]), and tells nothing to one that does not.
    #[inline(always)]
    fn wants_positions(&self) -> bool {
        self.main_moves_told < self.position_plies
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
            self.visitor.begin_variation();
            return;
        }
        let parent = self.lines.last().expect("the main line is always there");
        let start = parent.before_last.clone();
        let broken = start.is_none().then(|| {
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
            Broken {
                finding: self.findings.push_index(f),
                skipped: 0,
            }
        });
        let pos = start.unwrap_or_else(|| parent.pos.clone());
        self.lines.push(Line::new(pos, broken));
        self.visitor.begin_variation();
    }

    fn close_variation(&mut self) {
        if self.skipped_depth > 0 {
            self.skipped_depth -= 1;
            return;
        }
        if self.lines.len() > 1 {
            let last = self.lines.len() - 1;
            self.close_line_note(last);
            self.lines.pop();
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
                let what = if line == 0 {
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

    fn play_token(&mut self, span: Span, sign: Option<(notation::TrailingSign, Span)>) {
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
            self.skip(depth, moves);
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
                    let sub = span_within(span, token, u32::from(m.start), u32::from(m.end));
                    if !self.play(depth, m, sub) {
                        // The moves glued after it in the token are not replayed either.
                        self.skip(depth, moves.len() - i - 1);
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
                f.ply = Some(ply_label(&line.pos));
                f.fen = Some(fen(&line.pos));
                self.break_line(depth, f, None);
                self.visitor.unplayed(self.at(depth));
            }
        }
        self.read_buf = moves;
    }

    /// Counts `moves` more moves skipped on the broken line `depth`, and tells the visitor
    /// the token was not played.
    fn skip(&mut self, depth: usize, moves: usize) {
        if let Some(Broken { skipped, .. }) = self.lines[depth].broken.as_mut() {
            *skipped = skipped.saturating_add(u32::try_from(moves).unwrap_or(u32::MAX));
        }
        self.visitor.unplayed(self.at(depth));
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
        if depth == 0 {
            self.main_broken = true;
        }
    }

    /// Plays one read move on line `depth`, out of the movetext loop's line: any move of any
    /// line. Returns false when the line breaks.
    #[inline(never)]
    fn play(&mut self, depth: usize, m: &ReadMove, span: Span) -> bool {
        self.play_inline::<true>(depth, m, span)
    }

    /// [`Self::play`], inline: in the movetext loop only.
    ///
    /// `ANY` is false for the movetext loop's fast cases
    /// ([`crate::pgn::movetext::read_bytes`]): the main line, a move of
    /// strict SAN, no visitor and no variation. The compiler then leaves out what only other
    /// moves need.
    #[inline(always)]
    fn play_inline<const ANY: bool>(&mut self, depth: usize, m: &ReadMove, span: Span) -> bool {
        debug_assert!(
            ANY || (depth == 0 && !self.wants_positions() && !self.variation_follows),
            "the movetext loop plays main-line moves only"
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
            return self.play_null(depth, m, span, label);
        }
        let checkers = line.checkers.unwrap_or_else(|| line.pos.checkers());
        // The two ways to the move each go on to `played` (inline for the movetext loop): merged
        // into one value first, the move was read back from memory in other widths than it
        // was written, a stall on every ply.
        match matcher::find_move_fast(&line.pos, m, checkers) {
            Some(mv) => self.played::<ANY>(depth, m, span, label, mv, Default::default()),
            None => self.play_slow::<ANY>(depth, m, span, label, checkers),
        }
    }

    /// [`Self::play`] for a move the movetext loop's inline play did not find.
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
        // Line 0 is the main line; the movetext loop plays nothing else (`!ANY`).
        let is_main = !ANY || depth == 0;
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
        let keep_before =
            ANY && (self.main_moves_told < self.position_plies || self.variation_follows);
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
        let actual = check_claim(&line.pos, checkers);
        if m.check != actual {
            self.check_sign(m, actual, &token_text(), span, label);
        }
        let line = &self.lines[depth];
        if let Some(before) = line.before_last.as_ref().filter(|_| ANY) {
            let text = &self.bytes[span.start as usize..span.end as usize];
            let san = written_san(text, m, &mnotes, actual);
            let at = self.at(depth);
            // The move was played in place: the line's position is the one after it.
            self.visitor.play(&Ply {
                at,
                before,
                after: &line.pos,
                mv,
                check: actual,
                san,
            });
            self.main_moves_told += u32::from(depth == 0);
        }
        if depth == 0 && self.tell_moves {
            self.main_line.push(mv);
            self.main_checks.push(gives_check);
            if self.tell_san {
                let text = &self.bytes[span.start as usize..span.end as usize];
                let canonical = written_san(text, m, &mnotes, actual).is_some();
                self.main_san
                    .push(canonical.then_some((span.start, span.end)));
            }
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

    /// The move `m` stands for, when the movetext loop's inline play has not found it: the full matcher,
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
        let mut found = matcher::find_move_noting(&self.lines[depth].pos, m, checkers);
        if self.opts.repair
            && found == Err(MatchError::Illegal)
            && !(depth == 0 && self.main.ended.is_some())
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

    /// A null move (`--`, `Z0`): the turn passes.
    #[cold]
    fn play_null(&mut self, depth: usize, m: &ReadMove, span: Span, label: PlyLabel) -> bool {
        let before = self.lines[depth].pos.clone();
        let token = span_text(self.bytes, span);
        if before.is_check() {
            let err = MatchError::NullInCheck;
            let f = self.match_failure(&before, m, &token, span, label, err);
            self.break_line(depth, f, Some(before));
            return false;
        }
        // Pass the turn and count the move as played, so move numbers stay right.
        let mut setup = before.to_setup(EnPassantMode::Legal);
        setup.ep_square = None;
        setup.halfmoves = setup.halfmoves.saturating_add(1);
        if before.turn() == Color::Black {
            setup.fullmoves = setup.fullmoves.saturating_add(1);
        }
        setup.turn = !before.turn();
        // In the game's own castling mode: a standard game's castling after a null move is
        // still written e1g1 in UCI, not e1h1.
        let Ok(after) = Chess::from_setup(setup, before.castles().mode()) else {
            return false;
        };
        if self.keep_positions {
            let at = self.at(depth);
            self.visitor.null_move(at, &before, &after);
        }
        let line = &mut self.lines[depth];
        line.pos = after;
        line.checkers = None;
        line.before_last = Some(before);
        let mut f = Finding::new(
            Code::NullMove,
            Some(span),
            format!("'{token}' is a null move: the turn passes without a move"),
        )
        .note("null moves are used in analysis; they are not legal chess moves");
        f.ply = Some(label);
        self.findings.push(f);
        if depth == 0 {
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
        let pos = &self.lines[depth].pos;
        let token = span_text(self.bytes, span);
        let suggestions = matcher::suggest(pos, m, &token);
        if let [only] = suggestions[..] {
            let shown = shown_move(pos, m, &token, &only, self.opts.lang);
            let mut f = Finding::new(
                Code::RepairedMove,
                Some(span),
                format!("'{token}' is not a legal move; read as {shown}"),
            )
            .help(format!("correct the score to {shown}"));
            f.ply = Some(label);
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
    ) {
        if depth == 0 {
            let pos = &self.lines[depth].pos;
            if self.main.ended.is_none() && pos.legal_moves().is_empty() {
                let termination = if pos.is_check() {
                    Ending::Checkmate
                } else {
                    Ending::Stalemate
                };
                self.main.ended = Some(Ended {
                    termination,
                    ply: self.main.plies,
                    pos: pos.clone(),
                });
            }
            if let Some(Ended {
                termination: Ending::Checkmate | Ending::Stalemate,
                ..
            }) = self.main.ended
            {
                // The game was already over; R007 reports it.
                self.after_end(span, label);
                // Break without a finding of its own: R007 sums these up.
                let line = &mut self.lines[depth];
                line.broken = Some(Broken {
                    finding: None,
                    skipped: 0,
                });
                line.before_last = Some(line.pos.clone());
                return;
            }
        }
        let pos = &self.lines[depth].pos;
        let f = self.match_failure(pos, m, &span_text(self.bytes, span), span, label, err);
        self.break_line(depth, f, Some(pos.clone()));
    }

    fn after_end(&mut self, span: Span, label: PlyLabel) {
        self.main.moves_after_end += 1;
        if self.main.first_after_end.is_none() {
            self.main.first_after_end = Some((span, label));
        }
    }
}

/// What a move's check sign should be, in the position after it (`checkers` giving check).
#[inline(always)]
fn check_claim(pos: &Chess, checkers: Bitboard) -> CheckClaim {
    if !checkers.any() {
        CheckClaim::None
    } else if !matcher::king_can_step(pos) && pos.legal_moves().is_empty() {
        CheckClaim::Mate
    } else {
        CheckClaim::Check
    }
}

/// The move's SAN as `text` writes it, when that is the canonical SAN: strict SAN as written
/// (no lenient form, the right signs). A writer can then copy it.
fn written_san<'t>(
    text: &'t [u8],
    m: &ReadMove,
    mnotes: &matcher::MatchNotes,
    actual: CheckClaim,
) -> Option<WrittenSan<'t>> {
    let full_origin = match m.pattern {
        MovePattern::Normal(n) => n.from_file.is_some() && n.from_rank.is_some(),
        _ => false,
    };
    let canonical = m.notes.0 == 0
        && *mnotes == matcher::MatchNotes::default()
        && m.check == actual
        && !full_origin
        && text.first() != Some(&b'P');
    canonical.then(|| WrittenSan::new(text)).flatten()
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

/// The ply to be played in `pos`.
fn ply_label(pos: &Chess) -> PlyLabel {
    PlyLabel {
        number: pos.fullmoves().get(),
        white: pos.turn() == Color::White,
    }
}
