//! `--range START:END`: the games of a byte range of a large uncompressed PGN file, so that
//! a cluster can give each task a range and every game is read by exactly one task, as
//! Hadoop's text input gives each line to the split its first byte falls in.
//!
//! A range is cut at *game starts*: the file's first byte, and every line where
//! [`crate::pgn::cut::starts_game`] says a game starts, the rule by which the parallel
//! pipeline cuts its pieces too. Whether a place is a game start depends only on the bytes
//! around it, never on where a range begins: so the range `[S, E)` reads from the first game
//! start at or after `S` to the first at or after `E`, its neighbour reads on from there, and
//! the ranges of any cut points together read every byte once.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::str::FromStr;

use crate::pgn::cut::{next_game_start, LINE_PEEK, LOOKBACK};

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

/// Bytes read from the file at a time, looking for a game start.
const CHUNK: usize = 64 << 10;

/// The first game start at or after `at` ([`crate::pgn::cut::starts_game`]), or the file's
/// length when there is none.
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
    // The bytes from `base` on, with as many before `at` as the rule looks at.
    let mut base = at.saturating_sub(LOOKBACK as u64);
    file.seek(SeekFrom::Start(base))?;
    let mut buf = Vec::new();
    let mut from = (at - base) as usize;
    loop {
        let old = buf.len();
        let eof = (&mut *file).take(CHUNK as u64).read_to_end(&mut buf)? < CHUNK;
        debug_assert!(buf.len() >= old);
        // Lines whose first bytes the rule looks at are all here (or the file ends).
        let decided = if eof {
            buf.len()
        } else {
            buf.len() - LINE_PEEK
        };
        if let Some(p) = next_game_start(&buf, from, decided) {
            return Ok(base + p as u64);
        }
        if eof {
            return Ok(len);
        }
        let drop = decided.saturating_sub(LOOKBACK);
        buf.drain(..drop);
        base += drop as u64;
        from = decided - drop;
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
}
