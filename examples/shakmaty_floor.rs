//! The floor of the legality core: how fast a file's main lines replay with nothing else done.
//!
//! Every validator built on shakmaty does at least this for each move: resolve the written
//! move against the position, play it, and find whether it gives check (pgnkit checks every
//! `+`, and every missing one). This program first reads the file with pgn-reader and keeps
//! each game's parsed moves in memory (not timed), then times only that core work, several
//! rounds, and reports it as MiB of the file per second. No reader, no tags, no comments, no
//! repetition, no result. Three cores are timed:
//! - shakmaty's own `San::to_move` and `play_unchecked`;
//! - the same and `is_check` after each move;
//! - pgnkit's matcher (`rules::matcher::find_move_with`, which reuses the pieces giving check
//!   found after the move before) with `play_unchecked` and `checkers`: what `pgnkit validate`
//!   does per move before any of its other work.
//!
//! Usage: `cargo run --release --example shakmaty_floor -- FILE [ROUNDS]`
//! Prints: file MiB, games, plies, and the best round's MiB/s for each core.

use std::{env, fs::File, hint::black_box, io, ops::ControlFlow, process, time::Instant};

use pgn_reader::{Reader, SanPlus, Skip, Visitor};
use pgnkit::notation::{ascii, ReadMove};
use pgnkit::rules::matcher::find_move_with;
use shakmaty::{san::San, Chess, Position};

/// Collects the SAN moves of every standard game that starts from the initial position.
#[derive(Default)]
struct Collect {
    games: Vec<Vec<San>>,
}

impl Visitor for Collect {
    /// Whether the game has a `FEN` or `Variant` tag (skipped: the floor uses standard starts).
    type Tags = bool;
    type Movetext = Option<Vec<San>>;
    type Output = ();

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        ControlFlow::Continue(false)
    }

    fn tag(
        &mut self,
        skip: &mut Self::Tags,
        name: &[u8],
        _value: pgn_reader::RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        if name == b"FEN" || name == b"Variant" {
            *skip = true;
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, skip: Self::Tags) -> ControlFlow<Self::Output, Self::Movetext> {
        ControlFlow::Continue((!skip).then(Vec::new))
    }

    fn san(&mut self, moves: &mut Self::Movetext, san: SanPlus) -> ControlFlow<Self::Output> {
        if let Some(moves) = moves {
            moves.push(san.san);
        }
        ControlFlow::Continue(())
    }

    fn begin_variation(&mut self, _moves: &mut Self::Movetext) -> ControlFlow<Self::Output, Skip> {
        ControlFlow::Continue(Skip(true))
    }

    fn end_game(&mut self, moves: Self::Movetext) -> Self::Output {
        if let Some(moves) = moves {
            self.games.push(moves);
        }
    }
}

/// Replays every game with pgnkit's matcher up to its first illegal move; returns the plies
/// played.
fn replay_pgnkit(games: &[Vec<ReadMove>]) -> u64 {
    let mut plies = 0;
    let mut checks_seen = 0u64;
    for moves in games {
        let mut pos = Chess::default();
        let mut checkers = pos.checkers();
        for m in moves {
            let Ok((mv, _)) = find_move_with(&pos, m, checkers) else {
                break;
            };
            pos.play_unchecked(mv);
            checkers = pos.checkers();
            plies += 1;
            checks_seen += u64::from(checkers.any());
        }
    }
    black_box(checks_seen);
    plies
}

/// Replays every game up to its first illegal move; returns the plies played.
fn replay(games: &[Vec<San>], checks: bool) -> u64 {
    let mut plies = 0;
    let mut checks_seen = 0u64;
    for moves in games {
        let mut pos = Chess::default();
        for san in moves {
            let Ok(m) = san.to_move(&pos) else { break };
            pos.play_unchecked(m);
            plies += 1;
            if checks && pos.is_check() {
                checks_seen += 1;
            }
        }
    }
    black_box(checks_seen);
    plies
}

fn main() -> io::Result<()> {
    let args: Vec<String> = env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: shakmaty_floor FILE [ROUNDS]");
        process::exit(2);
    };
    let rounds: usize = args.get(1).and_then(|r| r.parse().ok()).unwrap_or(3);
    let mib = std::fs::metadata(path)?.len() as f64 / (1024.0 * 1024.0);
    let mut reader = Reader::new(File::open(path)?);
    let mut collect = Collect::default();
    while reader.read_game(&mut collect)?.is_some() {}
    let games = collect.games;
    // The same moves as pgnkit reads them (from their SAN, as written in strict files).
    let read: Vec<Vec<ReadMove>> = games
        .iter()
        .map(|moves| {
            moves
                .iter()
                .map_while(|san| ascii::read(san.to_string().as_bytes()).ok())
                .collect()
        })
        .collect();

    let mut best = [f64::INFINITY; 3];
    let mut plies = [0; 3];
    for _ in 0..rounds {
        for k in 0..3 {
            let start = Instant::now();
            plies[k] = match k {
                0 => replay(black_box(&games), false),
                1 => replay(black_box(&games), true),
                _ => replay_pgnkit(black_box(&read)),
            };
            best[k] = best[k].min(start.elapsed().as_secs_f64());
        }
    }
    if plies[2] != plies[0] {
        eprintln!(
            "shakmaty_floor: pgnkit's matcher played {} plies, shakmaty {}",
            plies[2], plies[0]
        );
        process::exit(1);
    }
    println!(
        "{path}: {mib:.1} MiB, {} games, {} plies; to_move+play {:.1} MiB/s, \
         to_move+play+is_check {:.1} MiB/s, pgnkit-matcher+play+checkers {:.1} MiB/s",
        games.len(),
        plies[0],
        mib / best[0],
        mib / best[1],
        mib / best[2],
    );
    Ok(())
}
