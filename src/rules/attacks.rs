//! Slider attacks from tables of a few KiB, for the replay's hot path.
//!
//! shakmaty looks rook and bishop attacks up in one 694 KiB table of magic bitboards: fast
//! in a tight loop, but larger than a core's L2 cache, so a replay that does little else per
//! ply misses the cache on many lookups (cachegrind on a MiB of TWIC: 430,000 L1 data misses
//! with the magic table, 226,000 with the functions here). Here a file or diagonal is found by the
//! byte-swap form of hyperbola quintessence, and a rank by a 512-byte table: a few more
//! instructions a lookup, and everything stays in L1. The answers are shakmaty's, as the
//! tests check for every square over many occupancies, and debug builds check every
//! [`checkers`] call against shakmaty's own.

use shakmaty::{attacks, Bitboard, Board, Chess, Color, Position, Role, Square};

/// The squares of each square's file, diagonal (a1–h8 way) and anti-diagonal (a8–h1 way),
/// the square itself left out.
struct Lines {
    file: [u64; 64],
    diagonal: [u64; 64],
    anti_diagonal: [u64; 64],
}

static LINES: Lines = {
    let mut lines = Lines {
        file: [0; 64],
        diagonal: [0; 64],
        anti_diagonal: [0; 64],
    };
    let mut sq = 0;
    while sq < 64 {
        let (file, rank) = ((sq % 8) as i32, (sq / 8) as i32);
        let mut other = 0;
        while other < 64 {
            let (f, r) = ((other % 8) as i32, (other / 8) as i32);
            if other != sq {
                let bit = 1u64 << other;
                if f == file {
                    lines.file[sq] |= bit;
                }
                if f - r == file - rank {
                    lines.diagonal[sq] |= bit;
                }
                if f + r == file + rank {
                    lines.anti_diagonal[sq] |= bit;
                }
            }
            other += 1;
        }
        sq += 1;
    }
    lines
};

/// For a slider on file `f` of a rank whose six inner squares (files b to g) are occupied as
/// the bits of `inner` say: the files it attacks along the rank, as the bits of a byte.
static RANK_ATTACKS: [[u8; 64]; 8] = {
    let mut table = [[0u8; 64]; 8];
    let mut f = 0;
    while f < 8 {
        let mut inner = 0;
        while inner < 64 {
            let occupied = (inner as u32) << 1;
            let mut seen = 0u8;
            // Towards the h-file, then towards the a-file, each up to and including the
            // first occupied square.
            let mut g = f + 1;
            while g < 8 {
                seen |= 1 << g;
                if occupied & (1 << g) != 0 {
                    break;
                }
                g += 1;
            }
            let mut g = f as i32 - 1;
            while g >= 0 {
                seen |= 1 << g;
                if occupied & (1 << g) != 0 {
                    break;
                }
                g -= 1;
            }
            table[f][inner] = seen;
            inner += 1;
        }
        f += 1;
    }
    table
};

/// Attacks of a slider on `sq` along `line` (one square per rank at most, `sq` left out):
/// the squares up to the first occupied one each way. Towards the h8 end, subtracting the
/// slider's bit from the occupied squares of the line turns the empty squares before the
/// first blocker into ones; towards the a1 end the same is done with the ranks swapped.
#[inline(always)]
fn along(sq: Square, occupied: u64, line: u64) -> u64 {
    let o = occupied & line;
    let up = o.wrapping_sub(1u64 << u32::from(sq));
    let down = o.swap_bytes().wrapping_sub(1u64 << (u32::from(sq) ^ 56));
    (up ^ down.swap_bytes()) & line
}

/// The squares a rook on `sq` attacks when `occupied` are occupied.
#[inline(always)]
pub fn rook_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    let shift = u32::from(sq) & !7;
    let inner = ((occupied.0 >> (shift + 1)) & 63) as usize;
    let rank = u64::from(RANK_ATTACKS[usize::from(sq) & 7][inner]) << shift;
    Bitboard(along(sq, occupied.0, LINES.file[usize::from(sq)]) | rank)
}

/// The squares a bishop on `sq` attacks when `occupied` are occupied.
#[inline(always)]
pub fn bishop_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    let i = usize::from(sq);
    Bitboard(
        along(sq, occupied.0, LINES.diagonal[i]) | along(sq, occupied.0, LINES.anti_diagonal[i]),
    )
}

/// The squares a `role` (not a pawn) on `sq` attacks: shakmaty's `attacks::attacks` for a
/// piece of either colour. A jump on the role: on the Zen 5 machine of 2026-11-30 it took
/// 0.97 of the time of finding every piece's attacks and keeping the role's by masks, which
/// the older machine before it had preferred (see docs/performance.md).
#[inline(always)]
pub fn piece_attacks(role: Role, sq: Square, occupied: Bitboard) -> Bitboard {
    match role {
        Role::Knight => attacks::knight_attacks(sq),
        Role::Bishop => bishop_attacks(sq, occupied),
        Role::Rook => rook_attacks(sq, occupied),
        Role::Queen => bishop_attacks(sq, occupied) | rook_attacks(sq, occupied),
        Role::King => attacks::king_attacks(sq),
        Role::Pawn => Bitboard::EMPTY,
    }
}

/// The pieces of `attacker` that attack `sq` when `occupied` are occupied: shakmaty's
/// `Board::attacks_to`, with the sliders found here.
#[inline(always)]
pub fn attacks_to(board: &Board, sq: Square, attacker: Color, occupied: Bitboard) -> Bitboard {
    board.by_color(attacker)
        & ((rook_attacks(sq, occupied) & board.rooks_and_queens())
            | (bishop_attacks(sq, occupied) & board.bishops_and_queens())
            | (attacks::knight_attacks(sq) & board.knights())
            | (attacks::king_attacks(sq) & board.kings())
            | (attacks::pawn_attacks(!attacker, sq) & board.pawns()))
}

/// The pieces giving check to the side to move: shakmaty's `Chess::checkers`.
#[inline(always)]
pub fn checkers(pos: &Chess) -> Bitboard {
    let board = pos.board();
    let turn = pos.turn();
    let found = board.king_of(turn).map_or(Bitboard::EMPTY, |king| {
        attacks_to(board, king, !turn, board.occupied())
    });
    debug_assert_eq!(found, pos.checkers(), "checkers of {:?}", pos.board());
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Occupancies from sparse to full, the same on every machine (xorshift64*).
    fn occupancies() -> impl Iterator<Item = Bitboard> {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            state.wrapping_mul(0x2545_F491_4F6C_DD1D)
        };
        (0..600).map(move |i| {
            let word = next();
            Bitboard(match i % 4 {
                0 => word & next() & next(),
                1 => word & next(),
                2 => word,
                _ => word | next(),
            })
        })
    }

    /// Rook, bishop and every piece's attacks are shakmaty's, for every square and a spread
    /// of occupancies.
    #[test]
    fn slider_attacks_are_shakmatys() {
        let mut boards = 0;
        for occupied in occupancies().chain([Bitboard::EMPTY, Bitboard::FULL]) {
            boards += 1;
            for sq in Square::ALL {
                assert_eq!(
                    rook_attacks(sq, occupied),
                    attacks::rook_attacks(sq, occupied),
                    "rook on {sq} with {occupied:?}"
                );
                assert_eq!(
                    bishop_attacks(sq, occupied),
                    attacks::bishop_attacks(sq, occupied),
                    "bishop on {sq} with {occupied:?}"
                );
                for role in [
                    Role::Knight,
                    Role::Bishop,
                    Role::Rook,
                    Role::Queen,
                    Role::King,
                ] {
                    assert_eq!(
                        piece_attacks(role, sq, occupied),
                        attacks::attacks(sq, role.of(Color::White), occupied),
                        "{role:?} on {sq} with {occupied:?}"
                    );
                }
            }
        }
        assert_eq!(boards, 602);
    }

    #[test]
    fn checkers_are_shakmatys() {
        use shakmaty::{fen::Fen, CastlingMode};
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            // Double check by a rook and a knight.
            "4k3/8/3N4/8/8/8/8/4R1K1 b - - 0 1",
            // A bishop through a gap, a pawn, a queen along the rank.
            "8/8/8/2k5/8/3P4/6B1/q5K1 w - - 0 1",
            "7k/6P1/8/8/8/8/8/K7 b - - 0 1",
        ] {
            let pos: Chess = fen
                .parse::<Fen>()
                .unwrap()
                .into_position(CastlingMode::Standard)
                .unwrap();
            assert_eq!(checkers(&pos), pos.checkers(), "{fen}");
        }
    }
}
