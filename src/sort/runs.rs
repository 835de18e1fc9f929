//! Sorted runs in a [`RunStore`], merged in levels of [`FAN_IN`]: how the rating log
//! ([`crate::stats::chrono`]) and the event log ([`crate::stats::eventlog`]) sort more records
//! than fit in memory.
//!
//! A user collects records in memory up to its own budget, sorts them and writes them as one
//! run ([`SortedRuns::push_run`]). Runs of one level are merged into one run of the next as
//! soon as [`FAN_IN`] of them pile up, which bounds the runs (and read buffers) a replay
//! merges at once. The runs merged give their bytes back to the store as the merge reads past
//! them ([`RunStore::release`]: a hole in the temporary file on Linux), so that the store holds
//! about the records sorted, not those records again at each level. A replay
//! ([`SortedRuns::replay`]) merges the runs with the sorted records still in memory. Merges are stable: of two equal records, the one of the earlier run comes
//! first, and records in memory (the latest added) come last.
//!
//! What a record is, how it is laid out in a run and how records are ordered is the user's
//! business, told through [`RunFormat`]; this module only moves bytes and merges.

use std::cmp::Ordering;
use std::io;

use super::RunStore;

/// Runs of one level merged into one run of the next when this many have piled up.
pub const FAN_IN: usize = 16;

/// Bytes written to a store at once, and read from one run at once.
const CHUNK_BYTES: usize = 64 * 1024;

/// What a log tells [`SortedRuns`] about its records: how they are ordered, written to a run
/// and read back. A value of the format carries what that needs (a table the records refer
/// to, a check for the records read back).
pub(crate) trait RunFormat {
    /// A record as merges compare it and replays hand it out, borrowed from the records in
    /// memory or from the reader of a run.
    type Item<'a>: Copy
    where
        Self: 'a;

    /// A record as the log keeps it in memory.
    type Pending;

    /// What the reader of one run keeps: the record read last, and whatever the next record
    /// may leave out because it is the same.
    type Reader: Default;

    /// What the writer of one run keeps of the records written so far.
    type Writer: Default;

    /// Names the runs in the error for a damaged run: "damaged {KIND} run".
    const KIND: &'static str;

    /// A record in memory as an item.
    fn pending<'a>(&'a self, record: &'a Self::Pending) -> Self::Item<'a>;

    /// The order of records: runs are sorted by it, merges follow it.
    fn cmp(&self, a: Self::Item<'_>, b: Self::Item<'_>) -> Ordering;

    /// Appends `item` to `out`, the bytes of a run after the records `writer` has seen.
    ///
    /// # Errors
    ///
    /// When the record cannot be written (a field too long for the format).
    fn encode(
        &self,
        writer: &mut Self::Writer,
        item: Self::Item<'_>,
        out: &mut Vec<u8>,
    ) -> io::Result<()>;

    /// Reads the next record of a run into `reader`.
    ///
    /// # Errors
    ///
    /// When the bytes cannot be read, or do not make a record (see [`damaged`]).
    fn decode(&self, reader: &mut Self::Reader, bytes: &mut RunBytes<'_>) -> io::Result<()>;

    /// The record `reader` read last, if it read one.
    fn head<'a>(&'a self, reader: &'a Self::Reader) -> Option<Self::Item<'a>>;
}

/// The error for a run whose bytes do not make records of the format named `kind`
/// ([`RunFormat::KIND`]).
pub(crate) fn damaged(kind: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("damaged {kind} run"))
}

/// A sorted run in the store.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Run {
    /// Where its first record starts.
    offset: u64,
    /// The bytes of its records.
    bytes: u64,
    /// Its records.
    pub(crate) len: u64,
    /// 0 for a run sorted in memory, n + 1 for one merged from runs of level n.
    pub(crate) level: u32,
}

/// The sorted runs of a log and the store they are in.
pub(crate) struct SortedRuns {
    store: Box<dyn RunStore>,
    runs: Vec<Run>,
    /// Bytes in the store: where the next run starts.
    stored: u64,
    /// Bytes written to the store at once, and read from one run at once.
    chunk: usize,
}

impl SortedRuns {
    /// No runs yet; they will go to `store`.
    pub(crate) fn new(store: Box<dyn RunStore>) -> SortedRuns {
        SortedRuns {
            store,
            runs: Vec::new(),
            stored: 0,
            chunk: CHUNK_BYTES,
        }
    }

    /// Reads and writes `bytes` at once (at least 1) rather than 64 KiB: so that the buffers
    /// of a merge of [`FAN_IN`] runs fit in a smaller budget.
    pub(crate) fn with_chunk(mut self, bytes: usize) -> SortedRuns {
        self.chunk = bytes.max(1);
        self
    }

    /// The store, its runs forgotten.
    pub(crate) fn into_store(self) -> Box<dyn RunStore> {
        self.store
    }

    /// The runs, earliest first.
    pub(crate) fn runs(&self) -> &[Run] {
        &self.runs
    }

    /// Bytes of the runs in the store.
    pub(crate) fn stored_bytes(&self) -> u64 {
        self.stored
    }

    /// Writes `items`, which must be sorted by `format`, as a run after the others, then
    /// merges runs that piled up.
    ///
    /// # Errors
    ///
    /// Errors of the store and of `format`.
    pub(crate) fn push_run<'i, F: RunFormat + 'i>(
        &mut self,
        format: &F,
        items: impl IntoIterator<Item = F::Item<'i>>,
    ) -> io::Result<()> {
        let mut out = RunWriter::new(self.stored, self.chunk);
        for item in items {
            out.push(&mut *self.store, format, item)?;
        }
        let run = out.finish(&mut *self.store, 0)?;
        if run.len > 0 {
            self.keep(run);
        }
        self.cascade(format)
    }

    /// Adds `run`, just written at the end of the store, after the others.
    fn keep(&mut self, run: Run) {
        self.stored = run.offset + run.bytes;
        self.runs.push(run);
    }

    /// While the last [`FAN_IN`] runs are of one level, merges them into one run of the next.
    fn cascade<F: RunFormat>(&mut self, format: &F) -> io::Result<()> {
        loop {
            let Some(last) = self.runs.last().map(|r| r.level) else {
                return Ok(());
            };
            let same = self
                .runs
                .iter()
                .rev()
                .take_while(|r| r.level == last)
                .count();
            if same < FAN_IN {
                return Ok(());
            }
            self.merge_last(format, FAN_IN)?;
        }
    }

    /// Merges the last runs into one until at most `most` (at least 2) are left: so that a
    /// replay that follows reads that many runs at once, whatever their levels.
    ///
    /// # Errors
    ///
    /// Errors of the store and of `format`.
    pub(crate) fn settle<F: RunFormat>(&mut self, format: &F, most: usize) -> io::Result<()> {
        let most = most.max(2);
        while self.runs.len() > most {
            // The last runs are the shortest (levels fall toward the end): merging as few of
            // them as leave `most`, at most `FAN_IN` at once, copies the fewest records.
            let group = (self.runs.len() - most + 1).min(FAN_IN);
            self.merge_last(format, group)?;
        }
        Ok(())
    }

    /// Merges the last `group` runs into one run, after the others, a level above the
    /// highest of them.
    fn merge_last<F: RunFormat>(&mut self, format: &F, group: usize) -> io::Result<()> {
        let first = self.runs.len() - group;
        let level = self.runs[first..]
            .iter()
            .map(|r| r.level)
            .max()
            .unwrap_or(0);
        // Read once: each gives its disk back as it is read.
        let sources = self.runs[first..]
            .iter()
            .map(|r| Source::Run(RunReader::new(r, self.chunk).consumed()))
            .collect();
        let mut merge = Merge::new(sources, format, &*self.store)?;
        let mut out = RunWriter::new(self.stored, self.chunk);
        while let Some(item) = merge.peek(format) {
            out.push(&mut *self.store, format, item)?;
            merge.advance(format, &*self.store)?;
        }
        let run = out.finish(&mut *self.store, level + 1)?;
        // What the readers had not given back yet (they give back only what they read past).
        let start = self.runs[first].offset;
        self.store.release(start, run.offset - start)?;
        self.runs.truncate(first);
        self.keep(run);
        Ok(())
    }

    /// Every record of the runs and of `pending` (sorted by `format`, the latest added),
    /// merged in `format`'s order: a [`Replay`] gives them one at a time.
    ///
    /// # Errors
    ///
    /// Errors of the store (a damaged run included) while reading the first records.
    pub(crate) fn replay<'a, F: RunFormat>(
        &'a self,
        format: &'a F,
        pending: &'a [F::Pending],
    ) -> io::Result<Replay<'a, F>> {
        let mut sources: Vec<Source<'a, F>> = self
            .runs
            .iter()
            .map(|r| Source::run(r, self.chunk))
            .collect();
        // Last: the records in memory are the latest added, so they lose ties.
        sources.push(Source::Memory {
            records: pending.iter(),
            head: None,
        });
        Ok(Replay {
            merge: Merge::new(sources, format, &*self.store)?,
            format,
            store: &*self.store,
        })
    }

    /// Copies every run of `other` (whose records `from` reads) after these runs, each at its
    /// level, passing the record each run's reader holds through `map`, which must keep every
    /// run sorted under `format`; runs that pile up are merged after each copy.
    ///
    /// # Errors
    ///
    /// Errors of either store, of the formats and of `map`.
    pub(crate) fn append_runs<F: RunFormat>(
        &mut self,
        format: &F,
        other: &SortedRuns,
        from: &F,
        mut map: impl FnMut(&F::Reader) -> io::Result<F::Pending>,
    ) -> io::Result<()> {
        for run in &other.runs {
            let mut reader = RunReader::<F>::new(run, other.chunk);
            let mut out = RunWriter::new(self.stored, self.chunk);
            while reader.advance(from, &*other.store)? {
                let record = map(&reader.state)?;
                out.push(&mut *self.store, format, format.pending(&record))?;
            }
            let run = out.finish(&mut *self.store, run.level)?;
            self.keep(run);
            self.cascade(format)?;
        }
        Ok(())
    }
}

/// A replay in progress ([`SortedRuns::replay`]).
pub(crate) struct Replay<'a, F: RunFormat> {
    merge: Merge<'a, F>,
    format: &'a F,
    store: &'a dyn RunStore,
}

impl<F: RunFormat> Replay<'_, F> {
    /// The next record, `None` at the end.
    pub(crate) fn peek(&self) -> Option<F::Item<'_>> {
        self.merge.peek(self.format)
    }

    /// Moves past the record [`peek`](Self::peek) gave.
    ///
    /// # Errors
    ///
    /// Errors of the store (a damaged run included).
    pub(crate) fn advance(&mut self) -> io::Result<()> {
        self.merge.advance(self.format, self.store)
    }
}

/// Writes one run, a chunk at a time.
struct RunWriter<W> {
    offset: u64,
    bytes: u64,
    len: u64,
    chunk: Vec<u8>,
    /// The chunk's bytes before it is written.
    limit: usize,
    state: W,
}

impl<W: Default> RunWriter<W> {
    fn new(offset: u64, limit: usize) -> RunWriter<W> {
        RunWriter {
            offset,
            bytes: 0,
            len: 0,
            chunk: Vec::with_capacity(limit),
            limit,
            state: W::default(),
        }
    }

    fn push<F: RunFormat<Writer = W>>(
        &mut self,
        store: &mut dyn RunStore,
        format: &F,
        item: F::Item<'_>,
    ) -> io::Result<()> {
        format.encode(&mut self.state, item, &mut self.chunk)?;
        self.len += 1;
        if self.chunk.len() >= self.limit {
            self.flush(store)?;
        }
        Ok(())
    }

    fn flush(&mut self, store: &mut dyn RunStore) -> io::Result<()> {
        if !self.chunk.is_empty() {
            store.append(&self.chunk)?;
            self.bytes += self.chunk.len() as u64;
            self.chunk.clear();
        }
        Ok(())
    }

    fn finish(mut self, store: &mut dyn RunStore, level: u32) -> io::Result<Run> {
        self.flush(store)?;
        Ok(Run {
            offset: self.offset,
            bytes: self.bytes,
            len: self.len,
            level,
        })
    }
}

/// The bytes of one run as a format reads them: [`take`](Self::take) gives the next ones.
pub(crate) struct RunBytes<'a> {
    cursor: &'a mut ByteCursor,
    store: &'a dyn RunStore,
    /// The format's [`RunFormat::KIND`], for errors.
    kind: &'static str,
}

impl RunBytes<'_> {
    /// The next `n` bytes of the run.
    ///
    /// # Errors
    ///
    /// When the store cannot read them, and a [`damaged`] run when it has fewer left.
    pub(crate) fn take(&mut self, n: usize) -> io::Result<&[u8]> {
        let c = &mut *self.cursor;
        let have = c.buf.len() - c.at;
        if have < n {
            c.buf.drain(..c.at);
            c.at = 0;
            if let Some(from) = c.released.filter(|&from| from < c.next) {
                // Every byte before `next` is read (into `buf`, or past).
                self.store.release(from, c.next - from)?;
                c.released = Some(c.next);
            }
            let want = (n - have).max(c.chunk) as u64;
            let take = want.min(c.end - c.next) as usize;
            if take < n - have {
                return Err(damaged(self.kind));
            }
            let start = c.buf.len();
            c.buf.resize(start + take, 0);
            self.store.read_at(c.next, &mut c.buf[start..])?;
            c.next += take as u64;
        }
        let bytes = &c.buf[c.at..c.at + n];
        c.at += n;
        Ok(bytes)
    }
}

/// Where a reader is in its run's bytes, and the chunk it read last.
struct ByteCursor {
    next: u64,
    end: u64,
    buf: Vec<u8>,
    at: usize,
    /// Bytes read at once, at least.
    chunk: usize,
    /// For a run read once (merged into another): the bytes before this offset are given back
    /// to the store.
    released: Option<u64>,
}

/// Reads one run back, a chunk at a time.
pub(crate) struct RunReader<F: RunFormat> {
    bytes: ByteCursor,
    left: u64,
    state: F::Reader,
}

impl<F: RunFormat> RunReader<F> {
    fn new(run: &Run, chunk: usize) -> RunReader<F> {
        RunReader {
            bytes: ByteCursor {
                next: run.offset,
                end: run.offset + run.bytes,
                buf: Vec::new(),
                at: 0,
                chunk,
                released: None,
            },
            left: run.len,
            state: F::Reader::default(),
        }
    }

    /// A reader that gives the run's bytes back to the store as it reads past them: for a run
    /// that is read once, by the merge into a run of the next level.
    fn consumed(mut self) -> RunReader<F> {
        self.bytes.released = Some(self.bytes.next);
        self
    }

    /// Reads the next record; `false` at the end of the run.
    ///
    /// # Errors
    ///
    /// Errors of the store, and a damaged run.
    pub(crate) fn advance(&mut self, format: &F, store: &dyn RunStore) -> io::Result<bool> {
        if self.left == 0 {
            return Ok(false);
        }
        self.left -= 1;
        let mut bytes = RunBytes {
            cursor: &mut self.bytes,
            store,
            kind: F::KIND,
        };
        format.decode(&mut self.state, &mut bytes)?;
        Ok(true)
    }

    /// The record read last.
    pub(crate) fn head<'a>(&'a self, format: &'a F) -> Option<F::Item<'a>> {
        format.head(&self.state)
    }
}

/// Where a merge takes records from: a run in the store, or the sorted records in memory.
enum Source<'a, F: RunFormat> {
    Run(RunReader<F>),
    Memory {
        records: std::slice::Iter<'a, F::Pending>,
        head: Option<&'a F::Pending>,
    },
}

impl<'a, F: RunFormat> Source<'a, F> {
    fn run(run: &Run, chunk: usize) -> Source<'a, F> {
        Source::Run(RunReader::new(run, chunk))
    }

    /// Moves to the next record; `false` when there is none.
    fn advance(&mut self, format: &F, store: &dyn RunStore) -> io::Result<bool> {
        match self {
            Source::Run(reader) => reader.advance(format, store),
            Source::Memory { records, head } => {
                *head = records.next();
                Ok(head.is_some())
            }
        }
    }

    fn head<'s>(&'s self, format: &'s F) -> Option<F::Item<'s>> {
        match self {
            Source::Run(reader) => reader.head(format),
            Source::Memory { head, .. } => head.map(|p| format.pending(p)),
        }
    }
}

/// A k-way merge of sorted sources: a binary heap of the sources that have a record left by
/// their current record, ties going to the earlier source, so the merge is stable.
struct Merge<'a, F: RunFormat> {
    sources: Vec<Source<'a, F>>,
    heap: Vec<usize>,
}

impl<'a, F: RunFormat> Merge<'a, F> {
    fn new(
        mut sources: Vec<Source<'a, F>>,
        format: &F,
        store: &dyn RunStore,
    ) -> io::Result<Merge<'a, F>> {
        let mut heap = Vec::with_capacity(sources.len());
        for (i, source) in sources.iter_mut().enumerate() {
            if source.advance(format, store)? {
                heap.push(i);
            }
        }
        let mut merge = Merge { sources, heap };
        for at in (0..merge.heap.len() / 2).rev() {
            merge.sift_down(at, format);
        }
        Ok(merge)
    }

    /// Whether source `i`'s current record comes before source `j`'s.
    fn before(&self, i: usize, j: usize, format: &F) -> bool {
        match (self.sources[i].head(format), self.sources[j].head(format)) {
            (Some(a), Some(b)) => format.cmp(a, b).then(i.cmp(&j)) == Ordering::Less,
            (Some(_), None) => true,
            (None, _) => false,
        }
    }

    fn sift_down(&mut self, mut at: usize, format: &F) {
        loop {
            let mut first = at;
            for child in [2 * at + 1, 2 * at + 2] {
                if child < self.heap.len()
                    && self.before(self.heap[child], self.heap[first], format)
                {
                    first = child;
                }
            }
            if first == at {
                return;
            }
            self.heap.swap(at, first);
            at = first;
        }
    }

    /// The next record.
    fn peek<'s>(&'s self, format: &'s F) -> Option<F::Item<'s>> {
        self.heap
            .first()
            .and_then(|&i| self.sources[i].head(format))
    }

    /// Moves past the record [`peek`](Self::peek) gave.
    fn advance(&mut self, format: &F, store: &dyn RunStore) -> io::Result<()> {
        let Some(&source) = self.heap.first() else {
            return Ok(());
        };
        if !self.sources[source].advance(format, store)? {
            let last = self.heap.len() - 1;
            self.heap.swap(0, last);
            self.heap.pop();
        }
        self.sift_down(0, format);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sort::MemoryStore;

    /// Records of a key and the position they were added at, sorted by key alone: what the
    /// merges must keep in the order added is then visible.
    struct Keys;

    impl RunFormat for Keys {
        type Item<'a> = (u32, u32);
        type Pending = (u32, u32);
        type Reader = Option<(u32, u32)>;
        type Writer = ();
        const KIND: &'static str = "test";

        fn pending(&self, record: &(u32, u32)) -> (u32, u32) {
            *record
        }

        fn cmp(&self, a: (u32, u32), b: (u32, u32)) -> Ordering {
            a.0.cmp(&b.0)
        }

        fn encode(&self, _: &mut (), (key, at): (u32, u32), out: &mut Vec<u8>) -> io::Result<()> {
            out.extend_from_slice(&key.to_le_bytes());
            out.extend_from_slice(&at.to_le_bytes());
            Ok(())
        }

        fn decode(
            &self,
            head: &mut Option<(u32, u32)>,
            bytes: &mut RunBytes<'_>,
        ) -> io::Result<()> {
            let bytes = bytes.take(8)?;
            let half = |at: usize| {
                let four = bytes[at..at + 4]
                    .try_into()
                    .map_err(|_| damaged(Self::KIND))?;
                Ok::<_, io::Error>(u32::from_le_bytes(four))
            };
            *head = Some((half(0)?, half(4)?));
            Ok(())
        }

        fn head(&self, head: &Option<(u32, u32)>) -> Option<(u32, u32)> {
            *head
        }
    }

    /// `n` records with few distinct keys, in runs of `run_len` (the rest left in memory).
    fn runs_of(n: u32, run_len: usize) -> (SortedRuns, Vec<(u32, u32)>) {
        let mut runs = SortedRuns::new(Box::new(MemoryStore::default()));
        let mut pending = Vec::new();
        for at in 0..n {
            pending.push(((at * 7919) % 13, at));
            if pending.len() == run_len {
                pending.sort_by_key(|r| r.0);
                runs.push_run(&Keys, pending.drain(..)).unwrap();
            }
        }
        pending.sort_by_key(|r| r.0);
        (runs, pending)
    }

    fn replayed(runs: &SortedRuns, pending: &[(u32, u32)]) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        let mut replay = runs.replay(&Keys, pending).unwrap();
        while let Some(record) = replay.peek() {
            out.push(record);
            replay.advance().unwrap();
        }
        out
    }

    #[test]
    fn runs_pile_up_into_merged_runs() {
        let (runs, pending) = runs_of(300, 1);
        assert!(pending.is_empty());
        // 300 runs of one record merge by 16 into runs of 16 and 256.
        assert!(runs.runs().len() < 2 * FAN_IN, "{} runs", runs.runs().len());
        assert!(runs.runs().iter().any(|r| r.level == 2));
        assert_eq!(runs.runs().iter().map(|r| r.len).sum::<u64>(), 300);
    }

    #[test]
    fn replays_are_a_stable_sort_of_runs_and_memory() {
        let mut want: Vec<(u32, u32)> = (0..500).map(|at| ((at * 7919) % 13, at)).collect();
        want.sort_by_key(|r| r.0);
        for run_len in [1, 2, 7, 100, 499, 1000] {
            let (runs, pending) = runs_of(500, run_len);
            assert_eq!(replayed(&runs, &pending), want, "runs of {run_len}");
        }
    }

    #[test]
    fn settled_runs_are_few_and_replay_as_before_with_any_chunk() {
        let mut want: Vec<(u32, u32)> = (0..500).map(|at| ((at * 7919) % 13, at)).collect();
        want.sort_by_key(|r| r.0);
        for (run_len, most, chunk) in [(1, 2, 1), (3, 5, 7), (7, 16, 100), (100, 2, 1 << 16)] {
            let (runs, pending) = runs_of(500, run_len);
            let mut runs = SortedRuns { chunk, ..runs };
            runs.push_run(&Keys, pending).unwrap();
            runs.settle(&Keys, most).unwrap();
            assert!(runs.runs().len() <= most, "{} runs", runs.runs().len());
            assert_eq!(replayed(&runs, &[]), want, "runs of {run_len}");
        }
        let runs = SortedRuns::new(Box::new(MemoryStore::default())).with_chunk(0);
        assert_eq!(runs.chunk, 1);
    }

    #[test]
    fn copied_runs_keep_their_records_and_levels() {
        let (from, _) = runs_of(40, 8);
        let (mut runs, _) = runs_of(0, 8);
        runs.append_runs(&Keys, &from, &Keys, |head| {
            head.ok_or_else(|| damaged(Keys::KIND))
        })
        .unwrap();
        assert_eq!(runs.runs().len(), from.runs().len());
        assert_eq!(replayed(&runs, &[]), replayed(&from, &[]));
    }

    #[test]
    fn a_run_shorter_than_its_records_is_damaged() {
        let (mut runs, _) = runs_of(3, 3);
        runs.runs[0].bytes -= 1;
        let mut replay = runs.replay(&Keys, &[]).unwrap();
        let e = loop {
            assert!(replay.peek().is_some(), "the end without an error");
            if let Err(e) = replay.advance() {
                break e;
            }
        };
        assert!(e.to_string().contains("damaged test run"), "{e}");
    }
}
