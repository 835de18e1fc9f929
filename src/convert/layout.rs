//! The movetext laid out as a keeper asks (`--layout`, `--line-width`, the move-number
//! options): pgnkit's own layout with another width or numbering, or PGN's export format as
//! pgn-extract writes it (§8.2: `1. e4`, `{ comment }`, lines of at most 75 columns by
//! default). pgnkit's usual layout, without these options, is [`super::pgn::write_movetext`]'s.

use std::fmt::Write as _;

use super::{number_prefix, Collector, Element};
use crate::pgn::GameResult;
use crate::report::display_width;

/// Which moves get their number.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MoveNumbers {
    /// White's moves, and Black's at the start of a line of play or after a comment or a
    /// variation (PGN's rule).
    #[default]
    Usual,
    /// None (`--no-move-numbers`, pgn-extract's `--nomovenumbers`).
    None,
    /// Every move, Black's as `1...` (`--every-move-number`).
    Every,
}

/// The layout of a game's text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Layout {
    /// pgnkit's: `1.e4`, `{comment}`, lines of at most 80 columns.
    #[default]
    Pgnkit,
    /// PGN's export format as pgn-extract writes it: `1. e4`, `{ comment }`, lines of at most
    /// 75 columns, a comment before the first move on lines of its own.
    Export,
}

impl Layout {
    /// The longest line of its movetext, in columns, unless `--line-width` says otherwise.
    pub fn width(self) -> usize {
        match self {
            Layout::Pgnkit => super::pgn::LINE_WIDTH,
            Layout::Export => 75,
        }
    }
}

/// How the movetext is written.
#[derive(Clone, Copy, Debug)]
pub(super) struct Style {
    pub(super) layout: Layout,
    pub(super) width: usize,
    pub(super) numbers: MoveNumbers,
    /// No `+` or `#` after a move (`--no-checks`).
    pub(super) no_checks: bool,
    /// No result after the moves (`--no-results`).
    pub(super) no_results: bool,
}

/// Fills lines of words up to a width; a `(` joins the word after it, a `)` the word before.
struct Filler<'a> {
    out: &'a mut String,
    /// Columns of the line being filled.
    col: usize,
    width: usize,
    open: String,
    /// The next word joins the last one without a space when it fits on the line (after an
    /// export layout's `(`).
    glue: bool,
}

impl Filler<'_> {
    fn word(&mut self, w: &str) {
        let cols = self.open.len() + display_width(w);
        // After a `(`, no space; the word still goes to the next line when it does not fit.
        let space = usize::from(!std::mem::take(&mut self.glue));
        if self.col > 0 {
            // A word that would read, at the start of a line, as a tag pair or a `%` escape
            // line stays on this one, however long.
            let first = if self.open.is_empty() { w } else { "(" };
            let breaks_meaning = first.starts_with('%')
                || (first.starts_with('[')
                    && first.as_bytes().get(1).is_some_and(u8::is_ascii_alphabetic));
            if self.col + space + cols > self.width && !breaks_meaning {
                self.out.push('\n');
                self.col = 0;
            } else if space == 1 {
                self.out.push(' ');
                self.col += 1;
            }
        }
        self.out.push_str(&self.open);
        self.open.clear();
        self.out.push_str(w);
        self.col += cols;
    }

    fn close(&mut self) {
        if self.glue {
            // An empty variation.
            self.glue = false;
            self.out.push(')');
            self.col += 1;
        } else if !self.open.is_empty() {
            self.open.push(')');
        } else if self.col > 0 {
            self.out.push(')');
            self.col += 1;
        } else {
            self.word(")");
        }
    }

    /// A `;` comment, for text holding a `}`: it runs to the end of its line.
    fn line_comment(&mut self, text: &str) {
        if self.col > 0 {
            self.out.push(' ');
        }
        self.out.push_str(&self.open);
        self.open.clear();
        self.out.push(';');
        self.out.push_str(text.trim_end());
        self.out.push('\n');
        self.col = 0;
    }

    fn comment(&mut self, text: &str, layout: Layout) {
        // Words parted as the usual layout parts them (a Unicode space is text).
        let mut words = super::pgn::comment_words(text).peekable();
        match layout {
            Layout::Export => {
                self.word("{");
                for w in words {
                    self.word(w);
                }
                self.word("}");
            }
            Layout::Pgnkit if words.peek().is_none() => self.word("{}"),
            Layout::Pgnkit => {
                let mut word = String::new();
                let mut first = true;
                while let Some(w) = words.next() {
                    word.clear();
                    if first {
                        word.push('{');
                    }
                    word.push_str(w);
                    if words.peek().is_none() {
                        word.push('}');
                    }
                    self.word(&word);
                    first = false;
                }
            }
        }
    }

    fn end_line(&mut self) {
        if self.col > 0 {
            self.out.push('\n');
            self.col = 0;
        }
    }
}

/// Appends the movetext laid out as `style` says, and a line break after the result.
pub(super) fn write_movetext(
    elements: &[Element<'_>],
    collector: &Collector,
    result: GameResult,
    style: Style,
    out: &mut String,
) {
    let mut lines = Filler {
        out,
        col: 0,
        width: style.width.max(1),
        open: String::new(),
        glue: false,
    };
    let export = style.layout == Layout::Export;
    let mut word = String::new();
    let mut need_number = true;
    let mut started = false;
    for el in elements {
        match el {
            Element::Move(i) => {
                if export && !started {
                    // pgn-extract writes the comments before the first move on lines of
                    // their own, and a blank line after them.
                    if lines.col > 0 {
                        lines.end_line();
                        lines.out.push('\n');
                    }
                }
                started = true;
                let ply = &collector.plies[*i];
                word.clear();
                let numbered = match style.numbers {
                    MoveNumbers::Usual => ply.white || need_number,
                    MoveNumbers::None => false,
                    MoveNumbers::Every => true,
                };
                if numbered {
                    number_prefix(ply.number, ply.white, &mut word);
                    if export {
                        lines.word(&word);
                        word.clear();
                    }
                }
                let written = collector.written(ply);
                if style.no_checks {
                    word.push_str(written.trim_end_matches(['+', '#']));
                } else {
                    word.push_str(written);
                }
                lines.word(&word);
                need_number = false;
                if let Some(from) = &ply.repaired_from {
                    word.clear();
                    number_prefix(ply.number, ply.white, &mut word);
                    let _ = write!(word, "{from} read as {}", collector.written(ply));
                    lines.comment(&word, style.layout);
                    need_number = true;
                }
            }
            Element::Null(_) => {
                lines.word("--");
                need_number = true;
            }
            Element::Comment(text) if text.contains('}') => lines.line_comment(text),
            Element::Comment(text) => {
                lines.comment(text, style.layout);
                need_number = true;
            }
            Element::Nag(n) => {
                word.clear();
                let _ = write!(word, "${n}");
                lines.word(&word);
            }
            // pgn-extract writes a `(` as a word of its own, which may end a line, and the
            // word after it joined to it.
            Element::VariationStart if export => {
                lines.word("(");
                lines.glue = true;
                need_number = true;
            }
            Element::VariationStart => {
                lines.open.push('(');
                need_number = true;
            }
            Element::VariationEnd => {
                lines.close();
                need_number = true;
            }
            Element::Raw(text) => {
                lines.word(text);
                need_number = true;
            }
        }
    }
    if export && !started && lines.col > 0 {
        lines.end_line();
        lines.out.push('\n');
    }
    if !style.no_results {
        lines.word(result.as_str());
    }
    lines.end_line();
}
