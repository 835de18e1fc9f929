//! Games split into files (`pgnkit split`): which file each game goes to ([`group`]), the
//! files while they are written, and the engine that runs it ([`Split`]). Each game is
//! written byte for byte as read, in input order.

pub mod group;
mod staging;

use std::path::PathBuf;
use std::time::Instant;

use anyhow::bail;

use crate::eco::{EcoObserver, Table};
use crate::input::pipeline::Game;
use crate::input::{Found, InputOptions, Inputs};
use crate::outcome::Outcome;
use crate::outcome::{say, WriteError};
use crate::rules::game::CheckOptions;

pub use group::{By, Grouper};
use staging::Staging;

/// What a split run is asked for (`pgnkit split`'s options, as typed; the inputs are given
/// to [`Split::run`]).
#[derive(Clone, Debug)]
pub struct SplitOptions {
    /// How games are split (`--by`).
    pub by: By,
    /// With [`By::Eco`] or [`By::EcoLetter`]: classify by this opening table instead of the
    /// built-in one (`--eco-table`).
    pub eco_table: Option<PathBuf>,
    /// The folder the files go to (created if missing; `--output`).
    pub output: PathBuf,
    /// Print the closing summary to standard error (the command line's default; `--quiet`
    /// turns it off).
    pub summary: bool,
}

impl SplitOptions {
    /// The options of a run splitting `by` into the folder `output`, with the built-in
    /// opening table and no summary printed.
    pub fn new(by: By, output: PathBuf) -> SplitOptions {
        SplitOptions {
            by,
            eco_table: None,
            output,
            summary: false,
        }
    }
}

/// Splits games into files of a folder: the resolved options of a run.
///
/// ```
/// use pgnkit::input::InputOptions;
/// use pgnkit::outcome::Outcome;
/// use pgnkit::split::{By, Split, SplitOptions};
///
/// let dir = std::env::temp_dir().join(format!("pgnkit-doc-split-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let games = dir.join("games.pgn");
/// let (a, b) = ("[Event \"Open\"]\n\n1. e4 *", "[Event \"Cup\"]\n\n1. d4 *");
/// std::fs::write(&games, format!("{a}\n\n{b}\n\n{a}\n"))?;
/// let split = Split::new(SplitOptions::new(By::Event, dir.join("out")))?;
/// assert_eq!(split.run(InputOptions::new(vec![games]))?, Outcome::Clean);
/// let open = std::fs::read_to_string(dir.join("out/event-Open.pgn"))?;
/// assert_eq!(open, format!("{a}\n\n{a}\n\n"));
/// assert_eq!(std::fs::read_to_string(dir.join("out/event-Cup.pgn"))?, format!("{b}\n\n"));
/// std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Split {
    options: SplitOptions,
    /// The table games without a usable ECO tag are classified by, when the split goes by
    /// ECO.
    table: Option<&'static Table>,
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

impl Split {
    /// The engine of `options`, with its opening table read when the split goes by ECO.
    ///
    /// # Errors
    ///
    /// An opening table given to a split that does not go by ECO, or one that cannot be
    /// read.
    pub fn new(options: SplitOptions) -> anyhow::Result<Split> {
        let classifies = matches!(options.by, By::Eco | By::EcoLetter);
        if options.eco_table.is_some() && !classifies {
            bail!("--eco-table applies with --by eco or --by eco-letter only");
        }
        let table = if classifies {
            Some(crate::eco::table_at(options.eco_table.as_deref())?)
        } else {
            None
        };
        Ok(Split { options, table })
    }

    /// Writes every game of the inputs `input` names to its file, the files put in the
    /// output folder once all are written; the run's outcome.
    ///
    /// # Errors
    ///
    /// When the folder or a file in it cannot be written.
    pub fn run(&self, input: InputOptions) -> anyhow::Result<Outcome> {
        let args = &self.options;
        let mut inputs = Inputs::new(input)?;
        let started = Instant::now();
        let mut staging = Staging::new(&args.output)?;
        let mut grouper = Grouper::new(args.by.clone());
        let by = &args.by;
        let tag = by.tag();
        let table = self.table;
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
        inputs.run(work, sink, |p| p.to_stderr())?;
        if inputs.totals.broken_pipe || inputs.totals.interrupted {
            return Ok(Outcome::Failed);
        }
        let Some(files) = staging.commit(&args.output, &inputs)? else {
            return Ok(inputs.outcome());
        };
        let read = &inputs.totals;
        if args.summary {
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
}

fn s(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
