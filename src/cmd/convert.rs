//! `pgnkit convert`: rewrites games in another move notation (SAN, long algebraic, UCI,
//! figurines, Chinese) and another container (PGN, Chinese book layout, JSON lines, CSV, EPD).
//! Games that do not replay are not written: they go to `--rejects` with their diagnostics.

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use anyhow::{bail, Context};
use clap::ValueEnum;

use crate::convert::arrow::{GameRow, PlyColumns, RowFinding};
use crate::convert::parquet::ParquetOut;
use crate::convert::pgn::{self as pgn_out, Layout};
use crate::convert::{self, records, Collector, Keep};
use crate::diag::{Code, Finding, Severity};
use crate::input::pipeline::{Game, Lexing};
use crate::input::Inputs;
use crate::notation::write::{CaptureSign, MateSign, Notation, ZhStyle};
use crate::notation::Lang;
use crate::outcome::Outcome;
use crate::outcome::{say, WriteError};
use crate::pgn::{Lexed, Movetext};
use crate::report::staged::{self, StagedFiles};
use crate::report::{self, GameContext, RenderOptions};
use crate::rules::game::CheckOptions;

/// Convert games to another notation or format: SAN, long algebraic, UCI, figurines or Chinese
/// moves, in PGN, the Chinese book layout, JSON lines, CSV or EPD.
///
/// Games with an illegal or unreadable move are not written: they go byte for byte to
/// --rejects, and their diagnostics to standard error. Exit status: 0 every game written,
/// 1 some games rejected, 2 pgnkit failed.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub input: super::InputArgs,

    /// Move notation to write.
    #[arg(long, value_enum, default_value_t = ToArg::San)]
    pub to: ToArg,

    /// Output format.
    #[arg(long, value_enum, default_value_t = FormatArg::Pgn)]
    pub format: FormatArg,

    /// Chinese moves in traditional characters (馬 車) instead of simplified (马 车).
    #[arg(long)]
    pub traditional: bool,

    /// Capture sign of Chinese moves: `×` (default), `x` or `:`.
    // No clap default: a sign given with a notation that has none is refused.
    #[arg(long, value_name = "SIGN", value_parser = parse_capture_sign)]
    pub capture_sign: Option<CaptureSign>,

    /// Mate sign of Chinese moves: `≠` (default) or `#`.
    #[arg(long, value_name = "SIGN", value_parser = parse_mate_sign)]
    pub mate_sign: Option<MateSign>,

    /// Piece letters of this language (de, fr, es, it, nl, pt, ru, pl), for reading the input
    /// and for writing --to san or lan. Letters are ambiguous, so they are never guessed.
    #[arg(long, value_name = "LANG")]
    pub lang: Option<Lang>,

    /// Piece letters of this language for reading the input only (en, de, fr, ...); instead of
    /// --lang's language.
    #[arg(long, value_name = "LANG")]
    pub input_lang: Option<Lang>,

    /// Piece letters of this language for writing --to san or lan only (en, de, fr, ...);
    /// instead of --lang's language: `--output-lang de` writes English SAN in German letters.
    #[arg(long, value_name = "LANG")]
    pub output_lang: Option<Lang>,

    /// Drop comments.
    #[arg(long)]
    pub no_comments: bool,

    /// Drop annotation glyphs (NAGs).
    #[arg(long)]
    pub no_nags: bool,

    /// Drop variations.
    #[arg(long)]
    pub no_variations: bool,

    /// Replace an illegal move by the one legal move the writer most likely meant, when exactly
    /// one fits; the replacement is marked in a comment and reported as a warning.
    #[arg(long)]
    pub repair: bool,

    /// Rewrite the Result tag and the result where the rules decide it (checkmate, stalemate,
    /// dead position, fivefold repetition, 75 moves).
    #[arg(long)]
    pub fix_results: bool,

    /// Write to this file instead of standard output (`-`): a regular file atomically (a
    /// temporary file renamed at the end), a device or pipe directly. It may be one of the inputs (a
    /// rewrite in place): games that are not converted are then kept in it as they were
    /// (with --format pgn), or go to --rejects.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// With --format parquet: add the position after each move (`fen`) to moves.parquet, which
    /// makes it about three times as large and the conversion slower.
    #[arg(long)]
    pub fen: bool,

    /// What --format parquet does without --fen, which the option asked for before --fen
    /// existed: still taken, so that scripts written then keep working.
    #[arg(long, hide = true, conflicts_with = "fen")]
    pub no_fen: bool,

    /// With --format csv: start the output with a UTF-8 byte order mark, so Excel shows
    /// non-ASCII names.
    #[arg(long)]
    pub excel: bool,

    /// With --format csv: keep text from the input as it is, even cells a spreadsheet would
    /// run as formulas.
    #[arg(long)]
    pub raw_csv: bool,

    /// Write every game that is not converted, byte for byte as read, to this file (`-`:
    /// standard output, with -o FILE).
    #[arg(long, value_name = "FILE")]
    pub rejects: Option<PathBuf>,

    /// Name each game's opening in ECO and Opening tags where it has none: the deepest named
    /// position its main line reaches (with --format csv: columns eco and opening at the end).
    #[arg(long)]
    pub add_eco: bool,

    /// With --add-eco: replace the ECO and Opening tags a game has (a game the table does not
    /// classify keeps its own).
    #[arg(long)]
    pub eco_overwrite: bool,

    /// With --add-eco: name openings from this table instead of the built-in one (lichess's
    /// TSV with columns eco, name, pgn; or pgn-extract's eco.pgn).
    #[arg(long, value_name = "FILE")]
    pub eco_table: Option<PathBuf>,

    /// Not an option (the Python package sets it): with --format parquet, a rejected game gets
    /// its row too, with its movetext as read and the plies replayed before its first error,
    /// and every row its errors and warnings ([`GameRow::findings`]) instead of their text on
    /// standard error.
    #[arg(skip)]
    pub every_row: bool,

    /// Not an option (the Python package sets it): with --format parquet, the rows feed the
    /// games table only, so no ply's SAN, UCI, clock or comment is kept for a moves table.
    #[arg(skip)]
    pub games_only: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ToArg {
    /// Standard algebraic notation: Nf3 exd5 O-O e8=Q.
    San,
    /// Long algebraic, as python-chess's lan(): Ng1-f3 e4xd5 O-O e7-e8=Q.
    Lan,
    /// UCI: g1f3 e7e8q (e1h1 castling in Chess960).
    Uci,
    /// Figurines: ♘f3 ♗xf7+.
    Fan,
    /// Chinese short record: 马f3 马×e5 e8=后.
    Zh,
    /// Chinese full record: 马g1-f3 马f3×e5 e7-e8=后.
    ZhLong,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// PGN export layout.
    Pgn,
    /// Chinese book layout: a header line and numbered moves.
    Book,
    /// One JSON object a game, every move in every notation.
    Jsonl,
    /// One row a main-line ply.
    Csv,
    /// One position a line.
    Epd,
    /// Two Parquet files in the folder given with -o: games.parquet and moves.parquet.
    Parquet,
}

fn parse_capture_sign(s: &str) -> Result<CaptureSign, String> {
    match s {
        "×" | "times" => Ok(CaptureSign::Times),
        "x" => Ok(CaptureSign::X),
        ":" | "colon" => Ok(CaptureSign::Colon),
        _ => Err("expected ×, x or :".into()),
    }
}

fn parse_mate_sign(s: &str) -> Result<MateSign, String> {
    match s {
        "≠" | "ne" => Ok(MateSign::NotEqual),
        "#" | "hash" => Ok(MateSign::Hash),
        _ => Err("expected ≠ or #".into()),
    }
}

impl Args {
    /// The letters the input is read in: `--input-lang`, else `--lang`.
    fn input_lang(&self) -> Option<Lang> {
        self.input_lang.or(self.lang)
    }

    fn notation(&self) -> Notation {
        let style = ZhStyle {
            traditional: self.traditional,
            capture: self.capture_sign.unwrap_or_default(),
            mate: self.mate_sign.unwrap_or_default(),
        };
        let lang = self.output_lang.or(self.lang).filter(|l| *l != Lang::En);
        match (self.to, lang) {
            (ToArg::San, Some(lang)) => Notation::Letters { lang, long: false },
            (ToArg::Lan, Some(lang)) => Notation::Letters { lang, long: true },
            (ToArg::San, None) => Notation::San,
            (ToArg::Lan, None) => Notation::Lan,
            (ToArg::Uci, _) => Notation::Uci(shakmaty::CastlingMode::Standard),
            (ToArg::Fan, _) => Notation::Fan,
            (ToArg::Zh, _) => Notation::Zh(style),
            (ToArg::ZhLong, _) => Notation::ZhLong(style),
        }
    }

    /// How the games are replayed.
    fn check_options(&self) -> CheckOptions {
        CheckOptions {
            lang: self.input_lang(),
            repair: self.repair,
            ..CheckOptions::default()
        }
    }

    /// What of the movetext is written.
    fn keep(&self) -> Keep {
        Keep {
            no_comments: self.no_comments,
            no_nags: self.no_nags,
            no_variations: self.no_variations,
        }
    }

    /// What of each ply the Arrow rows keep: a count alone for the games table only.
    fn ply_columns(&self) -> PlyColumns {
        if self.games_only {
            PlyColumns::count_only()
        } else {
            PlyColumns::new(self.fen)
        }
    }

    /// A game's collector, made on the worker that converts it: every notation and position a
    /// move for the JSON and CSV records and EPD; the Parquet tables take SAN, UCI and FEN
    /// only, as the replay plays the moves.
    fn collector(&self, eco_table: Option<&'static crate::eco::Table>) -> Collector {
        let records = matches!(
            self.format,
            FormatArg::Jsonl | FormatArg::Csv | FormatArg::Epd
        );
        let mut collector = Collector::new(self.notation(), records);
        collector.eco = eco_table.map(crate::eco::EcoObserver::new);
        if self.format == FormatArg::Parquet {
            collector.columns = Some(Box::new(self.ply_columns()));
        }
        // Room for a game's moves at once: growing a ply at a time costs more.
        collector.reserve(PLIES_RESERVED);
        collector.set_budget(self.game_budget());
        collector
    }

    /// Bytes a game's moves and elements may take while it is converted: a few times
    /// `--max-game-size`, so that the memory a game takes is bounded by the limit on its size
    /// in every output format.
    fn game_budget(&self) -> usize {
        self.input.max_game_size.saturating_mul(BUDGET_PER_MIB)
    }
}

/// Totals over the run: every game read is written or rejected.
#[derive(Debug, Default)]
struct Totals {
    written: u64,
    repaired: u64,
    rejected: u64,
    /// Rejected games written to the output as they were read (a rewrite in place).
    kept: u64,
}

/// One game converted on a worker: what to print and write, in input order.
struct Converted {
    /// Diagnostics for standard error (rejected games, repairs).
    diagnostics: Vec<u8>,
    /// The converted game.
    body: Vec<u8>,
    rejected: bool,
    repaired: bool,
    /// The game's bytes, for `--rejects` or to be kept as they were.
    reject: Option<Vec<u8>>,
    /// The game as Parquet rows (`--format parquet`).
    row: Option<Box<GameRow>>,
}

impl crate::input::Found for Converted {
    fn errors(&self) -> u64 {
        u64::from(self.rejected)
    }
}

/// Plies reserved for a game's moves before its replay.
const PLIES_RESERVED: usize = 256;

/// Bytes of a game's moves and elements allowed for each MiB of `--max-game-size` (see
/// [`Args::game_budget`]): 8 times the limit.
const BUDGET_PER_MIB: usize = 8 << 20;

/// Converts one game (runs on a worker thread), lexed to its tags. Writing into vectors cannot
/// fail.
///
/// The replay tells the collector the moves, comments, NAGs and variations in order, from
/// whichever of its loops played the game; the elements written are made of what it told.
fn convert_one(
    game: &mut Game<'_>,
    name: &str,
    opts: &CheckOptions,
    keep: Keep,
    render: &RenderOptions,
    args: &Args,
    collector: &mut Collector,
) -> Converted {
    let mut report = game.check(opts, collector);
    if collector.over_budget() {
        report.findings.push(too_large_to_convert(args));
    }
    // The tags (the movetext is what the replay told the collector).
    let lexed: &Lexed = game.lexed;
    let rejected = convert::is_rejected(&report);
    let mut done = Converted {
        diagnostics: Vec::new(),
        body: Vec::new(),
        rejected,
        repaired: collector.plies.iter().any(|p| p.repaired_from.is_some()),
        reject: None,
        row: None,
    };
    let ctx = GameContext {
        file: name,
        number: game.number,
        line: game.line,
        white: lexed.tag("White").unwrap_or("?"),
        black: lexed.tag("Black").unwrap_or("?"),
        bytes: game.bytes,
    };
    let every_row = args.every_row && args.format == FormatArg::Parquet;
    for f in &report.findings {
        let shown = if rejected {
            f.severity == Severity::Error
        } else {
            f.code == Code::RepairedMove
        };
        if shown && !every_row {
            let _ = report::write_text(&mut done.diagnostics, &ctx, f, render);
        }
    }
    if rejected && !every_row {
        // For --rejects, or to keep it in a rewrite in place (rejected games are few: the
        // copy costs nothing that counts).
        done.reject = Some(game.bytes.to_vec());
        return done;
    }
    let result = convert::final_result(lexed, &report, args.fix_results);
    let fixed = args.fix_results && report.result_by_rule.is_some();
    let elements = convert::elements(game.bytes, collector, keep);
    if convert::has_replacement(&elements) {
        let _ = writeln!(
            done.diagnostics,
            "warning: {name}:{}: game {}: movetext bytes that are not UTF-8 were written as \
             U+FFFD; read the input with its --encoding to keep them",
            game.line, game.number
        );
    }
    let out = &mut done.body;
    let eco = eco_tags(lexed, collector, args.eco_overwrite);
    // The record the JSON, CSV and Parquet writers share.
    let record = || {
        let mut record = records::game_record(
            name,
            game.number,
            lexed,
            &elements,
            collector,
            &report,
            result,
        );
        for (tag, value) in &eco {
            record.tags.insert((*tag).to_owned(), (*value).to_owned());
        }
        record
    };
    let _ = match args.format {
        FormatArg::Pgn => {
            // About as long as the game read: one allocation, then no growing.
            let mut text = String::with_capacity(game.bytes.len() + 256);
            pgn_out::write_tags_with(lexed, result, fixed, &eco, &mut text);
            text.push('\n');
            pgn_out::write_movetext(&elements, collector, result, Layout::Pgn, &mut text);
            text.push('\n');
            *out = text.into_bytes();
            Ok(())
        }
        FormatArg::Book => {
            let mut text = String::with_capacity(game.bytes.len() + 256);
            pgn_out::write_book_header(lexed, &mut text);
            pgn_out::write_movetext(&elements, collector, result, Layout::Book, &mut text);
            text.push('\n');
            *out = text.into_bytes();
            Ok(())
        }
        FormatArg::Jsonl | FormatArg::Csv => {
            let record = record();
            if args.format == FormatArg::Csv {
                let mut w = csv::Writer::from_writer(&mut *out);
                let extra: &[&str] = if args.add_eco {
                    &["ECO", "Opening"]
                } else {
                    &[]
                };
                records::write_csv_with(&mut w, &record, args.raw_csv, extra)
                    .and_then(|()| w.flush().map_err(Into::into))
            } else {
                records::write_jsonl(out, &record).map_err(Into::into)
            }
        }
        FormatArg::Parquet => {
            let mut movetext = String::with_capacity(game.bytes.len());
            if rejected {
                // Not converted: as read, so that nothing of it is lost.
                movetext.push_str(&String::from_utf8_lossy(movetext_as_read(
                    game.bytes,
                    game.lexed,
                    game.movetext,
                )));
            } else {
                pgn_out::write_movetext(&elements, collector, result, Layout::Line, &mut movetext);
            }
            let mut row = Box::new(GameRow::new(
                name,
                game.number,
                lexed,
                &elements,
                collector,
                &report,
                result,
                &eco,
                movetext,
            ));
            if every_row {
                let shown = report
                    .findings
                    .iter()
                    .filter(|f| f.severity != Severity::Note);
                row.findings = shown.map(|f| RowFinding::new(&ctx, f)).collect();
            }
            done.row = Some(row);
            Ok(())
        }
        FormatArg::Epd => records::write_epd(
            out,
            name,
            game.number,
            collector,
            report.final_position.as_ref(),
        )
        .map_err(Into::into),
    };
    done
}

/// The movetext of a game as read: its bytes after the tags (all of them when it has none).
fn movetext_as_read<'a>(bytes: &'a [u8], lexed: &Lexed, movetext: Movetext) -> &'a [u8] {
    let start = match movetext.start() {
        Some(m) => m.offset,
        None => lexed
            .tokens
            .iter()
            .filter(|t| matches!(t.kind, crate::pgn::TokenKind::Tag(_)))
            .map(|t| t.span.end as usize)
            .max()
            .unwrap_or(0),
    };
    let text = bytes.get(start..).unwrap_or_default();
    text.trim_ascii()
}

/// The tags `--add-eco` sets: the classified `ECO` and `Opening` in place of the game's with
/// `--eco-overwrite`; otherwise each where the game has none, the name only beside an `ECO`
/// tag of the same code (a name of another code would contradict it). None for a game the
/// table does not classify.
fn eco_tags(
    lexed: &Lexed,
    collector: &Collector,
    overwrite: bool,
) -> Vec<(&'static str, &'static str)> {
    let Some(opening) = collector.eco.as_ref().and_then(|e| e.result()) else {
        return Vec::new();
    };
    // A tag of `?` says nothing: it is filled as a missing one is.
    let eco = crate::eco::known_tag(lexed.tag("ECO"));
    let mut set = Vec::with_capacity(2);
    if overwrite || eco.is_none() {
        set.push(("ECO", opening.eco.as_str()));
    }
    let same_code = eco.is_none_or(|e| e == opening.eco);
    if overwrite || (same_code && crate::eco::known_tag(lexed.tag("Opening")).is_none()) {
        set.push(("Opening", opening.name.as_str()));
    }
    set
}

/// Refuses an option that would change nothing with the others given: ignored, it would let
/// the user believe it did something.
///
/// # Errors
///
/// The first such option, with why it does not apply and what to do.
fn refuse_options_that_do_not_apply(args: &Args) -> anyhow::Result<()> {
    let chinese = matches!(args.to, ToArg::Zh | ToArg::ZhLong);
    let zh_options = [
        ("--traditional", args.traditional),
        ("--capture-sign", args.capture_sign.is_some()),
        ("--mate-sign", args.mate_sign.is_some()),
    ];
    for (option, given) in zh_options {
        if given && !chinese {
            let to = args.to.to_possible_value().expect("no value is skipped");
            anyhow::bail!(
                "{option} applies to Chinese moves only, and --to {} writes none; add --to zh \
                 or --to zh-long (JSON lines and CSV always give zh and zh_long in the default \
                 style)",
                to.get_name()
            );
        }
    }
    if args.eco_overwrite && !args.add_eco {
        anyhow::bail!(
            "--eco-overwrite applies with --add-eco only (it replaces the tags --add-eco \
             writes); add --add-eco"
        );
    }
    if args.eco_table.is_some() && !args.add_eco {
        anyhow::bail!("--eco-table applies with --add-eco only; add --add-eco");
    }
    if args.add_eco && matches!(args.format, FormatArg::Epd | FormatArg::Book) {
        anyhow::bail!(
            "--add-eco writes tags, and --format {} has none; use --format pgn, jsonl, csv \
             or parquet",
            format_name(args.format)
        );
    }
    if (args.fen || args.no_fen) && args.format != FormatArg::Parquet {
        anyhow::bail!(
            "{} applies to --format parquet only (--fen adds the fen column to \
             moves.parquet; the other formats give each move's position already); drop it, or \
             add --format parquet",
            if args.fen { "--fen" } else { "--no-fen" }
        );
    }
    let (format, rows) = match args.format {
        FormatArg::Csv => ("csv", "one row a main-line ply"),
        FormatArg::Epd => ("epd", "one line a main-line position"),
        FormatArg::Pgn | FormatArg::Book | FormatArg::Jsonl | FormatArg::Parquet => return Ok(()),
    };
    let dropped = [
        ("--no-variations", args.no_variations, "variations"),
        (
            "--no-comments",
            args.no_comments && args.format == FormatArg::Epd,
            "comments",
        ),
        (
            "--no-nags",
            args.no_nags && args.format == FormatArg::Epd,
            "annotation glyphs",
        ),
        ("--fix-results", args.fix_results, "results"),
    ];
    for (option, given, what) in dropped {
        if given {
            anyhow::bail!(
                "{option} changes nothing with --format {format}: it writes no {what} ({rows}); \
                 drop {option}"
            );
        }
    }
    Ok(())
}

/// Runs `pgnkit convert`.
///
/// # Errors
///
/// When the output or the rejects file cannot be created or written, or a rewrite in place
/// would lose games.
pub fn run(args: Args) -> anyhow::Result<Outcome> {
    refuse_options_that_do_not_apply(&args)?;
    if args.format == FormatArg::Parquet {
        return run_parquet(&args);
    }
    // The inputs are listed before any output is created: a new one is never read. (An input
    // given as `-o` is fine: it is replaced only once it has been read.)
    let mut inputs = Inputs::new(args.input.resolve()?)?;
    let in_place = args
        .output
        .as_deref()
        .is_some_and(|path| crate::input::open::is_an_input(path, inputs.sources()));
    // A rewrite in place leaves only what is written: a game not converted must be kept in
    // the output or go to --rejects.
    let keep_rejected = in_place && args.rejects.is_none();
    if keep_rejected && args.format != FormatArg::Pgn {
        if let Some(path) = &args.output {
            bail!(
                "refusing to rewrite {} in place as {}: games that cannot be converted would be \
                 lost; give --rejects FILE for them, or write to another file",
                path.display(),
                format_name(args.format)
            );
        }
    }
    crate::report::staged::refuse_inputs_as_outputs(
        &[("--rejects", args.rejects.as_deref())],
        inputs.sources(),
    )?;
    crate::report::staged::refuse_two_on_stdout(&[
        ("-o", args.output.as_deref().is_none_or(staged::is_stdout)),
        (
            "--rejects",
            args.rejects.as_deref().is_some_and(staged::is_stdout),
        ),
    ])?;
    // `-o FILE` replaces the file only when the run succeeds (see `StagedFiles::create`).
    let mut staged = StagedFiles::new();
    let out_name = staged::display_name(args.output.as_deref());
    // Its errors name the file (or standard output).
    let out = staged.open(args.output.as_deref())?;
    let mut out = BufWriter::with_capacity(1 << 16, out);
    let totals = convert_all(
        &args,
        &mut inputs,
        &mut staged,
        keep_rejected,
        &out_name,
        &mut out,
        None,
    )?;
    if inputs.totals.broken_pipe {
        return Ok(crate::outcome::found_so_far());
    }
    out.flush()
        .map_err(|e| WriteError::new(out_name.as_str(), e))?;
    drop(out);
    // Rewriting in place what could not be read whole (a cut, bytes that do not decode)
    // would lose the rest.
    let damaged = in_place && inputs.totals.problems > 0;
    commit_outputs(staged, &inputs, args.output.as_deref().filter(|_| damaged))?;
    Ok(inputs.outcome_with(totals.rejected > 0))
}

/// Puts the output files in place as [`super::commit`] does, unless `left` names an output
/// rewritten in place from an input that was not read whole: that is said on standard error,
/// and what was there stays.
///
/// # Errors
///
/// When a file cannot be put in place, or standard error cannot be written.
fn commit_outputs(
    staged: StagedFiles,
    inputs: &Inputs,
    left: Option<&std::path::Path>,
) -> anyhow::Result<()> {
    if let Some(path) = left {
        say(format_args!(
            "pgnkit: {} left as it was: an input could not be read whole, and rewriting it in \
             place would lose what was not read",
            path.display()
        ))?;
        return Ok(());
    }
    crate::report::staged::commit_after(staged, inputs)?;
    Ok(())
}

/// `--format parquet`: the two files are written beside their final names and renamed into
/// place once every input was read, so a failed or interrupted run leaves what was there.
fn run_parquet(args: &Args) -> anyhow::Result<Outcome> {
    let Some(dir) = args.output.as_deref() else {
        bail!(
            "--format parquet writes two files (games.parquet and moves.parquet), so it needs \
             a folder for them: give -o DIR"
        );
    };
    if staged::is_stdout(dir) {
        bail!(
            "--format parquet writes a folder of two files, which standard output cannot \
             hold: give -o DIR"
        );
    }
    let mut inputs = Inputs::new(args.input.resolve()?)?;
    if dir.is_file() {
        bail!(
            "-o {}: --format parquet writes a folder of two files, and this is a file; give \
             a folder (it is created if missing)",
            dir.display()
        );
    }
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut staged = StagedFiles::new();
    let games = staged.create(&dir.join("games.parquet"))?;
    let moves = staged.create(&dir.join("moves.parquet"))?;
    let out_name = dir.display().to_string();
    let failed =
        |e: parquet::errors::ParquetError| WriteError::new(out_name.as_str(), io::Error::other(e));
    let mut pq = ParquetOut::new(games, moves, args.fen).map_err(failed)?;
    let mut push = |row: &GameRow| pq.push(row).map_err(failed);
    let outcome = run_rows(args, &mut inputs, &mut push)?;
    // The commit below flushes the files to disk.
    pq.finish().map_err(failed)?;
    commit_outputs(staged, &inputs, None)?;
    Ok(outcome)
}

/// Takes each converted game's row for the Arrow tables, in input order.
pub type RowSink<'a> = dyn FnMut(&GameRow) -> Result<(), WriteError> + 'a;

/// Converts the games of `inputs` as `--format parquet` does and hands each converted game's
/// row to `each`, in input order (the Python package builds its Arrow tables so). Rejected
/// games go to `--rejects` and their diagnostics to standard error, as with the command.
///
/// # Errors
///
/// Errors of `each`, and of the rejects file.
pub fn run_rows(
    args: &Args,
    inputs: &mut Inputs,
    each: &mut RowSink<'_>,
) -> anyhow::Result<Outcome> {
    let mut staged = StagedFiles::new();
    let totals = convert_all(
        args,
        inputs,
        &mut staged,
        false,
        "",
        &mut io::sink(),
        Some(each),
    )?;
    crate::report::staged::commit_after(staged, inputs)?;
    Ok(inputs.outcome_with(totals.rejected > 0))
}

/// Converts one game (its whole text in `bytes`: tags if any, then movetext) as
/// `--format parquet` does and gives its row, numbered `number`: the Python package's
/// `parse_movetext`, which has games one by one rather than an input to read. With
/// [`Args::every_row`] a rejected game gets its row too; otherwise it gives `None`. `lexed` is
/// scratch, kept from game to game.
pub fn game_row(
    bytes: &[u8],
    name: &str,
    number: u64,
    args: &Args,
    lexed: &mut Lexed,
) -> Option<Box<GameRow>> {
    let opts = CheckOptions {
        lang: args.input_lang(),
        repair: args.repair,
        ..CheckOptions::default()
    };
    let keep = Keep {
        no_comments: args.no_comments,
        no_nags: args.no_nags,
        no_variations: args.no_variations,
    };
    let movetext = crate::pgn::lex_game_tags(bytes, 1, 1, lexed);
    let mut game = Game {
        bytes,
        lexed,
        number,
        line: 1,
        col: 1,
        offset: 0,
        movetext,
    };
    let mut collector = Collector::new(args.notation(), false);
    collector.columns = Some(Box::new(args.ply_columns()));
    collector.reserve(PLIES_RESERVED);
    let render = RenderOptions::default();
    convert_one(&mut game, name, &opts, keep, &render, args, &mut collector).row
}

fn format_name(format: FormatArg) -> &'static str {
    match format {
        FormatArg::Pgn => "pgn",
        FormatArg::Book => "book",
        FormatArg::Jsonl => "jsonl",
        FormatArg::Csv => "csv",
        FormatArg::Epd => "epd",
        FormatArg::Parquet => "parquet",
    }
}

fn convert_all(
    args: &Args,
    inputs: &mut Inputs,
    staged: &mut StagedFiles,
    keep_rejected: bool,
    out_name: &str,
    out: &mut impl Write,
    mut rows: Option<&mut RowSink<'_>>,
) -> anyhow::Result<Totals> {
    let (opts, keep) = (args.check_options(), args.keep());
    let mut rejects = crate::report::staged::rejects_file(staged, args.rejects.as_deref())?;
    let rejects_name = || staged::display_name(args.rejects.as_deref());
    let written = |e| WriteError::new(out_name, e);
    if args.format == FormatArg::Csv {
        if args.excel {
            out.write_all(crate::report::stats::BOM)?;
        }
        let mut w = csv::Writer::from_writer(&mut *out);
        let eco_columns: &[&str] = if args.add_eco {
            &["eco", "opening"]
        } else {
            &[]
        };
        w.write_record(records::CSV_HEADER.iter().chain(eco_columns))
            .map_err(|e| written(e.into()))?;
        w.flush().map_err(written)?;
    }
    // Plain text: the diagnostics go to standard error beside the output.
    let render = RenderOptions::default();
    let eco_table = args
        .add_eco
        .then(|| crate::eco::table_at(args.eco_table.as_deref()))
        .transpose()?;
    let mut totals = Totals::default();
    let work = |name: &str, game: &mut Game<'_>| {
        let mut collector = args.collector(eco_table);
        convert_one(game, name, &opts, keep, &render, args, &mut collector)
    };
    let sink = |_: &str, g: Converted| -> Result<(), WriteError> {
        io::stderr()
            .lock()
            .write_all(&g.diagnostics)
            .map_err(|e| WriteError::new("to standard error", e))?;
        if g.rejected {
            totals.rejected += 1;
            crate::outcome::found(Outcome::Problems);
            match (rejects.as_mut(), g.reject) {
                (Some(w), Some(bytes)) => w
                    .write_all(&bytes)
                    .and_then(|()| w.write_all(b"\n\n"))
                    .map_err(|e| WriteError::new(rejects_name(), e))?,
                // Rewritten in place: the game stays, as it was.
                (None, Some(bytes)) if keep_rejected => {
                    totals.kept += 1;
                    out.write_all(&bytes)
                        .and_then(|()| out.write_all(b"\n\n"))
                        .map_err(written)?;
                }
                _ => {}
            }
            // `every_row`: the rejected game is a row too.
            return match (rows.as_deref_mut(), g.row) {
                (Some(push), Some(row)) => push(&row),
                _ => Ok(()),
            };
        }
        totals.written += 1;
        totals.repaired += u64::from(g.repaired);
        if let (Some(push), Some(row)) = (rows.as_deref_mut(), g.row) {
            return push(&row);
        }
        out.write_all(&g.body).map_err(written)
    };
    // Tags only: plain movetext is replayed from the bytes (see `convert_one`).
    inputs.run(Lexing::Tags, work, sink, |p| p.to_stderr())?;
    if inputs.totals.broken_pipe {
        return Ok(totals);
    }
    if let Some(mut w) = rejects {
        w.flush().map_err(|e| WriteError::new(rejects_name(), e))?;
    }
    // Before the summary: it counts the games written.
    out.flush().map_err(written)?;
    inputs.summary(
        args.input.quiet,
        format_args!(
            "{} written ({} repaired), {} rejected{}",
            totals.written,
            totals.repaired,
            totals.rejected,
            if totals.kept > 0 {
                format!(" ({} kept as they were)", totals.kept)
            } else {
                String::new()
            },
        ),
    )?;
    Ok(totals)
}

/// For `pgnkit select --to/--format`: one selected game (whole, not [open](Game::open))
/// written the way `args` say, through the same writer as `convert`. Returns the diagnostics
/// for standard error and the written game, `None` when the game is rejected (it does not
/// replay).
pub(crate) fn convert_selected(
    game: &mut Game<'_>,
    name: &str,
    args: &Args,
) -> (Vec<u8>, Option<Vec<u8>>) {
    // Select's `args` are convert's defaults but --to and --format: no --repair, no
    // --add-eco, no Parquet (select refuses it).
    let mut collector = args.collector(None);
    let render = RenderOptions::default();
    let (opts, keep) = (args.check_options(), args.keep());
    let done = convert_one(game, name, &opts, keep, &render, args, &mut collector);
    (done.diagnostics, (!done.rejected).then_some(done.body))
}

/// The report of a game whose moves, variations and comments would take more memory than a
/// game may ([`Args::game_budget`]).
fn too_large_to_convert(args: &Args) -> Finding {
    let mut f = Finding::new(
        Code::TooLargeToConvert,
        None,
        format!(
            "converting the game's moves, variations and comments would take more than {} MiB \
             (8 times --max-game-size): it is not converted",
            args.game_budget() >> 20
        ),
    );
    f.help = Some(
        "raise --max-game-size if the game is genuine, or split its variations into games \
         of their own"
            .into(),
    );
    f
}

/// The CSV header `--format csv` starts with, for `pgnkit select`.
pub(crate) fn csv_header() -> Vec<u8> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let _ = w.write_record(records::CSV_HEADER);
    w.into_inner().unwrap_or_default()
}
