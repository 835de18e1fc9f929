//! Where a stream can likely be cut between games without reading it: for the parallel
//! pipeline, whose reader thread hands workers pieces of the stream instead of games.
//!
//! A game *likely ends* at a result token (`1-0`, `0-1`, `1/2-1/2`, `*`) that is the last
//! token of its line or is followed by a `;` comment (as some engine tournaments write
//! `1-0 ; { Game Nr. 1 ... }`): that is how database programs write games. A piece of the
//! stream is cut right after one; the games it likely holds are its tag sections. Both
//! are only likely (a comment can hold the same bytes, a game can lack its tags),
//! so the pipeline checks every piece against what the lexer really found and reads the
//! stream the exact way where they differ. Nothing here decides a game boundary on its own.

use memchr::{memchr, memchr2_iter, memrchr2_iter};

use super::lexer::{count_chars, is_bare_cr, last_line_start};
use super::GameResult;

/// Whether a result token ends at `data[end]` (delimited by a space or the line's start).
fn result_before(data: &[u8], start: usize, end: usize) -> bool {
    let mut token_start = end;
    while token_start > start && !matches!(data[token_start - 1], b' ' | b'\t' | b'\r') {
        token_start -= 1;
        if end - token_start > 7 {
            return false;
        }
    }
    GameResult::is_standard(&data[token_start..end])
}

/// Where a game likely ends in the line `data[start..end]` (without its line break): right
/// after its result token.
fn end_in_line(data: &[u8], start: usize, end: usize) -> Option<usize> {
    let spaces_before = |mut at: usize| {
        while at > start && matches!(data[at - 1], b' ' | b'\t' | b'\r') {
            at -= 1;
        }
        at
    };
    // Tag lines are most lines, and never end a game.
    if data.get(start) == Some(&b'[') {
        return None;
    }
    let last = spaces_before(end);
    // A result ends in `0`, `1`, `2` or `*`.
    if last > start
        && matches!(data[last - 1], b'0' | b'1' | b'2' | b'*')
        && result_before(data, start, last)
    {
        return Some(last);
    }
    let semicolon = start + memchr(b';', &data[start..end])?;
    let token_end = spaces_before(semicolon);
    (token_end > start
        && matches!(data[token_end - 1], b'0' | b'1' | b'2' | b'*')
        && result_before(data, start, token_end))
    .then_some(token_end)
}

/// The last place in `data` where a game likely ends, in a line that ends (with its line
/// break: `\n`, `\r\n` or `\r`) in `data`.
pub(crate) fn last_likely_end(data: &[u8]) -> Option<usize> {
    // Backwards: the last game end is usually within the last game. (The `\r` and the `\n`
    // of `\r\n` make an empty line between them, which ends nothing.)
    let mut breaks = memrchr2_iter(b'\n', b'\r', data).peekable();
    while let Some(end) = breaks.next() {
        let start = breaks.peek().map_or(0, |&p| p + 1);
        if let Some(at) = end_in_line(data, start, end) {
            return Some(at);
        }
    }
    None
}

/// The line breaks in a piece of the stream (cut after likely game ends), and the games it
/// likely holds: its tag sections, that is, its lines that start with `[` and a letter
/// and do not follow another such line (blank lines between do not count). A game's
/// commentary before its tags, its missing result or a comment after its result change
/// nothing to that count. One pass.
pub(crate) fn scan_piece(data: &[u8]) -> (u64, u64) {
    let (mut lines, mut games, mut start) = (0, 0, 0);
    // Whether the last line that is not blank was a tag line (none yet: no).
    let mut after_tag = false;
    let mut line = |from: usize, to: usize, after_tag: &mut bool| {
        let mut text = &data[from..to];
        // A byte order mark left by `cat a.pgn b.pgn` before a tag line.
        if text.first() == Some(&0xEF) {
            text = text.strip_prefix(&[0xEF, 0xBB, 0xBF]).unwrap_or(text);
        }
        let Some(&first) = text.first() else {
            return;
        };
        let tag = first == b'[' && text.get(1).is_some_and(u8::is_ascii_alphabetic);
        if tag {
            games += u64::from(!*after_tag);
            *after_tag = true;
        } else if !text
            .iter()
            .all(|b| matches!(b, b' ' | b'\t' | b'\r' | 0x0b | 0x0c))
        {
            *after_tag = false;
        }
    };
    for p in memchr2_iter(b'\n', b'\r', data) {
        if data[p] == b'\r' && !is_bare_cr(data, p) {
            // The `\r` of `\r\n`: a space at the end of its line.
            continue;
        }
        lines += 1;
        line(start, p, &mut after_tag);
        start = p + 1;
    }
    line(start, data.len(), &mut after_tag);
    (lines, games)
}

/// The column (in characters, 1-based) after `data`, which starts at column `col`.
pub(crate) fn column_after(data: &[u8], col: u32) -> u32 {
    match last_line_start(data) {
        0 => col + count_chars(data),
        start => 1 + count_chars(&data[start..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The places in `data` where a game likely ends, in order (a last line without a line
    /// break is not looked at).
    fn likely_ends(data: &[u8]) -> impl Iterator<Item = usize> + '_ {
        let mut start = 0;
        memchr::memchr_iter(b'\n', data).filter_map(move |p| {
            let line_start = std::mem::replace(&mut start, p + 1);
            end_in_line(data, line_start, p)
        })
    }

    const THREE: &[u8] = b"[Event \"a\"]\n\n1. e4 e5 1-0\n\n[Event \"b\"]\n\n1. d4 *\r\n\r\n[Event \"c\"]\n\n1. c4 1/2-1/2";

    #[test]
    fn games_likely_end_with_a_result_at_a_line_end() {
        let ends: Vec<usize> = likely_ends(THREE).collect();
        assert_eq!(ends.len(), 2);
        assert!(THREE[..ends[0]].ends_with(b"e5 1-0"));
        assert!(THREE[..ends[1]].ends_with(b"d4 *"));
        assert_eq!(last_likely_end(THREE), Some(ends[1]));
        // A line without its break is not looked at; a `\r` is a break (old Mac files).
        assert_eq!(last_likely_end(&THREE[..ends[1]]), Some(ends[0]));
        assert_eq!(last_likely_end(&THREE[..ends[1] + 1]), Some(ends[1]));
        let cr = b"[Event \"a\"]\r\r1. e4 e5 1-0\r\r[Event \"b\"]\r\r1. d4 *";
        assert_eq!(last_likely_end(cr), Some(25));
        assert_eq!(scan_piece(cr), (6, 2));
        assert_eq!(column_after(&cr[..25], 1), 13);
        let lines = THREE.iter().filter(|&&b| b == b'\n').count() as u64;
        assert_eq!(scan_piece(THREE), (lines, 3));
        assert_eq!(scan_piece(&THREE[..ends[1]]), (6, 2));
        assert_eq!(scan_piece(&THREE[ends[0]..]).1, 2);
        assert_eq!(scan_piece(b" \n\n"), (2, 0));
        // Commentary after the result, as some engine tournaments write it.
        let trailer = b"1. e4 1-0 ; { Game Nr. 1 }\n\n[Event \"b\"]\n";
        assert_eq!(likely_ends(trailer).collect::<Vec<_>>(), [9]);
        assert_eq!(column_after(&trailer[..9], 1), 10);
        assert_eq!(column_after("\n马f3 1-0".as_bytes(), 7), 8);
    }

    #[test]
    fn other_lines_do_not_likely_end_games() {
        for text in [
            &b"[Result \"1-0\"]\n"[..],
            b"1. e4 x1-0\n",
            b"1. e4 1-0 {won}\n",
            b"1. e4 e5\n\n",
            b"1-0x\n",
            b"1. e4 {a; b} e5\n",
            b"; 1-0 is not here\n",
            b"[Event \"x\"] 1-0\n",
        ] {
            assert_eq!(likely_ends(text).count(), 0, "{:?}", text);
            assert_eq!(last_likely_end(text), None);
        }
    }

    #[test]
    fn games_likely_held_are_tag_sections() {
        for (text, games) in [
            (
                &b"[Event \"a\"]\n[Site \"b\"]\n\n1. e4 1-0\n\n[Event \"c\"]\n\n1. d4 *\n"[..],
                2,
            ),
            // Blank lines inside a tag section, no result, commentary before the tags.
            (
                b"[Event \"a\"]\n\n[Date \"b\"]\n\n1. e4\n\n[Event \"c\"]\n1. d4 *",
                2,
            ),
            (b" ; { Game Nr. 1 }\n\n\n[Event \"b\"]\n1. e4 1-0", 1),
            // Not tags: a comment's line, an escape.
            (b"1. e4 {\n[%clk 0:01] }\n[ x\n", 0),
        ] {
            assert_eq!(
                scan_piece(text).1,
                games,
                "{:?}",
                String::from_utf8_lossy(text)
            );
        }
    }
}
