//! `pgnkit convert`: rewrites games in another move notation (SAN, long algebraic, UCI,
//! figurines, Chinese) and another container (PGN, Chinese book layout, JSON lines, CSV, EPD).
//! Games that do not replay are not written: they go to `--rejects` with their diagnostics.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use clap::ValueEnum;

use crate::cli::Outcome;
use crate::convert::pgn::{self as pgn_out, Layout};
use crate::convert::{self, records, Collector, Keep};
use crate::diag::{Code, Severity};
use crate::input::pipeline::{self, Game, Lexing};
use crate::notation::write::{CaptureSign, MateSign, Notation, ZhStyle};
use crate::notation::Lang;
use crate::pgn::{GameReader, Lexed};
use crate::report::{self, GameContext, RenderOptions};
use crate::rules::game::{lex_whole, CheckOptions};

/// Convert games to another notation or format: SAN, long algebraic, UCI, figurines or Chinese
/// moves, in PGN, the Chinese book layout, JSON lines, CSV or EPD.
///
/// Games with an illegal or unreadable move are not written: they go byte for byte to
/// --rejects, and their diagnostics to standard error. Exit status: 0 every game written,
/// 1 some games rejected, 2 pgnkit failed.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Files to convert; `-` reads standard input.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,

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

    /// Encoding of the input (utf-8, windows-1252, latin1, gbk, gb18030, big5, utf-16le,
    /// utf-16be) instead of detecting it per file.
    #[arg(long, value_name = "NAME")]
    pub encoding: Option<String>,

    /// Worker threads (default: the number of cores). The output is the same for any number.
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,

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

    /// Write to this file instead of standard output (a regular file atomically: a temporary
    /// file renamed at the end; a device or pipe directly).
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Write every game that is not converted, byte for byte as read, to this file.
    #[arg(long, value_name = "FILE")]
    pub rejects: Option<PathBuf>,

    /// Skip (and reject) games larger than this many MiB.
    #[arg(long, value_name = "MIB", default_value_t = 32)]
    pub max_game_size: usize,

    /// Do not print the closing summary.
    #[arg(long, short)]
    pub quiet: bool,
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
    fn notation(&self) -> Notation {
        let style = ZhStyle {
            traditional: self.traditional,
            capture: self.capture_sign.unwrap_or_default(),
            mate: self.mate_sign.unwrap_or_default(),
        };
        let lang = self.lang.filter(|l| *l != Lang::En);
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
}

/// Totals over the run: every game read is written or rejected.
#[derive(Debug, Default)]
struct Totals {
    games: u64,
    written: u64,
    repaired: u64,
    rejected: u64,
    bytes: u64,
    failed_inputs: usize,
}

/// One game converted on a worker: what to print and write, in input order.
struct Converted {
    /// Diagnostics for standard error (rejected games, repairs).
    diagnostics: Vec<u8>,
    /// The converted game.
    body: Vec<u8>,
    rejected: bool,
    repaired: bool,
    /// The game's bytes, for `--rejects`.
    reject: Option<Vec<u8>>,
}

/// Plies reserved for a game's moves before its replay.
const PLIES_RESERVED: usize = 256;

/// Converts one game (runs on a worker thread), lexed to its tags. Writing into vectors cannot
/// fail. `None` only for a game whose end the fast path was to find and could not (the
/// pipeline gives it again).
///
/// Plain movetext (strict SAN, move numbers, brace comments, NAGs, a result) is replayed by
/// the fast path straight from the bytes, which tells the collector the comments and NAGs in
/// order with the moves; anything else is lexed whole and replayed the general way, as
/// `validate` does. Debug builds convert every fast-path game the general way too and
/// compare.
fn convert_one(
    game: &mut Game<'_>,
    name: &str,
    opts: &CheckOptions,
    keep: Keep,
    render: &RenderOptions,
    args: &Args,
    collector: &mut Collector,
) -> Option<Converted> {
    let report = super::check_pipeline_game(game, opts, collector)?;
    // The tokens the general path replayed: the same lexing, token for token. (A game without
    // tags was lexed whole already.)
    let whole;
    let lexed: &Lexed = match game.lexed.movetext {
        Some(movetext) if !collector.played_fast() => {
            whole = lex_whole(game.bytes, movetext);
            &whole
        }
        _ => game.lexed,
    };
    #[cfg(debug_assertions)]
    if collector.played_fast() {
        assert_general_agrees(game.bytes, lexed, opts, keep, args.notation(), collector);
    }
    let rejected = convert::is_rejected(&report);
    let mut done = Converted {
        diagnostics: Vec::new(),
        body: Vec::new(),
        rejected,
        repaired: collector.plies.iter().any(|p| p.repaired_from.is_some()),
        reject: None,
    };
    let ctx = GameContext {
        file: name,
        number: game.number,
        line: game.line,
        white: lexed.tag("White").unwrap_or("?"),
        black: lexed.tag("Black").unwrap_or("?"),
        bytes: game.bytes,
    };
    for f in &report.findings {
        let shown = if rejected {
            f.severity == Severity::Error
        } else {
            f.code == Code::RepairedMove
        };
        if shown {
            let _ = report::write_text(&mut done.diagnostics, &ctx, f, render);
        }
    }
    if rejected {
        if args.rejects.is_some() {
            done.reject = Some(game.bytes.to_vec());
        }
        return Some(done);
    }
    let result = convert::final_result(lexed, &report, args.fix_results);
    let fixed = args.fix_results && report.result_by_rule.is_some();
    let elements = if collector.played_fast() {
        convert::recorded_elements(game.bytes, collector, keep)
    } else {
        convert::elements(game.bytes, lexed, collector, keep)
    };
    let out = &mut done.body;
    let _ = match args.format {
        FormatArg::Pgn => {
            // About as long as the game read: one allocation, then no growing.
            let mut text = String::with_capacity(game.bytes.len() + 256);
            pgn_out::write_tags(lexed, result, fixed, &mut text);
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
            let record =
                records::game_record(game.number, lexed, &elements, collector, &report, result);
            if args.format == FormatArg::Csv {
                let mut w = csv::Writer::from_writer(&mut *out);
                records::write_csv(&mut w, &record).and_then(|()| w.flush().map_err(Into::into))
            } else {
                records::write_jsonl(out, &record).map_err(Into::into)
            }
        }
        FormatArg::Epd => {
            records::write_epd(out, game.number, collector, report.final_position.as_ref())
                .map_err(Into::into)
        }
    };
    Some(done)
}

/// Debug builds: a game the fast path converted converts alike the general way, from its
/// tokens: the same moves written the same way, and the same elements.
#[cfg(debug_assertions)]
fn assert_general_agrees(
    bytes: &[u8],
    lexed: &Lexed,
    opts: &CheckOptions,
    keep: Keep,
    notation: crate::notation::write::Notation,
    fast: &Collector,
) {
    let Some(movetext) = lexed.movetext else {
        return;
    };
    let whole = lex_whole(bytes, movetext);
    let mut general = Collector::new(notation, fast.keep_positions);
    crate::rules::game::check_game_with(bytes, &whole, opts, &mut general);
    let moves = |c: &Collector| -> Vec<_> {
        c.plies
            .iter()
            .map(|p| {
                let before = p
                    .before
                    .as_ref()
                    .map(|b| shakmaty::Position::board(&**b).to_string());
                let text = c.written(p).to_owned();
                (text, p.mv, p.check, p.number, p.white, before)
            })
            .collect()
    };
    let game = String::from_utf8_lossy(bytes);
    assert_eq!(moves(fast), moves(&general), "fast-path moves of {game:?}");
    assert_eq!(
        convert::recorded_elements(bytes, fast, keep),
        convert::elements(bytes, &whole, &general, keep),
        "fast-path elements of {game:?}"
    );
}

/// The output file, written to a temporary file beside it and renamed when the run succeeds;
/// dropped without [`AtomicFile::commit`], the temporary file is removed.
struct AtomicFile {
    temp: PathBuf,
    target: PathBuf,
    committed: bool,
}

/// Opens `-o FILE`. A regular file (or a new one) is written atomically, through a temporary
/// file renamed over it at the end: the real file when `FILE` is a symbolic link, so the link
/// stays, and with the old file's permissions. Anything else (`/dev/null`, a named pipe, a
/// terminal) is opened and written directly: renaming over it would replace the device or pipe
/// with a regular file.
fn open_output(path: &Path) -> anyhow::Result<(Option<AtomicFile>, File)> {
    match fs::metadata(path) {
        Ok(meta) if meta.is_file() => {
            let target = fs::canonicalize(path)
                .with_context(|| format!("cannot resolve {}", path.display()))?;
            let (guard, file) = AtomicFile::create(&target)?;
            // Best effort: a file system without permissions keeps the new file's.
            let _ = file.set_permissions(meta.permissions());
            Ok((Some(guard), file))
        }
        Ok(meta) if meta.is_dir() => anyhow::bail!("{} is a directory", path.display()),
        Ok(_) => {
            let file = File::options()
                .write(true)
                .open(path)
                .with_context(|| format!("cannot open {}", path.display()))?;
            Ok((None, file))
        }
        // A dangling symbolic link: writing through it creates its target.
        Err(_) if fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) => {
            let file =
                File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
            Ok((None, file))
        }
        Err(_) => {
            let (guard, file) = AtomicFile::create(path)?;
            Ok((Some(guard), file))
        }
    }
}

impl AtomicFile {
    fn create(target: &Path) -> anyhow::Result<(AtomicFile, File)> {
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = target
            .file_name()
            .with_context(|| format!("{} is not a file name", target.display()))?;
        let temp = dir.join(format!(
            ".{}.pgnkit-{}.tmp",
            name.to_string_lossy(),
            std::process::id()
        ));
        let file = File::options()
            .write(true)
            .create_new(true)
            .open(&temp)
            .with_context(|| format!("cannot create {}", temp.display()))?;
        let guard = AtomicFile {
            temp,
            target: target.to_path_buf(),
            committed: false,
        };
        Ok((guard, file))
    }

    fn commit(mut self) -> anyhow::Result<()> {
        fs::rename(&self.temp, &self.target).with_context(|| {
            format!(
                "cannot rename {} to {}",
                self.temp.display(),
                self.target.display()
            )
        })?;
        self.committed = true;
        Ok(())
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if !self.committed {
            let _ = fs::remove_file(&self.temp);
        }
    }
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
    let (format, rows) = match args.format {
        FormatArg::Csv => ("csv", "one row a main-line ply"),
        FormatArg::Epd => ("epd", "one line a main-line position"),
        FormatArg::Pgn | FormatArg::Book | FormatArg::Jsonl => return Ok(()),
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
/// When the output or the rejects file cannot be created or written.
pub fn run(args: Args) -> anyhow::Result<Outcome> {
    refuse_options_that_do_not_apply(&args)?;
    let (atomic, out): (Option<AtomicFile>, Box<dyn Write>) = match &args.output {
        Some(path) => {
            let (guard, file) = open_output(path)?;
            (guard, Box::new(file))
        }
        None => (None, Box::new(io::stdout().lock())),
    };
    let mut out = BufWriter::with_capacity(1 << 16, out);
    let totals = convert_all(&args, &mut out)?;
    out.flush()?;
    drop(out);
    let interrupted =
        crate::input::pipeline::INTERRUPTED.load(std::sync::atomic::Ordering::Relaxed);
    if interrupted {
        eprintln!("pgnkit: interrupted; no output file was written");
    }
    if totals.failed_inputs == 0 && !interrupted {
        if let Some(guard) = atomic {
            guard.commit()?;
        }
    }
    Ok(if totals.failed_inputs > 0 || interrupted {
        Outcome::Failed
    } else if totals.rejected > 0 {
        Outcome::Problems
    } else {
        Outcome::Clean
    })
}

fn convert_all(args: &Args, out: &mut impl Write) -> anyhow::Result<Totals> {
    let opts = CheckOptions {
        lang: args.lang,
        repair: args.repair,
        ..CheckOptions::default()
    };
    let keep = Keep {
        no_comments: args.no_comments,
        no_nags: args.no_nags,
        no_variations: args.no_variations,
    };
    let records = matches!(
        args.format,
        FormatArg::Jsonl | FormatArg::Csv | FormatArg::Epd
    );
    let jobs = crate::input::jobs(args.jobs);
    let forced =
        crate::input::forced_encoding(args.encoding.as_deref()).map_err(anyhow::Error::msg)?;
    // The inputs are listed before the rejects file is created: a new one is never read. (An
    // input given as `-o` is fine: it is replaced only once it has been read.)
    let (sources, failed_dirs) = crate::input::sources(&args.files);
    super::refuse_inputs_as_outputs(&[("--rejects", args.rejects.as_deref())], &sources)?;
    let mut rejects = super::rejects_file(args.rejects.as_deref())?;
    if args.format == FormatArg::Csv {
        let mut w = csv::Writer::from_writer(&mut *out);
        w.write_record(records::CSV_HEADER)?;
        w.flush()?;
    }
    let render = RenderOptions {
        board: false,
        notes: false,
        color: false,
    };
    let started = Instant::now();
    let mut totals = Totals::default();
    totals.failed_inputs += failed_dirs;
    for source in &sources {
        let name = source.name();
        let opened = crate::input::open_text(source, forced);
        let (input, detected, malformed) = match opened {
            Ok(x) => x,
            Err(e) => {
                eprintln!("pgnkit: cannot open {name}: {e}");
                totals.failed_inputs += 1;
                continue;
            }
        };
        let reader = GameReader::with_limit(input, args.max_game_size.saturating_mul(1 << 20));
        let work = |game: &mut Game<'_>| {
            let mut collector = Collector::new(args.notation(), records);
            // Room for a game's moves at once: growing a ply at a time costs more.
            collector.reserve(PLIES_RESERVED);
            convert_one(game, &name, &opts, keep, &render, args, &mut collector)
        };
        let sink = |g: Converted| -> io::Result<()> {
            totals.games += 1;
            io::stderr().lock().write_all(&g.diagnostics)?;
            if g.rejected {
                totals.rejected += 1;
                if let (Some(w), Some(bytes)) = (rejects.as_mut(), g.reject) {
                    w.write_all(&bytes)?;
                    w.write_all(b"\n\n")?;
                }
                return Ok(());
            }
            totals.written += 1;
            totals.repaired += u64::from(g.repaired);
            out.write_all(&g.body)
        };
        // Tags only: plain movetext is replayed from the bytes (see `convert_one`).
        match pipeline::run_with(reader, jobs, Lexing::Tags, work, sink) {
            Ok(bytes) => totals.bytes += bytes,
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Err(e.into()),
            Err(e) => {
                eprintln!("pgnkit: cannot read {name}: {e}");
                totals.failed_inputs += 1;
            }
        }
        let (bad, offsets) = malformed.get();
        if bad > 0 {
            eprintln!(
                "pgnkit: {name}: {bad} byte sequence{} not valid {} (first at byte {}) read as U+FFFD",
                if bad == 1 { "" } else { "s" },
                detected.encoding.name(),
                offsets.first().copied().unwrap_or(0),
            );
        }
    }
    if let Some(mut w) = rejects {
        w.flush()?;
    }
    if !args.quiet {
        let secs = started.elapsed().as_secs_f64();
        let mb = totals.bytes as f64 / 1e6;
        eprintln!(
            "pgnkit: {} game{}: {} written ({} repaired), {} rejected in {:.2} s ({:.1} MB/s)",
            totals.games,
            if totals.games == 1 { "" } else { "s" },
            totals.written,
            totals.repaired,
            totals.rejected,
            secs,
            if secs > 0.0 { mb / secs } else { 0.0 }
        );
    }
    Ok(totals)
}
