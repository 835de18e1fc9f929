//! What a replay tells the code that uses it: the [`Visitor`] events and the [`Needs`] it
//! declares before the first one.
//!
//! The design, in the manner of pgn-reader's `Visitor`:
//!
//! - A consumer (a writer, statistics, a filter) implements [`Visitor`] and says once, in
//!   [`Visitor::needs`], what it needs: the positions around moves, the movetext's comments and
//!   NAGs, tags, or every main-line move. The replay does no work for what is not needed: a
//!   position copy a ply is the largest cost of a replay. A plain movetext is read straight
//!   from its bytes, with no tokens stored, whatever the visitor.
//! - Events come in the order of the game: [`Visitor::tag`]s, [`Visitor::start`], then the
//!   movetext ([`Visitor::play`], [`Visitor::null_move`], [`Visitor::unplayed`],
//!   [`Visitor::repaired`], [`Visitor::comment`], [`Visitor::nag`],
//!   [`Visitor::begin_variation`], [`Visitor::end_variation`]), then [`Visitor::main_line`],
//!   [`Visitor::result`] and [`Visitor::end_game`].
//! - Where a move was written is a [`MoveAt`]: its token's bytes, and the variation depth.
//!   The events say everything a writer keeps of the movetext (moves, comments, NAGs,
//!   variations, and the tokens that could not be played), so no visitor needs the tokens.
//! - A game is replayed once, from the events of the movetext's one loop
//!   ([`crate::pgn::movetext`]): its common tokens read straight from the bytes, the rest
//!   (from the first token those fast cases do not read) lexed, and the events are the same
//!   whichever reads a token.
//! - Visitors compose: `(A, B)` is a visitor that needs what either needs
//!   ([`Needs::union`]) and tells each event to `A`, then to `B`; an `Option<V>` that is
//!   `None` needs nothing. So the classifier of openings runs beside a writer, a filter or
//!   statistics without being wired into them. A visitor is therefore told of more than it
//!   asked for when another asked for it (moves past its [`Needs::positions`], comments,
//!   tags), and ignores what it does not need.

use shakmaty::{Chess, Move};

use crate::notation::CheckClaim;
use crate::pgn::{GameResult, Tag};

/// What a [`Visitor`] needs from the replay, declared before the game's first event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Needs {
    /// Which moves [`Visitor::play`] is told of with the positions before and after them.
    pub positions: Positions,
    /// The movetext's comments and NAGs ([`Visitor::comment`], [`Visitor::nag`]), in order
    /// with the moves: every move is then told with its position, as with
    /// [`Positions::All`].
    pub movetext: bool,
    /// The tags ([`Visitor::tag`]).
    pub tags: bool,
    /// Every main-line move, told once after the movetext by [`Visitor::main_line`] (whether
    /// [`Visitor::play`] was told of it or not): the moves past [`Needs::positions`] cost no
    /// copy of their position and no call, and the replay keeps to its movetext loop.
    pub main_moves: bool,
    /// The movetext's comments and NAGs ([`Visitor::comment`], [`Visitor::nag`]) with where
    /// they are ([`NoteAt`]), without the moves' positions: with [`Needs::main_moves`], what
    /// a table of the main line's plies and their notes needs.
    pub notes: bool,
    /// With [`Needs::main_moves`]: each main-line move's token when it is written as the
    /// move's canonical SAN ([`MainLine::san`]), which a writer of SAN can then copy.
    pub main_san: bool,
}

impl Needs {
    /// Nothing at all: the replay only checks.
    pub const NOTHING: Needs = Needs {
        positions: Positions::None,
        movetext: false,
        tags: false,
        main_moves: false,
        notes: false,
        main_san: false,
    };

    /// What two visitors need together: the more positions of the two, and each thing
    /// either needs.
    ///
    /// ```
    /// use pgnkit::rules::visit::{Needs, Positions};
    ///
    /// let opening = Needs { positions: Positions::First(8), ..Needs::NOTHING };
    /// let moves = Needs { main_moves: true, ..Needs::NOTHING };
    /// let both = opening.union(moves);
    /// assert_eq!(both.positions, Positions::First(8));
    /// assert!(both.main_moves && !both.tags);
    /// ```
    #[must_use]
    pub const fn union(self, other: Needs) -> Needs {
        Needs {
            positions: self.positions.union(other.positions),
            movetext: self.movetext || other.movetext,
            tags: self.tags || other.tags,
            main_moves: self.main_moves || other.main_moves,
            notes: self.notes || other.notes,
            main_san: self.main_san || other.main_san,
        }
    }
}

/// Which moves come with the positions before and after them (the one before is the copy a
/// ply costs; the one after is the position the replay goes on from).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Positions {
    /// None: [`Visitor::play`] is then told only of moves a variation follows (their position
    /// is kept anyway).
    None,
    /// The first `n` moves played on the main line (null moves not counted), and moves of
    /// variations that start within them.
    First(u32),
    /// Every move.
    All,
}

impl Positions {
    /// The more positions of the two.
    #[must_use]
    pub const fn union(self, other: Positions) -> Positions {
        match (self, other) {
            (Positions::All, _) | (_, Positions::All) => Positions::All,
            (Positions::First(a), Positions::First(b)) => {
                Positions::First(if a > b { a } else { b })
            }
            (Positions::First(n), Positions::None) | (Positions::None, Positions::First(n)) => {
                Positions::First(n)
            }
            (Positions::None, Positions::None) => Positions::None,
        }
    }

    /// Main-line moves before which the position is kept.
    pub(crate) fn plies(self) -> u32 {
        match self {
            Positions::None => 0,
            Positions::First(n) => n,
            Positions::All => u32::MAX,
        }
    }
}

/// A move the replay played, as [`Visitor::play`] is told of it: one value, so that a
/// visitor names only what it reads and a combination passes it on whole.
#[derive(Clone, Copy, Debug)]
pub struct Ply<'a> {
    /// Where the move was written.
    pub at: MoveAt,
    /// The position the move was played in.
    pub before: &'a Chess,
    /// The position the move made. The replay made it to go on, so a visitor need not copy
    /// `before` and play the move again.
    pub after: &'a Chess,
    /// The move, legal in `before`.
    pub mv: Move,
    /// What holds in `after`: check, mate or neither.
    pub check: CheckClaim,
    /// The move's SAN (check sign included) when the token was written exactly so: a writer
    /// can copy it instead of computing it again.
    pub san: Option<WrittenSan<'a>>,
}

/// A move's token that is its canonical SAN, as [`Ply::san`] gives it: ASCII letters, digits
/// and signs only, so it is copied into text byte by byte, without the UTF-8 check a `&str`
/// of the game's bytes would cost on every ply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WrittenSan<'a>(&'a [u8]);

impl<'a> WrittenSan<'a> {
    /// `token` as a written SAN, if it holds only the bytes SAN is written with (whether
    /// it is the canonical SAN of a move is the replay's to say).
    ///
    /// ```
    /// use pgnkit::rules::visit::WrittenSan;
    ///
    /// let san = WrittenSan::new(b"exd8=Q+").unwrap();
    /// let mut out = String::from("1.");
    /// san.push_to(&mut out);
    /// assert_eq!((out.as_str(), san.as_str()), ("1.exd8=Q+", "exd8=Q+"));
    /// assert_eq!(WrittenSan::new("Сf3".as_bytes()), None);
    /// ```
    #[must_use]
    pub fn new(token: &'a [u8]) -> Option<Self> {
        // A table: the bytes matched against each range in turn cost more than the copy.
        static SAN_BYTES: [bool; 256] = {
            let mut table = [false; 256];
            let mut b = 0;
            while b < 256 {
                table[b] = matches!(b as u8, b'a'..=b'h' | b'1'..=b'8' | b'K' | b'Q' | b'R' | b'B' | b'N' | b'O' | b'x' | b'=' | b'+' | b'#' | b'-');
                b += 1;
            }
            table
        };
        token
            .iter()
            .all(|&b| SAN_BYTES[usize::from(b)])
            .then_some(WrittenSan(token))
    }

    /// Appends it to `out`.
    #[inline]
    pub fn push_to(self, out: &mut String) {
        out.extend(self.0.iter().map(|&b| char::from(b)));
    }

    /// The text, for a caller that needs a `&str` (it is ASCII).
    #[must_use]
    pub fn as_str(self) -> &'a str {
        std::str::from_utf8(self.0).unwrap_or_default()
    }
}

/// Where a move was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveAt {
    /// The move's token: bytes `start..end` of the game. Moves glued in one token (`Nf3Nf6`)
    /// share it.
    pub start: u32,
    pub end: u32,
    /// 0 on the main line, 1 in a variation of it, and so on.
    pub depth: usize,
}

/// Where a comment or a NAG is: its depth (0 on the main line) and the main line's plies
/// played before it (null moves too), so that a visitor told no move knows the ply it follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NoteAt {
    pub depth: usize,
    pub main_plies: u32,
}

/// The main line's moves, told at once after the movetext ([`Visitor::main_line`]).
#[derive(Clone, Copy, Debug)]
pub struct MainLine<'a> {
    /// The moves, in order.
    pub moves: &'a [Move],
    /// Whether each move gives check, as the replay found it playing the move: a visitor
    /// that needs no more of the positions than that need not play them again.
    pub checks: &'a [bool],
    /// With [`Needs::main_san`]: for each move, its token (bytes `start..end` of the game)
    /// when that is the move's canonical SAN, as [`Ply::san`] tells it; empty otherwise.
    pub san: &'a [Option<(u32, u32)>],
    /// The game's bytes, which `san` points into.
    pub bytes: &'a [u8],
}

impl<'a> MainLine<'a> {
    /// Whether every move's token is its canonical SAN ([`MainLine::san`]): a writer then
    /// plays no position to make one.
    pub fn all_written(&self) -> bool {
        self.san.len() == self.moves.len() && self.san.iter().all(Option::is_some)
    }

    /// The canonical SAN of move `i` as written, when it was written so
    /// ([`MainLine::san`]); `None` otherwise (the writer makes it from the position).
    pub fn written_san(&self, i: usize) -> Option<WrittenSan<'a>> {
        let (start, end) = (*self.san.get(i)?)?;
        // The replay keeps the span of a token it read as a `WrittenSan`: not read again.
        Some(WrittenSan(self.bytes.get(start as usize..end as usize)?))
    }
}

/// Sees a game as it is replayed, so that writers (`convert`), statistics and filters can use
/// the replay without doing it again. Every event but [`Visitor::play`] does nothing unless
/// implemented.
pub trait Visitor {
    /// What the visitor needs; asked once per game, before any event.
    fn needs(&self) -> Needs;

    /// A tag pair, in the order written (told when [`Needs::tags`]).
    fn tag(&mut self, _tag: Tag<'_>) {}

    /// The position the movetext starts from (the standard one, or the `FEN` tag's): told
    /// once, after the tags, unless the game has no position to start from.
    fn start(&mut self, _start: &Chess) {}

    /// A move was played: [`Ply`] says where it was written, the move, and the positions
    /// before and after it.
    fn play(&mut self, ply: &Ply<'_>);

    /// Every main-line move played, in order (null moves are not moves), up to where the main
    /// line broke: told once, after the movetext, when [`Needs::main_moves`].
    fn main_line(&mut self, _line: MainLine<'_>) {}

    /// A move token that was not played: it could not be replayed, was skipped after one that
    /// could not, or lies in a variation nested too deep to replay. Told once a token; a
    /// token of glued moves whose first moves were played is told too.
    fn unplayed(&mut self, _at: MoveAt) {}

    /// A null move (`--`, `Z0`) passed the turn from `before` to `after` (told when
    /// [`Needs::positions`] is not [`Positions::None`]).
    fn null_move(&mut self, _at: MoveAt, _before: &Chess, _after: &Chess) {}

    /// The move at `at` was illegal as written and replaced (`--repair`); the next
    /// [`Visitor::play`] is the replacement. `written` is the move as written.
    fn repaired(&mut self, _at: MoveAt, _written: &str) {}

    /// A comment, bytes `start..end` of the game: a brace comment with its braces, or a `;`
    /// comment to the end of its line (told when [`Needs::movetext`] or [`Needs::notes`]).
    fn comment(&mut self, _at: NoteAt, _start: u32, _end: u32) {}

    /// A NAG (`$n`, or a glyph glued to the move before), told when [`Needs::movetext`] or
    /// [`Needs::notes`].
    fn nag(&mut self, _at: NoteAt, _nag: u16) {}

    /// A variation starts (a `(`), replacing the last move of the line it is in; told for a
    /// variation nested too deep to replay too (its moves are [`Visitor::unplayed`]).
    fn begin_variation(&mut self) {}

    /// The variation last begun ends (a `)`). A variation the game leaves open is not
    /// closed by an event.
    fn end_variation(&mut self) {}

    /// The main line's result token, if it has one.
    fn result(&mut self, _result: Option<GameResult>) {}

    /// The game is over: no event follows.
    fn end_game(&mut self) {}
}

/// A visitor that needs nothing: the replay only checks.
pub struct NoVisitor;

impl Visitor for NoVisitor {
    fn needs(&self) -> Needs {
        Needs::NOTHING
    }

    fn play(&mut self, _: &Ply<'_>) {}
}

/// Every event but [`Visitor::needs`], told by `$each!(self, v => call on v)` to each visitor
/// a combination holds: the pair and the option below differ only in `$each`.
macro_rules! tell_each {
    ($each:ident) => {
        fn tag(&mut self, tag: Tag<'_>) {
            $each!(self, v => v.tag(tag));
        }

        fn start(&mut self, start: &Chess) {
            $each!(self, v => v.start(start));
        }

        #[inline]
        fn play(&mut self, ply: &Ply<'_>) {
            $each!(self, v => v.play(ply));
        }

        fn main_line(&mut self, line: MainLine<'_>) {
            $each!(self, v => v.main_line(line));
        }

        fn unplayed(&mut self, at: MoveAt) {
            $each!(self, v => v.unplayed(at));
        }

        fn null_move(&mut self, at: MoveAt, before: &Chess, after: &Chess) {
            $each!(self, v => v.null_move(at, before, after));
        }

        fn repaired(&mut self, at: MoveAt, written: &str) {
            $each!(self, v => v.repaired(at, written));
        }

        fn comment(&mut self, at: NoteAt, start: u32, end: u32) {
            $each!(self, v => v.comment(at, start, end));
        }

        fn nag(&mut self, at: NoteAt, nag: u16) {
            $each!(self, v => v.nag(at, nag));
        }

        fn begin_variation(&mut self) {
            $each!(self, v => v.begin_variation());
        }

        fn end_variation(&mut self) {
            $each!(self, v => v.end_variation());
        }

        fn result(&mut self, result: Option<GameResult>) {
            $each!(self, v => v.result(result));
        }

        fn end_game(&mut self) {
            $each!(self, v => v.end_game());
        }
    };
}

/// `call` on the first of a pair, then on the second.
macro_rules! both {
    ($pair:ident, $v:ident => $call:expr) => {{
        let $v = &mut $pair.0;
        $call;
        let $v = &mut $pair.1;
        $call;
    }};
}

/// `call` on the visitor, if there is one.
macro_rules! if_some {
    ($option:ident, $v:ident => $call:expr) => {
        if let Some($v) = $option {
            $call;
        }
    };
}

/// Two visitors as one: each event goes to the first, then to the second, and the needs are
/// both's ([`Needs::union`]). The calls are static: a pair costs no more dispatch than one.
impl<A: Visitor, B: Visitor> Visitor for (A, B) {
    fn needs(&self) -> Needs {
        self.0.needs().union(self.1.needs())
    }

    tell_each!(both);
}

/// `call` on the visitor borrowed.
macro_rules! borrowed {
    ($borrow:ident, $v:ident => $call:expr) => {{
        let $v = &mut **$borrow;
        $call;
    }};
}

/// A visitor lent to a combination: the caller keeps it, and reads it after the replay.
impl<V: Visitor + ?Sized> Visitor for &mut V {
    fn needs(&self) -> Needs {
        (**self).needs()
    }

    tell_each!(borrowed);
}

/// A visitor that may not be there: `None` needs nothing and is told nothing (a classifier
/// of openings only when one is asked for).
impl<V: Visitor> Visitor for Option<V> {
    fn needs(&self) -> Needs {
        self.as_ref().map_or(Needs::NOTHING, Visitor::needs)
    }

    tell_each!(if_some);
}

#[cfg(test)]
mod tests {
    use super::WrittenSan;

    #[test]
    fn a_written_san_holds_the_bytes_san_is_written_with_and_no_other() {
        let alphabet = b"abcdefgh12345678KQRBNOx=+#-";
        for b in 0..=255u8 {
            let token = [b'e', b];
            assert_eq!(
                WrittenSan::new(&token).is_some(),
                alphabet.contains(&b),
                "byte {b:#04x}"
            );
        }
    }
}
