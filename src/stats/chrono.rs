//! The rating log: every game between two known players as a fixed-size record, replayed in
//! chronological order (`Date`, `Round`, file order) for Elo and club points.
//!
//! Ratings depend on the order of all games and the input need not follow it. Records are
//! collected in a run of bounded length; a full run is sorted and handed to a [`RunStore`]
//! (kept in memory by [`MemoryStore`]; the command layer gives a temporary file), and a replay
//! merges the sorted runs ([`crate::sort`] does the storing and merging). So memory is
//! bounded by the run length, not by the games.
//!
//! The order is exactly [`ChronoKey`](super::ChronoKey)'s: dates are packed into an integer
//! that sorts like `Option<GameDate>`; rounds of one or two dotted numbers (`3`, `2.10`) are
//! packed into an integer that sorts like their [`RoundKey`], and any other round is kept once
//! in a small table and compared as its `RoundKey`. Games equal on all three keys keep the
//! order they were added in: runs are sorted stably, and a merge takes the earlier run first.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt;
use std::io;

use super::{GameDate, NameId, RoundKey, Score};
use crate::sort::{damaged, MemoryStore, RunBytes, RunFormat, RunStore, SortedRuns};

/// Records a log keeps in memory before it sorts them and hands them to its store: 512 Ki
/// records, 20 MiB.
pub const DEFAULT_RUN_LEN: usize = 512 * 1024;

/// The size of a record in a store.
const RECORD_BYTES: usize = 37;

/// A `Date` packed so that integers sort as `Option<GameDate>` does: 0 when unknown, else a
/// presence bit, the year, then month and day each as 0 (unknown) or value + 1.
fn date_code(date: Option<GameDate>) -> u64 {
    let part = |p: Option<u8>| p.map_or(0, |p| u64::from(p) + 1);
    date.map_or(0, |d| {
        (1 << 40) | (u64::from(d.year) << 18) | (part(d.month) << 9) | part(d.day)
    })
}

fn date_of(code: u64) -> Option<GameDate> {
    let part = |p: u64| (p != 0).then(|| (p - 1) as u8);
    (code >> 40 != 0).then(|| GameDate {
        year: (code >> 18) as u16,
        month: part((code >> 9) & 0x1FF),
        day: part(code & 0x1FF),
    })
}

/// A round code with this bit set is an index into the round table.
const ROUND_IN_TABLE: u32 = 1 << 31;

/// Rounds as codes that sort like their [`RoundKey`].
///
/// 0 is an unknown round; `a` and `a.b` with `a < 32767` and `b < 65535` are
/// `(a + 1) << 16 | (b + 1)` (0 for a missing `b`), which sorts as the numbers do and after
/// 0; any other round is [`ROUND_IN_TABLE`] plus its index in the table, kept once however
/// many games name it. Two codes both below [`ROUND_IN_TABLE`] compare as integers; otherwise
/// as their `RoundKey`s.
#[derive(Debug, Default)]
struct RoundTable {
    keys: Vec<RoundKey>,
    index: HashMap<Box<str>, u32>,
}

/// A round as compared: numbers as a slice, so packed and tabled rounds compare alike.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
enum RoundRef<'a> {
    Unknown,
    Numeric(&'a [u64]),
    Text(&'a str),
}

impl RoundTable {
    /// The code of a `Round` tag value, as [`RoundKey::parse`] reads it.
    fn code(&mut self, round: Option<&str>) -> u32 {
        let Some(text) = round.map(str::trim) else {
            return 0;
        };
        if text.is_empty() || text == "?" || text == "-" {
            return 0;
        }
        if let Some(code) = packed_round(text) {
            return code;
        }
        if let Some(&at) = self.index.get(text) {
            return ROUND_IN_TABLE | at;
        }
        let at = u32::try_from(self.keys.len())
            .ok()
            .filter(|&at| at < ROUND_IN_TABLE)
            .expect("fewer than 2^31 distinct rounds");
        self.keys.push(RoundKey::parse(Some(text)));
        self.index.insert(text.into(), at);
        ROUND_IN_TABLE | at
    }

    /// The round of a code; `numbers` holds a packed round's numbers.
    fn get<'a>(&'a self, code: u32, numbers: &'a mut [u64; 2]) -> RoundRef<'a> {
        if code & ROUND_IN_TABLE != 0 {
            return match self.keys.get((code & !ROUND_IN_TABLE) as usize) {
                Some(RoundKey::Numeric(parts)) => RoundRef::Numeric(parts),
                Some(RoundKey::Text(text)) => RoundRef::Text(text),
                Some(RoundKey::Unknown) | None => RoundRef::Unknown,
            };
        }
        if code == 0 {
            return RoundRef::Unknown;
        }
        numbers[0] = u64::from(code >> 16) - 1;
        match code & 0xFFFF {
            0 => RoundRef::Numeric(&numbers[..1]),
            b => {
                numbers[1] = u64::from(b) - 1;
                RoundRef::Numeric(&numbers[..])
            }
        }
    }

    fn cmp(&self, a: u32, b: u32) -> Ordering {
        if (a | b) & ROUND_IN_TABLE == 0 {
            return a.cmp(&b);
        }
        let (mut x, mut y) = ([0; 2], [0; 2]);
        self.get(a, &mut x).cmp(&self.get(b, &mut y))
    }

    /// Writes the round of `code` as text that reads back as the same round: empty when
    /// unknown, numbers joined by `.`, or the text.
    fn write_text(&self, code: u32, out: &mut String) {
        use std::fmt::Write;
        out.clear();
        let mut numbers = [0; 2];
        match self.get(code, &mut numbers) {
            RoundRef::Unknown => {}
            RoundRef::Numeric(parts) => {
                for (i, part) in parts.iter().enumerate() {
                    if i > 0 {
                        out.push('.');
                    }
                    let _ = write!(out, "{part}");
                }
            }
            RoundRef::Text(text) => out.push_str(text),
        }
    }

    /// Adds the rounds of `other`'s table and returns, for each of its entries, the code of
    /// the same round here.
    fn absorb(&mut self, other: &RoundTable) -> Vec<u32> {
        let mut text = String::new();
        (0..other.keys.len() as u32)
            .map(|at| {
                other.write_text(ROUND_IN_TABLE | at, &mut text);
                self.code(Some(&text))
            })
            .collect()
    }
}

/// The packed code of a round of one or two small numbers, if it is one.
fn packed_round(text: &str) -> Option<u32> {
    let mut parts = text.split('.');
    let a: u64 = parts.next()?.parse().ok()?;
    let b: Option<u64> = match parts.next() {
        None => None,
        Some(b) => Some(b.parse().ok()?),
    };
    if parts.next().is_some() || a >= 0x7FFF || b.is_some_and(|b| b >= 0xFFFF) {
        return None;
    }
    Some(((a as u32 + 1) << 16) | b.map_or(0, |b| b as u32 + 1))
}

/// One rated game as the log keeps it: 40 bytes in memory, 37 in a store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RatedGame {
    order: u64,
    date: u64,
    round: u32,
    white: NameId,
    black: NameId,
    /// 0 when untagged (tags are positive).
    white_elo: u32,
    black_elo: u32,
    score: Score,
}

impl RatedGame {
    /// White, a name of the accumulator's table.
    pub fn white(&self) -> NameId {
        self.white
    }

    /// Black.
    pub fn black(&self) -> NameId {
        self.black
    }

    /// The result.
    pub fn score(&self) -> Score {
        self.score
    }

    /// The date, if known.
    pub fn date(&self) -> Option<GameDate> {
        date_of(self.date)
    }

    /// The position of the game in the input.
    pub fn order(&self) -> u64 {
        self.order
    }

    /// The `WhiteElo` tag, if positive.
    pub fn white_elo(&self) -> Option<u32> {
        (self.white_elo > 0).then_some(self.white_elo)
    }

    /// The `BlackElo` tag, if positive.
    pub fn black_elo(&self) -> Option<u32> {
        (self.black_elo > 0).then_some(self.black_elo)
    }

    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.order.to_le_bytes());
        out.extend_from_slice(&self.date.to_le_bytes());
        out.extend_from_slice(&self.round.to_le_bytes());
        out.extend_from_slice(&self.white.raw().to_le_bytes());
        out.extend_from_slice(&self.black.raw().to_le_bytes());
        out.extend_from_slice(&self.white_elo.to_le_bytes());
        out.extend_from_slice(&self.black_elo.to_le_bytes());
        out.push(match self.score {
            Score::WhiteWin => 2,
            Score::Draw => 1,
            Score::BlackWin => 0,
        });
    }

    fn decode(bytes: &[u8; RECORD_BYTES]) -> io::Result<RatedGame> {
        let u64_at =
            |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or_default());
        let u32_at =
            |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap_or_default());
        let damaged = || io::Error::new(io::ErrorKind::InvalidData, "damaged rating run");
        let name = |at: usize| NameId::from_index(u32_at(at) as usize).ok_or_else(damaged);
        Ok(RatedGame {
            order: u64_at(0),
            date: u64_at(8),
            round: u32_at(16),
            white: name(20)?,
            black: name(24)?,
            white_elo: u32_at(28),
            black_elo: u32_at(32),
            score: match bytes[36] {
                2 => Score::WhiteWin,
                1 => Score::Draw,
                0 => Score::BlackWin,
                _ => return Err(damaged()),
            },
        })
    }
}

/// A rated game spelled out, names and round as text: how a log leaves its accumulator
/// (ids mean nothing outside their table) and comes back into another.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RatedEntry<'a> {
    /// White, as written.
    #[serde(borrow)]
    pub white: Cow<'a, str>,
    /// Black.
    #[serde(borrow)]
    pub black: Cow<'a, str>,
    /// The result.
    pub score: Score,
    /// The date, if known.
    pub date: Option<GameDate>,
    /// The round as text that reads back as the same round (see [`RoundKey::parse`]).
    #[serde(borrow)]
    pub round: Cow<'a, str>,
    /// The position of the game in the input.
    pub order: u64,
    /// The `WhiteElo` tag.
    pub white_elo: Option<u32>,
    /// The `BlackElo` tag.
    pub black_elo: Option<u32>,
}

/// The games sequential ratings replay, in chronological order: `Date`, `Round`, file order.
///
/// At most the run length of records is held in memory (see the [module docs](self)); the
/// rest is in the store. Games with the same date, round and file order (possible only if
/// callers reuse a file order) keep the order they were added in, so for them alone
/// `a.merge(b)` and `b.merge(a)` may differ. After an error from the store, the log's
/// contents are unspecified.
pub struct RatingLog {
    rounds: RoundTable,
    pending: Vec<RatedGame>,
    pending_sorted: bool,
    runs: SortedRuns,
    /// What [`shift_order`](Self::shift_order) has added to every file order so far.
    shift: u64,
    run_len: usize,
    len: u64,
}

impl fmt::Debug for RatingLog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RatingLog")
            .field("len", &self.len)
            .field("in_memory", &self.pending.len())
            .field("runs", &self.runs.runs().len())
            .field("stored_bytes", &self.runs.stored_bytes())
            .finish()
    }
}

impl Default for RatingLog {
    fn default() -> RatingLog {
        RatingLog::with_store(Box::new(MemoryStore::default()), DEFAULT_RUN_LEN)
    }
}

/// The new game a log is given: what [`RatedGame`] packs.
#[derive(Debug, Clone, Copy)]
pub struct NewRatedGame<'a> {
    /// White.
    pub white: NameId,
    /// Black.
    pub black: NameId,
    /// The result.
    pub score: Score,
    /// The date, if known.
    pub date: Option<GameDate>,
    /// The `Round` tag as written.
    pub round: Option<&'a str>,
    /// The position of the game in the input.
    pub order: u64,
    /// The `WhiteElo` tag (0 counts as no tag, as in the replays).
    pub white_elo: Option<u32>,
    /// The `BlackElo` tag.
    pub black_elo: Option<u32>,
}

impl RatingLog {
    /// An empty log kept in memory ([`MemoryStore`], runs of [`DEFAULT_RUN_LEN`]).
    pub fn new() -> RatingLog {
        RatingLog::default()
    }

    /// An empty log that hands every `run_len` records (at least 1) to `store`.
    pub(crate) fn with_store(store: Box<dyn RunStore>, run_len: usize) -> RatingLog {
        RatingLog {
            rounds: RoundTable::default(),
            pending: Vec::new(),
            pending_sorted: true,
            runs: SortedRuns::new(store),
            shift: 0,
            run_len: run_len.max(1),
            len: 0,
        }
    }

    /// Adds one game.
    ///
    /// # Errors
    ///
    /// When the run is full and the store cannot take it.
    pub fn push(&mut self, game: NewRatedGame<'_>) -> io::Result<()> {
        let record = RatedGame {
            order: game.order,
            date: date_code(game.date),
            round: self.rounds.code(game.round),
            white: game.white,
            black: game.black,
            white_elo: game.white_elo.unwrap_or(0),
            black_elo: game.black_elo.unwrap_or(0),
            score: game.score,
        };
        self.push_record(record)
    }

    fn push_record(&mut self, record: RatedGame) -> io::Result<()> {
        self.pending.push(record);
        self.pending_sorted = false;
        self.len += 1;
        if self.pending.len() >= self.run_len {
            self.seal()?;
        }
        Ok(())
    }

    /// The number of games.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the log has no games.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Moves every game `by` places later in file order.
    pub fn shift_order(&mut self, by: u64) {
        for game in &mut self.pending {
            game.order += by;
        }
        // Records in runs are stored less the shift of their time (see [`Records`]).
        self.shift = self.shift.wrapping_add(by);
    }

    /// How this log's records are ordered and stored.
    fn records(&self) -> Records<'_> {
        Records {
            rounds: &self.rounds,
            shift: self.shift,
        }
    }

    /// Sorts the records in memory, stably (equal keys stay in the order added).
    fn sort_pending(&mut self) {
        if !self.pending_sorted {
            let rounds = &self.rounds;
            self.pending.sort_by(|a, b| chrono_cmp(rounds, a, b));
            self.pending_sorted = true;
        }
    }

    /// Sorts the records in memory into a run in the store, then merges runs that piled up.
    fn seal(&mut self) -> io::Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        self.sort_pending();
        let records = Records {
            rounds: &self.rounds,
            shift: self.shift,
        };
        self.runs.push_run(&records, self.pending.iter().copied())?;
        self.pending.clear();
        Ok(())
    }

    /// Calls `f` with every game, earliest first.
    ///
    /// # Errors
    ///
    /// Errors of the store, and the first error of `f`, which ends the replay.
    pub fn replay(&mut self, f: impl FnMut(&RatedGame) -> io::Result<()>) -> io::Result<()> {
        self.sort_pending();
        self.replay_sorted(f)
    }

    /// Calls `f` with every game, earliest first, and its round as text that reads back as
    /// the same round (see [`RatedEntry::round`]).
    ///
    /// # Errors
    ///
    /// Errors of the store, and the first error of `f`, which ends the replay.
    pub(crate) fn replay_spelled(
        &mut self,
        mut f: impl FnMut(&RatedGame, &str) -> io::Result<()>,
    ) -> io::Result<()> {
        self.sort_pending();
        let mut text = String::new();
        self.replay_sorted(|game| {
            self.rounds.write_text(game.round, &mut text);
            f(game, &text)
        })
    }

    /// [`replay`](Self::replay) once the records in memory are sorted.
    fn replay_sorted(&self, mut f: impl FnMut(&RatedGame) -> io::Result<()>) -> io::Result<()> {
        let records = self.records();
        let mut games = self.runs.replay(&records, &self.pending)?;
        while let Some(game) = games.peek() {
            f(&game)?;
            games.advance()?;
        }
        Ok(())
    }

    /// Takes in every game of `other`, after this log's games; `names` maps `other`'s player
    /// ids onto the ones this log uses (see [`Names::absorb`](super::Names::absorb)).
    ///
    /// # Errors
    ///
    /// Errors of either store.
    pub fn merge(&mut self, mut other: RatingLog, names: &[NameId]) -> io::Result<()> {
        let rounds = self.rounds.absorb(&other.rounds);
        // Sorted runs stay sorted: names take no part in the order, and round codes are
        // mapped to codes of the same rounds.
        let remap = |mut game: RatedGame| {
            game.white = names[game.white.index()];
            game.black = names[game.black.index()];
            if game.round & ROUND_IN_TABLE != 0 {
                game.round = rounds[(game.round & !ROUND_IN_TABLE) as usize];
            }
            game
        };
        if !other.runs.runs().is_empty() {
            // Everything here comes before everything of `other`, runs included.
            self.seal()?;
            let records = Records {
                rounds: &self.rounds,
                shift: self.shift,
            };
            let read = |head: &Option<RatedGame>| {
                let game = head.ok_or_else(|| damaged(Records::KIND))?;
                Ok(remap(game))
            };
            self.runs
                .append_runs(&records, &other.runs, &other.records(), read)?;
            self.len += other.runs.runs().iter().map(|r| r.len).sum::<u64>();
        }
        for game in std::mem::take(&mut other.pending) {
            self.push_record(remap(game))?;
        }
        Ok(())
    }
}

/// The order of replay: date, round, file order.
fn chrono_cmp(rounds: &RoundTable, a: &RatedGame, b: &RatedGame) -> Ordering {
    a.date
        .cmp(&b.date)
        .then_with(|| rounds.cmp(a.round, b.round))
        .then_with(|| a.order.cmp(&b.order))
}

/// How a rating log's records sit in its runs: [`RatedGame`]s of [`RECORD_BYTES`] each,
/// sorted by [`chrono_cmp`].
///
/// A record's file order is stored less the log's `shift` at the time it is written and read
/// back plus the `shift` at the time it is read, so that
/// [`shift_order`](RatingLog::shift_order) moves the games in every run without rewriting it.
struct Records<'a> {
    rounds: &'a RoundTable,
    shift: u64,
}

impl RunFormat for Records<'_> {
    type Item<'i>
        = RatedGame
    where
        Self: 'i;
    type Pending = RatedGame;
    type Reader = Option<RatedGame>;
    type Writer = ();
    const KIND: &'static str = "rating";

    fn pending(&self, game: &RatedGame) -> RatedGame {
        *game
    }

    fn cmp(&self, a: RatedGame, b: RatedGame) -> Ordering {
        chrono_cmp(self.rounds, &a, &b)
    }

    fn encode(&self, _: &mut (), mut game: RatedGame, out: &mut Vec<u8>) -> io::Result<()> {
        game.order = game.order.wrapping_sub(self.shift);
        game.encode(out);
        Ok(())
    }

    fn decode(&self, head: &mut Option<RatedGame>, bytes: &mut RunBytes<'_>) -> io::Result<()> {
        let record: &[u8; RECORD_BYTES] = bytes
            .take(RECORD_BYTES)?
            .try_into()
            .map_err(|_| damaged(Self::KIND))?;
        let mut game = RatedGame::decode(record)?;
        game.order = game.order.wrapping_add(self.shift);
        *head = Some(game);
        Ok(())
    }

    fn head(&self, head: &Option<RatedGame>) -> Option<RatedGame> {
        *head
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{ChronoKey, Names};

    const ROUNDS: [&str; 24] = [
        "",
        "?",
        "-",
        " 3 ",
        "1",
        "2",
        "2.1",
        "2.10",
        "2.2",
        "10",
        "01",
        "+1",
        "1.1.1",
        "32766",
        "32767",
        "1.65534",
        "1.65535",
        "99999999999",
        "final",
        "Final",
        "1.",
        "a.1",
        "2.2.2",
        "3.0",
    ];

    fn games(n: usize) -> Vec<(NewRatedGame<'static>, ChronoKey)> {
        let dates = [
            None,
            GameDate::parse("2024.??.??"),
            GameDate::parse("2024.03.??"),
            GameDate::parse("2024.03.17"),
            GameDate::parse("2023.12.31"),
            Some(GameDate {
                year: 2024,
                month: Some(0),
                day: Some(255),
            }),
        ];
        let mut names = Names::new();
        let (a, b) = (names.intern("A"), names.intern("B"));
        (0..n)
            .map(|i| {
                let round = ROUNDS[(i * 7) % ROUNDS.len()];
                let date = dates[(i * 5) % dates.len()];
                // Some games share a file order, to see ties keep the order they came in.
                let order = (i / 3) as u64;
                let game = NewRatedGame {
                    white: if i % 2 == 0 { a } else { b },
                    black: if i % 2 == 0 { b } else { a },
                    score: [Score::WhiteWin, Score::Draw, Score::BlackWin][i % 3],
                    date,
                    round: Some(round),
                    order,
                    white_elo: (i % 4 != 0).then_some(2000 + i as u32),
                    black_elo: None,
                };
                let key = ChronoKey {
                    date,
                    round: RoundKey::parse(Some(round)),
                    order,
                };
                (game, key)
            })
            .collect()
    }

    /// What a log replays: (order, white elo) as identity, plus the spelled-out key.
    fn replayed(log: &mut RatingLog) -> Vec<(u64, Option<u32>, Option<GameDate>, String)> {
        let mut out = Vec::new();
        log.replay_spelled(|g, round| {
            out.push((g.order(), g.white_elo(), g.date(), round.to_owned()));
            Ok(())
        })
        .unwrap();
        out
    }

    /// Each replayed game's order and White's rating.
    fn orders_and_elos(log: &mut RatingLog) -> Vec<(u64, Option<u32>)> {
        replayed(log).iter().map(|g| (g.0, g.1)).collect()
    }

    /// The order a stable sort by [`ChronoKey`] gives.
    fn expected(games: &[(NewRatedGame<'static>, ChronoKey)]) -> Vec<(u64, Option<u32>)> {
        let mut sorted: Vec<_> = games.iter().collect();
        sorted.sort_by(|a, b| a.1.cmp(&b.1));
        sorted.iter().map(|(g, _)| (g.order, g.white_elo)).collect()
    }

    fn log_of(games: &[(NewRatedGame<'static>, ChronoKey)], run_len: usize) -> RatingLog {
        let mut log = RatingLog::with_store(Box::new(MemoryStore::default()), run_len);
        for (game, _) in games {
            log.push(*game).unwrap();
        }
        log
    }

    #[test]
    fn packed_dates_sort_like_dates() {
        let mut dates: Vec<Option<GameDate>> = vec![None];
        for year in [0, 1, 2024, u16::MAX] {
            for month in [None, Some(0), Some(1), Some(12), Some(255)] {
                for day in [None, Some(0), Some(1), Some(31), Some(255)] {
                    dates.push(Some(GameDate { year, month, day }));
                }
            }
        }
        for a in &dates {
            assert_eq!(date_of(date_code(*a)), *a);
            for b in &dates {
                assert_eq!(date_code(*a).cmp(&date_code(*b)), a.cmp(b), "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn round_codes_sort_like_round_keys_and_read_back() {
        let mut table = RoundTable::default();
        let codes: Vec<u32> = ROUNDS.iter().map(|r| table.code(Some(r))).collect();
        assert_eq!(table.code(None), 0);
        // Only rounds that do not pack take a table entry.
        assert_eq!(table.keys.len(), 9, "{:?}", table.keys);
        let mut text = String::new();
        for (i, a) in ROUNDS.iter().enumerate() {
            table.write_text(codes[i], &mut text);
            assert_eq!(
                RoundKey::parse(Some(&text)),
                RoundKey::parse(Some(a)),
                "{a:?} as {text:?}"
            );
            for (j, b) in ROUNDS.iter().enumerate() {
                let keys = RoundKey::parse(Some(a)).cmp(&RoundKey::parse(Some(b)));
                assert_eq!(table.cmp(codes[i], codes[j]), keys, "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn replay_is_a_stable_sort_by_date_round_and_order() {
        let games = games(300);
        let want = expected(&games);
        for run_len in [usize::MAX, 1000, 7, 1] {
            let mut log = log_of(&games, run_len);
            assert_eq!(orders_and_elos(&mut log), want, "runs of {run_len}");
            // Replaying twice gives the same.
            assert_eq!(orders_and_elos(&mut log), want, "runs of {run_len}, again");
        }
    }

    #[test]
    fn merged_logs_replay_as_one() {
        let games = games(200);
        let want = expected(&games);
        for split in [0, 1, 50, 199, 200] {
            for (left_run, right_run) in [(usize::MAX, usize::MAX), (3, 5), (1000, 2), (4, 1000)] {
                let (a, b) = games.split_at(split);
                let mut left = log_of(a, left_run);
                // The right log interns rounds in another order, so its table ids differ.
                let mut right = RatingLog::with_store(Box::new(MemoryStore::default()), right_run);
                right.rounds.code(Some("zzz"));
                for (game, _) in b {
                    right.push(*game).unwrap();
                }
                let names: Vec<NameId> = (0..2).map(|i| NameId::from_index(i).unwrap()).collect();
                left.merge(right, &names).unwrap();
                assert_eq!(left.len(), 200);
                assert_eq!(
                    orders_and_elos(&mut left),
                    want,
                    "split {split}, runs {left_run} and {right_run}"
                );
            }
        }
    }

    #[test]
    fn shifted_orders_apply_to_runs_and_memory() {
        let games = games(40);
        let mut log = log_of(&games, 16);
        log.shift_order(1000);
        let orders: Vec<u64> = replayed(&mut log).iter().map(|g| g.0).collect();
        let want: Vec<u64> = expected(&games).iter().map(|g| g.0 + 1000).collect();
        assert_eq!(orders, want);
    }

    #[test]
    fn records_read_back_as_written() {
        let mut table = RoundTable::default();
        let mut names = Names::new();
        let game = RatedGame {
            order: u64::MAX - 3,
            date: date_code(GameDate::parse("2024.03.17")),
            round: table.code(Some("final")),
            white: names.intern("A"),
            black: names.intern("B"),
            white_elo: 2850,
            black_elo: 0,
            score: Score::Draw,
        };
        let mut bytes = Vec::new();
        game.encode(&mut bytes);
        assert_eq!(bytes.len(), RECORD_BYTES);
        let back = RatedGame::decode(bytes.as_slice().try_into().unwrap()).unwrap();
        assert_eq!(back, game);
        bytes[36] = 7;
        assert!(RatedGame::decode(bytes.as_slice().try_into().unwrap()).is_err());
        assert_eq!(std::mem::size_of::<RatedGame>(), 40);
    }
}
