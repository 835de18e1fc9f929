//! Duplicate games: a fixed-size digest a game, and the policy that decides which copy of a
//! game is kept and what the others are (`pgnkit dedup`). Also the grouping of games into
//! files for `pgnkit split` ([`split`]).
//!
//! Two games are the same game when they have the same main-line moves from the same start
//! position, as pgn-extract's `-D` has it. Each game costs a [`Digest`] (a 128-bit hash of its
//! start and moves, a 64-bit hash of its text, its length in plies...) and a few indices; the
//! moves themselves are needed once more, in order, to find games that are a prefix of
//! others ([`Finder::probe_prefixes`]), so the caller keeps them out of memory (a spill
//! file) between the two.

pub mod observer;
pub mod split;

use std::collections::HashMap;

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

/// A recorded result, as far as it can conflict with another.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Recorded {
    /// `*`, a missing or unreadable result: no conflict with any.
    #[default]
    Unknown,
    WhiteWins,
    BlackWins,
    Draw,
}

impl Recorded {
    /// The result of a `Result` tag's value.
    pub fn of_tag(value: Option<&str>) -> Recorded {
        match value.map(str::trim) {
            Some("1-0") => Recorded::WhiteWins,
            Some("0-1") => Recorded::BlackWins,
            Some("1/2-1/2") => Recorded::Draw,
            _ => Recorded::Unknown,
        }
    }

    fn conflicts(self, other: Recorded) -> bool {
        self != Recorded::Unknown && other != Recorded::Unknown && self != other
    }
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
            date: date.and_then(complete_date).unwrap_or(0),
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
}

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
/// no allocation, as every game's two names pass here.
pub fn name_hash(name: &str) -> u64 {
    let mut sum = 0u64;
    let mut word = TextHasher(0x243f_6a88_85a3_08d3);
    let mut in_word = false;
    for c in name.chars().chain(std::iter::once(' ')) {
        if c.is_alphanumeric() {
            for l in c.to_lowercase() {
                word.word(u64::from(u32::from(l)));
            }
            in_word = true;
        } else if in_word {
            word.word(u64::MAX);
            sum = sum.wrapping_add(word.0);
            word = TextHasher(0x243f_6a88_85a3_08d3);
            in_word = false;
        }
    }
    sum
}

/// A `Date` with year, month and day all known, as `yyyymmdd`.
fn complete_date(date: &str) -> Option<u32> {
    let mut parts = date.trim().split('.');
    let mut n = 0u32;
    for width in [4, 2, 2] {
        let part = parts.next()?;
        if part.len() != width || !part.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        n = n * 10u32.pow(width as u32) + part.parse::<u32>().ok()?;
    }
    (parts.next().is_none() && n > 0).then_some(n)
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
    let from = mv.from().map_or(0, u16::from);
    let to = u16::from(mv.to());
    let promotion = mv.promotion().map_or(0, |r| r as u16);
    let castle = u16::from(matches!(mv, shakmaty::Move::Castle { .. }));
    from | to << 6 | promotion << 12 | castle << 15
}

/// A 128-bit hash of a start position and the moves played from it, one move at a time: the
/// value after `p` moves is the hash of the game's first `p` plies, which is how prefixes
/// are found. Not cryptographic: a multiply-xorshift chain, two random 128-bit values
/// colliding with odds of about 2^-128 each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveHash(u128);

impl MoveHash {
    /// An odd constant (the first 128 bits of pi's fraction, made odd).
    const K: u128 = 0x243f_6a88_85a3_08d3_1319_8a2e_0370_7345;

    /// The hash of no moves from the position whose Zobrist hash is `start`.
    pub fn new(start: u128) -> MoveHash {
        MoveHash(Self::mix(start ^ Self::K))
    }

    fn mix(mut x: u128) -> u128 {
        x = x.wrapping_mul(Self::K);
        x ^= x >> 67;
        x = x.wrapping_mul(Self::K);
        x ^ (x >> 61)
    }

    /// One more move.
    pub fn push(&mut self, code: u16) {
        self.0 = Self::mix(self.0 ^ (u128::from(code) + 1));
    }

    pub fn value(self) -> [u64; 2] {
        [(self.0 >> 64) as u64, self.0 as u64]
    }
}

/// A 64-bit hash of a game's text as `identical` compares it: every line without its
/// trailing spaces, tabs and carriage return, the blank lines before the first and after the
/// last line left out, lines joined by `\n`. Eight bytes a step (a folded 64-by-64-bit
/// multiply, as wyhash has it): it reads every byte of every game, so it must cost little
/// beside the replay.
pub fn text_hash(bytes: &[u8]) -> u64 {
    let mut h = TextHasher(0x9e37_79b9_7f4a_7c15);
    let mut first = true;
    let mut blank_lines = 0u64;
    let mut start = 0;
    let ends = memchr::memchr_iter(b'\n', bytes).chain(std::iter::once(bytes.len()));
    for end in ends {
        let line = &bytes[start..end];
        start = end + 1;
        let len = line
            .iter()
            .rposition(|&b| !matches!(b, b' ' | b'\t' | b'\r'))
            .map_or(0, |i| i + 1);
        if len == 0 {
            blank_lines += 1;
            continue;
        }
        if !first {
            // The blank lines inside the game count; those at its ends do not.
            h.word(0x0a00 | blank_lines << 16);
        }
        blank_lines = 0;
        first = false;
        h.bytes(&line[..len]);
    }
    h.0
}

/// The state of [`text_hash`].
struct TextHasher(u64);

impl TextHasher {
    fn word(&mut self, w: u64) {
        let m = u128::from(self.0 ^ w) * u128::from(0xa076_1d64_78bd_642f_u64 ^ w.rotate_left(29));
        self.0 = (m as u64 ^ (m >> 64) as u64).wrapping_add(0xe703_7ed1_a0b4_28db);
    }

    fn bytes(&mut self, b: &[u8]) {
        let mut chunks = b.chunks_exact(8);
        for c in &mut chunks {
            self.word(u64::from_le_bytes(c.try_into().unwrap_or_default()));
        }
        let rest = chunks.remainder();
        let mut tail = [0u8; 8];
        tail[..rest.len()].copy_from_slice(rest);
        // The length tells `ab` from `ab\0`, and a line's end from the next line's start.
        self.word(u64::from_le_bytes(tail) ^ (b.len() as u64) << 59);
        self.word(b.len() as u64);
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

/// The hasher of the finder's maps, whose keys are already hashes: one folded multiply of
/// the key with seeds drawn at random once a run (SipHash, the default, was a tenth of
/// dedup's time, a lookup a ply). The random seeds keep input made to collide in the table's
/// bits from making the lookups quadratic.
#[derive(Clone, Copy, Debug)]
struct KeyHasher {
    seeds: [u64; 2],
    state: u64,
}

impl std::hash::Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(w));
        }
    }

    fn write_u64(&mut self, w: u64) {
        let m = u128::from(self.state ^ w ^ self.seeds[0]) * u128::from(self.seeds[1]);
        self.state = m as u64 ^ (m >> 64) as u64;
    }

    fn finish(&self) -> u64 {
        self.state
    }
}

/// Builds [`KeyHasher`]s with this run's seeds.
#[derive(Clone, Copy, Debug)]
struct Seeded([u64; 2]);

impl Default for Seeded {
    fn default() -> Seeded {
        use std::hash::BuildHasher;
        let random = std::collections::hash_map::RandomState::new();
        Seeded([random.hash_one(1u8), random.hash_one(2u8) | 1])
    }
}

impl std::hash::BuildHasher for Seeded {
    type Hasher = KeyHasher;

    fn build_hasher(&self) -> KeyHasher {
        KeyHasher {
            seeds: self.0,
            state: 0,
        }
    }
}

type KeyMap<K> = HashMap<K, u32, Seeded>;

/// Finds the duplicates among the games given in input order.
#[derive(Debug, Default)]
pub struct Finder {
    digests: Vec<Digest>,
    /// The first game of each start-and-moves hash (of games with moves).
    by_moves: KeyMap<[u64; 2]>,
    /// Each game's group: the first game with its moves (itself for the first).
    group: Vec<u32>,
    /// The first game of each start-and-moves hash and players ([`line_key`]): a prefix is
    /// looked for among the games of the same players only.
    by_line: KeyMap<[u64; 2]>,
    /// Each game's line: the first game with its moves and players.
    line: Vec<u32>,
    /// Per line (indexed by its first game): the longest game of the same players that has
    /// the line's moves as its first moves ([`NONE`]: none).
    longer: Vec<u32>,
}

/// The key of a game's moves and players together: the moves' hash is random enough that
/// mixing the players' into one half keeps keys apart (one step a ply: it is computed for
/// every ply of every game).
fn line_key(moves: [u64; 2], players: u64) -> [u64; 2] {
    [
        moves[0] ^ players.wrapping_mul(0x9e37_79b9_7f4a_7c15),
        moves[1],
    ]
}

impl Finder {
    pub fn new() -> Finder {
        Finder::default()
    }

    /// The bytes a game costs here, whatever its length: what `docs/dedup.md` says.
    pub const BYTES_PER_GAME: usize = std::mem::size_of::<Digest>()
        // Its group, its line, the longer game of its line, the kept game of its group (in
        // `decide`).
        + 4 * std::mem::size_of::<u32>()
        // Where it was read, for the report: an input's index and the game's number there.
        + 16
        // Two hash map entries (key and value) at most once a game, with the maps' spare
        // room (their load is at most 7/8) and control bytes.
        + 2 * (std::mem::size_of::<([u64; 2], u32)>() * 8 / 7 + 1)
        // What becomes of the game, and the longer game it may be a prefix of
        // ([`Finder::decide`]).
        + std::mem::size_of::<Option<Duplicate>>()
        + std::mem::size_of::<Option<u32>>();

    /// Games added so far.
    pub fn len(&self) -> usize {
        self.digests.len()
    }

    pub fn is_empty(&self) -> bool {
        self.digests.is_empty()
    }

    /// Adds the next game; returns its index. At most `u32::MAX - 1` games.
    pub fn add(&mut self, digest: Digest) -> u32 {
        let index = self.digests.len() as u32;
        let (group, line) = if digest.plies > 0 && !digest.unique {
            (
                *self.by_moves.entry(digest.moves).or_insert(index),
                *self
                    .by_line
                    .entry(line_key(digest.moves, digest.who.players))
                    .or_insert(index),
            )
        } else {
            (index, index)
        };
        self.digests.push(digest);
        self.group.push(group);
        self.line.push(line);
        self.longer.push(NONE);
        index
    }

    /// Tells the moves of game `index` (each game once, any order): every game of the same
    /// players whose moves are its first moves learns that a longer game holds them. `start`
    /// is the Zobrist hash of its start position, `moves` its [`move_code`]s. Time linear in
    /// the moves: one hash map lookup a ply.
    pub fn probe_prefixes(&mut self, index: u32, start: u128, moves: &[u16]) {
        let Some(d) = self.digests.get(index as usize).copied() else {
            return;
        };
        if d.unique || moves.len() < 2 {
            return;
        }
        let mut hash = MoveHash::new(start);
        // The moves before the last: a game of all of them is the game itself.
        for &code in &moves[..moves.len() - 1] {
            hash.push(code);
            let key = line_key(hash.value(), d.who.players);
            let Some(&line) = self.by_line.get(&key) else {
                continue;
            };
            if !d.who.agrees(&self.digests[line as usize].who) {
                continue;
            }
            let best = &mut self.longer[line as usize];
            let longer_than = |other: u32| d.plies > self.digests[other as usize].plies;
            if *best == NONE || longer_than(*best) {
                *best = index;
            }
        }
    }

    /// The longer game game `i` is the first moves of, if it is one: of the same players,
    /// event, round and date, and with no other result.
    fn prefix_of(&self, i: u32) -> Option<u32> {
        let d = &self.digests[i as usize];
        let longer = self.longer[self.line[i as usize] as usize];
        let l = self.digests.get(longer as usize)?;
        (d.who.agrees(&l.who) && !d.result.conflicts(l.result)).then_some(longer)
    }

    /// What becomes of every game, in input order: `None` for a game that is kept. `fuzzy`
    /// when the games' positions at a ply are to be compared too. A duplicate names a game
    /// that is kept.
    pub fn decide(&self, keep: Keep, fuzzy: bool) -> Vec<Option<Duplicate>> {
        let n = self.digests.len();
        let better = |a: u32, b: u32| match keep {
            Keep::First => false,
            Keep::Best => {
                self.digests[a as usize].completeness > self.digests[b as usize].completeness
            }
        };
        let with_moves = |i: u32| {
            let d = &self.digests[i as usize];
            d.plies > 0 && !d.unique
        };
        let mut prefix: Vec<Option<u32>> = (0..n as u32)
            .map(|i| with_moves(i).then(|| self.prefix_of(i)).flatten())
            .collect();
        // The longer game may be the prefix of a longer one still, of another round or
        // event than this game (round 4 stopped early, a prefix of round 4 ongoing, a prefix
        // of round 3 complete): the game is a prefix of the longest only if it agrees with
        // each. A chain longer than a few steps is not followed: the game is kept.
        for i in 0..n {
            let Some(mut longer) = prefix[i] else {
                continue;
            };
            let d = &self.digests[i];
            let mut steps = 0;
            while let Some(next) = prefix[longer as usize] {
                let l = &self.digests[next as usize];
                steps += 1;
                if steps > 8 || !d.who.agrees(&l.who) || d.result.conflicts(l.result) {
                    prefix[i] = None;
                    break;
                }
                longer = next;
            }
            if prefix[i].is_some() {
                prefix[i] = Some(longer);
            }
        }
        // The kept game of each group of the same moves (indexed by the group's first game),
        // among the games that are no prefix: [`NONE`] for a group of prefixes only.
        let mut kept: Vec<u32> = vec![NONE; n];
        for i in 0..n as u32 {
            let g = self.group[i as usize] as usize;
            if prefix[i as usize].is_none() && (kept[g] == NONE || better(i, kept[g])) {
                kept[g] = i;
            }
        }
        // A game with the same moves as the kept one but another result and other players
        // (or event, round, date) is another game: such games are compared among
        // themselves, by their moves and result.
        let other_game = |i: u32| {
            let (d, k) = (
                &self.digests[i as usize],
                kept[self.group[i as usize] as usize],
            );
            let kd = &self.digests[k as usize];
            k != i && kd.result.conflicts(d.result) && !kd.who.agrees(&d.who)
        };
        let mut others: HashMap<([u64; 2], u8), u32, Seeded> = HashMap::default();
        for i in 0..n as u32 {
            if with_moves(i) && prefix[i as usize].is_none() && other_game(i) {
                let d = &self.digests[i as usize];
                let k = others.entry((d.moves, d.result as u8)).or_insert(i);
                if better(i, *k) {
                    *k = i;
                }
            }
        }
        // Games without moves are compared by their text only.
        let mut by_text: KeyMap<u64> = KeyMap::default();
        let mut out = vec![None; n];
        for i in 0..n as u32 {
            let d = &self.digests[i as usize];
            if d.unique {
                continue;
            }
            if d.plies == 0 {
                let first = *by_text.entry(d.text).or_insert(i);
                if first != i {
                    out[i as usize] = Some(Duplicate {
                        of: first,
                        kind: Kind::Identical,
                    });
                }
                continue;
            }
            if let Some(longer) = prefix[i as usize] {
                let k = kept[self.group[longer as usize] as usize];
                out[i as usize] = Some(Duplicate {
                    of: if k == NONE { longer } else { k },
                    kind: Kind::Prefix,
                });
                continue;
            }
            let mut k = kept[self.group[i as usize] as usize];
            if other_game(i) {
                k = others[&(d.moves, d.result as u8)];
            }
            if k == i {
                continue;
            }
            let kd = &self.digests[k as usize];
            let kind = if kd.text == d.text {
                Kind::Identical
            } else if kd.result.conflicts(d.result) {
                Kind::ConflictingResult
            } else {
                Kind::SameMoves
            };
            out[i as usize] = Some(Duplicate { of: k, kind });
        }
        if fuzzy {
            self.same_positions(keep, &mut out);
        }
        // A duplicate of a duplicate (the longer game of a prefix dropped in turn) names the
        // game kept in the end. Each step goes to a longer game or to a kept one, so the
        // chains end.
        for i in 0..n {
            let Some(mut d) = out[i] else { continue };
            let mut steps = 0;
            while let Some(next) = out[d.of as usize] {
                if next.of == d.of || steps > n {
                    break;
                }
                d.of = next.of;
                steps += 1;
            }
            out[i] = Some(d);
        }
        out
    }

    /// Among the games still kept, those that reached the same position at the fuzzy ply:
    /// one is kept, as `keep` says.
    fn same_positions(&self, keep: Keep, out: &mut [Option<Duplicate>]) {
        let mut kept: KeyMap<u64> = KeyMap::default();
        for (i, d) in self.digests.iter().enumerate() {
            let (None, Some(position)) = (out[i], d.position) else {
                continue;
            };
            let k = kept.entry(position).or_insert(i as u32);
            if keep == Keep::Best && d.completeness > self.digests[*k as usize].completeness {
                *k = i as u32;
            }
        }
        for (i, d) in self.digests.iter().enumerate() {
            let (None, Some(position)) = (out[i], d.position) else {
                continue;
            };
            let k = kept[&position];
            if k != i as u32 {
                out[i] = Some(Duplicate {
                    of: k,
                    kind: Kind::SamePosition,
                });
            }
        }
    }
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

    fn run(games: &[(Digest, Vec<u16>)], keep: Keep) -> Vec<Option<Duplicate>> {
        let mut f = Finder::new();
        for (d, _) in games {
            f.add(*d);
        }
        for (i, (_, moves)) in games.iter().enumerate() {
            f.probe_prefixes(i as u32, 7, moves);
        }
        f.decide(keep, false)
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
                dup(0, Kind::SameMoves),
            ]
        );
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
        let mut f = Finder::new();
        for (d, _) in &games {
            f.add(*d);
        }
        for (i, (_, moves)) in games.iter().enumerate() {
            f.probe_prefixes(i as u32, 7, moves);
        }
        let got = f.decide(Keep::First, true);
        let dup = |of, kind| Some(Duplicate { of, kind });
        assert_eq!(
            got,
            vec![None, dup(0, Kind::SamePosition), dup(0, Kind::Prefix)]
        );
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

    #[test]
    fn bytes_per_game_is_what_the_docs_say() {
        let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/dedup.md"))
            .expect("docs/dedup.md");
        let said = format!("{} bytes a game", Finder::BYTES_PER_GAME);
        assert!(docs.contains(&said), "docs/dedup.md should say `{said}`");
    }
}
