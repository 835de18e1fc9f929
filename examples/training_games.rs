//! Writes made-up but legal games as PGN, the training input of a profile-guided build
//! (`benches/pgo-build.sh`): the project's own data, so that the profile is not taken from the
//! corpus the benchmark inputs are made from.
//!
//! Each game has a full tag section in one of two styles (a tournament file's, with ratings and
//! FIDE ids, or an online site's, with clocks after every move), then moves chosen by a fixed
//! pseudo-random sequence: captures, checks and pawn moves are preferred as in played games,
//! and a game ends at mate, stalemate, a dead position, or after 20 to 160 plies with a
//! result as if someone resigned or a draw was agreed. Some games carry a NAG, a comment or a
//! short variation, which send them down the general path as such games do.
//!
//! Usage: `cargo run --release --example training_games -- GAMES [SEED] > FILE`

use std::{
    env,
    io::{self, BufWriter, Write},
    process,
};

use shakmaty::{san::SanPlus, Chess, Move, Position};

/// xorshift64*: a small fixed sequence, the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

const NAMES: [&str; 12] = [
    "Carlsen,M",
    "Nakamura,Hi",
    "Firouzja,A",
    "Ding,Liren",
    "Gukesh,D",
    "Caruana,F",
    "Ju,Wenjun",
    "Hou,Yifan",
    "Praggnanandhaa,R",
    "Abdusattorov,Nodirbek",
    "Rapport,R",
    "Giri,A",
];

/// A move that looks like one a player might choose: captures and checks first, often.
fn pick(pos: &Chess, rng: &mut Rng) -> Option<Move> {
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return None;
    }
    let forcing: Vec<&Move> = moves
        .iter()
        .filter(|m| m.is_capture() || m.is_promotion())
        .collect();
    if !forcing.is_empty() && rng.below(3) == 0 {
        return Some(*forcing[rng.below(forcing.len() as u64) as usize]);
    }
    Some(moves[rng.below(moves.len() as u64) as usize])
}

fn clock(rng: &mut Rng, ply: u32) -> String {
    let left = 300u32.saturating_sub(ply * 2 + rng.below(5) as u32);
    format!("{{ [%clk 0:{:02}:{:02}] }}", left / 60, left % 60)
}

fn write_game(out: &mut impl Write, n: u64, rng: &mut Rng) -> io::Result<()> {
    let online = rng.below(2) == 0;
    let white = NAMES[rng.below(NAMES.len() as u64) as usize];
    let black = NAMES[rng.below(NAMES.len() as u64) as usize];
    // The moves first: the result tag depends on how the game ends.
    let mut pos = Chess::default();
    let limit = 20 + rng.below(141) as u32;
    let mut text = String::new();
    let mut ply = 0;
    let mut result = None;
    while ply < limit {
        let Some(m) = pick(&pos, rng) else { break };
        let san = SanPlus::from_move_and_play_unchecked(&mut pos, m);
        if ply % 2 == 0 {
            text.push_str(&format!("{}. ", ply / 2 + 1));
        } else if online {
            text.push_str(&format!("{}... ", ply / 2 + 1));
        }
        text.push_str(&san.to_string());
        text.push(' ');
        if online {
            text.push_str(&clock(rng, ply));
            text.push(' ');
        } else if rng.below(200) == 0 {
            text.push_str("$1 { a fine move } ");
        } else if rng.below(300) == 0 {
            text.push_str("( ");
            if ply % 2 == 0 {
                text.push_str(&format!("{}... ", ply / 2 + 1));
            }
            text.push_str("-- ) ");
        }
        ply += 1;
        if pos.is_checkmate() {
            result = Some(if ply % 2 == 1 { "1-0" } else { "0-1" });
            break;
        }
        if pos.is_stalemate() || pos.is_insufficient_material() {
            result = Some("1/2-1/2");
            break;
        }
    }
    let result =
        result.unwrap_or_else(|| ["1-0", "0-1", "1/2-1/2", "1/2-1/2"][rng.below(4) as usize]);
    let day = 1 + n % 28;
    if online {
        writeln!(out, "[Event \"Rated Blitz game\"]")?;
        writeln!(out, "[Site \"https://example.org/{n:08x}\"]")?;
        writeln!(out, "[Date \"2025.05.{day:02}\"]")?;
        writeln!(out, "[Round \"-\"]")?;
    } else {
        writeln!(out, "[Event \"Training Open {}\"]", n % 7)?;
        writeln!(out, "[Site \"Example City\"]")?;
        writeln!(out, "[Date \"2025.06.{day:02}\"]")?;
        writeln!(out, "[Round \"{}.{}\"]", 1 + n % 9, 1 + n % 40)?;
    }
    writeln!(out, "[White \"{white}\"]")?;
    writeln!(out, "[Black \"{black}\"]")?;
    writeln!(out, "[Result \"{result}\"]")?;
    writeln!(out, "[WhiteElo \"{}\"]", 1500 + rng.below(1300))?;
    writeln!(out, "[BlackElo \"{}\"]", 1500 + rng.below(1300))?;
    if online {
        writeln!(out, "[TimeControl \"300+3\"]")?;
        writeln!(out, "[Termination \"Normal\"]")?;
    } else {
        writeln!(out, "[ECO \"B{:02}\"]", rng.below(100))?;
        writeln!(out, "[EventDate \"2025.06.01\"]")?;
        writeln!(
            out,
            "[WhiteFideId \"{}\"]",
            1_000_000 + rng.below(9_000_000)
        )?;
        writeln!(
            out,
            "[BlackFideId \"{}\"]",
            1_000_000 + rng.below(9_000_000)
        )?;
        writeln!(out, "[PlyCount \"{ply}\"]")?;
    }
    writeln!(out)?;
    writeln!(out, "{text}{result}")?;
    writeln!(out)
}

fn main() {
    let args: Vec<String> = env::args().skip(1).collect();
    let (Some(games), seed) = (
        args.first().and_then(|s| s.parse::<u64>().ok()),
        args.get(1).and_then(|s| s.parse::<u64>().ok()).unwrap_or(1),
    ) else {
        eprintln!("usage: training_games GAMES [SEED] > FILE");
        process::exit(2);
    };
    let mut rng = Rng(seed.max(1));
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    for n in 0..games {
        if let Err(e) = write_game(&mut out, n, &mut rng) {
            eprintln!("training_games: {e}");
            process::exit(2);
        }
    }
    if let Err(e) = out.flush() {
        eprintln!("training_games: {e}");
        process::exit(2);
    }
}
