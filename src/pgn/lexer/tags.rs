//! Tag pairs in the lexer: the lexer's reading of a tag (escapes, repeated names, a tag
//! pasted into the movetext, a forum's `[pgn]` wrapper), with the common tag lines read a
//! section at a time.

use std::collections::HashSet;

use memchr::{memchr, memchr2, memchr3};

use super::{is_bare_cr, is_space, LexProblem, LexProblemKind, Lexer, Span, Token, TokenKind};

/// Longest line a tag pair is looked for in: a line without a break within this many bytes
/// of a `[` (a file of games on one line) is read as if it broke there, so that a tag never
/// needs the end of a line that may be the whole file.
const TAG_LINE_MAX: usize = 64 << 10;

/// One search for a tag's line end ([`Lexer::tag_line_end`]): the bytes `from..to` were
/// searched, and `found` is their first line break.
#[derive(Clone, Copy)]
pub(super) struct LineSearch {
    from: usize,
    to: usize,
    found: Option<usize>,
}

/// Longest tag pair read as one token in the movetext (where it is out of place); a longer
/// one is read as the `[` and what follows.
pub(super) const PASTED_TAG_MAX: usize = 1024;

impl Lexer<'_> {
    /// Reads the tag at `self.i` and the tags on the lines after it while each line is
    /// exactly one [`SimpleTag`] ending in its line break: the common tag section, read
    /// with one pass over each line and one UTF-8 check for them all. Stops before the
    /// first other line, and leaves the line break after the last tag to the lexer, so
    /// the tokens and the lexer's state are those of reading the tags one at a time.
    /// False, with nothing read, when the first line is not such a line.
    pub(super) fn tag_lines(&mut self) -> bool {
        #[cfg(test)]
        if tests::ONE_TAG_AT_A_TIME.with(std::cell::Cell::get) {
            return false;
        }
        let first = self.i;
        let data = self.data;
        // Where each tag's parts are, found first, so that one UTF-8 check covers them all.
        let mut parts = std::mem::take(&mut self.out.tag_parts);
        parts.clear();
        let mut end = first;
        while data.get(end) == Some(&b'[') {
            let rest = &data[end..];
            let Some(tag) = common_tag_line(rest).or_else(|| spaced_tag_line(rest)) else {
                break;
            };
            // A line cut by the end of the bytes is for the one-tag reading.
            if rest.get(tag.line_end) != Some(&b'\n') {
                break;
            }
            let offsets = [
                0,
                tag.name.start,
                tag.name.end,
                tag.value,
                tag.quote,
                tag.end,
            ];
            parts.push(offsets.map(|x| (end + x) as u32));
            end += tag.line_end + 1;
        }
        // Only the lines before an invalid UTF-8 byte: the one-tag reading reports it.
        let text = match std::str::from_utf8(&data[first..end]) {
            Ok(text) => text,
            Err(e) => {
                let valid = first + e.valid_up_to();
                let whole = parts.partition_point(|p| p[5] as usize <= valid);
                parts.truncate(whole);
                std::str::from_utf8(&data[first..valid]).unwrap_or_default()
            }
        };
        if parts.is_empty() {
            self.out.tag_parts = parts;
            return false;
        }
        let (base, _) = self.out.push_tag_text(text);
        let local = |x: u32| base + (x - first as u32);
        for (n, &[start, name_start, name_end, value_start, value_end, tag_end]) in
            parts.iter().enumerate()
        {
            let span = if n == 0 {
                self.span(start as usize, tag_end as usize)
            } else {
                // The line break before this line, which the tag before left; the tag is
                // the line's first byte.
                self.newline(start as usize - 1);
                Span {
                    start,
                    end: tag_end,
                    line: self.line,
                    col: 1,
                }
            };
            let index = self.out.push_stored(
                (local(name_start), local(name_end)),
                (local(value_start), local(value_end)),
                span,
                false,
            );
            self.out.tokens.push(Token {
                kind: TokenKind::Tag(index),
                span,
            });
        }
        self.i = parts.last().map_or(first, |p| p[5] as usize);
        self.out.tag_parts = parts;
        self.out.content = true;
        self.token_on_line = true;
        true
    }

    /// Reads a forum's `[pgn]` or `[/pgn]` (any case) at `start`, if one stands there, as an
    /// escape: the game inside is read as if the wrapper were not there, with a warning at
    /// `[pgn]`. `Some(false)` when none stands there, `None` when the bytes end too soon to
    /// tell.
    pub(super) fn forum_wrapper(&mut self, start: usize) -> Option<bool> {
        let rest = &self.data[start..];
        let closing = rest.get(1) == Some(&b'/');
        let word = &rest[1 + usize::from(closing)..];
        if word.len() < 4 && !self.eof && b"pgn]".starts_with(&word.to_ascii_lowercase()) {
            return None;
        }
        if !word
            .get(..4)
            .is_some_and(|w| w.eq_ignore_ascii_case(b"pgn]"))
        {
            return Some(false);
        }
        let end = start + 1 + usize::from(closing) + 4;
        if !closing {
            self.problem(LexProblemKind::ForumWrapper, start, end);
        }
        self.push(TokenKind::Escape, start, end);
        self.i = end;
        Some(true)
    }

    /// Where the `[` at `start` in the movetext ends as a token: after the whole tag pair
    /// when one stands there (`[Round "2"]`, nothing escaped, within [`PASTED_TAG_MAX`]
    /// bytes), else right after the `[`. `None` when the bytes end before that is known.
    /// Only the bytes within the limit decide, however the input arrives.
    pub(super) fn pasted_tag(&self, start: usize) -> Option<usize> {
        let rest = &self.data[start..];
        let window = &rest[..rest.len().min(PASTED_TAG_MAX)];
        // On its line: a token holds no line break, which the line count would miss.
        let (window, whole) = match memchr2(b'\n', b'\r', window) {
            Some(p) => (&window[..p], true),
            None => (window, window.len() == PASTED_TAG_MAX || self.eof),
        };
        let tag = tag_head(window).and_then(|(_, value)| simple_tag_end(window, value));
        match tag {
            Some((_, end)) => Some(start + end),
            None if !whole => None,
            None => Some(start + 1),
        }
    }

    /// Records the simple tag at `self.i` (see [`simple_tag_end`]; offsets from its `[`).
    /// `None` when the general reading must decide (a value that is not UTF-8).
    fn simple_tag(
        &mut self,
        name_range: std::ops::Range<usize>,
        value: usize,
        quote: usize,
        end: usize,
    ) -> Option<()> {
        let start = self.i;
        let tag = &self.data[start..start + end];
        if self.record {
            // One validation for name and value: the name is ASCII, so both ends of the
            // value are character boundaries.
            let text = std::str::from_utf8(&tag[name_range.start..quote]).ok()?;
            let (base, text_end) = self.out.push_tag_text(text);
            let name = (base, base + name_range.len() as u32);
            let value = (base + (value - name_range.start) as u32, text_end);
            self.add_tag(name, value, start, start + end, false);
        } else {
            // Splitting only needs the tag's name (a repeated name starts a new game)
            // and where it ends: leave the value to the full lexing.
            let name = std::str::from_utf8(&tag[name_range]).unwrap_or_default();
            self.out.push_tag(name, "", Span::default(), false);
            self.out.content = true;
            self.i = start + end;
        }
        Some(())
    }

    /// Where the line of the tag at `start` ends (its first line break, or [`TAG_LINE_MAX`]
    /// bytes on); `None` when the bytes end first. Each byte is looked at once per game: a
    /// line of many tags (a file of games on one line) is searched on from where the last
    /// search stopped.
    fn tag_line_end(&mut self, start: usize) -> Option<usize> {
        let cap = start.saturating_add(TAG_LINE_MAX);
        let search_from = match self.line_search {
            Some(LineSearch { from, found, .. })
                if from <= start && found.is_some_and(|b| b >= start) =>
            {
                return found.map(|b| b.min(cap));
            }
            Some(LineSearch {
                from,
                to,
                found: None,
            }) if from <= start && to > start => to,
            _ => start,
        };
        let end = cap.min(self.data.len());
        let found =
            memchr2(b'\n', b'\r', &self.data[search_from.min(end)..end]).map(|p| search_from + p);
        self.line_search = Some(LineSearch {
            from: start,
            to: end,
            found,
        });
        match found {
            Some(b) => Some(b),
            None if end == cap || self.eof => Some(end),
            None => None,
        }
    }

    /// Whether the tag at `start` repeats a name already in this game's tags. Asked at every
    /// tag after a blank line: past a few tags the names go into a set, brought up to date at
    /// each question, so that a long tag section with blank lines costs a pass, not a square.
    /// `None` when the bytes end inside the name: `[Tag1` cut from `[Tag17 ...]` is not `Tag1`
    /// (a read's boundary once split a long tag section there).
    pub(super) fn is_repeated_tag(&mut self, start: usize) -> Option<bool> {
        const SCAN_MAX: usize = 16;
        let rest = &self.data[start + 1..];
        let name_len = rest
            .iter()
            .take_while(|&&c| c.is_ascii_alphanumeric() || c == b'_')
            .count();
        if name_len == rest.len() && !self.eof {
            return None;
        }
        let name = &rest[..name_len];
        if name.is_empty() {
            return Some(false);
        }
        let count = self.out.tag_count();
        if count <= SCAN_MAX {
            return Some(self.out.tag_names().any(|t| t == name));
        }
        let (known, set) = self.tag_name_set.get_or_insert_with(|| (0, HashSet::new()));
        set.extend(
            self.out
                .tag_names()
                .rev()
                .take(count - *known)
                .map(Box::<[u8]>::from),
        );
        *known = count;
        Some(set.contains(name))
    }

    /// Lexes `[Name "value"]` on one line. `None` means more bytes are needed.
    pub(super) fn tag(&mut self) -> Option<()> {
        let start = self.i;
        // The common tag, nothing escaped and closed by `"]` on its line, is read without
        // looking for the end of the line, which may be far (games on one line): both
        // readings stop at the line's end, so they agree.
        let line = &self.data[start..];
        if let Some((name_range, j)) = tag_head(line) {
            if let Some((quote, end)) = simple_tag_end(line, j) {
                if self.simple_tag(name_range, j, quote, end).is_some() {
                    return Some(());
                }
            }
        }
        let line_end = self.tag_line_end(start)?;
        let line = &self.data[start..line_end];
        let Some((name_range, mut j)) = tag_head(line) else {
            // Not a tag pair: skip to `]` or the end of the line.
            let end = memchr(b']', line).map_or(line.len(), |p| p + 1);
            self.problem(LexProblemKind::MalformedTag, start, start + end);
            self.push(TokenKind::Unknown, start, start + end);
            self.i = start + end;
            return Some(());
        };
        let mut raw = std::mem::take(&mut self.out.scratch);
        raw.clear();
        let mut closed = None;
        while j < line.len() {
            // Copy the run up to the next quote or backslash at once: most values have none
            // but the closing quote.
            let run = memchr2(b'"', b'\\', &line[j..]).map_or(line.len(), |p| j + p);
            raw.extend_from_slice(&line[j..run]);
            j = run;
            if j >= line.len() {
                break;
            }
            match line[j] {
                b'\\' if j + 1 < line.len() && matches!(line[j + 1], b'"' | b'\\') => {
                    raw.push(line[j + 1]);
                    j += 2;
                }
                b'"' => {
                    let mut k = j + 1;
                    while k < line.len() && is_space(line[k]) {
                        k += 1;
                    }
                    if k < line.len() && line[k] == b']' {
                        closed = Some(k + 1);
                        break;
                    }
                    // No `]` follows: an inner quote the writer forgot to escape, unless no
                    // later quote on the line could close the value.
                    if !line[j + 1..].contains(&b'"') {
                        // A closing quote without its bracket.
                        break;
                    }
                    let span_at = start + j;
                    self.problem(LexProblemKind::UnescapedQuote, span_at, span_at + 1);
                    raw.push(b'"');
                    j += 1;
                }
                c => {
                    raw.push(c);
                    j += 1;
                }
            }
        }
        let end = match closed {
            Some(end) => end,
            None => {
                // Unterminated: keep what there is, up to a final `"]` or `]` if any.
                while raw
                    .last()
                    .is_some_and(|&c| c == b']' || c == b'"' || is_space(c))
                {
                    raw.pop();
                }
                let mut e = line.len();
                while e > 0 && (line[e - 1] == b'\r' || line[e - 1] == b' ') {
                    e -= 1;
                }
                // The problem covers the tag as kept, never bytes past the game's end.
                self.problem(LexProblemKind::UnterminatedTag, start, start + e);
                e
            }
        };
        // The name is ASCII alphanumerics by construction.
        let name = self
            .out
            .push_tag_text(std::str::from_utf8(&line[name_range]).unwrap_or_default());
        let (value, invalid_utf8) = match std::str::from_utf8(&raw) {
            Ok(s) => (self.out.push_tag_text(s), false),
            Err(_) => (self.out.push_tag_text(&escape_invalid(&raw)), true),
        };
        self.out.scratch = raw;
        self.add_tag(name, value, start, start + end, invalid_utf8);
        Some(())
    }

    /// Records a tag read from `start..end` (its token too, when recording).
    fn add_tag(
        &mut self,
        name: (u32, u32),
        value: (u32, u32),
        start: usize,
        end: usize,
        invalid_utf8: bool,
    ) {
        let span = self.span(start, end);
        if invalid_utf8 {
            self.out.problems.push(LexProblem {
                kind: LexProblemKind::InvalidUtf8Tag,
                span,
            });
        }
        let index = self.out.push_stored(name, value, span, invalid_utf8);
        self.out.content = true;
        if self.record {
            self.out.tokens.push(Token {
                kind: TokenKind::Tag(index),
                span,
            });
        }
        self.i = end;
    }
}

/// Bytes of a tag name: letters, digits and `_`.
pub(super) static TAG_NAME: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = (b as u8).is_ascii_alphanumeric() || b == b'_' as usize;
        b += 1;
    }
    table
};

/// Where the white space within a line (what [`is_space`] is but a line break) ends in
/// `line`, from `j`.
#[inline]
fn line_spaces(line: &[u8], mut j: usize) -> usize {
    while j < line.len() && line[j] != b'\n' && is_space(line[j]) && !is_bare_cr(line, j) {
        j += 1;
    }
    j
}

/// The head of a tag pair line (from its `[`): the range of the tag's name and where its value
/// begins, after the opening quote. `None` when the line is no tag pair. Reads no further
/// than the line: `line` may run on past its line break.
pub(crate) fn tag_head(line: &[u8]) -> Option<(std::ops::Range<usize>, usize)> {
    let mut j = line_spaces(line, 1);
    let name_start = j;
    while j < line.len() && TAG_NAME[usize::from(line[j])] {
        j += 1;
    }
    let name = name_start..j;
    j = line_spaces(line, j);
    if name.is_empty() || j >= line.len() || line[j] != b'"' {
        return None;
    }
    Some((name, j + 1))
}

/// For a tag whose value (from `value` on) holds no quote or backslash and whose closing
/// quote is followed by `]` on the same line: where that quote is and where the tag ends.
/// That case needs no unescaping, and the general reading would end the tag at the same
/// byte. (An invalid UTF-8 value still goes the general way, which reports it.) Reads no
/// further than the line.
pub(crate) fn simple_tag_end(line: &[u8], value: usize) -> Option<(usize, usize)> {
    let quote = value + memchr3(b'"', b'\\', b'\n', &line[value..])?;
    // A `\r` in the value may be a line break: the general reading decides.
    if line[quote] != b'"' || memchr(b'\r', &line[value..quote]).is_some() {
        return None;
    }
    let k = line_spaces(line, quote + 1);
    if k >= line.len() || line[k] != b']' {
        return None;
    }
    Some((quote, k + 1))
}

/// A line that is exactly one tag pair with nothing escaped in its value (see
/// [`simple_tag_end`]) and nothing but spaces after it: the lexer reads it as one tag and
/// nothing else. Offsets from the line's start.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct SimpleTag {
    pub name: std::ops::Range<usize>,
    /// Where the value starts (after its opening quote).
    pub value: usize,
    /// The value's closing quote.
    pub quote: usize,
    /// Where the tag ends (after its `]`).
    pub end: usize,
    /// Where the line ends: its line break, or the end of `line` when it has none.
    pub line_end: usize,
}

/// Bytes that end a simple tag value: its closing quote, or what sends the tag elsewhere.
static VALUE_END: [bool; 256] = {
    let mut table = [false; 256];
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table[b'\n' as usize] = true;
    table[b'\r' as usize] = true;
    table
};

/// The tag line as nearly every file writes it, `[Name "value"]` and its line break with no
/// other space, read in one pass without a search call: [`spaced_tag_line`] reads the same
/// line the same way, and every other line.
#[inline(always)]
fn common_tag_line(line: &[u8]) -> Option<SimpleTag> {
    let mut j = 1;
    while j < line.len() && TAG_NAME[usize::from(line[j])] {
        j += 1;
    }
    if j == 1 || line.get(j..j + 2) != Some(b" \"") {
        return None;
    }
    let name = 1..j;
    let value = j + 2;
    let mut quote = value;
    while quote < line.len() && !VALUE_END[usize::from(line[quote])] {
        quote += 1;
    }
    if line.get(quote..quote + 3) != Some(b"\"]\n") {
        return None;
    }
    Some(SimpleTag {
        name,
        value,
        quote,
        end: quote + 2,
        line_end: quote + 2,
    })
}

/// [`common_tag_line`] for any spacing the lexer allows around the name, the value and
/// the closing bracket.
fn spaced_tag_line(line: &[u8]) -> Option<SimpleTag> {
    let (name, value) = tag_head(line)?;
    let (quote, end) = simple_tag_end(line, value)?;
    let line_end = line_spaces(line, end);
    if line_end < line.len() && line[line_end] != b'\n' {
        return None;
    }
    Some(SimpleTag {
        name,
        value,
        quote,
        end,
        line_end,
    })
}

/// Whether `s` starts like a tag pair line: `[Name "`.
pub(crate) fn looks_like_tag(s: &[u8]) -> bool {
    if s.first() != Some(&b'[') {
        return false;
    }
    let name = s[1..]
        .iter()
        .take_while(|&&c| TAG_NAME[usize::from(c)])
        .count();
    if name == 0 || !s[1].is_ascii_alphabetic() {
        return false;
    }
    let rest = &s[1 + name..];
    let spaces = rest
        .iter()
        .take_while(|&&c| c == b' ' || c == b'\t')
        .count();
    spaces > 0 && rest.get(spaces) == Some(&b'"')
}

/// Shows bytes that are not UTF-8 as `\xNN`.
pub(crate) fn escape_invalid(bytes: &[u8]) -> String {
    let mut out = String::new();
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use crate::pgn::{lex_game_tags, Lexed, Movetext, TokenKind};

    thread_local! {
        /// Set by a test: the lexer reads every tag by itself, as [`Lexer::tag_lines`] must
        /// read the same.
        pub(super) static ONE_TAG_AT_A_TIME: Cell<bool> = const { Cell::new(false) };
    }

    /// What a lexing found, for comparing two: tokens, tags, problems and where it ended
    /// (and where the movetext is, after [`lex_game_tags`]).
    fn found(lexed: &Lexed, movetext: Option<Movetext>) -> String {
        let tags: Vec<_> = lexed.tags().collect();
        format!(
            "{:?} {tags:?} {:?} {} {} {} {movetext:?}",
            lexed.tokens, lexed.problems, lexed.end_line, lexed.content, lexed.has_result,
        )
    }

    #[test]
    fn tag_lines_read_as_one_tag_at_a_time() {
        use crate::pgn::{lex_game, lexer::lex_game_mode};
        // Tag lines the section reading takes and lines it leaves to the one-tag reading.
        let lines: [&[u8]; 14] = [
            b"[Event \"x\"]\n",
            b"[Site \"\xC3\xA9\"]\r\n",
            b"[Round  \"1\" ] \n",
            b"[White \"a\\\"b\"]\n",
            b"[Black \"\xFF\"]\n",
            b"[Event \"y\"]\xE3\x80\x80\n",
            b"[Date \"?\"]\r",
            b"\n",
            b"{c}\n",
            b"[pgn]\n",
            b"  [Result \"*\"]\n",
            b"[Event \"z\"][Site \"w\"]\n",
            b"[Annotator \"q",
            b"[ECO \"B90\"]\n",
        ];
        let endings: [&[u8]; 3] = [b"", b"\n1. e4 e5 *\n", b"[Event \"next\"]\n"];
        // Every sequence of up to three lines, with each ending: a few thousand inputs.
        let mut inputs = vec![Vec::new()];
        for _ in 0..3 {
            let longer: Vec<Vec<u8>> = inputs
                .iter()
                .flat_map(|s: &Vec<u8>| lines.iter().map(move |l| [s.as_slice(), l].concat()))
                .collect();
            inputs.extend(longer);
        }
        inputs.sort();
        inputs.dedup();
        for input in &inputs {
            for ending in endings {
                let data = [input.as_slice(), ending].concat();
                for (eof, col) in [(true, 1), (false, 1), (true, 5)] {
                    let lex = |one: bool| {
                        ONE_TAG_AT_A_TIME.with(|c| c.set(one));
                        let (mut whole, mut tags) = (Lexed::default(), Lexed::default());
                        let end = lex_game_mode(&data, eof, 3, col, true, &mut whole);
                        let movetext = lex_game_tags(&data, 3, col, &mut tags);
                        ONE_TAG_AT_A_TIME.with(|c| c.set(false));
                        (end, found(&whole, None), found(&tags, Some(movetext)))
                    };
                    assert_eq!(
                        lex(false),
                        lex(true),
                        "{:?} eof {eof} column {col}",
                        String::from_utf8_lossy(&data)
                    );
                }
            }
        }
        // The common section is read at once, with its lines and columns.
        let mut lexed = Lexed::default();
        lex_game(b"[A \"1\"]\r\n[B \"2\"]\n\n*", true, 7, &mut lexed);
        let spans: Vec<_> = lexed.tags().map(|t| (t.span.line, t.span.col)).collect();
        assert_eq!(spans, [(7, 1), (8, 1)]);
    }

    /// Where `lex_game_tags` says the movetext starts, as the text from there on; `None`
    /// when it lexed the game whole.
    fn movetext_of(pgn: &str) -> Option<&str> {
        let mut lexed = Lexed::default();
        let movetext = lex_game_tags(pgn.as_bytes(), 1, 1, &mut lexed);
        let kinds_ok = lexed
            .tokens
            .iter()
            .all(|t| matches!(t.kind, TokenKind::Tag(_)));
        movetext.start().map(|m| {
            assert!(kinds_ok, "only tags before the movetext of {pgn:?}");
            &pgn[m.offset..]
        })
    }

    #[test]
    fn a_game_surely_ends_by_the_last_tag_line() {
        use crate::pgn::lexer::last_tag_line;
        let game = b"[Event \"a\"]\n\n1. e4 {x\n[%clk 1]\n[Event\"b\"]} e5\r\n[Event \"c\"]\n";
        let end = last_tag_line(game).expect("a tag line follows");
        assert_eq!(&game[end..end + 3], b"\r\n[");
        // The game lexes the same on the bytes up to there, taken as the whole input.
        let (mut cut, mut full) = (Lexed::default(), Lexed::default());
        assert_eq!(
            crate::pgn::lex_game(&game[..end], true, 1, &mut cut),
            crate::pgn::lex_game(game, false, 1, &mut full)
        );
        assert_eq!(cut.tokens, full.tokens);
        assert_eq!(cut.problems, full.problems);
        // No other line starts like a tag pair: `[%clk` and `[Event"b"]` do not.
        assert_eq!(last_tag_line(&game[..end]), None);
    }

    #[test]
    fn comments_after_the_tags_begin_the_movetext_unless_tags_follow() {
        let tags = "[Event \"a\"]\n\n";
        for (movetext, starts) in [
            ("1. e4 *", true),
            ("{c} 1. e4 *", true),
            ("{c}\n; d\n%e\n{f} (1. d4) 1. e4 *", true),
            // The tag section goes on after the comment, or a `)` leaves it open.
            ("{c}\n[Site \"b\"]\n\n1. e4 *", false),
            ("{c} ; d\n[Site \"b\"]\n\n1. e4 *", false),
            (") 1. e4 *", false),
            // A comment left open, and no movetext after all.
            ("{open\n1. e4 *", false),
            ("{c}", false),
        ] {
            let pgn = format!("{tags}{movetext}");
            assert_eq!(
                movetext_of(&pgn),
                starts.then_some(movetext),
                "{movetext:?}"
            );
        }
    }

    #[test]
    fn the_common_tag_line_reads_as_the_spaced_one() {
        use super::{common_tag_line, spaced_tag_line};
        let common: [&[u8]; 5] = [
            b"[Event \"x\"]\n",
            b"[Event \"\"]\n",
            b"[_x1 \"y z\"]\n[Site \"?\"]\n",
            b"[Event \"\xC3\xA9\"]\n",
            b"[Result \"1-0\"]\n\n1. e4",
        ];
        let others: [&[u8]; 12] = [
            b"[Event \"x\"]\r\n",
            b"[Event  \"x\"]\n",
            b"[Event\"x\"]\n",
            b"[Event \"x\" ]\n",
            b"[Event \"x\"] \n",
            b"[Event \"a\\\"b\"]\n",
            b"[ Event \"x\"]\n",
            b"[Event \"x\"]",
            b"[Event \"x\"]]\n",
            b"[Ev-ent \"x\"]\n",
            b"[Event \"x\n\"]\n",
            b"[Event \"x",
        ];
        for line in common {
            let tag = common_tag_line(line);
            assert!(tag.is_some(), "{:?}", String::from_utf8_lossy(line));
            assert_eq!(
                tag,
                spaced_tag_line(line),
                "{:?}",
                String::from_utf8_lossy(line)
            );
        }
        for line in others {
            assert_eq!(
                common_tag_line(line),
                None,
                "{:?}",
                String::from_utf8_lossy(line)
            );
        }
    }
}
