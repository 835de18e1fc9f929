//! `pgnkit dedup`: writes each game once, dropping exact copies, the same moves under other
//! tags or layout, games that are the first moves of a longer one and, if asked, games that
//! reach the same position; a CSV report says which game each dropped one duplicates.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{bail, Context};
use clap::ValueEnum;

use crate::dedup::finder::{Decision, Row};
use crate::dedup::observer::DigestObserver;
use crate::dedup::runs::Store;
use crate::dedup::{completeness, text_hash, Digest, Finder, Identity, Keep, Kind, Recorded};
use crate::diag::Severity;
use crate::input::pipeline::{Game, Lexing};
use crate::input::{Found, Inputs, ReadFrom, Verbatim};
use crate::outcome::Outcome;
use crate::outcome::{say, WriteError};
use crate::report::cell::neutralise;
use crate::report::staged::{self, StagedFiles, TempDir};
use crate::rules::game::CheckOptions;

/// Remove duplicate games: exact copies, the same moves with other tags, comments or layout,
/// games that stop early (a prefix of a longer game), and the same moves with conflicting
/// results.
///
/// The unique games are written byte for byte as read, in input order. Every input is read
/// once (standard input too): the games wait in temporary files (`--temp-dir`) until the
/// duplicates are known, but those of a plain UTF-8 file, which are copied from the file
/// itself (it must not change meanwhile). Exit status: 0 clean, 1 problems found in the
/// input (games with errors), 2 pgnkit failed.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub input: super::InputArgs,

    /// Write the unique games to this file (`-`: standard output).
    #[arg(long, short, value_name = "FILE")]
    pub output: PathBuf,

    /// Write one CSV row per duplicate: file,game,duplicate_of_file,duplicate_of_game,kind.
    #[arg(long, value_name = "FILE.csv")]
    pub report: Option<PathBuf>,

    /// Which copy of a game is kept: the `first` in input order, or the `best` (a recorded
    /// result, then more tags, then more comments).
    #[arg(long, value_enum, default_value_t = KeepArg::First)]
    pub keep: KeepArg,

    /// Also count as duplicates games that reach the same position after this many plies
    /// (`same-position`), whatever the moves before.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub fuzzy_ply: Option<u32>,

    /// Where the temporary files go (the games' moves, and the bytes of the games of
    /// compressed, decoded or standard input, as large as that input once decompressed): by
    /// default the output's folder.
    #[arg(long, value_name = "DIR")]
    pub temp_dir: Option<PathBuf>,

    /// Memory for what is kept of the games (232 bytes a game): past it, it goes to
    /// sorted runs in the temporary folder. A size in bytes with K, M, G or T (powers of
    /// 1024), as in 512M or 4G; at least 1M.
    #[arg(long, value_name = "SIZE", default_value = "1G", value_parser = parse_size)]
    pub memory_budget: u64,
}

/// A size of `--memory-budget`: a whole number of bytes, or of K, M, G or T (powers of 1024,
/// with or without a `B` or `iB` after).
fn parse_size(text: &str) -> Result<u64, String> {
    let teach = || {
        format!("`{text}` is no size: give a whole number of bytes with K, M, G or T after it (powers of 1024), as in 512M or 4G")
    };
    let t = text.trim();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let n: u64 = t[..digits].parse().map_err(|_| teach())?;
    let unit = t[digits..].trim().to_ascii_uppercase();
    let unit = unit
        .strip_suffix("IB")
        .or_else(|| unit.strip_suffix('B'))
        .unwrap_or(&unit);
    let shift = match unit {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        _ => return Err(teach()),
    };
    let bytes = n.checked_mul(1 << shift).ok_or_else(teach)?;
    if bytes < Store::MIN_BUDGET {
        return Err(format!(
            "`{text}` is too small a memory budget: give at least {}M (the merges of the sorted runs on disk need their buffers in it), as in 64M",
            Store::MIN_BUDGET >> 20
        ));
    }
    Ok(bytes)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum KeepArg {
    First,
    Best,
}

/// What the reading makes of one game (on a worker).
struct Digested {
    digest: Digest,
    start: u128,
    moves: Vec<u16>,
    /// Where the game's bytes wait for the writing of the kept games.
    bytes: Bytes,
    number: u64,
    errors: u64,
}

/// Where a game's bytes wait: in the spill file, written there by the worker, or where they
/// are in their input.
enum Bytes {
    /// Offset and length in the spill file (its blank line after it included).
    Spilled(io::Result<(u64, u64)>),
    /// Offset and length in a [`Verbatim`] input (its blank line not included).
    InInput(u64, u64),
}

/// Where the next game in input order waits: its source (0 the spill file, `n` the `n`th
/// [`Verbatim`] input from 1), offset and length there. Recorded in 16 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Place {
    source: u32,
    offset: u64,
    len: u64,
}

impl Place {
    fn spilled((offset, len): (u64, u64)) -> Place {
        Place {
            source: 0,
            offset,
            len,
        }
    }
}

impl Found for Digested {
    fn errors(&self) -> u64 {
        self.errors
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
struct Spill {
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
    fn create(parent: &Path) -> io::Result<Spill> {
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

    fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Writes a game's bytes (on the worker that read it); where they went.
    fn write(&self, bytes: &[u8]) -> io::Result<(u64, u64)> {
        // A worker that panicked holding the lock left no half-written game: the sink stops
        // at its missing result first.
        let mut games = self.games.lock().unwrap_or_else(|e| e.into_inner());
        games.write(bytes)
    }

    /// Records where the next game, in input order, waits.
    fn place(&self, place: Place) -> io::Result<()> {
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
    fn finish(&mut self) -> io::Result<()> {
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
    fn copy_kept(
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

/// Writes kept games to the output in input order, from where each one waits. A stretch of
/// them back to back in the spill file goes in one copy (by the kernel where it can); so does
/// a stretch of them in an input when only a blank line (`\n\n`, what the output puts after
/// each game) lies between them there. A short stretch of an input is read through a window
/// of its bytes instead, as the kept games of an input are often neighbours.
struct Copier<'a> {
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

    fn new(games: File, inputs: &'a [Verbatim], out: &'a mut File) -> Copier<'a> {
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

    fn copy(&mut self, place: Place) -> io::Result<()> {
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

    fn finish(mut self) -> io::Result<()> {
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

/// Runs `pgnkit dedup`.
///
/// # Errors
///
/// An output or a temporary file that cannot be written or read back.
pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let options = args.input.resolve()?;
    let mut inputs = Inputs::new(options)?;
    crate::report::staged::refuse_inputs_as_outputs(
        &[
            ("--output", Some(args.output.as_path())),
            ("--report", args.report.as_deref()),
        ],
        inputs.sources(),
    )?;
    crate::report::staged::refuse_two_on_stdout(&[
        ("--output", staged::is_stdout(&args.output)),
        (
            "--report",
            args.report.as_deref().is_some_and(staged::is_stdout),
        ),
    ])?;
    let keep = match args.keep {
        KeepArg::First => Keep::First,
        KeepArg::Best => Keep::Best,
    };
    let started = Instant::now();
    let opts = CheckOptions::default();
    let fuzzy = args.fuzzy_ply;

    // The reading: a digest a game in memory, its moves and bytes to the spill files.
    let temp = temp_dir(&args);
    let mut spill = Spill::create(&temp).with_context(|| {
        format!(
            "cannot create a temporary folder in {}; give another with --temp-dir",
            temp.display()
        )
    })?;
    let budget = usize::try_from(args.memory_budget).unwrap_or(usize::MAX);
    let store = Store::new(spill.dir(), budget);
    let mut finder = Finder::new(&store);
    let mut names: Vec<String> = Vec::new();
    let mut errors = 0u64;
    let mut with_errors = 0u64;
    let mut last_number = 0u64;
    // The inputs whose kept games are copied from themselves, and the source of the one read.
    let mut verbatim: Vec<Verbatim> = Vec::new();
    let mut source = 0u32;
    let work =
        |from: &ReadFrom<'_>, game: &mut Game<'_>| digest(from, game, &opts, fuzzy, keep, &spill);
    let sink = |from: &ReadFrom<'_>, d: Digested| -> Result<(), WriteError> {
        let name = from.name;
        if names.last().is_none_or(|last| last != name) || d.number <= last_number {
            names.push(name.to_owned());
            source = match from.verbatim {
                Some(v) => {
                    verbatim.push(v.clone());
                    verbatim.len() as u32
                }
                None => 0,
            };
        }
        last_number = d.number;
        if finder.len() >= u32::MAX as usize - 1 {
            return Err(WriteError::new(
                "the digests",
                io::Error::other("more than 4294967294 games in one run: dedup them in parts"),
            ));
        }
        errors += d.errors;
        with_errors += u64::from(d.errors > 0);
        let temp = |e| WriteError::new("the temporary files of dedup", e);
        let file = names.len() as u32 - 1;
        finder
            .add(d.digest, file, d.number, d.start, &d.moves)
            .map_err(temp)?;
        let place = match d.bytes {
            Bytes::Spilled(at) => Place::spilled(at.map_err(temp)?),
            Bytes::InInput(offset, len) if source > 0 => Place {
                source,
                offset,
                len,
            },
            Bytes::InInput(..) => {
                return Err(temp(io::Error::other("a game of no known input")));
            }
        };
        spill.place(place).map_err(temp)
    };
    inputs.run_from(Lexing::Tags, work, sink, |p| p.to_stderr())?;
    if inputs.totals.broken_pipe || inputs.totals.interrupted {
        inputs.report_no_game()?;
        return Ok(Outcome::Failed);
    }
    let back = "cannot read back the temporary files of dedup";
    spill.finish().context(back)?;
    let games = finder.len();
    let decision = finder.decide(keep, fuzzy.is_some()).context(back)?;

    // The writing: the kept games, from the spill file and the inputs.
    let mut staged = StagedFiles::new();
    let out_name = staged::display_name(Some(&args.output));
    // Its errors name the file (or standard output).
    let mut out = staged.open(Some(&args.output))?;
    let mut by_kind = [0u64; 5];
    let written = write_kept(&spill, &verbatim, &decision, &mut by_kind, &mut out)
        .with_context(|| format!("cannot write the kept games to {out_name}"))?;
    if written != games {
        bail!("{back}: {written} games of {games}");
    }
    out.flush()
        .map_err(|e| WriteError::new(out_name.as_str(), e))?;
    if let Some(path) = &args.report {
        let file = staged.open(Some(path))?;
        write_report(file, path, &decision, &store, &names)?;
    }
    drop(decision);
    let spilled = store.spilled();
    drop(spill);
    crate::report::staged::commit_after(staged, &inputs)?;

    let read = &inputs.totals;
    if !args.input.quiet {
        let duplicates: u64 = by_kind.iter().sum();
        let kinds: Vec<String> = Kind::ALL
            .iter()
            .zip(by_kind)
            .filter(|&(_, n)| n > 0)
            .map(|(k, n)| format!("{n} {}", k.as_str()))
            .collect();
        say(format_args!(
            "pgnkit: {} file{}, {} game{}: {} unique, {} duplicate{}{}{} in {:.2} s",
            read.files,
            s(read.files as u64),
            read.games,
            s(read.games),
            read.games - duplicates,
            duplicates,
            s(duplicates),
            if kinds.is_empty() {
                String::new()
            } else {
                format!(" ({})", kinds.join(", "))
            },
            if spilled == 0 {
                String::new()
            } else {
                format!(
                    "; {spilled} sorted run{} spilled to disk past --memory-budget",
                    s(spilled)
                )
            },
            started.elapsed().as_secs_f64()
        ))?;
        if with_errors > 0 {
            say(format_args!(
                "pgnkit: {with_errors} game{} with errors ({errors} in all) compared by their \
                 moves up to the first error; `pgnkit validate` says what they are",
                s(with_errors)
            ))?;
        }
        inputs.summary_tail()?;
    }
    inputs.report_no_game()?;
    let games = if errors > 0 {
        Outcome::Problems
    } else {
        Outcome::Clean
    };
    Ok(inputs.outcome().max(games))
}

/// Where the temporary files go: `--temp-dir`, or the output's folder (the file system
/// that will hold the output is likely to hold its size again), or the system's temporary
/// folder for an output that is no regular file (`/dev/null`).
fn temp_dir(args: &Args) -> PathBuf {
    if let Some(dir) = &args.temp_dir {
        return dir.clone();
    }
    if staged::is_stdout(&args.output) {
        return std::env::temp_dir();
    }
    let regular = std::fs::metadata(&args.output).map_or(true, |m| m.is_file());
    match args.output.parent() {
        Some(p) if regular && p.as_os_str().is_empty() => PathBuf::from("."),
        Some(p) if regular => p.to_path_buf(),
        _ => std::env::temp_dir(),
    }
}

/// The reading of one game: replayed, hashed, its bytes spilled unless its input holds them.
fn digest(
    from: &ReadFrom<'_>,
    game: &mut Game<'_>,
    opts: &CheckOptions,
    fuzzy: Option<u32>,
    keep: Keep,
    spill: &Spill,
) -> Digested {
    let mut observer = DigestObserver::new(fuzzy);
    let report = game.check(opts, &mut observer);
    let [white, black, event, round, date, site, result] = tags_of(game.lexed);
    let result = Recorded::of_tag(result);
    // Only `--keep best` reads how complete a game is: the comments are not counted (a pass
    // over the game's bytes) for `--keep first`.
    let completeness = match keep {
        Keep::First => 0,
        Keep::Best => {
            let comments = memchr::memchr_iter(b'{', game.bytes).count();
            completeness(result, game.lexed.tags().len(), comments)
        }
    };
    let digest = Digest {
        moves: observer.hash(),
        text: text_hash(game.bytes),
        position: observer.position,
        plies: observer.moves.len() as u32,
        completeness,
        result,
        who: Identity::of_tags(white, black, event, round, date).at_site(site),
        unique: game.bytes.is_empty(),
    };
    Digested {
        digest,
        start: observer.start,
        moves: observer.moves,
        bytes: match from.verbatim {
            Some(v) => Bytes::InInput(v.start + game.offset, game.bytes.len() as u64),
            None => Bytes::Spilled(spill.write(game.bytes)),
        },
        number: game.number,
        errors: report.count(Severity::Error) as u64,
    }
}

/// The values of the tags dedup reads, in one pass over the tags (the first of each name,
/// as [`crate::pgn::lexer::Lexed::tag`] has it): White, Black, Event, Round, Date, Site,
/// Result.
fn tags_of(lexed: &crate::pgn::lexer::Lexed) -> [Option<&str>; 7] {
    let mut out = [None; 7];
    for (at, name) in lexed.tag_names().enumerate() {
        // Matched as bytes (by length first): every tag of every game passes here, and only
        // the seven are made into text.
        let i = match name {
            b"White" => 0,
            b"Black" => 1,
            b"Event" => 2,
            b"Round" => 3,
            b"Date" => 4,
            b"Site" => 5,
            b"Result" => 6,
            _ => continue,
        };
        if out[i].is_none() {
            out[i] = Some(lexed.tag_at(at).value);
        }
    }
    out
}

/// Copies the kept games from the spill file and the `inputs` to `out`, in input order,
/// counting the duplicates by kind; the number of games recorded.
fn write_kept(
    spill: &Spill,
    inputs: &[Verbatim],
    decision: &Decision<'_>,
    by_kind: &mut [u64; 5],
    out: &mut File,
) -> io::Result<usize> {
    let mut dups = decision.duplicates()?;
    let mut next = dups.next()?;
    let mut failed = None;
    let wanted = |i: usize| {
        // The duplicates come in input order: the game is kept unless it is the next one.
        match next {
            Some((idx, d)) if idx as usize == i => {
                by_kind[d.kind as usize] += 1;
                match dups.next() {
                    Ok(n) => next = n,
                    Err(e) => {
                        failed = Some(e);
                        next = None;
                    }
                }
                false
            }
            _ => true,
        }
    };
    let written = spill.copy_kept(wanted, inputs, out)?;
    match failed {
        Some(e) => Err(e),
        None => Ok(written),
    }
}

/// The CSV report: one row a duplicate, in input order, file names made spreadsheet-safe as
/// in every CSV pgnkit writes.
fn write_report(
    file: File,
    path: &Path,
    decision: &Decision<'_>,
    store: &Store,
    names: &[String],
) -> anyhow::Result<()> {
    let what = || staged::display_name(Some(path));
    let mut w = csv::Writer::from_writer(BufWriter::new(file));
    let failed = |e: csv::Error| WriteError::new(what(), crate::outcome::csv_io(e));
    w.write_record([
        "file",
        "game",
        "duplicate_of_file",
        "duplicate_of_game",
        "kind",
    ])
    .map_err(failed)?;
    let mut write_failed = None;
    let name = |file: u32| neutralise(names.get(file as usize).map_or("", String::as_str));
    let rows = decision.rows(store, |r: Row| {
        w.write_record([
            name(r.file).as_ref(),
            &r.number.to_string(),
            name(r.of_file).as_ref(),
            &r.of_number.to_string(),
            r.kind.as_str(),
        ])
        .map_err(|e| {
            write_failed = Some(failed(e));
            io::Error::other("the report")
        })
    });
    if let Some(e) = write_failed {
        return Err(e.into());
    }
    rows.context("cannot read back the temporary files of dedup")?;
    w.flush().map_err(|e| WriteError::new(what(), e))?;
    Ok(())
}

fn s(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
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
