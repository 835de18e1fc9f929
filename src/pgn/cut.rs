//! Where a game starts, told from the bytes around a line without reading the stream from its
//! start: the one rule by which `--range` finds where its games begin
//! ([`crate::input::range`]) and the parallel pipeline cuts the stream into pieces for its
//! workers ([`crate::input::pipeline`]).
//!
//! A game *starts* at a line that looks like a tag pair (`[`, a name, spaces, `"`; a byte order
//! mark left by `cat a.pgn b.pgn` may come first) when the last line before it that is not
//! blank is no tag pair's: it does not end with `]`. The reader starts a game there too
//! whenever a movetext has begun before it: a line that looks like a tag pair ends a game,
//! even inside a comment or a variation left open, and a result has ended it anyway. So the
//! rule errs only where a tag section is broken by something else (a comment, `;` or `%`
//! line between two tags), which no program writes. It is cautious the other way: the reader
//! also starts games where it sees none (a tag repeated after a tag section without moves,
//! blank lines reaching further back than [`LOOKBACK`]), which makes a range or a piece run
//! on over one game more, as the reader of the stream does.
//!
//! Whether a line starts a game depends on at most [`LOOKBACK`] bytes before it and
//! [`LINE_PEEK`] bytes of it, never on where a caller's bytes begin: so the ranges of any
//! cut points read every byte once.
//!
//! A piece of the stream holds the games that start in it; the pipeline checks every piece
//! against what the reader really found, and reads the stream the exact way where they
//! differ.

use memchr::{memchr2_iter, memrchr2_iter};

use super::lexer::{count_chars, is_bare_cr, last_line_start, looks_like_tag};
use super::reader::RECORD_END;

/// Bytes before a line that [`starts_game`] looks at, at most.
pub const LOOKBACK: usize = 256;

/// Bytes of a line that [`starts_game`] looks at, at most.
pub const LINE_PEEK: usize = 256;

/// The byte order mark, which `cat a.pgn b.pgn` leaves before a tag line.
const BOM: &[u8] = &[0xEF, 0xBB, 0xBF];

/// Whether a game starts at `data[at]`, the start of a line (see the module's rule). What
/// `data` holds before `at` is looked at back to [`LOOKBACK`] bytes: a caller that has fewer
/// has the stream's start there.
pub fn starts_game(data: &[u8], at: usize) -> bool {
    if at == 0 || !matches!(data[at - 1], b'\n' | b'\r') {
        return false;
    }
    let floor = at.saturating_sub(LOOKBACK);
    // The last byte before `at` that is not a line's break or space: most lines that start
    // with `[` follow a tag line, which this tells first.
    let Some(last) = data[floor..at]
        .iter()
        .rposition(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
    else {
        // The stream's start, or further back than the rule looks.
        return false;
    };
    if data[floor + last] == b']' {
        return false;
    }
    let line = &data[at..data.len().min(at + LINE_PEEK)];
    looks_like_tag(line.strip_prefix(BOM).unwrap_or(line))
}

/// Whether a line that starts at `p` may start a game, by its first byte.
fn may_start(data: &[u8], p: usize) -> bool {
    matches!(data.get(p), Some(b'[' | 0xEF))
}

/// The first place in `data[from..to]` where a game starts ([`starts_game`]), `data[..from]`
/// being what comes before it in the stream. `data[0]` is never one: nothing is known before.
pub fn next_game_start(data: &[u8], from: usize, to: usize) -> Option<usize> {
    let (from, to) = (from.max(1), to.min(data.len()));
    if from >= to {
        return None;
    }
    memchr2_iter(b'\n', b'\r', &data[from - 1..to])
        .map(|i| from + i)
        .find(|&p| p < to && may_start(data, p) && starts_game(data, p))
}

/// The last place in `data` where a game starts ([`starts_game`]), after its first byte.
pub(crate) fn last_game_start(data: &[u8]) -> Option<usize> {
    // Backwards: the last game start is within the last game.
    memrchr2_iter(b'\n', b'\r', data)
        .map(|i| i + 1)
        .find(|&p| may_start(data, p) && starts_game(data, p))
}

/// Where the last record of a stream of records that `data` holds ends, past its
/// [`RECORD_END`]: where such a stream is cut into pieces, exactly.
pub(crate) fn last_record_end(data: &[u8]) -> Option<usize> {
    memchr::memrchr(RECORD_END, data).map(|p| p + 1)
}

/// The line breaks in a piece of the stream (cut where games start, or the stream's start),
/// and the games it likely holds: one when it starts with a tag line (after spaces, at the
/// stream's start), and one at each line where a game starts ([`starts_game`]). In a stream
/// of `records`, the games are its records, one each, and their count is exact. One pass.
pub(crate) fn scan_piece(data: &[u8], records: bool) -> (u64, u64) {
    if records {
        let games = memchr::memchr_iter(RECORD_END, data).count() as u64;
        return (breaks(data).count() as u64, games);
    }
    let first = data
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c))
        .unwrap_or(data.len());
    let head = &data[first..];
    let mut games = u64::from(looks_like_tag(head.strip_prefix(BOM).unwrap_or(head)));
    let mut lines = 0;
    for p in breaks(data) {
        lines += 1;
        games += u64::from(may_start(data, p + 1) && starts_game(data, p + 1));
    }
    (lines, games)
}

/// Where each line of `data` breaks: at a `\n`, or at a `\r` standing alone (the `\r` of
/// `\r\n` is a space at the end of its line).
fn breaks(data: &[u8]) -> impl Iterator<Item = usize> + '_ {
    memchr2_iter(b'\n', b'\r', data).filter(|&p| data[p] != b'\r' || is_bare_cr(data, p))
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

    /// Whether a game starts at `line`, after `before`.
    fn starts(before: &[u8], line: &[u8]) -> bool {
        starts_game(&[before, line].concat(), before.len())
    }

    /// The places in `data` where games start, in order.
    fn game_starts(data: &[u8]) -> Vec<usize> {
        let mut starts = Vec::new();
        while let Some(p) = next_game_start(data, starts.last().map_or(0, |p| p + 1), data.len()) {
            starts.push(p);
        }
        starts
    }

    #[test]
    fn game_starts_by_the_line_before() {
        assert!(starts(b"1. e4 *\n\n", b"[Event \"x\"]\n"));
        assert!(starts(b"1. e4 1-0\n", b"[Event \"x\"]\n"));
        assert!(starts(b"1. e4 1/2-1/2\r\n", b"[Event \"x\"]\r\n"));
        assert!(starts(b"1. e4 *\r\n\r\n", b"[Event \"x\"]\r\n"));
        // A tag after a tag, a `[%clk` annotation line, moves.
        assert!(!starts(b"[Event \"x\"]\n", b"[Site \"y\"]\n"));
        assert!(!starts(b"1. e4 *\n\n", b"[%clk 0:01:00]\n"));
        assert!(!starts(b"1. e4 *\n\n", b"1. d4\n"));
        // A tag pair after moves, even in a comment left open: the reader ends the game
        // there (`testdata/range/tricky.pgn`).
        assert!(starts(b"1. e4 { see\n", b"[Event \"x\"] }\n"));
        assert!(starts(b"1. e4 e5\n", b"[Event \"x\"]\n"));
        // A blank line inside a tag section; a comment's line after a blank one; the stream's
        // start, or blank lines further back than the rule looks.
        assert!(!starts(b"[Event \"x\"]\n\n", b"[Site \"y\"]\n"));
        assert!(!starts(b"[Event \"x\"]  \r\n\r\n", b"[Site \"y\"]\n"));
        assert!(!starts(b"1. e4 { see\n\n", b"[the game above] }\n"));
        assert!(!starts(b"\n\n", b"[Event \"x\"]\n"));
        let far = [&b"1. e4 *"[..], &[b'\n'; LOOKBACK]].concat();
        assert!(!starts(&far, b"[Event \"x\"]\n"));
        assert!(starts(&far[..LOOKBACK - 1], b"[Event \"x\"]\n"));
        // A byte order mark before the tags; not at a line's start.
        assert!(starts(b"1. e4 *\n\n", b"\xEF\xBB\xBF[Event \"x\"]\n"));
        assert!(!starts(b"1. e4 * ", b"[Event \"x\"]\n"));
    }

    const THREE: &[u8] = b"[Event \"a\"]\n\n1. e4 e5 1-0\n\n[Event \"b\"]\n\n1. d4 *\r\n\r\n[Event \"c\"]\n\n1. c4 1/2-1/2";

    #[test]
    fn games_start_at_tag_lines_after_a_game() {
        let starts = game_starts(THREE);
        assert_eq!(starts.len(), 2);
        assert!(THREE[..starts[0]].ends_with(b"e5 1-0\n\n"));
        assert!(THREE[..starts[1]].ends_with(b"d4 *\r\n\r\n"));
        assert_eq!(last_game_start(THREE), Some(starts[1]));
        assert_eq!(last_game_start(&THREE[..starts[1]]), Some(starts[0]));
        assert_eq!(next_game_start(THREE, starts[0] + 1, starts[1]), None);
        // A `\r` is a line break (old Mac files).
        let cr = b"[Event \"a\"]\r\r1. e4 e5 1-0\r\r[Event \"b\"]\r\r1. d4 *";
        assert_eq!(last_game_start(cr), Some(27));
        assert_eq!(scan_piece(cr, false), (6, 2));
        assert_eq!(column_after(&cr[..25], 1), 13);
        let lines = THREE.iter().filter(|&&b| b == b'\n').count() as u64;
        assert_eq!(scan_piece(THREE, false), (lines, 3));
        assert_eq!(scan_piece(&THREE[..starts[1]], false), (8, 2));
        assert_eq!(scan_piece(&THREE[starts[0]..], false).1, 2);
        assert_eq!(scan_piece(b" \n\n", false), (2, 0));
        // Commentary after the result, as some engine tournaments write it.
        let trailer = b"1. e4 1-0 ; { Game Nr. 1 }\n\n[Event \"b\"]\n";
        assert_eq!(game_starts(trailer), [28]);
        assert_eq!(column_after(&trailer[..9], 1), 10);
        assert_eq!(column_after("\n马f3 1-0".as_bytes(), 7), 8);
    }

    #[test]
    fn other_lines_do_not_start_games() {
        for text in [
            &b"[Result \"1-0\"]\n[Event \"x\"]\n"[..],
            b"1. e4 1-0\n[%clk 0:01]\n",
            b"1. e4 {a; b} e5 1-0\n [Event \"x\"]\n",
            b"[Event \"x\"]\n\n\n[Site \"y\"]\n",
            b"[Event \"x\"] [Site \"y\"]\n[Date \"z\"]\n",
        ] {
            assert_eq!(
                game_starts(text),
                Vec::<usize>::new(),
                "{:?}",
                String::from_utf8_lossy(text)
            );
            assert_eq!(last_game_start(text), None);
        }
    }

    #[test]
    fn games_likely_held_are_game_starts() {
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
                scan_piece(text, false).1,
                games,
                "{:?}",
                String::from_utf8_lossy(text)
            );
        }
    }
}
