//! `--range START:END`: the games of a byte range of a large uncompressed PGN file, so that
//! a cluster can give each task a range and every game is read by exactly one task, as
//! Hadoop's text input gives each line to the split its first byte falls in.
//!
//! A range is cut at *game starts*: the file's first byte, and every line that opens a tag
//! section, a `[` and a letter at the start of a line that follows a blank line or a line
//! ending in a result token (files without blank lines between games). Whether a place is a
//! game start depends only on the bytes around it, never on where a range begins: so the
//! range `[S, E)` reads from the first game start at or after `S` to the first at or after
//! `E`, its neighbour reads on from there, and the ranges of any cut points together read
//! every byte once. A line starting with `[` inside a comment is no game start unless a
//! blank line or a result comes right before it: the one case ranges can cut wrongly.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::str::FromStr;

use crate::pgn::GameResult;

/// A byte range of a file, `START:END` (END excluded).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ByteRange {
    pub start: u64,
    pub end: u64,
}

impl FromStr for ByteRange {
    type Err = String;

    fn from_str(s: &str) -> Result<ByteRange, String> {
        let bad = || format!("'{s}' is not START:END, two byte offsets (e.g. 0:134217728)");
        let (a, b) = s.split_once(':').ok_or_else(bad)?;
        let start = a.trim().parse::<u64>().map_err(|_| bad())?;
        let end = b.trim().parse::<u64>().map_err(|_| bad())?;
        if end < start {
            return Err(format!("'{s}': END ({end}) is before START ({start})"));
        }
        Ok(ByteRange { start, end })
    }
}

/// Bytes looked at before a line to tell whether it follows a blank line or a result.
const LOOKBACK: usize = 64;

/// Whether the line starting at `at` (a line start, not the file's first byte) starts a
/// game, given up to [`LOOKBACK`] bytes before it (`before`, ending with the line break) and
/// the line's first bytes (`line`).
fn starts_game(before: &[u8], line: &[u8]) -> bool {
    if !(line.first() == Some(&b'[') && line.get(1).is_some_and(u8::is_ascii_alphabetic)) {
        return false;
    }
    // The line before, without its line break (one `\n`, `\r\n` or `\r`).
    let before = before
        .strip_suffix(b"\r\n")
        .or_else(|| before.strip_suffix(b"\n"))
        .or_else(|| before.strip_suffix(b"\r"))
        .unwrap_or(before);
    let prev_start = before
        .iter()
        .rposition(|&b| matches!(b, b'\n' | b'\r'))
        .map_or(0, |i| i + 1);
    let prev = &before[prev_start..];
    let end = prev
        .iter()
        .rposition(|&b| !matches!(b, b' ' | b'\t'))
        .map_or(0, |i| i + 1);
    if end == 0 {
        // A blank line before.
        return true;
    }
    let first = prev[..end]
        .iter()
        .rposition(|&b| matches!(b, b' ' | b'\t'))
        .map_or(0, |i| i + 1);
    GameResult::is_standard(&prev[first..end])
}

/// The first game start at or after `at`, or the file's length when there is none.
///
/// # Errors
///
/// Errors reading the file.
pub fn game_start_at(file: &mut File, at: u64) -> io::Result<u64> {
    if at == 0 {
        return Ok(0);
    }
    let len = file.metadata()?.len();
    if at >= len {
        return Ok(len);
    }
    let back = at.min(LOOKBACK as u64);
    file.seek(SeekFrom::Start(at - back))?;
    let mut reader = BufReader::with_capacity(1 << 16, &mut *file);
    // The last LOOKBACK bytes before the current line, and the place of the current one.
    let mut before: Vec<u8> = Vec::with_capacity(LOOKBACK * 2);
    let mut pos = at - back;
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = read_line(&mut reader, &mut line)?;
        if n == 0 {
            return Ok(len);
        }
        let start = pos;
        pos += n as u64;
        // `start` is a line start when the byte before it was a line break (or it is 0).
        let line_start = start == 0 || before.last().is_some_and(|b| matches!(b, b'\n' | b'\r'));
        if start >= at && line_start && starts_game(&before, &line) {
            return Ok(start);
        }
        before.extend_from_slice(&line);
        if before.len() > LOOKBACK {
            before.drain(..before.len() - LOOKBACK);
        }
    }
}

/// Reads one line with its break (`\n`, or a lone `\r` of old Mac files) into `line`,
/// at most 1 MiB of it: a huge line is read in parts, each with no line start inside.
fn read_line(reader: &mut impl BufRead, line: &mut Vec<u8>) -> io::Result<usize> {
    let mut total = 0;
    loop {
        let buf = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok(total);
        }
        let (n, done) = match memchr::memchr2(b'\n', b'\r', buf) {
            // A `\r` followed by `\n` is one break: take both when both are here.
            Some(i) if buf[i] == b'\r' && i + 1 < buf.len() && buf[i + 1] == b'\n' => (i + 2, true),
            Some(i) if buf[i] == b'\r' && i + 1 == buf.len() => (i + 1, false),
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        line.extend_from_slice(&buf[..n]);
        reader.consume(n);
        total += n;
        if done || total >= 1 << 20 {
            return Ok(total);
        }
    }
}

/// The bytes of `file` the range reads, from the first game start at or after its start to
/// the first at or after its end; returns the reader and where it starts.
///
/// # Errors
///
/// Errors reading the file.
pub fn open(mut file: File, range: ByteRange) -> io::Result<(io::Take<File>, u64)> {
    let from = game_start_at(&mut file, range.start)?;
    let to = if range.end <= from {
        from
    } else {
        game_start_at(&mut file, range.end)?
    };
    file.seek(SeekFrom::Start(from))?;
    Ok((file.take(to - from), from))
}

/// Opens a source for `--range`: only an uncompressed file can be entered in the middle.
/// Returns its bytes in the range and the offset they start at.
///
/// # Errors
///
/// Standard input, a compressed file (one stream: give it whole), or errors reading it.
pub fn open_source(
    source: &super::open::Source,
    range: ByteRange,
) -> io::Result<(super::open::Opened, u64)> {
    use super::open::{Compression, Opened, Source};
    let Source::File(path) = source else {
        return Err(io::Error::other(
            "--range reads a byte range of a file, not of standard input",
        ));
    };
    let mut file = File::open(path)?;
    let mut head = [0u8; 6];
    let n = file.read(&mut head)?;
    let compression = Compression::sniff(&head[..n]);
    if compression != Compression::None {
        return Err(io::Error::other(format!(
            "--range takes byte ranges of uncompressed PGN, and this is one {} stream, which \
             cannot be entered in the middle: give it whole, without --range (one task)",
            compression.name()
        )));
    }
    let size = file.metadata().ok().map(|m| m.len());
    let stamp = super::open::Stamp::of(&file);
    let (reader, start) = open(file, range)?;
    Ok((
        Opened {
            reader: Box::new(reader),
            compression,
            cut: super::open::Cut::default(),
            size,
            stamp,
        },
        start,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ranges() {
        assert_eq!(
            "0:100".parse::<ByteRange>(),
            Ok(ByteRange { start: 0, end: 100 })
        );
        assert!("100:0".parse::<ByteRange>().is_err());
        assert!("100".parse::<ByteRange>().is_err());
        assert!("a:b".parse::<ByteRange>().is_err());
    }

    #[test]
    fn game_starts() {
        assert!(starts_game(b"1. e4 *\n\n", b"[Event \"x\"]\n"));
        assert!(starts_game(b"1. e4 1-0\n", b"[Event \"x\"]\n"));
        assert!(starts_game(b"1. e4 1/2-1/2\r\n", b"[Event \"x\"]\r\n"));
        assert!(starts_game(b"1. e4 *\r\n\r\n", b"[Event \"x\"]\r\n"));
        // A tag after a tag, a `[` in a comment, a `[%clk` annotation line.
        assert!(!starts_game(b"[Event \"x\"]\n", b"[Site \"y\"]\n"));
        assert!(!starts_game(b"1. e4 { see\n", b"[Event \"x\"] }\n"));
        assert!(!starts_game(b"1. e4 *\n\n", b"[%clk 0:01:00]\n"));
        assert!(!starts_game(b"1. e4 *\n\n", b"1. d4\n"));
    }
}
