//! A tape: bytes written once in order and read back once in order, in memory up to a share
//! of the budget and in a [`TempFileStore`] past it. Not a sort (nothing is ordered), but the
//! same space and store as the sorts': dedup keeps each game's moves on one, in input order,
//! beside its sorts of the games.

use std::io::{self, BufReader, BufWriter, Read, Write};

use super::{RunStore, Space, TempFileStore};

/// Bytes written once in order, to be read back in order ([`Tape::finish`]).
pub struct Tape<'s> {
    space: &'s Space,
    mem: Vec<u8>,
    file: Option<BufWriter<Appended>>,
}

/// A store written at its end, and how much it holds.
struct Appended {
    store: TempFileStore,
    len: u64,
}

impl Write for Appended {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.store.append(bytes)?;
        self.len += bytes.len() as u64;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A store read from its start to `end`.
struct Played {
    store: TempFileStore,
    next: u64,
    end: u64,
}

impl Read for Played {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = usize::try_from(self.end - self.next).map_or(buf.len(), |left| left.min(buf.len()));
        self.store.read_at(self.next, &mut buf[..n])?;
        self.next += n as u64;
        Ok(n)
    }
}

impl<'s> Tape<'s> {
    pub fn new(space: &'s Space) -> Tape<'s> {
        Tape {
            space,
            mem: Vec::new(),
            file: None,
        }
    }

    /// # Errors
    ///
    /// The file cannot be written.
    pub fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        if let Some(w) = &mut self.file {
            return w.write_all(bytes);
        }
        self.mem.extend_from_slice(bytes);
        if self.mem.len() > self.space.share() {
            let file = Appended {
                store: TempFileStore::in_dir(self.space.dir()),
                len: 0,
            };
            let mut w = BufWriter::with_capacity(self.space.chunk(), file);
            w.write_all(&self.mem)?;
            self.mem = Vec::new();
            self.file = Some(w);
        }
        Ok(())
    }

    /// Ends the writing; the bytes from the start.
    ///
    /// # Errors
    ///
    /// The file cannot be written.
    pub fn finish(self) -> io::Result<TapeReader> {
        Ok(match self.file {
            None => TapeReader {
                input: Box::new(io::Cursor::new(self.mem)),
            },
            Some(w) => {
                let Appended { store, len } = w.into_inner().map_err(|e| e.into_error())?;
                let played = Played {
                    store,
                    next: 0,
                    end: len,
                };
                TapeReader {
                    input: Box::new(BufReader::with_capacity(self.space.chunk(), played)),
                }
            }
        })
    }
}

/// A [`Tape`] read back; its file is removed when dropped.
pub struct TapeReader {
    input: Box<dyn Read>,
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
