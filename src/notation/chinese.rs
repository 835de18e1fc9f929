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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::{read_token, CaptureClaim, CheckClaim, MovePattern, Notes};
    use shakmaty::Role;

    const NOTE_NAMES: &[(&str, u32)] = &[
        ("chinese", Notes::CHINESE),
        ("typo", Notes::TYPOGRAPHY),
        ("long", Notes::LONG_ALGEBRAIC),
        ("uci", Notes::UCI),
        ("castle", Notes::CASTLING_SPELLING),
        ("promo", Notes::PROMOTION_WITHOUT_EQUALS),
        ("ep", Notes::EN_PASSANT_MARK),
        ("dplus", Notes::DOUBLE_PLUS),
        ("figurine", Notes::FIGURINE),
        ("foreign", Notes::FOREIGN_LETTERS),
        ("lower", Notes::LOWERCASE_PIECE),
        ("null", Notes::NULL_MOVE),
    ];

    /// The columns of `testdata/notation/chinese.txt` for one read move.
    fn describe(m: &ReadMove, token: &str) -> Vec<String> {
        let opt = |c: Option<char>| c.unwrap_or('_');
        let pattern = match m.pattern {
            MovePattern::Normal(n) => {
                let mut s = format!(
                    "{}:{}{}:{}{}",
                    n.role.map_or('?', Role::upper_char),
                    opt(n.from_file.map(|f| f.char())),
                    opt(n.from_rank.map(|r| r.char())),
                    n.to_file.char(),
                    opt(n.to_rank.map(|r| r.char())),
                );
                if let Some(p) = n.promotion {
                    s.push('=');
                    s.push(p.upper_char());
                }
                s
            }
            MovePattern::Castle(shakmaty::CastlingSide::KingSide) => "O-O".into(),
            MovePattern::Castle(shakmaty::CastlingSide::QueenSide) => "O-O-O".into(),
            MovePattern::CastleAnySide => "O-O?".into(),
            MovePattern::Null => "null".into(),
        };
        let capture = match m.capture {
            CaptureClaim::Capture => "x",
            CaptureClaim::Quiet => "-",
            CaptureClaim::Unwritten => ".",
        };
        let check = match m.check {
            CheckClaim::None => ".",
            CheckClaim::Check => "+",
            CheckClaim::Mate => "#",
        };
        let mut names: Vec<&str> = NOTE_NAMES
            .iter()
            .filter(|(_, flag)| m.notes.has(*flag))
            .map(|(name, _)| *name)
            .collect();
        names.sort_unstable();
        let notes = if names.is_empty() {
            "-".to_owned()
        } else {
            names.join(",")
        };
        let text = &token[usize::from(m.start)..usize::from(m.end)];
        vec![pattern, capture.into(), check.into(), notes, text.into()]
    }

    #[test]
    fn table() {
        let data = include_str!("../../testdata/notation/chinese.txt");
        let mut out = Vec::new();
        let mut token = String::new();
        let mut index = 0;
        let mut rows = 0;
        for (number, line) in data.lines().enumerate() {
            let line_no = number + 1;
            let fields: Vec<&str> = line.split_whitespace().collect();
            if fields.is_empty() || fields[0].starts_with('#') {
                continue;
            }
            rows += 1;
            if fields[0] == "\"" {
                index += 1;
            } else {
                token = fields[0].to_owned();
                index = 0;
                let result = read_token(token.as_bytes(), &mut out);
                if let Some(kind) = fields[1].strip_prefix("error:") {
                    let expected = match kind {
                        "any" => ReadError::AnyMove,
                        "unreadable" => ReadError::Unreadable,
                        "malformed" => match &result {
                            Err(ReadError::Malformed(why)) => ReadError::Malformed(why),
                            _ => ReadError::Malformed("?"),
                        },
                        other => panic!("line {line_no}: unknown error kind {other}"),
                    };
                    assert_eq!(result, Err(expected), "line {line_no}: {token}");
                    continue;
                }
                assert_eq!(result, Ok(()), "line {line_no}: {token}");
            }
            let m = out
                .get(index)
                .unwrap_or_else(|| panic!("line {line_no}: {token} read as {out:?}"));
            let got = describe(m, &token);
            let mut want: Vec<String> = fields[1..].iter().map(|s| s.to_string()).collect();
            let mut want_notes: Vec<&str> = fields[4].split(',').collect();
            want_notes.sort_unstable();
            want[3] = want_notes.join(",");
            if want.len() == 4 {
                want.push(token.clone());
            }
            assert_eq!(got, want, "line {line_no}: {token}");
            let last = fields[0] != "\"" && index + 1 == out.len();
            let next_is_continuation = data
                .lines()
                .skip(line_no)
                .find(|l| !l.trim().is_empty() && !l.starts_with('#'))
                .is_some_and(|l| l.starts_with('"'));
            if fields[0] != "\"" && !next_is_continuation {
                assert!(last, "line {line_no}: {token} holds {} moves", out.len());
            }
        }
        assert!(rows > 100, "only {rows} rows read");
    }

    #[test]
    fn trailing_signs() {
        let mate = trailing_sign("×".as_bytes()).unwrap();
        assert_eq!(mate.check, Some(CheckClaim::Mate));
        assert_eq!(trailing_sign(b"x").unwrap().check, Some(CheckClaim::Mate));
        assert_eq!(
            trailing_sign("≠".as_bytes()).unwrap().check,
            Some(CheckClaim::Mate)
        );
        assert_eq!(
            trailing_sign("将死".as_bytes()).unwrap().check,
            Some(CheckClaim::Mate)
        );
        let check = trailing_sign("将军".as_bytes()).unwrap();
        assert_eq!(check.check, Some(CheckClaim::Check));
        assert!(check.notes.has(Notes::CHINESE));
        let ep = trailing_sign("吃过路兵".as_bytes()).unwrap();
        assert!(ep.notes.has(Notes::EN_PASSANT_MARK));
        assert_eq!(ep.check, None);
        assert!(trailing_sign(b"e.p.")
            .unwrap()
            .notes
            .has(Notes::EN_PASSANT_MARK));
        assert_eq!(
            trailing_sign("变后".as_bytes()).unwrap().promotion,
            Some(Role::Queen)
        );
        for not_a_sign in ["吃", "马", "e4", "", "x4", "!"] {
            assert_eq!(trailing_sign(not_a_sign.as_bytes()), None, "{not_a_sign}");
        }

        // Attaching: `11.后f5-f7 ×` is mate; `e7-e8 变后` promotes.
        let mut out = Vec::new();
        read("后f5-f7".as_bytes(), &mut out).unwrap();
        let mut m = out[0];
        mate.apply_to(&mut m);
        assert_eq!(m.check, CheckClaim::Mate);
        read("e7-e8".as_bytes(), &mut out).unwrap();
        let mut m = out[0];
        trailing_sign("变后".as_bytes()).unwrap().apply_to(&mut m);
        match m.pattern {
            MovePattern::Normal(n) => assert_eq!(n.promotion, Some(Role::Queen)),
            other => panic!("{other:?}"),
        }
        read("后h5+".as_bytes(), &mut out).unwrap();
        let mut m = out[0];
        check.apply_to(&mut m);
        assert_eq!(m.check, CheckClaim::Check);
        assert!(m.notes.has(Notes::DOUBLE_PLUS));
    }
}

#[cfg(test)]
mod primer {
    use crate::notation::test_match::fits;
    use crate::notation::{read_token, CheckClaim, MovePattern, ReadMove};
    use crate::pgn::{lex_game, Lexed, TokenKind};
    use shakmaty::{Chess, Position};

    /// The primer's sample game as printed: every move reads (the glued `+王e8-e7` as two),
    /// every move but the misprinted `7.象e4×f7+` names exactly one legal move, and that one
    /// names none, while its piece, destination and capture name only `象c4×f7+`.
    #[test]
    fn the_primer_game_replays_except_its_misprint() {
        let data = include_bytes!("../../testdata/notation/primer-legall.txt");
        let mut lexed = Lexed::default();
        lex_game(data, true, 1, &mut lexed);
        let mut moves: Vec<ReadMove> = Vec::new();
        let mut out = Vec::new();
        for t in lexed.tokens.iter().filter(|t| t.kind == TokenKind::Move) {
            let text = &data[t.span.start as usize..t.span.end as usize];
            if read_token(text, &mut out).is_ok() {
                moves.extend_from_slice(&out);
            }
        }
        assert_eq!(moves.len(), 15);

        let mut pos = Chess::default();
        for (i, read) in moves.iter().enumerate() {
            let legal = pos.legal_moves();
            let matching: Vec<_> = legal.iter().filter(|&&m| fits(read, m)).collect();
            let m = if i == 12 {
                assert!(matching.is_empty(), "象e4×f7+ must not match: {matching:?}");
                let MovePattern::Normal(mut loose) = read.pattern else {
                    panic!("{read:?}");
                };
                (loose.from_file, loose.from_rank) = (None, None);
                let loose = ReadMove {
                    pattern: MovePattern::Normal(loose),
                    ..*read
                };
                let guesses: Vec<_> = legal.iter().filter(|&&m| fits(&loose, m)).collect();
                assert_eq!(guesses.len(), 1, "{guesses:?}");
                assert_eq!(guesses[0].to_string(), "Bc4xf7");
                *guesses[0]
            } else {
                assert_eq!(matching.len(), 1, "move {}: {read:?}", i + 1);
                *matching[0]
            };
            pos.play_unchecked(m);
            let claim = if pos.is_checkmate() {
                CheckClaim::Mate
            } else if pos.is_check() {
                CheckClaim::Check
            } else {
                CheckClaim::None
            };
            assert_eq!(read.check, claim, "move {}", i + 1);
        }
        assert!(pos.is_checkmate());
    }
}
