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
    /// The game is never anyone's duplicate, nor has any: it has no bytes (it was too large
    /// to read).
    pub unique: bool,
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
/// last line left out, lines joined by `\n`.
pub fn text_hash(bytes: &[u8]) -> u64 {
    use std::hash::Hasher;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    let mut first = true;
    let mut blank_lines = 0usize;
    for line in bytes.split(|&b| b == b'\n') {
        let end = line
            .iter()
            .rposition(|&b| !matches!(b, b' ' | b'\t' | b'\r'))
            .map_or(0, |i| i + 1);
        let line = &line[..end];
        if line.is_empty() {
            blank_lines += 1;
            continue;
        }
        if !first {
            // The blank lines inside the game count; those at its ends do not.
            for _ in 0..=blank_lines {
                h.write_u8(b'\n');
            }
        }
        blank_lines = 0;
        first = false;
        h.write(line);
    }
    h.finish()
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

/// Finds the duplicates among the games given in input order.
#[derive(Debug, Default)]
pub struct Finder {
    digests: Vec<Digest>,
    /// The first game of each start-and-moves hash (of games with moves).
    by_moves: HashMap<[u64; 2], u32>,
    /// Each game's group: the first game with its moves (itself for the first).
    group: Vec<u32>,
    /// Per group (indexed by its first game): the longest game that has the group's moves as
    /// its first moves ([`NONE`]: none).
    longer: Vec<u32>,
}

impl Finder {
    pub fn new() -> Finder {
        Finder::default()
    }

    /// The bytes a game costs here, whatever its length: what `docs/dedup.md` says.
    pub const BYTES_PER_GAME: usize = std::mem::size_of::<Digest>()
        // Its group, the longer game of its group, the kept game of its group (in `decide`).
        + 3 * std::mem::size_of::<u32>()
        // Where it was read, for the report: an input's index and the game's number there.
        + 16
        // A hash map entry (key and value) at most once a game, with the map's spare room
        // (its load is at most 7/8) and control byte.
        + (std::mem::size_of::<([u64; 2], u32)>() * 8 / 7 + 1)
        // What becomes of the game ([`Finder::decide`]).
        + std::mem::size_of::<Option<Duplicate>>();

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
        let group = if digest.plies > 0 && !digest.unique {
            *self.by_moves.entry(digest.moves).or_insert(index)
        } else {
            index
        };
        self.digests.push(digest);
        self.group.push(group);
        self.longer.push(NONE);
        index
    }

    /// Tells the moves of game `index` (each game once, any order): every game whose moves
    /// are its first moves learns that a longer game holds them. `start` is the Zobrist hash
    /// of its start position, `moves` its [`move_code`]s. Time linear in the moves: one hash
    /// map lookup a ply.
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
            let Some(&group) = self.by_moves.get(&hash.value()) else {
                continue;
            };
            let best = &mut self.longer[group as usize];
            let longer_than = |other: u32| d.plies > self.digests[other as usize].plies;
            if *best == NONE || longer_than(*best) {
                *best = index;
            }
        }
    }

    /// What becomes of every game, in input order: `None` for a game that is kept. `fuzzy`
    /// when the games' positions at a ply are to be compared too.
    pub fn decide(&self, keep: Keep, fuzzy: bool) -> Vec<Option<Duplicate>> {
        let n = self.digests.len();
        let better = |a: u32, b: u32| match keep {
            Keep::First => false,
            Keep::Best => {
                self.digests[a as usize].completeness > self.digests[b as usize].completeness
            }
        };
        // The kept game of each group of the same moves (indexed by the group's first game).
        let mut kept: Vec<u32> = (0..n as u32).collect();
        for i in 0..n as u32 {
            let g = self.group[i as usize];
            if g != i && better(i, kept[g as usize]) {
                kept[g as usize] = i;
            }
        }
        // Games without moves are compared by their text only.
        let mut by_text: HashMap<u64, u32> = HashMap::new();
        let mut out = vec![None; n];
        for i in 0..n as u32 {
            let d = &self.digests[i as usize];
            if d.unique {
                continue;
            }
            let g = self.group[i as usize];
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
            let longer = self.longer[g as usize];
            // A short game that ended with another result than the long one is another game
            // (`1. Nf3 1-0`, lost on time, is no start of a game Black won).
            if longer != NONE && !d.result.conflicts(self.digests[longer as usize].result) {
                out[i as usize] = Some(Duplicate {
                    of: kept[self.group[longer as usize] as usize],
                    kind: Kind::Prefix,
                });
                continue;
            }
            let k = kept[g as usize];
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
        out
    }

    /// Among the games still kept, those that reached the same position at the fuzzy ply:
    /// one is kept, as `keep` says.
    fn same_positions(&self, keep: Keep, out: &mut [Option<Duplicate>]) {
        let mut kept: HashMap<u64, u32> = HashMap::new();
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
