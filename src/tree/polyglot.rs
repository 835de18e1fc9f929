//! A tree as a Polyglot opening book (`.bin`), as `polyglot make-book` makes one: an entry a
//! (position, move) of 16 bytes, big-endian (the key, the move, the weight, 4 bytes of
//! learning left 0), sorted by key and, within a key, by weight, the heaviest first.
//!
//! The weight is make-book's: 2 a game the side to move won, 1 a draw or a game without a
//! result, 0 a loss. Its filters are make-book's too: an entry of fewer games than
//! `--min-games`, of weight 0, or scoring below `--min-score` percent is left out. Where
//! make-book halves every count of a position each time one of its moves reaches 16,384 games
//! while it reads (so its weights then depend on the order of the games), this writer halves
//! a position's counts, all its moves together, until every move has fewer than 16,384: the
//! same rule applied to the totals, and the same book below that many games.

use std::io::{self, BufWriter, Write};

use super::rows::Row;

/// make-book's `COUNT_MAX`: a count this large halves the position's counts.
const COUNT_MAX: u64 = 16_384;

/// How a book is made from the rows: make-book's options.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BookOptions {
    /// `-min-game`: entries of fewer games are left out.
    pub min_games: u64,
    /// `-min-score`, in percent: entries whose side to move scored less are left out.
    pub min_score: f64,
    /// `-uniform`: every entry kept weighs 1.
    pub uniform: bool,
}

/// One move of the position being gathered: its Polyglot code, games and weight.
#[derive(Clone, Copy, Debug)]
struct Entry {
    mv: u16,
    n: u64,
    sum: u64,
    /// Its first game's place in the run.
    first: u64,
}

/// Writes the entries of a book, a position at a time, from rows in key order.
pub struct BookWriter<W: Write> {
    out: BufWriter<W>,
    options: BookOptions,
    key: Option<u64>,
    entries: Vec<Entry>,
    /// Entries written.
    written: u64,
}

impl<W: Write> BookWriter<W> {
    pub fn new(out: W, options: BookOptions) -> BookWriter<W> {
        BookWriter {
            out: BufWriter::with_capacity(1 << 16, out),
            options,
            key: None,
            entries: Vec::new(),
            written: 0,
        }
    }

    /// Adds a row (rows come sorted by key).
    ///
    /// # Errors
    ///
    /// When the output cannot be written.
    pub fn push(&mut self, row: &Row) -> io::Result<()> {
        if self.key != Some(row.key) {
            self.flush_position()?;
            self.key = Some(row.key);
        }
        // make-book scores a game without a result as a draw.
        let sum = 2 * row.mover_wins() + row.draws + row.unknown();
        // Two positions of one key (a collision) share their entries, as in make-book.
        match self.entries.iter_mut().find(|e| e.mv == row.mv) {
            Some(e) => {
                e.n += row.games;
                e.sum += sum;
                e.first = e.first.min(row.first_order);
            }
            None => self.entries.push(Entry {
                mv: row.mv,
                n: row.games,
                sum,
                first: row.first_order,
            }),
        }
        Ok(())
    }

    fn flush_position(&mut self) -> io::Result<()> {
        let Some(key) = self.key else {
            return Ok(());
        };
        let entries = &mut self.entries;
        while entries.iter().any(|e| e.n >= COUNT_MAX) {
            for e in entries.iter_mut() {
                e.n = e.n.div_ceil(2);
                e.sum = e.sum.div_ceil(2);
            }
        }
        let o = self.options;
        entries.retain(|e| {
            e.n >= o.min_games
                && e.sum > 0
                && (e.sum as f64 / e.n as f64) / 2.0 >= o.min_score / 100.0
        });
        let weight = |e: &Entry| if o.uniform { 1 } else { e.sum as u16 };
        // Moves of one weight in the order their first games came: make-book's entries are
        // made in that order, and glibc's qsort (a merge sort) keeps it.
        entries.sort_by(|a, b| {
            weight(b)
                .cmp(&weight(a))
                .then(a.first.cmp(&b.first))
                .then(a.mv.cmp(&b.mv))
        });
        for e in entries.iter() {
            let mut bytes = [0u8; 16];
            bytes[..8].copy_from_slice(&key.to_be_bytes());
            bytes[8..10].copy_from_slice(&e.mv.to_be_bytes());
            bytes[10..12].copy_from_slice(&weight(e).to_be_bytes());
            self.out.write_all(&bytes)?;
        }
        self.written += entries.len() as u64;
        entries.clear();
        Ok(())
    }

    /// Writes the last position and gives the output back, with the entries written.
    ///
    /// # Errors
    ///
    /// When the output cannot be written.
    pub fn finish(mut self) -> io::Result<(W, u64)> {
        self.flush_position()?;
        let out = self.out.into_inner().map_err(|e| e.into_error())?;
        Ok((out, self.written))
    }
}
