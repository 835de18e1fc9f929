//! `pgnkit select`: writes the games that match an expression (`--where`), byte for byte as
//! read, or through convert's writer with `--to`/`--format`.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use anyhow::bail;
use clap::ValueEnum;

use super::convert::{FormatArg, ToArg};
use crate::convert::{Convert, ConvertOptions, Format, ToNotation};
use crate::diag::Severity;
use crate::input::pipeline::{Game, Lexing};
use crate::input::{Found, Inputs};
use crate::outcome::Outcome;
use crate::outcome::WriteError;
use crate::report::staged::{self, StagedFiles};
use crate::rules::game::CheckOptions;
use crate::select::expr::FIELDS;
use crate::select::tags::{Nearest, TagWatch};
use crate::select::watch::Watch;
use crate::select::{Facts, Replayed, Selection};

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
    #[arg(long = "where", short = 'w', value_name = "EXPR", long_help = where_help())]
    pub expr: String,

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
    pub to: Option<ToArg>,

    /// Write the selected games in this format, as `pgnkit convert --format` does.
    #[arg(long, value_name = "FORMAT", value_parser = formats())]
    pub format: Option<FormatArg>,

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
fn formats() -> impl clap::builder::TypedValueParser<Value = FormatArg> {
    let values = FormatArg::value_variants().iter().filter_map(|f| {
        let value = f.to_possible_value()?;
        Some(value.hide(*f == FormatArg::Parquet))
    });
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(values).map(|name: String| {
        FormatArg::value_variants()
            .iter()
            .copied()
            .find(|f| {
                f.to_possible_value()
                    .is_some_and(|v| v.matches(&name, false))
            })
            // The parser accepts only the names of the variants.
            .unwrap_or(FormatArg::Pgn)
    })
}

/// What the work made of one game, for the sink in input order.
struct Picked {
    selected: bool,
    /// What to write: the game's bytes, or its conversion. Empty for a game not selected.
    text: Vec<u8>,
    /// Diagnostics for standard error (a selected game that cannot be converted or written).
    diagnostics: Vec<u8>,
    /// Selected, but not written (it could not be converted).
    unwritten: bool,
    errors: u64,
    /// Tag names close to those of the expression no game had so far.
    nearest: Nearest,
}

impl Found for Picked {
    fn errors(&self) -> u64 {
        self.errors
    }
}

/// Refuses options that would change nothing with the others given.
///
/// # Errors
///
/// The first such option, with what to do.
fn refuse_options_that_do_not_apply(args: &Args, selection: &Selection) -> anyhow::Result<()> {
    if args.eco_table.is_some() && !selection.classifies() {
        bail!(
            "--eco-table names the openings that `eco` and `opening` test, and this expression \
             tests neither: drop --eco-table, or test the classified opening (eco = \"B90\")"
        );
    }
    if args.count {
        for (option, given) in [
            ("-o", args.output.is_some()),
            ("--to", args.to.is_some()),
            ("--format", args.format.is_some()),
        ] {
            if given {
                bail!("--count prints only the number of games and writes none: drop {option}");
            }
        }
    }
    if args.format == Some(FormatArg::Parquet) {
        bail!(
            "select writes no Parquet: select to PGN, then `pgnkit convert --format parquet` \
             the result"
        );
    }
    Ok(())
}

/// The conversion of `--to`/`--format`, every other option at convert's default.
fn convert_with(args: &Args) -> anyhow::Result<Option<Convert>> {
    if args.to.is_none() && args.format.is_none() {
        return Ok(None);
    }
    let options = ConvertOptions {
        to: args.to.map_or(ToNotation::San, Into::into),
        format: args.format.map_or(Format::Pgn, Into::into),
        // A game's memory while it is converted is bounded by select's own size limit.
        max_game_size: args.input.max_game_size,
        ..ConvertOptions::default()
    };
    Convert::new(options).map(Some)
}

/// Runs `pgnkit select`.
///
/// # Errors
///
/// A wrong expression (shown with a caret under the problem), or an output that cannot be
/// created or written.
pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let selection = Selection::parse(&args.expr)
        .map_err(|e| anyhow::anyhow!("--where: {}", e.render(&args.expr)))?;
    refuse_options_that_do_not_apply(&args, &selection)?;
    let convert = convert_with(&args)?;
    // Read once for the run; its positions are indexed at the first game replayed.
    let eco_table = selection
        .classifies()
        .then(|| crate::eco::table_at(args.eco_table.as_deref()))
        .transpose()?;
    // The inputs are listed before the output is created: a new one is never read.
    let mut inputs = Inputs::new(args.input.resolve()?)?;
    crate::report::staged::refuse_inputs_as_outputs(
        &[("-o", args.output.as_deref())],
        inputs.sources(),
    )?;
    // `-o FILE` replaces the file only when the run succeeds (see `StagedFiles::create`).
    let mut staged = StagedFiles::new();
    let out_name = staged::display_name(args.output.as_deref());
    let written = |e| WriteError::new(out_name.as_str(), e);
    // Its errors name the file (or standard output).
    let out = staged.open(args.output.as_deref())?;
    let mut out = BufWriter::with_capacity(1 << 16, out);
    if convert
        .as_ref()
        .is_some_and(|c| c.options().format == Format::Csv)
    {
        out.write_all(&Convert::csv_header()).map_err(written)?;
    }

    let opts = CheckOptions::default();
    let (mut selected, mut unwritten) = (0u64, 0u64);
    let tag_watch = TagWatch::new(selection.tag_names());
    let mut nearest = Nearest::default();
    let shared = Shared {
        selection: &selection,
        opts: &opts,
        args: &args,
        convert: convert.as_ref(),
        eco_table,
        tag_watch: &tag_watch,
    };
    let work = |name: &str, game: &mut Game<'_>| select_one(game, name, &shared);
    let sink = |_: &str, p: Picked| -> Result<(), WriteError> {
        nearest.merge(p.nearest);
        if !p.diagnostics.is_empty() {
            io::stderr()
                .lock()
                .write_all(&p.diagnostics)
                .map_err(|e| WriteError::new("to standard error", e))?;
        }
        if !p.selected {
            return Ok(());
        }
        selected += 1;
        unwritten += u64::from(p.unwritten);
        if !args.count {
            out.write_all(&p.text).map_err(written)?;
        }
        Ok(())
    };
    inputs.run(Lexing::Tags, work, sink, |p| p.to_stderr())?;
    if inputs.totals.broken_pipe {
        return Ok(crate::outcome::found_so_far());
    }
    if args.count {
        writeln!(out, "{selected}").map_err(written)?;
    }
    out.flush().map_err(written)?;
    drop(out);
    crate::report::staged::commit_after(staged, &inputs)?;
    if inputs.totals.games > 0 {
        warn_of_missing_tags(&tag_watch, &nearest)?;
    }
    inputs.summary(
        args.input.quiet,
        format_args!(
            "{selected} selected{}",
            if unwritten > 0 {
                format!(" ({unwritten} not written: see above)")
            } else {
                String::new()
            },
        ),
    )?;
    Ok(inputs.outcome_with(selected == 0))
}

/// What every game of the run is selected with, shared by the workers.
#[derive(Clone, Copy)]
struct Shared<'a> {
    selection: &'a Selection,
    opts: &'a CheckOptions,
    args: &'a Args,
    convert: Option<&'a Convert>,
    eco_table: Option<&'static crate::eco::Table>,
    tag_watch: &'a TagWatch,
}

/// Says which tags of the expression no game had (a misspelled name fails every test
/// silently), with the name most likely meant.
fn warn_of_missing_tags(watch: &TagWatch, nearest: &Nearest) -> Result<(), WriteError> {
    let mut err = io::stderr().lock();
    for (name, near) in watch.missing(nearest) {
        match near {
            Some(near) => writeln!(
                err,
                "warning: no game has a tag '{name}'; did you mean '{near}'?"
            ),
            None => writeln!(
                err,
                "warning: no game has a tag '{name}', so every test of it is false"
            ),
        }
        .map_err(|e| WriteError::new("to standard error", e))?;
    }
    Ok(())
}

/// Tests one game (on a worker thread) and makes what is written of it. The tags are looked
/// at first; the game is replayed only when the expression still depends on the replay.
fn select_one(game: &mut Game<'_>, name: &str, shared: &Shared<'_>) -> Picked {
    let Shared {
        selection,
        opts,
        args,
        convert,
        eco_table,
        tag_watch,
    } = *shared;
    // A tagless game in the book layout has its header read as tags, as the replay does.
    crate::pgn::book::extract_header(game.bytes, game.lexed);
    let nearest = tag_watch.look(game.lexed);
    let by_tags = selection.matches(&Facts {
        lexed: game.lexed,
        replay: None,
    });
    let (matched, errors) = match by_tags {
        // Decided by the tags: only the game's end is needed.
        Some(matched) => {
            game.close();
            (matched, 0)
        }
        None => {
            let mut watch = Watch::new(selection.targets());
            if let Some(table) = eco_table {
                watch = watch.classifying(table);
            }
            let report = game.check(opts, &mut watch);
            if let Some(last) = &report.final_position {
                watch.see(last);
            }
            let matched = selection.matches(&Facts {
                lexed: game.lexed,
                replay: Some(Replayed {
                    report: &report,
                    reached: &watch.reached,
                    opening: watch.opening(),
                }),
            });
            (
                matched.unwrap_or(false),
                report.count(Severity::Error) as u64,
            )
        }
    };
    let mut picked = Picked {
        selected: matched != args.invert,
        text: Vec::new(),
        diagnostics: Vec::new(),
        unwritten: false,
        errors,
        nearest,
    };
    if !picked.selected || args.count {
        return picked;
    }
    if game.bytes.is_empty() {
        // An oversized game: the reader kept none of its bytes.
        let _ = writeln!(
            picked.diagnostics,
            "pgnkit: {name}:{}: game {} is selected but larger than --max-game-size, so it \
             was not kept and is not written; raise --max-game-size",
            game.line, game.number
        );
        picked.unwritten = true;
        return picked;
    }
    match convert {
        Some(convert) => {
            let (diagnostics, body) = convert.game(game, name);
            picked.diagnostics = diagnostics;
            picked.unwritten = body.is_none();
            picked.text = body.unwrap_or_default();
        }
        None => {
            // The game as read, and one blank line after it.
            picked.text.reserve(game.bytes.len() + 2);
            picked.text.extend_from_slice(game.bytes);
            picked
                .text
                .extend_from_slice(if game.bytes.ends_with(b"\n") {
                    b"\n"
                } else {
                    b"\n\n"
                });
        }
    }
    picked
}
