//! Replaying a slice of movetext tokens from a given position, with no game around it: the
//! lines of an opening table, which share their first moves, so that one line goes on from
//! the position another reached. Moves are read and matched as a game's replay reads and
//! matches them, but only strict SAN is taken, and nothing is reported but the first token
//! that does not play.

use shakmaty::{Chess, Move, Position};

use crate::notation::ascii::plain_san;
pub use crate::pgn::movetext::passed_over;
use crate::pgn::{Token, TokenKind};
use crate::rules::matcher;

/// Why a token of a slice did not play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SliceError {
    /// Not a move in SAN: a lenient spelling, or no move at all (a variation, stray bytes).
    NotSan,
    /// A move in SAN that is not legal in the position: no legal move fits, or several do,
    /// or it claims a capture the move is not (or misses one it is).
    Illegal,
}

/// Plays `tokens`, spans into `bytes`, from `pos` until a result token or the slice's end;
/// move numbers, NAGs and comments are passed over. `played(i, mv, after)` is told each move
/// played, with its token's index in `tokens` and the position after it (`pos` is then that
/// position too).
///
/// # Errors
///
/// At the first token that does not play: its index in `tokens` and why; `pos` is then the
/// position before it.
pub fn play_slice(
    bytes: &[u8],
    tokens: &[Token],
    pos: &mut Chess,
    mut played: impl FnMut(usize, Move, &Chess),
) -> Result<(), (usize, SliceError)> {
    for (i, token) in tokens.iter().enumerate() {
        match token.kind {
            TokenKind::Move => {
                let text = &bytes[token.span.start as usize..token.span.end as usize];
                let mv = play_san(pos, text).map_err(|e| (i, e))?;
                pos.play_unchecked(mv);
                played(i, mv, pos);
            }
            TokenKind::Result { .. } => break,
            kind if passed_over(kind) => {}
            _ => return Err((i, SliceError::NotSan)),
        }
    }
    Ok(())
}

/// The legal move the strict SAN `text` names in `pos`. An origin given where SAN needs none
/// is taken, as SAN readers take it.
fn play_san(pos: &Chess, text: &[u8]) -> Result<Move, SliceError> {
    let m = plain_san(text).ok_or(SliceError::NotSan)?;
    let checkers = pos.checkers();
    if let Some(mv) = matcher::find_move_fast(pos, &m, checkers) {
        return Ok(mv);
    }
    match matcher::find_move_noting(pos, &m, checkers) {
        Ok((mv, notes)) if !notes.missing_capture && !notes.wrong_capture => Ok(mv),
        _ => Err(SliceError::Illegal),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn::{lex_game, Lexed};

    fn play(line: &str) -> (Result<(), (usize, SliceError)>, Vec<String>) {
        let mut lexed = Lexed::default();
        lex_game(line.as_bytes(), true, 1, &mut lexed);
        let mut pos = Chess::default();
        let mut moves = Vec::new();
        let r = play_slice(line.as_bytes(), &lexed.tokens, &mut pos, |i, _, _| {
            let s = lexed.tokens[i].span;
            moves.push(line[s.start as usize..s.end as usize].to_owned());
        });
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
        assert_eq!(play("1. e4 e5 2. Ke3").0, Err((4, SliceError::Illegal)));
        assert_eq!(play("1. e2e4").0, Err((1, SliceError::NotSan)));
        assert_eq!(play("1. e4 (1. d4)").0, Err((2, SliceError::NotSan)));
        // A capture sign is SAN's: a wrong or missing one does not name the move.
        assert_eq!(play("1. e4 d5 2. ed5").0, Err((4, SliceError::NotSan)));
        assert_eq!(play("1. e4 a6 2. e5 d5 3. exd6").0, Ok(()));
        assert_eq!(play("1. e4 e5 2. Nxf3").0, Err((4, SliceError::Illegal)));
        // An origin SAN does not need is taken.
        assert_eq!(play("1. Ngf3").0, Ok(()));
    }
}
