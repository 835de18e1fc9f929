//! The validate engine: every game of every input checked, each problem rendered with its
//! place, what is wrong and the likely fix, as text, JSON Lines or CSV (`pgnkit validate`).

use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::PathBuf;

use crate::convert::record::GameRecord;
use crate::diag::Severity;
use crate::diag::{Code, Finding};
use crate::eco::{EcoObserver, Table};
use crate::input::pipeline::Game;
use crate::input::{Found, InputOptions, InputProblem, Inputs};
use crate::notation::Lang;
use crate::outcome::Outcome;
use crate::outcome::WriteError;
use crate::pgn::Lexed;
use crate::report::staged::{self, StagedFiles};
use crate::report::{self, Format, GameContext, RenderOptions};
use crate::rules::adjudicate::{DeadSearch, Insufficient};
use crate::rules::game::CheckOptions;

/// What a validate run is asked for (`pgnkit validate`'s options, as typed; the inputs are
/// given to [`Validate::run`]). The default is the command line's, but for the summary,
/// which is not printed.
#[derive(Clone, Debug)]
pub struct ValidateOptions {
    /// How the diagnostics are written (`--format`).
    pub format: Format,
    /// Lenient notation (0-0, nf3, e8Q...) is an error, not a warning (`--strict`).
    pub strict: bool,
    /// Warnings make the run's outcome `Problems` too (`--warnings-as-errors`).
    pub warnings_as_errors: bool,
    /// The meaning of "insufficient material" (`--insufficient`).
    pub insufficient: Insufficient,
    /// How to look for dead positions beyond material (`--dead-position`).
    pub dead_position: DeadSearch,
    /// Piece letters of this language (`--lang`); never guessed.
    pub lang: Option<Lang>,
    /// Replace an illegal move by the one legal move most likely meant (`--repair`).
    pub repair: bool,
    /// Draw the board before each bad move, in text (`--board`).
    pub board: bool,
    /// Report notes too (`--notes`).
    pub notes: bool,
    /// With JSON, one record a game too (`--game-records`).
    pub game_records: bool,
    /// Write every game with an error here, byte for byte (`--rejects`; `-`: standard output).
    pub rejects: Option<PathBuf>,
    /// With notes: check ECO tags against this opening table, not the built-in one
    /// (`--eco-table`).
    pub eco_table: Option<PathBuf>,
    /// Print the closing summary to standard error (the command line's default; `--quiet`
    /// turns it off).
    pub summary: bool,
}

impl Default for ValidateOptions {
    fn default() -> ValidateOptions {
        ValidateOptions {
            format: Format::Text,
            strict: false,
            warnings_as_errors: false,
            insufficient: Insufficient::Helpmate,
            dead_position: DeadSearch::Fast,
            lang: None,
            repair: false,
            board: false,
            notes: false,
            game_records: false,
            rejects: None,
            eco_table: None,
            summary: false,
        }
    }
}

/// Checks games and writes their diagnostics to standard output: the resolved options of a
/// run. [`Validate::check`] is the check and rendering of one game, for a caller with a loop
/// of its own.
///
/// ```
/// use pgnkit::input::InputOptions;
/// use pgnkit::outcome::Outcome;
/// use pgnkit::report::Format;
/// use pgnkit::validate::{Validate, ValidateOptions};
///
/// let dir = std::env::temp_dir().join(format!("pgnkit-doc-validate-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let (games, rejects) = (dir.join("games.pgn"), dir.join("rejects.pgn"));
/// let bad = "[White \"A\"]\n[Black \"B\"]\n\n1. e4 e5 2. Ke3 *";
/// std::fs::write(&games, format!("{bad}\n\n[White \"C\"]\n\n1. d4 d5 *\n"))?;
/// let options = ValidateOptions {
///     format: Format::Csv,
///     rejects: Some(rejects.clone()),
///     ..ValidateOptions::default()
/// };
/// // The diagnostics go to standard output; the game with an error to the rejects.
/// let outcome = Validate::new(options)?.run(InputOptions::new(vec![games]))?;
/// assert_eq!(outcome, Outcome::Problems);
/// assert_eq!(std::fs::read_to_string(&rejects)?, format!("{bad}\n\n"));
/// std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), anyhow::Error>(())
/// ```
#[derive(Debug)]
pub struct Validate {
    options: ValidateOptions,
    check: CheckOptions,
    render: RenderOptions,
    /// The table ECO tags are checked against, when notes are reported: no other run pays
    /// for it.
    eco_table: Option<&'static Table>,
}

/// Totals of the games over the run.
#[derive(Debug, Default)]
struct Totals {
    errors: u64,
    warnings: u64,
    notes: u64,
}

impl Validate {
    /// The engine of `options`: the check and rendering options built, the opening table
    /// read when notes are reported.
    ///
    /// # Errors
    ///
    /// An option that would change nothing with the others given (`game_records` without
    /// JSON, `board` without text, `eco_table` without notes): ignored, it would let the
    /// user believe it did something. An opening table that cannot be read.
    pub fn new(options: ValidateOptions) -> anyhow::Result<Validate> {
        refuse_options_that_do_not_apply(&options)?;
        let check = CheckOptions {
            strict: options.strict,
            insufficient: options.insufficient,
            dead_search: options.dead_position,
            lang: options.lang,
            repair: options.repair,
            ..CheckOptions::default()
        };
        let render = RenderOptions {
            board: options.board,
            notes: options.notes,
            color: options.format == Format::Text
                && io::stdout().is_terminal()
                && std::env::var_os("NO_COLOR").is_none(),
        };
        let eco_table = options
            .notes
            .then(|| crate::eco::table_at(options.eco_table.as_deref()))
            .transpose()?;
        Ok(Validate {
            options,
            check,
            render,
            eco_table,
        })
    }

    /// Checks every game of the inputs `input` names, writing the diagnostics to standard
    /// output (and the games with an error to the rejects file); the run's outcome.
    ///
    /// # Errors
    ///
    /// A rejects file that is also an input or a second output on standard output; an
    /// output that cannot be written.
    pub fn run(&self, input: InputOptions) -> anyhow::Result<Outcome> {
        let args = &self.options;
        let format = args.format;
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
        let mut inputs = Inputs::new(input)?;
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
        let mut rejects =
            crate::report::staged::rejects_file(&mut staged, args.rejects.as_deref())?;
        let rejects_name = || staged::display_name(args.rejects.as_deref());

        let mut totals = Totals::default();
        let work = |name: &str, game: &mut Game<'_>| self.check(name, game);
        let sink = |_: &str, g: Checked| -> Result<(), WriteError> {
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
            let text = render_one(&p.context(), &p.finding, format, &self.render);
            out.borrow_mut().write_all(&text).map_err(written)
        };
        inputs.run(work, sink, on_problem)?;
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
            !args.summary,
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
        Ok(inputs
            .outcome_with(totals.errors > 0 || (args.warnings_as_errors && totals.warnings > 0)))
    }

    /// Checks one game and renders its diagnostics in the run's format (on a worker thread):
    /// the loop of [`Validate::run`] calls it for every game.
    pub fn check(&self, file: &str, game: &mut Game<'_>) -> Checked {
        let args = &self.options;
        let (opts, format, render) = (&self.check, args.format, &self.render);
        // Only a game with an ECO tag is classified (`?` says nothing, so nothing to check).
        let mut eco = self
            .eco_table
            .filter(|_| crate::eco::known_tag(game.lexed.tag("ECO")).is_some())
            .map(EcoObserver::new);
        // Without a classifier, the replay only checks (`None` needs nothing).
        let mut report = game.check(opts, &mut eco);
        if let Some(note) = eco.as_ref().and_then(|eco| eco_note(game.lexed, eco)) {
            report.findings.push(note);
        }
        let mut out = Checked {
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
        let ctx = game.context(file);
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
            let record = GameRecord::checked(file, game.number, game.line, game.lexed, &report);
            let _ = report::write_game_json(text, &record, &report);
        }
        if out.errors > 0 && args.rejects.is_some() {
            out.reject = Some(game.bytes.to_vec());
        }
        out
    }
}

/// What checking one game produced, rendered in the run's format, ready to be written in
/// input order.
#[derive(Debug, Default)]
pub struct Checked {
    /// The diagnostics as the run writes them (CSV rows without the header).
    pub text: Vec<u8>,
    pub errors: u64,
    pub warnings: u64,
    pub notes: u64,
    /// The game's bytes, when it has an error and rejects are kept.
    pub reject: Option<Vec<u8>>,
}

impl Found for Checked {
    fn errors(&self) -> u64 {
        self.errors
    }
}

/// Refuses an option that would change nothing with the others given: ignored, it would let
/// the user believe it did something.
///
/// # Errors
///
/// The first such option, with why it does not apply and what to do.
fn refuse_options_that_do_not_apply(args: &ValidateOptions) -> anyhow::Result<()> {
    let format = match args.format {
        Format::Text => "text",
        Format::Json => "json",
        Format::Csv => "csv",
    };
    if args.game_records && args.format != Format::Json {
        anyhow::bail!(
            "--game-records needs --format json: the records are JSON lines written among the \
             diagnostics, and --format {format} has no place for them; add --format json"
        );
    }
    if args.board && args.format != Format::Text {
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
pub fn render_one(
    ctx: &GameContext,
    f: &Finding,
    format: Format,
    render: &RenderOptions,
) -> Vec<u8> {
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
