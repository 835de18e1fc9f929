//! How a run ends: what it found, what failed, and its exit status. Every layer reports here
//! (an input that cannot be read, a game with problems, an output that cannot be written),
//! and only the front ends (the command line, Python, Spark) turn it into an exit status or an
//! exception, as ripgrep's messages module does. Nothing here knows a command.

use std::fmt;
use std::io::{self, Write};
use std::sync::atomic::{AtomicU8, Ordering};

/// How a run ended, as the process exit status (ordered from best to worst).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    /// The input is clean.
    Clean = 0,
    /// Problems were found in the input.
    Problems = 1,
    /// pgnkit itself failed: unreadable file, bad arguments, broken output.
    Failed = 2,
    /// A signal (Ctrl-C, SIGTERM) stopped the run: no output file was put in place.
    Interrupted = 130,
}

/// The worst of what was found so far, as an exit status: for a run cut short by a closed
/// output (`| head`), whose exit status says what was found before (0 only when nothing bad
/// was).
static FOUND: AtomicU8 = AtomicU8::new(Outcome::Clean as u8);

/// Notes that the run found `outcome` (problems in the input, or an input that failed).
pub(crate) fn found(outcome: Outcome) {
    FOUND.fetch_max(outcome as u8, Ordering::Relaxed);
}

/// The worst of what the run found so far.
pub fn found_so_far() -> Outcome {
    match FOUND.load(Ordering::Relaxed) {
        0 => Outcome::Clean,
        1 => Outcome::Problems,
        _ => Outcome::Failed,
    }
}

/// The kind of the first I/O error in `e`'s chain, if one is: seen through the CSV writer's
/// errors too, which keep theirs as a kind rather than a source.
pub fn io_kind(e: &anyhow::Error) -> Option<std::io::ErrorKind> {
    e.chain().find_map(cause_kind)
}

/// Whether `e` is a closed pipe (`pgnkit validate big.pgn | head`): no failure of pgnkit's,
/// the run ends quietly with the status of what was found before it.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain()
        .any(|cause| cause_kind(cause) == Some(std::io::ErrorKind::BrokenPipe))
}

/// A CSV writer's error as an I/O error of the same kind (a closed pipe stays one).
pub(crate) fn csv_io(e: csv::Error) -> std::io::Error {
    match e.kind() {
        csv::ErrorKind::Io(io) => std::io::Error::new(io.kind(), e.to_string()),
        _ => std::io::Error::other(e),
    }
}

fn cause_kind(cause: &(dyn std::error::Error + 'static)) -> Option<std::io::ErrorKind> {
    if let Some(io) = cause.downcast_ref::<std::io::Error>() {
        return Some(io.kind());
    }
    if let Some(w) = cause.downcast_ref::<WriteError>() {
        return Some(w.source.kind());
    }
    match cause.downcast_ref::<csv::Error>().map(csv::Error::kind) {
        Some(csv::ErrorKind::Io(io)) => Some(io.kind()),
        _ => None,
    }
}

/// An output that could not be written (standard output or error, a report, the rejects
/// file): pgnkit itself failed, whatever the input held.
#[derive(Debug)]
pub struct WriteError {
    /// What could not be written, as the message names it.
    pub what: String,
    pub source: io::Error,
}

impl WriteError {
    pub fn new(what: impl Into<String>, source: io::Error) -> WriteError {
        WriteError {
            what: what.into(),
            source,
        }
    }

    /// The reader of the output went away (`pgnkit validate big.pgn | head`).
    pub fn is_broken_pipe(&self) -> bool {
        self.source.kind() == io::ErrorKind::BrokenPipe
    }
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot write {}: {}", self.what, self.source)
    }
}

// The message already says the cause: no `source()`, or it would be printed twice.
impl std::error::Error for WriteError {}

/// Writes one line to standard error. A failed write is an error like any other output's
/// (`2>/dev/full`, `2>&1 | head -1`), never a panic.
///
/// # Errors
///
/// When standard error cannot be written.
pub fn say(args: fmt::Arguments<'_>) -> Result<(), WriteError> {
    let mut err = io::stderr().lock();
    err.write_fmt(args)
        .and_then(|()| err.write_all(b"\n"))
        .map_err(|e| WriteError::new("to standard error", e))
}
