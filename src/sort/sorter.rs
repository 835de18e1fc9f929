//! Sorting [`Record`]s within a share of a memory budget: in memory while they fit, past that
//! in sorted runs in a temporary file of a folder given, settled to at most [`FAN_IN`] runs
//! and merged as they are read. How dedup decides about a hundred million games with flat
//! memory; it touches files only inside the folder its [`Space`] names.

use std::cell::Cell;
use std::io;
use std::path::{Path, PathBuf};

use super::record::{Fixed, Record};
use super::runs::Replay;
use super::{SortedRuns, TempFileStore, FAN_IN};

/// The read and write chunks of the runs: at least a page, so that a run is read in few
/// calls; at most what makes the calls' cost small beside the copying.
const MIN_CHUNK: usize = 1 << 12;
const MAX_CHUNK: usize = 1 << 16;

/// Where sorts put their runs, and the memory each may hold: what the sorts of one task share.
#[derive(Debug)]
pub struct Space {
    dir: PathBuf,
    /// Bytes each sort may hold in memory: its records, or the chunks of its merge.
    share: usize,
    /// Bytes of each run's chunk: the chunks of a merge of [`FAN_IN`] runs and of its output
    /// fit in the share (from a share of 68 KiB on).
    chunk: usize,
    spilled: Cell<u64>,
}

impl Space {
    /// Runs go to temporary files in `dir` (which must exist once one is written); each sort
    /// holds at most `share` bytes of records in memory (a smaller one than a few hundred
    /// KiB, for tests, makes runs of a few records).
    pub fn new(dir: &Path, share: usize) -> Space {
        Space {
            dir: dir.to_path_buf(),
            share,
            chunk: (share / (FAN_IN + 1)).clamp(MIN_CHUNK, MAX_CHUNK),
            spilled: Cell::new(0),
        }
    }

    /// Bytes one sort may hold.
    pub fn share(&self) -> usize {
        self.share
    }

    /// Bytes read or written at once.
    pub(crate) fn chunk(&self) -> usize {
        self.chunk
    }

    /// Where the temporary files go.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// Sorted runs written to disk so far (the runs merged from them not counted).
    pub fn spilled(&self) -> u64 {
        self.spilled.get()
    }
}

/// Records being gathered, to be sorted.
pub struct Sorter<'s, R> {
    space: &'s Space,
    /// Records held before a run is written.
    cap: usize,
    buf: Vec<R>,
    runs: Option<SortedRuns>,
}

impl<'s, R: Record> Sorter<'s, R> {
    pub fn new(space: &'s Space) -> Sorter<'s, R> {
        // At least a few records a run, so that a tiny budget still makes progress.
        let cap = (space.share / std::mem::size_of::<R>().max(1)).max(4);
        Sorter {
            space,
            cap,
            buf: Vec::new(),
            runs: None,
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
        let space = self.space;
        let runs = self.runs.get_or_insert_with(|| {
            SortedRuns::new(Box::new(TempFileStore::in_dir(&space.dir))).with_chunk(space.chunk)
        });
        runs.push_run(&Fixed::default(), self.buf.iter().copied())?;
        self.buf.clear();
        space.spilled.set(space.spilled.get() + 1);
        Ok(())
    }

    /// The records, sorted.
    ///
    /// # Errors
    ///
    /// A run that cannot be written or read back.
    pub fn finish(mut self) -> io::Result<Sorted<'s, R>> {
        let format = Fixed::default();
        if self.runs.is_none() {
            self.buf.sort_unstable();
            return Ok(Sorted {
                mem: self.buf,
                runs: None,
                format,
                _space: self.space,
            });
        }
        if !self.buf.is_empty() {
            self.spill()?;
        }
        let mut runs = self.runs.take();
        if let Some(runs) = &mut runs {
            runs.settle(&format, FAN_IN)?;
        }
        Ok(Sorted {
            mem: Vec::new(),
            runs,
            format,
            _space: self.space,
        })
    }
}

/// Sorted records, to be read in order as many times as needed.
pub struct Sorted<'s, R> {
    mem: Vec<R>,
    /// At most [`FAN_IN`] runs.
    runs: Option<SortedRuns>,
    format: Fixed<R>,
    _space: &'s Space,
}

impl<R: Record> Sorted<'_, R> {
    /// The records in order, from the start.
    ///
    /// # Errors
    ///
    /// A run that cannot be read.
    pub fn iter(&self) -> io::Result<Records<'_, R>> {
        let replay = match &self.runs {
            Some(runs) => Some(runs.replay(&self.format, &[])?),
            None => None,
        };
        Ok(Records {
            mem: self.mem.iter(),
            replay,
        })
    }
}

/// The records of a [`Sorted`], in order: those in memory, or the merge of its runs.
pub struct Records<'a, R: Record> {
    mem: std::slice::Iter<'a, R>,
    replay: Option<Replay<'a, Fixed<R>>>,
}

impl<R: Record> Records<'_, R> {
    /// The next record; `None` at the end.
    ///
    /// # Errors
    ///
    /// A run that cannot be read.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> io::Result<Option<R>> {
        if let Some(&r) = self.mem.next() {
            return Ok(Some(r));
        }
        let Some(replay) = &mut self.replay else {
            return Ok(None);
        };
        let Some(r) = replay.peek() else {
            return Ok(None);
        };
        replay.advance()?;
        Ok(Some(r))
    }
}

/// [`Records`] that can look at the next one without taking it: for the joins of sorted
/// streams.
pub struct Peek<'a, R: Record> {
    records: Records<'a, R>,
    head: Option<R>,
}

impl<'a, R: Record> Peek<'a, R> {
    /// # Errors
    ///
    /// A run that cannot be read.
    pub fn new(mut records: Records<'a, R>) -> io::Result<Peek<'a, R>> {
        let head = records.next()?;
        Ok(Peek { records, head })
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
            self.head = self.records.next()?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sort::{Field, Get, Put};

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

    /// The records read twice, the runs spilled, and the runs left to merge.
    fn sorted(share: usize, dir: &Path) -> (Vec<Pair>, u64, usize) {
        let space = Space::new(dir, share);
        let mut s = Sorter::new(&space);
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
        let left = sorted.runs.as_ref().map_or(0, |r| r.runs().len());
        (out, space.spilled(), left)
    }

    #[test]
    fn runs_on_disk_merge_to_the_order_in_memory() {
        let dir = std::env::temp_dir().join(format!("pgnkit-sorter-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (mem, none, _) = sorted(1 << 30, &dir);
        let (disk, spilled, left) = sorted(64, &dir);
        assert_eq!(none, 0);
        // 64-byte shares hold 4 records: 250 runs, merged 16 at a time in levels, then
        // settled to 16 at most.
        assert_eq!(spilled, 250);
        assert!(left <= FAN_IN, "{left} runs");
        assert_eq!(mem, disk);
        assert!(mem.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(mem.len(), 1000);
        let left = std::fs::read_dir(&dir).unwrap().count();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(left, 0, "the runs are removed");
    }

    #[test]
    fn the_chunks_of_a_merge_fit_in_a_share_from_68_kib_on() {
        let dir = Path::new("/nonexistent");
        for share in [68 << 10, (68 << 10) + 1, 1 << 20, 1 << 30, 1 << 40] {
            let s = Space::new(dir, share);
            assert!(s.chunk >= MIN_CHUNK, "{share}");
            assert!((FAN_IN + 1) * s.chunk <= s.share, "{share}: {s:?}");
        }
    }

    /// Bytes of disk that the files of `dir` this process holds open take. The runs' file is
    /// unlinked as soon as it is open, so the folder lists nothing: it is found through
    /// `/proc/self/fd`, whose links name it (`… (deleted)`).
    #[cfg(target_os = "linux")]
    fn disk_in(dir: &Path) -> u64 {
        use std::os::unix::fs::MetadataExt;
        let mut bytes = 0;
        for fd in std::fs::read_dir("/proc/self/fd").unwrap().flatten() {
            let held = std::fs::read_link(fd.path()).is_ok_and(|to| to.starts_with(dir));
            if let Some(meta) = held.then(|| std::fs::metadata(fd.path()).ok()).flatten() {
                bytes += meta.blocks() * 512;
            }
        }
        bytes
    }

    /// Merged runs give their disk back as they are read: the temporary file holds about the
    /// records sorted so far, not the records again at each level of merges.
    #[test]
    #[cfg(target_os = "linux")]
    fn merged_runs_give_their_disk_back() {
        let dir = std::env::temp_dir().join(format!("pgnkit-sorter-disk-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // 32 KiB shares: runs of 2048 records (24 KiB on disk) read in chunks of 4 KiB, the
        // size of a block; 259 runs make two levels of merges (16 runs, then 16 of those).
        let space = Space::new(&dir, 32 << 10);
        let mut s = Sorter::new(&space);
        let per_run = (32 << 10) / std::mem::size_of::<Pair>();
        for i in 0..(per_run as u64 * 259) {
            s.push(Pair(i * 7_919 % 530_429, 0)).unwrap();
            if (i + 1) % per_run as u64 == 0 {
                // A run was just written, and the runs that piled up merged.
                let sorted = (i + 1) * Pair::SIZE as u64;
                let disk = disk_in(&dir);
                // Partly used blocks at the ends of the runs left (a few dozen) come on top.
                assert!(
                    disk <= sorted + sorted / 8 + (256 << 10),
                    "{disk} bytes of disk for {sorted} bytes of records, after run {}",
                    (i + 1) / per_run as u64
                );
            }
        }
        assert_eq!(space.spilled(), 259);
        let sorted = s.finish().unwrap();
        let mut records = sorted.iter().unwrap();
        let mut n = 0;
        let mut last = None;
        while let Some(r) = records.next().unwrap() {
            assert!(last <= Some(r));
            last = Some(r);
            n += 1;
        }
        assert_eq!(n, per_run * 259);
        drop(records);
        drop(sorted);
        assert_eq!(disk_in(&dir), 0, "the file is closed");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
