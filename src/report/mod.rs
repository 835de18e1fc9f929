//! Diagnostics with their place in the input, and their renderings: compiler-style text,
//! JSON lines and CSV. Writers take any `io::Write`; nothing here opens files.

use std::io::{self, Write};

use serde::Serialize;

use crate::convert::record::GameRecord;
use crate::diag::{quote_bytes, Finding, PlyLabel, Severity, QUOTE_MAX};
use crate::pgn::Span;
use crate::rules::game::GameReport;

pub mod cell;
pub mod interrupt;
pub mod staged;
pub mod stats;
pub mod tiebreaks;

/// Where a game is: file, number, first line, players.
#[derive(Clone, Debug)]
pub struct GameContext<'a> {
    pub file: &'a str,
    pub number: u64,
    pub line: u32,
    pub white: &'a str,
    pub black: &'a str,
    /// The game's bytes, to quote source lines.
    pub bytes: &'a [u8],
}

/// Output format of diagnostics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Csv,
}

/// Rendering options.
#[derive(Clone, Copy, Debug, Default)]
pub struct RenderOptions {
    /// Print the board before a bad move (text only).
    pub board: bool,
    /// Show notes (claimable draws, perpetual check).
    pub notes: bool,
    /// ANSI colours in text.
    pub color: bool,
}

/// Bytes of context quoted on each side of a place, at most: a longer line is cut to a
/// window around the place (marked `…`), so that quoting costs the same on a line of a
/// megabyte as on one of a move, and a finding's block stays readable.
const CONTEXT: usize = 100;

/// Bytes of a token underlined at most.
const TOKEN: usize = QUOTE_MAX;

/// The source line holding `span` (the window of it around the span, on a long line), and
/// the span's start and width in display columns.
fn source_line(bytes: &[u8], span: &Span) -> (String, usize, usize) {
    let start = floor_char(bytes, (span.start as usize).min(bytes.len()));
    let end = (span.end as usize).clamp(start, bytes.len());
    let from = start.saturating_sub(CONTEXT);
    let (line_start, cut_before) = match memchr::memrchr(b'\n', &bytes[from..start]) {
        Some(p) => (from + p + 1, false),
        None if from == 0 => (0, false),
        None => (ceil_char(bytes, from).min(start), true),
    };
    let limit = (start + TOKEN + CONTEXT).min(bytes.len());
    let (line_end, cut_after) = match memchr::memchr(b'\n', &bytes[start..limit]) {
        Some(p) => (start + p, false),
        None if limit == bytes.len() => (limit, false),
        None => (floor_char(bytes, limit).max(start), true),
    };
    let token_end = end.min(line_end);
    let shown_end = floor_char(bytes, token_end.min(start + TOKEN)).max(start);
    let token_cut = shown_end < token_end;
    let before = String::from_utf8_lossy(&bytes[line_start..start]).replace('\t', " ");
    let token = String::from_utf8_lossy(&bytes[start..shown_end]).replace('\t', " ");
    let mut line = String::with_capacity(2 * CONTEXT + TOKEN + 8);
    if cut_before {
        line.push('…');
    }
    line.push_str(&before);
    if token_cut {
        line.push_str(&token);
        line.push('…');
    } else {
        let rest = String::from_utf8_lossy(&bytes[start..line_end]).replace('\t', " ");
        line.push_str(if cut_after {
            &rest
        } else {
            rest.trim_end_matches('\r')
        });
        if cut_after {
            line.push('…');
        }
    }
    let col = usize::from(cut_before) + display_width(&before);
    let width = display_width(token.trim_end_matches('\r')).max(1);
    (line, col, width)
}

/// `at`, or the start of the UTF-8 character it falls inside.
fn floor_char(bytes: &[u8], mut at: usize) -> usize {
    let stop = at.saturating_sub(3);
    while at > stop && at < bytes.len() && bytes[at] & 0xC0 == 0x80 {
        at -= 1;
    }
    at
}

/// `at`, or the end of the UTF-8 character it falls inside.
fn ceil_char(bytes: &[u8], mut at: usize) -> usize {
    let stop = (at + 3).min(bytes.len());
    while at < stop && bytes[at] & 0xC0 == 0x80 {
        at += 1;
    }
    at
}

/// Terminal columns of a string: East Asian wide characters take two.
pub fn display_width(s: &str) -> usize {
    if s.is_ascii() {
        // One column a byte: every move, number and most comments.
        return s.len();
    }
    s.chars()
        .map(|c| {
            let c = c as u32;
            let wide = (0x1100..=0x115F).contains(&c)
                || (0x2E80..=0x303E).contains(&c)
                || (0x3041..=0x33FF).contains(&c)
                || (0x3400..=0x4DBF).contains(&c)
                || (0x4E00..=0x9FFF).contains(&c)
                || (0xA000..=0xA4CF).contains(&c)
                || (0xAC00..=0xD7A3).contains(&c)
                || (0xF900..=0xFAFF).contains(&c)
                || (0xFE30..=0xFE4F).contains(&c)
                || (0xFF00..=0xFF60).contains(&c)
                || (0xFFE0..=0xFFE6).contains(&c);
            if wide {
                2
            } else {
                1
            }
        })
        .sum()
}

fn side(white: bool) -> &'static str {
    if white {
        "White"
    } else {
        "Black"
    }
}

/// Writes one finding as a compiler-style text block.
///
/// # Errors
///
/// Errors of the writer.
pub fn write_text(
    out: &mut impl Write,
    ctx: &GameContext,
    f: &Finding,
    opts: &RenderOptions,
) -> io::Result<()> {
    let (line, col) = f.span.map_or((ctx.line, 1), |s| (s.line, s.col));
    let (on, off) = if opts.color {
        (
            match f.severity {
                Severity::Error => "\x1b[1;31m",
                Severity::Warning => "\x1b[1;33m",
                Severity::Note => "\x1b[1;36m",
            },
            "\x1b[0m",
        )
    } else {
        ("", "")
    };
    writeln!(
        out,
        "{on}{}[{}]{off}: {}",
        f.severity.as_str(),
        f.code.as_str(),
        f.message
    )?;
    let mut place = format!(
        "  --> {}:{line}:{col} · game {} ({} – {})",
        ctx.file, ctx.number, ctx.white, ctx.black
    );
    if ctx.number == 0 {
        // About the input as a whole (game 0): no game to name.
        place = format!("  --> {}:{line}:{col}", ctx.file);
    }
    if let Some(PlyLabel { number, white }) = f.ply {
        let dots = if white { "." } else { "..." };
        place.push_str(&format!(" · move {number}{dots} ({})", side(white)));
    }
    writeln!(out, "{place}")?;
    // A problem of an input as a whole has a place but no game's bytes to show.
    if let Some(span) = f.span.as_ref().filter(|_| !ctx.bytes.is_empty()) {
        let (text, col, width) = source_line(ctx.bytes, span);
        let num = line.to_string();
        let pad = " ".repeat(num.len());
        writeln!(out, " {pad} |")?;
        writeln!(out, " {num} | {text}")?;
        writeln!(
            out,
            " {pad} | {}{on}{}{off}",
            " ".repeat(col),
            "^".repeat(width)
        )?;
    }
    if let Some(fen) = &f.fen {
        writeln!(out, "   = position: {fen}")?;
        if opts.board {
            write_board(out, fen)?;
        }
    }
    if let Some(help) = &f.help {
        writeln!(out, "   = help: {help}")?;
    }
    for note in &f.notes {
        writeln!(out, "   = note: {note}")?;
    }
    writeln!(out)
}

/// Draws the board of a FEN, White at the bottom.
fn write_board(out: &mut impl Write, fen: &str) -> io::Result<()> {
    let board = fen.split(' ').next().unwrap_or("");
    for (i, rank) in board.split('/').enumerate() {
        let mut row = String::new();
        for c in rank.chars() {
            if let Some(n) = c.to_digit(10) {
                for _ in 0..n {
                    row.push_str(" .");
                }
            } else {
                row.push(' ');
                row.push(c);
            }
        }
        writeln!(out, "     {} |{row}", 8 - i)?;
    }
    writeln!(out, "       +----------------")?;
    writeln!(out, "         a b c d e f g h")
}

#[derive(Serialize)]
struct JsonDiagnostic<'a> {
    r#type: &'static str,
    code: &'static str,
    severity: &'static str,
    title: &'static str,
    file: &'a str,
    line: u32,
    column: u32,
    game: u64,
    white: &'a str,
    black: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    r#move: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    side: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    token: Option<String>,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    help: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fen: Option<&'a str>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    notes: &'a [String],
}

/// The token a finding is about, quoted from the game's bytes (as the diagnostics show it).
pub fn token_text(ctx: &GameContext, f: &Finding) -> Option<String> {
    let s = f.span?;
    let (a, b) = (s.start as usize, s.end as usize);
    (a < b && b <= ctx.bytes.len()).then(|| quote_bytes(&ctx.bytes[a..b]).into_owned())
}

/// Writes one finding as a JSON object on one line.
///
/// # Errors
///
/// Errors of the writer.
pub fn write_json(out: &mut impl Write, ctx: &GameContext, f: &Finding) -> io::Result<()> {
    let (line, column) = f.span.map_or((ctx.line, 1), |s| (s.line, s.col));
    let d = JsonDiagnostic {
        r#type: "diagnostic",
        code: f.code.as_str(),
        severity: f.severity.as_str(),
        title: f.code.title(),
        file: ctx.file,
        line,
        column,
        game: ctx.number,
        white: ctx.white,
        black: ctx.black,
        r#move: f.ply.map(|p| p.number),
        side: f.ply.map(PlyLabel::side),
        token: token_text(ctx, f),
        message: &f.message,
        help: f.help.as_deref(),
        fen: f.fen.as_deref(),
        notes: &f.notes,
    };
    serde_json::to_writer(&mut *out, &d)?;
    writeln!(out)
}

#[derive(Serialize)]
struct JsonGame<'a> {
    r#type: &'static str,
    file: &'a str,
    game: u64,
    line: u32,
    white: &'a str,
    black: &'a str,
    variant: &'a str,
    legal: bool,
    plies: u32,
    final_fen: Option<&'a str>,
    result_tag: Option<&'a str>,
    result_token: Option<&'static str>,
    result_by_rule: Option<&'static str>,
    termination: &'static str,
    termination_ply: Option<u32>,
    threefold_ply: Option<u32>,
    fifty_ply: Option<u32>,
    perpetual_check: bool,
    errors: u32,
    warnings: u32,
}

/// Writes the per-game record (`--game-records`) as a JSON object on one line: the game's
/// `record` (built from `r`), and what only the check's report `r` says (its variant, the
/// plies of its endings).
///
/// # Errors
///
/// Errors of the writer.
pub fn write_game_json(
    out: &mut impl Write,
    record: &GameRecord,
    r: &GameReport,
) -> io::Result<()> {
    let g = JsonGame {
        r#type: "game",
        file: &record.file,
        game: record.game,
        line: record.line,
        white: record.tag("White").unwrap_or("?"),
        black: record.tag("Black").unwrap_or("?"),
        variant: &r.variant,
        legal: r.legal,
        plies: r.plies,
        final_fen: record.final_fen.as_deref(),
        result_tag: r.result_tag.as_deref(),
        result_token: r.result_token.map(|t| t.as_str()),
        result_by_rule: record.result_by_rule,
        termination: record.termination.as_str(),
        termination_ply: r.termination_ply,
        threefold_ply: r.threefold_ply,
        fifty_ply: r.fifty_ply,
        perpetual_check: r.perpetual_check,
        errors: record.errors,
        warnings: record.warnings,
    };
    serde_json::to_writer(&mut *out, &g)?;
    writeln!(out)
}

/// Column names of the CSV format.
pub const CSV_HEADER: [&str; 14] = [
    "file", "line", "column", "game", "white", "black", "move", "side", "severity", "code",
    "token", "message", "help", "fen",
];

/// Writes one finding as a CSV record. Every text cell (the file name, the players, the token,
/// and the message and help, which quote the input) is [neutralised](cell::neutralise) for
/// spreadsheets, as every CSV pgnkit writes is.
///
/// # Errors
///
/// Errors of the CSV writer.
pub fn write_csv<W: Write>(
    out: &mut csv::Writer<W>,
    ctx: &GameContext,
    f: &Finding,
) -> csv::Result<()> {
    write_csv_cells(out, ctx, f, false)
}

/// [`write_csv`], with the text cells as they are when `raw`: for CSV that only carries the
/// diagnostics into a table of data (Python's `validate`, the Spark job's Parquet), which no
/// spreadsheet reads and which must hold the values as written.
///
/// # Errors
///
/// Errors of the CSV writer.
pub fn write_csv_cells<W: Write>(
    out: &mut csv::Writer<W>,
    ctx: &GameContext,
    f: &Finding,
    raw: bool,
) -> csv::Result<()> {
    let neutralise = |text| {
        if raw {
            std::borrow::Cow::Borrowed(text)
        } else {
            cell::neutralise(text)
        }
    };
    let (line, column) = f.span.map_or((ctx.line, 1), |s| (s.line, s.col));
    let mut message = f.message.clone();
    for n in &f.notes {
        message.push_str("; ");
        message.push_str(n);
    }
    let token = token_text(ctx, f).unwrap_or_default();
    out.write_record([
        &*neutralise(ctx.file),
        &line.to_string(),
        &column.to_string(),
        &ctx.number.to_string(),
        &neutralise(ctx.white),
        &neutralise(ctx.black),
        &f.ply.map(|p| p.number.to_string()).unwrap_or_default(),
        f.ply.map_or("", PlyLabel::side),
        f.severity.as_str(),
        f.code.as_str(),
        &neutralise(&token),
        &neutralise(&message),
        &neutralise(f.help.as_deref().unwrap_or("")),
        f.fen.as_deref().unwrap_or(""),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Code;

    /// The CLI's CSV is spreadsheet-safe; the CSV that carries diagnostics into Python's and
    /// Spark's tables keeps the values as written.
    #[test]
    fn csv_cells_are_neutralised_unless_raw() {
        let ctx = GameContext {
            file: "=cmd.pgn",
            number: 1,
            line: 1,
            white: "@b",
            black: "-2+3",
            bytes: b"",
        };
        let f = Finding::new(Code::UnexpectedToken, None, "=x");
        let row = |raw: bool| {
            let mut w = csv::Writer::from_writer(Vec::new());
            write_csv_cells(&mut w, &ctx, &f, raw).unwrap();
            String::from_utf8(w.into_inner().unwrap()).unwrap()
        };
        assert!(
            row(false).starts_with("'=cmd.pgn,1,1,1,'@b,'-2+3,"),
            "{}",
            row(false)
        );
        assert!(row(false).contains(",'=x,"), "{}", row(false));
        assert!(
            row(true).starts_with("=cmd.pgn,1,1,1,@b,-2+3,"),
            "{}",
            row(true)
        );
        assert!(row(true).contains(",=x,"), "{}", row(true));
    }
}
