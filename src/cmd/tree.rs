//! `pgnkit tree`: the opening tree of the games (one row a position and move, with its
//! games, results, ratings and dates) as Parquet, CSV or JSON lines, or a Polyglot book;
//! `--fen`, a position looked up in a tree file; and `pgnkit tree merge`, partial trees into
//! one. The arguments become [`TreeOptions`] or [`MergeOptions`]; the engines are
//! [`crate::tree::Tree`] and [`crate::tree::merge::TreeMerge`].

use std::path::PathBuf;

use clap::ValueEnum;

use crate::dedup::parse_size;
use crate::outcome::Outcome;
use crate::tree::lookup::lookup;
use crate::tree::merge::{MergeOptions, TreeMerge};
use crate::tree::split::SplitBy;
use crate::tree::{Format, Side, Tree, TreeOptions, DEFAULT_MAX_PLY, MAX_PLY};

/// Build an opening tree: for each position of the games' first plies, the moves played from
/// it, how often, how they scored, at what rating.
///
/// One row a (position, move): its Polyglot key and EPD, the move in UCI and SAN, games,
/// White wins, draws, Black wins, average ratings, first and last date and an example game.
/// The format follows -o's extension (.parquet, .csv, .jsonl; .bin: a Polyglot opening book
/// as polyglot make-book makes it) or --format; Parquet by default. --fen FEN FILE looks up a
/// position in a tree file; `pgnkit tree merge` merges partial trees. See docs/tree.md. Exit
/// status: 0 clean, 1 some game had an error (its plies before it are counted), 2 pgnkit
/// failed.
#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct Args {
    #[command(subcommand)]
    pub merge: Option<Sub>,

    #[command(flatten)]
    pub input: super::InputArgs,

    #[command(flatten)]
    pub output: OutputArgs,

    /// Plies of each game's main line in the tree (1 to 1000).
    #[arg(
        long,
        value_name = "N",
        default_value_t = DEFAULT_MAX_PLY,
        value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_PLY))
    )]
    pub max_ply: u32,

    /// Keep only White's or only Black's moves.
    #[arg(long, value_enum, value_name = "SIDE")]
    pub only: Option<SideArg>,

    /// Only the games this expression selects, in `pgnkit select`'s language (ratings,
    /// dates, events, players, time controls...): `--where 'WhiteElo >= 2000 and Date >=
    /// "2024"'`.
    #[arg(long = "where", short = 'w', value_name = "EXPR")]
    pub expr: Option<String>,

    /// Split each row by the games' speed (lichess's ultraBullet to correspondence, from the
    /// TimeControl tag), rating band (of the players' average rating), or both: `speed`,
    /// `rating` or `speed,rating`.
    #[arg(long, value_enum, value_name = "BY", value_delimiter = ',')]
    pub split: Vec<SplitArg>,

    /// Print the moves of this position (a FEN or EPD) in the tree file given, instead of
    /// building a tree: `pgnkit tree --fen FEN tree.parquet`.
    #[arg(long, value_name = "FEN")]
    pub fen: Option<String>,

    /// Where the sorted runs go past --memory-budget: by default the output's folder.
    #[arg(long, value_name = "DIR")]
    pub temp_dir: Option<PathBuf>,

    /// Memory for the plies before a sorted run goes to the temporary folder: a size in bytes
    /// with K, M, G or T (powers of 1024), as in 512M; at least 1M.
    #[arg(long, value_name = "SIZE", default_value = "256M", value_parser = parse_size)]
    pub memory_budget: u64,

    /// Plies kept in memory before a sorted run goes to disk (for tests).
    #[arg(long, value_name = "PLIES", hide = true)]
    pub run_records: Option<usize>,
}

#[derive(Debug, clap::Subcommand)]
pub enum Sub {
    /// Merge partial trees (of parts of the games, any table format) into the tree of all
    /// their games, as one run over all of them writes it.
    Merge(MergeArgs),
}

#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// The partial trees, in the order of their games (a row's example game is the first
    /// part's).
    #[arg(required = true)]
    pub parts: Vec<PathBuf>,

    #[command(flatten)]
    pub output: OutputArgs,

    /// Do not print the closing summary.
    #[arg(long, short)]
    pub quiet: bool,
}

/// What is written and how; shared by `tree` and `tree merge`.
#[derive(Debug, clap::Args)]
pub struct OutputArgs {
    /// Write the tree to this file (`-`: standard output); replaced only when the run
    /// succeeds.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// The format, instead of the one -o's extension names (default: parquet).
    #[arg(long, value_enum)]
    pub format: Option<FormatArg>,

    /// Leave out the rows of fewer games than this.
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub min_games: u64,

    /// With a Polyglot book (-o book.bin): leave out the moves whose side to move scored
    /// less than this percentage (polyglot make-book's -min-score).
    #[arg(long, value_name = "PERCENT", default_value_t = 0.0)]
    pub min_score: f64,

    /// With a Polyglot book: every move kept weighs 1 (make-book's -uniform).
    #[arg(long)]
    pub uniform: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    Parquet,
    Csv,
    Jsonl,
    /// A Polyglot opening book.
    Bin,
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Format {
        match f {
            FormatArg::Parquet => Format::Parquet,
            FormatArg::Csv => Format::Csv,
            FormatArg::Jsonl => Format::Jsonl,
            FormatArg::Bin => Format::Polyglot,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SplitArg {
    Speed,
    Rating,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SideArg {
    White,
    Black,
}

/// Runs `pgnkit tree` (or `tree merge`, or a lookup with `--fen`).
///
/// # Errors
///
/// Options that do not fit, an input or a tree file that cannot be read, an output or a
/// temporary file that cannot be written.
pub fn run(args: Args) -> anyhow::Result<Outcome> {
    if let Some(Sub::Merge(merge)) = args.merge {
        let mut options = MergeOptions::new(merge.parts, merge.output.output);
        options.format = merge.output.format.map(Format::from);
        options.min_games = merge.output.min_games;
        options.min_score = merge.output.min_score;
        options.uniform = merge.output.uniform;
        options.quiet = merge.quiet;
        return TreeMerge::new(options)?.run();
    }
    if let Some(fen) = &args.fen {
        let [file] = &args.input.files[..] else {
            anyhow::bail!("--fen looks up a position in one tree file: give one file");
        };
        let mut out = std::io::stdout().lock();
        let format = args.output.format.map(Format::from);
        let found = lookup(file, format, fen, &mut out)?;
        return Ok(if found {
            Outcome::Clean
        } else {
            Outcome::Problems
        });
    }
    let input = args.input.resolve()?;
    let mut options = TreeOptions::new(args.output.output);
    options.format = args.output.format.map(Format::from);
    options.max_ply = args.max_ply;
    options.min_games = args.output.min_games;
    options.side = match args.only {
        None => Side::Both,
        Some(SideArg::White) => Side::White,
        Some(SideArg::Black) => Side::Black,
    };
    options.where_expr = args.expr;
    options.split = SplitBy {
        speed: args.split.contains(&SplitArg::Speed),
        rating: args.split.contains(&SplitArg::Rating),
    };
    options.min_score = args.output.min_score;
    options.uniform = args.output.uniform;
    options.temp_dir = args.temp_dir;
    options.memory_budget = args.memory_budget;
    options.run_records = args.run_records;
    options.quiet = args.input.quiet;
    Tree::new(options)?.run(input)
}
