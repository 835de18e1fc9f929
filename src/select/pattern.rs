//! Position patterns (`--fen-pattern`, `pattern = "..."`): pgn-extract's FENPattern, a
//! FEN-like board with wildcards, compiled once into bitboards so that testing a position
//! costs a few instructions a piece kind, with no text made.
//!
//! A pattern is 8 ranks, from the 8th to the 1st, separated by `/`. In a rank: a piece letter
//! (`KQRBNP` White, `kqrbnp` Black) is that piece; a digit `d` is `d` empty squares; `_` is
//! one empty square; `?` any square; `!` any piece; `A` any White piece; `a` any Black
//! piece; `[...]` one of the letters inside (`A` and `a` included), `[^...]` any square but
//! those; `*` any run of squares, none included, within the rank. ` w` or ` b` after the
//! board asks for the side to move.

use shakmaty::{Bitboard, Board, Color, Role};

/// What a square may hold: one bit a content (see [`content`]).
type Allowed = u16;

/// The 13 contents of a square: empty (0), then the White pieces (1..=6), then the Black
/// ones (7..=12), in [`Role`] order.
const CONTENTS: usize = 13;
const EMPTY: Allowed = 1;
const WHITE: Allowed = 0b111111 << 1;
const BLACK: Allowed = 0b111111 << 7;
const ANY: Allowed = EMPTY | WHITE | BLACK;

fn content(color: Color, role: Role) -> usize {
    let base = if color == Color::White { 1 } else { 7 };
    base + (role as usize - 1)
}

fn piece_bit(c: char) -> Option<Allowed> {
    match c {
        'A' => Some(WHITE),
        'a' => Some(BLACK),
        _ => {
            let piece = shakmaty::Piece::from_char(c)?;
            Some(1 << content(piece.color, piece.role))
        }
    }
}

/// The board of a pattern as the other side sees it (pgn-extract's FENPatternI): the ranks
/// in the other order and each piece of the other colour (`K` for `k`, `A` for `a`, inside
/// `[...]` too); what names no colour (`?`, `!`, `_`, `*`, digits) is kept. A side to move
/// after the board changes side too.
///
/// ```
/// use pgnkit::select::pattern::inverted;
///
/// assert_eq!(inverted("?????rk?/?????aaa/*/*/*/8/P[BP]P*/??KR????"),
///            "??kr????/p[bp]p*/8/*/*/*/?????AAA/?????RK?");
/// assert_eq!(inverted("*/*/*/*/*/*/*/4K3 w"), "4k3/*/*/*/*/*/*/* b");
/// ```
pub fn inverted(pattern: &str) -> String {
    let mut fields = pattern.split_whitespace();
    let board = fields.next().unwrap_or_default();
    let swap = |c: char| match c {
        'a'..='z' => c.to_ascii_uppercase(),
        'A'..='Z' => c.to_ascii_lowercase(),
        c => c,
    };
    let ranks: Vec<String> = board
        .split('/')
        .rev()
        .map(|rank| rank.chars().map(swap).collect())
        .collect();
    let mut out = ranks.join("/");
    for field in fields {
        out.push(' ');
        out.push_str(match field {
            "w" => "b",
            "b" => "w",
            other => other,
        });
    }
    out
}

/// A compiled pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    /// For the ranks without `*`: a content and the squares where it is refused; only the
    /// contents refused somewhere.
    refused: Vec<(u8, Bitboard)>,
    /// What `refused` says of the occupancy alone: squares that must hold a piece (where
    /// empty is refused) and squares that must be empty (where every piece is). One test of
    /// the occupied squares settles most positions before the contents are looked at.
    occupied: Bitboard,
    empty: Bitboard,
    /// The ranks with `*` that constrain anything: each must fit one of its layouts.
    loose: Vec<LooseRank>,
    turn: Option<Color>,
}

/// A rank with `*`: the layouts it may take, each as the files (a bit a file) where each
/// content is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
struct LooseRank {
    /// The rank's shift in a bitboard (8 times its index from the 1st).
    shift: u8,
    layouts: Vec<[u8; CONTENTS]>,
}

/// One element of a rank as written.
#[derive(Clone, Copy)]
enum Cell {
    Square(Allowed),
    Star,
}

/// Layouts a rank may take at most: `*` placements grow combinatorially; this bounds a
/// pattern's size (`*?*?*?*` has 56).
const MAX_LAYOUTS: usize = 4096;

impl Pattern {
    /// Compiles a pattern.
    ///
    /// # Errors
    ///
    /// What is wrong in it, as a message naming the rank.
    pub fn parse(src: &str) -> Result<Pattern, String> {
        let mut fields = src.split_whitespace();
        let board = fields
            .next()
            .ok_or("an empty pattern: give 8 ranks, as */*/*/*/???PP???/*/*/*")?;
        let turn = match fields.next() {
            None => None,
            Some("w") => Some(Color::White),
            Some("b") => Some(Color::Black),
            Some(other) => {
                return Err(format!(
                    "after the board, a pattern takes only the side to move, w or b, not '{other}'"
                ))
            }
        };
        if let Some(extra) = fields.next() {
            return Err(format!("unexpected '{extra}' after the side to move"));
        }
        let ranks: Vec<&str> = board.split('/').collect();
        if ranks.len() != 8 {
            return Err(format!(
                "a pattern has 8 ranks separated by '/', this one {}: {board}",
                ranks.len()
            ));
        }
        let mut pattern = Pattern {
            refused: Vec::new(),
            occupied: Bitboard::EMPTY,
            empty: Bitboard::EMPTY,
            loose: Vec::new(),
            turn,
        };
        let mut refused = [Bitboard::EMPTY; CONTENTS];
        for (i, text) in ranks.iter().enumerate() {
            let rank = 7 - i;
            let cells = cells(text).map_err(|e| format!("rank {} ({text}): {e}", rank + 1))?;
            let fixed = cells
                .iter()
                .filter(|c| matches!(c, Cell::Square(_)))
                .count();
            let stars = cells.len() - fixed;
            if fixed > 8 || (stars == 0 && fixed != 8) {
                return Err(format!(
                    "rank {} ({text}) has {fixed} squares{}: a rank has 8",
                    rank + 1,
                    if stars > 0 { " besides its '*'" } else { "" }
                ));
            }
            if stars == 0 {
                for (file, cell) in cells.iter().enumerate() {
                    let Cell::Square(allowed) = cell else {
                        continue;
                    };
                    let square = shakmaty::Square::from_coords(
                        shakmaty::File::new(file as u32),
                        shakmaty::Rank::new(rank as u32),
                    );
                    for (c, bb) in refused.iter_mut().enumerate() {
                        if allowed & (1 << c) == 0 {
                            bb.add(square);
                        }
                    }
                }
                continue;
            }
            let mut layouts = Vec::new();
            lay_out(&cells, &mut [ANY; 8], 0, &mut layouts)?;
            // A rank that takes any squares at all (`*`, `??*`) constrains nothing.
            if layouts
                .iter()
                .any(|l: &[u8; CONTENTS]| l.iter().all(|&f| f == 0))
            {
                continue;
            }
            layouts.sort_unstable();
            layouts.dedup();
            if let [only] = layouts[..] {
                // One way to lay the rank out (`P[BP]P*`): its squares are fixed after all.
                for (bb, files) in refused.iter_mut().zip(only) {
                    *bb |= Bitboard(u64::from(files) << (rank * 8));
                }
                continue;
            }
            pattern.loose.push(LooseRank {
                shift: (rank * 8) as u8,
                layouts,
            });
        }
        pattern.occupied = refused[0];
        pattern.empty = refused[1..]
            .iter()
            .fold(Bitboard::FULL, |empty, &bb| empty & bb);
        pattern.refused = refused
            .iter()
            .enumerate()
            .filter(|(_, bb)| bb.any())
            .map(|(c, bb)| (c as u8, *bb))
            .collect();
        Ok(pattern)
    }

    /// Whether the position matches.
    #[inline]
    pub fn matches(&self, board: &Board, turn: Color) -> bool {
        if self.turn.is_some_and(|t| t != turn) {
            return false;
        }
        let occupied = board.occupied();
        if !(occupied & self.empty).is_empty() || !self.occupied.is_subset(occupied) {
            return false;
        }
        let of = |c: u8| -> Bitboard {
            match c {
                0 => !board.occupied(),
                1..=6 => board.by_color(Color::White) & board.by_role(role(c - 1)),
                _ => board.by_color(Color::Black) & board.by_role(role(c - 7)),
            }
        };
        if self
            .refused
            .iter()
            .any(|&(c, squares)| (of(c) & squares).any())
        {
            return false;
        }
        self.loose.iter().all(|rank| {
            let mut files = [0u8; CONTENTS];
            for (c, f) in files.iter_mut().enumerate() {
                *f = (of(c as u8).0 >> rank.shift) as u8;
            }
            rank.layouts.iter().any(|layout| {
                layout
                    .iter()
                    .zip(&files)
                    .all(|(refused, here)| refused & here == 0)
            })
        })
    }
}

fn role(i: u8) -> Role {
    Role::ALL[usize::from(i)]
}

/// The cells of one rank as written.
fn cells(text: &str) -> Result<Vec<Cell>, String> {
    let mut cells = Vec::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '1'..='8' => {
                let n = c as usize - '0' as usize;
                cells.extend(std::iter::repeat_n(Cell::Square(EMPTY), n));
            }
            '_' => cells.push(Cell::Square(EMPTY)),
            '?' => cells.push(Cell::Square(ANY)),
            '!' => cells.push(Cell::Square(WHITE | BLACK)),
            '*' => {
                // Two stars in a row are one.
                if !matches!(cells.last(), Some(Cell::Star)) {
                    cells.push(Cell::Star);
                }
            }
            '[' => {
                let mut set: Allowed = 0;
                let mut negated = false;
                let mut first = true;
                let mut closed = false;
                for c in chars.by_ref() {
                    match c {
                        ']' => {
                            closed = true;
                            break;
                        }
                        '^' if first => negated = true,
                        c => {
                            set |= piece_bit(c).ok_or_else(|| {
                                format!("'{c}' in [...] is no piece letter (KQRBNPkqrbnp, A, a)")
                            })?;
                        }
                    }
                    first = false;
                }
                if !closed {
                    return Err("a '[' is not closed by ']'".into());
                }
                cells.push(Cell::Square(if negated { ANY & !set } else { set }));
            }
            c => match piece_bit(c) {
                Some(bit) => cells.push(Cell::Square(bit)),
                None => {
                    return Err(format!(
                        "'{c}' is none of the pattern's letters: pieces KQRBNPkqrbnp, digits, \
                         ? ! A a _ * and [...]"
                    ))
                }
            },
        }
    }
    Ok(cells)
}

/// Every layout of `cells` from file `file` on, with `squares` the contents allowed so far;
/// each layout as the files where each content is refused.
fn lay_out(
    cells: &[Cell],
    squares: &mut [Allowed; 8],
    file: usize,
    layouts: &mut Vec<[u8; CONTENTS]>,
) -> Result<(), String> {
    let Some((first, rest)) = cells.split_first() else {
        if file == 8 {
            let mut layout = [0u8; CONTENTS];
            for (f, allowed) in squares.iter().enumerate() {
                for (c, refused) in layout.iter_mut().enumerate() {
                    if allowed & (1 << c) == 0 {
                        *refused |= 1 << f;
                    }
                }
            }
            if layouts.len() >= MAX_LAYOUTS {
                return Err("too many ways to place its '*'s: use fewer".into());
            }
            layouts.push(layout);
        }
        return Ok(());
    };
    let fixed_after = rest.iter().filter(|c| matches!(c, Cell::Square(_))).count();
    match *first {
        Cell::Square(allowed) => {
            if file >= 8 {
                return Ok(());
            }
            squares[file] = allowed;
            lay_out(rest, squares, file + 1, layouts)?;
            squares[file] = ANY;
        }
        Cell::Star => {
            // The star takes 0 or more squares, leaving room for the cells after it.
            let mut end = file;
            while end + fixed_after <= 8 {
                lay_out(rest, squares, end, layouts)?;
                end += 1;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, Chess, Position};

    fn matches(pattern: &str, fen: &str) -> bool {
        let position: Chess = fen
            .parse::<Fen>()
            .expect("fen")
            .into_position(CastlingMode::Standard)
            .expect("legal");
        Pattern::parse(pattern)
            .expect(pattern)
            .matches(position.board(), position.turn())
    }

    /// testdata/select/patterns.txt: a pattern, a FEN, and whether it matches.
    #[test]
    fn each_pattern_matches_as_the_table_says() {
        let table = include_str!("../../testdata/select/patterns.txt");
        let mut checked = 0;
        for (n, line) in table.lines().enumerate() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let cols: Vec<&str> = line.split('\t').collect();
            let [pattern, fen, want] = cols[..] else {
                panic!("patterns.txt:{}: PATTERN<TAB>FEN<TAB>yes|no", n + 1)
            };
            assert_eq!(
                matches(pattern, fen),
                want == "yes",
                "patterns.txt:{}: {pattern} on {fen}",
                n + 1
            );
            checked += 1;
        }
        assert!(checked >= 20, "only {checked}");
    }

    #[test]
    fn wrong_patterns_say_where() {
        for (src, word) in [
            ("", "empty"),
            ("8/8/8/8/8/8/8", "8 ranks"),
            ("8/8/8/8/8/8/8/7", "rank 1"),
            ("8/8/8/8/8/8/8/9", "none of"),
            ("8/8/8/8/8/8/8/[Kx]7", "no piece letter"),
            ("8/8/8/8/8/8/8/K6[K", "not closed"),
            ("8/8/8/8/8/8/8/8 x", "side to move"),
            ("8/8/8/8/8/8/8/*PPPPPPPPP", "9 squares"),
        ] {
            let e = Pattern::parse(src).expect_err(src);
            assert!(e.contains(word), "{src}: {e}");
        }
    }
}
