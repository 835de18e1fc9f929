//! The hot places of the tree summed in memory before the sorter: the first plies of nearly
//! every game are the same few (position, move)s, and a record of each would be sorted only
//! to be summed into one row again. [`HotRows`] keeps a row for each of the first places met,
//! up to a bounded number, and adds every later ply of those places to it; the plies of other
//! places go to the sorter as before. [`Joined`] then adds the hot rows into the sorted
//! stream's rows, so the tree is the same row for row as if every ply had been sorted.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::record::PlyRecord;
use super::rows::{Place, Row};

/// Rows of the first places met, summed in memory; at most `capacity` of them.
pub struct HotRows {
    rows: HashMap<Place, Row, BuildHasherDefault<PlaceHasher>>,
    capacity: usize,
}

impl HotRows {
    /// Room for `capacity` places (0: none, every ply goes to the sorter).
    pub fn new(capacity: usize) -> HotRows {
        HotRows {
            rows: HashMap::default(),
            capacity,
        }
    }

    /// The room that a share of `bytes` of memory gives: rows are larger than records, and
    /// the map's own slots count too.
    pub fn capacity_in(bytes: usize) -> usize {
        bytes / (2 * std::mem::size_of::<(Place, Row)>())
    }

    /// Adds `r` to its place's row and returns `None`, or returns `r` when its place is not
    /// kept here and the map is full. Plies come in the order of their games, so a row's
    /// first ply is its earliest game, as in the sorted stream.
    #[inline]
    pub fn take(&mut self, r: PlyRecord) -> Option<PlyRecord> {
        let place = (r.key, r.mv, r.split);
        if let Some(row) = self.rows.get_mut(&place) {
            row.add(&Row::of(&r));
            return None;
        }
        if self.rows.len() >= self.capacity {
            return Some(r);
        }
        self.rows.insert(place, Row::of(&r));
        None
    }

    /// The rows, in the tree's order.
    pub fn into_sorted(self) -> Vec<Row> {
        let mut rows: Vec<Row> = self.rows.into_values().collect();
        rows.sort_unstable_by_key(Row::place);
        rows
    }
}

/// The sorted stream's rows with the hot rows added in: each place's games summed once, in
/// the tree's order.
pub struct Joined {
    hot: std::iter::Peekable<std::vec::IntoIter<Row>>,
}

impl Joined {
    pub fn new(hot: Vec<Row>) -> Joined {
        Joined {
            hot: hot.into_iter().peekable(),
        }
    }

    /// Takes the next row of the sorted stream and calls `put` with every row complete
    /// before it and with it (summed with its hot row, if any).
    ///
    /// # Errors
    ///
    /// What `put` returns.
    pub fn push<E>(
        &mut self,
        row: Row,
        mut put: impl FnMut(&Row) -> Result<(), E>,
    ) -> Result<(), E> {
        while let Some(hot) = self.hot.next_if(|h| h.place() < row.place()) {
            put(&hot)?;
        }
        match self.hot.next_if(|h| h.place() == row.place()) {
            Some(hot) => put(&earlier_first(hot, row)),
            None => put(&row),
        }
    }

    /// Calls `put` with the hot rows after the stream's last.
    ///
    /// # Errors
    ///
    /// What `put` returns.
    pub fn finish<E>(self, mut put: impl FnMut(&Row) -> Result<(), E>) -> Result<(), E> {
        self.hot.into_iter().try_for_each(|hot| put(&hot))
    }
}

/// Two rows of one place summed, the earlier game's example (and position) kept, as one
/// stream of its plies would have.
fn earlier_first(a: Row, b: Row) -> Row {
    let (mut first, later) = if a.first_order <= b.first_order {
        (a, b)
    } else {
        (b, a)
    };
    first.add(&later);
    first
}

/// A hasher for places: the key is a Zobrist hash already, so one multiply mixes in the move
/// and the split (SipHash would cost more than the sort it saves).
#[derive(Default)]
pub struct PlaceHasher(u64);

impl Hasher for PlaceHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    #[inline]
    fn write_u16(&mut self, n: u16) {
        self.write_u64(u64::from(n));
    }
    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ply(key: u64, order: u64, score: u8) -> PlyRecord {
        PlyRecord {
            key,
            position: Default::default(),
            mv: 1,
            split: 0,
            order,
            score,
            mover_elo: 0,
            opponent_elo: 0,
            date: 0,
            file: 0,
            game: order as u32,
        }
    }

    #[test]
    fn a_full_map_passes_new_places_on_and_keeps_summing_its_own() {
        let mut hot = HotRows::new(1);
        assert_eq!(hot.take(ply(7, 0, 0)), None);
        assert_eq!(hot.take(ply(9, 1, 0)), Some(ply(9, 1, 0)));
        assert_eq!(hot.take(ply(7, 2, 1)), None);
        let rows = hot.into_sorted();
        assert_eq!((rows.len(), rows[0].games, rows[0].draws), (1, 2, 1));
    }

    #[test]
    fn the_rows_come_out_by_place() {
        let mut hot = HotRows::new(10);
        for (i, key) in [9, 3, 7, 1, 5].into_iter().enumerate() {
            assert_eq!(hot.take(ply(key, i as u64, 0)), None);
        }
        assert_eq!(hot.take(ply(7, 5, 1)), None);
        let rows = hot.into_sorted();
        let seen: Vec<_> = rows.iter().map(|r| (r.key, r.games)).collect();
        assert_eq!(seen, [(1, 1), (3, 1), (5, 1), (7, 2), (9, 1)]);
    }

    #[test]
    fn joined_rows_keep_the_earliest_example() {
        let hot = vec![Row::of(&ply(5, 3, 0)), Row::of(&ply(8, 0, 0))];
        let mut out = Vec::new();
        let mut joined = Joined::new(hot);
        let mut put = |r: &Row| {
            out.push(r.clone());
            Ok::<_, ()>(())
        };
        joined.push(Row::of(&ply(6, 1, 0)), &mut put).unwrap();
        joined.push(Row::of(&ply(8, 2, 0)), &mut put).unwrap();
        joined.finish(&mut put).unwrap();
        let seen: Vec<_> = out
            .iter()
            .map(|r| (r.key, r.games, r.example_game))
            .collect();
        assert_eq!(seen, [(5, 1, 3), (6, 1, 1), (8, 2, 0)]);
    }
}
