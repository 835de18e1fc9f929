//! The event log: every finished game as standings need it, replayed event by event so that
//! one event's tables are built at a time.
//!
//! A database may hold millions of events (lichess gives every game its own `Site`), and one
//! event may hold millions of games (an online arena), so neither the events nor their sums
//! can all stay in memory. Games are collected in a run with their event's `Event` and `Site`
//! kept once in a table of the run; when the run's bytes reach the budget, it is sorted by
//! event ([`EventKey`] order: `Event`, `Site`, year) and, within an event, by the pair of
//! players, and handed to a [`RunStore`] with each event's strings written once. Runs of one
//! size are merged by [`FAN_IN`] as they pile up, as the rating log's are
//! ([`chrono`](super::chrono)). A replay merges the runs and the run in memory: games come
//! out event by event and, within an event, pair by pair, which is what
//! [`EventBuilder`](super::standings::EventBuilder) needs to build a table from sums bounded
//! by the event's players. Memory is bounded by the budget, not by the games or the events.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;
use std::io;

use super::chrono::{MemoryStore, RunStore, FAN_IN};
use super::standings::{EventBuilder, EventGame, EventTable};
use super::{EventKey, NameId, Names, PlayerId, Score};

/// Bytes of games (and their events' strings) a log keeps in memory before it sorts them and
/// hands them to its store: 8 MiB, about 200,000 games of one event or 60,000 games each
/// with its own `Site`.
pub const DEFAULT_BUDGET: usize = 8 << 20;

/// Bytes a log writes to its store at once, and reads from one run at once.
const CHUNK_BYTES: usize = 64 * 1024;

/// A team id that names no team.
const NO_TEAM: u32 = u32::MAX;

/// What a new name costs a run's table besides its bytes: it is kept twice (list and index)
/// with their allocations and a slot.
const NAME_OVERHEAD: usize = 64;

/// A game without its event, as records keep it: ids as integers, 0 for an untagged Elo.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Packed {
    white: u32,
    black: u32,
    white_team: u32,
    black_team: u32,
    white_elo: u32,
    black_elo: u32,
    score: Score,
}

/// The bytes of a [`Packed`] in a store.
const PACKED_BYTES: usize = 25;

impl Packed {
    fn new(game: &EventGame) -> Packed {
        let team = |t: Option<NameId>| t.map_or(NO_TEAM, NameId::raw);
        Packed {
            white: game.white.0,
            black: game.black.0,
            white_team: team(game.white_team),
            black_team: team(game.black_team),
            white_elo: game.white_elo.unwrap_or(0),
            black_elo: game.black_elo.unwrap_or(0),
            score: game.score,
        }
    }

    fn game(&self) -> EventGame {
        let team = |t: u32| {
            (t != NO_TEAM)
                .then(|| NameId::from_index(t as usize))
                .flatten()
        };
        EventGame {
            white: PlayerId(self.white),
            black: PlayerId(self.black),
            white_team: team(self.white_team),
            black_team: team(self.black_team),
            score: self.score,
            white_elo: (self.white_elo > 0).then_some(self.white_elo),
            black_elo: (self.black_elo > 0).then_some(self.black_elo),
        }
    }

    /// The pair of players, lower id first: games of one pair come out together.
    fn pair(&self) -> (u32, u32) {
        (self.white.min(self.black), self.white.max(self.black))
    }

    fn encode(&self, out: &mut Vec<u8>) {
        for n in [
            self.white,
            self.black,
            self.white_team,
            self.black_team,
            self.white_elo,
            self.black_elo,
        ] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        out.push(self.score.white_half_points() as u8);
    }

    /// Reads a record back, checking that its ids name players and teams of a table of
    /// `names` names.
    fn decode(bytes: &[u8], names: usize) -> io::Result<Packed> {
        let u32_at = |i: usize| {
            let at = 4 * i;
            u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap_or_default())
        };
        let player = |n: u32| n == PlayerId::UNKNOWN.0 || (n as usize) < names;
        let team = |n: u32| n == NO_TEAM || (n as usize) < names;
        let score = match bytes[24] {
            2 => Score::WhiteWin,
            1 => Score::Draw,
            0 => Score::BlackWin,
            _ => return Err(damaged()),
        };
        let packed = Packed {
            white: u32_at(0),
            black: u32_at(1),
            white_team: u32_at(2),
            black_team: u32_at(3),
            white_elo: u32_at(4),
            black_elo: u32_at(5),
            score,
        };
        let fits = player(packed.white)
            && player(packed.black)
            && team(packed.white_team)
            && team(packed.black_team);
        if fits {
            Ok(packed)
        } else {
            Err(damaged())
        }
    }
}

fn damaged() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, "damaged event run")
}

/// A game in memory: its event as ids of the run's table, and the game.
#[derive(Debug, Clone, Copy)]
struct Pending {
    event: NameId,
    site: NameId,
    year: Option<u16>,
    game: Packed,
}

/// A sorted run in the store.
#[derive(Debug, Clone, Copy)]
struct Run {
    offset: u64,
    bytes: u64,
    len: u64,
    /// 0 for a run sorted in memory, n + 1 for one merged from runs of level n.
    level: u32,
}

/// A finished game spelled out, its event and names as text: how an event log leaves its
/// accumulator (ids mean nothing outside their table) and comes back into another.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EventEntry<'a> {
    /// The `Event` tag.
    #[serde(borrow)]
    pub event: Cow<'a, str>,
    /// The `Site` tag.
    #[serde(borrow)]
    pub site: Cow<'a, str>,
    /// The year of the `Date` tag.
    pub year: Option<u16>,
    /// White as written; `?` for the unknown bucket.
    #[serde(borrow)]
    pub white: Cow<'a, str>,
    /// Black.
    #[serde(borrow)]
    pub black: Cow<'a, str>,
    /// White's team, if tagged.
    pub white_team: Option<String>,
    /// Black's team.
    pub black_team: Option<String>,
    /// The result.
    pub score: Score,
    /// The `WhiteElo` tag, if positive.
    pub white_elo: Option<u32>,
    /// The `BlackElo` tag.
    pub black_elo: Option<u32>,
}

/// The finished games of every event, for the standings tables (see the [module docs](self)).
pub struct EventLog {
    /// `Event` and `Site` values of the games in memory.
    local: Names,
    local_bytes: usize,
    pending: Vec<Pending>,
    pending_sorted: bool,
    runs: Vec<Run>,
    store: Box<dyn RunStore>,
    stored: u64,
    /// Where an event's pairs go while its table is built, when they exceed the budget.
    scratch: Box<dyn RunStore>,
    budget: usize,
    len: u64,
    /// The number of events, known after a replay and until the next game.
    events: Option<u64>,
}

impl fmt::Debug for EventLog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventLog")
            .field("len", &self.len)
            .field("in_memory", &self.pending.len())
            .field("runs", &self.runs.len())
            .field("stored_bytes", &self.stored)
            .finish()
    }
}

impl Default for EventLog {
    fn default() -> EventLog {
        EventLog::with_stores(
            Box::new(MemoryStore::default()),
            Box::new(MemoryStore::default()),
            DEFAULT_BUDGET,
        )
    }
}

impl EventLog {
    /// An empty log that hands a sorted run to `store` whenever its games take `budget`
    /// bytes, and gives the pairs of an event that take more than `budget` bytes to
    /// `scratch` while the event's table is built.
    pub fn with_stores(
        store: Box<dyn RunStore>,
        scratch: Box<dyn RunStore>,
        budget: usize,
    ) -> EventLog {
        EventLog {
            local: Names::new(),
            local_bytes: 0,
            pending: Vec::new(),
            pending_sorted: true,
            runs: Vec::new(),
            store,
            stored: 0,
            scratch,
            budget: budget.max(1),
            len: 0,
            events: None,
        }
    }

    /// The number of games.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the log has no games.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes the games in memory take, as the budget counts them.
    fn memory(&self) -> usize {
        self.pending.len() * std::mem::size_of::<Pending>() + self.local_bytes
    }

    fn local_name(&mut self, name: &str) -> NameId {
        let before = self.local.len();
        let id = self.local.intern(name);
        if self.local.len() > before {
            self.local_bytes += 2 * name.len() + NAME_OVERHEAD;
        }
        id
    }

    /// Adds one game of the event `key`.
    ///
    /// # Errors
    ///
    /// When the budget is reached and the store cannot take the run.
    pub(crate) fn push(&mut self, key: EventKey<'_>, game: &EventGame) -> io::Result<()> {
        self.push_packed(key, Packed::new(game))
    }

    fn push_packed(&mut self, key: EventKey<'_>, game: Packed) -> io::Result<()> {
        let event = self.local_name(key.event);
        let site = self.local_name(key.site);
        self.pending.push(Pending {
            event,
            site,
            year: key.year,
            game,
        });
        self.pending_sorted = false;
        self.len += 1;
        self.events = None;
        if self.memory() >= self.budget {
            self.seal()?;
        }
        Ok(())
    }

    /// Sorts the games in memory by event, then pair: the rank of every name of the run's
    /// table in string order stands for the name, so the sort compares integers.
    fn sort_pending(&mut self) {
        if self.pending_sorted {
            return;
        }
        let local = &self.local;
        let mut ids: Vec<NameId> = (0..local.len()).filter_map(NameId::from_index).collect();
        ids.sort_unstable_by(|a, b| local.get(*a).cmp(local.get(*b)));
        let mut rank = vec![0u32; ids.len()];
        for (r, id) in ids.iter().enumerate() {
            rank[id.index()] = r as u32;
        }
        self.pending.sort_unstable_by_key(|p| {
            (
                rank[p.event.index()],
                rank[p.site.index()],
                p.year,
                p.game.pair(),
            )
        });
        self.pending_sorted = true;
    }

    /// Sorts the games in memory into a run in the store, then merges runs that piled up.
    fn seal(&mut self) -> io::Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        self.sort_pending();
        let mut out = RunWriter::new(self.stored);
        for p in &self.pending {
            let key = EventKey {
                event: self.local.get(p.event),
                site: self.local.get(p.site),
                year: p.year,
            };
            out.push(&mut *self.store, key, &p.game)?;
        }
        let run = out.finish(&mut *self.store, 0)?;
        self.stored = run.offset + run.bytes;
        self.runs.push(run);
        self.pending.clear();
        self.local = Names::new();
        self.local_bytes = 0;
        self.pending_sorted = true;
        self.cascade()
    }

    /// While the last [`FAN_IN`] runs are of one level, merges them into one run of the next.
    fn cascade(&mut self) -> io::Result<()> {
        loop {
            let Some(last) = self.runs.last().map(|r| r.level) else {
                return Ok(());
            };
            let same = self
                .runs
                .iter()
                .rev()
                .take_while(|r| r.level == last)
                .count();
            if same < FAN_IN {
                return Ok(());
            }
            let first = self.runs.len() - FAN_IN;
            let sources = self.runs[first..]
                .iter()
                .map(|run| Source::Run(RunReader::new(run)))
                .collect();
            // Ids are checked when runs are replayed; here they are copied as they are.
            let mut merge = Merge::new(sources, &*self.store, usize::MAX)?;
            let mut out = RunWriter::new(self.stored);
            while let Some((key, game)) = merge.peek() {
                out.push(&mut *self.store, key, game)?;
                merge.advance(&*self.store, usize::MAX)?;
            }
            let run = out.finish(&mut *self.store, last + 1)?;
            self.stored = run.offset + run.bytes;
            self.runs.truncate(first);
            self.runs.push(run);
        }
    }

    /// Calls `f` with every game, event by event in [`EventKey`] order and, within an event,
    /// pair by pair; `names` is the number of names player and team ids may refer to.
    ///
    /// # Errors
    ///
    /// Errors of the store (a damaged run included), and the first error of `f`, which ends
    /// the replay.
    pub(crate) fn replay(
        &mut self,
        names: usize,
        mut f: impl FnMut(EventKey<'_>, &EventGame) -> io::Result<()>,
    ) -> io::Result<()> {
        self.sort_pending();
        replay_sorted(
            &self.local,
            &self.pending,
            &self.runs,
            &*self.store,
            names,
            |key, game| f(key, &game.game()),
        )
    }

    /// Builds every event's tables, one event at a time, and calls `f` with each, in
    /// [`EventKey`] order; returns the number of events. Names come from `names`.
    ///
    /// # Errors
    ///
    /// Errors of the stores, and the first error of `f`.
    pub(crate) fn tables(
        &mut self,
        names: &Names,
        mut f: impl FnMut(&EventTable<'_>) -> io::Result<()>,
    ) -> io::Result<u64> {
        self.sort_pending();
        let EventLog {
            local,
            pending,
            runs,
            store,
            scratch,
            budget,
            ..
        } = self;
        let mut builder = EventBuilder::new(names, &mut **scratch, *budget);
        let mut count = 0u64;
        replay_sorted(local, pending, runs, &**store, names.len(), |key, game| {
            if !builder.is_for(key) {
                if count > 0 {
                    f(&builder.finish()?)?;
                }
                builder.start(key);
                count += 1;
            }
            builder.add(&game.game())
        })?;
        if count > 0 {
            f(&builder.finish()?)?;
        }
        self.events = Some(count);
        Ok(count)
    }

    /// The number of events; a replay when no replay since the last game counted them.
    ///
    /// # Errors
    ///
    /// Errors of the store.
    pub(crate) fn event_count(&mut self, names: usize) -> io::Result<u64> {
        if let Some(n) = self.events {
            return Ok(n);
        }
        let mut count = 0u64;
        let mut last: Option<(String, String, Option<u16>)> = None;
        self.replay(names, |key, _| {
            let same = last.as_ref().is_some_and(|(e, s, y)| {
                (e.as_str(), s.as_str(), *y) == (key.event, key.site, key.year)
            });
            if !same {
                count += 1;
                last = Some((key.event.to_owned(), key.site.to_owned(), key.year));
            }
            Ok(())
        })?;
        self.events = Some(count);
        Ok(count)
    }

    /// Takes in every game of `other`, whose player and team ids `names` maps onto the ones
    /// this log uses (see [`Names::absorb`]: one entry for each name of `other`'s table).
    ///
    /// # Errors
    ///
    /// Errors of either store.
    pub(crate) fn absorb(&mut self, mut other: EventLog, names: &[NameId]) -> io::Result<()> {
        // The replay checks that ids read back from runs are below `names.len()`; games in
        // memory hold ids of `other`'s own table.
        let player = |p: u32| {
            if p == PlayerId::UNKNOWN.0 {
                p
            } else {
                names[p as usize].raw()
            }
        };
        let team = |t: u32| {
            if t == NO_TEAM {
                t
            } else {
                names[t as usize].raw()
            }
        };
        other.sort_pending();
        replay_sorted(
            &other.local,
            &other.pending,
            &other.runs,
            &*other.store,
            names.len(),
            |key, game| {
                let game = Packed {
                    white: player(game.white),
                    black: player(game.black),
                    white_team: team(game.white_team),
                    black_team: team(game.black_team),
                    ..*game
                };
                self.push_packed(key, game)
            },
        )
    }
}

/// Replays sorted runs and sorted games in memory, merged (see [`EventLog::replay`]).
fn replay_sorted(
    local: &Names,
    pending: &[Pending],
    runs: &[Run],
    store: &dyn RunStore,
    names: usize,
    mut f: impl FnMut(EventKey<'_>, &Packed) -> io::Result<()>,
) -> io::Result<()> {
    if runs.is_empty() {
        return pending.iter().try_for_each(|p| {
            let key = EventKey {
                event: local.get(p.event),
                site: local.get(p.site),
                year: p.year,
            };
            f(key, &p.game)
        });
    }
    let mut sources: Vec<Source<'_>> = runs
        .iter()
        .map(|run| Source::Run(RunReader::new(run)))
        .collect();
    sources.push(Source::Memory {
        local,
        games: pending.iter(),
        head: None,
    });
    let mut merge = Merge::new(sources, store, names)?;
    while let Some((key, game)) = merge.peek() {
        f(key, game)?;
        merge.advance(store, names)?;
    }
    Ok(())
}

/// Writes one sorted run: each record is a flag byte (1 when an event's strings follow, 0
/// for the same event as the record before), the event when it changes (`Event` and `Site`
/// as a length and UTF-8 bytes, the year as 0 or year + 1), then the game.
struct RunWriter {
    offset: u64,
    bytes: u64,
    len: u64,
    chunk: Vec<u8>,
    event: String,
    site: String,
    year: Option<u16>,
}

impl RunWriter {
    fn new(offset: u64) -> RunWriter {
        RunWriter {
            offset,
            bytes: 0,
            len: 0,
            chunk: Vec::with_capacity(CHUNK_BYTES),
            event: String::new(),
            site: String::new(),
            year: None,
        }
    }

    fn push(
        &mut self,
        store: &mut dyn RunStore,
        key: EventKey<'_>,
        game: &Packed,
    ) -> io::Result<()> {
        let same = self.len > 0
            && key.event == self.event
            && key.site == self.site
            && key.year == self.year;
        if same {
            self.chunk.push(0);
        } else {
            self.chunk.push(1);
            for text in [key.event, key.site] {
                let len = u32::try_from(text.len())
                    .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "tag too long"))?;
                self.chunk.extend_from_slice(&len.to_le_bytes());
                self.chunk.extend_from_slice(text.as_bytes());
            }
            let year = key.year.map_or(0, |y| u32::from(y) + 1);
            self.chunk.extend_from_slice(&year.to_le_bytes());
            self.event.clear();
            self.event.push_str(key.event);
            self.site.clear();
            self.site.push_str(key.site);
            self.year = key.year;
        }
        game.encode(&mut self.chunk);
        self.len += 1;
        if self.chunk.len() >= CHUNK_BYTES {
            self.flush(store)?;
        }
        Ok(())
    }

    fn flush(&mut self, store: &mut dyn RunStore) -> io::Result<()> {
        if !self.chunk.is_empty() {
            store.append(&self.chunk)?;
            self.bytes += self.chunk.len() as u64;
            self.chunk.clear();
        }
        Ok(())
    }

    fn finish(mut self, store: &mut dyn RunStore, level: u32) -> io::Result<Run> {
        self.flush(store)?;
        Ok(Run {
            offset: self.offset,
            bytes: self.bytes,
            len: self.len,
            level,
        })
    }
}

/// Reads one run back, a chunk at a time, keeping the event of its current record.
struct RunReader {
    next: u64,
    end: u64,
    left: u64,
    buf: Vec<u8>,
    at: usize,
    event: String,
    site: String,
    year: Option<u16>,
    head: Option<Packed>,
}

impl RunReader {
    fn new(run: &Run) -> RunReader {
        RunReader {
            next: run.offset,
            end: run.offset + run.bytes,
            left: run.len,
            buf: Vec::new(),
            at: 0,
            event: String::new(),
            site: String::new(),
            year: None,
            head: None,
        }
    }

    /// Makes `n` bytes from `at` on available in `buf`.
    fn fill(&mut self, store: &dyn RunStore, n: usize) -> io::Result<()> {
        let have = self.buf.len() - self.at;
        if have >= n {
            return Ok(());
        }
        self.buf.drain(..self.at);
        self.at = 0;
        let want = (n - have).max(CHUNK_BYTES) as u64;
        let take = want.min(self.end - self.next) as usize;
        if take < n - have {
            return Err(damaged());
        }
        let start = self.buf.len();
        self.buf.resize(start + take, 0);
        store.read_at(self.next, &mut self.buf[start..])?;
        self.next += take as u64;
        Ok(())
    }

    fn u32(&mut self, store: &dyn RunStore) -> io::Result<u32> {
        self.fill(store, 4)?;
        let bytes = self.buf[self.at..self.at + 4]
            .try_into()
            .map_err(|_| damaged())?;
        self.at += 4;
        Ok(u32::from_le_bytes(bytes))
    }

    /// Reads a length and that many bytes of UTF-8 into `which` (0: event, 1: site).
    fn text(&mut self, store: &dyn RunStore, which: usize) -> io::Result<()> {
        let len = self.u32(store)? as usize;
        self.fill(store, len)?;
        let text = std::str::from_utf8(&self.buf[self.at..self.at + len]).map_err(|_| damaged())?;
        let into = if which == 0 {
            &mut self.event
        } else {
            &mut self.site
        };
        into.clear();
        into.push_str(text);
        self.at += len;
        Ok(())
    }

    /// Moves to the next record; `false` at the end of the run.
    fn advance(&mut self, store: &dyn RunStore, names: usize) -> io::Result<bool> {
        if self.left == 0 {
            self.head = None;
            return Ok(false);
        }
        self.left -= 1;
        self.fill(store, 1)?;
        let flag = self.buf[self.at];
        self.at += 1;
        match flag {
            0 if self.head.is_some() => {}
            1 => {
                self.text(store, 0)?;
                self.text(store, 1)?;
                let year = self.u32(store)?;
                self.year = match year {
                    0 => None,
                    y => Some(u16::try_from(y - 1).map_err(|_| damaged())?),
                };
            }
            _ => return Err(damaged()),
        }
        self.fill(store, PACKED_BYTES)?;
        let game = Packed::decode(&self.buf[self.at..self.at + PACKED_BYTES], names)?;
        self.at += PACKED_BYTES;
        self.head = Some(game);
        Ok(true)
    }
}

/// Where a merge takes games from: a run in the store, or the sorted games in memory.
enum Source<'a> {
    Run(RunReader),
    Memory {
        local: &'a Names,
        games: std::slice::Iter<'a, Pending>,
        head: Option<&'a Pending>,
    },
}

impl Source<'_> {
    fn advance(&mut self, store: &dyn RunStore, names: usize) -> io::Result<bool> {
        match self {
            Source::Run(reader) => reader.advance(store, names),
            Source::Memory { games, head, .. } => {
                *head = games.next();
                Ok(head.is_some())
            }
        }
    }

    /// The current game and its event.
    fn head(&self) -> Option<(EventKey<'_>, &Packed)> {
        match self {
            Source::Run(reader) => reader.head.as_ref().map(|game| {
                let key = EventKey {
                    event: &reader.event,
                    site: &reader.site,
                    year: reader.year,
                };
                (key, game)
            }),
            Source::Memory { local, head, .. } => head.map(|p| {
                let key = EventKey {
                    event: local.get(p.event),
                    site: local.get(p.site),
                    year: p.year,
                };
                (key, &p.game)
            }),
        }
    }
}

/// A k-way merge of sorted sources by event, then pair: a binary heap of the sources that
/// have a game left, ties going to the earlier source.
struct Merge<'a> {
    sources: Vec<Source<'a>>,
    heap: Vec<usize>,
}

impl<'a> Merge<'a> {
    fn new(
        mut sources: Vec<Source<'a>>,
        store: &dyn RunStore,
        names: usize,
    ) -> io::Result<Merge<'a>> {
        let mut heap = Vec::with_capacity(sources.len());
        for (i, source) in sources.iter_mut().enumerate() {
            if source.advance(store, names)? {
                heap.push(i);
            }
        }
        let mut merge = Merge { sources, heap };
        for at in (0..merge.heap.len() / 2).rev() {
            merge.sift_down(at);
        }
        Ok(merge)
    }

    fn before(&self, i: usize, j: usize) -> bool {
        match (self.sources[i].head(), self.sources[j].head()) {
            (Some((ka, a)), Some((kb, b))) => {
                ka.cmp(&kb)
                    .then_with(|| a.pair().cmp(&b.pair()))
                    .then(i.cmp(&j))
                    == Ordering::Less
            }
            (Some(_), None) => true,
            (None, _) => false,
        }
    }

    fn sift_down(&mut self, mut at: usize) {
        loop {
            let mut first = at;
            for child in [2 * at + 1, 2 * at + 2] {
                if child < self.heap.len() && self.before(self.heap[child], self.heap[first]) {
                    first = child;
                }
            }
            if first == at {
                return;
            }
            self.heap.swap(at, first);
            at = first;
        }
    }

    /// The next game and its event.
    fn peek(&self) -> Option<(EventKey<'_>, &Packed)> {
        self.heap.first().and_then(|&i| self.sources[i].head())
    }

    /// Moves past the game [`peek`](Self::peek) gave.
    fn advance(&mut self, store: &dyn RunStore, names: usize) -> io::Result<()> {
        let Some(&source) = self.heap.first() else {
            return Ok(());
        };
        if !self.sources[source].advance(store, names)? {
            let last = self.heap.len() - 1;
            self.heap.swap(0, last);
            self.heap.pop();
        }
        self.sift_down(0);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Games over a few events (some sharing `Event` or `Site`, some undated) and players,
    /// teams and Elo tags.
    fn games(n: usize) -> Vec<(String, String, Option<u16>, EventGame)> {
        let mut seed = 99u64;
        let mut next = |m: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        (0..n)
            .map(|_| {
                let event = ["A", "B", "", "Zürich 象棋"][next(4) as usize].to_owned();
                let site = format!("s{}", next(5));
                let year = [None, Some(0), Some(2024), Some(u16::MAX)][next(4) as usize];
                let player = |r: u64| {
                    if r == 0 {
                        PlayerId::UNKNOWN
                    } else {
                        PlayerId::named(NameId::from_index(r as usize).unwrap())
                    }
                };
                let team = |r: u64| (r < 3).then(|| NameId::from_index(r as usize).unwrap());
                let game = EventGame {
                    white: player(next(6)),
                    black: player(next(6)),
                    white_team: team(next(5)),
                    black_team: team(next(5)),
                    score: [Score::WhiteWin, Score::Draw, Score::BlackWin][next(3) as usize],
                    white_elo: [None, Some(1), Some(2850)][next(3) as usize],
                    black_elo: [None, Some(u32::MAX)][next(2) as usize],
                };
                (event, site, year, game)
            })
            .collect()
    }

    fn log_of(games: &[(String, String, Option<u16>, EventGame)], budget: usize) -> EventLog {
        let mut log = EventLog::with_stores(
            Box::new(MemoryStore::default()),
            Box::new(MemoryStore::default()),
            budget,
        );
        for (event, site, year, game) in games {
            let key = EventKey {
                event,
                site,
                year: *year,
            };
            log.push(key, game).unwrap();
        }
        log
    }

    type Replayed = Vec<((String, String, Option<u16>), (u32, u32), EventGame)>;

    fn replayed(log: &mut EventLog) -> Replayed {
        let mut out = Vec::new();
        log.replay(8, |key, game| {
            let pair = Packed::new(game).pair();
            out.push((
                (key.event.to_owned(), key.site.to_owned(), key.year),
                pair,
                *game,
            ));
            Ok(())
        })
        .unwrap();
        out
    }

    /// Replays give every game once, sorted by event then pair, whatever the budget.
    #[test]
    fn replay_sorts_by_event_then_pair_for_any_budget() {
        let games = games(500);
        let whole = replayed(&mut log_of(&games, usize::MAX));
        assert_eq!(whole.len(), 500);
        let keys: Vec<_> = whole.iter().map(|(k, p, _)| (k.clone(), *p)).collect();
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(keys, sorted);
        let mut want: Vec<String> = whole.iter().map(|g| format!("{g:?}")).collect();
        want.sort();
        for budget in [1, 100, 3000, 20_000] {
            let mut log = log_of(&games, budget);
            assert!(budget > 20_000 || !log.runs.is_empty(), "budget {budget}");
            let got = replayed(&mut log);
            let mut got: Vec<String> = got.iter().map(|g| format!("{g:?}")).collect();
            got.sort();
            assert_eq!(got, want, "budget {budget}");
            let again = replayed(&mut log);
            assert_eq!(again.len(), 500);
        }
    }

    #[test]
    fn runs_pile_up_into_merged_runs() {
        let games = games(300);
        let log = log_of(&games, 1);
        assert!(log.runs.len() < 2 * FAN_IN, "{} runs", log.runs.len());
        assert!(log.runs.iter().any(|r| r.level == 2));
        assert_eq!(log.runs.iter().map(|r| r.len).sum::<u64>(), 300);
    }

    #[test]
    fn events_are_counted_once_each() {
        let games = games(400);
        let mut keys: Vec<_> = games.iter().map(|g| (&g.0, &g.1, g.2)).collect();
        keys.sort();
        keys.dedup();
        for budget in [1, 500, usize::MAX] {
            let mut log = log_of(&games, budget);
            assert_eq!(log.event_count(8).unwrap(), keys.len() as u64, "{budget}");
        }
    }

    #[test]
    fn damaged_runs_are_refused() {
        let games = games(20);
        let mut log = log_of(&games, 1);
        // Ids beyond the table.
        let e = log.replay(2, |_, _| Ok(())).unwrap_err();
        assert!(e.to_string().contains("damaged event run"), "{e}");
        let mut bytes = Vec::new();
        Packed::new(&games[0].3).encode(&mut bytes);
        assert_eq!(bytes.len(), PACKED_BYTES);
        assert_eq!(Packed::decode(&bytes, 8).unwrap(), Packed::new(&games[0].3));
        bytes[24] = 3;
        assert!(Packed::decode(&bytes, 8).is_err());
    }
}
