//! How a game ended: the result by rule (checkmate, stalemate, dead position, repetition,
//! move limits) reconciled with the `Result` tag and the result token.

use shakmaty::{Chess, Color, Position};

use crate::diag::{Code, Finding};
use crate::pgn::{GameResult, KnownTag, KnownTags, Span};
use crate::rules::adjudicate;
use crate::rules::game::{CheckOptions, Checks, GameReport};
use crate::rules::matcher;
use crate::rules::outcome::Ending;

/// The `Result` tag read as a result, after checking it against the result token (R008).
pub(super) fn result_tag_against_token(
    token_span: Option<Span>,
    report: &mut GameReport,
) -> Option<GameResult> {
    let tag = report
        .result_tag
        .as_deref()
        .and_then(|v| GameResult::parse(v.as_bytes()))
        .map(|r| r.0);
    if let (Some(a), Some(b)) = (tag, report.result_token) {
        if a != b {
            report.findings.push(
                Finding::new(
                    Code::ResultMismatch,
                    token_span,
                    format!(
                        "the Result tag says {} but the movetext ends with {}",
                        a.as_str(),
                        b.as_str()
                    ),
                )
                .help("make them agree"),
            );
        }
    }
    tag
}

/// How the main line ended by rule before its last move: the moves after `ply` are
/// reported, and the result is decided in `pos`.
pub(super) struct Ended {
    /// The rule that ended it.
    pub termination: Ending,
    /// Main-line plies played when the game ended (0: before its first move).
    pub ply: u32,
    /// The position the game ended in.
    pub pos: Chess,
}

/// A game set up in a position that is already over: a dead position (5.2.2) ends it before
/// its first move, so the moves recorded after it are reported (R013). (Checkmate and
/// stalemate need no look here: their first move cannot be played.)
pub(super) fn start_ended(known: &KnownTags, start: &Chess, opts: &CheckOptions) -> Option<Ended> {
    // The standard start is alive: only a FEN start is looked at.
    known.get(KnownTag::Fen)?;
    if opts.checks == Checks::Legal
        || !adjudicate::is_dead(start, opts.insufficient, opts.dead_search)
        || start.legal_moves().is_empty()
    {
        return None;
    }
    Some(Ended {
        termination: Ending::DeadPosition,
        ply: 0,
        pos: start.clone(),
    })
}

/// Whether a `Termination` tag says the game was decided off the board: forfeited
/// (abandoned, a disconnection, a rules infraction) or decided by the arbiter (adjudication,
/// an emergency). A loss on time is not: article 6.9 decides it.
pub(super) fn decided_off_the_board(termination: &str) -> bool {
    let t = termination.to_ascii_lowercase();
    if t.contains("time") {
        return false;
    }
    [
        "abandon",
        "adjudicat",
        "infraction",
        "forfeit",
        "disconnect",
        "connection",
        "emergency",
        "death",
        "arbiter",
    ]
    .iter()
    .any(|w| t.contains(w))
}

/// Decides the result by rule and reconciles it with the tag and the token.
pub(super) fn adjudicate(
    final_pos: &Chess,
    ended: Option<Ended>,
    known: &KnownTags,
    token_span: Option<Span>,
    opts: &CheckOptions,
    report: &mut GameReport,
) {
    let (termination, ply, pos) = match ended {
        Some(Ended {
            termination,
            ply,
            pos,
        }) => (termination, Some(ply), pos),
        None => {
            let pos = final_pos.clone();
            // One legal-move generation for both mate and stalemate, unless a legal king
            // step already shows there are moves.
            let no_moves = !matcher::king_can_step(&pos) && pos.legal_moves().is_empty();
            let term = if no_moves && pos.is_check() {
                Ending::Checkmate
            } else if no_moves {
                Ending::Stalemate
            } else if opts.checks == Checks::All
                && adjudicate::is_dead(&pos, opts.insufficient, opts.dead_search)
            {
                Ending::DeadPosition
            } else {
                Ending::None
            };
            let ply = (term != Ending::None).then_some(report.plies);
            (term, ply, pos)
        }
    };
    report.termination = termination;
    report.termination_ply = ply;
    report.result_by_rule = match termination {
        Ending::Checkmate => Some(if pos.turn() == Color::White {
            GameResult::BlackWins
        } else {
            GameResult::WhiteWins
        }),
        Ending::None => None,
        _ => Some(GameResult::Draw),
    };

    let tag_span = known.get(KnownTag::Result).map(|t| t.span);
    let tag = result_tag_against_token(token_span, report);
    let recorded = tag.or(report.result_token);
    let span = if tag.is_some() { tag_span } else { token_span };
    let at = match ply {
        Some(0) => " before its first move".to_string(),
        Some(p) => format!(" after ply {p}"),
        None => String::new(),
    };
    if let (Some(rule), Some(recorded)) = (report.result_by_rule, recorded) {
        if rule != recorded {
            let (code, article, event) = match termination {
                Ending::Checkmate => (Code::ResultAfterCheckmate, "5.1.1", "checkmate"),
                Ending::Stalemate => (Code::ResultAfterStalemate, "5.2.1", "stalemate"),
                Ending::DeadPosition => (Code::ResultAfterDeadPosition, "5.2.2", "a dead position"),
                Ending::Fivefold => (Code::ResultAfterFivefold, "9.6.1", "fivefold repetition"),
                _ => (
                    Code::ResultAfterSeventyFive,
                    "9.6.2",
                    "75 moves without capture or pawn move",
                ),
            };
            let code = if recorded == GameResult::Unknown {
                Code::UnfinishedButOver
            } else {
                code
            };
            report.findings.push(
                Finding::new(
                    code,
                    span,
                    format!(
                        "the game ended{at} by {event}, so the result is {}, not {}",
                        rule.as_str(),
                        recorded.as_str()
                    ),
                )
                .help(format!("set the result to {}", rule.as_str()))
                .note(format!("FIDE Laws of Chess, article {article}")),
            );
        }
    } else if let Some(recorded @ (GameResult::WhiteWins | GameResult::BlackWins)) = recorded {
        // 6.9 / 5.1.2: a win needs a winner who could still mate.
        let winner = Color::from_white(recorded == GameResult::WhiteWins);
        if report.legal
            && adjudicate::cannot_mate(&pos, winner, opts.insufficient, opts.dead_search)
        {
            let name = winner.fold_wb("White", "Black");
            let termination = known.value(KnownTag::Termination);
            let f = match termination.filter(|t| decided_off_the_board(t)) {
                // 6.9 and 5.1.2 draw a flag fall or a resignation; a forfeit or the
                // arbiter's decision is not theirs to decide, so the win may stand.
                Some(t) => Finding::new(
                    Code::UnearnableWinOffTheBoard,
                    span,
                    format!("{name} is scored as the winner but could not checkmate by any series of legal moves in the final position; the Termination tag says \"{t}\", a forfeit or an arbiter's decision"),
                )
                .help("keep the result if the arbiter or the event's rules awarded the win; set 1/2-1/2 if the game was lost on time or by resignation")
                .note("FIDE Laws of Chess, articles 6.9 (time) and 5.1.2 (resignation) do not decide forfeits and adjudications"),
                None => {
                    let f = Finding::new(
                        Code::UnearnableWin,
                        span,
                        format!("{name} is scored as the winner but could not checkmate by any series of legal moves in the final position"),
                    )
                    .help("set the result to 1/2-1/2")
                    .note("FIDE Laws of Chess, articles 6.9 (time) and 5.1.2 (resignation)");
                    match termination {
                        Some(t) => f.note(format!("Termination tag: \"{t}\"")),
                        None => f,
                    }
                }
            };
            report.findings.push(f);
        }
    }
    if termination == Ending::None {
        if let Some(p) = report.threefold_ply {
            let what = if report.perpetual_check {
                " (perpetual check)"
            } else {
                ""
            };
            report.findings.push(
                Finding::new(
                    Code::ThreefoldClaimable,
                    None,
                    format!("a draw by threefold repetition{what} could be claimed at ply {p}"),
                )
                .note("FIDE Laws of Chess, article 9.2"),
            );
        }
        if let Some(p) = report.fifty_ply {
            report.findings.push(
                Finding::new(
                    Code::FiftyMoveClaimable,
                    None,
                    format!("a draw by the fifty-move rule could be claimed at ply {p}"),
                )
                .note("FIDE Laws of Chess, article 9.3"),
            );
        }
    }
    if report.perpetual_check {
        report.findings.push(Finding::new(
            Code::PerpetualCheck,
            None,
            "the repetition came from perpetual check (长将和)",
        ));
    }
}
