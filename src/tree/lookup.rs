//! Looking up a position in a tree file (`pgnkit tree --fen FEN FILE`): its moves with their
//! games and scores, read from the file without the games. Reads every format a tree is
//! written in, a Polyglot book included.

use std::fs::File;
use std::io::{BufReader, Read, Write};
use std::path::Path;

use anyhow::Context;
use shakmaty::fen::Fen;
use shakmaty::{zobrist::Zobrist64, CastlingMode, Chess, EnPassantMode, Position};

use super::read::{format_of, TreeRows};
use super::record::move_of;
use super::Format;

/// The position of a FEN or EPD (an EPD's move counters are 0 and 1).
///
/// # Errors
///
/// Text that is no FEN, or a position that is not legal.
pub fn position_of(fen: &str) -> anyhow::Result<Chess> {
    let parsed: Fen = fen
        .trim()
        .parse()
        .map_err(|e| anyhow::anyhow!("--fen {fen:?}: {e}"))?;
    match parsed.clone().into_position(CastlingMode::Standard) {
        Ok(pos) => Ok(pos),
        Err(_) => parsed
            .into_position(CastlingMode::Chess960)
            .map_err(|e| anyhow::anyhow!("--fen {fen:?}: {e}")),
    }
}

/// The Polyglot key of `pos`.
pub fn key_of(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::PseudoLegal).0
}

/// One move of the position looked up.
struct Line {
    san: String,
    games: u64,
    white_wins: u64,
    draws: u64,
    black_wins: u64,
    mover_elo: Option<f64>,
    mover_rated: u64,
    last_date: Option<String>,
    /// A book's weight.
    weight: Option<u16>,
}

/// Writes the moves of the position `fen` in the tree file `path` (`format`: `None` to tell
/// it from the file) as a table to `out`. Whether the position has any.
///
/// # Errors
///
/// A wrong FEN, a file that cannot be read or is no tree, an output that cannot be written.
pub fn lookup(
    path: &Path,
    format: Option<Format>,
    fen: &str,
    out: &mut dyn Write,
) -> anyhow::Result<bool> {
    let pos = position_of(fen)?;
    let key = key_of(&pos);
    let mut epd = String::new();
    crate::notation::fen::push_epd(&pos, &mut epd);
    let hex = format!("{key:016x}");
    let format = match format {
        Some(f) => f,
        None => format_of(path)?,
    };
    let mut lines = Vec::new();
    if format == Format::Polyglot {
        book_lines(path, &pos, key, &mut lines)?;
    } else {
        let mut rows = TreeRows::open(path, format)?;
        while let Some(row) = rows.next_row()? {
            // Rows are sorted by key: past it, nothing more is found.
            if row.key > hex {
                break;
            }
            if row.key != hex || row.epd != epd {
                continue;
            }
            // The rows of one move split by speed or rating are summed.
            if let Some(line) = lines.iter_mut().find(|l| l.san == row.san) {
                let sum = |l: &Line| l.mover_elo.unwrap_or(0.0) * l.mover_rated as f64;
                let elo_sum = sum(line) + row.mover_elo.unwrap_or(0.0) * row.mover_rated as f64;
                line.games += row.games;
                line.white_wins += row.white_wins;
                line.draws += row.draws;
                line.black_wins += row.black_wins;
                line.mover_rated += row.mover_rated;
                line.mover_elo = (line.mover_rated > 0).then(|| elo_sum / line.mover_rated as f64);
                line.last_date = line.last_date.take().max(row.last_date);
            } else {
                lines.push(Line {
                    san: row.san,
                    games: row.games,
                    white_wins: row.white_wins,
                    draws: row.draws,
                    black_wins: row.black_wins,
                    mover_elo: row.mover_elo,
                    mover_rated: row.mover_rated,
                    last_date: row.last_date,
                    weight: None,
                });
            }
        }
    }
    write_table(out, &epd, &hex, &pos, &mut lines)?;
    Ok(!lines.is_empty())
}

/// The entries of a Polyglot book for `key`.
fn book_lines(path: &Path, pos: &Chess, key: u64, lines: &mut Vec<Line>) -> anyhow::Result<()> {
    let name = path.display();
    let mut reader =
        BufReader::new(File::open(path).with_context(|| format!("cannot open {name}"))?);
    let mut entry = [0u8; 16];
    loop {
        match reader.read_exact(&mut entry) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(()),
            Err(e) => return Err(e).with_context(|| format!("cannot read {name}")),
        }
        let at =
            |r: std::ops::Range<usize>| entry[r].iter().fold(0u64, |n, b| n << 8 | u64::from(*b));
        let entry_key = at(0..8);
        if entry_key > key {
            return Ok(());
        }
        if entry_key == key {
            let code = at(8..10) as u16;
            let san = move_of(pos, code).map_or_else(
                || format!("?{code:04x}"),
                |m| shakmaty::san::SanPlus::from_move(pos.clone(), m).to_string(),
            );
            lines.push(Line {
                san,
                games: 0,
                white_wins: 0,
                draws: 0,
                black_wins: 0,
                mover_elo: None,
                last_date: None,
                weight: Some(at(10..12) as u16),
                mover_rated: 0,
            });
        }
    }
}

fn percent(part: u64, whole: u64) -> String {
    if whole == 0 {
        "-".to_owned()
    } else {
        format!("{:.0}%", part as f64 * 100.0 / whole as f64)
    }
}

/// The table: the position, then a line a move, the most played first.
fn write_table(
    out: &mut dyn Write,
    epd: &str,
    hex: &str,
    pos: &Chess,
    lines: &mut [Line],
) -> std::io::Result<()> {
    if lines.is_empty() {
        return writeln!(out, "{epd}  key {hex}: not in the tree");
    }
    let book = lines.iter().any(|l| l.weight.is_some());
    if book {
        // In the book's order: the heaviest first, as make-book wrote them.
        let total: u64 = lines.iter().map(|l| u64::from(l.weight.unwrap_or(0))).sum();
        writeln!(out, "{epd}  key {hex}: {} book moves", lines.len())?;
        writeln!(out, "{:<8} {:>6} {:>6}", "move", "weight", "share")?;
        for l in lines.iter() {
            let w = u64::from(l.weight.unwrap_or(0));
            writeln!(out, "{:<8} {:>6} {:>6}", l.san, w, percent(w, total))?;
        }
        return Ok(());
    }
    lines.sort_by(|a, b| b.games.cmp(&a.games).then_with(|| a.san.cmp(&b.san)));
    let total: u64 = lines.iter().map(|l| l.games).sum();
    writeln!(out, "{epd}  key {hex}: {total} games")?;
    writeln!(
        out,
        "{:<8} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6}  last",
        "move", "games", "white", "draws", "black", "score", "elo"
    )?;
    let white_moves = pos.turn().is_white();
    for l in lines.iter() {
        let decided = l.white_wins + l.draws + l.black_wins;
        let won = if white_moves {
            l.white_wins
        } else {
            l.black_wins
        };
        // The side to move's score, over the games with a result, in half points.
        let score = percent(2 * won + l.draws, 2 * decided);
        writeln!(
            out,
            "{:<8} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6}  {}",
            l.san,
            l.games,
            percent(l.white_wins, decided),
            percent(l.draws, decided),
            percent(l.black_wins, decided),
            score,
            l.mover_elo
                .map_or_else(|| "-".to_owned(), |e| format!("{e:.0}")),
            l.last_date.as_deref().unwrap_or("-"),
        )?;
    }
    Ok(())
}
