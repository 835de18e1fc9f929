//! The replay as the movetext lexer's visitor: the events of [`crate::pgn::movetext`]'s loop
//! (moves, move numbers, comments, NAGs, the result, and the rest of a game the loop does not
//! read itself) played on the game's lines.

use shakmaty::{Chess, Move, Position};

use crate::diag::{quote_bytes, Code, Finding};
use crate::notation::{ReadMove, TrailingSign};
use crate::pgn::movetext::{MovetextEvents, RestStart};
use crate::pgn::{GameResult, MovetextStart, Span};
use crate::rules::game::replay_movetext;
use crate::rules::visit::{Needs, Ply, Positions, Visitor, WrittenSan};

use super::Replay;

impl MovetextEvents for Replay<'_> {
    #[inline(always)]
    fn wants_movetext(&self) -> bool {
        self.record_movetext
    }

    #[inline(always)]
    fn comment(&mut self, start: u32, end: u32) {
        let at = self.note_at();
        self.visitor.comment(at, start, end);
    }

    #[inline(always)]
    fn nag(&mut self, nag: u16) {
        let at = self.note_at();
        self.visitor.nag(at, nag);
    }

    #[inline(always)]
    fn move_number(&mut self, number: u32, dots: u8, span: Span) {
        if self.skipped_depth == 0 {
            if let Some(line) = self.lines.last_mut() {
                line.pending_number = Some((number, dots, span));
            }
        }
    }

    #[inline(always)]
    fn main_move_number(&mut self, number: u32, dots: u8, span: Span) {
        self.lines[0].pending_number = Some((number, dots, span));
    }

    #[inline(always)]
    fn san(&mut self, m: &ReadMove, span: Span) -> bool {
        self.variation_follows = false;
        let played = self.play_main(m, span);
        if !played {
            // The line is broken: the rest comes as tokens.
            self.visitor.unplayed(self.at(0));
        }
        played
    }

    fn move_token(
        &mut self,
        span: Span,
        sign: Option<(TrailingSign, Span)>,
        variation_follows: bool,
    ) {
        self.token = (span.start, span.end);
        self.variation_follows = variation_follows;
        if self.skipped_depth == 0 {
            self.play_token(span, sign);
        } else {
            // In a variation nested too deep to replay.
            let depth = self.lines.len() - 1 + self.skipped_depth;
            self.visitor.unplayed(self.at(depth));
        }
    }

    fn begin_variation(&mut self, span: Span) {
        self.start_variation(span);
    }

    fn end_variation(&mut self) {
        self.close_variation();
        self.visitor.end_variation();
    }

    fn result(&mut self, result: GameResult, _: Span) {
        if self.lines.len() == 1 && self.skipped_depth == 0 {
            self.result_token = Some(result);
        }
    }

    #[cold]
    fn unexpected(&mut self, span: Span) {
        let text = quote_bytes(&self.bytes[span.start as usize..span.end as usize]);
        self.findings.push(
            Finding::new(
                Code::UnexpectedToken,
                Some(span),
                format!("unexpected '{}' in the movetext", text.escape_debug()),
            )
            .help("remove it, or put commentary inside { braces }"),
        );
    }

    /// What the rest's events need and the fast cases did not keep is made here: the position
    /// before a move a variation follows. (A move a sign may follow was left to the tokens.)
    #[cold]
    #[inline(never)]
    fn rest_starts(&mut self, rest: RestStart) {
        // After an illegal move the line keeps the position a variation starts from.
        if rest.after_move && self.lines[0].before_last.is_none() && rest.variation_first {
            self.keep_before_last(rest.at);
        }
    }

    /// The findings of the moves read so far become those of a game in Chinese notation.
    #[cold]
    fn other_notation(&mut self) {
        self.turns_chinese();
    }

    fn end(&mut self) {
        while self.lines.len() > 1 {
            self.close_variation();
        }
        self.close_line_note(0);
    }
}

impl Replay<'_> {
    /// The position before the movetext loop's last move, which a variation after that move
    /// starts from, made again: the movetext loop keeps no position nobody asked for, nor a list
    /// of its moves (a cost on every ply). The visitor is told of the move then, as the token
    /// loop tells it of a move a variation follows.
    #[cold]
    #[inline(never)]
    fn keep_before_last(&mut self, at: MovetextStart) {
        // The movetext up to that move (the token being replayed), replayed again from the
        // start position by the one replay. Nothing when the move does not play again (it
        // played the first time, so never but by a defect).
        let end = self.token.1;
        let Some(bytes) = self
            .bytes
            .get(..end as usize)
            .filter(|b| b.len() > at.offset)
        else {
            return;
        };
        let mut last = LastMove { end, found: None };
        replay_movetext(bytes, at.offset, self.start.clone(), self.opts, &mut last);
        let Some((before, last, written)) = last.found else {
            return;
        };
        let (start, end) = (self.token.0 as usize, self.token.1 as usize);
        let san = written
            .then(|| WrittenSan::new(&self.bytes[start..end]))
            .flatten();
        let pos = &self.lines[0].pos;
        let actual = super::check_claim(pos, pos.checkers());
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

    /// Plays a main-line move of the movetext loop: without anything only other moves need, unless
    /// the visitor wants the position before it. Inline in the movetext loop, which then
    /// makes no call per ply but to the matcher and shakmaty.
    #[inline(always)]
    fn play_main(&mut self, m: &ReadMove, span: Span) -> bool {
        // The move is its token: the movetext loop reads one move a token.
        self.token = (span.start, span.end);
        if self.wants_positions() {
            // For a visitor that wants positions: out of the movetext loop's line.
            self.play(0, m, span)
        } else {
            self.play_inline::<false>(0, m, span)
        }
    }
}

/// A visitor of a movetext replayed again up to a main-line move that ends at byte `end`
/// ([`Replay::keep_before_last`]): that move, the position before it, and whether its token is
/// its SAN.
struct LastMove {
    end: u32,
    found: Option<(Chess, Move, bool)>,
}

impl Visitor for LastMove {
    fn needs(&self) -> Needs {
        Needs {
            positions: Positions::All,
            ..Needs::NOTHING
        }
    }

    fn play(&mut self, ply: &Ply<'_>) {
        if ply.at.depth == 0 && ply.at.end == self.end {
            self.found = Some((ply.before.clone(), ply.mv, ply.san.is_some()));
        }
    }
}
