//! Results by rule: dead positions (insufficient material and, through chasolver, everything
//! beyond it) and whether a side could still mate at all (FIDE 5.2.2 and 6.9).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::str::FromStr;

use shakmaty::{fen::Fen, Bitboard, Chess, Color, EnPassantMode, Position};

/// Which meaning of "insufficient material" to apply.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Insufficient {
    /// FIDE: only when no sequence of legal moves at all lets the side mate (K+N v K+N is
    /// not dead: a helpmate exists).
    #[default]
    Helpmate,
    /// Older tools and some national rules: a side that cannot force mate (K+N, K+B, K+N+N
    /// without pawns) has insufficient material.
    Force,
}

/// How hard to look for dead positions beyond material.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DeadSearch {
    /// chasolver's fast, sound but incomplete check (about a microsecond a position).
    #[default]
    Fast,
    /// chasolver's complete search (tens of microseconds on average, rarely up to a second).
    Full,
}

/// Material-only test: true when `color` cannot mate with its material, in the chosen meaning.
pub(crate) fn insufficient_material(pos: &Chess, color: Color, meaning: Insufficient) -> bool {
    match meaning {
        Insufficient::Helpmate => pos.has_insufficient_material(color),
        Insufficient::Force => {
            let board = pos.board();
            let ours = board.by_color(color);
            if (ours & (board.pawns() | board.rooks_and_queens())).any() {
                return false;
            }
            let knights = (ours & board.knights()).count();
            let bishops = (ours & board.bishops()).count();
            knights + bishops <= 1
                || (bishops == 0 && knights == 2)
                || pos.has_insufficient_material(color)
        }
    }
}

/// Whether it is proven that `color` cannot mate in `pos` by any series of legal moves;
/// false when a mate exists or could not be ruled out.
pub(crate) fn cannot_mate(
    pos: &Chess,
    color: Color,
    meaning: Insufficient,
    search: DeadSearch,
) -> bool {
    insufficient_material(pos, color, meaning)
        || (!obviously_can_mate(pos, color) && solver_unwinnable(pos, color, search))
}

/// Whether neither side can mate (FIDE 5.2.2).
#[inline(always)]
pub(crate) fn is_dead(pos: &Chess, meaning: Insufficient, search: DeadSearch) -> bool {
    // Most positions of a game still hold a side that can obviously mate: decide those first,
    // a rook or queen of either side (checked where the replay calls) before any pawn is
    // looked at.
    !pos.board().rooks_and_queens().any() && is_dead_without_heavy_pieces(pos, meaning, search)
}

/// [`is_dead`] for a position without rooks and queens.
#[inline(never)]
fn is_dead_without_heavy_pieces(pos: &Chess, meaning: Insufficient, search: DeadSearch) -> bool {
    if obviously_can_mate(pos, Color::White) || obviously_can_mate(pos, Color::Black) {
        return false;
    }
    let white = insufficient_material(pos, Color::White, meaning);
    let black = insufficient_material(pos, Color::Black, meaning);
    if white && black {
        return true;
    }
    (white || solver_unwinnable(pos, Color::White, search))
        && (black || solver_unwinnable(pos, Color::Black, search))
}

/// A cheap screen before the solver: a side with a rook or queen, or with a pawn that can
/// still push or capture, can (with the opponent's help) reach a mate in every practical
/// position, so the solver is asked only about sides whose pawns are all stuck and whose
/// pieces are minor. This keeps chasolver (and the conversion to its board type) off almost
/// every game's final position; the price is that a rare unwinnable position with a mobile
/// pawn is not detected.
fn obviously_can_mate(pos: &Chess, color: Color) -> bool {
    let board = pos.board();
    let ours = board.by_color(color);
    if (ours & board.rooks_and_queens()).any() {
        return true;
    }
    // Pawn pushes and captures of every pawn at once, as bit shifts: a pawn on the a-file
    // (h-file) has no capture towards the a-file (h-file).
    let empty = !board.occupied().0;
    let theirs = board.by_color(!color).0;
    let pawns = (ours & board.pawns()).0;
    let not_a = !Bitboard::from_file(shakmaty::File::A).0;
    let not_h = !Bitboard::from_file(shakmaty::File::H).0;
    let (push, take) = match color {
        Color::White => (
            (pawns << 8) & empty,
            (((pawns & not_a) << 7) | ((pawns & not_h) << 9)) & theirs,
        ),
        Color::Black => (
            (pawns >> 8) & empty,
            (((pawns & not_a) >> 9) | ((pawns & not_h) >> 7)) & theirs,
        ),
    };
    push | take != 0
}

/// Asks chasolver whether `color` is proven unable to mate. False when undecided or when the
/// position cannot be handed over.
fn solver_unwinnable(pos: &Chess, color: Color, search: DeadSearch) -> bool {
    // chasolver speaks the `chess` crate; castling rights do not matter for unwinnability
    // questions once they reach the solver's screen (no rooks move), but a Chess960 right could
    // not be expressed, so hand over the position without them.
    let mut setup = pos.to_setup(EnPassantMode::Legal);
    setup.castling_rights = shakmaty::Bitboard::EMPTY;
    // The solver's board has no move counters: without them in the FEN, a placement that
    // comes back later in the game is answered from the memo too.
    setup.halfmoves = 0;
    setup.fullmoves = std::num::NonZeroU32::MIN;
    let Ok(fen) = Fen::try_from_setup(setup) else {
        return false;
    };
    let fen = fen.to_string();
    SOLVER_MEMO.with_borrow_mut(|memo| {
        if let Some(m) = memo
            .iter()
            .find(|m| m.color == color && m.search == search && m.fen == fen)
        {
            return m.answer;
        }
        let answer = ask_solver(&fen, color, search);
        memo.rotate_right(1);
        memo[0] = SolverAnswer {
            fen,
            color,
            search,
            answer,
        };
        answer
    })
}

/// One answer of the solver, kept for the same question asked again.
#[derive(Clone, Debug, PartialEq, Eq)]
struct SolverAnswer {
    fen: String,
    color: Color,
    search: DeadSearch,
    answer: bool,
}

impl Default for SolverAnswer {
    fn default() -> Self {
        SolverAnswer {
            fen: String::new(),
            color: Color::White,
            search: DeadSearch::Fast,
            answer: false,
        }
    }
}

thread_local! {
    /// The solver's last answers. A game's last position is often asked about twice or three
    /// times: after its last capture or pawn move, again at the game's end, and for the
    /// winner of a decisive result (6.9). One answer costs some 70,000 instructions, so on a
    /// TWIC file these repeated questions were a fifth of the solver's share. No FEN is empty,
    /// so an unused slot never matches.
    static SOLVER_MEMO: std::cell::RefCell<[SolverAnswer; 4]> = Default::default();
}

/// Asks chasolver whether `color` is proven unable to mate in a position given as a FEN.
fn ask_solver(fen: &str, color: Color, search: DeadSearch) -> bool {
    let Ok(board) = chess::Board::from_str(fen) else {
        return false;
    };
    let winner = match color {
        Color::White => chess::Color::White,
        Color::Black => chess::Color::Black,
    };
    catch_unwind(AssertUnwindSafe(|| match search {
        DeadSearch::Fast => chasolver::is_unwinnable_fast(&board, winner),
        DeadSearch::Full => matches!(
            chasolver::winnability(&board, winner),
            Some(chasolver::Winnability::Unwinnable)
        ),
    }))
    .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;

    fn pos(fen: &str) -> Chess {
        Fen::from_ascii(fen.as_bytes())
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    /// The screen's pawn test, one pawn at a time: a pawn that can push or capture.
    fn pawn_can_move(pos: &Chess, color: Color) -> bool {
        let board = pos.board();
        let occupied = board.occupied();
        let theirs = board.by_color(!color);
        (board.by_color(color) & board.pawns())
            .into_iter()
            .any(|sq| {
                let ahead = sq.offset(if color == Color::White { 8 } else { -8 });
                ahead.is_some_and(|a| !occupied.contains(a))
                    || (shakmaty::attacks::pawn_attacks(color, sq) & theirs).any()
            })
    }

    #[test]
    fn the_screen_sees_every_pawn_that_can_move() {
        // Blocked pawns, captures from and towards the edge files, and none to take.
        for fen in [
            "4k3/8/8/p7/P7/8/8/4K3 w - - 0 1",
            "4k3/8/8/pb6/P7/8/8/4K3 w - - 0 1",
            "4k3/8/8/1p5b/1P5P/8/8/4K3 w - - 0 1",
            "4k3/8/8/6bp/7P/8/8/4K3 w - - 0 1",
            "4k3/8/8/p7/PB6/8/8/4K3 b - - 0 1",
            "4k3/8/8/7p/6NP/8/8/4K3 b - - 0 1",
            "4k3/8/8/7p/N6P/8/8/4K3 b - - 0 1",
            "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
        ] {
            let p = pos(fen);
            for color in Color::ALL {
                assert_eq!(
                    obviously_can_mate(&p, color),
                    pawn_can_move(&p, color),
                    "{fen} {color:?}"
                );
            }
        }
    }

    #[test]
    fn knight_versus_knight_is_not_dead_by_default() {
        let p = pos("8/8/4k3/8/2n5/8/3K1N2/8 w - - 0 1");
        assert!(!is_dead(&p, Insufficient::Helpmate, DeadSearch::Fast));
        assert!(is_dead(&p, Insufficient::Force, DeadSearch::Fast));
    }

    #[test]
    fn bare_kings_and_king_bishop_are_dead() {
        assert!(is_dead(
            &pos("8/8/4k3/8/8/8/3K4/8 w - - 0 1"),
            Insufficient::Helpmate,
            DeadSearch::Fast
        ));
        assert!(is_dead(
            &pos("8/8/4k3/8/8/8/3K1B2/8 w - - 0 1"),
            Insufficient::Helpmate,
            DeadSearch::Fast
        ));
    }

    #[test]
    fn locked_pawn_wall_is_dead() {
        // Kings behind a complete locked pawn chain.
        let p = pos("8/8/1k6/p1p1p1p1/P1P1P1P1/8/4K3/8 w - - 0 1");
        assert!(is_dead(&p, Insufficient::Helpmate, DeadSearch::Full));
    }

    #[test]
    fn the_memo_keeps_sides_and_searches_apart() {
        // White can mate here, Black cannot: an answer kept for one side or one search must
        // never be given for another. The memo ignores the move counters.
        let fen = "5b2/p7/Pp3k2/1Pp1pBp1/2P1P1P1/5K2/8/8 w - - 0 1";
        let p = pos("5b2/p7/Pp3k2/1Pp1pBp1/2P1P1P1/5K2/8/8 w - - 7 40");
        let questions = [
            (Color::Black, DeadSearch::Full),
            (Color::White, DeadSearch::Full),
            (Color::Black, DeadSearch::Fast),
            (Color::White, DeadSearch::Fast),
        ];
        assert!(ask_solver(fen, Color::Black, DeadSearch::Full));
        assert!(!ask_solver(fen, Color::White, DeadSearch::Full));
        for round in 0..2 {
            for (color, search) in questions {
                assert_eq!(
                    solver_unwinnable(&p, color, search),
                    ask_solver(fen, color, search),
                    "round {round}, {color:?}, {search:?}"
                );
            }
        }
    }

    #[test]
    fn chasolver_readme_position() {
        // lichess ijyj0mHa: Black cannot mate, White can.
        let p = pos("5b2/p7/Pp3k2/1Pp1pBp1/2P1P1P1/5K2/8/8 w - - 0 1");
        let cannot = |color| cannot_mate(&p, color, Insufficient::Helpmate, DeadSearch::Full);
        assert!(cannot(Color::Black));
        assert!(!cannot(Color::White));
    }
}
