//! Selecting games by an expression (`pgnkit select --where`): the language ([`expr`]) (its
//! dates are [`GameDate`](crate::pgn::date::GameDate)s), the replay adapter that watches positions ([`watch`]) and the
//! evaluation of an expression over one game's tags and replay.
//!
//! Evaluation is three-valued: what the tags decide is decided before any replay, so a game
//! whose tags already answer is never replayed, and an expression of tags alone replays no
//! game at all.
//!
//! The engine, [`Select`], is made from [`SelectOptions`] and runs over inputs.

pub mod criteria;
mod decide;
mod engine;
pub mod expr;
pub mod mark;
pub mod material;
pub mod pattern;
pub mod round;
pub mod tags;
pub mod watch;

pub use decide::Decided;
pub use engine::{Select, SelectOptions};

use std::cmp::Ordering;

use expr::{Classified, Count, EndingTest, Expr, Literal, Op, ParseError, Sides, Test, Watched};

use crate::diag::Severity;
use crate::pgn::date::GameDate;
use crate::pgn::Lexed;
use crate::rules::game::GameReport;
use crate::rules::outcome::Ending;

/// A parsed `--where` expression, ready to test games.
#[derive(Debug)]
pub struct Selection {
    expr: Expr,
    targets: Vec<Watched>,
    replay: bool,
    classifies: bool,
}

/// What a game offers the expression: its tags, and its replay when there was one.
pub struct Facts<'a> {
    pub lexed: &'a Lexed,
    pub replay: Option<Replayed<'a>>,
    /// The game's number in its file, from 1.
    pub game: u64,
    /// The name of the input the game came from, as the diagnostics name it.
    pub file: &'a str,
}

/// What the replay of a game found.
pub struct Replayed<'a> {
    pub report: &'a GameReport,
    /// One flag a target of the selection ([`watch::Watch::reached`]).
    pub reached: &'a [bool],
    /// The opening the classifier named, when the selection [classifies](Selection::classifies).
    pub opening: Option<&'a crate::eco::Opening>,
}

impl Selection {
    /// Parses an expression.
    ///
    /// # Errors
    ///
    /// The first problem in it, with its place ([`ParseError::render`] shows a caret).
    pub fn parse(src: &str) -> Result<Selection, ParseError> {
        let parsed = expr::parse(src)?;
        let replay = needs_replay(&parsed.expr);
        let classifies = classifies(&parsed.expr);
        Ok(Selection {
            expr: parsed.expr,
            targets: parsed.targets,
            replay,
            classifies,
        })
    }

    /// The selection every game matches (an `and` of no tests).
    pub fn everything() -> Selection {
        Selection {
            expr: Expr::And(Vec::new()),
            targets: Vec::new(),
            replay: false,
            classifies: false,
        }
    }

    /// Looks for every position from ply `ply` on (pgn-extract's `--startply`): each test of
    /// positions is as if written with `at ply..` as well.
    pub fn start_at(&mut self, ply: u32) {
        for target in &mut self.targets {
            target.plies.0 = target.plies.0.max(ply);
        }
    }

    /// Whether some test needs the game's opening classified (`eco`, `opening`).
    pub fn classifies(&self) -> bool {
        self.classifies
    }

    /// Whether some test needs the game replayed (counts, termination, positions).
    pub fn needs_replay(&self) -> bool {
        self.replay
    }

    /// The names of the tags the expression tests, each once, in order.
    pub fn tag_names(&self) -> Vec<String> {
        let mut names = Vec::new();
        tag_names(&self.expr, &mut names);
        names
    }

    /// The positions and material balances the replay must watch for.
    pub fn targets(&self) -> &[Watched] {
        &self.targets
    }

    /// Whether the game matches; `None` when that depends on the replay and there was none.
    pub fn matches(&self, facts: &Facts<'_>) -> Option<bool> {
        eval(&self.expr, facts)
    }

    /// Whether the game `lexed` (number `game` of the input `file`) matches, once replayed:
    /// `report` is the replay's, `watch` watched its positions (its last one is looked at
    /// here) and `eco` classified it when the expression [classifies](Self::classifies).
    pub fn matches_replayed(
        &self,
        (lexed, game, file): (&Lexed, u64, &str),
        report: &GameReport,
        watch: &mut watch::Watch<'_>,
        eco: Option<&crate::eco::EcoObserver<'_>>,
    ) -> bool {
        watch.finish(report.final_position.as_ref());
        self.matches(&Facts {
            lexed,
            replay: Some(Replayed {
                report,
                reached: &watch.reached,
                opening: eco.and_then(crate::eco::EcoObserver::result),
            }),
            game,
            file,
        })
        .unwrap_or(false)
    }
}

impl Selection {
    /// Where a game that matched matched first, for `--mark-matches`: the earliest ply at
    /// which a test of positions was reached (`reached_at`, from the
    /// [watch](watch::Watch::reached_at)), or a threefold repetition or a fifty-move draw
    /// could first be claimed, when the expression tests for it (`termination = threefold`,
    /// `fifty-moves`); with the label of the test. `None` when no test of the expression
    /// happens at a ply (tags, counts, how the game ended).
    pub fn first_match(
        &self,
        reached_at: &[Option<u32>],
        report: &GameReport,
    ) -> Option<mark::Match> {
        let positions = self
            .targets
            .iter()
            .zip(reached_at)
            .filter_map(|(t, at)| Some((at.as_ref().copied()?, t.label.as_deref())));
        let mut endings = Vec::new();
        claims(&self.expr, &mut endings);
        let claims = endings.into_iter().filter_map(|e| {
            let ply = match e {
                EndingTest::Threefold => report.threefold_ply,
                _ => report.fifty_ply,
            };
            Some((ply?, None))
        });
        positions
            .chain(claims)
            .min_by_key(|(ply, _)| *ply)
            .map(|(ply, label)| mark::Match {
                ply,
                label: label.map(str::to_owned),
            })
    }
}

/// The claims of draws (`termination = threefold`, `fifty-moves`) the expression tests for.
fn claims(expr: &Expr, found: &mut Vec<EndingTest>) {
    match expr {
        Expr::And(all) | Expr::Or(all) => all.iter().for_each(|e| claims(e, found)),
        Expr::Not(_) => {}
        Expr::Test(Test::Termination {
            equal: true,
            ending: e @ (EndingTest::Threefold | EndingTest::FiftyMoves),
        }) => found.push(*e),
        Expr::Test(_) => {}
    }
}

fn needs_replay(expr: &Expr) -> bool {
    match expr {
        Expr::And(all) | Expr::Or(all) => all.iter().any(needs_replay),
        Expr::Not(a) => needs_replay(a),
        Expr::Test(t) => !matches!(
            t,
            Test::Tag { .. }
                | Test::TagPair { .. }
                | Test::EloDiff { .. }
                | Test::Name { .. }
                | Test::GameNumber { .. }
                | Test::File { .. }
        ),
    }
}

fn tag_names(expr: &Expr, names: &mut Vec<String>) {
    match expr {
        Expr::And(all) | Expr::Or(all) => all.iter().for_each(|e| tag_names(e, names)),
        Expr::Not(a) => tag_names(a, names),
        Expr::Test(Test::Tag { name, .. }) => {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
        Expr::Test(Test::TagPair { name, other, .. }) => {
            for name in [name, other] {
                if !names.contains(name) {
                    names.push(name.clone());
                }
            }
        }
        Expr::Test(_) => {}
    }
}

fn classifies(expr: &Expr) -> bool {
    match expr {
        Expr::And(all) | Expr::Or(all) => all.iter().any(classifies),
        Expr::Not(a) => classifies(a),
        Expr::Test(t) => matches!(t, Test::Classified { .. }),
    }
}

fn eval(expr: &Expr, facts: &Facts<'_>) -> Option<bool> {
    match expr {
        // False (for `and`; true for `or`) as soon as one test is, whatever the unknown ones.
        Expr::And(all) => decide(all, facts, false),
        Expr::Or(all) => decide(all, facts, true),
        Expr::Not(a) => eval(a, facts).map(|v| !v),
        Expr::Test(t) => test(t, facts),
    }
}

/// `and` (`decisive` false) or `or` (true) of `all`: `decisive` as soon as one is, else
/// unknown when one is.
fn decide(all: &[Expr], facts: &Facts<'_>, decisive: bool) -> Option<bool> {
    let mut known = true;
    for e in all {
        match eval(e, facts) {
            Some(v) if v == decisive => return Some(decisive),
            Some(_) => {}
            None => known = false,
        }
    }
    known.then_some(!decisive)
}

fn test(t: &Test, facts: &Facts<'_>) -> Option<bool> {
    match t {
        Test::Tag { name, op, value } => Some(
            facts
                .lexed
                .tag(name)
                .is_some_and(|v| compare(v, *op, value, false)),
        ),
        Test::TagPair { name, op, other } => {
            let (Some(a), Some(b)) = (facts.lexed.tag(name), facts.lexed.tag(other)) else {
                return Some(false);
            };
            let ordering = if name.ends_with("Date") || other.ends_with("Date") {
                match (GameDate::parse_whole(a), GameDate::parse_whole(b)) {
                    (Some(a), Some(b)) => Some(a.compare_known(&b)),
                    _ => None,
                }
            } else {
                match (number_in(a), number_in(b)) {
                    (Some(a), Some(b)) => a.partial_cmp(&b),
                    (None, None) => Some(a.cmp(b)),
                    // A number and text: no order (a rating against "-").
                    _ => None,
                }
            };
            Some(ordering.is_some_and(|o| op.holds(o)))
        }
        Test::Name { sides, op, value } => {
            let name = |tag| {
                facts
                    .lexed
                    .tag(tag)
                    .map(|v| compare(v, positive(*op), value, true))
            };
            // A negated test holds when no named side matches.
            let found = match sides {
                Sides::White => name("White"),
                Sides::Black => name("Black"),
                Sides::Either => match (name("White"), name("Black")) {
                    (None, None) => None,
                    (w, b) => Some(w == Some(true) || b == Some(true)),
                },
            };
            Some(found.is_some_and(|f| f != negated(*op)))
        }
        Test::EloDiff { op, value } => {
            let elo = |tag| facts.lexed.tag(tag).and_then(number_in);
            let diff = match (elo("WhiteElo"), elo("BlackElo")) {
                (Some(w), Some(b)) => (w - b).abs(),
                _ => return Some(false),
            };
            Some(diff.partial_cmp(value).is_some_and(|o| op.holds(o)))
        }
        Test::GameNumber { op, value } => Some(
            (facts.game as f64)
                .partial_cmp(value)
                .is_some_and(|o| op.holds(o)),
        ),
        Test::File { op, value } => {
            let matched = compare(facts.file, positive(*op), value, true);
            Some(matched != negated(*op))
        }
        Test::Count { count, op, value } => {
            let report = facts.replay.as_ref()?.report;
            let n = match count {
                Count::Plies => report.plies,
                Count::Moves => report.plies.div_ceil(2),
                Count::Errors => report.count(Severity::Error) as u32,
                Count::Warnings => report.count(Severity::Warning) as u32,
            };
            Some(f64::from(n).partial_cmp(value).is_some_and(|o| op.holds(o)))
        }
        Test::Termination { equal, ending } => {
            let r = facts.replay.as_ref()?.report;
            let ended = match ending {
                EndingTest::Is(e) if e.is_claimable() => Ending::of(r).0 == *e,
                EndingTest::Is(e) => r.termination == *e,
                EndingTest::Threefold => r.threefold_ply.is_some(),
                EndingTest::FiftyMoves => r.fifty_ply.is_some(),
            };
            Some(ended == *equal)
        }
        Test::ResultByRule { equal, value } => {
            let r = facts.replay.as_ref()?.report;
            let ruled = r.result_by_rule.map(crate::pgn::GameResult::as_str);
            // No result by rule: as a missing tag, every comparison is false.
            Some(ruled.is_some_and(|ruled| (ruled == value) == *equal))
        }
        Test::Reached { equal, target } => {
            let reached = facts.replay.as_ref()?.reached;
            Some(reached.get(*target).copied().unwrap_or(false) == *equal)
        }
        Test::Classified { field, op, value } => {
            let opening = facts.replay.as_ref()?.opening;
            // Not classified: as a missing tag, every comparison is false.
            Some(opening.is_some_and(|o| {
                let v = match field {
                    Classified::Eco => &o.eco,
                    Classified::Opening => &o.name,
                };
                compare(v, *op, value, false)
            }))
        }
    }
}

fn negated(op: Op) -> bool {
    matches!(op, Op::Ne | Op::NotContains)
}

/// The operator a negated one negates.
fn positive(op: Op) -> Op {
    match op {
        Op::Ne => Op::Eq,
        Op::NotContains => Op::Contains,
        op => op,
    }
}

/// Whether a tag's value `v` stands in relation `op` to `lit`. `glob`: `=` takes `*` in the
/// literal as any run of characters (names).
fn compare(v: &str, op: Op, lit: &Literal, glob: bool) -> bool {
    match op {
        Op::Contains | Op::NotContains => {
            let found = match lit {
                Literal::Regex(re) => re.is_match(v),
                _ => v.contains(lit.text()),
            };
            found != (op == Op::NotContains)
        }
        _ => match lit {
            Literal::Date { date, .. } => {
                GameDate::parse_whole(v).is_some_and(|d| op.holds(d.compare_known(date)))
            }
            Literal::Round { round, .. } => round.compare_with(v).is_some_and(|o| op.holds(o)),
            Literal::Seconds { seconds, .. } => base_seconds(v)
                .and_then(|s| s.partial_cmp(seconds))
                .is_some_and(|o| op.holds(o)),
            Literal::Number { number, .. } => number_in(v)
                .and_then(|n| n.partial_cmp(number))
                .is_some_and(|o| op.holds(o)),
            Literal::Text { text, number } => {
                if glob && matches!(op, Op::Eq | Op::Ne) && text.contains('*') {
                    return glob_match(text, v) == (op == Op::Eq);
                }
                let ordering = match (number, number_in(v)) {
                    (Some(a), Some(b)) => b.partial_cmp(a).unwrap_or(Ordering::Equal),
                    _ => v.cmp(text.as_str()),
                };
                op.holds(ordering)
            }
            Literal::Regex(_) => false,
        },
    }
}

/// The seconds of a `TimeControl`'s first period, as pgn-extract reads them: `180` of
/// `180+5`, `7200` of `40/7200:3600`, `60` of sandclock `*60`, `300` of `300`; none of `?`,
/// `-` or text.
fn base_seconds(v: &str) -> Option<f64> {
    let first = v.split(':').next().unwrap_or_default().trim();
    let digits = |s: &str| {
        let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
        s[..end].parse::<f64>().ok()
    };
    if first.contains('+') {
        digits(first)
    } else if let Some(rest) = first.strip_prefix('*') {
        digits(rest)
    } else if let Some((_, seconds)) = first.split_once('/') {
        digits(seconds)
    } else if !first.is_empty() && first.bytes().all(|b| b.is_ascii_digit()) {
        digits(first)
    } else {
        None
    }
}

fn number_in(v: &str) -> Option<f64> {
    v.trim().parse::<f64>().ok().filter(|n| n.is_finite())
}

/// Whether `text` matches `pattern`, where `*` is any run of characters. Linear in both:
/// each `*` is tried at the first place its next piece fits, which is enough for `*` alone.
fn glob_match(pattern: &str, text: &str) -> bool {
    let mut pieces = pattern.split('*');
    let first = pieces.next().unwrap_or("");
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    let pieces: Vec<&str> = pieces.collect();
    let Some((last, middle)) = pieces.split_last() else {
        // No `*`: the pattern is the whole text.
        return rest.is_empty();
    };
    for piece in middle {
        match rest.find(piece) {
            Some(i) => rest = &rest[i + piece.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_take_a_star_as_any_run() {
        for (p, t, m) in [
            ("Carlsen*", "Carlsen, Magnus", true),
            ("Carlsen*", "Magnus Carlsen", false),
            ("*Carlsen*", "Magnus Carlsen", true),
            ("*sen", "Carlsen", true),
            ("C*l*n", "Carlsen", true),
            ("C*x*n", "Carlsen", false),
            ("a*a", "a", false),
            ("*", "", true),
        ] {
            assert_eq!(glob_match(p, t), m, "{p} {t}");
        }
    }

    #[test]
    fn numbers_compare_as_numbers_only_when_both_are() {
        let parsed = |s: &str| match expr::parse(s).expect(s).expr {
            Expr::Test(Test::Tag { op, value, .. }) => (op, value),
            _ => unreachable!(),
        };
        let (op, lit) = parsed("WhiteElo >= 2500");
        assert!(compare("2600", op, &lit, false));
        assert!(!compare("900", op, &lit, false));
        // Text that is no number never passes a numeric test ("?" sorts after "2").
        assert!(!compare("?", op, &lit, false));
        let (op, lit) = parsed("ECO >= \"B90\"");
        assert!(compare("C00", op, &lit, false));
        assert!(!compare("B89", op, &lit, false));
        let (op, lit) = parsed("WhiteElo = \"2500\"");
        assert!(compare("2500.0", op, &lit, false));
    }

    #[test]
    fn time_controls_compare_by_their_base_seconds() {
        for (tc, seconds) in [
            ("180+5", Some(180.0)),
            ("40/7200:3600", Some(7200.0)),
            ("*60", Some(60.0)),
            ("300", Some(300.0)),
            ("?", None),
            ("-", None),
            ("blitz", None),
        ] {
            assert_eq!(base_seconds(tc), seconds, "{tc}");
        }
        let Expr::Test(Test::Tag { op, value, .. }) =
            expr::parse("TimeControl >= 180").expect("parses").expr
        else {
            unreachable!()
        };
        assert!(compare("180+5", op, &value, false));
        assert!(!compare("60+0", op, &value, false));
        for wrong in [
            "WhiteElo <= \"x\"",
            "PlyCount > abc",
            "TimeControl < \"40/\"",
        ] {
            assert!(expr::parse(wrong).is_err(), "{wrong}");
        }
        assert!(expr::parse("WhiteElo = \"-\"").is_ok());
    }

    #[test]
    fn a_tag_named_on_the_right_is_the_games_tag_and_a_word_a_value() {
        let mut lexed = Lexed::default();
        crate::pgn::lex_game(
            b"[White \"Carlsen\"]\n[WhiteElo \"2400\"]\n[BlackElo \"900\"]\n\
              [Date \"2024.05.01\"]\n[EventDate \"2024.??.??\"]\n\n*\n",
            true,
            1,
            &mut lexed,
        );
        let selects = |src: &str| {
            Selection::parse(src).expect(src).matches(&Facts {
                lexed: &lexed,
                replay: None,
                game: 1,
                file: "-",
            })
        };
        // As numbers (text would put "900" after "2400").
        assert_eq!(selects("WhiteElo > BlackElo"), Some(true));
        assert_eq!(selects("Date = EventDate"), Some(true));
        assert_eq!(
            selects("WhiteElo > BlackUSCF"),
            Some(false),
            "a missing tag"
        );
        assert_eq!(selects("ECO = C20"), Some(false), "a code stays a value");
        // Any other word is a value, as before tags could be compared.
        assert_eq!(selects("White = Carlsen"), Some(true));
        assert_eq!(selects("White != Carlsen"), Some(false));
        // pgn-extract's EloDiff, either way round.
        assert_eq!(selects("elo_diff = 1500"), Some(true));
        assert_eq!(selects("elo_diff < 1500"), Some(false));
    }

    #[test]
    fn rounds_compare_part_by_part_quoted_or_not() {
        let parsed = |s: &str| match expr::parse(s).expect(s).expr {
            Expr::Test(Test::Tag { op, value, .. }) => (op, value),
            _ => unreachable!(),
        };
        for src in ["Round = \"5.2\"", "Round = 5.2"] {
            let (op, lit) = parsed(src);
            assert!(compare("5.2", op, &lit, false), "{src}");
            assert!(!compare("5.20", op, &lit, false), "{src}");
            assert!(!compare("5.200", op, &lit, false), "{src}");
        }
        let (op, lit) = parsed("Round > 5.9");
        assert!(compare("5.10", op, &lit, false));
        assert!(!compare("?", op, &lit, false));
        let (op, lit) = parsed("Round = \"?\"");
        assert!(compare("?", op, &lit, false));
    }
}
