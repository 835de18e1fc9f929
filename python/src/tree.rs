//! `pgnkit.read_tree`: the opening tree of `pgnkit tree`, built by the library's engine
//! ([`Tree`]) from keyword arguments and written as Parquet to a file the Python wrapper reads
//! into a table.

use std::path::PathBuf;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use pgnkit::tree::split::SplitBy;
use pgnkit::tree::{Format, Side, Tree, TreeOptions};

use crate::{failed, input_options};

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
    let tree = Tree::new(options).map_err(|e| PyValueError::new_err(format!("{e:#}")))?;
    let input = input_options(paths, threads, encoding, ext, range, row_groups)?;
    let outcome = py.detach(|| tree.run(input)).map_err(failed)?;
    Ok(outcome as u8)
}
