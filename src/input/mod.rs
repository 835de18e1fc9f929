//! Input: opening paths and stdin, and the one input loop the three commands share (as xsv's
//! `Config`): every input is opened once, decompressed, decoded, checked to look like PGN and
//! read game by game through the parallel [`pipeline`], with the same progress bar, the same
//! reports of inputs that cannot be read, and the same totals.

pub mod decode;
pub mod open;
pub mod parquet;
pub mod pipeline;
pub mod progress;
pub mod range;

use std::collections::BTreeMap;
use std::fmt;
use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use open::Source;
use pipeline::Game;
use progress::Progress;

use crate::diag::{plural, Code, Finding};
use crate::outcome::{say, Outcome, WriteError};
use crate::pgn::GameReader;

/// The most worker threads a run takes (`--jobs`, Python's `threads`): far more threads than
/// cores only cost memory, and 100,000 once failed to set up their stacks and aborted.
pub const MAX_JOBS: usize = 1024;

/// The largest game read by default (`--max-game-size`), in MiB.
pub const DEFAULT_MAX_GAME_MIB: usize = 32;

/// Worker threads for `--jobs`: the number given, or the number of cores, within
/// 1..=[`MAX_JOBS`] (the command line refuses a number outside it; a library caller gets the
/// nearest one).
pub fn jobs(given: Option<usize>) -> usize {
    given
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, MAX_JOBS)
}

/// The encoding named by `--encoding`, if any.
///
/// # Errors
///
/// When the name is not an encoding pgnkit knows.
pub fn forced_encoding(
    name: Option<&str>,
) -> Result<Option<&'static encoding_rs::Encoding>, String> {
    match name {
        None => Ok(None),
        Some(name) => decode::by_name(name).map(Some).ok_or_else(|| {
            format!("unknown encoding '{name}' (try utf-8, windows-1252, latin1, gbk, gb18030, big5, utf-16le)")
        }),
    }
}

/// P029: the encoding was guessed from little text, and `other` reads it too.
fn unsure_encoding(
    encoding: &'static encoding_rs::Encoding,
    other: &'static encoding_rs::Encoding,
) -> Finding {
    Finding::new(
        Code::UnsureEncoding,
        None,
        format!(
            "read as {}, a guess from little non-ASCII text that {} reads too",
            encoding.name(),
            other.name()
        ),
    )
    .help(format!(
        "if names or comments look wrong, give --encoding {}",
        other.name().to_ascii_lowercase()
    ))
}

/// P028: valid UTF-8 and sequences read in the fallback encoding in one input, where the
/// first of the latter is.
fn mixed_encodings(malformed: &decode::Malformed, detected: decode::Detected) -> Option<Finding> {
    let fallback = detected.fallback?;
    let (seen, utf8) = malformed.fell_back();
    if seen.count == 0 || utf8 == 0 {
        return None;
    }
    let (line, col) = seen.at.unwrap_or((1, 1));
    let shown: Vec<String> = seen.offsets.iter().map(u64::to_string).collect();
    let span = crate::pgn::Span {
        start: 0,
        end: 0,
        line,
        col,
    };
    Some(
        Finding::new(
            Code::MixedEncodings,
            Some(span),
            format!(
                "{} byte sequence{} not UTF-8 (at byte offset{} {}{}) and read as {}; {utf8} \
                 character{} read as UTF-8",
                seen.count,
                if seen.count == 1 { " is" } else { "s are" },
                if shown.len() == 1 { "" } else { "s" },
                shown.join(", "),
                if seen.count as usize > shown.len() {
                    ", ..."
                } else {
                    ""
                },
                fallback.name(),
                if utf8 == 1 { " was" } else { "s were" },
            ),
        )
        .help(format!(
            "nothing was lost; to read the whole input in one encoding give --encoding utf-8 \
             or --encoding {}",
            fallback.name().to_ascii_lowercase()
        )),
    )
}

/// How the commands read their inputs: the options they share, resolved.
#[derive(Clone, Debug)]
pub struct InputOptions {
    /// The paths given; none reads standard input.
    pub files: Vec<PathBuf>,
    pub encoding: Option<&'static encoding_rs::Encoding>,
    pub jobs: usize,
    /// Bytes of the largest game read; larger ones are skipped and reported.
    pub max_game: usize,
    /// The name endings a directory walk takes.
    pub extensions: Vec<String>,
    /// Whether a progress bar may be shown (on a terminal).
    pub progress: bool,
    /// Which columns of a Parquet input hold the movetext and the tags.
    pub parquet: parquet::Columns,
    /// `--range`: only the games whose first byte falls in it.
    pub range: Option<range::ByteRange>,
    /// `--row-groups`: only these row groups of a Parquet file.
    pub row_groups: Option<parquet::RowGroups>,
}

impl InputOptions {
    /// The options of a run over `files` (none reads standard input) with every other
    /// option at its default: the encoding detected per file, one worker per core, games up
    /// to 32 MiB, `*.pgn` in a directory walk, no progress bar.
    pub fn new(files: Vec<PathBuf>) -> InputOptions {
        InputOptions {
            files,
            encoding: None,
            jobs: jobs(None),
            max_game: DEFAULT_MAX_GAME_MIB << 20,
            extensions: open::DEFAULT_EXTENSIONS
                .iter()
                .map(|e| e.to_string())
                .collect(),
            progress: false,
            parquet: parquet::Columns::default(),
            range: None,
            row_groups: None,
        }
    }
}

/// A problem of an input as a whole: a finding about no game (game 0 in reports), at the
/// start of the input or where it breaks off.
#[derive(Debug)]
pub struct InputProblem<'a> {
    /// The input's name.
    pub file: &'a str,
    /// Line of the input it is about.
    pub line: u32,
    pub finding: Finding,
}

impl InputProblem<'_> {
    /// Where it is, as the report writers take it.
    pub fn context(&self) -> crate::report::GameContext<'_> {
        crate::report::GameContext {
            file: self.file,
            number: 0,
            line: self.line,
            white: "?",
            black: "?",
            bytes: &[],
        }
    }

    /// Writes it as text on standard error (for the commands whose standard output is not
    /// diagnostics).
    ///
    /// # Errors
    ///
    /// When standard error cannot be written.
    pub fn to_stderr(&self) -> Result<(), WriteError> {
        let mut text = Vec::new();
        // Writing into a Vec cannot fail.
        let _ = crate::report::write_text(
            &mut text,
            &self.context(),
            &self.finding,
            &crate::report::RenderOptions::default(),
        );
        io::stderr()
            .lock()
            .write_all(&text)
            .map_err(|e| WriteError::new("to standard error", e))
    }
}

/// What a game's work found, for the progress bar's count of errors.
pub trait Found {
    /// Errors found in the game.
    fn errors(&self) -> u64;
}

/// Totals of the inputs read.
#[derive(Debug, Default)]
pub struct InputTotals {
    /// Inputs opened.
    pub files: usize,
    pub games: u64,
    /// Bytes read, decompressed.
    pub bytes: u64,
    /// Inputs that could not be opened or read, and directories that could not be listed.
    pub failed: usize,
    /// Files a directory walk passed over (names that do not end in `--ext`).
    pub skipped: usize,
    /// Problems of inputs as a whole: a compressed stream cut short, bytes that do not decode,
    /// an input that is not PGN. Each is reported on standard error once.
    pub problems: u64,
    /// Inputs read per encoding.
    pub encodings: BTreeMap<&'static str, usize>,
    /// Ctrl-C stopped the run.
    pub interrupted: bool,
    /// An output's reader went away: the run stopped there, quietly.
    pub broken_pipe: bool,
}

/// The input a game comes from, as the work and the sink of [`Inputs::run_from`] see it.
#[derive(Clone, Copy, Debug)]
pub struct ReadFrom<'a> {
    /// Its name in messages: the path, `PATH@START` with `--range`, `PATH:row N` for a row
    /// of a Parquet file, `-` for standard input.
    pub name: &'a str,
    /// Set when the games' bytes are the file's own, where the file holds them.
    pub verbatim: Option<&'a Verbatim>,
}

/// An input whose games reach the work as the file's own bytes: a regular file, not
/// compressed, read without decoding (UTF-8 with nothing to replace). A game's bytes lie in
/// the file from `start + game.offset` on, for as long as the file is what it was when
/// opened, which [`Verbatim::open`] checks: a game read again from it is the game read.
#[derive(Clone, Debug)]
pub struct Verbatim {
    pub path: PathBuf,
    /// Where the stream's first byte lies in the file (`--range` starts past 0).
    pub start: u64,
    stamp: open::Stamp,
}

impl Verbatim {
    /// Opens the file again to read games from it.
    ///
    /// # Errors
    ///
    /// When the file cannot be opened, or is no longer the file read ([`Verbatim::check`]).
    pub fn open(&self) -> io::Result<std::fs::File> {
        let file = std::fs::File::open(&self.path)?;
        self.check(&file)?;
        Ok(file)
    }

    /// The file at `path` as it is now, its stream starting at `start`.
    #[cfg(test)]
    pub(crate) fn now(path: PathBuf, start: u64) -> io::Result<Verbatim> {
        let file = std::fs::File::open(&path)?;
        let stamp = open::Stamp::of(&file).ok_or_else(|| io::Error::other("no regular file"))?;
        Ok(Verbatim { path, start, stamp })
    }

    /// Checks that `file` is still the file read: the same file, of the same size, not
    /// written since.
    ///
    /// # Errors
    ///
    /// An error of kind `InvalidData` saying the file changed: its games may not be where
    /// they were, or what they were.
    pub fn check(&self, file: &std::fs::File) -> io::Result<()> {
        if open::Stamp::of(file).as_ref() == Some(&self.stamp) {
            return Ok(());
        }
        Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "the file changed while pgnkit read it (another size, modification time or file \
             at its path)",
        ))
    }
}

/// The run's inputs and how they are read.
pub struct Inputs {
    opts: InputOptions,
    sources: Vec<Source>,
    /// The inputs' size on disk, when every input is a regular file.
    total: Option<u64>,
    /// Shown from the first input read on (not while the command still checks its
    /// arguments: an error then would be printed under a bar).
    progress: Option<Progress>,
    /// Bytes read from the inputs as they lie on disk, for the progress bar.
    read: Arc<AtomicU64>,
    /// When the first reading started, for the summary's time and speed.
    started: Option<Instant>,
    pub totals: InputTotals,
}

impl Inputs {
    /// Lists the inputs (directories walked) and reports the directories that cannot be read.
    /// No input is opened yet: outputs created after this are never read as inputs.
    ///
    /// # Errors
    ///
    /// When standard error cannot be written.
    pub fn new(opts: InputOptions) -> Result<Inputs, WriteError> {
        let expanded = if opts.files.is_empty() {
            open::Expanded {
                sources: vec![Source::Stdin],
                ..open::Expanded::default()
            }
        } else {
            open::expand(&opts.files, &opts.extensions)
        };
        for (path, e) in &expanded.errors {
            say(format_args!(
                "pgnkit: cannot read directory {}: {e}",
                path.display()
            ))?;
        }
        for path in &expanded.special {
            say(format_args!(
                "pgnkit: {} skipped: not a regular file (a FIFO, socket or device); name it on the command line to read it",
                path.display()
            ))?;
        }
        // The bar's length is known when every input is a regular file (by its size on
        // disk, compressed or not: it counts bytes read from the disk). Nothing is opened for
        // it: a pipe or FIFO is read once, by the run.
        let total = expanded.sources.iter().try_fold(0u64, |acc, s| match s {
            Source::File(p) => std::fs::metadata(p)
                .ok()
                .filter(|m| m.is_file())
                .map(|m| acc + m.len()),
            Source::Stdin => None,
        });
        let read = Arc::new(AtomicU64::new(0));
        let totals = InputTotals {
            failed: expanded.errors.len(),
            skipped: expanded.skipped,
            ..InputTotals::default()
        };
        Ok(Inputs {
            total,
            progress: None,
            opts,
            sources: expanded.sources,
            read,
            started: None,
            totals,
        })
    }

    /// The inputs, in the order they are read.
    pub fn sources(&self) -> &[Source] {
        &self.sources
    }

    /// Reads every game of every input, in order, lexed to its tags
    /// ([`Game::movetext`](pipeline::Game::movetext)): `work` (on the pipeline's workers)
    /// makes something of each game of the input it names, and `sink` takes the results in
    /// input order. An input that cannot be opened or read is reported and the run goes on
    /// with the next; so is an input that is not PGN, a compressed stream cut short (after
    /// its games before the cut) and bytes that do not decode.
    ///
    /// A problem of an input as a whole (it breaks off, it is not PGN) goes to `on_problem`
    /// as a finding of game 0 ([`InputProblem`]), in order with the games.
    ///
    /// A closed output (`| head`) stops the run quietly ([`InputTotals::broken_pipe`]).
    ///
    /// # Errors
    ///
    /// The first error `sink` or `on_problem` returns (but a broken pipe), or standard error
    /// that cannot be written.
    pub fn run<T, W, S, P>(&mut self, work: W, mut sink: S, on_problem: P) -> Result<(), WriteError>
    where
        T: Send + Found,
        W: Fn(&str, &mut Game<'_>) -> T + Sync,
        S: FnMut(&str, T) -> Result<(), WriteError>,
        P: FnMut(&InputProblem<'_>) -> Result<(), WriteError>,
    {
        self.run_from(
            |from: &ReadFrom<'_>, game: &mut Game<'_>| work(from.name, game),
            |from: &ReadFrom<'_>, done| sink(from.name, done),
            on_problem,
        )
    }

    /// [`Inputs::run`], telling `work` and `sink` more of the input than its name: whether a
    /// game's bytes are the file's own, where they lie in it ([`ReadFrom::verbatim`]).
    ///
    /// # Errors
    ///
    /// As [`Inputs::run`].
    pub fn run_from<T, W, S, P>(
        &mut self,
        work: W,
        mut sink: S,
        mut on_problem: P,
    ) -> Result<(), WriteError>
    where
        T: Send + Found,
        W: Fn(&ReadFrom<'_>, &mut Game<'_>) -> T + Sync,
        S: FnMut(&ReadFrom<'_>, T) -> Result<(), WriteError>,
        P: FnMut(&InputProblem<'_>) -> Result<(), WriteError>,
    {
        let sources = std::mem::take(&mut self.sources);
        self.started.get_or_insert_with(Instant::now);
        self.progress = Some(Progress::new(
            self.total,
            Arc::clone(&self.read),
            self.opts.progress,
        ));
        // The sources are put back however the loop ends (an error of `sink` included).
        let mut result = Ok(());
        for source in &sources {
            if pipeline::INTERRUPTED.load(Ordering::Relaxed) {
                break;
            }
            result = self.read_one(source, &source.name(), &work, &mut sink, &mut on_problem);
            if result.is_err() {
                break;
            }
            if let Some(progress) = &mut self.progress {
                progress.input_done();
            }
        }
        self.sources = sources;
        if let Some(progress) = self.progress.take() {
            progress.finish();
        }
        self.totals.interrupted = pipeline::INTERRUPTED.load(Ordering::Relaxed);
        match result {
            Err(e) if e.is_broken_pipe() => {
                self.totals.broken_pipe = true;
                Ok(())
            }
            other => other,
        }
    }

    /// Reads one input.
    fn read_one<T, W, S, P>(
        &mut self,
        source: &Source,
        name: &str,
        work: &W,
        sink: &mut S,
        on_problem: &mut P,
    ) -> Result<(), WriteError>
    where
        T: Send + Found,
        W: Fn(&ReadFrom<'_>, &mut Game<'_>) -> T + Sync,
        S: FnMut(&ReadFrom<'_>, T) -> Result<(), WriteError>,
        P: FnMut(&InputProblem<'_>) -> Result<(), WriteError>,
    {
        if let Source::File(path) = source {
            // By its magic bytes, whatever its name; a FIFO is not opened twice.
            let file = std::fs::metadata(path).is_ok_and(|m| m.is_file());
            if file && parquet::is_parquet(path) {
                return self.read_parquet(path, name, work, sink, on_problem);
            }
        }
        if self.opts.row_groups.is_some() {
            self.problem();
            let finding = Finding::new(
                Code::RowGroupsNotParquet,
                None,
                "--row-groups takes row groups of a Parquet file, and this input is not one: \
                 nothing of it was read",
            )
            .help("split PGN text with --range START:END (byte offsets) instead");
            return on_problem(&InputProblem {
                file: name,
                line: 1,
                finding,
            });
        }
        // With `--range`, the input is named by where its range starts: its lines count from there.
        let mut ranged = None;
        let mut first_byte = 0;
        let opened = match self.opts.range {
            Some(range) => range::open_source(source, range).map(|(opened, start)| {
                ranged = Some(format!("{name}@{start}"));
                first_byte = start;
                opened
            }),
            None => open::open(source, Arc::clone(&self.read)),
        };
        let name = ranged.as_deref().unwrap_or(name);
        let opened = opened.and_then(|opened| {
            // The first bytes as they are, before decoding, name a binary format by its magic
            // bytes; they are read again, from here, by the decoder.
            let mut raw = opened.reader;
            let mut magic = Vec::with_capacity(MAGIC);
            (&mut raw).take(MAGIC as u64).read_to_end(&mut magic)?;
            let raw = Box::new(io::Cursor::new(magic.clone()).chain(raw));
            let (reader, detected, malformed) = decode::decoded(raw, self.opts.encoding)?;
            Ok((
                reader,
                detected,
                malformed,
                opened.cut,
                opened.compression,
                magic,
                opened.stamp,
            ))
        });
        let (input, detected, malformed, cut, compression, magic, stamp) = match opened {
            Ok(x) => x,
            Err(e) => {
                crate::outcome::found(Outcome::Failed);
                self.totals.failed += 1;
                return say(format_args!("pgnkit: cannot open {name}: {e}"));
            }
        };
        self.totals.files += 1;
        let mut reader = GameReader::with_limit(input, self.opts.max_game);
        // What is looked at is kept: the games are read from the same buffer.
        let head = match reader.prefetch(SNIFF) {
            Ok(head) => not_pgn(head, &magic),
            Err(_) => None,
        };
        if let Some(why) = head {
            self.problem();
            let finding = Finding::new(
                Code::NotPgn,
                None,
                format!(
                    "does not look like PGN: {}; nothing of it was read",
                    why.what
                ),
            )
            .help(why.help);
            return on_problem(&InputProblem {
                file: name,
                line: 1,
                finding,
            });
        }
        if let Some(other) = detected.unsure {
            on_problem(&InputProblem {
                file: name,
                line: 1,
                finding: unsure_encoding(detected.encoding, other),
            })?;
        }
        *self
            .totals
            .encodings
            .entry(detected.encoding.name())
            .or_insert(0) += 1;
        let verbatim = match (source, stamp) {
            (Source::File(path), Some(stamp))
                if compression == open::Compression::None && detected.as_is =>
            {
                Some(Verbatim {
                    path: path.clone(),
                    start: first_byte,
                    stamp,
                })
            }
            _ => None,
        };
        let from = ReadFrom {
            name,
            verbatim: verbatim.as_ref(),
        };
        self.read_games(reader, &from, |game| work(&from, game), sink)?;
        if let Some(at) = cut.take() {
            self.problem();
            let finding = Finding::new(
                Code::InputBreaksOff,
                None,
                format!(
                    "the {} stream breaks off after {} bytes of text ({}); every game before \
                     the break was read",
                    compression.name(),
                    at.bytes,
                    at.error
                ),
            )
            .help("the file is truncated or damaged: download or copy it again");
            on_problem(&InputProblem {
                file: name,
                line: u32::try_from(at.line).unwrap_or(u32::MAX),
                finding,
            })?;
        }
        if let Some(finding) = mixed_encodings(&malformed, detected) {
            on_problem(&InputProblem {
                file: name,
                line: finding.span.map_or(1, |s| s.line),
                finding,
            })?;
        }
        let (bad, offsets) = malformed.get();
        if bad > 0 {
            self.totals.problems += bad - 1;
            self.problem();
            let shown: Vec<String> = offsets.iter().map(u64::to_string).collect();
            // Where the first one is in the text read (the offsets are the file's bytes).
            let (line, col) = malformed.first_at().unwrap_or((1, 1));
            let span = crate::pgn::Span {
                start: 0,
                end: 0,
                line,
                col,
            };
            let finding =
                Finding::new(
                    Code::BytesDoNotDecode,
                    Some(span),
                    format!(
                    "{bad} byte sequence{} not valid {} (at byte offset{} {}{}); shown as U+FFFD",
                    if bad == 1 { " is" } else { "s are" },
                    detected.encoding.name(),
                    if offsets.len() == 1 { "" } else { "s" },
                    shown.join(", "),
                    if bad as usize > offsets.len() { ", ..." } else { "" },
                ),
                )
                .help("give the file's encoding with --encoding, or repair the bytes");
            on_problem(&InputProblem {
                file: name,
                line,
                finding,
            })?;
        }
        Ok(())
    }

    /// Reads a Parquet file whose rows are games: each row's PGN text goes to the same work
    /// as a PGN file's games ([`parquet`]), under the name `FILE:row N` and with the lines of
    /// the row's text (1 its tags, 2 its movetext).
    fn read_parquet<T, W, S, P>(
        &mut self,
        path: &std::path::Path,
        name: &str,
        work: &W,
        sink: &mut S,
        on_problem: &mut P,
    ) -> Result<(), WriteError>
    where
        T: Send + Found,
        W: Fn(&ReadFrom<'_>, &mut Game<'_>) -> T + Sync,
        S: FnMut(&ReadFrom<'_>, T) -> Result<(), WriteError>,
        P: FnMut(&InputProblem<'_>) -> Result<(), WriteError>,
    {
        let report = |this: &mut Self, p: parquet::Problem, on_problem: &mut P| {
            if p.code.severity() == crate::diag::Severity::Error {
                this.problem();
            }
            on_problem(&InputProblem {
                file: name,
                line: 1,
                finding: Finding::new(p.code, None, p.message).help(p.help),
            })
        };
        if self.opts.range.is_some() {
            let p = parquet::Problem {
                code: Code::ParquetUnreadable,
                message: "--range takes byte ranges of PGN text; a Parquet file is split by \
                          row groups: nothing of it was read"
                    .into(),
                help: "give the Parquet file without --range",
            };
            return report(self, p, on_problem);
        }
        let (text, warnings) = match parquet::RowText::open(path, &self.opts.parquet) {
            Ok((text, warnings)) => {
                let text = text.with_max_game(self.opts.max_game);
                match self.opts.row_groups {
                    Some(groups) => (text.with_row_groups(groups), warnings),
                    None => (text, warnings),
                }
            }
            Err(p) => {
                self.totals.files += 1;
                return report(self, p, on_problem);
            }
        };
        self.totals.files += 1;
        for p in warnings {
            report(self, p, on_problem)?;
        }
        if let Ok(m) = std::fs::metadata(path) {
            // The file is read by its row groups, not as a stream: counted whole.
            self.read.fetch_add(m.len(), Ordering::Relaxed);
        }
        let rows = text.rows();
        let reader = text.games(self.opts.max_game);
        let per_row = |game: &mut Game<'_>| {
            // Found whole, then lexed again from the row's first line.
            game.close();
            let place = rows.locate(game.line);
            let row = place.map_or(0, |p| p.row);
            game.line = place.map_or(game.line, |p| p.line);
            if game.bytes.is_empty() {
                // A row the reader found no game in: its report is placed in the row too.
                for p in &mut game.lexed.problems {
                    p.span.line = rows.locate(p.span.line).map_or(p.span.line, |at| at.line);
                }
            } else {
                pipeline::lex_for(game);
                // A row is one game: what its movetext cell held besides is the game's.
                let cell = rows.cell_problems(row, game.bytes, game.line, game.col);
                game.lexed.problems.extend(cell);
            }
            let row = format!("{name}:row {row}");
            let from = ReadFrom {
                name: &row,
                verbatim: None,
            };
            work(&from, game)
        };
        let from = ReadFrom {
            name,
            verbatim: None,
        };
        self.read_games(reader, &from, per_row, sink)?;
        for p in rows.take_problems() {
            report(self, p, on_problem)?;
        }
        Ok(())
    }

    /// Reads the games of one opened input through the pipeline: `work` makes something of
    /// each, `sink` takes the results in order under the input's `name`, and the totals and
    /// the progress bar count them. An input that breaks off while read is reported and
    /// counted as failed; the run goes on.
    ///
    /// # Errors
    ///
    /// The first error of `sink`, or standard error that cannot be written.
    fn read_games<R, T, W, S>(
        &mut self,
        reader: GameReader<R>,
        from: &ReadFrom<'_>,
        work: W,
        sink: &mut S,
    ) -> Result<(), WriteError>
    where
        R: Read + Send,
        T: Send + Found,
        W: Fn(&mut Game<'_>) -> T + Sync,
        S: FnMut(&ReadFrom<'_>, T) -> Result<(), WriteError>,
    {
        let name = from.name;
        // A sink's error is an output's: it is kept here, and the pipeline is only told to
        // stop (its own errors are the input's).
        let mut failed_write = None;
        let mut progress = self.progress.as_mut();
        let games = &mut self.totals.games;
        let read = pipeline::run_with(reader, self.opts.jobs, work, |done: T| {
            *games += 1;
            if let Some(progress) = progress.as_mut() {
                progress.game(done.errors());
            }
            sink(from, done).map_err(|e| {
                failed_write = Some(e);
                io::Error::other("an output could not be written")
            })
        });
        if let Some(e) = failed_write {
            return Err(e);
        }
        match read {
            Ok(bytes) => self.totals.bytes += bytes,
            Err(e) => {
                crate::outcome::found(Outcome::Failed);
                self.totals.failed += 1;
                say(format_args!("pgnkit: cannot read {name}: {e}"))?;
            }
        }
        Ok(())
    }

    /// One more problem of an input as a whole.
    fn problem(&mut self) {
        self.totals.problems += 1;
        crate::outcome::found(Outcome::Problems);
    }

    /// How a command ends its run on standard error: unless `quiet`, its summary line
    /// (`pgnkit: 2 files, 40 games: WHAT in 0.12 s (35.1 MB/s)`, where `what` is the
    /// command's own count) and the [tail](Self::summary_tail) every command shares; then,
    /// whatever `quiet` says, [the line of a run that read no game](Self::report_no_game).
    ///
    /// # Errors
    ///
    /// When standard error cannot be written.
    pub fn summary(&self, quiet: bool, what: fmt::Arguments<'_>) -> Result<(), WriteError> {
        if !quiet {
            let read = &self.totals;
            let secs = self.started.map_or(0.0, |t| t.elapsed().as_secs_f64());
            let mb = read.bytes as f64 / 1e6;
            say(format_args!(
                "pgnkit: {} file{}, {} game{}: {what} in {secs:.2} s ({:.1} MB/s)",
                read.files,
                plural(read.files as u64),
                read.games,
                plural(read.games),
                if secs > 0.0 { mb / secs } else { 0.0 }
            ))?;
            self.summary_tail()?;
        }
        self.report_no_game()
    }

    /// The summary lines every command prints after its own: files a directory walk passed
    /// over, encodings other than UTF-8, problems of inputs as a whole and inputs that could
    /// not be read.
    ///
    /// # Errors
    ///
    /// When standard error cannot be written.
    pub fn summary_tail(&self) -> Result<(), WriteError> {
        let totals = &self.totals;
        if totals.skipped > 0 {
            let exts: Vec<String> = self
                .opts
                .extensions
                .iter()
                .map(|e| format!(".{e}"))
                .collect();
            say(format_args!(
                "pgnkit: {} file{} in the directories skipped: not named {} (choose with --ext)",
                totals.skipped,
                plural(totals.skipped as u64),
                exts.join(", ")
            ))?;
        }
        let legacy: Vec<String> = totals
            .encodings
            .iter()
            .filter(|(name, _)| **name != "UTF-8")
            .map(|(name, n)| format!("{name} ({n} file{})", plural(*n as u64)))
            .collect();
        if !legacy.is_empty() {
            say(format_args!(
                "pgnkit: encodings other than UTF-8: {}",
                legacy.join(", ")
            ))?;
        }
        // Each was reported where it was met; the summary says the run had them, in every
        // command alike (convert's and stats' own lines count games, not inputs).
        if totals.problems > 0 {
            say(format_args!(
                "pgnkit: {} problem{} of inputs as a whole (breaks, bytes that do not decode, not PGN), reported above",
                totals.problems,
                plural(totals.problems)
            ))?;
        }
        if totals.failed > 0 {
            say(format_args!(
                "pgnkit: {} input{} could not be read, reported above",
                totals.failed,
                plural(totals.failed as u64)
            ))?;
        }
        Ok(())
    }

    /// Says so when the run read no game (an empty file, an empty directory, one whose files
    /// were all skipped): such a run is never clean. Called whatever `--quiet` says.
    ///
    /// # Errors
    ///
    /// When standard error cannot be written.
    pub fn report_no_game(&self) -> Result<(), WriteError> {
        let totals = &self.totals;
        if totals.games > 0 || totals.interrupted || totals.broken_pipe {
            return Ok(());
        }
        if totals.files == 0 && totals.failed == 0 {
            say(format_args!(
                "pgnkit: no input: no file to read{}",
                if totals.skipped > 0 {
                    " (every file in the directories was skipped; choose the names to read with --ext)"
                } else {
                    ""
                }
            ))
        } else if totals.files > 0 {
            say(format_args!(
                "pgnkit: no game read in {} input{}",
                totals.files,
                plural(totals.files as u64)
            ))
        } else {
            Ok(())
        }
    }

    /// How the reading went, as far as the inputs decide the exit status: `Failed` when an
    /// input could not be read, nothing was given to read, or Ctrl-C stopped the run;
    /// `Problems` when an input as a whole had a problem or held no game; else `Clean`.
    pub fn outcome(&self) -> Outcome {
        self.outcome_with(false)
    }

    /// The exit status of a run: [what the inputs decide](Self::outcome), or `Problems` at
    /// least when `problems_in_games` (the command says what counts: errors, rejected games,
    /// nothing selected).
    pub fn outcome_with(&self, problems_in_games: bool) -> Outcome {
        let totals = &self.totals;
        let nothing_given = totals.files == 0 && totals.games == 0;
        if totals.failed > 0 || totals.interrupted || nothing_given {
            Outcome::Failed
        } else if problems_in_games
            || totals.problems > 0
            || (totals.games == 0 && !totals.broken_pipe)
        {
            Outcome::Problems
        } else {
            Outcome::Clean
        }
    }
}

/// Bytes of a decoded input looked at to tell whether it is PGN at all.
const SNIFF: usize = 64 << 10;

/// Bytes of an input, before decoding, that name a binary format (a tar header's is at 257).
const MAGIC: usize = 512;

/// Why an input is not PGN, for its one error.
#[derive(Debug, PartialEq, Eq)]
pub struct NotPgn {
    pub what: String,
    pub help: &'static str,
}

/// The control bytes of `head` that no text has: below 0x20, but for tab, the line breaks,
/// form feed, and the DOS end-of-file and escape bytes some files hold. Every input's first
/// bytes pass here, so the test is branch-free arithmetic the compiler turns into vector
/// code, counted in blocks of 255 bytes whose sum fits a byte.
fn count_controls(head: &[u8]) -> usize {
    let control = |b: u8| (b < 0x20) & (b.wrapping_sub(b'\t') >= 5) & (b.wrapping_sub(0x1a) >= 2);
    head.chunks(255)
        .map(|block| {
            let n = block
                .iter()
                .fold(0u8, |n, &b| n.wrapping_add(u8::from(control(b))));
            usize::from(n)
        })
        .sum()
}

/// Tells binary data (an executable, an image, an archive pgnkit does not open) from text,
/// by the first bytes of the decoded input, `head`: text has next to no control characters,
/// binary data has many (random bytes about one in ten). `raw`, the first bytes before
/// decoding, names the format. `None` for anything that may be PGN, however broken: the games
/// then say what is wrong.
pub fn not_pgn(head: &[u8], raw: &[u8]) -> Option<NotPgn> {
    let controls = count_controls(head);
    // One in twenty: far above any text, below any binary format.
    if controls == 0 || controls * 20 < head.len() {
        return None;
    }
    let kind = [
        (&b"\x7fELF"[..], "an ELF executable"),
        (b"MZ", "a Windows executable"),
        (b"\xcf\xfa\xed\xfe", "a Mach-O executable"),
        (b"\x89PNG", "a PNG image"),
        (b"\xff\xd8\xff", "a JPEG image"),
        (b"GIF8", "a GIF image"),
        (b"%PDF", "a PDF document"),
        (b"PK\x03\x04", "a ZIP archive"),
        (b"7z\xbc\xaf", "a 7-Zip archive"),
        (b"Rar!", "a RAR archive"),
        (b"PAR1", "a Parquet file"),
    ]
    .iter()
    .find(|(magic, _)| raw.starts_with(magic))
    .map(|&(_, kind)| kind);
    let tar = raw.get(257..262) == Some(b"ustar");
    let kind = kind.or(tar.then_some("a tar archive"));
    let what = match kind {
        Some(kind) => format!(
            "{kind} ({controls} control bytes in the first {})",
            head.len()
        ),
        None => format!(
            "binary data ({controls} control bytes in the first {}, first at byte offset {})",
            head.len(),
            head.iter()
                .position(|&b| b < 0x20 && !b.is_ascii_whitespace())
                .unwrap_or(0)
        ),
    };
    // UTF-16 without a byte order mark: a NUL in every other byte.
    let nuls = |parity: usize| {
        head.iter()
            .skip(parity)
            .step_by(2)
            .filter(|&&b| b == 0)
            .count()
    };
    let half = head.len() / 2;
    let utf16 = kind.is_none() && half > 0 && (nuls(0) * 4 > half * 3 || nuls(1) * 4 > half * 3);
    let help = if utf16 {
        "if it is UTF-16 text without a byte order mark, give --encoding utf-16le or utf-16be"
    } else if kind == Some("a Parquet file") {
        // Parquet is read from its footer, at the end: a pipe cannot be.
        "give the Parquet file by its path, not on standard input or through a pipe"
    } else if matches!(kind, Some(k) if k.contains("archive")) {
        "unpack the archive and give its PGN files (gzip, bzip2, zstd and xz are read as they are)"
    } else {
        "give PGN files (plain or compressed with gzip, bzip2, zstd or xz)"
    };
    Some(NotPgn { what, help })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_pgn_and_binary_is_not() {
        assert_eq!(not_pgn(b"[Event \"x\"]\r\n\r\n1. e4 e5 \x1a", b""), None);
        assert_eq!(not_pgn(b"", b""), None);
        // A stray control byte in text is the games' problem, not the file's.
        let mut text = b"[Event \"x\"]\n\n1. e4 e5 *\n".repeat(10);
        text[30] = 0;
        assert_eq!(not_pgn(&text, &text), None);
        let mut elf = b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0".to_vec();
        elf.extend([0u8; 48]);
        assert!(not_pgn(&elf, &elf)
            .unwrap()
            .what
            .starts_with("an ELF executable"));
        let utf16: Vec<u8> = "[Event \"x\"]"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        assert!(not_pgn(&utf16, &utf16).unwrap().help.contains("utf-16le"));
    }

    #[test]
    fn control_bytes_are_those_no_text_has() {
        // Every byte value, in blocks longer than the counter's, at every alignment.
        let bytes: Vec<u8> = (0..3000u32).map(|i| (i * 7 % 256) as u8).collect();
        for from in 0..16 {
            let head = &bytes[from..];
            let want = head
                .iter()
                .filter(|&&b| {
                    b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0b | 0x0c | 0x1a | 0x1b)
                })
                .count();
            assert_eq!(count_controls(head), want);
        }
    }
}
