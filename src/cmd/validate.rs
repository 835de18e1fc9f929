//! `pgnkit validate`: checks every game of every input and reports each problem with its
//! place, what is wrong and the likely fix.

use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::PathBuf;

use clap::ValueEnum;

use crate::diag::Severity;
use crate::diag::{Code, Finding};
use crate::eco::{EcoObserver, Table};
use crate::input::pipeline::{Game, Lexing};
use crate::input::{Found, InputProblem, Inputs};
use crate::outcome::Outcome;
use crate::outcome::WriteError;
use crate::pgn::Lexed;
use crate::report::staged::{self, StagedFiles};
use crate::report::{self, Format, GameContext, RenderOptions};
use crate::rules::adjudicate::{DeadSearch, Insufficient};
use crate::rules::game::CheckOptions;
use crate::rules::visit::NoVisitor;

/// Check PGN files: legal moves (variations, FEN starts and Chess960 included), results by
/// rule, tags and syntax.
///
/// Each problem is reported with file:line:column, game, move, what is wrong and the likely
/// fix. Exit status: 0 clean, 1 problems found, 2 pgnkit failed.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub input: super::InputArgs,

    /// Output format of the diagnostics.
    #[arg(long, value_enum, default_value_t = FormatArg::Text)]
    pub format: FormatArg,

    /// Treat lenient notation (0-0, nf3, e8Q, Ng1-f3, g1f3...) as errors, not warnings.
    #[arg(long)]
    pub strict: bool,

    /// Exit with status 1 when there are warnings, even without errors.
    #[arg(long)]
    pub warnings_as_errors: bool,

    /// Meaning of "insufficient material": `helpmate` (FIDE: K+N v K+N can still mate) or
    /// `force` (a side that cannot force mate has insufficient material).
    #[arg(long, value_enum, default_value_t = InsufficientArg::Helpmate)]
    pub insufficient: InsufficientArg,

    /// How to look for dead positions beyond material: chasolver's `fast` check or its `full`
    /// search.
    #[arg(long, value_enum, default_value_t = DeadArg::Fast)]
    pub dead_position: DeadArg,

    /// Read piece letters of this language (de, fr, es, it, nl, pt, ru, pl). Letters are
    /// ambiguous between languages, so they are never guessed.
    #[arg(long, value_name = "LANG")]
    pub lang: Option<crate::notation::Lang>,

    /// Replace an illegal move by the one legal move the writer most likely meant, when exactly
    /// one fits (reported as M005 warnings instead of M001 errors).
    #[arg(long)]
    pub repair: bool,

    /// Print the board before each bad move (text format).
    #[arg(long)]
    pub board: bool,

    /// Also report notes: claimable threefold and fifty-move draws, perpetual check.
    #[arg(long)]
    pub notes: bool,

    /// With --format json, also write one record per game (result by rule, final FEN...).
    #[arg(long)]
    pub game_records: bool,

    /// Write every game that has an error, byte for byte as read, to this file (replaced only
    /// when the run succeeds).
    #[arg(long, value_name = "FILE")]
    pub rejects: Option<PathBuf>,

    /// With --notes: check ECO tags against this opening table instead of the built-in one
    /// (lichess's TSV with columns eco, name, pgn; or pgn-extract's eco.pgn).
    #[arg(long, value_name = "FILE")]
    pub eco_table: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    Text,
    Json,
    Csv,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum InsufficientArg {
    Helpmate,
    Force,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DeadArg {
    Fast,
    Full,
}

/// Totals of the games over the run.
#[derive(Debug, Default)]
struct Totals {
    errors: u64,
    warnings: u64,
    notes: u64,
}

/// Refuses an option that would change nothing with the others given: ignored, it would let
/// the user believe it did something.
///
/// # Errors
///
/// The first such option, with why it does not apply and what to do.
fn refuse_options_that_do_not_apply(args: &Args) -> anyhow::Result<()> {
    let format = match args.format {
        FormatArg::Text => "text",
        FormatArg::Json => "json",
        FormatArg::Csv => "csv",
    };
    if args.game_records && args.format != FormatArg::Json {
        anyhow::bail!(
            "--game-records needs --format json: the records are JSON lines written among the \
             diagnostics, and --format {format} has no place for them; add --format json"
        );
    }
    if args.board && args.format != FormatArg::Text {
        anyhow::bail!(
            "--board needs --format text: the board is drawn for a reader, and --format {format} \
             gives the position as FEN in each diagnostic instead; drop --board"
        );
    }
    if args.eco_table.is_some() && !args.notes {
        anyhow::bail!(
            "--eco-table is the table ECO tags are checked against, a note (N012) that only \
             --notes reports; add --notes"
        );
    }
    Ok(())
}

/// Runs `pgnkit validate`.
///
/// # Errors
///
/// When the output or the rejects file cannot be written.
pub fn run(args: Args) -> anyhow::Result<Outcome> {
    refuse_options_that_do_not_apply(&args)?;
    let format = match args.format {
        FormatArg::Text => Format::Text,
        FormatArg::Json => Format::Json,
        FormatArg::Csv => Format::Csv,
    };
    let opts = CheckOptions {
        strict: args.strict,
        insufficient: match args.insufficient {
            InsufficientArg::Helpmate => Insufficient::Helpmate,
            InsufficientArg::Force => Insufficient::Force,
        },
        dead_search: match args.dead_position {
            DeadArg::Fast => DeadSearch::Fast,
            DeadArg::Full => DeadSearch::Full,
        },
        lang: args.lang,
        repair: args.repair,
        ..CheckOptions::default()
    };
    let stdout = io::stdout();
    let render = RenderOptions {
        board: args.board,
        notes: args.notes,
        color: format == Format::Text
            && stdout.is_terminal()
            && std::env::var_os("NO_COLOR").is_none(),
    };
    let written = |e| WriteError::new("standard output", e);
    // The diagnostics, and `--rejects` with the run's other outputs (see `StagedFiles`).
    let mut staged = StagedFiles::new();
    let mut out = BufWriter::with_capacity(1 << 16, staged.open(None)?);
    if format == Format::Csv {
        let mut w = csv::Writer::from_writer(&mut out);
        w.write_record(report::CSV_HEADER)
            .map_err(|e| written(e.into()))?;
        w.flush().map_err(written)?;
    }
    // The inputs are listed before the rejects file is created: a new one is never read.
    let mut inputs = Inputs::new(args.input.resolve()?)?;
    // Written by the games and by the problems of inputs as a whole, in turn.
    let out = std::cell::RefCell::new(out);
    crate::report::staged::refuse_inputs_as_outputs(
        &[("--rejects", args.rejects.as_deref())],
        inputs.sources(),
    )?;
    crate::report::staged::refuse_two_on_stdout(&[
        ("the diagnostics", true),
        (
            "--rejects",
            args.rejects.as_deref().is_some_and(staged::is_stdout),
        ),
    ])?;
    let mut rejects = crate::report::staged::rejects_file(&mut staged, args.rejects.as_deref())?;
    let rejects_name = || staged::display_name(args.rejects.as_deref());

    // ECO tags are checked only when notes are reported: no other run pays for it.
    let eco_table = args
        .notes
        .then(|| crate::eco::table_at(args.eco_table.as_deref()))
        .transpose()?;
    let mut totals = Totals::default();
    let work = |name: &str, game: &mut Game<'_>| {
        check_one(game, name, &opts, format, &render, &args, eco_table)
    };
    let sink = |_: &str, g: GameOutput| -> Result<(), WriteError> {
        totals.errors += g.errors;
        totals.warnings += g.warnings;
        totals.notes += g.notes;
        if g.errors > 0 || (args.warnings_as_errors && g.warnings > 0) {
            crate::outcome::found(Outcome::Problems);
        }
        out.borrow_mut().write_all(&g.text).map_err(written)?;
        if let (Some(bytes), Some(w)) = (g.reject, rejects.as_mut()) {
            w.write_all(&bytes)
                .and_then(|()| w.write_all(b"\n\n"))
                .map_err(|e| WriteError::new(rejects_name(), e))?;
        }
        Ok(())
    };
    // Problems of an input as a whole are diagnostics too, in the same format and place.
    let on_problem = |p: &InputProblem<'_>| -> Result<(), WriteError> {
        let text = render_one(&p.context(), &p.finding, format, &render);
        out.borrow_mut().write_all(&text).map_err(written)
    };
    inputs.run(Lexing::Tags, work, sink, on_problem)?;
    if inputs.totals.broken_pipe {
        return Ok(crate::outcome::found_so_far());
    }
    out.borrow_mut().flush().map_err(written)?;
    if let Some(mut w) = rejects {
        w.flush().map_err(|e| WriteError::new(rejects_name(), e))?;
    }
    crate::report::staged::commit_after(staged, &inputs)?;
    // Problems of inputs as a whole (a cut, bytes that do not decode, not PGN) are errors.
    totals.errors += inputs.totals.problems;
    inputs.summary(
        args.input.quiet,
        format_args!(
            "{} error{}, {} warning{}, {} note{}",
            totals.errors,
            s(totals.errors),
            totals.warnings,
            s(totals.warnings),
            totals.notes,
            s(totals.notes),
        ),
    )?;
    Ok(inputs.outcome_with(totals.errors > 0 || (args.warnings_as_errors && totals.warnings > 0)))
}

/// What checking one game produced, rendered, ready to be written in input order.
struct GameOutput {
    text: Vec<u8>,
    errors: u64,
    warnings: u64,
    notes: u64,
    /// The game's bytes, when it has an error and rejects are kept.
    reject: Option<Vec<u8>>,
}

impl Found for GameOutput {
    fn errors(&self) -> u64 {
        self.errors
    }
}

/// Checks one game and renders its diagnostics (runs on a worker thread).
fn check_one(
    game: &mut Game<'_>,
    file: &str,
    opts: &CheckOptions,
    format: Format,
    render: &RenderOptions,
    args: &Args,
    eco_table: Option<&'static Table>,
) -> GameOutput {
    // Only a game with an ECO tag is classified (`?` says nothing, so nothing to check).
    let mut eco = eco_table
        .filter(|_| crate::eco::known_tag(game.lexed.tag("ECO")).is_some())
        .map(EcoObserver::new);
    let mut report = match eco.as_mut() {
        Some(eco) => game.check(opts, eco),
        None => game.check(opts, &mut NoVisitor),
    };
    if let Some(note) = eco.as_ref().and_then(|eco| eco_note(game.lexed, eco)) {
        report.findings.push(note);
    }
    let mut out = GameOutput {
        text: Vec::new(),
        errors: report.count(Severity::Error) as u64,
        warnings: report.count(Severity::Warning) as u64,
        notes: report.count(Severity::Note) as u64,
        reject: None,
    };
    let records = args.game_records && format == Format::Json;
    if report.findings.is_empty() && !records {
        return out;
    }
    let ctx = GameContext {
        file,
        number: game.number,
        line: game.line,
        white: game.lexed.tag("White").unwrap_or("?"),
        black: game.lexed.tag("Black").unwrap_or("?"),
        bytes: game.bytes,
    };
    // Writing into a Vec cannot fail.
    let text = &mut out.text;
    let mut csv = (format == Format::Csv).then(|| csv::Writer::from_writer(Vec::new()));
    for f in &report.findings {
        if f.severity == Severity::Note && !render.notes {
            continue;
        }
        let _ = match format {
            Format::Text => report::write_text(text, &ctx, f, render),
            Format::Json => report::write_json(text, &ctx, f),
            Format::Csv => match csv.as_mut() {
                Some(w) => report::write_csv(w, &ctx, f).map_err(io::Error::other),
                None => Ok(()),
            },
        };
    }
    if let Some(w) = csv {
        if let Ok(bytes) = w.into_inner() {
            text.extend_from_slice(&bytes);
        }
    }
    if records {
        let _ = report::write_game_json(text, &ctx, &report);
    }
    if out.errors > 0 && args.rejects.is_some() {
        out.reject = Some(game.bytes.to_vec());
    }
    out
}

/// N012 for an `ECO` tag that is not the code of the deepest named position the moves reach
/// (an extended code such as `B90a` agrees with `B90`). A game the table does not classify
/// gets none: there is nothing to compare.
fn eco_note(lexed: &Lexed, eco: &EcoObserver<'_>) -> Option<Finding> {
    let tag = lexed.tags().find(|t| t.name == "ECO")?;
    let found = eco.classification()?;
    let opening = found.opening;
    let written = tag.value.trim();
    if written.starts_with(opening.eco.as_str()) {
        return None;
    }
    let at = match &found.after {
        Some(mv) => format!("ply {} ({mv})", found.ply),
        None => format!("ply {}", found.ply),
    };
    let mut note = Finding::new(
        Code::EcoMismatch,
        Some(tag.span),
        format!(
            "ECO tag \"{written}\" disagrees with the moves: they reach {} \"{}\" at {at}, \
             the deepest named position of the opening table",
            opening.eco, opening.name
        ),
    );
    note.help = Some(format!(
        "pgnkit convert --add-eco --eco-overwrite rewrites the tags as ECO \"{}\" and \
         Opening \"{}\"",
        opening.eco, opening.name
    ));
    Some(note)
}

/// One finding rendered in `format` (a CSV row without the header).
fn render_one(ctx: &GameContext, f: &Finding, format: Format, render: &RenderOptions) -> Vec<u8> {
    let mut text = Vec::new();
    // Writing into a Vec cannot fail.
    let _ = match format {
        Format::Text => report::write_text(&mut text, ctx, f, render),
        Format::Json => report::write_json(&mut text, ctx, f),
        Format::Csv => {
            let mut w = csv::Writer::from_writer(&mut text);
            report::write_csv(&mut w, ctx, f)
                .map_err(io::Error::other)
                .and_then(|()| w.flush())
        }
    };
    text
}

fn s(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
