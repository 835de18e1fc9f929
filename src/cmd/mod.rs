//! Subcommands: one file each, its arguments next to its `run`.

pub mod completions;
pub mod convert;
pub mod dedup;
pub mod man;
pub mod rewrite;
pub mod select;

pub mod split;
pub mod stats;
pub mod tables;
pub mod tree;
pub mod validate;
pub mod written;

use std::io::IsTerminal;
use std::path::PathBuf;

use anyhow::bail;

use crate::input::InputOptions;

/// The largest `--max-game-size`, in MiB: spans within a game are `u32` byte offsets, and
/// 4095 MiB leaves the reader room past the limit before an offset could reach 4 GiB.
pub const MAX_GAME_MIB: u64 = 4095;

/// The most worker threads `--jobs` takes ([`crate::input::MAX_JOBS`]).
pub const MAX_JOBS: u64 = crate::input::MAX_JOBS as u64;

/// The input options every command shares (`#[command(flatten)]`): what to read and how.
#[derive(Debug, clap::Args)]
pub struct InputArgs {
    /// PGN files or directories (searched recursively for *.pgn, also compressed: .pgn.gz,
    /// .bz2, .zst, .xz); `-` reads standard input, as does no file with standard input not a
    /// terminal. Compression is recognised by content, not by name.
    pub files: Vec<PathBuf>,

    /// File name endings a directory walk takes, without the dot (default: pgn). Repeat it or
    /// separate with commas: `--ext pgn,txt`. Files named on the command line are always read.
    #[arg(long, value_name = "EXT", value_delimiter = ',')]
    pub ext: Vec<String>,

    /// Read the input in this encoding (utf-8, windows-1252, latin1, gbk, gb18030, big5,
    /// utf-16le, utf-16be) instead of detecting it per file.
    #[arg(long, value_name = "NAME")]
    pub encoding: Option<String>,

    /// Skip (and report) games larger than this many MiB (1 to 4095).
    // A game's byte offsets are `u32`: the upper bound keeps every offset in a game from
    // wrapping. 0 would make every game too large (and each tag line a game of its own).
    #[arg(
        long,
        value_name = "MIB",
        default_value_t = crate::input::DEFAULT_MAX_GAME_MIB,
        value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=MAX_GAME_MIB)
    )]
    pub max_game_size: usize,

    /// Worker threads, 1 to 1024 (default: the number of cores). The output is the same for
    /// any number.
    #[arg(
        long,
        short = 'j',
        value_name = "N",
        value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=MAX_JOBS)
    )]
    pub jobs: Option<usize>,

    /// Do not print the closing summary or the progress bar.
    #[arg(long, short)]
    pub quiet: bool,

    /// Parquet input: the column holding the movetext (default: movetext, as lichess's).
    #[arg(long, value_name = "NAME")]
    pub movetext_column: Option<String>,

    /// Parquet input: read tag TAG from column COLUMN (repeat it). Columns named as tags are
    /// (`WhiteElo`, `UTCDate`) are read as those tags anyway.
    #[arg(long, value_name = "TAG=COLUMN", value_parser = crate::input::parquet::Columns::parse_tag_column)]
    pub tag_column: Vec<(String, String)>,

    /// Read only the games whose first byte falls in this byte range of each uncompressed
    /// PGN file (START included, END not), as a cluster's task reads its split: the ranges of
    /// any cut points together read every game once. Lines count from the range's first game.
    #[arg(long, value_name = "START:END")]
    pub range: Option<crate::input::range::ByteRange>,

    /// Read only these row groups of each Parquet file (START included, END not, from 0), as
    /// a cluster's task reads its split of a Parquet dataset; rows keep their numbers in the
    /// file. PGN inputs are refused with this option (P035).
    #[arg(long, value_name = "START:END")]
    pub row_groups: Option<crate::input::parquet::RowGroups>,
}

impl InputArgs {
    /// The options resolved.
    ///
    /// # Errors
    ///
    /// An unknown encoding, or no file given with standard input a terminal (pgnkit would
    /// wait for games typed in).
    pub fn resolve(&self) -> anyhow::Result<InputOptions> {
        if self.files.is_empty() && std::io::stdin().is_terminal() {
            bail!("no input: give PGN files or directories, or `-` to read standard input");
        }
        let encoding =
            crate::input::forced_encoding(self.encoding.as_deref()).map_err(anyhow::Error::msg)?;
        let mut opts = InputOptions::new(self.files.clone());
        let extensions: Vec<String> = self
            .ext
            .iter()
            .map(|e| e.trim().trim_start_matches('.').to_ascii_lowercase())
            .filter(|e| !e.is_empty())
            .collect();
        if !extensions.is_empty() {
            opts.extensions = extensions;
        }
        opts.encoding = encoding;
        opts.jobs = crate::input::jobs(self.jobs);
        opts.max_game = self.max_game_size.saturating_mul(1 << 20);
        opts.progress = !self.quiet;
        opts.parquet = crate::input::parquet::Columns {
            movetext: self.movetext_column.clone(),
            tags: self.tag_column.clone(),
        };
        opts.range = self.range;
        opts.row_groups = self.row_groups;
        Ok(opts)
    }
}
