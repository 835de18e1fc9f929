//! Opening inputs: files, directories (walked recursively in a stable order) and stdin, with
//! compression recognised by its magic bytes (gzip, bzip2, zstd, xz) and decompressed on a
//! thread of its own.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, Receiver};
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

/// Whether a file found while walking a directory is a game file.
fn is_game_file(path: &Path) -> bool {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let name = ["gz", "bz2", "zst", "xz"]
        .iter()
        .find_map(|ext| name.strip_suffix(&format!(".{ext}")))
        .unwrap_or(&name);
    name.ends_with(".pgn")
}

/// Expands the command-line paths: `-` is stdin, a directory gives its game files
/// (recursively, sorted by path), a file is taken as it is. Unreadable directories are
/// returned as errors next to the sources found.
pub fn expand(paths: &[PathBuf]) -> (Vec<Source>, Vec<(PathBuf, io::Error)>) {
    let mut sources = Vec::new();
    let mut errors = Vec::new();
    for path in paths {
        if path.as_os_str() == "-" {
            sources.push(Source::Stdin);
        } else if path.is_dir() {
            let mut found = Vec::new();
            walk(path, &mut found, &mut errors);
            found.sort();
            sources.extend(found.into_iter().map(Source::File));
        } else {
            sources.push(Source::File(path.clone()));
        }
    }
    (sources, errors)
}

fn walk(dir: &Path, found: &mut Vec<PathBuf>, errors: &mut Vec<(PathBuf, io::Error)>) {
    // An explicit stack, not recursion: directory depth is untrusted too.
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) => {
                errors.push((dir, e));
                continue;
            }
        };
        for entry in entries.flatten() {
            let path = entry.path();
            match entry.file_type() {
                Ok(t) if t.is_dir() => stack.push(path),
                Ok(_) if is_game_file(&path) => found.push(path),
                _ => {}
            }
        }
    }
}

/// Opens a source and returns a reader of its decompressed bytes and the compression found.
///
/// # Errors
///
/// When the file cannot be opened or its first bytes cannot be read.
pub fn open(source: &Source) -> io::Result<(Box<dyn Read + Send>, Compression)> {
    let raw: Box<dyn Read + Send> = match source {
        Source::Stdin => Box::new(io::stdin()),
        Source::File(p) => Box::new(File::open(p)?),
    };
    let mut buffered = BufReader::with_capacity(1 << 16, raw);
    let head = loop {
        match buffered.fill_buf() {
            Ok(h) => break h,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    };
    let compression = Compression::sniff(head);
    let reader: Box<dyn Read + Send> = match compression {
        Compression::None => Box::new(buffered),
        Compression::Gzip => background(flate2::read::MultiGzDecoder::new(buffered)),
        Compression::Bzip2 => background(bzip2::read::MultiBzDecoder::new(buffered)),
        Compression::Zstd => background(zstd::stream::read::Decoder::with_buffer(buffered)?),
        Compression::Xz => background(xz2::read::XzDecoder::new_multi_decoder(buffered)),
    };
    Ok((reader, compression))
}

/// Runs a decompressor on its own thread and reads its output through a bounded channel.
fn background<R: Read + Send + 'static>(mut inner: R) -> Box<dyn Read + Send> {
    let (tx, rx) = sync_channel::<io::Result<Vec<u8>>>(4);
    thread::spawn(move || loop {
        let mut buf = vec![0; 1 << 20];
        let mut filled = 0;
        // Fill whole chunks: fewer, larger messages.
        while filled < buf.len() {
            match inner.read(&mut buf[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    let _ = tx.send(Err(e));
                    return;
                }
            }
        }
        buf.truncate(filled);
        let done = filled == 0;
        if tx.send(Ok(buf)).is_err() || done {
            return;
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
        for yes in [
            "a.pgn",
            "B.PGN",
            "x.pgn.gz",
            "x.pgn.zst",
            "x.pgn.bz2",
            "x.pgn.xz",
        ] {
            assert!(is_game_file(Path::new(yes)), "{yes}");
        }
        for no in ["a.txt", "pgn", "x.gz", "a.pgn.tar"] {
            assert!(!is_game_file(Path::new(no)), "{no}");
        }
    }
}
