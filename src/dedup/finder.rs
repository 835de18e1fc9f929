//! Which games are duplicates of which: the decision of `pgnkit dedup`, made by sorting
//! fixed-size records ([`crate::sort`]), so that it takes the same steps, and gives the same
//! answers, whether the games fit in the memory budget or are spilled to disk past it.
//!
//! Each step sorts records by a key and reads them back in order, so that the games it
//! compares meet: the games of one line (moves and players) meet the longer games that start
//! with its moves (the prefix probes), the games of the same moves meet to choose the kept
//! copy, the games of one position meet for `--fuzzy-ply`. What a step learns of a game is
//! joined back to it by sorting on the game's index. No step holds more than a game or a
//! group's first few in memory besides its sorts, and each is `n log n`.

use std::cmp::{Ordering, Reverse};
use std::io;
use std::path::Path;

use super::{
    conflicts, line_key, result_code, result_of_code, Digest, Duplicate, Identity, Keep, Kind,
    MoveHash, Recorded, NONE, SHORT_PLIES,
};
use crate::sort::{
    Field, Get, Peek, Put, Record, Records, Sorted, Sorter, Space, Tape, TapeReader,
};

/// Orders a record by a key that tells any two apart.
macro_rules! ord_by {
    ($t:ty, |$r:ident| $key:expr) => {
        impl PartialEq for $t {
            fn eq(&self, o: &Self) -> bool {
                self.cmp(o) == Ordering::Equal
            }
        }
        impl Eq for $t {}
        impl PartialOrd for $t {
            fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
                Some(self.cmp(o))
            }
        }
        impl Ord for $t {
            fn cmp(&self, o: &Self) -> Ordering {
                let key = |$r: &$t| $key;
                key(self).cmp(&key(o))
            }
        }
    };
}

/// Writes a record's `put`, `get` and `SIZE` from its fields, in the order declared, so
/// that no size is counted by hand: `record!(struct ...)` declares the struct too and makes
/// it a [`Record`]; `record!(impl Field for T { fields })` makes a struct declared elsewhere
/// a [`Field`] (a field missing from the list, or of another type, does not compile).
macro_rules! record {
    (
        $(#[$m:meta])*
        $v:vis struct $name:ident $(<const $g:ident: $gt:ty>)? {
            $($(#[$fm:meta])* $fv:vis $f:ident: $t:ty),* $(,)?
        }
    ) => {
        $(#[$m])*
        $v struct $name $(<const $g: $gt>)? {
            $($(#[$fm])* $fv $f: $t),*
        }
        impl $(<const $g: $gt>)? Record for $name $(<$g>)? {
            const SIZE: usize = 0 $(+ <$t as Field>::SIZE)*;
            fn put(&self, out: &mut Put<'_>) {
                $(Field::put(&self.$f, out);)*
            }
            fn get(bytes: &mut Get<'_>) -> Self {
                // A struct expression's fields are evaluated in the order written.
                $name { $($f: <$t as Field>::get(bytes)),* }
            }
        }
    };
    (impl Field for $name:ident { $($f:ident: $t:ty),* $(,)? }) => {
        impl Field for $name {
            const SIZE: usize = 0 $(+ <$t as Field>::SIZE)*;
            fn put(&self, out: &mut Put<'_>) {
                $(Field::put(&self.$f, out);)*
            }
            fn get(bytes: &mut Get<'_>) -> Self {
                $name { $($f: <$t as Field>::get(bytes)),* }
            }
        }
    };
}

impl Field for Recorded {
    const SIZE: usize = 1;
    fn put(&self, out: &mut Put<'_>) {
        result_code(*self).put(out);
    }
    fn get(bytes: &mut Get<'_>) -> Recorded {
        result_of_code(u8::get(bytes))
    }
}

impl Field for Kind {
    const SIZE: usize = 1;
    fn put(&self, out: &mut Put<'_>) {
        (*self as u8).put(out);
    }
    fn get(bytes: &mut Get<'_>) -> Kind {
        Kind::ALL[usize::from(u8::get(bytes)).min(Kind::ALL.len() - 1)]
    }
}

record!(impl Field for Identity {
    players: u64,
    event: u32,
    round: u32,
    date: u32,
    site: u32,
});

record!(impl Field for Digest {
    moves: [u64; 2],
    text: u64,
    position: Option<u64>,
    plies: u32,
    completeness: u32,
    result: Recorded,
    who: Identity,
    unique: bool,
});

record! {
    /// A game as added: its digest and where it was read. In input order.
    #[derive(Clone, Copy, Debug)]
    struct Game {
        idx: u32,
        d: Digest,
        file: u32,
        number: u64,
    }
}
ord_by!(Game, |r| r.idx);

impl Game {
    fn with_moves(&self) -> bool {
        self.d.plies > 0 && !self.d.unique
    }
}

record! {
    /// A game of a line ([`line_key`]: its moves and players).
    #[derive(Clone, Copy, Debug)]
    struct Line {
        key: [u64; 2],
        idx: u32,
        who: Identity,
        result: Recorded,
    }
}
ord_by!(Line, |r| (r.key, r.idx));

record! {
    /// The first moves of a longer game, and its players, as a line's key: the longest
    /// games first, then in input order.
    #[derive(Clone, Copy, Debug)]
    struct Probe {
        key: [u64; 2],
        plies: u32,
        idx: u32,
        who: Identity,
        result: Recorded,
    }
}
ord_by!(Probe, |r| (r.key, Reverse(r.plies), r.idx));

record! {
    /// A game with moves, by its players and length.
    #[derive(Clone, Copy, Debug)]
    struct Length {
        players: u64,
        plies: u32,
        idx: u32,
    }
}
ord_by!(Length, |r| (r.players, r.plies, r.idx));

record! {
    /// Game `idx` is probed at ply `plies`, where a shorter game of its players ends.
    #[derive(Clone, Copy, Debug)]
    struct Want {
        idx: u32,
        plies: u32,
    }
}
ord_by!(Want, |r| (r.idx, r.plies));

record! {
    /// Game `from` is the first moves of game `to`, who is `who` and recorded `result`.
    #[derive(Clone, Copy, Debug)]
    struct Node {
        from: u32,
        to: u32,
        who: Identity,
        result: Recorded,
    }
}
ord_by!(Node, |r| r.from);

record! {
    /// Game `origin` (who is `who`, recorded `result`), a prefix of game `at` after `steps`
    /// steps along the longer games.
    #[derive(Clone, Copy, Debug)]
    struct Walk {
        at: u32,
        origin: u32,
        who: Identity,
        result: Recorded,
        steps: u8,
    }
}
ord_by!(Walk, |r| (r.at, r.origin));

record! {
    /// Two indices: game `idx` and the game it is joined to (by `idx`).
    #[derive(Clone, Copy, Debug)]
    struct Pair {
        idx: u32,
        to: u32,
    }
}
ord_by!(Pair, |r| r.idx);

record! {
    /// A game in its group: of the same moves ([`Member::MOVES`], `key` the moves), of the
    /// same moves and players among games shorter than [`SHORT_PLIES`] ([`Member::SHORT`],
    /// `key` their [`line_key`]), or of the same text among games without moves
    /// ([`Member::NO_MOVES`]). In a group the games that are no prefix come first, the one to
    /// keep first of all (`rank`: 0, or the incompleteness for `--keep best`).
    #[derive(Clone, Copy, Debug)]
    struct Member {
        tag: u8,
        key: [u64; 2],
        /// The longer game it is a prefix of ([`NONE`]: none).
        prefix: u32,
        rank: u32,
        idx: u32,
        text: u64,
        result: Recorded,
        who: Identity,
        position: Option<u64>,
        completeness: u32,
    }
}
ord_by!(Member, |r| (r.tag, r.key, r.prefix != NONE, r.rank, r.idx));

impl Member {
    const MOVES: u8 = 0;
    const NO_MOVES: u8 = 1;
    const SHORT: u8 = 2;
}

/// Kept games of one group of short games (the same moves and players) that a game is
/// compared with, at most.
const SHORT_KEPT: usize = 8;

record! {
    /// A kept game that reached `position` at the fuzzy ply, the one to keep first.
    #[derive(Clone, Copy, Debug)]
    struct Pos {
        position: u64,
        rank: u32,
        idx: u32,
    }
}
ord_by!(Pos, |r| (r.position, r.rank, r.idx));

record! {
    /// Game `idx` is a duplicate of game `of`. Sorted by `idx`, or by `of` to follow it to
    /// the game kept in the end.
    #[derive(Clone, Copy, Debug)]
    struct Fate<const BY_OF: bool> {
        idx: u32,
        of: u32,
        kind: Kind,
    }
}

impl<const BY_OF: bool> PartialEq for Fate<BY_OF> {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl<const BY_OF: bool> Eq for Fate<BY_OF> {}
impl<const BY_OF: bool> PartialOrd for Fate<BY_OF> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<const BY_OF: bool> Ord for Fate<BY_OF> {
    fn cmp(&self, o: &Self) -> Ordering {
        if BY_OF {
            (self.of, self.idx).cmp(&(o.of, o.idx))
        } else {
            self.idx.cmp(&o.idx)
        }
    }
}

impl<const A: bool> Fate<A> {
    fn by<const B: bool>(self) -> Fate<B> {
        Fate {
            idx: self.idx,
            of: self.of,
            kind: self.kind,
        }
    }
}

record! {
    /// One row of the report: game `idx` (read at `file`, `number`) is a `kind` duplicate
    /// of the game read at `of_file`, `of_number`.
    #[derive(Clone, Copy, Debug)]
    pub struct Row {
        pub idx: u32,
        pub kind: Kind,
        pub file: u32,
        pub number: u64,
        pub of_file: u32,
        pub of_number: u64,
    }
}
ord_by!(Row, |r| r.idx);

/// A Bloom filter of the lines' keys: most plies of most games start no line, and the
/// filter says so without a record to sort. A false yes costs a probe record that meets no
/// line; the answers do not depend on it.
struct Bloom {
    bits: Vec<u64>,
    mask: u64,
}

impl Bloom {
    /// Room for `keys` keys at 16 bits each, within `bytes` (a power of two at most).
    fn new(keys: u64, bytes: usize) -> Bloom {
        // Bits: a power of two within the bytes given, and within reason whatever the budget.
        let room = (bytes as u64).saturating_mul(8).clamp(512, 1 << 40);
        let cap = 1u64 << (63 - room.leading_zeros());
        let want = keys
            .saturating_mul(16)
            .clamp(512, 1 << 40)
            .next_power_of_two();
        let bits = want.min(cap);
        Bloom {
            bits: vec![0; (bits / 64) as usize],
            mask: bits - 1,
        }
    }

    /// The key's bits: its halves are random already (they are hashes).
    fn each(&self, key: [u64; 2], mut f: impl FnMut(usize, u64) -> bool) -> bool {
        let step = key[0] | 1;
        (0..3u64).all(|i| {
            let bit = key[1].wrapping_add(i.wrapping_mul(step)) & self.mask;
            f((bit / 64) as usize, 1 << (bit % 64))
        })
    }

    fn insert(&mut self, key: [u64; 2]) {
        let mut bits = std::mem::take(&mut self.bits);
        self.each(key, |w, b| {
            bits[w] |= b;
            true
        });
        self.bits = bits;
    }

    fn maybe(&self, key: [u64; 2]) -> bool {
        self.each(key, |w, b| self.bits[w] & b != 0)
    }
}

/// Finds the duplicates among the games given in input order.
pub struct Finder<'s> {
    store: &'s Space,
    games: Sorter<'s, Game>,
    lines: Sorter<'s, Line>,
    lines_count: u64,
    /// Each game's start and move codes, for the prefix probes.
    moves: Tape<'s>,
    scratch: Vec<u8>,
    len: usize,
}

/// A chain of longer games longer than this is not followed: the game is kept.
const MAX_STEPS: u8 = 8;

/// Entries of the table of games probed last in [`prefixes`], at most: enough that the copies
/// of a file's games merged with others' (tens of thousands of games apart) still meet; a
/// few MiB, beside the budget's gigabyte.
const PROBED_SLOTS: usize = 1 << 16;

impl<'s> Finder<'s> {
    /// Bytes a game costs in memory while the games fit in the budget: its records in the
    /// sorts alive at once (its digest, its line, its group; what `docs/dedup.md` says).
    /// Past the budget a game costs nothing more in memory.
    pub const BYTES_PER_GAME: usize =
        std::mem::size_of::<Game>() + std::mem::size_of::<Line>() + std::mem::size_of::<Member>();

    /// Bytes a game costs in temporary files past the budget, besides its moves (2 bytes a
    /// ply): its records in the sorts on disk at once, at most.
    pub const DISK_BYTES_PER_GAME: usize = Game::SIZE + Line::SIZE + Member::SIZE + 2 * 9;

    /// The sorts alive at once, and the prefix filter beside them: each holds at most this
    /// share of the budget.
    pub const SHARES: usize = 8;

    /// The smallest budget that holds what the sorts need past it: each share the chunks of
    /// a merge of [`crate::sort::FAN_IN`] runs (and of its output) of 4 KiB and more, and a
    /// run of a thousand records and more. `pgnkit dedup` refuses a smaller one.
    pub const MIN_BUDGET: u64 = 1 << 20;

    /// Where the sorts of a budget of `budget` bytes go: runs to temporary files in `dir`
    /// (which must exist once one is written), a [`Finder::SHARES`]th of the budget each. At
    /// least [`Finder::MIN_BUDGET`] for the merges' chunks to fit in it (a smaller one, for
    /// tests, makes runs of a few records).
    pub fn space(dir: &Path, budget: usize) -> Space {
        Space::new(dir, budget / Self::SHARES)
    }

    pub fn new(store: &'s Space) -> Finder<'s> {
        Finder {
            store,
            games: Sorter::new(store),
            lines: Sorter::new(store),
            lines_count: 0,
            moves: Tape::new(store),
            scratch: Vec::new(),
            len: 0,
        }
    }

    /// Games added so far.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Adds the next game, read at `file` as its game `number`; `start` is the Zobrist hash of
    /// its start position, `moves` its [`super::move_code`]s up to the first error. At most
    /// `u32::MAX - 1` games.
    ///
    /// # Errors
    ///
    /// A temporary file that cannot be written.
    pub fn add(
        &mut self,
        d: Digest,
        file: u32,
        number: u64,
        start: u128,
        moves: &[u16],
    ) -> io::Result<u32> {
        let idx = self.len as u32;
        self.len += 1;
        let game = Game {
            idx,
            d,
            file,
            number,
        };
        if game.with_moves() {
            self.lines.push(Line {
                key: line_key(d.moves, d.who.players),
                idx,
                who: d.who,
                result: d.result,
            })?;
            self.lines_count += 1;
        }
        self.games.push(game)?;
        let b = &mut self.scratch;
        b.clear();
        b.extend_from_slice(&start.to_le_bytes());
        b.extend_from_slice(&(moves.len() as u32).to_le_bytes());
        let at = b.len();
        b.resize(at + 2 * moves.len(), 0);
        for (to, m) in b[at..].chunks_exact_mut(2).zip(moves) {
            to.copy_from_slice(&m.to_le_bytes());
        }
        self.moves.write(b)?;
        Ok(idx)
    }

    /// What becomes of every game: `keep` chooses the kept copy, `fuzzy` when the games'
    /// positions at a ply are compared too. A duplicate names a game that is kept.
    ///
    /// # Errors
    ///
    /// A temporary file that cannot be written or read back.
    pub fn decide(self, keep: Keep, fuzzy: bool) -> io::Result<Decision<'s>> {
        let store = self.store;
        let games = self.games.finish()?;
        let lines = self.lines.finish()?;
        let prefixes = prefixes(
            store,
            &games,
            &lines,
            self.lines_count,
            self.moves.finish()?,
        )?;
        drop(lines);
        let fates = fates(store, &games, prefixes, keep, fuzzy)?;
        Ok(Decision {
            fates: resolve(store, fates)?,
            games,
        })
    }
}

/// Which longer game each game is the first moves of (the final one along a chain), by game.
fn prefixes<'s>(
    store: &'s Space,
    games: &Sorted<'_, Game>,
    lines: &Sorted<'_, Line>,
    lines_count: u64,
    mut moves: TapeReader,
) -> io::Result<Sorted<'s, Pair>> {
    // The plies each game is probed at: those where a game of its players ends. Found by
    // sorting the games of each players by length: each game takes the lengths of the
    // shorter ones (at most one a ply it has), whatever the budget.
    let mut lengths = Sorter::new(store);
    let mut it = games.iter()?;
    while let Some(g) = it.next()? {
        if g.with_moves() {
            lengths.push(Length {
                players: g.d.who.players,
                plies: g.d.plies,
                idx: g.idx,
            })?;
        }
    }
    drop(it);
    let lengths = lengths.finish()?;
    let mut wants = Sorter::new(store);
    let mut it = lengths.iter()?;
    // The lengths of the players' games so far, shortest first, once each.
    let (mut players, mut shorter) = (None, Vec::new());
    while let Some(l) = it.next()? {
        if players != Some(l.players) {
            players = Some(l.players);
            shorter.clear();
        }
        for &plies in shorter.iter().filter(|&&p| p < l.plies) {
            wants.push(Want { idx: l.idx, plies })?;
        }
        if shorter.last() != Some(&l.plies) {
            shorter.push(l.plies);
        }
    }
    drop(it);
    drop(lengths);
    let wants = wants.finish()?;
    // Beside them, a filter of the lines' keys, in the share of the budget left to it: most
    // of those plies start no line of the same moves.
    let mut bloom = Bloom::new(lines_count, store.share());
    let mut it = lines.iter()?;
    while let Some(l) = it.next()? {
        bloom.insert(l.key);
    }
    drop(it);
    // The probes: the first moves of each game at those plies, that might be a line.
    let mut probes = Sorter::new(store);
    let mut want = Peek::new(wants.iter()?)?;
    let mut at = Vec::new();
    let mut it = games.iter()?;
    let (mut head, mut raw) = ([0u8; 20], Vec::new());
    // A game of the same moves, players and identity as one probed before gives the same
    // probes, behind the earlier game's in their order (the same plies, a later index): the
    // earlier is chosen wherever the later could be. So each such game is probed once, when
    // it is in this table of the games probed last. A file of merged feeds holds many. No
    // larger than the games need (a power of two, for the mask).
    let slots = usize::try_from(lines_count)
        .unwrap_or(usize::MAX)
        .clamp(16, PROBED_SLOTS)
        .next_power_of_two();
    let mut probed = vec![None; slots];
    while let Some(g) = it.next()? {
        if !moves.read(&mut head)? {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        let start = u128::from_le_bytes(head[..16].try_into().unwrap_or_default());
        let n = u32::from_le_bytes(head[16..].try_into().unwrap_or_default()) as usize;
        raw.resize(n * 2, 0);
        if n > 0 && !moves.read(&mut raw)? {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        at.clear();
        while let Some(w) = want.find(|r| r.idx < g.idx, |r| r.idx == g.idx)? {
            at.push(w.plies as usize);
            want.take()?;
        }
        // A game whose players played no shorter game (most games of most files) has no
        // line to be the start of, and its moves are not hashed again.
        if g.d.unique || at.is_empty() {
            continue;
        }
        let slot = &mut probed[(g.d.moves[1] as usize) & (slots - 1)];
        if *slot == Some((g.d.moves, g.d.who)) {
            continue;
        }
        *slot = Some((g.d.moves, g.d.who));
        let mut hash = MoveHash::new(start);
        let mut at = at.iter().copied().peekable();
        // Up to the last ply wanted: shorter than the game, as a game of all its moves is
        // the game itself.
        for (ply, c) in raw.chunks_exact(2).enumerate() {
            let Some(&next) = at.peek() else { break };
            hash.push(u16::from_le_bytes([c[0], c[1]]));
            if ply + 1 < next {
                continue;
            }
            at.next();
            let key = line_key(hash.value(), g.d.who.players);
            if bloom.maybe(key) {
                probes.push(Probe {
                    key,
                    plies: g.d.plies,
                    idx: g.idx,
                    who: g.d.who,
                    result: g.d.result,
                })?;
            }
        }
    }
    drop(it);
    drop(want);
    drop(wants);
    drop(bloom);
    let probes = probes.finish()?;
    // Each line meets its probes: the first that agrees with the line's first game is the
    // longest game that holds the line's moves; each game of the line that agrees with it,
    // with no other result, is its prefix.
    let (mut nodes, mut walks) = (Sorter::new(store), Sorter::new(store));
    let mut p = Peek::new(probes.iter()?)?;
    let mut l = Peek::new(lines.iter()?)?;
    while let Some(first) = l.take()? {
        let key = first.key;
        let mut longer = None;
        while let Some(probe) = p.find(|r| r.key < key, |r| r.key == key)? {
            p.take()?;
            if longer.is_none() && probe.who.agrees(&first.who) {
                longer = Some(probe);
            }
        }
        let mut member = Some(first);
        while let Some(m) = member {
            if let Some(j) =
                longer.filter(|j| m.who.agrees(&j.who) && !conflicts(m.result, j.result))
            {
                nodes.push(Node {
                    from: m.idx,
                    to: j.idx,
                    who: j.who,
                    result: j.result,
                })?;
                walks.push(Walk {
                    at: j.idx,
                    origin: m.idx,
                    who: m.who,
                    result: m.result,
                    steps: 0,
                })?;
            }
            member = l.find(|_| false, |r| r.key == key)?;
            if member.is_some() {
                l.take()?;
            }
        }
    }
    drop(probes);
    // The longer game may be the prefix of a longer one still, of another round or event
    // than this game (round 4 stopped early, a prefix of round 4 ongoing, a prefix of round 3
    // complete): the game is a prefix of the longest only if it agrees with each. A chain
    // longer than a few steps is not followed: the game is kept. One step a sort.
    let nodes = nodes.finish()?;
    let mut found = Sorter::new(store);
    let mut walks = walks.finish()?;
    loop {
        let mut next = Sorter::new(store);
        let mut any = false;
        let mut n = Peek::new(nodes.iter()?)?;
        let mut it = walks.iter()?;
        while let Some(w) = it.next()? {
            match n.find(|r| r.from < w.at, |r| r.from == w.at)? {
                None => found.push(Pair {
                    idx: w.origin,
                    to: w.at,
                })?,
                Some(node) => {
                    let steps = w.steps + 1;
                    if steps <= MAX_STEPS
                        && w.who.agrees(&node.who)
                        && !conflicts(w.result, node.result)
                    {
                        any = true;
                        next.push(Walk {
                            at: node.to,
                            steps,
                            ..w
                        })?;
                    }
                }
            }
        }
        drop(it);
        walks = next.finish()?;
        if !any {
            break;
        }
    }
    found.finish()
}

/// Each duplicate's fate, by game, before it is followed to the game kept in the end.
fn fates<'s>(
    store: &'s Space,
    games: &Sorted<'_, Game>,
    prefixes: Sorted<'_, Pair>,
    keep: Keep,
    fuzzy: bool,
) -> io::Result<Sorted<'s, Fate<false>>> {
    let rank = |completeness: u32| match keep {
        Keep::First => 0,
        Keep::Best => u32::MAX - completeness,
    };
    // Each game joins its group, with the longer game it is a prefix of.
    let mut members = Sorter::new(store);
    let mut p = Peek::new(prefixes.iter()?)?;
    let mut it = games.iter()?;
    while let Some(g) = it.next()? {
        let prefix = p.find(|r| r.idx < g.idx, |r| r.idx == g.idx)?;
        if g.d.unique {
            continue;
        }
        let d = &g.d;
        let moves = g.with_moves();
        let (tag, key) = if !moves {
            (Member::NO_MOVES, [d.text, 0])
        } else if d.plies < SHORT_PLIES {
            (Member::SHORT, line_key(d.moves, d.who.players))
        } else {
            (Member::MOVES, d.moves)
        };
        members.push(Member {
            tag,
            key,
            prefix: prefix.map_or(NONE, |p| p.to),
            // Games without moves keep the first, whatever `--keep` says.
            rank: if moves { rank(d.completeness) } else { 0 },
            idx: g.idx,
            text: d.text,
            result: d.result,
            who: d.who,
            position: d.position,
            completeness: d.completeness,
        })?;
    }
    drop(it);
    drop(p);
    drop(prefixes);
    let members = members.finish()?;
    let mut fates = Sorter::new(store);
    let mut positions = Sorter::new(store);
    let mut it = members.iter()?;
    // The kept game of the group, and the kept game of each result among the games of the
    // same moves but another result by other players (or event, round, date): those are
    // another game, compared among themselves.
    let mut group: Option<(u8, [u64; 2])> = None;
    let mut kept: Option<Member> = None;
    let mut others: [Option<Member>; 4] = [None; 4];
    // The kept games of a group of short games: each another game of the same players.
    let mut short: Vec<Member> = Vec::with_capacity(SHORT_KEPT);
    while let Some(m) = it.next()? {
        if group != Some((m.tag, m.key)) {
            group = Some((m.tag, m.key));
            kept = None;
            others = [None; 4];
            short.clear();
        }
        if m.prefix != NONE {
            fates.push(Fate {
                idx: m.idx,
                of: m.prefix,
                kind: Kind::Prefix,
            })?;
            continue;
        }
        // A game kept (so far): its position at the fuzzy ply is compared with the others'.
        let mut kept_here = |m: &Member| match m.position.filter(|_| fuzzy) {
            Some(position) => positions.push(Pos {
                position,
                rank: rank(m.completeness),
                idx: m.idx,
            }),
            None => Ok(()),
        };
        if m.tag == Member::SHORT {
            // Too few moves to say it is the same game: it is a copy of a kept game of its
            // players only if it agrees with it. Compared with the first few kept, so that a
            // pair of players' many short games cost no more than that a game; a game that
            // agrees with none of those is kept (a copy kept twice, rather than a game lost).
            let Some(&of) = short.iter().find(|k| k.who.same_game(&m.who)) else {
                if short.len() < SHORT_KEPT {
                    short.push(m);
                }
                kept_here(&m)?;
                continue;
            };
            fates.push(Fate {
                idx: m.idx,
                of: of.idx,
                kind: copy_kind(&of, &m),
            })?;
            continue;
        }
        let Some(k) = kept else {
            kept = Some(m);
            kept_here(&m)?;
            continue;
        };
        let of = if m.tag == Member::NO_MOVES {
            k
        } else if conflicts(k.result, m.result) && !k.who.agrees(&m.who) {
            match others[usize::from(result_code(m.result))] {
                Some(o) => o,
                None => {
                    others[usize::from(result_code(m.result))] = Some(m);
                    kept_here(&m)?;
                    continue;
                }
            }
        } else {
            k
        };
        fates.push(Fate {
            idx: m.idx,
            of: of.idx,
            kind: copy_kind(&of, &m),
        })?;
    }
    drop(it);
    drop(members);
    // Among the games still kept, those that reached the same position at the fuzzy ply:
    // the first of each position (as `--keep` ranks them) is kept.
    let positions = positions.finish()?;
    let mut it = positions.iter()?;
    let mut first: Option<Pos> = None;
    while let Some(p) = it.next()? {
        match first {
            Some(f) if f.position == p.position => fates.push(Fate {
                idx: p.idx,
                of: f.idx,
                kind: Kind::SamePosition,
            })?,
            _ => first = Some(p),
        }
    }
    fates.finish()
}

/// What game `m` is of game `of`, the kept copy of the same game.
fn copy_kind(of: &Member, m: &Member) -> Kind {
    if of.text == m.text {
        Kind::Identical
    } else if conflicts(of.result, m.result) {
        Kind::ConflictingResult
    } else {
        Kind::SameMoves
    }
}

/// A duplicate of a duplicate (the longer game of a prefix dropped in turn, a kept copy
/// that reached another's position) names the game kept in the end. Each step goes to a
/// longer game or to a kept one, so the chains end within three steps; one step a sort.
fn resolve<'s>(
    store: &'s Space,
    fates: Sorted<'s, Fate<false>>,
) -> io::Result<Sorted<'s, Fate<false>>> {
    let mut done = Sorter::new(store);
    let mut walks = Sorter::new(store);
    let mut it = fates.iter()?;
    while let Some(f) = it.next()? {
        walks.push(f.by::<true>())?;
    }
    drop(it);
    let mut walks = walks.finish()?;
    for round in 0.. {
        let mut next = Sorter::new(store);
        let mut any = false;
        let mut by_idx = Peek::new(fates.iter()?)?;
        let mut it = walks.iter()?;
        while let Some(w) = it.next()? {
            match by_idx.find(|r| r.idx < w.of, |r| r.idx == w.of)? {
                // A cycle cannot be made; should one be, the walk stops.
                Some(f) if f.of != w.of && round < 64 => {
                    any = true;
                    next.push(Fate { of: f.of, ..w })?;
                }
                _ => done.push(w.by::<false>())?,
            }
        }
        drop(it);
        walks = next.finish()?;
        if !any {
            break;
        }
    }
    done.finish()
}

/// What became of the games.
pub struct Decision<'s> {
    fates: Sorted<'s, Fate<false>>,
    games: Sorted<'s, Game>,
}

/// The duplicates of a [`Decision`], in input order.
pub struct Duplicates<'a>(Records<'a, Fate<false>>);

impl Duplicates<'_> {
    /// The next duplicate: the game's index and what it duplicates.
    ///
    /// # Errors
    ///
    /// A temporary file that cannot be read back.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> io::Result<Option<(u32, Duplicate)>> {
        Ok(self.0.next()?.map(|d| {
            (
                d.idx,
                Duplicate {
                    of: d.of,
                    kind: d.kind,
                },
            )
        }))
    }
}

impl Decision<'_> {
    /// The duplicates, in input order.
    ///
    /// # Errors
    ///
    /// A temporary file that cannot be read back.
    pub fn duplicates(&self) -> io::Result<Duplicates<'_>> {
        Ok(Duplicates(self.fates.iter()?))
    }

    /// Each duplicate, in input order: the game's index and what it duplicates.
    ///
    /// # Errors
    ///
    /// A temporary file that cannot be read back.
    pub fn each(&self, mut f: impl FnMut(u32, Duplicate) -> io::Result<()>) -> io::Result<()> {
        let mut it = self.duplicates()?;
        while let Some((idx, d)) = it.next()? {
            f(idx, d)?;
        }
        Ok(())
    }

    /// The rows of the report, in input order, with where each game and the game it
    /// duplicates were read.
    ///
    /// # Errors
    ///
    /// A temporary file that cannot be written or read back.
    pub fn rows(&self, store: &Space, mut f: impl FnMut(Row) -> io::Result<()>) -> io::Result<()> {
        // Where each game's kept copy was read: by the kept copy, then back by game.
        let mut by_of = Sorter::new(store);
        self.each(|idx, d| {
            by_of.push(Fate::<true> {
                idx,
                of: d.of,
                kind: d.kind,
            })
        })?;
        let by_of = by_of.finish()?;
        let mut half = Sorter::new(store);
        let mut g = Peek::new(self.games.iter()?)?;
        let mut it = by_of.iter()?;
        while let Some(d) = it.next()? {
            if let Some(of) = g.find(|r| r.idx < d.of, |r| r.idx == d.of)? {
                half.push(Row {
                    idx: d.idx,
                    kind: d.kind,
                    file: 0,
                    number: 0,
                    of_file: of.file,
                    of_number: of.number,
                })?;
            }
        }
        drop(it);
        drop(by_of);
        drop(g);
        let half = half.finish()?;
        let mut g = Peek::new(self.games.iter()?)?;
        let mut it = half.iter()?;
        while let Some(r) = it.next()? {
            if let Some(me) = g.find(|x| x.idx < r.idx, |x| x.idx == r.idx)? {
                f(Row {
                    file: me.file,
                    number: me.number,
                    ..r
                })?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes `r`, checks that it took `SIZE` bytes, reads it back and checks that every
    /// field came back (by `Debug`: the records' `Eq` compares their sort keys only).
    fn round_trip<R: Record + std::fmt::Debug>(r: R) {
        let mut bytes = Vec::new();
        r.put(&mut Put::new(&mut bytes));
        assert_eq!(bytes.len(), R::SIZE, "{r:?}");
        let back = R::get(&mut Get::new(&bytes));
        assert_eq!(format!("{back:?}"), format!("{r:?}"));
    }

    #[test]
    fn the_merges_fit_in_a_share_from_the_least_budget_on() {
        let dir = Path::new("/nonexistent");
        let least = usize::try_from(Finder::MIN_BUDGET).unwrap();
        for budget in [least, least + 1, 3 << 20, 64 << 20, 1 << 30, 1 << 40] {
            let s = Finder::space(dir, budget);
            // The chunks of a merge of FAN_IN runs and its output, of at least 4 KiB.
            assert!(s.share() >= 17 * 4096, "{budget}");
            // A run holds a thousand records of the largest (about a hundred bytes).
            assert!(s.share() / 128 >= 1000, "{budget}");
        }
    }

    #[test]
    fn every_record_reads_back_what_was_written_in_its_size() {
        // Every field different from its neighbours' and from zero, so that a field written
        // in another order or width than it is read shows.
        let who = Identity {
            players: 0x0102_0304_0506_0708,
            event: 0x1112_1314,
            round: 0x2122_2324,
            date: 20_240_501,
            site: 0x4142_4344,
        };
        for (position, unique, result, kind) in [
            (
                Some(0x3132_3334_3536_3738),
                false,
                Recorded::Draw,
                Kind::SamePosition,
            ),
            (None, true, Recorded::BlackWins, Kind::ConflictingResult),
        ] {
            let d = Digest {
                moves: [0x4142_4344_4546_4748, 0x5152_5354_5556_5758],
                text: 0x6162_6364_6566_6768,
                position,
                plies: 71,
                completeness: 0x8000_0123,
                result,
                who,
                unique,
            };
            let key = [0x7172_7374_7576_7778, 0x8182_8384_8586_8788];
            round_trip(Game {
                idx: 5,
                d,
                file: 6,
                number: 1 << 40,
            });
            round_trip(Line {
                key,
                idx: 9,
                who,
                result,
            });
            round_trip(Probe {
                key,
                plies: 12,
                idx: 13,
                who,
                result,
            });
            round_trip(Node {
                from: 3,
                to: 4,
                who,
                result,
            });
            round_trip(Walk {
                at: 3,
                origin: 4,
                who,
                result,
                steps: 7,
            });
            round_trip(Pair { idx: 3, to: 4 });
            round_trip(Member {
                tag: 1,
                key,
                prefix: NONE,
                rank: 17,
                idx: 18,
                text: 19,
                result,
                who,
                position,
                completeness: 20,
            });
            round_trip(Pos {
                position: 21,
                rank: 22,
                idx: 23,
            });
            round_trip(Fate::<false> {
                idx: 24,
                of: 25,
                kind,
            });
            round_trip(Fate::<true> {
                idx: 26,
                of: 27,
                kind,
            });
            round_trip(Row {
                idx: 28,
                kind,
                file: 29,
                number: 1 << 33,
                of_file: 30,
                of_number: 1 << 34,
            });
        }
    }
}
