//! Material balances as pgn-extract describes them (its `-y` and `-z` files, `balance =` in
//! `--where`): two sets of pieces, each piece with how many of it, absolutely or against the
//! other side, and how many half-moves the balance must last. Read as pgn-extract's end.c
//! reads them, and tested on a position's piece counts alone.

use shakmaty::{Board, ByColor, ByRole, Color, Role};

/// How a piece's count is constrained (pgn-extract's `Occurs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Occurs {
    /// `P2`, or a piece not listed (exactly 0).
    Exactly,
    /// `P2+`, `P*` (0 or more), `P+` (1 or more).
    OrMore,
    /// `P2-`, `P?` (0 or 1).
    OrLess,
    /// `P=`: as many as the opponent.
    Same,
    /// `P#`: not as many.
    NotSame,
    /// `P<`, `P2<`: at least `n` fewer.
    Fewer,
    /// `P>`, `P2>`: at least `n` more.
    More,
    /// `P<=`, `P2<=`: exactly `n` fewer.
    FewerBy,
    /// `P>=`, `P2>=`: exactly `n` more.
    MoreBy,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Count {
    n: i32,
    occurs: Occurs,
}

const NONE: Count = Count {
    n: 0,
    occurs: Occurs::Exactly,
};

impl Count {
    fn holds(self, mine: i32, theirs: i32) -> bool {
        let n = self.n;
        match self.occurs {
            Occurs::Exactly => mine == n,
            Occurs::OrMore => mine >= n,
            Occurs::OrLess => mine <= n,
            Occurs::Same => mine == theirs,
            Occurs::NotSame => mine != theirs,
            Occurs::Fewer => mine + n <= theirs,
            Occurs::More => mine - n >= theirs,
            Occurs::FewerBy => mine + n == theirs,
            Occurs::MoreBy => mine - n == theirs,
        }
    }
}

/// One side's set: a count for pawns, knights, bishops, rooks and queens, and for minor
/// pieces together (`L`), when given.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Side {
    /// In [`Role`] order, the king left out (never tested).
    pieces: [Count; 5],
    minors: Option<Count>,
}

/// A material balance: the first set's side against the other's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Balance {
    sets: [Side; 2],
    /// For each set, the least and most of each piece its absolute counts allow, a byte a
    /// piece ([`packed`]): a test of a few instructions that most positions fail, before
    /// the whole one.
    ranges: [(u64, u64); 2],
    /// How many half-moves it must last (pgn-extract's default: 2).
    pub lasts: u32,
}

impl Balance {
    /// Reads pgn-extract's description: `[N] SET1 [SET2]`, as `10 R2P+ R=P*` (double rooks
    /// and pawns for 10 half-moves). Piece letters in either case; text after the second
    /// set is a comment, as in pgn-extract.
    ///
    /// # Errors
    ///
    /// A symbol that is none of the notation's, with where it is.
    pub fn parse(src: &str) -> Result<Balance, String> {
        let mut rest = src.trim_start();
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let mut lasts = 2;
        if digits > 0 {
            lasts = rest[..digits]
                .parse()
                .map_err(|_| format!("'{}' is too many half-moves", &rest[..digits]))?;
            rest = rest[digits..].trim_start();
        }
        if rest.is_empty() {
            return Err("an empty balance: give the pieces, as \"R2P+ R=P*\"".into());
        }
        let (first, after) = side(rest)?;
        let after = after.trim_start_matches(|c: char| c.is_whitespace() || c == ':');
        let second = if after.is_empty() {
            // No second set: a lone king.
            Side {
                pieces: [NONE; 5],
                minors: None,
            }
        } else {
            side(after)?.0
        };
        Ok(Balance {
            ranges: [ranges(&first), ranges(&second)],
            sets: [first, second],
            lasts,
        })
    }

    /// Whether the counts match with the first set as `first`'s pieces.
    pub fn matches(&self, counts: &ByColor<ByRole<u8>>, first: Color) -> bool {
        let side = |c: Color| -> [i32; 5] {
            let r = counts.get(c);
            [r.pawn, r.knight, r.bishop, r.rook, r.queen].map(i32::from)
        };
        let (a, b) = (packed(counts.get(first)), packed(counts.get(!first)));
        if !in_range(a, self.ranges[0]) || !in_range(b, self.ranges[1]) {
            return false;
        }
        let (a, b) = (side(first), side(!first));
        set_matches(&self.sets[0], &a, &b) && set_matches(&self.sets[1], &b, &a)
    }
}

/// The high bit of each of the five bytes of a [`packed`] count.
const HIGH: u64 = 0x80_8080_8080;

/// A side's pawns, knights, bishops, rooks and queens, a byte each from the lowest (each
/// below 128: a side has 16 pieces at most).
fn packed(r: &ByRole<u8>) -> u64 {
    [r.pawn, r.knight, r.bishop, r.rook, r.queen]
        .iter()
        .rev()
        .fold(0, |acc, &n| (acc << 8) | u64::from(n & 0x7f))
}

/// Whether every byte of `counts` lies between those of `low` and `high`: with each byte's
/// high bit set first, a subtraction clears it only where a count is below its bound.
fn in_range(counts: u64, (low, high): (u64, u64)) -> bool {
    ((counts | HIGH) - low) & HIGH == HIGH && ((high | HIGH) - counts) & HIGH == HIGH
}

/// The absolute bounds of a set, [`packed`]: a count against the other side's, and a knight
/// or bishop count when the set counts minor pieces together (which forgives them), bound
/// nothing here.
fn ranges(set: &Side) -> (u64, u64) {
    let (mut low, mut high) = (0u64, 0u64);
    for (i, count) in set.pieces.iter().enumerate().rev() {
        let n = count.n.clamp(0, 127) as u64;
        let (lo, hi) = match count.occurs {
            _ if set.minors.is_some() && (i == 1 || i == 2) => (0, 127),
            Occurs::Exactly => (n, n),
            Occurs::OrMore => (n, 127),
            Occurs::OrLess => (0, n),
            _ => (0, 127),
        };
        low = (low << 8) | lo;
        high = (high << 8) | hi;
    }
    (low, high)
}

/// pgn-extract's piece_set_match: a knight or bishop count that fails is forgiven when the
/// set counts minor pieces together (`L`), and fails the set otherwise.
fn set_matches(set: &Side, mine: &[i32; 5], theirs: &[i32; 5]) -> bool {
    let mut minor_failed = false;
    for i in 0..5 {
        if !set.pieces[i].holds(mine[i], theirs[i]) {
            if i == 1 || i == 2 {
                minor_failed = true;
            } else {
                return false;
            }
        }
    }
    match set.minors {
        Some(count) => count.holds(mine[1] + mine[2], theirs[1] + theirs[2]),
        None => !minor_failed,
    }
}

/// One set, read up to a blank or `:`, and what follows it.
fn side(src: &str) -> Result<(Side, &str), String> {
    let mut side = Side {
        pieces: [NONE; 5],
        minors: None,
    };
    let bytes = src.as_bytes();
    let mut i = 0;
    while i < bytes.len() && !bytes[i].is_ascii_whitespace() && bytes[i] != b':' {
        let letter = bytes[i].to_ascii_uppercase();
        i += 1;
        let slot = match letter {
            b'P' => Some(0),
            b'N' => Some(1),
            b'B' => Some(2),
            b'R' => Some(3),
            b'Q' => Some(4),
            b'K' | b'L' => None,
            _ => {
                return Err(format!(
                    "'{}' is no piece letter: a balance has K Q R B N P and L (a minor \
                     piece), each with a count as 2, 2+, 2-, *, +, =, #, <, >, <=, >=",
                    src[i - 1..].chars().next().unwrap_or('?')
                ))
            }
        };
        let (count, used) = count(&src[i..])?;
        i += used;
        match (letter, slot) {
            (_, Some(slot)) => side.pieces[slot] = count,
            (b'L', None) => side.minors = Some(count),
            // A king is always there, once.
            _ => {}
        }
    }
    Ok((side, &src[i..]))
}

/// The count after a piece letter (pgn-extract's extract_combination), and its length.
fn count(src: &str) -> Result<(Count, usize), String> {
    let bytes = src.as_bytes();
    let mut i = 0;
    let mut n = 1;
    if let Some(d) = bytes.first().filter(|b| b.is_ascii_digit()) {
        n = i32::from(d - b'0');
        i = 1;
        if bytes.get(1).is_some_and(u8::is_ascii_digit) {
            return Err(format!("a count is one digit: {src}"));
        }
    }
    let next = bytes.get(i).copied();
    let eq = bytes.get(i + 1) == Some(&b'=');
    let (n, occurs, used) = match next {
        Some(b'*') => (0, Occurs::OrMore, 1),
        Some(b'+') => (n, Occurs::OrMore, 1),
        Some(b'-') => (n, Occurs::OrLess, 1),
        Some(b'?') => (1, Occurs::OrLess, 1),
        Some(b'=') => (n, Occurs::Same, 1),
        Some(b'#') => (n, Occurs::NotSame, 1),
        Some(b'<') if eq => (n, Occurs::FewerBy, 2),
        Some(b'<') => (n, Occurs::Fewer, 1),
        Some(b'>') if eq => (n, Occurs::MoreBy, 2),
        Some(b'>') => (n, Occurs::More, 1),
        _ => (n, Occurs::Exactly, 0),
    };
    Ok((Count { n, occurs }, i + used))
}

/// White's material minus Black's, in pawns: P 1, N and B 3, R 5, Q 9.
pub fn difference(counts: &ByColor<ByRole<u8>>) -> i32 {
    let value = |r: &ByRole<u8>| {
        i32::from(r.pawn)
            + 3 * i32::from(r.knight)
            + 3 * i32::from(r.bishop)
            + 5 * i32::from(r.rook)
            + 9 * i32::from(r.queen)
    };
    value(&counts.white) - value(&counts.black)
}

/// Whether each side has one bishop, and they stand on squares of opposite colours (other
/// pieces allowed).
pub fn opposite_bishops(board: &Board) -> bool {
    let white = board.by_color(Color::White) & board.by_role(Role::Bishop);
    let black = board.by_color(Color::Black) & board.by_role(Role::Bishop);
    if white.count() != 1 || black.count() != 1 {
        return false;
    }
    let dark = shakmaty::Bitboard::DARK_SQUARES;
    (white & dark).any() != (black & dark).any()
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, Chess, Position};

    /// testdata/select/balances.txt: a balance, a FEN, and whether it matches with the first
    /// set as White's (-y), and with either (-z).
    #[test]
    fn each_balance_matches_as_the_table_says() {
        let table = include_str!("../../testdata/select/balances.txt");
        let mut checked = 0;
        for (n, line) in table.lines().enumerate() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let cols: Vec<&str> = line.split('\t').collect();
            let [balance, fen, white, either] = cols[..] else {
                panic!(
                    "balances.txt:{}: BALANCE<TAB>FEN<TAB>yes|no<TAB>yes|no",
                    n + 1
                )
            };
            let position: Chess = fen
                .parse::<Fen>()
                .expect("fen")
                .into_position(CastlingMode::Standard)
                .expect("legal");
            let counts = position.board().material();
            let b = Balance::parse(balance).expect(balance);
            let as_white = b.matches(&counts, Color::White);
            let as_either = as_white || b.matches(&counts, Color::Black);
            assert_eq!(
                (as_white, as_either),
                (white == "yes", either == "yes"),
                "balances.txt:{}: {balance} on {fen}",
                n + 1
            );
            checked += 1;
        }
        assert!(checked >= 12, "only {checked}");
    }

    #[test]
    fn stability_and_wrong_balances() {
        assert_eq!(Balance::parse("R2P+ R=P*").expect("reads").lasts, 2);
        assert_eq!(Balance::parse("10 R2P+ R=P*").expect("reads").lasts, 10);
        for bad in ["", "R2X", "R12"] {
            assert!(Balance::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn differences_and_bishops() {
        let board = |fen: &str| {
            fen.parse::<Fen>()
                .expect("fen")
                .into_position::<Chess>(CastlingMode::Standard)
                .expect("legal")
                .board()
                .clone()
        };
        let b = board("8/5k2/8/2b5/8/3B4/4K3/8 w - - 0 1");
        assert!(opposite_bishops(&b));
        assert_eq!(difference(&b.material()), 0);
        let b = board("8/5k2/8/2b5/8/4B3/4K3/R7 w - - 0 1");
        assert!(!opposite_bishops(&b));
        assert_eq!(difference(&b.material()), 5);
    }
}
