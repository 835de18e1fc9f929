//! Converted games as data: JSON lines (one game a line, variations as nested lists), CSV (one
//! row a main-line ply) and EPD (one position a line). Every move is given in SAN, long
//! algebraic, UCI, figurines and Chinese, with the position after it and the clock and
//! evaluation found in its comments (`[%clk …]`, `[%eval …]`, and the evaluations engine
//! matches write: cutechess-cli's `score/depth`, TCEC's `wv=`).

use std::borrow::Cow;
use std::io::{self, Write};

use serde::Serialize;
use shakmaty::{Chess, Position};

use super::record::GameRecord;
use super::{Around, Collector, Element, NullPly, Ply};
use crate::notation::fen::{fen, push_epd};
use crate::notation::write::{self, Notation, ZhStyle};
use crate::report::cell::neutralise;

/// An engine evaluation from a `[%eval …]` comment.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Eval {
    /// Pawns, from White's point of view.
    Pawns(f64),
    /// Mate in this many moves; negative when Black mates.
    Mate(i32),
}

/// Seconds from the first `[%clk h:mm:ss(.f)]` in `comment`.
#[cfg(test)]
fn parse_clock(comment: &str) -> Option<f64> {
    let [arg, _] = command_args(comment, [true, false]);
    clock_value(&arg?)
}

/// Seconds of a `[%clk …]` command's argument (`h:mm:ss(.f)`).
fn clock_value(arg: &str) -> Option<f64> {
    if let Some(secs) = whole_clock(arg) {
        return Some(secs);
    }
    let mut secs = 0.0;
    for part in arg.split(':') {
        // Whole numbers (`0:04:58`, nearly every clock) without the float parser, which costs
        // more than the rest of a ply's row; the value is the same.
        let whole = (1..=9).contains(&part.len()) && part.bytes().all(|b| b.is_ascii_digit());
        let v: f64 = if whole {
            f64::from(part.bytes().fold(0u32, |n, b| n * 10 + u32::from(b - b'0')))
        } else {
            part.parse().ok()?
        };
        if !v.is_finite() || v < 0.0 {
            return None;
        }
        secs = secs * 60.0 + v;
    }
    Some(secs)
}

/// A clock of whole numbers (`0:04:58`, nearly every clock) in one pass over its bytes; `None`
/// for anything else (an empty part, a fraction), which [`parse_clock`] reads part by part.
/// The value is the same: parts of up to nine digits are exact as f64.
fn whole_clock(arg: &str) -> Option<f64> {
    // `H:MM:SS`, lichess's every clock, without the loop: a ply's cost counts.
    if let &[h, b':', m1, m0, b':', s1, s0] = arg.as_bytes() {
        let digits = [h, m1, m0, s1, s0];
        if digits.iter().all(u8::is_ascii_digit) {
            let [h, m1, m0, s1, s0] = digits.map(|d| u32::from(d - b'0'));
            return Some(f64::from(h * 3600 + (m1 * 10 + m0) * 60 + s1 * 10 + s0));
        }
    }
    let (mut secs, mut part, mut digits) = (0.0f64, 0u32, 0usize);
    for &b in arg.as_bytes() {
        match b {
            b'0'..=b'9' if digits < 9 => {
                part = part * 10 + u32::from(b - b'0');
                digits += 1;
            }
            b':' if digits > 0 => {
                secs = secs * 60.0 + f64::from(part);
                (part, digits) = (0, 0);
            }
            _ => return None,
        }
    }
    (digits > 0).then(|| secs * 60.0 + f64::from(part))
}

/// The evaluation from the first `[%eval x]` in `comment` (`0.17`, `-1.5`, `#3`, `#-2`, with
/// an optional `,depth`).
#[cfg(test)]
fn parse_eval(comment: &str) -> Option<Eval> {
    let [_, arg] = command_args(comment, [false, true]);
    eval_value(&arg?)
}

/// The evaluation of a `[%eval …]` command's argument (`0.17`, `#-3`, `0.3,22`).
fn eval_value(arg: &str) -> Option<Eval> {
    let value = arg.split(',').next()?.trim();
    if let Some(m) = value.strip_prefix('#') {
        return m.parse().ok().map(Eval::Mate);
    }
    decimal(value)
        .or_else(|| value.parse::<f64>().ok())
        .filter(|v| v.is_finite())
        .map(Eval::Pawns)
}

/// A plain decimal (`0.17`, `-1.5`, `3`) without the float parser, which costs more than the
/// rest of a ply's row; `None` for anything else (the parser reads that). The value is the
/// same: both integers are exact below 2^53, and IEEE division rounds their quotient
/// correctly, as the parser rounds the text.
fn decimal(text: &str) -> Option<f64> {
    let (negative, digits) = match text.as_bytes() {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        rest => (false, rest),
    };
    let (mut n, mut scale, mut point, mut count) = (0u64, 1u64, false, 0usize);
    for &b in digits {
        match b {
            b'0'..=b'9' => {
                n = n * 10 + u64::from(b - b'0');
                if point {
                    scale *= 10;
                }
                count += 1;
            }
            b'.' if !point => point = true,
            _ => return None,
        }
        // 15 digits stay below 2^53, and 10^15 too.
        if count > 15 {
            return None;
        }
    }
    if count == 0 {
        return None;
    }
    #[allow(clippy::cast_precision_loss)]
    let v = n as f64 / scale as f64;
    Some(if negative { -v } else { v })
}

/// The evaluation [`read_notes`] reads in `comment`.
#[cfg(test)]
fn parse_any_eval(comment: &str, white_moved: bool) -> Option<Eval> {
    let mut eval = None;
    read_notes(comment, white_moved, &mut None, &mut eval);
    eval
}

/// Reads a move's clock and engine evaluation from one of its comments (after a move by White
/// when `white_moved`), each only while it is `None`: the first comment that gives one is the
/// one kept.
///
/// - The clock is the first `[%clk h:mm:ss(.f)]`.
/// - The evaluation is the first `[%eval …]` command, else what engine matches write without
///   one: cutechess-cli's `{+0.35/20 1.2s}` (the mover's score / depth, then the time) or
///   TCEC's `wv=0.88` (White's view) among its `key=value` pairs. Mates there count plies from
///   before the move (`+M5`); they are given as `[%eval #n]` gives them: moves after it, `#0`
///   when the move mates.
///
/// One pass over the comment's commands gives both: a comment a ply is read, and looking for
/// each on its own (and for the engine matches' forms in every comment) cost more than the
/// rest of the ply's row.
pub fn read_notes(
    comment: &str,
    white_moved: bool,
    clock: &mut Option<f64>,
    eval: &mut Option<Eval>,
) {
    if clock.is_some() && eval.is_some() {
        return;
    }
    // A clock alone (`[%clk 0:04:58]`), as lichess gives every ply: the whole comment is read
    // at once. Nothing else in it can be a clock or an evaluation (no second `[`, no `=`, a
    // `[` first), so the passes below would find the same.
    if clock.is_none() {
        if let Some(secs) = clock_alone(comment) {
            *clock = Some(secs);
            return;
        }
    }
    let [clk, ev] = command_args(comment, [clock.is_none(), eval.is_none()]);
    if let Some(arg) = clk {
        *clock = clock_value(&arg);
    }
    if eval.is_none() {
        *eval = ev
            .and_then(|arg| eval_value(&arg))
            .or_else(|| cutechess_eval(comment, white_moved))
            .or_else(|| tcec_eval(comment));
    }
}

/// The clock of a comment that is a clock alone (`[%clk 0:04:58]`, as lichess gives every
/// ply), read at once; `None` for any other comment. Nothing else in such a comment can be a
/// clock or an evaluation, so [`read_notes`] finds the same in it.
pub(crate) fn clock_alone(comment: &str) -> Option<f64> {
    let arg = comment.strip_prefix("[%clk ")?.strip_suffix(']')?;
    whole_clock(arg)
}

/// The clock, and the evaluation before it, of a comment that holds them alone as lichess
/// writes them (`[%clk 0:04:58]`, `[%eval 0.17] [%clk 0:04:58]`), read at once; `None` for
/// any other comment. For a ply with no clock yet, [`read_notes`] finds the same in it: the
/// evaluation where the ply has none, and nothing else.
pub(crate) fn lichess_notes(comment: &str) -> Option<(f64, Option<Eval>)> {
    if let Some(secs) = clock_alone(comment) {
        return Some((secs, None));
    }
    let rest = comment.strip_prefix("[%eval ")?;
    let end = find_byte(rest.as_bytes(), b']')?;
    let arg = &rest[..end];
    // An argument the passes over the commands would take as it is, and no second command in it.
    if !arg.bytes().all(|b| b.is_ascii_graphic() && b != b'[') {
        return None;
    }
    let secs = clock_alone(rest[end + 1..].strip_prefix(' ')?)?;
    Some((secs, Some(eval_value(arg)?)))
}

/// A score as engine matches write it: pawns (`+0.35`, `-1.20`, with a decimal point) or a
/// mate in plies (`+M5`, `-M2`), positive for the side the score is for.
fn engine_score(text: &str) -> Option<Eval> {
    let (sign, digits) = match text.as_bytes().first()? {
        b'-' => (-1, &text[1..]),
        b'+' => (1, &text[1..]),
        _ => (1, text),
    };
    if let Some(plies) = digits.strip_prefix('M') {
        if plies.is_empty() || !plies.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let plies: i32 = plies.parse().ok()?;
        return Some(Eval::Mate(sign * (plies / 2)));
    }
    let well_formed = digits.contains('.')
        && digits.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && digits.bytes().next().is_some_and(|b| b.is_ascii_digit());
    let pawns: f64 = digits.parse().ok().filter(|_| well_formed)?;
    // `+ 0.0` makes `-0.00` plain 0.
    pawns
        .is_finite()
        .then(|| Eval::Pawns(f64::from(sign) * pawns + 0.0))
}

impl Eval {
    /// The evaluation seen from the other side.
    fn flipped(self) -> Eval {
        match self {
            // Not `-p`: a level 0.00 stays 0, not -0.
            Eval::Pawns(p) => Eval::Pawns(0.0 - p),
            Eval::Mate(n) => Eval::Mate(-n),
        }
    }
}

/// cutechess-cli's `score/depth` opening the comment; the score is the mover's.
fn cutechess_eval(comment: &str, white_moved: bool) -> Option<Eval> {
    // What a score can start with; the comments of most games (`[%clk …]`, words) cannot.
    if !matches!(
        comment.trim_ascii_start().as_bytes().first(),
        Some(b'+' | b'-' | b'0'..=b'9' | b'M')
    ) {
        return None;
    }
    let head = comment.split_ascii_whitespace().next()?;
    let head = head.strip_suffix(',').unwrap_or(head);
    let (score, depth) = head.split_once('/')?;
    if depth.is_empty() || !depth.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let eval = engine_score(score)?;
    Some(if white_moved { eval } else { eval.flipped() })
}

/// TCEC's `wv=` pair (White's view) in a comment of comma-separated `key=value` pairs.
fn tcec_eval(comment: &str) -> Option<Eval> {
    // The first pair that starts with `wv=` (at the start, or after a comma or whitespace),
    // found with memmem: splitting a TCEC comment of a dozen pairs char by char cost more
    // than the rest of its ply's row.
    // Found by its `=`: a substring searcher is built for each call, which cost more than the
    // search in a comment without one.
    let separator = |c: char| c == ',' || c.is_whitespace();
    let bytes = comment.as_bytes();
    let mut from = 0;
    while let Some(eq) = find_byte(&bytes[from..], b'=') {
        let eq = from + eq;
        from = eq + 1;
        if eq < 2 || &bytes[eq - 2..eq] != b"wv" {
            continue;
        }
        // `wv=` is ASCII: these offsets are char boundaries.
        let at = eq - 2;
        if comment[..at].chars().next_back().is_none_or(separator) {
            let value = &comment[at + 3..];
            return engine_score(&value[..value.find(separator).unwrap_or(value.len())]);
        }
    }
    None
}

/// The arguments of the first `[%clk …]` and the first `[%eval …]` command in `comment`, each
/// looked for only when asked (`want`), in one pass over its `[`s. A writer that wraps long
/// comments may break the line inside the command (`[%clk\n0:03:00]`), so any whitespace
/// separates the name from the argument and whitespace inside the argument is dropped. A
/// command left open (no `]`) gives no argument.
fn command_args(comment: &str, want: [bool; 2]) -> [Option<std::borrow::Cow<'_, str>>; 2] {
    const NAMES: [&str; 2] = ["%clk", "%eval"];
    let mut args = [None, None];
    let mut open = want;
    let mut rest = comment;
    while open != [false, false] {
        // (`[` and `]` are ASCII, so the offsets are char boundaries.)
        let Some(at) = find_byte(rest.as_bytes(), b'[') else {
            break;
        };
        let after = &rest[at + 1..];
        for k in 0..2 {
            let Some(arg) = after.strip_prefix(NAMES[k]).filter(|_| open[k]) else {
                continue;
            };
            if !arg.starts_with(char::is_whitespace) {
                continue;
            }
            open[k] = false;
            args[k] = find_byte(arg.as_bytes(), b']').map(|end| {
                let arg = arg[..end].trim_start();
                // Nearly every argument (`0:03:00`, `0.17`) is printable ASCII: no
                // whitespace to trim or drop, and no walk through it char by char.
                if arg.bytes().all(|b| b.is_ascii_graphic()) {
                    return arg.into();
                }
                let arg = arg.trim();
                if arg.contains(char::is_whitespace) {
                    arg.split_whitespace().collect::<String>().into()
                } else {
                    arg.into()
                }
            });
        }
        rest = after;
    }
    args
}

/// The first `b` in `hay`. Most comments are a few words or one command (`[%clk 0:03:00]`), a
/// comment a ply: a byte loop finds a byte there in fewer steps than memchr, whose vector
/// search pays its set-up back only on longer texts (and `str::find(char)`'s char searcher
/// costs more than either).
fn find_byte(hay: &[u8], b: u8) -> Option<usize> {
    if hay.len() < 64 {
        hay.iter().position(|&c| c == b)
    } else {
        memchr::memchr(b, hay)
    }
}

/// One move with every notation.
#[derive(Debug, Serialize)]
pub struct MoveRecord {
    pub number: u32,
    /// `w` or `b`: who moved.
    pub side: &'static str,
    /// The move in the notation chosen with `--to`.
    #[serde(rename = "move")]
    pub written: String,
    pub san: String,
    pub lan: String,
    pub uci: String,
    pub fan: String,
    pub zh: String,
    pub zh_long: String,
    /// The position after the move.
    pub fen: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub nags: Vec<u16>,
    /// Comments before the move (at the start of a line of play).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub comments_before: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub comments: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clock: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eval: Option<Eval>,
    /// The illegal move as written, when `--repair` replaced it by this one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repaired_from: Option<String>,
    /// Lines of play that replace this move.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub variations: Vec<Vec<MoveRecord>>,
}

impl MoveRecord {
    fn new(ply: &Ply, written: &str) -> MoveRecord {
        // The collector keeps the positions for these records; without them, the move is
        // read from the standard position.
        let around = ply.positions.as_deref().map_or_else(
            || {
                let before = Chess::default();
                let mut after = before.clone();
                after.play_unchecked(ply.mv);
                Cow::Owned(Around { before, after })
            },
            Cow::Borrowed,
        );
        let (before, after) = (&around.before, &around.after);
        let each = |n: Notation| {
            let mut s = String::new();
            write::write(before, ply.mv, ply.check, n, &mut s);
            s
        };
        MoveRecord {
            number: ply.number,
            side: if ply.white { "w" } else { "b" },
            written: written.to_string(),
            san: each(Notation::San),
            lan: each(Notation::Lan),
            uci: each(Notation::Uci(before.castles().mode())),
            fan: each(Notation::Fan),
            zh: each(Notation::Zh(ZhStyle::default())),
            zh_long: each(Notation::ZhLong(ZhStyle::default())),
            fen: fen(after),
            nags: Vec::new(),
            comments_before: Vec::new(),
            comments: Vec::new(),
            clock: None,
            eval: None,
            repaired_from: ply.repaired_from.clone(),
            variations: Vec::new(),
        }
    }

    /// A null move: `--` in every notation but UCI's `0000`, so that the list of moves
    /// still replays.
    fn null(null: &NullPly, notation: Notation) -> MoveRecord {
        let written = match notation {
            Notation::Uci(_) => NULL_UCI,
            _ => NULL_SAN,
        };
        MoveRecord {
            number: null.number,
            side: if null.white { "w" } else { "b" },
            written: written.into(),
            san: NULL_SAN.into(),
            lan: NULL_SAN.into(),
            uci: NULL_UCI.into(),
            fan: NULL_SAN.into(),
            zh: NULL_SAN.into(),
            zh_long: NULL_SAN.into(),
            fen: fen(null.after.as_ref()),
            nags: Vec::new(),
            comments_before: Vec::new(),
            comments: Vec::new(),
            clock: None,
            eval: None,
            repaired_from: None,
            variations: Vec::new(),
        }
    }
}

/// A null move as PGN writes it, and as UCI does.
const NULL_SAN: &str = "--";
const NULL_UCI: &str = "0000";

/// Every line of play of a game with every notation, from its elements (see
/// [`super::elements`]): the comments before its first move, and its moves, each with the
/// lines of play that replace it.
pub(super) fn move_tree(
    elements: &[Element],
    collector: &Collector,
) -> (Vec<String>, Vec<MoveRecord>) {
    // Lines of play being built; a finished variation joins the last move of its parent.
    let mut stack: Vec<Vec<MoveRecord>> = vec![Vec::new()];
    let mut pending: Vec<Vec<String>> = vec![Vec::new()];
    let mut game_comments = Vec::new();
    for el in elements {
        let depth = stack.len() - 1;
        match el {
            Element::Move(i) => {
                let ply = &collector.plies[*i];
                let mut rec = MoveRecord::new(ply, collector.written(ply));
                rec.comments_before = std::mem::take(&mut pending[depth]);
                stack[depth].push(rec);
            }
            Element::Null(Some(i)) => {
                let mut rec = MoveRecord::null(&collector.nulls[*i], collector.notation);
                rec.comments_before = std::mem::take(&mut pending[depth]);
                stack[depth].push(rec);
            }
            Element::Comment(text) => {
                let text = text.trim().to_string();
                match stack[depth].last_mut() {
                    Some(m) => {
                        read_notes(&text, m.side == "w", &mut m.clock, &mut m.eval);
                        m.comments.push(text);
                    }
                    None if depth == 0 => game_comments.push(text),
                    None => pending[depth].push(text),
                }
            }
            Element::Nag(n) => {
                if let Some(m) = stack[depth].last_mut() {
                    m.nags.push(*n);
                }
            }
            Element::VariationStart => {
                stack.push(Vec::new());
                pending.push(Vec::new());
            }
            Element::VariationEnd if depth > 0 => {
                let line = stack.pop().unwrap_or_default();
                pending.pop();
                if let Some(m) = stack[depth - 1].last_mut() {
                    m.variations.push(line);
                }
            }
            Element::VariationEnd | Element::Null(None) | Element::Raw(_) => {}
        }
    }
    while stack.len() > 1 {
        let line = stack.pop().unwrap_or_default();
        if let Some(m) = stack.last_mut().and_then(|l| l.last_mut()) {
            m.variations.push(line);
        }
    }
    (game_comments, stack.pop().unwrap_or_default())
}

/// Writes a game record as one JSON line.
///
/// # Errors
///
/// Errors of the writer.
pub fn write_jsonl(out: &mut impl Write, record: &GameRecord) -> io::Result<()> {
    serde_json::to_writer(&mut *out, &JsonGame::of(record))?;
    out.write_all(b"\n")
}

/// A game record as its JSON line shows it, in this order.
#[derive(Serialize)]
struct JsonGame<'a> {
    file: &'a str,
    game: u64,
    tags: JsonTags<'a>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    comments: &'a [String],
    moves: &'a [MoveRecord],
    result: &'a str,
    result_by_rule: Option<&'a str>,
    termination: &'a str,
    final_fen: Option<&'a str>,
}

impl<'a> JsonGame<'a> {
    fn of(r: &'a GameRecord) -> JsonGame<'a> {
        JsonGame {
            file: &r.file,
            game: r.game,
            tags: JsonTags(r),
            comments: &r.comments,
            moves: &r.moves,
            result: r.result,
            result_by_rule: r.result_by_rule,
            termination: r.termination.as_str(),
            final_fen: r.final_fen.as_deref(),
        }
    }
}

/// The tags of a record as a JSON object, sorted by name.
struct JsonTags<'a>(&'a GameRecord<'a>);

impl Serialize for JsonTags<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.tags())
    }
}

/// The CSV columns, one row a main-line ply.
pub const CSV_HEADER: [&str; 18] = [
    "file", "game", "white", "black", "ply", "number", "side", "move", "san", "lan", "uci", "fan",
    "zh", "zh_long", "fen", "clock", "eval", "nags",
];

/// Writes the main-line plies of a game record as CSV rows. Text from the input (the file
/// name, the players) is [neutralised](neutralise) for spreadsheets unless `raw`.
///
/// # Errors
///
/// Errors of the writer.
pub fn write_csv<W: Write>(
    out: &mut csv::Writer<W>,
    record: &GameRecord,
    raw: bool,
) -> csv::Result<()> {
    write_csv_with(out, record, raw, &[])
}

/// [`write_csv`] with the values of `extra` tags as columns after [`CSV_HEADER`]'s (`eco` and
/// `opening` with `--add-eco`).
///
/// # Errors
///
/// Errors of the writer.
pub fn write_csv_with<W: Write>(
    out: &mut csv::Writer<W>,
    record: &GameRecord,
    raw: bool,
    extra: &[&str],
) -> csv::Result<()> {
    let file = input_cell(&record.file, raw);
    let tag = |name: &str| input_cell(record.tag(name).unwrap_or(""), raw);
    let (white, black) = (tag("White"), tag("Black"));
    let extra_cells: Vec<_> = extra.iter().map(|name| tag(name)).collect();
    for (i, m) in record.moves.iter().enumerate() {
        let eval = match m.eval {
            Some(Eval::Pawns(p)) => p.to_string(),
            Some(Eval::Mate(n)) => format!("#{n}"),
            None => String::new(),
        };
        let nags: Vec<String> = m.nags.iter().map(|n| format!("${n}")).collect();
        out.write_record(
            [
                &file,
                record.game.to_string().as_str(),
                &white,
                &black,
                (i + 1).to_string().as_str(),
                m.number.to_string().as_str(),
                m.side,
                &m.written,
                &m.san,
                &m.lan,
                &m.uci,
                &m.fan,
                &m.zh,
                &m.zh_long,
                &m.fen,
                m.clock.map(|c| c.to_string()).unwrap_or_default().as_str(),
                &eval,
                &nags.join(" "),
            ]
            .into_iter()
            .chain(extra_cells.iter().map(|c| &**c)),
        )?;
    }
    Ok(())
}

/// A CSV cell of text from the input: [neutralised](neutralise) unless `raw`.
fn input_cell(text: &str, raw: bool) -> std::borrow::Cow<'_, str> {
    if raw {
        text.into()
    } else {
        neutralise(text)
    }
}

/// Writes the positions of the main line, one EPD a line: each position before a move with
/// the move played (`sm`, in the chosen notation; a null move as `--`, or `0000` in UCI), then
/// the final position. Opcodes `hmvc` and `fmvn` carry the move counters; `id` names the
/// file, game and ply.
///
/// # Errors
///
/// Errors of the writer.
pub fn write_epd(
    out: &mut impl Write,
    file: &str,
    number: u64,
    collector: &Collector,
    final_position: Option<&Chess>,
) -> io::Result<()> {
    // `id` is a quoted string: a quote or backslash in the file name would end it early.
    let file: String = file
        .chars()
        .map(|c| if c == '"' || c == '\\' { '_' } else { c })
        .collect();
    let null_move = match collector.notation {
        Notation::Uci(_) => NULL_UCI,
        _ => NULL_SAN,
    };
    let mut epd = String::with_capacity(96);
    let mut line = |pos: &Chess, played: Option<&str>, ply_no: usize| -> io::Result<()> {
        epd.clear();
        push_epd(pos, &mut epd);
        match played {
            Some(mv) => write!(out, "{epd} sm {mv};")?,
            None => write!(out, "{epd}")?,
        }
        writeln!(
            out,
            " hmvc {}; fmvn {}; id \"{file} game {number} ply {ply_no}\";",
            pos.halfmoves(),
            pos.fullmoves(),
        )
    };
    // Null moves in their place among the moves: both are in token order.
    let mut nulls = collector.nulls.iter().filter(|n| n.depth == 0).peekable();
    let mut ply_no = 0;
    for ply in collector.plies.iter().filter(|p| p.depth == 0) {
        let Some(Around { before, .. }) = ply.positions.as_deref() else {
            continue;
        };
        while let Some(null) = nulls.next_if(|n| n.start < ply.start) {
            line(&null.before, Some(null_move), ply_no)?;
            ply_no += 1;
        }
        line(before, Some(collector.written(ply)), ply_no)?;
        ply_no += 1;
    }
    for null in nulls {
        line(&null.before, Some(null_move), ply_no)?;
        ply_no += 1;
    }
    if let Some(pos) = final_position {
        line(pos, None, ply_no)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_and_eval_are_read_from_comments() {
        assert_eq!(parse_clock("[%eval 0.17] [%clk 1:02:03.5]"), Some(3723.5));
        assert_eq!(parse_clock("[%clk 0:00:09]"), Some(9.0));
        assert_eq!(parse_clock("no clock"), None);
        assert_eq!(parse_clock("[%clk x:00]"), None);
        assert_eq!(parse_eval("[%eval -1.25]"), Some(Eval::Pawns(-1.25)));
        assert_eq!(parse_eval("[%eval #-3]"), Some(Eval::Mate(-3)));
        assert_eq!(parse_eval("[%eval 0.3,22]"), Some(Eval::Pawns(0.3)));
        assert_eq!(parse_eval("[%eval nan]"), None);
    }

    #[test]
    fn decimals_read_as_the_float_parser_reads_them() {
        let mut texts: Vec<String> = ["0", "-0", "+1", "1.", ".5", "-.5", "0.0", "-0.00"]
            .map(String::from)
            .to_vec();
        for whole in [0, 1, 9, 12, 99, 123, 4567] {
            for frac in ["", "1", "17", "05", "999", "123456"] {
                let sep = if frac.is_empty() { "" } else { "." };
                texts.push(format!("{whole}{sep}{frac}"));
                texts.push(format!("-{whole}{sep}{frac}"));
            }
        }
        texts.push("123456789012345".into());
        texts.push("0.12345678901234".into());
        for text in &texts {
            let want: f64 = text.parse().unwrap();
            let got = decimal(text).unwrap_or_else(|| panic!("{text} not read"));
            assert_eq!(got.to_bits(), want.to_bits(), "{text}");
        }
        // Left to the float parser, which reads or refuses them.
        for text in [
            "",
            "-",
            ".",
            "1.2.3",
            "1e5",
            "nan",
            "inf",
            "1234567890123456",
            "0x1",
        ] {
            assert_eq!(decimal(text), None, "{text}");
        }
    }

    #[test]
    fn whole_clocks_read_in_one_pass_as_part_by_part() {
        for (text, want) in [
            ("0:03:00", 180.0),
            ("1:02:03", 3723.0),
            ("9:59:59", 35999.0),
            // Minutes and seconds past 59 are counted as written, by either path.
            ("0:99:99", 6039.0),
            ("10:02:03", 36123.0),
            ("59", 59.0),
            ("2:00", 120.0),
        ] {
            assert_eq!(whole_clock(text), Some(want), "{text}");
            assert_eq!(parse_clock(&format!("[%clk {text}]")), Some(want), "{text}");
        }
        for text in [
            "",
            "1::2",
            ":5",
            "1:2:",
            "0:00:09.5",
            "1234567890:00",
            "0:0a:00",
            "0:00:0 ",
            "x:00:00",
            "0:00-00",
        ] {
            assert_eq!(whole_clock(text), None, "{text}");
        }
        assert_eq!(parse_clock("[%clk 1::2]"), None);
        assert_eq!(
            parse_clock("[%clk 1234567890:00]"),
            Some(1234567890.0 * 60.0)
        );
    }

    /// What `read_notes` gives for `text` after a move by White that has `clock` and `eval`
    /// already.
    fn read(text: &str, clock: Option<f64>, eval: Option<Eval>) -> (Option<f64>, Option<Eval>) {
        let (mut c, mut e) = (clock, eval);
        read_notes(text, true, &mut c, &mut e);
        (c, e)
    }

    #[test]
    fn a_clock_alone_reads_as_the_passes_over_its_commands_read_it() {
        // A space before the comment takes it past the shortcut for a clock alone.
        for text in [
            "[%clk 0:04:58]",
            "[%clk 12]",
            "[%clk 0:]",
            "[%clk :]",
            "[%clk 0:00:09.5]",
            "[%clk 0:01:02][%eval 0.5]",
            "[%clk 0:01:02] [%eval #-3]",
            "[%clk 0:01:0x]",
            "[%clk 1::2]",
            "[%clk 0:01:02]]",
            "[%clk 0:01:02] wv=1.5",
            "[%clk ]",
            "[%clk 1234567890:00]",
        ] {
            for (clock, eval) in [(None, None), (Some(1.0), None), (None, Some(Eval::Mate(2)))] {
                assert_eq!(
                    read(text, clock, eval),
                    read(&format!(" {text}"), clock, eval),
                    "{text}"
                );
            }
        }
        assert_eq!(read("[%clk 0:04:58]", None, None), (Some(298.0), None));
    }

    #[test]
    fn lichess_notes_read_at_once_as_the_passes_over_its_commands_read_them() {
        // (comment, read at once)
        let comments = [
            ("[%clk 0:04:58]", true),
            ("[%eval 0.17] [%clk 0:04:58]", true),
            ("[%eval -1.5] [%clk 1:02:03]", true),
            ("[%eval #-3] [%clk 0:00:09]", true),
            ("[%eval 0.17,24] [%clk 0:04:58]", true),
            ("[%eval 0.17]", false),
            ("[%eval 0.17]  [%clk 0:04:58]", false),
            ("[%eval  0.17] [%clk 0:04:58]", false),
            ("[%eval x] [%clk 0:04:58]", false),
            ("[%eval 0.17] [%clk 0:04:58.5]", false),
            ("[%eval 0.17] [%clk 0:04:58] ok", false),
            ("[%eval [%clk 0:00:01]] [%clk 0:04:58]", false),
            ("[%clk 0:04:58] [%eval 0.17]", false),
        ];
        for (text, at_once) in comments {
            let fast = lichess_notes(text);
            assert_eq!(fast.is_some(), at_once, "{text}");
            let Some((secs, eval)) = fast else { continue };
            // A ply with no clock yet: with no evaluation, and with one.
            assert_eq!(read(text, None, None), (Some(secs), eval), "{text}");
            let mate = Some(Eval::Mate(2));
            assert_eq!(read(text, None, mate), (Some(secs), mate), "{text}");
        }
    }

    #[test]
    fn commands_wrapped_over_a_line_break_are_read() {
        assert_eq!(parse_clock("[%eval 0.2]\n[%clk\n0:03:00]"), Some(180.0));
        assert_eq!(parse_clock("[%clk\r\n0:00:\n09]"), Some(9.0));
        assert_eq!(parse_eval("[%eval\n-1.25]"), Some(Eval::Pawns(-1.25)));
        assert_eq!(parse_eval("[%eval 0.3,\n22]"), Some(Eval::Pawns(0.3)));
        // A name that only begins the same is another command.
        assert_eq!(parse_clock("[%clkx 0:00:01] [%clk 0:00:02]"), Some(2.0));
        assert_eq!(parse_clock("[%clk"), None);
    }

    #[test]
    fn a_comment_gives_only_what_its_move_still_lacks() {
        let both = "[%eval 0.17] [%clk 0:03:00]";
        assert_eq!(
            read(both, None, None),
            (Some(180.0), Some(Eval::Pawns(0.17)))
        );
        // An earlier comment's clock or evaluation is kept.
        assert_eq!(
            read(both, Some(5.0), None),
            (Some(5.0), Some(Eval::Pawns(0.17)))
        );
        assert_eq!(
            read(both, None, Some(Eval::Mate(2))),
            (Some(180.0), Some(Eval::Mate(2)))
        );
        // A clock left open gives none, and the evaluation after it is still read.
        assert_eq!(
            read("[%clk 0:03 [%eval -1]", None, None),
            (None, Some(Eval::Pawns(-1.0)))
        );
        // The first of each name counts, even when it does not read.
        assert_eq!(read("[%clk x] [%clk 0:00:09]", None, None), (None, None));
        // An unreadable `[%eval]` leaves the engine matches' forms to look for.
        assert_eq!(
            read("d=9, wv=0.5, [%eval nan]", None, None),
            (None, Some(Eval::Pawns(0.5)))
        );
        // Past 64 bytes the search is memchr's: the same answers.
        let long = format!("{} [%clk 0:00:07] wv=1.25", "word ".repeat(20));
        assert_eq!(
            read(&long, None, None),
            (Some(7.0), Some(Eval::Pawns(1.25)))
        );
    }

    #[test]
    fn engine_match_evaluations_are_read_from_white_s_view() {
        // cutechess-cli: the mover's score; mates in plies from before the move.
        assert_eq!(
            parse_any_eval("+0.35/20 1.2s", true),
            Some(Eval::Pawns(0.35))
        );
        assert_eq!(
            parse_any_eval("+0.35/20 1.2s", false),
            Some(Eval::Pawns(-0.35))
        );
        assert_eq!(parse_any_eval("0.00/31 48s", false), Some(Eval::Pawns(0.0)));
        assert_eq!(parse_any_eval("-M8/8 0.001s", false), Some(Eval::Mate(4)));
        assert_eq!(parse_any_eval("+M3/127 0.002s", true), Some(Eval::Mate(1)));
        assert_eq!(
            parse_any_eval("+M1/127 0.003s, Black mates", false),
            Some(Eval::Mate(0))
        );
        // TCEC: White's view whoever moved.
        let tcec = "d=34, sd=72, mt=35658, pv=e5 Ng8, tb=null, wv=0.88, R50=50";
        // The first pair of that name, after a comma or any whitespace.
        assert_eq!(
            parse_any_eval("awv=1.5,\u{a0}wv=0.25 wv=9.0", true),
            Some(Eval::Pawns(0.25))
        );
        assert_eq!(parse_any_eval(tcec, false), Some(Eval::Pawns(0.88)));
        assert_eq!(
            parse_any_eval("d=9, wv=-M7, R50=50", true),
            Some(Eval::Mate(-3))
        );
        // [%eval] comes first; words and fractions are not evaluations.
        assert_eq!(
            parse_any_eval("+1.0/5 [%eval -0.5]", true),
            Some(Eval::Pawns(-0.5))
        );
        for text in [
            "book",
            "1/2 of the point",
            "a/b",
            "+0.35/ 1s",
            "wv=",
            "wv=M",
            "0x1.0/2",
            "xwv=0.5",
            "d=3 wv=wv=1.0",
        ] {
            assert_eq!(parse_any_eval(text, true), None, "{text:?}");
        }
    }
}
