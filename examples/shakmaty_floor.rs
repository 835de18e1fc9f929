//! The floor of the legality core: how fast shakmaty alone replays a file's main lines.
//!
//! Every validator built on shakmaty does at least this for each move: resolve its SAN against
//! the position (`San::to_move`), play it, and ask whether it gives check (a `+` or a missing
//! `+` is checked by pgnkit). This program first reads the file with pgn-reader and keeps each
//! game's parsed SAN moves in memory (not timed), then times only that core work, several
//! rounds, and reports it as MiB of the file per second. No reader, no tags, no comments, no
//! repetition, no result: a validator cannot be faster than this on the same machine, whatever
//! its reader does, unless it replaces the legality core.
//!
//! Usage: `cargo run --release --example shakmaty_floor -- FILE [ROUNDS]`
//! Prints: file MiB, games, plies, and the best round's MiB/s for `to_move + play` and for
//! `to_move + play + is_check`.

use std::{env, fs::File, hint::black_box, io, ops::ControlFlow, process, time::Instant};

use pgn_reader::{Reader, SanPlus, Skip, Visitor};
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

    let mut best = [f64::INFINITY; 2];
    let mut plies = 0;
    for _ in 0..rounds {
        for (k, checks) in [false, true].into_iter().enumerate() {
            let start = Instant::now();
            plies = replay(black_box(&games), checks);
            best[k] = best[k].min(start.elapsed().as_secs_f64());
        }
    }
    println!(
        "{path}: {mib:.1} MiB, {} games, {plies} plies; to_move+play {:.1} MiB/s, \
         to_move+play+is_check {:.1} MiB/s",
        games.len(),
        mib / best[0],
        mib / best[1],
    );
    Ok(())
}
