//! PGN text: the streaming game reader, the lexer (tokens with byte spans), and tags.

pub mod book;
pub mod cut;
pub mod date;
pub mod lexer;
pub mod reader;

pub use lexer::{
    lex_game, lex_game_tags, GameResult, KnownTag, KnownTags, LexEnd, LexProblem, LexProblemKind,
    Lexed, MovetextStart, Span, Tag, Token, TokenKind,
};
pub(crate) use lexer::{lex_game_at, lex_game_tags_open, lex_rest, Resume};
pub use reader::{GameReader, Origin, Peeked, RawGame};
