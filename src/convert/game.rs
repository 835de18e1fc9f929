//! The per-game step of a conversion: one game replayed, then written in the format asked
//! for (or its row for the Arrow tables), with the diagnostics to show beside it. It runs on
//! the pipeline's workers and writes only into vectors.

use std::io::Write;

use super::encode::OutputEncoding;
use super::options::{ConvertOptions, Format};
use super::pgn::{self as pgn_out, Layout};
use super::players::PlayerTags;
use super::record::{GameRecord, RowFinding};
use super::{records, GameVisitor, Keep};
use crate::diag::{Code, Finding, Severity};
use crate::eco::EcoObserver;
use crate::input::pipeline::Game;
use crate::pgn::{Lexed, Movetext};
use crate::report::{self, RenderOptions};
use crate::rules::game::{CheckOptions, GameReport};
use crate::select::Selection;

/// One game converted on a worker: what to print and write, in input order.
pub(super) struct Converted {
    /// Diagnostics for standard error (rejected games, repairs).
    pub(super) diagnostics: Vec<u8>,
    /// The converted game.
    pub(super) body: Vec<u8>,
    pub(super) rejected: bool,
    pub(super) repaired: bool,
    /// The game's bytes, for `--rejects` or to be kept as they were.
    pub(super) reject: Option<Vec<u8>>,
    /// The game's record for the tables (`--format parquet`).
    pub(super) row: Option<Box<GameRecord<'static>>>,
    /// Rejected, but written with its error (`--keep-broken`): `body` holds it.
    pub(super) kept_broken: bool,
    /// `--where` selected the game (or none was given); one it leaves out is neither written
    /// nor rejected.
    pub(super) selected: bool,
}

/// The games `--where` selects: the expression, parsed once, and the opening table its `eco`
/// and `opening` tests classify with.
#[derive(Debug)]
pub(super) struct Where {
    pub(super) selection: Selection,
    pub(super) eco_table: Option<&'static crate::eco::Table>,
}

impl Where {
    /// Parses `src` as `select --where` does.
    ///
    /// # Errors
    ///
    /// The expression's error, rendered under it with a caret where it is wrong.
    pub(super) fn parse(src: &str) -> anyhow::Result<Where> {
        let selection =
            Selection::parse(src).map_err(|e| anyhow::anyhow!("--where: {}", e.render(src)))?;
        let eco_table = selection.opening_table(None)?;
        Ok(Where {
            selection,
            eco_table,
        })
    }
}

impl Converted {
    /// A game `--where` leaves out: nothing of it is written or said.
    fn left_out() -> Converted {
        Converted {
            diagnostics: Vec::new(),
            body: Vec::new(),
            rejected: false,
            repaired: false,
            reject: None,
            row: None,
            kept_broken: false,
            selected: false,
        }
    }
}

impl crate::input::Found for Converted {
    fn errors(&self) -> u64 {
        u64::from(self.rejected)
    }
}

/// Converts one game (runs on a worker thread), lexed to its tags. Writing into vectors cannot
/// fail.
///
/// The replay tells the collector the moves, comments, NAGs and variations in order, from
/// whichever of its loops played the game; the elements written are made of what it told.
pub(super) fn convert_one(
    game: &mut Game<'_>,
    name: &str,
    opts: &CheckOptions,
    players: Option<&PlayerTags>,
    args: &ConvertOptions,
    visitor: &mut GameVisitor,
    selection: Option<&Where>,
) -> Converted {
    // Plain text: the diagnostics go to standard error beside the output.
    let render = &RenderOptions::default();
    let mut report = match selection {
        None => game.check(opts, visitor),
        Some(selected) => {
            // The tags first; a game that depends on the replay is decided in the one that
            // converts it.
            let decided =
                selected
                    .selection
                    .decide_with(game, name, opts, selected.eco_table, visitor);
            match decided.report.filter(|_| decided.matched) {
                Some(report) => report,
                None => return Converted::left_out(),
            }
        }
    };
    // The main line told at once could not write the game's movetext (a variation, a null
    // move), or the game is broken: it is replayed again with every move told. Such games are
    // few in the databases that are many games; the rest are written without a position
    // copied a ply.
    if visitor.0.replay_every_move(super::is_rejected(&report)) {
        if let Some(eco) = visitor.1.as_mut() {
            eco.clear();
        }
        report = game.check(opts, visitor);
    }
    let keep = args.keep();
    let mut done = convert_game(game, name, report, keep, render, args, visitor, players);
    if args.output_encoding != OutputEncoding::Utf8 && !done.body.is_empty() {
        encode_body(&mut done, game, name, args.output_encoding);
    }
    done
}

/// Puts the game's text in `encoding`; a game with a character the encoding cannot hold is
/// rejected instead, an error for each such character.
fn encode_body(done: &mut Converted, game: &Game<'_>, name: &str, encoding: OutputEncoding) {
    let text = String::from_utf8_lossy(&done.body);
    match super::encode::encode(&text, encoding) {
        Ok(bytes) => done.body = bytes,
        Err(bad) => {
            let white = game.lexed.tag("White").unwrap_or("?");
            let black = game.lexed.tag("Black").unwrap_or("?");
            for b in bad {
                let _ = writeln!(
                    done.diagnostics,
                    "error: {name}:{}: game {} ({white} – {black}): {}: {:?} (U+{:04X}) cannot \
                     be written in {}; the game is not written (write it in UTF-8, or mend the \
                     name or comment)",
                    game.line,
                    game.number,
                    b.place,
                    b.ch,
                    u32::from(b.ch),
                    encoding.name()
                );
            }
            done.body.clear();
            done.rejected = true;
            done.kept_broken = false;
            done.reject = Some(game.bytes.to_vec());
        }
    }
}

/// [`convert_one`] before the output encoding, the game replayed (`report`).
#[allow(clippy::too_many_arguments)] // the one call is convert_one's
fn convert_game(
    game: &mut Game<'_>,
    name: &str,
    mut report: GameReport,
    keep: Keep,
    render: &RenderOptions,
    args: &ConvertOptions,
    visitor: &mut GameVisitor,
    players: Option<&PlayerTags>,
) -> Converted {
    let (collector, eco) = visitor;
    if collector.over_budget() {
        report.findings.push(too_large_to_convert(args));
    }
    // The tags (the movetext is what the replay told the collector).
    let lexed: &Lexed = game.lexed;
    let rejected = super::is_rejected(&report);
    let mut done = Converted {
        diagnostics: Vec::new(),
        body: Vec::new(),
        rejected,
        repaired: collector.plies.iter().any(|p| p.repaired_from.is_some()),
        reject: None,
        row: None,
        kept_broken: false,
        selected: true,
    };
    let ctx = game.context(name);
    let every_row = args.every_row && args.format == Format::Parquet;
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
    if rejected && args.keep_broken && args.format == Format::Pgn {
        let start = movetext_start(game.bytes, game.lexed, game.movetext);
        let players = players.map(|p| p.tags_for(lexed)).unwrap_or_default();
        let body =
            super::broken::write(game.bytes, start, lexed, &report, collector, args, players);
        done.body = body.into_bytes();
        done.kept_broken = true;
        return done;
    }
    if rejected && !every_row {
        // For --rejects, or to keep it in a rewrite in place (rejected games are few: the
        // copy costs nothing that counts).
        done.reject = Some(game.bytes.to_vec());
        return done;
    }
    let result = super::final_result(lexed, &report, args.fix_results);
    let fixed = args.fix_results && report.result_by_rule.is_some();
    // When the main line was told at once, the movetext is written from it and the rows'
    // notes came apart: there are no elements. The tables read the elements for their
    // movetext column and the plies' notes only.
    let without_them = collector.at_once()
        || args.format == Format::Parquet
            && args.no_movetext
            && !collector.columns.as_ref().is_some_and(|c| c.has_notes());
    let elements = if without_them {
        Vec::new()
    } else {
        super::elements(game.bytes, collector, keep)
    };
    let mut replaced = super::has_replacement(&elements);
    // The movetext in `layout`, from the main line told at once or from the elements.
    let mut write_moves = |layout: Layout, out: &mut String| {
        if collector.at_once() {
            replaced |= pgn_out::write_main_line(game.bytes, collector, keep, result, layout, out);
        } else {
            pgn_out::write_movetext(&elements, collector, result, layout, out);
        }
    };
    let out = &mut done.body;
    let eco = eco_tags(lexed, eco.as_ref(), args.eco_overwrite);
    // The record the JSON, CSV and Parquet writers share.
    let record = || GameRecord::new(name, game.number, game.line, lexed, &report, result, &eco);
    let _ = match args.format {
        Format::Pgn if args.rewrite.is_active() => {
            let mut text = String::with_capacity(game.bytes.len() + 256);
            super::rewrite::write_pgn(
                &args.rewrite,
                &super::rewrite::Game {
                    lexed,
                    report: &report,
                    result,
                    fixed,
                    eco: &eco,
                    players: players.map(|p| p.tags_for(lexed)).unwrap_or_default(),
                    trailer: Vec::new(),
                },
                elements,
                collector,
                &mut text,
            );
            *out = text.into_bytes();
            Ok(())
        }
        Format::Pgn => {
            // About as long as the game read: one allocation, then no growing.
            let mut text = String::with_capacity(game.bytes.len() + 256);
            pgn_out::write_tags_with(lexed, result, fixed, &eco, &mut text);
            text.push('\n');
            write_moves(Layout::Pgn, &mut text);
            text.push('\n');
            *out = text.into_bytes();
            Ok(())
        }
        Format::Book => {
            let mut text = String::with_capacity(game.bytes.len() + 256);
            pgn_out::write_book_header(lexed, &mut text);
            write_moves(Layout::Book, &mut text);
            text.push('\n');
            *out = text.into_bytes();
            Ok(())
        }
        Format::Jsonl | Format::Csv => {
            let mut record = record();
            record.set_move_tree(&elements, collector);
            if args.format == Format::Csv {
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
        Format::Parquet => {
            let mut movetext = String::new();
            if args.no_movetext {
                // No column to write it to.
            } else if rejected {
                movetext.reserve(game.bytes.len());
                // Not converted: as read, so that nothing of it is lost.
                movetext.push_str(&String::from_utf8_lossy(movetext_as_read(
                    game.bytes,
                    game.lexed,
                    game.movetext,
                )));
            } else {
                movetext.reserve(game.bytes.len());
                write_moves(Layout::Line, &mut movetext);
            }
            let mut row = Box::new(if args.moves_only {
                GameRecord::blank(std::borrow::Cow::Borrowed(name), game.number, game.line)
                    .into_owned()
            } else {
                record().into_owned()
            });
            row.set_plies(&elements, collector, game.bytes, keep);
            if collector.needs_nothing {
                // The replay told no move: its report counts them.
                row.plies.set_count(report.plies as usize);
            }
            row.movetext = movetext;
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
        Format::Epd => records::write_epd(
            out,
            name,
            game.number,
            collector,
            report.final_position.as_ref(),
        )
        .map_err(Into::into),
    };
    if replaced {
        let _ = writeln!(
            done.diagnostics,
            "warning: {name}:{}: game {}: movetext bytes that are not UTF-8 were written as \
             U+FFFD; read the input with its --encoding to keep them",
            game.line, game.number
        );
    }
    done
}

/// The movetext of a game as read: its bytes after the tags (all of them when it has none).
fn movetext_as_read<'a>(bytes: &'a [u8], lexed: &Lexed, movetext: Movetext) -> &'a [u8] {
    let text = bytes
        .get(movetext_start(bytes, lexed, movetext)..)
        .unwrap_or_default();
    text.trim_ascii()
}

/// Where a game's movetext starts in its bytes: after its tags (0 when it has none).
fn movetext_start(bytes: &[u8], lexed: &Lexed, movetext: Movetext) -> usize {
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
    start.min(bytes.len())
}

/// The tags `--add-eco` sets: the classified `ECO` and `Opening` in place of the game's with
/// `--eco-overwrite`; otherwise each where the game has none, the name only beside an `ECO`
/// tag of the same code (a name of another code would contradict it). None for a game the
/// table does not classify.
fn eco_tags(
    lexed: &Lexed,
    eco: Option<&EcoObserver<'static>>,
    overwrite: bool,
) -> Vec<(&'static str, &'static str)> {
    let Some(opening) = eco.and_then(EcoObserver::result) else {
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

/// The report of a game whose moves, variations and comments would take more memory than a
/// game may ([`ConvertOptions::game_budget`]).
fn too_large_to_convert(args: &ConvertOptions) -> Finding {
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
