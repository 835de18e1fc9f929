//! PGN text: the streaming game reader, the lexer (tokens with byte spans), and tags.

pub mod book;
pub mod lexer;
pub mod reader;

pub use lexer::{
    lex_game, GameResult, LexEnd, LexProblem, LexProblemKind, Lexed, Span, Tag, Token, TokenKind,
};
pub use reader::{GameReader, RawGame};
