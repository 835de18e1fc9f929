//! Which columns the tables have: the moves table's optional columns as a set
//! ([`MoveColumns`], `--moves-columns`, Python's `columns=`), and the games table's numeric
//! ones ([`GameColumns`]). Only what is asked for is built: a column left out costs the
//! replay nothing (no SAN written, no board copied).

use std::fmt;

/// An optional column of the moves table (every row has `file`, `game` and `ply`), in the
/// table's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveColumn {
    San,
    Uci,
    Fen,
    FromSquare,
    ToSquare,
    Piece,
    Captured,
    Promotion,
    IsCheck,
    IsCapture,
    IsCastling,
    IsEnPassant,
    Board,
    Turn,
    Castling,
    EpSquare,
    HalfmoveClock,
    Clock,
    Eval,
    EvalMate,
    Comment,
    Nags,
}

impl MoveColumn {
    /// Every optional column, in the table's order.
    pub const ALL: [MoveColumn; 22] = [
        MoveColumn::San,
        MoveColumn::Uci,
        MoveColumn::Fen,
        MoveColumn::FromSquare,
        MoveColumn::ToSquare,
        MoveColumn::Piece,
        MoveColumn::Captured,
        MoveColumn::Promotion,
        MoveColumn::IsCheck,
        MoveColumn::IsCapture,
        MoveColumn::IsCastling,
        MoveColumn::IsEnPassant,
        MoveColumn::Board,
        MoveColumn::Turn,
        MoveColumn::Castling,
        MoveColumn::EpSquare,
        MoveColumn::HalfmoveClock,
        MoveColumn::Clock,
        MoveColumn::Eval,
        MoveColumn::EvalMate,
        MoveColumn::Comment,
        MoveColumn::Nags,
    ];

    /// The column's name in the table.
    pub fn name(self) -> &'static str {
        match self {
            MoveColumn::San => "san",
            MoveColumn::Uci => "uci",
            MoveColumn::Fen => "fen",
            MoveColumn::FromSquare => "from_square",
            MoveColumn::ToSquare => "to_square",
            MoveColumn::Piece => "piece",
            MoveColumn::Captured => "captured",
            MoveColumn::Promotion => "promotion",
            MoveColumn::IsCheck => "is_check",
            MoveColumn::IsCapture => "is_capture",
            MoveColumn::IsCastling => "is_castling",
            MoveColumn::IsEnPassant => "is_en_passant",
            MoveColumn::Board => "board",
            MoveColumn::Turn => "turn",
            MoveColumn::Castling => "castling",
            MoveColumn::EpSquare => "ep_square",
            MoveColumn::HalfmoveClock => "halfmove_clock",
            MoveColumn::Clock => "clock",
            MoveColumn::Eval => "eval",
            MoveColumn::EvalMate => "eval_mate",
            MoveColumn::Comment => "comment",
            MoveColumn::Nags => "nags",
        }
    }

    const fn bit(self) -> u32 {
        1 << self as u32
    }
}

/// A set of the moves table's optional columns.
///
/// ```
/// use pgnkit::convert::columns::{MoveColumn, MoveColumns};
///
/// let cols: MoveColumns = "numbers,clock".parse()?;
/// assert!(cols.has(MoveColumn::FromSquare) && cols.has(MoveColumn::Clock));
/// assert!(!cols.has(MoveColumn::San));
/// assert_eq!(MoveColumns::DEFAULT.to_string(), "san,uci,clock,eval,eval_mate,comment,nags");
/// # Ok::<(), String>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveColumns(u32);

impl MoveColumns {
    /// No optional column.
    pub const NONE: MoveColumns = MoveColumns(0);
    /// The move as text: `san`, `uci`.
    pub const TEXT: MoveColumns = MoveColumns::span(MoveColumn::San, MoveColumn::Uci);
    /// The move as numbers: `from_square` … `is_en_passant`.
    pub const NUMBERS: MoveColumns =
        MoveColumns::span(MoveColumn::FromSquare, MoveColumn::IsEnPassant);
    /// The position after the move as numbers: `board` … `halfmove_clock`.
    pub const POSITION: MoveColumns =
        MoveColumns::span(MoveColumn::Board, MoveColumn::HalfmoveClock);
    /// What the comments and glyphs say: `clock`, `eval`, `eval_mate`, `comment`, `nags`.
    pub const NOTES: MoveColumns = MoveColumns::span(MoveColumn::Clock, MoveColumn::Nags);
    /// The notes read as numbers: `clock`, `eval`, `eval_mate`.
    pub const CLOCK_EVAL: MoveColumns = MoveColumns::span(MoveColumn::Clock, MoveColumn::EvalMate);
    /// The table's columns when none are asked for (as before there was a choice).
    pub const DEFAULT: MoveColumns = MoveColumns(MoveColumns::TEXT.0 | MoveColumns::NOTES.0);

    /// The groups `--moves-columns` takes beside the columns' names.
    const GROUPS: [(&'static str, MoveColumns); 5] = [
        ("text", MoveColumns::TEXT),
        ("numbers", MoveColumns::NUMBERS),
        ("boards", MoveColumns::POSITION),
        ("notes", MoveColumns::NOTES),
        ("default", MoveColumns::DEFAULT),
    ];

    /// The columns from `first` to `last`, in the table's order.
    const fn span(first: MoveColumn, last: MoveColumn) -> MoveColumns {
        MoveColumns((last.bit() << 1) - first.bit())
    }

    /// The set of `columns`.
    pub const fn of(columns: &[MoveColumn]) -> MoveColumns {
        let mut bits = 0;
        let mut i = 0;
        while i < columns.len() {
            bits |= columns[i].bit();
            i += 1;
        }
        MoveColumns(bits)
    }

    pub fn has(self, column: MoveColumn) -> bool {
        self.0 & column.bit() != 0
    }

    /// Whether any column of `other` is in the set.
    pub fn any_of(self, other: MoveColumns) -> bool {
        self.0 & other.0 != 0
    }

    #[must_use]
    pub fn union(self, other: MoveColumns) -> MoveColumns {
        MoveColumns(self.0 | other.0)
    }

    #[must_use]
    pub fn with(self, column: MoveColumn) -> MoveColumns {
        MoveColumns(self.0 | column.bit())
    }

    /// The columns of the set, in the table's order.
    pub fn iter(self) -> impl Iterator<Item = MoveColumn> {
        MoveColumn::ALL.into_iter().filter(move |c| self.has(*c))
    }
}

impl std::str::FromStr for MoveColumns {
    type Err = String;

    /// A comma-separated list of column names and groups (`text`, `numbers`, `boards`,
    /// `notes`, `default`); the table keeps its own order whatever the list's. An empty list
    /// is no optional column.
    ///
    /// # Errors
    ///
    /// A name that is no optional column nor group, with the names there are.
    fn from_str(list: &str) -> Result<MoveColumns, String> {
        let mut set = MoveColumns::NONE;
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let group = MoveColumns::GROUPS.iter().find(|g| g.0 == name);
            let one = MoveColumn::ALL.iter().find(|c| c.name() == name);
            set = match (group, one) {
                (Some((_, g)), _) => set.union(*g),
                (None, Some(c)) => set.with(*c),
                (None, None) => {
                    let names: Vec<_> = MoveColumn::ALL.iter().map(|c| c.name()).collect();
                    let groups: Vec<_> = MoveColumns::GROUPS.iter().map(|g| g.0).collect();
                    return Err(format!(
                        "no moves column {name:?}: the columns are {}, and the groups {}",
                        names.join(", "),
                        groups.join(", ")
                    ));
                }
            };
        }
        Ok(set)
    }
}

impl fmt::Display for MoveColumns {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<_> = self.iter().map(MoveColumn::name).collect();
        f.write_str(&names.join(","))
    }
}

/// The games table's optional columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameColumns {
    /// The movetext rewritten in the notation asked for (`movetext`): without it, no move is
    /// written again.
    pub movetext: bool,
    /// The outcome as numbers: `outcome`, `termination_code`, `is_checkmate`,
    /// `is_stalemate`, `is_insufficient_material`.
    pub numbers: bool,
    /// The start position as numbers: `start_board`, `start_turn`, `start_castling`,
    /// `start_ep_square`, `start_halfmove_clock`.
    pub boards: bool,
}

impl Default for GameColumns {
    /// The table as it was before there was a choice: the movetext, no numbers.
    fn default() -> GameColumns {
        GameColumns {
            movetext: true,
            numbers: false,
            boards: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_name_columns_and_groups_in_any_order() {
        let cols: MoveColumns = " nags , from_square,boards".parse().unwrap();
        assert_eq!(
            cols.to_string(),
            "from_square,board,turn,castling,ep_square,halfmove_clock,nags"
        );
        assert_eq!("".parse::<MoveColumns>(), Ok(MoveColumns::NONE));
        assert_eq!("default".parse::<MoveColumns>(), Ok(MoveColumns::DEFAULT));
        let err = "san,frm_square".parse::<MoveColumns>().unwrap_err();
        assert!(err.starts_with("no moves column \"frm_square\": the columns are san, uci"));
    }

    #[test]
    fn every_column_has_its_own_bit_and_name() {
        let all = MoveColumns::of(&MoveColumn::ALL);
        assert_eq!(all.iter().count(), MoveColumn::ALL.len());
        let mut names: Vec<_> = MoveColumn::ALL.iter().map(|c| c.name()).collect();
        names.dedup();
        assert_eq!(names.len(), MoveColumn::ALL.len());
    }
}
