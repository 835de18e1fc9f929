//! Reading an opening table: lichess's TSV (`eco`, `name`, `pgn`) or pgn-extract's `eco.pgn`.

use std::fmt;

use shakmaty::{Chess, Move, Position};

use super::Opening;
use crate::notation::ascii::plain_san;
use crate::notation::{CaptureClaim, MovePattern, ReadMove};
use crate::pgn::movetext::passed_over;
use crate::pgn::{lex_game, GameReader, LexProblemKind, Lexed, Token, TokenKind};
use crate::rules::game::{replay_movetext, CheckOptions};
use crate::rules::visit::{MainLine, Needs, Ply, Visitor};

/// A table line that does not read or replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableError {
    /// 1-based line of the table (of the game's first line in `eco.pgn`); 0 for the table as a
    /// whole.
    pub line: usize,
    pub message: String,
}

impl TableError {
    pub(super) fn new(line: usize, message: impl Into<String>) -> TableError {
        TableError {
            line,
            message: message.into(),
        }
    }
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            f.write_str(&self.message)
        } else {
            write!(f, "line {}: {}", self.line, self.message)
        }
    }
}

impl std::error::Error for TableError {}

/// Reads lichess's TSV: a header line `eco name pgn`, then one opening a line. Only the
/// columns are read here, not the moves: naming a code needs no position (see
/// [`replay_lines`]). Each opening comes with its line number.
pub(super) fn read_tsv(text: &str, out: &mut Vec<(Opening, usize)>) -> Result<(), TableError> {
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let line = line.trim_start_matches('\u{feff}').trim_end_matches('\r');
        if line.trim().is_empty() {
            continue;
        }
        let mut fields = line.split('\t');
        let (eco, name, pgn, more) = (fields.next(), fields.next(), fields.next(), fields.next());
        if i == 0 && eco.is_some_and(|f| f.trim().eq_ignore_ascii_case("eco")) {
            continue;
        }
        let (Some(eco), Some(name), Some(pgn), None) = (eco, name, pgn, more) else {
            return Err(TableError::new(
                n,
                format!(
                    "expected 3 columns separated by tabs (eco, name, pgn), found {}",
                    line.split('\t').count()
                ),
            ));
        };
        let (eco, name) = (eco.trim(), name.trim());
        if eco.is_empty() || name.is_empty() {
            return Err(TableError::new(
                n,
                "the eco and name columns must not be empty",
            ));
        }
        out.push((
            Opening {
                eco: eco.to_owned(),
                name: name.to_owned(),
                line: pgn.trim().to_owned(),
            },
            n,
        ));
    }
    Ok(())
}

/// Reads pgn-extract's `eco.pgn`: games from the standard start, each named by its tags
/// `ECO`, `Opening`, `Variation` (and `SubVariation`), read by the one PGN reader (comments,
/// NAGs and variations as in any game; only the main line's moves and numbers are kept).
pub(super) fn read_pgn(text: &str, out: &mut Vec<(Opening, usize)>) -> Result<(), TableError> {
    let mut reader = GameReader::new(text.as_bytes());
    let mut lexed = Lexed::default();
    while let Some(game) = reader
        .next_game(&mut lexed)
        .map_err(|e| TableError::new(0, e.to_string()))?
    {
        let line = game.line as usize;
        if let Some(p) = lexed.problems.iter().find(|p| {
            matches!(
                p.kind,
                LexProblemKind::MalformedTag
                    | LexProblemKind::UnterminatedTag
                    | LexProblemKind::UnescapedQuote
                    | LexProblemKind::InvalidUtf8Tag
            )
        }) {
            let bad = &game.bytes[p.span.start as usize..p.span.end as usize];
            return Err(TableError::new(
                p.span.line as usize,
                format!(
                    "expected a tag pair like [ECO \"A00\"], found {}",
                    String::from_utf8_lossy(bad).trim()
                ),
            ));
        }
        let (Some(eco), Some(opening)) = (lexed.tag("ECO"), lexed.tag("Opening")) else {
            return Err(TableError::new(
                line,
                "a game without the ECO and Opening tags that name it",
            ));
        };
        let mut name = opening.to_owned();
        if let Some(v) = lexed.tag("Variation").filter(|v| !v.is_empty()) {
            name.push_str(": ");
            name.push_str(v);
            if let Some(s) = lexed.tag("SubVariation").filter(|s| !s.is_empty()) {
                name.push_str(", ");
                name.push_str(s);
            }
        }
        let mut moves = Vec::new();
        let mut depth = 0u32;
        for t in &lexed.tokens {
            match t.kind {
                TokenKind::VariationStart => depth += 1,
                TokenKind::VariationEnd => depth = depth.saturating_sub(1),
                TokenKind::MoveNumber { .. } | TokenKind::Move if depth == 0 => {
                    let text = &game.bytes[t.span.start as usize..t.span.end as usize];
                    moves.push(String::from_utf8_lossy(text));
                }
                _ => {}
            }
        }
        out.push((
            Opening {
                eco: eco.to_owned(),
                name,
                line: moves.join(" "),
            },
            line,
        ));
    }
    Ok(())
}

/// The tokens of lines of SAN movetext, read by the one lexer: of each line, the tokens a
/// replay plays (its moves, and what stands where a move should: a variation, stray bytes),
/// up to its result. Move numbers, NAGs and comments are left out, so that two lines that
/// play the same moves have the same tokens.
pub(super) struct LineTokens {
    tokens: Vec<Token>,
    /// Line `i`'s tokens are `tokens[ends[i - 1]..ends[i]]`.
    ends: Vec<usize>,
}

impl LineTokens {
    pub(super) fn new<'a>(lines: impl IntoIterator<Item = &'a str>) -> LineTokens {
        let mut lexed = Lexed::default();
        let (mut tokens, mut ends) = (Vec::new(), Vec::new());
        for line in lines {
            lex_game(line.as_bytes(), true, 1, &mut lexed);
            tokens.extend(
                lexed
                    .tokens
                    .iter()
                    .take_while(|t| !matches!(t.kind, TokenKind::Result { .. }))
                    .filter(|t| !passed_over(t.kind)),
            );
            ends.push(tokens.len());
        }
        LineTokens { tokens, ends }
    }

    /// The tokens of line `i`.
    pub(super) fn of(&self, i: usize) -> &[Token] {
        let from = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.tokens[from..self.ends[i]]
    }
}

/// The moves (and other tokens that play) of a line of SAN movetext: a measure that orders
/// lines as their plies do.
pub(super) fn plies(line: &str) -> usize {
    LineTokens::new([line]).tokens.len()
}

/// The bytes of `token` in `line`.
fn text<'a>(line: &'a str, token: &Token) -> &'a [u8] {
    &line.as_bytes()[token.span.start as usize..token.span.end as usize]
}

/// Why a token of a line did not play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum LineError {
    /// Not a move in SAN: a lenient spelling, or no move at all (a variation, stray bytes).
    NotSan,
    /// A move in SAN that is not legal in the position: no legal move fits, or several do,
    /// or it claims a capture the move is not (or misses one it is).
    Illegal,
}

/// Plays `tokens` (spans into `line`) from `start` with the one replay, taking only strict
/// SAN, up to a result token or the slice's end; move numbers, NAGs and comments are passed
/// over. `played(i, mv, after)` is told each move played, with its token's index in `tokens`
/// and the position after it. `movetext` is a buffer to reuse.
///
/// # Errors
///
/// At the first token that does not play: its index in `tokens` and why.
pub(super) fn play_tokens(
    line: &str,
    tokens: &[Token],
    start: Chess,
    movetext: &mut Vec<u8>,
    played: impl FnMut(usize, Move, &Chess),
) -> Result<(), (usize, LineError)> {
    let end = tokens
        .iter()
        .position(|t| matches!(t.kind, TokenKind::Result { .. }))
        .unwrap_or(tokens.len());
    let tokens = &tokens[..end];
    let (Some(first), Some(last)) = (tokens.first(), tokens.last()) else {
        return Ok(());
    };
    // The movetext is the line's bytes from its first token to its last (a result or what
    // follows it is no part of it), and a result: without one, the movetext loop would hand
    // the end of every line to the lexer, to find how the game ends.
    movetext.clear();
    movetext.extend_from_slice(&line.as_bytes()[..last.span.end as usize]);
    movetext.extend_from_slice(b" *");
    let bytes = &movetext[..];
    let mut strict = StrictLine {
        bytes,
        tokens,
        pos: start.clone(),
        outcome: Ok(()),
        played,
    };
    let opts = CheckOptions::default();
    replay_movetext(bytes, first.span.start as usize, start, &opts, &mut strict);
    strict.outcome
}

/// A visitor of the replay of a line's tokens that wants only its main-line moves: with them
/// it walks the tokens, telling each move played in strict SAN and the position after it, up
/// to the first token that is not one. So the replay keeps to its movetext loop, and no
/// position is copied but those the caller keeps.
struct StrictLine<'a, F> {
    bytes: &'a [u8],
    tokens: &'a [Token],
    /// The position the line started from, then after each move told.
    pos: Chess,
    /// The first token that did not play, and why.
    outcome: Result<(), (usize, LineError)>,
    played: F,
}

impl<F: FnMut(usize, Move, &Chess)> Visitor for StrictLine<'_, F> {
    fn needs(&self) -> Needs {
        Needs {
            main_moves: true,
            ..Needs::NOTHING
        }
    }

    fn play(&mut self, _: &Ply<'_>) {}

    fn main_line(&mut self, line: MainLine<'_>) {
        let text = |t: &Token| &self.bytes[t.span.start as usize..t.span.end as usize];
        let tokens = self
            .tokens
            .iter()
            .enumerate()
            .filter(|(_, t)| !passed_over(t.kind));
        let mut moves = line.moves.iter();
        // The moves the replay played are the tokens' in order, until a token that is not a
        // move in strict SAN (a glued pair, a null move, a variation, stray bytes).
        for (i, token) in tokens {
            let read = (token.kind == TokenKind::Move)
                .then(|| plain_san(text(token)))
                .flatten();
            let why = match (read, moves.next()) {
                (None, _) => LineError::NotSan,
                // The main line broke here: a move in SAN, not legal.
                (Some(_), None) => LineError::Illegal,
                (Some(m), Some(mv)) if !capture_as_written(&m, mv) => LineError::Illegal,
                (Some(_), Some(&mv)) => {
                    self.pos.play_unchecked(mv);
                    (self.played)(i, mv, &self.pos);
                    continue;
                }
            };
            self.outcome = Err((i, why));
            return;
        }
    }
}

/// Whether the capture sign of `m`, strict SAN, is what `mv` is: the replay takes a missing
/// or wrong one (and notes it), SAN does not.
fn capture_as_written(m: &ReadMove, mv: &Move) -> bool {
    // As the matcher notes it: a move without a piece letter or a sign (UCI) claims nothing.
    match (m.pattern, m.capture) {
        (MovePattern::Normal(_), CaptureClaim::Capture) => mv.is_capture(),
        (MovePattern::Normal(_), CaptureClaim::Quiet) => !mv.is_capture(),
        (MovePattern::Normal(n), CaptureClaim::Unwritten) => n.role.is_none() || !mv.is_capture(),
        _ => true,
    }
}

/// The position at the end of each line (SAN movetext from the standard start).
///
/// The lines of a table share most of their moves (the 3,807 lines of lichess's table have
/// 36,895 moves but 8,649 distinct prefixes), and a SAN move costs a move generation: so the
/// lines are visited in the order of their text, and each replays only what follows the
/// moves it shares with the line visited before, from the position they reached: once a
/// distinct prefix, for a table that writes its lines alike.
///
/// # Errors
///
/// Of the lines whose moves do not read or are not legal, the first: its index and what is
/// wrong.
pub(super) fn replay_lines(lines: &[&str]) -> Result<Vec<Chess>, (usize, String)> {
    let tokens = LineTokens::new(lines.iter().copied());
    let texts = |i: usize| tokens.of(i).iter().map(move |t| text(lines[i], t));
    // Lines that share their first moves share their first bytes, as a table writes its
    // lines alike: sorted as text (far cheaper than as lists of tokens), they come together.
    let mut order: Vec<usize> = (0..lines.len()).collect();
    order.sort_unstable_by_key(|&i| lines[i]);
    let start = Chess::default();
    let mut out = vec![start.clone(); lines.len()];
    // The moves of the line visited last that replayed, and the position after each.
    let mut path: Vec<(&[u8], Chess)> = Vec::new();
    let mut first_error: Option<(usize, String)> = None;
    let mut movetext = Vec::new();
    for i in order {
        let line = tokens.of(i);
        let shared = path
            .iter()
            .zip(texts(i))
            .take_while(|((a, _), b)| a == b)
            .count();
        path.truncate(shared);
        let pos = path.last().map_or(&start, |(_, p)| p).clone();
        let rest = &line[shared..];
        let played = play_tokens(lines[i], rest, pos, &mut movetext, |k, _, after| {
            path.push((text(lines[i], &rest[k]), after.clone()));
        });
        if let Err((k, why)) = played {
            let token = &rest[k];
            let san = String::from_utf8_lossy(text(lines[i], token));
            let message = match why {
                LineError::NotSan => format!("{san:?} is not a move in SAN"),
                LineError::Illegal => format!(
                    "{san:?} is not legal here (after {})",
                    played_before(lines[i], token)
                ),
            };
            if first_error.as_ref().is_none_or(|(j, _)| i < *j) {
                first_error = Some((i, message));
            }
        }
        if let Some((_, pos)) = path.last() {
            out[i] = pos.clone();
        }
    }
    first_error.map_or(Ok(out), Err)
}

/// The moves of `moves` before `token`, for a message.
fn played_before<'a>(moves: &'a str, token: &Token) -> &'a str {
    let before = moves[..token.span.start as usize].trim();
    if before.is_empty() {
        "the start"
    } else {
        before
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play(line: &str) -> (Result<(), (usize, LineError)>, Vec<String>) {
        let mut lexed = Lexed::default();
        lex_game(line.as_bytes(), true, 1, &mut lexed);
        let mut moves = Vec::new();
        let r = play_tokens(
            line,
            &lexed.tokens,
            Chess::default(),
            &mut Vec::new(),
            |i, _, _| {
                let s = lexed.tokens[i].span;
                moves.push(line[s.start as usize..s.end as usize].to_owned());
            },
        );
        (r, moves)
    }

    #[test]
    fn numbers_nags_and_comments_are_passed_over_up_to_the_result() {
        let (r, moves) = play("1. e4 $1 {best} e5 2.Nf3 Nc6 * 3. Bb5");
        assert_eq!(r, Ok(()));
        assert_eq!(moves, ["e4", "e5", "Nf3", "Nc6"]);
    }

    #[test]
    fn the_first_token_that_does_not_play_is_named() {
        assert_eq!(play("1. e4 e5 2. Ke3").0, Err((4, LineError::Illegal)));
        assert_eq!(play("1. e2e4").0, Err((1, LineError::NotSan)));
        assert_eq!(play("1. e4 (1. d4)").0, Err((2, LineError::NotSan)));
        // A capture sign is SAN's: a wrong or missing one does not name the move.
        assert_eq!(play("1. e4 d5 2. ed5").0, Err((4, LineError::NotSan)));
        assert_eq!(play("1. e4 a6 2. e5 d5 3. exd6").0, Ok(()));
        assert_eq!(play("1. e4 e5 2. Nxf3").0, Err((4, LineError::Illegal)));
        // An origin SAN does not need is taken.
        assert_eq!(play("1. Ngf3").0, Ok(()));
    }

    #[test]
    fn a_tsv_line_that_does_not_replay_says_where_and_why() {
        let e = super::super::Table::parse("eco\tname\tpgn\nC20\tKing's Pawn\t1. e4 e5 2. Ke3\n")
            .unwrap_err();
        assert_eq!(e.line, 2);
        assert!(
            e.message
                .contains("\"Ke3\" is not legal here (after 1. e4 e5 2.)"),
            "{e}"
        );
    }

    #[test]
    fn an_eco_pgn_game_is_named_by_its_tags() {
        let text = "{ a table }\n[ECO \"C20\"]\n[Opening \"King's pawn\"]\n[Variation \"x; y\"]\n\n1. e4 e5 *\n\n[ECO \"A00\"]\n[Opening \"Polish\"]\n\n1. b4 *\n";
        let mut out = Vec::new();
        read_pgn(text, &mut out).unwrap();
        let names: Vec<_> = out
            .iter()
            .map(|(o, _)| (&*o.eco, &*o.name, &*o.line))
            .collect();
        assert_eq!(
            names,
            [
                ("C20", "King's pawn: x; y", "1. e4 e5"),
                ("A00", "Polish", "1. b4")
            ]
        );
    }

    #[test]
    fn an_eco_pgn_game_without_its_name_is_refused() {
        let mut out = Vec::new();
        let e = read_pgn("\n[Opening \"Polish\"]\n1. b4 *\n", &mut out).unwrap_err();
        assert_eq!(e.line, 2);
    }
}
