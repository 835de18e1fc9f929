//! The one external sorter: records sorted in memory while they fit, past that in sorted runs
//! in a [`RunStore`] (memory, or one temporary file), merged in levels of [`FAN_IN`] so that
//! the runs read at once, and their buffers, stay few at any input size. Merges are stable:
//! of two equal records, the one added first comes first.
//!
//! [`runs`] holds the runs and their merges, told what a record is by a `RunFormat` (the
//! rating log's and the event log's are variable-length and borrow tables); [`store`] holds
//! where the bytes of the runs live; [`sorter`] is the whole sort for fixed-size
//! [`Record`]s within a memory share ([`Space`]), as dedup uses it, and [`tape`] is a plain
//! spill of bytes in the same space.
//!
//! ```
//! use pgnkit::sort::{Field, Get, Put, Record, Sorter, Space};
//!
//! #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
//! struct Key(u64);
//!
//! impl Record for Key {
//!     const SIZE: usize = 8;
//!     fn put(&self, out: &mut Put<'_>) {
//!         self.0.put(out);
//!     }
//!     fn get(bytes: &mut Get<'_>) -> Key {
//!         Key(u64::get(bytes))
//!     }
//! }
//!
//! // A share of 64 bytes holds 8 keys: 1000 keys make 125 runs on disk, merged as read.
//! let dir = std::env::temp_dir();
//! let space = Space::new(&dir, 64);
//! let mut sorter = Sorter::new(&space);
//! for i in 0..1000u64 {
//!     sorter.push(Key(i * 7 % 1000))?;
//! }
//! let sorted = sorter.finish()?;
//! let mut records = sorted.iter()?;
//! let mut want = 0;
//! while let Some(Key(k)) = records.next()? {
//!     assert_eq!(k, want);
//!     want += 1;
//! }
//! assert_eq!((want, space.spilled()), (1000, 125));
//! # Ok::<(), std::io::Error>(())
//! ```

pub mod record;
pub mod runs;
pub mod sorter;
pub mod store;
pub mod tape;

pub use record::{Field, Get, Put, Record};
pub use runs::FAN_IN;
pub(crate) use runs::{damaged, RunBytes, RunFormat, SortedRuns};
pub use sorter::{Peek, Records, Sorted, Sorter, Space};
pub use store::{MemoryStore, RunStore, TempFileStore};
pub use tape::{Tape, TapeReader};
