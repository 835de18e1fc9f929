//! The one adapter between the replay and a selection: a [`Visitor`] that watches each
//! main-line position for the expression's targets (`position =`, `pattern =`, `material =`,
//! `balance =`...) and, for
//! `eco` and `opening`, classifies the opening. Kept alone in this file so a change of the
//! observer API touches nothing else.

use shakmaty::{Chess, Color, Move, Position};

use super::expr::{board_hash, full_hash, Target, Watched};
use super::material;
use crate::eco::{EcoObserver, Opening, Table};
use crate::notation::CheckClaim;
use crate::rules::visit::{MoveAt, Needs, Positions, Visitor};

/// Which targets the game reached, as the replay goes.
pub struct Watch<'a> {
    targets: &'a [Watched],
    /// One flag a target.
    pub reached: Vec<bool>,
    /// For each target, the consecutive positions it has held at so far: with the first
    /// set White's, and Black's (`balance`, which either side may have).
    runs: Vec<[u32; 2]>,
    /// The ply of the next position seen (0: the start position).
    ply: u32,
    /// Whether any target asks for a hash of the whole position, or of the board alone, or
    /// for the pieces counted.
    full: bool,
    board: bool,
    counts: bool,
    /// The classifier, when the expression tests the opening.
    eco: Option<EcoObserver<'a>>,
}

impl<'a> Watch<'a> {
    pub fn new(targets: &'a [Watched]) -> Watch<'a> {
        let any = |f: fn(&Target) -> bool| targets.iter().any(|w| f(&w.target));
        Watch {
            targets,
            reached: vec![false; targets.len()],
            runs: vec![[0; 2]; targets.len()],
            ply: 0,
            full: any(|t| matches!(t, Target::Full { .. })),
            board: any(|t| matches!(t, Target::Board { .. })),
            counts: any(|t| {
                matches!(
                    t,
                    Target::Material(_) | Target::Balance { .. } | Target::Difference { .. }
                )
            }),
            eco: None,
        }
    }

    /// Also classifies the game's opening with `table` (see [`Watch::opening`]).
    pub fn classifying(mut self, table: &'a Table) -> Watch<'a> {
        self.eco = Some(EcoObserver::new(table));
        self
    }

    /// The game's opening, when classifying and the table names one.
    pub fn opening(&self) -> Option<&'a Opening> {
        self.eco.as_ref()?.result()
    }

    /// Looks at one position of the main line, the next ply's. Each hash is computed once a
    /// position, and only when a target needs it; a hash that matches is checked exactly.
    pub fn see(&mut self, position: &Chess) {
        let ply = self.ply;
        self.ply = self.ply.saturating_add(1);
        let full = self.full.then(|| full_hash(position));
        let board = self
            .board
            .then(|| board_hash(position.board(), position.turn()));
        let counts = self.counts.then(|| position.board().material());
        let targets = self.targets.iter().zip(&mut self.runs);
        for ((watched, runs), reached) in targets.zip(self.reached.iter_mut()) {
            if *reached {
                continue;
            }
            if ply < watched.plies.0 || ply > watched.plies.1 {
                *runs = [0; 2];
                continue;
            }
            let holds = match &watched.target {
                Target::Full { hash, position: p } => [
                    full == Some(*hash)
                        && p.board() == position.board()
                        && p.turn() == position.turn()
                        && p.castles().castling_rights() == position.castles().castling_rights(),
                    false,
                ],
                Target::Board {
                    hash,
                    board: b,
                    turn,
                } => [
                    board == Some(*hash) && **b == *position.board() && *turn == position.turn(),
                    false,
                ],
                Target::Material(m) => [counts.as_ref() == Some(m), false],
                Target::Pattern(p) => [p.matches(position.board(), position.turn()), false],
                Target::Balance { balance, either } => {
                    let counts = counts.as_ref().expect("counted for a balance");
                    [
                        balance.matches(counts, Color::White),
                        *either && balance.matches(counts, Color::Black),
                    ]
                }
                Target::Difference { op, value } => {
                    let counts = counts.as_ref().expect("counted for a difference");
                    let diff = f64::from(material::difference(counts));
                    [diff.partial_cmp(value).is_some_and(|o| op.holds(o)), false]
                }
                Target::OppositeBishops => [material::opposite_bishops(position.board()), false],
            };
            // As pgn-extract counts stability: reached once it has held at `lasts` more
            // consecutive positions than the first.
            for (run, holds) in runs.iter_mut().zip(holds) {
                *run = if holds { *run + 1 } else { 0 };
                *reached |= *run > watched.lasts;
            }
        }
    }
}

impl Visitor for Watch<'_> {
    fn needs(&self) -> Needs {
        Needs {
            // Positions only when the expression looks for one (the classifier does).
            positions: if self.reached.is_empty() && self.eco.is_none() {
                Positions::None
            } else {
                Positions::All
            },
            movetext: false,
            tags: false,
            main_moves: false,
        }
    }

    fn play(
        &mut self,
        at: MoveAt,
        before: &Chess,
        after: &Chess,
        mv: Move,
        check: CheckClaim,
        san: Option<&str>,
    ) {
        // Once every target is reached, nothing is left to look at; the plies are counted.
        if at.depth == 0 {
            if self.reached.iter().any(|r| !r) {
                self.see(before);
            } else {
                self.ply = self.ply.saturating_add(1);
            }
        }
        if let Some(eco) = &mut self.eco {
            eco.play(at, before, after, mv, check, san);
        }
    }

    fn null_move(&mut self, at: MoveAt, before: &Chess, after: &Chess) {
        if at.depth == 0 {
            self.ply = self.ply.saturating_add(1);
        }
        if let Some(eco) = &mut self.eco {
            eco.null_move(at, before, after);
        }
    }
}
