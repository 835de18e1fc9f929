//! The Chinese book layout as a game source: header lines (`白方:` `黑方:`, the date and
//! place, free text) above numbered moves, with no PGN tags. The header becomes `White`,
//! `Black`, `Date`, `Site` and `Event` tags so the rest of pgnkit sees an ordinary game.
//!
//! Header lines are read from the game's bytes, not from its tokens: names hold spaces, digits,
//! dots and quotes (`M4sseur 1.0`, `O"Neil`) that the lexer splits into move numbers and stray
//! characters. A name runs to the ideographic space U+3000, to the other side's marker, to a
//! date after a space, or to the end of the line.

use std::ops::Range;

use memchr::memchr;

use super::lexer::{count_chars, LexProblemKind, Lexed, Span, TokenKind};

const WHITE: [&str; 2] = ["白方", "白"];
const BLACK: [&str; 2] = ["黑方", "黑"];
const COLONS: [char; 3] = [':', '：', '︰'];
/// What separates the fields of a header line that pgnkit writes.
pub(crate) const SEPARATOR: char = '\u{3000}';

/// One field of a header line: the tag it becomes, its value, and where it is in the line
/// (bytes; a name with its side marker).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct HeaderField {
    /// The tag it becomes (`White`).
    pub tag: &'static str,
    /// Its value.
    pub value: String,
    /// Where it is in the line.
    pub range: Range<usize>,
}

/// Whether a lexed game may start with a book header: it has no tags, and its first token is
/// a symbol (a move to the lexer, or unknown when it is longer than a move can be).
pub(crate) fn may_hold_header(lexed: &Lexed) -> bool {
    lexed.tag_count() == 0
        && lexed
            .tokens
            .first()
            .is_some_and(|t| matches!(t.kind, TokenKind::Move | TokenKind::Unknown))
}

/// Turns book-layout header lines at the start of a tagless game into tags. Returns true when
/// a header was found. The tokens the lexer made of the header become tag tokens, and its
/// complaints about them (a `)` or `[` in a name) are dropped: nothing reads them as moves.
pub fn extract_header(bytes: &[u8], lexed: &mut Lexed) -> bool {
    if !may_hold_header(lexed) {
        return false;
    }
    let start = lexed.tokens[0].span.start as usize;
    let mut fields: Vec<HeaderField> = Vec::new();
    let mut header_end = start;
    let mut pos = start;
    while pos < bytes.len() {
        let line_end = memchr(b'\n', &bytes[pos..]).map_or(bytes.len(), |n| pos + n);
        let line = &bytes[pos..line_end];
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let Ok(text) = std::str::from_utf8(line) else {
            break;
        };
        if !text.trim().is_empty() {
            let Some((found, len)) = read_header_line(text) else {
                break;
            };
            fields.extend(found.into_iter().map(|f| HeaderField {
                range: pos + f.range.start..pos + f.range.end,
                ..f
            }));
            header_end = pos + len;
            if len < line.len() {
                break; // the moves begin on this line
            }
        }
        pos = line_end + 1;
    }
    if fields.is_empty() {
        return false;
    }
    lexed.book = true;
    let first_tag = lexed.tag_count();
    let mut cursor = None;
    for f in &fields {
        let span = span_at(bytes, lexed, f.range.clone(), &mut cursor);
        lexed.push_tag(f.tag, &f.value, span, false);
    }
    // Tokens and fields are both in order: each token belongs to the last field before it.
    let mut field = 0;
    for t in lexed.tokens.iter_mut() {
        let at = t.span.start as usize;
        if at >= header_end {
            break;
        }
        // A result ended the game (the lexer's decision); it stays one.
        if matches!(t.kind, TokenKind::Result { .. }) {
            continue;
        }
        while fields.get(field + 1).is_some_and(|f| f.range.start <= at) {
            field += 1;
        }
        t.kind = TokenKind::Tag((first_tag + field) as u32);
    }
    lexed.problems.retain(|p| {
        let at = p.span.start as usize;
        !((start..header_end).contains(&at)
            && matches!(
                p.kind,
                LexProblemKind::UnmatchedVariationEnd
                    | LexProblemKind::TagInMovetext
                    | LexProblemKind::BadNag
            ))
    });
    true
}

/// Reads one header line: `白方:… 黑方:…`, a date and place (`1981年5月1日于北京…`), a place
/// (`于北京`) and free text (the event), in any order, fields apart by U+3000 or spaces, up to
/// the first move if the moves follow on the same line (`… 1.e4`). Gives the fields and how
/// many bytes of the line they take; `None` when the line starts with neither a side marker nor
/// a date: it is no header line. An empty name reads as `?`, PGN's unknown.
pub(crate) fn read_header_line(line: &str) -> Option<(Vec<HeaderField>, usize)> {
    let line = &line[..moves_start(line)];
    let mut fields = Vec::new();
    let mut i = 0;
    loop {
        i += line[i..].len() - line[i..].trim_start().len();
        if i >= line.len() {
            break;
        }
        let rest = &line[i..];
        if let Some((tag, marker)) = side_marker(rest) {
            let after = &rest[marker..];
            let end = name_end(after);
            let end = date_after_name(&after[..end]).unwrap_or(end);
            let raw = &after[..end];
            let name = raw.trim();
            let at = i + marker + (raw.len() - raw.trim_start().len());
            fields.push(HeaderField {
                tag,
                value: if name.is_empty() { "?" } else { name }.to_string(),
                range: i..at + name.len(),
            });
            i += marker + end;
            continue;
        }
        let end = rest.find(SEPARATOR).unwrap_or(rest.len());
        let segment = rest[..end].trim_end();
        let range = i..i + segment.len();
        if let Some((date, place)) = date_and_place(segment) {
            fields.push(HeaderField {
                tag: "Date",
                value: date,
                range: range.clone(),
            });
            if !place.is_empty() {
                fields.push(HeaderField {
                    tag: "Site",
                    value: place,
                    range,
                });
            }
        } else if fields.is_empty() {
            return None;
        } else {
            let (tag, value) = match segment.strip_prefix(['于', '於']) {
                Some(place) => ("Site", place.trim()),
                None => ("Event", segment),
            };
            let value = value.to_string();
            fields.push(HeaderField { tag, value, range });
        }
        i += end;
    }
    (!fields.is_empty()).then_some((fields, line.len()))
}

/// First characters of a Chinese piece name (`马`, `骑士`, `國王`…).
const PIECE_START: &str = "王后後车車象马馬兵国國皇城主骑騎战戰";

/// Where the moves begin in a line: at `1.` (or `1．`, `1、`) after a space, followed by a
/// move's first character. `1.0` in `M4sseur 1.0` is no move.
fn moves_start(s: &str) -> usize {
    for (p, _) in s.match_indices('1') {
        if p > 0 && !s[..p].ends_with(char::is_whitespace) {
            continue;
        }
        let Some(after) = s[p + 1..].strip_prefix(['.', '．', '、']) else {
            continue;
        };
        let after = after.trim_start_matches(['.', '．']).trim_start();
        let is_move = after.starts_with(|c: char| {
            matches!(c, 'a'..='h' | 'ａ'..='ｈ' | 'K' | 'Q' | 'R' | 'B' | 'N')
                || PIECE_START.contains(c)
        });
        if is_move {
            return p;
        }
    }
    s.len()
}

/// The side marker (`白方:`, `黑：`) at the start of `s`: its tag and its length with the colon.
fn side_marker(s: &str) -> Option<(&'static str, usize)> {
    for (names, tag) in [(WHITE, "White"), (BLACK, "Black")] {
        for name in names {
            let Some(rest) = s.strip_prefix(name) else {
                continue;
            };
            if let Some(colon) = rest.chars().next().filter(|c| COLONS.contains(c)) {
                return Some((tag, name.len() + colon.len_utf8()));
            }
        }
    }
    None
}

/// Where a name that starts `s` ends: at U+3000, at the next side marker, or at the end.
fn name_end(s: &str) -> usize {
    s.char_indices()
        .find(|&(i, c)| {
            c == SEPARATOR || (matches!(c, '白' | '黑') && side_marker(&s[i..]).is_some())
        })
        .map_or(s.len(), |(i, _)| i)
}

/// Where a date begins in a name's text, after a space (`××× 1981年5月1日于…`): the digits
/// before a `年`. Each `年` is looked at once, so a long line takes linear time.
fn date_after_name(s: &str) -> Option<usize> {
    for (year_end, _) in s.match_indices('年') {
        let digits = s[..year_end]
            .bytes()
            .rev()
            .take_while(u8::is_ascii_digit)
            .count();
        let start = year_end - digits;
        let after_space = s[..start]
            .chars()
            .next_back()
            .is_some_and(char::is_whitespace);
        if digits > 0 && after_space && !s[..start].trim().is_empty() {
            return Some(start);
        }
    }
    None
}

/// The span of `range` (bytes of the game), its line and column counted from the last token
/// that starts at or before it, or from `cursor` (the previous field's place) when that is
/// nearer. Fields come in order, so each byte is counted once.
fn span_at(
    bytes: &[u8],
    lexed: &Lexed,
    range: Range<usize>,
    cursor: &mut Option<(usize, u32, u32)>,
) -> Span {
    let k = lexed
        .tokens
        .partition_point(|t| t.span.start as usize <= range.start);
    let base = lexed.tokens[k.saturating_sub(1)].span;
    let (mut at, mut line, mut col) = (base.start as usize, base.line, base.col);
    if let Some(c) = cursor.filter(|c| (at..=range.start).contains(&c.0)) {
        (at, line, col) = c;
    }
    let at = at.min(range.start);
    let between = &bytes[at..range.start];
    match between.iter().rposition(|&b| b == b'\n') {
        None => col += count_chars(between),
        Some(p) => {
            line += memchr::memchr_iter(b'\n', between).count() as u32;
            col = 1 + count_chars(&between[p + 1..]);
        }
    }
    *cursor = Some((range.start, line, col));
    Span {
        start: range.start as u32,
        end: range.end as u32,
        line,
        col,
    }
}

/// `1981年5月1日于北京市…` → ("1981.05.01", "北京市…").
fn date_and_place(s: &str) -> Option<(String, String)> {
    // Digits alone: Rust's reading of a number takes a `+` before them, which no year has,
    // and the lexer, which lexes a game whose first token may open a date whole, reads a
    // year as digits (`+1年` opened no header there and must open none here).
    let number = |t: &str| {
        let t = t.trim();
        (!t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
            .then(|| t.parse::<u32>().ok())
            .flatten()
    };
    let (year, rest) = s.split_once('年')?;
    let year = number(year)?;
    let (month, rest) = rest
        .split_once('月')
        .map_or((None, rest), |(n, r)| (number(n), r));
    let (day, rest) = rest
        .split_once('日')
        .map_or((None, rest), |(n, r)| (number(n), r));
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

    fn header(src: &str) -> Lexed {
        let mut lexed = Lexed::default();
        assert!(matches!(
            lex_game(src.as_bytes(), true, 1, &mut lexed),
            LexEnd::Complete(_)
        ));
        assert!(extract_header(src.as_bytes(), &mut lexed), "{src}");
        lexed
    }

    fn moves(lexed: &Lexed) -> usize {
        lexed
            .tokens
            .iter()
            .filter(|t| t.kind == TokenKind::Move)
            .count()
    }

    #[test]
    fn primer_header_becomes_tags() {
        let lexed =
            header("白方:○○○ 黑方:××× 1981年5月1日于北京市勞動人民文化宮\n1. e2-e4 e7-e5 *");
        assert_eq!(lexed.tag("White"), Some("○○○"));
        assert_eq!(lexed.tag("Black"), Some("×××"));
        assert_eq!(lexed.tag("Date"), Some("1981.05.01"));
        assert_eq!(lexed.tag("Site"), Some("北京市勞動人民文化宮"));
        assert_eq!(moves(&lexed), 2);
    }

    #[test]
    fn names_run_to_the_wide_space_or_the_other_marker() {
        let lexed = header("白方:M4sseur 1.0　黑方:Stockfish_15_3k\n1.e4 e5 *");
        assert_eq!(lexed.tag("White"), Some("M4sseur 1.0"));
        assert_eq!(lexed.tag("Black"), Some("Stockfish_15_3k"));
        assert_eq!(moves(&lexed), 2);
        let lexed = header("白方:Ding Liren 黑方:Stockfish dev-20231106\n1.e4 *");
        assert_eq!(lexed.tag("White"), Some("Ding Liren"));
        assert_eq!(lexed.tag("Black"), Some("Stockfish dev-20231106"));
        let lexed = header("白方：O\"Neil (IRL)黑方:?　2024年3月\n1.e4 *");
        assert_eq!(lexed.tag("White"), Some("O\"Neil (IRL)"));
        assert_eq!(lexed.tag("Black"), Some("?"));
        assert_eq!(lexed.tag("Date"), Some("2024.03.??"));
        assert!(lexed.problems.is_empty(), "{:?}", lexed.problems);
    }

    #[test]
    fn moves_on_the_header_line_stay_moves() {
        let lexed = header("白方:M4sseur 1.0 黑方:乙 1981年5月于北京 1.e4 e5 2.马f3 *");
        assert_eq!(lexed.tag("White"), Some("M4sseur 1.0"));
        assert_eq!(lexed.tag("Black"), Some("乙"));
        assert_eq!(lexed.tag("Site"), Some("北京"));
        assert_eq!(moves(&lexed), 3);
        let lexed = header("白方:甲 黑方:乙\n1. e4 e5 *");
        assert_eq!(moves(&lexed), 2);
    }

    #[test]
    fn header_fields_have_their_columns() {
        let lexed = header("白方:甲 乙　黑方:丙\n1.e4 *");
        let black = lexed.tags().find(|t| t.name == "Black").unwrap();
        assert_eq!((black.span.line, black.span.col), (1, 8));
    }

    #[test]
    fn a_date_is_written_in_digits() {
        let date = |s| date_and_place(s).map(|(d, _)| d);
        assert_eq!(date("1981年5月1日"), Some("1981.05.01".to_string()));
        assert_eq!(date(" 1981 年 5 月"), Some("1981.05.??".to_string()));
        // A sign is no part of a year (the lexer opens no header there), nor of a month.
        assert_eq!(date("+1年5本"), None);
        assert_eq!(date("1981年+5月"), Some("1981.??.??".to_string()));
    }

    #[test]
    fn place_and_event_fields() {
        let (fields, _) = read_header_line("白方:甲　黑方:乙　于New York　Club blitz").unwrap();
        let got: Vec<(&str, &str)> = fields.iter().map(|f| (f.tag, f.value.as_str())).collect();
        assert_eq!(
            got,
            [
                ("White", "甲"),
                ("Black", "乙"),
                ("Site", "New York"),
                ("Event", "Club blitz")
            ]
        );
    }

    #[test]
    fn long_header_lines_take_linear_time() {
        // Quadratic work on these would take minutes.
        let digits = format!("白方:{}", "1 ".repeat(200_000));
        let markers = "白:黑:".repeat(100_000);
        let years = format!("白方:x {}", "1年 ".repeat(100_000));
        for line in [digits, markers, years] {
            let src = format!("{line}\n1.e4 *");
            let mut lexed = Lexed::default();
            lex_game(src.as_bytes(), true, 1, &mut lexed);
            assert!(
                extract_header(src.as_bytes(), &mut lexed),
                "{:?}",
                &lexed.tokens[..3]
            );
        }
    }

    #[test]
    fn any_cut_of_a_header_is_safe() {
        // Cut at every byte (inside characters too), the header and its neighbours never
        // panic, and whatever is found lies within the bytes.
        let src = "白方：O\"Neil (IRL)　黑：張 三 1999年12月于台北　Open {x} ; y\r\n\
                   黑方:2024年\n白方:\n1.e4 e5 *";
        for cut in 0..=src.len() {
            let bytes = &src.as_bytes()[..cut];
            let mut lexed = Lexed::default();
            lex_game(bytes, true, 1, &mut lexed);
            extract_header(bytes, &mut lexed);
            for t in lexed.tags() {
                assert!(t.span.start <= t.span.end && t.span.end as usize <= cut);
            }
        }
    }

    #[test]
    fn ordinary_moves_are_not_a_header() {
        let src = "e4 e5 *";
        let mut lexed = Lexed::default();
        lex_game(src.as_bytes(), true, 1, &mut lexed);
        assert!(!extract_header(src.as_bytes(), &mut lexed));
        assert_eq!(read_header_line("1.e4 白方:甲"), None);
    }
}
