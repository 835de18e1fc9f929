//! Benchmark baseline: replays every mainline move of every game with pgn-reader and shakmaty.
//!
//! `benches/compare.sh` times it next to `pgnkit validate`, so that pgnkit's speed is judged
//! against the fastest well-known Rust reader doing the same core work (parse the movetext,
//! resolve each SAN against the position, play it). It reads no comments into memory, skips
//! variations and stops replaying a game at its first illegal move, as `pgnkit validate` does.
//!
//! Usage: `cargo run --release --example pgn_reader_replay -- FILE...`
//! Prints one line per file: games, games replayed without error, and plies played.

use std::{env, fs::File, io, ops::ControlFlow, process};

use pgn_reader::{RawTag, Reader, SanPlus, Visitor};
use shakmaty::{fen::Fen, CastlingMode, Chess, Position};

/// Counts over one file.
#[derive(Default)]
struct Replayer {
    games: u64,
    legal: u64,
    plies: u64,
}

/// What the tags of one game decided before its movetext starts.
#[derive(Default)]
struct Start {
    fen: Option<Vec<u8>>,
    chess960: bool,
    /// Set when a tag already makes the game unplayable (unknown variant, bad FEN).
    broken: bool,
}

impl Visitor for Replayer {
    type Tags = Start;
    /// `None` once the game has hit an illegal move: the rest of its movetext is only parsed.
    type Movetext = Option<Chess>;
    type Output = ();

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        self.games += 1;
        ControlFlow::Continue(Start::default())
    }

    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        match name {
            b"FEN" => tags.fen = Some(value.as_bytes().to_vec()),
            b"Variant" => {
                let variant = value.decode_utf8_lossy().to_ascii_lowercase();
                match variant.as_str() {
                    "" | "standard" | "normal" | "chess" | "classical" => {}
                    "chess960" | "chess 960" | "fischerandom" | "fischerrandom"
                    | "fischer random" => {
                        tags.chess960 = true;
                    }
                    _ => tags.broken = true,
                }
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<Self::Output, Self::Movetext> {
        if tags.broken {
            return ControlFlow::Continue(None);
        }
        let mode = if tags.chess960 {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        };
        let pos = match tags.fen {
            None => Some(Chess::default()),
            Some(fen) => Fen::from_ascii(&fen)
                .ok()
                .and_then(|fen| fen.into_position(mode).ok()),
        };
        ControlFlow::Continue(pos)
    }

    fn san(
        &mut self,
        movetext: &mut Self::Movetext,
        san_plus: SanPlus,
    ) -> ControlFlow<Self::Output> {
        if let Some(pos) = movetext {
            match san_plus.san.to_move(pos) {
                Ok(m) => {
                    pos.play_unchecked(m);
                    self.plies += 1;
                }
                Err(_) => *movetext = None,
            }
        }
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, movetext: Self::Movetext) -> Self::Output {
        if movetext.is_some() {
            self.legal += 1;
        }
    }
}

fn main() {
    let paths: Vec<String> = env::args().skip(1).collect();
    if paths.is_empty() {
        eprintln!("usage: pgn_reader_replay FILE...");
        process::exit(2);
    }
    for path in &paths {
        if let Err(err) = replay_file(path) {
            eprintln!("{path}: {err}");
            process::exit(2);
        }
    }
}

fn replay_file(path: &str) -> io::Result<()> {
    let mut reader = Reader::new(File::open(path)?);
    let mut replayer = Replayer::default();
    reader.visit_all_games(&mut replayer)?;
    println!(
        "{path}: {} games, {} replayed without error, {} plies",
        replayer.games, replayer.legal, replayer.plies
    );
    Ok(())
}
