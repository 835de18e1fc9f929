//! Whether one game is selected, decided the one way every command decides it (`select`,
//! `tree --where`, `convert --where`): by its tags when they decide it, without a replay;
//! otherwise in one replay that watches the positions the expression looks for, classifies
//! the opening when it asks for one, and tells the caller's own visitor as well.

use super::mark;
use super::watch::Watch;
use super::{Facts, Selection};
use crate::eco::{EcoObserver, Table};
use crate::input::pipeline::Game;
use crate::rules::game::{CheckOptions, GameReport};
use crate::rules::visit::{NoVisitor, Visitor};

/// What [`Selection::decide`] found of one game.
pub struct Decided {
    /// Whether the expression selects it.
    pub matched: bool,
    /// The replay's report: `None` when the tags decided and nothing asked for a replay.
    pub report: Option<GameReport>,
    /// For each target of the expression, the ply where the game first reached it (empty
    /// when the game was not replayed): see [`Selection::first_match`].
    pub reached_at: Vec<Option<u32>>,
}

impl Decided {
    /// Where the game first matched (`--mark-matches`), when it matched in a replay.
    pub fn first_match(&self, selection: &Selection) -> Option<mark::Match> {
        let report = self.report.as_ref().filter(|_| self.matched)?;
        selection.first_match(&self.reached_at, report)
    }
}

impl Selection {
    /// The opening table its `eco` and `opening` tests classify with (`path`, or the built-in
    /// one): read once for a run, and only when the expression
    /// [classifies](Selection::classifies).
    ///
    /// # Errors
    ///
    /// The table's file cannot be read or is not a table.
    pub fn opening_table(
        &self,
        path: Option<&std::path::Path>,
    ) -> anyhow::Result<Option<&'static Table>> {
        self.classifies()
            .then(|| crate::eco::table_at(path))
            .transpose()
    }

    /// Decides `game` (from the input named `file`) on its own: the tags first, the replay
    /// only when the expression depends on it. A game the tags decide is only closed.
    /// `eco_table` is the opening table when the expression
    /// [classifies](Selection::classifies).
    pub fn decide(
        &self,
        game: &mut Game<'_>,
        file: &str,
        opts: &CheckOptions,
        eco_table: Option<&Table>,
    ) -> Decided {
        self.decide_in(game, file, opts, eco_table, None::<&mut NoVisitor>)
    }

    /// Decides `game` for a caller that replays each selected game with `visitor`: a game
    /// the tags select is replayed with it alone, and a game that depends on the replay is
    /// decided in that same replay, `visitor` told beside the watch. A game the tags leave
    /// out is only closed, and `visitor` is told nothing of it.
    pub fn decide_with<V: Visitor>(
        &self,
        game: &mut Game<'_>,
        file: &str,
        opts: &CheckOptions,
        eco_table: Option<&Table>,
        visitor: &mut V,
    ) -> Decided {
        self.decide_in(game, file, opts, eco_table, Some(visitor))
    }

    fn decide_in<V: Visitor>(
        &self,
        game: &mut Game<'_>,
        file: &str,
        opts: &CheckOptions,
        eco_table: Option<&Table>,
        visitor: Option<&mut V>,
    ) -> Decided {
        // A tagless game in the book layout has its header read as tags, as the replay does.
        crate::pgn::book::extract_header(game.bytes, game.lexed);
        let by_tags = self.matches(&Facts {
            lexed: game.lexed,
            replay: None,
            game: game.number,
            file,
        });
        let decided = |matched, report| Decided {
            matched,
            report,
            reached_at: Vec::new(),
        };
        match (by_tags, visitor) {
            (Some(true), Some(visitor)) => decided(true, Some(game.check(opts, visitor))),
            (Some(matched), _) => {
                game.close();
                decided(matched, None)
            }
            (None, Some(visitor)) => {
                // The caller's visitor is told every position anyway: the watch looks at
                // them as they come.
                let watch = Watch::new(self.targets()).move_by_move();
                let mut all = (visitor, (watch, eco_table.map(EcoObserver::new)));
                let report = game.check(opts, &mut all);
                let (_, (watch, eco)) = all;
                self.decided_by_replay(game, file, report, watch, eco.as_ref())
            }
            (None, None) => {
                let mut watch = Watch::new(self.targets());
                if eco_table.is_some() {
                    // The classifier has every position told: the watch looks at them as
                    // they come, not again from the moves.
                    watch = watch.move_by_move();
                }
                let mut both = (watch, eco_table.map(EcoObserver::new));
                let mut report = game.check(opts, &mut both);
                let (mut watch, eco) = both;
                if watch.desynced(report.plies) {
                    // A null move on the main line: its positions are told move by move.
                    watch = Watch::new(self.targets()).move_by_move();
                    report = game.check(opts, &mut watch);
                }
                self.decided_by_replay(game, file, report, watch, eco.as_ref())
            }
        }
    }

    /// The decision once the game is replayed, with what watched and classified it.
    fn decided_by_replay(
        &self,
        game: &Game<'_>,
        file: &str,
        report: GameReport,
        mut watch: Watch<'_>,
        eco: Option<&EcoObserver<'_>>,
    ) -> Decided {
        let matched =
            self.matches_replayed((game.lexed, game.number, file), &report, &mut watch, eco);
        Decided {
            matched,
            report: Some(report),
            reached_at: std::mem::take(&mut watch.reached_at),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn::{lex_game, Lexed, Movetext};
    use crate::rules::visit::{Needs, Ply, Positions};

    /// Counts the moves it is told.
    struct Plies(u32);

    impl Visitor for Plies {
        fn needs(&self) -> Needs {
            Needs {
                positions: Positions::All,
                ..Needs::NOTHING
            }
        }

        fn play(&mut self, _: &Ply<'_>) {
            self.0 += 1;
        }
    }

    /// Decides `pgn` with `src`, with a visitor or without: whether it matched, whether it was
    /// replayed, and the moves the visitor was told.
    fn decide(src: &str, pgn: &[u8], with: bool) -> (bool, bool, u32) {
        let selection = Selection::parse(src).unwrap();
        let mut lexed = Lexed::default();
        lex_game(pgn, true, 1, &mut lexed);
        let mut game = Game {
            bytes: pgn,
            lexed: &mut lexed,
            number: 1,
            line: 1,
            col: 1,
            offset: 0,
            movetext: Movetext::Tokens,
        };
        let opts = CheckOptions::default();
        let mut plies = Plies(0);
        let decided = if with {
            selection.decide_with(&mut game, "t.pgn", &opts, None, &mut plies)
        } else {
            selection.decide(&mut game, "t.pgn", &opts, None)
        };
        (decided.matched, decided.report.is_some(), plies.0)
    }

    const GAME: &[u8] = b"[White \"A\"]\n[WhiteElo \"2600\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *\n";

    #[test]
    fn the_tags_decide_without_a_replay_unless_the_visitor_wants_one() {
        // Decided by the tags: replayed only for a caller's visitor, and only when selected.
        assert_eq!(decide("WhiteElo >= 2500", GAME, false), (true, false, 0));
        assert_eq!(decide("WhiteElo >= 2500", GAME, true), (true, true, 6));
        assert_eq!(decide("WhiteElo < 2500", GAME, true), (false, false, 0));
    }

    #[test]
    fn a_game_that_depends_on_the_replay_is_decided_in_the_visitors_replay() {
        for with in [false, true] {
            let told = if with { 6 } else { 0 };
            assert_eq!(decide("plies >= 6", GAME, with), (true, true, told));
            assert_eq!(decide("plies > 6", GAME, with), (false, true, told));
            // The start position's material, and one the game never reaches.
            let start = "material = \"KQRRBBNNPPPPPPPPkqrrbbnnpppppppp\"";
            assert_eq!(decide(start, GAME, with), (true, true, told));
            let rook_ending = "material = \"KRPPkr\"";
            assert_eq!(decide(rook_ending, GAME, with), (false, true, told));
        }
    }
}
