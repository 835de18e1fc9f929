//! The `--where` language: tokens, and a parser into [`Expr`]. Errors carry the byte offset
//! of the problem, for a caret under it.

use std::fmt;

use regex::Regex;
use shakmaty::{Board, ByColor, ByRole, CastlingMode, Chess, Color};

use super::round::Round;
use crate::pgn::date::GameDate;
use crate::rules::outcome::{Ending, GameResult, ENDINGS};

/// A problem in an expression: what is wrong, and where (a byte offset into it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub message: String,
    pub at: usize,
}

impl ParseError {
    fn new(message: impl Into<String>, at: usize) -> ParseError {
        ParseError {
            message: message.into(),
            at,
        }
    }

    /// The message, the expression and a caret under the problem, on three lines.
    pub fn render(&self, expr: &str) -> String {
        let column = expr
            .get(..self.at.min(expr.len()))
            .map_or(0, |s| s.chars().count());
        format!("{}\n  {expr}\n  {}^", self.message, " ".repeat(column))
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at byte {})", self.message, self.at)
    }
}

impl std::error::Error for ParseError {}

/// An expression over a game.
#[derive(Debug)]
pub enum Expr {
    /// Flat lists, so a long chain of tests nests no deeper than one.
    And(Vec<Expr>),
    Or(Vec<Expr>),
    Not(Box<Expr>),
    Test(Test),
}

/// A comparison operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// `~`: substring, or a regex match with `/.../`.
    Contains,
    /// `!~`: the negation of `~`.
    NotContains,
}

impl Op {
    fn as_str(self) -> &'static str {
        match self {
            Op::Eq => "=",
            Op::Ne => "!=",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
            Op::Contains => "~",
            Op::NotContains => "!~",
        }
    }

    /// Whether the operator holds for `ordering` (the game's value against the literal).
    pub fn holds(self, ordering: std::cmp::Ordering) -> bool {
        use std::cmp::Ordering::*;
        match self {
            Op::Eq => ordering == Equal,
            Op::Ne => ordering != Equal,
            Op::Lt => ordering == Less,
            Op::Le => ordering != Greater,
            Op::Gt => ordering == Greater,
            Op::Ge => ordering != Less,
            Op::Contains | Op::NotContains => false,
        }
    }
}

/// The value a tag or name is compared with.
#[derive(Debug)]
pub enum Literal {
    /// A quoted string or a bare word; `number` when it reads as one.
    Text {
        text: String,
        number: Option<f64>,
    },
    /// An unquoted number: the game's value must be a number too.
    Number {
        text: String,
        number: f64,
    },
    Date {
        text: String,
        date: GameDate,
    },
    /// A value of the `Round` tag written as a round (`5`, `5.2`), compared part by part.
    Round {
        text: String,
        round: Round,
    },
    Regex(Regex),
    /// A number compared with a `TimeControl` tag's base seconds (`180` for `180+5`), as
    /// pgn-extract compares them.
    Seconds {
        text: String,
        seconds: f64,
    },
}

impl Literal {
    /// The literal's text, for a substring test.
    pub fn text(&self) -> &str {
        match self {
            Literal::Text { text, .. }
            | Literal::Number { text, .. }
            | Literal::Date { text, .. }
            | Literal::Round { text, .. }
            | Literal::Seconds { text, .. } => text,
            Literal::Regex(re) => re.as_str(),
        }
    }
}

/// Whose name a name test looks at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sides {
    White,
    Black,
    Either,
}

/// A count the replay gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Count {
    Plies,
    Moves,
    Errors,
    Warnings,
}

/// What `termination =` tests: an ending by its one spelling ([`ENDINGS`]), or a claim
/// that could be made at some ply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndingTest {
    /// The game ended so: a rule ending (and `none`) as the replay's termination says it; a
    /// claimable draw as the first draw that could be claimed in a game no rule ended.
    Is(Ending),
    /// `threefold`: a threefold repetition could be claimed at some ply (the game may go on).
    Threefold,
    /// `fifty-moves`: a fifty-move draw could be claimed at some ply.
    FiftyMoves,
}

/// The keywords `termination =` took before the one spelling: kept, so that no expression
/// breaks.
pub const ENDING_KEYWORDS: &[(&str, EndingTest)] = &[
    ("dead-position", EndingTest::Is(Ending::DeadPosition)),
    ("fivefold", EndingTest::Is(Ending::Fivefold)),
    ("seventy-five-moves", EndingTest::Is(Ending::SeventyFive)),
    ("threefold", EndingTest::Threefold),
    ("fifty-moves", EndingTest::FiftyMoves),
];

/// What `termination = NAME` tests: NAME is an ending's one spelling or one of the
/// [`ENDING_KEYWORDS`].
fn ending_test(name: &str) -> Option<EndingTest> {
    Ending::parse(name).map(EndingTest::Is).or_else(|| {
        ENDING_KEYWORDS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, test)| test)
    })
}

/// The names `termination =` takes, as the "unknown termination" message lists them: the
/// spellings (quoted where they hold a space), then the keywords.
fn ending_names() -> String {
    let spellings = ENDINGS.iter().map(|&(_, s, _)| {
        if s.contains(' ') {
            format!("\"{s}\"")
        } else {
            s.to_owned()
        }
    });
    let keywords = ENDING_KEYWORDS.iter().map(|(n, _)| (*n).to_owned());
    spellings.chain(keywords).collect::<Vec<_>>().join(", ")
}

/// pgnkit's own fields (lowercase; a capitalised name is a tag), each with what it is: the
/// one list that `select --help`, its man page and the "unknown field" message show.
pub const FIELDS: &[(&str, &str)] = &[
    (
        "player",
        "the White or the Black tag; * in = and != is any run of characters",
    ),
    ("white", "the White tag, with * as for player"),
    ("black", "the Black tag, with * as for player"),
    ("plies", "main-line half-moves replayed"),
    ("moves", "main-line moves: plies halved, rounded up"),
    (
        "errors",
        "the errors `pgnkit validate` reports for the game",
    ),
    (
        "warnings",
        "the warnings `pgnkit validate` reports for the game",
    ),
    (
        "termination",
        "how the game ended by rule: checkmate, stalemate, threefold, none...",
    ),
    (
        "result_by_rule",
        "the result the rules decide: 1-0, 0-1 or 1/2-1/2",
    ),
    (
        "position",
        "a FEN the main line reaches (or its board and side to move)",
    ),
    (
        "material",
        "the pieces the main line has at some ply: \"KRPkr\"",
    ),
    (
        "pattern",
        "a position pattern matched at some ply: \"*/*/*/*/???PP???/*/*/*\"",
    ),
    (
        "balance",
        "pgn-extract's material balance (-z), either side's: \"R2P+ R=P*\"",
    ),
    (
        "white_balance",
        "the same with the first set White's (pgn-extract's -y)",
    ),
    (
        "material_diff",
        "White's material minus Black's at some ply, in pawns (Q 9, R 5...)",
    ),
    (
        "opposite_bishops",
        "one bishop each, on opposite colours, at some ply; a test alone",
    ),
    (
        "eco",
        "the ECO code of the opening the moves reach, as classified",
    ),
    ("opening", "the name of that classified opening"),
    (
        "elo_diff",
        "the difference of the WhiteElo and BlackElo tags, either way (pgn-extract's EloDiff)",
    ),
    (
        "game",
        "the game's number in its file, from 1, as validate reports it",
    ),
    (
        "file",
        "the name of the file the game came from, with * as for player",
    ),
];

/// What a game's positions are looked at for.
#[derive(Debug)]
pub enum Target {
    /// A full FEN: board, side to move, castling rights and en passant square (counted
    /// only when a capture is legal, as repetitions count it).
    Full(Box<Chess>),
    /// Only the board and the side to move.
    Board { board: Box<Board>, turn: Color },
    /// The pieces on the board: `material = "KRPkr"`.
    Material(ByColor<ByRole<u8>>),
    /// A position pattern: `pattern = "*/*/*/*/???PP???/*/*/*"`.
    Pattern(Box<super::pattern::Pattern>),
    /// pgn-extract's material balance (`balance`, `white_balance`): the first set White's,
    /// or either side's when `either`.
    Balance {
        balance: Box<super::material::Balance>,
        either: bool,
    },
    /// White's material minus Black's, in pawns, in relation `op` to `value`.
    Difference { op: Op, value: f64 },
    /// One bishop each, on squares of opposite colours.
    OppositeBishops,
}

/// A target, how many half-moves it must last, and the plies it is looked for at.
#[derive(Debug)]
pub struct Watched {
    pub target: Target,
    /// Reached when it holds at this many consecutive positions after the first (`for N`).
    pub lasts: u32,
    /// The first and last plies (0: the start position) it is looked for at (`at A..B`).
    pub plies: (u32, u32),
    /// A name for it (`label "x"`): select's `--add-label-tag` writes it in a `MatchLabel`
    /// tag when it is the test that matched first (pgn-extract's `FENPattern` label).
    pub label: Option<String>,
}

impl Watched {
    fn new(target: Target) -> Watched {
        let lasts = match &target {
            Target::Balance { balance, .. } => balance.lasts,
            _ => 0,
        };
        Watched {
            target,
            lasts,
            plies: (0, u32::MAX),
            label: None,
        }
    }
}

/// One test of a game.
#[derive(Debug)]
pub enum Test {
    Tag {
        name: String,
        op: Op,
        value: Literal,
    },
    /// A tag compared with another of the same game (`WhiteElo > BlackElo`): as numbers when
    /// both are, as dates when either name ends in `Date`, else as text; false when either
    /// is missing.
    TagPair {
        name: String,
        op: Op,
        other: String,
    },
    /// `player`, `white`, `black`: `=` takes `*` as any run of characters.
    Name {
        sides: Sides,
        op: Op,
        value: Literal,
    },
    Count {
        count: Count,
        op: Op,
        value: f64,
    },
    Termination {
        equal: bool,
        ending: EndingTest,
    },
    /// The result the rules decide, compared as text.
    ResultByRule {
        equal: bool,
        value: String,
    },
    /// Reached at some ply: an index into the selection's targets.
    Reached {
        equal: bool,
        target: usize,
    },
    /// `elo_diff`: |WhiteElo − BlackElo|; false when either is missing or no number.
    EloDiff {
        op: Op,
        value: f64,
    },
    /// `game`: the game's number in its file (from 1), as `validate` reports it.
    GameNumber {
        op: Op,
        value: f64,
    },
    /// `file`: the name of the input the game came from, with `*` as for names.
    File {
        op: Op,
        value: Literal,
    },
    /// The opening the classifier names from the moves (`eco`, `opening`), compared as a tag
    /// is.
    Classified {
        field: Classified,
        op: Op,
        value: Literal,
    },
}

/// What of a game's classified opening a test compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Classified {
    /// `eco`: the code, `B90`.
    Eco,
    /// `opening`: the name, `Sicilian Defense: Najdorf Variation`.
    Opening,
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Word(String),
    /// A run starting with a digit or `?`: a number, a date or a word like `1-0`.
    Bare(String),
    Str(String),
    Regex(String),
    Op(Op),
    /// `matches`: `~` with the value read as a regex, quoted or not.
    Matches,
    And,
    Or,
    Not,
    Open,
    Close,
}

fn describe(tok: &Tok) -> String {
    match tok {
        Tok::Word(w) | Tok::Bare(w) => format!("'{w}'"),
        Tok::Str(s) => format!("\"{s}\""),
        Tok::Regex(r) => format!("/{r}/"),
        Tok::Op(op) => format!("'{}'", op.as_str()),
        Tok::Matches => "'matches'".into(),
        Tok::And => "'and'".into(),
        Tok::Or => "'or'".into(),
        Tok::Not => "'not'".into(),
        Tok::Open => "'('".into(),
        Tok::Close => "')'".into(),
    }
}

fn lex(src: &str) -> Result<Vec<(Tok, usize)>, ParseError> {
    let bytes = src.as_bytes();
    let mut toks = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let tok = match c {
            b'(' => {
                i += 1;
                Tok::Open
            }
            b')' => {
                i += 1;
                Tok::Close
            }
            b'=' => {
                i += if bytes.get(i + 1) == Some(&b'=') {
                    2
                } else {
                    1
                };
                Tok::Op(Op::Eq)
            }
            b'!' => match bytes.get(i + 1) {
                Some(b'=') => {
                    i += 2;
                    Tok::Op(Op::Ne)
                }
                Some(b'~') => {
                    i += 2;
                    Tok::Op(Op::NotContains)
                }
                _ => {
                    i += 1;
                    Tok::Not
                }
            },
            b'<' | b'>' => {
                let eq = bytes.get(i + 1) == Some(&b'=');
                i += if eq { 2 } else { 1 };
                Tok::Op(match (c, eq) {
                    (b'<', false) => Op::Lt,
                    (b'<', true) => Op::Le,
                    (_, false) => Op::Gt,
                    (_, true) => Op::Ge,
                })
            }
            b'~' => {
                i += 1;
                Tok::Op(Op::Contains)
            }
            b'&' if bytes.get(i + 1) == Some(&b'&') => {
                i += 2;
                Tok::And
            }
            b'|' if bytes.get(i + 1) == Some(&b'|') => {
                i += 2;
                Tok::Or
            }
            b'"' | b'\'' | b'/' => {
                let (text, end) = quoted(src, i)?;
                i = end;
                if c == b'/' {
                    Tok::Regex(text)
                } else {
                    Tok::Str(text)
                }
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                while i < bytes.len()
                    && (bytes[i].is_ascii_alphanumeric() || matches!(bytes[i], b'_' | b'-'))
                {
                    i += 1;
                }
                let word = &src[start..i];
                match word {
                    "and" | "AND" => Tok::And,
                    "or" | "OR" => Tok::Or,
                    "not" | "NOT" => Tok::Not,
                    "matches" => Tok::Matches,
                    _ => Tok::Word(word.to_owned()),
                }
            }
            c if c.is_ascii_digit() || matches!(c, b'?' | b'-' | b'+' | b'.') => {
                while i < bytes.len()
                    && (bytes[i].is_ascii_alphanumeric()
                        || matches!(bytes[i], b'?' | b'-' | b'+' | b'.' | b'/' | b'_'))
                {
                    i += 1;
                }
                Tok::Bare(src[start..i].to_owned())
            }
            _ => {
                let ch = src[i..].chars().next().unwrap_or('?');
                return Err(ParseError::new(
                    format!("unexpected '{ch}': quote text values (\"...\")"),
                    i,
                ));
            }
        };
        toks.push((tok, start));
    }
    Ok(toks)
}

/// The text of a quoted string or regex opening at `start`, and the offset after the closing
/// quote. A backslash escapes the quote (and, in a string, itself); other escapes are kept.
fn quoted(src: &str, start: usize) -> Result<(String, usize), ParseError> {
    let quote = src.as_bytes()[start] as char;
    let mut text = String::new();
    let mut chars = src[start + 1..].char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            c if c == quote => return Ok((text, start + 1 + i + 1)),
            '\\' => match chars.next() {
                Some((_, e)) if e == quote || (e == '\\' && quote != '/') => text.push(e),
                // Any other escape is kept whole: a regex given with `matches "..."` needs
                // its `\w` and `\d`.
                Some((_, e)) => {
                    text.push('\\');
                    text.push(e);
                }
                None => break,
            },
            c => text.push(c),
        }
    }
    let what = if quote == '/' { "regex" } else { "string" };
    Err(ParseError::new(
        format!("this {what} has no closing {quote}"),
        start,
    ))
}

/// A parsed expression and the positions it looks for.
#[derive(Debug)]
pub struct Parsed {
    pub expr: Expr,
    pub targets: Vec<Watched>,
}

/// Parses an expression.
///
/// # Errors
///
/// The first problem, with where it is.
pub fn parse(src: &str) -> Result<Parsed, ParseError> {
    let toks = lex(src)?;
    let mut p = Parser {
        toks,
        pos: 0,
        end: src.len(),
        targets: Vec::new(),
        depth: 0,
    };
    if p.toks.is_empty() {
        return Err(ParseError::new(
            "empty expression: give a test such as WhiteElo >= 2500",
            0,
        ));
    }
    let expr = p.or()?;
    if let Some((tok, at)) = p.toks.get(p.pos) {
        let hint = if *tok == Tok::Close {
            "this ')' closes nothing"
        } else {
            "join tests with 'and' or 'or'"
        };
        return Err(ParseError::new(
            format!("unexpected {}: {hint}", describe(tok)),
            *at,
        ));
    }
    Ok(Parsed {
        expr,
        targets: p.targets,
    })
}

/// Parentheses and `not` nested deeper than this are refused: the parser recurses once a
/// level. docs/select.md gives the same number.
const MAX_DEPTH: usize = 64;

struct Parser {
    toks: Vec<(Tok, usize)>,
    pos: usize,
    /// The expression's length: where "at the end" problems are shown.
    end: usize,
    targets: Vec<Watched>,
    depth: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|(t, _)| t)
    }

    /// Where the next token starts (the end when there is none).
    fn here(&self) -> usize {
        self.toks.get(self.pos).map_or(self.end, |&(_, at)| at)
    }

    fn or(&mut self) -> Result<Expr, ParseError> {
        let mut all = vec![self.and()?];
        while self.peek() == Some(&Tok::Or) {
            self.pos += 1;
            all.push(self.and()?);
        }
        Ok(if all.len() == 1 {
            all.remove(0)
        } else {
            Expr::Or(all)
        })
    }

    fn and(&mut self) -> Result<Expr, ParseError> {
        let mut all = vec![self.unary()?];
        while self.peek() == Some(&Tok::And) {
            self.pos += 1;
            all.push(self.unary()?);
        }
        Ok(if all.len() == 1 {
            all.remove(0)
        } else {
            Expr::And(all)
        })
    }

    fn unary(&mut self) -> Result<Expr, ParseError> {
        // Only `(` and `not` recurse, so only they count: a test inside 64 parentheses is
        // 64 deep, as the docs say, not 65.
        if !matches!(self.peek(), Some(Tok::Not | Tok::Open)) {
            return self.test();
        }
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(ParseError::new(
                format!("nested more than {MAX_DEPTH} deep (each '(' and 'not' is a level)"),
                self.here(),
            ));
        }
        let expr = self.unary_inner();
        self.depth -= 1;
        expr
    }

    fn unary_inner(&mut self) -> Result<Expr, ParseError> {
        match self.peek() {
            Some(Tok::Not) => {
                self.pos += 1;
                Ok(Expr::Not(Box::new(self.unary()?)))
            }
            Some(Tok::Open) => {
                let open = self.here();
                self.pos += 1;
                let inner = self.or()?;
                if self.peek() != Some(&Tok::Close) {
                    let at = self.here();
                    return Err(ParseError::new(
                        if at == self.end {
                            format!("the '(' at byte {open} is not closed: add ')'")
                        } else {
                            "expected ')' or 'and' / 'or'".to_owned()
                        },
                        at,
                    ));
                }
                self.pos += 1;
                Ok(inner)
            }
            _ => self.test(),
        }
    }

    fn test(&mut self) -> Result<Expr, ParseError> {
        let at = self.here();
        let field = match self.toks.get(self.pos) {
            Some((Tok::Word(w), _)) => w.clone(),
            Some((tok, _)) => {
                return Err(ParseError::new(
                    format!("expected a tag or field name, found {}", describe(tok)),
                    at,
                ))
            }
            None => {
                return Err(ParseError::new(
                    "expected a test (such as Result = \"1-0\") at the end",
                    at,
                ))
            }
        };
        self.pos += 1;
        let op_at = self.here();
        if field == "opposite_bishops" && !matches!(self.peek(), Some(Tok::Op(_))) {
            // A test of its own: `opposite_bishops`, `opposite_bishops for 10`.
            let test =
                self.make_test(&field, at, Op::Eq, op_at, &Tok::Word("true".into()), op_at)?;
            return self.suffixes(test).map(Expr::Test);
        }
        if matches!(self.peek(), Some(Tok::Word(w)) if w == "in") {
            self.pos += 1;
            return self.range(&field, at, op_at);
        }
        let regex = self.peek() == Some(&Tok::Matches);
        let op = match self.peek() {
            Some(Tok::Op(op)) => *op,
            Some(Tok::Matches) => Op::Contains,
            _ => {
                return Err(ParseError::new(
                    format!("expected an operator (= != < <= > >= ~ !~) after '{field}'"),
                    op_at,
                ))
            }
        };
        self.pos += 1;
        let value_at = self.here();
        let value = match self.toks.get(self.pos) {
            Some((Tok::Str(s), _)) if regex => Tok::Regex(s.clone()),
            Some((tok @ (Tok::Word(_) | Tok::Bare(_) | Tok::Str(_) | Tok::Regex(_)), _)) => {
                tok.clone()
            }
            _ => {
                return Err(ParseError::new(
                    format!("expected a value after '{}'", op.as_str()),
                    value_at,
                ))
            }
        };
        self.pos += 1;
        let test = self.make_test(&field, at, op, op_at, &value, value_at)?;
        self.suffixes(test).map(Expr::Test)
    }

    /// `for N` (held for N half-moves), `at A..B` (only at these plies) and `label "NAME"`
    /// after a test of positions (`position`, `pattern`, `material`, `balance`...).
    fn suffixes(&mut self, test: Test) -> Result<Test, ParseError> {
        loop {
            let at = self.here();
            let word = match self.peek() {
                Some(Tok::Word(w)) if w == "for" || w == "at" || w == "label" => w.clone(),
                _ => return Ok(test),
            };
            let Test::Reached { target, .. } = test else {
                return Err(ParseError::new(
                    format!("'{word}' goes after a test of positions (position, pattern, material, balance...)"),
                    at,
                ));
            };
            self.pos += 1;
            let value_at = self.here();
            if word == "label" {
                let Some((Tok::Str(name) | Tok::Word(name), _)) = self.toks.get(self.pos) else {
                    return Err(ParseError::new(
                        "expected a name after 'label', as label \"french\"",
                        value_at,
                    ));
                };
                self.targets[target].label = Some(name.clone());
                self.pos += 1;
                continue;
            }
            let value = match self.toks.get(self.pos) {
                Some((Tok::Bare(v), _)) => v.clone(),
                // No number: refused below.
                _ => "x".to_owned(),
            };
            let number = |v: &str| v.parse::<u32>().ok();
            let watched = &mut self.targets[target];
            if word == "for" {
                watched.lasts = number(&value).ok_or_else(|| {
                    ParseError::new("expected a number of half-moves after 'for'", value_at)
                })?;
            } else {
                let (low, high) = value.split_once("..").unwrap_or((&value, &value));
                let low = if low.is_empty() { Some(0) } else { number(low) };
                let high = if high.is_empty() {
                    Some(u32::MAX)
                } else {
                    number(high)
                };
                match (low, high) {
                    (Some(low), Some(high)) if low <= high => watched.plies = (low, high),
                    _ => {
                        return Err(ParseError::new(
                            "expected plies after 'at': 10, 10..40, 10.. or ..40",
                            value_at,
                        ))
                    }
                }
            }
            self.pos += 1;
        }
    }

    /// The test that the replay reaches `target` (`!equal`: never reaches it).
    fn watch(&mut self, target: Target, equal: bool) -> Test {
        self.targets.push(Watched::new(target));
        Test::Reached {
            equal,
            target: self.targets.len() - 1,
        }
    }

    /// `FIELD in LOW..HIGH`: both ends included, either one left out for no bound. It is
    /// `FIELD >= LOW and FIELD <= HIGH`, so every field that orders takes it.
    fn range(&mut self, field: &str, at: usize, in_at: usize) -> Result<Expr, ParseError> {
        let value_at = self.here();
        let text = |tok: Option<&(Tok, usize)>| match tok {
            Some((tok @ (Tok::Bare(_) | Tok::Str(_) | Tok::Word(_)), _)) => Some(tok.clone()),
            _ => None,
        };
        let bounds = match (
            text(self.toks.get(self.pos)),
            self.toks.get(self.pos + 1).map(|(t, _)| t),
            text(self.toks.get(self.pos + 2)),
        ) {
            // `1..5`, `..5`, `1..` lex as one word.
            (Some(Tok::Bare(s)), _, _) if s.contains("..") => {
                self.pos += 1;
                let (low, high) = s.split_once("..").unwrap_or_default();
                let bound = |b: &str| (!b.is_empty()).then(|| Tok::Bare(b.to_owned()));
                (bound(low), bound(high))
            }
            // `"B90" .. "B99"`: three tokens.
            (Some(low), Some(Tok::Bare(dots)), Some(high)) if dots == ".." => {
                self.pos += 3;
                (Some(low), Some(high))
            }
            _ => {
                return Err(ParseError::new(
                    format!("expected a range after 'in', as {field} in 10..40"),
                    value_at,
                ))
            }
        };
        let mut tests = Vec::new();
        for (op, bound) in [(Op::Ge, bounds.0), (Op::Le, bounds.1)] {
            if let Some(bound) = bound {
                tests.push(Expr::Test(
                    self.make_test(field, at, op, in_at, &bound, value_at)?,
                ));
            }
        }
        match tests.len() {
            0 => Err(ParseError::new(
                "a range needs at least one end: 10..40, 10.. or ..40",
                value_at,
            )),
            1 => Ok(tests.remove(0)),
            _ => Ok(Expr::And(tests)),
        }
    }

    /// The test of `field` `op` `value`, the tokens read.
    fn make_test(
        &mut self,
        field: &str,
        at: usize,
        op: Op,
        op_at: usize,
        value: &Tok,
        value_at: usize,
    ) -> Result<Test, ParseError> {
        let field = field.to_owned();
        let value = value.clone();
        let bad_value = |m: String| ParseError::new(m, value_at);
        let err = |m: String| Err(bad_value(m));
        let only_equality = |what: &str| -> Result<bool, ParseError> {
            match op {
                Op::Eq => Ok(true),
                Op::Ne => Ok(false),
                _ => Err(ParseError::new(
                    format!("{what} takes only = or !=, not '{}'", op.as_str()),
                    op_at,
                )),
            }
        };
        let only_order = |what: &str| -> Result<(), ParseError> {
            if matches!(op, Op::Contains | Op::NotContains) {
                return Err(ParseError::new(
                    format!("{what} is a number: compare it with = != < <= > >="),
                    op_at,
                ));
            }
            Ok(())
        };
        match field.as_str() {
            "plies" | "moves" | "errors" | "warnings" => {
                let count = match field.as_str() {
                    "plies" => Count::Plies,
                    "moves" => Count::Moves,
                    "errors" => Count::Errors,
                    _ => Count::Warnings,
                };
                only_order(&field)?;
                match number_of(&value) {
                    Some(value) => Ok(Test::Count { count, op, value }),
                    None => err(format!("{field} is a count: expected a number")),
                }
            }
            "termination" => {
                let equal = only_equality("termination")?;
                let name = text_of(&value);
                match ending_test(name) {
                    Some(ending) => Ok(Test::Termination { equal, ending }),
                    None => err(format!(
                        "unknown termination '{name}': expected one of {}",
                        ending_names()
                    )),
                }
            }
            "result_by_rule" => {
                let equal = only_equality("result_by_rule")?;
                let value = text_of(&value);
                if GameResult::of_tag(value).is_none_or(|r| r == GameResult::Unknown) {
                    return err(format!(
                        "a result by rule is 1-0, 0-1 or 1/2-1/2, not '{value}'"
                    ));
                }
                Ok(Test::ResultByRule {
                    equal,
                    value: value.to_owned(),
                })
            }
            "position" => {
                let equal = only_equality("position")?;
                let target = position_target(text_of(&value)).map_err(bad_value)?;
                Ok(self.watch(target, equal))
            }
            "pattern" => {
                let equal = only_equality("pattern")?;
                let pattern = super::pattern::Pattern::parse(text_of(&value))
                    .map_err(|e| bad_value(format!("not a position pattern: {e}")))?;
                Ok(self.watch(Target::Pattern(Box::new(pattern)), equal))
            }
            "balance" | "white_balance" => {
                let equal = only_equality(&field)?;
                let balance = super::material::Balance::parse(text_of(&value))
                    .map_err(|e| bad_value(format!("not a material balance: {e}")))?;
                Ok(self.watch(
                    Target::Balance {
                        balance: Box::new(balance),
                        either: field == "balance",
                    },
                    equal,
                ))
            }
            "material_diff" => {
                only_order("material_diff")?;
                let value = number_of(&value).ok_or_else(|| {
                    bad_value("material_diff is in pawns: expected a number".into())
                })?;
                Ok(self.watch(Target::Difference { op, value }, true))
            }
            "opposite_bishops" => {
                let mut equal = only_equality("opposite_bishops")?;
                match text_of(&value) {
                    "true" => {}
                    "false" => equal = !equal,
                    other => {
                        return err(format!(
                            "opposite_bishops is true or false (or alone), not '{other}'"
                        ))
                    }
                }
                Ok(self.watch(Target::OppositeBishops, equal))
            }
            "material" => {
                let equal = only_equality("material")?;
                let target = material_target(text_of(&value)).map_err(bad_value)?;
                Ok(self.watch(target, equal))
            }
            "elo_diff" => {
                only_order("elo_diff")?;
                match number_of(&value) {
                    Some(value) => Ok(Test::EloDiff { op, value }),
                    None => err("elo_diff is a difference of ratings: expected a number".into()),
                }
            }
            "game" => {
                only_order("game")?;
                match number_of(&value) {
                    Some(value) => Ok(Test::GameNumber { op, value }),
                    None => err("game is the game's number in its file: expected a number".into()),
                }
            }
            "file" => {
                let value = literal(&value, op, Values::Text).map_err(bad_value)?;
                Ok(Test::File { op, value })
            }
            "player" | "white" | "black" => {
                let sides = match field.as_str() {
                    "player" => Sides::Either,
                    "white" => Sides::White,
                    _ => Sides::Black,
                };
                let value = literal(&value, op, Values::Text).map_err(bad_value)?;
                Ok(Test::Name { sides, op, value })
            }
            "eco" | "opening" => {
                let field = if field == "eco" {
                    Classified::Eco
                } else {
                    Classified::Opening
                };
                let value = literal(&value, op, Values::Text).map_err(bad_value)?;
                Ok(Test::Classified { field, op, value })
            }
            name if name.starts_with(|c: char| c.is_ascii_lowercase()) && !name.contains('-') => {
                Err(ParseError::new(
                    format!(
                        "unknown field '{name}': fields are {}; tag names start with a \
                         capital (WhiteElo)",
                        FIELDS
                            .iter()
                            .map(|(f, _)| *f)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    at,
                ))
            }
            name => {
                if name.contains('-') {
                    return Err(ParseError::new(
                        format!("'{name}' is no tag name: tag names have letters, digits and _"),
                        at,
                    ));
                }
                if let Tok::Word(other) = &value {
                    // Only a tag everyone knows by name: a bare word was always a value
                    // (`White = Carlsen`, `Result = Draw`), and stays one.
                    if tag_on_the_right(other) {
                        if matches!(op, Op::Contains | Op::NotContains) {
                            return Err(ParseError::new(
                                format!(
                                    "a tag compares with another ({other}) by = != < <= > >=; \
                                     quote the word to look for it: \"{other}\""
                                ),
                                op_at,
                            ));
                        }
                        return Ok(Test::TagPair {
                            name: name.to_owned(),
                            op,
                            other: other.clone(),
                        });
                    }
                }
                let values = if name.ends_with("Date") {
                    Values::Date
                } else if name == "Round" {
                    Values::Round
                } else if name == "TimeControl" {
                    Values::TimeControl
                } else {
                    Values::Text
                };
                let value = literal(&value, op, values).map_err(bad_value)?;
                let ordered = matches!(op, Op::Lt | Op::Le | Op::Gt | Op::Ge);
                if ordered
                    && numeric_tag(name)
                    && matches!(value, Literal::Text { number: None, .. })
                {
                    return err(format!(
                        "{name} is a number: compare it with one, as {name} {} {} (the \
                         value '{}' is no number)",
                        op.as_str(),
                        if name.ends_with("Elo") { 2500 } else { 40 },
                        value.text()
                    ));
                }
                if ordered && name == "TimeControl" && !matches!(value, Literal::Seconds { .. }) {
                    return err(format!(
                        "TimeControl compares by its base seconds: give a number, as \
                         TimeControl {} 180 (the value '{}' is none)",
                        op.as_str(),
                        value.text()
                    ));
                }
                Ok(Test::Tag {
                    name: name.to_owned(),
                    op,
                    value,
                })
            }
        }
    }
}

/// The text of a value token (a regex's pattern).
fn text_of(tok: &Tok) -> &str {
    match tok {
        Tok::Word(s) | Tok::Bare(s) | Tok::Str(s) | Tok::Regex(s) => s,
        _ => "",
    }
}

fn number_of(tok: &Tok) -> Option<f64> {
    match tok {
        Tok::Bare(s) | Tok::Str(s) => s.parse::<f64>().ok().filter(|n| n.is_finite()),
        _ => None,
    }
}

/// How a tag's values are read, by its name.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Values {
    /// Text, numbers, or dates when the value is written as one.
    Text,
    /// A tag whose name ends in `Date`: always dates.
    Date,
    /// `Round`: rounds of parts (`5.2`), never dates or decimal numbers.
    Round,
    /// `TimeControl`: a number is its base seconds (`180` for `180+5`).
    TimeControl,
}

/// Whether a bare name on the right of a test is the game's tag of that name rather than a
/// word: a tag of the PGN standard's roster and supplement (§8.1, §9), lichess's and FIDE's
/// common ones, or a name ending as a rating, a date or an id does (`BlackElo`, `EventDate`,
/// `BlackFideId`).
fn tag_on_the_right(name: &str) -> bool {
    const KNOWN: [&str; 33] = [
        "Event",
        "Site",
        "Date",
        "Round",
        "White",
        "Black",
        "Result",
        "WhiteTitle",
        "BlackTitle",
        "WhiteNA",
        "BlackNA",
        "WhiteType",
        "BlackType",
        "EventSponsor",
        "Section",
        "Stage",
        "Board",
        "Opening",
        "Variation",
        "SubVariation",
        "ECO",
        "NIC",
        "Time",
        "UTCTime",
        "TimeControl",
        "SetUp",
        "FEN",
        "Termination",
        "Annotator",
        "Mode",
        "Variant",
        "WhiteTeam",
        "BlackTeam",
    ];
    numeric_tag(name) || name.ends_with("Date") || KNOWN.contains(&name)
}

/// Whether a tag holds a number (a rating, a count, an id): a bound on it that is no number
/// is a mistake, not a comparison of text.
pub(crate) fn numeric_tag(name: &str) -> bool {
    ["Elo", "PlyCount", "FideId", "RatingDiff", "USCF"]
        .iter()
        .any(|end| name.ends_with(end))
}

/// The literal a tag or name is compared with, read as the tag's `values` are.
fn literal(tok: &Tok, op: Op, values: Values) -> Result<Literal, String> {
    if let Tok::Regex(pattern) = tok {
        if !matches!(op, Op::Contains | Op::NotContains) {
            return Err(format!(
                "a regex goes with ~ or !~, not '{}'; quote the text to compare with it",
                op.as_str()
            ));
        }
        // Bounded: an expression's regex compiles in linear time and bounded size.
        return regex::RegexBuilder::new(pattern)
            .size_limit(1 << 20)
            .build()
            .map(Literal::Regex)
            .map_err(|e| format!("bad regex: {}", first_line(&e.to_string())));
    }
    let text = text_of(tok).to_owned();
    let ordered = !matches!(op, Op::Contains | Op::NotContains);
    if values == Values::Round {
        // `5.2` is round 5, game 2: not a decimal number and not a date. A value that is no
        // round (`?`, `-`) compares as text.
        if let Some(round) = ordered.then(|| Round::parse(&text)).flatten() {
            return Ok(Literal::Round { text, round });
        }
        return Ok(Literal::Text { text, number: None });
    }
    if values == Values::TimeControl && ordered {
        if let Some(seconds) = text.parse::<f64>().ok().filter(|n| n.is_finite()) {
            return Ok(Literal::Seconds { text, seconds });
        }
    }
    let date_like = matches!(tok, Tok::Bare(s) if s.contains('.') || s.contains('?'));
    if ordered && (values == Values::Date || date_like) {
        return match GameDate::parse_whole(&text) {
            Some(d) => Ok(Literal::Date { text, date: d }),
            None => Err(format!(
                "expected a date such as 2024.01.31 (?? for an unknown month or day), not \
                 '{text}'"
            )),
        };
    }
    let number = text.parse::<f64>().ok().filter(|n| n.is_finite());
    Ok(match (tok, number) {
        (Tok::Bare(_), Some(number)) => Literal::Number { text, number },
        _ => Literal::Text { text, number },
    })
}

fn first_line(s: &str) -> &str {
    s.lines()
        .rfind(|l| l.starts_with("error:"))
        .unwrap_or(s.lines().next().unwrap_or(s))
}

/// `position = "FEN"`: a whole FEN, or only its board and side to move.
fn position_target(fen: &str) -> Result<Target, String> {
    let fields: Vec<&str> = fen.split_whitespace().collect();
    let bad = |e: &dyn fmt::Display| format!("not a FEN position ({e}): {fen}");
    if fields.len() == 2 {
        let board = Board::from_ascii_board_fen(fields[0].as_bytes()).map_err(|e| bad(&e))?;
        let turn = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            other => return Err(format!("the side to move is w or b, not '{other}'")),
        };
        return Ok(Target::Board {
            board: Box::new(board),
            turn,
        });
    }
    if fields.len() < 2 {
        return Err(format!(
            "a position needs at least the board and the side to move (\"... w\"): {fen}"
        ));
    }
    let parsed = shakmaty::fen::Fen::from_ascii(fen.as_bytes()).map_err(|e| bad(&e))?;
    // Another variant's fields would be dropped and the position taken for standard chess.
    if let Some(variant) = crate::rules::fen_of_a_variant(&parsed) {
        return Err(format!(
            "not a position of standard chess: the FEN has {}, so it is a {} position: {fen}",
            variant.what, variant.title
        ));
    }
    let position: Chess = parsed
        .into_position(CastlingMode::Standard)
        .map_err(|e| bad(&e))?;
    Ok(Target::Full(Box::new(position)))
}

/// `material = "KRPkr"`: white pieces in capitals, black in small letters, any order.
fn material_target(text: &str) -> Result<Target, String> {
    let mut material = ByColor::<ByRole<u8>>::default();
    for c in text.chars() {
        let Some(piece) = shakmaty::Piece::from_char(c) else {
            return Err(format!(
                "'{c}' is no piece letter: write the pieces as K Q R B N P (white) and \
                 k q r b n p (black), as \"KRPkr\""
            ));
        };
        let n = material.get_mut(piece.color).get_mut(piece.role);
        *n = n.saturating_add(1);
    }
    Ok(Target::Material(material))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(src: &str) -> ParseError {
        parse(src).expect_err(src)
    }

    /// The one spelling, quoted, and the keywords of earlier versions name the same ending.
    #[test]
    fn endings_are_named_by_their_spelling_or_an_old_keyword() {
        let ending = |src: &str| match parse(src).expect(src).expr {
            Expr::Test(Test::Termination {
                equal: true,
                ending,
            }) => ending,
            other => panic!("{src}: {other:?}"),
        };
        for (spelled, keyword) in [
            ("\"dead position\"", "dead-position"),
            ("\"fivefold repetition\"", "fivefold"),
            ("\"seventy-five moves\"", "seventy-five-moves"),
            ("checkmate", "\"checkmate\""),
        ] {
            assert_eq!(
                ending(&format!("termination = {spelled}")),
                ending(&format!("termination = {keyword}"))
            );
        }
        assert_eq!(
            ending("termination = \"perpetual check\""),
            EndingTest::Is(Ending::PerpetualCheck)
        );
        assert_eq!(ending("termination = threefold"), EndingTest::Threefold);
    }

    #[test]
    fn a_missing_value_is_shown_where_it_should_be() {
        let src = "WhiteElo >= and Result = \"1-0\"";
        let e = error(src);
        assert_eq!(e.message, "expected a value after '>='");
        assert_eq!(
            e.render(src),
            "expected a value after '>='\n  WhiteElo >= and Result = \"1-0\"\n              ^"
        );
    }

    #[test]
    fn wrong_expressions_point_at_the_problem() {
        for (src, at, word) in [
            ("", 0, "empty"),
            ("Result", 6, "operator"),
            ("(Result = \"1-0\"", 15, "not closed"),
            ("Result = \"1-0\")", 14, "closes nothing"),
            ("Result = \"1-0", 9, "closing"),
            ("termination = mate", 14, "unknown termination"),
            ("termination > checkmate", 12, "only = or !="),
            ("plies > many", 8, "number"),
            ("Event = /x/", 8, "regex goes with ~"),
            ("Event ~ /(/", 8, "bad regex"),
            ("Date >= 2024.13.01", 8, "date"),
            ("material = \"KX\"", 11, "piece letter"),
            ("position = \"8/8 w\"", 11, "FEN"),
            (
                "position = \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[QQqq] w KQkq - 0 1\"",
                11,
                "Crazyhouse",
            ),
            (
                "position = \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - +2+0 0 1\"",
                11,
                "Three-check",
            ),
            ("elo > 5", 0, "unknown field"),
            ("Result = \"1-0\" White = \"x\"", 15, "join tests"),
            ("Event = $", 8, "unexpected '$'"),
        ] {
            let e = error(src);
            assert_eq!(e.at, at, "{src}: {e:?}");
            assert!(e.message.contains(word), "{src}: {}", e.message);
        }
    }

    #[test]
    fn deep_nesting_is_refused_not_recursed() {
        let src = format!(
            "{}Result = \"1-0\"{}",
            "(".repeat(10_000),
            ")".repeat(10_000)
        );
        assert!(error(&src).message.contains("nested"));
        let src = format!("{}Result = \"1-0\"", "not ".repeat(10_000));
        assert!(error(&src).message.contains("nested"));
        // Exactly MAX_DEPTH levels, as docs/select.md promises; one more is refused.
        let nested = |open: &str, n: usize, close: &str| {
            format!("{}Result = \"1-0\"{}", open.repeat(n), close.repeat(n))
        };
        for (open, close) in [("(", ")"), ("not ", ""), ("not (", ")")] {
            let levels = if open == "not (" {
                MAX_DEPTH / 2
            } else {
                MAX_DEPTH
            };
            let src = nested(open, levels, close);
            assert!(
                parse(&src).is_ok(),
                "{levels} x {open}: {:?}",
                parse(&src).err()
            );
            let src = nested(open, levels + 1, close);
            assert!(
                error(&src).message.contains("nested"),
                "{} x {open}",
                levels + 1
            );
        }
        // A long chain is flat: parsed, and evaluated, without a deep stack.
        let src = vec!["Result = \"1-0\""; 100_000].join(" or ");
        assert!(
            matches!(parse(&src).expect("parses").expr, Expr::Or(ref all) if all.len() == 100_000)
        );
    }

    #[test]
    fn every_listed_field_is_one_the_parser_knows() {
        for (field, _) in FIELDS {
            let value = match *field {
                "termination" => "checkmate",
                "result_by_rule" => "1-0",
                "position" => "\"8/8/8/8/8/8/8/K1k5 w\"",
                "material" => "Kk",
                "pattern" => "\"*/*/*/*/*/*/*/*\"",
                "balance" | "white_balance" => "\"R2P+ R=P*\"",
                "opposite_bishops" => "true",
                _ => "1",
            };
            let src = format!("{field} = {value}");
            assert!(parse(&src).is_ok(), "{src}: {:?}", parse(&src).err());
        }
        // And the message for an unknown one names them all.
        let message = error("elo > 5").message;
        for (field, _) in FIELDS {
            assert!(message.contains(field), "{field}: {message}");
        }
    }

    #[test]
    fn and_binds_tighter_than_or() {
        let parsed = parse("A = 1 or B = 2 and C = 3").expect("parses");
        assert!(matches!(parsed.expr, Expr::Or(ref all) if matches!(all[1], Expr::And(..))));
    }

    #[test]
    fn values_are_typed_by_how_they_are_written() {
        let parsed = parse("WhiteElo >= 2500").expect("parses");
        assert!(matches!(
            parsed.expr,
            Expr::Test(Test::Tag {
                value: Literal::Number { .. },
                ..
            })
        ));
        let parsed = parse("Result = 1-0").expect("parses");
        assert!(matches!(
            parsed.expr,
            Expr::Test(Test::Tag {
                value: Literal::Text { .. },
                ..
            })
        ));
        let parsed = parse("EventDate < 2024.??.??").expect("parses");
        assert!(matches!(
            parsed.expr,
            Expr::Test(Test::Tag {
                value: Literal::Date { .. },
                ..
            })
        ));
    }
}
