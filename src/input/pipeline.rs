//! The game pipeline: the caller receives what the per-game work made of every game, in
//! input order, so the output of `--jobs N` is byte-identical to `--jobs 1`.
//!
//! - One job: games are read in order on the caller's thread. With [`Lexing::Tags`], the
//!   work is first asked to find where the next game ends itself ([`Game::open`]), which
//!   saves a split pass; the results are the same.
//! - More jobs, when the stream has lines that likely end games ([`crate::pgn::cut`]): one
//!   thread cuts the stream into pieces without reading its games, workers read each
//!   piece's games as one job does, and a piece's results are used only when the piece is
//!   confirmed (`run_pieces`).
//! - More jobs otherwise: one thread splits the stream into games, workers lex them and do
//!   the work.
//!
//! Memory stays flat: channels are bounded, or pieces out are counted.

use std::collections::{BTreeMap, VecDeque};
use std::io::{self, Read};
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::mpsc::{channel, sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread;

use crate::pgn::{lex_game_at, lex_game_tags, lex_game_tags_open, GameReader, Lexed, Origin};

/// One game as the per-game work sees it: its bytes exactly as read (where the reader or a
/// batch holds them: never copied for the work) and its lexing.
#[derive(Debug)]
pub struct Game<'a> {
    pub bytes: &'a [u8],
    pub lexed: &'a mut Lexed,
    /// Game number in the stream (1-based).
    pub number: u64,
    /// Line of the game's first byte.
    pub line: u32,
    /// Column of the game's first byte.
    pub col: u32,
    /// Byte offset of the game in the stream.
    pub offset: u64,
    /// `Some(eof)` when the game's end is not known yet: `bytes` run on past it (to the end
    /// of the reader's buffer; `eof` when nothing follows). Only with [`Lexing::Tags`] and
    /// one job. Work that can find the end itself (a replay's fast path stops at the result)
    /// shortens `bytes` to the game and sets this to `None`; otherwise it returns `None` and
    /// is given the game again, found the usual way.
    pub open: Option<bool>,
    /// The work was given this game before, open, and returned `None`: what it tried then
    /// (and gave up on) need not be tried again.
    pub again: bool,
}

/// Set (by the Ctrl-C handler) to stop reading: games already read are finished and
/// delivered, the rest of the input is left.
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);

fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}

/// A batch's buffer larger than this (it grew for a huge game) is not kept for reuse.
const KEEP_BUFFER: usize = 1 << 20;

/// Reads every game of `reader`, applies `work` to each on `jobs` threads (inline when
/// `jobs <= 1`), and calls `sink` with the results in input order. Returns the bytes read.
///
/// # Errors
///
/// A read error of the input (after the games before it were delivered) or the first error
/// `sink` returns.
pub fn run<R, T, W, S>(reader: GameReader<R>, jobs: usize, work: W, sink: S) -> io::Result<u64>
where
    R: Read + Send,
    T: Send,
    W: Fn(&mut Game<'_>) -> T + Sync,
    S: FnMut(T) -> io::Result<()>,
{
    run_with(reader, jobs, Lexing::Full, |game| Some(work(game)), sink)
}

/// How [`run_with`] shares the work out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Strategy {
    /// One job: every game read and worked on this thread.
    Inline,
    /// Pieces of the stream go to the workers, each cut after a line that likely ends a game
    /// ([`run_pieces`]).
    Pieces,
    /// The reader thread splits the stream into games and lends its buffers to the workers,
    /// each as one batch: for a stream whose first piece holds no likely game end (a first
    /// game of a huge comment), where cutting pieces would find nothing to cut after.
    Batches,
}

/// The strategy for `jobs` threads, given the first [`PIECE`] bytes of the stream (or all of
/// it, when shorter); with one job, `first` is not looked at.
fn strategy(jobs: usize, first: &[u8]) -> Strategy {
    if jobs <= 1 {
        Strategy::Inline
    } else if first.len() < PIECE || crate::pgn::cut::last_likely_end(first).is_some() {
        Strategy::Pieces
    } else {
        Strategy::Batches
    }
}

/// How much of each game is lexed before `work` sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lexing {
    /// Every token.
    Full,
    /// The tags, and where the movetext begins ([`crate::pgn::lex_game_tags`]): for work that
    /// reads the movetext itself.
    Tags,
}

/// Like [`run`], lexing each game as `lexing` says. `work` returns `None` only for a game
/// whose end it was asked to find ([`Game::open`]) and could not: the game is then given
/// again, whole ([`Game::again`]). Any other game must give `Some` (debug builds assert it).
///
/// # Errors
///
/// As [`run`].
pub fn run_with<R, T, W, S>(
    mut reader: GameReader<R>,
    jobs: usize,
    lexing: Lexing,
    work: W,
    mut sink: S,
) -> io::Result<u64>
where
    R: Read + Send,
    T: Send,
    W: Fn(&mut Game<'_>) -> Option<T> + Sync,
    S: FnMut(T) -> io::Result<()>,
{
    if strategy(jobs, &[]) == Strategy::Inline {
        let mut scratch = Scratch::default();
        run_inline(&mut reader, lexing, &work, &mut sink, &mut scratch)?;
        return Ok(reader.bytes_read());
    }
    if strategy(jobs, reader.prefetch(PIECE)?) == Strategy::Pieces {
        return run_pieces(reader, jobs, lexing, PIECE, work, sink);
    }

    let lex = |game: &mut Game<'_>| lex_for(lexing, game);
    thread::scope(|scope| {
        let (job_tx, job_rx) = sync_channel::<(u64, Batch)>(jobs * 2);
        let (out_tx, out_rx) = sync_channel::<(u64, Vec<T>)>(jobs * 2);
        // Byte buffers of finished batches go back to the reader: no allocation per game or
        // batch once the pipeline runs, and no memory freed on another thread than took it.
        let (spare_tx, spare_rx) = channel::<Vec<u8>>();
        let job_rx = Arc::new(Mutex::new(job_rx));
        for _ in 0..jobs {
            let job_rx = Arc::clone(&job_rx);
            let out_tx = out_tx.clone();
            let spare_tx = spare_tx.clone();
            let work = &work;
            scope.spawn(move || {
                // One token buffer per worker, lent to each game in turn: no allocations per
                // game once it has grown.
                let mut lexed = Lexed::default();
                work_jobs(&job_rx, &out_tx, |mut batch: Batch| {
                    // Each game is read where it lies in the batch's buffer.
                    let bytes = &batch.bytes;
                    let results: Vec<T> = batch
                        .games
                        .iter_mut()
                        .filter_map(|place| {
                            // Only an oversized game's report travels from the reader.
                            let mut oversized = place.oversized.take().map(|l| *l);
                            let oversized_game = oversized.is_some();
                            let lex_here = !oversized_game && !place.range.is_empty();
                            let mut game = Game {
                                bytes: &bytes[place.range.clone()],
                                lexed: oversized.as_mut().unwrap_or(&mut lexed),
                                number: place.number,
                                line: place.line,
                                col: place.col,
                                offset: place.offset,
                                open: None,
                                again: false,
                            };
                            if lex_here {
                                // The reader only split the stream; lexing is the workers' job.
                                lex(&mut game);
                            } else if !oversized_game {
                                game.lexed.clear();
                            }
                            let done = work(&mut game);
                            debug_assert!(done.is_some(), "no result for a whole game");
                            done
                        })
                        .collect();
                    // A buffer that grew for a huge game is not kept.
                    if batch.bytes.capacity() <= KEEP_BUFFER {
                        let _ = spare_tx.send(std::mem::take(&mut batch.bytes));
                    }
                    results
                });
            });
        }
        drop(out_tx);
        drop(spare_tx);
        let producer = scope.spawn(move || -> io::Result<u64> {
            reader.set_split_only(true);
            // Games stay in the buffer they were read into; each buffer the reader retires
            // goes to a worker whole, as one batch.
            reader.lend_buffers();
            let mut lexed = Lexed::default();
            let mut seq = 0;
            let mut games = Vec::new();
            let mut send =
                |bytes: Vec<u8>, games: &mut Vec<GamePlace>, reader: &mut GameReader<R>| {
                    if games.is_empty() {
                        reader.give_spare(bytes);
                        return true;
                    }
                    let batch = Batch {
                        bytes,
                        games: std::mem::take(games),
                    };
                    let sent = job_tx.send((seq, batch)).is_ok();
                    seq += 1;
                    sent
                };
            while let Some(raw) = reader.next_game(&mut lexed)? {
                if interrupted() {
                    break;
                }
                let oversized = raw.bytes.is_empty() && !lexed.problems.is_empty();
                let place = GamePlace {
                    range: raw.at..raw.at + raw.bytes.len(),
                    number: raw.number,
                    line: raw.line,
                    col: raw.col,
                    offset: raw.offset,
                    oversized: oversized.then(|| Box::new(std::mem::take(&mut lexed))),
                };
                // A refill during this call retired the buffer of the games before this one.
                if let Some(bytes) = reader.take_retired() {
                    if !send(bytes, &mut games, &mut reader) {
                        return Ok(reader.bytes_read());
                    }
                }
                games.push(place);
                while let Ok(spare) = spare_rx.try_recv() {
                    reader.give_spare(spare);
                }
            }
            if let Some(bytes) = reader.take_retired() {
                send(bytes, &mut games, &mut reader);
            }
            let rest = reader.take_buffer();
            send(rest, &mut games, &mut reader);
            Ok(reader.bytes_read())
        });
        let delivered = deliver(out_rx, &mut sink);
        // On a sink error the receiver is gone: workers and the producer stop at their next
        // send.
        let read = joined(producer);
        delivered?;
        read
    })
}

/// Lexes `game` as `lexing` says.
/// Lexes a game as `lexing` says, from its first line and column.
pub(crate) fn lex_for(lexing: Lexing, game: &mut Game<'_>) {
    match lexing {
        Lexing::Full => {
            lex_game_at(game.bytes, true, game.line, game.col, game.lexed);
        }
        Lexing::Tags => lex_game_tags(game.bytes, game.line, game.col, game.lexed),
    }
}

/// Token buffers lent to each game in turn: no allocations per game once they have grown.
#[derive(Default)]
struct Scratch {
    lexed: Lexed,
    tags: Lexed,
}

/// Reads every game of `reader` on this thread, giving `sink` what `work` makes of each.
fn run_inline<R, T, W, S>(
    reader: &mut GameReader<R>,
    lexing: Lexing,
    work: &W,
    sink: &mut S,
    scratch: &mut Scratch,
) -> io::Result<()>
where
    R: Read,
    W: Fn(&mut Game<'_>) -> Option<T>,
    S: FnMut(T) -> io::Result<()>,
{
    run_inline_until(reader, lexing, work, sink, scratch, |_| false)
}

/// [`run_inline`], stopping before a game when `stop` says so.
fn run_inline_until<R, T, W, S, P>(
    reader: &mut GameReader<R>,
    lexing: Lexing,
    work: &W,
    sink: &mut S,
    scratch: &mut Scratch,
    mut stop: P,
) -> io::Result<()>
where
    R: Read,
    W: Fn(&mut Game<'_>) -> Option<T>,
    S: FnMut(T) -> io::Result<()>,
    P: FnMut(&mut GameReader<R>) -> bool,
{
    // When only the tags are lexed, the reader needs only to split the stream.
    let split = lexing == Lexing::Tags;
    reader.set_split_only(split);
    let Scratch { lexed, tags } = scratch;
    loop {
        if interrupted() || stop(reader) {
            break;
        }
        let mut again = false;
        if split {
            // First the work finds where the game ends, where it can (the replay's fast
            // path ends a plain game at its result): the stream is then read once, with
            // no split pass before the replay. Otherwise the game is read the usual way.
            let Some(peeked) = reader.peek_next()? else {
                break;
            };
            let (eof, line, col) = (peeked.eof, peeked.line, peeked.col);
            if lex_game_tags_open(peeked.bytes, eof, line, col, tags) {
                let mut game = Game {
                    bytes: peeked.bytes,
                    lexed: tags,
                    number: peeked.number,
                    line,
                    col,
                    offset: peeked.offset,
                    open: Some(eof),
                    again: false,
                };
                let done = work(&mut game);
                let (len, found) = (game.bytes.len(), game.open.is_none());
                match done {
                    Some(done) if found => {
                        if reader.take_peeked(len) {
                            sink(done)?;
                            continue;
                        }
                    }
                    _ => again = true,
                }
            }
        }
        let Some(raw) = reader.next_game(lexed)? else {
            break;
        };
        // The game is read where the reader holds it. An oversized game (no bytes) has
        // only the reader's report.
        let lex_here = split && !raw.bytes.is_empty();
        let mut game = Game {
            bytes: raw.bytes,
            lexed: if lex_here { &mut *tags } else { &mut *lexed },
            number: raw.number,
            line: raw.line,
            col: raw.col,
            offset: raw.offset,
            open: None,
            again,
        };
        if lex_here {
            lex_for(lexing, &mut game);
        }
        let done = work(&mut game);
        debug_assert!(done.is_some(), "no result for a whole game");
        if let Some(done) = done {
            sink(done)?;
        }
    }
    Ok(())
}

/// Pieces whose games were delivered as the workers read them (for tests: a property of
/// pieces is only worth something when some are).
#[doc(hidden)]
pub static PIECES_CONFIRMED: std::sync::atomic::AtomicUsize =
    std::sync::atomic::AtomicUsize::new(0);

/// [`run_with`] with the stream cut into pieces of about `piece` bytes for the workers
/// whatever it holds (for tests: pieces of a few bytes cut every input often).
///
/// # Errors
///
/// As [`run`].
#[doc(hidden)]
pub fn run_with_pieces<R, T, W, S>(
    reader: GameReader<R>,
    jobs: usize,
    lexing: Lexing,
    piece: usize,
    work: W,
    sink: S,
) -> io::Result<u64>
where
    R: Read + Send,
    T: Send,
    W: Fn(&mut Game<'_>) -> Option<T> + Sync,
    S: FnMut(T) -> io::Result<()>,
{
    run_pieces(reader, jobs.max(1), lexing, piece.max(1), work, sink)
}

/// Bytes the reader thread reads for a piece, before cutting it after its last line that
/// likely ends a game.
const PIECE: usize = 256 << 10;

/// A piece grows to this size at most while no line that likely ends a game is found in
/// it; then the rest of the stream is read in order, on one thread.
const MAX_PIECE: usize = 8 << 20;

/// How a piece of the stream ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PieceEnd {
    /// After a line that likely ends a game: the stream goes on.
    Cut,
    /// Where the stream ends.
    Eof,
    /// Where reading the stream failed.
    Error,
}

/// A piece of the stream for a worker: `bytes[..len]`, starting at `origin`, and the games
/// it likely holds ([`crate::pgn::cut::scan_piece`]), by which its games are numbered.
/// `bytes[len..valid]` is what follows in the stream (the start of the next piece): it shows
/// where the piece's last game ends.
struct Piece {
    bytes: Vec<u8>,
    len: usize,
    valid: usize,
    origin: Origin,
    /// The likely games before the piece, without the correction in `origin.games`
    /// ([`Delivery::drift`]).
    est: u64,
    likely: u64,
    end: PieceEnd,
    /// Not to be read by a worker: the games from here on are read in order.
    in_order: bool,
}

/// A piece back from a worker: its games' results, and whether they are the stream's,
/// that is, the piece held exactly the games it likely held and its end was a game's end.
struct PieceDone<T> {
    piece: Piece,
    results: Vec<T>,
    confirmed: bool,
}

/// Reads the games of `piece` with `work`.
fn read_piece<T, W>(
    mut piece: Piece,
    lexing: Lexing,
    work: &W,
    max_game: usize,
    scratch: &mut Scratch,
) -> PieceDone<T>
where
    W: Fn(&mut Game<'_>) -> Option<T>,
{
    let bytes = std::mem::take(&mut piece.bytes);
    let open_end = piece.end != PieceEnd::Eof;
    let span = (piece.len, piece.valid);
    let mut reader = GameReader::from_piece(bytes, span, piece.origin, max_game, open_end);
    let mut results = Vec::new();
    let read = run_inline(
        &mut reader,
        lexing,
        work,
        &mut |t| {
            results.push(t);
            Ok(())
        },
        scratch,
    );
    // A piece cut by a read error ends where the stream's reader stops anyway.
    let confirmed = read.is_ok()
        && !interrupted()
        && !reader.met_oversized()
        && (!reader.unfinished() || piece.end == PieceEnd::Error)
        && reader.games() - piece.origin.games == piece.likely;
    piece.bytes = reader.take_buffer();
    PieceDone {
        piece,
        results,
        confirmed,
    }
}

/// A worker of a pipeline: takes the next numbered job no other worker took, and sends what
/// `handle` makes of it under the same number, until the jobs end or nobody listens.
fn work_jobs<J, O>(
    jobs: &Mutex<Receiver<(u64, J)>>,
    out: &SyncSender<(u64, O)>,
    mut handle: impl FnMut(J) -> O,
) {
    loop {
        let next = jobs.lock().map(|rx| rx.recv());
        let Ok(Ok((seq, job))) = next else {
            break;
        };
        if out.send((seq, handle(job))).is_err() {
            break;
        }
    }
}

/// What a pipeline's reader thread read, or the error it met (a panic among them).
fn joined(reader: thread::ScopedJoinHandle<'_, io::Result<u64>>) -> io::Result<u64> {
    reader
        .join()
        .unwrap_or_else(|_| Err(io::Error::other("the reader thread panicked")))
}

/// [`run_with`] for two jobs or more when the stream has lines that likely end games. The
/// reader thread cuts the stream into pieces after such lines without reading its games,
/// and numbers each piece's games from the tag sections counted before it. Workers read
/// each piece's games whole (a replay that finds game ends itself reads the stream once).
/// The results are delivered in order, each piece's only once it is confirmed: it held
/// exactly the games counted, so its games were numbered right, and it ended at a game's
/// end. From a piece that is not, the games are read in order on the delivering thread, the
/// usual way, up to the start of a later confirmed piece; pieces numbered from the count
/// that was off go back to the workers renumbered. So the output is always that of one job.
fn run_pieces<R, T, W, S>(
    reader: GameReader<R>,
    jobs: usize,
    lexing: Lexing,
    piece: usize,
    work: W,
    mut sink: S,
) -> io::Result<u64>
where
    R: Read + Send,
    T: Send,
    W: Fn(&mut Game<'_>) -> Option<T> + Sync,
    S: FnMut(T) -> io::Result<()>,
{
    let max_game = reader.max_game();
    let (inner, first, eof) = reader.into_parts();
    let drift = AtomicI64::new(0);
    thread::scope(|scope| {
        // Unbounded, so that the delivering end can give a piece back to the workers without
        // waiting: the reader thread waits instead for pieces to come back (their buffers)
        // when enough are out.
        let (job_tx, job_rx) = channel::<(u64, Piece)>();
        // `None` after the last piece, from the reader thread.
        let (out_tx, out_rx) = sync_channel::<(u64, Option<PieceDone<T>>)>(jobs * 2);
        let (spare_tx, spare_rx) = channel::<Vec<u8>>();
        let job_rx = Arc::new(Mutex::new(job_rx));
        let redo_tx = job_tx.clone();
        for _ in 0..jobs {
            let job_rx = Arc::clone(&job_rx);
            let out_tx = out_tx.clone();
            let work = &work;
            scope.spawn(move || {
                let mut scratch = Scratch::default();
                work_jobs(&job_rx, &out_tx, |piece: Piece| {
                    Some(if piece.in_order {
                        PieceDone {
                            piece,
                            results: Vec::new(),
                            confirmed: false,
                        }
                    } else {
                        read_piece(piece, lexing, work, max_game, &mut scratch)
                    })
                });
            });
        }
        let end_tx = out_tx;
        let drift = &drift;
        let sizes = (piece, piece.saturating_mul(MAX_PIECE / PIECE), 2 * jobs + 8);
        let producer = scope.spawn(move || {
            let stream = (inner, first, eof);
            let mut seq = 0;
            let read = cut_pieces(stream, sizes, &job_tx, &spare_rx, drift, &mut seq);
            // The workers stay for pieces given back; the delivery learns here that no
            // more come.
            let _ = end_tx.send((seq, None));
            read
        });
        let mut delivery = Delivery {
            out_rx,
            pending: BTreeMap::new(),
            next: 0,
            front: VecDeque::new(),
            spare_tx,
            redo_tx,
            redone: 0,
            drift,
        };
        let delivered = delivery.deliver_pieces(&mut sink, lexing, &work, max_game);
        // On a sink error the receiver is gone: workers and the reader stop at their next
        // send.
        drop(delivery);
        let read = joined(producer);
        // A read error comes first: the delivery stops at it too.
        let read = read?;
        delivered.map(|()| read)
    })
}

/// The reader thread of [`run_pieces`]: reads the stream (after `first`, already read, and
/// `eof` if that is all) in pieces cut after lines that likely end games, and sends them to
/// the workers, numbered from the likely counts plus the delivering end's correction
/// (`drift`). Returns the bytes read.
fn cut_pieces<R: Read>(
    (mut inner, first, mut eof): (R, Vec<u8>, bool),
    (piece, max_piece, max_out): (usize, usize, usize),
    job_tx: &std::sync::mpsc::Sender<(u64, Piece)>,
    spare_rx: &Receiver<Vec<u8>>,
    drift: &AtomicI64,
    seq: &mut u64,
) -> io::Result<u64> {
    let mut filled = first.len();
    let mut buf = first;
    let mut origin = Origin {
        offset: 0,
        line: 1,
        col: 1,
        games: 0,
        stream_start: true,
    };
    let mut want = piece;
    // Set when no likely game end was found for too long: the rest goes to the delivering
    // end unread, to be read in order.
    let mut in_order = false;
    let mut send = |bytes: Vec<u8>, (len, valid), end: PieceEnd, in_order, origin: &mut Origin| {
        let piece_bytes = &bytes[..len];
        let (lines, likely) = crate::pgn::cut::scan_piece(piece_bytes);
        let col = crate::pgn::cut::column_after(piece_bytes, origin.col);
        // The games before, as the delivering end last found the likely counts off by.
        let games = origin
            .games
            .saturating_add_signed(drift.load(Ordering::Relaxed));
        let next = Piece {
            bytes,
            len,
            valid,
            origin: Origin { games, ..*origin },
            est: origin.games,
            likely,
            end,
            in_order,
        };
        origin.offset += len as u64;
        origin.line = origin
            .line
            .saturating_add(lines.try_into().unwrap_or(u32::MAX));
        origin.col = col;
        origin.games += likely;
        origin.stream_start = false;
        let sent = job_tx.send((*seq, next)).is_ok();
        *seq += 1;
        sent
    };
    // Pieces sent and not back yet; buffers back, to read into again.
    let mut out = 0usize;
    let mut spares: Vec<Vec<u8>> = Vec::new();
    loop {
        if interrupted() {
            return Ok(origin.offset);
        }
        while let Ok(spare) = spare_rx.try_recv() {
            spares.push(spare);
            out = out.saturating_sub(1);
        }
        // Memory stays flat: wait for a piece to come back when enough are out.
        while out >= max_out {
            let Ok(spare) = spare_rx.recv() else {
                return Ok(origin.offset);
            };
            spares.push(spare);
            out -= 1;
        }
        // Read up to the size wanted, or the end. Buffers keep their length when reused:
        // only new bytes are cleared before a read.
        while filled < want && !eof {
            if buf.len() < want {
                buf.resize(want, 0);
            }
            match inner.read(&mut buf[filled..want]) {
                Ok(0) => eof = true,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    if filled > 0 {
                        send(
                            buf,
                            (filled, filled),
                            PieceEnd::Error,
                            in_order,
                            &mut origin,
                        );
                    }
                    return Err(e);
                }
            }
        }
        if eof {
            if filled > 0 {
                send(buf, (filled, filled), PieceEnd::Eof, in_order, &mut origin);
            }
            return Ok(origin.offset);
        }
        let cut = if in_order {
            Some(filled)
        } else {
            crate::pgn::cut::last_likely_end(&buf[..filled])
        };
        let cut = match cut {
            Some(cut) => cut,
            None if filled < max_piece => {
                // A long game, or no game end seen yet: read on.
                want = (2 * filled).min(max_piece);
                continue;
            }
            None => {
                // Too long without a likely game end: read the rest in order.
                in_order = true;
                filled
            }
        };
        want = piece;
        let mut rest = spares.pop().unwrap_or_default();
        let left = filled - cut;
        if rest.len() < left {
            rest.resize(left, 0);
        }
        rest[..left].copy_from_slice(&buf[cut..filled]);
        if !send(buf, (cut, filled), PieceEnd::Cut, in_order, &mut origin) {
            return Ok(origin.offset);
        }
        out += 1;
        buf = rest;
        filled = left;
    }
}

/// The delivering end of [`run_pieces`]: pieces back from the workers, put in order.
struct Delivery<'a, T> {
    out_rx: Receiver<(u64, Option<PieceDone<T>>)>,
    /// Pieces back out of order (`None` for the end of the stream).
    pending: BTreeMap<u64, Option<PieceDone<T>>>,
    next: u64,
    /// Pieces taken back after reading some in order, before those of `pending`.
    front: VecDeque<PieceDone<T>>,
    spare_tx: std::sync::mpsc::Sender<Vec<u8>>,
    /// To give pieces back to the workers, to be read again numbered right.
    redo_tx: std::sync::mpsc::Sender<(u64, Piece)>,
    /// Pieces given back so far (their sequence numbers count down from `u64::MAX`).
    redone: u64,
    /// What to add to the likely counts for the games before a piece (the reader thread
    /// numbers the pieces it sends from it): set where reading in order found them off.
    drift: &'a AtomicI64,
}

impl<T> Delivery<'_, T> {
    /// The piece back from the workers as `seq`; `None` when there are no more.
    fn take(&mut self, seq: u64) -> Option<PieceDone<T>> {
        loop {
            if let Some(done) = self.pending.remove(&seq) {
                return done;
            }
            let (seq, done) = self.out_rx.recv().ok()?;
            self.pending.insert(seq, done);
        }
    }

    /// Gives `first` and the pieces after it whose games were numbered from a count that
    /// was off (they are confirmed, so where their games are is known) back to the workers,
    /// numbered from `games`, the count of games before `first`; their new results come
    /// first from [`Delivery::next_piece`] then.
    fn renumber(&mut self, first: PieceDone<T>, mut games: u64) {
        self.drift
            .store(games as i64 - first.piece.est as i64, Ordering::Relaxed);
        let mut seqs = Vec::new();
        let mut next = Some(first);
        while let Some(done) = next.take() {
            let mut piece = done.piece;
            let count = done.results.len() as u64;
            piece.origin.games = games;
            games += count;
            self.redone += 1;
            let seq = u64::MAX - self.redone;
            if self.redo_tx.send((seq, piece)).is_err() {
                break;
            }
            seqs.push(seq);
            // The pieces already back were numbered from the same count. (Not waiting for
            // more: the reader thread may be waiting for these to come back.)
            match self.ready_piece() {
                Some(after) if after.confirmed && after.piece.origin.games != games => {
                    next = Some(after);
                }
                Some(after) => self.front.push_front(after),
                None => {}
            }
        }
        let mut redone = Vec::new();
        for seq in seqs {
            redone.extend(self.take(seq));
        }
        for done in redone.into_iter().rev() {
            self.front.push_front(done);
        }
    }

    /// The next piece in stream order if it is back already.
    fn ready_piece(&mut self) -> Option<PieceDone<T>> {
        if let Some(done) = self.front.pop_front() {
            return Some(done);
        }
        while let Ok((seq, done)) = self.out_rx.try_recv() {
            self.pending.insert(seq, done);
        }
        match self.pending.get(&self.next) {
            Some(Some(_)) => self.next_piece(),
            _ => None,
        }
    }

    /// The next piece in stream order; `None` when there are no more.
    fn next_piece(&mut self) -> Option<PieceDone<T>> {
        if let Some(done) = self.front.pop_front() {
            return Some(done);
        }
        loop {
            match self.pending.remove(&self.next) {
                Some(Some(done)) => {
                    self.next += 1;
                    return Some(done);
                }
                Some(None) => {
                    // The end: it stays, for a later look.
                    self.pending.insert(self.next, None);
                    return None;
                }
                None => {}
            }
            let (seq, done) = self.out_rx.recv().ok()?;
            self.pending.insert(seq, done);
        }
    }

    /// Hands the results of confirmed pieces to `sink`, in order. From a piece that is not
    /// confirmed (or whose games were numbered from a count that was off), the stream is
    /// read in order on this thread, up to the start of a later piece where a game starts
    /// and whose games were numbered right: that piece's results are used again.
    fn deliver_pieces<W, S>(
        &mut self,
        sink: &mut S,
        lexing: Lexing,
        work: &W,
        max_game: usize,
    ) -> io::Result<()>
    where
        W: Fn(&mut Game<'_>) -> Option<T>,
        S: FnMut(T) -> io::Result<()>,
    {
        let mut games = 0;
        let mut scratch = Scratch::default();
        while let Some(done) = self.next_piece() {
            if done.confirmed && done.piece.origin.games == games {
                PIECES_CONFIRMED.fetch_add(1, Ordering::Relaxed);
                games += done.results.len() as u64;
                for r in done.results {
                    sink(r)?;
                }
                let _ = self.spare_tx.send(done.piece.bytes);
                continue;
            }
            if done.confirmed {
                // Where its games are is right; their numbers are not.
                self.renumber(done, games);
                continue;
            }
            let origin = Origin {
                games,
                ..done.piece.origin
            };
            let feed = Feed {
                delivery: self,
                current: Some(done),
                at: 0,
                taken: VecDeque::new(),
            };
            let mut reader = GameReader::with_origin(feed, max_game, origin);
            // No further ahead than needed: the pieces read stay until the reading passes
            // them.
            reader.set_read_size(16 << 10);
            let mut resume_at = None;
            let read = run_inline_until(&mut reader, lexing, work, sink, &mut scratch, |reader| {
                resume_at = resume_point(reader);
                resume_at.is_some()
            });
            games = reader.games();
            let feed = reader.into_inner();
            let pieces = feed.into_pieces();
            read?;
            let Some(resume_at) = resume_at else {
                // Read to the end.
                return Ok(());
            };
            for done in pieces.into_iter().rev() {
                if done.piece.origin.offset >= resume_at {
                    self.front.push_front(done);
                } else {
                    let _ = self.spare_tx.send(done.piece.bytes);
                }
            }
        }
        Ok(())
    }
}

/// Where reading in order can stop for the pieces' own results: the start of a confirmed
/// piece the reader has come to (only spaces between). Its games may have been numbered
/// from a count that was off; the delivery then has them read again.
fn resume_point<T>(reader: &mut GameReader<Feed<'_, '_, T>>) -> Option<u64> {
    let at = reader.bytes_read();
    // Pieces wholly read are not needed again.
    let feed = reader.inner_mut();
    while let Some(old) = feed.taken.front() {
        if old.piece.origin.offset + old.piece.len as u64 > at {
            break;
        }
        if let Some(old) = feed.taken.pop_front() {
            let _ = feed.delivery.spare_tx.send(old.piece.bytes);
        }
    }
    let buffered = reader.buffered();
    let feed = reader.inner();
    for done in feed.taken.iter().chain(feed.current.iter()) {
        let start = done.piece.origin.offset;
        if start < at {
            continue;
        }
        let gap = usize::try_from(start - at).ok()?;
        let spaces = buffered
            .get(..gap)?
            .iter()
            .all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c));
        return (spaces && done.confirmed).then_some(start);
    }
    None
}

/// Pieces read in order that [`Feed`] keeps, at most.
const FEED_KEEP: usize = 3;

/// The pieces from one on, in order, as one stream: for reading games in order. The pieces
/// read are kept, for their results where reading in order stops.
struct Feed<'d, 'a, T> {
    delivery: &'d mut Delivery<'a, T>,
    current: Option<PieceDone<T>>,
    at: usize,
    taken: VecDeque<PieceDone<T>>,
}

impl<T> Feed<'_, '_, T> {
    /// The pieces read from, in order.
    fn into_pieces(self) -> VecDeque<PieceDone<T>> {
        let mut pieces = self.taken;
        pieces.extend(self.current);
        pieces
    }
}

impl<T> Read for Feed<'_, '_, T> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let Some(done) = &self.current else {
                return Ok(0);
            };
            let piece = &done.piece;
            let left = &piece.bytes[self.at..piece.len];
            if !left.is_empty() {
                let n = left.len().min(buf.len());
                buf[..n].copy_from_slice(&left[..n]);
                self.at += n;
                return Ok(n);
            }
            match piece.end {
                PieceEnd::Eof => return Ok(0),
                PieceEnd::Error => return Err(io::Error::other("the input could not be read")),
                PieceEnd::Cut => {}
            }
            self.at = 0;
            // Keep only the last few pieces read (for where reading in order may stop): the
            // reader thread waits for pieces to come back.
            while self.taken.len() >= FEED_KEEP {
                if let Some(old) = self.taken.pop_front() {
                    let _ = self.delivery.spare_tx.send(old.piece.bytes);
                }
            }
            let next = self.delivery.next_piece();
            self.taken
                .extend(std::mem::replace(&mut self.current, next));
        }
    }
}

/// Games handed to a worker at once: a buffer the reader retired, and where each game lies
/// in it.
#[derive(Debug)]
struct Batch {
    bytes: Vec<u8>,
    games: Vec<GamePlace>,
}

/// One game of a [`Batch`].
#[derive(Debug)]
struct GamePlace {
    range: Range<usize>,
    number: u64,
    line: u32,
    col: u32,
    offset: u64,
    /// The reader's report of a game too large to keep (its bytes are empty).
    oversized: Option<Box<Lexed>>,
}

/// Hands results to `sink` in sequence order.
fn deliver<T, S>(out_rx: Receiver<(u64, Vec<T>)>, sink: &mut S) -> io::Result<()>
where
    S: FnMut(T) -> io::Result<()>,
{
    let mut pending: BTreeMap<u64, Vec<T>> = BTreeMap::new();
    let mut next = 0;
    for (seq, results) in out_rx {
        pending.insert(seq, results);
        while let Some(results) = pending.remove(&next) {
            for r in results {
                sink(r)?;
            }
            next += 1;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn::reader::Chunked;

    /// What `work` made of every game, in order.
    fn collect<R: Read + Send, T: Send>(
        reader: GameReader<R>,
        jobs: usize,
        lexing: Lexing,
        work: impl Fn(&mut Game<'_>) -> Option<T> + Sync,
    ) -> Vec<T> {
        let mut got = Vec::new();
        run_with(reader, jobs, lexing, work, |x| {
            got.push(x);
            Ok(())
        })
        .unwrap();
        got
    }

    fn numbers(input: &[u8], jobs: usize) -> Vec<(u64, usize)> {
        collect(GameReader::new(input), jobs, Lexing::Full, |g| {
            Some((g.number, g.lexed.tokens.len()))
        })
    }

    #[test]
    fn same_results_in_the_same_order_with_any_jobs() {
        let mut input = Vec::new();
        for i in 0..3000 {
            input.extend(
                format!("[Event \"{i}\"]\n\n1. e4 e5 {} *\n\n", "Nf3 ".repeat(i % 7)).bytes(),
            );
        }
        let one = numbers(&input, 1);
        assert_eq!(one.len(), 3000);
        assert_eq!(numbers(&input, 2), one);
        assert_eq!(numbers(&input, 3), one);
    }

    /// Every game as the work saw it: number, place and bytes, and its problems.
    type Seen = (u64, u32, u32, u64, Vec<u8>, usize);

    fn seen(input: &[u8], read_size: usize, jobs: usize, lexing: Lexing) -> Vec<Seen> {
        // Reads of `read_size` bytes make the reader refill (and retire its buffers) often.
        let reader = GameReader::with_limit(Chunked(input, read_size), 1024);
        // Open games declined, and games given again after that.
        let (declined, again) = (
            std::sync::atomic::AtomicUsize::new(0),
            std::sync::atomic::AtomicUsize::new(0),
        );
        let seen = collect(reader, jobs, lexing, |g| {
            again.fetch_add(usize::from(g.again), Ordering::Relaxed);
            if let Some(eof) = g.open {
                // A game whose end is not known yet: found here as the lexer finds it, but
                // every third one is declined, to be given again found the usual way.
                let mut lexed = Lexed::default();
                let end = crate::pgn::lexer::lex_game_mode(
                    g.bytes, eof, g.line, g.col, false, &mut lexed,
                );
                match end {
                    crate::pgn::LexEnd::Complete(len) if g.number % 3 != 0 => {
                        g.bytes = &g.bytes[..len];
                    }
                    _ => {
                        declined.fetch_add(1, Ordering::Relaxed);
                        return None;
                    }
                }
                g.open = None;
            }
            let bytes = g.bytes.to_vec();
            Some((
                g.number,
                g.line,
                g.col,
                g.offset,
                bytes,
                g.lexed.problems.len(),
            ))
        });
        let (declined, again) = (declined.into_inner(), again.into_inner());
        assert_eq!(
            again, declined,
            "each declined game is given again, marked so"
        );
        assert!(jobs > 1 || lexing == Lexing::Full || declined > 0);
        seen
    }

    #[test]
    fn pieces_are_used_again_after_one_read_in_order() {
        // A game without tags near the start: its piece holds one game more than it likely
        // holds (its tag sections), so it is read in order up to the next piece. The pieces
        // already sent, numbered from the count that was off, go back to the workers
        // renumbered; the reader numbers the next ones from the corrected count.
        let mut input = Vec::new();
        for i in 0..100_000 {
            let tags = if i == 1500 {
                String::new()
            } else {
                format!("[Event \"{i}\"]\n\n")
            };
            input.extend(format!("{tags}1. e4 e5 2. Nf3 1-0\n\n").bytes());
        }
        let here = thread::current().id();
        let on_this_thread = std::sync::atomic::AtomicUsize::new(0);
        let seen = |jobs: usize, piece: Option<usize>| {
            let work = |g: &mut Game<'_>| {
                if thread::current().id() == here {
                    on_this_thread.fetch_add(1, Ordering::Relaxed);
                }
                Some((g.number, g.line, g.col, g.offset, g.bytes.to_vec()))
            };
            let mut got = Vec::new();
            let sink = |x| {
                got.push(x);
                Ok(())
            };
            let reader = GameReader::new(&input[..]);
            match piece {
                Some(piece) => run_with_pieces(reader, jobs, Lexing::Full, piece, work, sink),
                None => run_with(reader, jobs, Lexing::Full, work, sink),
            }
            .unwrap();
            got
        };
        let one = seen(1, None);
        assert_eq!(one.len(), 100_000);
        on_this_thread.store(0, Ordering::Relaxed);
        assert_eq!(seen(2, Some(4096)), one);
        let in_order = on_this_thread.load(Ordering::Relaxed);
        assert!(
            in_order > 0 && in_order < 1000,
            "{in_order} games read in order: the pieces after the odd one are not used"
        );
    }

    #[test]
    fn games_handed_to_workers_in_place_are_the_games_read() {
        // Games of many sizes, one too large to keep, and refills of every size: the
        // workers see each game's bytes where the reader put them, in buffers it retired.
        let mut input = Vec::new();
        for i in 0..2000 {
            let moves = if i == 777 {
                "Nf3 Nf6 Ng1 Ng8 ".repeat(100)
            } else {
                "Nf3 Nf6 Ng1 Ng8 ".repeat(i % 9)
            };
            input.extend(format!("[Event \"{i}\"]\n\n1. e4 e5 {moves}*\n\n").bytes());
        }
        for lexing in [Lexing::Full, Lexing::Tags] {
            let one = seen(&input, 1 << 20, 1, lexing);
            assert_eq!(one.len(), 2000);
            assert!(
                one[777].4.is_empty() && one[777].5 == 1,
                "the oversized game"
            );
            for read_size in [97, 1000, 4096, 300_000] {
                for jobs in [2, 3] {
                    assert_eq!(
                        seen(&input, read_size, jobs, lexing),
                        one,
                        "reads of {read_size} bytes, {jobs} jobs"
                    );
                }
            }
        }
    }

    /// The strategy `run_with` takes for `input` with two jobs.
    fn strategy_for(input: &[u8]) -> Strategy {
        strategy(2, GameReader::new(input).prefetch(PIECE).unwrap())
    }

    #[test]
    fn each_strategy_gives_what_one_job_gives() {
        let games = |input: &mut Vec<u8>, from: usize| {
            for i in from..from + 2000 {
                let moves = "Nf3 Nf6 Ng1 Ng8 ".repeat(i % 9);
                input.extend(format!("[Event \"{i}\"]\n\n1. e4 e5 {moves}*\n\n").bytes());
            }
        };
        let mut small = Vec::new();
        games(&mut small, 0);
        // A first game of a comment longer than a piece and than the reader's first read,
        // on one line: nothing in the first piece to cut after.
        let mut huge_first =
            format!("[Event \"big\"]\n\n1. e4 {{{}}} *\n\n", "x".repeat(2 << 20)).into_bytes();
        games(&mut huge_first, 1);
        assert_eq!(strategy(1, &[]), Strategy::Inline);
        assert_eq!(strategy_for(&small), Strategy::Pieces);
        assert_eq!(strategy_for(&huge_first), Strategy::Batches);
        for input in [&small, &huge_first] {
            for lexing in [Lexing::Full, Lexing::Tags] {
                let one = seen(input, 1 << 20, 1, lexing);
                assert_eq!(one.len(), 2000 + usize::from(input == &huge_first));
                for read_size in [4096, 300_000] {
                    assert_eq!(seen(input, read_size, 2, lexing), one, "{read_size}");
                }
            }
        }
        // Pieces: a game in the middle larger than a piece may grow to, without a line that
        // likely ends a game; the rest is read in order.
        let piece = 4096;
        let mut grown = Vec::new();
        games(&mut grown, 0);
        grown.extend(
            format!(
                "[Event \"big\"]\n\n1. e4 {{{}}} *\n\n",
                "x".repeat(40 * piece)
            )
            .bytes(),
        );
        games(&mut grown, 2001);
        let numbered = |jobs: usize, piece: Option<usize>| {
            let work = |g: &mut Game<'_>| Some((g.number, g.offset, g.bytes.to_vec()));
            let mut got = Vec::new();
            let sink = |x| {
                got.push(x);
                Ok(())
            };
            let reader = GameReader::new(&grown[..]);
            match piece {
                Some(piece) => run_with_pieces(reader, jobs, Lexing::Full, piece, work, sink),
                None => run_with(reader, jobs, Lexing::Full, work, sink),
            }
            .unwrap();
            got
        };
        let one = numbered(1, None);
        assert_eq!(one.len(), 4001);
        assert_eq!(numbered(2, Some(piece)), one);
    }
}
