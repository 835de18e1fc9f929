//! What must hold for any bytes at all: the properties that `tests/fuzz.rs` checks on generated
//! inputs and its corpus, and that the libFuzzer target in `fuzz/` checks on its own inputs.
//!
//! Shared through `#[path]` so both harnesses assert exactly the same things.

#![allow(dead_code)] // each harness uses its own subset of the helpers

use std::io::{self, Read};

use pgnkit::convert::pgn::{write_book_header, write_movetext, write_tags, Layout};
use pgnkit::convert::records::write_epd;
use pgnkit::convert::{elements, final_result, is_rejected, Collector, Keep};
use pgnkit::input::decode::decoded;
use pgnkit::input::pipeline;
use pgnkit::notation::write::{self, Notation, ZhStyle};
use pgnkit::notation::{read_token, read_token_with, CheckClaim, Lang, MovePattern};
use pgnkit::pgn::{
    book, lex_game, lex_game_tags, GameReader, LexEnd, LexProblemKind, Lexed, Movetext, Span,
    TokenKind,
};
use pgnkit::rules::game::{check_game, CheckOptions, GameReport};
use pgnkit::rules::matcher::find_move;
use pgnkit::rules::visit::{MoveAt, Needs, NoVisitor, Ply, Positions, Visitor};
use shakmaty::{Chess, Move, Position};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A reader that hands out at most `n` bytes a call, to drive every refill path of the
/// game reader.
pub struct Chunked<'a> {
    data: &'a [u8],
    n: usize,
}

impl<'a> Chunked<'a> {
    pub fn new(data: &'a [u8], n: usize) -> Self {
        Chunked { data, n: n.max(1) }
    }
}

impl Read for Chunked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.data.len().min(buf.len()).min(self.n);
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// One game as the reader gave it, owned so that runs with different chunk sizes compare.
#[derive(Clone, Debug)]
pub struct Game {
    pub bytes: Vec<u8>,
    pub offset: u64,
    pub line: u32,
    /// Column of the game's first byte on its line (games may start mid-line).
    pub col: u32,
    pub number: u64,
    pub lexed: Lexed,
}

impl PartialEq for Game {
    fn eq(&self, other: &Self) -> bool {
        self.bytes == other.bytes
            && self.offset == other.offset
            && self.line == other.line
            && self.number == other.number
            && self.lexed.tokens == other.lexed.tokens
            && self.lexed.tags().eq(other.lexed.tags())
            && self.lexed.problems == other.lexed.problems
            && self.lexed.end_line == other.lexed.end_line
    }
}

/// Every game of `input`, read `chunk` bytes at a time.
pub fn read_games(input: &[u8], chunk: usize, limit: Option<usize>) -> Vec<Game> {
    let source = Chunked::new(input, chunk);
    let mut reader = match limit {
        Some(limit) => GameReader::with_limit(source, limit),
        None => GameReader::new(source),
    };
    let mut lexed = Lexed::default();
    let mut games = Vec::new();
    while let Some(game) = reader
        .next_game(&mut lexed)
        .expect("reading a slice never fails")
    {
        let before = &input[..game.offset as usize];
        let (_, line_start) = lines_before(input, before.len());
        let bom = usize::from(line_start == 0 && before.starts_with(&[0xEF, 0xBB, 0xBF])) * 3;
        games.push(Game {
            bytes: game.bytes.to_vec(),
            offset: game.offset,
            line: game.line,
            col: 1 + count_chars(&before[line_start + bom.min(before.len() - line_start)..]),
            number: game.number,
            lexed: lexed.clone(),
        });
    }
    games
}

/// Where each game of `input` starts and ends, as (offset, length, line, column, number), read
/// in the split-only mode the parallel pipeline's reader thread uses (`split`) or fully.
pub fn game_places(input: &[u8], chunk: usize, split: bool) -> Vec<(u64, usize, u32, u32, u64)> {
    let mut reader = GameReader::new(Chunked::new(input, chunk));
    reader.set_split_only(split);
    let mut lexed = Lexed::default();
    let mut places = Vec::new();
    while let Some(game) = reader
        .next_game(&mut lexed)
        .expect("reading a slice never fails")
    {
        places.push((
            game.offset,
            game.bytes.len(),
            game.line,
            game.col,
            game.number,
        ));
    }
    places
}

fn is_commentary(kind: TokenKind) -> bool {
    matches!(
        kind,
        TokenKind::Comment | TokenKind::LineComment | TokenKind::Escape
    )
}

fn count_chars(s: &[u8]) -> u32 {
    s.iter().filter(|&&b| (b & 0xC0) != 0x80).count() as u32
}

/// Whether a line break ends at `s[i]`: a `\n`, or a `\r` that no `\n` follows (old Mac
/// files; the `\r` of `\r\n` is not a break by itself).
fn is_break(s: &[u8], i: usize) -> bool {
    s[i] == b'\n' || (s[i] == b'\r' && s.get(i + 1) != Some(&b'\n'))
}

/// Line breaks in `s[..at]` (judged in all of `s`), and where the line of `s[at]` starts.
fn lines_before(s: &[u8], at: usize) -> (u32, usize) {
    let breaks: Vec<usize> = (0..at).filter(|&i| is_break(s, i)).collect();
    (breaks.len() as u32, breaks.last().map_or(0, |&p| p + 1))
}

/// The line and column the lexer must give to byte `at` of a game that starts on `first_line`.
/// Columns on the game's first line count from the game's own column on that line.
fn expected_place(bytes: &[u8], first_line: u32, first_col: u32, at: usize) -> (u32, u32) {
    let before = &bytes[..at];
    let (newlines, line_start) = lines_before(bytes, at);
    let base = if line_start == 0 { first_col } else { 1 };
    (
        first_line + newlines,
        base + count_chars(&before[line_start..]),
    )
}

fn check_span(what: &str, span: Span, game: &Game) {
    let len = game.bytes.len();
    assert!(
        span.start <= span.end && span.end as usize <= len,
        "{what}: span {span:?} outside the game's {len} bytes"
    );
    assert!(span.line >= 1 && span.col >= 1, "{what}: {span:?}");
    let want = expected_place(&game.bytes, game.line, game.col, span.start as usize);
    assert_eq!(
        (span.line, span.col),
        want,
        "{what}: line/column of {span:?} (game at line {})",
        game.line
    );
}

/// Spans in bounds, ordered and not overlapping, with the right lines and columns.
pub fn check_lexed(game: &Game) {
    let lexed = &game.lexed;
    let mut prev_end = 0u32;
    for (i, t) in lexed.tokens.iter().enumerate() {
        check_span(&format!("token {i} {:?}", t.kind), t.span, game);
        assert!(
            t.span.start >= prev_end,
            "token {i} {:?} at {:?} overlaps the one before (ends at {prev_end})",
            t.kind,
            t.span
        );
        prev_end = t.span.end;
        match t.kind {
            TokenKind::Tag(k) => {
                let tag = lexed.tags().nth(k as usize);
                assert_eq!(tag.map(|t| t.span), Some(t.span), "token {i}: tag {k}");
            }
            TokenKind::Move => {
                assert!(t.span.end > t.span.start, "token {i}: empty move");
            }
            _ => {}
        }
    }
    for (i, p) in lexed.problems.iter().enumerate() {
        check_span(&format!("problem {i} {:?}", p.kind), p.span, game);
    }
    assert!(lexed.end_line >= game.line, "end line {}", lexed.end_line);
    if let (Some(first), Some(last)) = (lexed.tokens.first(), lexed.tokens.last()) {
        // The game's bytes run from its first token to its last.
        assert_eq!(
            last.span.end as usize,
            game.bytes.len(),
            "bytes after the last token"
        );
        let lead = &game.bytes[..first.span.start as usize];
        assert!(
            std::str::from_utf8(lead).is_ok_and(|s| s.chars().all(char::is_whitespace)),
            "bytes before the first token: {lead:?}"
        );
    }
}

/// Games in order, without overlap, covering the input except whitespace and commentary
/// between games; a game of valid UTF-8 input is valid UTF-8.
pub fn check_coverage(input: &[u8], games: &[Game]) {
    let mut covered = 0usize;
    let utf8 = std::str::from_utf8(input).is_ok();
    for (i, g) in games.iter().enumerate() {
        assert_eq!(g.number, i as u64 + 1, "game numbers");
        let offset = g.offset as usize;
        assert!(offset >= covered, "game {} overlaps the one before", i + 1);
        assert_eq!(
            &input[offset..offset + g.bytes.len()],
            &g.bytes[..],
            "game {} bytes are not the input's at its offset",
            i + 1
        );
        check_gap(input, covered, offset);
        assert!(!g.bytes.is_empty(), "game {} is empty", i + 1);
        if utf8 {
            assert!(
                std::str::from_utf8(&g.bytes).is_ok(),
                "game {} of UTF-8 input is not UTF-8: {:?}",
                i + 1,
                String::from_utf8_lossy(&g.bytes)
            );
        }
        let expected_line = 1 + lines_before(input, offset).0;
        assert_eq!(g.line, expected_line, "line of game {}", i + 1);
        covered = offset + g.bytes.len();
    }
    check_gap(input, covered, input.len());
}

/// What lies between two games: whitespace, a byte order mark at the very start, commentary.
fn check_gap(input: &[u8], from: usize, to: usize) {
    let mut gap = &input[from..to];
    if from == 0 {
        gap = gap.strip_prefix(&[0xEF, 0xBB, 0xBF]).unwrap_or(gap);
    }
    let start = gap.iter().position(|b| !b.is_ascii_whitespace());
    let Some(start) = start else { return };
    let rest = &gap[start..];
    let mut lexed = Lexed::default();
    let end = lex_game(rest, true, 1, &mut lexed);
    assert!(
        lexed.tokens.iter().all(|t| is_commentary(t.kind)) && lexed.problems.is_empty(),
        "bytes {from}..{to} between games are not commentary: {:?} ({end:?}, {:?})",
        String::from_utf8_lossy(rest),
        lexed.tokens
    );
}

/// Checks what the replay reports about every move it plays.
struct Observer<'a> {
    lexed: &'a Lexed,
    opts: &'a CheckOptions,
    main_moves: u32,
    seen: Vec<(Chess, Move)>,
}

impl Visitor for Observer<'_> {
    fn needs(&self) -> Needs {
        Needs {
            positions: Positions::All,
            movetext: false,
            tags: false,
            main_moves: false,
            notes: false,
            main_san: false,
        }
    }

    fn play(&mut self, ply: &Ply<'_>) {
        let Ply { at, before, mv, .. } = *ply;
        let MoveAt { start, end, depth } = at;
        assert_eq!(
            move_token(self.lexed, start, end),
            Some(TokenKind::Move),
            "move {at:?}"
        );
        assert!(depth <= self.opts.max_depth, "depth {depth}");
        assert!(
            before.is_legal(mv),
            "{mv:?} is not legal where it was played"
        );
        if depth == 0 {
            self.main_moves += 1;
        }
        if self.seen.len() < 64 {
            self.seen.push((before.clone(), mv));
        }
    }

    fn unplayed(&mut self, at: MoveAt) {
        assert_eq!(
            move_token(self.lexed, at.start, at.end),
            Some(TokenKind::Move),
            "unplayed {at:?}"
        );
    }
}

/// The kind of the token at bytes `start..end`, if one is there.
fn move_token(lexed: &Lexed, start: u32, end: u32) -> Option<TokenKind> {
    let i = lexed
        .tokens
        .binary_search_by_key(&start, |t| t.span.start)
        .ok()?;
    let t = lexed.tokens[i];
    (t.span.end == end).then_some(t.kind)
}

/// Notations a replayed move is written in and read back from, with the language to read it.
fn notation(k: usize) -> (Notation, Option<Lang>) {
    let langs = Lang::ALL;
    match k % 6 {
        0 => (Notation::San, None),
        1 => (Notation::Lan, None),
        2 => (Notation::Fan, None),
        3 => (Notation::Zh(ZhStyle::default()), None),
        4 => (
            Notation::ZhLong(ZhStyle {
                traditional: true,
                ..ZhStyle::default()
            }),
            None,
        ),
        _ => {
            let lang = langs[(k / 6) % langs.len()];
            (
                Notation::Letters {
                    lang,
                    long: k.is_multiple_of(2),
                },
                Some(lang),
            )
        }
    }
}

fn claim_after(pos: &Chess, m: Move) -> CheckClaim {
    let mut after = pos.clone();
    after.play_unchecked(m);
    if after.is_checkmate() {
        CheckClaim::Mate
    } else if after.is_check() {
        CheckClaim::Check
    } else {
        CheckClaim::None
    }
}

/// Writes `m` in a notation and reads it back to the same move.
pub fn check_round_trip(pos: &Chess, m: Move, k: usize) {
    let (notation, lang) = notation(k);
    let mut text = String::new();
    write::write(pos, m, claim_after(pos, m), notation, &mut text);
    let mut read = Vec::new();
    read_token_with(text.as_bytes(), lang, &mut read)
        .unwrap_or_else(|e| panic!("{notation:?} {text:?} of {m:?} does not read back: {e}"));
    assert_eq!(read.len(), 1, "{notation:?} {text:?}: {read:?}");
    let found = find_move(pos, &read[0]).map(|(found, _)| found);
    assert_eq!(found, Ok(m), "{notation:?} {text:?} in {pos:?}");
}

/// An observer of the main line, as `stats` has one: what it saw of each main-line move.
/// It asks for the main line told at once too, which must be the moves it was told one by
/// one, with the same tokens as their canonical SAN.
#[derive(Default)]
struct MainLine {
    moves: Vec<(Move, CheckClaim, bool)>,
    san: Vec<Option<String>>,
    unplayed: bool,
}

impl Visitor for MainLine {
    fn needs(&self) -> Needs {
        Needs {
            positions: Positions::All,
            movetext: false,
            tags: false,
            main_moves: true,
            notes: false,
            main_san: true,
        }
    }

    fn play(&mut self, ply: &Ply<'_>) {
        if ply.at.depth == 0 {
            self.moves
                .push((ply.mv, ply.check, ply.before.is_legal(ply.mv)));
            self.san.push(ply.san.map(|s| s.as_str().to_owned()));
        }
    }

    fn main_line(&mut self, line: pgnkit::rules::visit::MainLine<'_>) {
        let moves: Vec<Move> = self.moves.iter().map(|m| m.0).collect();
        assert_eq!(line.moves, moves, "the main line told at once");
        let san: Vec<Option<String>> = (0..line.moves.len())
            .map(|i| line.written_san(i).map(|s| s.as_str().to_owned()))
            .collect();
        assert_eq!(san, self.san, "the tokens told as canonical SAN");
    }

    fn unplayed(&mut self, at: MoveAt) {
        self.unplayed |= at.depth == 0;
    }
}

/// Checks the game as lexed to its tags (`tags`, its movetext where `movetext` says) and as
/// lexed whole: the replay's fast path must give the report the general path gives, which
/// is returned.
fn assert_fast_report(
    game: &Game,
    tags: &Lexed,
    movetext: Movetext,
    opts: &CheckOptions,
) -> GameReport {
    let lazy = check_game(&game.bytes, tags, movetext, opts, &mut NoVisitor);
    let general = check_game(
        &game.bytes,
        &game.lexed,
        Movetext::Tokens,
        opts,
        &mut NoVisitor,
    );
    assert_eq!(
        format!("{lazy:?}"),
        format!("{general:?}"),
        "the fast path's report differs from the general one"
    );
    general
}

/// Replays every game (book header too) under a few option sets and checks the observer's
/// view; reads every move token on its own.
/// The moves table of numbers, boards and notes is the same whether the main line is told at
/// once (no text asked for: the numbers kept up from the moves, the notes told with where
/// they are) or move by move with its positions (UCI asked for too).
pub fn check_table_paths(bytes: &[u8]) {
    use pgnkit::convert::arrow::MovesBuilder;
    use pgnkit::convert::columns::{MoveColumn, MoveColumns};
    use pgnkit::convert::{Convert, ConvertOptions, Format, RowScratch};
    thread_local! {
        static CONVERTS: [(Convert, MoveColumns); 2] = {
            let numbers = MoveColumns::NUMBERS
                .union(MoveColumns::POSITION)
                .union(MoveColumns::NOTES);
            [numbers, numbers.with(MoveColumn::Uci)].map(|columns| {
                let options = ConvertOptions {
                    format: Format::Parquet,
                    no_movetext: true,
                    moves_columns: Some(columns),
                    ..ConvertOptions::default()
                };
                (Convert::new(options).unwrap(), columns)
            })
        };
    }
    CONVERTS.with(|converts| {
        let tables = converts.each_ref().map(|(convert, columns)| {
            let mut scratch = RowScratch::default();
            let row = convert.game_row_in(bytes, "", 1, &mut scratch)?;
            let mut moves = MovesBuilder::with_columns(*columns);
            moves.append(&row);
            let batch = moves.finish().unwrap();
            let uci = batch.schema().index_of("uci").ok();
            let kept: Vec<usize> = (0..batch.num_columns())
                .filter(|&i| Some(i) != uci)
                .collect();
            Some(batch.project(&kept).unwrap())
        });
        assert_eq!(
            tables[0], tables[1],
            "moves table told at once, and move by move"
        );
    });
}

pub fn check_replay(game: &Game, salt: usize) {
    check_table_paths(&game.bytes);
    // The replay's fast path (tags lexed, movetext read from the bytes) gives the report the
    // general path gives.
    let mut tags = Lexed::default();
    let movetext = lex_game_tags(&game.bytes, game.line, game.col, &mut tags);
    for opts in [
        CheckOptions::default(),
        CheckOptions {
            strict: true,
            ..CheckOptions::default()
        },
    ] {
        let general = assert_fast_report(game, &tags, movetext, &opts);
        if matches!(movetext, Movetext::Bytes(_)) && general.legal && general.plies > 0 {
            LAZY_CLEAN.fetch_add(1, Ordering::Relaxed);
        }
        // An observer of the main line sees the same moves either way, once each, even when
        // the fast path gives the game up part-way.
        let (mut fast, mut slow) = (MainLine::default(), MainLine::default());
        let lazy = check_game(&game.bytes, &tags, movetext, &opts, &mut fast);
        let general = check_game(&game.bytes, &game.lexed, Movetext::Tokens, &opts, &mut slow);
        assert_eq!(format!("{lazy:?}"), format!("{general:?}"));
        assert_eq!(fast.moves, slow.moves, "main-line moves seen");
        assert_eq!(fast.unplayed, slow.unplayed);
        // `convert`'s collector, told the movetext by the fast path when it takes the game,
        // makes the same elements and writes the same moves as when told by the token loop.
        let mut fast = Collector::new(Notation::San, false);
        check_game(&game.bytes, &tags, movetext, &opts, &mut fast);
        if matches!(movetext, Movetext::Bytes(_)) {
            let mut slow = Collector::new(Notation::San, false);
            check_game(&game.bytes, &game.lexed, Movetext::Tokens, &opts, &mut slow);
            let written = |c: &Collector| -> Vec<String> {
                c.plies.iter().map(|p| c.written(p).to_owned()).collect()
            };
            assert_eq!(written(&fast), written(&slow), "moves written");
            for keep in [
                Keep::default(),
                Keep {
                    no_comments: true,
                    no_nags: true,
                    no_variations: false,
                },
            ] {
                assert_eq!(
                    elements(&game.bytes, &fast, keep),
                    elements(&game.bytes, &slow, keep),
                    "convert's elements"
                );
            }
            if general.legal && general.plies > 0 {
                FAST_CONVERTED.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
    let mut moves = Vec::new();
    let mut null_moves = 0;
    for t in &game.lexed.tokens {
        if t.kind == TokenKind::Move {
            let token = &game.bytes[t.span.start as usize..t.span.end as usize];
            if read_token(token, &mut moves).is_ok() {
                for m in &moves {
                    null_moves += u32::from(m.pattern == MovePattern::Null);
                    assert!(
                        m.start <= m.end && usize::from(m.end) <= token.len(),
                        "{m:?}"
                    );
                }
            }
        }
    }
    let strict = CheckOptions {
        strict: true,
        max_depth: 2,
        ..CheckOptions::default()
    };
    for opts in [CheckOptions::default(), strict] {
        let mut observer = Observer {
            lexed: &game.lexed,
            opts: &opts,
            main_moves: 0,
            seen: Vec::new(),
        };
        let report = check_game(
            &game.bytes,
            &game.lexed,
            Movetext::Tokens,
            &opts,
            &mut observer,
        );
        // Null moves count as plies but are no moves of the position.
        assert!(
            observer.main_moves + null_moves >= report.plies,
            "{} main-line moves seen, {null_moves} null moves, {} plies reported",
            observer.main_moves,
            report.plies
        );
        for (k, (pos, m)) in observer.seen.iter().enumerate() {
            check_round_trip(pos, *m, salt + k);
        }
    }
    let mut lexed = game.lexed.clone();
    if book::extract_header(&game.bytes, &mut lexed) {
        check_game(
            &game.bytes,
            &lexed,
            Movetext::Tokens,
            &CheckOptions::default(),
            &mut NoVisitor,
        );
    }
}

/// Games with legal moves checked through the replay's fast path entry (tags lexed first):
/// the comparison above is only worth something when this is not zero.
pub static LAZY_CLEAN: AtomicUsize = AtomicUsize::new(0);

/// Games with legal moves `convert`'s collector took through the replay's fast path entry
/// (tags lexed first), compared above with the token loop: the comparison is only worth
/// something when this is not zero.
pub static FAST_CONVERTED: AtomicUsize = AtomicUsize::new(0);

/// The parallel pipeline's reader only splits; the workers lex each game again. Both must see
/// the same games, or `--jobs 2` would differ from `--jobs 1`.
pub fn check_split(input: &[u8]) {
    let full = game_places(input, 4096, false);
    for chunk in [4096, 5] {
        assert_eq!(
            full,
            game_places(input, chunk, true),
            "split-only reading ({chunk} bytes at a time) finds other games than full lexing"
        );
    }
}

/// Games read with a size limit that were too large (read by the lexer a window at a time),
/// over all inputs checked: the size limit's property is only worth something when this is
/// not zero.
pub static OVERSIZED_GAMES: AtomicUsize = AtomicUsize::new(0);

/// Games whose end the replay found with one job (the open fast path), over all inputs
/// checked: the property below is only worth something when this is not zero.
pub static OPEN_GAMES: AtomicUsize = AtomicUsize::new(0);

/// Each game as `validate`'s work sees it through the pipeline: number, offset, line, column,
/// length and report. With one job the replay finds where plain games end in the reader's
/// buffer; with more the reader splits the stream first.
pub fn pipeline_reports(
    input: &[u8],
    chunk: usize,
    jobs: usize,
) -> Vec<(u64, u64, u32, u32, usize, String)> {
    pipeline_reports_in(input, chunk, jobs, None)
}

/// [`pipeline_reports`], with the stream cut into pieces of about `piece` bytes for the
/// workers when given.
pub fn pipeline_reports_in(
    input: &[u8],
    chunk: usize,
    jobs: usize,
    piece: Option<usize>,
) -> Vec<(u64, u64, u32, u32, usize, String)> {
    let opts = CheckOptions::default();
    let mut seen = Vec::new();
    let reader = GameReader::new(Chunked::new(input, chunk));
    let sink = |game| {
        seen.push(game);
        Ok(())
    };
    let work = |g: &mut pgnkit::input::pipeline::Game<'_>| {
        let was_open = g.is_open();
        // Closed without a replay (the lexer from the movetext's start), an open game ends
        // where the replay ends it.
        let mut tags = g.lexed.clone();
        let mut closed = pgnkit::input::pipeline::Game {
            bytes: g.bytes,
            lexed: &mut tags,
            number: g.number,
            line: g.line,
            col: g.col,
            offset: g.offset,
            movetext: g.movetext,
        };
        closed.close();
        let closed = closed.bytes.len();
        let report = g.check(&opts, &mut NoVisitor);
        if was_open {
            OPEN_GAMES.fetch_add(1, Ordering::Relaxed);
            assert_eq!(closed, g.bytes.len(), "game {} closed elsewhere", g.number);
        }
        (
            g.number,
            g.offset,
            g.line,
            g.col,
            g.bytes.len(),
            format!("{report:?}"),
        )
    };
    match piece {
        Some(piece) => pipeline::run_with_pieces(reader, jobs, piece, work, sink),
        None => pipeline::run_with(reader, jobs, work, sink),
    }
    .expect("reading a slice never fails");
    seen
}

/// Pieces of these sizes (bytes) cut the inputs of the pipeline checks for the workers.
const PIECES: [usize; 3] = [1, 40, 300];

/// `--jobs 1` (the replay finds where plain games end) and `--jobs 2` (the reader splits)
/// must see the same games with the same reports, however the input arrives.
pub fn check_pipeline(input: &[u8]) {
    let two = pipeline_reports(input, 4096, 2);
    for piece in PIECES {
        assert_eq!(
            pipeline_reports_in(input, 4096, 2, Some(piece)),
            two,
            "two jobs given pieces of {piece} bytes see other games or reports"
        );
    }
    for chunk in [4096, 5] {
        assert_eq!(
            pipeline_reports(input, chunk, 1),
            two,
            "one job ({chunk} bytes at a time) sees other games or reports than two"
        );
    }
}

/// [`check_pipeline`] with reads of every size from 1 to `max` bytes: a read can end right
/// after any byte of a game (its result, say), where the first look at the game stops.
pub fn check_pipeline_cuts(input: &[u8], max: usize) {
    let two = pipeline_reports(input, 4096, 2);
    for chunk in 1..=max.min(input.len()) {
        assert_eq!(
            pipeline_reports(input, chunk, 1),
            two,
            "one job ({chunk} bytes at a time) sees other games or reports than two"
        );
        assert_eq!(
            pipeline_reports_in(input, chunk, 2, Some(40)),
            two,
            "two jobs given pieces ({chunk} bytes at a time) see other games or reports"
        );
    }
}

/// Everything that must hold for `input`.
pub fn check_input(input: &[u8], salt: usize) {
    let games = read_games(input, 4096, None);
    for chunk in [1, 7] {
        let other = read_games(input, chunk, None);
        assert_eq!(
            games.len(),
            other.len(),
            "{} games read 4096 bytes at a time, {} read {chunk} at a time",
            games.len(),
            other.len()
        );
        for (a, b) in games.iter().zip(&other) {
            assert_eq!(
                a, b,
                "game {} differs read {chunk} bytes at a time",
                a.number
            );
        }
    }
    check_split(input);
    check_pipeline(input);
    check_coverage(input, &games);
    for game in &games {
        check_lexed(game);
        check_replay(game, salt);
    }
    // The size limit: an oversized game is skipped where the lexer ends it (read a window at
    // a time), so the games are the same games, the large ones empty and reported.
    if input.len() > 1024 {
        let limited = read_games(input, 97, Some(1024));
        let places = |g: &[Game]| g.iter().map(|g| (g.offset, g.line)).collect::<Vec<_>>();
        assert_eq!(
            places(&limited),
            places(&games),
            "the games read with a size limit start elsewhere"
        );
        for (small, game) in limited.iter().zip(&games) {
            if small.bytes.is_empty() {
                OVERSIZED_GAMES.fetch_add(1, Ordering::Relaxed);
                assert!(
                    small
                        .lexed
                        .problems
                        .iter()
                        .any(|p| p.kind == LexProblemKind::GameTooLarge),
                    "game {} is empty and not reported as too large",
                    small.number
                );
            } else {
                assert_eq!(small.bytes, game.bytes, "game {} differs", small.number);
                check_lexed(small);
            }
        }
    }
    // The lexer on the whole input in one piece.
    let mut lexed = Lexed::default();
    assert!(matches!(
        lex_game(input, true, 1, &mut lexed),
        LexEnd::Complete(n) if n <= input.len()
    ));
}

/// The cheap properties, for the fast libFuzzer target: the reader (one read size), the
/// lexer's spans and coverage, and the replay's fast path against the general one. The slow
/// cross-checks (every read size, the pipeline, every notation) are [`check_input`].
pub fn check_input_fast(input: &[u8]) {
    let games = read_games(input, 4096, None);
    check_coverage(input, &games);
    let opts = CheckOptions::default();
    for game in &games {
        check_lexed(game);
        let mut tags = Lexed::default();
        let movetext = lex_game_tags(&game.bytes, game.line, game.col, &mut tags);
        assert_fast_report(game, &tags, movetext, &opts);
    }
}

/// The notations `convert --to` writes, with the language to read each back in.
fn convert_notations() -> Vec<(Notation, Option<Lang>)> {
    let mut all = vec![
        (Notation::San, None),
        (Notation::Lan, None),
        (Notation::Fan, None),
        (Notation::Uci(shakmaty::CastlingMode::Standard), None),
        (Notation::Zh(ZhStyle::default()), None),
        (
            Notation::ZhLong(ZhStyle {
                traditional: true,
                ..ZhStyle::default()
            }),
            None,
        ),
    ];
    for (k, &lang) in Lang::ALL.iter().enumerate() {
        all.push((
            Notation::Letters {
                lang,
                long: k % 2 == 1,
            },
            Some(lang),
        ));
    }
    all
}

/// What a read-back must keep of a game: its main-line moves, final position, termination.
fn game_outcome(report: &GameReport, main: &MainLine) -> (Vec<Move>, Option<String>, String) {
    (
        main.moves.iter().map(|m| m.0).collect(),
        report.final_fen(),
        report.termination.as_str().to_owned(),
    )
}

/// Each game `convert` accepts, written in one notation (chosen by `pick`) as PGN, as PGN with
/// its movetext on one line (the Parquet column's) and in the book layout, reads back as one game with the same main-line moves, final position and
/// termination; EPD gives that final position.
pub fn check_convert_round_trip(input: &[u8], pick: usize) {
    convert_round_trip(input, pick);
}

fn convert_round_trip(input: &[u8], pick: usize) {
    let notations = convert_notations();
    let opts = CheckOptions::default();
    for (k, game) in read_games(input, 4096, None).iter().enumerate() {
        let mut lexed = game.lexed.clone();
        book::extract_header(&game.bytes, &mut lexed);
        let (notation, lang) = notations[(pick + k) % notations.len()];
        let mut collector = Collector::new(notation, true);
        let report = check_game(&game.bytes, &lexed, Movetext::Tokens, &opts, &mut collector);
        if is_rejected(&report) || report.variant != "standard" {
            continue;
        }
        let mut main = MainLine::default();
        check_game(&game.bytes, &lexed, Movetext::Tokens, &opts, &mut main);
        let expected = game_outcome(&report, &main);
        let result = final_result(&lexed, &report, false);
        let elements = elements(&game.bytes, &collector, Keep::default());
        for layout in [Layout::Pgn, Layout::Line, Layout::Book] {
            let mut text = String::new();
            match layout {
                Layout::Pgn | Layout::Line => {
                    write_tags(&lexed, result, false, &mut text);
                    text.push('\n');
                }
                Layout::Book => {
                    write_book_header(&lexed, &mut text);
                }
            }
            write_movetext(&elements, &collector, result, layout, &mut text);
            text.push('\n');
            let back = read_games(text.as_bytes(), 4096, None);
            assert_eq!(
                back.len(),
                1,
                "{notation:?} {layout:?} reads back as {} games:\n{text}",
                back.len()
            );
            let mut back_lexed = back[0].lexed.clone();
            book::extract_header(&back[0].bytes, &mut back_lexed);
            let back_opts = CheckOptions {
                lang,
                ..CheckOptions::default()
            };
            let mut back_main = MainLine::default();
            let back_report = check_game(
                &back[0].bytes,
                &back_lexed,
                Movetext::Tokens,
                &back_opts,
                &mut back_main,
            );
            assert_eq!(
                game_outcome(&back_report, &back_main),
                expected,
                "{notation:?} {layout:?} does not read back the same:\n{text}"
            );
        }
        if let Some(pos) = report.final_position.as_ref() {
            let mut epd = Vec::new();
            write_epd(&mut epd, "fuzz", game.number, &collector, Some(pos))
                .expect("writing to a vec");
            let epd = String::from_utf8(epd).expect("EPD is UTF-8");
            let fen = report.final_fen().unwrap_or_default();
            let placement: Vec<&str> = fen.split(' ').take(4).collect();
            let last = epd.lines().last().unwrap_or("");
            assert!(
                last.starts_with(&placement.join(" ")),
                "EPD's last record {last:?} is not the final position {fen}"
            );
        }
    }
}

/// A reader that hands out the sizes of `sizes` in turn (0 taken as 1).
struct Sized<'a> {
    data: &'a [u8],
    sizes: Vec<usize>,
    k: usize,
}

impl Read for Sized<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let size = self.sizes[self.k % self.sizes.len()].max(1);
        self.k += 1;
        let n = size.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// The streaming decoder gives what a one-shot decode of the whole input gives, whatever
/// sizes the reads into it and out of it have. `control` picks the encoding and the sizes.
pub fn check_decode(control: &[u8], input: &[u8]) {
    use encoding_rs::{Encoding, UTF_8};
    const NAMES: [&str; 8] = [
        "",
        "utf-8",
        "gbk",
        "big5",
        "windows-1252",
        "utf-16le",
        "utf-16be",
        "gb18030",
    ];
    let byte = |k: usize| usize::from(control.get(k).copied().unwrap_or(0));
    let forced = match NAMES[byte(0) % NAMES.len()] {
        "" => None,
        name => Encoding::for_label(name.as_bytes()),
    };
    let inner_sizes: Vec<usize> = (1..4).map(|k| 1 + byte(k) * 37).collect();
    let outer_sizes: Vec<usize> = (4..7).map(|k| 1 + byte(k) * 53).collect();
    let source = Sized {
        data: input,
        sizes: inner_sizes,
        k: 0,
    };
    let data: Box<dyn Read + Send> = Box::new(io::Cursor::new(read_all(source)));
    let (mut reader, detected, malformed) =
        decoded(data, forced).expect("reading a slice never fails");
    let mut out = Vec::new();
    let mut buf = vec![0; 1 << 16];
    let mut k = 0;
    loop {
        let size = outer_sizes[k % outer_sizes.len()].min(buf.len());
        k += 1;
        let n = reader.read(&mut buf[..size]).expect("decoding never fails");
        if n == 0 {
            break;
        }
        out.extend_from_slice(&buf[..n]);
    }
    if let Some(fallback) = detected.fallback {
        // A mixed input: valid UTF-8 as it is, each sequence that is not in the fallback
        // encoding (U+FFFD where that does not decode either).
        let mut want = String::new();
        let mut bad = false;
        for chunk in input.utf8_chunks() {
            want.push_str(chunk.valid());
            if chunk.invalid().is_empty() {
                continue;
            }
            let (text, _) = fallback.decode_without_bom_handling(chunk.invalid());
            if text.contains('\u{FFFD}') {
                want.push('\u{FFFD}');
                bad = true;
            } else {
                want.push_str(&text);
            }
        }
        assert_eq!(
            String::from_utf8_lossy(&out),
            want,
            "the streaming decode (UTF-8, else {}) differs from a one-shot decode",
            fallback.name()
        );
        assert_eq!(malformed.get().0 > 0, bad, "malformed bytes counted");
        return;
    }
    let has_bom = Encoding::for_bom(input).is_some();
    if detected.encoding == UTF_8 && !has_bom {
        if std::str::from_utf8(input).is_ok() {
            assert_eq!(out, input, "valid UTF-8 without a BOM is passed through");
            return;
        }
        // Bytes past the detection sample may be passed through as they are, for the reader
        // to report.
        if out == input {
            return;
        }
    }
    let (whole, had_errors) = detected.encoding.decode_with_bom_removal(input);
    assert_eq!(
        String::from_utf8_lossy(&out),
        whole,
        "the streaming decode ({}) differs from a one-shot decode",
        detected.encoding.name()
    );
    assert_eq!(malformed.get().0 > 0, had_errors, "malformed bytes counted");
}

/// All of a reader (a slice behind it: it never fails).
fn read_all(mut r: impl Read) -> Vec<u8> {
    let mut v = Vec::new();
    r.read_to_end(&mut v).expect("reading a slice never fails");
    v
}

/// `stats --partial` on each piece of `input` (cut where `control` says), merged with
/// `stats merge`, writes the reports one `stats` run over the same pieces writes; with
/// `--tiebreaks` too, when `control` says so. Runs the library's `Stats` and `Merger` in
/// this process, in a scratch folder under `dir`.
pub fn check_stats_merge(control: &[u8], input: &[u8], dir: &std::path::Path) {
    use pgnkit::input::InputOptions;
    use pgnkit::stats::{MergeOptions, Merger, Stats, StatsOptions};
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).expect("scratch folder");
    let first = control.first().copied().unwrap_or(0);
    let pieces = 1 + usize::from(first) % 3;
    let tiebreaks = (first / 3 % 2 == 1).then(|| "BH,DE,PS".parse().expect("a tie-break list"));
    let mut cuts: Vec<usize> = (1..pieces)
        .map(|k| usize::from(control.get(k).copied().unwrap_or(0)) * input.len() / 256)
        .collect();
    cuts.sort_unstable();
    cuts.insert(0, 0);
    cuts.push(input.len());
    let mut files = Vec::new();
    for (k, w) in cuts.windows(2).enumerate() {
        let path = dir.join(format!("piece{k}.pgn"));
        std::fs::write(&path, &input[w[0]..w[1]]).expect("write piece");
        files.push(path);
    }
    let stats = |files: &[std::path::PathBuf], out: std::path::PathBuf, partial| {
        let mut options = StatsOptions::default();
        options.reports.out = Some(out);
        options.partial = partial;
        options.tiebreaks.clone_from(&tiebreaks);
        options.quiet = true;
        let mut input = InputOptions::new(files.to_vec());
        input.jobs = 1;
        let stats = Stats::new(options).expect("options");
        stats.run(input).expect("stats runs");
    };
    let whole = dir.join("whole");
    stats(&files, whole.clone(), None);
    let mut parts = Vec::new();
    for (k, file) in files.iter().enumerate() {
        let part = dir.join(format!("part{k}.jsonl"));
        let out = dir.join(format!("out{k}"));
        stats(std::slice::from_ref(file), out, Some(part.clone()));
        parts.push(part);
    }
    let merged = dir.join("merged");
    let mut options = MergeOptions::default();
    options.reports.out = Some(merged.clone());
    options.tiebreaks = tiebreaks.clone();
    let mut merger = Merger::new(options).expect("merge options");
    for part in &parts {
        merger.add_file(part).expect("a part merges");
    }
    merger.finish().expect("reports written");
    let mut reports: Vec<_> = std::fs::read_dir(&whole)
        .expect("reports written")
        .map(|e| e.expect("entry").file_name())
        .collect();
    reports.sort();
    assert!(!reports.is_empty(), "no reports written");
    for report in reports {
        let a = std::fs::read(whole.join(&report)).expect("report");
        let b = std::fs::read(merged.join(&report))
            .unwrap_or_else(|_| panic!("merge wrote no {report:?}"));
        assert_eq!(
            String::from_utf8_lossy(&b),
            String::from_utf8_lossy(&a),
            "{report:?} of the merged parts differs from one run's"
        );
    }
}

/// Writes `input` as a Parquet file of games and reads its rows back as pgnkit reads a
/// Parquet input: no panic, and a row is one game (the games' rows strictly increase, so no
/// row gives two), whatever the cells hold. `input` is cut at NUL bytes into cells: an
/// `Event` then a `movetext`, row after row (an empty cell is a null). `control` picks the
/// codec, the dictionary, the rows a page, and whether one byte of the file's page data is
/// flipped (damage that must be reported, not panic); a small size limit makes large pages
/// refused from their headers.
pub fn check_parquet_rows(control: &[u8], input: &[u8], path: &std::path::Path) {
    use std::sync::Arc;

    use arrow_array::{ArrayRef, RecordBatch, StringArray};
    use parquet::arrow::ArrowWriter;
    use parquet::basic::{Compression, ZstdLevel};
    use parquet::file::properties::WriterProperties;
    use pgnkit::input::parquet::{Columns, RowText};

    let byte = |k: usize| control.get(k).copied().unwrap_or(0);
    let cells: Vec<Option<String>> = input
        .split(|&b| b == 0)
        .map(|c| (!c.is_empty()).then(|| String::from_utf8_lossy(c).into_owned()))
        .collect();
    let rows = cells.len().div_ceil(2);
    let column = |offset: usize| -> ArrayRef {
        Arc::new(StringArray::from(
            (0..rows)
                .map(|r| cells.get(2 * r + offset).cloned().flatten())
                .collect::<Vec<_>>(),
        ))
    };
    let batch = RecordBatch::try_from_iter([("Event", column(0)), ("movetext", column(1))])
        .expect("a batch of two text columns");
    let codec = match byte(0) % 4 {
        0 => Compression::UNCOMPRESSED,
        1 => Compression::SNAPPY,
        2 => Compression::ZSTD(ZstdLevel::default()),
        _ => Compression::LZ4_RAW,
    };
    let props = WriterProperties::builder()
        .set_compression(codec)
        .set_dictionary_enabled(byte(0) & 4 != 0)
        .set_data_page_row_count_limit(1 + usize::from(byte(1) % 4))
        .set_write_batch_size(1)
        .set_max_row_group_row_count(Some(1 + usize::from(byte(2) % 8)))
        .build();
    let mut file = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut file, batch.schema(), Some(props)).expect("writer");
    writer.write(&batch).expect("rows written");
    writer.close().expect("file closed");
    // Damage in the pages (after the magic bytes, before the footer's last 8 bytes).
    if byte(3) & 1 == 1 && file.len() > 12 {
        let at = 4 + usize::from(u16::from_le_bytes([byte(4), byte(5)])) % (file.len() - 12);
        file[at] ^= byte(6) | 1;
    }
    std::fs::write(path, &file).expect("write the Parquet file");
    let Ok((text, _)) = RowText::open(path, &Columns::default()) else {
        return;
    };
    let text = text.with_max_game(64 + usize::from(byte(7)) * 64);
    let places = text.rows();
    let mut reader = text.games(1 << 20);
    let mut lexed = Lexed::default();
    let mut last: Option<u64> = None;
    let mut games = 0;
    while let Ok(Some(game)) = reader.next_game(&mut lexed) {
        games += 1;
        let row = places
            .locate(game.line)
            .unwrap_or_else(|| panic!("game at line {} is in no row", game.line))
            .row;
        assert!(
            last.is_none_or(|l| row > l),
            "row {row} gives a second game (line {}): {:?}",
            game.line,
            String::from_utf8_lossy(game.bytes)
        );
        last = Some(row);
    }
    assert!(games <= rows, "{games} games from {rows} rows");
}

/// A `select --where` expression: parsing never panics, an error renders with its caret, and
/// an expression that parses is decided on a game's tags as its negation is, the other way.
pub fn check_select(input: &[u8]) {
    use pgnkit::select::{Facts, Selection};

    let src = String::from_utf8_lossy(input);
    let selection = match Selection::parse(&src) {
        Ok(s) => s,
        Err(e) => {
            let _ = e.render(&src);
            return;
        }
    };
    let pgn = b"[Event \"Rated Blitz\"]\n[White \"Alpha\"]\n[Black \"Beta\"]\n[Result \"1-0\"]\n\
        [Date \"2024.03.01\"]\n[WhiteElo \"2100\"]\n[BlackElo \"?\"]\n[ECO \"C20\"]\n\n1. e4 e5 1-0\n";
    let mut lexed = Lexed::default();
    lex_game(pgn, true, 1, &mut lexed);
    let facts = Facts {
        lexed: &lexed,
        replay: None,
        game: 1,
        file: "games.pgn",
    };
    let decided = selection.matches(&facts);
    let _ = (
        selection.needs_replay(),
        selection.classifies(),
        selection.targets(),
    );
    if let Ok(not) = Selection::parse(&format!("not ({src})")) {
        assert_eq!(
            not.matches(&facts),
            decided.map(|v| !v),
            "not ({src}) is not the negation"
        );
    }
}
