//! Sorting fixed-size records within a memory budget: in memory while they fit, past that
//! in sorted runs on disk merged k ways. How dedup decides about a hundred million games
//! with flat memory; the one part of [`crate::dedup`] that touches files, and only inside
//! the folder it is given.

use std::cell::Cell;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// A record of a fixed number of bytes on disk, sorted by its `Ord` (which must tell any
/// two records apart, so that the order does not depend on how the runs fell).
pub trait Record: Ord + Copy {
    /// Its bytes on disk.
    const SIZE: usize;
    fn put(&self, out: &mut Put<'_>);
    fn get(bytes: &mut Get<'_>) -> Self;
}

/// Writes a record's fields, little-endian.
pub struct Put<'a>(&'a mut Vec<u8>);

impl Put<'_> {
    /// Writes after what `out` holds.
    pub fn new(out: &mut Vec<u8>) -> Put<'_> {
        Put(out)
    }
}

/// Reads a record's fields back.
pub struct Get<'a>(&'a [u8]);

impl Get<'_> {
    /// Reads from the start of `bytes`.
    pub fn new(bytes: &[u8]) -> Get<'_> {
        Get(bytes)
    }
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let (head, rest) = self.0.split_at(N.min(self.0.len()));
        self.0 = rest;
        let mut out = [0u8; N];
        out[..head.len()].copy_from_slice(head);
        out
    }
}

/// A value of a fixed number of bytes in a record: what [`Record`]s are made of, so that a
/// record's `put`, `get` and `SIZE` follow from its fields' (the `record!` macro of
/// [`super::finder`] writes them).
pub trait Field: Sized {
    const SIZE: usize;
    fn put(&self, out: &mut Put<'_>);
    fn get(bytes: &mut Get<'_>) -> Self;
}

/// The integers, little-endian.
macro_rules! int_field {
    ($($t:ty),*) => {$(
        impl Field for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn put(&self, out: &mut Put<'_>) {
                out.0.extend_from_slice(&self.to_le_bytes());
            }
            fn get(bytes: &mut Get<'_>) -> $t {
                <$t>::from_le_bytes(bytes.take())
            }
        }
    )*};
}
int_field!(u64, u32, u8);

impl Field for bool {
    const SIZE: usize = 1;
    fn put(&self, out: &mut Put<'_>) {
        u8::from(*self).put(out);
    }
    fn get(bytes: &mut Get<'_>) -> bool {
        u8::get(bytes) != 0
    }
}

impl<T: Field + Copy + Default, const N: usize> Field for [T; N] {
    const SIZE: usize = T::SIZE * N;
    fn put(&self, out: &mut Put<'_>) {
        for v in self {
            v.put(out);
        }
    }
    fn get(bytes: &mut Get<'_>) -> [T; N] {
        let mut a = [T::default(); N];
        for v in &mut a {
            *v = T::get(bytes);
        }
        a
    }
}

/// A flag, then the value (or its default): a fixed size either way.
impl<T: Field + Copy + Default> Field for Option<T> {
    const SIZE: usize = 1 + T::SIZE;
    fn put(&self, out: &mut Put<'_>) {
        self.is_some().put(out);
        self.unwrap_or_default().put(out);
    }
    fn get(bytes: &mut Get<'_>) -> Option<T> {
        let has = bool::get(bytes);
        Some(T::get(bytes)).filter(|_| has)
    }
}

/// Runs merged at once, at most: each run read has a buffer, so a merge holds a fixed amount
/// whatever the number of records; more runs are merged in passes.
const MAX_FAN_IN: usize = 64;
/// Runs merged at once, at least, however small the budget.
const MIN_FAN_IN: usize = 4;
/// The read and write buffers of the runs: at least a page, so that a run is read in few
/// calls; at most what makes the calls' cost small beside the copying.
const MIN_BUFFER: usize = 1 << 12;
const MAX_BUFFER: usize = 1 << 16;

/// Where the runs go, and how the memory budget is shared among the sorts that are alive at
/// once.
#[derive(Debug)]
pub struct Store {
    dir: PathBuf,
    /// Bytes each sort may hold in memory: its records, or the buffers of its merge.
    share: usize,
    /// Bytes of each run's buffer, and the runs merged at once: their buffers and the
    /// output's fit in the share.
    buffer: usize,
    fan_in: usize,
    made: Cell<u64>,
    spilled: Cell<u64>,
}

impl Store {
    /// The sorts alive at once, and the prefix filter beside them: each holds at most this
    /// share of the budget.
    pub const SHARES: usize = 8;

    /// The smallest budget that holds what the sorts need past it: each share the buffers
    /// of a merge of 31 runs (and of its output) of 4 KiB, and a run of a thousand records
    /// and more. `pgnkit dedup` refuses a smaller one.
    pub const MIN_BUDGET: u64 = 1 << 20;

    /// Runs go to files in `dir` (which must exist once one is written); `budget` bytes of
    /// memory in all, at least [`Store::MIN_BUDGET`] for the merges' buffers to fit in it
    /// (a smaller one, for tests, makes runs of a few records merged [`MIN_FAN_IN`] at a
    /// time).
    pub fn new(dir: &Path, budget: usize) -> Store {
        let share = budget / Self::SHARES;
        let buffer = (share / (MAX_FAN_IN + 1)).clamp(MIN_BUFFER, MAX_BUFFER);
        Store {
            dir: dir.to_path_buf(),
            share,
            buffer,
            fan_in: (share / buffer)
                .saturating_sub(1)
                .clamp(MIN_FAN_IN, MAX_FAN_IN),
            made: Cell::new(0),
            spilled: Cell::new(0),
        }
    }

    /// Bytes one sort (or the filter) may hold.
    pub fn share(&self) -> usize {
        self.share
    }

    /// Sorted runs written to disk so far.
    pub fn spilled(&self) -> u64 {
        self.spilled.get()
    }

    fn next_path(&self) -> PathBuf {
        let n = self.made.get();
        self.made.set(n + 1);
        self.dir.join(format!("run-{n}"))
    }
}

/// Records being gathered, to be sorted.
pub struct Sorter<'s, R> {
    store: &'s Store,
    /// Records held before a run is written.
    cap: usize,
    buf: Vec<R>,
    runs: VecDeque<Run>,
}

/// A sorted run on disk, removed when dropped.
struct Run(PathBuf);

impl Drop for Run {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

impl<'s, R: Record> Sorter<'s, R> {
    pub fn new(store: &'s Store) -> Sorter<'s, R> {
        // At least a few records a run, so that a tiny budget still makes progress.
        let cap = (store.share / std::mem::size_of::<R>().max(1)).max(4);
        Sorter {
            store,
            cap,
            buf: Vec::new(),
            runs: VecDeque::new(),
        }
    }

    /// # Errors
    ///
    /// A run that cannot be written.
    pub fn push(&mut self, r: R) -> io::Result<()> {
        self.buf.push(r);
        if self.buf.len() >= self.cap {
            self.spill()?;
        }
        Ok(())
    }

    fn spill(&mut self) -> io::Result<()> {
        self.buf.sort_unstable();
        let run = Run(self.store.next_path());
        write_run(self.store, &run, self.buf.iter().map(|&r| Ok(Some(r))))?;
        self.buf.clear();
        self.runs.push_back(run);
        self.store.spilled.set(self.store.spilled.get() + 1);
        Ok(())
    }

    /// The records, sorted.
    ///
    /// # Errors
    ///
    /// A run that cannot be written or read back.
    pub fn finish(mut self) -> io::Result<Sorted<'s, R>> {
        if self.runs.is_empty() {
            self.buf.sort_unstable();
            return Ok(Sorted {
                mem: std::mem::take(&mut self.buf),
                store: self.store,
                runs: Vec::new(),
            });
        }
        if !self.buf.is_empty() {
            self.spill()?;
        }
        self.buf = Vec::new();
        let mut runs = std::mem::take(&mut self.runs);
        // Too many runs to merge at once: the first `fan_in` are merged into one at the back,
        // and so on until few enough are left. Each record is merged again about once a
        // `fan_in`-fold of runs, and each step takes and gives runs at the ends of the queue.
        let fan_in = self.store.fan_in;
        while runs.len() > fan_in {
            let group = Sorted::<R> {
                mem: Vec::new(),
                store: self.store,
                runs: runs.drain(..fan_in).collect(),
            };
            let run = Run(self.store.next_path());
            let mut merge = group.iter()?;
            write_run(self.store, &run, std::iter::from_fn(|| Some(merge.next())))?;
            runs.push_back(run);
        }
        Ok(Sorted {
            mem: Vec::new(),
            store: self.store,
            runs: runs.into(),
        })
    }
}

/// Writes the records `records` gives, in order, to `run`, until it gives `None`.
fn write_run<R: Record>(
    store: &Store,
    run: &Run,
    records: impl Iterator<Item = io::Result<Option<R>>>,
) -> io::Result<()> {
    let mut w = BufWriter::with_capacity(store.buffer, File::create(&run.0)?);
    let mut bytes = Vec::with_capacity(R::SIZE);
    for r in records {
        let Some(r) = r? else { break };
        bytes.clear();
        r.put(&mut Put(&mut bytes));
        debug_assert_eq!(bytes.len(), R::SIZE);
        w.write_all(&bytes)?;
    }
    w.into_inner().map_err(|e| e.into_error())?;
    Ok(())
}

/// Sorted records, to be read in order as many times as needed.
pub struct Sorted<'s, R> {
    mem: Vec<R>,
    store: &'s Store,
    /// At most the store's fan-in.
    runs: Vec<Run>,
}

impl<R: Record> Sorted<'_, R> {
    /// The records in order, from the start.
    ///
    /// # Errors
    ///
    /// A run that cannot be opened.
    pub fn iter(&self) -> io::Result<Merge<'_, R>> {
        let mut readers = Vec::with_capacity(self.runs.len());
        for run in &self.runs {
            readers.push(BufReader::with_capacity(
                self.store.buffer,
                File::open(&run.0)?,
            ));
        }
        let mut m = Merge {
            mem: &self.mem,
            at: 0,
            readers,
            heap: BinaryHeap::new(),
            bytes: vec![0; R::SIZE],
        };
        for i in 0..m.readers.len() {
            m.refill(i)?;
        }
        Ok(m)
    }
}

/// The records of a [`Sorted`], in order.
pub struct Merge<'a, R> {
    mem: &'a [R],
    at: usize,
    readers: Vec<BufReader<File>>,
    heap: BinaryHeap<Reverse<(R, usize)>>,
    bytes: Vec<u8>,
}

impl<R: Record> Merge<'_, R> {
    fn refill(&mut self, i: usize) -> io::Result<()> {
        match self.readers[i].read_exact(&mut self.bytes) {
            Ok(()) => {
                let r = R::get(&mut Get(&self.bytes));
                self.heap.push(Reverse((r, i)));
                Ok(())
            }
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// The next record; `None` at the end.
    ///
    /// # Errors
    ///
    /// A run that cannot be read.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> io::Result<Option<R>> {
        if let Some(&r) = self.mem.get(self.at) {
            self.at += 1;
            return Ok(Some(r));
        }
        let Some(Reverse((r, i))) = self.heap.pop() else {
            return Ok(None);
        };
        self.refill(i)?;
        Ok(Some(r))
    }
}

/// A [`Merge`] that can look at its next record without taking it: for the joins of sorted
/// streams.
pub struct Peek<'a, R> {
    merge: Merge<'a, R>,
    head: Option<R>,
}

impl<'a, R: Record> Peek<'a, R> {
    /// # Errors
    ///
    /// A run that cannot be read.
    pub fn new(mut merge: Merge<'a, R>) -> io::Result<Peek<'a, R>> {
        let head = merge.next()?;
        Ok(Peek { merge, head })
    }

    pub fn head(&self) -> Option<&R> {
        self.head.as_ref()
    }

    /// Takes the head.
    ///
    /// # Errors
    ///
    /// A run that cannot be read.
    pub fn take(&mut self) -> io::Result<Option<R>> {
        let r = self.head;
        if r.is_some() {
            self.head = self.merge.next()?;
        }
        Ok(r)
    }

    /// Takes the head while `before` says it comes before what is looked for; then the head
    /// if `is` says it is.
    ///
    /// # Errors
    ///
    /// A run that cannot be read.
    pub fn find(
        &mut self,
        before: impl Fn(&R) -> bool,
        is: impl Fn(&R) -> bool,
    ) -> io::Result<Option<R>> {
        while self.head.as_ref().is_some_and(&before) {
            self.take()?;
        }
        Ok(self.head.filter(|r| is(r)))
    }
}

/// Records of any length written once in order and read back in order: in memory up to a
/// share of the budget, in a file past it.
pub struct Tape<'s> {
    store: &'s Store,
    mem: Vec<u8>,
    file: Option<(PathBuf, BufWriter<File>)>,
}

impl<'s> Tape<'s> {
    pub fn new(store: &'s Store) -> Tape<'s> {
        Tape {
            store,
            mem: Vec::new(),
            file: None,
        }
    }

    /// # Errors
    ///
    /// The file cannot be written.
    pub fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        if let Some((_, w)) = &mut self.file {
            return w.write_all(bytes);
        }
        self.mem.extend_from_slice(bytes);
        if self.mem.len() > self.store.share {
            let path = self.store.next_path();
            let mut w = BufWriter::with_capacity(self.store.buffer, File::create(&path)?);
            w.write_all(&self.mem)?;
            self.mem = Vec::new();
            self.file = Some((path, w));
        }
        Ok(())
    }

    /// Ends the writing; the records from the start.
    ///
    /// # Errors
    ///
    /// The file cannot be written or opened.
    pub fn finish(self) -> io::Result<TapeReader> {
        Ok(match self.file {
            None => TapeReader {
                input: Box::new(io::Cursor::new(self.mem)),
                _run: None,
            },
            Some((path, w)) => {
                let run = Run(path);
                w.into_inner().map_err(|e| e.into_error())?;
                let input = BufReader::with_capacity(self.store.buffer, File::open(&run.0)?);
                TapeReader {
                    input: Box::new(input),
                    _run: Some(run),
                }
            }
        })
    }
}

/// A [`Tape`] read back; its file is removed when dropped.
pub struct TapeReader {
    input: Box<dyn Read>,
    _run: Option<Run>,
}

impl TapeReader {
    /// Fills `out`; false at the end of the tape.
    ///
    /// # Errors
    ///
    /// The file cannot be read, or ends inside a record.
    pub fn read(&mut self, out: &mut [u8]) -> io::Result<bool> {
        match self.input.read_exact(out) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(false),
            Err(e) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
    struct Pair(u64, u32);

    impl Record for Pair {
        const SIZE: usize = 12;
        fn put(&self, out: &mut Put<'_>) {
            self.0.put(out);
            self.1.put(out);
        }
        fn get(b: &mut Get<'_>) -> Pair {
            Pair(u64::get(b), u32::get(b))
        }
    }

    fn sorted(budget: usize, dir: &Path) -> (Vec<Pair>, (u64, u64)) {
        let store = Store::new(dir, budget);
        let mut s = Sorter::new(&store);
        // A scramble of 0..1000 (7 and 1000 share no factor).
        for i in 0..1000u64 {
            s.push(Pair(i * 7 % 1000 / 3, (i * 7 % 1000) as u32))
                .unwrap();
        }
        let sorted = s.finish().unwrap();
        let mut out = Vec::new();
        for _ in 0..2 {
            out.clear();
            let mut m = sorted.iter().unwrap();
            while let Some(r) = m.next().unwrap() {
                out.push(r);
            }
        }
        // The runs spilled, and the files made: those and the merged runs.
        (out, (store.spilled(), store.made.get()))
    }

    #[test]
    fn runs_on_disk_merge_to_the_order_in_memory() {
        let dir = std::env::temp_dir().join(format!("pgnkit-runs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (mem, none) = sorted(1 << 30, &dir);
        let (disk, spilled) = sorted(8 * 64, &dir);
        assert_eq!(none, (0, 0));
        // 64-byte shares hold 4 records: 250 runs, merged 4 at a time in passes (each
        // merge of 4 makes one run: 82 more), and the last 4 as they are read.
        assert_eq!(spilled, (250, 250 + 82));
        assert_eq!(mem, disk);
        assert!(mem.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(mem.len(), 1000);
        let left = std::fs::read_dir(&dir).unwrap().count();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(left, 0, "the runs are removed once read");
    }

    #[test]
    fn the_buffers_of_a_merge_fit_in_a_share_from_the_least_budget_on() {
        let dir = Path::new("/nonexistent");
        let least = usize::try_from(Store::MIN_BUDGET).unwrap();
        for budget in [least, least + 1, 3 << 20, 64 << 20, 1 << 30, 1 << 40] {
            let s = Store::new(dir, budget);
            assert!(s.buffer >= MIN_BUFFER, "{budget}");
            assert!((s.fan_in + 1) * s.buffer <= s.share, "{budget}: {s:?}");
            assert!((MIN_FAN_IN..=MAX_FAN_IN).contains(&s.fan_in), "{budget}");
            // A run holds a thousand records of the largest (about a hundred bytes).
            assert!(s.share / 128 >= 1000, "{budget}");
        }
        assert_eq!(Store::new(dir, least).fan_in, 31);
        assert_eq!(Store::new(dir, 1 << 30).fan_in, MAX_FAN_IN);
    }
}
