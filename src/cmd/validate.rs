//! `pgnkit validate`: checks every game of every input and reports each problem with its
//! place, what is wrong and the likely fix.

use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::PathBuf;
use std::time::Instant;

use clap::ValueEnum;

use crate::cli::Outcome;
use crate::diag::Severity;
use crate::input::open;
use crate::input::pipeline::{self, Game, Lexing};
use crate::input::progress::Progress;
use crate::pgn::GameReader;
use crate::report::{self, Format, GameContext, RenderOptions};
use crate::rules::adjudicate::{DeadSearch, Insufficient};
use crate::rules::game::{CheckOptions, NoObserver};

/// Check PGN files: legal moves (variations, FEN starts and Chess960 included), results by
/// rule, tags and syntax.
///
/// Each problem is reported with file:line:column, game, move, what is wrong and the likely
/// fix. Exit status: 0 clean, 1 problems found, 2 pgnkit failed.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// PGN files or directories to check (directories are searched for *.pgn and compressed
    /// *.pgn.gz, .bz2, .zst, .xz files); `-` reads standard input. Compression is recognised
    /// by content, not by name.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,

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

    /// Write every game that has an error, byte for byte as read, to this file.
    #[arg(long, value_name = "FILE")]
    pub rejects: Option<PathBuf>,

    /// Skip (and report) games larger than this many MiB.
    #[arg(long, value_name = "MIB", default_value_t = 32)]
    pub max_game_size: usize,

    /// Read the input in this encoding (utf-8, windows-1252, latin1, gbk, gb18030, big5,
    /// utf-16le, utf-16be) instead of detecting it per file.
    #[arg(long, value_name = "NAME")]
    pub encoding: Option<String>,

    /// Worker threads (default: the number of cores). Output is the same for any number.
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,

    /// Do not print the closing summary.
    #[arg(long, short)]
    pub quiet: bool,
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

/// Totals over the run.
#[derive(Debug, Default)]
struct Totals {
    files: usize,
    games: u64,
    errors: u64,
    warnings: u64,
    notes: u64,
    bytes: u64,
    failed_inputs: usize,
    /// Files read per encoding.
    encodings: std::collections::BTreeMap<&'static str, usize>,
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
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    if format == Format::Csv {
        let mut w = csv::Writer::from_writer(&mut out);
        w.write_record(report::CSV_HEADER)?;
        w.flush()?;
    }
    let encoding =
        crate::input::forced_encoding(args.encoding.as_deref()).map_err(anyhow::Error::msg)?;
    // The inputs are listed before the rejects file is created: a new one is never read.
    let (sources, failed_dirs) = crate::input::sources(&args.files);
    super::refuse_inputs_as_outputs(&[("--rejects", args.rejects.as_deref())], &sources)?;
    let mut rejects = super::rejects_file(args.rejects.as_deref())?;

    let started = Instant::now();
    let mut totals = Totals::default();
    let jobs = crate::input::jobs(args.jobs);
    totals.failed_inputs += failed_dirs;
    // The size is known when every input is an uncompressed file; otherwise no estimate.
    let total = sources.iter().try_fold(0u64, |acc, s| match s {
        open::Source::File(p) => {
            let len = std::fs::metadata(p).ok()?.len();
            let mut head = [0u8; 6];
            let n = File::open(p)
                .and_then(|mut f| io::Read::read(&mut f, &mut head))
                .ok()?;
            (open::Compression::sniff(&head[..n]) == open::Compression::None).then_some(acc + len)
        }
        open::Source::Stdin => None,
    });
    let mut progress = Progress::new(total, !args.quiet);
    for source in &sources {
        let name = source.name();
        let opened = crate::input::open_text(source, encoding);
        let (input, detected, malformed) = match opened {
            Ok(x) => x,
            Err(e) => {
                eprintln!("pgnkit: cannot open {name}: {e}");
                totals.failed_inputs += 1;
                continue;
            }
        };
        *totals
            .encodings
            .entry(detected.encoding.name())
            .or_insert(0) += 1;
        totals.files += 1;
        let reader = GameReader::with_limit(input, args.max_game_size.saturating_mul(1 << 20));
        let work = |game: &mut Game<'_>| check_one(game, &name, &opts, format, &render, &args);
        let sink = |g: GameOutput| -> io::Result<()> {
            totals.games += 1;
            progress.game(g.end_offset, g.errors);
            totals.errors += g.errors;
            totals.warnings += g.warnings;
            totals.notes += g.notes;
            out.write_all(&g.text)?;
            if let (Some(bytes), Some(w)) = (g.reject, rejects.as_mut()) {
                w.write_all(&bytes)?;
                w.write_all(b"\n\n")?;
            }
            Ok(())
        };
        let result = pipeline::run_with(reader, jobs, Lexing::Tags, work, sink);
        let (bad, offsets) = malformed.get();
        if bad > 0 {
            let shown: Vec<String> = offsets.iter().map(u64::to_string).collect();
            eprintln!(
                "error: {name}: {bad} byte sequence{} not valid {} (at byte offset{} {}{}); shown as U+FFFD",
                if bad == 1 { " is" } else { "s are" },
                detected.encoding.name(),
                if offsets.len() == 1 { "" } else { "s" },
                shown.join(", "),
                if bad as usize > offsets.len() { ", ..." } else { "" },
            );
            eprintln!("   = help: give the file's encoding with --encoding, or repair the bytes");
            totals.errors += bad;
        }
        match result {
            Ok(bytes) => {
                totals.bytes += bytes;
                progress.input_done(bytes);
            }
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Err(e.into()),
            Err(e) => {
                eprintln!("pgnkit: cannot read {name}: {e}");
                totals.failed_inputs += 1;
            }
        }
    }
    out.flush()?;
    progress.finish();
    if let Some(mut w) = rejects {
        w.flush()?;
    }
    let interrupted =
        crate::input::pipeline::INTERRUPTED.load(std::sync::atomic::Ordering::Relaxed);
    if interrupted {
        eprintln!("pgnkit: interrupted; the summary covers the games read so far");
    }
    if !args.quiet {
        let secs = started.elapsed().as_secs_f64();
        let mb = totals.bytes as f64 / 1e6;
        eprintln!(
            "pgnkit: {} file{}, {} game{}: {} error{}, {} warning{}, {} note{} in {:.2} s ({:.1} MB/s)",
            totals.files,
            s(totals.files as u64),
            totals.games,
            s(totals.games),
            totals.errors,
            s(totals.errors),
            totals.warnings,
            s(totals.warnings),
            totals.notes,
            s(totals.notes),
            secs,
            if secs > 0.0 { mb / secs } else { 0.0 }
        );
        let legacy: Vec<String> = totals
            .encodings
            .iter()
            .filter(|(name, _)| **name != "UTF-8")
            .map(|(name, n)| format!("{name} ({n} file{})", s(*n as u64)))
            .collect();
        if !legacy.is_empty() {
            eprintln!("pgnkit: encodings other than UTF-8: {}", legacy.join(", "));
        }
    }
    Ok(if totals.failed_inputs > 0 || interrupted {
        Outcome::Failed
    } else if totals.errors > 0 || (args.warnings_as_errors && totals.warnings > 0) {
        Outcome::Problems
    } else {
        Outcome::Clean
    })
}

/// What checking one game produced, rendered, ready to be written in input order.
struct GameOutput {
    text: Vec<u8>,
    errors: u64,
    warnings: u64,
    notes: u64,
    /// The game's bytes, when it has an error and rejects are kept.
    reject: Option<Vec<u8>>,
    /// Where the game ends in its input, for the progress bar.
    end_offset: u64,
}

/// Checks one game and renders its diagnostics (runs on a worker thread). `None` only for a
/// game whose end is not known ([`Game::open`]) and that the fast path cannot read whole.
fn check_one(
    game: &mut Game<'_>,
    file: &str,
    opts: &CheckOptions,
    format: Format,
    render: &RenderOptions,
    args: &Args,
) -> Option<GameOutput> {
    let report = super::check_pipeline_game(game, opts, &mut NoObserver)?;
    let mut out = GameOutput {
        text: Vec::new(),
        errors: report.count(Severity::Error) as u64,
        warnings: report.count(Severity::Warning) as u64,
        notes: report.count(Severity::Note) as u64,
        reject: None,
        end_offset: game.offset + game.bytes.len() as u64,
    };
    let records = args.game_records && format == Format::Json;
    if report.findings.is_empty() && !records {
        return Some(out);
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
    Some(out)
}

fn s(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
