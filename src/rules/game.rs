//! Checking one game: the options, the report, the entry points, and the report assembled
//! from the tag checks (`rules::tags`), the start position (`rules::start`), the replay
//! (`rules::replay`) and the result by rule (`rules::ending`).

use std::borrow::Cow;

use shakmaty::Chess;

use crate::diag::plural;
use crate::diag::{Capped, Code, Finding, FindingCounts, Severity};
use crate::notation;
use crate::pgn::book;
use crate::pgn::movetext::{place_spans, read_movetext, MovetextEvents, MovetextFacts, UNPLACED};
use crate::pgn::{
    GameResult, KnownTag, KnownTags, LexProblem, LexProblemKind, Lexed, Movetext, MovetextStart,
    Span, TokenKind,
};
use crate::rules::adjudicate::{DeadSearch, Insufficient};
use crate::rules::ending::{adjudicate, result_tag_against_token, start_ended};
use crate::rules::explain::fen;
use crate::rules::outcome::Ending;
use crate::rules::replay::{Replay, Replayed};
use crate::rules::start::start_position;
use crate::rules::tags::{lex_findings, tag_findings};
use crate::rules::visit::{Needs, Visitor};

/// How to check.
#[derive(Clone, Copy, Debug)]
pub struct CheckOptions {
    /// Lenient notation is an error, not a warning.
    pub strict: bool,
    /// What "cannot mate" means when a position is judged dead or a flag fall is drawn.
    pub insufficient: Insufficient,
    /// How hard to look for a mate before a position is called dead.
    pub dead_search: DeadSearch,
    /// Deepest variation nesting replayed.
    pub max_depth: usize,
    /// Piece letters of another language (`--lang`); never guessed.
    pub lang: Option<notation::Lang>,
    /// Replace an illegal move by the one legal move the suggestion rules find, when there is
    /// exactly one (reported as M005, a warning).
    pub repair: bool,
    /// Which rules the replay follows beyond legality.
    pub checks: Checks,
}

/// How much of the rules a replay follows: every rule that ends or could end a game, or
/// legality alone for a caller that asks for less (the machine-learning readers).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Checks {
    /// Legality, and the rules that end a game or allow a claim: checkmate, stalemate, dead
    /// positions, repetitions, the fifty- and seventy-five-move rules.
    #[default]
    All,
    /// Legality, checkmate and stalemate: no repetition is looked for, no move counter is
    /// watched and no position is judged dead, so a game ends by rule only in checkmate or
    /// stalemate, and no claim is found.
    Legal,
}

impl std::str::FromStr for Checks {
    type Err = String;

    fn from_str(s: &str) -> Result<Checks, String> {
        match s {
            "all" => Ok(Checks::All),
            "legal" => Ok(Checks::Legal),
            _ => Err(format!(
                "'{s}' is not a level of checks: write all (every rule) or legal (legality, \
                 checkmate and stalemate)"
            )),
        }
    }
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
            checks: Checks::All,
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
    /// The `Result` tag's value, as written.
    pub result_tag: Option<String>,
    /// The result token that ends the movetext.
    pub result_token: Option<GameResult>,
    /// The one result the rules allow, when they decide it.
    pub result_by_rule: Option<GameResult>,
    /// How the main line ended by rule, if it did.
    pub termination: Ending,
    /// Main-line ply (1-based) at which the terminating event happened.
    pub termination_ply: Option<u32>,
    /// First ply at which a threefold repetition could be claimed.
    pub threefold_ply: Option<u32>,
    /// First ply at which a fifty-move draw could be claimed.
    pub fifty_ply: Option<u32>,
    /// The repetition that ended or could end the game came from perpetual check.
    pub perpetual_check: bool,
    /// Everything found, in the order of the game.
    pub findings: Vec<Finding>,
}

impl GameReport {
    /// FEN after the last replayed main-line move.
    pub fn final_fen(&self) -> Option<String> {
        self.final_position.as_ref().map(fen)
    }

    /// How many findings have this severity.
    pub fn count(&self, severity: Severity) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity == severity)
            .count()
    }
}

/// Checks one game and tells `visitor` what it replays: the one entry point of the replay.
///
/// `lexed` is the game lexed whole ([`crate::pgn::lex_game`]: `movetext` is then
/// [`Movetext::Tokens`]) or lexed to its tags ([`crate::pgn::lex_game_tags`], which says
/// where the movetext is); the movetext is then read from the bytes once, each token as the
/// replay takes it, in any notation. The report, and what the visitor is told, are the same
/// either way. A Chinese book header (header lines instead of tags) is read as the game's tags.
///
/// ```
/// use pgnkit::pgn::{lex_game, lex_game_tags, Lexed, Movetext};
/// use pgnkit::rules::game::{check_game, CheckOptions};
/// use pgnkit::rules::outcome::Ending;
/// use pgnkit::rules::visit::NoVisitor;
///
/// let pgn = b"[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n";
/// let opts = CheckOptions::default();
/// let mut lexed = Lexed::default();
/// lex_game(pgn, true, 1, &mut lexed);
/// let report = check_game(pgn, &lexed, Movetext::Tokens, &opts, &mut NoVisitor);
/// assert!(report.legal);
/// assert_eq!(report.plies, 7);
/// assert_eq!(report.termination, Ending::Checkmate);
/// // Lexed to its tags only, the game gets the same report.
/// let movetext = lex_game_tags(pgn, 1, 1, &mut lexed);
/// assert!(matches!(movetext, Movetext::Bytes(_)));
/// let fast = check_game(pgn, &lexed, movetext, &opts, &mut NoVisitor);
/// assert_eq!(format!("{fast:?}"), format!("{report:?}"));
/// ```
pub fn check_game(
    bytes: &[u8],
    lexed: &Lexed,
    movetext: Movetext,
    opts: &CheckOptions,
    visitor: &mut dyn Visitor,
) -> GameReport {
    if book::may_hold_header(lexed) {
        let mut with_header = lexed.clone();
        if book::extract_header(bytes, &mut with_header) {
            return check_lexed(bytes, &with_header, movetext, opts, visitor).0;
        }
    }
    check_lexed(bytes, lexed, movetext, opts, visitor).0
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
        termination: Ending::None,
        termination_ply: None,
        threefold_ply: None,
        fifty_ply: None,
        perpetual_check: false,
        findings: Vec::new(),
    }
}

/// [`check_game`] on a game whose book header, if any, is read already, and where the game
/// ends in `bytes`: their length, unless the movetext is [`Movetext::Open`], whose game ends
/// at its result or where the lexer ends it (the bytes run on, up to where it surely ends:
/// [`crate::pgn::lexer::last_tag_line`]). The movetext loop finds that end; the report is the
/// one the game gets on exactly those bytes.
pub(crate) fn check_lexed(
    bytes: &[u8],
    lexed: &Lexed,
    movetext: Movetext,
    opts: &CheckOptions,
    visitor: &mut dyn Visitor,
) -> (GameReport, usize) {
    let needs = visitor.needs();
    if needs.tags {
        for tag in lexed.tags() {
            visitor.tag(tag);
        }
    }
    let checked = check_movetext(bytes, lexed, opts, visitor, needs, movetext);
    visitor.result(checked.0.result_token);
    visitor.end_game();
    checked
}

/// Replays movetext with nothing around it, `bytes[from..]`, from `start`, telling
/// `visitor`, with `opts`: the one replay for a line of moves that is not a game (a line of
/// an opening table, which goes on from the position another line reached) or that is a
/// game's read again (its moves up to one whose position was not kept). There is no report:
/// what did not play, the visitor is told ([`Visitor::unplayed`]).
pub(crate) fn replay_movetext(
    bytes: &[u8],
    from: usize,
    start: Chess,
    opts: &CheckOptions,
    visitor: &mut dyn Visitor,
) {
    let lexed = Lexed::default();
    let (mut findings, mut counts) = (Vec::new(), FindingCounts::default());
    let needs = visitor.needs();
    let capped = Capped::new(&mut findings, &mut counts);
    let mut replay = Replay::new(bytes, &lexed, opts, visitor, needs, capped, start, None);
    let at = MovetextStart {
        offset: from,
        line: 1,
        line_start: 0,
        first_col: 1,
    };
    read_movetext(bytes, &lexed, Movetext::Bytes(at), true, &mut replay);
    replay.finish();
}

/// [`check_lexed`] after the tag events.
fn check_movetext(
    bytes: &[u8],
    lexed: &Lexed,
    opts: &CheckOptions,
    visitor: &mut dyn Visitor,
    needs: Needs,
    movetext: Movetext,
) -> (GameReport, usize) {
    // Every tag the checks read, found in one pass.
    let known = KnownTags::of(lexed);
    let mut report = new_report(&known);
    let mut counts = FindingCounts::default();
    lex_findings(
        &lexed.problems,
        &mut Capped::new(&mut report.findings, &mut counts),
    );
    // Where the lexer's problems of a movetext the movetext loop handed on go (after these).
    let lex_end = report.findings.len();
    if lexed.problems.iter().any(|p| {
        matches!(
            p.kind,
            LexProblemKind::GameTooLarge | LexProblemKind::EmptyRecord
        )
    }) {
        report.legal = false;
        counts.note_left_out(&mut report.findings);
        // (Only the reader reports it, on a game it found whole.)
        return (report, bytes.len());
    }
    tag_findings(
        lexed,
        &known,
        &mut Capped::new(&mut report.findings, &mut counts),
    );

    let Some(start) = start_position(&known, &mut report) else {
        // Without a start position no move can be replayed; a game without moves has
        // nothing illegal in it. The movetext's tokens say which, and how it ends.
        let mut unreplayed = Unreplayed::default();
        let facts = read_movetext(bytes, lexed, movetext, false, &mut unreplayed);
        insert_lex_findings(&mut report, lex_end, &facts.rest_problems, &mut counts);
        report.legal = !facts.has_move;
        // No rule can be applied, but the main line's result token must agree with the tag.
        let last = unreplayed.result;
        report.result_token = last.map(|(r, _)| r);
        result_tag_against_token(last.map(|(_, s)| s), &mut report);
        place_report_spans(&mut report, &bytes[..facts.end], movetext);
        counts.note_left_out(&mut report.findings);
        return (report, facts.end);
    };
    let ended = start_ended(&known, &start, opts);
    visitor.start(&start);
    let findings = Capped::new(&mut report.findings, &mut counts);
    let mut replay = Replay::new(bytes, lexed, opts, visitor, needs, findings, start, ended);
    // The movetext loop may replay the game when its moves are in English SAN and whatever
    // comes before the movetext is tags.
    let fast = opts.lang.is_none_or(|l| l == notation::Lang::En)
        && lexed
            .tokens
            .iter()
            .all(|t| matches!(t.kind, TokenKind::Tag(_)));
    let facts = read_movetext(bytes, lexed, movetext, fast, &mut replay);
    let replayed = replay.finish();
    insert_lex_findings(&mut report, lex_end, &facts.rest_problems, &mut counts);
    // In the book layout Chinese notation is the layout's own, not a departure from SAN.
    if replayed.chinese_moves > 0 && !lexed.book {
        report
            .findings
            .push(other_notation_finding(replayed.chinese_moves));
    }
    // What the replay found out about the main line.
    let main = &replayed.main;
    report.legal = !replayed.main_broken;
    report.plies = main.plies;
    report.result_token = replayed.result_token;
    report.threefold_ply = main.threefold_ply;
    report.fifty_ply = main.fifty_ply;
    report.perpetual_check = main.perpetual_check;
    report.final_position = Some(replayed.pos.clone());
    if let Some(f) = no_moves_finding(lexed, &replayed, &facts) {
        report.findings.push(f);
    }
    if let Some(f) = ply_count_finding(&known, &report) {
        report.findings.push(f);
    }
    if let Some(f) = moves_after_end_finding(&replayed) {
        report.findings.push(f);
    }
    adjudicate(
        &replayed.pos,
        replayed.main.ended,
        &known,
        facts.result_span,
        opts,
        &mut report,
    );
    place_report_spans(&mut report, &bytes[..facts.end], movetext);
    counts.note_left_out(&mut report.findings);
    (report, facts.end)
}

/// The findings of the lexer's problems in a movetext lexed after the tag section, at
/// `lex_end`: after the tag section's, as lexing the game whole gives them.
fn insert_lex_findings(
    report: &mut GameReport,
    lex_end: usize,
    problems: &[LexProblem],
    counts: &mut FindingCounts,
) {
    let mut found = Vec::new();
    lex_findings(problems, &mut Capped::new(&mut found, counts));
    report.findings.splice(lex_end..lex_end, found);
}

/// The one finding for all the moves read in Chinese (or other non-SAN) notation.
#[cold]
fn other_notation_finding(moves: u32) -> Finding {
    Finding::new(
        Code::OtherNotation,
        None,
        format!(
            "{moves} move{} in Chinese (or other non-SAN) notation were read as SAN",
            plural(moves)
        ),
    )
    .help("pgnkit convert --to san writes the game in standard PGN")
}

/// A game with tags and not one move.
fn no_moves_finding(lexed: &Lexed, replayed: &Replayed, facts: &MovetextFacts) -> Option<Finding> {
    let has_tag = lexed
        .tokens
        .iter()
        .any(|t| matches!(t.kind, TokenKind::Tag(_)));
    (replayed.main.plies == 0 && !facts.has_move && has_tag)
        .then(|| Finding::new(Code::NoMoves, None, "the game has tags but no moves"))
}

/// A `PlyCount` tag that is not the main line's length (left alone when the main line could
/// not be replayed to its end), or not a number.
fn ply_count_finding(known: &KnownTags, report: &GameReport) -> Option<Finding> {
    let tag = known.get(KnownTag::PlyCount)?;
    let plies = report.plies;
    let what = match tag.value.trim().parse::<u32>() {
        Ok(n) if n == plies || !report.legal => return None,
        Ok(n) => format!("PlyCount says {n} but the main line has {plies} plies"),
        Err(_) => format!("PlyCount \"{}\" is not a number", tag.value),
    };
    Some(
        Finding::new(Code::PlyCountMismatch, Some(tag.span), what)
            .help(format!("set [PlyCount \"{plies}\"]")),
    )
}

/// Main-line moves recorded after the game was over by rule: one finding, at the first.
fn moves_after_end_finding(replayed: &Replayed) -> Option<Finding> {
    let main = &replayed.main;
    let (span, ply) = main.first_after_end?;
    let (term, at) = main
        .ended
        .as_ref()
        .map_or((Ending::None, 0), |e| (e.termination, e.ply));
    let code = match term {
        Ending::Checkmate | Ending::Stalemate => Code::MovesAfterEnd,
        _ => Code::MovesAfterAutomaticDraw,
    };
    // A start position that is already over (a FEN) ends the game at ply 0.
    let when = if at == 0 {
        "before its first move".to_string()
    } else {
        format!("after ply {at}")
    };
    let n = main.moves_after_end;
    let mut f = Finding::new(
        code,
        Some(span),
        format!(
            "the game was over {when} ({}), but {n} more move{} {} recorded",
            term.as_str(),
            plural(n),
            if n == 1 { "was" } else { "were" },
        ),
    )
    .help("delete the moves after the end, or check the earlier moves for a misprint");
    f.ply = Some(ply);
    Some(f)
}

/// The movetext of a game that cannot be replayed (no start position): read for its moves,
/// its end and the result token of its main line.
#[derive(Default)]
struct Unreplayed {
    /// Variations open.
    depth: u32,
    /// The last result token of the main line.
    result: Option<(GameResult, Span)>,
}

impl MovetextEvents for Unreplayed {
    fn wants_movetext(&self) -> bool {
        false
    }
    fn san(&mut self, _: &notation::ReadMove, _: Span) -> bool {
        true
    }
    fn begin_variation(&mut self, _: Span) {
        self.depth += 1;
    }
    fn end_variation(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }
    fn result(&mut self, result: GameResult, span: Span) {
        if self.depth == 0 {
            self.result = Some((result, span));
        }
    }
}

/// Gives the spans the movetext loop left unplaced in the report their lines and columns
/// (none are left unplaced when the movetext was lexed whole).
fn place_report_spans(report: &mut GameReport, bytes: &[u8], movetext: Movetext) {
    let Some(at) = movetext.start() else { return };
    let mut spans: Vec<&mut Span> = report
        .findings
        .iter_mut()
        .filter_map(|f| f.span.as_mut())
        .filter(|s| s.line == UNPLACED)
        .collect();
    if !spans.is_empty() {
        place_spans(bytes, at, &mut spans);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn::{lex_game, lex_game_tags};

    /// Every event a visitor with these needs is told, written out.
    struct Recorder {
        needs: Needs,
        events: Vec<String>,
    }

    impl Visitor for Recorder {
        fn needs(&self) -> Needs {
            self.needs
        }
        fn tag(&mut self, tag: crate::pgn::Tag<'_>) {
            self.events.push(format!("tag {}", tag.name));
        }
        fn play(&mut self, ply: &crate::rules::visit::Ply<'_>) {
            let mv = ply.mv;
            let mut played = ply.before.clone();
            shakmaty::Position::play_unchecked(&mut played, mv);
            assert_eq!(fen(ply.after), fen(&played), "the position after {mv:?}");
            let (at, fen, check, san) = (ply.at, fen(ply.before), ply.check, ply.san);
            self.events
                .push(format!("play {at:?} {fen} {mv:?} {check:?} {san:?}"));
        }
        fn main_line(&mut self, line: crate::rules::visit::MainLine<'_>) {
            let (moves, san) = (line.moves, line.san);
            self.events.push(format!("main line {moves:?} san {san:?}"));
        }
        fn unplayed(&mut self, at: crate::rules::visit::MoveAt) {
            self.events.push(format!("unplayed {at:?}"));
        }
        fn null_move(&mut self, at: crate::rules::visit::MoveAt, _: &Chess, after: &Chess) {
            self.events.push(format!("null {at:?} {}", fen(after)));
        }
        fn repaired(&mut self, at: crate::rules::visit::MoveAt, written: &str) {
            self.events.push(format!("repaired {at:?} {written}"));
        }
        fn comment(&mut self, at: crate::rules::visit::NoteAt, start: u32, end: u32) {
            let (depth, plies) = (at.depth, at.main_plies);
            self.events
                .push(format!("comment {start}..{end} at {depth}/{plies}"));
        }
        fn nag(&mut self, at: crate::rules::visit::NoteAt, nag: u16) {
            let (depth, plies) = (at.depth, at.main_plies);
            self.events.push(format!("nag {nag} at {depth}/{plies}"));
        }
        fn begin_variation(&mut self) {
            self.events.push("(".into());
        }
        fn end_variation(&mut self) {
            self.events.push(")".into());
        }
        fn result(&mut self, result: Option<GameResult>) {
            self.events.push(format!("result {result:?}"));
        }
        fn end_game(&mut self) {
            self.events.push("end".into());
        }
    }

    /// Each game, read from its bytes, gets the report its tokens give it and tells
    /// visitors of several needs the same events.
    fn assert_fast_reports(games: &[&str]) {
        assert_fast_reports_with(games, &CheckOptions::default());
    }

    /// [`assert_fast_reports`] with these options.
    fn assert_fast_reports_with(games: &[&str], opts: &CheckOptions) {
        use crate::rules::visit::Positions;
        let needs = [
            Needs::NOTHING,
            Needs {
                positions: Positions::All,
                movetext: true,
                tags: true,
                main_moves: false,
                notes: false,
                main_san: false,
            },
            Needs {
                positions: Positions::First(2),
                movetext: false,
                tags: false,
                main_moves: true,
                notes: false,
                main_san: true,
            },
            Needs {
                positions: Positions::None,
                movetext: true,
                tags: false,
                main_moves: false,
                notes: false,
                main_san: false,
            },
        ];
        for pgn in games {
            let bytes = pgn.as_bytes();
            let mut tags = Lexed::default();
            let Movetext::Bytes(at) = lex_game_tags(bytes, 1, 1, &mut tags) else {
                panic!("{pgn:?} has movetext that starts in ASCII");
            };
            for needs in needs {
                let mut fast_events = Recorder {
                    needs,
                    events: Vec::new(),
                };
                let (fast, _) =
                    check_lexed(bytes, &tags, Movetext::Bytes(at), opts, &mut fast_events);
                let mut general_events = Recorder {
                    needs,
                    events: Vec::new(),
                };
                let mut whole = Lexed::default();
                lex_game(bytes, true, 1, &mut whole);
                let (general, _) =
                    check_lexed(bytes, &whole, Movetext::Tokens, opts, &mut general_events);
                assert_eq!(format!("{fast:?}"), format!("{general:?}"), "{pgn:?}");
                assert_eq!(
                    fast_events.events, general_events.events,
                    "{pgn:?} {needs:?}"
                );
            }
        }
    }

    #[test]
    fn a_pair_of_visitors_is_told_what_one_with_both_needs_is() {
        use crate::rules::visit::Positions;
        let pgn = b"[Event \"a\"]\n\n1. e4 {c} e5 2. Nf3 (2. Nc3 Nf6) 2... Nc6 3. Bb5 -- 4. d3 *";
        let opening = Needs {
            positions: Positions::First(2),
            ..Needs::NOTHING
        };
        let writer = Needs {
            movetext: true,
            tags: true,
            ..Needs::NOTHING
        };
        let recorder = |needs| Recorder {
            needs,
            events: Vec::new(),
        };
        let opts = CheckOptions::default();
        let mut lexed = Lexed::default();
        lex_game(pgn, true, 1, &mut lexed);
        let mut one = recorder(opening.union(writer));
        let alone = check_game(pgn, &lexed, Movetext::Tokens, &opts, &mut one);
        let mut pair = (recorder(opening), Some(recorder(writer)));
        let paired = check_game(pgn, &lexed, Movetext::Tokens, &opts, &mut pair);
        assert_eq!(format!("{paired:?}"), format!("{alone:?}"));
        assert!(one.events.iter().any(|e| e.starts_with("comment")));
        assert_eq!(pair.0.events, one.events);
        assert_eq!(pair.1.map(|r| r.events), Some(one.events));
        // A visitor that is not there needs nothing, and the replay only checks.
        let mut none: Option<Recorder> = None;
        assert_eq!(Visitor::needs(&none), Needs::NOTHING);
        check_game(pgn, &lexed, Movetext::Tokens, &opts, &mut none);
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
        assert_fast_reports(&games);
    }

    #[test]
    fn movetext_without_tags_takes_the_fast_path_with_the_same_report() {
        // The lichess Parquet `movetext` column's values, and tagless games of a file: leading
        // comments and escape lines, an illegal move, no result. (A book layout's header lines
        // are tags to `check_game`, not movetext: the book tests of `convert` cover them.)
        let games = [
            "1. e4 { [%clk 0:03:00] } 1... e5 { [%clk 0:02:59] } 2. Nf3 1-0",
            "{Blitz} ; a line comment\n1. e4 e5 2. Ke3 *",
            "% an escape line\n1. d4 d5 2. c4 dxc4",
            "  \n1. f3 e5 2. g4 Qh4# 1/2-1/2",
            "1. e4 (1. d4 d5) 1... e5 $2 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0",
        ];
        assert_fast_reports(&games);
    }

    #[test]
    fn the_lexer_reads_on_where_the_fast_path_does_not_with_the_same_report() {
        let games = [
            "[Event \"a\"]\n\n1. e4 e5 2. nf3 *",
            "[Event \"a\"]\n\n1. e4 e5!!! *",
            "[Event \"a\"]\n\n1. e4 e5",
            "[Event \"a\"]\n\n1. e4 ½-½",
            "[Event \"a\"]\n\n1. e4 ; line comment\n*",
            // Lexer problems of the rest come before the tag findings, as lexing whole gives.
            "[Event \"a\"]\n\n1. e4 {open\n[Date \"x\"]",
            "[Event \"a\"]\n\n1. e4 e5 $300 2. Nf3 ) 2... Nc6 (2... d6 3. d4 *",
            // A variation that follows no move of the movetext loop's.
            "[Event \"a\"]\n\n{c} ; x\n(1. d4) 1. e4 *",
            "[Event \"a\"]\n\n1. e4 e5 2. Nf3 ; c\n2... Nc6 (2... d6 3. d4) 3. Bb5 *",
            "[Event \"a\"]\n\n1. e4 e5 2. Nf3 -- 3. Bc4 *",
            // An illegal move, and a move before a sign standing alone.
            "[Event \"a\"]\n\n1. e4 e5 2. Ke3 Nc6 (2... Nf6 3. d3) 3. d4 *",
            "[Event \"a\"]\n\n1. e4 e5 2. Ke3!? {c} 3. d4 *",
            "[Event \"a\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Qxf7 + 3... Kxf7 *",
            "[Event \"a\"]\n\n1. e4 d5 2. e5 f5 3. exf6\u{3000}e.p. *",
            "[Event \"a\"]\n\n1. e4 e5 2. Qh5 Nc6\n3.Qxf7\n# *",
            // Periods that belong to the move number before them.
            "[Event \"a\"]\n\n1. e4 1. ... e5 2 . .. Nf3 *",
            "[Event \"a\"]\n\n1. e4 1. {c} ... e5 *",
            // Spaces the movetext loop leaves to the lexer between the number and its periods.
            "[Event \"a\"]\n\n1\r\r\x0c\r. e4 -- 2. d4 *",
            // Variations after moves whose position the movetext loop did not keep.
            "[Event \"a\"]\n\n1. e4 (1. d4) e5 *",
            "[Event \"a\"]\n\n1. e4 e5 2. Nf3 {c} $1 ; x\n2... (2. Nc3 Nf6) Nc6 *",
            // SAN moves, one with findings (Nbd2 names more than needed), then Chinese ones.
            "[Event \"a\"]\n\n1. d4 d5 2. Nbd2 马c6 3. e3 *",
            "[Event \"a\"]\n\n1. d4 d5 2. Nbd2 Nc6 3. 马f3 (3. e3) 象f5 *",
            // A wide space is a space: the escape line still starts its line.
            "[Event \"a\"]\n\n\u{3000}%x e4\n1. e4 *",
        ];
        assert_fast_reports(&games);
    }

    #[test]
    fn a_variation_after_a_repaired_move_starts_before_it() {
        let games = [
            "[Event \"a\"]\n\n1. e4 e5 2. Ke3 (2. Nf3 Nc6) 2... Nc6 *",
            "[Event \"a\"]\n\n1. e4 e5 2. Ke3 Nc6 {c} (2... Nf6) 3. Kd3 *",
        ];
        let opts = CheckOptions {
            repair: true,
            ..CheckOptions::default()
        };
        assert_fast_reports_with(&games, &opts);
    }
}

#[cfg(test)]
mod checks_tests {
    use super::*;
    use crate::pgn::lex_game;
    use crate::rules::visit::NoVisitor;

    fn report(pgn: &[u8], checks: Checks) -> GameReport {
        let mut lexed = Lexed::default();
        lex_game(pgn, true, 1, &mut lexed);
        let opts = CheckOptions {
            checks,
            ..CheckOptions::default()
        };
        check_game(pgn, &lexed, Movetext::Tokens, &opts, &mut NoVisitor)
    }

    #[test]
    fn legality_alone_finds_mate_but_no_repetition_or_dead_position() {
        // Knights out and back twice: the start position a third time at ply 8.
        let repeated = b"1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 *\n";
        assert_eq!(report(repeated, Checks::All).threefold_ply, Some(8));
        let legal = report(repeated, Checks::Legal);
        assert_eq!((legal.threefold_ply, legal.plies), (None, 8));
        assert!(legal.legal);

        // King against king after the last capture: dead under every rule, not when asked
        // for legality alone.
        let dead = b"[FEN \"8/8/8/3k4/8/8/3q4/3K4 w - - 0 1\"]\n[SetUp \"1\"]\n\n1. Kxd2 *\n";
        assert_eq!(report(dead, Checks::All).termination, Ending::DeadPosition);
        assert_eq!(report(dead, Checks::Legal).termination, Ending::None);

        let mate = b"1. f3 e5 2. g4 Qh4# 0-1\n";
        for checks in [Checks::All, Checks::Legal] {
            let r = report(mate, checks);
            assert_eq!(
                (r.termination, r.termination_ply),
                (Ending::Checkmate, Some(4))
            );
        }
        assert_eq!("legal".parse(), Ok(Checks::Legal));
        assert!("some".parse::<Checks>().unwrap_err().contains("all"));
    }
}
