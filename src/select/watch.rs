//! The one adapter between the replay and a selection: a [`Visitor`] that watches each
//! main-line position for the expression's targets (`position =`, `material =`) and, for
//! `eco` and `opening`, classifies the opening. Kept alone in this file so a change of the
//! observer API touches nothing else.

use shakmaty::{Chess, Move, Position};

use super::expr::{board_hash, full_hash, Target};
use crate::eco::{EcoObserver, Opening, Table};
use crate::notation::CheckClaim;
use crate::rules::visit::{MoveAt, Needs, Positions, Visitor};

/// Which targets the game reached, as the replay goes.
pub struct Watch<'a> {
    targets: &'a [Target],
    /// One flag a target.
    pub reached: Vec<bool>,
    /// Whether any target asks for a hash of the whole position, or of the board alone.
    full: bool,
    board: bool,
    /// The classifier, when the expression tests the opening.
    eco: Option<EcoObserver<'a>>,
}

impl<'a> Watch<'a> {
    pub fn new(targets: &'a [Target]) -> Watch<'a> {
        Watch {
            targets,
            reached: vec![false; targets.len()],
            full: targets.iter().any(|t| matches!(t, Target::Full { .. })),
            board: targets.iter().any(|t| matches!(t, Target::Board { .. })),
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

    /// Looks at one position of the main line. Each hash is computed once a position, and
    /// only when a target needs it; a hash that matches is checked exactly.
    pub fn see(&mut self, position: &Chess) {
        let full = self.full.then(|| full_hash(position));
        let board = self
            .board
            .then(|| board_hash(position.board(), position.turn()));
        for (target, reached) in self.targets.iter().zip(self.reached.iter_mut()) {
            if *reached {
                continue;
            }
            *reached = match target {
                Target::Full { hash, position: p } => {
                    full == Some(*hash)
                        && p.board() == position.board()
                        && p.turn() == position.turn()
                        && p.castles().castling_rights() == position.castles().castling_rights()
                }
                Target::Board {
                    hash,
                    board: b,
                    turn,
                } => board == Some(*hash) && **b == *position.board() && *turn == position.turn(),
                Target::Material(m) => position.board().material() == *m,
                Target::Pattern(p) => p.matches(position.board(), position.turn()),
            };
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

    fn play(&mut self, at: MoveAt, before: &Chess, mv: Move, check: CheckClaim, san: Option<&str>) {
        // Once every target is reached, nothing is left to look at.
        if at.depth == 0 && self.reached.iter().any(|r| !r) {
            self.see(before);
        }
        if let Some(eco) = &mut self.eco {
            eco.play(at, before, mv, check, san);
        }
    }

    fn null_move(&mut self, at: MoveAt, before: &Chess, after: &Chess) {
        if let Some(eco) = &mut self.eco {
            eco.null_move(at, before, after);
        }
    }
}
