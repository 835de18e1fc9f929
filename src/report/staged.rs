//! The outputs of a run, one mechanism for every command and every output option (`-o`,
//! `--report`, `--rejects`, `--partial`, split's folder): `-` is standard output; a file is
//! written to a temporary name beside it and renamed over it only when the run succeeds, all
//! the run's files together or none.
//!
//! A run that fails (a full disk, an input that cannot be read), is killed or is interrupted
//! leaves the outputs of the run before untouched, instead of a `games.csv` cut mid-row
//! beside the older tables. A temporary file or folder that is not committed is removed when
//! its owner is dropped, and by [`remove_temporaries`] when a signal ends the process; one
//! left by a process killed outright (`kill -9`) is named for its process id
//! (`.NAME.pgnkit-PID.tmp`, `.pgnkit-dedup-PID.tmp`) and removed by the next run that writes
//! into its folder once that process is gone.
//!
//! Every output is recorded for the run's last word: what was written and what was not
//! ([`not_written`], [`interrupted_note`]).

use std::fs::{self, File};
use std::io::{self, BufWriter};

use anyhow::{bail, Context};

use crate::input::open::Source;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

/// Whether an output option's path names standard output: `-`, as an input's `-` names
/// standard input.
pub fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// How messages name an output option's destination: its path, or `standard output`.
pub fn display_name(path: Option<&Path>) -> String {
    match path {
        Some(path) if !is_stdout(path) => path.display().to_string(),
        _ => "standard output".to_owned(),
    }
}

/// Whether standard output was closed when pgnkit started (`>&-`). The Rust runtime then
/// opens `/dev/null` in its place, and every write would vanish.
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Whether some output went to standard output (for the message of an interrupted run).
static STDOUT_USED: AtomicBool = AtomicBool::new(false);

/// Notes, before the Rust runtime starts, whether standard output is closed. Call it from an
/// initialiser that runs before `main` (later, the runtime has put `/dev/null` there).
pub fn note_closed_stdout() {
    // Only where `/proc` says which descriptors are open; elsewhere nothing is known.
    let fds = Path::new("/proc/self/fd");
    if fds.is_dir() && fs::symlink_metadata(fds.join("1")).is_err() {
        STDOUT_CLOSED.store(true, Ordering::Relaxed);
    }
}

/// Standard output as a file of its own (a copy of its descriptor), for an output written
/// there: by default, or as `-`.
///
/// # Errors
///
/// When standard output was closed when pgnkit started (`>&-`): what would be written there
/// would be lost.
pub fn stdout_file() -> io::Result<File> {
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        // Not a broken pipe, which ends a run quietly: nothing at all could be written.
        return Err(io::Error::other(
            "standard output is closed: redirect it to a file (`> FILE`), or give -o FILE",
        ));
    }
    STDOUT_USED.store(true, Ordering::Relaxed);
    duplicate_stdout()
}

#[cfg(unix)]
fn duplicate_stdout() -> io::Result<File> {
    use std::os::fd::AsFd;
    Ok(File::from(io::stdout().as_fd().try_clone_to_owned()?))
}

#[cfg(windows)]
fn duplicate_stdout() -> io::Result<File> {
    use std::os::windows::io::AsHandle;
    Ok(File::from(io::stdout().as_handle().try_clone_to_owned()?))
}

/// The files of one run, staged until [`StagedFiles::commit`].
#[derive(Debug, Default)]
pub struct StagedFiles {
    staged: Vec<Staged>,
}

#[derive(Debug)]
struct Staged {
    temp: PathBuf,
    target: PathBuf,
    /// The file, kept to flush it to disk before it is renamed (`None`: flushed by its
    /// owner, see [`StagedFiles::adopt`]).
    file: Option<File>,
    /// Its entry in the run's record.
    id: u64,
}

impl StagedFiles {
    /// No files yet.
    pub fn new() -> StagedFiles {
        StagedFiles::default()
    }

    /// Opens an output option's destination: standard output when `path` is `None` or `-`
    /// ([`stdout_file`]), else the file, staged ([`create`](Self::create)).
    ///
    /// # Errors
    ///
    /// As [`stdout_file`] and [`create`](Self::create).
    pub fn open(&mut self, path: Option<&Path>) -> io::Result<File> {
        match path {
            Some(path) if !is_stdout(path) => self.create(path),
            _ => stdout_file(),
        }
    }

    /// Opens `path` for writing. A regular file (or a new one) is staged: written to a
    /// temporary file in its directory with the old file's permissions, and renamed over it
    /// by [`commit`](Self::commit); through a symbolic link, the link's target is replaced,
    /// so the link stays. Anything else (`/dev/null`, a named pipe, a terminal) is opened and
    /// written directly: renaming over it would replace the device or pipe with a file.
    ///
    /// # Errors
    ///
    /// When `path` is a directory, its folder does not exist, or the file cannot be created
    /// or opened; the message names `path`, not the temporary file.
    pub fn create(&mut self, path: &Path) -> io::Result<File> {
        let target = match fs::metadata(path) {
            Ok(meta) if meta.is_dir() => return Err(is_a_directory(path)),
            Ok(meta) if !meta.is_file() => {
                return File::options()
                    .write(true)
                    .open(path)
                    .map_err(|e| with_path(e, "cannot open", path));
            }
            Ok(_) => fs::canonicalize(path).map_err(|e| with_path(e, "cannot resolve", path))?,
            // A dangling symbolic link: writing through it creates its target.
            Err(_) if fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) => {
                return File::create(path).map_err(|e| with_path(e, "cannot create", path));
            }
            Err(_) => path.to_path_buf(),
        };
        let dir = folder_of(&target);
        if !dir.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!(
                    "cannot create {}: there is no folder {}; create it first, or write \
                     elsewhere",
                    path.display(),
                    dir.display()
                ),
            ));
        }
        let name = target.file_name().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} is not a file name", path.display()),
            )
        })?;
        remove_stale(&dir);
        let temp = dir.join(format!(
            ".{}.pgnkit-{}.tmp",
            name.to_string_lossy(),
            std::process::id()
        ));
        // A file left by a killed run of the same process id is stale: replace it.
        let _ = fs::remove_file(&temp);
        let id = record(Entry {
            temp: Some(temp.clone()),
            target: Some(target.clone()),
            folder: false,
            state: State::Pending,
        });
        let file = File::options()
            .write(true)
            .create_new(true)
            .open(&temp)
            .map_err(|e| {
                forget(id);
                with_path(e, "cannot create", path)
            })?;
        if let Ok(meta) = fs::metadata(&target) {
            // Best effort: a file system without permissions keeps the new file's.
            let _ = file.set_permissions(meta.permissions());
        }
        self.staged.push(Staged {
            temp,
            target,
            file: Some(file.try_clone()?),
            id,
        });
        Ok(file)
    }

    /// Stages a file its owner wrote and flushed to disk already (split's files, in its
    /// temporary folder on the same file system): renamed over `target` by
    /// [`commit`](Self::commit) with the others. Its folder ([`TempDir`]) names the output
    /// in the run's record, not each file.
    pub fn adopt(&mut self, temp: PathBuf, target: PathBuf) {
        let id = record(Entry {
            temp: None,
            target: None,
            folder: false,
            state: State::Pending,
        });
        self.staged.push(Staged {
            temp,
            target,
            file: None,
            id,
        });
    }

    /// Puts every staged file in place: flushed to disk, each checked to still have a place
    /// it can take (not a directory), then renamed over its target. Call it only once every
    /// file was written and flushed by its writer. A run interrupted (Ctrl-C) puts none in
    /// place: the interrupt's message says so. Whether the files were put in place.
    ///
    /// # Errors
    ///
    /// When a file cannot be flushed to disk (a full disk shows here at the latest) or a
    /// target is a directory: then no file is replaced. When a rename fails, the files
    /// before it are in place and the rest are removed.
    pub fn commit(mut self) -> io::Result<bool> {
        if crate::input::pipeline::INTERRUPTED.load(Ordering::Relaxed) {
            return Ok(false);
        }
        for staged in &self.staged {
            if let Some(file) = &staged.file {
                file.sync_all()
                    .map_err(|e| with_path(e, "cannot write", &staged.target))?;
            }
            if fs::metadata(&staged.target).is_ok_and(|m| m.is_dir()) {
                return Err(is_a_directory(&staged.target));
            }
        }
        while !self.staged.is_empty() {
            let staged = self.staged.remove(0);
            if let Err(e) = fs::rename(&staged.temp, &staged.target) {
                let _ = fs::remove_file(&staged.temp);
                set_state(staged.id, State::NotWritten);
                return Err(with_path(e, "cannot replace", &staged.target));
            }
            set_state(staged.id, State::Written);
        }
        Ok(true)
    }
}

impl Drop for StagedFiles {
    fn drop(&mut self) {
        for staged in &self.staged {
            let _ = fs::remove_file(&staged.temp);
            set_state(staged.id, State::NotWritten);
        }
    }
}

/// A temporary folder of the run (dedup's spill files, split's files before they are put in
/// place), named for the process (`.pgnkit-WHAT-PID.tmp`): removed with what is in it when
/// dropped or when a signal ends the process, and by a later run once this process is gone.
#[derive(Debug)]
pub struct TempDir {
    path: PathBuf,
    id: u64,
}

impl TempDir {
    /// Creates `.pgnkit-WHAT-PID.tmp` in `parent`, after removing those of processes gone.
    /// `output` names the folder of the outputs it holds, if any (split's): an interrupted
    /// run says that nothing was written there.
    ///
    /// # Errors
    ///
    /// When the folder cannot be created.
    pub fn create(parent: &Path, what: &str, output: Option<&Path>) -> io::Result<TempDir> {
        remove_stale(parent);
        let path = parent.join(format!(".pgnkit-{what}-{}.tmp", std::process::id()));
        // One left by a killed run of the same process id is stale.
        let _ = fs::remove_dir_all(&path);
        fs::create_dir(&path)?;
        let id = record(Entry {
            temp: Some(path.clone()),
            target: output.map(Path::to_path_buf),
            folder: true,
            state: State::Pending,
        });
        Ok(TempDir { path, id })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The folder's outputs were put in place: an interrupt after this says so.
    pub fn written(&self) {
        if let Some(e) = run().iter_mut().find(|e| e.id == self.id) {
            e.entry.state = State::Written;
        }
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.path);
        set_state(self.id, State::NotWritten);
    }
}

/// An output of the run, or a temporary folder.
#[derive(Debug)]
struct Entry {
    /// What to remove if a signal ends the process before it is committed or dropped.
    temp: Option<PathBuf>,
    /// The output it becomes.
    target: Option<PathBuf>,
    /// The target is a folder of outputs.
    folder: bool,
    state: State,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Pending,
    Written,
    NotWritten,
}

#[derive(Debug)]
struct Numbered {
    id: u64,
    entry: Entry,
}

static RUN: Mutex<Vec<Numbered>> = Mutex::new(Vec::new());
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

fn run() -> std::sync::MutexGuard<'static, Vec<Numbered>> {
    // A thread that panicked while holding it left a whole vector behind.
    RUN.lock().unwrap_or_else(|e| e.into_inner())
}

fn record(entry: Entry) -> u64 {
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    run().push(Numbered { id, entry });
    id
}

fn forget(id: u64) {
    run().retain(|e| e.id != id);
}

fn set_state(id: u64, state: State) {
    if let Some(e) = run().iter_mut().find(|e| e.id == id) {
        if e.entry.state == State::Pending {
            e.entry.state = state;
        }
        if state != State::Pending {
            e.entry.temp = None;
        }
    }
}

/// Removes every temporary file and folder of the run not yet committed or removed: for a
/// process about to end on a signal, whose destructors will not run.
pub fn remove_temporaries() {
    for e in run().iter_mut() {
        if let Some(temp) = e.entry.temp.take() {
            if e.entry.folder {
                let _ = fs::remove_dir_all(&temp);
            } else {
                let _ = fs::remove_file(&temp);
            }
            if e.entry.state == State::Pending {
                e.entry.state = State::NotWritten;
            }
        }
    }
}

/// The outputs of the run that were staged but not put in place, for the message of a run
/// that failed: `a.pgn, b.csv not written (the files there before, if any, are kept)`.
pub fn not_written() -> Option<String> {
    let run = run();
    let names: Vec<String> = run
        .iter()
        .filter(|e| e.entry.state != State::Written)
        .filter_map(|e| e.entry.target.as_ref().map(|t| describe(t, e.entry.folder)))
        .collect();
    (!names.is_empty()).then(|| {
        format!(
            "not written: {} (what was there before, if anything, is kept)",
            names.join(", ")
        )
    })
}

/// What an interrupted run wrote and did not: the one message it ends with.
pub fn interrupted_note() -> String {
    let run = run();
    let names = |written: bool| -> Vec<String> {
        run.iter()
            .filter(|e| (e.entry.state == State::Written) == written)
            .filter_map(|e| e.entry.target.as_ref().map(|t| describe(t, e.entry.folder)))
            .collect()
    };
    let (written, unwritten) = (names(true), names(false));
    let mut parts = Vec::new();
    if STDOUT_USED.load(Ordering::Relaxed) {
        parts.push("standard output has what was written before the interrupt".to_owned());
    }
    if !written.is_empty() {
        parts.push(format!(
            "written before the interrupt: {}",
            written.join(", ")
        ));
    }
    if !unwritten.is_empty() {
        parts.push(format!(
            "not written: {} (what was there before, if anything, is kept)",
            unwritten.join(", ")
        ));
    }
    if parts.is_empty() {
        parts.push("nothing was written, no file replaced".to_owned());
    }
    format!("interrupted: {}", parts.join("; "))
}

fn describe(target: &Path, folder: bool) -> String {
    if folder {
        format!("the files of {}", target.display())
    } else {
        target.display().to_string()
    }
}

/// Removes the temporary files and folders in `dir` that processes gone left behind
/// (`.NAME.pgnkit-PID.tmp`, `.pgnkit-WHAT-PID.tmp`): a run killed outright cannot remove its
/// own. Only where `/proc` tells which processes live; a process id in use again keeps them.
pub fn remove_stale(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    if !Path::new("/proc/self").is_dir() {
        return;
    }
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(temporary_pid) else {
            continue;
        };
        if pid == std::process::id() || Path::new("/proc").join(pid.to_string()).exists() {
            continue;
        }
        let path = entry.path();
        match entry.file_type() {
            Ok(t) if t.is_dir() => {
                let _ = fs::remove_dir_all(&path);
            }
            Ok(_) => {
                let _ = fs::remove_file(&path);
            }
            Err(_) => {}
        }
    }
}

/// The process id in the name of one of pgnkit's temporary files or folders.
fn temporary_pid(name: &str) -> Option<u32> {
    let stem = name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let (owner, pid) = stem.rsplit_once('-')?;
    if !(owner.ends_with(".pgnkit") || owner.starts_with("pgnkit-")) {
        return None;
    }
    if pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    pid.parse().ok()
}

fn folder_of(target: &Path) -> PathBuf {
    match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

fn with_path(e: io::Error, what: &str, path: &Path) -> io::Error {
    io::Error::new(e.kind(), format!("{what} {}: {e}", path.display()))
}

fn is_a_directory(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "{} is a directory: nothing was replaced; move it away or write elsewhere",
            path.display()
        ),
    )
}

/// Refuses an output file that is also one of the inputs (the same file, by whatever path,
/// standard input read from it included): the games would be read from the file while it is
/// rewritten, and `--rejects` would read back what it writes. `outputs` pairs each output's
/// option with its path. An output that does not exist yet, or is not a regular file
/// (`/dev/null`, a pipe, `-`), is no input.
///
/// # Errors
///
/// When an output is an input; the message names both.
pub fn refuse_inputs_as_outputs(
    outputs: &[(&str, Option<&Path>)],
    sources: &[Source],
) -> anyhow::Result<()> {
    for &(option, path) in outputs {
        let Some(path) = path else { continue };
        if let Some(input) = crate::input::open::input_named(path, sources) {
            bail!(
                "{option} {} is also an input ({input}): writing it would destroy its games \
                 before they are read; write to another file",
                path.display(),
            );
        }
    }
    Ok(())
}

/// Refuses two outputs on standard output (`-o -` beside a command's own output there, or
/// `--rejects -` beside `-o -`): their lines would be mixed. `outputs` pairs each option with
/// whether it writes to standard output.
///
/// # Errors
///
/// When more than one does; the message names them.
pub fn refuse_two_on_stdout(outputs: &[(&str, bool)]) -> anyhow::Result<()> {
    let on: Vec<&str> = outputs
        .iter()
        .filter(|(_, on)| *on)
        .map(|(o, _)| *o)
        .collect();
    if on.len() > 1 {
        bail!(
            "{} would {} write to standard output, mixed: give one of them a file",
            on.join(" and "),
            if on.len() == 2 { "both" } else { "all" }
        );
    }
    Ok(())
}

/// Opens the `--rejects` file, when one was asked for, staged in `staged` (`-` is standard
/// output).
///
/// # Errors
///
/// When the file cannot be created; the message names it.
pub fn rejects_file(
    staged: &mut StagedFiles,
    path: Option<&Path>,
) -> anyhow::Result<Option<BufWriter<File>>> {
    path.map(|path| {
        staged
            .open(Some(path))
            .map(BufWriter::new)
            .context("--rejects")
    })
    .transpose()
}

/// Puts the run's staged outputs in place when every input was read and no signal stopped
/// the run; otherwise says, for an input that could not be read, that they were not written
/// (the files there before are kept). An interrupted run says so at its end. Whether the
/// outputs were put in place.
///
/// # Errors
///
/// When a file cannot be put in place, or standard error cannot be written.
pub fn commit_after(staged: StagedFiles, inputs: &crate::input::Inputs) -> anyhow::Result<bool> {
    if inputs.totals.failed > 0 && !crate::report::interrupt::interrupted() {
        drop(staged);
        if let Some(note) = crate::report::staged::not_written() {
            crate::outcome::say(format_args!(
                "pgnkit: an input could not be read, so the outputs would lack its games; {note}"
            ))?;
        }
        return Ok(false);
    }
    Ok(staged.commit()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("pgnkit-staged-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn write(files: &mut StagedFiles, path: &Path, text: &str) {
        use std::io::Write;
        let mut f = files.create(path).unwrap();
        f.write_all(text.as_bytes()).unwrap();
    }

    #[test]
    fn nothing_is_replaced_until_the_commit_and_then_everything_is() {
        let dir = scratch("commit");
        let (a, b) = (dir.join("a.csv"), dir.join("b.csv"));
        fs::write(&a, "old a").unwrap();
        let mut files = StagedFiles::new();
        write(&mut files, &a, "new a");
        write(&mut files, &b, "new b");
        assert_eq!(fs::read_to_string(&a).unwrap(), "old a");
        assert!(!b.exists());
        assert!(files.commit().unwrap());
        assert_eq!(fs::read_to_string(&a).unwrap(), "new a");
        assert_eq!(fs::read_to_string(&b).unwrap(), "new b");
        assert_eq!(
            fs::read_dir(&dir).unwrap().count(),
            2,
            "no temporary file left"
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn files_dropped_without_a_commit_leave_the_old_ones() {
        let dir = scratch("drop");
        let a = dir.join("a.csv");
        fs::write(&a, "old a").unwrap();
        let mut files = StagedFiles::new();
        write(&mut files, &a, "new a");
        write(&mut files, &dir.join("b.csv"), "new b");
        drop(files);
        assert_eq!(fs::read_to_string(&a).unwrap(), "old a");
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_target_that_became_a_directory_stops_every_rename() {
        let dir = scratch("directory");
        let (a, b) = (dir.join("a.csv"), dir.join("b.csv"));
        fs::write(&a, "old a").unwrap();
        let mut files = StagedFiles::new();
        write(&mut files, &a, "new a");
        write(&mut files, &b, "new b");
        fs::create_dir(&b).unwrap();
        let e = files.commit().unwrap_err();
        assert!(e.to_string().contains("is a directory"), "{e}");
        assert_eq!(fs::read_to_string(&a).unwrap(), "old a");
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 2, "a.csv and b/");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_missing_folder_is_named_not_the_temporary_file() {
        let dir = scratch("missing");
        let e = StagedFiles::new()
            .create(&dir.join("gone/out.pgn"))
            .unwrap_err();
        let text = e.to_string();
        assert!(text.contains("there is no folder"), "{text}");
        assert!(text.contains("gone"), "{text}");
        assert!(!text.contains(".tmp"), "{text}");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn temporary_names_give_their_process_id() {
        assert_eq!(temporary_pid(".out.pgn.pgnkit-42.tmp"), Some(42));
        assert_eq!(temporary_pid(".pgnkit-dedup-7.tmp"), Some(7));
        assert_eq!(temporary_pid(".pgnkit-split-123.tmp"), Some(123));
        assert_eq!(temporary_pid("out.pgn"), None);
        assert_eq!(temporary_pid(".notes-42.tmp"), None);
        assert_eq!(temporary_pid(".out.pgnkit-x.tmp"), None);
    }
}
