//! `pgnkit.read_tree`: the opening tree of `pgnkit tree`, built by the library's engine
//! ([`Tree`]) from keyword arguments and written as Parquet to a file the Python wrapper reads
//! into a table; and what the Spark job's `tree` calls: one split's partial tree
//! ([`tree_partial`]) and the partials merged by `pgnkit tree merge`'s engine
//! ([`tree_merge`], [`TreeMerge`]).

use std::path::PathBuf;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use pgnkit::outcome::Outcome;
use pgnkit::stats::Renumber;
use pgnkit::tree::merge::{MergeOptions, TreeMerge};
use pgnkit::tree::split::SplitBy;
use pgnkit::tree::{Format, Side, Tree, TreeOptions};

use crate::{failed, input_options};

/// The engine of `pgnkit tree --quiet -o out` with `--max-ply`, `--min-games`, `--only`,
/// `--where` and `--split` given as keywords (`split`: a list of `"speed"` and `"rating"`),
/// written as Parquet.
fn tree_engine(
    out: PathBuf,
    max_ply: u32,
    min_games: u64,
    only: Option<&str>,
    r#where: Option<String>,
    split: Option<Vec<String>>,
) -> PyResult<Tree> {
    let mut options = TreeOptions::new(Some(out));
    options.format = Some(Format::Parquet);
    options.max_ply = max_ply;
    options.min_games = min_games;
    options.side = match only {
        None => Side::Both,
        Some("white") => Side::White,
        Some("black") => Side::Black,
        Some(other) => {
            return Err(PyValueError::new_err(format!(
                "only={other:?}: give \"white\", \"black\" or None"
            )))
        }
    };
    options.where_expr = r#where;
    let mut by = SplitBy::default();
    for s in split.iter().flatten() {
        match s.as_str() {
            "speed" => by.speed = true,
            "rating" => by.rating = true,
            other => {
                return Err(PyValueError::new_err(format!(
                    "split: {other:?} is neither \"speed\" nor \"rating\""
                )))
            }
        }
    }
    options.split = by;
    options.quiet = true;
    Tree::new(options).map_err(|e| PyValueError::new_err(format!("{e:#}")))
}

/// Builds the tree of the games of `paths` into the Parquet file `out`, as `pgnkit tree
/// --quiet -o out` does with `--max-ply`, `--min-games`, `--only`, `--where` and `--split`
/// given as keywords (`split`: a list of `"speed"` and `"rating"`); the input keywords are
/// those of the other reading functions. Returns the exit status `pgnkit tree` would have.
#[pyfunction]
#[pyo3(signature = (
    paths, out, *, max_ply=30, min_games=1, only=None, r#where=None, split=None, threads=None,
    encoding=None, ext=None, range=None, row_groups=None
))]
#[allow(clippy::too_many_arguments)]
pub fn tree_parquet(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    out: PathBuf,
    max_ply: u32,
    min_games: u64,
    only: Option<&str>,
    r#where: Option<String>,
    split: Option<Vec<String>>,
    threads: Option<usize>,
    encoding: Option<&str>,
    ext: Option<Vec<String>>,
    range: Option<(u64, u64)>,
    row_groups: Option<(usize, usize)>,
) -> PyResult<u8> {
    let tree = tree_engine(out, max_ply, min_games, only, r#where, split)?;
    let input = input_options(paths, threads, encoding, ext, range, row_groups)?;
    let outcome = py.detach(|| tree.run(input)).map_err(failed)?;
    Ok(outcome as u8)
}

/// One split's partial tree (`path`, only its byte `range=(start, end)` of a PGN file or its
/// `row_groups=(start, end)` of a Parquet file if given, read in one thread), as `pgnkit tree
/// --min-games 1` writes it in Parquet: `(bytes, games, status)`, the file's bytes, the games
/// read (each split numbers its games from 1: the driver's merge adds the earlier splits')
/// and the exit status `pgnkit tree` would have. `max_ply`, `only`, `where` and `split` as
/// [`tree_parquet`] takes them; there is no `min_games`: a row left out of a part could not be
/// added back, so the merge takes it.
///
/// # Errors
///
/// A bad keyword (ValueError), or an input that cannot be read (OSError): a task must not
/// pass for done without its games.
#[pyfunction]
#[pyo3(signature = (
    path, *, range=None, row_groups=None, max_ply=30, only=None, r#where=None, split=None
))]
#[allow(clippy::too_many_arguments)]
pub fn tree_partial<'py>(
    py: Python<'py>,
    path: PathBuf,
    range: Option<(u64, u64)>,
    row_groups: Option<(usize, usize)>,
    max_ply: u32,
    only: Option<&str>,
    r#where: Option<String>,
    split: Option<Vec<String>>,
) -> PyResult<(Bound<'py, PyBytes>, u64, u8)> {
    let partial = crate::spark::scratch_path("tree.parquet");
    let tree = tree_engine(partial.clone(), max_ply, 1, only, r#where, split)?;
    let input = input_options(vec![path], Some(1), None, None, range, row_groups)?;
    let built = py.detach(|| {
        let (outcome, games) = tree.run_counted(input)?;
        if outcome == Outcome::Failed {
            anyhow::bail!("an input of the split could not be read (see standard error)");
        }
        Ok((std::fs::read(&partial)?, games, outcome as u8))
    });
    let _ = std::fs::remove_file(&partial);
    let (bytes, games, status) = built.map_err(failed)?;
    Ok((PyBytes::new(py, &bytes), games, status))
}

/// Merges the partial trees `parts` (files, in the order of their games) into `out` with
/// `pgnkit tree merge`'s engine, the format from `out`'s extension (a Polyglot book for
/// `.bin`) unless `format` (`"parquet"`, `"csv"`, `"jsonl"`, `"bin"`) says it, with
/// `--min-games`, `--min-score` and `--uniform` as keywords. `renumber`, when given, has one
/// entry a part: `None`, or `(local, display, games_before)` for a split of a larger input:
/// its example games' file, named `local` (and `@START` for a byte range) in the part, is
/// named `display`, and their numbers come after the `games_before` games of the input's
/// earlier splits. `inputs`, the display names of the inputs in the order one run reads them,
/// orders a book's moves of one weight by their first games however the parts were grouped
/// into earlier merges. Prints the merge's summary on standard error unless `quiet`.
///
/// # Errors
///
/// A bad keyword (ValueError); a part that cannot be read or is not a tree, an output that
/// cannot be written (OSError).
#[pyfunction]
#[pyo3(signature = (
    parts, out, *, renumber=None, inputs=None, format=None, min_games=1, min_score=0.0,
    uniform=false, quiet=true
))]
#[allow(clippy::too_many_arguments)]
pub fn tree_merge(
    py: Python<'_>,
    parts: Vec<PathBuf>,
    out: PathBuf,
    renumber: Option<Vec<Option<(String, String, u64)>>>,
    inputs: Option<Vec<String>>,
    format: Option<&str>,
    min_games: u64,
    min_score: f64,
    uniform: bool,
    quiet: bool,
) -> PyResult<u8> {
    let mut options = MergeOptions::new(parts, Some(out));
    options.format = match format {
        None => None,
        Some("parquet") => Some(Format::Parquet),
        Some("csv") => Some(Format::Csv),
        Some("jsonl") => Some(Format::Jsonl),
        Some("bin") => Some(Format::Polyglot),
        Some(other) => {
            return Err(PyValueError::new_err(format!(
                "format={other:?}: give \"parquet\", \"csv\", \"jsonl\", \"bin\" or None"
            )))
        }
    };
    options.min_games = min_games;
    options.min_score = min_score;
    options.uniform = uniform;
    options.quiet = quiet;
    options.inputs = inputs.unwrap_or_default();
    options.renumber = renumber
        .into_iter()
        .flatten()
        .map(|r| {
            r.map(|(local, display, games_before)| Renumber {
                local,
                display,
                games_before,
                lines_before: 0,
                first_split: false,
            })
        })
        .collect();
    let merge = TreeMerge::new(options).map_err(|e| PyValueError::new_err(format!("{e:#}")))?;
    let outcome = py.detach(|| merge.run()).map_err(failed)?;
    Ok(outcome as u8)
}

/// Adds this file's functions to the module (one line in `lib.rs`).
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(tree_parquet, m)?)?;
    m.add_function(wrap_pyfunction!(tree_partial, m)?)?;
    m.add_function(wrap_pyfunction!(tree_merge, m)?)?;
    Ok(())
}
