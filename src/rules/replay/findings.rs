//! The findings of the replay about how moves are written: move numbers that do not fit,
//! glued moves, moves no legal move fits, lenient or foreign notation, and check signs.

use shakmaty::{Chess, Move};

use crate::diag::{plural, quote_bytes, Code, Finding, Severity};
use crate::notation::{CheckClaim, Notes, ReadMove};
use crate::pgn::Span;
use crate::rules::explain::{explain_illegal, fen, san, shown_move, suffix};
use crate::rules::matcher::{self, MatchError};

use super::{ply_label, PlyLabel, Replay};

/// Findings that repeat the same way all through a game (every move number one too high,
/// every move in UCI): the first of a run is reported, and the others only counted, in a note
/// on it at the game's end ([`Replay::count_repeated`]). One finding a move would bury the
/// game's other problems under the same line said forty times.
#[derive(Default)]
pub(super) struct Repeated {
    /// The move numbers' pattern (written minus right; `...` written for White), the span of
    /// its first finding, and how many more fit it.
    numbers: Option<((i64, bool), Span, u32)>,
    /// The span of the first UCI move's finding, and how many more moves are in UCI.
    uci: Option<(Span, u32)>,
}

/// The note on a finding that stands for `more` like it: "2 more moves of this game are in UCI
/// notation; this finding stands for all of them".
fn stands_for(more: u32, what: &str, how: &str) -> String {
    let verb = if more == 1 { "is" } else { "are" };
    format!(
        "{more} more {what}{} of this game {verb} {how}; this finding stands for all of them",
        plural(more)
    )
}

impl Replay<'_> {
    /// Notes on each repeated finding how many more of its kind it stands for. Called once,
    /// when the game's replay ends.
    pub(super) fn count_repeated(&mut self) {
        self.count_repeated_numbers();
        if let Some((span, more @ 1..)) = self.repeated.uci.take() {
            let note = stands_for(more, "move", "in UCI notation");
            self.findings.note_on(Code::UciNotation, span, note);
        }
    }

    /// [`Self::count_repeated`] for the move numbers alone: also when a new pattern starts.
    fn count_repeated_numbers(&mut self) {
        if let Some(((offset, white_dots), span, more @ 1..)) = self.repeated.numbers.take() {
            let how = match offset {
                0 if white_dots => "with '...' before White's move".to_owned(),
                d if d > 0 => format!("{d} too high"),
                d => format!("{} too low", -d),
            };
            let note = stands_for(more, "move number", &format!("off the same way ({how})"));
            self.findings.note_on(Code::MoveNumberMismatch, span, note);
        }
    }

    /// Reports a token of SAN moves glued together (`Nf3Nc6`), read as the moves. (Chinese
    /// records glue moves by custom: they are not reported.)
    #[cold]
    pub(super) fn glued_moves(&mut self, token: &[u8], span: Span, moves: &[ReadMove]) {
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
        f.ply = Some(ply_label(&self.lines[self.lines.len() - 1].pos));
        if self.opts.strict {
            f.severity = Severity::Error;
        }
        self.findings.push(f);
    }

    /// Reports a move number that does not fit the move after it.
    #[cold]
    pub(super) fn move_number_mismatch(
        &mut self,
        number: u32,
        dots: u8,
        nspan: Span,
        label: PlyLabel,
    ) {
        let expected = format!("{}{}", label.number, if label.white { "." } else { "..." });
        let mut f = Finding::new(
            Code::MoveNumberMismatch,
            Some(nspan),
            format!(
                "move number {number}{} does not fit: this is {expected}",
                if dots == 3 { "..." } else { "." }
            ),
        )
        .help(format!("write {expected}"));
        f.ply = Some(label);
        let pattern = (
            i64::from(number) - i64::from(label.number),
            dots == 3 && label.white,
        );
        match &mut self.repeated.numbers {
            Some((seen, _, more)) if *seen == pattern => {
                *more += 1;
                return;
            }
            Some(_) => self.count_repeated_numbers(),
            None => {}
        }
        self.repeated.numbers = Some((pattern, nspan, 0));
        self.findings.push(f);
    }

    pub(super) fn match_failure(
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
                        .map(|mv| shown_move(pos, m, token, mv, self.opts.lang))
                        .collect();
                    f = f.help(format!("did you mean {}?", texts.join(" or ")));
                }
                f
            }
        };
        f.ply = Some(label);
        f.fen = Some(fen(pos));
        f
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn notation_findings(
        &mut self,
        m: &ReadMove,
        mnotes: &matcher::MatchNotes,
        mv: &Move,
        token: &str,
        span: Span,
        label: PlyLabel,
        depth: usize,
    ) {
        // The caller comes here only when `m.notes` or `mnotes` has something to say.
        let n = m.notes;
        let pos = &self.lines[depth].pos;
        let canonical = san(pos, mv) + suffix(pos, mv);
        let said = |what: &str| format!("'{token}' {what}");
        let mut push = |code: Code, what: String| {
            let mut f = Finding::new(code, Some(span), what).help(format!("write {canonical}"));
            f.ply = Some(label);
            if self.opts.strict && code.severity() == Severity::Warning {
                f.severity = Severity::Error;
            }
            self.findings.push(f);
        };
        if self.chinese_game {
            // Chinese records are written in full (long) form with 0-0 castling by convention;
            // one game-level warning says the notation was read, not one per move.
            self.chinese_moves += 1;
        } else {
            self.san_noted += 1;
            if n.has(Notes::CASTLING_SPELLING) {
                push(
                    Code::CastlingSpelling,
                    format!("castling written '{token}'"),
                );
            }
            if n.has(Notes::LOWERCASE_PIECE) {
                push(Code::LowercasePiece, said("uses a lower-case piece letter"));
            }
            if n.has(Notes::PROMOTION_WITHOUT_EQUALS) {
                push(Code::PromotionWithoutEquals, said("promotes without '='"));
            }
            if n.has(Notes::UCI) {
                match &mut self.repeated.uci {
                    Some((_, more)) => *more += 1,
                    None => {
                        self.repeated.uci = Some((span, 0));
                        push(Code::UciNotation, said("is UCI notation"));
                    }
                }
            } else if n.has(Notes::LONG_ALGEBRAIC) {
                push(Code::LongAlgebraic, said("is long algebraic notation"));
            } else {
                if mnotes.missing_capture && !n.has(Notes::CHINESE) {
                    push(Code::MissingCaptureSign, said("captures but has no 'x'"));
                }
                if mnotes.over_disambiguated {
                    push(
                        Code::OverDisambiguated,
                        said("names more of the origin than needed"),
                    );
                }
            }
        }
        if mnotes.wrong_capture {
            let what = if mv.is_capture() {
                "is marked as a quiet move but captures"
            } else {
                "is marked as a capture but takes nothing"
            };
            push(Code::WrongCaptureSign, said(what));
        }
        if !self.chinese_game
            && (n.has(Notes::CHINESE) || n.has(Notes::FIGURINE) || n.has(Notes::FOREIGN_LETTERS))
        {
            push(Code::OtherNotation, said(&format!("read as {canonical}")));
        }
    }

    /// The game turns out to have moves in Chinese (or other non-SAN) notation after the
    /// movetext loop read some in SAN: their findings become what they are in such a game (one
    /// count for the game, and wrong capture signs), as if that had been known from the
    /// start.
    #[cold]
    pub(super) fn turns_chinese(&mut self) {
        self.chinese_game = true;
        if self.san_noted == 0 {
            return;
        }
        const SAN_ONLY: [Code; 8] = [
            Code::CastlingSpelling,
            Code::LowercasePiece,
            Code::PromotionWithoutEquals,
            Code::UciNotation,
            Code::LongAlgebraic,
            Code::MissingCaptureSign,
            Code::OverDisambiguated,
            Code::OtherNotation,
        ];
        // The findings that broke the lines open (which get a note at their end) move up.
        let mut broken: Vec<&mut usize> = self
            .lines
            .iter_mut()
            .filter_map(|l| l.broken.as_mut()?.finding.as_mut())
            .collect();
        self.findings.take_back(&SAN_ONLY, &mut broken);
        // The UCI moves taken back are counted as the game's notation now.
        self.repeated.uci = None;
        self.chinese_moves += std::mem::take(&mut self.san_noted);
    }

    pub(super) fn check_sign(
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
        f.ply = Some(label);
        if self.opts.strict {
            f.severity = Severity::Error;
        }
        self.findings.push(f);
    }
}
