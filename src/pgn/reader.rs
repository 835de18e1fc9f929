//! The streaming game reader: splits any byte stream into games with a bounded buffer.
//!
//! The reader keeps one buffer. It lexes from the start of the next game; when the buffer ends
//! before the game does, it reads more and lexes that game again. A game larger than the limit
//! is reported ([`LexProblemKind::GameTooLarge`]) and skipped in one pass to where it ends, so
//! memory stays bounded and time linear whatever the input.

use std::io::{self, Read};

use super::cut::column_after;
use super::lexer::{
    count_chars, count_lines, is_bare_cr, is_space, last_tag_line, lex_game_mode, lex_window,
    wide_space, Carry, LexEnd, LexProblem, LexProblemKind, Lexed, Span, Window,
};

/// Bytes read from the source at a time.
const CHUNK: usize = 1 << 20;

/// Default limit on the size of one game.
pub const DEFAULT_MAX_GAME: usize = 32 << 20;

/// The byte that ends a record in a stream of records ([`GameReader::with_records`]): one
/// that UTF-8 text never holds, so no text written between two of them can fake one.
pub const RECORD_END: u8 = 0xFF;

/// One game's bytes, exactly as read, and where they were.
#[derive(Debug)]
pub struct RawGame<'a> {
    /// The game's bytes, from its first token to its last. Empty for a skipped oversized game.
    pub bytes: &'a [u8],
    /// Byte offset of the game in the stream.
    pub offset: u64,
    /// Line (1-based) of the game's first byte.
    pub line: u32,
    /// Column (1-based, in characters) of the game's first byte.
    pub col: u32,
    /// Game number in the stream (1-based).
    pub number: u64,
}

/// What [`GameReader::peek_next`] shows: the next game's bytes and more.
#[derive(Debug)]
pub(crate) struct Peeked<'a> {
    /// From the game's first byte to the end of what is buffered.
    pub bytes: &'a [u8],
    /// Nothing follows `bytes` in the stream.
    pub eof: bool,
    /// Byte offset of the game in the stream.
    pub offset: u64,
    /// Line (1-based) of the game's first byte.
    pub line: u32,
    /// Column (1-based, in characters) of the game's first byte.
    pub col: u32,
    /// The game's number in the stream (1-based), once taken.
    pub number: u64,
    /// The longest game [`GameReader::take_peeked`] takes here (the size limit, and the end
    /// of a piece of the stream).
    pub max_len: usize,
    /// A point of `bytes` by which a game whose movetext has begun before it surely ends:
    /// the line break before the last line of the buffer that starts like a tag pair, or the
    /// end of `bytes` when nothing follows them ([`crate::pgn::lexer::last_tag_line`]).
    pub ends_by: Option<usize>,
}

/// Splits a byte stream into games. Its public face is small: made with [`GameReader::new`]
/// (or [`GameReader::with_limit`]), it gives the next game ([`GameReader::next_game`]) and
/// says how far it got ([`GameReader::games`], [`GameReader::bytes_read`]); the rest serves
/// the crate's pipeline (pieces, records, open games).
///
/// ```
/// use pgnkit::pgn::{GameReader, Lexed};
///
/// let pgn = "[Event \"a\"]\n\n1. e4 e5 1-0\n\n[Event \"b\"]\n\n1. d4 *\n";
/// let mut reader = GameReader::new(pgn.as_bytes());
/// let mut lexed = Lexed::default();
/// let mut events = Vec::new();
/// while let Some(game) = reader.next_game(&mut lexed)? {
///     assert_eq!(game.line, if game.number == 1 { 1 } else { 5 });
///     events.push(lexed.tag("Event").unwrap_or_default().to_owned());
/// }
/// assert_eq!(events, ["a", "b"]);
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct GameReader<R> {
    inner: R,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    eof: bool,
    offset: u64,
    line: u32,
    games: u64,
    max_game: usize,
    at_stream_start: bool,
    /// Column (in characters, 1-based) of `buf[start]` on its line.
    col: u32,
    /// Only split games (tags and problems are found, tokens are not recorded).
    split_only: bool,
    /// The stream does not end where the source does ([`GameReader::from_piece`]): a game
    /// still open there is left unread, not ended.
    open_end: bool,
    /// The source of an open-ended reader has nothing more.
    exhausted: bool,
    /// An open-ended reader stopped before a game it could not finish: what follows the
    /// source decides that game.
    unfinished: bool,
    /// The piece ends where reading the stream failed ([`PieceEnd::Error`]).
    cut_by_error: bool,
    /// The buffer holds all there is ([`GameReader::from_piece`]).
    piece_only: bool,
    /// An open-ended reader met a game too large to keep.
    oversized: bool,
    /// Bytes read from the source at a time.
    read_size: usize,
    /// No game starting at or after this index of `buf` is read: the bytes from here on
    /// only show where the games before end ([`GameReader::from_piece`]).
    limit: usize,
    /// A `\r` was read: lines must be counted with their `\r` breaks too (old Mac files),
    /// which a stream without any need not pay for.
    cr_seen: bool,
    /// Where the last line of `buf[..end]` that starts like a tag pair begins (its line
    /// break), once asked ([`GameReader::peek_next`]); found again after each refill.
    last_tag_line: Option<Option<usize>>,
    /// The stream is records, each one game at most ([`GameReader::with_records`]).
    records: bool,
    /// In a stream of records: the record of the last game read has its end still ahead, so
    /// the next end of a record passed over is that one's, and an end met without one open
    /// ends a record that holds no game.
    record_open: bool,
}

/// Where a piece of a stream starts in it, for [`GameReader::from_piece`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Origin {
    /// Byte offset in the stream.
    pub offset: u64,
    /// Line of the first byte.
    pub line: u32,
    /// Column of the first byte (in characters, 1-based).
    pub col: u32,
    /// Games before the piece.
    pub games: u64,
    /// Whether the piece starts the stream (where a byte order mark may be).
    pub stream_start: bool,
}

impl<R: Read> GameReader<R> {
    /// A reader of the games in `inner`, skipping (and reporting) a game larger than the
    /// default limit.
    pub fn new(inner: R) -> Self {
        Self::with_limit(inner, DEFAULT_MAX_GAME)
    }

    /// A reader that skips (and reports) games larger than `max_game` bytes.
    pub fn with_limit(inner: R, max_game: usize) -> Self {
        GameReader {
            inner,
            buf: Vec::new(),
            start: 0,
            end: 0,
            eof: false,
            offset: 0,
            line: 1,
            games: 0,
            max_game: max_game.max(1024),
            at_stream_start: true,
            col: 1,
            split_only: false,
            open_end: false,
            exhausted: false,
            unfinished: false,
            cut_by_error: false,
            piece_only: false,
            oversized: false,
            read_size: CHUNK,
            limit: usize::MAX,
            cr_seen: false,
            last_tag_line: None,
            records: false,
            record_open: false,
        }
    }

    /// A reader of a stream of records, each ended by [`RECORD_END`] and holding one game:
    /// a game never runs on past the end of its record, whatever the record holds (no
    /// result, a comment or variation left open), and the byte itself is passed over as
    /// space. A record with no game in it (nothing, or only space or comments) is a game of
    /// no bytes with the problem [`LexProblemKind::EmptyRecord`], so the games are the
    /// records one for one. For a source whose games come one a record, as a Parquet file's
    /// rows do, and must not run into each other as PGN text would. (`false` leaves the
    /// reader as it is: for a caller that passes on what another reader was.)
    #[must_use]
    pub(crate) fn with_records(mut self, records: bool) -> Self {
        self.records |= records;
        self
    }

    /// The bytes the next game may take, and whether nothing after them can be its: what is
    /// buffered (complete at the end of the stream), or in a stream of records, up to the end
    /// of the record when it is buffered (complete then).
    fn window(&self) -> (&[u8], bool) {
        let data = &self.buf[self.start..self.end];
        if self.records {
            if let Some(p) = memchr::memchr(RECORD_END, data) {
                return (&data[..p], true);
            }
        }
        (data, self.eof)
    }

    /// A reader of the stream `inner`, which starts at `origin` of a larger one, that reads
    /// no further ahead than it must (16 KiB at a time): the pipeline's reading in order of
    /// pieces its workers read, which keeps those pieces until the reading passes them.
    pub(crate) fn following(inner: R, max_game: usize, origin: Origin) -> Self {
        let mut reader = Self::at_origin(inner, max_game, origin);
        reader.read_size = 16 << 10;
        reader
    }

    /// A reader of the stream `inner`, which starts at `origin` of a larger one.
    fn at_origin(inner: R, max_game: usize, origin: Origin) -> Self {
        let mut reader = Self::with_limit(inner, max_game);
        reader.offset = origin.offset;
        reader.line = origin.line;
        reader.col = origin.col;
        reader.games = origin.games;
        reader.at_stream_start = origin.stream_start;
        reader
    }

    /// Reads until `n` bytes are buffered or the stream ends, before any game is read;
    /// returns what is buffered.
    ///
    /// # Errors
    ///
    /// Errors of the underlying reader.
    pub(crate) fn prefetch(&mut self, n: usize) -> io::Result<&[u8]> {
        debug_assert_eq!(self.offset, 0, "only before the first game");
        while self.end - self.start < n && self.fill()? {}
        Ok(&self.buf[self.start..self.end])
    }

    /// The stream as it stands, for a caller that reads the rest of it itself, before any
    /// game is read.
    pub(crate) fn into_unread(mut self) -> Unread<R> {
        debug_assert_eq!(self.offset, 0, "only before the first game");
        self.buf.truncate(self.end);
        self.buf.drain(..self.start);
        Unread {
            source: self.inner,
            buffered: self.buf,
            eof: self.eof,
            max_game: self.max_game,
            records: self.records,
        }
    }

    /// The source, to change, and what is read from it and not consumed yet (from
    /// [`GameReader::bytes_read`] on).
    pub(crate) fn source_mut(&mut self) -> (&mut R, &[u8]) {
        (&mut self.inner, &self.buf[self.start..self.end])
    }

    /// The source, giving up what is buffered.
    pub(crate) fn into_inner(self) -> R {
        self.inner
    }

    /// Games read so far, those before the origin included.
    pub fn games(&self) -> u64 {
        self.games
    }

    /// Only split the stream into games: `next_game` then fills in tags and problems but no
    /// tokens (lex each game's bytes afterwards with [`super::lexer::lex_game_mode`]). Public for the
    /// tests that hold splitting to lexing, as the pipeline's other hooks are.
    #[doc(hidden)]
    pub fn set_split_only(&mut self, split_only: bool) {
        self.split_only = split_only;
    }

    /// Bytes consumed so far.
    pub fn bytes_read(&self) -> u64 {
        self.offset
    }

    /// Reads more bytes into the buffer, compacting or growing it. Returns false at the end of
    /// the stream.
    fn fill(&mut self) -> io::Result<bool> {
        if self.eof || self.exhausted {
            return Ok(false);
        }
        self.last_tag_line = None;
        if self.piece_only {
            // The piece is all there is: nothing to compact or read.
            if self.open_end {
                self.exhausted = true;
            } else {
                self.eof = true;
            }
            return Ok(false);
        }
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        let chunk = self.read_size;
        if self.buf.len() < self.end + chunk {
            self.buf.resize(self.end + chunk, 0);
        }
        loop {
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.cr_seen = self.cr_seen
                        || memchr::memchr(b'\r', &self.buf[self.end..self.end + n]).is_some();
                    self.end += n;
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }

    fn consume(&mut self, n: usize, lines: u32) {
        let consumed = &self.buf[self.start..self.start + n];
        self.col = match memchr::memrchr(b'\n', consumed) {
            // Without a `\r` in the stream, the last line starts after the last `\n`.
            Some(p) if !self.cr_seen => 1 + count_chars(&consumed[p + 1..]),
            _ => column_after(consumed, self.col),
        };
        self.start += n;
        self.offset += n as u64;
        self.line = lines;
    }

    /// Skips whitespace (and a UTF-8 byte order mark at the start of the stream) before a game.
    fn skip_space(&mut self) -> io::Result<()> {
        loop {
            if self.at_stream_start {
                while self.end - self.start < 3 && self.fill()? {}
                if self.buf[self.start..self.end].starts_with(&[0xEF, 0xBB, 0xBF]) {
                    let line = self.line;
                    self.consume(3, line);
                    self.col = 1;
                }
                self.at_stream_start = false;
            }
            let data = &self.buf[self.start..self.end];
            let mut n = 0;
            let mut lines = self.line;
            // A `\r` at the end of what is buffered may be the first half of `\r\n`: it is
            // left for after the next read.
            let mut cut_cr = false;
            while n < data.len() {
                let b = data[n];
                if self.records && b == RECORD_END {
                    if !self.record_open {
                        // A record that holds no game: it is read as one.
                        break;
                    }
                    self.record_open = false;
                    n += 1;
                } else if is_space(b) {
                    if b == b'\r' && n + 1 == data.len() && !self.eof {
                        cut_cr = true;
                        break;
                    }
                    lines += u32::from(b == b'\n' || is_bare_cr(data, n));
                    n += 1;
                } else {
                    match wide_space(&data[n..]) {
                        0 => break,
                        w => n += w,
                    }
                }
            }
            // A wide space may be cut at the end of the buffer: read more before deciding.
            let all =
                n == data.len() || cut_cr || (data.len() - n < 3 && data[n] >= 0x80 && !self.eof);
            self.consume(n, lines);
            if !all {
                return Ok(());
            }
            if !self.fill()? {
                // The `\r` left ends the stream: a line break after all.
                if cut_cr && self.eof {
                    continue;
                }
                return Ok(());
            }
        }
    }

    /// Reads the next game into `lexed` and returns its bytes, or `None` at the end.
    ///
    /// # Errors
    ///
    /// Only errors of the underlying reader; any bytes at all make games (possibly with
    /// problems in `lexed.problems`).
    pub fn next_game(&mut self, lexed: &mut Lexed) -> io::Result<Option<RawGame<'_>>> {
        loop {
            if !self.game_ahead()? {
                lexed.clear();
                return Ok(None);
            }
            let (data, eof) = self.window();
            // Splitting only needs where the game ends: no tokens.
            let len = match lex_game_mode(data, eof, self.line, self.col, !self.split_only, lexed) {
                LexEnd::Complete(len) => len.max(1).min(data.len()),
                LexEnd::NeedMore => {
                    if self.exhausted {
                        self.unfinished = true;
                        lexed.clear();
                        return Ok(None);
                    }
                    if self.end - self.start >= self.max_game {
                        if self.open_end {
                            self.oversized = true;
                            lexed.clear();
                            return Ok(None);
                        }
                        return self.skip_oversized(lexed).map(Some);
                    }
                    // Lexing starts again from the game's first byte, so grow what is buffered
                    // geometrically: a long game costs linear time however small the reads.
                    let target = (2 * (self.end - self.start))
                        .max(self.read_size)
                        .min(self.max_game);
                    while self.end - self.start < target && self.fill()? {}
                    continue;
                }
            };
            if self.start + len > self.limit {
                // The game (or commentary) runs on past the piece.
                self.unfinished = true;
                lexed.clear();
                return Ok(None);
            }
            if !lexed.content && lexed.problems.is_empty() {
                if self.records && !self.record_open {
                    // All the record holds: it is a game, which has none.
                    return Ok(Some(self.empty_record(len, lexed)));
                }
                // Only commentary between games (`; { Game Nr. 30 ... }` after a result):
                // not a game. Skip it and read on.
                let end_line = lexed.end_line.max(self.line);
                self.consume(len, end_line);
                continue;
            }
            let (line, col, offset, start) = (self.line, self.col, self.offset, self.start);
            let end_line = lexed.end_line.max(line);
            self.consume(len, end_line);
            self.count_game();
            let bytes = if len > self.max_game {
                // Where the stream's reader would have given up on it depends on its reads:
                // only it can tell.
                self.oversized |= self.open_end;
                // The limit holds however the bytes arrived.
                // Splitting kept no tag values: the players are read again.
                lexed.clear();
                lex_window(
                    &self.buf[start..start + len],
                    true,
                    &mut Carry::default(),
                    lexed,
                );
                too_large(lexed, line);
                lexed.end_line = end_line;
                &[][..]
            } else {
                &self.buf[start..start + len]
            };
            return Ok(Some(RawGame {
                bytes,
                offset,
                line,
                col,
                number: self.games,
            }));
        }
    }

    /// Skips the space before the next game: whether one follows (not at the end of the
    /// stream, nor at the limit of a piece).
    fn game_ahead(&mut self) -> io::Result<bool> {
        self.skip_space()?;
        Ok((self.start != self.end || self.fill()?) && self.start < self.limit)
    }

    /// The bytes from the next game's first byte to the end of what is buffered, for a caller
    /// that finds where the game ends itself and then takes it with
    /// [`GameReader::take_peeked`] (or reads it with [`GameReader::next_game`] after all).
    /// `None` at the end of the stream.
    ///
    /// # Errors
    ///
    /// Only errors of the underlying reader.
    pub(crate) fn peek_next(&mut self) -> io::Result<Option<Peeked<'_>>> {
        if !self.game_ahead()? {
            return Ok(None);
        }
        let start = self.start;
        // Within the limit of a piece: a game that ends past it is not taken there.
        let searched = self.end.min(self.limit);
        let last_tag_line = *self
            .last_tag_line
            .get_or_insert_with(|| last_tag_line(&self.buf[..searched]));
        let (bytes, eof) = self.window();
        Ok(Some(Peeked {
            ends_by: if eof {
                Some(bytes.len())
            } else {
                last_tag_line.filter(|&p| p > start).map(|p| p - start)
            },
            bytes,
            eof,
            offset: self.offset,
            line: self.line,
            col: self.col,
            number: self.games + 1,
            max_len: self.max_game.min(self.limit - self.start),
        }))
    }

    /// Takes the next game as the first `len` bytes of what [`GameReader::peek_next`] showed,
    /// where the caller found it ends. False (and nothing taken) when `len` is not a game's
    /// length here: none of the bytes, more than are buffered, or over the size limit.
    ///
    /// The caller is the replay's open mode, which must end a game where the lexer would:
    /// the pipeline tests hold one job (games ended here) to two (games split by the lexer)
    /// game by game, on stitched inputs read in pieces of every size, and CI does the same
    /// on real files.
    pub(crate) fn take_peeked(&mut self, len: usize) -> bool {
        if len == 0
            || len > self.end - self.start
            || len > self.max_game
            || self.start + len > self.limit
        {
            return false;
        }
        let bytes = &self.buf[self.start..self.start + len];
        // The line of the game's last byte (a game never ends with its line break).
        let end_line = self.line
            + if self.cr_seen {
                count_lines(bytes)
            } else {
                memchr::memchr_iter(b'\n', bytes).count() as u32
            };
        self.consume(len, end_line);
        self.count_game();
        true
    }

    /// One more game read; in a stream of records, its record's end is still ahead.
    fn count_game(&mut self) {
        self.games += 1;
        self.record_open = self.records;
    }

    /// A record that holds no game, its first `len` bytes only space or comments, read as a
    /// game of no bytes with the reader's problem ([`LexProblemKind::EmptyRecord`]).
    fn empty_record(&mut self, len: usize, lexed: &mut Lexed) -> RawGame<'_> {
        let (line, col, offset) = (self.line, self.col, self.offset);
        let end_line = lexed.end_line.max(line);
        self.consume(len, end_line);
        self.count_game();
        lexed.clear();
        lexed.problems.push(LexProblem {
            kind: LexProblemKind::EmptyRecord,
            span: Span {
                start: 0,
                end: 0,
                line,
                col,
            },
        });
        lexed.end_line = end_line;
        RawGame {
            bytes: &[],
            offset,
            line,
            col,
            number: self.games,
        }
    }

    /// Skips a game larger than the limit, to where the lexer ends it, read a window at a time
    /// ([`lex_window`]): one pass over its bytes, keeping only a window of them, so a game of
    /// any size costs linear time and bounded memory, and the next game is read whole.
    fn skip_oversized(&mut self, lexed: &mut Lexed) -> io::Result<RawGame<'_>> {
        let first_line = self.line;
        let first_col = self.col;
        let offset = self.offset;
        let mut carry = Carry::default();
        lexed.clear();
        loop {
            let (data, eof) = self.window();
            let buffered = data.len();
            let (keep, done) = match lex_window(data, eof, &mut carry, lexed) {
                Window::End(n) => (n, true),
                Window::Upto(n) => (n, false),
            };
            let line = self.line + count_lines(&data[..keep]);
            self.consume(keep, line);
            if done {
                break;
            }
            if keep > 0 {
                self.fill()?;
            } else {
                // The window decided nothing: read on to twice as much, so that a token
                // read again from its start costs linear time however small the reads.
                while self.end - self.start < 2 * buffered.max(1) && self.fill()? {}
                if self.end - self.start == buffered && !self.eof {
                    // Nothing more comes (a piece's end): the game ends there.
                    break;
                }
            }
        }
        too_large(lexed, first_line);
        lexed.end_line = self.line;
        self.count_game();
        Ok(RawGame {
            bytes: &[],
            offset,
            line: first_line,
            col: first_col,
            number: self.games,
        })
    }
}

impl GameReader<io::Empty> {
    /// A reader of the games that start in `piece[..len]`, a piece of a stream that starts
    /// at `origin` and ends as `end` says; `piece[len..valid]` is what follows it in the
    /// stream, read only to see where the piece's last game ends. Unless the stream ends at
    /// `valid`, a game the end of what is there would decide is not read, nor one that runs
    /// past `len`: [`GameReader::into_piece`] tells. The piece is read where it is, and
    /// given back by [`GameReader::into_piece`].
    pub(crate) fn from_piece(
        piece: Vec<u8>,
        (len, valid): (usize, usize),
        origin: Origin,
        max_game: usize,
        end: PieceEnd,
    ) -> Self {
        let mut reader = Self::at_origin(io::empty(), max_game, origin);
        reader.end = valid.min(piece.len());
        reader.limit = len.min(reader.end);
        reader.cr_seen = memchr::memchr(b'\r', &piece[..reader.end]).is_some();
        reader.buf = piece;
        reader.open_end = end != PieceEnd::Eof;
        reader.cut_by_error = end == PieceEnd::Error;
        reader.piece_only = true;
        reader
    }

    /// The piece back ([`GameReader::from_piece`]), and whether the games read from it are
    /// the stream's as far as the reader can tell: none ran on past what the piece holds
    /// (unless a read error ends the stream there: its reader stops at the same place) and
    /// none was too large to keep (where the stream's own reader gives up on such a game
    /// depends on how its bytes arrive, so only it can say).
    pub(crate) fn into_piece(self) -> (Vec<u8>, bool) {
        let whole = !self.oversized && (!self.unfinished || self.cut_by_error);
        (self.buf, whole)
    }
}

/// How a piece of a stream ends ([`GameReader::from_piece`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PieceEnd {
    /// Where a game starts: the stream goes on.
    Cut,
    /// Where the stream ends.
    Eof,
    /// Where reading the stream failed.
    Error,
}

/// A stream taken from a reader before any game is read ([`GameReader::into_unread`]).
pub(crate) struct Unread<R> {
    /// What is left to read.
    pub source: R,
    /// What was read from it and not consumed.
    pub buffered: Vec<u8>,
    /// Whether `buffered` is all there is.
    pub eof: bool,
    /// The reader's limit on one game's size.
    pub max_game: usize,
    /// Whether the stream is records ([`GameReader::with_records`]).
    pub records: bool,
}

/// Leaves in `lexed` only the report that the game starting on `line` was too large, and the
/// game's `White` and `Black` tags when it holds them (read by [`lex_window`]).
fn too_large(lexed: &mut Lexed, line: u32) {
    let players: Vec<(String, String)> = ["White", "Black"]
        .into_iter()
        .filter_map(|name| Some((name.to_owned(), lexed.tag(name)?.to_owned())))
        .collect();
    lexed.clear();
    let span = Span {
        start: 0,
        end: 0,
        line,
        col: 1,
    };
    lexed.problems.push(LexProblem {
        kind: LexProblemKind::GameTooLarge,
        span,
    });
    for (name, value) in players {
        lexed.push_tag(&name, &value, span, false);
    }
}

/// A source that returns at most `n` bytes a read, to force every refill path.
#[cfg(test)]
pub(crate) struct Chunked<'a>(pub &'a [u8], pub usize);

#[cfg(test)]
impl Read for Chunked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.0.len().min(buf.len()).min(self.1);
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn::lexer::TokenKind;

    fn games(input: &[u8], limit: usize) -> Vec<(Vec<u8>, u32, usize, Vec<LexProblemKind>)> {
        let mut r = GameReader::with_limit(Chunked(input, 100), limit);
        let mut lexed = Lexed::default();
        let mut out = Vec::new();
        while let Some(g) = r.next_game(&mut lexed).unwrap() {
            let moves = lexed
                .tokens
                .iter()
                .filter(|t| t.kind == TokenKind::Move)
                .count();
            let problems = lexed.problems.iter().map(|p| p.kind).collect();
            out.push((g.bytes.to_vec(), g.line, moves, problems));
        }
        out
    }

    #[test]
    fn splits_on_results_and_tags() {
        let input = b"[Event \"a\"]\n\n1. e4 e5 1-0\n\n[Event \"b\"]\n\n1. d4 *\n1. c4 0-1";
        let g = games(input, 1 << 20);
        assert_eq!(g.len(), 3);
        assert_eq!(g[0].1, 1);
        assert_eq!(g[1].1, 5);
        assert_eq!(g[2].1, 8);
        assert_eq!(g[2].2, 1);
        assert_eq!(g[1].0, b"[Event \"b\"]\n\n1. d4 *");
    }

    #[test]
    fn game_without_result_ends_at_next_tags() {
        let input = b"[Event \"a\"]\n1. e4 e5\n[Event \"b\"]\n1. d4 1-0\n";
        let g = games(input, 1 << 20);
        assert_eq!(g.len(), 2);
        assert_eq!(g[0].0, b"[Event \"a\"]\n1. e4 e5");
        assert!(g[0].3.contains(&LexProblemKind::MissingResult));
        assert_eq!(g[1].1, 3);
    }

    #[test]
    fn small_chunks_give_same_games() {
        let input: &[u8] =
            b"\xEF\xBB\xBF[Event \"a\"]\n{c}\n1. e4 {x} (1. d4) e5 1-0\n\n[Event \"b\"]\n1. Nf3 *";
        let mut r = GameReader::new(Chunked(input, 1));
        let mut lexed = Lexed::default();
        let mut n = 0;
        while let Some(g) = r.next_game(&mut lexed).unwrap() {
            n += 1;
            assert!(lexed.problems.is_empty(), "{:?}", lexed.problems);
            if n == 2 {
                assert_eq!(g.line, 5);
            }
        }
        assert_eq!(n, 2);
    }

    #[test]
    fn a_read_that_ends_inside_a_tag_name_after_a_blank_line_ends_no_game() {
        // `[Tag1` cut from `[Tag12 "v"]` once read as a repeat of `Tag1`: a new game.
        let mut input = Vec::new();
        for i in 0..40 {
            input.extend_from_slice(format!("[Tag{i} \"v\"]\n\n").as_bytes());
        }
        input.extend_from_slice(b"1. e4 *\n");
        for split in [false, true] {
            for size in 1..64 {
                let mut r = GameReader::new(Chunked(&input, size));
                r.read_size = size;
                r.set_split_only(split);
                let mut lexed = Lexed::default();
                let mut n = 0;
                while let Some(g) = r.next_game(&mut lexed).unwrap() {
                    n += 1;
                    let whole = input.trim_ascii_end().len();
                    assert_eq!(g.bytes.len(), whole, "split {split}, reads of {size}");
                }
                assert_eq!(n, 1, "split {split}, reads of {size}");
            }
        }
    }

    /// `input` with every `\n` replaced by `ending`.
    fn with_ending(input: &[u8], ending: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        for &b in input {
            if b == b'\n' {
                out.extend_from_slice(ending);
            } else {
                out.push(b);
            }
        }
        out
    }

    /// Old Mac files end lines with `\r` alone, and some files hold all their games on one
    /// line: neither has a `\n` to end a tag line, and the whole input was once one game,
    /// skipped as too large.
    #[test]
    fn every_line_ending_and_one_line_give_the_same_games() {
        let lf = b"[Event \"a\"]\n[Site \"b\"]\n\n1. e4 e5 { two\nlines } 2. Nf3 (2. d4) 1-0\n\n\
                   [Event \"c\"]\n\n1. d4 d5\n2. c4 *\n\n1. c4 e5 0-1\n"
            .repeat(20);
        let expected = games(&lf, 1024);
        assert_eq!(expected.len(), 60);
        for ending in [&b"\r\n"[..], b"\r", b" "] {
            let input = with_ending(&lf, ending);
            let got = games(&input, 1024);
            assert_eq!(got.len(), expected.len(), "{ending:?}");
            for (g, e) in got.iter().zip(&expected) {
                assert_eq!(g.0, with_ending(&e.0, ending), "{ending:?}");
                let line = if ending == b" " { 1 } else { e.1 };
                assert_eq!((g.1, g.2, &g.3), (line, e.2, &e.3), "{ending:?}");
            }
        }
    }

    #[test]
    fn a_cr_cut_by_a_read_counts_once() {
        // Reads of one byte put every `\r` of `\r\n` at the end of the buffer.
        let input = b"[Event \"a\"]\r\n\r\n1. e4 *\r\n\r\n[Event \"b\"]\r\r1. d4 *\r";
        let mut r = GameReader::new(Chunked(input, 1));
        let mut lexed = Lexed::default();
        let mut lines = Vec::new();
        while let Some(g) = r.next_game(&mut lexed).unwrap() {
            lines.push(g.line);
        }
        assert_eq!(lines, [1, 5]);
    }

    /// Each game of `input` read with a limit of 1024 bytes, in reads of `size`: its line,
    /// its players, its problems and its bytes.
    fn games_read(
        input: &[u8],
        size: usize,
        split: bool,
    ) -> Vec<(u32, String, Vec<LexProblemKind>, Vec<u8>)> {
        let mut r = GameReader::with_limit(Chunked(input, size), 1024);
        r.read_size = size;
        r.set_split_only(split);
        let mut lexed = Lexed::default();
        let mut out = Vec::new();
        while let Some(g) = r.next_game(&mut lexed).unwrap() {
            let players = format!(
                "{} - {}",
                lexed.tag("White").unwrap_or("?"),
                lexed.tag("Black").unwrap_or("?")
            );
            let problems = lexed.problems.iter().map(|p| p.kind).collect();
            out.push((g.line, players, problems, g.bytes.to_vec()));
        }
        out
    }

    /// A game over the limit is one game, reported once at its first line with its players,
    /// and the next game is read whole, however the bytes arrive: an oversized comment, tag
    /// section or line once made a game of each line (or each tag) after the first.
    #[test]
    fn an_oversized_game_is_one_game_whatever_makes_it_large() {
        let next = b"[Event \"next\"]\n[White \"C\"]\n\n1. d4 d5 1-0";
        let players = b"[Event \"big\"]\n[White \"Alice\"]\n[Black \"Bob\"]\n\n";
        let big = |body: &[u8]| [&players[..], body, b"\n\n", next, b"\n"].concat();
        let comment = big(&[&b"1. e4 {"[..], &b"x\n[x".repeat(700), b"} e5 1-0"].concat());
        let open_comment = big(&[&b"1. e4 {"[..], &b"x ".repeat(2000), b"\n1. e4 *"].concat());
        let variations = big(&[&b"1. e4 "[..], &b"(1. d4 1-0) ".repeat(300), b"e5 0-1"].concat());
        let mut tags = b"[White \"Alice\"]\n".to_vec();
        for i in 0..300 {
            tags.extend_from_slice(format!("[T{i} \"v\"]\n").as_bytes());
        }
        let tags = [&tags[..], b"\n1. e4 *\n\n", next, b"\n"].concat();
        let on_one_line = |text: &[u8]| -> Vec<u8> {
            text.iter()
                .map(|&b| if b == b'\n' { b' ' } else { b })
                .collect()
        };
        let one_line = on_one_line(
            &[
                &b"[White \"Alice\"] [Black \"Bob\"] 1. e4 "[..],
                &b"Nf3 Nf6 Ng1 Ng8 ".repeat(200),
                b"1/2-1/2 ",
                next,
            ]
            .concat(),
        );
        let next_one_line = on_one_line(next);
        let cases = [
            (&comment, "Alice - Bob", &next[..]),
            (&open_comment, "Alice - Bob", next),
            (&variations, "Alice - Bob", next),
            (&tags, "Alice - ?", next),
            (&one_line, "Alice - Bob", &next_one_line),
        ];
        for (input, players, next) in cases {
            assert!(input.len() > 2048);
            let at = input.len() - next.len() - usize::from(input.ends_with(b"\n"));
            assert_eq!(&input[at..at + next.len()], next);
            let next_line = 1 + input[..at].iter().filter(|&&b| b == b'\n').count() as u32;
            for split in [false, true] {
                for size in [1, 7, 64, 1000, 1 << 20] {
                    let got = games_read(input, size, split);
                    let what =
                        format!("{players}, line {next_line}, split {split}, reads of {size}");
                    assert_eq!(got.len(), 2, "{what}: {got:?}");
                    assert_eq!(got[0].0, 1, "{what}");
                    assert_eq!(got[0].1, players, "{what}");
                    assert_eq!(got[0].2, [LexProblemKind::GameTooLarge], "{what}");
                    assert_eq!(got[1].0, next_line, "{what}");
                    assert_eq!(got[1].3, next, "{what}");
                }
            }
        }
    }

    /// A token longer than a window (a comment, a `;` comment, a symbol, a comment left open
    /// up to a tag line) is passed over by the lexer's rule, a window at a time: the game
    /// ends where the lexer ends it, the next is read whole, and the buffer stays bounded.
    #[test]
    fn a_token_larger_than_a_window_is_passed_over_in_bounded_memory() {
        let next = b"[Event \"next\"]\n\n1. d4 d5 1-0";
        let n = 3 * super::super::lexer::GIANT;
        let x = |n: usize| vec![b'x'; n];
        let cases: [Vec<u8>; 5] = [
            [&b"[White \"A\"]\n\n1. e4 {"[..], &x(n), b"} 1-0\n\n", next].concat(),
            [&b"[White \"A\"]\n\n1. e4 {"[..], &x(n), b"\n\n", next].concat(),
            [&b"[White \"A\"]\n\n1. e4 ;"[..], &x(n), b"\n1-0 ", next].concat(),
            [&b"[White \"A\"]\n\n1. e4 e"[..], &x(n), b" 1-0 ", next].concat(),
            [
                &b"[White \"A\"]\n\n1. e4 {"[..],
                &b"x\n[x".repeat(n / 4),
                b"} 0-1\n",
                next,
            ]
            .concat(),
        ];
        for (k, input) in cases.iter().enumerate() {
            for size in [1000, 1 << 16] {
                let mut r = GameReader::with_limit(Chunked(input, size), 1024);
                r.read_size = size;
                let mut lexed = Lexed::default();
                let mut got = Vec::new();
                let mut most = 0;
                while let Some(g) = r.next_game(&mut lexed).unwrap() {
                    got.push((g.bytes.to_vec(), lexed.tag("White").map(str::to_owned)));
                    most = most.max(r.buf.len());
                }
                let what = format!("case {k}, reads of {size}");
                assert_eq!(got.len(), 2, "{what}");
                assert_eq!(got[0], (vec![], Some("A".to_owned())), "{what}");
                assert_eq!(got[1].0, next, "{what}");
                assert!(
                    most < 8 * super::super::lexer::GIANT,
                    "{what}: {most} bytes"
                );
            }
        }
    }

    #[test]
    fn oversized_game_is_reported_and_skipped() {
        let mut input = b"[Event \"big\"]\n{".to_vec();
        input.extend(std::iter::repeat_n(b'x', 5000));
        input.extend(b"}\n1. e4 1-0\n\n[Event \"next\"]\n1. d4 *\n");
        let g = games(&input, 1024);
        assert_eq!(g.len(), 2);
        assert_eq!(g[0].3, vec![LexProblemKind::GameTooLarge]);
        assert_eq!(g[1].0, b"[Event \"next\"]\n1. d4 *");
        assert_eq!(g[1].1, 5);
    }

    #[test]
    fn a_game_after_spaces_is_read_as_with_them() {
        // The reader starts a game where the spaces before it end; a `%` there is still at
        // the start of its line (an escape), as when the line is lexed whole. Read otherwise,
        // a Parquet row's cell and its row's text split into different games.
        let kinds = |lexed: &Lexed| lexed.tokens.iter().map(|t| t.kind).collect::<Vec<_>>();
        let mut whole = Lexed::default();
        crate::pgn::lex_game(
            b"  %5 1. e4 *\n1. d4 1-0 [Event \"x\"]",
            true,
            1,
            &mut whole,
        );
        let mut r = GameReader::with_limit(
            Chunked(b"\n  %5 1. e4 *\n1. d4 1-0 [Event \"x\"]", 100),
            1024,
        );
        let mut lexed = Lexed::default();
        let game = r.next_game(&mut lexed).unwrap().unwrap();
        assert_eq!((game.line, game.col), (2, 3));
        assert_eq!(lexed.tokens[0].kind, TokenKind::Escape);
        assert_eq!(kinds(&lexed), kinds(&whole));
    }

    #[test]
    fn a_comment_left_open_ends_at_the_break_before_a_tag_line() {
        // `\r\r` is two old-Mac line breaks, not one `\r\n`: the comment ends before the
        // second, as `last_tag_line` (which finds where the reader may cut) has it. Taken
        // for `\r\n`, the game ended one byte earlier read whole than read in pieces.
        for (text, end) in [
            (&b"1. e4 { open\n\r\r[White \"x\"]\n}"[..], 14),
            (b"1. e4 { open\r\n[White \"x\"]\n}", 12),
            (b"1. e4 { open\n[White \"x\"]\n}", 12),
        ] {
            let mut lexed = Lexed::default();
            crate::pgn::lex_game(text, true, 1, &mut lexed);
            let comment = lexed.tokens.iter().find(|t| t.kind == TokenKind::Comment);
            assert_eq!(comment.map(|t| t.span.end), Some(end), "{text:?}");
            assert_eq!(last_tag_line(text), Some(end as usize), "{text:?}");
        }
    }

    #[test]
    fn a_game_never_runs_past_the_end_of_its_record() {
        // No result, a comment left open, a variation left open, a game too large: each
        // ends with its record, however the bytes arrive; the same text as PGN is one game.
        let mut input =
            b"1. e4 e5\xff\n1. d4 { open\xff\n1. c4 ( 1. g3\xff\n[Event \"big\"]\n{".to_vec();
        input.extend(std::iter::repeat_n(b'x', 3000));
        input.extend(b"\xff\n\n1. Nf3 *\xff");
        let mut lexed = Lexed::default();
        for size in [1, 7, 100, 1 << 20] {
            let mut r = GameReader::with_limit(Chunked(&input, size), 1024).with_records(true);
            let mut out = Vec::new();
            while let Some(g) = r.next_game(&mut lexed).unwrap() {
                out.push((g.bytes.to_vec(), g.line));
            }
            let lines: Vec<u32> = out.iter().map(|g| g.1).collect();
            assert_eq!(lines, [1, 2, 3, 4, 7], "reads of {size}");
            assert_eq!(out[0].0, b"1. e4 e5");
            assert_eq!(out[1].0, b"1. d4 { open");
            assert_eq!(out[3].0, b"", "skipped as too large");
            assert_eq!(out[4].0, b"1. Nf3 *");
        }
        assert_eq!(games(&input, 1 << 20).len(), 2, "as PGN text");
    }

    #[test]
    fn a_record_without_a_game_is_a_game_of_no_bytes() {
        // Empty, first, last, blank, only a comment, or two in a row: each record is one
        // game, the empty ones with the reader's problem, however the bytes arrive. A
        // comment after a game's result in its record is passed over, as in PGN text.
        let input = b"\xff1. e4 *\xff\n\xff  \xff{ a note }\xff1. d4 * { after }\xff\xff";
        let mut lexed = Lexed::default();
        for size in [1, 3, 100] {
            let mut r = GameReader::with_limit(Chunked(input, size), 1024).with_records(true);
            let mut out = Vec::new();
            while let Some(g) = r.next_game(&mut lexed).unwrap() {
                let empty = lexed
                    .problems
                    .iter()
                    .any(|p| p.kind == LexProblemKind::EmptyRecord);
                out.push((g.bytes.to_vec(), g.number, empty));
            }
            let got: Vec<(&[u8], u64, bool)> = out.iter().map(|g| (&g.0[..], g.1, g.2)).collect();
            assert_eq!(
                got,
                [
                    (&b""[..], 1, true),
                    (b"1. e4 *", 2, false),
                    (b"", 3, true),
                    (b"", 4, true),
                    (b"", 5, true),
                    (b"1. d4 *", 6, false),
                    (b"", 7, true),
                ],
                "reads of {size}"
            );
        }
    }
}
