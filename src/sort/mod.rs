//! The one external sorter: records sorted in memory while they fit, past that in sorted runs
//! in a [`RunStore`] (memory, or one temporary file), merged in levels of [`FAN_IN`] so that
//! the runs read at once, and their buffers, stay few at any input size. Merges are stable.
//!
//! [`runs`] holds the runs and their merges, told what a record is by a [`RunFormat`];
//! [`store`] holds where the bytes of the runs live.

pub mod runs;
pub mod store;

pub use runs::FAN_IN;
pub(crate) use runs::{damaged, RunBytes, RunFormat, SortedRuns};
pub use store::{MemoryStore, RunStore, TempFileStore};
