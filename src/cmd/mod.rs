//! Subcommands: one file each, its arguments next to its `run`.

pub mod completions;
pub mod convert;
pub mod man;
pub mod stats;
pub mod validate;

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

use anyhow::{bail, Context};

use crate::input::open::Source;
use crate::input::pipeline::Game;
use crate::rules::game::{
    check_game_general_with, check_game_lazy_with, check_game_open_with, CheckOptions, GameReport,
    MoveObserver,
};

/// Checks a game of the pipeline (lexed to its tags), telling `observer` its moves. A game
/// whose end is not known yet ([`Game::open`]) is replayed by the fast path, which finds the
/// end: `game.bytes` is then cut to the game. `None` when it cannot (the pipeline gives the
/// game again, found the usual way, and it then goes straight to the general path).
/// Public for `benches/replay.rs`, which times this path.
pub fn check_pipeline_game(
    game: &mut Game<'_>,
    opts: &CheckOptions,
    observer: &mut dyn MoveObserver,
) -> Option<GameReport> {
    Some(match game.open {
        Some(eof) => {
            let (report, len) = check_game_open_with(game.bytes, eof, game.lexed, opts, observer)?;
            game.bytes = &game.bytes[..len];
            game.open = None;
            report
        }
        // Seen open before: the fast path gave up on it then.
        None if game.again => check_game_general_with(game.bytes, game.lexed, opts, observer),
        None => {
            crate::pgn::book::extract_header(game.bytes, game.lexed);
            check_game_lazy_with(game.bytes, game.lexed, opts, observer)
        }
    })
}

/// Refuses an output file that is also one of the inputs (the same file, by whatever path):
/// opening it for writing would empty it before its games are read, and `--rejects` would
/// read back what it writes. `outputs` pairs each output's option with its path. An output
/// that does not exist yet, or is not a regular file (`/dev/null`, a pipe), is no input.
///
/// # Errors
///
/// When an output is an input; the message names both.
pub(crate) fn refuse_inputs_as_outputs(
    outputs: &[(&str, Option<&Path>)],
    sources: &[Source],
) -> anyhow::Result<()> {
    for &(option, path) in outputs {
        let Some(path) = path else { continue };
        if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
            continue;
        }
        let Some(output) = file_id(path) else {
            continue;
        };
        for source in sources {
            if let Source::File(input) = source {
                if file_id(input).is_some_and(|id| id == output) {
                    bail!(
                        "{option} {} is also an input ({}): writing it would destroy its games \
                         before they are read; write to another file",
                        path.display(),
                        input.display()
                    );
                }
            }
        }
    }
    Ok(())
}

/// What identifies a file whatever path names it (hard and symbolic links included): its
/// device and inode.
#[cfg(unix)]
fn file_id(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// What identifies a file whatever path names it: its canonical path.
#[cfg(not(unix))]
fn file_id(path: &Path) -> Option<std::path::PathBuf> {
    std::fs::canonicalize(path).ok()
}

/// Opens the `--rejects` file, when one was asked for.
///
/// # Errors
///
/// When the file cannot be created; the message names it.
pub(crate) fn rejects_file(path: Option<&Path>) -> anyhow::Result<Option<BufWriter<File>>> {
    path.map(|path| {
        File::create(path)
            .map(BufWriter::new)
            .with_context(|| format!("cannot create {}", path.display()))
    })
    .transpose()
}
