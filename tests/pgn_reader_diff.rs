//! Differential test against pgn-reader: for every standard-chess PGN file of the shared corpus,
//! the SAN moves pgn-reader's visitor reports (main line and variations, in order) must be the
//! move tokens pgnkit's lexer finds, game by game, except for the differences listed in
//! [`KNOWN_DIFFERENCES`].
//!
//! Needs the corpus, so it is ignored by default:
//! `PGNKIT_CORPUS=../shared/corpus cargo test --release --test pgn_reader_diff -- --ignored`
//! (`.ci/run` runs it). Without `PGNKIT_CORPUS` it looks for `../shared/corpus`.

use std::collections::BTreeMap;
use std::fs::File;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use pgn_reader::{Reader, SanPlus, Skip, Visitor};
use pgnkit::pgn::{GameReader, Lexed, TokenKind};

/// The corpus files compared, relative to the corpus folder. Variant games (antichess,
/// crazyhouse) are left out: their moves are not standard chess for either reader.
const FOLDERS: &[&str] = &["lichess", "twic", "python-chess", "chess-library", "eco"];
const VARIANT_FILES: &[&str] = &[
    "python-chess/antichess-programfox.pgn",
    "python-chess/knightvuillaume-jannlee-zh-lichess.pgn",
    "python-chess/saturs-jannlee-zh-lichess.pgn",
];

/// Where the two readers see different moves on purpose, with the reason. Each entry is
/// matched by [`classify`]; the test prints how often each one occurred.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[
    (
        "not-san",
        "pgn-reader drops a token that is not SAN (`Kx` in corrupted.pgn, a bare `x`, long \
         algebraic `e2-e4`); pgnkit keeps every move token raw and lets the notation layer \
         report it",
    ),
    (
        "no-moves",
        "games without moves are not paired: pgn-reader makes a game of the commentary \
         before the first game (eco.pgn) and of the pieces of a tag line it splits at an \
         unescaped quote, and merges a tags-only game into the next game's tags \
         (empty_body.pgn); pgnkit skips commentary between games, reads such a tag as one \
         malformed tag and starts a new game at a repeated tag after a blank line",
    ),
];

/// What pgn-reader reports for one game: its SAN moves in order, variations included.
#[derive(Default)]
struct Collect {
    games: Vec<Vec<SanPlus>>,
}

impl Visitor for Collect {
    type Tags = ();
    type Movetext = Vec<SanPlus>;
    type Output = ();

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, _: ()) -> ControlFlow<Self::Output, Self::Movetext> {
        ControlFlow::Continue(Vec::new())
    }

    fn san(&mut self, moves: &mut Self::Movetext, san: SanPlus) -> ControlFlow<Self::Output> {
        moves.push(san);
        ControlFlow::Continue(())
    }

    fn begin_variation(&mut self, _: &mut Self::Movetext) -> ControlFlow<Self::Output, Skip> {
        ControlFlow::Continue(Skip(false))
    }

    fn end_game(&mut self, moves: Self::Movetext) -> Self::Output {
        self.games.push(moves);
    }
}

/// A move token as pgnkit's lexer found it.
struct RawMove {
    text: Vec<u8>,
    line: u32,
    col: u32,
}

/// A pgnkit game: its first line and its move tokens.
struct PgnkitGame {
    line: u32,
    moves: Vec<RawMove>,
}

fn pgnkit_games(path: &Path) -> Vec<PgnkitGame> {
    let mut reader = GameReader::new(File::open(path).unwrap());
    let mut lexed = Lexed::default();
    let mut games = Vec::new();
    while let Some(game) = reader.next_game(&mut lexed).unwrap() {
        let moves = lexed
            .tokens
            .iter()
            .filter(|t| t.kind == TokenKind::Move)
            .map(|t| RawMove {
                text: game.bytes[t.span.start as usize..t.span.end as usize].to_vec(),
                line: t.span.line,
                col: t.span.col,
            })
            .collect();
        games.push(PgnkitGame {
            line: game.line,
            moves,
        });
    }
    games
}

fn pgn_reader_games(path: &Path) -> Vec<Vec<SanPlus>> {
    let mut reader = Reader::new(File::open(path).unwrap());
    let mut collect = Collect::default();
    reader.visit_all_games(&mut collect).unwrap();
    collect.games
}

/// The SAN pgnkit's token stands for, as pgn-reader would read it: pgn-reader reads castling
/// written with zeros (`0-0-0+`) itself, before SAN parsing, so that spelling is normalised.
fn san_of(raw: &[u8]) -> Option<SanPlus> {
    if let Ok(san) = SanPlus::from_ascii(raw) {
        return Some(san);
    }
    let rest = raw.strip_prefix(b"0-0")?;
    let rest = rest.strip_prefix(b"-0").unwrap_or(rest);
    if !matches!(rest, b"" | b"+" | b"#") {
        return None;
    }
    let castle: Vec<u8> = raw
        .iter()
        .map(|&b| if b == b'0' { b'O' } else { b })
        .collect();
    SanPlus::from_ascii(&castle).ok()
}

/// Which known difference explains pgnkit's token `raw` having no counterpart in pgn-reader.
fn classify(raw: &[u8]) -> Option<&'static str> {
    if san_of(raw).is_none() {
        return Some("not-san");
    }
    None
}

/// The outcome of comparing one file.
#[derive(Default)]
struct Tally {
    moves: usize,
    /// Tokens both agree on although written differently (`0-0` for `O-O`).
    respelled: usize,
    known: BTreeMap<&'static str, Vec<String>>,
    disagreements: Vec<String>,
}

fn compare_game(file: &str, number: usize, ours: &PgnkitGame, theirs: &[SanPlus], t: &mut Tally) {
    let (mut i, mut j) = (0, 0);
    while i < ours.moves.len() || j < theirs.len() {
        let raw = ours.moves.get(i);
        let san = theirs.get(j);
        if let (Some(raw), Some(san)) = (raw, san) {
            if san_of(&raw.text).as_ref() == Some(san) {
                t.moves += 1;
                if raw.text != san.to_string().as_bytes() {
                    t.respelled += 1;
                }
                i += 1;
                j += 1;
                continue;
            }
        }
        if let Some((raw, reason)) = raw.and_then(|raw| Some((raw, classify(&raw.text)?))) {
            t.known.entry(reason).or_default().push(format!(
                "{file}:{}:{} {:?}",
                raw.line,
                raw.col,
                String::from_utf8_lossy(&raw.text)
            ));
            i += 1;
            continue;
        }
        let place = raw.map_or(format!("game at line {}", ours.line), |r| {
            format!("{}:{}", r.line, r.col)
        });
        t.disagreements.push(format!(
            "{file}:{place}: game {number}, move token {}: pgnkit {:?}, pgn-reader {:?}",
            i + 1,
            raw.map(|r| String::from_utf8_lossy(&r.text).into_owned()),
            san.map(ToString::to_string),
        ));
        // The rest of this game is out of step; one report per game is enough.
        return;
    }
}

fn corpus_files(corpus: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for folder in FOLDERS {
        let dir = corpus.join(folder);
        let entries = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e} (is the corpus complete?)", dir.display()));
        for entry in entries {
            let path = entry.unwrap().path();
            let name = format!("{folder}/{}", path.file_name().unwrap().to_string_lossy());
            if path.extension().is_some_and(|e| e == "pgn") && !VARIANT_FILES.contains(&&*name) {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

#[test]
#[ignore = "needs the shared corpus: PGNKIT_CORPUS=../shared/corpus ... -- --ignored"]
fn move_tokens_match_pgn_reader() {
    let corpus = std::env::var_os("PGNKIT_CORPUS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"),
        PathBuf::from,
    );
    assert!(
        corpus.is_dir(),
        "no corpus at {} (set PGNKIT_CORPUS)",
        corpus.display()
    );
    let mut total = Tally::default();
    let mut games = 0;
    for path in corpus_files(&corpus) {
        let file = path.strip_prefix(&corpus).unwrap().display().to_string();
        // Games without moves are left out on both sides: pgn-reader makes a game of the
        // commentary before the first game, pgnkit skips it.
        let (ours, ours_empty): (Vec<_>, Vec<_>) = pgnkit_games(&path)
            .into_iter()
            .partition(|g| !g.moves.is_empty());
        let (theirs, theirs_empty): (Vec<_>, Vec<_>) = pgn_reader_games(&path)
            .into_iter()
            .partition(|g| !g.is_empty());
        if ours_empty.len() != theirs_empty.len() {
            total.known.entry("no-moves").or_default().push(format!(
                "{file}: {} games without moves in pgnkit, {} in pgn-reader",
                ours_empty.len(),
                theirs_empty.len()
            ));
        }
        if ours.len() != theirs.len() {
            total.disagreements.push(format!(
                "{file}: pgnkit reads {} games, pgn-reader {}",
                ours.len(),
                theirs.len()
            ));
        }
        for (k, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            compare_game(&file, k + 1, a, b, &mut total);
        }
        games += ours.len().min(theirs.len());
    }
    println!(
        "{games} games, {} moves agree ({} spelled differently)",
        total.moves, total.respelled
    );
    for (reason, why) in KNOWN_DIFFERENCES {
        let seen = total.known.get(reason).map_or(&[][..], Vec::as_slice);
        println!("known difference {reason}: {} times ({why})", seen.len());
        for example in seen.iter().take(10) {
            println!("    {example}");
        }
    }
    assert!(
        total.moves > 100_000,
        "too few moves compared: {}",
        total.moves
    );
    if !total.disagreements.is_empty() {
        let shown: Vec<&str> = total
            .disagreements
            .iter()
            .take(40)
            .map(String::as_str)
            .collect();
        panic!(
            "{} disagreements with pgn-reader; the first:\n  {}",
            total.disagreements.len(),
            shown.join("\n  ")
        );
    }
}
