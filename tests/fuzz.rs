//! Deterministic fuzzing of the reader, the lexer, the notation readers and the replay: PGN-ish
//! byte soup from a fixed-seed generator, then the corpus under `testdata/fuzz/`, each input
//! checked against the properties in `fuzz_support` (no panic, spans in bounds and ordered,
//! the same games whatever the read size, games covering the input, write → read round trips).
//!
//! `PGNKIT_FUZZ_CASES=N` runs N generated cases instead of the default; `PGNKIT_FUZZ_SEED=S`
//! starts from another seed. A failing case is written to `$CARGO_TARGET_TMPDIR` so that it
//! can be added to `testdata/fuzz/`.

mod fuzz_support;

use std::panic::{catch_unwind, AssertUnwindSafe};

use pgnkit::input::pipeline;
use pgnkit::notation::write::{self, Notation, ZhStyle};
use pgnkit::notation::{CheckClaim, Lang};
use shakmaty::{Chess, Position};

/// Cases run by a plain `cargo test`: a few seconds in a debug build.
const DEFAULT_CASES: u64 = 80;

/// xorshift64*: small, fast, and the same sequence on every machine.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        // Spread nearby seeds apart; zero is a fixed point of xorshift.
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn percent(&mut self, p: usize) -> bool {
        self.below(100) < p
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const TAG_NAMES: &[&str] = &[
    "Event",
    "Site",
    "Date",
    "White",
    "Black",
    "Result",
    "FEN",
    "SetUp",
    "Variant",
    "PlyCount",
    "ECO",
    "Round",
    "Termination",
    "WhiteElo",
];

const TAG_VALUES: &[&str] = &[
    "?",
    "Casual",
    "1-0",
    "0-1",
    "1/2-1/2",
    "*",
    "2024.01.??",
    "Chess960",
    "antichess",
    "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
    "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
    "8/8/8/8/8/8/8/8 w - - 0 1",
    "not a fen",
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
    "1",
    "白方",
    "say \\\"hi\\\"",
    "back\\\\slash",
    "unescaped \" quote",
];

/// Move-like tokens that are not (all) legal: every notation's oddities.
const ODD_MOVES: &[&str] = &[
    "Kx",
    "--",
    "Z0",
    "e2-e4",
    "g1f3",
    "e7e8q",
    "ed",
    "exd6e.p.",
    "e8Q",
    "0-0",
    "o-o",
    "O-O-O+",
    "nf3",
    "Nbd2",
    "R1e2",
    "Qh4xe1",
    "♘f3",
    "♕xf7#",
    "e8=♕",
    "炮二平五",
    "马8进7",
    "兵五进一",
    "马g1-f3",
    "王e1-e2",
    "e×d5",
    "后×f7≠",
    "象c4×f7+",
    "Sf3",
    "Крe2",
    "~",
    "Nf3++",
    "e4!?",
    "Nf3??",
    "e5!",
    "ｅ４",
    "Ｎｆ３",
    "易位",
    "P@e4",
    "e9",
    "i4",
    "Kxx",
    "=Q",
    "x",
    "+",
    "#",
    "a1=K",
    "h8=P",
    "Bb5+-",
];

const RESULTS: &[&str] = &[
    "1-0", "0-1", "1/2-1/2", "*", "½-½", "1–0", "0—1", "1:0", "白胜", "和棋", "=", "1/2",
];

/// Fragments that stress token and game boundaries.
const NASTY: &[&[u8]] = &[
    b"{",
    b"}",
    b"(",
    b")",
    b"[",
    b"]",
    b"\"",
    b"\\",
    b";",
    b"\n%",
    b"$",
    b"$256",
    b"$99999999",
    b"\n[Event \"",
    b"\n\n[Event \"x\"]\n",
    b"\r\n",
    b"\r",
    b"\n\n",
    "\u{3000}".as_bytes(),
    "\u{a0}".as_bytes(),
    b"\xEF\xBB\xBF",
    b"\xE3",
    b"\xE3\x80",
    b"\x80",
    b"\xFF\xFE",
    b"\x00",
    b"\x1b",
    b"\x7f",
    b"\t",
    "½".as_bytes(),
    "…".as_bytes(),
    "．".as_bytes(),
    "、".as_bytes(),
    b"99999999999.",
    b"12...",
    b"1.",
    b"1-0",
    b"*",
];

/// A random walk from the start position (or a set-up), written in mixed notations with move
/// numbers, comments, NAGs and variations, so that the replay goes deep.
fn movetext(rng: &mut Rng, out: &mut Vec<u8>, start: Chess, depth: u32) {
    let mut pos = start;
    let mut prev: Option<Chess> = None;
    let plies = rng.below(if depth == 0 { 80 } else { 8 }) + 1;
    let style = rng.below(10);
    let mut text = String::new();
    for _ in 0..plies {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        if pos.turn().is_white() || rng.percent(10) {
            let number = pos.fullmoves().get();
            let dots = if pos.turn().is_white() { "." } else { "..." };
            out.extend(format!("{number}{dots}").as_bytes());
            if rng.percent(70) {
                out.push(b' ');
            }
        }
        let m = *rng.pick(&legal);
        let mut after = pos.clone();
        after.play_unchecked(m);
        let claim = if after.is_checkmate() {
            CheckClaim::Mate
        } else if after.is_check() {
            CheckClaim::Check
        } else {
            CheckClaim::None
        };
        let notation = match (style, rng.below(20)) {
            (0..=5, _) | (_, 0..=13) => Notation::San,
            (6, _) | (_, 14) => Notation::Lan,
            (7, _) | (_, 15) => Notation::Fan,
            (8, _) | (_, 16) => Notation::Zh(ZhStyle::default()),
            (_, 17) => Notation::ZhLong(ZhStyle::default()),
            (_, 18) => Notation::Uci(shakmaty::CastlingMode::Standard),
            _ => Notation::Letters {
                lang: Lang::En,
                long: false,
            },
        };
        text.clear();
        write::write(&pos, m, claim, notation, &mut text);
        if rng.percent(3) {
            text = rng.pick(ODD_MOVES).to_string();
        }
        out.extend(text.as_bytes());
        match rng.below(40) {
            0 => out.extend(b" $1"),
            1 => out.extend(b"!?"),
            2 => out.extend(b" {a comment}"),
            3 => out.extend(b" { [%clk 0:03:00] }"),
            4 => out.extend(b"\n; rest of line\n"),
            5 => out.extend("{注释：好棋}".as_bytes()),
            6 if depth < 3 => {
                if let Some(before) = &prev {
                    out.extend(b" (");
                    movetext(rng, out, before.clone(), depth + 1);
                    out.push(b')');
                }
            }
            _ => {}
        }
        out.push(if rng.percent(8) { b'\n' } else { b' ' });
        prev = Some(pos);
        pos = after;
    }
}

fn game(rng: &mut Rng, out: &mut Vec<u8>) {
    let tags = rng.below(5);
    for _ in 0..tags {
        match rng.below(12) {
            0 => out.extend(b"[Event \"unterminated\n"),
            1 => out.extend(b"[Bad tag]\n"),
            _ => out.extend(
                format!("[{} \"{}\"]\n", rng.pick(TAG_NAMES), rng.pick(TAG_VALUES)).as_bytes(),
            ),
        }
    }
    if tags > 0 && rng.percent(80) {
        out.push(b'\n');
    }
    if rng.percent(5) {
        out.extend("白方:甲 黑方:乙 1981年5月1日于北京\n".as_bytes());
    }
    movetext(rng, out, Chess::default(), 0);
    if rng.percent(85) {
        out.extend(rng.pick(RESULTS).as_bytes());
    }
}

fn random_bytes(rng: &mut Rng, out: &mut Vec<u8>, n: usize) {
    for _ in 0..n {
        out.push(rng.next() as u8);
    }
}

/// Damages `input` in place: flips, insertions, deletions, duplications.
fn mutate(rng: &mut Rng, input: &mut Vec<u8>) {
    for _ in 0..rng.below(6) {
        let at = rng.below(input.len() + 1);
        match rng.below(6) {
            0 if at < input.len() => input[at] = rng.next() as u8,
            1 => {
                let piece = rng.pick(NASTY);
                input.splice(at..at, piece.iter().copied());
            }
            2 if at < input.len() => {
                let end = (at + rng.below(20)).min(input.len());
                input.drain(at..end);
            }
            3 if at < input.len() => {
                let end = (at + rng.below(40)).min(input.len());
                let copy = input[at..end].to_vec();
                let to = rng.below(input.len() + 1);
                input.splice(to..to, copy);
            }
            4 => {
                let mut bytes = Vec::new();
                let n = rng.below(8);
                random_bytes(rng, &mut bytes, n);
                input.splice(at..at, bytes);
            }
            _ => {
                let piece = rng.pick(ODD_MOVES).as_bytes().to_vec();
                input.splice(at..at, piece);
            }
        }
    }
}

/// One generated input: a stream of games and commentary between them, sometimes damaged.
/// What makes a game large: an opening, a body repeated past the size limit, a close.
const BULK: &[(&str, &str, &str)] = &[
    ("{", "a long comment\n[x y\n", "} "),
    ("{", "never closed ", "\n"),
    ("(", "1. d4 d5 (2. c4 1-0) ", ") "),
    ("", "Nf3 Nf6 Ng1 Ng8 ", ""),
    ("", "[Tag \"v\"]\n", "\n"),
    ("; ", "x", "\n"),
    ("", "{ [%clk 0:01:00] } ", ""),
    ("", "$1 ", ""),
    ("", "% escape\n", ""),
    ("1. ", "N", " "),
    ("", "\r\n", ""),
];

fn generate(seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    if rng.percent(5) {
        out.extend(b"\xEF\xBB\xBF");
    }
    match rng.below(20) {
        // Pure soup.
        0 => {
            for _ in 0..rng.below(200) {
                if rng.percent(50) {
                    out.extend(*rng.pick(NASTY));
                } else {
                    out.extend(rng.pick(ODD_MOVES).as_bytes());
                    out.push(b' ');
                }
            }
        }
        1 => {
            let n = rng.below(400);
            random_bytes(&mut rng, &mut out, n);
        }
        // A symbol longer than the lexer keeps.
        2 => {
            out.extend(b"1. ");
            out.extend(std::iter::repeat_n(b'N', 200 + rng.below(200)));
            out.extend(b" *");
        }
        // A game over the 1 KiB size limit the checks also read with, made large by one
        // thing: a comment, a variation, moves, tags, a line comment, ... (the reader then
        // reads it a window at a time), between ordinary games.
        3 | 4 => {
            if rng.percent(50) {
                game(&mut rng, &mut out);
                out.extend(b"\n\n");
            }
            let mut big = Vec::new();
            game(&mut rng, &mut big);
            let (open, body, close) = *rng.pick(BULK);
            let mut piece = open.as_bytes().to_vec();
            while piece.len() < 1100 {
                piece.extend(body.as_bytes());
            }
            piece.extend(close.as_bytes());
            let spaces: Vec<usize> = (0..big.len())
                .filter(|&i| matches!(big[i], b' ' | b'\n'))
                .collect();
            let at = spaces
                .get(rng.below(spaces.len()))
                .map_or(big.len(), |&i| i + 1);
            big.splice(at..at, piece);
            out.extend(big);
            if rng.percent(70) {
                out.extend(b"\n\n");
                game(&mut rng, &mut out);
            }
        }
        _ => {
            for _ in 0..rng.below(4) + 1 {
                game(&mut rng, &mut out);
                match rng.below(8) {
                    0 => out.extend(b"\n\n{ between games }\n\n"),
                    1 => out.extend(b"\n; a note\n\n"),
                    2 => out.extend(b"\n%escape\n"),
                    3 => out.push(b' '),
                    _ => out.extend(b"\n\n"),
                }
            }
        }
    }
    if rng.percent(40) {
        mutate(&mut rng, &mut out);
    }
    out
}

/// Runs the checks on one input; on failure saves it and says what failed and where it is.
fn run_case(name: &str, input: &[u8], salt: usize) -> Result<(), String> {
    let outcome = catch_unwind(AssertUnwindSafe(|| fuzz_support::check_input(input, salt)));
    let Err(panic) = outcome else { return Ok(()) };
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let path = dir.join(format!("fuzz-failure-{}", name.trim_end_matches(".pgn")));
    let _ = std::fs::write(&path, input);
    let why = panic
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| panic.downcast_ref::<&str>().copied())
        .unwrap_or("(no message)");
    Err(format!(
        "fuzz case {name} failed: {why}\n  input ({} bytes) saved to {}\n  {:?}",
        input.len(),
        path.display(),
        String::from_utf8_lossy(&input[..input.len().min(400)])
    ))
}

/// Fails with every failure, so that a long run reports all it found, not just the first.
fn report(failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{} failing inputs:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn generated_inputs() {
    let cases: u64 = std::env::var("PGNKIT_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_CASES);
    let seed: u64 = std::env::var("PGNKIT_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let mut failures = Vec::new();
    for case in seed..seed + cases {
        let input = generate(case);
        if let Err(failure) = run_case(&format!("seed{case}"), &input, case as usize) {
            failures.push(failure);
        }
    }
    report(&failures);
    let lazy = fuzz_support::LAZY_CLEAN.load(std::sync::atomic::Ordering::Relaxed);
    assert!(
        cases < 20 || lazy > 0,
        "no legal game went through the replay's fast path entry: its property tested nothing"
    );
    eprintln!("{lazy} legal games checked through the replay's fast path entry");
    let converted = fuzz_support::FAST_CONVERTED.load(std::sync::atomic::Ordering::Relaxed);
    assert!(
        cases < 20 || converted > 0,
        "no game reached convert's collector through the fast path: that property tested nothing"
    );
    eprintln!("{converted} games converted through the fast path and compared");
    let open = fuzz_support::OPEN_GAMES.load(std::sync::atomic::Ordering::Relaxed);
    assert!(
        cases < 20 || open > 0,
        "no game's end was found by the replay with one job: that property tested nothing"
    );
    eprintln!("{open} games whose end the replay found with one job");
    let oversized = fuzz_support::OVERSIZED_GAMES.load(std::sync::atomic::Ordering::Relaxed);
    assert!(
        cases < 20 || oversized > 0,
        "no game was over the size limit: that property tested nothing"
    );
    eprintln!("{oversized} games over a 1 KiB size limit read a window at a time and compared");
}

/// Replays every file of the corpus directories; returns how many there were.
fn replay_corpus(dirs: &[&str]) -> usize {
    let mut replayed = 0;
    let mut failures = Vec::new();
    for dir in dirs {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut paths: Vec<_> = entries
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "pgn"))
            .collect();
        paths.sort();
        for (k, path) in paths.iter().enumerate() {
            let input = std::fs::read(path).unwrap();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if let Err(failure) = run_case(&name, &input, k) {
                failures.push(failure);
            }
            replayed += 1;
        }
    }
    report(&failures);
    replayed
}

/// Inputs that once failed or that reach corners the generator rarely does, and the curated
/// inputs of the libFuzzer target (`*.pgn`; what libFuzzer adds on its own stays local).
#[test]
fn corpus_inputs() {
    let replayed = replay_corpus(&["testdata/fuzz", "fuzz/corpus/lex_replay"]);
    assert!(replayed > 0, "no corpus found under testdata/fuzz");
}

/// Reproducers of bugs found by fuzzing and not fixed yet (one file each, named after the
/// bug). Run with `cargo test --test fuzz -- --ignored`; once one passes, move its file up
/// into `testdata/fuzz/` so that every run keeps it fixed.
#[test]
#[ignore = "open bugs: reproducers under testdata/fuzz/open/"]
fn open_bugs() {
    replay_corpus(&["testdata/fuzz/open"]);
}

/// Reproducers of open bugs of the `parquet_rows` target, as its kept inputs are read (the
/// first 8 bytes the control). Run with `cargo test --test fuzz -- --ignored`; once one
/// passes, move its file to `testdata/fuzz/parquet_rows/`.
#[test]
#[ignore = "open bugs: reproducers under testdata/fuzz/open/parquet_rows/"]
fn open_parquet_rows_bugs() {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz-open-rows.parquet");
    run_property("open/parquet_rows", 0, |input, _| {
        let (control, rest) = input.split_at(input.len().min(8));
        fuzz_support::check_parquet_rows(control, rest, &path);
    });
}

#[test]
fn generator_is_deterministic() {
    assert_eq!(generate(7), generate(7));
    assert_ne!(generate(7), generate(8));
}

/// Pieces of PGN that decide where games end: tag lines (plain, escaped, two on a line),
/// blank lines, moves, move numbers, results in every spelling, comments over lines and
/// before tag lines, line comments, escapes, variations, NAGs, stray brackets, CR, spaces and
/// non-ASCII text.
const SPLIT_PIECES: &[&str] = &[
    "[Event \"a\"]\n",
    "[Site \"b\"]\n",
    "[Event \"a\"]\r\n",
    "[White \"x \\\"y\\\"\"]\n",
    "[Event \"a\"] [Site \"b\"]\n",
    "[Round \"1\"]  \n",
    "  [Date \"?\"]\n",
    "\n",
    "\r\n",
    " ",
    "1. ",
    "12... ",
    "3.",
    "e4 ",
    "Nf3",
    "O-O ",
    "0-0 ",
    "e8=Q+ ",
    "Ng1-f3 ",
    "-- ",
    "e4!? ",
    "$14 ",
    "$1",
    "1-0",
    "0-1",
    "1/2-1/2",
    "*",
    " 1-0\n",
    "1/2",
    "1:0",
    "½-½",
    "=",
    "+- ",
    "{ [%clk 0:05:00] } ",
    "{ two\nlines } ",
    "{ before\n[Event \"c\"]\n} ",
    "{ open ",
    "}",
    "; line comment  \n",
    "\n% escape\n",
    "%",
    "( ",
    ") ",
    "(1... e5 1-0) ",
    "[",
    "]",
    "\"",
    "马f3 ",
    "\u{3000}",
    "\t",
    "\x0c",
    // Line endings of old Mac files, periods apart, tokens glued to `*` and `$`.
    "\r",
    "[Site \"b\"]\r",
    " ... ",
    "Bb5*",
    "Nf3$1 ",
    "Nf3Nc6 ",
    "+-- ",
    "[pgn]",
    "[/pgn]\n",
];

/// With one job the replay ends a plain game at its result token, in the reader's buffer.
/// A read that stops right after `1-0` must not end the game there: more bytes can make the
/// token another symbol (`1-0x` is no result), as here.
#[test]
fn one_job_never_ends_a_game_at_a_result_cut_by_a_read() {
    let input = b"[Event \"a\"]\n\n1. e4 e5 1-0x 0-1\n\n[Event \"b\"]\n\n1. d4 1-0 *\n";
    fuzz_support::check_pipeline_cuts(input, input.len());
}

/// Split-only reading (the pipeline's reader thread) against full lexing, and the pipeline
/// against one job, on inputs stitched from the pieces that decide where games end.
#[test]
fn split_only_reading_agrees_with_lexing() {
    let cases: u64 = std::env::var("PGNKIT_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_CASES)
        * 5;
    let mut failures = Vec::new();
    let pieces_before = pipeline::PIECES_CONFIRMED.load(std::sync::atomic::Ordering::Relaxed);
    for case in 0..cases {
        let mut rng = Rng::new(case ^ 0x5_9117);
        let mut input = Vec::new();
        for _ in 0..1 + rng.below(60) {
            // Mostly the common shape, so that pieces are confirmed.
            let piece = if rng.percent(40) {
                *rng.pick(&["[Event \"a\"]\n", "\n", "1. ", "e4 ", "1-0\n\n", "{ c } "])
            } else {
                *rng.pick(SPLIT_PIECES)
            };
            input.extend_from_slice(piece.as_bytes());
        }
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            fuzz_support::check_split(&input);
            // Reads of every size on some inputs; the two usual sizes on the rest.
            if case % 8 == 0 {
                fuzz_support::check_pipeline_cuts(&input, 48);
            } else {
                fuzz_support::check_pipeline(&input);
            }
        }));
        if outcome.is_err() {
            failures.push(format!(
                "stitched input {case}: {:?}",
                String::from_utf8_lossy(&input)
            ));
        }
    }
    report(&failures);
    let pieces =
        pipeline::PIECES_CONFIRMED.load(std::sync::atomic::Ordering::Relaxed) - pieces_before;
    eprintln!("{pieces} pieces of the stream confirmed as the workers read them");
    assert!(
        pieces >= cases as usize,
        "only {pieces} pieces were confirmed: the pieces path is hardly tested"
    );
}

/// Inputs of one libFuzzer target's kept corpus (`fuzz/corpus/NAME`, every file) and its
/// regression inputs (`testdata/fuzz/NAME`), with their names.
fn target_corpus(name: &str) -> Vec<(String, Vec<u8>)> {
    let mut inputs = Vec::new();
    for dir in [
        format!("fuzz/corpus/{name}"),
        format!("testdata/fuzz/{name}"),
    ] {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut paths: Vec<_> = entries
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file())
            .collect();
        paths.sort();
        for path in paths {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            inputs.push((name, std::fs::read(&path).unwrap()));
        }
    }
    inputs
}

/// Runs `check` on generated inputs and a target's corpus; fails with every failure.
fn run_property(target: &str, cases: u64, check: impl Fn(&[u8], u64)) {
    let mut failures = Vec::new();
    let mut inputs: Vec<(String, Vec<u8>)> = (0..cases)
        .map(|seed| (format!("seed{seed}"), generate(seed)))
        .collect();
    inputs.extend(target_corpus(target));
    for (k, (name, input)) in inputs.iter().enumerate() {
        let outcome = catch_unwind(AssertUnwindSafe(|| check(input, k as u64)));
        if let Err(panic) = outcome {
            let why = panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("(no message)");
            failures.push(format!("{target} {name}: {why}"));
        }
    }
    report(&failures);
}

#[test]
fn fast_target_properties() {
    run_property("lex_replay", DEFAULT_CASES, |input, _| {
        fuzz_support::check_input_fast(input)
    });
}

#[test]
fn convert_round_trips() {
    run_property("convert_round_trip", DEFAULT_CASES, |input, k| {
        fuzz_support::check_convert_round_trip(input, k as usize);
        // Read as the fuzz target reads its inputs (kept corpus files are such inputs): the
        // first byte picks the notation.
        if let Some((&pick, rest)) = input.split_first() {
            fuzz_support::check_convert_round_trip(rest, usize::from(pick));
        }
    });
}

#[test]
fn streaming_decode_equals_one_shot() {
    run_property("decode", DEFAULT_CASES, |input, k| {
        let control = k.to_le_bytes();
        fuzz_support::check_decode(&control[..7], input)
    });
}

#[test]
fn stats_parts_merged_equal_one_run() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz-stats-merge");
    run_property("stats_merge", 12, |input, k| {
        let control = [k as u8, (k * 97) as u8, (k * 31) as u8];
        fuzz_support::check_stats_merge(&control, input, &dir)
    });
}

#[test]
fn a_parquet_row_is_one_game() {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz-parquet-rows.parquet");
    run_property("parquet_rows", 24, |input, k| {
        // Cells as the target cuts them: the generated games, a game a movetext.
        let mut cells = Vec::new();
        for game in input.split(|&b| b == b'\n').collect::<Vec<_>>().chunks(3) {
            cells.extend_from_slice(b"e\0");
            cells.extend(game.join(&b'\n').iter().filter(|&&b| b != 0));
            cells.push(0);
        }
        let control = (k.wrapping_mul(0x9E37_79B9_7F4A_7C15)).to_le_bytes();
        fuzz_support::check_parquet_rows(&control, &cells, &path);
        // As the fuzz target reads a kept input: its first 8 bytes are the control.
        let (control, rest) = input.split_at(input.len().min(8));
        fuzz_support::check_parquet_rows(control, rest, &path);
    });
}

#[test]
fn select_expressions_parse_and_negate() {
    run_property("select_where", DEFAULT_CASES, |input, _| {
        fuzz_support::check_select(input)
    });
    for src in [
        "White = Alpha and WhiteElo > 2000",
        "not (Event ~ \"Blitz\") or date >= 2024",
        "((((",
        "termination = checkmate",
        "WhiteElo > 2000 and BlackElo > 2000",
    ] {
        fuzz_support::check_select(src.as_bytes());
    }
}
