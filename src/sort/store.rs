//! Where sorted runs live: the [`RunStore`] trait, in memory ([`MemoryStore`]) or in one
//! temporary file ([`TempFileStore`], in the system's temporary directory or a folder given):
//! the runs of the rating log, of the event log and of dedup's sorts, and the pairs of an
//! event too large for memory.
//!
//! A temporary file is created only when the first run is spilled, in the directory of
//! [`std::env::temp_dir`] (`TMPDIR` on Unix). On Unix it is unlinked as soon as it is open, so
//! nothing is left behind whatever ends the process; elsewhere it is removed when the store is
//! dropped.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Storage for the sorted runs of a rating log or an event log: bytes appended at the end and
/// read back by position. The log decides what the bytes mean.
pub trait RunStore: Send {
    /// Appends `bytes` after everything stored so far.
    ///
    /// # Errors
    ///
    /// When the bytes cannot be stored (no space left, no temporary file could be created).
    fn append(&mut self, bytes: &[u8]) -> io::Result<()>;

    /// Fills `buf` with the bytes stored from `offset` on.
    ///
    /// # Errors
    ///
    /// When they cannot be read, or fewer than `buf.len()` bytes are stored there.
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()>;

    /// Gives back the space of `len` bytes from `offset` on, which will not be read again (the
    /// runs merged into another): their bytes are gone, but the offsets of the bytes after
    /// them stay. A store that cannot give space back keeps them: nothing else changes.
    ///
    /// # Errors
    ///
    /// When the store could give the space back and failed to.
    fn release(&self, offset: u64, len: u64) -> io::Result<()> {
        let _ = (offset, len);
        Ok(())
    }

    /// Forgets everything stored, so that the next append starts again at offset 0.
    ///
    /// # Errors
    ///
    /// When the space cannot be given back.
    fn clear(&mut self) -> io::Result<()>;
}

/// A [`RunStore`] in memory: runs are kept compactly, but memory still grows with the games.
#[derive(Debug, Default)]
pub struct MemoryStore {
    bytes: Vec<u8>,
}

impl RunStore for MemoryStore {
    fn append(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.bytes.extend_from_slice(bytes);
        Ok(())
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let start = usize::try_from(offset).unwrap_or(usize::MAX);
        let stored = start
            .checked_add(buf.len())
            .and_then(|end| self.bytes.get(start..end))
            .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof))?;
        buf.copy_from_slice(stored);
        Ok(())
    }

    fn clear(&mut self) -> io::Result<()> {
        self.bytes.clear();
        Ok(())
    }
}

/// A [`RunStore`] in one temporary file.
#[derive(Debug)]
pub struct TempFileStore {
    dir: PathBuf,
    file: Option<File>,
    /// The file's path while it has one (until it is unlinked or dropped).
    path: Option<PathBuf>,
    len: u64,
}

impl TempFileStore {
    /// A store that will create its file in the system's temporary directory.
    pub fn new() -> TempFileStore {
        TempFileStore::in_dir(std::env::temp_dir())
    }

    /// A store that will create its file in `dir`.
    pub fn in_dir(dir: impl Into<PathBuf>) -> TempFileStore {
        TempFileStore {
            dir: dir.into(),
            file: None,
            path: None,
            len: 0,
        }
    }

    /// The file, created on first use.
    fn file(&mut self) -> io::Result<&File> {
        if self.file.is_none() {
            let (file, path) = create_unique(&self.dir).map_err(|e| {
                io::Error::new(
                    e.kind(),
                    format!(
                        "cannot create a temporary file in {} (set TMPDIR to another directory): {e}",
                        self.dir.display()
                    ),
                )
            })?;
            // Unlinked at once where an open file survives it: nothing is left behind even if
            // the process is killed.
            self.path = if cfg!(unix) && std::fs::remove_file(&path).is_ok() {
                None
            } else {
                Some(path)
            };
            self.file = Some(file);
        }
        self.file
            .as_ref()
            .ok_or_else(|| io::Error::other("temporary file not open"))
    }
}

impl Default for TempFileStore {
    fn default() -> TempFileStore {
        TempFileStore::new()
    }
}

impl Drop for TempFileStore {
    fn drop(&mut self) {
        self.file = None;
        if let Some(path) = self.path.take() {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Creates a new file in `dir` with a name no other process or store uses.
fn create_unique(dir: &Path) -> io::Result<(File, PathBuf)> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let mut tries = 0;
    loop {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let name = format!(
            "pgnkit-runs-{}-{}-{nanos:08x}.tmp",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let path = dir.join(name);
        match OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(file) => return Ok((file, path)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && tries < 100 => tries += 1,
            Err(e) => return Err(e),
        }
    }
}

impl RunStore for TempFileStore {
    fn append(&mut self, bytes: &[u8]) -> io::Result<()> {
        let at = self.len;
        write_all_at(self.file()?, bytes, at)?;
        self.len += bytes.len() as u64;
        Ok(())
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let file = self
            .file
            .as_ref()
            .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof))?;
        read_exact_at(file, buf, offset)
    }

    fn clear(&mut self) -> io::Result<()> {
        if let Some(file) = &self.file {
            file.set_len(0)?;
        }
        self.len = 0;
        Ok(())
    }

    fn release(&self, offset: u64, len: u64) -> io::Result<()> {
        match &self.file {
            Some(file) if len > 0 => punch_hole(file, offset, len),
            _ => Ok(()),
        }
    }
}

/// Frees the disk blocks of `len` bytes of `file` from `offset` on (the bytes read as zeros
/// after it; the file keeps its length). Without it the file of an external sort held the
/// runs of every level of its merges: two or three times the records sorted.
#[cfg(target_os = "linux")]
fn punch_hole(file: &File, offset: u64, len: u64) -> io::Result<()> {
    use rustix::fs::{fallocate, FallocateFlags};
    match fallocate(
        file,
        FallocateFlags::PUNCH_HOLE | FallocateFlags::KEEP_SIZE,
        offset,
        len,
    ) {
        // A file system without holes keeps the blocks, as other systems do.
        Err(e) if e == rustix::io::Errno::OPNOTSUPP || e == rustix::io::Errno::NOSYS => Ok(()),
        r => r.map_err(io::Error::from),
    }
}

/// Elsewhere the blocks stay until the store is cleared or dropped.
#[cfg(not(target_os = "linux"))]
fn punch_hole(_file: &File, _offset: u64, _len: u64) -> io::Result<()> {
    Ok(())
}

#[cfg(unix)]
fn write_all_at(file: &File, bytes: &[u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, bytes, offset)
}

#[cfg(unix)]
fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

#[cfg(windows)]
fn write_all_at(file: &File, mut bytes: &[u8], mut offset: u64) -> io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !bytes.is_empty() {
        let n = file.seek_write(bytes, offset)?;
        if n == 0 {
            return Err(io::ErrorKind::WriteZero.into());
        }
        bytes = &bytes[n..];
        offset += n as u64;
    }
    Ok(())
}

#[cfg(windows)]
fn read_exact_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        let n = file.seek_read(buf, offset)?;
        if n == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        buf = &mut std::mem::take(&mut buf)[n..];
        offset += n as u64;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("pgnkit-spill-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn bytes_read_back_by_position_and_nothing_is_left_behind() {
        let dir = scratch("roundtrip");
        {
            let mut store = TempFileStore::in_dir(&dir);
            store.append(b"hello ").unwrap();
            store.append(b"world").unwrap();
            let mut buf = [0; 5];
            store.read_at(6, &mut buf).unwrap();
            assert_eq!(&buf, b"world");
            store.read_at(0, &mut buf).unwrap();
            assert_eq!(&buf, b"hello");
            assert!(store.read_at(8, &mut buf).is_err(), "past the end");
        }
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_cleared_store_starts_again_at_offset_zero() {
        let dir = scratch("clear");
        let mut store = TempFileStore::in_dir(&dir);
        store.clear().unwrap();
        store.append(b"first").unwrap();
        store.clear().unwrap();
        let mut buf = [0; 3];
        assert!(store.read_at(0, &mut buf).is_err(), "nothing left");
        store.append(b"two").unwrap();
        store.read_at(0, &mut buf).unwrap();
        assert_eq!(&buf, b"two");
        drop(store);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn no_file_until_the_first_run() {
        let dir = scratch("lazy");
        let store = TempFileStore::in_dir(dir.join("missing"));
        let mut buf = [0; 1];
        assert!(store.read_at(0, &mut buf).is_err());
        drop(store);
        let mut store = TempFileStore::in_dir(dir.join("missing"));
        let e = store.append(b"x").unwrap_err();
        assert!(
            e.to_string().contains("cannot create a temporary file"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
