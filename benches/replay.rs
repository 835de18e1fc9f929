//! Throughput of the two stages of `pgnkit validate` on real games: lexing with game splitting
//! alone, and the full check (lexing, then `check_game` on every game), on the first ~2 MB of
//! the shared corpus' lichess and TWIC samples (`../shared/corpus` beside the project).
//!
//! `cargo bench --bench replay`; without the corpus it says so and measures nothing.

use std::hint::black_box;
use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pgnkit::pgn::{GameReader, Lexed};
use pgnkit::rules::game::{check_game, CheckOptions};

/// At most this much of each file, cut after a whole game.
const MAX_BYTES: usize = 2 << 20;

const INPUTS: &[(&str, &str)] = &[
    ("lichess", "lichess/lichess_db_1000k.pgn"),
    ("twic", "twic/twic1599_1000k.pgn"),
];

/// The first `MAX_BYTES` of `path`, ending at the end of a game, or `None` without the file.
fn load(path: &Path) -> Option<Vec<u8>> {
    let mut data = std::fs::read(path).ok()?;
    if data.len() > MAX_BYTES {
        let mut reader = GameReader::new(&data[..]);
        let mut lexed = Lexed::default();
        let mut end = 0;
        while let Some(game) = reader.next_game(&mut lexed).unwrap() {
            let game_end = game.offset as usize + game.bytes.len();
            if game_end > MAX_BYTES {
                break;
            }
            end = game_end;
        }
        data.truncate(end);
    }
    Some(data)
}

/// Lexes and splits `data`; returns the number of games so the work is not optimised away.
fn lex_only(data: &[u8]) -> u64 {
    let mut reader = GameReader::new(data);
    let mut lexed = Lexed::default();
    let mut games = 0;
    while let Some(game) = reader.next_game(&mut lexed).unwrap() {
        black_box(game.bytes);
        games += 1;
    }
    games
}

/// Lexes, splits and checks every game of `data`; returns the main-line plies replayed.
fn check_all(data: &[u8], opts: &CheckOptions) -> u64 {
    let mut reader = GameReader::new(data);
    let mut lexed = Lexed::default();
    let mut plies = 0;
    while let Some(game) = reader.next_game(&mut lexed).unwrap() {
        plies += u64::from(check_game(game.bytes, &lexed, opts).plies);
    }
    plies
}

fn bench(c: &mut Criterion) {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    let opts = CheckOptions::default();
    for (name, file) in INPUTS {
        let path = corpus.join(file);
        let Some(data) = load(&path) else {
            eprintln!(
                "replay bench: {} not found, skipping {name}",
                path.display()
            );
            continue;
        };
        let mut group = c.benchmark_group(*name);
        group.throughput(Throughput::Bytes(data.len() as u64));
        group.sample_size(20);
        group.bench_function("lex+split", |b| b.iter(|| lex_only(black_box(&data))));
        group.bench_function("check_game", |b| {
            b.iter(|| check_all(black_box(&data), &opts))
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
