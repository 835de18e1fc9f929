//! The selection as a run ([`Select`]): the expression parsed and the options checked once,
//! then every game of the inputs tested on the workers (by its tags first, replayed only when
//! the expression still depends on the replay) and the selected ones written in input order,
//! as read or through [`Convert`].

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use anyhow::bail;

use super::criteria::{self, MatchRanges};
use super::tags::{Nearest, TagWatch};
use super::Selection;
use crate::convert::{Convert, ConvertOptions, Format, ToNotation};
use crate::diag::Severity;
use crate::input::pipeline::Game;
use crate::input::{Found, InputOptions, Inputs};
use crate::outcome::{Outcome, WriteError};
use crate::report::staged::{self, StagedFiles};
use crate::rules::game::CheckOptions;

/// What a selection does: the options of `pgnkit select` as typed, each named after its flag.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelectOptions {
    /// The games to select, as an expression (`--where`): `Result = "1-0" and player =
    /// "Carlsen*"`.
    pub expr: String,
    /// Select the games that do not match.
    pub invert: bool,
    /// Print only the number of games selected.
    pub count: bool,
    /// The output file (`None` or `-`: standard output), replaced only when the run succeeds.
    pub output: Option<PathBuf>,
    /// Write the selected games in this notation, through [`Convert`].
    pub to: Option<ToNotation>,
    /// Write the selected games in this format, through [`Convert`] ([`Format::Parquet`] is
    /// refused).
    pub format: Option<Format>,
    /// The opening table `eco` and `opening` test with, instead of the built-in one.
    pub eco_table: Option<PathBuf>,
    /// The largest game read, in MiB (`--max-game-size`): it bounds a game's memory while it
    /// is converted too.
    pub max_game_size: usize,
    /// No closing summary on standard error.
    pub quiet: bool,
    /// A file of expressions, one a line (`#` comments): a game matches when any line does
    /// (`--where-file`), and the `expr` given too.
    pub where_file: Option<PathBuf>,
    /// pgn-extract's tag file (`--tag-file`, its `-t`): see [`criteria::tag_file`].
    pub tag_file: Option<PathBuf>,
    /// Position patterns (`--fen-pattern`): a game matches when its main line reaches a
    /// position one of them matches (see [`super::pattern`]).
    pub fen_patterns: Vec<String>,
    /// pgn-extract's material files: `-y` (the first set White's, `--materialy`) and `-z`
    /// (either side's, `--materialz`); see [`super::material::Balance`].
    pub material_y: Option<PathBuf>,
    pub material_z: Option<PathBuf>,
    /// Write only these of the matched games, counted from 1 (`--selectonly`).
    pub select_only: Option<MatchRanges>,
    /// Write the matched games but these (`--skipmatching`).
    pub skip_matching: Option<MatchRanges>,
    /// Also write the games not selected to this file (`--non-matching`), in the same pass.
    pub non_matching: Option<PathBuf>,
    /// Put this comment after the move where a selected game first matched
    /// (`--mark-matches`, pgn-extract's `--markmatches`); see [`super::mark`].
    pub mark_matches: Option<String>,
    /// Add a `MatchLabel` tag naming the test that matched, when it has a name
    /// (`--add-label-tag`, pgn-extract's `--addlabeltag`).
    pub add_label_tag: bool,
    /// Look for positions from this ply on (`--start-ply`, pgn-extract's `--startply`): every
    /// test of positions as if written with `at N..`.
    pub start_ply: Option<u32>,
}

impl SelectOptions {
    /// Selects the games that match `expr`, written as read to standard output: every other
    /// option at the command's default.
    pub fn new(expr: impl Into<String>) -> SelectOptions {
        SelectOptions {
            expr: expr.into(),
            invert: false,
            count: false,
            output: None,
            to: None,
            format: None,
            eco_table: None,
            max_game_size: crate::input::DEFAULT_MAX_GAME_MIB,
            quiet: false,
            where_file: None,
            tag_file: None,
            fen_patterns: Vec::new(),
            material_y: None,
            material_z: None,
            select_only: None,
            skip_matching: None,
            non_matching: None,
            mark_matches: None,
            add_label_tag: false,
            start_ply: None,
        }
    }
}

/// A selection whose expression was parsed and whose options were checked, with the
/// conversion and the opening table it needs.
///
/// ```
/// use pgnkit::input::InputOptions;
/// use pgnkit::outcome::Outcome;
/// use pgnkit::select::{Select, SelectOptions};
///
/// let games = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/select/games.pgn");
/// let out = std::env::temp_dir().join(format!("pgnkit-select-doc-{}.pgn", std::process::id()));
/// let mut options = SelectOptions::new(r#"Result = "1-0" and player = "Carlsen*""#);
/// options.output = Some(out.clone());
/// options.quiet = true;
/// let outcome = Select::new(options)?.run(InputOptions::new(vec![games.into()]))?;
/// assert_eq!(outcome, Outcome::Clean);
/// let written = std::fs::read_to_string(&out)?;
/// assert!(written.starts_with("[Event \"Candidates 2024\"]"), "{written}");
/// std::fs::remove_file(&out)?;
///
/// // A wrong expression is refused before any input is read, with a caret under it.
/// let wrong = Select::new(SelectOptions::new("Result = ")).err().expect("refused");
/// assert!(wrong.to_string().starts_with("--where: "), "{wrong}");
/// # Ok::<(), anyhow::Error>(())
/// ```
#[derive(Debug)]
pub struct Select {
    options: SelectOptions,
    selection: Selection,
    /// The conversion of `to`/`format`, when either is given.
    convert: Option<Convert>,
    /// The opening table, when the expression tests the classified opening.
    eco_table: Option<&'static crate::eco::Table>,
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

impl Select {
    /// The selection `options` ask for.
    ///
    /// # Errors
    ///
    /// A wrong expression (shown with a caret under the problem), an option that does not
    /// apply with the others (named as the command line spells it), or an opening table that
    /// cannot be read.
    pub fn new(options: SelectOptions) -> anyhow::Result<Select> {
        let selection = selection_of(&options)?;
        refuse_options_that_do_not_apply(&options, &selection)?;
        let convert = convert_with(&options)?;
        // Read once for the run; its positions are indexed at the first game replayed.
        let eco_table = selection.opening_table(options.eco_table.as_deref())?;
        Ok(Select {
            options,
            selection,
            convert,
            eco_table,
        })
    }

    /// Selects the games of `input` as `pgnkit select` does: the selected ones to the output
    /// (or their number with `count`), the summary last. Its outcome is [`Outcome::Problems`]
    /// when no game was selected.
    ///
    /// # Errors
    ///
    /// An output that is one of the inputs, or that cannot be created or written.
    pub fn run(&self, input: InputOptions) -> anyhow::Result<Outcome> {
        let args = &self.options;
        // The inputs are listed before the output is created: a new one is never read.
        let mut inputs = Inputs::new(input)?;
        crate::report::staged::refuse_inputs_as_outputs(
            &[
                ("-o", args.output.as_deref()),
                ("--non-matching", args.non_matching.as_deref()),
            ],
            inputs.sources(),
        )?;
        let on_stdout = |path: Option<&std::path::Path>| path.is_none_or(staged::is_stdout);
        staged::refuse_two_on_stdout(&[
            (
                if args.count { "--count" } else { "-o" },
                args.count || on_stdout(args.output.as_deref()),
            ),
            (
                "--non-matching",
                args.non_matching.as_deref().is_some_and(staged::is_stdout),
            ),
        ])?;
        // `-o FILE` replaces the file only when the run succeeds (see `StagedFiles::create`).
        let mut staged = StagedFiles::new();
        let out_name = staged::display_name(args.output.as_deref());
        let written = |e| WriteError::new(out_name.as_str(), e);
        // Its errors name the file (or standard output).
        let out = staged.open(args.output.as_deref())?;
        let mut out = BufWriter::with_capacity(1 << 16, out);
        let others_name = staged::display_name(args.non_matching.as_deref());
        let written_others = |e| WriteError::new(others_name.as_str(), e);
        let mut others = match &args.non_matching {
            Some(path) => Some(BufWriter::with_capacity(
                1 << 16,
                staged
                    .open(Some(path))
                    .map_err(|e| anyhow::anyhow!("--non-matching {}: {e}", path.display()))?,
            )),
            None => None,
        };
        if self
            .convert
            .as_ref()
            .is_some_and(|c| c.options().format == Format::Csv)
        {
            out.write_all(&Convert::csv_header()).map_err(written)?;
            if let Some(others) = &mut others {
                others
                    .write_all(&Convert::csv_header())
                    .map_err(written_others)?;
            }
        }
        let mut matched = 0u64;

        let opts = CheckOptions::default();
        let (mut selected, mut unwritten) = (0u64, 0u64);
        let tag_watch = TagWatch::new(self.selection.tag_names());
        let mut nearest = Nearest::default();
        let shared = Shared {
            selection: &self.selection,
            opts: &opts,
            args,
            convert: self.convert.as_ref(),
            eco_table: self.eco_table,
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
            // `--selectonly` and `--skipmatching` count the matches in the order written.
            let kept = p.selected && {
                matched += 1;
                args.select_only
                    .as_ref()
                    .is_none_or(|r| r.contains(matched))
                    && !args
                        .skip_matching
                        .as_ref()
                        .is_some_and(|r| r.contains(matched))
            };
            if !kept {
                if let Some(others) = &mut others {
                    others.write_all(&p.text).map_err(written_others)?;
                }
                return Ok(());
            }
            selected += 1;
            unwritten += u64::from(p.unwritten);
            if !args.count {
                out.write_all(&p.text).map_err(written)?;
            }
            Ok(())
        };
        inputs.run(work, sink, |p| p.to_stderr())?;
        if inputs.totals.broken_pipe {
            return Ok(crate::outcome::found_so_far());
        }
        if args.count {
            writeln!(out, "{selected}").map_err(written)?;
        }
        out.flush().map_err(written)?;
        drop(out);
        if let Some(mut others) = others {
            others.flush().map_err(written_others)?;
        }
        crate::report::staged::commit_after(staged, &inputs)?;
        if inputs.totals.games > 0 {
            warn_of_missing_tags(&tag_watch, &nearest)?;
        }
        inputs.summary(
            args.quiet,
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
}

/// The selection of `--where`, `--where-file`, `--tag-file`, `--materialy`, `--materialz` and
/// `--fen-pattern`, and-ed.
/// Each is parsed alone first, so that a problem is shown where it is, in its own text.
///
/// # Errors
///
/// The first wrong criterion, named as the command line gives it; a file that cannot be
/// read.
fn selection_of(options: &SelectOptions) -> anyhow::Result<Selection> {
    let mut parts: Vec<String> = Vec::new();
    let check = |what: &str, src: &str| -> anyhow::Result<()> {
        Selection::parse(src)
            .map(drop)
            .map_err(|e| anyhow::anyhow!("{what}: {}", e.render(src)))
    };
    let given = options.where_file.is_some()
        || options.tag_file.is_some()
        || options.material_y.is_some()
        || options.material_z.is_some()
        || !options.fen_patterns.is_empty();
    let ranges = options.select_only.is_some() || options.skip_matching.is_some();
    if options.expr.is_empty() && !given && ranges {
        // `--selectonly` alone, as pgn-extract takes it: every game matches.
        return Ok(Selection::everything());
    }
    if !options.expr.is_empty() || !given {
        check("--where", &options.expr)?;
        parts.push(options.expr.clone());
    }
    let read = |option: &str, path: &std::path::Path| {
        std::fs::read_to_string(path)
            .map_err(|e| anyhow::anyhow!("{option} {}: {e}", path.display()))
    };
    if let Some(path) = &options.where_file {
        let text = read("--where-file", path)?;
        let lines = criteria::where_lines(&text);
        for &(n, line) in &lines {
            check(&format!("--where-file {}:{n}", path.display()), line)?;
        }
        if lines.is_empty() {
            bail!(
                "--where-file {}: no expression in the file (one a line; # starts a comment)",
                path.display()
            );
        }
        let alternatives: Vec<String> = lines.iter().map(|(_, l)| format!("({l})")).collect();
        parts.push(alternatives.join(" or "));
    }
    if let Some(path) = &options.tag_file {
        let text = read("--tag-file", path)?;
        let expr = criteria::tag_file(&text)
            .map_err(|e| anyhow::anyhow!("--tag-file {}: {e}", path.display()))?;
        check(&format!("--tag-file {}", path.display()), &expr)?;
        parts.push(expr);
    }
    for (option, path, either) in [
        ("--materialy", &options.material_y, false),
        ("--materialz", &options.material_z, true),
    ] {
        let Some(path) = path else { continue };
        let expr = criteria::material_file(&read(option, path)?, either)
            .map_err(|e| anyhow::anyhow!("{option} {}: {e}", path.display()))?;
        check(&format!("{option} {}", path.display()), &expr)?;
        parts.push(expr);
    }
    if !options.fen_patterns.is_empty() {
        let patterns: Vec<String> = options
            .fen_patterns
            .iter()
            .map(|p| format!("pattern = {}", criteria::quote(p)))
            .collect();
        for p in &patterns {
            check("--fen-pattern", p)?;
        }
        parts.push(patterns.join(" or "));
    }
    let src = match &parts[..] {
        [one] => one.clone(),
        _ => parts
            .iter()
            .map(|p| format!("({p})"))
            .collect::<Vec<_>>()
            .join(" and "),
    };
    let mut selection = Selection::parse(&src)
        .map_err(|e| anyhow::anyhow!("the criteria together: {}", e.render(&src)))?;
    if let Some(ply) = options.start_ply {
        if selection.targets().is_empty() {
            bail!(
                "--start-ply starts the search for positions at a ply, and no test looks for \
                 one (position, pattern, material, balance...): drop --start-ply"
            );
        }
        selection.start_at(ply);
    }
    Ok(selection)
}

/// Refuses options that would change nothing with the others given.
///
/// # Errors
///
/// The first such option, with what to do.
fn refuse_options_that_do_not_apply(
    args: &SelectOptions,
    selection: &Selection,
) -> anyhow::Result<()> {
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
    let marks = [
        ("--mark-matches", args.mark_matches.is_some()),
        ("--add-label-tag", args.add_label_tag),
    ];
    for (option, _) in marks.into_iter().filter(|(_, given)| *given) {
        if args.count || args.to.is_some() || args.format.is_some() {
            bail!(
                "{option} marks the games written as read: drop --count, --to and --format \
                 (convert the games it writes afterwards)"
            );
        }
        if args.invert {
            bail!("{option} marks where a game matched, and --invert writes those that did not");
        }
    }
    if args
        .mark_matches
        .as_deref()
        .is_some_and(|c| c.contains(['{', '}']))
    {
        bail!("--mark-matches: a comment cannot hold {{ or }}");
    }
    if args.format == Some(Format::Parquet) {
        bail!(
            "select writes no Parquet: select to PGN, then `pgnkit convert --format parquet` \
             the result"
        );
    }
    Ok(())
}

/// The conversion of `--to`/`--format`, every other option at convert's default.
fn convert_with(args: &SelectOptions) -> anyhow::Result<Option<Convert>> {
    if args.to.is_none() && args.format.is_none() {
        return Ok(None);
    }
    let options = ConvertOptions {
        to: args.to.unwrap_or_default(),
        format: args.format.unwrap_or_default(),
        // A game's memory while it is converted is bounded by select's own size limit.
        max_game_size: args.max_game_size,
        ..ConvertOptions::default()
    };
    Convert::new(options).map(Some)
}

/// What every game of the run is selected with, shared by the workers.
#[derive(Clone, Copy)]
struct Shared<'a> {
    selection: &'a Selection,
    opts: &'a CheckOptions,
    args: &'a SelectOptions,
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
    // A tagless game in the book layout has its header read as tags before they are looked at.
    crate::pgn::book::extract_header(game.bytes, game.lexed);
    let nearest = tag_watch.look(game.lexed);
    let decided = selection.decide(game, name, opts, eco_table);
    let first_match = (args.mark_matches.is_some() || args.add_label_tag)
        .then(|| decided.first_match(selection))
        .flatten();
    let (matched, errors) = (
        decided.matched,
        decided
            .report
            .as_ref()
            .map_or(0, |r| r.count(Severity::Error) as u64),
    );
    let mut picked = Picked {
        selected: matched != args.invert,
        text: Vec::new(),
        diagnostics: Vec::new(),
        unwritten: false,
        errors,
        nearest,
    };
    // The games not selected are written only to --non-matching; a selected one may go
    // there too when --selectonly or --skipmatching leave it out.
    let ranges = args.select_only.is_some() || args.skip_matching.is_some();
    let others = args.non_matching.is_some();
    let written = if picked.selected {
        !args.count || (others && ranges)
    } else {
        others
    };
    if !written {
        return picked;
    }
    if game.bytes.is_empty() {
        // An oversized game: the reader kept none of its bytes.
        let _ = writeln!(
            picked.diagnostics,
            "pgnkit: {name}:{}: game {} is {} but larger than --max-game-size, so it \
             was not kept and is not written; raise --max-game-size",
            game.line,
            game.number,
            if picked.selected {
                "selected"
            } else {
                "not selected"
            },
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
            // The game as read (marked where it matched), and one blank line after it.
            let marked = first_match.as_ref().filter(|_| picked.selected).map(|at| {
                super::mark::marked(
                    game.bytes,
                    at,
                    args.mark_matches.as_deref(),
                    args.add_label_tag,
                )
            });
            let bytes = marked.as_deref().unwrap_or(game.bytes);
            picked.text.reserve(bytes.len() + 2);
            picked.text.extend_from_slice(bytes);
            picked.text.extend_from_slice(if bytes.ends_with(b"\n") {
                b"\n"
            } else {
                b"\n\n"
            });
        }
    }
    picked
}
