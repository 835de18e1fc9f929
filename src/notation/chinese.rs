//! Reading Chinese notation for international chess (国际象棋记谱法): piece names in simplified
//! or traditional characters (`马g1-f3`, `車1d3`), Chinese sign words (`将军`, `将死`, `吃过路兵`,
//! `短易位`), full-width signs and glued moves, as the reference on Chinese notation lists
//! them. Writing lives in [`super::write`].

use super::letters::Lang;
use super::{scan, ReadError, ReadMove};

pub use super::scan::TrailingSign;

/// Reads one move token in Chinese notation. A token may hold several glued moves
/// (`象e4×f7+王e8-e7`): a piece name always starts a new move, and each entry in `out` carries
/// its byte range within the token.
///
/// Every move that contains Chinese characters is noted [`Notes::CHINESE`](super::Notes);
/// full-width or typographic signs (`＋`, `０-０`, `e2–e4`) are noted `TYPOGRAPHY`. English
/// piece letters are also understood (`d8Q`, `e8=Q`), as are `0-0`/`O-O`, `e.p.` and
/// figurines, since real texts mix them.
///
/// What a pattern means follows the primer: a full record without a piece name (`e2-e4`)
/// names squares only (role `None`); a short record without one is a pawn move (`e4`, `ed5`,
/// `cd` with `to_rank: None`); a pawn pattern never lacks its file when it claims a capture
/// through two files.
///
/// # Errors
///
/// [`ReadError::AnyMove`] for `~`; [`ReadError::Malformed`] for a recognisable but broken move
/// (`马g-f3`, `e8=`); [`ReadError::Unreadable`] otherwise. On error `out` is left empty.
pub fn read(token: &[u8], out: &mut Vec<ReadMove>) -> Result<(), ReadError> {
    scan::read(token, Lang::En, out)
}

/// Recognises a token that is only a sign belonging to the move before it: a lone mate sign
/// (`×` or `x` after a move means mate in older texts: `11.后f5-f7 ×`; also `≠`, `#`, `将死`),
/// a check sign (`+`, `将军`), an en passant mark (`e.p.`, `吃过路兵`) or a promotion written
/// apart (`变后`, `=后`).
///
/// The lexer splits these off as tokens of their own. The caller should try this function on
/// a move token *before* reading it as a move; when it returns `Some` and the token directly
/// follows a move of the same line of play (no comment, variation or move number between),
/// call [`TrailingSign::apply_to`] on that move's [`ReadMove`] and widen the move's span to
/// the sign's. When there is no such move, report the token as a stray sign.
pub fn trailing_sign(token: &[u8]) -> Option<TrailingSign> {
    scan::trailing_sign(token)
}
