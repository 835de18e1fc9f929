//! The one adapter between the replay and a selection: a [`Visitor`] that watches each
//! main-line position for the expression's targets (`position =`, `pattern =`, `material =`,
//! `balance =`...). (For `eco` and `opening`, the classifier of openings is replayed beside
//! it.) Kept alone in this file so a change of the observer API touches nothing else.

use shakmaty::{Board, ByColor, ByRole, Chess, Color, Move, Piece, Position};

use super::expr::{Target, Watched};
use super::material;
use crate::convert::numbers::squares_changed;
use crate::rules::visit::{MainLine, MoveAt, Needs, Ply, Positions, Visitor};

/// Which targets the game reached, as the replay goes.
pub struct Watch<'a> {
    targets: &'a [Watched],
    /// One flag a target.
    pub reached: Vec<bool>,
    /// For each target reached, the ply of the position where it was (0: the start).
    pub reached_at: Vec<Option<u32>>,
    /// For each target, the consecutive positions it has held at so far: with the first
    /// set White's, and Black's (`balance`, which either side may have).
    runs: Vec<[u32; 2]>,
    /// The ply of the next position seen (0: the start position).
    ply: u32,
    /// Whether any target compares whole positions (castling rights, en passant), or asks
    /// for the pieces counted.
    full: bool,
    counts: bool,
    /// Whether the positions are made here from the main line's moves, told once at the
    /// end ([`Needs::main_moves`]), rather than told move by move: the replay then keeps to
    /// its bytes loop, which costs less than a copy and a call a ply. Not beside the
    /// classifier, which has every position told ([`Watch::move_by_move`]).
    by_moves: bool,
    /// The start position, when `by_moves`, until the moves come.
    start: Option<Chess>,
    /// Whether the moves were told (`by_moves`), and how many.
    told: bool,
    moves_told: usize,
    /// Whether a target looks at the board; when none does, `by_moves` keeps only the
    /// pieces' counts, with no position played.
    board_needed: bool,
    /// The moves told could not be played from the start position: a null move passed the
    /// turn between two of them. The game must be watched again move by move
    /// ([`Watch::move_by_move`]).
    desynced: bool,
    /// The last position looked at held no target that is not reached yet, and each of them
    /// was within its plies: a position with the same pieces counted then holds none either
    /// when no target needs the board ([`Watch::board_needed`]), so the counts-only watch
    /// passes over the moves that neither capture nor promote.
    quiet: bool,
}

impl<'a> Watch<'a> {
    pub fn new(targets: &'a [Watched]) -> Watch<'a> {
        let any = |f: fn(&Target) -> bool| targets.iter().any(|w| f(&w.target));
        Watch {
            targets,
            reached: vec![false; targets.len()],
            reached_at: vec![None; targets.len()],
            runs: vec![[0; 2]; targets.len()],
            ply: 0,
            full: any(|t| matches!(t, Target::Full(_))),
            counts: any(|t| {
                matches!(
                    t,
                    Target::Material(_) | Target::Balance { .. } | Target::Difference { .. }
                )
            }),
            by_moves: !targets.is_empty(),
            start: None,
            told: false,
            moves_told: 0,
            board_needed: any(|t| {
                !matches!(
                    t,
                    Target::Material(_) | Target::Balance { .. } | Target::Difference { .. }
                )
            }),
            desynced: false,
            quiet: false,
        }
    }

    /// Watches the positions as the replay tells them, move by move.
    pub fn move_by_move(mut self) -> Watch<'a> {
        self.by_moves = false;
        self
    }

    /// Whether the game must be watched again move by move ([`Watch::move_by_move`]): the
    /// moves told were not every ply the replay counted (`plies`), so a null move passed the
    /// turn between two of them.
    pub fn desynced(&self, plies: u32) -> bool {
        self.by_moves && self.told && (self.desynced || self.moves_told != plies as usize)
    }

    /// The game's last position (`None` for a game with none): looked at unless the moves
    /// were, from the start.
    pub fn finish(&mut self, last: Option<&Chess>) {
        if self.by_moves && self.told {
            return;
        }
        if let Some(last) = last.or(self.start.as_ref()) {
            let last = last.clone();
            self.see(&last);
        }
    }

    /// Looks at one position of the main line, the next ply's.
    pub fn see(&mut self, position: &Chess) {
        let counts = self.counts.then(|| position.board().material());
        self.see_counted(position, counts.as_ref());
    }

    /// [`Watch::see`] with the pieces counted already, when a target needs them.
    fn see_counted(&mut self, position: &Chess, counts: Option<&ByColor<ByRole<u8>>>) {
        self.look(
            Some((position.board(), position.turn())),
            Some(position),
            counts,
        );
    }

    /// Looks at the next ply's position: its board and side to move (`shown`), and the
    /// whole position when there is one (`position =` compares castling rights). `shown` is
    /// `None` only when no target needs the board ([`Watch::board_needed`]), the pieces
    /// counted; `position` only when no target needs the whole position ([`Watch::full`]).
    fn look(
        &mut self,
        shown: Option<(&Board, Color)>,
        position: Option<&Chess>,
        counts: Option<&ByColor<ByRole<u8>>>,
    ) {
        let ply = self.ply;
        self.ply = self.ply.saturating_add(1);
        let targets = self.targets.iter().zip(&mut self.runs);
        let flags = self.reached.iter_mut().zip(self.reached_at.iter_mut());
        let mut quiet = true;
        for ((watched, runs), (reached, reached_at)) in targets.zip(flags) {
            if *reached {
                continue;
            }
            if ply < watched.plies.0 || ply > watched.plies.1 {
                *runs = [0; 2];
                quiet = false;
                continue;
            }
            let holds = match (&watched.target, shown) {
                // The boards first: they differ at nearly every position, and a comparison
                // costs less than a hash.
                (Target::Full(p), _) => [
                    position.is_some_and(|position| {
                        p.board() == position.board()
                            && p.turn() == position.turn()
                            && p.castles().castling_rights() == position.castles().castling_rights()
                            && p.legal_ep_square() == position.legal_ep_square()
                    }),
                    false,
                ],
                (Target::Board { board, turn }, Some((shown, shown_turn))) => {
                    [**board == *shown && *turn == shown_turn, false]
                }
                (Target::Pattern(p), Some((shown, turn))) => [p.matches(shown, turn), false],
                (Target::OppositeBishops, Some((shown, _))) => {
                    [material::opposite_bishops(shown), false]
                }
                (Target::Material(m), _) => [counts == Some(m), false],
                (Target::Balance { balance, either }, _) => {
                    counts.map_or([false; 2], |c| balance.matches_as(c, *either))
                }
                (Target::Difference { op, value }, _) => [
                    counts.is_some_and(|c| {
                        let diff = f64::from(material::difference(c));
                        diff.partial_cmp(value).is_some_and(|o| op.holds(o))
                    }),
                    false,
                ],
                // Not told without a position: no target needing one is then watched.
                (_, None) => [false; 2],
            };
            // As pgn-extract counts stability: reached once it has held at `lasts` more
            // consecutive positions than the first.
            for (run, holds) in runs.iter_mut().zip(holds) {
                *run = if holds { *run + 1 } else { 0 };
                *reached |= *run > watched.lasts;
            }
            quiet &= *runs == [0; 2];
            if *reached {
                *reached_at = Some(ply);
            }
        }
        self.quiet = quiet;
    }
}

impl Visitor for Watch<'_> {
    fn needs(&self) -> Needs {
        Needs {
            // Positions only when the expression looks for one.
            positions: if self.by_moves || self.reached.is_empty() {
                Positions::None
            } else {
                Positions::All
            },
            movetext: false,
            tags: false,
            main_moves: self.by_moves,
            notes: false,
            main_san: false,
        }
    }

    fn start(&mut self, start: &Chess) {
        if self.by_moves {
            self.start = Some(start.clone());
        }
    }

    fn main_line(&mut self, line: MainLine<'_>) {
        let moves = line.moves;
        let Some(pos) = self.start.take().filter(|_| self.by_moves) else {
            return;
        };
        self.told = true;
        self.moves_told = moves.len();
        // Counted once, then kept by the captures and promotions.
        let mut counts = self.counts.then(|| pos.board().material());
        if !self.board_needed {
            // The counts alone: no position is played. A null move, which would put the
            // captures on the wrong side, is found by the count of plies.
            let mut turn = pos.turn();
            self.look(None, None, counts.as_ref());
            for mv in moves {
                if self.reached.iter().all(|r| *r) {
                    return;
                }
                turn = !turn;
                if !mv.is_capture() && !mv.is_promotion() {
                    if self.quiet {
                        // The same counts as the position before, which held nothing.
                        self.ply = self.ply.saturating_add(1);
                        continue;
                    }
                } else if let Some(counts) = &mut counts {
                    keep_count(counts, mv, !turn);
                }
                self.look(None, None, counts.as_ref());
            }
            return;
        }
        // The board alone is played (the pieces moved) unless a target compares whole
        // positions: castling rights, en passant and the counters cost as much again a ply.
        let mut turn = pos.turn();
        let mut board = pos.board().clone();
        let mut whole = self.full.then_some(pos);
        self.look(Some((&board, turn)), whole.as_ref(), counts.as_ref());
        for mv in moves {
            if self.reached.iter().all(|r| *r) {
                return;
            }
            let before = whole.as_ref().map_or(&board, Chess::board);
            // A null move on the main line is no move here: the next one is then not the
            // side to move's.
            if mv.from().and_then(|from| before.color_at(from)) != Some(turn) {
                self.desynced = true;
                return;
            }
            if let Some(counts) = &mut counts {
                keep_count(counts, mv, turn);
            }
            match &mut whole {
                Some(pos) => pos.play_unchecked(*mv),
                None => play_on_board(&mut board, mv, turn),
            }
            turn = !turn;
            let after = whole.as_ref().map_or(&board, Chess::board);
            debug_assert!(counts.is_none_or(|c| c == after.material()));
            let after = (after, turn);
            self.look(Some(after), whole.as_ref(), counts.as_ref());
        }
    }

    fn play(&mut self, ply: &Ply<'_>) {
        // Watching from the moves, the positions come from `main_line`: a move told here
        // (one a variation follows, whose position the replay kept) would be counted twice.
        if self.by_moves {
            return;
        }
        // Once every target is reached, nothing is left to look at; the plies are counted.
        if ply.at.depth == 0 {
            if self.reached.iter().any(|r| !r) {
                self.see(ply.before);
            } else {
                self.ply = self.ply.saturating_add(1);
            }
        }
    }

    fn null_move(&mut self, at: MoveAt, _: &Chess, _: &Chess) {
        if at.depth == 0 {
            self.ply = self.ply.saturating_add(1);
        }
    }
}

/// Plays `mv`, a legal move of `turn`'s, on the board alone.
#[inline]
fn play_on_board(board: &mut Board, mv: &Move, turn: Color) {
    squares_changed(*mv, turn, |square, role| match role {
        Some(role) => board.set_piece_at(square, Piece { color: turn, role }),
        None => board.discard_piece_at(square),
    });
}

/// The pieces after `mv`, played by `turn`: a capture takes one of the other side's, a
/// promotion turns a pawn into another piece.
fn keep_count(counts: &mut ByColor<ByRole<u8>>, mv: &Move, turn: Color) {
    if let Some(role) = mv.capture() {
        let n = counts.get_mut(!turn).get_mut(role);
        *n = n.saturating_sub(1);
    }
    if let Some(role) = mv.promotion() {
        let mine = counts.get_mut(turn);
        mine.pawn = mine.pawn.saturating_sub(1);
        let n = mine.get_mut(role);
        *n = n.saturating_add(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn::{GameReader, Lexed, Movetext};
    use crate::rules::game::{check_game, CheckOptions};
    use crate::select::Selection;

    /// Each game's targets reached, and where, watched from the main line's moves and move by
    /// move.
    fn both_ways(src: &str, pgn: &[u8]) -> Vec<[Vec<Option<u32>>; 2]> {
        let selection = Selection::parse(src).unwrap();
        let mut reader = GameReader::new(pgn);
        let mut lexed = Lexed::default();
        let mut found = Vec::new();
        while let Some(game) = reader.next_game(&mut lexed).unwrap() {
            let ways = [false, true].map(|by_move| {
                let mut watch = Watch::new(selection.targets());
                if by_move {
                    watch = watch.move_by_move();
                }
                let opts = CheckOptions::default();
                let report = check_game(game.bytes, &lexed, Movetext::Tokens, &opts, &mut watch);
                assert!(!watch.desynced(report.plies), "{src}");
                watch.finish(report.final_position.as_ref());
                watch.reached_at
            });
            found.push(ways);
        }
        found
    }

    #[test]
    fn counted_from_the_moves_the_material_is_reached_where_the_positions_reach_it() {
        let games = [
            &include_bytes!("../../testdata/select/extract.pgn")[..],
            include_bytes!("../../testdata/tree/positions.pgn"),
            include_bytes!("../../testdata/select/games.pgn"),
            b"1. e4 a6 2. e5 d5 3. exd6 Nf6 4. dxc7 e5 5. cxb8=Q Rxb8 6. Nf3 Bd6 7. Bc4 Ke7 8. O-O *\n",
        ];
        let tests = [
            "material_diff >= 1",
            "material_diff >= 2 for 3",
            "material_diff <= -1 at 10..40",
            "balance = \"Q:R*\"",
            "white_balance = \"R*:B*\" for 2",
            "material = \"KQkq\" or material_diff >= 9",
            // On the board played from the moves: castling, en passant, promotions.
            "pattern = \"*/*/*/*/*/*/*/??KR????\"",
            "pattern = \"*/*/*/*/*/*/*/????K??R\" or pattern = \"*/*/*/*/*/*/*/?????RK?\"",
            "pattern = \"*/*/*/*/*/*/PPP*/*\" for 4",
            "opposite_bishops for 3",
            "pattern = \"*/*/*/???p????/*/*/*/*\" for 2",
            // The whole position: castling rights too.
            "position = \"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -\"",
        ];
        let mut reached = 0;
        for pgn in games {
            for src in tests {
                for [by_moves, by_move] in both_ways(src, pgn) {
                    assert_eq!(by_moves, by_move, "{src}");
                    reached += by_moves.iter().flatten().count();
                }
            }
        }
        // Not a test of games that reach nothing.
        assert!(reached >= 20, "{reached}");
    }
}

#[cfg(test)]
mod position_tests {
    use super::tests_support::reached;

    #[test]
    fn a_whole_position_counts_en_passant_only_when_a_capture_is_legal() {
        let game = b"1. e4 a6 2. e5 d5 *\n";
        let after_d5 = "rnbqkbnr/1pp1pppp/p7/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq";
        assert_eq!(reached(&format!("{after_d5} d6 0 3"), game), Some(4));
        assert_eq!(reached(&format!("{after_d5} - 0 3"), game), None);
        // After 1. e4 no capture is legal: the square written or not, the same position.
        let after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq";
        assert_eq!(reached(&format!("{after_e4} e3 0 1"), game), Some(1));
        assert_eq!(reached(&format!("{after_e4} - 0 1"), game), Some(1));
        // Castling rights are part of it; the board and side to move alone are not.
        let board_and_turn = &after_e4[..after_e4.len() - " KQkq".len()];
        assert_eq!(reached(&format!("{board_and_turn} - - 0 1"), game), None);
        assert_eq!(reached(board_and_turn, game), Some(1));
    }
}

#[cfg(test)]
mod tests_support {
    use super::Watch;
    use crate::pgn::{lex_game, Lexed, Movetext};
    use crate::rules::game::{check_game, CheckOptions};
    use crate::select::Selection;

    /// The ply where the game `pgn` first reaches `position = "fen"`.
    pub(super) fn reached(fen: &str, pgn: &[u8]) -> Option<u32> {
        let selection = Selection::parse(&format!("position = \"{fen}\"")).unwrap();
        let mut lexed = Lexed::default();
        lex_game(pgn, true, 1, &mut lexed);
        let mut watch = Watch::new(selection.targets());
        let opts = CheckOptions::default();
        let report = check_game(pgn, &lexed, Movetext::Tokens, &opts, &mut watch);
        watch.finish(report.final_position.as_ref());
        watch.reached_at[0]
    }
}
