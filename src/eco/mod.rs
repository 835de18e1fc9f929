//! Opening classification: a table of named positions (lichess's chess-openings by default)
//! and the rule that names a game's opening, its deepest named position on the main line.
//!
//! Positions are compared as EPD: the board, the side to move, the castling rights and the en
//! passant square only when an en passant capture is legal. So a line reached by another move
//! order (a transposition) gets the same name, and the same board with the other side to move
//! does not. A position is found by its Zobrist hash, then compared in full, so two positions
//! that share a hash are told apart.
//!
//! The classification is plain data: [`Classifier`] is told the start position and every
//! position after a main-line move; [`EcoObserver`] is the same classifier as a
//! [`Visitor`](crate::rules::visit::Visitor) of the replay; [`classify`] names the
//! opening of a start position and a list of moves.

mod observer;
mod table;

use std::sync::OnceLock;

use shakmaty::zobrist::Zobrist64;
use shakmaty::{Bitboard, Board, Chess, Color, EnPassantMode, Move, Position, Rank, Square};

pub use observer::EcoObserver;
pub use table::TableError;

/// A named opening of the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// The ECO code, `A00` … `E99`.
    pub eco: String,
    /// The name, `Family: Variation, Subvariation` in lichess's table.
    pub name: String,
    /// The table's line to the position, as SAN movetext from the start.
    pub line: String,
}

/// A position as EPD compares it: board, side to move, castling rights, and the en passant
/// square only when a capture there is legal.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Key {
    board: Board,
    turn: Color,
    castling: Bitboard,
    ep: Option<Square>,
}

impl Key {
    fn of(pos: &Chess) -> Key {
        Key {
            board: pos.board().clone(),
            turn: pos.turn(),
            castling: pos.castles().castling_rights(),
            ep: pos.ep_square(EnPassantMode::Legal),
        }
    }
}

/// One named position of the index.
#[derive(Clone, Debug)]
struct Entry {
    hash: u64,
    key: Key,
    /// Index into [`Table::openings`].
    opening: u32,
}

/// What only decreases along a game, so that once a game has less of it than every named
/// position has, no named position can follow: the pieces on the board, and the pawns still
/// on their first square (a pawn never goes back, nor comes back after a capture).
fn reach(pos: &Chess) -> (u32, u32) {
    let board = pos.board();
    let home = (board.pawns() & board.white() & Bitboard::from_rank(Rank::Second))
        | (board.pawns() & board.black() & Bitboard::from_rank(Rank::Seventh));
    (board.occupied().count() as u32, home.count() as u32)
}

/// A table of named openings. What it is asked decides what it reads, once, at first use:
/// naming a code reads only that code's lines ([`Table::code_name`]); classifying a position
/// needs the index of positions ([`Table::lookup`]), which replays every line.
#[derive(Debug)]
pub struct Table {
    /// Read at first use for the built-in table; by [`Table::parse`] for another.
    openings: OnceLock<Vec<Opening>>,
    /// Whether this is the built-in table, whose codes are named from its text.
    builtin: bool,
    /// Indices into the openings, by code (in the table's order within a code).
    by_code: OnceLock<Vec<u32>>,
    /// Built at first lookup (the built-in table), or by [`Table::parse`], which checks that
    /// every line replays.
    index: OnceLock<Index>,
}

/// The named positions of a table, by hash.
#[derive(Debug)]
struct Index {
    /// Sorted by hash; one entry a position (the first name given to it is kept).
    entries: Vec<Entry>,
    /// The fewest pieces, and pawns on their first square, of any named position.
    min_reach: (u32, u32),
}

impl Index {
    /// `positions[i]` is the position of `openings[i]`.
    fn new(positions: Vec<Chess>) -> Index {
        let mut entries: Vec<Entry> = Vec::with_capacity(positions.len());
        let mut min_reach = (u32::MAX, u32::MAX);
        for (i, pos) in positions.into_iter().enumerate() {
            let (pieces, home) = reach(&pos);
            min_reach = (min_reach.0.min(pieces), min_reach.1.min(home));
            entries.push(Entry {
                hash: pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0,
                key: Key::of(&pos),
                opening: i as u32,
            });
        }
        // Stable: of two names for one position, the first in the table stays first.
        entries.sort_by_key(|e| e.hash);
        entries.dedup_by(|later, first| later.hash == first.hash && later.key == first.key);
        Index { entries, min_reach }
    }
}

/// The vendored table: lichess's chess-openings (CC0), one file an ECO volume.
const BUILTIN: [(&str, &str); 5] = [
    ("a.tsv", include_str!("../../data/openings/a.tsv")),
    ("b.tsv", include_str!("../../data/openings/b.tsv")),
    ("c.tsv", include_str!("../../data/openings/c.tsv")),
    ("d.tsv", include_str!("../../data/openings/d.tsv")),
    ("e.tsv", include_str!("../../data/openings/e.tsv")),
];

impl Table {
    /// The built-in table, lichess's chess-openings: read at first use, indexed at first
    /// lookup, once a process.
    pub fn builtin() -> &'static Table {
        static TABLE: Table = Table {
            openings: OnceLock::new(),
            builtin: true,
            by_code: OnceLock::new(),
            index: OnceLock::new(),
        };
        &TABLE
    }

    /// Reads a table from text: lichess's TSV (columns `eco`, `name`, `pgn`, a header line
    /// first) or pgn-extract's `eco.pgn` (games whose `ECO`, `Opening` and `Variation` tags
    /// name the final position), told apart by the first character that is not blank. Every
    /// line is replayed (and the table indexed) here, so that a broken line is found before
    /// any game is read.
    ///
    /// # Errors
    ///
    /// A line that does not read or replay, with its line number; or a table without a line.
    pub fn parse(text: &str) -> Result<Table, TableError> {
        let mut read = Vec::new();
        let first = text
            .trim_start_matches('\u{feff}')
            .trim_start()
            .chars()
            .next();
        if matches!(first, Some('[' | '{' | ';' | '%')) {
            table::read_pgn(text, &mut read)?;
        } else {
            table::read_tsv(text, &mut read)?;
        }
        if read.is_empty() {
            return Err(TableError::new(0, "no opening in the table"));
        }
        let lines: Vec<&str> = read.iter().map(|(o, _)| o.line.as_str()).collect();
        let positions =
            table::replay_lines(&lines).map_err(|(i, m)| TableError::new(read[i].1, m))?;
        let table = Table::unindexed(read.into_iter().map(|(o, _)| o).collect());
        let _ = table.index.set(Index::new(positions));
        Ok(table)
    }

    fn unindexed(openings: Vec<Opening>) -> Table {
        Table {
            openings: OnceLock::from(openings),
            builtin: false,
            by_code: OnceLock::new(),
            index: OnceLock::new(),
        }
    }

    /// The index, built at the first call (only the built-in table comes here unindexed).
    fn index(&self) -> &Index {
        self.index.get_or_init(|| {
            let openings = self.openings();
            let lines: Vec<&str> = openings.iter().map(|o| o.line.as_str()).collect();
            let positions = table::replay_lines(&lines).unwrap_or_else(|(i, m)| {
                panic!("the built-in table is broken: {}: {m}", openings[i].name)
            });
            Index::new(positions)
        })
    }

    /// The openings, in the table's order.
    pub fn openings(&self) -> &[Opening] {
        self.openings.get_or_init(|| {
            let mut openings = Vec::new();
            for (name, text) in BUILTIN {
                // The vendored files are checked by the tests: a failure is a build mistake.
                table::read_tsv(text, &mut openings)
                    .unwrap_or_else(|e| panic!("the built-in {name} is broken: {e}"));
            }
            openings.into_iter().map(|(o, _)| o).collect()
        })
    }

    /// The opening named at `pos`, if any.
    pub fn lookup(&self, pos: &Chess) -> Option<&Opening> {
        let hash = pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0;
        let entries = &self.index().entries;
        let from = entries.partition_point(|e| e.hash < hash);
        entries[from..]
            .iter()
            .take_while(|e| e.hash == hash)
            .find(|e| e.key == Key::of(pos))
            .map(|e| &self.openings()[e.opening as usize])
    }

    /// The name of code `eco` as a whole: the name of its shortest line in the table, or,
    /// when several lines of that code are shortest, the family (the name before `:`) they
    /// share; none when they share none (`A00` gathers unrelated openings). A code with a
    /// suffix (`B90a`) is read as its first three characters when the whole is not in the
    /// table. No position is replayed for it, and the built-in table reads only the code's
    /// own lines.
    pub fn code_name(&self, eco: &str) -> Option<&str> {
        let eco = eco.trim();
        let name = |code: &str| {
            if self.builtin {
                return builtin_code_name(code);
            }
            let openings = self.openings();
            let by_code = self.by_code.get_or_init(|| {
                let mut order: Vec<u32> = (0..openings.len() as u32).collect();
                // Stable: a code's lines stay in the table's order.
                order.sort_by(|&a, &b| openings[a as usize].eco.cmp(&openings[b as usize].eco));
                order
            });
            let eco_of = |i: &u32| openings[*i as usize].eco.as_str();
            let from = by_code.partition_point(|i| eco_of(i) < code);
            let lines = by_code[from..]
                .iter()
                .take_while(|i| eco_of(i) == code)
                .map(|&i| &openings[i as usize])
                .map(|o| (o.name.as_str(), table::plies(&o.line)));
            name_of_code(lines)
        };
        // A code of three characters is its own first three: one look is enough.
        name(eco).or_else(|| name(eco.get(..3).filter(|c| c.len() < eco.len())?))
    }

    /// The opening of a line of SAN moves from the standard start (`e4 e5 Nf3`, move numbers
    /// allowed), up to its first move that is not legal.
    pub fn classify_line(&self, line: &str) -> Option<Classification<'_>> {
        let tokens = table::LineTokens::new([line]);
        let mut moves = Vec::new();
        // The moves up to the first that does not play.
        let _ = table::play_tokens(
            line,
            tokens.of(0),
            Chess::default(),
            &mut Vec::new(),
            |_, mv, _| moves.push(mv),
        );
        classify(self, &Chess::default(), moves)
    }

    /// Whether a named position can still follow `pos` in a game.
    fn reachable(&self, pos: &Chess) -> bool {
        let (pieces, home) = reach(pos);
        let min = self.index().min_reach;
        pieces >= min.0 && home >= min.1
    }
}

/// The name of a code whose lines are `lines`, in the table's order, each as its name and
/// its length (any measure that orders lines as their plies do): see [`Table::code_name`].
fn name_of_code<'a>(lines: impl Iterator<Item = (&'a str, usize)>) -> Option<&'a str> {
    // The shortest lines, the first of them, and whether they all share its family.
    let mut fewest = usize::MAX;
    let (mut first, mut family, mut shared) = ("", "", true);
    let mut count = 0;
    let family_of = |name: &'a str| name.split(':').next().unwrap_or("");
    for (name, plies) in lines {
        if plies < fewest {
            (fewest, first, family, shared, count) = (plies, name, family_of(name), true, 1);
        } else if plies == fewest {
            shared &= family_of(name) == family;
            count += 1;
        }
    }
    match count {
        0 => None,
        1 => Some(first),
        _ => shared.then_some(family),
    }
}

/// The words of a line of the built-in table (`1. e4 e5 2. Nf3` has 5): its lines number
/// every White move and no Black one, so words order lines as their plies do (a test checks
/// it), and counting blanks is much cheaper than reading the moves.
fn builtin_words(pgn: &str) -> usize {
    pgn.trim().bytes().filter(|&b| b == b' ').count() + 1
}

/// The name of `code` in the built-in table, read from its text alone: each volume is sorted
/// by code, so the code's lines are found by bisection, and only they are read.
fn builtin_code_name(code: &str) -> Option<&'static str> {
    let letter = *code.as_bytes().first()?;
    let (_, text) = BUILTIN.get(usize::from(letter.checked_sub(b'A')?))?;
    // memchr: the lines of one code can be many (A00 has 144), and are read whole.
    let bytes = text.as_bytes();
    let body = memchr::memchr(b'\n', bytes)? + 1;
    let line_start = |at: usize| memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |i| i + 1);
    let next_line =
        |at: usize| memchr::memchr(b'\n', &bytes[at..]).map_or(text.len(), |i| at + i + 1);
    let code_at = |at: usize| {
        let len = memchr::memchr(b'\t', &bytes[at..]).unwrap_or(0);
        &text[at..at + len]
    };
    // The first line whose code is not below `code`: `lo` and `hi` are line starts.
    let (mut lo, mut hi) = (body, text.len());
    while lo < hi {
        let mid = line_start(lo + (hi - lo) / 2).max(lo);
        if code_at(mid) < code {
            lo = next_line(mid);
        } else {
            hi = mid;
        }
    }
    let mut at = lo;
    let lines = std::iter::from_fn(move || {
        let end = at + memchr::memchr(b'\n', &bytes[at..])?;
        let line = &text[at..end];
        at = end + 1;
        Some(line)
    })
    .take_while(|l| l.strip_prefix(code).is_some_and(|r| r.starts_with('\t')))
    .filter_map(|l| {
        let fields = &l[code.len() + 1..];
        let tab = memchr::memchr(b'\t', fields.as_bytes())?;
        Some((fields[..tab].trim(), builtin_words(&fields[tab + 1..])))
    });
    name_of_code(lines)
}

/// What an `ECO` or `Opening` tag says, if it says something: not an empty value, nor `?`,
/// which PGN writes for a value not known (lichess writes `[ECO "?"]` and `[Opening "?"]` for
/// the games it does not classify). A tag that says nothing counts as missing.
pub fn known_tag(tag: Option<&str>) -> Option<&str> {
    tag.map(str::trim).filter(|t| !t.is_empty() && *t != "?")
}

/// A game's opening: the named position and where the game reached it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Classification<'t> {
    pub opening: &'t Opening,
    /// Main-line plies played to reach it (0: the start position).
    pub ply: u32,
    /// The move that reached it, in SAN with its number (`5...a6`), when it was told with
    /// [`Classifier::play`].
    pub after: Option<String>,
}

/// Names a game's opening as its main line is played: told the start position and the
/// position after every move, it keeps the deepest named position reached.
#[derive(Clone, Debug)]
pub struct Classifier<'t> {
    table: &'t Table,
    ply: u32,
    best: Option<Classification<'t>>,
    /// No named position can follow: positions are no longer looked at.
    done: bool,
}

impl<'t> Classifier<'t> {
    pub fn new(table: &'t Table) -> Classifier<'t> {
        Classifier {
            table,
            ply: 0,
            best: None,
            done: false,
        }
    }

    /// Starts a game at `pos` (forgetting any earlier one).
    pub fn start(&mut self, pos: &Chess) {
        self.ply = 0;
        self.best = None;
        self.done = false;
        self.look(pos, None);
    }

    /// The position after the next main-line move (or null move).
    pub fn after_move(&mut self, pos: &Chess) {
        self.ply += 1;
        self.look(pos, None);
    }

    /// The next main-line move: `mv` from `before`, which made `after`, remembered for the
    /// message when it reaches a named position. Costs nothing once [`Classifier::done`].
    pub fn play(&mut self, before: &Chess, mv: Move, after: &Chess) {
        self.ply += 1;
        self.look(after, Some((before, mv)));
    }

    fn look(&mut self, pos: &Chess, played: Option<(&Chess, Move)>) {
        if self.done {
            return;
        }
        if !self.table.reachable(pos) {
            self.done = true;
            return;
        }
        if let Some(opening) = self.table.lookup(pos) {
            let after = played.map(|(before, mv)| {
                let san = shakmaty::san::SanPlus::from_move(before.clone(), mv);
                let dots = before.turn().fold_wb(".", "...");
                format!("{}{dots}{san}", before.fullmoves())
            });
            self.best = Some(Classification {
                opening,
                ply: self.ply,
                after,
            });
        }
    }

    /// Whether no named position can follow the positions told so far: a caller may stop
    /// telling them.
    pub fn done(&self) -> bool {
        self.done
    }

    /// The deepest named position reached so far.
    pub fn result(&self) -> Option<&'t Opening> {
        self.best.as_ref().map(|c| c.opening)
    }

    /// The deepest named position reached so far, with where.
    pub fn classification(&self) -> Option<&Classification<'t>> {
        self.best.as_ref()
    }
}

/// The opening of the game that starts at `start` and plays `moves` on its main line.
pub fn classify<'t>(
    table: &'t Table,
    start: &Chess,
    moves: impl IntoIterator<Item = Move>,
) -> Option<Classification<'t>> {
    let mut classifier = Classifier::new(table);
    classifier.start(start);
    let mut pos = start.clone();
    for mv in moves {
        if classifier.done() {
            break;
        }
        let before = pos.clone();
        pos.play_unchecked(mv);
        classifier.play(&before, mv, &pos);
    }
    classifier.best
}

/// The opening table of `--eco-table FILE`, or the built-in one. A table read from a file
/// lives for the rest of the run, as the built-in one does (leaked: it is read once).
///
/// # Errors
///
/// When the file cannot be read or a line of it does not replay; the message names the file
/// and the line.
pub fn table_at(path: Option<&std::path::Path>) -> anyhow::Result<&'static Table> {
    let Some(path) = path else {
        return Ok(Table::builtin());
    };
    let bytes =
        std::fs::read(path).map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
    let text = String::from_utf8(bytes).map_err(|_| {
        anyhow::anyhow!(
            "--eco-table {}: not UTF-8; convert the table to UTF-8 first",
            path.display()
        )
    })?;
    let table = Table::parse(&text).map_err(|e| {
        anyhow::anyhow!(
            "--eco-table {}:{e}; a table is lichess's TSV (columns eco, name, pgn) or \
             pgn-extract's eco.pgn",
            path.display()
        )
    })?;
    Ok(Box::leak(Box::new(table)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::san::San;

    fn moves(line: &str) -> Vec<Move> {
        let mut pos = Chess::default();
        line.split_whitespace()
            .map(|san| {
                let mv = san.parse::<San>().unwrap().to_move(&pos).unwrap();
                pos.play_unchecked(mv);
                mv
            })
            .collect()
    }

    fn name(line: &str) -> Option<String> {
        classify(Table::builtin(), &Chess::default(), moves(line)).map(|c| c.opening.name.clone())
    }

    #[test]
    fn the_builtin_table_loads_whole() {
        let table = Table::builtin();
        let lines: usize = BUILTIN.iter().map(|(_, t)| t.lines().count() - 1).sum();
        assert_eq!(table.openings().len(), lines);
        // Each name has its own position, nearly: a few names share one.
        assert!(table.index().entries.len() > lines * 9 / 10);
    }

    #[test]
    fn every_builtin_line_classifies_as_itself() {
        let table = Table::builtin();
        for o in table.openings() {
            let line: Vec<&str> = o
                .line
                .split_whitespace()
                .filter(|t| !t.ends_with('.'))
                .collect();
            let got = classify(table, &Chess::default(), moves(&line.join(" "))).unwrap();
            // A position named twice keeps its first name.
            assert_eq!(got.opening.line, o.line, "{}", o.name);
            assert_eq!(got.ply as usize, line.len());
        }
    }

    fn opening(eco: &str, name: &str, line: &str) -> Opening {
        Opening {
            eco: eco.into(),
            name: name.into(),
            line: line.into(),
        }
    }

    #[test]
    fn naming_a_code_replays_no_line() {
        // A line that cannot be replayed: naming its code must not try.
        let table = Table::unindexed(vec![
            opening("C20", "King's Pawn Game", "1. e4 e5"),
            opening("C20", "King's Pawn Game: Broken", "1. e4 e5 2. Ke3"),
        ]);
        assert_eq!(table.code_name("C20"), Some("King's Pawn Game"));
        assert!(table.index.get().is_none(), "naming a code built the index");
    }

    #[test]
    fn a_code_is_named_by_its_shortest_lines() {
        let table = Table::unindexed(vec![
            opening(
                "B01",
                "Scandinavian Defense: Main Line",
                "1. e4 d5 2. exd5 Qxd5",
            ),
            opening("A00", "Polish Opening", "1. b4"),
            opening("B01", "Scandinavian Defense", "1. e4 d5"),
            opening("A00", "Grob Opening", "1. g4"),
            opening("A00", "Grob Opening: Spike", "1. g4 d5 2. h4"),
            opening("C00", "French Defense: Normal Variation", "1. e4 e6 2. d4"),
            opening("C00", "French Defense: Knight Variation", "1. e4 e6 2. Nf3"),
        ]);
        // One shortest line: its name.
        assert_eq!(table.code_name("B01"), Some("Scandinavian Defense"));
        // Several, of one family: the family; of several families: none.
        assert_eq!(table.code_name("C00"), Some("French Defense"));
        assert_eq!(table.code_name("A00"), None);
        // A suffix is read as the code when the whole is not in the table.
        assert_eq!(table.code_name("B01a"), Some("Scandinavian Defense"));
        assert_eq!(table.code_name(" B01 "), Some("Scandinavian Defense"));
        assert_eq!(table.code_name("E99"), None);
        assert_eq!(table.code_name(""), None);
    }

    #[test]
    fn the_builtin_table_names_codes_from_its_text_as_from_its_lines() {
        let text = Table::builtin();
        let lines = Table::unindexed(text.openings().to_vec());
        let mut codes: Vec<&str> = text.openings().iter().map(|o| o.eco.as_str()).collect();
        codes.dedup();
        assert_eq!(codes.len(), 500);
        for code in codes
            .iter()
            .copied()
            .chain(["A00x", "E99", "F00", "a00", "", "?", "B9"])
        {
            assert_eq!(text.code_name(code), lines.code_name(code), "{code:?}");
        }
        assert_eq!(
            text.code_name("B90"),
            Some("Sicilian Defense: Najdorf Variation")
        );
    }

    #[test]
    fn builtin_lines_have_the_words_their_plies_make() {
        for o in Table::builtin().openings() {
            let plies = table::plies(&o.line);
            // A number before each White move: plies + half of them, rounded up.
            assert_eq!(
                builtin_words(&o.line),
                plies + plies.div_ceil(2),
                "{}",
                o.line
            );
        }
    }

    #[test]
    fn a_parsed_table_names_the_first_broken_line() {
        // Lines are replayed in the order of their moves, but the error is the first line's.
        let text = "eco\tname\tpgn\nA00\tz\t1. g4 Ke3\nA00\ty\t1. b4\nA00\tx\t1. a4 Ke6\n";
        let e = Table::parse(text).unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        assert!(e.message.contains("\"Ke3\""), "{e}");
    }

    #[test]
    fn the_start_position_is_not_named() {
        assert_eq!(name(""), None);
    }

    #[test]
    fn a_game_past_the_table_keeps_the_deepest_name() {
        let line = "e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6 Rg1";
        let deepest = name(line).unwrap();
        let game = format!("{line} Rg8 Rh1 Rh8 Rg1 Rg8 Rh1 Rh8");
        let got = classify(Table::builtin(), &Chess::default(), moves(&game)).unwrap();
        assert_eq!((got.opening.name.clone(), got.ply), (deepest, 11));
        assert_eq!(got.after.as_deref(), Some("6.Rg1"));
    }
}
