//! Opening inputs: files, directories (walked recursively in a stable order) and stdin, with
//! compression recognised by its magic bytes (gzip, bzip2, zstd, xz) and decompressed on a
//! thread of its own.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::{Arc, Mutex};
use std::thread;

/// A compression format, as told by the first bytes of a stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    None,
    Gzip,
    Bzip2,
    Zstd,
    Xz,
}

impl Compression {
    /// Recognises the format from the first bytes (at least 6 when available).
    pub fn sniff(head: &[u8]) -> Compression {
        if head.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if head.starts_with(b"BZh") {
            Compression::Bzip2
        } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Compression::Zstd
        } else if head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0x00]) {
            Compression::Xz
        } else {
            Compression::None
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
            Compression::Bzip2 => "bzip2",
            Compression::Zstd => "zstd",
            Compression::Xz => "xz",
        }
    }
}

/// One input to read: its display name and where it comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    Stdin,
    File(PathBuf),
}

impl Source {
    /// The name used in diagnostics: the path, or `<stdin>`.
    pub fn name(&self) -> String {
        match self {
            Source::Stdin => "<stdin>".into(),
            Source::File(p) => p.display().to_string(),
        }
    }
}

/// The file name endings a directory walk takes when none are asked for.
pub const DEFAULT_EXTENSIONS: &[&str] = &["pgn"];

/// Whether a file found while walking a directory is a game file: its name ends in one of
/// `extensions` (case-insensitive, without the dot), maybe followed by a compression suffix.
fn is_game_file(path: &Path, extensions: &[String]) -> bool {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let name = ["gz", "bz2", "zst", "xz"]
        .iter()
        .find_map(|ext| name.strip_suffix(&format!(".{ext}")))
        .unwrap_or(&name);
    // Parquet files of games (a Hive-partitioned dataset's folders hold nothing else).
    if name.len() > ".parquet".len() && name.ends_with(".parquet") {
        return true;
    }
    extensions.iter().any(|ext| {
        name.strip_suffix(ext.as_str())
            .is_some_and(|stem| stem.len() > 1 && stem.ends_with('.'))
    })
}

/// The inputs the command-line paths name.
#[derive(Debug, Default)]
pub struct Expanded {
    pub sources: Vec<Source>,
    /// Directories that could not be read.
    pub errors: Vec<(PathBuf, io::Error)>,
    /// Files a directory walk passed over (their names end otherwise).
    pub skipped: usize,
    /// Entries a directory walk found under a game file's name that are no regular file (a
    /// FIFO, a socket, a device, a link to one): reading a FIFO nobody writes to would block the
    /// run forever, so a walk never opens them. Named on the command line, they are read.
    pub special: Vec<PathBuf>,
}

/// Expands the command-line paths: `-` is stdin, a directory gives its files whose names end
/// in one of `extensions` and its `.parquet` files (recursively, sorted by path: the order of
/// a Hive-partitioned dataset's `year=YYYY/month=MM/` folders), a file is taken as it is.
/// Unreadable directories are returned as errors next to the sources found.
pub fn expand(paths: &[PathBuf], extensions: &[String]) -> Expanded {
    let mut expanded = Expanded::default();
    for path in paths {
        if path.as_os_str() == "-" {
            expanded.sources.push(Source::Stdin);
        } else if path.is_dir() {
            let mut found = Vec::new();
            walk(path, extensions, &mut found, &mut expanded);
            found.sort();
            expanded.sources.extend(found.into_iter().map(Source::File));
        } else {
            expanded.sources.push(Source::File(path.clone()));
        }
    }
    expanded
}

fn walk(dir: &Path, extensions: &[String], found: &mut Vec<PathBuf>, expanded: &mut Expanded) {
    // An explicit stack, not recursion: directory depth is untrusted too.
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) => {
                expanded.errors.push((dir, e));
                continue;
            }
        };
        for entry in entries.flatten() {
            let path = entry.path();
            match entry.file_type() {
                Ok(t) if t.is_dir() => stack.push(path),
                Ok(t) if is_game_file(&path, extensions) => {
                    // A link is followed to what it names; a broken one is left to the run,
                    // which reports it as an input that cannot be opened.
                    let regular = t.is_file()
                        || (t.is_symlink()
                            && std::fs::metadata(&path).map_or(true, |m| m.is_file()));
                    if regular {
                        found.push(path);
                    } else {
                        expanded.special.push(path);
                    }
                }
                _ => expanded.skipped += 1,
            }
        }
    }
}

/// Where a compressed stream broke off, in its decompressed text.
#[derive(Debug)]
pub struct Break {
    /// The decompressor's error.
    pub error: io::Error,
    /// Decompressed bytes before the break.
    pub bytes: u64,
    /// Line (1-based) the break falls on.
    pub line: u64,
}

/// Where a compressed stream broke off, if it did. Set by the decompressing thread, read once
/// the stream has ended.
#[derive(Clone, Debug, Default)]
pub struct Cut(Arc<Mutex<Option<Break>>>);

impl Cut {
    fn set(&self, at: Break) {
        if let Ok(mut cut) = self.0.lock() {
            cut.get_or_insert(at);
        }
    }

    /// Where the stream broke off, if it did.
    pub fn take(&self) -> Option<Break> {
        self.0.lock().ok().and_then(|mut cut| cut.take())
    }
}

/// An opened source: its decompressed bytes and what was found opening it.
pub struct Opened {
    pub reader: Box<dyn Read + Send>,
    pub compression: Compression,
    /// Where a compressed stream broke off (a truncated or damaged archive).
    pub cut: Cut,
    /// The size of a regular file (for the progress bar).
    pub size: Option<u64>,
    /// What a regular file was when opened, to tell later whether it is still the same.
    pub stamp: Option<Stamp>,
}

/// What a regular file is at one moment: which file (device and inode) and its size and
/// modification time. Games read from a file are found again in it, at the same offsets, as
/// long as its stamp is the same: any write moves the modification time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stamp {
    file: (u64, u64),
    len: u64,
    modified: Option<std::time::SystemTime>,
}

impl Stamp {
    /// The stamp of an open file, `None` when it is no regular file (a pipe, a device).
    pub fn of(file: &File) -> Option<Stamp> {
        let meta = file.metadata().ok().filter(|m| m.is_file())?;
        #[cfg(unix)]
        let id = {
            use std::os::unix::fs::MetadataExt;
            (meta.dev(), meta.ino())
        };
        #[cfg(not(unix))]
        let id = (0, 0);
        Some(Stamp {
            file: id,
            len: meta.len(),
            modified: meta.modified().ok(),
        })
    }
}

/// Opens a source once and returns a reader of its decompressed bytes and the compression
/// found. Bytes read from the source itself (before decompression) are added to `counted`.
///
/// A compressed stream that breaks off (a truncated download, a damaged block) ends where it
/// breaks: every byte decompressed before the break is read, and the break is left in
/// [`Opened::cut`] for the caller to report, as `zcat file | pgnkit validate -` would read it.
///
/// # Errors
///
/// When the file cannot be opened or its first bytes cannot be read.
pub fn open(source: &Source, counted: Arc<AtomicU64>) -> io::Result<Opened> {
    let (raw, stamp): (Box<dyn Read + Send>, _) = match source {
        Source::Stdin => (Box::new(io::stdin()), None),
        Source::File(p) => {
            let file = File::open(p)?;
            let stamp = Stamp::of(&file);
            (Box::new(file), stamp)
        }
    };
    let size = stamp.as_ref().map(|s| s.len);
    let mut buffered = BufReader::with_capacity(
        1 << 16,
        Counted {
            inner: raw,
            counted,
        },
    );
    let head = loop {
        match buffered.fill_buf() {
            Ok(h) => break h,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    };
    let compression = Compression::sniff(head);
    let cut = Cut::default();
    let reader: Box<dyn Read + Send> = match compression {
        Compression::None => Box::new(buffered),
        Compression::Gzip => background(flate2::read::MultiGzDecoder::new(buffered), &cut),
        Compression::Bzip2 => background(bzip2::read::MultiBzDecoder::new(buffered), &cut),
        Compression::Zstd => background(zstd::stream::read::Decoder::with_buffer(buffered)?, &cut),
        Compression::Xz => background(xz2::read::XzDecoder::new_multi_decoder(buffered), &cut),
    };
    Ok(Opened {
        reader,
        compression,
        cut,
        size,
        stamp,
    })
}

/// A reader that adds the bytes it reads to a shared count (for the progress bar, which
/// measures inputs as they lie on disk, compressed or not). One atomic add a read of up to
/// 64 KiB: nothing per byte.
struct Counted<R> {
    inner: R,
    counted: Arc<AtomicU64>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.counted.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Runs a decompressor on its own thread and reads its output through a bounded channel.
/// A decompression error ends the stream after the bytes decompressed before it (a chunk
/// half filled is sent, not dropped) and is left in `cut`: the games before a break are
/// read, and the break is reported once, where it is.
fn background<R: Read + Send + 'static>(mut inner: R, cut: &Cut) -> Box<dyn Read + Send> {
    let (tx, rx) = sync_channel::<io::Result<Vec<u8>>>(4);
    let cut = cut.clone();
    thread::spawn(move || {
        let mut total = 0u64;
        // Lines are counted here, on the decompressor's thread, for the place of a break.
        let mut lines = 1u64;
        loop {
            let mut buf = vec![0; 1 << 20];
            let mut filled = 0;
            let mut broken = None;
            // Fill whole chunks: fewer, larger messages.
            while filled < buf.len() {
                match inner.read(&mut buf[filled..]) {
                    Ok(0) => break,
                    Ok(n) => filled += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        broken = Some(e);
                        break;
                    }
                }
            }
            buf.truncate(filled);
            total += filled as u64;
            lines += memchr::memchr_iter(b'\n', &buf).count() as u64;
            if let Some(error) = broken {
                // Recorded before the last bytes are sent: the stream's end comes after it.
                cut.set(Break {
                    error,
                    bytes: total,
                    line: lines,
                });
                let _ = tx.send(Ok(buf));
                let _ = tx.send(Ok(Vec::new()));
                return;
            }
            let done = filled == 0;
            if tx.send(Ok(buf)).is_err() || done {
                return;
            }
        }
    });
    Box::new(ChannelReader {
        rx,
        chunk: Vec::new(),
        pos: 0,
        done: false,
    })
}

struct ChannelReader {
    rx: Receiver<io::Result<Vec<u8>>>,
    chunk: Vec<u8>,
    pos: usize,
    done: bool,
}

impl Read for ChannelReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.pos == self.chunk.len() {
            if self.done {
                return Ok(0);
            }
            match self.rx.recv() {
                Ok(Ok(chunk)) => {
                    if chunk.is_empty() {
                        self.done = true;
                    }
                    self.chunk = chunk;
                    self.pos = 0;
                }
                Ok(Err(e)) => {
                    self.done = true;
                    return Err(e);
                }
                Err(_) => {
                    self.done = true;
                    return Ok(0);
                }
            }
        }
        let n = buf.len().min(self.chunk.len() - self.pos);
        buf[..n].copy_from_slice(&self.chunk[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// Whether `path` names one of the inputs (the same file, by whatever path, or the file
/// standard input reads).
pub fn is_an_input(path: &Path, sources: &[Source]) -> bool {
    input_named(path, sources).is_some()
}

/// The name of the input that `path` names, if one does.
pub fn input_named(path: &Path, sources: &[Source]) -> Option<String> {
    if crate::report::staged::is_stdout(path) || !std::fs::metadata(path).is_ok_and(|m| m.is_file())
    {
        return None;
    }
    let output = file_id(path)?;
    sources.iter().find_map(|source| {
        let input = match source {
            Source::File(input) => file_id(input),
            Source::Stdin => stdin_id(),
        };
        (input == Some(output)).then(|| match source {
            Source::File(input) => input.display().to_string(),
            Source::Stdin => "standard input reads it".to_owned(),
        })
    })
}

/// What identifies a file whatever path names it (hard and symbolic links included): its
/// device and inode.
#[cfg(unix)]
fn file_id(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// The device and inode of the file standard input reads (`- < FILE`), when it is one.
#[cfg(unix)]
fn stdin_id() -> Option<(u64, u64)> {
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    let fd = std::io::stdin().as_fd().try_clone_to_owned().ok()?;
    let meta = std::fs::File::from(fd).metadata().ok()?;
    meta.is_file().then(|| (meta.dev(), meta.ino()))
}

/// What identifies a file whatever path names it: its canonical path.
#[cfg(not(unix))]
fn file_id(path: &Path) -> Option<std::path::PathBuf> {
    std::fs::canonicalize(path).ok()
}

/// Unknown without Unix's file identities.
#[cfg(not(unix))]
fn stdin_id() -> Option<std::path::PathBuf> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_magic_bytes() {
        assert_eq!(Compression::sniff(&[0x1f, 0x8b, 8, 0]), Compression::Gzip);
        assert_eq!(Compression::sniff(b"BZh91AY"), Compression::Bzip2);
        assert_eq!(
            Compression::sniff(&[0x28, 0xb5, 0x2f, 0xfd, 0]),
            Compression::Zstd
        );
        assert_eq!(
            Compression::sniff(&[0xfd, b'7', b'z', b'X', b'Z', 0]),
            Compression::Xz
        );
        assert_eq!(Compression::sniff(b"[Event"), Compression::None);
    }

    #[test]
    fn game_files_by_name() {
        let pgn = vec!["pgn".to_string()];
        for yes in [
            "a.pgn",
            "B.PGN",
            "x.pgn.gz",
            "x.pgn.zst",
            "x.pgn.bz2",
            "x.pgn.xz",
            "train-00000-of-00010.parquet",
        ] {
            assert!(is_game_file(Path::new(yes), &pgn), "{yes}");
        }
        for no in [
            "a.txt",
            "pgn",
            ".pgn",
            "x.gz",
            "a.pgn.tar",
            "apgn",
            ".parquet",
        ] {
            assert!(!is_game_file(Path::new(no), &pgn), "{no}");
        }
        let txt = vec!["pgn".to_string(), "txt".to_string()];
        for yes in ["a.txt", "a.TXT.gz", "b.pgn"] {
            assert!(is_game_file(Path::new(yes), &txt), "{yes}");
        }
    }
}
