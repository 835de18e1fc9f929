//! The copy of the kept games of `pgnkit dedup` to the output, from the spill file and from
//! the inputs that hold them, a stretch of them at a time.

use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};

use crate::dedup::spill::Place;
use crate::input::Verbatim;

/// Writes kept games to the output in input order, from where each one waits. A stretch of
/// them back to back in the spill file goes in one copy (by the kernel where it can); so does
/// a stretch of them in an input when only a blank line (`\n\n`, what the output puts after
/// each game) lies between them there. A short stretch of an input is read through a window
/// of its bytes instead, as the kept games of an input are often neighbours.
pub(super) struct Copier<'a> {
    out: BufWriter<&'a mut File>,
    games: File,
    /// The stretch of the spill file to copy next: start and length.
    stretch: (u64, u64),
    inputs: &'a [Verbatim],
    /// The input read from (its source) and the file, checked to be the one read.
    input: Option<(u32, File)>,
    /// The stretch of that input to copy next: its first byte and the byte after it.
    run: Option<(u64, u64)>,
    /// Bytes of the input from `window_at` on.
    window: Vec<u8>,
    window_at: u64,
}

impl<'a> Copier<'a> {
    /// A stretch of an input this long is copied by the kernel: the system call costs less
    /// than the copy in and out of the window.
    const DIRECT: u64 = 1 << 16;
    /// How much of an input is read at once around a short stretch.
    const WINDOW: usize = 1 << 18;

    pub(super) fn new(games: File, inputs: &'a [Verbatim], out: &'a mut File) -> Copier<'a> {
        Copier {
            out: BufWriter::with_capacity(1 << 16, out),
            games,
            stretch: (0, 0),
            inputs,
            input: None,
            run: None,
            window: Vec::new(),
            window_at: 0,
        }
    }

    pub(super) fn copy(&mut self, place: Place) -> io::Result<()> {
        if place.source == 0 {
            self.copy_run()?;
            let (start, run) = self.stretch;
            if run > 0 && start + run != place.offset {
                self.copy_stretch()?;
            }
            if self.stretch.1 == 0 {
                self.stretch.0 = place.offset;
            }
            self.stretch.1 += place.len;
            return Ok(());
        }
        self.copy_stretch()?;
        if self.input.as_ref().is_none_or(|(s, _)| *s != place.source) {
            self.copy_run()?;
            self.close_input()?;
            let verbatim = self.verbatim(place.source)?;
            let file = verbatim.open().map_err(|e| in_input(verbatim, e))?;
            self.input = Some((place.source, file));
            self.window.clear();
        }
        let end = place.offset + place.len;
        if let Some((start, run_end)) = self.run {
            if place.offset == run_end + 2 && self.blank_line_at(run_end)? {
                self.run = Some((start, end));
                return Ok(());
            }
            self.copy_run()?;
        }
        self.run = Some((place.offset, end));
        Ok(())
    }

    /// The input of a source, from 1.
    fn verbatim(&self, source: u32) -> io::Result<&'a Verbatim> {
        let i = source as usize - 1;
        self.inputs
            .get(i)
            .ok_or_else(|| io::Error::other(format!("no input {source} to copy games from")))
    }

    /// Whether the input's bytes at `at` are a blank line, `\n\n`.
    fn blank_line_at(&mut self, at: u64) -> io::Result<bool> {
        let held = at >= self.window_at && at + 2 <= self.window_at + self.window.len() as u64;
        if held {
            let from = (at - self.window_at) as usize;
            return Ok(&self.window[from..from + 2] == b"\n\n");
        }
        let Some((_, file)) = self.input.as_mut() else {
            return Ok(false);
        };
        let mut two = [0u8; 2];
        match read_at(file, &mut two, at) {
            Ok(()) => Ok(&two == b"\n\n"),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Copies the stretch of the spill file waiting, after what the buffer holds.
    fn copy_stretch(&mut self) -> io::Result<()> {
        let (start, run) = std::mem::take(&mut self.stretch);
        if run == 0 {
            return Ok(());
        }
        self.out.flush()?;
        self.games.seek(SeekFrom::Start(start))?;
        let copied = io::copy(&mut (&self.games).take(run), self.out.get_mut())?;
        if copied != run {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        Ok(())
    }

    /// Copies the stretch of the input waiting, and the blank line after it.
    fn copy_run(&mut self) -> io::Result<()> {
        let (Some((start, end)), Some((_, file))) = (self.run.take(), self.input.as_mut()) else {
            return Ok(());
        };
        let len = end - start;
        if len >= Self::DIRECT {
            self.out.flush()?;
            file.seek(SeekFrom::Start(start))?;
            let copied = io::copy(&mut (&*file).take(len), self.out.get_mut())?;
            if copied != len {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
        } else {
            let bytes = window(file, &mut self.window, &mut self.window_at, start, len)?;
            self.out.write_all(bytes)?;
        }
        self.out.write_all(b"\n\n")
    }

    /// Done with an input: it is checked again, as it may have changed while copied from.
    fn close_input(&mut self) -> io::Result<()> {
        if let Some((source, file)) = self.input.take() {
            let verbatim = self.verbatim(source)?;
            verbatim.check(&file).map_err(|e| in_input(verbatim, e))?;
        }
        Ok(())
    }

    pub(super) fn finish(mut self) -> io::Result<()> {
        self.copy_stretch()?;
        self.copy_run()?;
        self.close_input()?;
        self.out.flush()
    }
}

/// The `len` bytes of `file` at `offset`, from the window of the file's bytes held when they
/// are in it, else from a new window read from `offset` on.
fn window<'w>(
    file: &mut File,
    window: &'w mut Vec<u8>,
    at: &mut u64,
    offset: u64,
    len: u64,
) -> io::Result<&'w [u8]> {
    let n = usize::try_from(len).map_err(io::Error::other)?;
    let held = offset >= *at && offset + len <= *at + window.len() as u64;
    if !held {
        window.resize(Copier::WINDOW.max(n), 0);
        file.seek(SeekFrom::Start(offset))?;
        let mut filled = 0;
        while filled < window.len() {
            match file.read(&mut window[filled..]) {
                Ok(0) => break,
                Ok(k) => filled += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        window.truncate(filled);
        *at = offset;
        if filled < n {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
    }
    let from = (offset - *at) as usize;
    Ok(&window[from..from + n])
}

/// Reads `buf.len()` bytes of `file` at `offset` (where the file's position does not matter).
fn read_at(file: &mut File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
    }
    #[cfg(not(unix))]
    {
        file.seek(SeekFrom::Start(offset))?;
        file.read_exact(buf)
    }
}

/// An error reading an input's games back, said of the input.
fn in_input(verbatim: &Verbatim, e: io::Error) -> io::Error {
    io::Error::new(
        e.kind(),
        format!(
            "{}: {e}; its kept games were to be copied from it, so no output was written: \
             run dedup again when it no longer changes, or give a file still being written \
             on standard input (`pgnkit dedup - < {}`), whose games dedup keeps itself",
            verbatim.path.display(),
            verbatim.path.display()
        ),
    )
}
