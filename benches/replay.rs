//! Throughput of the path every game of `pgnkit validate`, `convert` and `stats` takes: the
//! input pipeline on one job, lexing each game to its tags, then
//! [`Game::check`](pgnkit::input::pipeline::Game::check), which replays plain movetext straight from the bytes (finding
//! where the game ends) and anything else through the general lexer and replay. `validate`
//! replays with no observer, `stats` with one that wants nothing by default (the same path),
//! `convert` with a [`Collector`] that writes every move.
//!
//! The inputs are made here, the same on every machine: legal games of random moves in the
//! shapes of real files (a tournament file's plain movetext; an online site's, with a clock
//! comment after every move; and a file where one game in four has a variation, a NAG or
//! lenient notation, which the general path reads). The figures compare builds on this
//! machine; `benches/compare.sh` measures the binary on real files.
//!
//! `cargo bench --bench replay`.

use std::fmt::Write as _;
use std::hint::black_box;
use std::io;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pgnkit::convert::Collector;
use pgnkit::input::pipeline::{self, Game};
use pgnkit::notation::write::Notation;
use pgnkit::pgn::GameReader;
use pgnkit::rules::game::CheckOptions;
use pgnkit::rules::visit::{NoVisitor, Visitor};
use shakmaty::{san::SanPlus, CastlingMode, Chess, Position};

/// Bytes of games made for each input (whole games: the last one ends past it).
const INPUT_BYTES: usize = 1 << 20;

/// xorshift64*: a fixed sequence, the same on every machine.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n.max(1) as u64) as usize
    }
}

/// How the games of an input are written.
#[derive(Clone, Copy)]
enum Shape {
    /// A tournament file: tags, move numbers, SAN, a result.
    Plain,
    /// An online site's: a `[%clk]` comment after every move, `N...` before Black's.
    Clocks,
    /// One game in four has a variation, a NAG or `0-0` / `Ng1f3`-style moves.
    Mixed,
}

/// One game of random legal moves (captures preferred, as in played games), 20 to 140 plies
/// or until mate or stalemate.
fn write_game(out: &mut String, n: usize, shape: Shape, rng: &mut Rng) {
    let mut pos = Chess::default();
    let unusual = matches!(shape, Shape::Mixed) && rng.below(4) == 0;
    let mut text = String::new();
    let mut result = ["1-0", "0-1", "1/2-1/2"][rng.below(3)];
    for ply in 0..20 + rng.below(121) {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            if pos.is_check() {
                result = if ply % 2 == 1 { "1-0" } else { "0-1" };
            } else {
                result = "1/2-1/2";
            }
            break;
        }
        let captures: Vec<_> = moves.iter().filter(|m| m.is_capture()).collect();
        let m = if !captures.is_empty() && rng.below(3) == 0 {
            *captures[rng.below(captures.len())]
        } else {
            moves[rng.below(moves.len())]
        };
        let number = ply / 2 + 1;
        if ply % 2 == 0 {
            let _ = write!(text, "{number}. ");
        } else if matches!(shape, Shape::Clocks) {
            let _ = write!(text, "{number}... ");
        }
        let san = SanPlus::from_move_and_play_unchecked(&mut pos, m).to_string();
        if unusual && ply == 10 {
            // UCI: only the general reading takes it.
            let _ = write!(text, "{} ", m.to_uci(CastlingMode::Standard));
        } else {
            let _ = write!(text, "{} ", san.replace("O-O", "0-0"));
        }
        if unusual && ply == 12 {
            text.push_str("$1 ");
        }
        if unusual && ply == 14 {
            // A null move as a variation: it replaces the move just played.
            let _ = write!(
                text,
                "( {number}{} -- ) ",
                if ply % 2 == 0 { "." } else { "..." }
            );
        }
        if matches!(shape, Shape::Clocks) {
            let left = 300usize.saturating_sub(ply * 2 + rng.below(5));
            let _ = write!(text, "{{ [%clk 0:{:02}:{:02}] }} ", left / 60, left % 60);
        }
    }
    let _ = write!(
        out,
        "[Event \"Bench {}\"]\n[Site \"?\"]\n[Date \"2025.01.{:02}\"]\n[Round \"{}\"]\n\
         [White \"W{}\"]\n[Black \"B{}\"]\n[Result \"{result}\"]\n[WhiteElo \"{}\"]\n\
         [BlackElo \"{}\"]\n\n{text}{result}\n\n",
        n % 5,
        1 + n % 28,
        1 + n % 9,
        rng.below(50),
        rng.below(50),
        1500 + rng.below(1000),
        1500 + rng.below(1000),
    );
}

fn make_input(shape: Shape, seed: u64) -> Vec<u8> {
    let mut rng = Rng(seed);
    let mut out = String::with_capacity(INPUT_BYTES + 4096);
    let mut n = 0;
    while out.len() < INPUT_BYTES {
        n += 1;
        write_game(&mut out, n, shape, &mut rng);
    }
    out.into_bytes()
}

/// Runs every game of `data` through the pipeline on one job, as the commands do, replaying
/// each with `observer`; returns the main-line plies replayed.
fn replay_all<O: Visitor>(
    data: &[u8],
    opts: &CheckOptions,
    observer: impl Fn() -> O + Sync,
) -> u64 {
    let mut plies = 0;
    let work = |game: &mut Game<'_>| {
        let mut observer = observer();
        u64::from(game.check(opts, &mut observer).plies)
    };
    let sink = |n: u64| -> io::Result<()> {
        plies += n;
        Ok(())
    };
    pipeline::run_with(GameReader::new(data), 1, work, sink)
        .expect("reading from memory cannot fail");
    plies
}

fn bench(c: &mut Criterion) {
    let opts = CheckOptions::default();
    let inputs = [
        ("plain", make_input(Shape::Plain, 7)),
        ("clocks", make_input(Shape::Clocks, 11)),
        ("mixed", make_input(Shape::Mixed, 13)),
    ];
    for (name, data) in &inputs {
        // The games must replay: a bench of games that stop at their first move measures
        // nothing.
        let plies = replay_all(data, &opts, || NoVisitor);
        assert!(
            plies > data.len() as u64 / 100,
            "{name}: only {plies} plies replayed"
        );
        let mut group = c.benchmark_group(*name);
        group.throughput(Throughput::Bytes(data.len() as u64));
        group.sample_size(20);
        group.bench_function("validate", |b| {
            b.iter(|| replay_all(black_box(data), &opts, || NoVisitor))
        });
        group.bench_function("convert --to san", |b| {
            b.iter(|| {
                replay_all(black_box(data), &opts, || {
                    let mut collector = Collector::new(Notation::San, false);
                    collector.reserve(256);
                    collector
                })
            })
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
