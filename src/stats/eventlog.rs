//! The event log: every finished game as standings need it, replayed event by event so that
//! one event's tables are built at a time.
//!
//! A database may hold millions of events (lichess gives every game its own `Site`), and one
//! event may hold millions of games (an online arena), so neither the events nor their sums
//! can all stay in memory. Games are collected in a run with their event's `Event` and `Site`
//! kept once in a table of the run; when the run's bytes reach the budget, it is sorted by
//! event ([`EventKey`] order: `Event`, `Site`, year) and, within an event, by the pair of
//! players, and handed to a [`RunStore`] with each event's strings written once. Runs are
//! stored and merged as the rating log's are ([`crate::sort`]). A replay merges the
//! runs and the run in memory: games come
//! out event by event and, within an event, pair by pair, which is what
//! [`EventBuilder`](super::standings::EventBuilder) needs to build a table from sums bounded
//! by the event's players. Memory is bounded by the budget, not by the games or the events.
//!
//! Before tables are built, a pass finds the sites of one `Event` and year that are one event
//! whose `Site` text changed between rounds or boards (they share a player, and no player
//! played one round at two of them); when there are any, the
//! games are copied once into a second log with those sites made one (see
//! [`EventLog::tables`]).

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;
use std::io;
use std::marker::PhantomData;

use super::standings::{EventBuilder, EventGame, EventTable};
use super::tiebreak::event::{EventPlayers, Play, TieEventBuilder, TieFacts};
use super::{EventKey, JoinedSites, NameId, Names, OwnedEventKey, PlayerId, Score};
use crate::sort::{self, MemoryStore, RunBytes, RunFormat, RunStore, SortedRuns};

/// Bytes of games (and their events' strings) a log keeps in memory before it sorts them and
/// hands them to its store: 8 MiB, about 200,000 games of one event or 60,000 games each
/// with its own `Site`.
pub(crate) const DEFAULT_BUDGET: usize = 8 << 20;

/// How the tie-break tables of [`EventLog::tables`] count games.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct TieOptions {
    /// A decisive game without moves counts as played, not as a forfeit.
    pub moveless_played: bool,
}

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
    /// The round number, 0 when unknown (see [`round_number`](super::standings::round_number)).
    round: u16,
    score: Score,
}

/// The bytes of a [`Packed`] in a store.
const PACKED_BYTES: usize = 27;

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
            round: game.round,
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
            round: self.round,
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
        out.extend_from_slice(&self.round.to_le_bytes());
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
        let score = match bytes[26] {
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
            round: u16::from_le_bytes([bytes[24], bytes[25]]),
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
    sort::damaged(KIND)
}

/// What a log's records carry besides the standings' game: nothing, or the facts
/// tie-breaks need ([`TieFacts`]), as the log was made ([`EventLog::keep_tie_facts`]).
/// The plain log's records and runs stay as small as standings alone need.
trait Extra: Copy + fmt::Debug + Default {
    /// Its bytes in a run.
    const BYTES: usize;

    fn encode(&self, out: &mut Vec<u8>);

    /// Reads it back, checking that its ids name names of a table of `names` names.
    fn decode(bytes: &[u8], names: usize) -> io::Result<Self>;

    fn facts(&self) -> Option<&TieFacts>;

    fn from_facts(facts: Option<&TieFacts>) -> Self;
}

impl Extra for () {
    const BYTES: usize = 0;

    fn encode(&self, _: &mut Vec<u8>) {}

    fn decode(_: &[u8], _: usize) -> io::Result<()> {
        Ok(())
    }

    fn facts(&self) -> Option<&TieFacts> {
        None
    }

    fn from_facts(_: Option<&TieFacts>) {}
}

impl Extra for TieFacts {
    /// Order, round, FIDE ids, board (a flag and the number), play.
    const BYTES: usize = 8 + 4 + 4 + 4 + 1 + 4 + 1;

    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.order.to_le_bytes());
        for n in [self.round, self.white_fide_id, self.black_fide_id] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        out.push(u8::from(self.board.is_some()));
        out.extend_from_slice(&self.board.unwrap_or(0).to_le_bytes());
        out.push(match self.play {
            Play::Moves => 0,
            Play::SaidUnplayed => 1,
            Play::NoMoves => 2,
        });
    }

    fn decode(bytes: &[u8], names: usize) -> io::Result<TieFacts> {
        let u32_at =
            |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap_or_default());
        let name = |n: u32| n == TieFacts::NONE || (n as usize) < names;
        let play = match bytes[25] {
            0 => Play::Moves,
            1 => Play::SaidUnplayed,
            2 => Play::NoMoves,
            _ => return Err(damaged()),
        };
        let facts = TieFacts {
            order: u64::from_le_bytes(bytes[..8].try_into().unwrap_or_default()),
            round: u32_at(8),
            white_fide_id: u32_at(12),
            black_fide_id: u32_at(16),
            board: match bytes[20] {
                0 => None,
                1 => Some(u32_at(21)),
                _ => return Err(damaged()),
            },
            play,
        };
        if name(facts.round) && name(facts.white_fide_id) && name(facts.black_fide_id) {
            Ok(facts)
        } else {
            Err(damaged())
        }
    }

    fn facts(&self) -> Option<&TieFacts> {
        Some(self)
    }

    fn from_facts(facts: Option<&TieFacts>) -> TieFacts {
        facts.copied().unwrap_or_default()
    }
}

/// A game in memory: its event as ids of the run's table, the game, and what else the log
/// keeps of it.
#[derive(Debug, Clone, Copy)]
struct Pending<X = ()> {
    event: NameId,
    site: NameId,
    year: Option<u16>,
    game: Packed,
    extra: X,
}

/// The games in memory, in the shape of the log's records.
#[derive(Debug)]
enum InMemory {
    Plain(Vec<Pending>),
    Tied(Vec<Pending<TieFacts>>),
}

impl InMemory {
    fn len(&self) -> usize {
        match self {
            InMemory::Plain(v) => v.len(),
            InMemory::Tied(v) => v.len(),
        }
    }

    /// The bytes of the games, as the budget counts them.
    fn bytes(&self) -> usize {
        match self {
            InMemory::Plain(v) => v.len() * std::mem::size_of::<Pending>(),
            InMemory::Tied(v) => v.len() * std::mem::size_of::<Pending<TieFacts>>(),
        }
    }

    fn clear(&mut self) {
        match self {
            InMemory::Plain(v) => v.clear(),
            InMemory::Tied(v) => v.clear(),
        }
    }

    fn push(&mut self, p: Pending, facts: Option<&TieFacts>) {
        match self {
            InMemory::Plain(v) => v.push(p),
            InMemory::Tied(v) => v.push(Pending {
                extra: TieFacts::from_facts(facts),
                event: p.event,
                site: p.site,
                year: p.year,
                game: p.game,
            }),
        }
    }

    /// An empty one of the same shape.
    fn empty_like(&self) -> InMemory {
        match self {
            InMemory::Plain(_) => InMemory::Plain(Vec::new()),
            InMemory::Tied(_) => InMemory::Tied(Vec::new()),
        }
    }
}

/// Sorts games by event, then pair: the rank of every name of the run's table `local` in
/// string order stands for the name, so the sort compares integers.
fn sort_by_event<X>(local: &Names, pending: &mut [Pending<X>]) {
    let mut ids: Vec<NameId> = (0..local.len()).filter_map(NameId::from_index).collect();
    ids.sort_unstable_by(|a, b| local.get(*a).cmp(local.get(*b)));
    let mut rank = vec![0u32; ids.len()];
    for (r, id) in ids.iter().enumerate() {
        rank[id.index()] = r as u32;
    }
    pending.sort_unstable_by_key(|p| {
        (
            rank[p.event.index()],
            rank[p.site.index()],
            p.year,
            p.game.pair(),
        )
    });
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
    /// The round number (see [`round_number`](super::standings::round_number)), if known.
    pub round: Option<u16>,
    /// What tie-breaks need of the game, when the log kept it
    /// ([`StatsAccumulator::keep_tie_facts`](super::StatsAccumulator::keep_tie_facts)).
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub tie: Option<TieEntry<'a>>,
}

/// What tie-breaks need of a finished game besides its [`EventEntry`], spelled out.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TieEntry<'a> {
    /// The game's place in its input (a merge moves it after the games of the parts before).
    pub order: u64,
    /// The round as tie-breaks read it: the first number of a dotted `Round` tag, else the
    /// tag as written (trimmed).
    #[serde(borrow)]
    pub round: Cow<'a, str>,
    /// The `WhiteFideId` tag, if it names one (trimmed, not `0`).
    pub white_fide_id: Option<String>,
    /// The `BlackFideId` tag.
    pub black_fide_id: Option<String>,
    /// The `Board` tag, if it is a number.
    pub board: Option<u32>,
    /// How the game was played: moves, said unplayed (a forfeit), or decisive without moves.
    pub play: Play,
}

/// The finished games of every event, for the standings tables (see the [module docs](self)).
pub struct EventLog {
    /// `Event` and `Site` values of the games in memory.
    local: Names,
    local_bytes: usize,
    pending: InMemory,
    pending_sorted: bool,
    runs: SortedRuns,
    /// Where an event's pairs go while its table is built, when they exceed the budget.
    scratch: Box<dyn RunStore>,
    /// Where the copy with sites made one goes ([`EventLog::tables`]), when it exceeds the
    /// budget.
    spare: Box<dyn RunStore>,
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
            .field("runs", &self.runs.runs().len())
            .field("stored_bytes", &self.runs.stored_bytes())
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
            pending: InMemory::Plain(Vec::new()),
            pending_sorted: true,
            runs: SortedRuns::new(store),
            scratch,
            spare: Box::new(MemoryStore::default()),
            budget: budget.max(1),
            len: 0,
            events: None,
        }
    }

    /// The log, with `spare` to hold the copy that makes sites one (see
    /// [`tables`](Self::tables)) instead of memory.
    pub fn with_spare(mut self, spare: Box<dyn RunStore>) -> EventLog {
        self.spare = spare;
        self
    }

    /// Makes the log keep what tie-breaks need of each game ([`TieFacts`]) from now on (it
    /// must be empty): its records grow from 27 bytes to 53.
    pub(crate) fn keep_tie_facts(&mut self) {
        debug_assert!(self.is_empty());
        self.pending = InMemory::Tied(Vec::new());
    }

    /// Whether the log keeps what tie-breaks need.
    pub(crate) fn keeps_tie_facts(&self) -> bool {
        matches!(self.pending, InMemory::Tied(_))
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
        self.pending.bytes() + self.local_bytes
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
    pub(crate) fn push(
        &mut self,
        key: EventKey<'_>,
        game: &EventGame,
        facts: Option<&TieFacts>,
    ) -> io::Result<()> {
        self.push_packed(key, Packed::new(game), facts)
    }

    fn push_packed(
        &mut self,
        key: EventKey<'_>,
        game: Packed,
        facts: Option<&TieFacts>,
    ) -> io::Result<()> {
        let event = self.local_name(key.event);
        let site = self.local_name(key.site);
        let pending = Pending {
            event,
            site,
            year: key.year,
            game,
            extra: (),
        };
        self.pending.push(pending, facts);
        self.pending_sorted = false;
        self.len += 1;
        self.events = None;
        if self.memory() >= self.budget {
            self.seal()?;
        }
        Ok(())
    }

    /// Sorts the games in memory by event, then pair ([`sort_by_event`]).
    fn sort_pending(&mut self) {
        if self.pending_sorted {
            return;
        }
        match &mut self.pending {
            InMemory::Plain(v) => sort_by_event(&self.local, v),
            InMemory::Tied(v) => sort_by_event(&self.local, v),
        }
        self.pending_sorted = true;
    }

    /// Sorts the games in memory into a run in the store, then merges runs that piled up.
    fn seal(&mut self) -> io::Result<()> {
        if self.pending.len() == 0 {
            return Ok(());
        }
        self.sort_pending();
        // Ids are checked when runs are replayed; here they are copied as they are.
        match &self.pending {
            InMemory::Plain(v) => push_run(&mut self.runs, &self.local, v)?,
            InMemory::Tied(v) => push_run(&mut self.runs, &self.local, v)?,
        }
        self.pending.clear();
        self.local = Names::new();
        self.local_bytes = 0;
        self.pending_sorted = true;
        Ok(())
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
        mut f: impl FnMut(EventKey<'_>, &EventGame, Option<&TieFacts>) -> io::Result<()>,
    ) -> io::Result<()> {
        self.sort_pending();
        replay_sorted(
            &self.runs,
            &self.local,
            names,
            &self.pending,
            |key, game, facts| f(key, &game.game(), facts),
        )
    }

    /// Builds every event's tables, one event at a time, and calls `f` with each, in
    /// [`EventKey`] order; returns the number of events. Names come from `names`.
    ///
    /// Sites of one `Event` and year that share a player are one event ([`SiteGroups`]):
    /// when there are any, the games are first copied into a log of their own with each such
    /// site replaced by its group's, and the tables come from that copy. The copy keeps its
    /// budget in memory and the rest in the spare store, which is emptied afterwards; this
    /// log is left as it was, so that its games can still be written out as they were read.
    ///
    /// # Errors
    ///
    /// Errors of the stores, and the first error of `f`.
    pub(crate) fn tables(
        &mut self,
        names: &Names,
        ties: Option<TieOptions>,
        f: impl FnMut(&EventTable<'_>, Option<&EventPlayers>) -> io::Result<()>,
    ) -> io::Result<u64> {
        let groups = self.site_groups(names.len())?;
        if groups.joined.is_empty() {
            return self.own_tables(names, ties, f);
        }
        let spare = std::mem::replace(&mut self.spare, Box::new(MemoryStore::default()));
        let mut copy = EventLog::with_stores(spare, Box::new(MemoryStore::default()), self.budget);
        copy.pending = self.pending.empty_like();
        let mut last = OwnedEventKey::default();
        let mut site: Option<String> = None;
        let copied = replay_sorted(
            &self.runs,
            &self.local,
            names.len(),
            &self.pending,
            |key, game, facts| {
                if site.is_none() || key != last.key() {
                    last.set(key);
                    site = Some(groups.site(key).to_owned());
                }
                let site = site.as_deref().unwrap_or(key.site);
                copy.push_packed(EventKey { site, ..key }, *game, facts)
            },
        );
        // The scratch store is this log's; the copy borrows it to build the tables.
        std::mem::swap(&mut copy.scratch, &mut self.scratch);
        let count = copied.and_then(|()| copy.own_tables(names, ties, f));
        std::mem::swap(&mut copy.scratch, &mut self.scratch);
        let mut spare = copy.runs.into_store();
        let cleared = spare.clear();
        self.spare = spare;
        let count = count?;
        cleared?;
        self.events = Some(count);
        Ok(count)
    }

    /// [`tables`](Self::tables) of this log's games as they are.
    fn own_tables(
        &mut self,
        names: &Names,
        ties: Option<TieOptions>,
        mut f: impl FnMut(&EventTable<'_>, Option<&EventPlayers>) -> io::Result<()>,
    ) -> io::Result<u64> {
        self.sort_pending();
        let EventLog {
            local,
            pending,
            runs,
            scratch,
            budget,
            ..
        } = self;
        let mut builder = EventBuilder::new(names, &mut **scratch, *budget);
        // An event's games for its tie-break tables, when asked for and kept.
        let mut tied = ties
            .filter(|_| matches!(pending, InMemory::Tied(_)))
            .map(|options| (TieEventBuilder::default(), options));
        let mut finish = |builder: &mut EventBuilder<'_>,
                          tied: &mut Option<(TieEventBuilder, TieOptions)>|
         -> io::Result<()> {
            let table = builder.finish()?;
            // Casual play gets no table (a server's games may be millions of such events).
            let players = tied
                .as_mut()
                .filter(|_| !table.is_casual())
                .map(|(t, options)| t.finish(names, options.moveless_played));
            f(&table, players.as_ref())
        };
        let mut count = 0u64;
        replay_sorted(runs, local, names.len(), pending, |key, game, facts| {
            if !builder.is_for(key) {
                if count > 0 {
                    finish(&mut builder, &mut tied)?;
                }
                builder.start(key);
                if let Some((t, _)) = tied.as_mut() {
                    t.start();
                }
                count += 1;
            }
            let game = game.game();
            if let (Some((t, _)), Some(facts)) = (tied.as_mut(), facts) {
                t.add(&game, facts);
            }
            builder.add(&game)
        })?;
        if count > 0 {
            finish(&mut builder, &mut tied)?;
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
        let groups = self.site_groups(names)?;
        let count = groups.keys - groups.joined.len() as u64;
        self.events = Some(count);
        Ok(count)
    }

    /// The sites that are one event with another ([`SiteGroups`]): each `(Event, Site, year)`
    /// that joins another, and the site of its group (a pass over the games).
    ///
    /// # Errors
    ///
    /// Errors of the store.
    pub(crate) fn joined_sites(&mut self, names: usize) -> io::Result<JoinedSites> {
        Ok(self.site_groups(names)?.joined)
    }

    /// A pass over the games that finds which sites are one event ([`SiteGroups`]).
    fn site_groups(&mut self, names: usize) -> io::Result<SiteGroups> {
        self.sort_pending();
        let mut finder = SiteGroupFinder::default();
        replay_sorted(
            &self.runs,
            &self.local,
            names,
            &self.pending,
            |key, game, _| {
                finder.add(key, game);
                Ok(())
            },
        )?;
        Ok(finder.finish())
    }

    /// Takes in every game of `other`, whose player and team ids `names` maps onto the ones
    /// this log uses (see [`Names::absorb`]: one entry for each name of `other`'s table).
    ///
    /// # Errors
    ///
    /// Errors of either store.
    pub(crate) fn absorb(&mut self, mut other: EventLog, names: &[NameId]) -> io::Result<()> {
        // The replay checks that ids read back from runs are below `names.len()`; games in
        // memory hold ids of `other`'s own table. The unknown player, no team and no name
        // are one id, kept.
        const { assert!(PlayerId::UNKNOWN.0 == NO_TEAM && NO_TEAM == TieFacts::NONE) };
        let id = |n: u32| {
            if n == NO_TEAM {
                n
            } else {
                names[n as usize].raw()
            }
        };
        other.sort_pending();
        let (runs, local) = (&other.runs, &other.local);
        replay_sorted(
            runs,
            local,
            names.len(),
            &other.pending,
            |key, game, facts| {
                let game = Packed {
                    white: id(game.white),
                    black: id(game.black),
                    white_team: id(game.white_team),
                    black_team: id(game.black_team),
                    ..*game
                };
                let facts = facts.map(|f| TieFacts {
                    round: id(f.round),
                    white_fide_id: id(f.white_fide_id),
                    black_fide_id: id(f.black_fide_id),
                    ..*f
                });
                self.push_packed(key, game, facts.as_ref())
            },
        )
    }
}

/// The sites that are one event with another: a tournament whose `Site` text changed between
/// rounds (a round played in another town, `Lipetsk RUS` for some rounds and `Lipetsk` for
/// others) or between boards of one round (two spellings of the venue in one Swiss round).
///
/// Sites of one `Event` and one year are one event when a player played at both and joining
/// them gives no player two games in one round: every game at both has a round number, and
/// no player played the same round at both (a group of sites gathers games no two of which
/// put one player in one round). Rounds may be played at both, by different players: boards
/// 1 to 10 of round 3 in one spelling, the rest in the other. Two events of one name in one
/// year stay apart when their players differ (two clubs' championships) or a player played
/// one round at both (two opens with a player in round 1 of each). A site that is an address
/// (`https://…`, each online game's own) joins nothing, or every casual game of a server's
/// players would be one table. The group's site is the one of most games (the first in order
/// on a tie).
///
/// Sites are taken in order and each player joins the sites they played at in that order,
/// one to the next, so that all of this depends only on the games, not on their order in the
/// input or on how it was split into parts: merged parts group alike.
#[derive(Debug, Default)]
struct SiteGroups {
    /// For each `(Event, Site, year)` that joins another, the site of its group.
    joined: JoinedSites,
    /// The `(Event, Site, year)` keys seen.
    keys: u64,
}

impl SiteGroups {
    /// The site `key`'s games count under.
    fn site<'a>(&'a self, key: EventKey<'a>) -> &'a str {
        if self.joined.is_empty() {
            return key.site;
        }
        // A lookup allocates: done once per event (games come event by event).
        let at = (key.event.to_owned(), key.site.to_owned(), key.year);
        self.joined.get(&at).map_or(key.site, String::as_str)
    }
}

/// Players (counted once a site) an `Event` may list before its sites are left as they are,
/// which bounds the memory of the site grouping: 16 MiB of scratch at most.
const MAX_LISTED_PLAYERS: usize = 1 << 20;

/// One site (and year) of the `Event` a [`SiteGroupFinder`] is on.
#[derive(Debug)]
struct SiteNode {
    site: String,
    year: Option<u16>,
    games: u64,
    /// Who played in which round: (player, round), sorted and once each up to `seated`, as
    /// read after that; `None` once a game without a round number was seen.
    seats: Option<Vec<(u32, u16)>>,
    seated: usize,
    /// Its known players (ids), sorted and once each up to `sorted`, as read after that.
    players: Vec<u32>,
    sorted: usize,
}

impl SiteNode {
    /// Sorts the players and their rounds and drops repeats.
    fn settle(&mut self) {
        self.players.sort_unstable();
        self.players.dedup();
        self.sorted = self.players.len();
        if let Some(seats) = &mut self.seats {
            seats.sort_unstable();
            seats.dedup();
            self.seated = seats.len();
        }
    }

    /// What the lists hold.
    fn listed(&self) -> usize {
        self.players.len() + self.seats.as_ref().map_or(0, Vec::len)
    }
}

/// Whether two sorted lists of (player, round) have no entry in common: no player played a
/// round in both.
fn apart(a: &[(u32, u16)], b: &[(u32, u16)]) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            Ordering::Less => i += 1,
            Ordering::Greater => j += 1,
            Ordering::Equal => return false,
        }
    }
    true
}

/// Finds [`SiteGroups`] from games given event by event ([`EventKey`] order), one `Event`
/// value at a time: memory holds the sites and players of that one `Event`. Most `Event`
/// values have one site a year: players are only listed while they are read (no lookup a
/// game), and compared across sites when the `Event` has several.
#[derive(Debug, Default)]
struct SiteGroupFinder {
    groups: SiteGroups,
    last: OwnedEventKey,
    started: bool,
    /// The sites of the current `Event`, in order.
    sites: Vec<SiteNode>,
    /// Every site's players, by year and player, then site: scratch of `finish_event`.
    seats: Vec<(Option<u16>, u32, usize)>,
    /// Players listed at the sites of the current `Event`, and whether there were too many
    /// (then its sites are left as they are).
    listed: usize,
    overflow: bool,
    /// Sites a player went from and to, in order.
    links: Vec<(usize, usize)>,
}

impl SiteGroupFinder {
    fn add(&mut self, key: EventKey<'_>, game: &Packed) {
        if !self.started || key != self.last.key() {
            if self.started && key.event != self.last.event {
                self.finish_event();
            }
            self.started = true;
            self.last.set(key);
            self.groups.keys += 1;
            if key.site.contains("://") {
                return;
            }
            self.sites.push(SiteNode {
                site: key.site.to_owned(),
                year: key.year,
                games: 0,
                seats: Some(Vec::new()),
                seated: 0,
                players: Vec::new(),
                sorted: 0,
            });
        } else if key.site.contains("://") {
            return;
        }
        let at = self.sites.len() - 1;
        let node = &mut self.sites[at];
        node.games += 1;
        if self.overflow {
            return;
        }
        if game.round == 0 {
            if let Some(seats) = node.seats.take() {
                self.listed -= seats.len();
            }
        }
        for player in [game.white, game.black] {
            if player != PlayerId::UNKNOWN.0 {
                node.players.push(player);
                self.listed += 1;
                if let Some(seats) = &mut node.seats {
                    seats.push((player, game.round));
                    self.listed += 1;
                }
            }
        }
        // Repeats are dropped now and then, so that the lists are bounded by the players and
        // their rounds.
        let seats = node.seats.as_ref().map_or(0, Vec::len);
        if node.players.len() > 2 * node.sorted + 1024 || seats > 2 * node.seated + 1024 {
            let before = node.listed();
            node.settle();
            self.listed -= before - node.listed();
        }
        if self.listed > MAX_LISTED_PLAYERS {
            for node in &mut self.sites {
                node.settle();
            }
            self.listed = self.sites.iter().map(SiteNode::listed).sum();
            if self.listed > MAX_LISTED_PLAYERS / 2 {
                self.overflow = true;
                for node in &mut self.sites {
                    node.players = Vec::new();
                    node.seats = None;
                }
            }
        }
    }

    /// The current `Event`'s groups are complete.
    fn finish_event(&mut self) {
        let n = self.sites.len();
        if n > 1 && !self.overflow {
            for (i, node) in self.sites.iter_mut().enumerate() {
                node.settle();
                let year = node.year;
                self.seats
                    .extend(node.players.iter().map(|&player| (year, player, i)));
            }
            self.seats.sort_unstable();
            // Each player joins the sites they played at (in a year), one to the next.
            for pair in self.seats.windows(2) {
                let ((year, player, a), (next_year, next_player, b)) = (pair[0], pair[1]);
                if (year, player) == (next_year, next_player) {
                    self.links.push((a, b));
                }
            }
            self.links.sort_unstable();
            self.links.dedup();
            let mut parent: Vec<usize> = (0..n).collect();
            fn root(parent: &mut [usize], mut i: usize) -> usize {
                while parent[i] != i {
                    parent[i] = parent[parent[i]];
                    i = parent[i];
                }
                i
            }
            // Who played which round in each group, kept at its root.
            let mut seats: Vec<Option<Vec<(u32, u16)>>> =
                self.sites.iter_mut().map(|s| s.seats.take()).collect();
            for &(a, b) in &self.links {
                let (a, b) = (root(&mut parent, a), root(&mut parent, b));
                if a == b {
                    continue;
                }
                let join = match (&seats[a], &seats[b]) {
                    (Some(sa), Some(sb)) => apart(sa, sb),
                    _ => false,
                };
                if join {
                    let (low, high) = (a.min(b), a.max(b));
                    let mut gathered = seats[high].take().unwrap_or_default();
                    gathered.extend(seats[low].take().unwrap_or_default());
                    gathered.sort_unstable();
                    seats[low] = Some(gathered);
                    parent[high] = low;
                }
            }
            // The site of most games of each group; on a tie the first, in site order.
            let mut lead: Vec<usize> = (0..n).collect();
            for i in 0..n {
                let r = root(&mut parent, i);
                if self.sites[i].games > self.sites[lead[r]].games {
                    lead[r] = i;
                }
            }
            for i in 0..n {
                let lead = lead[root(&mut parent, i)];
                if lead != i {
                    let at = (
                        self.last.event.clone(),
                        self.sites[i].site.clone(),
                        self.sites[i].year,
                    );
                    self.groups.joined.insert(at, self.sites[lead].site.clone());
                }
            }
        }
        self.sites.clear();
        self.seats.clear();
        self.links.clear();
        self.listed = 0;
        self.overflow = false;
    }

    fn finish(mut self) -> SiteGroups {
        self.finish_event();
        self.groups
    }
}

/// Writes the games in memory `pending` (sorted) as a run of `runs`.
fn push_run<X: Extra>(
    runs: &mut SortedRuns,
    local: &Names,
    pending: &[Pending<X>],
) -> io::Result<()> {
    let games = Games::<X>::new(local, usize::MAX);
    runs.push_run(&games, pending.iter().map(|p| games.pending(p)))
}

/// Calls `f` with the games of `runs` and `pending` (sorted), merged (see
/// [`EventLog::replay`]); `local` is the table of the games in memory, `names` the number of
/// names ids may refer to.
fn replay_sorted(
    runs: &SortedRuns,
    local: &Names,
    names: usize,
    pending: &InMemory,
    f: impl FnMut(EventKey<'_>, &Packed, Option<&TieFacts>) -> io::Result<()>,
) -> io::Result<()> {
    fn merged<X: Extra>(
        runs: &SortedRuns,
        games: &Games<'_, X>,
        pending: &[Pending<X>],
        mut f: impl FnMut(EventKey<'_>, &Packed, Option<&TieFacts>) -> io::Result<()>,
    ) -> io::Result<()> {
        let mut replay = runs.replay(games, pending)?;
        while let Some((key, game, extra)) = replay.peek() {
            f(key, game, extra.facts())?;
            replay.advance()?;
        }
        Ok(())
    }
    match pending {
        InMemory::Plain(v) => merged(runs, &Games::new(local, names), v, f),
        InMemory::Tied(v) => merged(runs, &Games::new(local, names), v, f),
    }
}

/// What tells the runs of an event log apart from other runs in a damaged-run error.
const KIND: &str = "event";

/// How an event log's games sit in its runs, sorted by event ([`EventKey`] order), then pair.
///
/// Each record is a flag byte (1 when an event's strings follow, 0 for the same event as the
/// record before), the event when it changes (`Event` and `Site` as a length and UTF-8
/// bytes, the year as 0 or year + 1), then the game ([`Packed`]) and what else the log keeps
/// of it (`X`: nothing, or [`TieFacts`]).
struct Games<'a, X> {
    /// The table of the `Event` and `Site` values of the games in memory.
    local: &'a Names,
    /// How many names player and team ids of games read back may refer to.
    names: usize,
    extra: PhantomData<X>,
}

impl<'a, X> Games<'a, X> {
    fn new(local: &'a Names, names: usize) -> Games<'a, X> {
        Games {
            local,
            names,
            extra: PhantomData,
        }
    }
}

/// A game and its event, as a merge compares them.
type Game<'a, X> = (EventKey<'a>, &'a Packed, &'a X);

/// What the reader of a run keeps: the event of the game read last, and that game.
#[derive(Debug, Default)]
struct GameReader<X> {
    event: OwnedEventKey,
    head: Option<(Packed, X)>,
}

/// What the writer of a run keeps: the event of the game written last, if any.
#[derive(Debug, Default)]
struct GameWriter {
    started: bool,
    event: OwnedEventKey,
}

impl<X: Extra> RunFormat for Games<'_, X> {
    type Item<'i>
        = Game<'i, X>
    where
        Self: 'i;
    type Pending = Pending<X>;
    type Reader = GameReader<X>;
    type Writer = GameWriter;
    const KIND: &'static str = KIND;

    fn pending<'i>(&'i self, p: &'i Pending<X>) -> Game<'i, X> {
        let key = EventKey {
            event: self.local.get(p.event),
            site: self.local.get(p.site),
            year: p.year,
        };
        (key, &p.game, &p.extra)
    }

    fn cmp(&self, (ka, a, _): Game<'_, X>, (kb, b, _): Game<'_, X>) -> Ordering {
        ka.cmp(&kb).then_with(|| a.pair().cmp(&b.pair()))
    }

    fn encode(
        &self,
        last: &mut GameWriter,
        (key, game, extra): Game<'_, X>,
        out: &mut Vec<u8>,
    ) -> io::Result<()> {
        let same = last.started && key == last.event.key();
        if same {
            out.push(0);
        } else {
            out.push(1);
            for text in [key.event, key.site] {
                let len = u32::try_from(text.len())
                    .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "tag too long"))?;
                out.extend_from_slice(&len.to_le_bytes());
                out.extend_from_slice(text.as_bytes());
            }
            let year = key.year.map_or(0, |y| u32::from(y) + 1);
            out.extend_from_slice(&year.to_le_bytes());
            last.started = true;
            last.event.set(key);
        }
        game.encode(out);
        extra.encode(out);
        Ok(())
    }

    fn decode(&self, last: &mut GameReader<X>, bytes: &mut RunBytes<'_>) -> io::Result<()> {
        match bytes.take(1)?[0] {
            0 if last.head.is_some() => {}
            1 => {
                read_text(bytes, &mut last.event.event)?;
                read_text(bytes, &mut last.event.site)?;
                last.event.year = match read_u32(bytes)? {
                    0 => None,
                    y => Some(u16::try_from(y - 1).map_err(|_| damaged())?),
                };
            }
            _ => return Err(damaged()),
        }
        let game = Packed::decode(bytes.take(PACKED_BYTES)?, self.names)?;
        let extra = X::decode(bytes.take(X::BYTES)?, self.names)?;
        last.head = Some((game, extra));
        Ok(())
    }

    fn head<'i>(&'i self, last: &'i GameReader<X>) -> Option<Game<'i, X>> {
        last.head
            .as_ref()
            .map(|(game, extra)| (last.event.key(), game, extra))
    }
}

fn read_u32(bytes: &mut RunBytes<'_>) -> io::Result<u32> {
    let four = bytes.take(4)?.try_into().map_err(|_| damaged())?;
    Ok(u32::from_le_bytes(four))
}

/// Reads a length and that many bytes of UTF-8 into `into`.
fn read_text(bytes: &mut RunBytes<'_>, into: &mut String) -> io::Result<()> {
    let len = read_u32(bytes)? as usize;
    let text = std::str::from_utf8(bytes.take(len)?).map_err(|_| damaged())?;
    into.clear();
    into.push_str(text);
    Ok(())
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
                    round: next(3) as u16,
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
            log.push(key, game, None).unwrap();
        }
        log
    }

    type Replayed = Vec<((String, String, Option<u16>), (u32, u32), EventGame)>;

    fn replayed(log: &mut EventLog) -> Replayed {
        let mut out = Vec::new();
        log.replay(8, |key, game, _| {
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
            assert!(
                budget > 20_000 || !log.runs.runs().is_empty(),
                "budget {budget}"
            );
            let got = replayed(&mut log);
            let mut got: Vec<String> = got.iter().map(|g| format!("{g:?}")).collect();
            got.sort();
            assert_eq!(got, want, "budget {budget}");
            let again = replayed(&mut log);
            assert_eq!(again.len(), 500);
        }
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

    /// The docs give this size (docs/stats.md, Memory).
    #[test]
    fn a_game_in_memory_takes_40_bytes() {
        assert_eq!(std::mem::size_of::<Pending>(), 40);
    }

    /// The docs give these sizes too (docs/stats.md, Memory): with tie-breaks' facts a game
    /// takes 72 bytes in memory, 54 in a run (besides its event's strings).
    #[test]
    fn a_game_with_tie_facts_takes_72_bytes() {
        assert_eq!(std::mem::size_of::<Pending<TieFacts>>(), 72);
        assert_eq!(1 + PACKED_BYTES + TieFacts::BYTES, 54);
    }

    /// Facts go into runs and come back as they were, sites joined or not, and ids beyond
    /// the table are refused.
    #[test]
    fn tie_facts_come_back_from_runs() {
        let games = games(300);
        let facts = |i: usize| TieFacts {
            order: i as u64 * 3,
            round: (i % 4) as u32,
            white_fide_id: if i.is_multiple_of(5) {
                TieFacts::NONE
            } else {
                7
            },
            black_fide_id: TieFacts::NONE,
            board: i.is_multiple_of(2).then_some(i as u32),
            play: [Play::Moves, Play::SaidUnplayed, Play::NoMoves][i % 3],
        };
        for budget in [1, 2000, usize::MAX] {
            let mut log = EventLog::with_stores(
                Box::new(MemoryStore::default()),
                Box::new(MemoryStore::default()),
                budget,
            );
            log.keep_tie_facts();
            for (i, (event, site, year, game)) in games.iter().enumerate() {
                let key = EventKey {
                    event,
                    site,
                    year: *year,
                };
                log.push(key, game, Some(&facts(i))).unwrap();
            }
            let mut got = Vec::new();
            log.replay(8, |_, _, f| {
                got.push(*f.expect("facts kept"));
                Ok(())
            })
            .unwrap();
            got.sort_by_key(|f| f.order);
            let want: Vec<TieFacts> = (0..games.len()).map(facts).collect();
            assert_eq!(got, want, "budget {budget}");
        }
        let mut bytes = Vec::new();
        facts(1).encode(&mut bytes);
        assert_eq!(bytes.len(), TieFacts::BYTES);
        assert_eq!(TieFacts::decode(&bytes, 8).unwrap(), facts(1));
        assert!(
            TieFacts::decode(&bytes, 7).is_err(),
            "a FIDE id beyond the table"
        );
    }

    #[test]
    fn damaged_runs_are_refused() {
        let games = games(20);
        let mut log = log_of(&games, 1);
        // Ids beyond the table.
        let e = log.replay(2, |_, _, _| Ok(())).unwrap_err();
        assert!(e.to_string().contains("damaged event run"), "{e}");
        let mut bytes = Vec::new();
        Packed::new(&games[0].3).encode(&mut bytes);
        assert_eq!(bytes.len(), PACKED_BYTES);
        assert_eq!(Packed::decode(&bytes, 8).unwrap(), Packed::new(&games[0].3));
        bytes[26] = 3;
        assert!(Packed::decode(&bytes, 8).is_err());
    }
}
