//! How a game came out, one type each: its result ([`GameResult`], read from a tag by
//! [`GameResult::of_tag`]) and how the rules ended it ([`Ending`]), each with the one spelling
//! and the one number that every output uses (`docs/rules.md`, "How endings are spelled").

pub use crate::pgn::GameResult;
use crate::rules::game::GameReport;

// The result type is the lexer's (it reads the result token); what the tags and the outputs
// need of it lives here, next to the ending.
impl GameResult {
    /// The result a `Result` tag's value spells: one of the four PGN spellings exactly
    /// (`1-0`, `0-1`, `1/2-1/2`, `*`); anything else is `None`.
    ///
    /// ```
    /// use pgnkit::rules::outcome::GameResult;
    ///
    /// assert_eq!(GameResult::of_tag("0-1"), Some(GameResult::BlackWins));
    /// assert_eq!(GameResult::of_tag("*"), Some(GameResult::Unknown));
    /// assert_eq!(GameResult::of_tag("1:0"), None);
    /// ```
    pub fn of_tag(value: &str) -> Option<GameResult> {
        match GameResult::parse(value.as_bytes()) {
            Some((result, true)) => Some(result),
            _ => None,
        }
    }

    /// The result as a number, for the numeric columns: 1 White won, 0 a draw, -1 Black won;
    /// `None` for `*`.
    pub fn code(self) -> Option<i8> {
        match self {
            GameResult::WhiteWins => Some(1),
            GameResult::Draw => Some(0),
            GameResult::BlackWins => Some(-1),
            GameResult::Unknown => None,
        }
    }
}

/// How a game ended as the reports say it: what the rules ended it by
/// (the first five, or [`Ending::None`]: what [`GameReport::termination`] holds) or, when no
/// rule ended it, the first draw that could have been claimed. Each is numbered by its
/// place in [`ENDINGS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ending {
    /// The side to move is checkmated.
    Checkmate = 1,
    /// The side to move has no legal move and is not in check.
    Stalemate = 2,
    /// Neither side can mate by any series of legal moves (FIDE 5.2.2).
    DeadPosition = 3,
    /// The same position for the fifth time (FIDE 9.6.1).
    Fivefold = 4,
    /// Seventy-five moves by each side without a capture or a pawn move (FIDE 9.6.2).
    SeventyFive = 5,
    /// No rule ended the game; a threefold repetition could have been claimed first.
    ThreefoldClaimable = 6,
    /// As [`Ending::ThreefoldClaimable`], the repetition coming from perpetual check.
    PerpetualCheck = 7,
    /// No rule ended the game; a fifty-move draw could have been claimed first.
    FiftyClaimable = 8,
    /// No rule ended the game and no draw could be claimed.
    None = 0,
}

/// Every ending with its one spelling and its number: the table `docs/rules.md` shows.
pub const ENDINGS: [(Ending, &str, u8); 9] = [
    (Ending::None, "none", 0),
    (Ending::Checkmate, "checkmate", 1),
    (Ending::Stalemate, "stalemate", 2),
    (Ending::DeadPosition, "dead position", 3),
    (Ending::Fivefold, "fivefold repetition", 4),
    (Ending::SeventyFive, "seventy-five moves", 5),
    (Ending::ThreefoldClaimable, "threefold claimable", 6),
    (Ending::PerpetualCheck, "perpetual check", 7),
    (Ending::FiftyClaimable, "fifty claimable", 8),
];

impl Ending {
    /// The ending of a checked game, and the main-line ply (1-based) where it happened:
    /// what the rules ended it by; else the first draw that could have been claimed (a
    /// repetition from perpetual check is [`Ending::PerpetualCheck`]); else
    /// [`Ending::None`].
    ///
    /// ```
    /// use pgnkit::pgn::{lex_game, Lexed, Movetext};
    /// use pgnkit::rules::game::{check_game, CheckOptions};
    /// use pgnkit::rules::outcome::Ending;
    /// use pgnkit::rules::visit::NoVisitor;
    ///
    /// let pgn = b"1. f3 e5 2. g4 Qh4# 0-1\n";
    /// let mut lexed = Lexed::default();
    /// lex_game(pgn, true, 1, &mut lexed);
    /// let opts = CheckOptions::default();
    /// let report = check_game(pgn, &lexed, Movetext::Tokens, &opts, &mut NoVisitor);
    /// let (ending, ply) = Ending::of(&report);
    /// assert_eq!((ending.as_str(), ply), ("checkmate", Some(4)));
    /// ```
    pub fn of(report: &GameReport) -> (Ending, Option<u32>) {
        if report.termination != Ending::None {
            return (report.termination, report.termination_ply);
        }
        let threefold = report.threefold_ply.map(|p| {
            let what = if report.perpetual_check {
                Ending::PerpetualCheck
            } else {
                Ending::ThreefoldClaimable
            };
            (what, p)
        });
        let fifty = report.fifty_ply.map(|p| (Ending::FiftyClaimable, p));
        let (ending, ply) = match (threefold, fifty) {
            (Some(t), Some(f)) if f.1 < t.1 => f,
            (Some(t), _) => t,
            (None, Some(f)) => f,
            (None, None) => return (Ending::None, None),
        };
        (ending, Some(ply))
    }

    /// The one spelling: `checkmate`, `fivefold repetition`, `threefold claimable`, `none`.
    pub fn as_str(self) -> &'static str {
        ENDINGS[self as usize].1
    }

    /// The number of the numeric columns: 0 none, 1 checkmate … 5 seventy-five moves, then
    /// the claimable draws 6–8 (see [`ENDINGS`]).
    pub fn code(self) -> u8 {
        self as u8
    }

    /// A draw that could have been claimed, not an ending by rule.
    pub fn is_claimable(self) -> bool {
        matches!(
            self,
            Ending::ThreefoldClaimable | Ending::PerpetualCheck | Ending::FiftyClaimable
        )
    }

    /// The ending by rule it is: [`Ending::None`] for a draw that could only have been
    /// claimed.
    pub fn by_rule(self) -> Ending {
        if self.is_claimable() {
            Ending::None
        } else {
            self
        }
    }

    /// The ending its one spelling names.
    pub fn parse(spelling: &str) -> Option<Ending> {
        ENDINGS
            .iter()
            .find(|(_, s, _)| *s == spelling)
            .map(|&(e, _, _)| e)
    }

    /// The ending a spelling of older pgnkit outputs names: `fivefold` (stats' games.csv,
    /// terminations.csv and partial files before the spellings became one).
    pub fn parse_old(spelling: &str) -> Option<Ending> {
        (spelling == "fivefold").then_some(Ending::Fivefold)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_in_the_order_of_its_numbers() {
        for (i, &(ending, spelling, code)) in ENDINGS.iter().enumerate() {
            assert_eq!((ending as usize, usize::from(code)), (i, i));
            assert_eq!(Ending::parse(spelling), Some(ending));
        }
    }

    #[test]
    fn results_read_from_tags_keep_their_numbers() {
        assert_eq!(
            ["1-0", "1/2-1/2", "0-1", "*", "1:0", ""]
                .map(|t| GameResult::of_tag(t).and_then(GameResult::code)),
            [Some(1), Some(0), Some(-1), None, None, None]
        );
    }
}
