//! The conversion as a run ([`Convert`]): the options checked once, then every game of the
//! inputs converted on the workers and written in input order to the output, the rejects file
//! or a caller's row sink, with the run's totals and summary.

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use anyhow::{bail, Context};

use super::game::{convert_one, Converted, Where};
use super::options::{ConvertOptions, Format, PLIES_RESERVED};
use super::parquet::ParquetOut;
use super::players::PlayerTags;
use super::record::GameRecord;
use super::{records, Collector, GameVisitor};
use crate::input::pipeline::Game;
use crate::input::{InputOptions, Inputs};
use crate::outcome::{say, Outcome, WriteError};
use crate::pgn::Lexed;
use crate::report::staged::{self, StagedFiles};
use crate::rules::game::CheckOptions;

/// Takes each converted game's row for the Arrow tables, in input order.
pub type RowSink<'a> = dyn FnMut(&GameRecord) -> Result<(), WriteError> + 'a;

/// A conversion whose options were checked: [`Convert::run`] converts inputs as
/// `pgnkit convert` does; [`Convert::run_rows`] and [`Convert::game_row`] give Arrow rows
/// instead (the Python package's tables).
///
/// ```
/// use pgnkit::convert::{Convert, ConvertOptions, Format, ToNotation};
/// use pgnkit::pgn::Lexed;
///
/// let options = ConvertOptions {
///     to: ToNotation::Uci,
///     format: Format::Parquet,
///     ..ConvertOptions::default()
/// };
/// let convert = Convert::new(options)?;
/// let mut lexed = Lexed::default();
/// let game = b"[White \"A\"]\n[Black \"B\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n";
/// let row = convert.game_row(game, "games.pgn", 1, &mut lexed).expect("it replays");
/// assert_eq!(row.movetext, "1.e2e4 e7e5 2.g1f3 b8c6 1-0");
///
/// // A notation's options with another notation are refused, as the command refuses them.
/// let chinese_sign = ConvertOptions {
///     traditional: true,
///     ..ConvertOptions::default()
/// };
/// let refused = Convert::new(chinese_sign).err().expect("refused");
/// assert!(refused.to_string().starts_with("--traditional applies to Chinese moves only"));
/// # Ok::<(), anyhow::Error>(())
/// ```
///
/// With [`ConvertOptions::where_expr`], only the games the expression selects (`--where`, in
/// `pgnkit select`'s language) are converted:
///
/// ```
/// use pgnkit::convert::{Convert, ConvertOptions, Format};
/// use pgnkit::pgn::Lexed;
///
/// let convert = Convert::new(ConvertOptions {
///     format: Format::Parquet,
///     where_expr: Some("WhiteElo >= 2000 and termination = checkmate".into()),
///     ..ConvertOptions::default()
/// })?;
/// let mut lexed = Lexed::default();
/// let mate = b"[WhiteElo \"2100\"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\n";
/// assert!(convert.game_row(mate, "", 1, &mut lexed).is_some());
/// let weaker = b"[WhiteElo \"1900\"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\n";
/// assert!(convert.game_row(weaker, "", 2, &mut lexed).is_none());
/// let no_mate = b"[WhiteElo \"2100\"]\n\n1. e4 e5 *\n";
/// assert!(convert.game_row(no_mate, "", 3, &mut lexed).is_none());
///
/// let bad = ConvertOptions { where_expr: Some("WhiteElo >=".into()), ..ConvertOptions::default() };
/// let refused = Convert::new(bad).err().expect("refused");
/// assert!(refused.to_string().starts_with("--where: expected a value after '>='"));
/// # Ok::<(), anyhow::Error>(())
/// ```
#[derive(Debug)]
pub struct Convert {
    options: ConvertOptions,
    /// The tables of players' tags, read once (`--player-tags`).
    players: Option<PlayerTags>,
    /// The games `--where` selects, its expression parsed once.
    selection: Option<Where>,
    /// Collectors and ply columns kept from game to game.
    spares: Spares,
}

/// Totals over the run: every game read is written or rejected.
#[derive(Debug, Default)]
struct Totals {
    written: u64,
    repaired: u64,
    rejected: u64,
    /// Rejected games written to the output as they were read (a rewrite in place).
    kept: u64,
    /// Rejected games written with their error (`--keep-broken`).
    broken: u64,
    /// Games `--where` selected, written or rejected.
    selected: u64,
}

impl Convert {
    /// The conversion `options` ask for.
    ///
    /// # Errors
    ///
    /// An option that would change nothing with the others given (`--traditional` with
    /// `--to san`, `--fix-results` with `--format csv`), named as the command line spells it,
    /// with what to do; an expression of `where_expr` that does not parse, shown with a caret
    /// where it is wrong.
    pub fn new(options: ConvertOptions) -> anyhow::Result<Convert> {
        options.refuse_options_that_do_not_apply()?;
        let sources = &options.rewrite.player_tags;
        let players = (!sources.is_empty())
            .then(|| PlayerTags::read(sources))
            .transpose()?;
        let selection = options
            .where_expr
            .as_deref()
            .map(Where::parse)
            .transpose()?;
        Ok(Convert {
            options,
            players,
            selection,
            spares: Spares::default(),
        })
    }

    /// The options the conversion was made with.
    pub fn options(&self) -> &ConvertOptions {
        &self.options
    }

    /// Converts the games of `input` as `pgnkit convert` does: to the output (a file replaced
    /// only when the run succeeds, or standard output; a folder of two files with
    /// [`Format::Parquet`]), rejected games to the rejects file and their diagnostics to
    /// standard error, the summary last.
    ///
    /// # Errors
    ///
    /// When the output or the rejects file cannot be created or written, or a rewrite in place
    /// would lose games.
    pub fn run(&self, input: InputOptions) -> anyhow::Result<Outcome> {
        let args = &self.options;
        if args.format == Format::Parquet {
            return self.run_parquet(input);
        }
        // The inputs are listed before any output is created: a new one is never read. (An
        // input given as `-o` is fine: it is replaced only once it has been read.)
        let mut inputs = Inputs::new(input)?;
        let in_place = args
            .output
            .as_deref()
            .is_some_and(|path| crate::input::open::is_an_input(path, inputs.sources()));
        // A rewrite in place leaves only what is written: a game not converted must be kept in
        // the output or go to --rejects.
        if let (true, Some(path), Some(expr)) = (in_place, &args.output, args.where_expr.as_deref())
        {
            bail!(
                "refusing to rewrite {} in place with --where '{expr}': the games it leaves out \
                 would be lost; write the games selected to another file",
                path.display()
            );
        }
        let keep_rejected = in_place && args.rejects.is_none();
        if keep_rejected && args.format != Format::Pgn {
            if let Some(path) = &args.output {
                bail!(
                    "refusing to rewrite {} in place as {}: games that cannot be converted would \
                     be lost; give --rejects FILE for them, or write to another file",
                    path.display(),
                    args.format.name()
                );
            }
        }
        staged::refuse_inputs_as_outputs(
            &[("--rejects", args.rejects.as_deref())],
            inputs.sources(),
        )?;
        staged::refuse_two_on_stdout(&[
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
        let totals = self.convert_all(
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

    /// [`Format::Parquet`]: the two files are written beside their final names and renamed
    /// into place once every input was read, so a failed or interrupted run leaves what was
    /// there.
    fn run_parquet(&self, input: InputOptions) -> anyhow::Result<Outcome> {
        let args = &self.options;
        let Some(dir) = args.output.as_deref() else {
            bail!(
                "--format parquet writes two files (games.parquet and moves.parquet), so it \
                 needs a folder for them: give -o DIR"
            );
        };
        if staged::is_stdout(dir) {
            bail!(
                "--format parquet writes a folder of two files, which standard output cannot \
                 hold: give -o DIR"
            );
        }
        let mut inputs = Inputs::new(input)?;
        if dir.is_file() {
            bail!(
                "-o {}: --format parquet writes a folder of two files, and this is a file; \
                 give a folder (it is created if missing)",
                dir.display()
            );
        }
        fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let mut staged = StagedFiles::new();
        let games = staged.create(&dir.join("games.parquet"))?;
        let moves = staged.create(&dir.join("moves.parquet"))?;
        let out_name = dir.display().to_string();
        let failed = |e: parquet::errors::ParquetError| {
            WriteError::new(out_name.as_str(), io::Error::other(e))
        };
        let columns = (args.table_moves_columns(), args.game_columns());
        let compression = args.parquet_compression.unwrap_or_default();
        let mut pq =
            ParquetOut::with_columns(games, moves, columns, compression).map_err(failed)?;
        let mut push = |row: &GameRecord| pq.push(row).map_err(failed);
        let outcome = self.run_rows(&mut inputs, &mut push)?;
        // The commit below flushes the files to disk.
        pq.finish().map_err(failed)?;
        commit_outputs(staged, &inputs, None)?;
        Ok(outcome)
    }

    /// Converts the games of `inputs` as [`Format::Parquet`] does and hands each converted
    /// game's row to `each`, in input order (the Python package builds its Arrow tables so).
    /// Rejected games go to the rejects file and their diagnostics to standard error, as with
    /// the command.
    ///
    /// # Errors
    ///
    /// Errors of `each`, and of the rejects file.
    pub fn run_rows(&self, inputs: &mut Inputs, each: &mut RowSink<'_>) -> anyhow::Result<Outcome> {
        let mut staged = StagedFiles::new();
        let totals =
            self.convert_all(inputs, &mut staged, false, "", &mut io::sink(), Some(each))?;
        staged::commit_after(staged, inputs)?;
        Ok(inputs.outcome_with(totals.rejected > 0))
    }

    /// Converts one game (its whole text in `bytes`: tags if any, then movetext) as
    /// [`Format::Parquet`] does and gives its row, numbered `number`: the Python package's
    /// `parse_movetext`, which has games one by one rather than an input to read. With
    /// [`ConvertOptions::every_row`] a rejected game gets its row too; otherwise it gives
    /// `None`, as for a game [`ConvertOptions::where_expr`] leaves out. `lexed` is scratch,
    /// kept from game to game.
    pub fn game_row(
        &self,
        bytes: &[u8],
        name: &str,
        number: u64,
        lexed: &mut Lexed,
    ) -> Option<Box<GameRecord<'static>>> {
        let mut visitor = (self.row_collector(), None);
        self.row_with(bytes, name, number, lexed, &mut visitor)
    }

    /// [`Convert::game_row`] for a caller that converts game after game (the Python
    /// package's `parse_movetext`): `scratch` keeps the lexed tags from one game to the next,
    /// and the conversion its collectors; hand each row back once read
    /// ([`Convert::recycle`]) and the next game allocates nothing for its plies.
    ///
    /// ```
    /// use pgnkit::convert::{Convert, ConvertOptions, Format, RowScratch};
    ///
    /// let convert = Convert::new(ConvertOptions {
    ///     format: Format::Parquet,
    ///     numbers: true,
    ///     no_movetext: true,
    ///     ..ConvertOptions::default()
    /// })?;
    /// let mut scratch = RowScratch::default();
    /// for (i, game) in [&b"1. e4 e5 2. Qh5 Nc6 *"[..], b"1. d4 -- 2. c4 e5 *"].iter().enumerate() {
    ///     let row = convert.game_row_in(game, "", i as u64, &mut scratch).expect("it replays");
    ///     assert_eq!(row.plies.len(), 4);
    ///     convert.recycle(row);
    /// }
    /// # Ok::<(), anyhow::Error>(())
    /// ```
    pub fn game_row_in(
        &self,
        bytes: &[u8],
        name: &str,
        number: u64,
        scratch: &mut RowScratch,
    ) -> Option<Box<GameRecord<'static>>> {
        let collector = self
            .spares
            .collector(Made::ForRows, &self.options, || self.row_collector());
        let mut visitor = (collector, None);
        let row = self.row_with(bytes, name, number, &mut scratch.lexed, &mut visitor);
        self.spares.keep_collector(Made::ForRows, visitor.0);
        row
    }

    /// Takes back a row of [`Convert::game_row_in`] once it was read: the next game's plies
    /// go where its plies were.
    pub fn recycle(&self, row: Box<GameRecord<'_>>) {
        self.spares.keep_columns(row);
    }

    /// The collector of a game's row ([`Convert::game_row`]).
    /// [`Convert::game_row`] with every move told, even where the main line told at once
    /// would do ([`Collector::main_line_only`]): what the tests compare that with.
    #[cfg(test)]
    pub(crate) fn game_row_every_move(
        &self,
        bytes: &[u8],
        number: u64,
        lexed: &mut Lexed,
    ) -> Option<Box<GameRecord<'static>>> {
        let mut collector = self.row_collector();
        collector.main_line_only = false;
        self.row_with(bytes, "t.pgn", number, lexed, &mut (collector, None))
    }

    fn row_collector(&self) -> Collector {
        let args = &self.options;
        let mut collector = Collector::new(args.notation(), false);
        args.set_up_for_rows(&mut collector);
        collector.reserve(PLIES_RESERVED);
        collector
    }

    /// A game's row, replayed with `visitor` (emptied).
    fn row_with(
        &self,
        bytes: &[u8],
        name: &str,
        number: u64,
        lexed: &mut Lexed,
        visitor: &mut GameVisitor,
    ) -> Option<Box<GameRecord<'static>>> {
        let args = &self.options;
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
        let opts = args.check_options();
        let players = self.players.as_ref();
        let selection = self.selection.as_ref();
        convert_one(&mut game, name, &opts, players, args, visitor, selection).row
    }

    /// One game (whole, not [open](Game::is_open)) written as the options say: `pgnkit select
    /// --to/--format`, through the same writer as the command. Returns the diagnostics for
    /// standard error and the written game, `None` when the game is rejected (it does not
    /// replay).
    pub fn game(&self, game: &mut Game<'_>, name: &str) -> (Vec<u8>, Option<Vec<u8>>) {
        let args = &self.options;
        // Select's options are convert's defaults but --to and --format: no --repair, no
        // --add-eco, no Parquet (select refuses it).
        let opts = args.check_options();
        let players = self.players.as_ref();
        let done = self.with_visitor(None, |visitor| {
            convert_one(game, name, &opts, players, args, visitor, None)
        });
        (done.diagnostics, (!done.rejected).then_some(done.body))
    }

    /// Runs `f` with a visitor for a game of a run: a kept collector (or a new one) beside
    /// the classifier of openings of `eco_table`; the collector is kept again afterwards.
    fn with_visitor<T>(
        &self,
        eco_table: Option<&'static crate::eco::Table>,
        f: impl FnOnce(&mut GameVisitor) -> T,
    ) -> T {
        let args = &self.options;
        let collector = self
            .spares
            .collector(Made::ForRun, args, || args.collector());
        let mut visitor = (collector, eco_table.map(crate::eco::EcoObserver::new));
        let out = f(&mut visitor);
        self.spares.keep_collector(Made::ForRun, visitor.0);
        out
    }

    /// The CSV header [`Format::Csv`] starts with.
    pub fn csv_header() -> Vec<u8> {
        let mut w = csv::Writer::from_writer(Vec::new());
        let _ = w.write_record(records::CSV_HEADER);
        w.into_inner().unwrap_or_default()
    }

    fn convert_all(
        &self,
        inputs: &mut Inputs,
        staged: &mut StagedFiles,
        keep_rejected: bool,
        out_name: &str,
        out: &mut impl Write,
        mut rows: Option<&mut RowSink<'_>>,
    ) -> anyhow::Result<Totals> {
        let args = &self.options;
        let opts: CheckOptions = args.check_options();
        let mut rejects = staged::rejects_file(staged, args.rejects.as_deref())?;
        let rejects_name = || staged::display_name(args.rejects.as_deref());
        let written = |e| WriteError::new(out_name, e);
        out.write_all(args.output_encoding.preamble())
            .map_err(written)?;
        if args.format == Format::Csv {
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
        let eco_table = args
            .add_eco
            .then(|| crate::eco::table_at(args.eco_table.as_deref()))
            .transpose()?;
        let mut totals = Totals::default();
        let players = self.players.as_ref();
        let selection = self.selection.as_ref();
        let spares = &self.spares;
        let work = |name: &str, game: &mut Game<'_>| {
            self.with_visitor(eco_table, |visitor| {
                convert_one(game, name, &opts, players, args, visitor, selection)
            })
        };
        let sink = |_: &str, g: Converted| -> Result<(), WriteError> {
            if !g.selected {
                return Ok(());
            }
            totals.selected += 1;
            io::stderr()
                .lock()
                .write_all(&g.diagnostics)
                .map_err(|e| WriteError::new("to standard error", e))?;
            if g.rejected {
                totals.rejected += 1;
                crate::outcome::found(Outcome::Problems);
                if g.kept_broken {
                    totals.broken += 1;
                    return out.write_all(&g.body).map_err(written);
                }
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
                    (Some(push), Some(row)) => {
                        push(&row)?;
                        spares.keep_columns(row);
                        Ok(())
                    }
                    _ => Ok(()),
                };
            }
            totals.written += 1;
            totals.repaired += u64::from(g.repaired);
            if let (Some(push), Some(row)) = (rows.as_deref_mut(), g.row) {
                push(&row)?;
                spares.keep_columns(row);
                return Ok(());
            }
            out.write_all(&g.body).map_err(written)
        };
        // Tags only: plain movetext is replayed from the bytes (see `convert_one`).
        inputs.run(work, sink, |p| p.to_stderr())?;
        if inputs.totals.broken_pipe {
            return Ok(totals);
        }
        if let Some(mut w) = rejects {
            w.flush().map_err(|e| WriteError::new(rejects_name(), e))?;
        }
        // Before the summary: it counts the games written.
        out.flush().map_err(written)?;
        inputs.summary(
            args.quiet,
            format_args!(
                "{}{} written ({} repaired), {} rejected{}",
                selection.map_or_else(String::new, |_| format!(
                    "{} selected, ",
                    crate::tree::write::counted(totals.selected, "game", "games")
                )),
                totals.written,
                totals.repaired,
                totals.rejected,
                if totals.kept > 0 {
                    format!(" ({} kept as they were)", totals.kept)
                } else if totals.broken > 0 {
                    format!(" ({} written broken)", totals.broken)
                } else {
                    String::new()
                },
            ),
        )?;
        Ok(totals)
    }
}

/// The collectors of games converted, and the ply columns of rows read, kept for the games
/// after them: made anew for each game, a collector and its vectors cost about a tenth of a
/// row, and with the boards, whose vectors grow ply by ply, a third of `read_moves`' time.
/// Shared by the pipeline's threads (a lock a game, never waited for long); at most
/// [`Spares::KEPT`] of each are kept, and none that grew for a huge game, so memory stays
/// what the games in flight take.
#[derive(Default)]
struct Spares {
    /// By [`Made`]: the two are set up apart.
    collectors: [std::sync::Mutex<Vec<Collector>>; 2],
    columns: std::sync::Mutex<Vec<super::arrow::PlyColumns>>,
}

/// What a kept collector was made for: a run over inputs ([`ConvertOptions::collector`], in
/// the output's format) or one game's row ([`Convert::row_collector`]).
#[derive(Clone, Copy)]
enum Made {
    ForRun,
    ForRows,
}

impl std::fmt::Debug for Spares {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Spares")
            .field("run", &lock(&self.collectors[0]).len())
            .field("rows", &lock(&self.collectors[1]).len())
            .field("columns", &lock(&self.columns).len())
            .finish()
    }
}

impl Spares {
    const KEPT: usize = 64;

    /// A collector for the next game: a kept one cleared (for rows, with ply columns, a
    /// row's back or new, if the last row took its own), or a new one (`make`).
    fn collector(
        &self,
        made: Made,
        args: &ConvertOptions,
        make: impl FnOnce() -> Collector,
    ) -> Collector {
        let kept = lock(&self.collectors[made as usize]).pop();
        let Some(mut collector) = kept else {
            return make();
        };
        collector.clear();
        let rows = matches!(made, Made::ForRows) || args.format == Format::Parquet;
        if rows && collector.columns.is_none() {
            let columns = lock(&self.columns).pop();
            collector.columns = Some(Box::new(columns.map_or_else(
                || args.ply_columns(),
                |mut c| {
                    c.clear();
                    c
                },
            )));
        }
        collector
    }

    fn keep_collector(&self, made: Made, collector: Collector) {
        if collector.room() <= Self::LARGEST_KEPT {
            keep(&self.collectors[made as usize], collector);
        }
    }

    /// Takes back the ply columns of a row that was read.
    fn keep_columns(&self, row: Box<GameRecord<'_>>) {
        let GameRecord { plies, .. } = *row;
        if plies.capacity() <= Self::LARGEST_KEPT {
            keep(&self.columns, plies);
        }
    }

    /// The most plies a kept collector or row has room for.
    const LARGEST_KEPT: usize = 4 * PLIES_RESERVED;
}

fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn keep<T>(kept: &std::sync::Mutex<Vec<T>>, spare: T) {
    let mut kept = lock(kept);
    if kept.len() < Spares::KEPT {
        kept.push(spare);
    }
}

/// What [`Convert::game_row_in`] keeps from one game to the next on a thread: the game's
/// lexed tags (the collectors are the conversion's own, kept for every thread).
#[derive(Default)]
pub struct RowScratch {
    lexed: Lexed,
}

/// Puts the output files in place as [`staged::commit_after`] does, unless `left` names an
/// output rewritten in place from an input that was not read whole: that is said on standard
/// error, and what was there stays.
///
/// # Errors
///
/// When a file cannot be put in place, or standard error cannot be written.
fn commit_outputs(staged: StagedFiles, inputs: &Inputs, left: Option<&Path>) -> anyhow::Result<()> {
    if let Some(path) = left {
        say(format_args!(
            "pgnkit: {} left as it was: an input could not be read whole, and rewriting it in \
             place would lose what was not read",
            path.display()
        ))?;
        return Ok(());
    }
    staged::commit_after(staged, inputs)?;
    Ok(())
}
