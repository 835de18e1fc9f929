//! The classifier as an observer of the replay: the one adapter between the replay's moves
//! and [`Classifier`], for every command that names openings.

use shakmaty::Chess;

use super::{Classification, Classifier, Opening, Table};
use crate::rules::visit::{MoveAt, Needs, Ply, Positions, Visitor};

/// Classifies the game the replay plays: main-line moves only, and no position copied once
/// no named position can follow (so the replay's bytes loop keeps its speed past the opening).
#[derive(Clone, Debug)]
pub struct EcoObserver<'t> {
    classifier: Classifier<'t>,
    started: bool,
}

impl<'t> EcoObserver<'t> {
    pub fn new(table: &'t Table) -> EcoObserver<'t> {
        EcoObserver {
            classifier: Classifier::new(table),
            started: false,
        }
    }

    /// Forgets the game, for the next one.
    pub fn clear(&mut self) {
        self.started = false;
        self.classifier = Classifier::new(self.classifier.table);
    }

    /// The game's opening, once replayed.
    pub fn result(&self) -> Option<&'t Opening> {
        self.classifier.result()
    }

    /// The game's opening with where the game reached it.
    pub fn classification(&self) -> Option<&Classification<'t>> {
        self.classifier.classification()
    }

    fn begin(&mut self, start: &Chess) {
        if !self.started {
            self.started = true;
            self.classifier.start(start);
        }
    }
}

impl Visitor for EcoObserver<'_> {
    fn needs(&self) -> Needs {
        // Every main-line position: a named position may be reached late by transposition.
        Needs {
            positions: Positions::All,
            ..Needs::NOTHING
        }
    }

    fn play(&mut self, ply: &Ply<'_>) {
        if ply.at.depth == 0 && !self.classifier.done() {
            self.begin(ply.before);
            self.classifier.play(ply.before, ply.mv, ply.after);
        }
    }

    fn null_move(&mut self, at: MoveAt, before: &Chess, after: &Chess) {
        if at.depth == 0 && !self.classifier.done() {
            self.begin(before);
            self.classifier.after_move(after);
        }
    }
}
