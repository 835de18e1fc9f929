//! `pgnkit dedup`: writes each game once, dropping exact copies, the same moves under other
//! tags or layout, games that are the first moves of a longer one and, if asked, games that
//! reach the same position; a CSV report says which game each dropped one duplicates.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context};
use clap::ValueEnum;

use crate::cli::Outcome;
use crate::dedup::observer::DigestObserver;
use crate::dedup::{completeness, text_hash, Digest, Duplicate, Finder, Keep, Kind, Recorded};
use crate::diag::Severity;
use crate::input::open::Source;
use crate::input::pipeline::{Game, Lexing};
use crate::input::{say, Found, Inputs, WriteError};
use crate::report::cell::neutralise;
use crate::report::staged::StagedFiles;
use crate::rules::game::CheckOptions;

/// Remove duplicate games: exact copies, the same moves with other tags, comments or layout,
/// games that stop early (a prefix of a longer game), and the same moves with conflicting
/// results.
///
/// The unique games are written byte for byte as read, in input order. Standard input cannot
/// be read: the inputs are read twice (once to find the duplicates, once to write). Exit
/// status: 0 clean, 1 problems found in the input (games with errors), 2 pgnkit failed.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub input: super::InputArgs,

    /// Write the unique games to this file.
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
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum KeepArg {
    First,
    Best,
}

/// What the first reading makes of one game (on a worker).
struct Digested {
    digest: Digest,
    start: u128,
    moves: Vec<u16>,
    number: u64,
    errors: u64,
}

impl Found for Digested {
    fn errors(&self) -> u64 {
        self.errors
    }
}

/// A game's bytes, for the second reading.
struct Bytes(Vec<u8>);

impl Found for Bytes {
    fn errors(&self) -> u64 {
        0
    }
}

/// Where a game was read: its input (an index into the names) and its number there.
#[derive(Clone, Copy)]
struct Place {
    file: u32,
    number: u64,
}

/// The games' moves between the two readings, in a file: memory stays flat however many
/// games there are. Removed when dropped.
struct Spill {
    path: PathBuf,
    out: Option<BufWriter<File>>,
}

impl Spill {
    fn create() -> io::Result<Spill> {
        let path = std::env::temp_dir().join(format!("pgnkit-dedup-{}.moves", std::process::id()));
        let file = File::options()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)?;
        Ok(Spill {
            path,
            out: Some(BufWriter::with_capacity(1 << 16, file)),
        })
    }

    fn write(&mut self, start: u128, moves: &[u16]) -> io::Result<()> {
        let Some(out) = self.out.as_mut() else {
            return Ok(());
        };
        out.write_all(&start.to_le_bytes())?;
        out.write_all(&(moves.len() as u32).to_le_bytes())?;
        for m in moves {
            out.write_all(&m.to_le_bytes())?;
        }
        Ok(())
    }

    /// Gives each game's start and moves, in order, to `each`.
    fn replay(&mut self, mut each: impl FnMut(u32, u128, &[u16])) -> io::Result<()> {
        if let Some(mut out) = self.out.take() {
            out.flush()?;
        }
        let mut input = BufReader::with_capacity(1 << 16, File::open(&self.path)?);
        let mut moves = Vec::new();
        let mut head = [0u8; 20];
        let mut index = 0u32;
        loop {
            match input.read_exact(&mut head) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(()),
                Err(e) => return Err(e),
            }
            let start = u128::from_le_bytes(head[..16].try_into().unwrap_or_default());
            let n = u32::from_le_bytes(head[16..].try_into().unwrap_or_default()) as usize;
            let mut raw = vec![0u8; n * 2];
            input.read_exact(&mut raw)?;
            moves.clear();
            moves.extend(
                raw.chunks_exact(2)
                    .map(|c| u16::from_le_bytes([c[0], c[1]])),
            );
            each(index, start, &moves);
            index += 1;
        }
    }
}

impl Drop for Spill {
    fn drop(&mut self) {
        self.out = None;
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Runs `pgnkit dedup`.
///
/// # Errors
///
/// Standard input as an input, an output that cannot be written, or an input that changed
/// between the two readings.
pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let options = args.input.resolve()?;
    let mut inputs = Inputs::new(options.clone())?;
    if inputs.sources().iter().any(|s| matches!(s, Source::Stdin)) {
        bail!(
            "dedup cannot read standard input: it reads its inputs twice (to find the \
             duplicates, then to write the unique games); save the games to a file and give it"
        );
    }
    super::refuse_inputs_as_outputs(
        &[
            ("--output", Some(args.output.as_path())),
            ("--report", args.report.as_deref()),
        ],
        inputs.sources(),
    )?;
    let keep = match args.keep {
        KeepArg::First => Keep::First,
        KeepArg::Best => Keep::Best,
    };
    let started = Instant::now();
    let opts = CheckOptions::default();
    let fuzzy = args.fuzzy_ply;

    // First reading: a digest a game, the moves to the spill file.
    let mut spill = Spill::create().context("cannot create a temporary file for the moves")?;
    let mut finder = Finder::new();
    let mut names: Vec<String> = Vec::new();
    let mut places: Vec<Place> = Vec::new();
    let mut errors = 0u64;
    let mut with_errors = 0u64;
    let mut last_number = 0u64;
    let work = |_: &str, game: &mut Game<'_>| digest(game, &opts, fuzzy);
    let sink = |name: &str, d: Digested| -> Result<(), WriteError> {
        if names.last().is_none_or(|last| last != name) || d.number <= last_number {
            names.push(name.to_owned());
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
        places.push(Place {
            file: names.len() as u32 - 1,
            number: d.number,
        });
        finder.add(d.digest);
        spill
            .write(d.start, &d.moves)
            .map_err(|e| WriteError::new("the temporary file of moves", e))
    };
    inputs.run(Lexing::Tags, work, sink, |p| p.to_stderr())?;
    if inputs.totals.broken_pipe || inputs.totals.interrupted {
        inputs.report_no_game()?;
        return Ok(Outcome::Failed);
    }

    spill
        .replay(|index, start, moves| finder.probe_prefixes(index, start, moves))
        .context("cannot read back the temporary file of moves")?;
    drop(spill);
    let fate = finder.decide(keep, fuzzy.is_some());

    // Second reading: the kept games, written.
    let mut staged = StagedFiles::new();
    let out_name = args.output.display().to_string();
    let file = staged.create(&args.output)?;
    let mut out = BufWriter::with_capacity(1 << 16, file);
    let mut index = 0usize;
    let mut again = Inputs::new(crate::input::InputOptions {
        progress: false,
        ..options
    })?;
    let copy = |_: &str, game: &mut Game<'_>| -> Option<Bytes> {
        // A game whose end is not known yet is given again, found.
        game.open.is_none().then(|| Bytes(game.bytes.to_vec()))
    };
    let write = |_: &str, game: Bytes| -> Result<(), WriteError> {
        let kept = fate.get(index).is_some_and(Option::is_none);
        index += 1;
        if kept && !game.0.is_empty() {
            out.write_all(&game.0)
                .and_then(|()| out.write_all(b"\n\n"))
                .map_err(|e| WriteError::new(out_name.as_str(), e))?;
        }
        Ok(())
    };
    // Problems of the inputs were reported by the first reading.
    again.run(Lexing::Tags, copy, write, |_| Ok(()))?;
    if index != fate.len() {
        bail!(
            "an input changed while dedup read it ({} games the first time, {index} the \
             second); nothing was written",
            fate.len()
        );
    }
    out.flush()
        .and_then(|()| out.into_inner().map(drop).map_err(|e| e.into_error()))
        .map_err(|e| WriteError::new(out_name.as_str(), e))?;
    if let Some(path) = &args.report {
        let file = staged.create(path)?;
        write_report(file, path, &fate, &places, &names)?;
    }
    staged.commit()?;

    let read = &inputs.totals;
    if !args.input.quiet {
        let mut by_kind = [0u64; 5];
        for d in fate.iter().flatten() {
            by_kind[d.kind as usize] += 1;
        }
        let duplicates: u64 = by_kind.iter().sum();
        let kinds: Vec<String> = Kind::ALL
            .iter()
            .zip(by_kind)
            .filter(|&(_, n)| n > 0)
            .map(|(k, n)| format!("{n} {}", k.as_str()))
            .collect();
        say(format_args!(
            "pgnkit: {} file{}, {} game{}: {} unique, {} duplicate{}{} in {:.2} s",
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

/// The first reading of one game: replayed, hashed.
fn digest(game: &mut Game<'_>, opts: &CheckOptions, fuzzy: Option<u32>) -> Option<Digested> {
    let mut observer = DigestObserver::new(fuzzy);
    let report = super::check_pipeline_game(game, opts, &mut observer)?;
    let result = Recorded::of_tag(game.lexed.tag("Result"));
    let comments = memchr::memchr_iter(b'{', game.bytes).count();
    let digest = Digest {
        moves: observer.hash(),
        text: text_hash(game.bytes),
        position: observer.position,
        plies: observer.moves.len() as u32,
        completeness: completeness(result, game.lexed.tags().len(), comments),
        result,
        unique: game.bytes.is_empty(),
    };
    Some(Digested {
        digest,
        start: observer.start,
        moves: observer.moves,
        number: game.number,
        errors: report.count(Severity::Error) as u64,
    })
}

/// The CSV report: one row a duplicate, in input order, file names made spreadsheet-safe as
/// in every CSV pgnkit writes.
fn write_report(
    file: File,
    path: &Path,
    fate: &[Option<Duplicate>],
    places: &[Place],
    names: &[String],
) -> anyhow::Result<()> {
    let what = || path.display().to_string();
    let mut w = csv::Writer::from_writer(BufWriter::new(file));
    let failed = |e: csv::Error| WriteError::new(what(), io::Error::other(e));
    w.write_record([
        "file",
        "game",
        "duplicate_of_file",
        "duplicate_of_game",
        "kind",
    ])
    .map_err(failed)?;
    for (i, d) in fate.iter().enumerate() {
        let Some(d) = d else { continue };
        let (me, of) = (places[i], places[d.of as usize]);
        w.write_record([
            neutralise(&names[me.file as usize]).as_ref(),
            &me.number.to_string(),
            neutralise(&names[of.file as usize]).as_ref(),
            &of.number.to_string(),
            d.kind.as_str(),
        ])
        .map_err(failed)?;
    }
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
