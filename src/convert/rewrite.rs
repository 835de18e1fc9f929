//! The database keeper's rewrites of a game written as PGN (issue 44): its main line cut at
//! either end, the new start given as a FEN tag; tags added (the ply count, a hash of the final
//! position, a termination by rule) or left out; FEN comments; the movetext's layout
//! ([`layout`]). [`Rewrite`] holds what was asked; with
//! none of it the writer takes its usual path, untouched.

use std::borrow::Cow;
use std::str::FromStr;

use shakmaty::zobrist::Zobrist64;
use shakmaty::{Chess, EnPassantMode, Position};

use super::layout::{self, Layout, MoveNumbers, Style};
use super::pgn::{self as pgn_out};
use super::players::PlayerSource;
use super::{Collector, Element};
use crate::pgn::{GameResult, Lexed};
use crate::rules::game::GameReport;

/// What `convert` rewrites in each game it writes as PGN, beyond the notation: which plies of
/// the main line are kept. [`Default`] rewrites nothing.
///
/// ```
/// use pgnkit::convert::{Convert, ConvertOptions, Rewrite};
/// use pgnkit::input::InputOptions;
///
/// let dir = std::env::temp_dir().join(format!("pgnkit-rewrite-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let out = dir.join("cut.pgn");
/// let options = ConvertOptions {
///     rewrite: Rewrite {
///         drop_ply: Some(10),
///         ply_limit: Some(14),
///         ..Rewrite::default()
///     },
///     output: Some(out.clone()),
///     quiet: true,
///     ..ConvertOptions::default()
/// };
/// let games = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/convert/keeper/games.pgn");
/// Convert::new(options)?.run(InputOptions::new(vec![games.into()]))?;
/// let written = std::fs::read_to_string(&out)?;
/// assert!(written.contains("[SetUp \"1\"]\n[FEN \"r1bqk2r/1pppbppp/p1n2n2/4p3/B3P3/5N2/"));
/// assert!(written.contains("\n6.Re1 b5 7.Bb3 d6 *\n"));
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), anyhow::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rewrite {
    /// The first main-line ply written, counted from the game's first move (1): the plies
    /// before it are dropped and the position it is played from becomes the game's start, a
    /// `FEN` tag with `SetUp "1"` (`--start-ply`).
    pub start_ply: Option<u32>,
    /// `--drop-ply N`, as pgn-extract's `--dropply`: above 0, the first N plies are dropped
    /// (`start_ply` N + 1); below 0, all but the last -N plies are.
    pub drop_ply: Option<i64>,
    /// The last main-line ply written, counted as `start_ply` is (`--ply-limit`): a game cut
    /// there ends with `*`, as pgn-extract's `--plylimit` does; its `Result` tag stays.
    pub ply_limit: Option<u32>,
    /// Tags added to each game (`--add-tags`), in this order after the game's own; one the
    /// game has takes the new value in its place.
    pub add_tags: Vec<AddTag>,
    /// A comment with the FEN of the position after every move written, variations' too
    /// (`--fen-comments`, pgn-extract's `--fencomments`).
    pub fen_comments: bool,
    /// A comment with the FEN of the position after one main-line ply (`--fen-comment-at`).
    pub fen_comment_at: Option<FenAt>,
    /// The tags kept beyond the Seven Tag Roster, `SetUp` and `FEN` (`--keep-tags`); the
    /// tags `--add-tags` and `--add-eco` add are kept too.
    pub keep_tags: Option<Vec<String>>,
    /// The Seven Tag Roster only, with `SetUp` and `FEN` (`--seven-tag-roster`, pgn-extract's
    /// `-7`).
    pub seven_tag_roster: bool,
    /// No tags at all (`--no-tags`, pgn-extract's `--notags`).
    pub no_tags: bool,
    /// The movetext's layout (`--layout`).
    pub layout: Layout,
    /// The longest movetext line in columns (`--line-width`), instead of the layout's.
    pub line_width: Option<usize>,
    /// Which moves get their number.
    pub move_numbers: MoveNumbers,
    /// Tables of players whose tags are added to their games (`--player-tags`,
    /// `--addelotags`, `--addfideidtags`); read by [`super::Convert::new`].
    pub player_tags: Vec<PlayerSource>,
    /// These tags first, in this order, then the rest of the Seven Tag Roster, then the
    /// others as read (`--tag-order`, pgn-extract's `-R`; [`roster`] reads its file).
    pub tag_order: Option<Vec<String>>,
    /// No `+` or `#` after the moves (`--no-checks`, pgn-extract's `--nochecks`).
    pub no_checks: bool,
    /// No result at the end of the movetext (`--no-results`, pgn-extract's `--noresults`);
    /// the `Result` tag stays.
    pub no_results: bool,
}

/// The tag names of a roster file (pgn-extract's `-R`): the first word of each line; blank
/// lines and lines starting with `%` or `#` are left out.
pub fn roster(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| !name.starts_with(['%', '#']))
        .map(str::to_owned)
        .collect()
}

/// A tag `--add-tags` adds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddTag {
    /// `PlyCount`: the main-line plies written (pgn-extract's `--plycount`).
    PlyCount,
    /// `TotalPlyCount`: every move written, variations' too (pgn-extract's `--totalplycount`).
    TotalPlyCount,
    /// `Hash`: the Polyglot Zobrist key of the last position written, 16 hexadecimal digits
    /// (what pgn-extract's `-H` and `--hashcomments` take and write).
    Hash,
    /// `Termination` by rule from the result (PGN §9.8.1): `unterminated` for `*`, `normal`
    /// otherwise; a game that has the tag keeps it.
    Termination,
}

impl AddTag {
    /// Every tag, in the order the help lists them.
    pub const ALL: [AddTag; 4] = [
        AddTag::PlyCount,
        AddTag::TotalPlyCount,
        AddTag::Hash,
        AddTag::Termination,
    ];

    /// The tag's name, which `--add-tags` takes.
    pub fn name(self) -> &'static str {
        match self {
            AddTag::PlyCount => "PlyCount",
            AddTag::TotalPlyCount => "TotalPlyCount",
            AddTag::Hash => "Hash",
            AddTag::Termination => "Termination",
        }
    }
}

impl FromStr for AddTag {
    type Err = String;

    /// # Errors
    ///
    /// A name that is none of [`AddTag::name`]'s (case aside), with the names there are.
    fn from_str(s: &str) -> Result<AddTag, String> {
        AddTag::ALL
            .into_iter()
            .find(|t| t.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                let names: Vec<_> = AddTag::ALL.iter().map(|t| t.name()).collect();
                format!("the tags added are {}", names.join(", "))
            })
    }
}

/// Where `--fen-comment-at` puts its comment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FenAt {
    /// After this main-line ply, counted from the game's first move (1).
    Ply(u32),
    /// After the last main-line move written (pgn-extract's `-F`).
    Last,
}

impl FromStr for FenAt {
    type Err = String;

    /// # Errors
    ///
    /// Neither `last` nor a ply number from 1.
    fn from_str(s: &str) -> Result<FenAt, String> {
        match s {
            "last" => Ok(FenAt::Last),
            _ => match s.parse::<u32>() {
                Ok(n) if n > 0 => Ok(FenAt::Ply(n)),
                _ => Err("expected a ply number from 1, or `last`".into()),
            },
        }
    }
}

impl Rewrite {
    /// Whether anything is asked of the writer.
    pub fn is_active(&self) -> bool {
        *self != Rewrite::default()
    }

    /// Whether the writer needs the positions around every move (kept by the collector).
    pub(super) fn needs_positions(&self) -> bool {
        // (Tags from tables of players need none.)
        self.cuts()
            || self.fen_comments
            || self.fen_comment_at.is_some()
            || self.add_tags.contains(&AddTag::Hash)
    }

    /// Whether the movetext is laid out otherwise than pgnkit's usual layout.
    fn lays_out(&self) -> bool {
        self.layout != Layout::Pgnkit
            || self.line_width.is_some()
            || self.move_numbers != MoveNumbers::Usual
            || self.no_checks
            || self.no_results
    }

    /// Whether the plies written are not the game's.
    fn cuts(&self) -> bool {
        self.start_ply.is_some() || self.drop_ply.is_some() || self.ply_limit.is_some()
    }

    /// The main-line plies to write, `first..=last` (1-based), of a game of `plies` plies.
    fn kept(&self, plies: u32) -> (u32, u32) {
        let first = match (self.start_ply, self.drop_ply) {
            (Some(s), _) => s.max(1),
            (None, Some(d)) if d >= 0 => u32::try_from(d).unwrap_or(u32::MAX).saturating_add(1),
            (None, Some(d)) => {
                let keep = u32::try_from(d.unsigned_abs()).unwrap_or(u32::MAX);
                plies.saturating_sub(keep).saturating_add(1)
            }
            (None, None) => 1,
        };
        (first, self.ply_limit.unwrap_or(u32::MAX))
    }
}

/// A game's movetext after the cut, with what the tags need to say about it.
pub(super) struct Cut<'a> {
    pub(super) elements: Vec<Element<'a>>,
    /// The position the first move written is played from, when plies were dropped from the
    /// start (it goes in the `FEN` tag).
    pub(super) start: Option<Chess>,
    /// The last main-line ply of the game was not written: the result is `*`.
    pub(super) cut_short: bool,
    /// The position after the last main-line move written, when it is not the game's last.
    pub(super) end: Option<Chess>,
}

/// Keeps the main-line plies `rewrite` asks for, with what belongs to them: the comments,
/// NAGs and variations after a kept move stay, those after a dropped one go (a variation is
/// an alternative to the move it follows, so it goes with it), and the comment before the
/// first move stays only when the first move does.
pub(super) fn cut<'a>(
    elements: Vec<Element<'a>>,
    collector: &Collector,
    rewrite: &Rewrite,
    final_position: Option<&Chess>,
) -> Cut<'a> {
    let main: Vec<usize> = (0..collector.plies.len())
        .filter(|&i| collector.plies[i].depth == 0)
        .collect();
    let plies = u32::try_from(main.len()).unwrap_or(u32::MAX);
    let (first, last) = rewrite.kept(plies);
    let start = (first > 1).then(|| {
        let ply = main.get(first as usize - 1).map(|&i| &collector.plies[i]);
        match ply.and_then(|p| p.positions.as_deref()) {
            Some(around) => around.before.clone(),
            // Every ply dropped: the game starts (and ends) where it ended.
            None => final_position.cloned().unwrap_or_default(),
        }
    });
    let cut_short = last < plies;
    let end = if !cut_short {
        None
    } else if first > last {
        // Nothing written: the game ends where it starts.
        let first_position = || {
            collector
                .plies
                .first()?
                .positions
                .as_ref()
                .map(|a| a.before.clone())
        };
        start.clone().or_else(first_position)
    } else {
        let ply = main.get(last as usize - 1).map(|&i| &collector.plies[i]);
        ply.and_then(|p| p.positions.as_deref())
            .map(|a| a.after.clone())
    };
    if first == 1 && !cut_short {
        return Cut {
            elements,
            start,
            cut_short,
            end,
        };
    }
    // The main-line ply each element belongs to: the one it follows (0 before the first),
    // and a variation's elements the ply the variation is an alternative to. A variation is
    // cut, as the main line is, after its last move within `last` (pgn-extract counts its
    // plies so).
    let first_ply = main.first().map_or(1, |&i| game_ply(&collector.plies[i]));
    let mut ply = 0u32;
    let mut depth = 0usize;
    let mut dropping: Option<usize> = None;
    let kept = elements
        .into_iter()
        .filter(|e| {
            let mut ends_drop = false;
            match e {
                Element::Move(_) if depth == 0 => ply += 1,
                Element::Move(i) if dropping.is_none() => {
                    let at = game_ply(&collector.plies[*i]).saturating_sub(first_ply) + 1;
                    if at > last {
                        dropping = Some(depth);
                    }
                }
                Element::VariationStart => depth += 1,
                Element::VariationEnd => {
                    ends_drop = dropping == Some(depth);
                    depth = depth.saturating_sub(1);
                }
                _ => {}
            }
            let belongs = if ply == 0 { first == 1 } else { ply >= first };
            let dropped = dropping.is_some() && !ends_drop;
            if ends_drop {
                dropping = None;
            }
            belongs && ply <= last && !dropped
        })
        .collect();
    Cut {
        elements: kept,
        start,
        cut_short,
        end,
    }
}

/// The ply of the game a move is (1: White's first move of a game from the usual start),
/// from its move number and side.
fn game_ply(ply: &super::Ply) -> u32 {
    ply.number
        .saturating_sub(1)
        .saturating_mul(2)
        .saturating_add(if ply.white { 1 } else { 2 })
}

/// The result written at the end of the movetext.
pub(super) fn movetext_result(cut: &Cut<'_>, result: GameResult) -> GameResult {
    if cut.cut_short {
        GameResult::Unknown
    } else {
        result
    }
}

/// What a game's tags are written from.
pub(super) struct Game<'g> {
    pub(super) lexed: &'g Lexed,
    pub(super) report: &'g GameReport,
    /// The game's result ([`super::final_result`]).
    pub(super) result: GameResult,
    /// `--fix-results` changed it.
    pub(super) fixed: bool,
    /// Tags `--add-eco` sets.
    pub(super) eco: &'g [(&'static str, &'static str)],
    /// Tags the tables of players set.
    pub(super) players: Vec<(String, String)>,
    /// Comments written after the moves, whatever is cut (`--keep-broken`'s error and the
    /// movetext it could not replay).
    pub(super) trailer: Vec<Element<'static>>,
}

/// Appends the game as PGN, rewritten as `rewrite` asks: its tags, a blank line, its
/// movetext.
pub(super) fn write_pgn(
    rewrite: &Rewrite,
    game: &Game<'_>,
    elements: Vec<Element<'_>>,
    collector: &Collector,
    out: &mut String,
) {
    let final_position = game.report.final_position.as_ref();
    let mut cut = if rewrite.cuts() {
        cut(elements, collector, rewrite, final_position)
    } else {
        Cut {
            elements,
            start: None,
            cut_short: false,
            end: None,
        }
    };
    if rewrite.fen_comments || rewrite.fen_comment_at.is_some() {
        cut.elements = fen_comments(cut.elements, collector, rewrite);
    }
    cut.elements.extend(game.trailer.iter().cloned());
    let mut set: Vec<(&str, String)> = game
        .eco
        .iter()
        .map(|(name, value)| (*name, (*value).to_owned()))
        .collect();
    set.extend(game.players.iter().map(|(n, v)| (n.as_str(), v.clone())));
    if let Some(start) = &cut.start {
        set.push(("SetUp", "1".to_owned()));
        set.push(("FEN", crate::notation::fen::fen(start)));
    }
    let last = cut.end.as_ref().or(final_position);
    for &tag in &rewrite.add_tags {
        let value = match tag {
            AddTag::PlyCount => count_moves(&cut.elements, collector, true).to_string(),
            AddTag::TotalPlyCount => count_moves(&cut.elements, collector, false).to_string(),
            AddTag::Hash => match last {
                Some(pos) => hash(pos),
                None => continue,
            },
            AddTag::Termination if game.lexed.tag("Termination").is_some() => continue,
            AddTag::Termination => match game.result {
                GameResult::Unknown => "unterminated".to_owned(),
                _ => "normal".to_owned(),
            },
        };
        set.push((tag.name(), value));
    }
    let set: Vec<(&str, &str)> = set.iter().map(|(n, v)| (*n, v.as_str())).collect();
    if !rewrite.no_tags {
        let keep = |name: &str| {
            // A game from a set-up position does not replay without them.
            let needed = matches!(name, "SetUp" | "FEN");
            let added = set.iter().any(|(n, _)| *n == name);
            let listed = match &rewrite.keep_tags {
                Some(list) => list.iter().any(|t| t == name),
                None => !rewrite.seven_tag_roster,
            };
            needed || listed || (added && !rewrite.seven_tag_roster)
        };
        let order = match (&rewrite.tag_order, rewrite.layout) {
            (Some(list), _) => pgn_out::TagOrder::Listed(list),
            (None, Layout::Export) => pgn_out::TagOrder::Export,
            (None, Layout::Pgnkit) => pgn_out::TagOrder::AsRead,
        };
        pgn_out::write_tags_kept(game.lexed, game.result, game.fixed, &set, keep, order, out);
        out.push('\n');
    }
    let result = movetext_result(&cut, game.result);
    if rewrite.lays_out() {
        let style = Style {
            layout: rewrite.layout,
            width: rewrite.line_width.unwrap_or(rewrite.layout.width()),
            numbers: rewrite.move_numbers,
            no_checks: rewrite.no_checks,
            no_results: rewrite.no_results,
        };
        layout::write_movetext(&cut.elements, collector, result, style, out);
    } else {
        pgn_out::write_movetext(&cut.elements, collector, result, pgn_out::Layout::Pgn, out);
    }
    out.push('\n');
}

/// The moves among `elements`: the main line's only, or every one.
fn count_moves(elements: &[Element<'_>], collector: &Collector, main_only: bool) -> usize {
    elements
        .iter()
        .filter(|e| match e {
            Element::Move(i) => !main_only || collector.plies[*i].depth == 0,
            _ => false,
        })
        .count()
}

/// The Polyglot Zobrist key of `pos`, as 16 hexadecimal digits (the en passant square counts
/// when a pawn could take there, as Polyglot's definition has it).
pub fn hash(pos: &Chess) -> String {
    let key = pos.zobrist_hash::<Zobrist64>(EnPassantMode::PseudoLegal).0;
    format!("{key:016x}")
}

/// `elements` with a FEN comment after the moves `rewrite` asks for: after the move's own
/// NAGs and comments, before a variation that follows it.
fn fen_comments<'a>(
    elements: Vec<Element<'a>>,
    collector: &Collector,
    rewrite: &Rewrite,
) -> Vec<Element<'a>> {
    // The main-line ply that `--fen-comment-at` names, counted from the game's first move.
    let first_ply = collector
        .plies
        .iter()
        .find(|p| p.depth == 0)
        .map_or(1, game_ply);
    let last_main = elements.iter().rev().find_map(|e| match e {
        Element::Move(i) if collector.plies[*i].depth == 0 => Some(*i),
        _ => None,
    });
    let wanted = |i: usize| {
        let ply = &collector.plies[i];
        rewrite.fen_comments
            || ply.depth == 0
                && match rewrite.fen_comment_at {
                    Some(FenAt::Ply(n)) => game_ply(ply).saturating_sub(first_ply) + 1 == n,
                    Some(FenAt::Last) => last_main == Some(i),
                    None => false,
                }
    };
    let mut out = Vec::with_capacity(elements.len() * 2);
    let mut pending: Option<usize> = None;
    for e in elements {
        if !matches!(e, Element::Nag(_) | Element::Comment(_)) {
            if let Some(i) = pending.take() {
                out.push(fen_comment(collector, i));
            }
        }
        if let Element::Move(i) = e {
            pending = wanted(i).then_some(i);
        }
        out.push(e);
    }
    if let Some(i) = pending {
        out.push(fen_comment(collector, i));
    }
    out
}

/// A comment with the FEN of the position after ply `i`.
fn fen_comment(collector: &Collector, i: usize) -> Element<'static> {
    let fen = collector.plies[i]
        .positions
        .as_deref()
        .map(|a| crate::notation::fen::fen(&a.after))
        .unwrap_or_default();
    Element::Comment(Cow::Owned(fen))
}
