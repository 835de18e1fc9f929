//! Writing converted games as text: PGN in export layout (Seven Tag Roster first, movetext in
//! lines of at most 80 columns) and the Chinese book layout (header line, numbered moves).

use std::borrow::Cow;
use std::fmt::Write as _;

use shakmaty::Position;

use super::{comment_element, number_prefix, span_text, Collector, Element, Keep, Recorded};
use crate::pgn::{book, lex_game, GameResult, LexProblemKind, Lexed};

/// The Seven Tag Roster, in its order, with the value written when the tag is missing.
const ROSTER: [(&str, &str); 7] = [
    ("Event", "?"),
    ("Site", "?"),
    ("Date", "????.??.??"),
    ("Round", "?"),
    ("White", "?"),
    ("Black", "?"),
    ("Result", "*"),
];

/// Longest movetext line, in display columns (a CJK character takes two).
pub const LINE_WIDTH: usize = 80;

/// Appends the tag section: the Seven Tag Roster in order (missing tags filled in), then the
/// other tags as read. `result` is the `Result` value to write.
pub fn write_tags(lexed: &Lexed, result: GameResult, fix_result: bool, out: &mut String) {
    write_tags_with(lexed, result, fix_result, &[], out);
}

/// [`write_tags`] with tags `set` (name, value): one the game has takes the value given in
/// its place, one it has not is written after the others (`--add-eco`).
pub fn write_tags_with(
    lexed: &Lexed,
    result: GameResult,
    fix_result: bool,
    set: &[(&str, &str)],
    out: &mut String,
) {
    write_tags_kept(
        lexed,
        result,
        fix_result,
        set,
        |_| true,
        TagOrder::AsRead,
        out,
    );
}

/// How the tags after the Seven Tag Roster are ordered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TagOrder<'a> {
    /// As read, the tags set but not read after them (pgnkit's layout).
    #[default]
    AsRead,
    /// As read, but `SetUp` right before `FEN`: PGN's export format (§8.1.1), as pgn-extract
    /// writes it.
    Export,
    /// These tags first, in this order (a roster tag among them takes its place here), then
    /// the roster's others, then the rest as read (`--tag-order`, pgn-extract's `-R`).
    Listed(&'a [String]),
}

/// [`write_tags_with`] with the tags beyond the Seven Tag Roster that `keep` refuses left out
/// (`--keep-tags`, `--seven-tag-roster`), in `order`.
pub fn write_tags_kept(
    lexed: &Lexed,
    result: GameResult,
    fix_result: bool,
    set: &[(&str, &str)],
    keep: impl Fn(&str) -> bool,
    order: TagOrder<'_>,
    out: &mut String,
) {
    let set_value = |name: &str| set.iter().find(|(n, _)| *n == name).map(|(_, v)| *v);
    let roster_value = |name: &str, default: &'static str| {
        if name == "Result" && (fix_result || lexed.tag("Result").is_none()) {
            result.as_str()
        } else {
            lexed.tag(name).unwrap_or(default)
        }
    };
    let listed: &[String] = match order {
        TagOrder::Listed(list) => list,
        _ => &[],
    };
    let mut roster_written = [false; 7];
    for name in listed {
        if let Some(i) = ROSTER.iter().position(|(n, _)| n == name) {
            if !roster_written[i] {
                roster_written[i] = true;
                tag(name, roster_value(name, ROSTER[i].1), out);
            }
        } else if let Some(value) = set_value(name).or_else(|| lexed.tag(name)) {
            if keep(name) {
                tag(name, value, out);
            }
        }
    }
    for (i, (name, default)) in ROSTER.into_iter().enumerate() {
        if !roster_written[i] {
            tag(name, roster_value(name, default), out);
        }
    }
    // SetUp goes right before FEN in export order, when the game has both.
    let setup_moves = order == TagOrder::Export
        && set_value("FEN").or_else(|| lexed.tag("FEN")).is_some()
        && set_value("SetUp").or_else(|| lexed.tag("SetUp")).is_some()
        && keep("SetUp");
    let write = |name: &str, value: &str, out: &mut String| {
        if listed.iter().any(|l| l == name) || (setup_moves && name == "SetUp") {
            return;
        }
        if setup_moves && name == "FEN" {
            let setup = set_value("SetUp").or_else(|| lexed.tag("SetUp"));
            tag("SetUp", setup.unwrap_or("1"), out);
        }
        tag(name, value, out);
    };
    let mut seen_roster = [false; 7];
    for t in lexed.tags() {
        match ROSTER.iter().position(|(n, _)| *n == t.name) {
            // Only the first of duplicated roster tags was written above.
            Some(i) if !seen_roster[i] => seen_roster[i] = true,
            _ if !keep(t.name) => {}
            _ => write(t.name, set_value(t.name).unwrap_or(t.value), out),
        }
    }
    for (name, value) in set {
        if lexed.tag(name).is_none() && keep(name) {
            write(name, value, out);
        }
    }
}

fn tag(name: &str, value: &str, out: &mut String) {
    out.push('[');
    out.push_str(name);
    out.push_str(" \"");
    crate::pgn::quote_tag_value(value, |piece| out.push_str(piece));
    out.push_str("\"]\n");
}

/// Fills lines with words up to [`LINE_WIDTH`] columns.
///
/// The words of a line are written one after the other, a space between two, and the line is
/// broken when it ends (at a `;` comment, which ends its line, and at the end of the
/// movetext): a space becomes a line break before each word that does not fit. So a word is
/// written once, where it stays, a `)` joins the word before it and a `(` the word after it
/// as they are written, and the breaks are found a line at a time, by looking back from its
/// last column, rather than decided word by word (moves, numbers and clock comments are short
/// words, several to a line).
struct Lines<'a> {
    out: &'a mut String,
    /// Where the line being filled starts in `out`.
    line: usize,
    /// A word was written last on this line: a `)` joins it.
    held: bool,
    prefix: String,
    /// Lines are broken at [`LINE_WIDTH`] columns; otherwise only a `;` comment ends one.
    wrapped: bool,
}

impl Lines<'_> {
    fn new(out: &mut String, wrapped: bool) -> Lines<'_> {
        Lines {
            line: out.len(),
            out,
            held: false,
            prefix: String::new(),
            wrapped,
        }
    }

    fn word(&mut self, w: &str) {
        if w.is_empty() && self.prefix.is_empty() {
            // Nothing is written, but a `)` after it is a word of its own.
            self.held = false;
            return;
        }
        self.begin();
        self.out.push_str(w);
    }

    /// Starts a word: what is pushed to `out` next is its text, after the prefix.
    #[inline]
    fn begin(&mut self) {
        if self.out.len() > self.line {
            self.out.push(' ');
        }
        self.held = true;
        if !self.prefix.is_empty() {
            self.out.push_str(&self.prefix);
            self.prefix.clear();
        }
    }

    /// A `;` comment: it runs to the end of the line, so a line break follows it. Used for
    /// comment text that holds a `}` (possible only from a `;` comment in the input), which a
    /// brace comment could not.
    fn line_comment(&mut self, text: &str) {
        self.wrap();
        if self.out.len() > self.line {
            self.out.push(' ');
        }
        self.out.push_str(&self.prefix);
        self.prefix.clear();
        self.out.push(';');
        self.out.push_str(text.trim_end());
        self.out.push('\n');
        self.line = self.out.len();
        self.held = false;
    }

    fn open(&mut self) {
        self.prefix.push('(');
    }

    fn close(&mut self) {
        if !self.prefix.is_empty() {
            self.prefix.push(')');
        } else if self.held {
            self.out.push(')');
        } else {
            self.word(")");
        }
    }

    /// Breaks the line being filled into lines that fit; the last of them is filled on.
    fn wrap(&mut self) {
        if !self.wrapped {
            return;
        }
        let mut line = self.line;
        while let Some(at) = line_break(&self.out[line..]) {
            let at = line + at;
            self.out.replace_range(at..=at, "\n");
            line = at + 1;
        }
        self.line = line;
    }
}

/// Where the first line break of a line of words goes: the index of the space before the
/// first word that ends past [`LINE_WIDTH`] columns or, when that word cannot start a line,
/// before the first word after it that can (the line is over-long by then, so none fits).
/// `None` when the whole line fits, or no word left can start a line.
fn line_break(line: &str) -> Option<usize> {
    let bytes = line.as_bytes();
    // A character is never wider than its bytes are long.
    if bytes.len() <= LINE_WIDTH {
        return None;
    }
    // In ASCII, a column a byte: the last space within the first LINE_WIDTH + 1 bytes ends
    // the words that fit (one at index LINE_WIDTH ends a full line), and the word after it
    // does not fit. With no such space, the first word alone is over-long.
    let last = memchr::memrchr(b' ', &bytes[..=LINE_WIDTH]);
    let after = last.map_or(0, |s| s + 1);
    let end = memchr::memchr(b' ', &bytes[after..]).map_or(bytes.len(), |i| after + i);
    let over = if bytes[..end].is_ascii() {
        match last {
            Some(s) => s,
            None if end < bytes.len() => end,
            None => return None,
        }
    } else {
        first_over(line)?
    };
    let mut at = over;
    loop {
        let next = &bytes[at + 1..];
        // A word that could read, at the start of a line, as a tag pair (the start of the next
        // game: `[Name`) or as a `%` escape line stays on this line, however long. `[%clk` is
        // neither.
        let breaks_meaning = next.first() == Some(&b'%')
            || (next.first() == Some(&b'[') && next.get(1).is_some_and(u8::is_ascii_alphabetic));
        if !breaks_meaning {
            return Some(at);
        }
        at += 1 + memchr::memchr(b' ', next)?;
    }
}

/// The space before the first word of `line` that ends past [`LINE_WIDTH`] columns, measured
/// a word at a time (a CJK character takes two columns).
fn first_over(line: &str) -> Option<usize> {
    let mut col = 0;
    let mut start = 0;
    loop {
        let end = memchr::memchr(b' ', &line.as_bytes()[start..]).map_or(line.len(), |i| start + i);
        let width = display_width(&line[start..end]);
        if start == 0 {
            col = width;
        } else if col + 1 + width > LINE_WIDTH {
            return Some(start - 1);
        } else {
            col += 1 + width;
        }
        if end == line.len() {
            return None;
        }
        start = end + 1;
    }
}

pub use crate::report::display_width;

/// How the movetext looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// PGN export: NAGs as `$n`, lines of at most [`LINE_WIDTH`] columns.
    Pgn,
    /// PGN export's words on one line and no line break after the result, as a table's
    /// column holds a movetext (lichess's Parquet `movetext`): a line break inside a value
    /// would fall between any two words and split what a query looks for. Only a `;`
    /// comment, which runs to the end of its line, is followed by one.
    Line,
    /// Chinese book layout: the common NAGs as `!`, `?`, `!!`, `??`, `!?`, `?!`.
    Book,
}

/// A brace comment: its words parted by one space, the braces glued to the first and last.
/// Words are parted by ASCII whitespace only, where a line may break: a no-break space, an em
/// space or an ideographic space (U+3000, Chinese text's indent) is a character of the text and
/// is kept as written. One whose words are parted by one space already, as a clock comment a
/// ply is, is copied whole.
fn brace_comment(text: &str, lines: &mut Lines<'_>) {
    let words = super::trim(text);
    if words.is_empty() {
        lines.word("{}");
        return;
    }
    lines.begin();
    lines.out.push('{');
    match spacing(words.as_bytes()) {
        Spacing::Single => lines.out.push_str(words),
        Spacing::Ascii => join(words.split_ascii_whitespace(), lines.out),
        Spacing::Other => join(comment_words(words), lines.out),
    }
    lines.out.push('}');
}

/// How the words of a comment (trimmed) are parted.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Spacing {
    /// By one space each, and it is ASCII.
    Single,
    /// By ASCII whitespace other than a vertical tab.
    Ascii,
    /// It holds a vertical tab, which parts words (as it does to `char::is_whitespace`) but
    /// not to `u8::is_ascii_whitespace`: [`comment_words`].
    Other,
}

/// The words of a brace comment: the runs between ASCII whitespace and vertical tabs. Other
/// Unicode spaces belong to the words (see [`brace_comment`]).
pub(super) fn comment_words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| c.is_ascii_whitespace() || c == '\x0b')
        .filter(|w| !w.is_empty())
}

/// [`Spacing`] of trimmed comment text, in one pass over its bytes.
fn spacing(words: &[u8]) -> Spacing {
    let (mut single, mut space) = (true, false);
    for &b in words {
        if b.is_ascii_whitespace() {
            single &= b == b' ' && !space;
            space = true;
        } else if b == 0x0b {
            return Spacing::Other;
        } else {
            space = false;
        }
    }
    if single {
        Spacing::Single
    } else {
        Spacing::Ascii
    }
}

fn join<'t>(words: impl Iterator<Item = &'t str>, out: &mut String) {
    for (i, w) in words.enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(w);
    }
}

/// Appends the movetext: moves with numbers (`1.e4 e5`, `1...e5` after a comment, a variation
/// or at the start of a line of play), comments, NAGs, variations, repair notes, and the
/// result, in lines of at most [`LINE_WIDTH`] columns and a line break after the result, or
/// on one line ([`Layout::Line`]).
pub fn write_movetext(
    elements: &[Element],
    collector: &Collector,
    result: GameResult,
    layout: Layout,
    out: &mut String,
) {
    let mut movetext = MovetextWriter::new(out, layout);
    for el in elements {
        movetext.element(el, collector);
    }
    movetext.finish(result);
}

/// Appends the movetext of a game whose main line was told at once
/// ([`Collector::main_line_only`]): its moves in SAN as the collector kept them, with the main
/// line's comments and NAGs, as [`write_movetext`] writes the same game's elements (a game with
/// more than that is replayed with every move told). Returns whether some comment's bytes were
/// not UTF-8 and were written with U+FFFD in their place.
pub(crate) fn write_main_line(
    bytes: &[u8],
    collector: &Collector,
    keep: Keep,
    result: GameResult,
    layout: Layout,
    out: &mut String,
) -> bool {
    let text = span_text(bytes);
    let mut replaced = false;
    let mut movetext = MovetextWriter::new(out, layout);
    let mut note = |movetext: &mut MovetextWriter<'_>, note: &Recorded| match *note {
        Recorded::Comment { start, end } if !keep.no_comments => {
            if let Element::Comment(comment) = comment_element(&text, start, end) {
                replaced |= matches!(comment, Cow::Owned(_));
                movetext.comment(&comment);
            }
        }
        Recorded::Nag(n) if !keep.no_nags => movetext.element(&Element::Nag(n), collector),
        _ => {}
    };
    let mut notes = collector.main_notes.iter().peekable();
    // (A game told no start has no moves: its start position was not read.)
    let start = collector.start_pos.as_ref();
    let mut number = start.map_or(1, |p| p.fullmoves().get());
    let mut white = start.is_none_or(|p| p.turn().is_white());
    let mut made = collector.made_ends.iter();
    let mut from = 0;
    for (i, &written) in collector.main_san.iter().enumerate() {
        // The notes after the moves before this one.
        while let Some((_, n)) = notes.next_if(|(plies, _)| *plies as usize <= i) {
            note(&mut movetext, n);
        }
        match written {
            // The move's token, which is its SAN.
            Some((start, end)) => movetext.ply(number, white, &text(start, end)),
            None => {
                let end = made.next().copied().unwrap_or(from);
                movetext.ply(
                    number,
                    white,
                    collector.text.get(from..end).unwrap_or_default(),
                );
                from = end;
            }
        }
        number += u32::from(!white);
        white = !white;
    }
    for (_, n) in notes {
        note(&mut movetext, n);
    }
    movetext.finish(result);
    replaced
}

/// The one writer of movetext, told its pieces in order: by [`write_movetext`] from the
/// elements of a game whose every move was told, by [`write_main_line`] from a main line told
/// at once.
struct MovetextWriter<'a> {
    lines: Lines<'a>,
    layout: Layout,
    /// A Black move needs its number at the start of a line of play and after a comment,
    /// a variation or a note.
    need_number: bool,
    word: String,
}

impl<'a> MovetextWriter<'a> {
    fn new(out: &'a mut String, layout: Layout) -> Self {
        MovetextWriter {
            lines: Lines::new(out, layout != Layout::Line),
            layout,
            need_number: true,
            word: String::new(),
        }
    }

    /// A move, its number and its text in the notation written. Inline: a call of its own
    /// cost a move as much as its number.
    #[inline(always)]
    fn ply(&mut self, number: u32, white: bool, text: &str) {
        self.lines.begin();
        if white || self.need_number {
            number_prefix(number, white, self.lines.out);
        }
        self.lines.out.push_str(text);
        self.need_number = false;
    }

    fn element(&mut self, el: &Element, collector: &Collector) {
        let lines = &mut self.lines;
        match el {
            Element::Move(i) => {
                let ply = &collector.plies[*i];
                self.ply(ply.number, ply.white, collector.written(ply));
                if let Some(from) = &ply.repaired_from {
                    let word = &mut self.word;
                    word.clear();
                    word.push('{');
                    number_prefix(ply.number, ply.white, word);
                    let _ = write!(word, "{from} read as {}}}", collector.written(ply));
                    for w in word.split(' ') {
                        self.lines.word(w);
                    }
                    self.need_number = true;
                }
            }
            Element::Null(_) => {
                // `--` in every notation: UCI's `0000` would be lexed as a move number.
                let null = "--";
                lines.word(null);
                self.need_number = true;
            }
            Element::Comment(text) => self.comment(text),
            Element::Nag(n) => {
                let word = &mut self.word;
                word.clear();
                match (self.layout, glyph(*n)) {
                    (Layout::Book, Some(g)) => word.push_str(g),
                    _ => {
                        let _ = write!(word, "${n}");
                    }
                }
                lines.word(word);
            }
            Element::VariationStart => {
                lines.open();
                self.need_number = true;
            }
            Element::VariationEnd => {
                lines.close();
                self.need_number = true;
            }
            Element::Raw(text) => {
                lines.word(text);
                self.need_number = true;
            }
        }
    }

    /// A comment's text, without its braces (or `;`): a brace comment, or a `;` comment when
    /// it holds a `}`, which only a `;` comment can. Inline: a lichess game has one a ply.
    #[inline(always)]
    fn comment(&mut self, text: &str) {
        // memchr's search: `str::contains` costs more than the search on a comment of a few
        // bytes (a clock), and every ply of a lichess game has one.
        if memchr::memchr(b'}', text.as_bytes()).is_some() {
            self.lines.line_comment(text);
        } else {
            brace_comment(text, &mut self.lines);
            self.need_number = true;
        }
    }

    /// The result, and the line break after it when lines are wrapped.
    fn finish(mut self, result: GameResult) {
        let lines = &mut self.lines;
        lines.word(result.as_str());
        if lines.wrapped {
            lines.wrap();
            lines.out.push('\n');
        }
    }
}

/// The suffix glyph of the six common NAGs.
fn glyph(nag: u16) -> Option<&'static str> {
    Some(match nag {
        1 => "!",
        2 => "?",
        3 => "!!",
        4 => "??",
        5 => "!?",
        6 => "?!",
        _ => return None,
    })
}

/// Appends the header of the Chinese book layout: one line `白方:…　黑方:…　1981年5月1日于…　Event`
/// whose fields stand apart by U+3000 (names hold spaces, digits and dots: `M4sseur 1.0`), read
/// back by [`book::read_header_line`]. When the line would not read back to the same tags (a
/// name holding a result such as `1-0`, a `{`, a `(` left open, a U+3000 or a side marker; a
/// date not in PGN's form) or the game starts from a set-up position, which the header cannot
/// hold, the tags go above the moves as PGN tag pairs instead (the Seven Tag Roster and the
/// set-up tags): pgnkit reads those too.
pub fn write_book_header(lexed: &Lexed, out: &mut String) {
    const SEP: char = book::SEPARATOR;
    let known = |tag: &str| lexed.tag(tag).filter(|v| !v.is_empty() && *v != "?");
    let name = |tag: &str| lexed.tag(tag).filter(|v| !v.is_empty()).unwrap_or("?");
    let mut line = String::new();
    let mut want = vec![("White", name("White")), ("Black", name("Black"))];
    let _ = write!(line, "白方:{}{SEP}黑方:{}", name("White"), name("Black"));
    let date = lexed.tag("Date").unwrap_or("");
    let mut parts = date.split('.');
    let mut dated = false;
    if let Some(year) = parts.next().and_then(|y| y.parse::<u32>().ok()) {
        let _ = write!(line, "{SEP}{year}年");
        let month = parts.next().and_then(|m| m.parse::<u32>().ok());
        let day = parts.next().and_then(|d| d.parse::<u32>().ok());
        if let Some(m) = month {
            let _ = write!(line, "{m}月");
            if let Some(d) = day {
                let _ = write!(line, "{d}日");
            }
        }
        want.push(("Date", date));
        dated = true;
    }
    if let Some(site) = known("Site") {
        if !dated {
            line.push(SEP);
        }
        let _ = write!(line, "于{site}");
        want.push(("Site", site));
    }
    if let Some(event) = known("Event") {
        let _ = write!(line, "{SEP}{event}");
        want.push(("Event", event));
    }
    let set_up = ["FEN", "SetUp", "Variant"]
        .iter()
        .any(|t| lexed.tag(t).is_some());
    if !set_up && reads_back(&line, &want) {
        out.push_str(&line);
        out.push('\n');
        return;
    }
    // The whole Seven Tag Roster, so that the game reads back without a missing tag (T001).
    for name in [
        "Event", "Site", "Date", "Round", "White", "Black", "Result", "SetUp", "FEN", "Variant",
    ] {
        if let Some(value) = lexed.tag(name) {
            tag(name, value, out);
        }
    }
    out.push('\n');
}

/// Whether a header line reads back to these tags, and the lexer finds nothing in it that ends
/// a game or runs past the line (a result, an open `{` or `(`).
fn reads_back(line: &str, want: &[(&str, &str)]) -> bool {
    // A line break in a name would end the header early; no control character belongs there.
    if line.chars().any(char::is_control) {
        return false;
    }
    let Some((fields, len)) = book::read_header_line(line) else {
        return false;
    };
    let same = len == line.len()
        && fields.len() == want.len()
        && fields
            .iter()
            .zip(want)
            .all(|(f, (tag, value))| f.tag == *tag && f.value == *value);
    if !same {
        return false;
    }
    let text = format!("{line}\n");
    let mut lexed = Lexed::default();
    lex_game(text.as_bytes(), true, 1, &mut lexed);
    !lexed.has_result
        && lexed.tag_count() == 0
        && lexed.problems.iter().all(|p| {
            matches!(
                p.kind,
                LexProblemKind::MissingResult
                    | LexProblemKind::UnmatchedVariationEnd
                    | LexProblemKind::TagInMovetext
                    | LexProblemKind::BadNag
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn::Span;

    /// The line filler as it was before words went straight to the output (a held `String`,
    /// each comment word copied twice): what [`Lines`] must write, byte for byte. `width` is
    /// [`LINE_WIDTH`], or `usize::MAX` for lines that are not broken.
    struct Reference {
        out: String,
        col: usize,
        held: String,
        prefix: String,
        width: usize,
    }

    impl Reference {
        fn word(&mut self, w: &str) {
            self.flush();
            self.held.push_str(&self.prefix);
            self.held.push_str(w);
            self.prefix.clear();
        }

        fn line_comment(&mut self, text: &str) {
            self.flush();
            if self.col > 0 {
                self.out.push(' ');
            }
            self.out.push_str(&self.prefix);
            self.prefix.clear();
            self.out.push(';');
            self.out.push_str(text.trim_end());
            self.out.push('\n');
            self.col = 0;
        }

        fn close(&mut self) {
            if self.prefix.is_empty() {
                self.held.push(')');
            } else {
                self.prefix.push(')');
            }
        }

        fn comment(&mut self, text: &str) {
            // Trimmed as jsonl's comment is (`str::trim`); inside, Unicode spaces are text.
            let words: Vec<&str> = comment_words(crate::convert::trim(text)).collect();
            if words.is_empty() {
                self.word("{}");
            }
            for (i, w) in words.iter().enumerate() {
                let mut word = String::new();
                if i == 0 {
                    word.push('{');
                }
                word.push_str(w);
                if i + 1 == words.len() {
                    word.push('}');
                }
                self.word(&word);
            }
        }

        fn flush(&mut self) {
            if self.held.is_empty() {
                return;
            }
            let width = display_width(&self.held);
            if self.col > 0 {
                let held = self.held.as_bytes();
                let breaks_meaning = held.first() == Some(&b'%')
                    || (held.first() == Some(&b'[')
                        && held.get(1).is_some_and(u8::is_ascii_alphabetic));
                if self.col + 1 + width > self.width && !breaks_meaning {
                    self.out.push('\n');
                    self.col = 0;
                } else {
                    self.out.push(' ');
                    self.col += 1;
                }
            }
            self.out.push_str(&self.held);
            self.col += width;
            self.held.clear();
        }
    }

    #[test]
    fn lines_write_what_the_held_word_filler_wrote() {
        // Words, comments (ASCII with every kind of whitespace, and not), variations opened and
        // closed at a line's edge, empty words and `;` comments, in a long pseudo-random
        // sequence: every line break decision of the reference is met, and unbroken lines
        // end only after a `;` comment.
        let words = [
            "1.e4",
            "e5",
            "2...Nf6",
            "Qxf7#",
            "象c4×f7+",
            "",
            "$14",
            "1-0",
            "%x",
            "[Event",
            "[%clk",
            "Nbd7!?",
            "一二三四五六七八九十一二三四五",
            // Longer than a line in bytes but not in columns, and longer than a line.
            "éééééééééééééééééééééééééééééééééééééééééééééééééééé",
            "0123456789012345678901234567890123456789012345678901234567890123456789012345678901234",
        ];
        let comments = [
            "[%clk 0:03:00]",
            "  d=21,   sd=40  mt=1000\ttl=50 wv=0.32\r\n pv=e4",
            "",
            "   ",
            "a\x0Cb  c",
            "a very long comment that runs past the line's edge by itself alone, with no break in it, none at all",
            "gagné  après\u{3000}la partie",
            "\u{a0}a\u{a0}b\u{2003} c",
            "%escape [Name word",
            "a\x0Bb \x0B",
            "\x0B",
        ];
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            usize::try_from(seed % n as u64).unwrap_or(0)
        };
        for i in 0..4000 {
            // Every other sequence on one line (`Layout::Line`).
            let wrapped = i % 2 == 0;
            let mut out = String::new();
            let mut reference = Reference {
                out: String::new(),
                col: 0,
                held: String::new(),
                prefix: String::new(),
                width: if wrapped { LINE_WIDTH } else { usize::MAX },
            };
            let mut lines = Lines::new(&mut out, wrapped);
            for _ in 0..60 {
                match next(10) {
                    0..=3 => {
                        let w = words[next(words.len())];
                        lines.word(w);
                        reference.word(w);
                    }
                    4 | 5 => {
                        let c = comments[next(comments.len())];
                        brace_comment(c, &mut lines);
                        reference.comment(c);
                    }
                    6 => {
                        lines.open();
                        reference.prefix.push('(');
                    }
                    7 | 8 => {
                        lines.close();
                        reference.close();
                    }
                    _ => {
                        lines.line_comment(" a }  ");
                        reference.line_comment(" a }  ");
                    }
                }
            }
            lines.wrap();
            reference.flush();
            assert_eq!(out, reference.out);
            if !wrapped {
                let mut ended = out.split_inclusive('\n').filter(|l| l.ends_with('\n'));
                assert!(ended.all(|l| l.ends_with("; a }\n")), "{out}");
            }
        }
    }

    #[test]
    fn a_comment_keeps_its_unicode_spaces() {
        // A no-break, em or ideographic space is text, not a place to break a line: it was
        // turned into an ASCII space (while `--format jsonl` kept it).
        for space in ["\u{a0}", "\u{2003}", "\u{3000}"] {
            let text = format!(" a{space}b \t c{space}d\x0be ");
            let mut out = String::new();
            let mut lines = Lines::new(&mut out, true);
            brace_comment(&text, &mut lines);
            lines.wrap();
            assert_eq!(out, format!("{{a{space}b c{space}d e}}"), "{space:?}");
        }
    }

    fn header(tags: &[(&str, &str)]) -> String {
        let mut lexed = Lexed::default();
        for (name, value) in tags {
            lexed.push_tag(name, value, Span::default(), false);
        }
        let mut out = String::new();
        write_book_header(&lexed, &mut out);
        out
    }

    #[test]
    fn a_tag_value_is_escaped_in_stretches() {
        let cases = [
            ("Carlsen, Magnus", "Carlsen, Magnus"),
            ("", ""),
            ("\"", "\\\""),
            ("a\\b", "a\\\\b"),
            ("say \"hi\"\r\nthen", "say \\\"hi\\\"  then"),
            (
                "Grünfeld \"Élodie\" 丁立人\\",
                "Grünfeld \\\"Élodie\\\" 丁立人\\\\",
            ),
        ];
        for (value, written) in cases {
            let mut out = String::new();
            tag("Event", value, &mut out);
            assert_eq!(out, format!("[Event \"{written}\"]\n"), "{value:?}");
        }
    }

    #[test]
    fn book_header_keeps_names_as_they_are() {
        assert_eq!(
            header(&[
                ("White", "Ding Liren"),
                ("Date", "2023.04.??"),
                ("Site", "Astana")
            ]),
            "白方:Ding Liren\u{3000}黑方:?\u{3000}2023年4月于Astana\n"
        );
    }

    #[test]
    fn tags_that_a_header_line_cannot_hold_become_tag_pairs() {
        // A result, `{` or `(` in a name is read back from the header line (the lexer reads
        // a `白方:` line whole), so those stay there.
        for white in ["Team 1-0", "{x", "A (B"] {
            let out = header(&[("White", white), ("Black", "B")]);
            assert!(out.starts_with("白方:"), "{white:?}: {out}");
        }
        for white in ["A\u{3000}", "A 黑方:B", "A\nB", "x 1999年"] {
            let out = header(&[("White", white), ("Black", "B")]);
            assert!(out.starts_with("[White \""), "{white:?}: {out}");
        }
        let out = header(&[("White", "A"), ("Date", "2023.4.5")]);
        assert!(out.starts_with("[Date \"2023.4.5\"]"), "{out}");
        let out = header(&[
            ("White", "A"),
            ("SetUp", "1"),
            ("FEN", "8/8/8/8/8/8/8/K1k5 w - - 0 1"),
        ]);
        assert!(out.contains("[FEN \""), "{out}");
    }
}
