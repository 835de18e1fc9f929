//! `pgnkit split`: writes each game, byte for byte as read, to a file of a folder named for
//! its group: a number of games, its event, its ECO letter or a tag's value.

use std::collections::{HashMap, HashSet};
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context};

use crate::dedup::split::{By, Grouper};
use crate::eco::EcoObserver;
use crate::input::pipeline::{Game, Lexing};
use crate::input::{Found, Inputs};
use crate::outcome::Outcome;
use crate::outcome::{say, WriteError};
use crate::report::staged::{StagedFiles, TempDir};
use crate::rules::game::CheckOptions;

/// Split games into files: by a number of games, by event, by ECO code or letter or by a
/// tag's value.
///
/// Each game is written byte for byte as read, in input order, to DIR/games-0001.pgn,
/// DIR/event-<name>.pgn, DIR/eco-B90.pgn, DIR/eco-B.pgn or DIR/tag-<Tag>-<value>.pgn; a game
/// without the tag goes to the `unknown` file. By ECO, a game without a usable ECO tag is
/// classified by its moves. The files appear in DIR only once all are written. Exit status:
/// 0 clean, 1 problems found in the inputs, 2 pgnkit failed.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub input: super::InputArgs,

    /// How to split: `games:N` (N games a file), `event`, `eco` (the ECO code, from the tag
    /// or else the moves), `eco-letter` (A to E, likewise) or `tag:NAME` (any tag's value).
    #[arg(long, value_name = "MODE", value_parser = By::parse)]
    pub by: By,

    /// With `--by eco` or `eco-letter`: classify by this opening table instead of the
    /// built-in one (lichess's TSV columns eco, name, pgn, or pgn-extract's eco.pgn).
    #[arg(long, value_name = "FILE")]
    pub eco_table: Option<PathBuf>,

    /// The folder to write the files into (created if missing). Files of the same names are
    /// replaced; other files are left alone.
    #[arg(long, short, value_name = "DIR")]
    pub output: PathBuf,
}

/// One game, ready to be written (made on a worker).
struct Piece {
    value: Option<String>,
    bytes: Vec<u8>,
}

impl Found for Piece {
    fn errors(&self) -> u64 {
        0
    }
}

/// Files open at once, at most: a tag with a million values must not run out of file
/// descriptors. The least recently written is closed first, and opened again to append.
const OPEN_FILES: usize = 64;

/// The files being written, in a hidden folder inside the output folder (so renaming them into
/// place never crosses file systems). Removed, with what is in it, when dropped; so is the
/// output folder when this run made it and put nothing in it.
struct Staging {
    /// `None` once dropped.
    dir: Option<TempDir>,
    open: HashMap<String, (BufWriter<File>, u64)>,
    /// Every file created, in the order of their first game.
    created: Vec<String>,
    seen: HashSet<String>,
    tick: u64,
    /// The output folder, when this run created it.
    made: Option<PathBuf>,
}

impl Staging {
    fn new(output: &Path) -> anyhow::Result<Staging> {
        if output.exists() && !output.is_dir() {
            bail!(
                "--output {} is not a folder: split writes one file a group into a folder; \
                 give a folder's name",
                output.display()
            );
        }
        let made = (!output.exists()).then(|| output.to_path_buf());
        fs::create_dir_all(output)
            .with_context(|| format!("cannot create {}", output.display()))?;
        let dir = TempDir::create(output, "split", Some(output))
            .with_context(|| format!("cannot create a temporary folder in {}", output.display()))?;
        Ok(Staging {
            dir: Some(dir),
            open: HashMap::new(),
            created: Vec::new(),
            seen: HashSet::new(),
            tick: 0,
            made,
        })
    }

    fn dir(&self) -> io::Result<&Path> {
        self.dir
            .as_ref()
            .map(TempDir::path)
            .ok_or_else(|| io::Error::other("the temporary folder is gone"))
    }

    fn write(&mut self, name: &str, bytes: &[u8]) -> io::Result<()> {
        self.tick += 1;
        if !self.open.contains_key(name) {
            if self.open.len() >= OPEN_FILES {
                // A scan of a few dozen entries, once a file is reopened: no more than the
                // write that follows.
                let oldest = self
                    .open
                    .iter()
                    .min_by_key(|(_, (_, used))| *used)
                    .map(|(n, _)| n.clone());
                if let Some(oldest) = oldest {
                    if let Some((mut w, _)) = self.open.remove(&oldest) {
                        w.flush()?;
                    }
                }
            }
            let path = self.dir()?.join(name);
            let file = File::options().create(true).append(true).open(&path)?;
            if self.seen.insert(name.to_owned()) {
                self.created.push(name.to_owned());
            }
            self.open.insert(
                name.to_owned(),
                (BufWriter::with_capacity(1 << 15, file), 0),
            );
        }
        let Some((w, used)) = self.open.get_mut(name) else {
            return Ok(());
        };
        *used = self.tick;
        w.write_all(bytes)?;
        w.write_all(b"\n\n")
    }

    /// Flushes every file and puts them all in `output` at once, as every command puts its
    /// outputs in place ([`super::commit`]): none if one cannot take its place. The number of
    /// files, `None` when they were not put in place.
    fn commit(mut self, output: &Path, inputs: &Inputs) -> anyhow::Result<Option<usize>> {
        let folder = output.display().to_string();
        for (_, (mut w, _)) in self.open.drain() {
            w.flush()
                .and_then(|()| w.get_ref().sync_all())
                .map_err(|e| WriteError::new(folder.as_str(), e))?;
        }
        let mut staged = StagedFiles::new();
        let dir = self.dir()?.to_path_buf();
        for name in &self.created {
            staged.adopt(dir.join(name), output.join(name));
        }
        if !crate::report::staged::commit_after(staged, inputs)? {
            return Ok(None);
        }
        self.made = None;
        if let Some(dir) = &self.dir {
            dir.written();
        }
        Ok(Some(self.created.len()))
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        self.open.clear();
        drop(self.dir.take());
        if let Some(made) = &self.made {
            // Only when empty: nothing of anyone else's is removed.
            let _ = fs::remove_dir(made);
        }
    }
}

/// Runs `pgnkit split`.
///
/// # Errors
///
/// When the folder or a file in it cannot be written.
pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let mut inputs = Inputs::new(args.input.resolve()?)?;
    let started = Instant::now();
    let mut staging = Staging::new(&args.output)?;
    let mut grouper = Grouper::new(args.by.clone());
    let by = &args.by;
    let tag = by.tag();
    let classifies = matches!(by, By::Eco | By::EcoLetter);
    if args.eco_table.is_some() && !classifies {
        bail!("--eco-table applies with --by eco or --by eco-letter only");
    }
    let table = if classifies {
        Some(crate::eco::table_at(args.eco_table.as_deref())?)
    } else {
        None
    };
    let opts = CheckOptions::default();
    let folder = args.output.display().to_string();
    let work = |_: &str, game: &mut Game<'_>| -> Piece {
        let value = tag.and_then(|t| game.lexed.tag(t)).map(str::to_owned);
        if let Some(table) = table.filter(|_| by.classifies(value.as_deref())) {
            // The game is replayed only for its opening: most games of a database have the
            // tag.
            let mut eco = EcoObserver::new(table);
            game.check(&opts, &mut eco);
            return Piece {
                value: eco.result().map(|o| o.eco.clone()),
                bytes: game.bytes.to_vec(),
            };
        }
        game.close();
        Piece {
            value,
            bytes: game.bytes.to_vec(),
        }
    };
    let sink = |_: &str, piece: Piece| -> Result<(), WriteError> {
        let name = grouper.file_for(piece.value.as_deref());
        // A game too large to read has no bytes: it was reported, and nothing is written.
        if piece.bytes.is_empty() {
            return Ok(());
        }
        staging
            .write(&name, &piece.bytes)
            .map_err(|e| WriteError::new(format!("{folder}/{name}"), e))
    };
    inputs.run(Lexing::Tags, work, sink, |p| p.to_stderr())?;
    if inputs.totals.broken_pipe || inputs.totals.interrupted {
        return Ok(Outcome::Failed);
    }
    let Some(files) = staging.commit(&args.output, &inputs)? else {
        return Ok(inputs.outcome());
    };
    let read = &inputs.totals;
    if !args.input.quiet {
        say(format_args!(
            "pgnkit: {} input{}, {} game{} into {} file{} in {} in {:.2} s",
            read.files,
            s(read.files as u64),
            read.games,
            s(read.games),
            files,
            s(files as u64),
            folder,
            started.elapsed().as_secs_f64()
        ))?;
        inputs.summary_tail()?;
    }
    inputs.report_no_game()?;
    Ok(inputs.outcome())
}

fn s(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
