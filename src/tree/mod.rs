//! `pgnkit tree`: the opening tree of any games pgnkit reads. Each main-line ply up to a
//! maximum becomes a small fixed-size record ([`record::PlyRecord`]: the Polyglot key and the
//! packed position before the move, the move, the game's result, ratings and date), the
//! records go through the one external sorter ([`crate::sort`]) sorted by position and move,
//! and one streaming pass sums them into rows ([`rows::Row`]): memory stays within the
//! sorter's budget however many games are read; the hot places (the first plies of nearly
//! every game) are summed in memory before the sorter ([`hot`]). The rows are written as a table
//! ([`write::RowWriter`]: CSV, JSON lines, Parquet) or as a Polyglot book
//! ([`polyglot::BookWriter`]), and a position is looked up in a tree file by [`lookup`].

pub mod hot;
pub mod lookup;
pub mod merge;
pub mod observer;
pub mod parquet;
pub mod polyglot;
pub mod read;
pub mod record;
pub mod rows;
pub mod split;
pub mod write;

use std::io::Write;
use std::path::PathBuf;

use anyhow::{bail, Context};

use crate::diag::Severity;
use crate::input::pipeline::Game;
use crate::input::{InputOptions, Inputs};
use crate::outcome::{Outcome, WriteError};
use crate::pgn::date::GameDate;
use crate::report::staged::{self, StagedFiles, TempDir};
use crate::report::{self, RenderOptions};
use crate::rules::game::{CheckOptions, GameReport};
use crate::select::Selection;
use crate::sort::{Sorter, Space};
use hot::{HotRows, Joined};
use observer::PlyObserver;
pub use observer::Side;
use polyglot::BookOptions;
use record::{date_number, PlyRecord, Score};
use rows::Rows;
use split::{split_of, SplitBy};
pub use write::Format;
use write::{counted, TreeOut};

/// The default maximum ply: past the opening of nearly every game.
pub const DEFAULT_MAX_PLY: u32 = 30;
/// The largest maximum ply.
pub const MAX_PLY: u32 = 1000;
/// The smallest memory budget: the merges of the sorted runs need their buffers in it.
pub const MIN_MEMORY_BUDGET: u64 = 1 << 20;

/// What a run of `pgnkit tree` reads and writes: the options of the command, each named after
/// its flag. [`TreeOptions::new`] sets the command line's defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct TreeOptions {
    /// The output file (`None` or `-`: standard output), replaced only when the run succeeds.
    pub output: Option<PathBuf>,
    /// The format; `None`: the output's extension, else Parquet.
    pub format: Option<Format>,
    /// Plies of each game's main line in the tree (`--max-ply`), from 1 to [`MAX_PLY`].
    pub max_ply: u32,
    /// Rows of fewer games are left out (`--min-games`).
    pub min_games: u64,
    /// Only one side's moves (`--only white|black`).
    pub side: Side,
    /// Only the games this `select` expression matches (`--where`).
    pub where_expr: Option<String>,
    /// Split the rows by speed and rating band, as lichess's explorer does (`--split`).
    pub split: SplitBy,
    /// With a Polyglot book: leave out the moves whose side to move scored less than this
    /// percentage (`--min-score`, 0 to 100).
    pub min_score: f64,
    /// With a Polyglot book: every move kept weighs 1 (`--uniform`).
    pub uniform: bool,
    /// Where the sorted runs go (`--temp-dir`); `None`: the output's folder.
    pub temp_dir: Option<PathBuf>,
    /// Bytes of records kept in memory before a sorted run goes to disk (`--memory-budget`).
    pub memory_budget: u64,
    /// Records kept in memory before a sorted run goes to disk, instead of what
    /// `memory_budget` holds (for tests: a few records make many runs).
    pub run_records: Option<usize>,
    /// No closing summary on standard error.
    pub quiet: bool,
}

impl TreeOptions {
    /// A tree written to `output` (`None`: standard output), every other option at the
    /// command line's default.
    pub fn new(output: Option<PathBuf>) -> TreeOptions {
        TreeOptions {
            output,
            format: None,
            max_ply: DEFAULT_MAX_PLY,
            min_games: 1,
            side: Side::Both,
            where_expr: None,
            split: SplitBy::default(),
            min_score: 0.0,
            uniform: false,
            temp_dir: None,
            memory_budget: 256 << 20,
            run_records: None,
            quiet: false,
        }
    }

    /// The format written: `format`, else the output's extension, else Parquet.
    pub fn resolved_format(&self) -> Format {
        self.format
            .or_else(|| self.output.as_deref().and_then(Format::of_path))
            .unwrap_or_default()
    }
}

/// A tree whose options were checked.
///
/// ```
/// use pgnkit::input::InputOptions;
/// use pgnkit::tree::{Tree, TreeOptions};
///
/// let games = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/tree/three.pgn");
/// let out = std::env::temp_dir().join(format!("pgnkit-tree-doc-{}.csv", std::process::id()));
/// let mut options = TreeOptions::new(Some(out.clone()));
/// options.max_ply = 2;
/// options.quiet = true;
/// let outcome = Tree::new(options)?.run(InputOptions::new(vec![games.into()]))?;
/// assert_eq!(outcome, pgnkit::outcome::Outcome::Clean);
/// let csv = std::fs::read_to_string(&out)?;
/// // 1. e4 in two games of three, both won by White.
/// assert!(csv.contains(",e2e4,e4,2,2,0,0,"), "{csv}");
/// std::fs::remove_file(&out)?;
/// # Ok::<(), anyhow::Error>(())
/// ```
#[derive(Debug)]
pub struct Tree {
    options: TreeOptions,
    format: Format,
    /// The games `--where` selects, and the opening table its `eco` and `opening` test.
    selection: Option<Selection>,
    eco_table: Option<&'static crate::eco::Table>,
}

/// What the work made of one game.
struct GamePlies {
    records: Vec<PlyRecord>,
    errors: u64,
    /// The errors, written out for standard error (a game's plies stop at its first).
    diagnostics: Vec<u8>,
    /// Whether `--where` selected the game (or none was given).
    selected: bool,
}

impl crate::input::Found for GamePlies {
    fn errors(&self) -> u64 {
        self.errors
    }
}

impl Tree {
    /// Checks `options`.
    ///
    /// # Errors
    ///
    /// A maximum ply out of range, a minimum of games of 0, a memory budget too small.
    pub fn new(options: TreeOptions) -> anyhow::Result<Tree> {
        if !(1..=MAX_PLY).contains(&options.max_ply) {
            bail!("--max-ply {} is not from 1 to {MAX_PLY}", options.max_ply);
        }
        if options.min_games == 0 {
            bail!("--min-games 0 would keep rows of no game: give 1 or more");
        }
        if options.memory_budget < MIN_MEMORY_BUDGET {
            bail!(
                "{} bytes is too small a memory budget: give at least 1M",
                options.memory_budget
            );
        }
        if !(0.0..=100.0).contains(&options.min_score) {
            bail!(
                "--min-score {} is not a percentage from 0 to 100",
                options.min_score
            );
        }
        let selection = options
            .where_expr
            .as_deref()
            .map(|src| {
                Selection::parse(src).map_err(|e| anyhow::anyhow!("--where: {}", e.render(src)))
            })
            .transpose()?;
        let eco_table = match &selection {
            Some(selection) => selection.opening_table(None)?,
            None => None,
        };
        let format = options.resolved_format();
        if format != Format::Polyglot && (options.min_score > 0.0 || options.uniform) {
            bail!(
                "--min-score and --uniform make a Polyglot book's entries: write one (-o book.bin \
                 or --format bin), or drop them"
            );
        }
        Ok(Tree {
            options,
            format,
            selection,
            eco_table,
        })
    }

    /// The format the tree is written in.
    pub fn format(&self) -> Format {
        self.format
    }

    /// Reads every game of `input` and writes the tree, replacing the output only once it is
    /// complete. A game with an error adds the plies before it and makes the outcome
    /// [`Outcome::Problems`].
    ///
    /// # Errors
    ///
    /// An output that is an input, or that cannot be written; a temporary file that cannot be
    /// written or read back.
    pub fn run(&self, input: InputOptions) -> anyhow::Result<Outcome> {
        Ok(self.run_counted(input)?.0)
    }

    /// As [`Tree::run`], and the number of games read: what the Spark job adds to the game
    /// numbers of the next split of an input (each split's count from 1) to merge the
    /// partial trees into one run's.
    ///
    /// # Errors
    ///
    /// As [`Tree::run`].
    pub fn run_counted(&self, input: InputOptions) -> anyhow::Result<(Outcome, u64)> {
        let options = &self.options;
        let mut inputs = Inputs::new(input)?;
        staged::refuse_inputs_as_outputs(&[("-o", options.output.as_deref())], inputs.sources())?;
        let mut staged = StagedFiles::new();
        let out_name = staged::display_name(options.output.as_deref());
        let out = staged.open(options.output.as_deref())?;
        let book = BookOptions {
            min_games: options.min_games,
            min_score: options.min_score,
            uniform: options.uniform,
        };
        let written = |e| WriteError::new(out_name.as_str(), e);
        let mut output = TreeOut::new(self.format, out, book).map_err(written)?;

        let temp = temp_parent(options);
        let dir = TempDir::create(&temp, "tree", None).with_context(|| {
            format!(
                "cannot create a temporary folder in {}; give another with --temp-dir",
                temp.display()
            )
        })?;
        // An eighth of the budget sums the hot places in memory, the rest holds the sorter's
        // records.
        let (share, hot_places) = match options.run_records {
            Some(n) => (n.max(1) * std::mem::size_of::<PlyRecord>(), n),
            None => {
                let budget = usize::try_from(options.memory_budget).unwrap_or(usize::MAX);
                (budget - budget / 8, HotRows::capacity_in(budget / 8))
            }
        };
        let space = Space::new(dir.path(), share);
        let mut sorter: Sorter<'_, PlyRecord> = Sorter::new(&space);
        let mut hot = HotRows::new(hot_places);

        let opts = CheckOptions::default();
        let work = |name: &str, game: &mut Game<'_>| self.plies_of(game, name, &opts);
        let mut names: Vec<String> = Vec::new();
        let (mut order, mut plies, mut with_errors, mut selected) = (0u64, 0u64, 0u64, 0u64);
        let temp_error = |e| WriteError::new("the tree's temporary files", e);
        let sink = |name: &str, game: GamePlies| -> Result<(), WriteError> {
            if names.last().is_none_or(|last| last != name) {
                names.push(name.to_owned());
            }
            let file = (names.len() - 1) as u32;
            with_errors += u64::from(game.errors > 0);
            if !game.diagnostics.is_empty() {
                std::io::stderr()
                    .lock()
                    .write_all(&game.diagnostics)
                    .map_err(|e| WriteError::new("to standard error", e))?;
            }
            selected += u64::from(game.selected);
            plies += game.records.len() as u64;
            for mut r in game.records {
                r.order |= order << 16;
                r.file = file;
                if let Some(r) = hot.take(r) {
                    sorter.push(r).map_err(temp_error)?;
                }
            }
            order += 1;
            Ok(())
        };
        inputs.run(work, sink, |p| p.to_stderr())?;
        let games = inputs.totals.games;
        if inputs.totals.broken_pipe {
            return Ok((crate::outcome::found_so_far(), games));
        }

        let back = "cannot read back the tree's temporary files";
        let sorted = sorter.finish().context(back)?;
        let mut records = sorted.iter().context(back)?;
        let mut rows = Rows::new();
        let mut joined = Joined::new(hot.into_sorted());
        let mut put = |row: &rows::Row| output.put(row, &names).map_err(written);
        while let Some(r) = records.next().context(back)? {
            if let Some(row) = rows.push(&r) {
                joined.push(row, &mut put)?;
            }
        }
        if let Some(row) = rows.finish() {
            joined.push(row, &mut put)?;
        }
        joined.finish(&mut put)?;
        let (out, said) = output.finish().map_err(written)?;
        drop(out);
        drop(records);
        drop(sorted);
        drop(dir);
        crate::report::staged::commit_after(staged, &inputs)?;
        inputs.summary(
            options.quiet,
            format_args!(
                "{}{}, {said}{}",
                self.selection
                    .as_ref()
                    .map_or_else(String::new, |_| format!(
                        "{} selected, ",
                        counted(selected, "game", "games")
                    )),
                counted(plies, "ply", "plies"),
                spilled_note(space.spilled())
            ),
        )?;
        Ok((inputs.outcome_with(with_errors > 0), games))
    }
}

fn spilled_note(spilled: u64) -> String {
    if spilled == 0 {
        String::new()
    } else {
        format!(
            " ({spilled} sorted run{} spilled to disk past --memory-budget)",
            if spilled == 1 { "" } else { "s" }
        )
    }
}

/// Where the temporary folder goes: `--temp-dir`, else the output's folder, else the
/// system's.
fn temp_parent(options: &TreeOptions) -> PathBuf {
    if let Some(dir) = &options.temp_dir {
        return dir.clone();
    }
    let Some(output) = options.output.as_deref().filter(|o| !staged::is_stdout(o)) else {
        return std::env::temp_dir();
    };
    let regular = std::fs::metadata(output).map_or(true, |m| m.is_file());
    match output.parent() {
        Some(p) if regular && p.as_os_str().is_empty() => PathBuf::from("."),
        Some(p) if regular => p.to_path_buf(),
        _ => std::env::temp_dir(),
    }
}

impl Tree {
    /// Replays one game (on a worker) and makes the records of its first plies, with what
    /// its tags say; none when `--where` leaves the game out. The expression is tested on
    /// the tags first, and on the replay (the same one) only when it depends on it.
    fn plies_of(&self, game: &mut Game<'_>, name: &str, opts: &CheckOptions) -> GamePlies {
        let options = &self.options;
        let mut observer = PlyObserver::new(options.max_ply, options.side);
        let mut diagnostics = Vec::new();
        let (selected, errors) = match &self.selection {
            Some(selection) => {
                // The positions the expression looks for are watched in the same replay.
                let decided =
                    selection.decide_with(game, name, opts, self.eco_table, &mut observer);
                match decided.report {
                    Some(report) => {
                        write_errors(&mut diagnostics, game, name, &report);
                        (decided.matched, report.count(Severity::Error) as u64)
                    }
                    None => (decided.matched, 0),
                }
            }
            None => {
                let report = game.check(opts, &mut observer);
                write_errors(&mut diagnostics, game, name, &report);
                (true, report.count(Severity::Error) as u64)
            }
        };
        if !selected {
            return GamePlies {
                records: Vec::new(),
                errors,
                diagnostics,
                selected,
            };
        }
        let lexed = &*game.lexed;
        let elo = |name: &str| {
            lexed
                .tag(name)
                .and_then(|e| e.trim().parse::<u16>().ok())
                .unwrap_or(0)
        };
        let (white, black) = (elo("WhiteElo"), elo("BlackElo"));
        let score = Score::of_tag(lexed.tag("Result")) as u8;
        let date = lexed
            .tag("Date")
            .and_then(GameDate::parse)
            .or_else(|| lexed.tag("UTCDate").and_then(GameDate::parse))
            .map_or(0, |d| date_number(&d));
        let split = split_of(options.split, lexed.tag("TimeControl"), white, black);
        let mut records = observer.records;
        for r in &mut records {
            let white_moves = r.position.white_to_move();
            r.score = score;
            (r.mover_elo, r.opponent_elo) = if white_moves {
                (white, black)
            } else {
                (black, white)
            };
            r.date = date;
            r.split = split;
            r.game = u32::try_from(game.number).unwrap_or(u32::MAX);
        }
        GamePlies {
            records,
            errors,
            diagnostics,
            selected,
        }
    }
}

/// The game's errors as `convert` shows a rejected game's, for standard error: the tree
/// keeps the plies before the first, and the user should know which game stopped where.
/// Warnings are left to `validate`.
fn write_errors(out: &mut Vec<u8>, game: &Game<'_>, name: &str, report: &GameReport) {
    if report.count(Severity::Error) == 0 {
        return;
    }
    let ctx = game.context(name);
    let render = RenderOptions::default();
    for f in report
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
    {
        // Writing into a vector cannot fail.
        let _ = report::write_text(out, &ctx, f, &render);
    }
}
