//! `pgnkit tree merge`: partial trees (built from parts of a database, in any table format)
//! merged into the tree of all their games, as one run over all of them gives it. Each part
//! is sorted as every tree is, so the merge reads them side by side, a row of each at a time:
//! memory stays flat however large the parts.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context};
use shakmaty::uci::UciMove;

use super::lookup::position_of;
use super::polyglot::BookOptions;
use super::read::{format_of, TreeRows};
use super::record::{date_number, polyglot_move, Packed};
use super::rows::{Place, Row, RowOut};
use super::write::{counted, TreeOut};
use super::Format;
use crate::outcome::{say, Outcome, WriteError};
use crate::pgn::date::GameDate;
use crate::report::staged::{self, StagedFiles};
use crate::stats::Renumber;

/// What `pgnkit tree merge` reads and writes, each named after its flag.
#[derive(Clone, Debug, PartialEq)]
pub struct MergeOptions {
    /// The partial trees, in the order of their games (the first part's example game of a
    /// row is kept).
    pub parts: Vec<PathBuf>,
    /// The output file (`None` or `-`: standard output).
    pub output: Option<PathBuf>,
    /// The format; `None`: the output's extension, else Parquet.
    pub format: Option<Format>,
    /// Rows of fewer games (all parts together) are left out.
    pub min_games: u64,
    /// With a book: as [`super::TreeOptions::min_score`].
    pub min_score: f64,
    /// With a book: as [`super::TreeOptions::uniform`].
    pub uniform: bool,
    /// No closing summary.
    pub quiet: bool,
    /// How the parts' example games are named and numbered when the parts are splits of
    /// larger inputs (the Spark job's byte ranges and row groups, whose games count from 1):
    /// empty, or one a part (`None`: as the part names them).
    pub renumber: Vec<Option<Renumber>>,
    /// The inputs of the parts' games, in the order one run reads them, when the parts are
    /// splits of them (the Spark job's): a book's moves of one weight are then ordered by
    /// their first games (input, then game number) however the parts were grouped into
    /// earlier merges. Empty: by part, then game number.
    pub inputs: Vec<String>,
}

impl MergeOptions {
    /// Merges `parts` into `output`, every other option at the command line's default.
    pub fn new(parts: Vec<PathBuf>, output: Option<PathBuf>) -> MergeOptions {
        MergeOptions {
            parts,
            output,
            format: None,
            min_games: 1,
            min_score: 0.0,
            uniform: false,
            quiet: false,
            renumber: Vec::new(),
            inputs: Vec::new(),
        }
    }
}

/// A merge whose options were checked.
///
/// ```
/// use pgnkit::input::InputOptions;
/// use pgnkit::tree::merge::{MergeOptions, TreeMerge};
/// use pgnkit::tree::{Tree, TreeOptions};
///
/// let dir = std::env::temp_dir().join(format!("pgnkit-tree-merge-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let testdata = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/tree");
/// let mut parts = Vec::new();
/// for name in ["three", "positions"] {
///     let part = dir.join(format!("{name}.csv"));
///     let mut options = TreeOptions::new(Some(part.clone()));
///     options.quiet = true;
///     let games = InputOptions::new(vec![format!("{testdata}/{name}.pgn").into()]);
///     Tree::new(options)?.run(games)?;
///     parts.push(part);
/// }
/// let mut options = MergeOptions::new(parts, Some(dir.join("all.csv")));
/// options.quiet = true;
/// TreeMerge::new(options)?.run()?;
/// let all = std::fs::read_to_string(dir.join("all.csv"))?;
/// // 1. e4: twice in three.pgn, once in positions.pgn.
/// assert!(all.contains(",e2e4,e4,3,"), "{all}");
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), anyhow::Error>(())
/// ```
#[derive(Debug)]
pub struct TreeMerge {
    options: MergeOptions,
    format: Format,
}

impl TreeMerge {
    /// Checks `options`.
    ///
    /// # Errors
    ///
    /// No part, a minimum of games of 0, book options without a book, renumberings that are
    /// not one a part.
    pub fn new(options: MergeOptions) -> anyhow::Result<TreeMerge> {
        if options.parts.is_empty() {
            bail!("nothing to merge: give the partial trees");
        }
        if !options.renumber.is_empty() && options.renumber.len() != options.parts.len() {
            bail!(
                "{} renumberings for {} parts: give one a part, or none",
                options.renumber.len(),
                options.parts.len()
            );
        }
        let tree = super::TreeOptions {
            format: options.format,
            min_games: options.min_games,
            min_score: options.min_score,
            uniform: options.uniform,
            ..super::TreeOptions::new(options.output.clone())
        };
        // The same checks as a run's.
        let format = super::Tree::new(tree)?.format();
        Ok(TreeMerge { options, format })
    }

    /// Merges the parts into the output, replacing it only once it is complete.
    ///
    /// # Errors
    ///
    /// A part that cannot be read, is not a tree, or is not sorted as a tree is; an output
    /// that is a part, or that cannot be written.
    pub fn run(&self) -> anyhow::Result<Outcome> {
        let options = &self.options;
        let started = Instant::now();
        let output = options.output.as_deref().filter(|o| !staged::is_stdout(o));
        if let Some(out) = output {
            for part in &options.parts {
                if same_file(part, out) {
                    bail!(
                        "-o {} is one of the parts: write the merge elsewhere",
                        out.display()
                    );
                }
            }
        }
        let mut parts = Vec::with_capacity(options.parts.len());
        for (index, path) in options.parts.iter().enumerate() {
            let format = format_of(path)?;
            parts.push(Part {
                rows: TreeRows::open(path, format)?,
                index,
                renumber: options.renumber.get(index).cloned().flatten(),
                last: None,
            });
        }
        let ranks: HashMap<&str, u64> = (options.inputs.iter())
            .enumerate()
            .map(|(i, name)| (name.as_str(), i as u64))
            .collect();
        let mut staged = StagedFiles::new();
        let out_name = staged::display_name(options.output.as_deref());
        let written = |e| WriteError::new(out_name.as_str(), e);
        let out = staged.open(options.output.as_deref())?;
        let book = BookOptions {
            min_games: options.min_games,
            min_score: options.min_score,
            uniform: options.uniform,
        };
        let mut output = TreeOut::new(self.format, out, book).map_err(written)?;

        let mut names = Names::default();
        // The next row of each part, smallest first; of equal rows, the earlier part's.
        let mut heap = BinaryHeap::new();
        for (i, part) in parts.iter_mut().enumerate() {
            if let Some(row) = part.next(&mut names, &ranks)? {
                heap.push(Reverse(Head(row, i)));
            }
        }
        let mut current: Option<Row> = None;
        let mut read = 0u64;
        while let Some(Reverse(Head(row, i))) = heap.pop() {
            read += 1;
            if let Some(after) = parts[i].next(&mut names, &ranks)? {
                heap.push(Reverse(Head(after, i)));
            }
            match &mut current {
                Some(c) if c.place() == row.place() => c.add(&row),
                _ => {
                    if let Some(done) = current.replace(row) {
                        output.put(&done, &names.list).map_err(written)?;
                    }
                }
            }
        }
        if let Some(done) = current {
            output.put(&done, &names.list).map_err(written)?;
        }
        let (out, said) = output.finish().map_err(written)?;
        drop(out);
        staged.commit()?;
        if !options.quiet {
            say(format_args!(
                "pgnkit: {}, {read} rows read: {said} in {:.2} s",
                counted(parts.len() as u64, "part", "parts"),
                started.elapsed().as_secs_f64()
            ))?;
        }
        Ok(Outcome::Clean)
    }
}

/// A part's next row, with the part's index: ordered as the tree's rows are, then by part.
struct Head(Row, usize);

impl Head {
    fn place(&self) -> (Place, usize) {
        (self.0.place(), self.1)
    }
}

impl PartialEq for Head {
    fn eq(&self, other: &Head) -> bool {
        self.place() == other.place()
    }
}

impl Eq for Head {}

impl PartialOrd for Head {
    fn partial_cmp(&self, other: &Head) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Head {
    fn cmp(&self, other: &Head) -> std::cmp::Ordering {
        self.place().cmp(&other.place())
    }
}

/// The names of the example games' files, each kept once.
#[derive(Default)]
struct Names {
    list: Vec<String>,
    index: HashMap<String, u32>,
}

impl Names {
    fn of(&mut self, name: String) -> u32 {
        if let Some(&i) = self.index.get(&name) {
            return i;
        }
        let i = self.list.len() as u32;
        self.list.push(name.clone());
        self.index.insert(name, i);
        i
    }
}

/// One part as the merge reads it.
struct Part {
    rows: TreeRows,
    /// Its place among the parts.
    index: usize,
    renumber: Option<Renumber>,
    /// The place of the row read last.
    last: Option<Place>,
}

impl Part {
    /// The next row as the tree's rows are summed, checked to come in a tree's order, its
    /// example game renamed and renumbered by `renumber`; `ranks` are the places of the
    /// inputs in [`MergeOptions::inputs`].
    fn next(
        &mut self,
        names: &mut Names,
        ranks: &HashMap<&str, u64>,
    ) -> anyhow::Result<Option<Row>> {
        let Some(mut out) = self.rows.next_row()? else {
            return Ok(None);
        };
        let name = self.rows.name();
        if let Some(r) = &self.renumber {
            out.example_file = r.file_name(&out.example_file).0;
            out.example_game = out
                .example_game
                .checked_add(r.games_before)
                .with_context(|| format!("{name}: a game number too large"))?;
        }
        // What orders a book's moves of one weight: a part's games come after the earlier
        // parts', and in a part the example is the row's first game (game numbers are those
        // of its input, so this is its order when the part is of one input).
        let first = match ranks.get(out.example_file.as_str()) {
            Some(&rank) => rank,
            None => (ranks.len() + self.index) as u64,
        };
        let row = row_of(out, first, names).with_context(|| format!("{name}: a row"))?;
        let place = row.place();
        if self.last.is_some_and(|l| l >= place) {
            bail!(
                "{name}: the rows are not in a tree's order (by key, move and split): not a \
                 tree written by pgnkit tree"
            );
        }
        self.last = Some(place);
        Ok(Some(row))
    }
}

/// A written row back as the tree sums it: the position and move from its EPD and UCI, the
/// sums of ratings from the averages and counts (exact: an average times its count is within
/// a rounding of the whole sum), the dates as numbers.
/// `first` orders the row's first game among the parts' (see [`Part::next`]).
fn row_of(out: RowOut, first: u64, names: &mut Names) -> anyhow::Result<Row> {
    let key = u64::from_str_radix(&out.key, 16).with_context(|| format!("key {:?}", out.key))?;
    let pos = position_of(&out.epd)?;
    let uci: UciMove = out
        .uci
        .parse()
        .map_err(|_| anyhow::anyhow!("uci {:?} is not a move", out.uci))?;
    let mv = uci
        .to_move(&pos)
        .map_err(|_| anyhow::anyhow!("{} is not legal in {}", out.uci, out.epd))?;
    let sum = |average: Option<f64>, n: u64| average.map_or(0, |a| (a * n as f64).round() as u64);
    let date = |d: Option<&str>| d.and_then(GameDate::parse).map_or(0, |d| date_number(&d));
    if out.white_wins + out.draws + out.black_wins > out.games {
        bail!("more results than games");
    }
    Ok(Row {
        key,
        position: Packed::of(&pos),
        mv: polyglot_move(&mv),
        split: super::split::from_columns(out.speed.as_deref(), out.rating_band)?,
        games: out.games,
        white_wins: out.white_wins,
        draws: out.draws,
        black_wins: out.black_wins,
        mover_rated: out.mover_rated,
        mover_elo_sum: sum(out.mover_elo, out.mover_rated),
        opponent_rated: out.opponent_rated,
        opponent_elo_sum: sum(out.opponent_elo, out.opponent_rated),
        first_date: date(out.first_date.as_deref()),
        last_date: date(out.last_date.as_deref()),
        example_file: names.of(out.example_file),
        example_game: out.example_game,
        first_order: first << 48 | out.example_game.min((1 << 48) - 1),
    })
}

/// Whether `a` and `b` name the same existing file.
fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}
