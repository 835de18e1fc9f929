//! Reading figurine algebraic notation (FAN): `♘f3`, `♗xf7+`, `e8=♕`, `♘g1-f3`. Black's
//! figurines (♚♛♜♝♞) are accepted for either side, as printed texts mix them. Writing FAN
//! lives in [`super::write::fan`].

use super::letters::Lang;
use super::{scan, ReadError, ReadMove};

/// Reads one move token written with figurines, in SAN or long-algebraic shape. English piece
/// letters, full-width signs and glued moves are understood as in [`super::chinese::read`].
/// Every move with a figurine is noted [`Notes::FIGURINE`](super::Notes).
///
/// # Errors
///
/// [`ReadError`] when the token is not a move; `out` is then left empty.
pub fn read(token: &[u8], out: &mut Vec<ReadMove>) -> Result<(), ReadError> {
    scan::read(token, Lang::En, out)
}

/// Whether the token holds a chess figurine (U+2654–U+265F).
pub(crate) fn has_figurine(token: &[u8]) -> bool {
    scan::has_figurine(token)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::{CaptureClaim, CheckClaim, MovePattern, NormalPattern, Notes};
    use shakmaty::{File, Rank, Role};

    fn one(token: &str) -> (NormalPattern, crate::notation::ReadMove) {
        let mut out = Vec::new();
        read(token.as_bytes(), &mut out).unwrap();
        assert_eq!(out.len(), 1, "{token}");
        match out[0].pattern {
            MovePattern::Normal(n) => (n, out[0]),
            other => panic!("{token}: {other:?}"),
        }
    }

    #[test]
    fn white_and_black_figurines_name_the_same_pieces() {
        for (white, black, role) in [
            ("♔e2", "♚e2", Role::King),
            ("♕h5", "♛h5", Role::Queen),
            ("♖d1", "♜d1", Role::Rook),
            ("♗b5", "♝b5", Role::Bishop),
            ("♘f3", "♞f3", Role::Knight),
        ] {
            let (w, m) = one(white);
            assert_eq!(w.role, Some(role), "{white}");
            assert!(m.notes.has(Notes::FIGURINE));
            assert_eq!(one(black).0, w, "{black}");
        }
    }

    #[test]
    fn san_and_long_shapes() {
        let (n, m) = one("♗xf7+");
        assert_eq!(
            (n.role, n.to_file, n.to_rank),
            (Some(Role::Bishop), File::F, Some(Rank::Seventh))
        );
        assert_eq!(
            (m.capture, m.check),
            (CaptureClaim::Capture, CheckClaim::Check)
        );
        let (n, m) = one("♘g1-f3");
        assert_eq!(
            (n.from_file, n.from_rank),
            (Some(File::G), Some(Rank::First))
        );
        assert_eq!(m.capture, CaptureClaim::Quiet);
        assert!(m.notes.has(Notes::LONG_ALGEBRAIC));
        assert_eq!(one("e8=♕").0.promotion, Some(Role::Queen));
        assert_eq!(one("♘bd7").0.from_file, Some(File::B));
        assert_eq!(one("♖1e1").0.from_rank, Some(Rank::First));
    }

    #[test]
    fn has_figurine_ignores_other_symbols() {
        assert!(has_figurine("♘f3".as_bytes()));
        assert!(!has_figurine("Nf3".as_bytes()));
        assert!(!has_figurine("马f3".as_bytes()));
    }
}
