//! One converted game as every writer of per-game data reads it: JSON lines and CSV
//! ([`super::records`]), and the Arrow games and moves tables ([`super::arrow`]: the Parquet
//! files, the Python package's tables). It is built once a game, so that a column means the
//! same thing in every output: the file and game number, the tags (the `Result` written, the
//! `--add-eco` tags in place), the result the rules give, the termination, the final position
//! and the counts of errors and warnings.
//!
//! What only some outputs show is filled only for them: the move tree with every notation
//! (JSON lines, CSV) or the lean main-line plies with their notes and the movetext (the
//! tables).
//!
//! A record borrows its file name and tags from the game while it is written where the game
//! is read (`validate --game-records`, JSON lines, CSV); one that outlives the game (a table's
//! row, sent to the writer's thread) owns them ([`GameRecord::into_owned`]), the tags in one
//! text.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::ops::Range;

use super::arrow::PlyColumns;
use super::numbers::FinalFlags;
use super::records::{self, read_notes, Eval, MoveRecord};
use super::{Collector, Element, Keep, MainNote};
use crate::diag::Severity;
use crate::notation::fen;
use crate::pgn::{GameResult, Lexed};
use crate::rules::game::GameReport;
use crate::rules::outcome::Ending;

/// One converted game: what JSON lines, CSV and the Arrow tables write of it.
///
/// ```
/// use pgnkit::convert::{Convert, ConvertOptions, Format};
/// use pgnkit::pgn::Lexed;
///
/// let options = ConvertOptions {
///     format: Format::Parquet,
///     fix_results: true,
///     ..ConvertOptions::default()
/// };
/// let convert = Convert::new(options)?;
/// let game = b"[White \"A\"]\n[Result \"*\"]\n\n1. f3 e5 2. g4 Qh4# *\n";
/// let record = convert
///     .game_row(game, "games.pgn", 1, &mut Lexed::default())
///     .expect("it replays");
/// // The result the rules give is the one written, in the tags too.
/// assert_eq!((record.result, record.tag("Result")), ("0-1", Some("0-1")));
/// assert_eq!((record.termination.as_str(), record.plies.len()), ("checkmate", 4));
/// assert_eq!(record.tags().map(|t| t.0).collect::<Vec<_>>(), ["Result", "White"]);
/// # Ok::<(), anyhow::Error>(())
/// ```
#[derive(Debug)]
pub struct GameRecord<'a> {
    /// The input the game was read from, as `validate` names it (`<stdin>` for `-`).
    pub file: Cow<'a, str>,
    /// 1-based number of the game in its input.
    pub game: u64,
    /// The line its first tag (or its first move) is on.
    pub line: u32,
    /// Tag names and values, sorted by name, the first of each name kept.
    tags: Tags<'a>,
    /// The result written (the `Result` tag after `--fix-results`): the movetext's result,
    /// else the `Result` tag's, else `*`.
    pub result: &'static str,
    /// The one result the rules allow, when they decide it.
    pub result_by_rule: Option<&'static str>,
    /// How the rules ended the game.
    pub termination: Ending,
    /// What holds in the final position; `None` when the game had no position to start from.
    pub final_flags: Option<FinalFlags>,
    /// FEN of the position after the last main-line move.
    pub final_fen: Option<String>,
    /// Error and warning findings the game kept (errors that do not block output).
    pub errors: u32,
    pub warnings: u32,
    pub notes: u32,
    /// Main-line plies replayed.
    pub ply_count: u32,
    /// Every main-line move matched one legal move (warnings allowed).
    pub legal: bool,
    /// How the main line ended by rule or could have been claimed to (`stats`' games.csv):
    /// [`termination`](Self::termination), and when no rule ended it, the first claim; see
    /// [`Ending::of`].
    pub ending: Ending,
    /// The ply of [`ending`](Self::ending).
    pub ending_ply: Option<u32>,
    /// The code of the game's first error, empty without one.
    pub first_error: Cow<'static, str>,
    /// Comments before the first move (JSON lines).
    pub comments: Vec<String>,
    /// Every line of play with every notation (JSON lines, CSV): see
    /// [`GameRecord::set_move_tree`].
    pub moves: Vec<MoveRecord>,
    /// The main-line plies (the tables): see [`GameRecord::set_plies`].
    pub plies: PlyColumns,
    pub(super) ply_notes: Vec<PlyNote>,
    pub(super) notes_text: String,
    pub(super) nags: Vec<u16>,
    /// The movetext in the `--to` notation, as `convert --format pgn` writes it (the games
    /// table).
    pub movetext: String,
    /// The game's errors and warnings, filled only when asked for (the Python package's
    /// `diagnostics` column; the Parquet files have none).
    pub findings: Vec<RowFinding>,
}

/// A record's tags, sorted by name, the first of each name kept: the game's own, as it has
/// them (sorted only if they are listed: a checked game's record is mostly asked for a tag
/// or two); borrowed from the game (and from texts that outlive it), each with its name's
/// first bytes as a number (the sort key); or in one text of the record's own.
#[derive(Debug)]
enum Tags<'a> {
    Game(&'a Lexed),
    Borrowed(Vec<(u64, &'a str, &'a str)>),
    Owned {
        /// Each name's sort key, and where name and value are in `text`.
        spans: Vec<(u64, Range<u32>, Range<u32>)>,
        text: String,
    },
}

impl<'a> GameRecord<'a> {
    /// The record of a converted game: its tags with `extra_tags` (`--add-eco`'s) in place
    /// of those of the same name and `result` as its `Result`, and what the replay
    /// `report`s. Nothing of its moves yet: [`GameRecord::set_move_tree`] or
    /// [`GameRecord::set_plies`] adds them.
    pub fn new(
        file: &'a str,
        number: u64,
        line: u32,
        lexed: &'a Lexed,
        report: &GameReport,
        result: GameResult,
        extra_tags: &[(&'a str, &'a str)],
    ) -> GameRecord<'a> {
        let mut record =
            GameRecord::of_report(Cow::Borrowed(file), number, line, report, result, true);
        record.set_tags(lexed, Some(result), extra_tags);
        record
    }

    /// The record of a game checked and not converted (`validate --game-records`, the Spark
    /// job's records): its tags as the game has them, its own `Result` among them; `result`
    /// is the one a conversion would write without `--fix-results`.
    pub fn checked(
        file: &'a str,
        number: u64,
        line: u32,
        lexed: &'a Lexed,
        report: &GameReport,
    ) -> GameRecord<'a> {
        let result = super::final_result(lexed, report, false);
        let mut record =
            GameRecord::of_report(Cow::Borrowed(file), number, line, report, result, true);
        record.tags = Tags::Game(lexed);
        record
    }

    /// The record of a game that `stats` counts, which outlives the game (games.csv is
    /// written on another thread): the file name, the tags of `set` that have `values` (the
    /// first of each name, as the caller read them from the game: those that `stats` reads,
    /// found in the one pass it makes over a game's tags) in texts of its own, and the final
    /// FEN only `with_fen`.
    #[allow(clippy::too_many_arguments)]
    pub fn counted<const N: usize>(
        file: &str,
        number: u64,
        line: u32,
        lexed: &Lexed,
        report: &GameReport,
        with_fen: bool,
        set: &TagSet<N>,
        values: [Option<&str>; N],
    ) -> GameRecord<'static> {
        let result = super::final_result(lexed, report, false);
        let file = Cow::Owned(file.to_owned());
        let mut record = GameRecord::of_report(file, number, line, report, result, with_fen);
        // Sorted already, with their keys: into one text.
        let tags = set.names.iter().zip(set.keys).zip(values);
        let tags = tags.filter_map(|((&name, key), value)| Some((key, name, value?)));
        record.tags = packed(tags);
        record
    }

    /// What the replay `report`s of a game, without its tags.
    fn of_report(
        file: Cow<'a, str>,
        number: u64,
        line: u32,
        report: &GameReport,
        result: GameResult,
        with_fen: bool,
    ) -> GameRecord<'a> {
        let (ending, ending_ply) = Ending::of(report);
        let first_error = report
            .findings
            .iter()
            .find(|f| f.severity == Severity::Error)
            .map_or("", |f| f.code.as_str());
        GameRecord {
            result: result.as_str(),
            result_by_rule: report.result_by_rule.map(GameResult::as_str),
            termination: report.termination,
            final_flags: report
                .final_position
                .as_ref()
                .map(|pos| FinalFlags::of(report.termination, pos)),
            // As `GameReport::final_fen` writes it, by the writer the plies use.
            final_fen: report
                .final_position
                .as_ref()
                .filter(|_| with_fen)
                .map(|pos| {
                    let mut fen = String::with_capacity(96);
                    fen::push_fen(pos, &mut fen);
                    fen
                }),
            errors: count(report, Severity::Error),
            warnings: count(report, Severity::Warning),
            notes: count(report, Severity::Note),
            ply_count: report.plies,
            legal: report.legal,
            ending,
            ending_ply,
            first_error: Cow::Borrowed(first_error),
            ..GameRecord::blank(file, number, line)
        }
    }

    /// Adds every line of play with every notation, from the game's elements (see
    /// [`super::elements`]): what JSON lines and CSV write.
    pub fn set_move_tree(&mut self, elements: &[Element], collector: &Collector) {
        (self.comments, self.moves) = records::move_tree(elements, collector);
    }

    /// Adds the main-line plies the collector [kept](Collector::columns), which it takes, and
    /// (when they are kept move by move) their clocks, evaluations, comments and NAGs from the
    /// game's elements: what the tables hold.
    pub fn set_plies(
        &mut self,
        elements: &[Element],
        collector: &mut Collector,
        bytes: &[u8],
        keep: Keep,
    ) {
        self.plies = collector
            .columns
            .take()
            .map(|mut b| {
                b.settle();
                *b
            })
            .unwrap_or_default();
        // Only the moves table shows them, when it has their columns.
        if self.plies.has_notes() && collector.at_once() {
            self.set_main_notes(bytes, collector, keep);
        } else if self.plies.has_notes() {
            self.set_notes(elements, collector);
        }
    }
    /// A record of what a `stats` partial file keeps of a game: its file name, number and
    /// line, and the tags given (sorted here), in texts of its own; the rest is set by the
    /// caller.
    pub fn of_tags(
        file: String,
        game: u64,
        line: u32,
        tags: &[(&str, &str)],
    ) -> GameRecord<'static> {
        let mut record = GameRecord::blank(Cow::Owned(file), game, line);
        record.tags = packed(keyed_and_sorted(tags).iter().copied());
        record
    }

    /// A record of nothing but its file name, number and line.
    pub(crate) fn blank(file: Cow<'a, str>, game: u64, line: u32) -> GameRecord<'a> {
        GameRecord {
            file,
            game,
            line,
            tags: Tags::Borrowed(Vec::new()),
            result: "*",
            result_by_rule: None,
            termination: Ending::None,
            final_flags: None,
            final_fen: None,
            errors: 0,
            warnings: 0,
            notes: 0,
            ply_count: 0,
            legal: false,
            ending: Ending::None,
            ending_ply: None,
            first_error: Cow::Borrowed(""),
            comments: Vec::new(),
            moves: Vec::new(),
            plies: PlyColumns::default(),
            ply_notes: Vec::new(),
            notes_text: String::new(),
            nags: Vec::new(),
            movetext: String::new(),
            findings: Vec::new(),
        }
    }

    /// The record with its file name and tags in texts of its own, so that it outlives the
    /// game (a table's row, written on another thread).
    pub fn into_owned(mut self) -> GameRecord<'static> {
        let tags = match std::mem::replace(&mut self.tags, Tags::Borrowed(Vec::new())) {
            Tags::Game(lexed) => packed(sorted(lexed, None, &[]).iter().copied()),
            Tags::Borrowed(tags) => packed(tags.iter().copied()),
            Tags::Owned { spans, text } => Tags::Owned { spans, text },
        };
        self.with_tags(tags)
    }

    fn with_tags(self, tags: Tags<'static>) -> GameRecord<'static> {
        GameRecord {
            file: Cow::Owned(self.file.into_owned()),
            game: self.game,
            line: self.line,
            tags,
            result: self.result,
            result_by_rule: self.result_by_rule,
            termination: self.termination,
            final_fen: self.final_fen,
            final_flags: self.final_flags,
            errors: self.errors,
            warnings: self.warnings,
            notes: self.notes,
            ply_count: self.ply_count,
            legal: self.legal,
            ending: self.ending,
            ending_ply: self.ending_ply,
            first_error: self.first_error,
            comments: self.comments,
            moves: self.moves,
            plies: self.plies,
            ply_notes: self.ply_notes,
            notes_text: self.notes_text,
            nags: self.nags,
            movetext: self.movetext,
            findings: self.findings,
        }
    }

    /// The game's tags with `extra` (`--add-eco`'s) in place of those of the same name, and
    /// `result` as its `Result` if given.
    fn set_tags(
        &mut self,
        lexed: &'a Lexed,
        result: Option<GameResult>,
        extra: &[(&'a str, &'a str)],
    ) {
        self.tags = Tags::Borrowed(sorted(lexed, result, extra));
    }

    /// The tag of that name.
    pub fn tag(&self, name: &str) -> Option<&str> {
        match &self.tags {
            // The first of the name, as sorting them would keep.
            Tags::Game(lexed) => lexed.tag(name),
            // By the sort key first: names are compared only where their first bytes agree.
            Tags::Borrowed(tags) => {
                let key = name_key(name);
                let i = tags
                    .binary_search_by(|t| {
                        t.0.cmp(&key)
                            .then_with(|| same_key_order(t.1.as_bytes(), name.as_bytes()))
                    })
                    .ok()?;
                Some(tags[i].2)
            }
            Tags::Owned { spans, text } => {
                let bytes = |r: &Range<u32>| &text.as_bytes()[r.start as usize..r.end as usize];
                let key = name_key(name);
                let i = spans
                    .binary_search_by(|(k, n, _)| {
                        k.cmp(&key)
                            .then_with(|| same_key_order(bytes(n), name.as_bytes()))
                    })
                    .ok()?;
                let value = &spans[i].2;
                text.get(value.start as usize..value.end as usize)
            }
        }
    }

    /// The tags of the names of `set`, in one walk over the record's sorted tags: what a
    /// writer of a few columns of tags reads a game.
    ///
    /// ```
    /// use pgnkit::convert::record::TagSet;
    /// use pgnkit::convert::{Convert, ConvertOptions, Format};
    /// use pgnkit::pgn::Lexed;
    ///
    /// const PLAYERS: TagSet<3> = TagSet::new(["Black", "Event", "White"]);
    /// let convert = Convert::new(ConvertOptions { format: Format::Parquet, ..ConvertOptions::default() })?;
    /// let game = b"[White \"A\"]\n[Black \"B\"]\n\n1. e4 *\n";
    /// let record = convert.game_row(game, "g.pgn", 1, &mut Lexed::default()).expect("it replays");
    /// assert_eq!(record.tags_in(&PLAYERS), [Some("B"), None, Some("A")]);
    /// # Ok::<(), anyhow::Error>(())
    /// ```
    pub fn tags_in<const N: usize>(&self, set: &TagSet<N>) -> [Option<&str>; N] {
        let mut found = [None; N];
        // Both lists are sorted: one walk down the two.
        let step = |i: usize, key: u64, name: &[u8]| {
            set.keys[i]
                .cmp(&key)
                .then_with(|| same_key_order(set.names[i].as_bytes(), name))
        };
        match &self.tags {
            Tags::Game(lexed) => {
                for (slot, name) in found.iter_mut().zip(set.names) {
                    *slot = lexed.tag(name);
                }
            }
            Tags::Borrowed(tags) => {
                let (mut i, mut j) = (0, 0);
                while i < N && j < tags.len() {
                    let (key, name, value) = tags[j];
                    match step(i, key, name.as_bytes()) {
                        Ordering::Less => i += 1,
                        Ordering::Greater => j += 1,
                        Ordering::Equal => {
                            found[i] = Some(value);
                            (i, j) = (i + 1, j + 1);
                        }
                    }
                }
            }
            Tags::Owned { spans, text } => {
                let (mut i, mut j) = (0, 0);
                while i < N && j < spans.len() {
                    let (key, name, value) = &spans[j];
                    let name = &text.as_bytes()[name.start as usize..name.end as usize];
                    match step(i, *key, name) {
                        Ordering::Less => i += 1,
                        Ordering::Greater => j += 1,
                        Ordering::Equal => {
                            found[i] = text.get(value.start as usize..value.end as usize);
                            (i, j) = (i + 1, j + 1);
                        }
                    }
                }
            }
        }
        found
    }

    /// Tag names and values, sorted by name.
    pub fn tags(&self) -> impl Iterator<Item = (&str, &str)> {
        let mut game = Vec::new();
        let (borrowed, spans, text) = match &self.tags {
            Tags::Game(lexed) => {
                game = sorted(lexed, None, &[]);
                (&[][..], &[][..], "")
            }
            Tags::Borrowed(tags) => (tags.as_slice(), &[][..], ""),
            Tags::Owned { spans, text } => (&[][..], spans.as_slice(), text.as_str()),
        };
        let at = move |r: &Range<u32>| &text[r.start as usize..r.end as usize];
        let owned = spans.iter().map(move |(_, n, v)| (at(n), at(v)));
        let listed = game.into_iter().chain(borrowed.iter().copied());
        listed.map(|t| (t.1, t.2)).chain(owned)
    }

    /// Clocks, evaluations, comments and NAGs of the main-line plies, from the elements: the
    /// k-th main-line move or null move there is the k-th ply kept.
    fn set_notes(&mut self, elements: &[Element], collector: &Collector) {
        let plies = self.plies.len();
        let mut depth = 0usize;
        let mut current: Option<usize> = None;
        let mut next = 0usize;
        // The comments' text at once, rather than growing with each (a clock a ply).
        self.notes_text.reserve(comments_len(elements.iter()));
        let notes = elements.iter().filter_map(|el| {
            match el {
                Element::VariationStart => depth += 1,
                Element::VariationEnd => depth = depth.saturating_sub(1),
                _ if depth > 0 => {}
                Element::Move(i) if collector.plies.get(*i).is_some_and(|p| p.depth == 0) => {
                    current = (next < plies).then_some(next);
                    next += 1;
                }
                Element::Null(_) => {
                    current = (next < plies).then_some(next);
                    next += 1;
                }
                Element::Comment(_) | Element::Nag(_) => return current.map(|i| (i, el)),
                Element::Move(_) | Element::Raw(_) => {}
            }
            None
        });
        for (i, el) in notes {
            self.add_note(i, el);
        }
    }

    /// [`GameRecord::set_notes`] of a game whose main line was told at once
    /// ([`Collector::main_line_only`]): its comments and NAGs came with the count of plies
    /// before them, so the k-th ply's are those after k plies.
    fn set_main_notes(&mut self, bytes: &[u8], collector: &Collector, keep: Keep) {
        let plies = self.plies.len();
        self.notes_text.reserve(super::main_comments_len(collector));
        for (before, el) in super::read_main_notes(bytes, collector, keep) {
            match (before as usize).checked_sub(1) {
                Some(i) if i < plies => match el {
                    MainNote::Read(text, secs, eval) => {
                        self.add_comment(i, text, Some((secs, eval)));
                    }
                    MainNote::Element(el) => self.add_note(i, &el),
                },
                _ => {}
            }
        }
    }

    /// Adds a comment or a NAG (other elements are passed over) to ply `i`, which it follows:
    /// a comment's clock and evaluation, and its text when the comment column is kept.
    fn add_note(&mut self, i: usize, el: &Element) {
        match el {
            Element::Comment(text) => self.add_comment(i, super::trim(text), None),
            Element::Nag(n) => {
                self.size_notes();
                // A ply's NAGs are consecutive: they follow it before the next ply.
                let at = end_of_nags(&self.nags);
                self.nags.push(*n);
                let r = &mut self.ply_notes[i].nags;
                if r.start == r.end {
                    *r = at..at + 1;
                } else {
                    r.end = at + 1;
                }
            }
            _ => {}
        }
    }

    /// A note a ply each, once the game has one.
    fn size_notes(&mut self) {
        if self.ply_notes.is_empty() {
            self.ply_notes.resize(self.plies.len(), PlyNote::default());
        }
    }

    /// Adds comment `text` (trimmed) to ply `i`: its clock and evaluation, and its text when
    /// the comment column is kept. `read`: the comment's clock and evaluation, read already
    /// ([`super::records::lichess_notes`]).
    fn add_comment(&mut self, i: usize, text: &str, read: Option<(f64, Option<Eval>)>) {
        self.size_notes();
        let mover_white = self.plies.first_white() == i.is_multiple_of(2);
        let note = &mut self.ply_notes[i];
        match read {
            // What `read_notes` finds in it for a ply without a clock.
            Some((secs, eval)) if note.clock.is_none() => {
                note.clock = Some(secs);
                note.eval = note.eval.or(eval);
            }
            _ => read_notes(text, mover_white, &mut note.clock, &mut note.eval),
        }
        if !self.plies.keeps_comments() {
            return;
        }
        let start = match note.comment.take() {
            Some(r) => {
                self.notes_text.push(' ');
                r.start
            }
            None => end_of(&self.notes_text),
        };
        self.notes_text.push_str(text);
        note.comment = Some(start..end_of(&self.notes_text));
    }
}

/// Bytes the comments among `elements` take in a row's notes text.
fn comments_len<'e>(elements: impl Iterator<Item = &'e Element<'e>>) -> usize {
    elements
        .map(|e| match e {
            Element::Comment(text) => text.len() + 1,
            _ => 0,
        })
        .sum()
}

/// The game's tags with `extra` (`--add-eco`'s) in place of those of the same name, and
/// `result` as its `Result` if given, sorted by name, the first of each name kept; each with
/// its name's first eight bytes as a number, which orders names as their bytes do but where
/// those are the same: nearly every pair of tag names is told apart without a string
/// compare, whose calls cost more than the rest of the record.
fn sorted<'a>(
    lexed: &'a Lexed,
    result: Option<GameResult>,
    extra: &[(&'a str, &'a str)],
) -> Vec<(u64, &'a str, &'a str)> {
    let keyed = |(name, value): (&'a str, &'a str)| (name_key(name), name, value);
    let mut tags: Vec<(u64, &str, &str)> = Vec::with_capacity(extra.len() + lexed.tag_count() + 1);
    tags.extend(extra.iter().copied().map(keyed));
    let own = lexed.tags().map(|t| keyed((t.name, t.value)));
    match result {
        Some(result) => {
            tags.extend(own.filter(|t| t.1 != "Result"));
            tags.push(keyed(("Result", result.as_str())));
        }
        None => tags.extend(own),
    }
    // Stable: the first tag of a name is the one kept (an extra one before the game's).
    tags.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1)));
    tags.dedup_by(|later, first| later.1 == first.1);
    tags
}

/// The byte order of two names of the same [`name_key`]: when neither is longer than the
/// key, they are the same but for trailing NULs, so the shorter is first and the lengths
/// tell it without comparing bytes.
fn same_key_order(a: &[u8], b: &[u8]) -> Ordering {
    if a.len() <= 8 && b.len() <= 8 {
        a.len().cmp(&b.len())
    } else {
        a.cmp(b)
    }
}

/// A tag name's first eight bytes as a number (see [`sorted`]).
const fn name_key(name: &str) -> u64 {
    // Byte by byte: a copy of a length known only at run time is a call.
    let bytes = name.as_bytes();
    let mut key = 0u64;
    let mut i = 0;
    while i < 8 {
        key <<= 8;
        if i < bytes.len() {
            key |= bytes[i] as u64;
        }
        i += 1;
    }
    key
}

/// Tags given by name and value, with their sort keys, sorted, the first of each name kept.
fn keyed_and_sorted<'t>(tags: &[(&'t str, &'t str)]) -> Vec<(u64, &'t str, &'t str)> {
    let mut sorted: Vec<(u64, &str, &str)> =
        tags.iter().map(|&(n, v)| (name_key(n), n, v)).collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1)));
    sorted.dedup_by(|later, first| later.1 == first.1);
    sorted
}

/// Sorted tags in one text.
fn packed<'t>(tags: impl IntoIterator<Item = (u64, &'t str, &'t str)> + Clone) -> Tags<'static> {
    // Sized once: the length of a filtered list is not known ahead.
    let (count, bytes) = tags
        .clone()
        .into_iter()
        .fold((0, 0), |(n, b), t| (n + 1, b + t.1.len() + t.2.len()));
    let mut spans = Vec::with_capacity(count);
    let mut text = String::with_capacity(bytes);
    let end = |text: &String| u32::try_from(text.len()).unwrap_or(u32::MAX);
    for (key, name, value) in tags {
        let a = end(&text);
        text.push_str(name);
        let b = end(&text);
        text.push_str(value);
        spans.push((key, a..b, b..end(&text)));
    }
    Tags::Owned { spans, text }
}

/// Tag names to read from records ([`GameRecord::tags_in`]), sorted by their bytes, with
/// their sort keys worked out once (at compile time for a `const`).
#[derive(Debug, Clone, Copy)]
pub struct TagSet<const N: usize> {
    names: [&'static str; N],
    keys: [u64; N],
}

impl<const N: usize> TagSet<N> {
    /// The set of these names, which must be sorted by their bytes and differ (a `const`
    /// that is not fails to compile).
    pub const fn new(names: [&'static str; N]) -> TagSet<N> {
        let mut keys = [0u64; N];
        let mut i = 0;
        while i < N {
            keys[i] = name_key(names[i]);
            if i > 0 {
                assert!(
                    before(names[i - 1].as_bytes(), names[i].as_bytes()),
                    "names not sorted"
                );
            }
            i += 1;
        }
        TagSet { names, keys }
    }

    /// The names.
    pub fn names(&self) -> &[&'static str; N] {
        &self.names
    }
}

/// Whether `a` sorts strictly before `b` by their bytes (in a `const fn`).
const fn before(a: &[u8], b: &[u8]) -> bool {
    let mut i = 0;
    while i < a.len() && i < b.len() {
        if a[i] != b[i] {
            return a[i] < b[i];
        }
        i += 1;
    }
    a.len() < b.len()
}

fn count(report: &GameReport, severity: Severity) -> u32 {
    u32::try_from(report.count(severity)).unwrap_or(u32::MAX)
}

fn end_of(s: &str) -> u32 {
    u32::try_from(s.len()).unwrap_or(u32::MAX)
}

fn end_of_nags(nags: &[u16]) -> u32 {
    u32::try_from(nags.len()).unwrap_or(u32::MAX)
}

/// Clock, evaluation, comments and NAGs of one main-line ply.
#[derive(Debug, Default, Clone)]
pub(super) struct PlyNote {
    pub(super) clock: Option<f64>,
    pub(super) eval: Option<Eval>,
    /// The ply's comments, trimmed and joined by a space, in [`GameRecord::notes_text`].
    pub(super) comment: Option<Range<u32>>,
    /// In [`GameRecord::nags`].
    pub(super) nags: Range<u32>,
}

/// An error or warning of a game, with what `validate --format csv` says of it but the game's
/// own fields (file, game, players): the token is quoted from the game's bytes here, while
/// they are at hand.
#[derive(Debug, Clone, PartialEq)]
pub struct RowFinding {
    pub line: u32,
    pub column: u32,
    /// Move number and side of the move it is about.
    pub ply: Option<crate::diag::PlyLabel>,
    pub severity: &'static str,
    pub code: &'static str,
    pub token: Option<String>,
    /// What is wrong, its notes after it (`; `), as the CSV writes it.
    pub message: String,
    pub help: Option<String>,
    pub fen: Option<String>,
}

impl RowFinding {
    /// The finding `f` of the game `ctx` names.
    pub fn new(ctx: &crate::report::GameContext<'_>, f: &crate::diag::Finding) -> RowFinding {
        let (line, column) = f.span.map_or((ctx.line, 1), |s| (s.line, s.col));
        let mut message = f.message.clone();
        for n in &f.notes {
            message.push_str("; ");
            message.push_str(n);
        }
        RowFinding {
            line,
            column,
            ply: f.ply,
            severity: f.severity.as_str(),
            code: f.code.as_str(),
            token: crate::report::token_text(ctx, f),
            message,
            help: f.help.clone(),
            fen: f.fen.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::convert::{Convert, ConvertOptions, Format};
    use crate::pgn::Lexed;

    #[test]
    fn tags_are_sorted_by_their_bytes_and_the_first_of_a_name_is_kept() {
        let names = [
            "WhiteRatingDiff",
            "WhiteRatingDif",
            "WhiteRating",
            "WhiteRatingDiffs",
            "White",
            "Whit",
            "Event",
            "ECO",
            "Z",
            "A",
            "Event",
        ];
        let mut game = String::new();
        for (i, name) in names.iter().enumerate() {
            game.push_str(&format!("[{name} \"{i}\"]\n"));
        }
        game.push_str("\n1. e4 *\n");
        let convert = Convert::new(ConvertOptions {
            format: Format::Parquet,
            ..ConvertOptions::default()
        })
        .unwrap();
        let record = convert
            .game_row(game.as_bytes(), "t.pgn", 1, &mut Lexed::default())
            .unwrap();
        let mut want: Vec<&str> = names.to_vec();
        want.push("Result");
        want.sort_unstable();
        want.dedup();
        let got: Vec<&str> = record.tags().map(|t| t.0).collect();
        assert_eq!(got, want);
        for (i, name) in names.iter().enumerate().take(names.len() - 1) {
            assert_eq!(record.tag(name), Some(i.to_string().as_str()), "{name}");
        }
        assert_eq!(record.tag("Result"), Some("*"));
        assert_eq!(record.tag("Black"), None);
    }
}
