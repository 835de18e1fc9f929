//! The Chinese book layout as a game source: header lines (`白方:` `黑方:`, a free line with
//! date and place) above numbered moves, with no PGN tags. The header becomes `White`,
//! `Black`, `Date` and `Site` tags so the rest of pgnkit sees an ordinary game.

use super::lexer::{Lexed, TokenKind};

const WHITE: [&str; 2] = ["白方", "白"];
const BLACK: [&str; 2] = ["黑方", "黑"];

/// Turns book-layout header tokens at the start of a tagless game into tags. Returns true when
/// a header was found.
pub fn extract_header(bytes: &[u8], lexed: &mut Lexed) -> bool {
    if lexed.tag_count() > 0 {
        return false;
    }
    // Header tokens: the move tokens before the first move number.
    let header_len = lexed
        .tokens
        .iter()
        .take_while(|t| t.kind == TokenKind::Move)
        .count();
    if header_len == 0 {
        return false;
    }
    let text = |i: usize| {
        let s = lexed.tokens[i].span;
        String::from_utf8_lossy(&bytes[s.start as usize..s.end as usize]).into_owned()
    };
    let mut tags: Vec<(String, String, usize)> = Vec::new();
    let mut found = false;
    let mut i = 0;
    while i < header_len {
        let t = text(i);
        let mut matched = false;
        for (names, tag) in [(WHITE, "White"), (BLACK, "Black")] {
            for name in names {
                if let Some(rest) = t.strip_prefix(name) {
                    let rest = rest.trim_start_matches([':', '：', '︰']);
                    if rest.len() == t.len() - name.len() {
                        continue; // `白方` must be followed by a colon
                    }
                    let value = if rest.is_empty() && i + 1 < header_len {
                        i += 1;
                        text(i)
                    } else {
                        rest.to_string()
                    };
                    tags.push((tag.into(), value, i));
                    matched = true;
                    found = true;
                    break;
                }
            }
            if matched {
                break;
            }
        }
        if !matched {
            if let Some((date, place)) = date_and_place(&t) {
                tags.push(("Date".into(), date, i));
                if !place.is_empty() {
                    tags.push(("Site".into(), place, i));
                }
                found = true;
            } else if !found {
                return false;
            }
        }
        i += 1;
    }
    if !found {
        return false;
    }
    for (name, value, index) in tags {
        let span = lexed.tokens[index].span;
        lexed.push_tag(&name, &value, span, false);
    }
    // The header tokens become tag tokens, so nothing reads them as moves.
    let last_tag = lexed.tag_count().saturating_sub(1);
    for (k, t) in lexed.tokens.iter_mut().take(header_len).enumerate() {
        t.kind = TokenKind::Tag(k.min(last_tag) as u32);
    }
    true
}

/// `1981年5月1日于北京市…` → ("1981.05.01", "北京市…").
fn date_and_place(s: &str) -> Option<(String, String)> {
    let year_end = s.find('年')?;
    let year: u32 = s[..year_end].trim().parse().ok()?;
    let rest = &s[year_end + '年'.len_utf8()..];
    let (month, rest) = match rest.find('月') {
        Some(p) => (
            rest[..p].trim().parse::<u32>().ok(),
            &rest[p + '月'.len_utf8()..],
        ),
        None => (None, rest),
    };
    let (day, rest) = match rest.find('日') {
        Some(p) => (
            rest[..p].trim().parse::<u32>().ok(),
            &rest[p + '日'.len_utf8()..],
        ),
        None => (None, rest),
    };
    let two = |v: Option<u32>| {
        v.filter(|&v| (1..=31).contains(&v))
            .map_or("??".into(), |v| format!("{v:02}"))
    };
    let date = format!("{year:04}.{}.{}", two(month.filter(|&m| m <= 12)), two(day));
    let place = rest
        .trim_start_matches(['于', '於', '在'])
        .trim()
        .to_string();
    Some((date, place))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn::lexer::{lex_game, LexEnd};

    #[test]
    fn primer_header_becomes_tags() {
        let src = "白方:○○○ 黑方:××× 1981年5月1日于北京市勞動人民文化宮\n1. e2-e4 e7-e5 *";
        let mut lexed = Lexed::default();
        assert!(matches!(
            lex_game(src.as_bytes(), true, 1, &mut lexed),
            LexEnd::Complete(_)
        ));
        assert!(extract_header(src.as_bytes(), &mut lexed));
        assert_eq!(lexed.tag("White"), Some("○○○"));
        assert_eq!(lexed.tag("Black"), Some("×××"));
        assert_eq!(lexed.tag("Date"), Some("1981.05.01"));
        assert_eq!(lexed.tag("Site"), Some("北京市勞動人民文化宮"));
        let moves = lexed
            .tokens
            .iter()
            .filter(|t| t.kind == TokenKind::Move)
            .count();
        assert_eq!(moves, 2);
    }

    #[test]
    fn ordinary_moves_are_not_a_header() {
        let src = "e4 e5 *";
        let mut lexed = Lexed::default();
        lex_game(src.as_bytes(), true, 1, &mut lexed);
        assert!(!extract_header(src.as_bytes(), &mut lexed));
    }
}
