//! The pieces strategy of the pipeline: for two jobs or more on a stream with lines where
//! games start ([`crate::pgn::cut`]), a reader thread cuts the stream into pieces there without
//! reading its games,
//! workers read each piece's games, and a piece's results are delivered only once it is
//! confirmed; from a piece that is not, the games are read again in order.

use std::collections::{BTreeMap, VecDeque};
use std::io::{self, Read};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::mpsc::{channel, sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread;

use super::{interrupted, run_inline, Game, Scratch};
use crate::pgn::reader::RECORD_END;
use crate::pgn::{GameReader, Origin, PieceEnd, Unread};

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
/// As [`run_with`](super::run_with).
#[doc(hidden)]
pub fn run_with_pieces<R, T, W, S>(
    reader: GameReader<R>,
    jobs: usize,
    piece: usize,
    work: W,
    sink: S,
) -> io::Result<u64>
where
    R: Read + Send,
    T: Send,
    W: Fn(&mut Game<'_>) -> T + Sync,
    S: FnMut(T) -> io::Result<()>,
{
    run_pieces(reader, jobs.max(1), piece.max(1), work, sink)
}

/// Bytes the reader thread reads for a piece, before cutting it at its last game start.
pub(super) const PIECE: usize = 256 << 10;

/// A piece grows to this size at most while no game start is found in it; then the rest of
/// the stream is read in order, on one thread.
const MAX_PIECE: usize = 8 << 20;

/// A piece of the stream for a worker: `bytes[..len]`, starting at `origin`, and the games
/// that start in it ([`crate::pgn::cut::scan_piece`]), by which its games are numbered.
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

/// How every reader of a stream's pieces reads: as the stream's own reader would.
#[derive(Clone, Copy)]
struct Stream {
    max_game: usize,
    records: bool,
}

/// Reads the games of `piece` with `work`.
fn read_piece<T, W>(
    mut piece: Piece,
    work: &W,
    stream: Stream,
    scratch: &mut Scratch,
) -> PieceDone<T>
where
    W: Fn(&mut Game<'_>) -> T,
{
    let bytes = std::mem::take(&mut piece.bytes);
    let span = (piece.len, piece.valid);
    let mut reader = GameReader::from_piece(bytes, span, piece.origin, stream.max_game, piece.end)
        .with_records(stream.records);
    let mut results = Vec::new();
    let read = run_inline(
        &mut reader,
        work,
        &mut |t| {
            results.push(t);
            Ok(())
        },
        scratch,
        |_| false,
    );
    let games = reader.games() - piece.origin.games;
    let (bytes, whole) = reader.into_piece();
    let confirmed = read.is_ok() && !interrupted() && whole && games == piece.likely;
    piece.bytes = bytes;
    PieceDone {
        piece,
        results,
        confirmed,
    }
}

/// [`run_with`] for two jobs or more when the stream has lines where games start. The
/// reader thread cuts the stream into pieces there without reading its games,
/// and numbers each piece's games from the tag sections counted before it. Workers read
/// each piece's games whole (a replay that finds game ends itself reads the stream once).
/// The results are delivered in order, each piece's only once it is confirmed: it held
/// exactly the games counted, so its games were numbered right, and it ended at a game's
/// end. From a piece that is not, the games are read in order on the delivering thread, the
/// usual way, up to the start of a later confirmed piece; pieces numbered from the count
/// that was off go back to the workers renumbered. So the output is always that of one job.
pub(super) fn run_pieces<R, T, W, S>(
    reader: GameReader<R>,
    jobs: usize,
    piece: usize,
    work: W,
    mut sink: S,
) -> io::Result<u64>
where
    R: Read + Send,
    T: Send,
    W: Fn(&mut Game<'_>) -> T + Sync,
    S: FnMut(T) -> io::Result<()>,
{
    let unread = reader.into_unread();
    let stream = Stream {
        max_game: unread.max_game,
        records: unread.records,
    };
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
                        read_piece(piece, work, stream, &mut scratch)
                    })
                });
            });
        }
        let end_tx = out_tx;
        let drift = &drift;
        let sizes = (piece, piece.saturating_mul(MAX_PIECE / PIECE), 2 * jobs + 8);
        let producer = scope.spawn(move || {
            let mut seq = 0;
            let read = cut_pieces(unread, sizes, &job_tx, &spare_rx, drift, &mut seq);
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
        let delivered = delivery.deliver_pieces(&mut sink, &work, stream);
        // On a sink error the receiver is gone: workers and the reader stop at their next
        // send.
        drop(delivery);
        // A read error (a panic among them) comes first: the delivery stops at it too.
        let read = producer
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the reader thread panicked")))?;
        delivered.map(|()| read)
    })
}

/// The reader thread of [`run_pieces`]: reads the stream (what is buffered first) in pieces
/// cut where games start, and sends them to
/// the workers, numbered from the likely counts plus the delivering end's correction
/// (`drift`). Returns the bytes read.
fn cut_pieces<R: Read>(
    Unread {
        source: mut inner,
        buffered: first,
        mut eof,
        records,
        ..
    }: Unread<R>,
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
    // Set when no game start was found for too long: the rest goes to the delivering
    // end unread, to be read in order.
    let mut in_order = false;
    let mut send = |bytes: Vec<u8>, (len, valid), end: PieceEnd, in_order, origin: &mut Origin| {
        let piece_bytes = &bytes[..len];
        let (lines, likely) = crate::pgn::cut::scan_piece(piece_bytes, records);
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
        let mut error = None;
        while filled < want && !eof && error.is_none() {
            if buf.len() < want {
                buf.resize(want, 0);
            }
            match inner.read(&mut buf[filled..want]) {
                Ok(0) => eof = true,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => error = Some(e),
            }
        }
        if eof || error.is_some() {
            if filled > 0 {
                let end = if error.is_some() {
                    PieceEnd::Error
                } else {
                    PieceEnd::Eof
                };
                send(buf, (filled, filled), end, in_order, &mut origin);
            }
            return error.map_or(Ok(origin.offset), Err);
        }
        let cut = if in_order {
            Some(filled)
        } else if records {
            crate::pgn::cut::last_record_end(&buf[..filled])
        } else {
            crate::pgn::cut::last_game_start(&buf[..filled])
        };
        let cut = match cut {
            Some(cut) => cut,
            None if filled < max_piece => {
                // A long game, or no game start seen yet: read on.
                want = (2 * filled).min(max_piece);
                continue;
            }
            None => {
                // Too long without a game start: read the rest in order.
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
        for seq in seqs.into_iter().rev() {
            if let Some(done) = self.take(seq) {
                self.front.push_front(done);
            }
        }
    }

    /// The next piece in stream order if it is back already.
    fn ready_piece(&mut self) -> Option<PieceDone<T>> {
        while let Ok((seq, done)) = self.out_rx.try_recv() {
            self.pending.insert(seq, done);
        }
        let ready = !self.front.is_empty() || matches!(self.pending.get(&self.next), Some(Some(_)));
        ready.then(|| self.next_piece()).flatten()
    }

    /// The next piece in stream order; `None` when there are no more.
    fn next_piece(&mut self) -> Option<PieceDone<T>> {
        if let Some(done) = self.front.pop_front() {
            return Some(done);
        }
        let done = self.take(self.next);
        if done.is_some() {
            self.next += 1;
        } else {
            // The end: it stays, for a later look.
            self.pending.insert(self.next, None);
        }
        done
    }

    /// Hands the results of confirmed pieces to `sink`, in order. From a piece that is not
    /// confirmed (or whose games were numbered from a count that was off), the stream is
    /// read in order on this thread, up to the start of a later piece where a game starts
    /// and whose games were numbered right: that piece's results are used again.
    fn deliver_pieces<W, S>(&mut self, sink: &mut S, work: &W, stream: Stream) -> io::Result<()>
    where
        W: Fn(&mut Game<'_>) -> T,
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
            let mut reader =
                GameReader::following(feed, stream.max_game, origin).with_records(stream.records);
            let mut resume_at = None;
            let read = run_inline(&mut reader, work, sink, &mut scratch, |reader| {
                resume_at = resume_point(reader, stream.records);
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
/// piece the reader has come to (only spaces between, and in a stream of `records` the end
/// of the last record read). Its games may have been numbered from a count that was off; the
/// delivery then has them read again.
fn resume_point<T>(reader: &mut GameReader<Feed<'_, '_, T>>, records: bool) -> Option<u64> {
    let at = reader.bytes_read();
    let space = |b: &u8| {
        matches!(b, b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c) || (records && *b == RECORD_END)
    };
    // Pieces start at a game's tag line (or a record): the reader may have read a game to
    // its end with only the line breaks before the next piece left, and not that piece yet.
    let (feed, buffered) = reader.source_mut();
    if buffered.iter().all(space) {
        feed.read_on();
    }
    // Pieces wholly read are not needed again.
    let (feed, buffered) = reader.source_mut();
    while let Some(old) = feed.taken.front() {
        if old.piece.origin.offset + old.piece.len as u64 > at {
            break;
        }
        if let Some(old) = feed.taken.pop_front() {
            let _ = feed.delivery.spare_tx.send(old.piece.bytes);
        }
    }
    for done in feed.taken.iter().chain(feed.current.iter()) {
        let start = done.piece.origin.offset;
        if start < at {
            continue;
        }
        let gap = usize::try_from(start - at).ok()?;
        let spaces = buffered.get(..gap)?.iter().all(space);
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
    /// Moves on to the next piece when the current one is read to its end and the stream
    /// goes on after it.
    fn read_on(&mut self) {
        let Some(done) = &self.current else {
            return;
        };
        if self.at < done.piece.len || done.piece.end != PieceEnd::Cut {
            return;
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
                PieceEnd::Cut => self.read_on(),
            }
        }
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
        let Ok(done) = std::panic::catch_unwind(AssertUnwindSafe(|| handle(job))) else {
            // A bug in pgnkit (its message is out already). The other threads would wait
            // for this one's result for ever: the run ends here, as failed.
            eprintln!(
                "pgnkit: internal error: a worker thread panicked on a game of this input; \
                 please report it with the input"
            );
            std::process::exit(2);
        };
        if out.send((seq, done)).is_err() {
            break;
        }
    }
}
