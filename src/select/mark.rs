//! Marking where a selected game matched (`--mark-matches`, `--add-label-tag`, as
//! pgn-extract's `--markmatches` and `--addlabeltag`): a comment put into the game's bytes
//! after the move whose position matched first, and a `MatchLabel` tag after its tags. The
//! rest of the game stays byte for byte as read.

use crate::pgn::{lex_game, Lexed, TokenKind};

/// Where a game matched, as [`super::Selection::first_match`] finds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Match {
    /// The ply of the position that matched: 0 is the start, N the position after the main
    /// line's Nth move.
    pub ply: u32,
    /// The name of the test that matched (`label "..."`, a tag file's `FENPattern` label).
    pub label: Option<String>,
}

/// The game `bytes` with `comment` after the move of `at`'s ply (before the first move for
/// the start position; after the move's NAGs and comments, as pgn-extract appends it) and,
/// when `label` is asked and the test has one, a `MatchLabel` tag after its tags.
///
/// ```
/// use pgnkit::select::mark::{marked, Match};
///
/// let game = b"[White \"A\"]\n\n1. e4 e5 2. Nf3 *\n";
/// let at = Match { ply: 2, label: Some("open".into()) };
/// let out = marked(game, &at, Some("MATCH"), true);
/// assert_eq!(
///     String::from_utf8(out).unwrap(),
///     "[White \"A\"]\n[MatchLabel \"open\"]\n\n1. e4 e5 {MATCH} 2. Nf3 *\n"
/// );
/// ```
pub fn marked(bytes: &[u8], at: &Match, comment: Option<&str>, label: bool) -> Vec<u8> {
    let mut lexed = Lexed::default();
    lex_game(bytes, true, 1, &mut lexed);
    let mut inserts: Vec<(usize, Vec<u8>)> = Vec::new();
    if let Some(name) = at.label.as_deref().filter(|_| label) {
        let mut tag = String::from("[MatchLabel \"");
        crate::pgn::quote_tag_value(name, |piece| tag.push_str(piece));
        tag.push_str("\"]\n");
        // After the line of the last tag, or at the start of a game with none.
        let last_tag = lexed
            .tokens
            .iter()
            .rfind(|t| matches!(t.kind, TokenKind::Tag(_)))
            .map(|t| t.span.end as usize);
        let at = match last_tag {
            Some(end) => bytes[end..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(bytes.len(), |i| end + i + 1),
            None => 0,
        };
        let mut text = tag.into_bytes();
        if last_tag.is_some() && !bytes[..at].ends_with(b"\n") {
            text.insert(0, b'\n');
        }
        inserts.push((at, text));
    }
    if let Some(comment) = comment {
        if let Some(place) = comment_place(&lexed, at.ply) {
            let text = if at.ply == 0 {
                format!("{{{comment}}} ")
            } else {
                format!(" {{{comment}}}")
            };
            inserts.push((place, text.into_bytes()));
        }
    }
    let mut out = Vec::with_capacity(bytes.len() + 64);
    let mut from = 0;
    inserts.sort_by_key(|(at, _)| *at);
    for (at, text) in inserts {
        out.extend_from_slice(&bytes[from..at]);
        out.extend_from_slice(&text);
        from = at;
    }
    out.extend_from_slice(&bytes[from..]);
    out
}

/// The byte where the comment of ply `ply` goes: before the movetext's first token for 0;
/// else after the main line's `ply`th move and the NAGs and comments that follow it. `None`
/// when the game has no such move.
fn comment_place(lexed: &Lexed, ply: u32) -> Option<usize> {
    let movetext = lexed
        .tokens
        .iter()
        .filter(|t| !matches!(t.kind, TokenKind::Tag(_) | TokenKind::Escape));
    if ply == 0 {
        return movetext.clone().next().map(|t| t.span.start as usize);
    }
    let mut depth = 0u32;
    let mut moves = 0u32;
    let mut place: Option<usize> = None;
    for token in movetext {
        match token.kind {
            TokenKind::VariationStart => depth += 1,
            TokenKind::VariationEnd => depth = depth.saturating_sub(1),
            _ if depth > 0 => {}
            TokenKind::Move => {
                if place.is_some() {
                    break;
                }
                moves += 1;
                if moves == ply {
                    place = Some(token.span.end as usize);
                }
            }
            TokenKind::Nag(_) | TokenKind::Comment if place.is_some() => {
                place = Some(token.span.end as usize);
            }
            _ if place.is_some() => break,
            _ => {}
        }
        if depth > 0 && place.is_some() {
            break;
        }
    }
    place
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(game: &str, ply: u32, label: Option<&str>) -> String {
        let at = Match {
            ply,
            label: label.map(str::to_owned),
        };
        String::from_utf8(marked(game.as_bytes(), &at, Some("MATCH"), true)).expect("utf-8")
    }

    #[test]
    fn the_comment_follows_the_move_its_nags_and_comments() {
        let game = "[White \"A\"]\n[Black \"B\"]\n\n1. e4 $1 {best} (1. d4) 1... e5 2. Nf3 *\n";
        assert_eq!(
            mark(game, 1, None),
            "[White \"A\"]\n[Black \"B\"]\n\n1. e4 $1 {best} {MATCH} (1. d4) 1... e5 2. Nf3 *\n"
        );
        assert_eq!(
            mark(game, 2, Some("open")),
            "[White \"A\"]\n[Black \"B\"]\n[MatchLabel \"open\"]\n\n1. e4 $1 {best} (1. d4) \
             1... e5 {MATCH} 2. Nf3 *\n"
        );
        assert_eq!(
            mark(game, 0, None),
            "[White \"A\"]\n[Black \"B\"]\n\n{MATCH} 1. e4 $1 {best} (1. d4) 1... e5 2. Nf3 *\n"
        );
        // No such ply: nothing is put in.
        assert_eq!(mark(game, 9, None), game);
    }
}
