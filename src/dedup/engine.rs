//! The dedup engine: every input read once, a digest a game kept, the duplicates decided
//! by the [`Finder`], and the kept games written byte for byte as read, in input order, with
//! a CSV report of what each dropped game duplicates.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context};

use crate::dedup::finder::{Decision, Row};
use crate::dedup::observer::DigestObserver;
use crate::dedup::spill::{Place, Spill};
use crate::dedup::{completeness, recorded, text_hash, Digest, Finder, Identity, Keep, Kind};
use crate::diag::Severity;
use crate::input::pipeline::Game;
use crate::input::{Found, InputOptions, Inputs, ReadFrom, Verbatim};
use crate::outcome::Outcome;
use crate::outcome::{say, WriteError};
use crate::report::cell::neutralise;
use crate::report::staged::{self, StagedFiles};
use crate::rules::game::CheckOptions;
use crate::sort::Space;

/// What a dedup run is asked for (`pgnkit dedup`'s options, as typed; the inputs are given to
/// [`Dedup::run`]).
#[derive(Clone, Debug)]
pub struct DedupOptions {
    /// Where the unique games go (`-`: standard output).
    pub output: PathBuf,
    /// Where the CSV report of the duplicates goes, if anywhere (`--report`).
    pub report: Option<PathBuf>,
    /// Which copy of a game is kept (`--keep`).
    pub keep: Keep,
    /// Also count as duplicates games that reach the same position after this many plies
    /// (`--fuzzy-ply`, at least 1).
    pub fuzzy_ply: Option<u32>,
    /// Where the temporary files go (`--temp-dir`); `None`: the output's folder.
    pub temp_dir: Option<PathBuf>,
    /// Bytes of memory for what is kept of the games (`--memory-budget`, at least
    /// [`MIN_MEMORY_BUDGET`]); past it, it goes to sorted runs on disk.
    pub memory_budget: u64,
    /// Print the closing summary to standard error (the command line's default; `--quiet`
    /// turns it off).
    pub summary: bool,
}

/// The smallest memory budget: the merges of the sorted runs on disk need their buffers in it.
pub const MIN_MEMORY_BUDGET: u64 = Finder::MIN_BUDGET;

impl DedupOptions {
    /// The options of a run writing to `output` with every other option at the command
    /// line's default (`--keep first`, a budget of 1 GiB), but the summary, which is not
    /// printed.
    pub fn new(output: PathBuf) -> DedupOptions {
        DedupOptions {
            output,
            report: None,
            keep: Keep::First,
            fuzzy_ply: None,
            temp_dir: None,
            memory_budget: 1 << 30,
            summary: false,
        }
    }
}

/// A size as `--memory-budget` takes it: a whole number of bytes, or of K, M, G or T (powers
/// of 1024, with or without a `B` or `iB` after), at least [`MIN_MEMORY_BUDGET`].
///
/// # Errors
///
/// Text that is no such size, or a size below the least budget; the message teaches the form.
pub fn parse_size(text: &str) -> Result<u64, String> {
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
    if bytes < MIN_MEMORY_BUDGET {
        return Err(format!(
            "`{text}` is too small a memory budget: give at least {}M (the merges of the sorted runs on disk need their buffers in it), as in 64M",
            MIN_MEMORY_BUDGET >> 20
        ));
    }
    Ok(bytes)
}

/// Deduplicates games: the resolved options of a run.
///
/// ```
/// use pgnkit::dedup::{Dedup, DedupOptions};
/// use pgnkit::input::InputOptions;
/// use pgnkit::outcome::Outcome;
///
/// let dir = std::env::temp_dir().join(format!("pgnkit-doc-dedup-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let games = dir.join("games.pgn");
/// let game = "[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 1-0";
/// // The same game twice, the second with a tag more.
/// std::fs::write(&games, format!("{game}\n\n[Event \"x\"]\n{game}\n"))?;
/// let mut options = DedupOptions::new(dir.join("unique.pgn"));
/// options.report = Some(dir.join("report.csv"));
/// let outcome = Dedup::new(options)?.run(InputOptions::new(vec![games.clone()]))?;
/// assert_eq!(outcome, Outcome::Clean);
/// assert_eq!(std::fs::read_to_string(dir.join("unique.pgn"))?, format!("{game}\n\n"));
/// let report = std::fs::read_to_string(dir.join("report.csv"))?;
/// let name = games.display();
/// assert!(report.ends_with(&format!("\n{name},2,{name},1,same-moves\n")), "{report}");
/// std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Dedup {
    options: DedupOptions,
}

impl Dedup {
    /// The engine of `options`.
    ///
    /// # Errors
    ///
    /// A `fuzzy_ply` of 0 or a memory budget below [`MIN_MEMORY_BUDGET`].
    pub fn new(options: DedupOptions) -> anyhow::Result<Dedup> {
        if options.fuzzy_ply == Some(0) {
            bail!(
                "--fuzzy-ply must be 1 or more: the position after no move is every game's start"
            );
        }
        if options.memory_budget < MIN_MEMORY_BUDGET {
            bail!(
                "{} bytes is too small a memory budget: give at least {}M (the merges of the sorted runs on disk need their buffers in it)",
                options.memory_budget,
                MIN_MEMORY_BUDGET >> 20
            );
        }
        Ok(Dedup { options })
    }

    /// Reads every game of the inputs `input` names and writes the kept ones (and the
    /// report); the run's outcome.
    ///
    /// # Errors
    ///
    /// An output that is also an input, two outputs on standard output, or an output or a
    /// temporary file that cannot be written or read back.
    pub fn run(&self, input: InputOptions) -> anyhow::Result<Outcome> {
        let args = &self.options;
        let mut inputs = Inputs::new(input)?;
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
        let keep = args.keep;
        let started = Instant::now();
        let opts = CheckOptions::default();
        let fuzzy = args.fuzzy_ply;

        // The reading: a digest a game in memory, its moves and bytes to the spill files.
        let temp = temp_dir(args);
        let mut spill = Spill::create(&temp).with_context(|| {
            format!(
                "cannot create a temporary folder in {}; give another with --temp-dir",
                temp.display()
            )
        })?;
        let budget = usize::try_from(args.memory_budget).unwrap_or(usize::MAX);
        let store = Finder::space(spill.dir(), budget);
        let mut finder = Finder::new(&store);
        let mut names: Vec<String> = Vec::new();
        let mut errors = 0u64;
        let mut with_errors = 0u64;
        let mut last_number = 0u64;
        // The inputs whose kept games are copied from themselves, and the source of the one read.
        let mut verbatim: Vec<Verbatim> = Vec::new();
        let mut source = 0u32;
        let work = |from: &ReadFrom<'_>, game: &mut Game<'_>| {
            digest(from, game, &opts, fuzzy, keep, &spill)
        };
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
        inputs.run_from(work, sink, |p| p.to_stderr())?;
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
        if args.summary {
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

impl Found for Digested {
    fn errors(&self) -> u64 {
        self.errors
    }
}

/// Where the temporary files go: `--temp-dir`, or the output's folder (the file system
/// that will hold the output is likely to hold its size again), or the system's temporary
/// folder for an output that is no regular file (`/dev/null`).
fn temp_dir(args: &DedupOptions) -> PathBuf {
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
    let result = recorded(result);
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
    store: &Space,
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

    #[test]
    fn sizes_are_bytes_or_powers_of_1024() {
        for (text, want) in [
            ("1M", 1 << 20),
            ("64m", 64 << 20),
            ("4 GiB", 4 << 30),
            ("2GB", 2 << 30),
            ("1T", 1 << 40),
            ("1048576", 1 << 20),
        ] {
            assert_eq!(parse_size(text), Ok(want), "{text}");
        }
        for bad in ["", "M", "1.5G", "1P", "-1M", "99999999999999999999T"] {
            let e = parse_size(bad).unwrap_err();
            assert!(e.contains("is no size"), "{bad}: {e}");
        }
        let e = parse_size("512K").unwrap_err();
        assert!(e.contains("too small a memory budget"), "{e}");
    }

    #[test]
    fn the_engine_refuses_what_the_command_line_cannot_say() {
        let mut options = DedupOptions::new(PathBuf::from("-"));
        assert!(Dedup::new(options.clone()).is_ok());
        options.fuzzy_ply = Some(0);
        assert!(Dedup::new(options.clone()).is_err());
        options.fuzzy_ply = Some(1);
        options.memory_budget = MIN_MEMORY_BUDGET - 1;
        assert!(Dedup::new(options).is_err());
    }
}
