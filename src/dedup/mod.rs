//! Duplicate games: a fixed-size digest a game, the policy that decides which copy of a
//! game is kept and what the others are, and the engine that runs it ([`Dedup`], behind
//! `pgnkit dedup`).
//!
//! Two games are the same game when they have the same main-line moves from the same start
//! position, as pgn-extract's `-D` has it. Each game costs a [`Digest`] (a 128-bit hash of its
//! start and moves, a 64-bit hash of its text, its length in plies...); the [`Finder`] sorts
//! such fixed-size records within a memory budget, on disk past it ([`crate::sort`]), to decide.

mod copier;
pub mod engine;
pub mod finder;
pub mod observer;
mod spill;

use crate::pgn::date::GameDate;
use crate::rules::outcome::GameResult;
pub use engine::{parse_size, Dedup, DedupOptions, MIN_MEMORY_BUDGET};
pub use finder::Finder;

/// How one game is a duplicate of the copy that is kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// The same text once line endings and trailing blanks are set aside.
    Identical,
    /// The same moves from the same start, with other tags, comments, NAGs or layout.
    SameMoves,
    /// Its moves are the first moves of a longer game (a feed that stopped early).
    Prefix,
    /// The same moves, but the other of two recorded results (`1-0`, `0-1`, `1/2-1/2`).
    ConflictingResult,
    /// Another game reached the same position at the ply of `--fuzzy-ply`.
    SamePosition,
}

impl Kind {
    /// Every kind, in the order the summary lists them.
    pub const ALL: [Kind; 5] = [
        Kind::Identical,
        Kind::SameMoves,
        Kind::Prefix,
        Kind::ConflictingResult,
        Kind::SamePosition,
    ];

    /// The name in the report's `kind` column.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Identical => "identical",
            Kind::SameMoves => "same-moves",
            Kind::Prefix => "prefix",
            Kind::ConflictingResult => "conflicting-result",
            Kind::SamePosition => "same-position",
        }
    }
}

/// Which copy of a game is kept.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Keep {
    /// The first in input order.
    #[default]
    First,
    /// The most complete: a recorded result first, then more tags, then more comments; the
    /// first of equals.
    Best,
}

/// A recorded result, as far as it can conflict with another: `*`, a missing or an unreadable
/// `Result` is [`GameResult::Unknown`], in conflict with none.
pub type Recorded = GameResult;

/// The recorded result of a `Result` tag's value (blanks around it aside).
pub fn recorded(value: Option<&str>) -> Recorded {
    value
        .and_then(|v| GameResult::of_tag(v.trim()))
        .unwrap_or_default()
}

/// The result as one byte, for the records on disk (0 unknown, 1 White won, 2 Black won, 3 a
/// draw: the format `docs/dedup.md` pins).
fn result_code(result: Recorded) -> u8 {
    match result {
        GameResult::Unknown => 0,
        GameResult::WhiteWins => 1,
        GameResult::BlackWins => 2,
        GameResult::Draw => 3,
    }
}

/// The result of [`result_code`]'s byte.
fn result_of_code(code: u8) -> Recorded {
    match code {
        1 => GameResult::WhiteWins,
        2 => GameResult::BlackWins,
        3 => GameResult::Draw,
        _ => GameResult::Unknown,
    }
}

/// Two results conflict when both are known and differ.
fn conflicts(a: Recorded, b: Recorded) -> bool {
    a != GameResult::Unknown && b != GameResult::Unknown && a != b
}

/// What is kept of one game to find its duplicates: a fixed number of bytes (see
/// `docs/dedup.md`, and the test that pins it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Digest {
    /// The start position and main-line moves ([`MoveHash`]); meaningful when `plies > 0`.
    pub moves: [u64; 2],
    /// The text with line endings and trailing blanks normalised ([`text_hash`]).
    pub text: u64,
    /// The position at the `--fuzzy-ply` ply, when asked for and the game is that long.
    pub position: Option<u64>,
    /// Main-line plies replayed (up to the first error).
    pub plies: u32,
    /// For `--keep best` ([`completeness`]).
    pub completeness: u32,
    pub result: Recorded,
    /// Who played it, where and when: for `prefix` and `conflicting-result`.
    pub who: Identity,
    /// The game is never anyone's duplicate, nor has any: it has no bytes (it was too large
    /// to read).
    pub unique: bool,
}

/// Who played a game, where and when, as far as `prefix` and `conflicting-result` compare
/// games: two games with the same first moves are one game cut short only when the same
/// players played them, at the same event, round and date where both say. Without this a
/// time forfeit `1. e4 1-0` would be taken for the start of any game that opens 1. e4.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Identity {
    /// White's and Black's names, compared leniently ([`name_hash`]).
    pub players: u64,
    /// The `Event`, `Round` and complete `Date` (0: the game does not say).
    pub event: u32,
    pub round: u32,
    pub date: u32,
    /// The `Site` when it is a web address (0: it is none): on the servers that write one, the
    /// game's own page, which tells apart two games of the same short moves
    /// ([`Identity::same_game`]).
    pub site: u32,
}

impl Identity {
    /// The identity of a game with these tag values (`None`: no such tag).
    pub fn of_tags(
        white: Option<&str>,
        black: Option<&str>,
        event: Option<&str>,
        round: Option<&str>,
        date: Option<&str>,
    ) -> Identity {
        let players =
            name_hash(white.unwrap_or("")).rotate_left(17) ^ name_hash(black.unwrap_or(""));
        let short = |v: Option<&str>| (name_hash(v.unwrap_or("")) as u32) | u32::from(known(v));
        Identity {
            players,
            event: if known(event) { short(event) } else { 0 },
            round: if known(round) { short(round) } else { 0 },
            date: date.and_then(GameDate::written_number).unwrap_or(0),
            site: 0,
        }
    }

    /// The identity with the game's `Site` tag (`None`: no such tag). Only a web address
    /// (`http://` or `https://`) counts, compared as written: a place (`Leiden`, `online`)
    /// names no one game.
    pub fn at_site(self, site: Option<&str>) -> Identity {
        let site = site.map(str::trim).filter(|s| {
            let lower = s.get(..8).unwrap_or(s).to_ascii_lowercase();
            lower.starts_with("http://") || lower.starts_with("https://")
        });
        Identity {
            site: site.map_or(0, |s| hash_normalised(s.as_bytes()) as u32 | 1),
            ..self
        }
    }

    /// Plausibly the same game: the same players, and the same event, round and date where
    /// both games give them.
    pub fn agrees(&self, other: &Identity) -> bool {
        let both = |a: u32, b: u32| a == 0 || b == 0 || a == b;
        self.players == other.players
            && both(self.event, other.event)
            && both(self.round, other.round)
            && both(self.date, other.date)
    }

    /// One game, for games of the same moves too few to tell them apart
    /// ([`SHORT_PLIES`]): [`Identity::agrees`], and the same web address where both give one
    /// (two addresses are two games, as a server gives each game its own).
    pub fn same_game(&self, other: &Identity) -> bool {
        self.agrees(other) && (self.site == 0 || other.site == 0 || self.site == other.site)
    }
}

/// Games of fewer plies than this are told apart by their moves only with their players:
/// a miniature (`1. e4 1-0` lost on time, an opening trap) is played again and again by
/// different players. In the lichess sample of the test corpus (438 games) different games
/// share their first 10 plies, and none their first 11; in the over-the-board sample (1,110
/// games), where openings are deeper theory, different games share up to 28 plies, but go
/// on after: twice the lichess length is taken, and a longer game is told by its moves alone
/// (`docs/dedup.md`, "Short games").
pub const SHORT_PLIES: u32 = 20;

/// A tag value that says something: not missing, empty, `?` or `-`.
fn known(value: Option<&str>) -> bool {
    value
        .map(str::trim)
        .is_some_and(|v| !matches!(v, "" | "?" | "-"))
}

/// A name as the feeds of one game write it in different ways: its words (runs of letters and
/// digits) in lower case, in any order. So `Carlsen, Magnus`, `Magnus  Carlsen` and
/// `CARLSEN Magnus` are one name; `?`, `-` and an empty name are no words at all. Each word
/// is hashed alone and the words' hashes summed (the sum does not depend on their order):
/// no allocation, as every game's two names pass here. ASCII letters go eight to a hashing
/// step; any other letter takes a step of its own, marked by its top bit, which an ASCII
/// step never has, so that no two words give the same steps.
pub fn name_hash(name: &str) -> u64 {
    let mut h = NameHasher::new();
    let bytes = name.as_bytes();
    let mut i = 0;
    // Byte by byte, decoding only what is not ASCII: the names are mostly ASCII, and a
    // `char` a step cost most of the hashing.
    while let Some(&b) = bytes.get(i) {
        if b.is_ascii_alphanumeric() {
            h.ascii(b);
            i += 1;
        } else {
            let c = if b.is_ascii() {
                char::from(b)
            } else {
                name[i..].chars().next().unwrap_or(' ')
            };
            h.other(c);
            i += c.len_utf8();
        }
    }
    h.finish()
}

/// The state of [`name_hash`]: the sum of the words so far, and the word being read.
struct NameHasher {
    sum: u64,
    word: TextHasher,
    /// ASCII letters not hashed yet, and how many.
    pack: u64,
    packed: u32,
    in_word: bool,
}

impl NameHasher {
    const SEED: u64 = 0x243f_6a88_85a3_08d3;

    fn new() -> NameHasher {
        NameHasher {
            sum: 0,
            word: TextHasher(Self::SEED),
            pack: 0,
            packed: 0,
            in_word: false,
        }
    }

    /// An ASCII letter or digit.
    fn ascii(&mut self, b: u8) {
        self.pack |= u64::from(b.to_ascii_lowercase()) << (8 * self.packed);
        self.packed += 1;
        if self.packed == 8 {
            self.flush();
        }
        self.in_word = true;
    }

    /// Any other character: a letter or digit of a word, or what ends one.
    fn other(&mut self, c: char) {
        if c.is_alphanumeric() {
            self.flush();
            for l in c.to_lowercase() {
                self.word.word(u64::from(u32::from(l)) | 1 << 63);
            }
            self.in_word = true;
        } else if self.in_word {
            self.flush();
            self.word.word(u64::MAX);
            self.sum = self.sum.wrapping_add(self.word.0);
            self.word = TextHasher(Self::SEED);
            self.in_word = false;
        }
    }

    fn flush(&mut self) {
        if self.packed > 0 {
            self.word.word(self.pack);
            (self.pack, self.packed) = (0, 0);
        }
    }

    fn finish(mut self) -> u64 {
        self.other(' ');
        self.sum
    }
}

/// How complete a game is, for `--keep best`: a recorded result, then tags, then comments.
pub fn completeness(result: Recorded, tags: usize, comments: usize) -> u32 {
    let known = u32::from(result != Recorded::Unknown) << 31;
    let tags = (tags.min(0x7fff) as u32) << 16;
    known | tags | comments.min(0xffff) as u32
}

/// A move in 16 bits: origin, target (the rook's square for castling), promotion, and
/// whether it castles. The same move gives the same code in every notation it was written in.
pub fn move_code(mv: &shakmaty::Move) -> u16 {
    use shakmaty::Move;
    // One match rather than `from()`, `to()` and `promotion()` each matching again: this is
    // told of every main-line move of every game.
    match *mv {
        Move::Normal {
            from,
            to,
            promotion,
            ..
        } => u16::from(from) | u16::from(to) << 6 | promotion.map_or(0, |r| r as u16) << 12,
        Move::EnPassant { from, to } => u16::from(from) | u16::from(to) << 6,
        Move::Castle { king, rook } => u16::from(king) | u16::from(rook) << 6 | 1 << 15,
        Move::Put { to, .. } => u16::from(to) << 6,
    }
}

/// A 128-bit hash of a start position and the moves played from it, one move at a time: the
/// value after `p` moves is the hash of the game's first `p` plies, which is how prefixes
/// are found. Not cryptographic: a multiply-xorshift chain. Each step is a bijection of the
/// state for a given move, so two lines of the same length and start that part at some ply
/// stay apart until a later pair of moves differs by exactly the difference of the states
/// (odds of about 2^-111 a ply), and lines of different lengths collide as random 128-bit
/// values do. One multiply and one fold a ply: the chain runs over every move of every game,
/// and each step waits for the one before.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveHash(u128);

impl MoveHash {
    /// An odd constant (the first 128 bits of pi's fraction, made odd).
    const K: u128 = 0x243f_6a88_85a3_08d3_1319_8a2e_0370_7345;

    /// The hash of no moves from the position whose Zobrist hash is `start`.
    pub fn new(start: u128) -> MoveHash {
        MoveHash(Self::step(Self::step(start ^ Self::K)))
    }

    /// The multiply carries low bits up; the fold carries the high half down.
    fn step(x: u128) -> u128 {
        let y = x.wrapping_mul(Self::K);
        y ^ (y >> 64)
    }

    /// One more move.
    pub fn push(&mut self, code: u16) {
        self.0 = Self::step(self.0 ^ (u128::from(code) + 1));
    }

    pub fn value(self) -> [u64; 2] {
        [(self.0 >> 64) as u64, self.0 as u64]
    }
}

/// A 64-bit hash of a game's text as `identical` compares it: every line without its
/// trailing spaces, tabs and carriage return, the blank lines before the first and after the
/// last line left out, lines joined by `\n` (the normalised text, hashed eight bytes a step
/// as a folded 64-by-64-bit multiply, as wyhash has it). It reads every byte of every game,
/// so it must cost little beside the replay: a text that is normalised already (no carriage
/// return, tab or blank before a line's end, as most files are written) is hashed as it
/// stands, past three SIMD searches; another is normalised into a buffer first.
pub fn text_hash(bytes: &[u8]) -> u64 {
    let start = bytes
        .iter()
        .position(|&b| b != b'\n')
        .unwrap_or(bytes.len());
    let body = &bytes[start..];
    let end = body
        .iter()
        .rposition(|&b| !matches!(b, b' ' | b'\n'))
        .map_or(0, |i| i + 1);
    let body = &body[..end];
    let plain = memchr::memchr2(b'\r', b'\t', body).is_none() && BLANK_AT_END.find(body).is_none();
    if plain {
        return hash_normalised(body);
    }
    let mut text = Vec::with_capacity(bytes.len());
    let mut blank_lines = 0usize;
    let mut from = 0;
    let ends = memchr::memchr_iter(b'\n', bytes).chain(std::iter::once(bytes.len()));
    for end in ends {
        let line = &bytes[from..end];
        from = end + 1;
        let len = line
            .iter()
            .rposition(|&b| !matches!(b, b' ' | b'\t' | b'\r'))
            .map_or(0, |i| i + 1);
        if len == 0 {
            blank_lines += 1;
            continue;
        }
        if !text.is_empty() {
            // The blank lines inside the game count; those at its ends do not.
            text.resize(text.len() + 1 + blank_lines, b'\n');
        }
        blank_lines = 0;
        text.extend_from_slice(&line[..len]);
    }
    hash_normalised(&text)
}

/// A blank before a line's end. Built once: `memmem::find` builds its searcher anew each
/// call, which cost more than the search on a game's text.
static BLANK_AT_END: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b" \n"));

/// [`text_hash`] of a normalised text.
fn hash_normalised(text: &[u8]) -> u64 {
    let mut h = TextHasher(0x9e37_79b9_7f4a_7c15);
    h.bytes(text);
    h.0
}

/// The state of [`text_hash`].
struct TextHasher(u64);

impl TextHasher {
    fn word(&mut self, w: u64) {
        let m = u128::from(self.0 ^ w) * u128::from(0xa076_1d64_78bd_642f_u64 ^ w.rotate_left(29));
        self.0 = (m as u64 ^ (m >> 64) as u64).wrapping_add(0xe703_7ed1_a0b4_28db);
    }

    /// Two words in one step (a multiply of the state mixed with one by the other mixed with
    /// a constant, as wyhash has it): half the steps of [`TextHasher::word`] a byte.
    fn words(&mut self, a: u64, b: u64) {
        let m = u128::from(self.0 ^ a) * u128::from(0xa076_1d64_78bd_642f_u64 ^ b);
        self.0 = (m as u64 ^ (m >> 64) as u64).wrapping_add(0xe703_7ed1_a0b4_28db);
    }

    fn bytes(&mut self, b: &[u8]) {
        // Four chains, each of every fourth 16 bytes, joined at the end: each step waits for
        // the multiply before it, so chains side by side take the time of one.
        let mut blocks = b.chunks_exact(64);
        if blocks.len() > 0 {
            let mut chains = [
                TextHasher(self.0 ^ 0x5851_f42d_4c95_7f2d),
                TextHasher(self.0 ^ 0x1405_7b7e_f767_814f),
                TextHasher(self.0 ^ 0x2d35_8dcc_aa6c_78a5),
            ];
            for c in &mut blocks {
                let w = |i: usize| u64::from_le_bytes(c[i..i + 8].try_into().unwrap_or_default());
                self.words(w(0), w(8));
                chains[0].words(w(16), w(24));
                chains[1].words(w(32), w(40));
                chains[2].words(w(48), w(56));
            }
            self.words(chains[0].0, chains[1].0);
            self.words(chains[2].0, 0x2d35_8dcc_aa6c_78a5);
        }
        let mut pairs = blocks.remainder().chunks_exact(16);
        for c in &mut pairs {
            let (x, y) = c.split_at(8);
            self.words(
                u64::from_le_bytes(x.try_into().unwrap_or_default()),
                u64::from_le_bytes(y.try_into().unwrap_or_default()),
            );
        }
        let mut chunks = pairs.remainder().chunks_exact(8);
        for c in &mut chunks {
            self.word(u64::from_le_bytes(c.try_into().unwrap_or_default()));
        }
        let rest = chunks.remainder();
        let mut tail = [0u8; 8];
        tail[..rest.len()].copy_from_slice(rest);
        // The length tells `ab` from `ab\0`, and a line's end from the next line's start
        // (the tail holds at most seven bytes; its top byte, the length's low bits).
        self.word(u64::from_le_bytes(tail) | (b.len() as u64 & 0xff) << 56);
    }
}

/// What became of one game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Duplicate {
    /// The index (in input order, from 0) of the copy that is kept.
    pub of: u32,
    pub kind: Kind,
}

/// No game.
const NONE: u32 = u32::MAX;

/// The key of a game's moves and players together: the moves' hash is random enough that
/// mixing the players' into one half keeps keys apart (one step a ply: it is computed for
/// every ply of every game).
fn line_key(moves: [u64; 2], players: u64) -> [u64; 2] {
    [
        moves[0] ^ players.wrapping_mul(0x9e37_79b9_7f4a_7c15),
        moves[1],
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(moves: &[u16], text: u64, result: Recorded) -> (Digest, Vec<u16>) {
        let mut h = MoveHash::new(7);
        for &m in moves {
            h.push(m);
        }
        let d = Digest {
            moves: h.value(),
            text,
            plies: moves.len() as u32,
            result,
            completeness: completeness(result, 7, 0),
            ..Digest::default()
        };
        (d, moves.to_vec())
    }

    /// `game`, played by `white` and `black`.
    fn by(white: &str, black: &str, mut g: (Digest, Vec<u16>)) -> (Digest, Vec<u16>) {
        g.0.who = Identity::of_tags(Some(white), Some(black), None, None, None);
        g
    }

    /// What becomes of each game, decided within `budget` bytes (in `dir` past them).
    fn decide(
        games: &[(Digest, Vec<u16>)],
        keep: Keep,
        fuzzy: bool,
        budget: usize,
        dir: &std::path::Path,
    ) -> (Vec<Option<Duplicate>>, u64) {
        let store = Finder::space(dir, budget);
        let mut f = Finder::new(&store);
        for (i, (d, moves)) in games.iter().enumerate() {
            f.add(*d, 0, i as u64 + 1, 7, moves).unwrap();
        }
        let mut out = vec![None; games.len()];
        f.decide(keep, fuzzy)
            .unwrap()
            .each(|i, d| {
                out[i as usize] = Some(d);
                Ok(())
            })
            .unwrap();
        (out, store.spilled())
    }

    fn run(games: &[(Digest, Vec<u16>)], keep: Keep) -> Vec<Option<Duplicate>> {
        decide(
            games,
            keep,
            false,
            1 << 30,
            std::path::Path::new("/nonexistent"),
        )
        .0
    }

    #[test]
    fn kinds_and_the_longer_game_kept() {
        let full = [1, 2, 3, 4];
        let games = [
            game(&full[..2], 1, Recorded::Unknown),
            game(&full, 2, Recorded::WhiteWins),
            game(&full, 2, Recorded::WhiteWins),
            game(&full, 3, Recorded::WhiteWins),
            game(&full, 4, Recorded::BlackWins),
            game(&full[..3], 5, Recorded::Unknown),
            game(&[9, 9], 6, Recorded::Draw),
        ];
        let got = run(&games, Keep::First);
        let dup = |of, kind| Some(Duplicate { of, kind });
        assert_eq!(
            got,
            vec![
                dup(1, Kind::Prefix),
                None,
                dup(1, Kind::Identical),
                dup(1, Kind::SameMoves),
                dup(1, Kind::ConflictingResult),
                dup(1, Kind::Prefix),
                None,
            ]
        );
    }

    #[test]
    fn a_copy_at_another_event_is_probed_for_prefixes_too() {
        let at = |event: &str, g: (Digest, Vec<u16>)| {
            let mut g = g;
            g.0.who = Identity::of_tags(Some("A"), Some("B"), Some(event), None, None);
            g
        };
        // Long enough to be told by its moves: a copy at another event is the same game.
        let full: Vec<u16> = (1..=SHORT_PLIES as u16).collect();
        let games = [
            at("E1", game(&full, 1, Recorded::Unknown)),
            at("E2", game(&full, 2, Recorded::Unknown)),
            // The same moves, players and event as the game before: probed once for both.
            at("E2", game(&full, 2, Recorded::Unknown)),
            // A prefix of the game at E2 only: the first game, at E1, is another game.
            at("E2", game(&full[..2], 3, Recorded::Unknown)),
        ];
        let dup = |of, kind| Some(Duplicate { of, kind });
        assert_eq!(
            run(&games, Keep::First),
            vec![
                None,
                dup(0, Kind::SameMoves),
                dup(0, Kind::SameMoves),
                dup(0, Kind::Prefix),
            ]
        );
    }

    #[test]
    fn a_short_game_with_another_result_is_no_prefix() {
        let games = [
            game(&[1], 1, Recorded::WhiteWins),
            game(&[1, 2, 3], 2, Recorded::BlackWins),
            game(&[1, 2], 3, Recorded::BlackWins),
        ];
        let got = run(&games, Keep::First);
        let prefix = Some(Duplicate {
            of: 1,
            kind: Kind::Prefix,
        });
        assert_eq!(got, vec![None, None, prefix]);
    }

    #[test]
    fn a_short_game_of_other_players_is_no_prefix() {
        let games = [
            by("Ann", "Bob", game(&[1], 1, Recorded::WhiteWins)),
            by("Cy", "Di", game(&[1, 2, 3], 2, Recorded::WhiteWins)),
            by("Cy", "Di", game(&[1, 2], 3, Recorded::Unknown)),
            by("Ann", "Bob", game(&[1, 2], 4, Recorded::Unknown)),
        ];
        let got = run(&games, Keep::First);
        let prefix = |of| {
            Some(Duplicate {
                of,
                kind: Kind::Prefix,
            })
        };
        // Each short game is the start of the longer game of its players only.
        assert_eq!(got, vec![prefix(3), None, prefix(1), None]);
    }

    #[test]
    fn the_same_moves_with_another_result_by_other_players_is_another_game() {
        let games = [
            by("Ann", "Bob", game(&[1], 1, Recorded::WhiteWins)),
            by("Cy", "Di", game(&[1], 2, Recorded::BlackWins)),
            by("Cy", "Di", game(&[1], 3, Recorded::BlackWins)),
            by("Ann", "Bob", game(&[1], 4, Recorded::BlackWins)),
            by("Ed", "Flo", game(&[1], 5, Recorded::WhiteWins)),
        ];
        let got = run(&games, Keep::First);
        let dup = |of, kind| Some(Duplicate { of, kind });
        assert_eq!(
            got,
            vec![
                None,
                None,
                dup(1, Kind::SameMoves),
                dup(0, Kind::ConflictingResult),
                // A game of one ply by other players, with the same result: another game.
                None,
            ]
        );
    }

    #[test]
    fn short_games_are_copies_only_of_the_same_players_and_address() {
        let at = |site: &str, mut g: (Digest, Vec<u16>)| {
            g.0.who = g.0.who.at_site(Some(site));
            g
        };
        let short = [1, 2, 3];
        let long: Vec<u16> = (1..=SHORT_PLIES as u16).collect();
        let games = [
            at(
                "https://x.org/a",
                by("Ann", "Bob", game(&short, 1, Recorded::WhiteWins)),
            ),
            // Other players: another game.
            at(
                "https://x.org/b",
                by("Cy", "Di", game(&short, 2, Recorded::WhiteWins)),
            ),
            // The same players (their names written another way) and address.
            at(
                "https://x.org/a",
                by("ann", "BOB", game(&short, 3, Recorded::Unknown)),
            ),
            at(
                "https://x.org/a",
                by("Ann", "Bob", game(&short, 1, Recorded::WhiteWins)),
            ),
            // The same players at another address: another game.
            at(
                "HTTPS://x.org/c",
                by("Ann", "Bob", game(&short, 4, Recorded::WhiteWins)),
            ),
            // A place is no address: it agrees with either, and the first is kept.
            at(
                "Leiden",
                by("Ann", "Bob", game(&short, 5, Recorded::BlackWins)),
            ),
            // 20 plies: the same moves are the same game, whoever played them.
            by("Ed", "Flo", game(&long, 6, Recorded::Draw)),
            at(
                "https://y.org/z",
                by("E", "F", game(&long, 7, Recorded::Draw)),
            ),
        ];
        let dup = |of, kind| Some(Duplicate { of, kind });
        assert_eq!(
            run(&games, Keep::First),
            vec![
                None,
                None,
                dup(0, Kind::SameMoves),
                dup(0, Kind::Identical),
                None,
                dup(0, Kind::ConflictingResult),
                None,
                dup(6, Kind::SameMoves),
            ]
        );
    }

    #[test]
    fn many_short_games_of_two_players_cost_a_few_comparisons_and_lose_none() {
        // Thirty games of one pair and the same moves, each at its own address, then a copy
        // of the second and of the twentieth: the copy of a game past the first few kept is
        // kept too, never dropped as another's.
        let site = |i: usize| format!("https://x.org/{i}");
        let mut games: Vec<_> = (0..30)
            .map(|i| by("Ann", "Bob", game(&[1], i as u64, Recorded::WhiteWins)))
            .collect();
        for (i, g) in games.iter_mut().enumerate() {
            g.0.who = g.0.who.at_site(Some(&site(i)));
        }
        for i in [1, 19] {
            let mut copy = by(
                "Ann",
                "Bob",
                game(&[1], 100 + i as u64, Recorded::WhiteWins),
            );
            copy.0.who = copy.0.who.at_site(Some(&site(i)));
            games.push(copy);
        }
        let got = run(&games, Keep::First);
        assert!(got[..30].iter().all(Option::is_none), "{got:?}");
        assert_eq!(
            got[30],
            Some(Duplicate {
                of: 1,
                kind: Kind::SameMoves
            })
        );
        assert_eq!(got[31], None);
    }

    #[test]
    fn names_are_compared_leniently_and_events_where_both_say() {
        let id = |w, b, e, r, d| Identity::of_tags(Some(w), Some(b), e, r, d);
        let a = id("Carlsen, Magnus", "Nakamura,Hikaru", None, None, None);
        assert!(a.agrees(&id("magnus  CARLSEN", "Hikaru Nakamura", None, None, None)));
        assert!(!a.agrees(&id("Nakamura, Hikaru", "Carlsen, Magnus", None, None, None)));
        let e = |e, r, d| id("A", "B", e, r, d);
        let full = e(Some("Open"), Some("3"), Some("2024.05.01"));
        assert!(full.agrees(&e(None, Some("?"), Some("2024.??.??"))));
        assert!(full.agrees(&e(Some("Open"), Some("3"), Some("2024.05.01"))));
        assert!(!full.agrees(&e(Some("Closed"), None, None)));
        assert!(!full.agrees(&e(None, Some("4"), None)));
        assert!(!full.agrees(&e(None, None, Some("2024.05.02"))));
    }

    #[test]
    fn a_game_of_other_players_is_kept_when_the_first_of_its_moves_is_a_prefix() {
        // Game 0 is a prefix of game 2 (the same players); game 1 has its moves but other
        // players: it is no prefix, and is the kept game of those moves.
        let games = [
            by("Ann", "Bob", game(&[1, 2], 1, Recorded::Unknown)),
            by("Cy", "Di", game(&[1, 2], 2, Recorded::Unknown)),
            by("Ann", "Bob", game(&[1, 2, 3], 3, Recorded::Unknown)),
        ];
        let got = run(&games, Keep::First);
        let prefix = Some(Duplicate {
            of: 2,
            kind: Kind::Prefix,
        });
        assert_eq!(got, vec![prefix, None, None]);
    }

    #[test]
    fn a_duplicate_of_a_dropped_game_names_the_game_kept_in_the_end() {
        // Game 2 is a prefix of game 1, which reaches game 0's position at the fuzzy ply:
        // game 2 names game 0, the one written.
        let at = |position, mut g: (Digest, Vec<u16>)| {
            g.0.position = Some(position);
            g
        };
        let games = [
            at(9, by("Ann", "Bob", game(&[1, 2, 3], 1, Recorded::Unknown))),
            at(9, by("Cy", "Di", game(&[4, 5, 6], 2, Recorded::Unknown))),
            by("Cy", "Di", game(&[4], 3, Recorded::Unknown)),
        ];
        let got = decide(
            &games,
            Keep::First,
            true,
            1 << 30,
            std::path::Path::new("/nonexistent"),
        )
        .0;
        let dup = |of, kind| Some(Duplicate { of, kind });
        assert_eq!(
            got,
            vec![None, dup(0, Kind::SamePosition), dup(0, Kind::Prefix)]
        );
    }

    /// Many games made to be duplicates of every kind of each other, decided in memory and
    /// with a budget so small that every sort is spilled in many runs.
    #[test]
    fn spilled_runs_decide_as_memory_does() {
        let dir = std::env::temp_dir().join(format!("pgnkit-finder-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let names = [("Ann", "Bob"), ("Cy", "Di"), ("Ed", "Flo")];
        let results = [
            Recorded::Unknown,
            Recorded::WhiteWins,
            Recorded::BlackWins,
            Recorded::Draw,
        ];
        let mut games = Vec::new();
        for i in 0..400u64 {
            let x = i.wrapping_mul(0x9e37_79b9) >> 7;
            let len = (x % 6) as usize;
            let moves: Vec<u16> = (0..len).map(|p| 1 + (p as u16 + (x % 2) as u16)).collect();
            let (w, b) = names[(x / 6 % 3) as usize];
            let mut g = by(
                w,
                b,
                game(&moves, x / 18 % 3, results[(x / 54 % 4) as usize]),
            );
            g.0.completeness = (x / 216 % 3) as u32;
            g.0.position = (len >= 3).then_some(x / 7 % 2);
            games.push(g);
        }
        for keep in [Keep::First, Keep::Best] {
            for fuzzy in [false, true] {
                let (mem, none) = decide(&games, keep, fuzzy, 1 << 30, &dir);
                let (disk, spilled) = decide(&games, keep, fuzzy, 1 << 10, &dir);
                assert_eq!(none, 0);
                assert!(spilled > 50, "{spilled} runs");
                assert_eq!(mem, disk, "{keep:?} fuzzy {fuzzy}");
                for kind in Kind::ALL {
                    let n = mem.iter().flatten().filter(|d| d.kind == kind).count();
                    assert!(n > 0 || (kind == Kind::SamePosition && !fuzzy), "{kind:?}");
                }
                // Every duplicate names a game that is kept.
                for d in mem.iter().flatten() {
                    assert_eq!(mem[d.of as usize], None, "{d:?}");
                }
            }
        }
        let left = std::fs::read_dir(&dir).unwrap().count();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(left, 0, "the runs are removed");
    }

    #[test]
    fn best_prefers_a_result() {
        let games = [
            game(&[1, 2], 1, Recorded::Unknown),
            game(&[1, 2], 2, Recorded::Draw),
        ];
        let got = run(&games, Keep::Best);
        assert_eq!(
            got,
            vec![
                Some(Duplicate {
                    of: 1,
                    kind: Kind::SameMoves
                }),
                None
            ]
        );
    }

    #[test]
    fn text_hash_ignores_line_endings_and_trailing_blanks() {
        let a = text_hash(b"[Event \"x\"]\n\n1. e4 e5 *\n");
        assert_eq!(
            a,
            text_hash(b"[Event \"x\"]  \r\n\r\n1. e4 e5 *\r\n\r\n\r\n")
        );
        assert_eq!(a, text_hash(b"\n[Event \"x\"]\n\n1. e4 e5 *"));
        assert_ne!(a, text_hash(b"[Event \"x\"]\n1. e4 e5 *\n"));
        assert_ne!(a, text_hash(b"[Event \"x\"]\n\n1. e4  e5 *\n"));
    }

    /// The text as `identical` compares it, written the plain way.
    fn normalised(text: &str) -> String {
        let lines: Vec<&str> = text
            .split('\n')
            .map(|l| l.trim_end_matches([' ', '\t', '\r']))
            .collect();
        let first = lines.iter().position(|l| !l.is_empty());
        let last = lines.iter().rposition(|l| !l.is_empty());
        match (first, last) {
            (Some(a), Some(b)) => lines[a..=b].join("\n"),
            _ => String::new(),
        }
    }

    #[test]
    fn text_hash_is_the_hash_of_the_normalised_text_on_either_path() {
        let texts = [
            "",
            "\n\n",
            "  \n\t\n",
            "[Event \"x\"]\n\n1. e4 e5 *\n\n",
            "[Event \"x\"]\r\n\r\n1. e4 e5 *\r\n",
            "\n\n[Event \"x\"]\n1. e4\te5 *",
            "[Event \"x\"]  \n\n\n1. e4 e5 *   \n \n",
            "  [Event \"x\"]\n1. e4 {a\tcomment}\n*",
            "[Event \"x\"]\n   \n1. e4 *\t",
            "a b  c\n\nd",
        ];
        for t in texts {
            let want = hash_normalised(normalised(t).as_bytes());
            assert_eq!(text_hash(t.as_bytes()), want, "{t:?}");
        }
        // Both paths give the hash of the same text the same way.
        let plain = "[Event \"x\"]\n\n1. e4 e5 *";
        let crlf = "[Event \"x\"]\r\n\r\n1. e4 e5 *\r\n";
        assert_eq!(text_hash(plain.as_bytes()), text_hash(crlf.as_bytes()));
    }

    /// [`name_hash`] as it was written first, a `char` a step: the byte steps must give the
    /// same hashes.
    fn name_hash_by_chars(name: &str) -> u64 {
        let mut h = NameHasher::new();
        for c in name.chars() {
            match u8::try_from(c) {
                Ok(b) if b.is_ascii_alphanumeric() => h.ascii(b),
                _ => h.other(c),
            }
        }
        h.finish()
    }

    #[test]
    fn name_hash_reads_bytes_as_it_read_chars() {
        let names = [
            "",
            "?",
            "Carlsen, Magnus",
            "Praggnanandhaa,R",
            "Nepomniachtchi Ian",
            "Ding Liren (CHN)",
            "Caruana\u{a0}Fabiano",
            "Grünfeld, Ernst",
            "ÉLODIE Ærø-Åsa",
            "Стругацкий Борис",
            "丁立人",
            "x\u{2014}y",
        ];
        for n in names {
            assert_eq!(name_hash(n), name_hash_by_chars(n), "{n:?}");
        }
        assert_eq!(name_hash("Grünfeld, Ernst"), name_hash("ERNST GRÜNFELD"));
    }

    #[test]
    fn move_code_is_origin_target_promotion_and_castling() {
        use shakmaty::{fen::Fen, CastlingMode, Chess, Position};
        let fens = [
            "r3k2r/pPpp1ppp/8/3Pp3/8/8/P1PP1PPP/R3K2R w KQkq e6 0 1",
            "r3k2r/p1pp1ppp/8/8/8/8/PpPP1PPP/R3K2R b KQkq - 0 1",
        ];
        let mut seen = 0;
        for fen in fens {
            let pos: Chess = fen
                .parse::<Fen>()
                .unwrap()
                .into_position(CastlingMode::Standard)
                .unwrap();
            for mv in pos.legal_moves() {
                let from = mv.from().map_or(0, u16::from);
                let promotion = mv.promotion().map_or(0, |r| r as u16);
                let castle = u16::from(mv.is_castle());
                let want = from | u16::from(mv.to()) << 6 | promotion << 12 | castle << 15;
                assert_eq!(move_code(&mv), want, "{mv:?}");
                seen |= 1 << (mv.is_en_passant() as u8 + 2 * mv.is_castle() as u8);
                seen |= u8::from(mv.is_promotion()) << 3;
            }
        }
        assert_eq!(seen, 0b1111, "every kind of move");
    }

    #[test]
    fn bytes_per_game_is_what_the_docs_say() {
        let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/dedup.md"))
            .expect("docs/dedup.md");
        let said = format!("{} bytes a game", Finder::BYTES_PER_GAME);
        assert!(docs.contains(&said), "docs/dedup.md should say `{said}`");
        let said = format!("{} bytes a game", Finder::DISK_BYTES_PER_GAME);
        assert!(docs.contains(&said), "docs/dedup.md should say `{said}`");
    }
}
