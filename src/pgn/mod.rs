//! PGN text: the streaming game reader, the lexer (tokens with byte spans), and tags.

pub mod book;
pub mod cut;
pub mod date;
pub mod lexer;
pub(crate) mod movetext;
pub mod reader;

pub use lexer::{
    lex_game, lex_game_tags, GameResult, KnownTag, KnownTags, LexEnd, LexProblem, LexProblemKind,
    Lexed, Movetext, MovetextStart, Span, Tag, Token, TokenKind,
};
pub(crate) use lexer::{lex_game_tags_open, movetext_end};
pub use reader::GameReader;
pub(crate) use reader::{Origin, PieceEnd, Unread};

/// A tag value as PGN quotes it, handed to `out` in pieces: `"` and `\` escaped, a line
/// break (which a tag cannot hold) as a space, and the stretches between them as they are
/// (the bytes escaped are ASCII, so every cut falls on a character's boundary). Most values
/// need no escape and go in one piece.
pub(crate) fn quote_tag_value(value: &str, mut out: impl FnMut(&str)) {
    let mut from = 0;
    for (i, b) in value.bytes().enumerate() {
        let escaped = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' | b'\r' => " ",
            _ => continue,
        };
        out(&value[from..i]);
        out(escaped);
        from = i + 1;
    }
    out(&value[from..]);
}
