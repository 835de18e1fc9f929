//! `pgnkit select`: writes the games that match an expression (`--where`), byte for byte as
//! read, or through convert's writer with `--to`/`--format`.

use std::path::PathBuf;

use clap::ValueEnum;

use crate::convert::{Format, ToNotation};
use crate::outcome::Outcome;
use crate::select::criteria::MatchRanges;
use crate::select::expr::FIELDS;
use crate::select::{Select, SelectOptions};

/// Select games by an expression: players, ratings, dates, events, results, how the game
/// ended, positions reached.
///
/// Writes the matching games byte for byte as read (or converted, with --to or --format).
/// Example: pgnkit select --where 'WhiteElo >= 2500 and termination = checkmate' games.pgn.
/// The language is in docs/select.md. Exit status: 0 some game selected, 1 none, 2 pgnkit
/// failed (a wrong expression, an unreadable file).
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub input: super::InputArgs,

    /// The games to select, as an expression: `Result = "1-0" and player = "Carlsen*"`.
    #[arg(long = "where", short = 'w', value_name = "EXPR", long_help = where_help(),
          required_unless_present_any = ["where_file", "tag_file", "fen_pattern", "materialy",
              "materialz", "selectonly", "skipmatching"])]
    pub expr: Option<String>,

    /// Expressions in a file, one a line (`#` starts a comment): a game matches when any
    /// line does, and --where too when given.
    #[arg(long, value_name = "FILE")]
    pub where_file: Option<PathBuf>,

    /// pgn-extract's tag file (its -t): lines as `White "Tal"` (the value starts so) or
    /// `Date >= "1990"`; lines of one tag or-ed, tags and-ed; Player, Elo, FEN and
    /// FENPattern as pgn-extract reads them.
    #[arg(long, short = 't', value_name = "FILE")]
    pub tag_file: Option<PathBuf>,

    /// Select the games whose main line reaches a position matching this pattern
    /// (pgn-extract's -Tf / FENPattern): 8 ranks of piece letters, digits, ? (any square),
    /// ! (a piece), A / a (a White / Black piece), _ (empty), * (any run of squares),
    /// [..] (one of), optionally " w" or " b". Repeat for any of several.
    #[arg(long, value_name = "PATTERN")]
    pub fen_pattern: Vec<String>,

    /// pgn-extract's material file (its -y): lines as `R2P+ R=P*`, the first set White's;
    /// any line selects.
    #[arg(long, short = 'y', value_name = "FILE")]
    pub materialy: Option<PathBuf>,

    /// pgn-extract's material file (its -z): as --materialy, either side having the first set.
    #[arg(long, short = 'z', value_name = "FILE")]
    pub materialz: Option<PathBuf>,

    /// Look for positions from main-line ply N on (N moves played; 0 is the start): every
    /// test of positions as if written with `at N..` (pgn-extract's --startply).
    #[arg(long, alias = "startply", value_name = "N")]
    pub start_ply: Option<u32>,

    /// Write only these of the matched games, counted from 1 in output order: `1:10,15`.
    #[arg(long, value_name = "RANGES")]
    pub selectonly: Option<MatchRanges>,

    /// Write the matched games but these, counted from 1 in output order: `1:10,15`.
    #[arg(long, value_name = "RANGES")]
    pub skipmatching: Option<MatchRanges>,

    /// Also write the games not selected to this file, in the same pass (staged as -o).
    #[arg(long, value_name = "FILE")]
    pub non_matching: Option<PathBuf>,

    /// Put this comment after the move where each game selected first matched a test of
    /// positions (position, pattern, material, balance; a threefold or fifty-move claim):
    /// pgn-extract's --markmatches.
    #[arg(long, alias = "markmatches", value_name = "TEXT")]
    pub mark_matches: Option<String>,

    /// Add a MatchLabel tag naming the test that matched first, when it has a name (a tag
    /// file's FENPattern label, `label "..."` in --where): pgn-extract's --addlabeltag.
    #[arg(long, alias = "addlabeltag")]
    pub add_label_tag: bool,

    /// Select the games that do not match.
    #[arg(long)]
    pub invert: bool,

    /// Print only the number of games selected.
    #[arg(long)]
    pub count: bool,

    /// Write to this file instead of standard output (`-`); replaced only when the run
    /// succeeds.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Write the selected games in this move notation, as `pgnkit convert --to` does.
    #[arg(long, value_enum, value_name = "NOTATION")]
    pub to: Option<ToNotation>,

    /// Write the selected games in this format, as `pgnkit convert --format` does.
    #[arg(long, value_name = "FORMAT", value_parser = formats())]
    pub format: Option<Format>,

    /// Classify the openings that `eco` and `opening` test with this table instead of the
    /// built-in one (lichess's TSV with columns eco, name, pgn; or pgn-extract's eco.pgn).
    #[arg(long, value_name = "FILE")]
    pub eco_table: Option<PathBuf>,
}

/// The long help of `--where` (`select --help` and the man page): the language in brief and
/// every field, from the list the parser reads.
fn where_help() -> String {
    let mut help = String::from(
        "The games to select, as an expression: `Result = \"1-0\" and player = \"Carlsen*\"`.\n\n\
         Tests (FIELD OP VALUE) joined by and, or, not and parentheses. OP is one of = != < <= \
         > >= ~ (contains; a /regex/ matches) !~ matches. A name that starts with a capital is \
         a tag (WhiteElo, Result, Date, Round, ECO, Event, any tag); the fields are:\n",
    );
    let width = FIELDS.iter().map(|(f, _)| f.len()).max().unwrap_or(0);
    for (field, what) in FIELDS {
        help.push_str(&format!("\n  {field:width$}  {what}"));
    }
    help
}

/// `--format`'s values: convert's, with `parquet` hidden, since select refuses it (still
/// parsed, so that the refusal can say what to do instead).
fn formats() -> impl clap::builder::TypedValueParser<Value = Format> {
    let values = Format::value_variants().iter().filter_map(|f| {
        let value = f.to_possible_value()?;
        Some(value.hide(*f == Format::Parquet))
    });
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(values).map(|name: String| {
        Format::value_variants()
            .iter()
            .copied()
            .find(|f| {
                f.to_possible_value()
                    .is_some_and(|v| v.matches(&name, false))
            })
            // The parser accepts only the names of the variants.
            .unwrap_or(Format::Pgn)
    })
}

impl Args {
    /// The selection the flags ask for.
    pub fn options(&self) -> SelectOptions {
        SelectOptions {
            expr: self.expr.clone().unwrap_or_default(),
            invert: self.invert,
            count: self.count,
            output: self.output.clone(),
            to: self.to,
            format: self.format,
            eco_table: self.eco_table.clone(),
            max_game_size: self.input.max_game_size,
            quiet: self.input.quiet,
            where_file: self.where_file.clone(),
            tag_file: self.tag_file.clone(),
            fen_patterns: self.fen_pattern.clone(),
            material_y: self.materialy.clone(),
            material_z: self.materialz.clone(),
            select_only: self.selectonly.clone(),
            skip_matching: self.skipmatching.clone(),
            non_matching: self.non_matching.clone(),
            mark_matches: self.mark_matches.clone(),
            add_label_tag: self.add_label_tag,
            start_ply: self.start_ply,
        }
    }
}

/// Runs `pgnkit select`.
///
/// # Errors
///
/// A wrong expression (shown with a caret under the problem), or an output that cannot be
/// created or written.
pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let select = Select::new(args.options())?;
    select.run(args.input.resolve()?)
}
