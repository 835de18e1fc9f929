//! The game pipeline: the caller receives what the per-game work made of every game, in
//! input order, so the output of `--jobs N` is byte-identical to `--jobs 1`.
//!
//! - One job: games are read in order on the caller's thread. The
//!   work is first asked to find where the next game ends itself ([`Movetext::Open`]), which
//!   saves a split pass; the results are the same.
//! - More jobs: one thread cuts the stream into pieces where games start
//!   ([`crate::pgn::cut`]; in a stream of records, where records end) without reading its
//!   games, workers read each piece's games as one job does, and a piece's results are used
//!   only when the piece is confirmed (`run_pieces`); from a piece that is not, the games are
//!   read in order.
//!
//! Memory stays flat: channels are bounded, or pieces out are counted.

use std::io::{self, Read};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::pgn::{lex_game_tags, lex_game_tags_open, movetext_end, GameReader, Lexed, Movetext};

mod pieces;

use pieces::{run_pieces, PIECE};
pub use pieces::{run_with_pieces, PIECES_CONFIRMED};

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
    /// Where its movetext is: in `lexed`'s tokens, or in `bytes` after the tags `lexed`
    /// holds. [`Movetext::Open`] when the game's end is not known yet:
    /// `bytes` then run on past it, up to where it surely ends (see
    /// [`crate::pgn::lexer::last_tag_line`]). Only with one job, which
    /// then need not split the stream before the work. The work cuts `bytes` to the game: the
    /// replay finds where the game ends ([`Game::check`]), and
    /// [`Game::close`] finds it without one.
    pub movetext: Movetext,
}

impl Game<'_> {
    /// Where the game is, as the diagnostics name it: `file` (the input's name), its number,
    /// line, players and bytes.
    pub fn context<'a>(&'a self, file: &'a str) -> crate::report::GameContext<'a> {
        crate::report::GameContext {
            file,
            number: self.number,
            line: self.line,
            white: self.lexed.tag("White").unwrap_or("?"),
            black: self.lexed.tag("Black").unwrap_or("?"),
            bytes: self.bytes,
        }
    }

    /// Cuts an open game's bytes to the game, where the lexer ends it, for work that does not
    /// replay it: the lexer goes on from the movetext's start, where the reader's lexing of
    /// the tags stopped (the tags are not read twice). Its lexing (the tags) is the same on the
    /// game's bytes.
    pub fn close(&mut self) {
        let Movetext::Open(at) = self.movetext else {
            return;
        };
        thread_local! {
            static SCRATCH: std::cell::RefCell<Lexed> = Default::default();
        }
        let end = SCRATCH.with_borrow_mut(|scratch| movetext_end(self.bytes, at, scratch));
        self.cut(end);
    }

    /// Checks the game, telling `visitor` its moves: [`crate::rules::game::check_game`] on
    /// the game as the pipeline lexed it. A tagless game's book header becomes its tags in
    /// `lexed`, for the work after the check. An open game ([`Movetext::Open`]) is cut to
    /// where the replay finds that it ends.
    pub fn check(
        &mut self,
        opts: &crate::rules::game::CheckOptions,
        visitor: &mut dyn crate::rules::visit::Visitor,
    ) -> crate::rules::game::GameReport {
        crate::pgn::book::extract_header(self.bytes, self.lexed);
        let (report, len) =
            crate::rules::game::check_lexed(self.bytes, self.lexed, self.movetext, opts, visitor);
        self.cut(len);
        report
    }

    /// Cuts the game's bytes to their first `len`, where it was found to end: an open game's
    /// end is then known.
    pub fn cut(&mut self, len: usize) {
        self.bytes = &self.bytes[..len];
        if let Movetext::Open(at) = self.movetext {
            self.movetext = Movetext::Bytes(at);
        }
    }

    /// Whether the game's end is not known yet ([`Movetext::Open`]).
    pub fn is_open(&self) -> bool {
        matches!(self.movetext, Movetext::Open(_))
    }
}

/// Set (by the Ctrl-C handler) to stop reading: games already read are finished and
/// delivered, the rest of the input is left.
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);

fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}

/// Reads every game of `reader`, lexed to its tags, applies `work` to each on `jobs`
/// threads (inline when `jobs <= 1`; then a game may come [open](Movetext::Open)), and calls
/// `sink` with the results in input order. Returns the bytes read.
///
/// # Errors
///
/// A read error of the input (after the games before it were delivered) or the first error
/// `sink` returns.
pub fn run_with<R, T, W, S>(
    mut reader: GameReader<R>,
    jobs: usize,
    work: W,
    mut sink: S,
) -> io::Result<u64>
where
    R: Read + Send,
    T: Send,
    W: Fn(&mut Game<'_>) -> T + Sync,
    S: FnMut(T) -> io::Result<()>,
{
    if jobs <= 1 {
        run_inline(
            &mut reader,
            &work,
            &mut sink,
            &mut Scratch::default(),
            |_| false,
        )?;
        return Ok(reader.bytes_read());
    }
    run_pieces(reader, jobs, PIECE, work, sink)
}

/// Lexes a game's tags, from its first line and column.
pub(crate) fn lex_for(game: &mut Game<'_>) {
    game.movetext = lex_game_tags(game.bytes, game.line, game.col, game.lexed);
}

/// Token buffers lent to each game in turn: no allocations per game once they have grown.
#[derive(Default)]
struct Scratch {
    lexed: Lexed,
    tags: Lexed,
}

/// Reads every game of `reader` on this thread, giving `sink` what `work` makes of each, and
/// stops before a game when `stop` says so.
fn run_inline<R, T, W, S, P>(
    reader: &mut GameReader<R>,
    work: &W,
    sink: &mut S,
    scratch: &mut Scratch,
    mut stop: P,
) -> io::Result<()>
where
    R: Read,
    W: Fn(&mut Game<'_>) -> T,
    S: FnMut(T) -> io::Result<()>,
    P: FnMut(&mut GameReader<R>) -> bool,
{
    // Only the tags are lexed: the reader needs only to split the stream.
    reader.set_split_only(true);
    let Scratch { lexed, tags } = scratch;
    loop {
        if interrupted() || stop(reader) {
            break;
        }
        // First the work finds where the game ends (the replay ends a game at its
        // result): the stream is then read once, with no split pass before the work.
        let Some(peeked) = reader.peek_next()? else {
            break;
        };
        let (eof, line, col) = (peeked.eof, peeked.line, peeked.col);
        // The game is given open only up to where it surely ends (and within what the
        // reader may take): its end is then found in those bytes, whatever they hold.
        // Otherwise (no tags, no tag line after it yet) it is read the usual way.
        let open = lex_game_tags_open(peeked.bytes, eof, line, col, tags).and_then(|at| {
            peeked
                .ends_by
                .filter(|&end| end > at.offset && end <= peeked.max_len)
                .map(|end| (at, end))
        });
        if let Some((at, end)) = open {
            let mut game = Game {
                bytes: &peeked.bytes[..end],
                lexed: tags,
                number: peeked.number,
                line,
                col,
                offset: peeked.offset,
                movetext: Movetext::Open(at),
            };
            let done = work(&mut game);
            game.close();
            let len = game.bytes.len();
            let taken = reader.take_peeked(len);
            debug_assert!(taken, "an open game ends within what the reader may take");
            sink(done)?;
            continue;
        }
        let Some(raw) = reader.next_game(lexed)? else {
            break;
        };
        // The game is read where the reader holds it. An oversized game (no bytes) has
        // only the reader's report.
        let lex_here = !raw.bytes.is_empty();
        let mut game = Game {
            bytes: raw.bytes,
            lexed: if lex_here { &mut *tags } else { &mut *lexed },
            number: raw.number,
            line: raw.line,
            col: raw.col,
            offset: raw.offset,
            movetext: Movetext::Tokens,
        };
        if lex_here {
            lex_for(&mut game);
        }
        sink(work(&mut game))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn::lexer::lex_game_mode;
    use crate::pgn::reader::{Chunked, RECORD_END};
    use std::thread;

    /// What `work` made of every game, in order, on `jobs` threads (in pieces of about
    /// `piece` bytes when given).
    fn collect<R: Read + Send, T: Send>(
        reader: GameReader<R>,
        jobs: usize,
        piece: Option<usize>,
        work: impl Fn(&mut Game<'_>) -> T + Sync,
    ) -> Vec<T> {
        let mut got = Vec::new();
        let sink = |x| {
            got.push(x);
            Ok(())
        };
        match piece {
            Some(piece) => run_with_pieces(reader, jobs, piece, work, sink),
            None => run_with(reader, jobs, work, sink),
        }
        .unwrap();
        got
    }

    fn numbers(input: &[u8], jobs: usize) -> Vec<(u64, usize)> {
        collect(GameReader::new(input), jobs, None, |g| {
            g.close();
            (g.number, g.bytes.len())
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

    /// A game as the work saw it, closed.
    fn seen_game(g: &mut Game<'_>) -> Seen {
        // What the work sees of the game's lexing is its tags, the same open or not.
        let problems = g.lexed.problems.len();
        g.close();
        (
            g.number,
            g.line,
            g.col,
            g.offset,
            g.bytes.to_vec(),
            problems,
        )
    }

    fn seen(input: &[u8], read_size: usize, jobs: usize) -> Vec<Seen> {
        // Reads of `read_size` bytes make the reader refill (and retire its buffers) often.
        let reader = GameReader::with_limit(Chunked(input, read_size), 1024);
        // Games given open.
        let opened = std::sync::atomic::AtomicUsize::new(0);
        let seen = collect(reader, jobs, None, |g| {
            if g.is_open() {
                // A game whose end is not known yet: every third is left for the pipeline to
                // close, the others are closed here as the replay closes them, at the end
                // the lexer finds on bytes cut where the game surely ends.
                opened.fetch_add(1, Ordering::Relaxed);
                if g.number % 3 != 0 {
                    let mut lexed = Lexed::default();
                    let end = lex_game_mode(g.bytes, true, g.line, g.col, false, &mut lexed);
                    if let crate::pgn::LexEnd::Complete(len) = end {
                        g.cut(len);
                    }
                }
            }
            seen_game(g)
        });
        assert!(jobs > 1 || opened.into_inner() > 0);
        seen
    }

    #[test]
    fn pieces_are_used_again_after_one_read_in_order() {
        // A game without tags near the start: its piece holds one game more than it likely
        // holds (its game starts), so it is read in order up to the next piece. The pieces
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
                g.close();
                Some((g.number, g.line, g.col, g.offset, g.bytes.to_vec()))
            };
            collect(GameReader::new(&input[..]), jobs, piece, work)
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
    fn games_read_from_pieces_are_the_games_read_in_order() {
        // Games of many sizes, one too large to keep, and refills of every size: the
        // workers see each game's bytes as the reader read them.
        let mut input = Vec::new();
        for i in 0..2000 {
            let moves = if i == 777 {
                "Nf3 Nf6 Ng1 Ng8 ".repeat(100)
            } else {
                "Nf3 Nf6 Ng1 Ng8 ".repeat(i % 9)
            };
            input.extend(format!("[Event \"{i}\"]\n\n1. e4 e5 {moves}*\n\n").bytes());
        }
        let one = seen(&input, 1 << 20, 1);
        assert_eq!(one.len(), 2000);
        assert!(
            one[777].4.is_empty() && one[777].5 == 1,
            "the oversized game"
        );
        for read_size in [97, 1000, 4096, 300_000] {
            for jobs in [2, 3] {
                assert_eq!(
                    seen(&input, read_size, jobs),
                    one,
                    "reads of {read_size} bytes, {jobs} jobs"
                );
            }
        }
    }

    #[test]
    fn pieces_of_any_stream_give_what_one_job_gives() {
        let games = |input: &mut Vec<u8>, from: usize| {
            for i in from..from + 2000 {
                let moves = "Nf3 Nf6 Ng1 Ng8 ".repeat(i % 9);
                input.extend(format!("[Event \"{i}\"]\n\n1. e4 e5 {moves}*\n\n").bytes());
            }
        };
        let mut small = Vec::new();
        games(&mut small, 0);
        // A first game of a comment longer than a piece and than the reader's first read,
        // on one line: nothing in the first piece to cut after, which grows.
        let mut huge_first =
            format!("[Event \"big\"]\n\n1. e4 {{{}}} *\n\n", "x".repeat(2 << 20)).into_bytes();
        games(&mut huge_first, 1);
        for input in [&small, &huge_first] {
            let one = seen(input, 1 << 20, 1);
            assert_eq!(one.len(), 2000 + usize::from(input == &huge_first));
            for read_size in [4096, 300_000] {
                assert_eq!(seen(input, read_size, 2), one, "{read_size}");
            }
        }
        // Pieces: a game in the middle larger than a piece may grow to, without a game start;
        // the rest is read in order.
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
            let work = |g: &mut Game<'_>| {
                g.close();
                Some((g.number, g.offset, g.bytes.to_vec()))
            };
            collect(GameReader::new(&grown[..]), jobs, piece, work)
        };
        let one = numbered(1, None);
        assert_eq!(one.len(), 4001);
        assert_eq!(numbered(2, Some(piece)), one);
    }
    #[test]
    fn a_stream_of_records_is_cut_where_records_end() {
        // Records as a Parquet file's rows make them: no tags, games left open, an empty
        // record, one too large to keep. Pieces of a few hundred bytes cut it between almost
        // every two records; every piece holds the records it counts, so none is read again
        // in order but the one with the oversized game.
        let mut input = Vec::new();
        for i in 0..3000 {
            let game = match i % 500 {
                7 => String::new(),
                8 => "1. e4 { left open".to_owned(),
                9 => "1. e4 (1. d4".to_owned(),
                _ if i == 1234 => format!("1. e4 e5 {}*", "Nf3 Nf6 Ng1 Ng8 ".repeat(100)),
                _ => format!("[Event \"{i}\"]\n1. e4 e5 {}*", "Nf3 ".repeat(i % 7)),
            };
            input.extend(game.bytes());
            input.push(RECORD_END);
        }
        let records = |jobs: usize, piece: Option<usize>| {
            let reader = GameReader::with_limit(Chunked(&input, 4096), 1024).with_records(true);
            collect(reader, jobs, piece, seen_game)
        };
        let one = records(1, None);
        assert_eq!(one.len(), 3000);
        assert!(one[1234].4.is_empty(), "the oversized game");
        assert_eq!(records(2, None), one);
        let confirmed = PIECES_CONFIRMED.load(Ordering::Relaxed);
        assert_eq!(records(3, Some(300)), one);
        assert!(PIECES_CONFIRMED.load(Ordering::Relaxed) > confirmed + 100);
    }
}
