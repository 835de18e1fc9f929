//! The spill of `pgnkit dedup`: where the games wait, in a temporary folder, between their
//! reading and the writing of the kept ones, and the copy of the kept ones to the output.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::Path;
use std::sync::Mutex;

use crate::dedup::copier::Copier;
use crate::input::Verbatim;
use crate::report::staged::TempDir;

/// Where the next game in input order waits: its source (0 the spill file, `n` the `n`th
/// [`Verbatim`] input from 1), offset and length there. Recorded in 16 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Place {
    pub(super) source: u32,
    pub(super) offset: u64,
    pub(super) len: u64,
}

impl Place {
    pub(super) fn spilled((offset, len): (u64, u64)) -> Place {
        Place {
            source: 0,
            offset,
            len,
        }
    }
}

/// The games between their reading and the writing of the kept ones, in a temporary
/// folder: their bytes as they will be written (each followed by its blank line, back to
/// back, so that a stretch of kept games is copied to the output in one step, by the kernel
/// where it can), where each game's bytes are, and the sorted runs of the [`Finder`] past the
/// memory budget. Memory stays flat however many games there are, and each input is read
/// once, so standard input can be deduplicated too. Removed when dropped, on error too.
///
/// The games of a [`Verbatim`] input are not written here: they are in the input already,
/// and writing every game to copy back the few kept would cost more than the reading. Only
/// where they are is recorded, and the kept ones are read back from the input.
///
/// The worker that read a game writes its bytes ([`Games::write`]), from where the reader
/// holds them: handing them to the sink in the game's result would copy every game once
/// more. One job writes them in input order; more jobs in the order they finish, which the
/// places the sink records ([`Spill::place`], in input order) undo.
pub(super) struct Spill {
    /// Removed by a signal that ends the process too, and by a later run once this process
    /// is gone (when it was killed outright).
    dir: TempDir,
    games: Mutex<Games>,
    /// Written by the sink alone (the lock is never waited for).
    places: Mutex<Option<BufWriter<File>>>,
}

/// The spill file of the games' bytes, and its length so far.
struct Games {
    file: Option<BufWriter<File>>,
    len: u64,
}

impl Games {
    /// A game this long is written past the buffer: copying it there costs more than the
    /// write it saves.
    const DIRECT: usize = 1 << 14;

    /// Appends a game's bytes and its blank line; where they went. A game too large to read
    /// has no bytes, and nothing is written of it.
    fn write(&mut self, bytes: &[u8]) -> io::Result<(u64, u64)> {
        let Some(b) = self.file.as_mut() else {
            return Err(io::Error::other("the spill file is closed"));
        };
        if bytes.is_empty() {
            return Ok((self.len, 0));
        }
        if bytes.len() >= Self::DIRECT {
            b.flush()?;
            b.get_mut().write_all(bytes)?;
        } else {
            b.write_all(bytes)?;
        }
        b.write_all(b"\n\n")?;
        let at = self.len;
        self.len += bytes.len() as u64 + 2;
        Ok((at, bytes.len() as u64 + 2))
    }
}

impl Spill {
    const BYTES: &'static str = "games";
    const PLACES: &'static str = "places";

    /// A fresh folder in `parent`.
    pub(super) fn create(parent: &Path) -> io::Result<Spill> {
        let dir = TempDir::create(parent, "dedup", None)?;
        let open = |name: &str| -> io::Result<BufWriter<File>> {
            let file = File::create(dir.path().join(name))?;
            Ok(BufWriter::with_capacity(1 << 16, file))
        };
        let (bytes, places) = (open(Self::BYTES)?, open(Self::PLACES)?);
        Ok(Spill {
            dir,
            games: Mutex::new(Games {
                file: Some(bytes),
                len: 0,
            }),
            places: Mutex::new(Some(places)),
        })
    }

    pub(super) fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Writes a game's bytes (on the worker that read it); where they went.
    pub(super) fn write(&self, bytes: &[u8]) -> io::Result<(u64, u64)> {
        // A worker that panicked holding the lock left no half-written game: the sink stops
        // at its missing result first.
        let mut games = self.games.lock().unwrap_or_else(|e| e.into_inner());
        games.write(bytes)
    }

    /// Records where the next game, in input order, waits.
    pub(super) fn place(&self, place: Place) -> io::Result<()> {
        // A game is at most `MAX_GAME_MIB` long, its blank line included.
        let len = u32::try_from(place.len)
            .map_err(|_| io::Error::other("a game of 4 GiB or more cannot be kept"))?;
        let mut places = self.places.lock().unwrap_or_else(|e| e.into_inner());
        let Some(p) = places.as_mut() else {
            return Ok(());
        };
        let mut record = [0u8; 16];
        record[..4].copy_from_slice(&place.source.to_le_bytes());
        record[4..8].copy_from_slice(&len.to_le_bytes());
        record[8..].copy_from_slice(&place.offset.to_le_bytes());
        p.write_all(&record)
    }

    /// Ends the writing.
    pub(super) fn finish(&mut self) -> io::Result<()> {
        let games = self
            .games
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .file
            .take();
        let places = self
            .places
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        for w in [games, places].into_iter().flatten() {
            w.into_inner().map_err(|e| e.into_error())?;
        }
        Ok(())
    }

    /// Copies the games `wanted` says, in input order, to `out`: each stretch of them that
    /// lies back to back in the spill file in one copy, those left in their input (the
    /// `inputs`, by source) read back from it. The number of games read.
    pub(super) fn copy_kept(
        &self,
        mut wanted: impl FnMut(usize) -> bool,
        inputs: &[Verbatim],
        out: &mut File,
    ) -> io::Result<usize> {
        let games = File::open(self.dir().join(Self::BYTES))?;
        let mut places =
            BufReader::with_capacity(1 << 16, File::open(self.dir().join(Self::PLACES))?);
        let mut copier = Copier::new(games, inputs, out);
        let mut head = [0u8; 16];
        let mut index = 0usize;
        while read_head(&mut places, &mut head)? {
            let word = |at: usize| {
                u32::from_le_bytes([head[at], head[at + 1], head[at + 2], head[at + 3]])
            };
            let place = Place {
                source: word(0),
                len: u64::from(word(4)),
                offset: u64::from_le_bytes(head[8..].try_into().unwrap_or_default()),
            };
            if wanted(index) && place.len > 0 {
                copier.copy(place)?;
            }
            index += 1;
        }
        copier.finish()?;
        Ok(index)
    }
}

/// Reads a record's head; false at the end of the file.
fn read_head(input: &mut impl Read, head: &mut [u8]) -> io::Result<bool> {
    match input.read_exact(head) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(false),
        Err(e) => Err(e),
    }
}

impl Drop for Spill {
    fn drop(&mut self) {
        self.games.get_mut().unwrap_or_else(|e| e.into_inner()).file = None;
        *self.places.get_mut().unwrap_or_else(|e| e.into_inner()) = None;
        // The folder goes with `self.dir`, the files closed first.
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Workers finish out of input order with several jobs: the kept games still come out in
    /// input order, each stretch that lies back to back in the file in one copy.
    #[test]
    fn kept_games_are_copied_in_input_order_whatever_order_they_were_written_in() {
        let parent = std::env::temp_dir().join(format!("pgnkit-spill-{}", std::process::id()));
        std::fs::create_dir_all(&parent).unwrap();
        let games: [&[u8]; 5] = [b"game 0", b"game 1", b"", b"game 3", b"game 4"];
        let mut spill = Spill::create(&parent).unwrap();
        // Written in the order 3, 0, 1, 2, 4, placed in input order.
        let mut places = [(0, 0); 5];
        for i in [3, 0, 1, 2, 4] {
            places[i] = spill.write(games[i]).unwrap();
        }
        for p in places {
            spill.place(Place::spilled(p)).unwrap();
        }
        spill.finish().unwrap();
        for (kept, want) in [
            (
                &[0, 1, 2, 3, 4][..],
                "game 0\n\ngame 1\n\ngame 3\n\ngame 4\n\n",
            ),
            (&[0, 3][..], "game 0\n\ngame 3\n\n"),
            (&[1, 4][..], "game 1\n\ngame 4\n\n"),
            (&[2][..], ""),
        ] {
            let path = parent.join("out.pgn");
            let mut out = File::create(&path).unwrap();
            let n = spill
                .copy_kept(|i| kept.contains(&i), &[], &mut out)
                .unwrap();
            drop(out);
            assert_eq!(n, 5);
            assert_eq!(std::fs::read_to_string(&path).unwrap(), want, "{kept:?}");
        }
        drop(spill);
        let left: Vec<_> = std::fs::read_dir(&parent)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        std::fs::remove_dir_all(&parent).unwrap();
        assert_eq!(left, ["out.pgn"], "the spill folder is removed");
    }

    /// Games left in their input are read back from it, each followed by its blank line
    /// whatever lay between them there, in input order among spilled ones; a long one past
    /// the window. An input that changed after it was read is not copied from: the run fails.
    #[test]
    fn kept_games_are_read_back_from_their_input_unless_it_changed() {
        let parent = std::env::temp_dir().join(format!("pgnkit-verbatim-{}", std::process::id()));
        std::fs::create_dir_all(&parent).unwrap();
        let long = format!("[Event \"long\"]\n\n{{{}}} *", "x".repeat(1 << 17));
        let text = format!("game 0\r\n\r\n\ngame 1\n{{ between }}\n{long}\n\ngame 3");
        let input = parent.join("in.pgn");
        std::fs::write(&input, &text).unwrap();
        let at = |game: &str| text.find(game).unwrap() as u64;
        let inputs = [Verbatim::now(input.clone(), 0).unwrap()];
        let mut spill = Spill::create(&parent).unwrap();
        let spilled = spill.write(b"spilled").unwrap();
        for (game, len) in [
            ("game 0", 6),
            ("game 1", 6),
            ("[Event \"long\"]", long.len() as u64),
            ("game 3", 6),
        ] {
            spill
                .place(Place {
                    source: 1,
                    offset: at(game),
                    len,
                })
                .unwrap();
            if game == "game 1" {
                spill.place(Place::spilled(spilled)).unwrap();
            }
        }
        spill.finish().unwrap();
        let path = parent.join("out.pgn");
        let copy = |kept: &[usize]| {
            let mut out = File::create(&path).unwrap();
            let n = spill.copy_kept(|i| kept.contains(&i), &inputs, &mut out);
            drop(out);
            n.map(|n| (n, std::fs::read_to_string(&path).unwrap()))
        };
        assert_eq!(
            copy(&[0, 1, 2, 3, 4]).unwrap(),
            (
                5,
                format!("game 0\n\ngame 1\n\nspilled\n\n{long}\n\ngame 3\n\n")
            )
        );
        assert_eq!(
            copy(&[0, 4]).unwrap(),
            (5, "game 0\n\ngame 3\n\n".to_owned())
        );
        // The same length, written since.
        std::fs::write(&input, text.replace("game 3", "game 9")).unwrap();
        let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
        File::options()
            .write(true)
            .open(&input)
            .unwrap()
            .set_modified(later)
            .unwrap();
        let e = copy(&[0, 4]).unwrap_err();
        assert!(e.to_string().contains("changed"), "{e}");
        assert!(e.to_string().contains("in.pgn"), "{e}");
        drop(spill);
        std::fs::remove_dir_all(&parent).unwrap();
    }
}
